/* SPDX-License-Identifier: MIT */
/*
 * What a report says about repeats: medians and spreads, ratios taken
 * within a repeat, the flags on figures a machine cannot give, and the
 * fields the jsonl and csv records carry; the record writer's rules
 * (record.h) and sim's records; the host record's sources and the
 * reference probe's chase.  Every expected value is worked out by hand in
 * the comment beside it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/common/wrap.h"
#include "harness/results/host.h"
#include "harness/bench/probe.h"
#include "harness/results/record.h"
#include "harness/results/report.h"
#include "harness/results/sim_report.h"

#define EPS 1e-9

static void expect_spread(struct spread s, double median, double min,
			  double max)
{
	cr_expect_float_eq(s.median, median, EPS, "median %g, want %g",
			   s.median, median);
	cr_expect_float_eq(s.min, min, EPS, "min %g, want %g", s.min, min);
	cr_expect_float_eq(s.max, max, EPS, "max %g, want %g", s.max, max);
}

/* --- statistics ------------------------------------------------------------- */

Test(report, spread_of_an_odd_count_is_the_middle_value)
{
	const double v[] = { 30, 10, 20 }; /* sorted 10 20 30 */
	expect_spread(spread_of(v, 3), 20, 10, 30);
}

Test(report, spread_of_an_even_count_averages_the_middle_two)
{
	const double v[] = { 4, 1, 3, 2 }; /* sorted 1 2 3 4: (2 + 3) / 2 */
	expect_spread(spread_of(v, 4), 2.5, 1, 4);
}

Test(report, spread_of_skips_figures_not_measured)
{
	const double v[] = { NAN, 5, 1 }; /* 1 and 5: (1 + 5) / 2 */
	expect_spread(spread_of(v, 3), 3, 1, 5);
	const double none[] = { NAN, NAN };
	struct spread s = spread_of(none, 2);
	cr_expect(isnan(s.median) && isnan(s.min) && isnan(s.max));
}

/* --- the rules ----------------------------------------------------------------- */

Test(report, superlinear_is_beyond_what_the_cpus_allow)
{
	/* 2 threads over 1 on 2 CPUs: at most 2x, flagged above 2.2x. */
	cr_expect_not(report_is_superlinear(2.0, 2, 1, 2));
	cr_expect_not(report_is_superlinear(2.19, 2, 1, 2));
	cr_expect(report_is_superlinear(2.21, 2, 1, 2));
	cr_expect(report_is_superlinear(4.7, 2, 1, 2)); /* the report */
	/* 4 threads on 2 CPUs run 2 at a time: at most 2x over 1 thread ... */
	cr_expect(report_is_superlinear(3.0, 4, 1, 2));
	/* ... and none over 2 threads: 1.2x is flagged, 1.05x is noise. */
	cr_expect(report_is_superlinear(1.2, 4, 2, 2));
	cr_expect_not(report_is_superlinear(1.05, 4, 2, 2));
	/* 8 threads over 1 on 16 CPUs: at most 8x, flagged above 8.8x. */
	cr_expect_not(report_is_superlinear(8.5, 8, 1, 16));
	cr_expect(report_is_superlinear(9.0, 8, 1, 16));
}

Test(report, wide_spread_is_more_than_twice)
{
	cr_expect_not(report_is_wide_spread((struct spread){ 3, 2, 4 }));
	cr_expect(report_is_wide_spread((struct spread){ 3, 2, 4.01 }));
	cr_expect(report_is_wide_spread((struct spread){ 1, 0, 1 }));
	cr_expect_not(report_is_wide_spread((struct spread){ NAN, NAN, NAN }));
}

/* --- points ---------------------------------------------------------------------- */

#define RUNS 3

struct fixture {
	struct bench_config config[2];
	struct report_run runs[2][RUNS];
	struct report_point points[2];
};

/* Two points of one side: their thread counts, and each run's Mops/s and
 * ns/op. */
struct side_spec {
	unsigned threads[2];
	double mops[2][RUNS], ns[2][RUNS];
};

/* The points of spec, run r of each doing 100 (r + 1) lookups of which r
 * missed. */
static void make_side(struct fixture *fx, const struct side_spec *spec)
{
	memset(fx, 0, sizeof(*fx));
	for (int p = 0; p < 2; p++) {
		fx->config[p].threads = spec->threads[p];
		fx->config[p].w.mix[OP_LOOKUP] = 100;
		for (int r = 0; r < RUNS; r++) {
			struct report_run *run = &fx->runs[p][r];
			for (int f = 0; f < RF_COUNT; f++)
				run->v[f] = NAN;
			run->v[RF_MOPS] = spec->mops[p][r];
			run->v[RF_NS_PER_OP] = spec->ns[p][r];
			run->v[RF_OPS] = 100 * (r + 1);
			run->ok[OP_LOOKUP] = 100 * (r + 1);
			run->fail[OP_LOOKUP] = r;
		}
		fx->points[p] = (struct report_point){
			.side = "user", .map = "hash/linux", .label = "hash/linux",
			.config = &fx->config[p], .run = fx->runs[p], .runs = RUNS,
		};
	}
}

/* Speed-ups on `cpus` CPUs, then both points summed up. */
static void sum_up_side(struct fixture *fx, unsigned cpus)
{
	report_derive_speedups(fx->points, 2, cpus);
	for (int p = 0; p < 2; p++)
		if (fx->points[p].runs)
			report_summarise(&fx->points[p]);
}

/* 1 thread: 10, 20, 5 Mops/s; 2 threads: 16, 30, 20.  Repeat by repeat
 * the speed-up is 1.6, 1.5, 4.0, so median 1.6, min 1.5, max 4.0 (the
 * ratio of the medians, 20 / 10 = 2.0, would be another figure). */
static const struct side_spec speedup_side = {
	.threads = { 1, 2 },
	.mops = { { 10, 20, 5 }, { 16, 30, 20 } },
	.ns = { { 100, 50, 200 }, { 125, 66, 100 } },
};

/* Threads listed 2 then 1: the speed-up is over the fewest, 1.  Repeat by
 * repeat: 25 / 10, 24 / 10, 26 / 10 = 2.5, 2.4, 2.6: median 2.5 > 2.2. */
static const struct side_spec superlinear_side = {
	.threads = { 2, 1 },
	.mops = { { 25, 24, 26 }, { 10, 10, 10 } },
	.ns = { { 80, 83, 77 }, { 100, 100, 100 } },
};

Test(report, speedup_is_taken_within_each_repeat)
{
	struct fixture fx;
	make_side(&fx, &speedup_side);
	sum_up_side(&fx, 2);
	cr_expect(isnan(fx.points[0].field[RF_SPEEDUP].median),
		  "the fewest threads have no speed-up");
	expect_spread(fx.points[1].field[RF_SPEEDUP], 1.6, 1.5, 4.0);
	cr_expect_eq(fx.points[1].base_threads, 1);
	cr_expect_eq(fx.points[1].cpus, 2);
	/* 1.6x on 2 CPUs is possible; 1 thread's 5 to 20 Mops/s is not steady
	 * (4x); 2 threads' 16 to 30 is (1.875x). */
	cr_expect_eq(fx.points[1].flags, 0);
	cr_expect_eq(fx.points[0].flags, REPORT_WIDE_SPREAD);
}

Test(report, superlinear_is_flagged_from_the_median_speedup)
{
	struct fixture fx;
	make_side(&fx, &superlinear_side);
	sum_up_side(&fx, 2);
	expect_spread(fx.points[0].field[RF_SPEEDUP], 2.5, 2.4, 2.6);
	cr_expect_eq(fx.points[0].flags, REPORT_SUPERLINEAR);
	/* On 4 CPUs, 2 threads over 1 may still give only 2x. */
	sum_up_side(&fx, 4);
	cr_expect_eq(fx.points[0].flags, REPORT_SUPERLINEAR);
}

/* Writes: a point whose updates, inserts and deletes mostly failed is
 * flagged; lookups that miss, however many, are not. */
static void set_counts(struct fixture *fx, const uint64_t ok[OP_COUNT],
		       const uint64_t fail[OP_COUNT])
{
	for (int r = 0; r < RUNS; r++) {
		memcpy(fx->runs[0][r].ok, ok, OP_COUNT * sizeof(uint64_t));
		memcpy(fx->runs[0][r].fail, fail, OP_COUNT * sizeof(uint64_t));
	}
}

Test(report, writes_that_mostly_failed_are_flagged)
{
	struct fixture fx;
	make_side(&fx, &speedup_side);
	/* the run: inserts and deletes of a full map, 55% failed */
	set_counts(&fx, (uint64_t[OP_COUNT]){ [OP_INSERT] = 45, [OP_DELETE] = 45 },
		   (uint64_t[OP_COUNT]){ [OP_INSERT] = 55, [OP_DELETE] = 55 });
	report_summarise(&fx.points[0]);
	cr_expect_float_eq(report_write_fail_share(fx.points[0].ok, fx.points[0].fail),
			   0.55, 1e-9);
	cr_expect(fx.points[0].flags & REPORT_WRITES_FAILED);

	/* exactly half is not more than half */
	set_counts(&fx, (uint64_t[OP_COUNT]){ [OP_UPDATE] = 50 },
		   (uint64_t[OP_COUNT]){ [OP_UPDATE] = 50 });
	report_summarise(&fx.points[0]);
	cr_expect_not(fx.points[0].flags & REPORT_WRITES_FAILED);

	/* 90% of the lookups missing, the writes fine: a workload's choice */
	set_counts(&fx, (uint64_t[OP_COUNT]){ [OP_LOOKUP] = 10, [OP_UPDATE] = 10 },
		   (uint64_t[OP_COUNT]){ [OP_LOOKUP] = 90, [OP_UPDATE] = 1 });
	report_summarise(&fx.points[0]);
	cr_expect_not(fx.points[0].flags & REPORT_WRITES_FAILED);

	/* no writes at all: no share */
	set_counts(&fx, (uint64_t[OP_COUNT]){ [OP_LOOKUP] = 10 },
		   (uint64_t[OP_COUNT]){ [OP_LOOKUP] = 90 });
	report_summarise(&fx.points[0]);
	cr_expect(isnan(report_write_fail_share(fx.points[0].ok, fx.points[0].fail)));
	cr_expect_eq(fx.points[0].flags & REPORT_WRITES_FAILED, 0);
}

Test(report, a_point_not_measured_is_no_base)
{
	/* The 1-thread point could not run (runs 0): 2 threads is the
	 * fewest measured, so nothing has a speed-up (2.5x over a point
	 * never measured would be flagged). */
	struct fixture fx;
	make_side(&fx, &superlinear_side);
	fx.points[1].runs = 0;
	sum_up_side(&fx, 2);
	cr_expect(isnan(fx.points[0].field[RF_SPEEDUP].median));
	cr_expect_eq(fx.points[0].flags, 0);
}

Test(report, ratio_to_the_kernel_is_taken_within_each_repeat)
{
	/* Design 100, 200, 150 ns/op against the kernel's 50, 50, 100 in the
	 * same repeats: 2, 4, 1.5, so median 2, min 1.5, max 4 (the ratio of
	 * the medians, 150 / 50 = 3, would not be measured side by side). */
	struct fixture design, kernel;
	make_side(&design, &(struct side_spec){ .threads = { 1, 2 },
		.ns = { { 100, 200, 150 }, { 1, 1, 1 } } });
	make_side(&kernel, &(struct side_spec){ .threads = { 1, 2 },
		.ns = { { 50, 50, 100 }, { 1, 1, 1 } } });
	report_derive_ratio(&design.points[0], &kernel.points[0], RF_KERNEL_RATIO);
	report_summarise(&design.points[0]);
	expect_spread(design.points[0].field[RF_KERNEL_RATIO], 2, 1.5, 4);
}

Test(report, summary_is_per_field_medians_and_summed_counts)
{
	/* 1 thread of speedup_side: ns/op 100, 50, 200 -> 100; Mops/s 10, 20,
	 * 5 -> 10; ops 100, 200, 300 -> 200; ok 100 + 200 + 300 = 600, fail
	 * 0 + 1 + 2 = 3. */
	struct fixture fx;
	make_side(&fx, &speedup_side);
	report_summarise(&fx.points[0]);
	expect_spread(fx.points[0].field[RF_NS_PER_OP], 100, 50, 200);
	expect_spread(fx.points[0].field[RF_MOPS], 10, 5, 20);
	expect_spread(fx.points[0].field[RF_OPS], 200, 100, 300);
	cr_expect_eq(fx.points[0].ok[OP_LOOKUP], 600);
	cr_expect_eq(fx.points[0].fail[OP_LOOKUP], 3);
	cr_expect(isnan(fx.points[0].field[RF_P50].median),
		  "latency was not measured");
}

/* The kernel side: program minus baseline at or below zero is noise, not a
 * cost (it was once printed as -7.5 ns/op, unflagged). */
Test(report, a_kernel_figure_at_or_below_its_baseline_is_flagged)
{
	struct fixture fx;
	make_side(&fx, &speedup_side);
	for (int r = 0; r < RUNS; r++) {
		fx.runs[0][r].v[RF_PROGRAM_NS] = 10;      /* 10 10 10 */
		fx.runs[0][r].v[RF_BASELINE_NS] = 11 - r; /* 11 10 9 */
		fx.runs[0][r].v[RF_NS_PER_OP] = r - 1;    /* -1 0 1: median 0 */
	}
	report_summarise(&fx.points[0]);
	cr_expect(fx.points[0].flags & REPORT_BELOW_BASELINE);
	fx.runs[0][0].v[RF_NS_PER_OP] = 2;                /* 2 0 1: median 1 */
	report_summarise(&fx.points[0]);
	cr_expect_not(fx.points[0].flags & REPORT_BELOW_BASELINE);
	report_summarise(&fx.points[1]); /* a user side: no program figure */
	cr_expect_not(fx.points[1].flags & REPORT_BELOW_BASELINE);
}

/* --- the records ------------------------------------------------------------------- */

/* report_write's output for the fixture's first point, probe figures and
 * a speed-up added, in `format`; the caller frees it. */
static char *written(enum report_format format)
{
	static struct fixture fx;
	struct host_record host;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	make_side(&fx, &speedup_side);
	for (int p = 0; p < 2; p++)
		for (int r = 0; r < RUNS; r++)
			fx.runs[p][r].v[RF_PROBE_NS] = 20 + r; /* 20, 21, 22 */
	sum_up_side(&fx, 2);
	host_record_read(&host);
	report_write(f, format, &host, fx.points, 2);
	fclose(f);
	return text;
}

/* Every string of want[0..n) is in what report_write wrote in format. */
static void expect_written(enum report_format format, const char *const *want,
			   size_t n)
{
	char *text = written(format);
	for (size_t i = 0; i < n; i++)
		cr_expect(strstr(text, want[i]), "no '%s' in:\n%s", want[i], text);
	if (format != REPORT_TABLE)
		cr_expect_null(strstr(text, "p50_ns\":"), "latency not measured: %s",
			       text);
	free(text);
}

#define N_WANT(want) (sizeof(want) / sizeof(want[0]))

Test(report, jsonl_carries_each_figure_with_its_min_and_max)
{
	static const char *const want[] = {
		"\"possible_cpus\":", "\"cpus_allowed\":", "\"virtualised\":",
		"\"mitigations\":[", "\"vulnerabilities\":{",
		"\"runs\":3,",
		"\"mops\":10.0000,\"mops_min\":5.0000,\"mops_max\":20.0000",
		("\"ns_per_op\":100.000,\"ns_per_op_min\":50.000,"
		 "\"ns_per_op_max\":200.000"),
		"\"probe_ns\":21.000,\"probe_ns_min\":20.000,\"probe_ns_max\":22.000",
		"\"speedup\":1.6000,\"speedup_min\":1.5000,\"speedup_max\":4.0000",
		"\"speedup_over_threads\":1",
		"\"mops_runs\":[10.0000,20.0000,5.0000]",
		"\"probe_ns_runs\":[20.000,21.000,22.000]",
		"\"flags\":[\"wide_spread\"]",
		"\"ok\":{\"lookup\":600,",
	};
	expect_written(REPORT_JSONL, want, N_WANT(want));
}

Test(report, csv_has_a_min_and_max_column_beside_each_figure)
{
	static const char *const want[] = {
		",mops,mops_min,mops_max,ns_per_op,ns_per_op_min,ns_per_op_max,",
		",p50_ns,p50_ns_min,p50_ns_max,",
		",speedup,speedup_min,speedup_max,kernel_ratio,kernel_ratio_min,"
		"kernel_ratio_max,evictions,evictions_min,evictions_max,",
		",locks_per_op,locks_per_op_min,locks_per_op_max,"
		"evictions_per_refill,evictions_per_refill_min,"
		"evictions_per_refill_max,allocations_per_op,"
		"allocations_per_op_min,allocations_per_op_max,"
		"lock_ns_per_op,lock_ns_per_op_min,lock_ns_per_op_max,"
		"bytes_per_entry,bytes_per_entry_min,"
		"bytes_per_entry_max,memory_from,buffer_bytes,buffer_bytes_min,"
		"buffer_bytes_max,probe_ns,probe_ns_min,probe_ns_max,flags,",
		/* The label, and an empty key_range: the pool model.  A cell
		 * is quoted where it holds a comma or a quote (record.h). */
		"user,hash/linux,hash/linux,lookup=100,uniform,1,0,,",
		",10.0000,5.0000,20.0000,100.000,50.000,200.000,,,,",
		/* No memory measured: its figures and source empty. */
		",,,,,,,,21.000,20.000,22.000,wide_spread,600,3,",
	};
	expect_written(REPORT_CSV, want, N_WANT(want));
}

/* --- work per op ------------------------------------------------------------------- */

/* A run of 1000 ops whose design did 250 evictions in 50 refills, scanned
 * 400 nodes, took 2500 locks and allocated 100 blocks: 0.25 evictions,
 * 0.4 nodes, 2.5 locks and 0.1 allocations an op, 5 evictions a refill. */
static struct bench_result worked_run(void)
{
	struct bench_result r = { .ops = 1000, .has_work = true,
				  .has_evictions = true };
	r.ok[OP_INSERT] = 1000;
	r.work = (struct map_work){ .evictions = 250, .refills = 50,
				    .nodes_scanned = 400, .locks = 2500,
				    .allocations = 100 };
	return r;
}

Test(report, work_figures_are_per_op_and_per_refill)
{
	struct bench_result r = worked_run();
	struct report_run run;
	report_run_from(&run, &r, false);
	cr_expect_float_eq(run.v[RF_EVICTIONS], 250, EPS);
	cr_expect_float_eq(run.v[RF_EVICTIONS_PER_OP], 0.25, EPS);
	cr_expect_float_eq(run.v[RF_NODES_SCANNED_PER_OP], 0.4, EPS);
	cr_expect_float_eq(run.v[RF_LOCKS_PER_OP], 2.5, EPS);
	cr_expect_float_eq(run.v[RF_EVICTIONS_PER_REFILL], 5, EPS);
	cr_expect_float_eq(run.v[RF_ALLOCATIONS_PER_OP], 0.1, EPS);
	/* No refill: no figure per refill (not a division by zero). */
	r.work.refills = 0;
	report_run_from(&run, &r, false);
	cr_expect(isnan(run.v[RF_EVICTIONS_PER_REFILL]));
}

Test(report, the_kernel_has_evictions_alone_and_hash_no_work)
{
	struct bench_result r = worked_run();
	struct report_run run;
	r.has_work = false; /* the kernel: evictions from its size */
	report_run_from(&run, &r, false);
	cr_expect_float_eq(run.v[RF_EVICTIONS_PER_OP], 0.25, EPS);
	cr_expect(isnan(run.v[RF_NODES_SCANNED_PER_OP]) &&
		  isnan(run.v[RF_LOCKS_PER_OP]) &&
		  isnan(run.v[RF_EVICTIONS_PER_REFILL]) &&
		  isnan(run.v[RF_ALLOCATIONS_PER_OP]),
		  "the kernel's scans, locks, refills and allocations are not "
		  "counted");
	r.has_evictions = false; /* a design without map_ops.work */
	report_run_from(&run, &r, false);
	cr_expect(isnan(run.v[RF_EVICTIONS]) &&
		  isnan(run.v[RF_EVICTIONS_PER_OP]),
		  "no work counted is not zero work");
}

Test(report, lock_time_is_a_figure_only_where_timed)
{
	struct bench_result r = worked_run();
	struct report_run run;
	report_run_from(&run, &r, false);
	cr_expect(isnan(run.v[RF_LOCK_NS_PER_OP]),
		  "a design that times no lock has no lock ns, not 0");
	r.work.lock_ns = 250000;
	report_run_from(&run, &r, false);
	cr_expect_float_eq(run.v[RF_LOCK_NS_PER_OP], 250, EPS);
}

/* The first point: RUNS runs of worked_run, run r with r + 1 times its ops
 * and evictions (the other counts as they are): 0.25 evictions an op
 * throughout, evictions 250, 500, 750, evictions a refill 5, 10, 15; the
 * lock held lock_ns in each run.  The second point: no work figures. */
static void make_worked_point(struct fixture *fx, uint64_t lock_ns)
{
	make_side(fx, &speedup_side);
	for (int r = 0; r < RUNS; r++) {
		struct bench_result b = worked_run();
		b.work.lock_ns = lock_ns;
		b.ops *= (uint64_t)r + 1;
		b.work.evictions *= (uint64_t)r + 1;
		report_run_from(&fx->runs[0][r], &b, false);
		fx->runs[0][r].v[RF_MOPS] = speedup_side.mops[0][r];
	}
	fx->config[0].w.key_range = 4000;
	report_summarise(&fx->points[0]);
	report_summarise(&fx->points[1]);
}

Test(report, jsonl_carries_the_work_with_its_spread_and_the_key_range)
{
	struct fixture fx;
	struct host_record host;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	make_worked_point(&fx, 250000);
	host_record_read(&host);
	report_write(f, REPORT_JSONL, &host, fx.points, 1);
	fclose(f);
	static const char *const want[] = {
		"\"label\":\"hash/linux\",",
		"\"entries\":0,\"key_range\":4000,\"key_size\":",
		"\"evictions\":500,\"evictions_min\":250,\"evictions_max\":750",
		"\"evictions_per_op\":0.2500,\"evictions_per_op_min\":0.2500,"
		"\"evictions_per_op_max\":0.2500",
		"\"nodes_scanned_per_op\":",
		"\"locks_per_op\":",
		"\"evictions_per_refill\":",
		/* 250000 ns over 1000, 2000, 3000 ops */
		"\"lock_ns_per_op\":125.000,\"lock_ns_per_op_min\":83.333,"
		"\"lock_ns_per_op_max\":250.000",
	};
	for (size_t i = 0; i < N_WANT(want); i++)
		cr_expect(strstr(text, want[i]), "no '%s' in:\n%s", want[i], text);
	free(text);
}

Test(report, the_table_adds_work_per_op_only_where_counted)
{
	struct fixture fx;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	make_worked_point(&fx, 0);
	report_write_work(f, fx.points, 2); /* the second point has none */
	fclose(f);
	cr_expect(strstr(text, "work per op"), "%s", text);
	cr_expect_null(strstr(text, "lock ns"),
		       "no lock ns column where no lock was timed: %s", text);
	/* Medians: 0.25 evictions; 0.4 nodes scanned / 1, / 2, / 3: 0.2;
	 * 2.5 locks / 1, / 2, / 3: 1.25; 5, 10, 15 evictions a refill: 10. */
	cr_expect(strstr(text, "hash/linux             1        0.250         "
			       "0.200        1.250       10.000"), "%s", text);
	cr_expect(strstr(text, "                     min        0.250"),
		  "%s", text);
	cr_expect_null(strstr(text, "hash/linux             2"),
		       "a point without work figures has no row: %s", text);
	free(text);
	text = written(REPORT_TABLE);
	cr_expect_null(strstr(text, "work per op"),
		       "no work table when no point counts work: %s", text);
	free(text);
}

Test(report, the_work_table_adds_lock_ns_where_timed)
{
	struct fixture fx;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	make_worked_point(&fx, 250000);
	report_write_work(f, fx.points, 2);
	fclose(f);
	cr_expect(strstr(text, "  allocations      lock ns\n"), "%s", text);
	/* Medians: 100 allocations and 250000 ns over 2000 ops. */
	cr_expect(strstr(text, "hash/linux             1        0.250         "
			       "0.200        1.250       10.000        "
			       "0.050      125.000\n"), "%s", text);
	cr_expect(strstr(text, "       0.033       83.333\n"), "the min: %s",
		  text);
	free(text);
}

Test(report, table_shows_the_spread_and_the_flag)
{
	static const char *const want[] = {
		"hash/linux             1     10.00    100.0",
		"                     min      5.00     50.0",
		"                     max     20.00    200.0",
		"! wide_spread",
		("hash/linux, 1 thread: wide spread: Mops/s from 5.00 to 20.00 "
		 "over 3 repeats (4.0x)"),
		"reference probe: 21.0 ns a step (20.0 to 22.0 over 3 repeats)",
		"possible",
		"mitigations:",
	};
	expect_written(REPORT_TABLE, want, N_WANT(want));
}

/* Every line of text is at most WRAP_COLUMNS characters. */
static void expect_fits(const char *text)
{
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		cr_expect(wrap_width_n(line, n) <= WRAP_COLUMNS,
			  "a line of %zu columns: '%.*s'", wrap_width_n(line, n),
			  (int)n, line);
		line += n + (nl != NULL);
	}
}

Test(report, every_line_of_the_table_fits_120_columns)
{
	char *text = written(REPORT_TABLE);
	expect_fits(text);
	free(text);
}

/* --- memory ------------------------------------------------------------------------ */

/* A run whose map held `bytes` over 1024 entries, by `from`. */
static struct bench_result run_with_memory(enum bench_memory_from from,
					   double bytes)
{
	struct bench_result r = { .ops = 1000 };
	r.ok[OP_LOOKUP] = 1000;
	r.memory = (struct bench_memory){ .from = from, .bytes = bytes,
					  .bytes_per_entry = bytes / 1024,
					  .design_bytes = NAN,
					  .allocator_bytes = NAN };
	return r;
}

Test(report, memory_is_a_figure_only_where_measured)
{
	struct report_run run;
	struct bench_result r = run_with_memory(BENCH_MEMORY_ALLOCATOR, 81920);
	report_run_from(&run, &r, false);
	cr_expect_float_eq(run.v[RF_BYTES_PER_ENTRY], 80, EPS);
	cr_expect_eq(run.memory_from, BENCH_MEMORY_ALLOCATOR);
	/* A result bench_run did not make (zeroed): no figure, not 0. */
	struct bench_result zeroed = { .ops = 1000 };
	report_run_from(&run, &zeroed, false);
	cr_expect(isnan(run.v[RF_BYTES_PER_ENTRY]), "%f",
		  run.v[RF_BYTES_PER_ENTRY]);
	cr_expect_eq(run.memory_from, BENCH_MEMORY_NONE);
}

/* The first point's runs hold 80, 96 and 88 bytes an entry by `from`;
 * the second point's none. */
static void make_memory_point(struct fixture *fx, enum bench_memory_from from)
{
	static const double bytes[RUNS] = { 80 * 1024, 96 * 1024, 88 * 1024 };
	make_side(fx, &speedup_side);
	for (int r = 0; r < RUNS; r++) {
		struct bench_result b = run_with_memory(from, bytes[r]);
		report_run_from(&fx->runs[0][r], &b, false);
	}
	report_summarise(&fx->points[0]);
	report_summarise(&fx->points[1]);
}

/* What report_write wrote of fx's points in format, into *text (the
 * caller's: a pointer into a buffer whose owner has gone out of scope
 * is what GCC's -Wdangling-pointer takes open_memstream's for). */
static void write_points(struct fixture *fx, enum report_format format,
			 char **text)
{
	struct host_record host;
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	host_record_read(&host);
	report_write(f, format, &host, fx->points, 2);
	fclose(f);
}

static int occurrences(const char *text, const char *word)
{
	int n = 0;
	for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
		n++;
	return n;
}

Test(report, jsonl_names_where_the_memory_came_from)
{
	struct fixture fx;
	char *text = NULL;
	make_memory_point(&fx, BENCH_MEMORY_DESIGN);
	write_points(&fx, REPORT_JSONL, &text);
	cr_expect(strstr(text, "\"bytes_per_entry\":88.000000,"
			       "\"bytes_per_entry_min\":80.000000,"
			       "\"bytes_per_entry_max\":96.000000,"
			       "\"memory_from\":\"design\""), "%s", text);
	/* One memory_from: the second point has no memory figure. */
	cr_expect_eq(occurrences(text, "memory_from"), 1, "%s", text);
	free(text);
}

Test(report, the_table_has_bytes_per_entry_and_their_source)
{
	struct fixture fx;
	char *text = NULL;
	make_memory_point(&fx, BENCH_MEMORY_KERNEL);
	write_points(&fx, REPORT_TABLE, &text);
	cr_expect(strstr(text, "p99.9  B/entry  ops that succeeded"), "%s", text);
	/* 88.0 for the first point, "-" for the second. */
	cr_expect(strstr(text, "       -     88.0  lookup"), "%s", text);
	cr_expect(strstr(text, "       -     80.0\n"), "the min: %s", text);
	cr_expect(strstr(text, "       -        -  lookup"), "%s", text);
	cr_expect(strstr(text, "bytes per entry: the map's bytes after the "
			       "prefill over max_entries; from the kernel's "
			       "memlock (fdinfo): hash/linux\n"), "%s", text);
	free(text);
}

/* --- the record writer ------------------------------------------------------------ */

/* What record_write wrote of records[0..n) in format, into *text. */
static void write_records(const struct record *records, unsigned n,
			  enum record_format format,
			  const struct record_column *cols, unsigned n_cols,
			  char **text)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	record_write(f, format, records, n, cols, n_cols);
	fclose(f);
}

/* Two records of every type: the second with nothing measured. */
static void make_records(struct record r[2])
{
	static const double runs[] = { 1.5, NAN };
	static const char *const words[] = { "a", "b" };
	static const char *const pairs[] = { "k", "v \"q\"" };
	for (int i = 0; i < 2; i++) {
		bool none = i == 1;
		record_init(&r[i], "test");
		r[i].spread_rows = !none;
		record_text(&r[i], "name", none ? "x, y" : "a\"b");
		record_whole(&r[i], "n", 12345678901ULL)->missing = none;
		record_figure(&r[i], "ratio", "%.2f", none ? NAN : 0.5);
		record_figure(&r[i], "gone", "%.2f", none ? NAN : 2)->flags =
			RECORD_OMIT;
		record_spread(&r[i], "ns", "%.1f", none ? NAN : 10, 5, 20);
		record_bool(&r[i], "yes", none ? -1 : 1);
		record_figures(&r[i], "runs", "%.1f", runs, 2)->flags =
			RECORD_NO_CSV;
		record_words(&r[i], "flags", words, none ? 0 : 2);
		record_pairs(&r[i], "kv", pairs, 1)->flags = RECORD_NO_CSV;
		record_whole(&r[i], "lookup", 3)->group = "ok";
		record_whole(&r[i], "lookup", 1)->group = "fail";
		record_whole(&r[i], "update", 4)->group = "ok";
		record_whole(&r[i], "update", 0)->group = "fail";
		record_text(&r[i], "words", "for tables")->flags =
			RECORD_TABLE_ONLY;
	}
}

Test(record, jsonl_escapes_nests_groups_and_says_null_or_nothing)
{
	struct record r[2];
	char *text = NULL;
	make_records(r);
	write_records(r, 2, RECORD_JSONL, NULL, 0, &text);
	cr_expect_str_eq(text,
		"{\"record\":\"test\",\"name\":\"a\\\"b\",\"n\":12345678901,"
		"\"ratio\":0.50,\"gone\":2.00,\"ns\":10.0,\"ns_min\":5.0,"
		"\"ns_max\":20.0,\"yes\":true,\"runs\":[1.5,null],"
		"\"flags\":[\"a\",\"b\"],\"kv\":{\"k\":\"v \\\"q\\\"\"},"
		"\"ok\":{\"lookup\":3,\"update\":4},"
		"\"fail\":{\"lookup\":1,\"update\":0}}\n"
		"{\"record\":\"test\",\"name\":\"x, y\",\"n\":null,"
		"\"ratio\":null,\"ns\":null,\"ns_min\":null,\"ns_max\":null,"
		"\"yes\":null,\"runs\":[1.5,null],\"flags\":[],"
		"\"kv\":{\"k\":\"v \\\"q\\\"\"},"
		"\"ok\":{\"lookup\":3,\"update\":4},"
		"\"fail\":{\"lookup\":1,\"update\":0}}\n");
	free(text);
	record_free(&r[0]);
	record_free(&r[1]);
}

Test(record, csv_has_a_header_of_names_and_quotes_where_needed)
{
	struct record r[2];
	char *text = NULL;
	make_records(r);
	write_records(r, 2, RECORD_CSV, NULL, 0, &text);
	cr_expect_str_eq(text,
		"name,n,ratio,gone,ns,ns_min,ns_max,yes,flags,lookup_ok,"
		"lookup_fail,update_ok,update_fail\n"
		"\"a\"\"b\",12345678901,0.50,2.00,10.0,5.0,20.0,1,a|b,3,1,4,0\n"
		"\"x, y\",,,,,,,,,3,1,4,0\n");
	free(text);
	record_free(&r[0]);
	record_free(&r[1]);
}

Test(record, a_table_fits_its_columns_and_adds_spread_rows)
{
	struct record r[3];
	char *text = NULL;
	const struct record_column cols[] = {
		{ "name", "name", 6, RECORD_LEFT, NULL, 0 },
		{ "n", "n", 3, RECORD_PART, NULL, 0 },
		{ "ns/op", "ns", 6, 0, "%.0f", 0 },
		{ "yes", "yes", 0, 0, NULL, 0 },
		{ "absent", "nothing", 0, 0, NULL, 0 },
		{ "said", "words", 0, RECORD_LEFT, NULL, 2 },
	};
	make_records(r);
	host_record_build(&(struct host_record){ 0 }, &r[2]);
	write_records(r, 3, RECORD_TABLE, cols, 6, &text);
	/* n widens its column; the host record is not a row; a spread row
	 * names its part in n and leaves the rest blank (no trailing
	 * blanks); "-" for what was not measured. */
	cr_expect_str_eq(text,
		"name             n  ns/op yes absent  said\n"
		"a\"b    12345678901     10 yes      -  for tables\n"
		"               min      5\n"
		"               max     20\n"
		"x, y             -      -   -      -  for tables\n");
	free(text);
	for (int i = 0; i < 3; i++)
		record_free(&r[i]);
}

Test(record, a_long_last_column_breaks_under_its_row_at_list_items)
{
	struct record r;
	char *text = NULL;
	char said[200] = "";
	const struct record_column cols[] = {
		{ "name", "name", 90, RECORD_LEFT, NULL, 0 },
		{ "said", "said", 0, RECORD_LEFT, NULL, 2 },
	};
	for (int i = 0; i < 8; i++)
		snprintf(said + strlen(said), sizeof(said) - strlen(said), "%sop%d 100%%",
			 i ? ", " : "", i);
	record_init(&r, "result");
	record_text(&r, "name", "x");
	record_text(&r, "said", said);
	write_records(&r, 1, RECORD_TABLE, cols, 2, &text);
	/* 28 columns of room from column 92: each piece ends at a comma. */
	cr_expect_str_eq(text,
		"name                                                                                        said\n"
		"x                                                                                           op0 100%, op1 100%,\n"
		"                                                                                            op2 100%, op3 100%,\n"
		"                                                                                            op4 100%, op5 100%,\n"
		"                                                                                            op6 100%, op7 100%\n");
	expect_fits(text);
	free(text);
	record_free(&r);
}

Test(wrap, a_long_line_breaks_at_blanks_with_its_indent_and_two_more)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	/* 30 words of 5 characters, "⚠" one column of three bytes. */
	fputs("  ", f);
	for (int i = 0; i < 30; i++)
		fputs(i ? " ⚠abcd" : "⚠abcd", f);
	fputs("\nshort\n", f);
	fclose(f);
	char *out = NULL;
	f = open_memstream(&out, &len);
	wrap_write(f, text);
	fclose(f);
	/* 2 + 19 words (115 columns: a 20th would make 121), then 4 + 11. */
	cr_expect(strncmp(out, "  ⚠abcd ⚠abcd", strlen("  ⚠abcd ⚠abcd")) == 0, "%s", out);
	const char *second = strchr(out, '\n') + 1;
	cr_expect(wrap_width_n(out, (size_t)(second - 1 - out)) == 115, "%s", out);
	cr_expect(strncmp(second, "    ⚠abcd", strlen("    ⚠abcd")) == 0, "%s", out);
	cr_expect(strstr(out, "\nshort\n") != NULL, "%s", out);
	expect_fits(out);
	free(text);
	free(out);
}

Test(record, formats_are_parsed_by_name)
{
	enum record_format f;
	cr_expect(record_parse_format("csv", &f) == 0 && f == RECORD_CSV);
	cr_expect(record_parse_format("jsonl", &f) == 0 && f == RECORD_JSONL);
	cr_expect(record_parse_format("table", &f) == 0 && f == RECORD_TABLE);
	cr_expect_eq(record_parse_format("xml", &f), -1);
}

/* --- sim's records ------------------------------------------------------------------ */

/* A trace of 4 requests: a design's point and a kernel's, whose evictions
 * are not known and whose evictions beyond 2^32 must stay exact. */
static const struct sim_row sim_rows[] = {
	{ .policy = "lru/global", .entries = 2, .threads = 1, .cpus = 1,
	  .r = { .requests = 4, .misses = 3,
		 .evictions = 5000000000ULL, .has_evictions = true,
		 .seconds = 0.5, .mreq_per_s = 8e-6, .live_mean = 1.5,
		 .meta_per_entry = 64, .stray = 0.25, .stray_victims = 4 } },
	{ .policy = "kernel", .entries = 2, .threads = 2, .cpus = 2,
	  .r = { .requests = 4, .misses = 4, .seconds = 1,
		 .mreq_per_s = 4e-6, .live_mean = NAN,
		 .meta_per_entry = NAN, .stray = NAN } },
};

/* rows[0..n) as a report of `repeats` (rows in sim_report.h's order), in
 * format, or as the lab's log. */
static void write_sim_rows(enum record_format format, bool log,
			   const struct sim_row *rows, unsigned n,
			   unsigned repeats, char **text)
{
	static uint64_t ids[4] = { 1, 2, 1, 3 };
	static struct sim_trace t = { .ids = ids, .n = 4, .name = "a,b" };
	static const struct sim_input in = { .trace = &t, .n = 4, .key_size = 8,
					     .distinct = 3 };
	const struct sim_report rep = { .in = &in, .format_name = "txt",
					.split = "rr", .rows = rows, .n = n,
					.repeats = repeats };
	struct host_record host = { .hostname = "box", .nproc = 2 };
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	if (log)
		sim_report_log(f, &host, &rep);
	else
		sim_report_write(f, format, &host, &rep);
	fclose(f);
}

static void write_sim(enum record_format format, char **text)
{
	write_sim_rows(format, false, sim_rows, 2, 1, text);
}

Test(sim_report, jsonl_is_a_record_a_point_with_the_host_in_it)
{
	char *text = NULL;
	write_sim(RECORD_JSONL, &text);
	/* pandas' shape: no host record, every line a sim record. */
	cr_expect(strncmp(text, "{\"record\":\"sim\",\"trace\":\"a,b\","
			  "\"format\":\"txt\",\"requests_total\":4,"
			  "\"distinct_keys\":3,\"key_size\":8,"
			  "\"keys_hashed\":false,\"warmup_requests\":0,"
			  "\"policy\":\"lru/global\",\"entries\":2,"
			  "\"threads\":1,\"split\":\"rr\",\"requests\":4,"
			  "\"misses\":3,\"miss_ratio\":0.75,"
			  "\"byte_miss_ratio\":null,"
			  "\"evictions\":5000000000,\"insert_failures\":0,"
			  "\"seconds\":0.5,\"mreq_per_s\":8e-06,"
			  "\"live_mean\":1.5,\"effective_capacity\":0.75,"
			  "\"meta_bytes_per_entry\":64,\"stray\":0.25,"
			  "\"stray_victims\":4,\"repeat\":0,\"repeats\":1,"
			  "\"cpus\":1,\"serial\":false,"
			  "\"ids_hashed_from_strings\":false,"
			  "\"id_collisions\":0,"
			  "\"host_hostname\":\"box\",\"host_cpu_model\":\"\","
			  "\"host_kernel\":\"\",\"host_nproc\":2,"
			  "\"host_date\":\"\"}\n", 610) == 0, "%s", text);
	cr_expect_null(strstr(text, "\"record\":\"host\""), "%s", text);
	cr_expect(strstr(text, "\"evictions\":null,"), "%s", text);
	free(text);
}

Test(sim_report, the_log_leads_with_the_host_record)
{
	char *text = NULL;
	write_sim_rows(RECORD_JSONL, true, sim_rows, 2, 1, &text);
	cr_expect(strncmp(text, "{\"record\":\"host\",\"host\":{", 25) == 0,
		  "%s", text);
	cr_expect(strstr(text, "}\n{\"record\":\"sim\",\"trace\":\"a,b\","),
		  "%s", text);
	free(text);
}

Test(sim_report, csv_and_table_say_not_measured_their_way)
{
	char *text = NULL;
	write_sim(RECORD_CSV, &text);
	cr_expect(strstr(text, "\n\"a,b\",txt,4,3,8,0,0,kernel,2,2,rr,4,4,1,,,0,1,"
			       "4e-06,,,,,0,0,1,2,0,0,0,box,,,2,\n"), "%s", text);
	free(text);
	write_sim(RECORD_TABLE, &text);
	cr_expect(strstr(text, "\nkernel                          2   2          "
			       "4          4   1.0000          -     0.00       "
			       "-      -       -\n"), "%s", text);
	cr_expect_null(strstr(text, "bytemiss"), "no sizes: %s", text);
	cr_expect_null(strstr(text, "min-max"), "one run: %s", text);
	free(text);
}

/* Three repeats of two points, in turn: a row each in csv, numbered; a
 * line a point in the table, its medians and Mreq/s's min-max. */
Test(sim_report, repeats_are_rows_in_csv_and_medians_in_the_table)
{
	struct sim_row rows[6];
	const double mreq[3][2] = { { 10, 4 }, { 12, 5 }, { 11, 3 } };
	const uint64_t misses[3][2] = { { 3, 2 }, { 3, 4 }, { 3, 3 } };
	char *text = NULL;
	for (unsigned r = 0; r < 3; r++)
		for (unsigned i = 0; i < 2; i++) {
			rows[r * 2 + i] = sim_rows[i];
			rows[r * 2 + i].repeat = r;
			rows[r * 2 + i].r.mreq_per_s = mreq[r][i];
			rows[r * 2 + i].r.misses = misses[r][i];
		}
	write_sim_rows(RECORD_CSV, false, rows, 6, 3, &text);
	unsigned lines = 0;
	for (const char *p = text; (p = strchr(p, '\n')); p++)
		lines++;
	cr_expect_eq(lines, 7, "a header and 6 rows: %s", text);
	cr_expect(strstr(text, ",repeat,repeats,cpus,serial,ids_hashed_from_strings,id_collisions,host_hostname,"),
		  "%s", text);
	cr_expect(strstr(text, ",kernel,2,2,rr,4,3,0.75,,,0,1,3,,,,,0,2,3,2,0,0,0,box,"),
		  "kernel's third run: %s", text);
	free(text);
	write_sim_rows(RECORD_TABLE, false, rows, 6, 3, &text);
	cr_expect(strstr(text, "3 repeats, every point in turn"), "%s", text);
	/* lru/global: 10, 12, 11 Mreq/s; its misses the same each run. */
	cr_expect(strstr(text, "\nlru/global                      2   1          4"
			       "          3   0.7500 0.7500-0.7500 "), "%s", text);
	cr_expect(strstr(text, " 11.00 10.00-12.00 "), "%s", text);
	/* kernel: misses 2, 4, 3: the miss ratio's range shown. */
	cr_expect(strstr(text, "   0.7500 0.5000-1.0000 "), "%s", text);
	cr_expect(strstr(text, "    4.00   3.00-5.00 "), "%s", text);
	free(text);
}

/* --- the host record ----------------------------------------------------------------- */

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(host, vulnerabilities_are_read_sorted_and_mitigations_named)
{
	char dir[] = "/tmp/maplab-vulns-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	write_file(dir, "spectre_v2", "Mitigation: Retpolines; STIBP: disabled\n");
	write_file(dir, "mds", "Not affected\n");
	write_file(dir, "meltdown", "Mitigation: PTI\n");
	write_file(dir, "spec_store_bypass", "Vulnerable\n");

	struct host_record h = { 0 };
	char names[128];
	host_read_vulnerabilities(&h, dir);
	cr_assert_eq(h.n_vulns, 4);
	cr_expect_str_eq(h.vulns[0].name, "mds");
	cr_expect_str_eq(h.vulns[1].name, "meltdown");
	cr_expect_str_eq(h.vulns[1].status, "Mitigation: PTI");
	cr_expect_str_eq(h.vulns[3].name, "spectre_v2");
	host_mitigations(&h, names, sizeof(names));
	cr_expect_str_eq(names, "meltdown, spectre_v2");

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct record rec;
	host_record_build(&h, &rec);
	record_write(f, RECORD_JSONL, &rec, 1, NULL, 0);
	record_free(&rec);
	fclose(f);
	cr_expect(strstr(text, "{\"record\":\"host\",\"host\":{\"kernel\":"),
		  "%s", text);
	cr_expect(strstr(text, "\"mitigations\":[\"meltdown\",\"spectre_v2\"]"),
		  "%s", text);
	cr_expect(strstr(text, "\"spec_store_bypass\":\"Vulnerable\""), "%s",
		  text);
	free(text);

	const char *files[] = { "spectre_v2", "mds", "meltdown",
				"spec_store_bypass" };
	for (int i = 0; i < 4; i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

Test(host, no_vulnerabilities_directory_means_none)
{
	struct host_record h = { 0 };
	char names[32];
	host_read_vulnerabilities(&h, "/nonexistent/vulnerabilities");
	cr_expect_eq(h.n_vulns, 0);
	host_mitigations(&h, names, sizeof(names));
	cr_expect_str_eq(names, "none");
}

Test(host, the_transparent_huge_pages_setting_is_the_bracketed_word)
{
	char dir[] = "/tmp/maplab-thp-XXXXXX", path[512];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/enabled", dir);
	struct host_record h = { 0 };
	const struct {
		const char *file, *want;
	} cases[] = {
		{ "always [madvise] never\n", "madvise" },
		{ "[always] madvise never\n", "always" },
		{ "always madvise [never]\n", "never" },
		{ "always madvise never\n", "" },  /* none chosen: not known */
		{ "[averyveryverylongword] x\n", "" }, /* past the field */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(dir, "enabled", cases[i].file);
		host_read_thp(&h, path);
		cr_expect_str_eq(h.thp, cases[i].want, "%s", cases[i].file);
	}
	unlink(path);
	host_read_thp(&h, path); /* no such file: a kernel without THP */
	cr_expect_str_eq(h.thp, "");
	rmdir(dir);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	snprintf(h.thp, sizeof(h.thp), "madvise");
	h.allocator = "jemalloc";
	h.rcu = "memb";
	host_record_line(f, &h);
	struct record rec;
	host_record_build(&h, &rec);
	record_write(f, RECORD_JSONL, &rec, 1, NULL, 0);
	record_free(&rec);
	fclose(f);
	/* the line wraps at the terminal's width: its words, then the end */
	cr_expect(strstr(text, "rcu memb, transparent huge"), "%s", text);
	cr_expect(strstr(text, "pages madvise\n"), "%s", text);
	cr_expect(strstr(text, "\"thp\":\"madvise\""), "%s", text);
	free(text);
}

Test(host, hypervisor_signatures_are_named)
{
	cr_expect_str_eq(host_hypervisor_name("KVMKVMKVM\0\0\0"), "kvm");
	cr_expect_str_eq(host_hypervisor_name("Microsoft Hv"), "hyperv");
	cr_expect_str_eq(host_hypervisor_name("XenVMMXenVMM"), "xen");
	cr_expect_null(host_hypervisor_name("GenuineIntel"));
}

/* --- the reference probe --------------------------------------------------------------- */

Test(probe, the_chase_is_one_cycle_through_every_node)
{
	struct probe p;
	cr_assert_eq(probe_init(&p), 0);
	uint32_t at = 0, steps = 0;
	do {
		at = p.nodes[at].next;
		steps++;
	} while (at != 0 && steps <= PROBE_NODES);
	cr_expect_eq(steps, PROBE_NODES, "back at node 0 after %u steps", steps);

	struct probe q;
	cr_assert_eq(probe_init(&q), 0);
	cr_expect_eq(memcmp(p.nodes, q.nodes, PROBE_NODES * sizeof(*p.nodes)), 0,
		     "the same chase on every run");
	double ns = probe_run(&p);
	cr_expect(ns > 0, "probe_run: %g", ns);
	probe_free(&p);
	probe_free(&q);
}
