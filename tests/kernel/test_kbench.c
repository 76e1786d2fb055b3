/* SPDX-License-Identifier: MIT */
/*
 * The in-kernel figure must be right, not just present.  On known cases:
 *  - every lookup of a prefilled key hits, counted inside the program, and
 *    the program made exactly as many map calls as it claims (so the loop
 *    was neither skipped nor optimised away);
 *  - on an empty map every lookup misses;
 *  - the baseline (the loop without the map call) is cheaper than the
 *    program, and the reported cost is their difference;
 *  - a miss in an empty map costs less than a hit in a full 64K-entry map
 *    (a figure that ignored the map would not see the difference);
 *  - inserts and deletes on the workers' pools all succeed: the streams
 *    reach the kernel intact and each CPU keeps its place across runs.
 * No timing threshold is asserted beyond orderings the hardware guarantees.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-compare/kbench.h"
#include "kernel-compare/kmap.h"
#include "need_kernel.h"

static struct kbench_result kb(const char *mix, unsigned entries,
			       unsigned prefill, uint64_t ops)
{
	struct kbench_config c = {
		.b = { .w = { .key_size = 4, .value_size = 8, .entries = entries,
			      .prefill_pct = prefill, .dist = DIST_UNIFORM,
			      .seed = 1 },
		       .threads = 1, .ops = ops },
		.map_type = MAP_TYPE_HASH,
		.ops_per_run = 256,
		.run_repeat = 8,
	};
	char err[512];
	struct kbench_result r;
	cr_assert_eq(workload_parse_mix(mix, c.b.w.mix, err, sizeof(err)), 0);
	cr_assert_eq(kbench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_gt(r.rounds, 0);
	/* Each round is repeat x ops_per_run map calls, all counted. */
	cr_expect_eq(r.r.ops, (uint64_t)r.rounds * 8 * 256,
		     "%lu calls counted in %u rounds", r.r.ops, r.rounds);
	return r;
}

Test(kbench, lookups_really_happen, .timeout = 120)
{
	need_kernel();
	struct kbench_result full = kb("lookup=100", 65536, 100, 200000);
	cr_expect_eq(full.r.fail[OP_LOOKUP], 0, "%lu misses in a full map",
		     full.r.fail[OP_LOOKUP]);
	cr_expect_eq(full.r.ok[OP_LOOKUP], full.r.ops);
	cr_expect_gt(full.program_ns_per_op, full.baseline_ns_per_op);
	cr_expect_float_eq(full.r.ns_per_op,
			   full.program_ns_per_op - full.baseline_ns_per_op, 1e-6);
	cr_expect_gt(full.r.ns_per_op, 0);

	struct kbench_result empty = kb("lookup=100", 65536, 0, 200000);
	cr_expect_eq(empty.r.ok[OP_LOOKUP], 0, "%lu hits in an empty map",
		     empty.r.ok[OP_LOOKUP]);
	cr_expect_eq(empty.r.fail[OP_LOOKUP], empty.r.ops);
	cr_expect_lt(empty.r.ns_per_op, full.r.ns_per_op,
		     "a miss in an empty map (%.1f ns) costs more than a hit in a "
		     "full one (%.1f ns)", empty.r.ns_per_op, full.r.ns_per_op);
	cr_log_info("kernel hash lookup, 64K full: %.1f ns (program %.1f, baseline "
		    "%.1f); empty: %.1f ns", full.r.ns_per_op,
		    full.program_ns_per_op, full.baseline_ns_per_op,
		    empty.r.ns_per_op);
}

Test(kbench, pool_inserts_and_deletes_all_succeed, .timeout = 120)
{
	need_kernel();
	struct kbench_result r = kb("lookup=50,insert=25,delete=25", 4096, 50,
				    100000);
	cr_expect_gt(r.r.ok[OP_INSERT], 0);
	cr_expect_eq(r.r.fail[OP_INSERT], 0, "%lu inserts failed",
		     r.r.fail[OP_INSERT]);
	cr_expect_eq(r.r.fail[OP_DELETE], 0, "%lu deletes failed",
		     r.r.fail[OP_DELETE]);
}

Test(kbench, syscall_side_counts_and_batches, .timeout = 120)
{
	need_kernel();
	struct kbench_config c = {
		.b = { .w = { .key_size = 4, .value_size = 8, .entries = 4096,
			      .prefill_pct = 100, .dist = DIST_UNIFORM, .seed = 1 },
		       .threads = 1, .ops = 20000 },
		.map_type = MAP_TYPE_HASH,
	};
	c.b.w.mix[OP_LOOKUP] = 100;
	char err[512];
	struct bench_result r;
	cr_assert_eq(kbench_syscall_run(&c, SYSCALL_SINGLE, &r, err, sizeof(err)),
		     0, "%s", err);
	cr_expect_geq(r.ops, 20000);
	cr_expect_eq(r.fail[OP_LOOKUP], 0);
	cr_assert_eq(kbench_syscall_run(&c, SYSCALL_BATCH, &r, err, sizeof(err)),
		     0, "%s", err);
	cr_expect_geq(r.ops, 20000, "batch walked %lu elements", r.ops);
	c.b.w.mix[OP_LOOKUP] = 50;
	c.b.w.mix[OP_UPDATE] = 50;
	cr_expect_eq(kbench_syscall_run(&c, SYSCALL_BATCH, &r, err, sizeof(err)),
		     -EOPNOTSUPP);
}

Test(kbench, more_threads_than_cpus_is_refused)
{
	need_kernel();
	struct kbench_config c = {
		.b = { .w = { .key_size = 4, .value_size = 8, .entries = 64,
			      .prefill_pct = 100, .seed = 1 },
		       .threads = 255, .ops = 1000 },
		.map_type = MAP_TYPE_HASH, .ops_per_run = 64, .run_repeat = 1,
	};
	c.b.w.mix[OP_LOOKUP] = 100;
	char err[512];
	struct kbench_result r;
	cr_expect_eq(kbench_run(&c, &r, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "one worker per CPU") != NULL, "%s", err);
}
