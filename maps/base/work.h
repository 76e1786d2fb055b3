/* SPDX-License-Identifier: MIT */
/*
 * work.h: a design's work counters (map_ops.work), one set per cpu slot
 * on a line of its own, each written only by its slot's thread with
 * relaxed stores (no atomic add: no other writer), read by anyone with
 * relaxed loads.  The LRU designs count evictions, refills, list nodes
 * and locks; lpm_trie/linux counts trie nodes visited, locks, nodes
 * allocated and the time its writer lock is held.
 */
#ifndef MAPLAB_WORK_H
#define MAPLAB_WORK_H

#include "maps/base/lock.h"
#include "maps/base/map.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

struct map_work_slot {
	_Atomic uint64_t evictions, refills, nodes_scanned, locks, allocations;
	_Atomic uint64_t steals;
	_Atomic uint64_t lock_ns; /* map_work.lock_ns: see map_work_clock_ns */
} __attribute__((aligned(64)));

/* Count work on slot cpu (only that slot's thread calls these). */
static inline void map_work_count(_Atomic uint64_t *counter, uint64_t n)
{
	atomic_store_explicit(counter, atomic_load_explicit(counter,
				memory_order_relaxed) + n, memory_order_relaxed);
}

/*
 * The clock of lock hold times: CLOCK_MONOTONIC in ns, the harness's clock
 * (harness/common/clock.h, a layer maps/ cannot include), read through the
 * vDSO in about 20 ns.  A design reads it once just after it takes the lock
 * and once just after it releases it, and counts the difference.
 *
 * The two reads are not free: both add to the op's own time (its ns/op),
 * and the first lies inside the held section, so other writers wait the
 * length of one read longer; the second, taken after the release, holds no
 * one up.  lock_ns so counts about one read more than the section itself.
 * That is acceptable: an update or delete holds the lock for hundreds of
 * ns, every op that takes the lock pays the same, and the figure is there
 * to compare hold times between workloads and thread counts, not to be a
 * latency to the nanosecond.  A holder that is descheduled (a user thread
 * can be, a kernel holder with interrupts off cannot) counts the time it
 * was away: the other writers waited that long too.
 */
static inline uint64_t map_work_clock_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Take a writer lock, counted on slot w; returns when it was taken, for
 * map_work_unlock.  The clock is read after the lock is taken: the wait
 * for it is not hold time. */
static inline uint64_t map_work_lock(struct map_spinlock *l,
				     struct map_work_slot *w)
{
	map_spin_lock(l);
	map_work_count(&w->locks, 1);
	return map_work_clock_ns();
}

/* Release it, then count the time it was held since taken (the clock
 * read after the release: it holds no other writer up). */
static inline void map_work_unlock(struct map_spinlock *l,
				   struct map_work_slot *w, uint64_t taken)
{
	map_spin_unlock(l);
	map_work_count(&w->lock_ns, map_work_clock_ns() - taken);
}

/* A design's ncpus slots, zeroed, each on its own cache line (free() them
 * when the map goes): NULL when memory is short. */
struct map_work_slot *map_work_slots_new(unsigned ncpus);

/* map_ops.work over slots[0..ncpus-1]: cpu's alone, or all for cpu < 0. */
void map_work_sum(const struct map_work_slot *slots, unsigned ncpus, int cpu,
		  struct map_work *w);

#endif /* MAPLAB_WORK_H */
