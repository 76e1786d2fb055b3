/* SPDX-License-Identifier: MIT */
/*
 * lpm_streams.h: what the tests of LPM workloads share: a workload of a
 * prefix set, worker 0's stream, and the lookups of its first n ops meant
 * to hit (those of addresses inside a prefix: below the misses' section),
 * which is what a side must count as found when every entry is in.
 */
#ifndef MAPLAB_TEST_LPM_STREAMS_H
#define MAPLAB_TEST_LPM_STREAMS_H

#include <criterion/criterion.h>

#include "harness/workload/workload.h"

/* An LPM trie's workload of set: one thread's worth, every entry in. */
static inline struct workload lpm_workload(enum prefix_set set, const char *mix,
					   unsigned entries, unsigned hit_pct)
{
	struct workload w = { .type = MAP_TYPE_LPM_TRIE, .value_size = 8,
			      .entries = entries, .prefill_pct = 100,
			      .dist = DIST_UNIFORM, .seed = 9, .prefixes = set,
			      .miss_ppm = (100 - hit_pct) * 10000 };
	char err[128];
	w.key_size = 4 + prefix_set_data_size(set);
	cr_assert_eq(workload_parse_mix(mix, w.mix, err, sizeof(err)), 0, "%s", err);
	return w;
}

/* Worker tid's stream, as bench and kbench make it. */
static inline struct stream stream_of(const struct workload *w, unsigned tid)
{
	struct key_sampler *s = workload_sampler_new(w);
	struct stream st;
	cr_assert(s != NULL);
	cr_assert_eq(workload_make_stream(w, s, tid, workload_stream_len(w), &st),
		     0);
	workload_sampler_free(s);
	return st;
}

/* The lookups meant to hit in the first n ops of worker 0's stream, which
 * loops. */
static inline uint64_t hits_in_stream(const struct workload *w, uint64_t n)
{
	struct workload_layout l;
	struct stream st = stream_of(w, 0);
	uint64_t hits = 0;
	workload_layout(w, 1, &l);
	for (uint64_t i = 0; i < n; i++) {
		const struct stream_op *op = &st.ops[i % st.len];
		hits += op->op == OP_LOOKUP && op->key < l.miss_base;
	}
	workload_stream_free(&st);
	return hits;
}

#endif /* MAPLAB_TEST_LPM_STREAMS_H */
