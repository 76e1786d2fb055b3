/* SPDX-License-Identifier: MIT */
#include "harness/bench/histogram.h"

void hist_merge(struct histogram *into, const struct histogram *from)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->count[i] += from->count[i];
	into->total += from->total;
}

/* The smallest value that falls in bucket b, and the bucket's width. */
static void bucket_range(unsigned b, uint64_t *low, uint64_t *width)
{
	if (b < HIST_SUB) {
		*low = b;
		*width = 1;
		return;
	}
	unsigned log = b / HIST_SUB - 1 + HIST_SUB_BITS;
	uint64_t sub = b % HIST_SUB;
	*width = 1ULL << (log - HIST_SUB_BITS);
	*low = (1ULL << log) + sub * *width;
}

uint64_t hist_quantile(const struct histogram *h, double q)
{
	if (h->total == 0)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)(h->total - 1)) + 1, seen = 0;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen >= rank) {
			uint64_t low, width;
			bucket_range(b, &low, &width);
			return low + width / 2;
		}
	}
	return 0;
}
