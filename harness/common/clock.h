/* SPDX-License-Identifier: MIT */
/*
 * clock.h: the one clock of every timed thing in maplab: CLOCK_MONOTONIC,
 * in nanoseconds.  It never jumps (NTP only slews it), and on Linux x86-64
 * it is read through the vDSO without a system call, so one read costs
 * about 20 ns here: bench's sampled latencies each include one.
 */
#ifndef MAPLAB_CLOCK_H
#define MAPLAB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif /* MAPLAB_CLOCK_H */
