/* SPDX-License-Identifier: MIT */
/*
 * Benchmark workloads: option parsing, the op streams workers replay, and
 * the latency histogram.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness/bench/histogram.h"
#include "harness/workload/workload.h"
#include "maps/base/map.h"

Test(workload, mix_parses_and_must_sum_to_100)
{
	unsigned mix[OP_COUNT];
	char err[128];
	cr_assert_eq(workload_parse_mix("lookup=90,update=10", mix, err,
					sizeof(err)), 0, "%s", err);
	cr_expect_eq(mix[OP_LOOKUP], 90);
	cr_expect_eq(mix[OP_UPDATE], 10);
	cr_expect_eq(mix[OP_INSERT], 0);
	cr_expect_eq(workload_parse_mix("lookup=90", mix, err, sizeof(err)), -1);
	cr_expect(strstr(err, "sum to 90") != NULL, "%s", err);
	cr_expect_eq(workload_parse_mix("lookup=50,scan=50", mix, err,
					sizeof(err)), -1);
	cr_expect(strstr(err, "unknown op 'scan'") != NULL, "%s", err);
	cr_expect_eq(workload_parse_mix("lookup=x", mix, err, sizeof(err)), -1);
	cr_expect_eq(workload_parse_mix("lookup", mix, err, sizeof(err)), -1);
	cr_expect_eq(workload_parse_mix("lookup=101", mix, err, sizeof(err)), -1);
	char text[64];
	workload_parse_mix("insert=25,delete=25,lookup=50", mix, err, sizeof(err));
	workload_format_mix(mix, text, sizeof(text));
	cr_expect_str_eq(text, "lookup=50,insert=25,delete=25");
}

/* The suite's ops (bpf_performance's update, replace, rolling_lru) by
 * their names, beside the others, and back in enum order. */
Test(workload, mix_parses_upsert_replace_and_lookup_write)
{
	unsigned mix[OP_COUNT];
	char err[160], text[96];
	cr_assert_eq(workload_parse_mix("lookup_write=40,lookup=10,replace=30,"
					"upsert=20", mix, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(mix[OP_UPSERT], 20);
	cr_expect_eq(mix[OP_REPLACE], 30);
	cr_expect_eq(mix[OP_LOOKUP_WRITE], 40);
	cr_expect_eq(mix[OP_LOOKUP], 10);
	cr_expect_eq(mix[OP_UPDATE] + mix[OP_INSERT] + mix[OP_DELETE], 0);
	workload_format_mix(mix, text, sizeof(text));
	cr_expect_str_eq(text, "lookup=10,upsert=20,replace=30,lookup_write=40");
	const char *alone[] = { "upsert=100", "replace=100", "lookup_write=100" };
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(workload_parse_mix(alone[i], mix, err, sizeof(err)), 0,
			     "%s: %s", alone[i], err);
		cr_expect_eq(mix[OP_UPSERT + i], 100, "%s", alone[i]);
	}
	/* Names match whole: neither a prefix nor a longer word. */
	cr_expect_eq(workload_parse_mix("lookup_writes=100", mix, err,
					sizeof(err)), -1);
	cr_expect(strstr(err, "unknown op 'lookup_writes'") &&
		  strstr(err, "upsert, replace, lookup_write"), "%s", err);
	cr_expect_eq(workload_parse_mix("lookup_=100", mix, err, sizeof(err)), -1);
	cr_expect_eq(workload_parse_mix("replace=50,replace=50", mix, err,
					sizeof(err)), -1);
	cr_expect(strstr(err, "names replace twice"), "%s", err);
	cr_expect_str_eq(bench_op_names[OP_LOOKUP_WRITE], "lookup_write");
}

/*
 * Pool model: upsert, replace and lookup_write draw from the map's keys
 * (0..entries-1, spread over them), never from the worker's pool, whose
 * few keys stay in the cache; inserts and deletes keep to the pool, and
 * the streams make the mix as asked.
 */
Test(workload, suite_ops_draw_the_maps_keys_not_the_pool)
{
	struct workload w = { .key_size = 4, .value_size = 8, .entries = 1000,
			      .prefill_pct = 100, .dist = DIST_UNIFORM, .seed = 5 };
	char err[64];
	cr_assert_eq(workload_parse_mix("upsert=30,replace=30,lookup_write=20,"
					"insert=10,delete=10", w.mix, err,
					sizeof(err)), 0, "%s", err);
	struct key_sampler *s = workload_sampler_new(&w);
	struct stream st;
	cr_assert_eq(workload_make_stream(&w, s, 1, 20000, &st), 0);
	uint8_t seen[OP_COUNT][1000] = { { 0 } };
	unsigned distinct[OP_COUNT] = { 0 };
	uint32_t pool = w.entries + WORKLOAD_POOL; /* worker 1's */
	for (size_t i = 0; i < st.len; i++) {
		const struct stream_op *op = &st.ops[i];
		if (op->op == OP_INSERT || op->op == OP_DELETE) {
			cr_assert(op->key >= pool && op->key < pool + WORKLOAD_POOL,
				  "%s of key %u, not of the pool",
				  bench_op_names[op->op], op->key);
			continue;
		}
		cr_assert_lt(op->key, w.entries, "%s of key %u, not a map key",
			     bench_op_names[op->op], op->key);
		distinct[op->op] += !seen[op->op][op->key]++;
	}
	for (int op = OP_UPSERT; op <= OP_LOOKUP_WRITE; op++)
		cr_expect_gt(distinct[op], 900, "%s met %u of 1000 keys",
			     bench_op_names[op], distinct[op]);
	double share[OP_COUNT];
	cr_assert_eq(workload_stream_mix(&w, share), 0);
	for (int op = 0; op < OP_COUNT; op++)
		cr_expect(share[op] > w.mix[op] - 1.5 && share[op] < w.mix[op] + 1.5,
			  "%s: %.1f%%, asked %u%%", bench_op_names[op], share[op],
			  w.mix[op]);
	workload_stream_free(&st);
	workload_sampler_free(s);
}

/* In a prefix workload lookup_write asks for an address, as a lookup
 * does; upsert and replace name a stored prefix, as an update does. */
Test(workload, lookup_write_asks_for_addresses_and_replace_for_prefixes)
{
	struct workload w = { .type = MAP_TYPE_LPM_TRIE, .key_size = 8,
			      .value_size = 8, .entries = 512, .prefill_pct = 100,
			      .dist = DIST_UNIFORM, .seed = 5,
			      .prefixes = PREFIXES_BGP };
	char err[64];
	cr_assert_eq(workload_parse_mix("lookup_write=50,replace=25,upsert=25",
					w.mix, err, sizeof(err)), 0, "%s", err);
	struct workload_layout l;
	workload_layout(&w, 1, &l);
	cr_assert_eq(l.hit_base, l.stored, "addresses follow the prefixes");
	struct key_sampler *s = workload_sampler_new(&w);
	struct stream st;
	cr_assert_eq(workload_make_stream(&w, s, 0, 4096, &st), 0);
	for (size_t i = 0; i < st.len; i++) {
		const struct stream_op *op = &st.ops[i];
		if (op->op == OP_LOOKUP_WRITE)
			cr_assert(op->key >= l.hit_base &&
				  op->key < l.hit_base + w.entries,
				  "lookup_write of key %u, not an address", op->key);
		else
			cr_assert_lt(op->key, l.stored, "%s of key %u, not a prefix",
				     bench_op_names[op->op], op->key);
	}
	workload_stream_free(&st);
	workload_sampler_free(s);
}

Test(workload, dist_parses)
{
	struct workload w = { 0 };
	char err[160];
	cr_expect_eq(workload_parse_dist("zipf:0.99", &w, err, sizeof(err)), 0);
	cr_expect_eq(w.dist, DIST_ZIPF);
	cr_expect_float_eq(w.zipf_s, 0.99, 1e-9);
	cr_expect_eq(workload_parse_dist("hotset:90,10", &w, err, sizeof(err)), 0);
	cr_expect_eq(w.hot_pct, 90);
	cr_expect_eq(w.hot_keys_pct, 10);
	const char *bad[] = { "zipf:", "zipf:-1", "zipf:abc", "hotset:90",
			      "hotset:101,5", "hotset:50,0", "normal" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(workload_parse_dist(bad[i], &w, err, sizeof(err)), -1,
			     "%s accepted", bad[i]);
}

/* Inserts and deletes pair up on the worker's own pool, and the stream
 * ends balanced so it can loop. */
Test(workload, streams_keep_the_size_steady)
{
	struct workload w = { .key_size = 4, .value_size = 8, .entries = 1000,
			      .prefill_pct = 50, .dist = DIST_UNIFORM, .seed = 3 };
	char err[64];
	cr_assert_eq(workload_parse_mix("lookup=40,insert=30,delete=30", w.mix,
					err, sizeof(err)), 0);
	struct key_sampler *s = workload_sampler_new(&w);
	for (unsigned tid = 0; tid < 3; tid++) {
		struct stream st;
		cr_assert_eq(workload_make_stream(&w, s, tid, 5000, &st), 0);
		long live = 0;
		uint8_t in_map[WORKLOAD_POOL] = { 0 };
		uint32_t base = w.entries + tid * WORKLOAD_POOL;
		unsigned counts[OP_COUNT] = { 0 };
		for (size_t i = 0; i < st.len; i++) {
			const struct stream_op *op = &st.ops[i];
			counts[op->op]++;
			if (op->op == OP_INSERT || op->op == OP_DELETE) {
				cr_assert(op->key >= base &&
					  op->key < base + WORKLOAD_POOL);
				uint8_t *slot = &in_map[op->key - base];
				cr_assert_eq(*slot, op->op == OP_DELETE,
					     "op %zu: %s of a key %s in the map", i,
					     bench_op_names[op->op],
					     *slot ? "already" : "not");
				*slot = op->op == OP_INSERT;
				live += op->op == OP_INSERT ? 1 : -1;
			} else {
				cr_assert_lt(op->key, w.entries);
			}
		}
		cr_expect_eq(live, 0, "stream %u ends with %ld keys inserted",
			     tid, live);
		cr_expect_gt(counts[OP_INSERT], 1000);
		cr_expect_gt(counts[OP_LOOKUP], 1500);
		workload_stream_free(&st);
	}
	workload_sampler_free(s);
}

/* zipf:1.2 puts far more of the draws on the hottest key than uniform. */
Test(workload, zipf_is_skewed_and_hotset_is_hot)
{
	struct workload w = { .key_size = 4, .value_size = 8, .entries = 1000,
			      .seed = 5 };
	w.mix[OP_LOOKUP] = 100;
	w.dist = DIST_ZIPF;
	w.zipf_s = 1.2;
	struct key_sampler *s = workload_sampler_new(&w);
	struct stream st;
	cr_assert_eq(workload_make_stream(&w, s, 0, 20000, &st), 0);
	unsigned hits[1000] = { 0 }, top = 0;
	for (size_t i = 0; i < st.len; i++)
		hits[st.ops[i].key]++;
	for (int k = 0; k < 1000; k++)
		if (hits[k] > top)
			top = hits[k];
	cr_expect_gt(top, 2000, "hottest key drawn %u times of 20000", top);
	workload_stream_free(&st);
	workload_sampler_free(s);

	w.dist = DIST_HOTSET;
	w.hot_pct = 90;
	w.hot_keys_pct = 10;
	s = workload_sampler_new(&w);
	cr_assert_eq(workload_make_stream(&w, s, 0, 20000, &st), 0);
	memset(hits, 0, sizeof(hits));
	for (size_t i = 0; i < st.len; i++)
		hits[st.ops[i].key]++;
	unsigned distinct_hot = 0, hot_draws = 0;
	for (int k = 0; k < 1000; k++)
		if (hits[k] > 50) {
			distinct_hot++;
			hot_draws += hits[k];
		}
	cr_expect_eq(distinct_hot, 100, "%u hot keys", distinct_hot);
	cr_expect(hot_draws > 17000 && hot_draws < 19000, "%u", hot_draws);
	workload_stream_free(&st);
	workload_sampler_free(s);
}

Test(histogram, quantiles_within_a_bucket)
{
	struct histogram h;
	memset(&h, 0, sizeof(h));
	cr_expect_eq(hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		hist_add(&h, v);
	uint64_t p50 = hist_quantile(&h, 0.5), p99 = hist_quantile(&h, 0.99);
	cr_expect(p50 >= 500 * 0.875 && p50 <= 500 * 1.125, "p50 %lu", p50);
	cr_expect(p99 >= 990 * 0.875 && p99 <= 990 * 1.125, "p99 %lu", p99);
	cr_expect_eq(hist_quantile(&h, 0), 1);
	hist_add(&h, 1ULL << 50); /* beyond the last bucket: clamped, counted */
	cr_expect_eq(h.total, 1001);
	for (uint64_t v = 1; v < 100000; v = v * 3 + 1)
		cr_expect_lt(hist_bucket(v), hist_bucket(v * 2), "%lu", v);
}

/* --- the range model ------------------------------------------------------------ */

static struct workload range_workload(uint32_t entries, uint32_t range,
				      const char *mix)
{
	struct workload w = { .key_size = 4, .value_size = 8, .entries = entries,
			      .key_range = range, .prefill_pct = 100,
			      .dist = DIST_UNIFORM, .seed = 7 };
	char err[64];
	cr_assert_eq(workload_parse_mix(mix, w.mix, err, sizeof(err)), 0, "%s",
		     err);
	return w;
}

/* Every op, deletes included, draws from the whole range (beyond the
 * entries), the streams hold the mix asked, and none ends with deletes
 * to close a pool: the pool model's keys above the entries never appear
 * as such. */
Test(workload, range_streams_draw_every_op_from_the_range)
{
	struct workload w = range_workload(1000, 4000,
					   "lookup=20,update=10,insert=20,"
					   "delete=10,upsert=15,replace=15,"
					   "lookup_write=10");
	struct key_sampler *s = workload_sampler_new(&w);
	struct stream st;
	cr_assert_eq(workload_make_stream(&w, s, 1, 20000, &st), 0);
	cr_expect_eq(st.len, 20000, "no closing deletes: %zu ops", st.len);
	unsigned counts[OP_COUNT] = { 0 }, beyond[OP_COUNT] = { 0 };
	for (size_t i = 0; i < st.len; i++) {
		cr_assert_lt(st.ops[i].key, 4000, "op %zu: key %u", i,
			     st.ops[i].key);
		counts[st.ops[i].op]++;
		beyond[st.ops[i].op] += st.ops[i].key >= w.entries;
	}
	for (int op = 0; op < OP_COUNT; op++) {
		/* 3/4 of a uniform range lies beyond the entries. */
		cr_expect(beyond[op] > counts[op] * 6 / 10, "%s: %u of %u beyond",
			  bench_op_names[op], beyond[op], counts[op]);
		double share = 100.0 * counts[op] / (double)st.len;
		cr_expect(share > w.mix[op] - 2.0 && share < w.mix[op] + 2.0,
			  "%s: %.1f%% of the stream, asked %u%%",
			  bench_op_names[op], share, w.mix[op]);
	}
	double share[OP_COUNT];
	cr_assert_eq(workload_stream_mix(&w, share), 0);
	cr_expect(share[OP_DELETE] > 9 && share[OP_DELETE] < 11,
		  "deletes with no insert of their own run as asked: %.1f%%",
		  share[OP_DELETE]);
	cr_expect_eq(workload_key_count(&w, 8), 4000,
		     "the range's keys, and no worker pools");
	workload_stream_free(&st);
	workload_sampler_free(s);
}

/* A range narrower than the prefilled keys still has a key for each. */
Test(workload, the_key_table_holds_the_prefilled_keys_and_the_range)
{
	struct workload w = range_workload(1000, 300, "lookup=100");
	cr_expect_eq(workload_key_count(&w, 2), 1000);
	w.key_range = 0;
	cr_expect_eq(workload_key_count(&w, 2), 1000 + 2 * WORKLOAD_POOL);
}

/*
 * A stream loops.  A loop of a range that met no more distinct keys than
 * the map holds would stop evicting once they were all in (kbench's
 * 2^16-op streams did: 32K inserts met about 29K keys of a 256K range,
 * fewer than 64K entries, and its kernel side's inserts all failed EEXIST
 * after the first pass).  One pass of the stream meets far more inserted
 * keys than the map holds.
 */
Test(workload, one_pass_of_a_range_stream_inserts_more_keys_than_fit)
{
	struct workload w = range_workload(65536, 4 * 65536,
					   "lookup=50,insert=50");
	size_t len = workload_stream_len(&w);
	cr_expect_geq(len, 4ull * w.key_range, "%zu ops", len);
	struct key_sampler *s = workload_sampler_new(&w);
	struct stream st;
	cr_assert_eq(workload_make_stream(&w, s, 0, len, &st), 0);
	uint8_t *seen = calloc(w.key_range, 1);
	size_t distinct = 0;
	for (size_t i = 0; i < st.len; i++)
		if (st.ops[i].op == OP_INSERT && !seen[st.ops[i].key]++)
			distinct++;
	cr_expect_gt(distinct, 3 * (size_t)w.entries,
		     "one pass inserts %zu distinct keys into %u entries",
		     distinct, w.entries);
	free(seen);
	workload_stream_free(&st);
	workload_sampler_free(s);
	/* The pool model keeps bench's 2^18, and a huge range is capped. */
	w.key_range = 0;
	cr_expect_eq(workload_stream_len(&w), WORKLOAD_STREAM_MIN);
	w.key_range = 1u << 31;
	cr_expect_eq(workload_stream_len(&w), WORKLOAD_STREAM_MAX);
}

/* zipf and hotset rank the whole range, not only the entries. */
Test(workload, skewed_draws_cover_the_range)
{
	struct workload w = range_workload(1000, 8000, "lookup=100");
	w.dist = DIST_HOTSET;
	w.hot_pct = 90;
	w.hot_keys_pct = 10; /* 800 hot keys of the 8000 */
	struct key_sampler *s = workload_sampler_new(&w);
	struct stream st;
	cr_assert_eq(workload_make_stream(&w, s, 0, 40000, &st), 0);
	unsigned *hits = calloc(w.key_range, sizeof(*hits));
	unsigned hot = 0;
	for (size_t i = 0; i < st.len; i++)
		hits[st.ops[i].key]++;
	for (uint32_t k = 0; k < w.key_range; k++)
		hot += hits[k] > 20; /* a hot key: about 45 draws; cold: 0.6 */
	cr_expect_eq(hot, 800, "%u hot keys", hot);
	free(hits);
	workload_stream_free(&st);
	workload_sampler_free(s);
}
