/* SPDX-License-Identifier: MIT */
#include "maps/base/pcpu_freelist.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int pcpu_freelist_init(struct pcpu_freelist *fl, unsigned ncpus)
{
	fl->heads = aligned_alloc(64, sizeof(*fl->heads) * ncpus);
	if (!fl->heads)
		return -ENOMEM;
	fl->ncpus = ncpus;
	for (unsigned i = 0; i < ncpus; i++) {
		map_spin_init(&fl->heads[i].lock);
		atomic_init(&fl->heads[i].first, NULL);
	}
	return 0;
}

void pcpu_freelist_destroy(struct pcpu_freelist *fl)
{
	free(fl->heads);
	fl->heads = NULL;
}

static void push_locked(struct pcpu_freelist_head *h,
			struct pcpu_freelist_node *node)
{
	node->next = atomic_load_explicit(&h->first, memory_order_relaxed);
	atomic_store_explicit(&h->first, node, memory_order_relaxed);
}

void pcpu_freelist_populate(struct pcpu_freelist *fl, void *buf,
			    size_t elem_size, size_t node_offset, size_t nr)
{
	size_t per_cpu = nr / fl->ncpus, extra = nr % fl->ncpus;
	uint8_t *p = buf;

	for (unsigned cpu = 0; cpu < fl->ncpus; cpu++) {
		size_t n = per_cpu + (cpu < extra ? 1 : 0);
		for (size_t i = 0; i < n; i++, p += elem_size)
			push_locked(&fl->heads[cpu],
				    (struct pcpu_freelist_node *)(p + node_offset));
	}
}

void pcpu_freelist_push(struct pcpu_freelist *fl, unsigned cpu,
			struct pcpu_freelist_node *node)
{
	struct pcpu_freelist_head *h = &fl->heads[cpu];

	map_spin_lock(&h->lock);
	push_locked(h, node);
	map_spin_unlock(&h->lock);
}

struct pcpu_freelist_node *pcpu_freelist_pop(struct pcpu_freelist *fl,
					     unsigned cpu)
{
	for (unsigned i = 0; i < fl->ncpus; i++) {
		struct pcpu_freelist_head *h = &fl->heads[(cpu + i) % fl->ncpus];

		/* An unlocked peek: a full map's failed insert must not take
		 * every slot's lock (the kernel's 2022 fix for the same cost). */
		if (!atomic_load_explicit(&h->first, memory_order_relaxed))
			continue;
		map_spin_lock(&h->lock);
		struct pcpu_freelist_node *node =
			atomic_load_explicit(&h->first, memory_order_relaxed);
		if (node)
			atomic_store_explicit(&h->first, node->next,
					      memory_order_relaxed);
		map_spin_unlock(&h->lock);
		if (node)
			return node;
	}
	return NULL;
}
