/* SPDX-License-Identifier: MIT */
/*
 * histogram.h: latency histogram with log-linear buckets (after
 * HdrHistogram): 8 buckets per power of two, so any value is placed within
 * 12.5 %, from 1 ns to 2^40 ns, in 2.6 KiB.  Each worker owns one (no
 * sharing while timing); they are merged after the run.
 */
#ifndef MAPLAB_HISTOGRAM_H
#define MAPLAB_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_BITS 3
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS (41 * HIST_SUB)

struct histogram {
	uint64_t count[HIST_BUCKETS];
	uint64_t total;
};

static inline unsigned hist_bucket(uint64_t ns)
{
	if (ns < HIST_SUB)
		return (unsigned)ns;
	unsigned log = 63u - (unsigned)__builtin_clzll(ns); /* >= HIST_SUB_BITS */
	unsigned sub = (unsigned)(ns >> (log - HIST_SUB_BITS)) & (HIST_SUB - 1);
	unsigned b = (log - HIST_SUB_BITS + 1) * HIST_SUB + sub;
	return b < HIST_BUCKETS ? b : HIST_BUCKETS - 1;
}

static inline void hist_add(struct histogram *h, uint64_t ns)
{
	h->count[hist_bucket(ns)]++;
	h->total++;
}

void hist_merge(struct histogram *into, const struct histogram *from);

/* The value below which a fraction q (0..1) of samples lie: the middle of
 * its bucket.  0 with no samples. */
uint64_t hist_quantile(const struct histogram *h, double q);

#endif /* MAPLAB_HISTOGRAM_H */
