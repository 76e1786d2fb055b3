/* SPDX-License-Identifier: MIT */
/*
 * hash/linux against the running kernel's BPF_MAP_TYPE_HASH, op for op.
 *
 * Random traces (several seeds, map sizes, key sizes, with and without
 * prealloc and zero_seed) are replayed on both sides and their result
 * lines must be byte-identical; with zero_seed that includes the order of
 * get_next_key.  Creation errors are compared the same way.
 *
 * Needs root and a kernel with BPF.  Without them each test is skipped with
 * the reason; with MAPLAB_REQUIRE_KERNEL=1 (CI) it fails instead, so CI
 * cannot pass without having run them.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness/trace/replay.h"
#include "harness/trace/tracegen.h"
#include "kernel-compare/kmap.h"
#include "need_kernel.h"

/* Replay text on hash/linux and on the kernel; fail at the first
 * difference, showing the trace line and both results. */
static void expect_same(const char *text, const char *what)
{
	struct trace t;
	char err[512];
	cr_assert_eq(trace_parse_string(text, what, &t, err, sizeof(err)), 0,
		     "%s", err);
	struct replay_side user = replay_user_side(map_find("hash/linux"));
	struct replay_side kern = replay_fixed_side("kernel", &kmap_ops);
	struct replay_result u, k;
	int urc = replay_run(&t, what, &user, &u, err, sizeof(err));
	int krc = replay_run(&t, what, &kern, &k, err, sizeof(err));
	cr_assert_eq(urc, krc, "%s: one side stopped early: %s", what, err);

	size_t i = replay_next_difference(&t, &u, &k, 0);
	if (i < t.n) {
		size_t ul, kl;
		const char *ut = replay_line_text(&u, i, &ul);
		const char *kt = replay_line_text(&k, i, &kl);
		cr_assert_fail("%s: line %u differs\n  kernel:     %.*s  hash/linux: %.*s",
			what, t.lines[i].lineno, (int)kl, kt, (int)ul, ut);
	}
	replay_result_free(&u);
	replay_result_free(&k);
	trace_free(&t);
}

static void random_traces(uint32_t flags)
{
	static const uint32_t key_sizes[] = { 1, 3, 4, 8, 13, 40 };
	static const uint32_t entries[] = { 1, 5, 64, 700 };

	for (size_t ks = 0; ks < sizeof(key_sizes) / sizeof(key_sizes[0]); ks++)
		for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++)
			for (uint64_t seed = 1; seed <= 3; seed++) {
				struct tracegen_opts o = {
					.attr = { .type = MAP_TYPE_HASH,
						  .key_size = key_sizes[ks],
						  .value_size = 1 + (uint32_t)(seed * 5),
						  .max_entries = entries[e],
						  .flags = flags },
					.seed = seed * 7919 + ks * 31 + e,
					.ops = entries[e] < 64 ? 400 : 3 * entries[e],
				};
				char what[128];
				snprintf(what, sizeof(what),
					 "flags=%#x key_size=%u entries=%u seed=%llu",
					 flags, o.attr.key_size, o.attr.max_entries,
					 (unsigned long long)o.seed);
				char *text = tracegen_string(&o);
				cr_assert_not_null(text);
				expect_same(text, what);
				free(text);
			}
}

Test(kernel_hash, random_traces_zero_seed_prealloc, .timeout = 120)
{
	need_kernel();
	random_traces(MAP_F_ZERO_SEED);
}

Test(kernel_hash, random_traces_zero_seed_no_prealloc, .timeout = 120)
{
	need_kernel();
	random_traces(MAP_F_ZERO_SEED | MAP_F_NO_PREALLOC);
}

Test(kernel_hash, random_traces_random_seed, .timeout = 120)
{
	need_kernel();
	random_traces(0);
	random_traces(MAP_F_NO_PREALLOC);
}

Test(kernel_hash, creation_errors)
{
	need_kernel();
	expect_same(
		"map hash key_size=0 value_size=8 max_entries=4\n"
		"map hash key_size=4 value_size=0 max_entries=4\n"
		"map hash key_size=4 value_size=8 max_entries=0\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=no_common_lru\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x100\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x4\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x8\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x18\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x180\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x20\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x400\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x80000\n"
		"map hash key_size=4 value_size=4194252 max_entries=1\n"
		"map hash key_size=4 value_size=4194251 max_entries=1\n"
		"map hash key_size=4194300 value_size=4 max_entries=1\n"
		"map hash key_size=513 value_size=8 max_entries=4\n"
		"map hash key_size=4 value_size=8 max_entries=2147483649\n"
		"map hash key_size=4 value_size=8 max_entries=268435457\n"
		"map hash key_size=4 value_size=8 max_entries=1 flags=zero_seed|no_prealloc\n",
		"creation errors");
}

Test(kernel_hash, the_bundled_example)
{
	need_kernel();
	FILE *f = fopen(MAPLAB_SOURCE_ROOT "/examples/hash_basics.trace", "r");
	cr_assert_not_null(f);
	char *text = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	cr_assert_gt(n, 0);
	expect_same(text, "examples/hash_basics.trace");
	free(text);
}
