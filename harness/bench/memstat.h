/* SPDX-License-Identifier: MIT */
/*
 * memstat.h: the allocator's count of the bytes a process holds, for
 * bench's memory figure of a design that keeps no count of its own
 * (map_ops.memory).
 *
 * jemalloc only (the build's default allocator, MAPLAB_JEMALLOC): its
 * "stats.allocated", refreshed by writing "epoch" first (jemalloc's
 * statistics are snapshots taken at an epoch).  A libc build (the
 * sanitizer build: AddressSanitizer owns malloc there) has no such count:
 * memstat_allocated says so rather than guess.
 *
 * What the figure includes: every block the process's threads hold, at
 * the size of its size class (a 24-byte request counts 32), so a delta
 * around a piece of work is what that work really took from the
 * allocator.  Blocks in a thread's cache (tcache) count as allocated until
 * the cache is flushed: the calling thread's is flushed before each
 * reading, so its own frees and cached blocks do not blur the delta; those
 * of other threads (liburcu's call_rcu thread frees what designs retire)
 * are at most a few hundred small blocks.
 */
#ifndef MAPLAB_MEMSTAT_H
#define MAPLAB_MEMSTAT_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build's allocator can count (jemalloc). */
bool memstat_available(void);

/* The bytes the allocator has handed out and not had back, now, into
 * *bytes: true, or false where this build cannot say (*bytes untouched). */
bool memstat_allocated(size_t *bytes);

#endif /* MAPLAB_MEMSTAT_H */
