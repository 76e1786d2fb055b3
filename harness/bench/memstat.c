/* SPDX-License-Identifier: MIT */
/*
 * memstat.c: memstat.h over jemalloc's mallctl; nothing without it.  The
 * one #ifdef is the build's choice of allocator (meson's allocator option),
 * not a variant of an algorithm.
 */
#include "harness/bench/memstat.h"

#include <stdint.h>

#ifdef MAPLAB_JEMALLOC
#include <jemalloc/jemalloc.h>

bool memstat_available(void)
{
	return true;
}

bool memstat_allocated(size_t *bytes)
{
	uint64_t epoch = 1;
	size_t len = sizeof(epoch);
	size_t allocated;

	/* A build of jemalloc without a thread cache refuses this: fine. */
	(void)mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
	if (mallctl("epoch", &epoch, &len, &epoch, len))
		return false;
	len = sizeof(allocated);
	if (mallctl("stats.allocated", &allocated, &len, NULL, 0))
		return false;
	*bytes = allocated;
	return true;
}

#else

bool memstat_available(void)
{
	return false;
}

bool memstat_allocated(size_t *bytes)
{
	(void)bytes;
	return false;
}

#endif
