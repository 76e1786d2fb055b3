/* SPDX-License-Identifier: MIT */
/* work.c: see work.h. */
#include "maps/base/work.h"

#include <stdlib.h>
#include <string.h>

struct map_work_slot *map_work_slots_new(unsigned ncpus)
{
	struct map_work_slot *s = aligned_alloc(64, sizeof(*s) * ncpus);
	if (s)
		memset(s, 0, sizeof(*s) * ncpus);
	return s;
}

static void add_slot(const struct map_work_slot *s, struct map_work *w)
{
	w->evictions += atomic_load_explicit(&s->evictions, memory_order_relaxed);
	w->refills += atomic_load_explicit(&s->refills, memory_order_relaxed);
	w->nodes_scanned += atomic_load_explicit(&s->nodes_scanned,
						 memory_order_relaxed);
	w->locks += atomic_load_explicit(&s->locks, memory_order_relaxed);
	w->allocations += atomic_load_explicit(&s->allocations,
					       memory_order_relaxed);
	w->steals += atomic_load_explicit(&s->steals, memory_order_relaxed);
	w->lock_ns += atomic_load_explicit(&s->lock_ns, memory_order_relaxed);
}

void map_work_sum(const struct map_work_slot *slots, unsigned ncpus, int cpu,
		  struct map_work *w)
{
	for (unsigned c = 0; c < ncpus; c++)
		if (cpu < 0 || (unsigned)cpu == c)
			add_slot(&slots[c], w);
}
