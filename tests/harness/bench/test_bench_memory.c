/* SPDX-License-Identifier: MIT */
/*
 * bench's memory figure and the physical limit's loads
 * (harness/bench/bench.h, memstat.h, limit.h): the two ways a map's bytes
 * are counted agree where both exist, a design without a count of its own
 * gets the allocator's (or, in the libc build, no figure at all, never a
 * wrong one), and the loads loop counts and times what it did.  No timing
 * is asserted.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "harness/bench/bench.h"
#include "harness/bench/limit.h"
#include "harness/bench/memstat.h"

#define ENTRIES 65536

/* A full map of `design`: 4-byte keys, 8-byte values, lookups. */
static struct bench_config full_map(const char *design)
{
	struct bench_config c = {
		.design = map_find(design),
		.w = { .key_size = 4, .value_size = 8, .entries = ENTRIES,
		       .prefill_pct = 100, .dist = DIST_UNIFORM, .seed = 1 },
		.threads = 1, .ops = 4096,
	};
	cr_assert_not_null(c.design, "no %s in the registry", design);
	c.w.mix[OP_LOOKUP] = 100;
	return c;
}

static struct bench_memory footprint_of(const char *design)
{
	struct bench_config c = full_map(design);
	struct bench_memory mem;
	char err[256];
	cr_assert_eq(bench_footprint(&c, &mem, err, sizeof(err)), 0, "%s: %s",
		     design, err);
	return mem;
}

Test(bench_memory, the_design_count_and_the_allocator_agree)
{
	if (!memstat_available())
		cr_skip("this build's allocator (libc) keeps no count to compare "
			"hash/seqlock_buckets's own with");
	struct bench_memory mem = footprint_of("hash/seqlock_buckets");
	cr_assert_eq(mem.from, BENCH_MEMORY_DESIGN);
	cr_assert(!isnan(mem.allocator_bytes), "no allocator reading");
	double ratio = mem.allocator_bytes / mem.design_bytes;
	cr_log_info("hash/seqlock_buckets at %d entries: its count %.0f bytes, jemalloc's "
		    "%.0f", ENTRIES, mem.design_bytes, mem.allocator_bytes);
	cr_expect(ratio > 0.85 && ratio < 1.15,
		  "hash/seqlock_buckets counts %.0f bytes, jemalloc %.0f (%.2fx)",
		  mem.design_bytes, mem.allocator_bytes, ratio);
	cr_expect_eq(mem.bytes, mem.design_bytes);
	cr_expect_float_eq(mem.bytes_per_entry, mem.bytes / ENTRIES, 1e-9);
}

/* hash/linux keeps no count: jemalloc's, where there is jemalloc. */
Test(bench_memory, a_design_without_a_count_gets_the_allocators)
{
	struct bench_memory mem = footprint_of("hash/linux");
	cr_expect(isnan(mem.design_bytes));
	if (!memstat_available()) {
		cr_expect_eq(mem.from, BENCH_MEMORY_NONE,
			     "a figure from nowhere: %.1f bytes", mem.bytes);
		cr_expect(isnan(mem.bytes_per_entry));
		return;
	}
	cr_assert_eq(mem.from, BENCH_MEMORY_ALLOCATOR);
	cr_expect_geq(mem.bytes_per_entry, 4 + 8,
		      "%.1f bytes an entry hold no 4-byte key and 8-byte value",
		      mem.bytes_per_entry);
	cr_expect_eq(mem.bytes, mem.allocator_bytes);
}

/* bench_run reports the footprint bench_footprint measures (hash/seqlock_buckets's
 * own count does not depend on the run). */
Test(bench_memory, a_run_reports_the_maps_footprint)
{
	struct bench_config c = full_map("hash/seqlock_buckets");
	struct bench_memory alone = footprint_of("hash/seqlock_buckets");
	struct bench_result r;
	char err[256];
	cr_assert_eq(bench_run(&c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(r.memory.from, BENCH_MEMORY_DESIGN);
	cr_expect_eq(r.memory.bytes, alone.bytes);
	cr_expect_geq(r.memory.bytes_per_entry, 4 + 8);
}

Test(bench_memory, memstat_reads_where_the_allocator_counts)
{
	size_t before = 0, after = 0;
	bool counted = memstat_allocated(&before);
	cr_assert_eq(counted, memstat_available());
	if (!counted)
		return;
	void *volatile block = malloc(1 << 20); /* volatile: kept */
	cr_assert(memstat_allocated(&after));
	cr_expect_geq(after - before, 1 << 20, "1 MiB more, %zu counted",
		      after - before);
	free(block);
}

Test(bench_memory, a_buffer_is_whole_words)
{
	struct limit_buffer b;
	cr_expect_eq(limit_buffer_init(&b, 7), -EINVAL);
	cr_assert_eq(limit_buffer_init(&b, 100), 0);
	cr_expect_eq(b.n_words, 12);
	cr_expect_eq(limit_buffer_bytes(&b), 96);
	limit_buffer_free(&b);
	cr_expect_null(b.words);
}

/* The loads side does its share of --ops on each thread, in whole
 * batches, and times them. */
Test(bench_memory, the_loads_loop_counts_its_loads)
{
	struct limit_buffer b;
	struct bench_config c = full_map("hash/seqlock_buckets");
	struct bench_result r;
	char err[256];
	c.threads = 2;
	c.ops = 100000;
	cr_assert_eq(limit_buffer_init(&b, 1 << 20), 0);
	cr_assert_eq(limit_run(&b, &c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect(r.ops >= 100000 && r.ops < 100000 + 2 * LIMIT_BATCH,
		  "%lu loads", r.ops);
	cr_expect_eq(r.ok[OP_LOOKUP], r.ops);
	cr_expect_gt(r.ns_per_op, 0);
	cr_expect_eq(r.memory.from, BENCH_MEMORY_NONE);
	limit_buffer_free(&b);
}
