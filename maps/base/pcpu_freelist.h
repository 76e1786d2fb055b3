/* SPDX-License-Identifier: MIT */
/*
 * pcpu_freelist.h: a pool of preallocated elements spread over cpu slots,
 * after the kernel's kernel/bpf/percpu_freelist.c.
 *
 *   slot 0: [lock] -> e -> e -> e
 *   slot 1: [lock] -> e -> e
 *   ...
 *
 * Push puts an element on the caller's slot list.  Pop tries the caller's
 * slot first, then every other slot in wrap-around order, skipping empty
 * heads without taking their lock; NULL means the pool is empty (the hash
 * map's -E2BIG).  Each head has its own lock because any slot may pop from
 * any list.
 *
 * The pool owns no memory: the design allocates the elements and embeds a
 * struct pcpu_freelist_node in each.
 */
#ifndef MAPLAB_PCPU_FREELIST_H
#define MAPLAB_PCPU_FREELIST_H

#include "maps/base/lock.h"

#include <stddef.h>

struct pcpu_freelist_node {
	struct pcpu_freelist_node *next;
};

struct pcpu_freelist_head {
	struct map_spinlock lock;
	_Atomic(struct pcpu_freelist_node *) first; /* written under lock */
} __attribute__((aligned(64)));

struct pcpu_freelist {
	struct pcpu_freelist_head *heads;
	unsigned ncpus;
};

/* 0 or -ENOMEM. */
int pcpu_freelist_init(struct pcpu_freelist *fl, unsigned ncpus);
void pcpu_freelist_destroy(struct pcpu_freelist *fl);

/*
 * Spread nr elements, elem_size bytes apart starting at buf, with their node
 * node_offset bytes into each, over the slots: the first nr % ncpus slots get
 * one more than the others.  Single-threaded (before the map is shared).
 */
void pcpu_freelist_populate(struct pcpu_freelist *fl, void *buf,
			    size_t elem_size, size_t node_offset, size_t nr);

void pcpu_freelist_push(struct pcpu_freelist *fl, unsigned cpu,
			struct pcpu_freelist_node *node);
struct pcpu_freelist_node *pcpu_freelist_pop(struct pcpu_freelist *fl,
					     unsigned cpu);

#endif /* MAPLAB_PCPU_FREELIST_H */
