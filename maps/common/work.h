/* SPDX-License-Identifier: MIT */
/*
 * work.h: a design's work counters (map_ops.work), one set per cpu slot
 * on a line of its own, each written only by its slot's thread with
 * relaxed stores (no atomic add: no other writer), read by anyone with
 * relaxed loads.  The LRU designs count evictions, refills, list nodes
 * and locks; lpm_trie/linux counts trie nodes visited, locks and nodes
 * allocated.
 */
#ifndef MAPLAB_WORK_H
#define MAPLAB_WORK_H

#include "map.h"

#include <stdatomic.h>
#include <stdint.h>

struct map_work_slot {
	_Atomic uint64_t evictions, refills, nodes_scanned, locks, allocations;
} __attribute__((aligned(64)));

/* Count work on slot cpu (only that slot's thread calls these). */
static inline void map_work_count(_Atomic uint64_t *counter, uint64_t n)
{
	atomic_store_explicit(counter, atomic_load_explicit(counter,
				memory_order_relaxed) + n, memory_order_relaxed);
}

/* map_ops.work over slots[0..ncpus-1]: cpu's alone, or all for cpu < 0. */
void map_work_sum(const struct map_work_slot *slots, unsigned ncpus, int cpu,
		  struct map_work *w);

#endif /* MAPLAB_WORK_H */
