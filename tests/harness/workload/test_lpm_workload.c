/* SPDX-License-Identifier: MIT */
/*
 * LPM workloads (harness/workload/workload.h, "prefix workload"):
 *  - the key table's sections, which only the pools' end depends on the
 *    thread count;
 *  - an LPM map's keys: the prefixes with their lengths, full-length
 *    addresses for lookups; a hash's keys: the same address bytes;
 *  - streams: lookups name addresses (inside the entry drawn, or a miss at
 *    --hit-ratio's rate), updates the entries, inserts and deletes pool
 *    prefixes;
 *  - on lpm_trie/linux and lpm_trie/prefix_hash a lookup meant to hit finds
 *    a prefix that covers its address, one meant to miss finds none, and
 *    bench_run counts exactly the hits its stream holds.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness/bench/bench.h"
#include "harness/workload/workload.h"
#include "maps/base/rcu.h"
#include "tests/common/lpm_streams.h"

static uint8_t *keys_of(const struct workload *w, unsigned threads)
{
	char err[256];
	uint8_t *keys = workload_make_keys(w, threads, err, sizeof(err));
	cr_assert(keys != NULL, "%s", err);
	return keys;
}

static uint32_t prefixlen_of(const uint8_t *key)
{
	uint32_t len;
	memcpy(&len, key, 4);
	return len;
}

Test(lpm_workload, the_key_tables_sections)
{
	struct workload w = lpm_workload(PREFIXES_BGP, "lookup=100", 1000, 70);
	struct workload_layout l;
	workload_layout(&w, 2, &l);
	cr_expect_eq(l.stored, 1000);
	cr_expect_eq(l.hit_base, 1000);
	cr_expect_eq(l.miss_base, 2000);
	cr_expect_eq(l.misses, 1000);
	cr_expect_eq(l.pool_base, 3000);
	cr_expect_eq(l.total, 3000 + 2 * WORKLOAD_POOL);
	cr_expect_eq(workload_key_count(&w, 2), l.total);

	/* random32: a lookup meant to hit asks for the entry itself. */
	w = lpm_workload(PREFIXES_RANDOM32, "lookup=100", 1000, 100);
	workload_layout(&w, 1, &l);
	cr_expect_eq(l.hit_base, 0);
	cr_expect_eq(l.misses, 0);
	cr_expect_eq(l.total, 1000 + WORKLOAD_POOL);
	/* No lookups: no misses to ask for. */
	w = lpm_workload(PREFIXES_BGP, "update=100", 1000, 50);
	workload_layout(&w, 1, &l);
	cr_expect_eq(l.misses, 0);
	/* Not a prefix workload: the sections of before. */
	w.prefixes = PREFIXES_NONE;
	workload_layout(&w, 1, &l);
	cr_expect_eq(l.pool_base, 1000);
	cr_expect_eq(l.total, 1000 + WORKLOAD_POOL);
}

Test(lpm_workload, lpm_keys_are_prefixes_then_full_length_addresses)
{
	const enum prefix_set sets[] = { PREFIXES_BGP, PREFIXES_IPV6 };
	for (size_t s = 0; s < 2; s++) {
		struct workload w = lpm_workload(sets[s], "lookup=90,insert=5,delete=5",
						 4096, 80);
		const unsigned full = 8 * prefix_set_data_size(sets[s]);
		struct workload_layout l;
		uint8_t *keys = keys_of(&w, 2);
		uint64_t shorter = 0;
		workload_layout(&w, 2, &l);
		for (uint64_t k = 0; k < l.total; k++) {
			uint32_t len = prefixlen_of(keys + k * w.key_size);
			bool address = k >= l.hit_base && k < l.pool_base;
			cr_assert(address ? len == full : len <= full, "key %lu: /%u",
				  k, len);
			shorter += len < full;
		}
		cr_expect_gt(shorter, 4096 / 2, "most prefixes shorter than /%u",
			     full);
		/* The same table at another thread count, but for the pools. */
		uint8_t *one = keys_of(&w, 1);
		cr_expect_eq(memcmp(keys, one, l.pool_base * w.key_size), 0);
		free(one);
		char err[128];
		cr_expect_null(workload_make_keys(&w, WORKLOAD_MAX_POOLS + 1, err,
						  sizeof(err)));
		cr_expect(strstr(err, "pools for 254 threads at most") != NULL, "%s",
			  err);
		free(keys);
	}
}

Test(lpm_workload, a_hash_takes_the_same_addresses)
{
	struct workload w = lpm_workload(PREFIXES_RANDOM32,
					 "lookup=80,insert=10,delete=10", 2048, 90);
	struct workload h = workload_for_type(&w, MAP_TYPE_HASH);
	cr_expect_eq(h.key_size, 4);
	cr_expect_eq(workload_for_type(&w, MAP_TYPE_LPM_TRIE).key_size, 8);
	uint8_t *lpm = keys_of(&w, 1), *hash = keys_of(&h, 1);
	uint64_t n = workload_key_count(&w, 1);
	cr_expect_eq(workload_key_count(&h, 1), n);
	for (uint64_t k = 0; k < n; k++) {
		cr_assert_eq(prefixlen_of(lpm + 8 * k), 32);
		cr_assert_eq(memcmp(lpm + 8 * k + 4, hash + 4 * k, 4), 0, "key %lu", k);
	}
	free(lpm);
	free(hash);
}

Test(lpm_workload, streams_name_addresses_entries_and_pools)
{
	struct workload w = lpm_workload(PREFIXES_BGP,
					 "lookup=60,update=20,insert=10,delete=10",
					 8192, 70);
	w.prefill_pct = 90;
	struct workload_layout l;
	struct stream st = stream_of(&w, 1);
	uint64_t lookups = 0, misses = 0;
	workload_layout(&w, 2, &l);
	for (size_t i = 0; i < st.len; i++) {
		uint32_t k = st.ops[i].key;
		switch (st.ops[i].op) {
		case OP_LOOKUP:
			lookups++;
			misses += k >= l.miss_base;
			cr_assert(k >= l.hit_base && k < l.pool_base, "lookup of %u", k);
			break;
		case OP_UPDATE:
			cr_assert_lt(k, l.stored);
			break;
		default:
			cr_assert(k >= l.pool_base + WORKLOAD_POOL &&
				  k < l.pool_base + 2 * WORKLOAD_POOL, "pool key %u", k);
		}
	}
	double share = (double)misses / (double)lookups;
	cr_expect(share > 0.29 && share < 0.31, "%.4f of %lu lookups meant to miss",
		  share, lookups);
	workload_stream_free(&st);
}

/* Every lookup of worker 0's stream, on design d prefilled as bench does:
 * one meant to hit finds a prefix, one meant to miss none. */
static void expect_hits_as_meant(const char *d, const struct workload *w)
{
	const struct map_ops *ops = map_find(d);
	struct map_attr attr = { .type = MAP_TYPE_LPM_TRIE, .key_size = w->key_size,
				 .value_size = w->value_size,
				 .max_entries = w->entries,
				 .flags = bench_map_flags(MAP_TYPE_LPM_TRIE, 0) };
	struct workload_layout l;
	struct map *m;
	uint8_t value[8] = { 1 };
	uint8_t *keys = keys_of(w, 1);
	struct stream st = stream_of(w, 0);
	uint64_t lookups = 0, hits = 0;

	cr_assert(ops != NULL);
	workload_layout(w, 1, &l);
	map_thread_online();
	cr_assert_eq(map_create(ops, &attr, &m), 0);
	for (uint64_t k = 0; k < workload_prefill_count(w); k++)
		cr_assert_eq(map_update(m, keys + k * w->key_size, value, MAP_NOEXIST),
			     0, "prefill of %lu", k);
	map_rcu_read_lock();
	for (size_t i = 0; i < st.len; i++) {
		uint32_t k = st.ops[i].key;
		bool found = map_lookup(m, keys + (size_t)k * w->key_size) != NULL;
		cr_assert_eq(found, k < l.miss_base, "%s: lookup %zu (key %u) %s", d,
			     i, k, found ? "found a prefix" : "found none");
		lookups++;
		hits += found;
	}
	map_rcu_read_unlock();
	map_destroy(m);
	map_thread_offline();
	double share = (double)hits / (double)lookups;
	cr_expect(share > 0.74 && share < 0.76, "%s: %.4f of the lookups hit", d,
		  share);
	workload_stream_free(&st);
	free(keys);
}

Test(lpm_workload, lookups_hit_and_miss_as_meant, .timeout = 120)
{
	struct workload bgp = lpm_workload(PREFIXES_BGP, "lookup=100", 65536, 75);
	struct workload v6 = lpm_workload(PREFIXES_IPV6, "lookup=100", 4096, 75);
	struct workload r32 = lpm_workload(PREFIXES_RANDOM32, "lookup=100", 4096, 75);
	expect_hits_as_meant("lpm_trie/linux", &bgp);
	expect_hits_as_meant("lpm_trie/prefix_hash", &bgp);
	expect_hits_as_meant("lpm_trie/linux", &v6);
	expect_hits_as_meant("lpm_trie/linux", &r32);
}

Test(lpm_workload, bench_counts_the_hits_its_stream_holds, .timeout = 120)
{
	struct workload w = lpm_workload(PREFIXES_BGP, "lookup=100", 16384, 60);
	struct bench_config c = { .design = map_find("lpm_trie/linux"), .w = w,
				  .threads = 1, .ops = 1 << 19 };
	struct bench_result r;
	char err[256];
	w.type = 0; /* bench types the keys by the design, and adds the flag */
	c.w = w;
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(r.ops, 1 << 19);
	cr_expect_eq(r.ok[OP_LOOKUP], hits_in_stream(&w, 1 << 19));
	cr_expect_eq(r.ok[OP_LOOKUP] + r.fail[OP_LOOKUP], 1 << 19);
}
