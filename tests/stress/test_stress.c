/* SPDX-License-Identifier: MIT */
/*
 * Every design under contention: 8 threads on however many cores there
 * are (2 on CI), random inserts, replaces, deletes and lookups over a
 * shared key range, then harness/stress.c's checks of the final contents
 * against the successful operations.  Run under the sanitizers in CI.
 */
#include <criterion/criterion.h>

#include "harness/stress/stress.h"

static void stress_every_design(uint32_t type, uint32_t flags,
				uint32_t max_entries, uint32_t key_range,
				uint32_t key_size, uint32_t value_size)
{
	for (size_t i = 0; map_registry[i]; i++) {
		const struct map_ops *ops = map_registry[i];
		if (ops->type != type)
			continue;
		struct stress_opts o = {
			.ops = ops,
			.attr = { .type = type, .key_size = key_size,
				  .value_size = value_size,
				  .max_entries = max_entries, .flags = flags },
			.threads = 8,
			.key_range = key_range,
			.seconds = 0.75,
			.prefill_pct = 50,
			.seed = 42,
		};
		struct stress_report r;
		int rc = stress_run(&o, &r);
		cr_assert_eq(rc, 0, "%s flags=%#x: %s", ops->name, flags, r.failure);
		cr_expect_gt(r.inserts, 0, "%s: no insert succeeded", ops->name);
		cr_expect_gt(r.deletes, 0, "%s: no delete succeeded", ops->name);
		cr_expect_gt(r.lookup_hits, 0, "%s: no lookup hit", ops->name);
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

/* A wide range, odd sizes. */
Test(stress, hash_wide_range_odd_sizes, .timeout = 60)
{
	stress_every_design(MAP_TYPE_HASH, MAP_F_ZERO_SEED, 16384, 16384, 13, 37);
}
