/* SPDX-License-Identifier: MIT */
/*
 * cpu.h: cpu slots, maplab's model of "the CPU this code runs on".
 *
 * A slot is a number 0..MAP_MAX_CPUS-1 that a thread claims and keeps until
 * it releases it or exits.  Per-CPU structures in a design (free lists, LRU local
 * lists, extra elements) are indexed by the slot, so they stay consistent
 * when the scheduler migrates the thread: the slot moves with the thread.
 *
 * Invariant: at most one live thread holds a slot.  A thread that claimed
 * none runs as slot 0 (the replayer and single-threaded tools); it must then
 * be the only user of the map's slot 0.
 */
#ifndef MAPLAB_CPU_H
#define MAPLAB_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern _Thread_local int map_cpu_slot_of_thread;

/* The calling thread's slot (0 when it claimed none). */
static inline unsigned map_this_cpu(void)
{
	return (unsigned)map_cpu_slot_of_thread;
}

/*
 * Claim slot for the calling thread.  slot < 0 claims the lowest free one.
 * Returns the slot, or -EBUSY if it is held by another thread, -EINVAL if
 * out of range.  A thread holds at most one slot: claiming again releases
 * the previous one.
 */
int map_cpu_claim(int slot);

/* Give the calling thread's slot back (it then runs as slot 0 again). */
void map_cpu_release(void);

/* The kernel's possible-CPU count (/sys/devices/system/cpu/possible). */
unsigned map_possible_cpus(void);

/* The cpu slots a map needs for `threads` workers, one slot each: the
 * possible-CPU count (as the kernel sizes per-CPU state), or more. */
static inline unsigned map_cpus_for_threads(unsigned threads)
{
	unsigned possible = map_possible_cpus();
	return threads > possible ? threads : possible;
}

/*
 * The CPUs this process may run on: its affinity mask when it started
 * (sched_getaffinity), so `taskset -c 2,3 maplab ...` is obeyed.  Ids in
 * increasing order; map_cpu_allowed_id(i) for i < map_cpu_allowed_count().
 */
unsigned map_cpu_allowed_count(void);
int map_cpu_allowed_id(unsigned i);

/* Whether cpu is one of them. */
bool map_cpu_is_allowed(int cpu);

/* Them in the kernel's cpu list format ("0-3,6"), cut to fit len. */
void map_cpu_allowed_text(char *buf, size_t len);

/*
 * Pin the calling thread to the (slot mod count)-th allowed CPU.  Returns
 * that CPU's id, or -errno when the kernel refuses (the caller must fail:
 * a run whose workers silently share a core measures the wrong thing).
 */
int map_cpu_pin(unsigned slot);

/* Pin to CPU id `cpu` itself: -EINVAL when this process may not use it. */
int map_cpu_pin_id(int cpu);

/* Let the calling thread run on every allowed CPU again. */
int map_cpu_unpin(void);

#endif /* MAPLAB_CPU_H */
