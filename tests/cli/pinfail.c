/* SPDX-License-Identifier: MIT */
/*
 * pinfail.c: an LD_PRELOAD shim whose pthread_setaffinity_np always fails
 * with EINVAL (as it does when a cpuset no longer holds the CPU).  The CLI
 * tests run maplab under it to check that a pin that fails fails the run,
 * instead of leaving workers to share whatever CPU they started on.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>

int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
	(void)thread, (void)size, (void)set;
	return EINVAL;
}
