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
 *    slot's share is its own), while a global LRU does not care;
 *  - a trace file (simfile.h) is read once: held where short, from a pipe
 *    too; streamed past the limit, through the same stream sought back,
 *    with the held results (csv's header, .zst); a pipe that would have
 *    to be streamed is refused in one line.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/common/rng.h"
#include "harness/sim/sim.h"
#include "harness/sim/simfile.h"
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

/* --- a trace file, read once (harness/sim/simfile.h) ------------------------ */

/* t as a csv with a header line, "key,size" (the caller unlinks it). */
static const char *csv_of(const struct sim_trace *t, const char *name)
{
	static char path[4][256];
	static unsigned k;
	char *p = path[k++ % 4];
	snprintf(p, 256, "/tmp/maplab-test-simfile-%d-%s", (int)getpid(), name);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("key,size\n", f);
	for (size_t i = 0; i < t->n; i++)
		fprintf(f, "%llu,%u\n", (unsigned long long)t->ids[i],
			t->sizes[i]);
	cr_assert_eq(fclose(f), 0);
	return p;
}

static struct sim_file_opts csv_opts(struct sim_csv_params *p)
{
	sim_csv_params_init(p);
	p->size_col = 2;
	p->has_header = 1; /* one line alone (no request) cannot show it is */
	return (struct sim_file_opts){ .format = SIM_TRACE_CSV, .csv = p,
				       .key_size = 8 };
}

static void expect_ids(const struct sim_trace *got, const struct sim_trace *want,
		       size_t n)
{
	cr_assert_eq(got->n, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(got->ids[i], want->ids[i], "request %zu", i);
		cr_assert_eq(got->sizes[i], want->sizes[i], "request %zu", i);
	}
}

/*
 * A file too long to hold is streamed: gathered up to the limit, then
 * read from its start again, each pass, through the same stream (csv's
 * header skipped each time, .zst decompressed from its first frame
 * again): the results of the same file held, on every design.
 */
Test(sim_stream, a_file_too_long_to_hold_streams_as_it_holds)
{
	struct sim_trace t = make_trace();
	const char *plain = csv_of(&t, "long.csv");
	const char *paths[2] = { plain, NULL };
	char z[300], cmd[700];
	if (sim_trace_have_zstd() &&
	    system("command -v zstd >/dev/null 2>&1") == 0) {
		snprintf(z, sizeof(z), "%s.zst", plain);
		snprintf(cmd, sizeof(cmd), "zstd -q -f -o '%s' '%s'", z, plain);
		cr_assert_eq(system(cmd), 0);
		paths[1] = z;
	}
	struct sim_csv_params cp;
	struct sim_file_opts o = csv_opts(&cp);
	o.warmup = CHUNK + 4321;
	for (int k = 0; k < 2 && paths[k]; k++) {
		struct sim_file held_f, streamed_f;
		struct sim_trace held_t, streamed_t;
		struct sim_input held, streamed;
		char err[512] = "";
		cr_assert_eq(sim_file_load(&held_f, paths[k], &o, &held_t, &held,
					   err, sizeof(err)), 0, "%s", err);
		cr_assert(!sim_file_streamed(&held_f));
		expect_ids(&held_t, &t, t.n);
		struct sim_file_opts small = o;
		small.hold_requests = 1000;
		small.chunk = 30000;
		cr_assert_eq(sim_file_load(&streamed_f, paths[k], &small,
					   &streamed_t, &streamed, err,
					   sizeof(err)), 0, "%s", err);
		cr_assert(sim_file_streamed(&streamed_f));
		cr_assert_null(streamed_t.ids);
		cr_assert_eq(streamed.n, t.n);
		cr_assert_eq(streamed_t.n, t.n);
		cr_assert_eq(streamed.distinct, held.distinct);
		cr_assert(streamed.has_sizes);
		static const char *const designs[] = { "lru/global", "lru/clock" };
		for (size_t d = 0; d < 2; d++) {
			struct sim_policy p = policy(designs[d]);
			struct sim_result a = run(&held, &p, 1, 0);
			struct sim_result b = run(&streamed, &p, 1, 0);
			cr_assert_gt(a.evictions, 0);
			expect_same(&a, &b, paths[k]);
		}
		sim_input_free(&held);
		sim_input_free(&streamed);
		sim_file_close(&held_f);
		sim_file_close(&streamed_f);
		sim_trace_free(&held_t);
		sim_trace_free(&streamed_t);
	}
	if (paths[1])
		unlink(paths[1]);
	unlink(plain);
	sim_trace_free(&t);
}

/* A pipe's path (/proc/self/fd/N) holding the first n requests of t as
 * txt, its writing end closed: its bytes come once. */
static const char *pipe_of(const struct sim_trace *t, size_t n, int *read_fd)
{
	static char path[64];
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	FILE *w = fdopen(fds[1], "w");
	cr_assert_not_null(w);
	for (size_t i = 0; i < n; i++)
		fprintf(w, "%llu\n", (unsigned long long)t->ids[i]);
	cr_assert_eq(fclose(w), 0); /* n lines fit the pipe's 64 KB */
	*read_fd = fds[0];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	return path;
}

/*
 * A pipe is read once: a short trace is held from that one read (it had
 * been read twice, the second time empty: "no requests in the trace"); one
 * that would have to be streamed (too long to hold, or streaming asked) is
 * refused in one line that says it needs a file that can be read twice.
 */
Test(sim_stream, a_pipe_is_held_or_refused)
{
	struct sim_trace t = make_trace();
	struct sim_file_opts o = { .format = SIM_TRACE_TXT, .key_size = 8 };
	struct sim_file f;
	struct sim_trace got;
	struct sim_input in;
	char err[512] = "";
	int fd;
	const char *path = pipe_of(&t, 5000, &fd);
	cr_assert_eq(sim_file_load(&f, path, &o, &got, &in, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(!sim_file_streamed(&f));
	cr_assert_eq(in.n, 5000);
	for (size_t i = 0; i < 5000; i++)
		cr_assert_eq(got.ids[i], t.ids[i]);
	sim_input_free(&in);
	sim_file_close(&f);
	sim_trace_free(&got);
	close(fd);

	o.hold_requests = 4999;
	path = pipe_of(&t, 5000, &fd);
	cr_assert_eq(sim_file_load(&f, path, &o, &got, &in, err, sizeof(err)),
		     -ESPIPE);
	cr_expect(strstr(err, " is a pipe or FIFO, which can be read only once: "
			 "it has more than 4999 requests, too many to hold, and "
			 "a streamed trace is read again on each pass, so it "
			 "needs a file that can be read twice"), "%s", err);
	cr_expect_null(strchr(err, '\n'));
	cr_expect_null(got.ids);
	close(fd);

	o.hold_requests = 0;
	o.stream = true;
	path = pipe_of(&t, 10, &fd);
	cr_assert_eq(sim_file_load(&f, path, &o, &got, &in, err, sizeof(err)),
		     -ESPIPE);
	cr_expect(strstr(err, "which can be read only once: streaming was asked "
			 "for"), "%s", err);
	close(fd);
	sim_trace_free(&t);
}

/* No request: an error naming the file, held or streamed. */
Test(sim_stream, a_file_of_no_request_is_an_error)
{
	struct sim_trace t = { .n = 0 }, got;
	struct sim_csv_params cp;
	struct sim_file_opts o = csv_opts(&cp);
	const char *p = csv_of(&t, "empty.csv");
	for (int stream = 0; stream < 2; stream++) {
		struct sim_file f;
		struct sim_input in;
		char err[512] = "";
		o.stream = stream;
		cr_assert_eq(sim_file_load(&f, p, &o, &got, &in, err,
					   sizeof(err)), -EINVAL);
		cr_expect(strstr(err, "empty.csv: no requests in the trace"),
			  "%s", err);
	}
	unlink(p);
}
