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

/* Pin the calling thread to core (slot mod nproc).  0 or -errno. */
int map_cpu_pin(unsigned slot);

#endif /* MAPLAB_CPU_H */
