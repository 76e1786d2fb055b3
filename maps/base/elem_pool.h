/* SPDX-License-Identifier: MIT */
/*
 * elem_pool.h: the preallocated elements of a BPF hash map, as the kernel's
 * prealloc htab keeps them: max_entries elements in a per-cpu free list
 * (pcpu_freelist.h) and one spare "extra" element per cpu slot, which a
 * replace fills while the replaced element becomes the slot's new extra
 * (kernel/bpf/hashtab.c, alloc_extra_elems).  So a full map can still
 * replace a key, and an insert into a full map fails (-E2BIG).
 *
 *   elems: [e0][e1]...[e(max_entries + ncpus - 1)]   elem_size bytes each
 *          the design's layout; a struct pcpu_freelist_node at link_offset
 *
 * Elements are reused at once, without waiting for readers: the designs
 * say what their readers see.  Only a slot's own thread touches its extra.
 */
#ifndef MAPLAB_ELEM_POOL_H
#define MAPLAB_ELEM_POOL_H

#include "maps/base/pcpu_freelist.h"

#include <stddef.h>
#include <stdint.h>

struct elem_pool_extra {
	void *elem;
} __attribute__((aligned(64))); /* every replace writes it: a line each */

struct elem_pool {
	uint8_t *elems;
	size_t elem_size, link_offset;
	uint32_t n_elems; /* max_entries + ncpus */
	struct pcpu_freelist freelist;
	struct elem_pool_extra *extra; /* [ncpus] */
};

/* 0 or -ENOMEM (elem_pool_destroy frees what was made). */
int elem_pool_init(struct elem_pool *p, uint32_t max_entries, unsigned ncpus,
		   size_t elem_size, size_t link_offset);
void elem_pool_destroy(struct elem_pool *p);

/* A free element for a new key, or NULL when max_entries are in use. */
void *elem_pool_pop(struct elem_pool *p, unsigned cpu);
/* e no longer linked: free again. */
void elem_pool_push(struct elem_pool *p, unsigned cpu, void *e);
/* The slot's extra, for a replace of old; old becomes the extra. */
void *elem_pool_swap_extra(struct elem_pool *p, unsigned cpu, void *old);

#endif /* MAPLAB_ELEM_POOL_H */
