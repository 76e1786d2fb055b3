/* SPDX-License-Identifier: MIT */
/*
 * The benchmark, run briefly on every design, doubles as a test (as
 * liburcu's benchmarks do): it must finish, count what it did, and get the
 * answers a correct map gives (every lookup of a prefilled key hits, every
 * insert into a map with room succeeds).  No timing is asserted.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "harness/bench/bench.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"
#include "tests/common/designs.h"
#include "tests/common/memlimit.h"

/* hash/linux-style config: 4-byte keys, a full map, lookups only. */
static struct bench_config config(const char *design, uint32_t value_size,
				  uint32_t entries, unsigned threads)
{
	struct bench_config c = {
		.design = map_find(design),
		.w = { .key_size = 4, .value_size = value_size,
		       .entries = entries, .prefill_pct = 100,
		       .dist = DIST_UNIFORM, .seed = 1 },
		.threads = threads, .seconds = 0.1,
	};
	c.w.mix[OP_LOOKUP] = 100;
	return c;
}

static struct bench_result run_flags(const struct map_ops *ops,
				     const char *mix, unsigned prefill,
				     unsigned threads, uint32_t flags)
{
	struct bench_config c = {
		.design = ops,
		.w = { .key_size = 8, .value_size = 16, .entries = 4096,
		       .prefill_pct = prefill, .dist = DIST_UNIFORM, .seed = 1 },
		.map_flags = flags,
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
	cr_expect_gt(r.latency.total, 0, "no sampled latencies");
	return r;
}

static struct bench_result run(const struct map_ops *ops, const char *mix,
			       unsigned prefill, unsigned threads)
{
	return run_flags(ops, mix, prefill, threads, 0);
}

Test(bench, lookups_of_prefilled_keys_all_hit, .timeout = 60)
{
	const struct map_ops *designs[MAX_TEST_DESIGNS];
	size_t n = designs_of_type(MAP_TYPE_HASH, designs);
	for (size_t i = 0; i < n; i++) {
		struct bench_result r = run(designs[i], "lookup=100", 100, 2);
		cr_expect_eq(r.fail[OP_LOOKUP], 0, "%s: %lu lookups missed",
			     designs[i]->name, r.fail[OP_LOOKUP]);
		cr_expect_eq(r.prefilled, 4096);
	}
}

/* --batch: every key of a batch is an op; on a full map of the keys
 * looked up, every one hits, with the design's own batch (seqlock_buckets)
 * and with map.h's loop (linux); a mix counts its other ops as before. */
Test(bench, batched_lookups_count_every_key, .timeout = 60)
{
	static const char *const designs[] = { "hash/seqlock_buckets",
					       "hash/linux" };
	for (size_t d = 0; d < 2; d++) {
		struct bench_config c = config(designs[d], 8, 4096, 1);
		struct bench_result r;
		char err[256];
		c.w.batch = 16;
		c.seconds = 0;
		c.ops = 20000;
		cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
		cr_expect_eq(r.fail[OP_LOOKUP], 0, "%s: %lu missed", designs[d],
			     r.fail[OP_LOOKUP]);
		cr_expect_eq(r.ok[OP_LOOKUP], r.ops, "%s: %lu of %lu", designs[d],
			     r.ok[OP_LOOKUP], r.ops);
		cr_expect_geq(r.ops, 20000);
		c.w.mix[OP_LOOKUP] = 50;
		c.w.mix[OP_UPDATE] = 50;
		cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
		cr_expect_eq(r.ok[OP_LOOKUP] + r.ok[OP_UPDATE], r.ops,
			     "%s: mixed: %lu + %lu of %lu", designs[d],
			     r.ok[OP_LOOKUP], r.ok[OP_UPDATE], r.ops);
		cr_expect_gt(r.ok[OP_UPDATE], r.ops / 3, "%s", designs[d]);
	}
}

Test(bench, inserts_and_deletes_with_room, .timeout = 60)
{
	const struct map_ops *designs[MAX_TEST_DESIGNS];
	size_t n = designs_of_type(MAP_TYPE_HASH, designs);
	for (size_t i = 0; i < n; i++) {
		struct bench_result r = run(designs[i],
					    "lookup=50,insert=25,delete=25", 50, 3);
		cr_expect_eq(r.fail[OP_INSERT], 0, "%s: %lu inserts failed",
			     designs[i]->name, r.fail[OP_INSERT]);
		cr_expect_eq(r.fail[OP_DELETE], 0, "%s: %lu deletes failed",
			     designs[i]->name, r.fail[OP_DELETE]);
		cr_expect_gt(r.ok[OP_INSERT], 0);
		/* Half the keys are in: about half the lookups hit. */
		double hit = (double)r.ok[OP_LOOKUP] /
			     (double)(r.ok[OP_LOOKUP] + r.fail[OP_LOOKUP]);
		cr_expect(hit > 0.4 && hit < 0.6, "%s: hit ratio %.2f",
			  designs[i]->name, hit);
	}
}

Test(bench, a_full_hash_map_refuses_inserts, .timeout = 60)
{
	const struct map_ops *designs[MAX_TEST_DESIGNS];
	size_t n = designs_of_type(MAP_TYPE_HASH, designs);
	for (size_t i = 0; i < n; i++) {
		struct bench_result r = run(designs[i], "insert=50,delete=50",
					    100, 1);
		cr_expect_eq(r.ok[OP_INSERT], 0, "%s took a key into a full map",
			     designs[i]->name);
		cr_expect_gt(r.fail[OP_INSERT], 0);
	}
}

/* r timed one op in its sample_every, a power of two: each worker's first
 * op too, and a worker's ops come in rounds of BENCH_BATCH, so each adds
 * at most one sample past ops / sample_every. */
static void expect_one_sample_in_every(const struct bench_result *r,
				       unsigned threads)
{
	uint32_t every = r->sample_every;
	cr_expect(every >= 1 && every <= BENCH_SAMPLE_EVERY_MAX &&
		  (every & (every - 1)) == 0, "sample_every %u", every);
	cr_expect_geq(r->latency.total, r->ops / every,
		      "%lu samples for %lu ops, one in %u", r->latency.total,
		      r->ops, every);
	cr_expect_leq(r->latency.total, r->ops / every + threads,
		      "%lu samples for %lu ops, one in %u", r->latency.total,
		      r->ops, every);
}

/*
 * The noop design does nothing, so what it shows is the harness: one op in
 * sample_every is timed, every op is counted once, under the workload's
 * own op kinds.
 */
Test(bench, the_harness_samples_one_op_in_sample_every)
{
	struct bench_result r = run(&bench_noop_ops,
				    "lookup=50,update=30,insert=10,delete=10", 50,
				    2);
	expect_one_sample_in_every(&r, 2);
	cr_expect_gt(r.ok[OP_UPDATE], 0);
	cr_expect_gt(r.ok[OP_DELETE], 0);
}

/* A batched run samples whole batches, one batch start in sample_every
 * keys; without a warm-up to price the ops by, one in
 * BENCH_SAMPLE_EVERY. */
Test(bench, batches_and_runs_without_warmup_sample_as_told)
{
	struct bench_config c = {
		.design = &bench_noop_ops,
		.w = { .key_size = 4, .value_size = 8, .entries = 4096,
		       .prefill_pct = 100, .dist = DIST_UNIFORM, .seed = 1,
		       .batch = 32 },
		.threads = 1, .seconds = 0, .ops = 1 << 20, .warmup = 0.05,
	};
	char err[256];
	struct bench_result r;
	c.w.mix[OP_LOOKUP] = 100;
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	/* a sample is a batch of 32 keys, one batch in every / 32 */
	uint32_t every = r.sample_every < 32 ? 32 : r.sample_every;
	cr_expect_eq(r.latency.total, r.ops / every, "%lu samples, one in %u",
		     r.latency.total, r.sample_every);

	c.warmup = 0;
	c.w.batch = 1;
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(r.sample_every, BENCH_SAMPLE_EVERY);
	cr_expect_eq(r.latency.total, r.ops / BENCH_SAMPLE_EVERY);
}

/* The noop design over ops counted (a quota: the same ops every run),
 * 4-byte keys, one thread, no warm-up: one op in BENCH_SAMPLE_EVERY is
 * timed. */
static struct bench_result run_noop_batch(const char *mix, unsigned batch)
{
	struct bench_config c = {
		.design = &bench_noop_ops,
		.w = { .key_size = 4, .value_size = 8, .entries = 4096,
		       .prefill_pct = 100, .dist = DIST_UNIFORM, .seed = 1,
		       .batch = batch },
		.threads = 1, .seconds = 0, .ops = 1 << 18,
	};
	char err[256];
	struct bench_result r;
	cr_assert_eq(workload_parse_mix(mix, c.w.mix, err, sizeof(err)), 0);
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.sample_every, BENCH_SAMPLE_EVERY);
	return r;
}

/*
 * A batch changes lookups only.  Without a lookup in the mix a batched
 * run is the unbatched one: the same ops, each timed alone one in
 * sample_every (--batch 64 with update=100 timed all 64 ops of a window,
 * one sample each, and doubled ns/op).
 */
Test(bench, a_batch_without_lookups_runs_each_op_as_no_batch)
{
	struct bench_result one = run_noop_batch("update=70,delete=10,insert=20", 1);
	struct bench_result batched = run_noop_batch("update=70,delete=10,insert=20",
						     64);
	cr_expect_eq(batched.ops, one.ops);
	for (int op = 0; op < OP_COUNT; op++)
		cr_expect_eq(batched.ok[op] + batched.fail[op],
			     one.ok[op] + one.fail[op], "op %d", op);
	cr_expect_eq(one.latency.total, one.ops / BENCH_SAMPLE_EVERY);
	cr_expect_eq(batched.latency.total, one.latency.total,
		     "%lu samples for %lu ops at --batch 64, %lu without",
		     batched.latency.total, batched.ops, one.latency.total);
}

/*
 * With lookups and writes mixed, the writes run as without a batch (each
 * timed alone where it is the first op of its sample_every), and a batch
 * of lookups is one sample where it holds such an op: a batch (at most
 * 16 keys) never holds two of them (one op in 64), so each sample_every
 * gives exactly one sample, the same count as without a batch.
 */
Test(bench, a_batch_of_a_mix_samples_one_op_in_sample_every)
{
	struct bench_result one = run_noop_batch("lookup=50,update=50", 1);
	struct bench_result batched = run_noop_batch("lookup=50,update=50", 16);
	cr_expect_eq(batched.ops, one.ops);
	cr_expect_eq(batched.ok[OP_LOOKUP] + batched.fail[OP_LOOKUP],
		     one.ok[OP_LOOKUP] + one.fail[OP_LOOKUP]);
	cr_expect_eq(batched.latency.total, batched.ops / BENCH_SAMPLE_EVERY,
		     "%lu samples for %lu ops, one in %u", batched.latency.total,
		     batched.ops, BENCH_SAMPLE_EVERY);
	cr_expect_eq(batched.latency.total, one.latency.total);
}

/* noop with a limit on its threads (map_ops.max_threads), as hash/dpdk's. */
static struct map_ops noop_of_two_threads(void)
{
	struct map_ops o = bench_noop_ops;
	o.name = "noop/two";
	o.max_threads = 2;
	o.max_threads_why = "a test's limit";
	return o;
}

/*
 * A design serves at most its max_threads: more is refused before a
 * thread starts (-EUSERS, the design and its limit named), not run into
 * the design's -EBUSY.
 */
Test(bench, more_threads_than_a_design_serves_are_refused)
{
	struct map_ops two = noop_of_two_threads();
	char err[256] = "";
	cr_expect_eq(bench_threads_fit(&two, 2, err, sizeof(err)), 0);
	cr_expect_eq(bench_threads_fit(&bench_noop_ops, 1000, err, sizeof(err)), 0);
	cr_expect_eq(bench_threads_fit(NULL, 1000, err, sizeof(err)), 0);
	cr_expect_eq(bench_threads_fit(&two, 3, err, sizeof(err)), -EUSERS);
	cr_expect_str_eq(err, "noop/two serves at most 2 threads at once, not 3: "
			 "a test's limit");

	struct bench_config c = config("hash/linux", 8, 1024, 3);
	struct bench_result r;
	c.design = &two;
	c.seconds = 0;
	c.ops = 1000;
	err[0] = 0;
	cr_expect_eq(bench_run(&c, &r, err, sizeof(err)), -EUSERS);
	cr_expect(strstr(err, "noop/two serves at most 2 threads") != NULL, "%s", err);
	cr_expect_eq(r.ops, 0, "a refused run ran %lu ops", r.ops);
	c.threads = 2;
	cr_expect_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_gt(r.ops, 0);
}

/* Timed alone often enough for percentiles, rarely enough that the two
 * clock reads of a sample are at most 1 % of the ops' time. */
Test(bench, sampling_keeps_the_clock_under_a_hundredth_of_the_time)
{
	cr_expect_eq(bench_sample_every(3.0, 25.0), 2048); /* 1667 ops */
	cr_expect_eq(bench_sample_every(50.0, 25.0), 128); /* 100 */
	cr_expect_eq(bench_sample_every(5000.0, 25.0), 1);
	cr_expect_eq(bench_sample_every(0.001, 25.0), BENCH_SAMPLE_EVERY_MAX);
	cr_expect_eq(bench_sample_every(0, 25.0), BENCH_SAMPLE_EVERY);
	cr_expect_eq(bench_sample_every(NAN, 25.0), BENCH_SAMPLE_EVERY);
	cr_expect_eq(bench_sample_every(10.0, 0), BENCH_SAMPLE_EVERY);
	for (double op = 1; op < 1e5; op *= 1.7) {
		uint32_t n = bench_sample_every(op, 20.0);
		cr_expect_leq(2 * 20.0, 0.01 * n * op + 1e-9, "op %.1f ns: %u",
			      op, n);
		if (n > 1)
			cr_expect_gt(2 * 20.0, 0.01 * (n / 2) * op,
				     "op %.1f ns: %u is not the least", op, n);
	}
}

/*
 * The harness alone at --batch is the noop's own batch: one call for the
 * batch, each key read, every key answered with the pointer its single
 * lookup gives (map.h's loop would add an indirect call a key, which a
 * batched design does not pay, to the harness's figure).
 */
Test(bench, the_noop_batch_answers_every_key_as_its_lookup)
{
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = 64 };
	struct map *m;
	uint32_t keys[MAP_BATCH_MAX];
	void *values[MAP_BATCH_MAX];
	cr_assert_not_null(bench_noop_ops.lookup_batch);
	cr_assert_eq(map_create(&bench_noop_ops, &a, &m), 0);
	for (unsigned i = 0; i < MAP_BATCH_MAX; i++) {
		keys[i] = i;
		values[i] = NULL;
	}
	cr_expect_eq(map_lookup_batch(m, keys, MAP_BATCH_MAX, values),
		     MAP_BATCH_MAX);
	for (unsigned i = 0; i < MAP_BATCH_MAX; i++)
		cr_expect_eq(values[i], map_lookup(m, &keys[i]), "key %u", i);
	map_destroy(m);
}

Test(bench, an_op_count_is_honoured)
{
	struct bench_config c = config("hash/linux", 8, 1024, 2);
	c.seconds = 0;
	c.ops = 100000;
	char err[256];
	struct bench_result r;
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	/* Each thread rounds its share up to whole batches. */
	cr_expect(r.ops >= 100000 && r.ops < 100000 + 2 * BENCH_BATCH,
		  "%lu ops", r.ops);
}

/*
 * A lookup racing a replace can miss on hash/linux, with or without
 * preallocation, exactly as in the kernel (docs/hash_linux.md, "A lookup can
 * miss a key that is being replaced").  Misses must stay rare: a property of
 * the replace protocol, not a licence to lose keys.  The baseline's replace
 * is atomic (cds_lfht_replace): it never misses.
 */
static void expect_misses_during_replaces(const char *name, uint32_t flags,
					  bool may_miss)
{
	struct bench_result r = run_flags(map_find(name), "lookup=80,update=20",
					  100, 2, flags);
	uint64_t lookups = r.ok[OP_LOOKUP] + r.fail[OP_LOOKUP];
	if (may_miss)
		cr_expect_lt(r.fail[OP_LOOKUP] * 1000, lookups,
			     "%s: %lu of %lu lookups missed", name,
			     r.fail[OP_LOOKUP], lookups);
	else
		cr_expect_eq(r.fail[OP_LOOKUP], 0, "%s: %lu of %lu lookups missed",
			     name, r.fail[OP_LOOKUP], lookups);
	cr_expect_eq(r.fail[OP_UPDATE], 0, "%s: %lu replaces failed", name,
		     r.fail[OP_UPDATE]);
	cr_log_info("%s flags=%#x: %lu of %lu lookups missed during replaces",
		    name, flags, r.fail[OP_LOOKUP], lookups);
}

Test(bench, lookups_racing_replaces, .timeout = 60)
{
	expect_misses_during_replaces("hash/linux", 0, true);
	expect_misses_during_replaces("hash/linux", MAP_F_NO_PREALLOC, true);
	expect_misses_during_replaces("hash/rculfhash", 0, false);
}

/* A worker whose cpu slot another thread holds must fail the run: two
 * threads on one slot corrupt per-CPU state (the kernel never runs two
 * things on one CPU at once). */
Test(bench, a_taken_cpu_slot_fails_the_run, .timeout = 60)
{
	struct bench_config c = config("hash/linux", 8, 1024, 2);
	char err[256] = "";
	struct bench_result r;
	cr_assert_eq(map_cpu_claim(1), 1);
	cr_expect_eq(bench_run(&c, &r, err, sizeof(err)), -EBUSY, "%s", err);
	cr_expect(strstr(err, "slot 1") != NULL, "%s", err);
	map_cpu_release();
}

/*
 * Under QSBR the main thread waits out the run: if it stayed online it
 * would hold up every grace period and nothing freed with call_rcu would
 * come back until the end.  A no_prealloc replace allocates every time:
 * 4M replaces of 300-byte elements need 1.2 GiB without reclamation.
 */
Test(bench, qsbr_reclaims_while_the_main_thread_waits, .timeout = 120)
{
	map_rcu_use(MAP_RCU_QSBR);
	struct bench_config c = config("hash/linux", 256, 4096, 1);
	c.map_flags = MAP_F_NO_PREALLOC;
	c.seconds = 0;
	c.ops = 4000000;
	c.w.mix[OP_LOOKUP] = 0;
	c.w.mix[OP_UPDATE] = 100;
	char err[256] = "";
	struct bench_result r;
	limit_address_space(192u << 20);
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(r.fail[OP_UPDATE], 0, "%lu of %lu replaces failed (ENOMEM: "
		     "nothing was reclaimed)", r.fail[OP_UPDATE], r.ops);
}

/*
 * A workload the machine cannot hold is refused with ENOMEM and a reason,
 * not run half-prefilled, not a crash.  1 MiB values without prealloc: the
 * map allocates each element as the prefill inserts it.
 */
Test(bench, a_workload_too_big_for_memory_is_enomem, .timeout = 60)
{
	struct bench_config c = config("hash/linux", 1u << 20, 65536, 2);
	c.map_flags = MAP_F_NO_PREALLOC;
	char err[256] = "";
	struct bench_result r;
	limit_address_space(512u << 20);
	cr_expect_eq(bench_run(&c, &r, err, sizeof(err)), -ENOMEM, "%s", err);
	cr_expect(strstr(err, "prefill") != NULL, "%s", err);
}

/* --- eviction workloads: the range model on maps that evict ----------------- */

/* keys from 4x the entries, prefilled full, `mix`, 60000 ops after a 0.1 s
 * warm-up that evicts too.  An op count, not a time: the checks need some
 * thousands of inserts, which a slow build (ThreadSanitizer: lru/partitioned
 * makes about 0.2 M ops a second there) may not make in a fixed time. */
static struct bench_result run_range(const struct map_ops *ops,
				     const char *mix, unsigned threads)
{
	struct bench_config c = {
		.design = ops,
		.w = { .key_size = 4, .value_size = 8, .entries = 4096,
		       .key_range = 4 * 4096, .prefill_pct = 100,
		       .dist = DIST_UNIFORM, .seed = 3 },
		.threads = threads, .seconds = 0, .ops = 60000, .warmup = 0.1,
	};
	char err[256];
	struct bench_result r;
	cr_assert_eq(workload_parse_mix(mix, c.w.mix, err, sizeof(err)), 0);
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s: %s",
		     ops->name, err);
	return r;
}

/*
 * Every LRU design keeps evicting on a range 4x its size, and counts it:
 * inserts of absent keys succeed (and evict, the map being full), inserts
 * of present ones are EEXIST, and every key an insert added beyond what
 * the map holds was evicted (so at least ok inserts - 2 x entries
 * evictions: a design may hold a few more than max_entries, rounded to
 * its cpus).
 */
Test(bench, lru_designs_evict_on_a_range_beyond_their_size, .timeout = 120)
{
	const struct map_ops *designs[MAX_TEST_DESIGNS];
	size_t n = designs_of_type(MAP_TYPE_LRU_HASH, designs);
	for (size_t i = 0; i < n; i++) {
		const char *name = designs[i]->name;
		struct bench_result r = run_range(designs[i], "lookup=50,insert=50",
						  2);
		cr_expect(r.has_work && r.has_evictions, "%s counts no work",
			  name);
		cr_expect_gt(r.ok[OP_INSERT], 2 * 4096, "%s: %lu inserts", name,
			     r.ok[OP_INSERT]);
		cr_expect_gt(r.fail[OP_INSERT], 0, "%s: no insert met its key",
			     name);
		cr_expect_geq(r.work.evictions + 2 * 4096, r.ok[OP_INSERT],
			      "%s: %lu evictions for %lu inserts", name,
			      r.work.evictions, r.ok[OP_INSERT]);
		cr_expect_gt(r.work.locks, 0, "%s: no lock counted", name);
		cr_expect(r.ok[OP_LOOKUP] && r.fail[OP_LOOKUP],
			  "%s: lookups %lu hit, %lu missed", name,
			  r.ok[OP_LOOKUP], r.fail[OP_LOOKUP]);
	}
}

/*
 * The work counted is the timed ops' own.  lru/global evicts exactly the
 * oldest key, one per pop of a full map, and each insert pops once.  A
 * failed insert (EEXIST) pops before it finds its key, so it may evict
 * and leave that element free; the next insert takes it without evicting.
 * So with one thread at most one element is free when the timed phase
 * starts (the map was prefilled full), and ok inserts - 1 <= evictions <=
 * all inserts: counting the warm-up (which evicts as much again) would
 * break it, as would counting nothing.  (The prefill fills the map
 * exactly, evicting nothing, so counting it would not show here.)
 */
Test(bench, the_work_counted_is_the_timed_ops_own, .timeout = 60)
{
	struct bench_result r = run_range(map_find("lru/global"), "insert=100", 1);
	uint64_t inserts = r.ok[OP_INSERT] + r.fail[OP_INSERT];
	cr_expect_geq(r.work.evictions + 1, r.ok[OP_INSERT], "%lu evictions, "
		      "%lu inserts went in", r.work.evictions, r.ok[OP_INSERT]);
	cr_expect_leq(r.work.evictions, inserts, "%lu evictions for %lu "
		      "inserts", r.work.evictions, inserts);
	/* One refill (a trip to the list's tail) per eviction. */
	cr_expect_eq(r.work.refills, r.work.evictions);
}

/* A design that counts no work reports none, not zeroes. */
Test(bench, a_design_without_work_counts_reports_none, .timeout = 60)
{
	struct bench_result r = run(map_find("hash/linux"), "lookup=100", 100, 1);
	cr_expect_not(r.has_work || r.has_evictions);
}

/* --- the suite's ops: upsert, replace, lookup_write ---------------------- */

/*
 * hash/linux, its map seen as it is destroyed: the ops of a counting copy
 * of its map_ops are its own but for destroy, which first counts the keys
 * and the values whose first LOOKUP_WRITE_BYTES bytes a lookup_write
 * zeroed (a prefilled value's are not zero: workload_fill_value).
 */
static struct map_ops counting_ops;
static uint64_t keys_at_end, zeroed_at_end;

static void counting_destroy(struct map *m)
{
	uint8_t key[4], value[8], zero[LOOKUP_WRITE_BYTES] = { 0 };
	int err;
	keys_at_end = zeroed_at_end = 0;
	for (err = map_get_next_key(m, NULL, key); !err;
	     err = map_get_next_key(m, key, key)) {
		cr_assert_leq(++keys_at_end, m->attr.max_entries, "the walk loops");
		cr_assert_eq(map_lookup_copy(m, key, value), 0);
		zeroed_at_end += memcmp(value, zero, sizeof(zero)) == 0;
	}
	map_find("hash/linux")->destroy(m);
}

static int counting_create(const struct map_attr *attr, struct map **out)
{
	int rc = map_find("hash/linux")->create(attr, out);
	if (!rc)
		(*out)->ops = &counting_ops;
	return rc;
}

static const struct map_ops *counting_hash(void)
{
	counting_ops = *map_find("hash/linux");
	counting_ops.create = counting_create;
	counting_ops.destroy = counting_destroy;
	return &counting_ops;
}

/* One thread on a full hash/linux of 4096 8-byte values: `mix` over the
 * map's keys (the pool model).  One thread, so no other replace of the
 * same key can come between a replace's delete and its update. */
/* A timed run of mix on a full map of 4096 keys; n_ops > 0: that many
 * operations instead of a duration (a figure a test relies on, which a
 * slow build, under a sanitizer, must reach too). */
static struct bench_result run_full_for(const struct map_ops *ops,
					const char *mix, uint64_t n_ops)
{
	struct bench_config c = config("hash/linux", 8, 4096, 1);
	char err[256];
	struct bench_result r;
	c.design = ops;
	if (n_ops) {
		c.seconds = 0;
		c.ops = n_ops;
	}
	cr_assert_eq(workload_parse_mix(mix, c.w.mix, err, sizeof(err)), 0);
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_gt(r.ops, 0, "%s did nothing", mix);
	return r;
}

static struct bench_result run_full(const struct map_ops *ops, const char *mix)
{
	return run_full_for(ops, mix, 0);
}

Test(bench, upserts_of_a_full_maps_keys_all_succeed, .timeout = 60)
{
	struct bench_result r = run_full(counting_hash(), "upsert=100");
	cr_expect_eq(r.ok[OP_UPSERT], r.ops, "%lu of %lu upserts", r.ok[OP_UPSERT],
		     r.ops);
	cr_expect_eq(keys_at_end, 4096);
}

/* A replace deletes a present key and puts it back: every one succeeds,
 * the map stays full, and no other op is counted. */
Test(bench, replaces_succeed_and_keep_the_maps_size, .timeout = 60)
{
	struct bench_result r = run_full(counting_hash(), "replace=100");
	cr_expect_eq(r.ok[OP_REPLACE], r.ops, "%lu of %lu replaces (%lu failed)",
		     r.ok[OP_REPLACE], r.ops, r.fail[OP_REPLACE]);
	cr_expect_eq(r.ok[OP_UPDATE] + r.ok[OP_DELETE] + r.ok[OP_INSERT], 0);
	cr_expect_eq(keys_at_end, 4096, "%lu keys after the replaces",
		     keys_at_end);
}

/* On a full map every lookup_write finds its key (an insert would fail
 * E2BIG, and count) and zeroes the value's first bytes in place: after
 * some million of them over 4096 keys, every value's. */
Test(bench, lookup_writes_on_a_full_map_all_hit_and_write, .timeout = 60)
{
	struct bench_result r = run_full_for(counting_hash(), "lookup_write=100",
					     200000);
	cr_expect_eq(r.fail[OP_LOOKUP_WRITE], 0, "%lu lookup_writes failed",
		     r.fail[OP_LOOKUP_WRITE]);
	cr_expect_eq(r.ok[OP_LOOKUP_WRITE], r.ops);
	cr_expect_eq(keys_at_end, 4096);
	cr_expect_gt(r.ops, 100000, "too few ops to meet every key: %lu", r.ops);
	cr_expect_eq(zeroed_at_end, 4096, "%lu of 4096 values written",
		     zeroed_at_end);
}

/* Upserts over a range 4x the map: a full hash refuses the absent keys
 * (E2BIG), an LRU evicts for them and refuses none. */
Test(bench, upserts_beyond_a_full_hash_fail_and_an_lru_evicts, .timeout = 60)
{
	struct bench_result hash = run_range(map_find("hash/linux"), "upsert=100", 1);
	cr_expect_gt(hash.fail[OP_UPSERT], hash.ops / 2,
		     "hash/linux: %lu of %lu upserts failed", hash.fail[OP_UPSERT],
		     hash.ops);
	cr_expect_gt(hash.ok[OP_UPSERT], 0, "no upsert of a present key");
	struct bench_result lru = run_range(map_find("lru/linux_common"),
					    "upsert=100", 1);
	cr_expect_eq(lru.fail[OP_UPSERT], 0, "lru/linux_common: %lu upserts failed",
		     lru.fail[OP_UPSERT]);
	cr_expect_eq(lru.ok[OP_UPSERT], lru.ops);
	cr_expect(lru.has_evictions && lru.work.evictions > 4096,
		  "lru/linux_common: %lu evictions", lru.work.evictions);
}
