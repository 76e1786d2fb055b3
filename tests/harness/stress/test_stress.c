/* SPDX-License-Identifier: MIT */
/*
 * Every design under contention: 8 threads on however many cores there
 * are (2 on CI), random inserts, replaces, deletes and lookups over a
 * shared key range, then harness/stress/stress.c's checks of the final contents
 * against the successful operations.  Run under the sanitizers in CI.
 *
 * The checker is itself checked: test doubles built on hash/linux that
 * lose updates or evict keys must be caught where the map type forbids it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "harness/stress/stress.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"
#include "tests/common/designs.h"
#include "tests/common/memlimit.h"

static struct stress_opts opts_for(const struct map_ops *ops, uint32_t type,
				   uint32_t flags, uint32_t max_entries,
				   uint32_t key_range, uint32_t key_size,
				   uint32_t value_size)
{
	struct stress_opts o = {
		.ops = ops,
		.attr = { .type = type, .key_size = key_size,
			  .value_size = value_size, .max_entries = max_entries,
			  .flags = flags },
		.threads = 8,
		.key_range = key_range,
		.seconds = 0.75,
		.prefill_pct = 50,
		.seed = 42,
	};
	return o;
}

/* A design over a table of fixed geometry takes only some key sizes and
 * refuses the rest at create: skipped there, with the reason. */
static const struct {
	const char *design;
	uint32_t key_size;
	const char *why;
} only_key_size[] = {
	{ "lpm_trie/dpdk", 8, "an adapter over DPDK's rte_fib: IPv4 keys "
			      "(key_size 8) only; maps/lpm_trie/dpdk.c" },
};

static bool takes_key_size(const struct map_ops *ops, uint32_t key_size)
{
	for (size_t i = 0; i < sizeof(only_key_size) /
				   sizeof(only_key_size[0]); i++)
		if (!strcmp(ops->name, only_key_size[i].design) &&
		    key_size != only_key_size[i].key_size) {
			cr_log_info("%s: skipped, key_size %u: %s", ops->name,
				    key_size, only_key_size[i].why);
			return false;
		}
	return true;
}

static void stress_every_design(uint32_t type, uint32_t flags,
				uint32_t max_entries, uint32_t key_range,
				uint32_t key_size, uint32_t value_size)
{
	const struct map_ops *designs[MAX_TEST_DESIGNS];
	size_t n = designs_of_type(type, designs);

	for (size_t i = 0; i < n; i++) {
		const struct map_ops *ops = designs[i];
		if (!takes_key_size(ops, key_size))
			continue;
		struct stress_opts o = opts_for(ops, type, flags, max_entries,
						key_range, key_size, value_size);
		struct stress_report r;
		int rc = stress_run(&o, &r);
		cr_assert_eq(rc, 0, "%s flags=%#x: %s", ops->name, flags, r.failure);
		cr_expect_gt(r.inserts, 0, "%s: no insert succeeded", ops->name);
		cr_expect_gt(r.deletes, 0, "%s: no delete succeeded", ops->name);
		cr_expect_gt(r.lookup_hits, 0, "%s: no lookup hit", ops->name);
		if (type == MAP_TYPE_LRU_HASH && key_range > max_entries)
			cr_expect_gt(r.evictions, 0, "%s: a range of %u keys in a "
				     "map of %u evicted nothing: no test",
				     ops->name, key_range, max_entries);
		cr_log_info("%s flags=%#x: %llu ops in %.2f s, %llu keys at the end",
			    ops->name, flags, (unsigned long long)r.ops, r.seconds,
			    (unsigned long long)r.found);
	}
}

/* Few keys, many threads: the same buckets all the time. */
Test(stress, hash_hot_keys_prealloc, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, 0, 64, 64, 4, 8);
}

Test(stress, hash_hot_keys_no_prealloc, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, MAP_F_NO_PREALLOC, 64, 64, 4, 8);
}

/* More keys than room: inserts race for the last free elements (E2BIG). */
Test(stress, hash_full_map_prealloc, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, 0, 256, 1024, 8, 24);
}

Test(stress, hash_full_map_no_prealloc, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, MAP_F_NO_PREALLOC, 256, 1024, 8, 24);
}

/* The same with small keys and values, which hash/seqlock_buckets keeps in its
 * buckets (maps/tables/flattab.h): the race for the last places is then
 * a race for the count and for free slots in other buckets. */
Test(stress, hash_full_map_small_entries, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, 0, 256, 1024, 8, 8);
}

/* An odd small key: 3 bytes, 4 slots a flat bucket, compared byte-wise
 * (values stay 8 bytes: stress tags each value with its writer). */
Test(stress, hash_odd_small_key, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, MAP_F_ZERO_SEED, 512, 2048, 3, 8);
}

/* A wide range, odd sizes. */
Test(stress, hash_wide_range_odd_sizes, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, MAP_F_ZERO_SEED, 16384, 16384, 13, 37);
}

/* LPM tries: full-length prefixes (the harness's LPM keys), many threads
 * on a small trie; a full one (-ENOSPC); a wide one with 16-byte data.
 * Nested prefixes of every length: test_stress_lpm_nested.c. */
Test(stress, lpm_hot_keys, .timeout = 60)
{
	stress_every_design(MAP_TYPE_LPM_TRIE, MAP_F_NO_PREALLOC, 64, 64, 8, 8);
}

Test(stress, lpm_full_trie, .timeout = 60)
{
	stress_every_design(MAP_TYPE_LPM_TRIE, MAP_F_NO_PREALLOC, 256, 1024, 8,
			    16);
}

Test(stress, lpm_wide_keys, .timeout = 60)
{
	stress_every_design(MAP_TYPE_LPM_TRIE, MAP_F_NO_PREALLOC, 4096, 8192,
			    20, 8);
}

/* LRU maps: the same, where a full map evicts; the final check accounts
 * for every key (present, deleted, or evicted by the map's own count). */
Test(stress, lru_hot_keys, .timeout = 60)
{
	stress_every_design(MAP_TYPE_LRU_HASH, 0, 64, 64, 4, 8);
}

Test(stress, lru_evicting_all_the_time, .timeout = 60)
{
	stress_every_design(MAP_TYPE_LRU_HASH, 0, 256, 1024, 8, 24);
}

Test(stress, lru_wide_range_odd_sizes, .timeout = 60)
{
	stress_every_design(MAP_TYPE_LRU_HASH, MAP_F_ZERO_SEED, 4096, 16384, 13,
			    37);
}

/* --- the checker, checked ---------------------------------------------------- */

static struct map_ops double_ops;

/* A hash/linux whose update is replaced; everything else is hash/linux's. */
static const struct map_ops *test_double(const char *name, uint32_t type,
					 int (*update)(struct map *, const void *,
						       const void *, uint64_t))
{
	double_ops = *map_find("hash/linux");
	double_ops.name = name;
	double_ops.type = type;
	double_ops.faithful = 0;
	double_ops.update = update;
	return &double_ops;
}

static int hash_linux_update(struct map *m, const void *key, const void *value,
			     uint64_t flags)
{
	return map_find("hash/linux")->update(m, key, value, flags);
}

/* Answers 0 to every BPF_EXIST replace of a present key, writing nothing. */
static int update_losing_replaces(struct map *m, const void *key,
				  const void *value, uint64_t flags)
{
	uint8_t scratch[64];
	if (flags == MAP_EXIST && m->attr.value_size <= sizeof(scratch) &&
	    map_lookup_copy(m, key, scratch) == 0)
		return 0;
	return hash_linux_update(m, key, value, flags);
}

Test(stress_checker, a_lost_replace_is_caught, .timeout = 60)
{
	struct stress_opts o = opts_for(test_double("test/loses-replaces",
						    MAP_TYPE_HASH,
						    update_losing_replaces),
					MAP_TYPE_HASH, 0, 64, 64, 4, 8);
	struct stress_report r;
	int rc = stress_run(&o, &r);
	cr_expect_eq(rc, 1, "a map that drops replaces passed stress");
	cr_expect(strstr(r.failure, "lost") != NULL, "%s", r.failure);
	cr_log_info("caught: %s", r.failure);
}

/* Makes room in a full map by deleting the first key a walk gives. */
static int update_evicting(struct map *m, const void *key, const void *value,
			   uint64_t flags)
{
	uint8_t victim[64];
	for (int tries = 0; tries < 64; tries++) {
		int err = hash_linux_update(m, key, value, flags);
		if (err != -E2BIG || m->attr.key_size > sizeof(victim))
			return err;
		if (map_get_next_key(m, NULL, victim) == 0)
			map_delete(m, victim);
	}
	return -E2BIG;
}

Test(stress_checker, evictions_pass_only_where_the_type_allows, .timeout = 60)
{
	const struct map_ops *lru = test_double("test/evicts", MAP_TYPE_LRU_HASH,
						update_evicting);
	struct stress_opts o = opts_for(lru, MAP_TYPE_LRU_HASH, 0, 64, 256, 4, 8);
	struct stress_report r;

	cr_expect_eq(stress_run(&o, &r), 0, "an evicting map declared as "
		     "lru_hash: %s", r.failure);
	cr_expect_gt(r.evicted, 0, "the run evicted nothing: no test");
	o.rules = STRESS_EXACT;
	cr_expect_eq(stress_run(&o, &r), 1, "evictions passed the exact rules");
	cr_expect(strstr(r.failure, "missing") || strstr(r.failure, "more successful inserts"),
		  "%s", r.failure);
}

Test(stress_checker, a_taken_cpu_slot_fails_the_run, .timeout = 60)
{
	cr_assert_eq(map_cpu_claim(3), 3);
	struct stress_opts o = opts_for(map_find("hash/linux"), MAP_TYPE_HASH, 0,
					64, 64, 4, 8);
	struct stress_report r;
	int rc = stress_run(&o, &r);
	cr_expect_eq(rc, -EBUSY, "stress ran with worker 3 sharing a slot: %d",
		     rc);
	cr_expect(strstr(r.failure, "slot 3") != NULL, "%s", r.failure);
	map_cpu_release();
}

/*
 * A design that serves at most max_threads threads (hash/dpdk: DPDK's
 * lcore ids) is refused more before any thread starts: -EUSERS naming it
 * and its limit, not a run that fails on the design's -EBUSY as if the
 * map were broken.  Here hash/linux with a limit of 2 put on it.
 */
Test(stress_checker, more_threads_than_the_design_serves_are_refused, .timeout = 60)
{
	struct map_ops two = *map_find("hash/linux");
	two.max_threads = 2;
	two.max_threads_why = "a test's limit";
	struct stress_opts o = opts_for(&two, MAP_TYPE_HASH, 0, 64, 64, 4, 8);
	struct stress_report r;
	o.threads = 3;
	o.seconds = 0;
	o.max_ops = 2000;
	cr_expect_eq(stress_run(&o, &r), -EUSERS);
	cr_expect_str_eq(r.failure, "hash/linux serves at most 2 threads at "
			 "once, not 3: a test's limit");
	cr_expect_eq(r.ops, 0, "a refused run ran %lu ops", r.ops);
	o.threads = 2;
	cr_expect_eq(stress_run(&o, &r), 0, "%s", r.failure);
	cr_expect_gt(r.ops, 0);
}

/*
 * Under QSBR, memory freed with call_rcu comes back only if every online
 * thread announces quiescent states.  A no_prealloc map allocates on every
 * insert and replace; with workers that never announce one, nothing is
 * reclaimed during the run and, under this address-space limit, the map
 * runs out of memory (ENOMEM, which stress reports as a failure).
 */
Test(stress_checker, qsbr_reclaims_during_the_run, .timeout = 120)
{
	map_rcu_use(MAP_RCU_QSBR);
	struct stress_opts o = opts_for(map_find("hash/linux"), MAP_TYPE_HASH,
					MAP_F_NO_PREALLOC, 1024, 2048, 4, 256);
	o.threads = 1;       /* a core left for liburcu's call_rcu thread */
	o.seconds = 0;
	o.max_ops = 16000000; /* ~3.5M allocations of 300 bytes: 1 GiB */
	limit_address_space(256u << 20);
	struct stress_report r;
	int rc = stress_run(&o, &r);
	cr_expect_eq(rc, 0, "%s", r.failure);
	cr_log_info("%llu ops, %llu inserts, %llu replaces under QSBR",
		    (unsigned long long)r.ops, (unsigned long long)r.inserts,
		    (unsigned long long)r.replaces);
}
