/* SPDX-License-Identifier: MIT */
/*
 * limit.h: the physical limit of a lookup loop: independent random 8-byte
 * loads over a buffer the size of a map (compare --physical, bench
 * --physical).
 *
 * A lookup in a map larger than the caches costs at least one miss to
 * memory: no design can beat the memory system.  What the memory system
 * gives a loop of lookups is not its latency, though.  bench's workers
 * issue lookup after lookup, and no lookup's address depends on what the
 * one before it read (the keys come from a precomputed stream), so an
 * out-of-order core has several of their misses in flight at once
 * (memory-level parallelism: as many as its miss buffers hold).  A
 * pointer chase (probe.h) waits for each load before it can start the
 * next: it measures latency, a bound no such loop is held to.  So the
 * floor for a lookup loop is a loop of loads with the same freedom:
 *
 *   for each load:  i   = a random word index (splitmix64, rng.h, a
 *                         stream of its own per worker: no load's address
 *                         depends on any load's value)
 *                   sum += buffer[i]          (8 bytes, 8-byte aligned,
 *                                              uniform over the buffer)
 *
 * over as many bytes as the map holds (its footprint, as bench measures
 * it: bench_footprint), so the loads meet the same cache share and the
 * same TLB reach as the map's lookups.  The buffer is written in full
 * before any load (every page backed, none a first-touch fault), and each
 * worker's sum goes to memory at the end, so no load can be optimised
 * away.
 *
 * The loads run as bench's ops do: worker i of a team (team.h) pinned to
 * the i-th CPU this process may use, a warm-up, then the timed phase in
 * batches of LIMIT_BATCH loads (--duration, or until each worker's share
 * of --ops is done); ns per load per thread is threads x seconds / loads,
 * as bench's ns/op.  No latency is sampled: a clock read would cost more
 * than a load that hits.  A lookup that touches two lines (a bucket, then
 * an element) can be expected to cost about two loads.
 */
#ifndef MAPLAB_LIMIT_H
#define MAPLAB_LIMIT_H

#include "harness/bench/bench.h"

#include <stddef.h>
#include <stdint.h>

#define LIMIT_BATCH 256

/* The buffer the loads read: n_words 8-byte words, every one written. */
struct limit_buffer {
	uint64_t *words;
	size_t n_words;
};

/* A buffer of `bytes` rounded down to whole words (at least one), each
 * written once.  0, -EINVAL (fewer than 8 bytes) or -ENOMEM. */
int limit_buffer_init(struct limit_buffer *b, size_t bytes);

/* Its size in bytes. */
static inline size_t limit_buffer_bytes(const struct limit_buffer *b)
{
	return b->n_words * sizeof(uint64_t);
}

void limit_buffer_free(struct limit_buffer *b);

/*
 * The loads over b on c->threads threads, timed as bench_run times ops:
 * c->warmup, c->seconds or c->ops, c->w.seed, c->progress (the rest of c
 * is not used).  r as bench_run's: its ops the loads (counted as lookups
 * that succeeded), seconds, mops, ns_per_op; no latencies, no memory.
 * 0, or a negative errno with a one-line reason in err.
 */
int limit_run(const struct limit_buffer *b, const struct bench_config *c,
	      struct bench_result *r, char *err, size_t errlen);

#endif /* MAPLAB_LIMIT_H */
