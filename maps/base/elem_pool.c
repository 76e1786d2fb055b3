/* SPDX-License-Identifier: MIT */
/* elem_pool.c: see elem_pool.h. */
#include "maps/base/elem_pool.h"
#include "maps/base/area.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int elem_pool_init(struct elem_pool *p, uint32_t max_entries, unsigned ncpus,
		   size_t elem_size, size_t link_offset)
{
	size_t total = (size_t)max_entries + ncpus;
	memset(p, 0, sizeof(*p));
	p->elem_size = elem_size;
	p->link_offset = link_offset;
	p->n_elems = (uint32_t)total;
	p->elems = map_area_alloc_array(total, elem_size, 64);
	p->extra = map_area_alloc_array(ncpus, sizeof(*p->extra), 64);
	if (!p->elems || !p->extra || pcpu_freelist_init(&p->freelist, ncpus))
		return -ENOMEM;
	memset(p->elems, 0, total * elem_size);
	pcpu_freelist_populate(&p->freelist, p->elems, elem_size, link_offset,
			       total);
	/* One spare per slot, taken from the pool as the kernel's
	 * alloc_extra_elems does, so the pool holds exactly max_entries. */
	for (unsigned cpu = 0; cpu < ncpus; cpu++)
		p->extra[cpu].elem = elem_pool_pop(p, 0);
	return 0;
}

void elem_pool_destroy(struct elem_pool *p)
{
	if (p->freelist.heads)
		pcpu_freelist_destroy(&p->freelist);
	free(p->extra);
	free(p->elems);
	memset(p, 0, sizeof(*p));
}

void *elem_pool_pop(struct elem_pool *p, unsigned cpu)
{
	struct pcpu_freelist_node *f = pcpu_freelist_pop(&p->freelist, cpu);
	return f ? (uint8_t *)f - p->link_offset : NULL;
}

void elem_pool_push(struct elem_pool *p, unsigned cpu, void *e)
{
	pcpu_freelist_push(&p->freelist, cpu,
			   (struct pcpu_freelist_node *)((uint8_t *)e +
							 p->link_offset));
}

void *elem_pool_swap_extra(struct elem_pool *p, unsigned cpu, void *old)
{
	void *e = p->extra[cpu].elem;
	p->extra[cpu].elem = old;
	return e;
}
