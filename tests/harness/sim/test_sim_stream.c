/* SPDX-License-Identifier: MIT */
/*
 * sim's engine on a streamed trace and in serial-cpu mode (harness/sim/
 * sim.h):
 *  - a trace fed through a sim_source in chunks gives exactly the results
 *    of the same trace held whole (misses, evictions, byte misses, stray),
 *    with a warm-up that ends inside a later chunk, on one thread and on
 *    two (where the split, by the request's index in the whole trace, must
 *    not change at a chunk's edge);
 *  - opt and the kernel refuse a streamed trace;
 *  - serial cpus: one thread, request i as cpu slot i % N, is
 *    deterministic, and for the per-CPU LRU differs from one cpu (each
 *    slot's share is its own), while a global LRU does not care.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/rng.h"
#include "harness/sim/sim.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_cpu_release();
	map_thread_offline();
}

TestSuite(sim_stream, .init = set_up, .fini = tear_down, .timeout = 300);

/* A trace across several chunks and a bit: skewed ids, sizes 1..100. */
#define CHUNK 65536
#define N_REQUESTS (5 * (size_t)CHUNK + 12345)

static struct sim_trace make_trace(void)
{
	struct sim_trace t = { .n = N_REQUESTS };
	struct rng r;
	t.ids = malloc(t.n * sizeof(*t.ids));
	t.sizes = malloc(t.n * sizeof(*t.sizes));
	cr_assert(t.ids && t.sizes);
	rng_seed(&r, 7);
	for (size_t i = 0; i < t.n; i++) {
		/* a skewed key: the smaller of two draws, over 20000 keys */
		uint64_t a = rng_below(&r, 20000), b = rng_below(&r, 20000);
		t.ids[i] = 1 + (a < b ? a : b);
		t.sizes[i] = 1 + (uint32_t)(t.ids[i] % 100);
	}
	snprintf(t.name, sizeof(t.name), "test");
	return t;
}

/* A source over a trace in memory, handing out at most `most` a call. */
struct memory_source {
	const struct sim_trace *t;
	size_t at, most, rewinds;
};

static int mem_rewind(void *ctx, char *err, size_t errlen)
{
	struct memory_source *m = ctx;
	(void)err, (void)errlen;
	m->at = 0;
	m->rewinds++;
	return 0;
}

static long mem_next(void *ctx, uint64_t *ids, uint32_t *sizes, size_t max,
		     char *err, size_t errlen)
{
	struct memory_source *m = ctx;
	(void)err, (void)errlen;
	size_t n = m->t->n - m->at;
	if (n > max)
		n = max;
	if (n > m->most)
		n = m->most;
	memcpy(ids, m->t->ids + m->at, n * sizeof(*ids));
	if (sizes)
		memcpy(sizes, m->t->sizes + m->at, n * sizeof(*sizes));
	m->at += n;
	return (long)n;
}

static struct sim_policy policy(const char *name)
{
	struct sim_policy p = { .engine = SIM_ENGINE_MAP, .design = map_find(name) };
	cr_assert_not_null(p.design, "%s", name);
	snprintf(p.name, sizeof(p.name), "%s", name);
	return p;
}

static struct sim_result run(struct sim_input *in, const struct sim_policy *p,
			     unsigned threads, unsigned serial_cpus)
{
	struct sim_config c = { .policy = p, .entries = 2000,
				.threads = threads, .split = SIM_SPLIT_RR,
				.stray = threads == 1, .ncpus = 2,
				.serial_cpus = serial_cpus };
	struct sim_result r;
	char err[512];
	int rc = sim_run(in, &c, &r, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s: %s", p->name, err);
	return r;
}

static void expect_same(const struct sim_result *a, const struct sim_result *b,
			const char *what)
{
	cr_expect_eq(a->requests, b->requests, "%s: requests", what);
	cr_expect_eq(a->misses, b->misses, "%s: misses", what);
	cr_expect_eq(a->evictions, b->evictions, "%s: evictions", what);
	cr_expect_eq(a->insert_failures, b->insert_failures, "%s", what);
	cr_expect(a->byte_misses == b->byte_misses && a->bytes == b->bytes,
		  "%s: bytes", what);
	cr_expect_eq(a->stray_victims, b->stray_victims, "%s: stray", what);
}

Test(sim_stream, chunks_give_the_results_of_the_whole_trace)
{
	struct sim_trace t = make_trace();
	/* The warm-up ends inside the second chunk. */
	uint64_t warmup = CHUNK + 4321;
	struct sim_input whole, streamed;
	struct memory_source m = { .t = &t, .most = 30000 };
	struct sim_source src = { .rewind = mem_rewind, .next = mem_next,
				  .ctx = &m, .has_sizes = true };
	char err[512];
	cr_assert_eq(sim_input_prepare(&whole, &t, 8, warmup, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(sim_input_stream(&streamed, &t, &src, 8, warmup, CHUNK, err,
				      sizeof(err)), 0, "%s", err);
	cr_assert_eq(streamed.n, t.n);
	cr_assert_eq(streamed.distinct, whole.distinct);
	cr_assert(streamed.has_sizes);
	static const char *const designs[] = { "lru/global", "lru/clock",
					       "lru/linux_percpu" };
	for (size_t d = 0; d < sizeof(designs) / sizeof(*designs); d++) {
		struct sim_policy p = policy(designs[d]);
		size_t before = m.rewinds;
		struct sim_result a = run(&whole, &p, 1, 0);
		struct sim_result b = run(&streamed, &p, 1, 0);
		cr_assert_eq(a.requests, t.n - warmup);
		cr_assert_gt(a.evictions, 0, "%s", designs[d]);
		cr_assert_gt(a.stray_victims, 0, "%s", designs[d]);
		expect_same(&a, &b, designs[d]);
		/* the timed pass and the stray pass each read it again */
		cr_expect_eq(m.rewinds - before, 2, "%s", designs[d]);
	}
	sim_input_free(&whole);
	sim_input_free(&streamed);
	sim_trace_free(&t);
}

/* On two workers the split is by the request's index in the trace: a
 * global FIFO-like count (requests per worker) stays the same, and every
 * request is counted once. */
Test(sim_stream, two_workers_count_every_request)
{
	if (map_cpu_allowed_count() < 2)
		cr_skip_test("one CPU allowed");
	struct sim_trace t = make_trace();
	struct memory_source m = { .t = &t, .most = CHUNK };
	struct sim_source src = { .rewind = mem_rewind, .next = mem_next,
				  .ctx = &m, .has_sizes = true };
	struct sim_input in;
	char err[512];
	cr_assert_eq(sim_input_stream(&in, &t, &src, 8, 1000, CHUNK, err,
				      sizeof(err)),
		     0, "%s", err);
	struct sim_policy p = policy("lru/global");
	struct sim_result r = run(&in, &p, 2, 0);
	cr_assert_eq(r.requests, t.n - 1000);
	cr_assert_geq(r.misses, r.evictions);
	cr_assert_eq(r.insert_failures, 0);
	sim_input_free(&in);
	sim_trace_free(&t);
}

Test(sim_stream, opt_and_the_kernel_need_the_trace_whole)
{
	struct sim_trace t = make_trace();
	struct memory_source m = { .t = &t, .most = CHUNK };
	struct sim_source src = { .rewind = mem_rewind, .next = mem_next,
				  .ctx = &m };
	struct sim_input in;
	char err[512] = "";
	cr_assert_eq(sim_input_stream(&in, &t, &src, 8, 0, CHUNK, err,
				      sizeof(err)), 0);
	cr_assert(!in.has_sizes);
	struct sim_policy opt = { .name = "opt", .engine = SIM_ENGINE_OPT };
	struct sim_config c = { .policy = &opt, .entries = 100, .threads = 1 };
	struct sim_result r;
	cr_assert_eq(sim_run(&in, &c, &r, err, sizeof(err)), -EOPNOTSUPP);
	cr_assert(strstr(err, "opt needs the trace held whole"), "%s", err);
	sim_input_free(&in);
	sim_trace_free(&t);
}

/* --- serial cpus ----------------------------------------------------------- */

Test(sim_stream, serial_cpus_are_deterministic_and_per_cpu)
{
	struct sim_trace t = make_trace();
	struct sim_input in;
	char err[512];
	cr_assert_eq(sim_input_prepare(&in, &t, 8, 0, err, sizeof(err)), 0);
	struct sim_policy percpu = policy("lru/linux_percpu");
	struct sim_policy global = policy("lru/global");
	struct sim_result one = run(&in, &percpu, 1, 0);
	struct sim_result a = run(&in, &percpu, 1, 2);
	struct sim_result b = run(&in, &percpu, 1, 2);
	expect_same(&a, &b, "serial twice");
	/* request i on slot i % 2: each slot's share (half the entries)
	 * holds the keys of its own requests, where one cpu had one share */
	cr_expect_neq(a.misses, one.misses, "2 cpus %llu, 1 cpu %llu",
		     (unsigned long long)a.misses,
		     (unsigned long long)one.misses);
	struct sim_result g1 = run(&in, &global, 1, 0);
	struct sim_result g2 = run(&in, &global, 1, 2);
	expect_same(&g1, &g2, "a global LRU on 1 and 2 cpus");
	cr_expect_eq(map_this_cpu(), 0, "the thread is back on slot 0");
	struct sim_config c = { .policy = &percpu, .entries = 100, .threads = 2,
				.serial_cpus = 2 };
	struct sim_result r;
	cr_expect_eq(sim_run(&in, &c, &r, err, sizeof(err)), -EINVAL);
	sim_input_free(&in);
	sim_trace_free(&t);
}
