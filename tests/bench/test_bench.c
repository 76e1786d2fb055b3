/* SPDX-License-Identifier: MIT */
/*
 * The benchmark, run briefly on every design, doubles as a test (as
 * liburcu's benchmarks do): it must finish, count what it did, and get the
 * answers a correct map gives (every lookup of a prefilled key hits, every
 * insert into a map with room succeeds).  No timing is asserted.
 */
#include <criterion/criterion.h>

#include "../../harness/bench.h"

static struct bench_result run(const struct map_ops *ops, const char *mix,
			       unsigned prefill, unsigned threads)
{
	struct bench_config c = {
		.design = ops,
		.w = { .key_size = 8, .value_size = 16, .entries = 4096,
		       .prefill_pct = prefill, .dist = DIST_UNIFORM, .seed = 1 },
		.threads = threads,
		.seconds = 0.15,
		.warmup = 0.05,
	};
	char err[256];
	struct bench_result r;
	cr_assert_eq(workload_parse_mix(mix, c.w.mix, err, sizeof(err)), 0);
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s: %s",
		     ops->name, err);
	cr_assert_gt(r.ops, 0, "%s did nothing", ops->name);
	cr_expect_gt(r.mops, 0);
	cr_expect_gt(r.latency.total, 0, "no sampled latencies");
	return r;
}

Test(bench, lookups_of_prefilled_keys_all_hit, .timeout = 60)
{
	for (size_t i = 0; map_registry[i]; i++) {
		struct bench_result r = run(map_registry[i], "lookup=90,update=10",
					    100, 2);
		cr_expect_eq(r.fail[OP_LOOKUP], 0, "%s: %lu lookups missed",
			     map_registry[i]->name, r.fail[OP_LOOKUP]);
		cr_expect_eq(r.fail[OP_UPDATE], 0, "%s: %lu updates failed",
			     map_registry[i]->name, r.fail[OP_UPDATE]);
		cr_expect_eq(r.prefilled, 4096);
	}
}

Test(bench, inserts_and_deletes_with_room, .timeout = 60)
{
	for (size_t i = 0; map_registry[i]; i++) {
		struct bench_result r = run(map_registry[i],
					    "lookup=50,insert=25,delete=25", 50, 3);
		cr_expect_eq(r.fail[OP_INSERT], 0, "%s: %lu inserts failed",
			     map_registry[i]->name, r.fail[OP_INSERT]);
		cr_expect_eq(r.fail[OP_DELETE], 0, "%s: %lu deletes failed",
			     map_registry[i]->name, r.fail[OP_DELETE]);
		cr_expect_gt(r.ok[OP_INSERT], 0);
		/* Half the keys are in: about half the lookups hit. */
		double hit = (double)r.ok[OP_LOOKUP] /
			     (double)(r.ok[OP_LOOKUP] + r.fail[OP_LOOKUP]);
		cr_expect(hit > 0.4 && hit < 0.6, "%s: hit ratio %.2f",
			  map_registry[i]->name, hit);
	}
}

Test(bench, a_full_map_refuses_inserts, .timeout = 60)
{
	for (size_t i = 0; map_registry[i]; i++) {
		struct bench_result r = run(map_registry[i], "insert=50,delete=50",
					    100, 1);
		cr_expect_eq(r.ok[OP_INSERT], 0, "%s took a key into a full map",
			     map_registry[i]->name);
		cr_expect_gt(r.fail[OP_INSERT], 0);
	}
}

Test(bench, the_noop_design_counts_ops)
{
	struct bench_result r = run(&bench_noop_ops, "lookup=100", 100, 2);
	cr_expect_eq(r.fail[OP_LOOKUP], 0);
	cr_expect_eq(r.ops, r.ok[OP_LOOKUP]);
}

Test(bench, an_op_count_is_honoured)
{
	struct bench_config c = {
		.design = map_find("hash/linux"),
		.w = { .key_size = 4, .value_size = 8, .entries = 1024,
		       .prefill_pct = 100, .dist = DIST_UNIFORM, .seed = 1 },
		.threads = 2,
		.ops = 100000,
	};
	c.w.mix[OP_LOOKUP] = 100;
	char err[256];
	struct bench_result r;
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	/* Each thread rounds its share up to whole batches. */
	cr_expect(r.ops >= 100000 && r.ops < 100000 + 2 * BENCH_BATCH,
		  "%lu ops", r.ops);
}
