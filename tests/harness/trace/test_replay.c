/* SPDX-License-Identifier: MIT */
/*
 * The replayer on userspace designs (the kernel side is in
 * tests/kernel-compare/test_kernel_hash.c): the syscall layer's access
 * checks, the thread a replay runs on (and the cpu lines that move it), how
 * a comparison treats errors of the trace, and that time and memory grow
 * as the trace does, not faster.
 *
 * Speed is never timed here: a test whose work is quadratic cannot finish
 * within its criterion .timeout, while the linear work takes seconds.
 * Memory is judged under setrlimit(RLIMIT_AS), which AddressSanitizer
 * cannot run under (its shadow memory alone is terabytes of address
 * space): those tests skip themselves in the sanitizer build.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness/trace/replay.h"
#include "harness/trace/tracegen.h"
#include "maps/base/cpu.h"
#include "tests/common/memlimit.h"


static struct trace parse_or_fail(const char *text)
{
	struct trace t;
	char err[256];
	cr_assert_eq(trace_parse_string(text, "t", &t, err, sizeof(err)), 0,
		     "%s", err);
	return t;
}

/* Replay text on the kernel-faithful designs (echo: each line as a
 * comment above its results); the results as a string. */
static char *replay_echo(const char *text, bool echo, enum replay_stop want)
{
	struct trace t = parse_or_fail(text);
	struct replay_side side = replay_user_side(NULL);
	char *out = NULL, err[256] = "";
	size_t len;
	FILE *f = open_memstream(&out, &len);
	cr_assert_not_null(f);
	enum replay_stop stop = replay_run(&t, "t", &side, f, echo, err,
					   sizeof(err));
	fclose(f);
	cr_assert_eq(stop, want, "stop %d: %s", stop, err);
	trace_free(&t);
	return out;
}

static char *replay_text(const char *text, enum replay_stop want)
{
	return replay_echo(text, false, want);
}

static void expect_replay(const char *text, const char *want)
{
	char *out = replay_text(text, REPLAY_DONE);
	cr_expect_str_eq(out, want);
	free(out);
}

/* --- access flags: the syscall layer ---------------------------------------- */

/* The trace: the kernel answers EPERM to the update (0x8 is
 * BPF_F_RDONLY), and so must the replay of hash/linux. */
Test(replay, a_read_only_map_refuses_syscall_writes)
{
	expect_replay("map hash key_size=4 value_size=8 max_entries=4 "
		      "flags=zero_seed|0x8\n"
		      "update 01000000 0100000000000000\n"
		      "delete 01000000\nlookup 01000000\nplookup 01000000\n"
		      "next -\ndump\n",
		      "ok\nerr EPERM\nerr EPERM\nerr ENOENT\nerr ENOENT\n"
		      "err ENOENT\nok 0\n");
}

/* BPF_F_WRONLY: no syscall reads (lookup, next, the dump's walk); a
 * program's lookup still finds the key. */
Test(replay, a_write_only_map_refuses_syscall_reads)
{
	expect_replay("map hash key_size=4 value_size=4 max_entries=4 "
		      "flags=wronly\n"
		      "update 01000000 0a000000\nlookup 01000000\n"
		      "plookup 01000000\nnext -\nnext 01000000\ndump\n"
		      "delete 01000000\nplookup 01000000\n",
		      "ok\nok\nerr EPERM\nok\nerr EPERM\nerr EPERM\nerr EPERM\n"
		      "ok\nerr ENOENT\n");
}

/* The _PROG flags limit programs that touch the value; the syscall side
 * and a presence test (plookup) are untouched. */
Test(replay, prog_access_flags_leave_the_syscall_side_alone)
{
	static const char *const flags[] = { "rdonly_prog", "wronly_prog" };
	for (size_t i = 0; i < 2; i++) {
		char text[512];
		snprintf(text, sizeof(text),
			 "map hash key_size=4 value_size=4 max_entries=4 "
			 "flags=zero_seed|%s\nupdate 01000000 0a000000\n"
			 "lookup 01000000\nplookup 01000000\ndump\n", flags[i]);
		expect_replay(text, "ok\nok\nok 0a000000\nok\nok 1\n"
				    "  01000000 0a000000\n");
	}
}

/* --- the replay's thread ---------------------------------------------------- */

struct holder {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int claimed; /* the slot claim's result; 1 before it is known */
	int done;
};

static void *hold_slot_0(void *arg)
{
	struct holder *h = arg;
	pthread_mutex_lock(&h->lock);
	h->claimed = map_cpu_claim(0);
	pthread_cond_broadcast(&h->cond);
	while (!h->done)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* Start a thread that claims cpu slot 0 and holds it until released;
 * return once it has it. */
static void start_slot_holder(struct holder *h, pthread_t *thread)
{
	cr_assert_eq(pthread_create(thread, NULL, hold_slot_0, h), 0);
	pthread_mutex_lock(&h->lock);
	while (h->claimed == 1)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	cr_assert_eq(h->claimed, 0);
}

/* Let the holder release slot 0 and end. */
static void stop_slot_holder(struct holder *h, pthread_t thread)
{
	pthread_mutex_lock(&h->lock);
	h->done = 1;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	pthread_join(thread, NULL);
}

/* Slot 0 is the replay's: if another thread holds it, the replay must not
 * run beside it (two threads on one slot corrupt per-CPU structures). */
Test(replay, fails_when_cpu_slot_0_is_taken)
{
	struct holder h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			    1, 0 };
	pthread_t thread;
	start_slot_holder(&h, &thread);

	struct trace t = parse_or_fail("map hash key_size=4 value_size=4 "
				       "max_entries=4\n");
	struct replay_side side = replay_user_side(NULL);
	char err[256] = "";
	FILE *devnull = fopen("/dev/null", "w");
	cr_assert_not_null(devnull);
	enum replay_stop stop = replay_run(&t, "t", &side, devnull, false, err,
					   sizeof(err));
	struct replay_comparison cmp;
	replay_compare(&t, "t", &side, &side, NULL, NULL, &cmp);
	fclose(devnull);

	stop_slot_holder(&h, thread);
	trace_free(&t);

	cr_expect_eq(stop, REPLAY_FAILED);
	cr_expect(strstr(err, "cpu slot 0") != NULL, "%s", err);
	cr_expect_eq(cmp.stop, REPLAY_FAILED);
	cr_expect(strstr(cmp.why, "cpu slot 0") != NULL, "%s", cmp.why);
}

/* The replay pins its thread to cpu 0 while it runs, and lets it run on
 * every CPU of the process again afterwards. */
Test(replay, gives_the_thread_its_cpus_back)
{
	if (map_cpu_allowed_count() < 2 || map_cpu_allowed_id(0) != 0)
		cr_skip_test("needs cpu 0 and another cpu to tell pinned "
			     "from not");
	cpu_set_t before, after;
	cr_assert_eq(pthread_getaffinity_np(pthread_self(), sizeof(before),
					    &before), 0);
	cr_assert_gt(CPU_COUNT(&before), 1);

	char *out = replay_text("map hash key_size=4 value_size=4 "
				"max_entries=4\n", REPLAY_DONE);
	free(out);
	cr_assert_eq(pthread_getaffinity_np(pthread_self(), sizeof(after),
					    &after), 0);
	cr_expect(CPU_EQUAL(&before, &after), "the thread is left on %d "
		  "cpus, not %d", CPU_COUNT(&after), CPU_COUNT(&before));
}

/* Where each plookup ran: its cpu slot and the CPU under it. */
static struct {
	unsigned slot[8];
	int cpu[8];
	unsigned n;
} where_run;

static int note_cpu(struct map *map, const void *key)
{
	(void)map, (void)key;
	if (where_run.n < 8) {
		where_run.slot[where_run.n] = map_this_cpu();
		where_run.cpu[where_run.n] = sched_getcpu();
		where_run.n++;
	}
	return -ENOENT;
}

/* A cpu line moves the lines after it to that cpu's slot and CPU, on both
 * sides of a comparison alike; afterwards the thread holds no slot and may
 * run on all its CPUs again. */
Test(replay, cpu_lines_move_the_ops_after_them)
{
	if (map_cpu_allowed_count() < 2 || map_cpu_allowed_id(0) != 0)
		cr_skip_test("needs cpu 0 and another cpu");
	int other = map_cpu_allowed_id(1);
	char text[256];
	snprintf(text, sizeof(text), "map hash key_size=1 value_size=1 "
		 "max_entries=2\nplookup 01\ncpu %d\nplookup 01\n"
		 "cpu 0\nplookup 01\ncpu %d\nplookup 01\n", other, other);
	struct trace t = parse_or_fail(text);
	struct replay_side side = replay_user_side(NULL);
	side.prog_lookup = note_cpu;
	cpu_set_t before, after;
	cr_assert_eq(pthread_getaffinity_np(pthread_self(), sizeof(before),
					    &before), 0);

	char *out = NULL, err[256] = "";
	size_t len;
	FILE *f = open_memstream(&out, &len);
	where_run.n = 0;
	cr_assert_eq(replay_run(&t, "t", &side, f, false, err, sizeof(err)),
		     REPLAY_DONE, "%s", err);
	fclose(f);
	cr_expect_str_eq(out, "ok\nerr ENOENT\nok\nerr ENOENT\nok\n"
			      "err ENOENT\nok\nerr ENOENT\n");
	free(out);
	const int want[4] = { 0, other, 0, other };
	cr_assert_eq(where_run.n, 4);
	for (unsigned i = 0; i < 4; i++) {
		cr_expect_eq(where_run.slot[i], (unsigned)want[i], "plookup %u", i);
		cr_expect_eq(where_run.cpu[i], want[i], "plookup %u", i);
	}

	where_run.n = 0; /* a comparison: each side runs each line there */
	struct replay_comparison cmp;
	replay_compare(&t, "t", &side, &side, NULL, NULL, &cmp);
	cr_expect_eq(cmp.stop, REPLAY_DONE, "%s", cmp.why);
	cr_expect_eq(cmp.differences, 0);
	cr_assert_eq(where_run.n, 8);
	for (unsigned i = 0; i < 8; i++)
		cr_expect_eq(where_run.slot[i], (unsigned)want[i / 2], "side %u", i);

	cr_expect_eq(map_this_cpu(), 0);
	cr_assert_eq(pthread_getaffinity_np(pthread_self(), sizeof(after),
					    &after), 0);
	cr_expect(CPU_EQUAL(&before, &after));
	trace_free(&t);
}

/* A trace may start on another cpu than 0 (its first line a cpu line),
 * and a cpu line whose slot another thread holds stops the replay there. */
Test(replay, a_cpu_line_whose_slot_is_taken_stops_the_replay)
{
	struct holder h = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			    1, 0 };
	pthread_t thread;
	start_slot_holder(&h, &thread);

	int other = map_cpu_allowed_id(map_cpu_allowed_count() - 1);
	char text[256];
	snprintf(text, sizeof(text), "cpu %d\nmap hash key_size=1 "
		 "value_size=1 max_entries=2\nupdate 01 01\ncpu 0\n"
		 "lookup 01\n", other);
	struct trace t = parse_or_fail(text);
	struct replay_side side = replay_user_side(NULL);
	char *out = NULL, err[256] = "";
	size_t len;
	FILE *f = open_memstream(&out, &len);
	enum replay_stop stop = replay_run(&t, "t", &side, f, false, err,
					   sizeof(err));
	fclose(f);

	stop_slot_holder(&h, thread);
	trace_free(&t);

	if (other == 0) { /* one cpu: the replay cannot even start */
		cr_expect_eq(stop, REPLAY_FAILED);
		free(out);
		return;
	}
	cr_expect_eq(stop, REPLAY_FAILED);
	cr_expect_str_eq(out, "ok\nok\nok\n");
	cr_expect_str_eq(err, "t:4: cpu slot 0, which the replay needs, is "
			      "held by another thread of this process");
	free(out);
}

/* --- comparisons ------------------------------------------------------------ */

static void count_difference(void *ctx, const struct trace *t, size_t i,
			     const struct replay_answer *a,
			     const struct replay_answer *b)
{
	(void)t, (void)i, (void)a, (void)b;
	++*(size_t *)ctx;
}

/* Both sides refuse the map line and stop at the operation after it:
 * that is agreement, and the trace's own error. */
Test(replay, both_sides_stopping_alike_is_no_difference)
{
	struct trace t = parse_or_fail("map hash key_size=4 value_size=0 "
				       "max_entries=2\nlookup 00000000\n");
	struct replay_side side = replay_user_side(NULL);
	struct replay_comparison cmp;
	size_t seen = 0;
	replay_compare(&t, "t", &side, &side, count_difference, &seen, &cmp);
	cr_expect_eq(cmp.differences, 0);
	cr_expect_eq(seen, 0);
	cr_expect_eq(cmp.stop, REPLAY_TRACE_ERROR);
	cr_expect_eq(cmp.lines, 1);
	cr_expect(strstr(cmp.why, "t:2: operation on the map of line 1") &&
		  strstr(cmp.why, "EINVAL on both sides"), "%s", cmp.why);
	trace_free(&t);
}

/* One side creates the map, the other refuses it (no design for the
 * type): the map line differs, and so does the line where one side alone
 * stopped; the comparison ends there. */
Test(replay, one_side_stopping_alone_is_a_difference)
{
	struct trace t = parse_or_fail("map hash key_size=4 value_size=4 "
				       "max_entries=2\nlookup 00000000\n"
				       "dump\n");
	struct replay_side user = replay_user_side(NULL);
	struct replay_side none = replay_fixed_side("none", NULL, NULL);
	struct replay_comparison cmp;
	size_t seen = 0;
	replay_compare(&t, "t", &user, &none, count_difference, &seen, &cmp);
	cr_expect_eq(cmp.differences, 2);
	cr_expect_eq(seen, 2);
	cr_expect_eq(cmp.lines, 2);
	cr_expect_eq(cmp.stop, REPLAY_TRACE_ERROR);
	cr_expect(strstr(cmp.why, "EOPNOTSUPP on none") != NULL, "%s", cmp.why);
	trace_free(&t);
}

/* --- growth: time and memory ------------------------------------------------ */

/* A stream that counts what is written to it, and keeps nothing. */
struct count {
	size_t bytes, newlines;
};

static ssize_t count_write(void *cookie, const char *buf, size_t size)
{
	struct count *c = cookie;
	c->bytes += size;
	for (size_t i = 0; i < size; i++)
		c->newlines += buf[i] == '\n';
	return (ssize_t)size;
}

static FILE *counting_sink(struct count *c)
{
	cookie_io_functions_t io = { .write = count_write };
	memset(c, 0, sizeof(*c));
	FILE *f = fopencookie(c, "w", io);
	cr_assert_not_null(f);
	return f;
}

static struct count replay_counted(const struct trace *t, bool echo)
{
	struct count c;
	FILE *f = counting_sink(&c);
	struct replay_side side = replay_user_side(NULL);
	char err[256] = "";
	enum replay_stop stop = replay_run(t, "t", &side, f, echo, err,
					   sizeof(err));
	fclose(f);
	cr_assert_eq(stop, REPLAY_DONE, "%s", err);
	return c;
}

/* The kernel-faithful designs compared with themselves: every line
 * compared, none differs. */
static void expect_self_agreement(const struct trace *t)
{
	struct replay_side side = replay_user_side(NULL);
	struct replay_comparison cmp;
	replay_compare(t, "t", &side, &side, NULL, NULL, &cmp);
	cr_expect_eq(cmp.stop, REPLAY_DONE, "%s", cmp.why);
	cr_expect_eq(cmp.lines, t->n);
	cr_expect_eq(cmp.differences, 0);
}

/*
 * A million operations: each line must find its map line's attributes
 * without scanning back over the trace (which took over 500 s for validate
 * at this size, 370 s for replay --echo), while the replays themselves take
 * a few seconds.
 */
Test(replay, a_million_lines_echo_and_compare_in_linear_time, .timeout = 150)
{
	struct tracegen_opts o = {
		.attr = { .type = MAP_TYPE_HASH, .key_size = 4, .value_size = 8,
			  .max_entries = 64, .flags = MAP_F_ZERO_SEED },
		.seed = 5,
		.ops = 1000000,
	};
	char *text = tracegen_string(&o);
	cr_assert_not_null(text);
	struct trace t = parse_or_fail(text);
	free(text);

	struct count plain = replay_counted(&t, false);
	struct count echoed = replay_counted(&t, true);
	cr_expect_eq(echoed.newlines - plain.newlines, t.n,
		     "every trace line echoed once");

	expect_self_agreement(&t);
	trace_free(&t);
}

#define HEADROOM (192u << 20)   /* address space granted beyond the start */
#define DUMP_ENTRIES 4096u
#define DUMP_VALUE 64u
#define DUMPS 1500u             /* 1500 dumps of 4096 lines: 860 MB out */

/* Fill a map, then dump it DUMPS times: output far beyond HEADROOM. */
static struct trace dump_heavy_trace(void)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	fprintf(f, "map hash key_size=4 value_size=%u max_entries=%u "
		"flags=zero_seed\n", DUMP_VALUE, DUMP_ENTRIES);
	for (uint32_t k = 0; k < DUMP_ENTRIES; k++) {
		fprintf(f, "update %02x%02x%02x%02x ", k & 255, k >> 8 & 255,
			k >> 16 & 255, k >> 24);
		for (unsigned b = 0; b < DUMP_VALUE; b++)
			fprintf(f, "%02x", (k + b) & 255);
		putc('\n', f);
	}
	for (unsigned d = 0; d < DUMPS; d++)
		fputs("dump\n", f);
	fclose(f);
	struct trace t = parse_or_fail(text);
	free(text);
	return t;
}

/* What the trace above prints: "ok" for the map and each update, then
 * per dump "ok 4096" and 4096 lines "  <key> <value>". */
static size_t dump_heavy_output_bytes(void)
{
	size_t entry = 2 + 2 * 4 + 1 + 2 * DUMP_VALUE + 1;
	size_t dump = strlen("ok 4096\n") + DUMP_ENTRIES * entry;
	return 3 * (1 + DUMP_ENTRIES) + DUMPS * dump;
}

/* The control's stream: keeps everything, as a replay that held its
 * output in memory did, and fails its write when it cannot. */
struct held {
	char *text;
	size_t len;
};

static ssize_t hold_write(void *cookie, const char *buf, size_t size)
{
	struct held *h = cookie;
	char *grown = realloc(h->text, h->len + size);
	if (!grown)
		return -1;
	memcpy(grown + h->len, buf, size);
	h->text = grown;
	h->len += size;
	return (ssize_t)size;
}

/*
 * replay writes as it goes: under an address-space limit far below its
 * output, the whole output still comes out, byte for byte.  The control
 * shows the limit binds: the same replay into memory runs out.
 */
Test(replay, output_streams_under_an_address_space_limit, .timeout = 120)
{
	struct trace t = dump_heavy_trace();
	limit_address_space(HEADROOM);

	struct count c = replay_counted(&t, false);
	cr_expect_eq(c.bytes, dump_heavy_output_bytes());

	struct held h = { 0 };
	cookie_io_functions_t io = { .write = hold_write };
	FILE *mem = fopencookie(&h, "w", io);
	cr_assert_not_null(mem);
	struct replay_side side = replay_user_side(NULL);
	char err[256] = "";
	cr_expect_eq(replay_run(&t, "t", &side, mem, false, err, sizeof(err)),
		     REPLAY_FAILED, "the output fit in memory: no control");
	cr_expect(strstr(err, "writing the results failed") != NULL, "%s", err);
	fclose(mem);
	free(h.text);
	trace_free(&t);
}

/* validate compares line by line: two sides' worth of that output, under
 * the same limit. */
Test(replay, compare_streams_under_an_address_space_limit, .timeout = 120)
{
	struct trace t = dump_heavy_trace();
	limit_address_space(HEADROOM);

	expect_self_agreement(&t);
	trace_free(&t);
}

/* --- cpu lines on the designs without per-cpu behaviour --------------------- */

/* The echoed replay of o's trace, with each cpu line and its "ok" cut. */
static char *echoed_without_cpu_lines(const struct tracegen_opts *o)
{
	char *text = tracegen_string(o);
	cr_assert_not_null(text);
	char *out = replay_echo(text, true, REPLAY_DONE);
	free(text);
	unsigned cut = 0;
	for (char *at; (at = strstr(out, "# cpu ")); cut++) {
		char *end = strstr(at, "\nok\n");
		cr_assert_not_null(end, "a cpu line without its ok");
		memmove(at, end + 4, strlen(end + 4) + 1);
	}
	/* the trace moved: more than its first cpu line */
	cr_assert(o->n_cpus == 0 || cut > 1, "%u cpu lines", cut);
	return out;
}

/*
 * The hash and LPM trie faithful designs answer the same whichever cpu
 * each line runs on (the kernel's per-cpu free lists of a preallocated
 * hash decide which element holds a key, which no answer shows): a random
 * trace moving between two cpus gives the answers of the same operations
 * all on cpu 0.
 */
Test(replay, cpu_lines_leave_hash_and_lpm_answers_alone)
{
	if (map_cpu_allowed_count() < 2 || map_cpu_allowed_id(0) != 0)
		cr_skip_test("needs cpu 0 and another cpu");
	static const struct map_attr attrs[] = {
		{ .type = MAP_TYPE_HASH, .key_size = 4, .value_size = 8,
		  .max_entries = 16, .flags = MAP_F_ZERO_SEED },
		{ .type = MAP_TYPE_HASH, .key_size = 4, .value_size = 8,
		  .max_entries = 16,
		  .flags = MAP_F_ZERO_SEED | MAP_F_NO_PREALLOC },
		{ .type = MAP_TYPE_LPM_TRIE, .key_size = 8, .value_size = 8,
		  .max_entries = 16, .flags = MAP_F_NO_PREALLOC },
	};
	for (size_t a = 0; a < sizeof(attrs) / sizeof(*attrs); a++)
		for (uint64_t seed = 1; seed <= 10; seed++) {
			struct tracegen_opts o = { .attr = attrs[a], .seed = seed,
						   .ops = 400 };
			char *alone = echoed_without_cpu_lines(&o);
			o.n_cpus = 2;
			o.cpus[1] = (uint16_t)map_cpu_allowed_id(1);
			char *moved = echoed_without_cpu_lines(&o);
			cr_assert_str_eq(moved, alone, "%s seed %llu",
					 map_type_name(attrs[a].type),
					 (unsigned long long)seed);
			free(alone);
			free(moved);
		}
}

/* --- a side recorded elsewhere (a virtual machine's kernel) ---------------- */

/* t replayed on side into a recording (its text malloc'd). */
static struct replay_recorded record(const struct trace *t,
				     const struct replay_side *side)
{
	struct replay_recorded rec = { .label = "recorded" };
	char *text = NULL;
	FILE *f = open_memstream(&text, &rec.len);
	cr_assert_not_null(f);
	replay_record(t, "t", side, f, &rec.end);
	fclose(f);
	rec.text = text;
	return rec;
}

/* What the comparison of rec with the faithful designs says. */
struct seen {
	unsigned n;
	size_t line[4];
	char recorded[4][64];
};

static void note_difference(void *ctx, const struct trace *t, size_t i,
			    const struct replay_answer *a,
			    const struct replay_answer *b)
{
	(void)t, (void)b;
	struct seen *s = ctx;
	if (s->n == 4)
		return;
	s->line[s->n] = i;
	snprintf(s->recorded[s->n], sizeof(s->recorded[0]), "%.*s", (int)a->len,
		 a->text);
	s->n++;
}

static const char dump_between[] =
	"map lru_hash key_size=1 value_size=1 max_entries=4 flags=zero_seed\n"
	"update 01 11\nupdate 02 22\nplookup 01\ndump\nupdate 03 33\n"
	"next -\ndelete 02\ndump\nlookup 02\n";

/* A recording of the design itself agrees with it line by line: a dump's
 * "ok N" and its N records are one answer, and the lines after it line
 * up. */
Test(replay_recorded, a_recording_of_the_design_matches_it)
{
	struct trace t = parse_or_fail(dump_between);
	struct replay_side side = replay_user_side(NULL);
	struct replay_recorded rec = record(&t, &side);
	cr_assert_eq(rec.end.stop, REPLAY_DONE, "%s", rec.end.why);
	struct seen seen = { 0 };
	struct replay_comparison cmp;
	replay_compare_recorded(&t, "t", &rec, &side, note_difference, &seen,
				&cmp);
	cr_expect_eq(cmp.stop, REPLAY_DONE, "%s", cmp.why);
	cr_expect_eq(cmp.differences, 0);
	cr_expect_eq(cmp.lines, t.n);
	free((char *)rec.text);
	trace_free(&t);
}

/* One answer changed in the recording (the lookup after the second dump)
 * is one difference, at that line, with the recorded answer shown. */
Test(replay_recorded, a_changed_answer_is_a_difference_at_its_line)
{
	struct trace t = parse_or_fail(dump_between);
	struct replay_side side = replay_user_side(NULL);
	struct replay_recorded rec = record(&t, &side);
	char *text = (char *)rec.text;
	char *last = strstr(text, "err ENOENT\n");
	cr_assert_not_null(last, "%s", text);
	memcpy(last, "err EEXIST", 10);
	struct seen seen = { 0 };
	struct replay_comparison cmp;
	replay_compare_recorded(&t, "t", &rec, &side, note_difference, &seen,
				&cmp);
	cr_expect_eq(cmp.differences, 1);
	cr_assert_eq(seen.n, 1);
	cr_expect_eq(seen.line[0], t.n - 1);
	cr_expect_str_eq(seen.recorded[0], "err EEXIST\n");
	free(text);
	trace_free(&t);
}

/* A recording that ends early (a VM that stopped mid-way) fails the
 * comparison: it is not taken for agreement on the lines it lacks. */
Test(replay_recorded, a_recording_cut_short_fails)
{
	struct trace t = parse_or_fail(dump_between);
	struct replay_side side = replay_user_side(NULL);
	struct replay_recorded rec = record(&t, &side);
	rec.len -= strlen("err ENOENT\n") + 3; /* into the second dump */
	struct replay_comparison cmp;
	replay_compare_recorded(&t, "t", &rec, &side, NULL, NULL, &cmp);
	cr_expect_eq(cmp.stop, REPLAY_FAILED);
	cr_expect(strstr(cmp.why, "recording ends before its answer to trace "
			 "line 9") != NULL, "%s", cmp.why);
	cr_expect_eq(cmp.differences, 0);
	free((char *)rec.text);
	trace_free(&t);
}

/* A map line both sides refuse alike stops both at the next op: recorded
 * there with its errno, that is agreement, as in a live comparison. */
Test(replay_recorded, a_trace_error_recorded_alike_is_no_difference)
{
	struct trace t = parse_or_fail(
		"map hash key_size=1 value_size=1 max_entries=0\nupdate 01 01\n");
	struct replay_side side = replay_user_side(NULL);
	struct replay_recorded rec = record(&t, &side);
	char *recorded = (char *)rec.text;
	cr_assert_eq(rec.end.stop, REPLAY_TRACE_ERROR);
	cr_expect_eq(rec.end.line, 1);
	cr_expect_eq(rec.end.map_err, -EINVAL);
	struct replay_comparison cmp;
	replay_compare_recorded(&t, "t", &rec, &side, NULL, NULL, &cmp);
	cr_expect_eq(cmp.stop, REPLAY_TRACE_ERROR);
	cr_expect_eq(cmp.differences, 0);
	/* recorded with another errno: the sides disagree on the map line */
	cr_assert_str_eq(rec.text, "err EINVAL\n");
	char other[] = "err E2BIG\n";
	rec.text = other;
	rec.len = strlen(other);
	rec.end.map_err = -E2BIG;
	struct seen seen = { 0 };
	replay_compare_recorded(&t, "t", &rec, &side, note_difference, &seen,
				&cmp);
	cr_expect_eq(cmp.differences, 1);
	cr_expect_eq(seen.line[0], 0);
	rec.text = NULL;
	free(recorded);
	trace_free(&t);
}

/* The recording's cpus are another machine's: a trace parsed for 5 cpus
 * names cpu 4 (which this machine need not have), and the design runs it
 * on slot 4 with maps made for 5 cpus, so a per-CPU LRU's share is 10 / 5
 * = 2 entries there: the third insert shrinks the cpu's list (the
 * kernel's per-CPU pop frees what it can), where a map made for this
 * machine's cpus would keep all three keys. */
Test(replay_recorded, another_machines_cpus_are_slots_here)
{
	const char *text =
		"map lru_hash key_size=1 value_size=1 max_entries=10 "
		"flags=no_common_lru|zero_seed\ncpu 4\nupdate 01 01\n"
		"update 02 02\nupdate 03 03\ndump\n";
	struct trace t;
	char err[256];
	cr_assert_eq(trace_parse_string_for(text, "t", 5, &t, err, sizeof(err)),
		     0, "%s", err);
	struct replay_side side = replay_user_side(NULL);
	side.ncpus = 5;
	side.slots_only = true;
	struct replay_recorded rec = record(&t, &side);
	cr_assert_eq(rec.end.stop, REPLAY_DONE, "%s", rec.end.why);
	cr_expect_str_eq(rec.text, "ok\nok\nok\nok\nok\nok 1\n  03 03\n");
	struct replay_comparison cmp;
	replay_compare_recorded(&t, "t", &rec, &side, NULL, NULL, &cmp);
	cr_expect_eq(cmp.stop, REPLAY_DONE, "%s", cmp.why);
	cr_expect_eq(cmp.differences, 0);
	free((char *)rec.text);
	trace_free(&t);
	/* and trace_parse_for holds a cpu to the machine's count */
	cr_expect_eq(trace_parse_string_for("cpu 5\n", "t", 5, &t, err,
					    sizeof(err)), -1);
	cr_expect_str_eq(err, "t:1: cpu 5 is past the machine's 5 cpus (0 to 4)");
}

/* A recording printed back, with echo, is what the live replay printed:
 * each answer (a dump's records with it) under its trace line. */
Test(replay_recorded, a_recording_prints_as_the_replay_did)
{
	struct trace t = parse_or_fail(dump_between);
	struct replay_side side = replay_user_side(NULL);
	struct replay_recorded rec = record(&t, &side);
	char *printed = NULL, err[256];
	size_t len;
	FILE *f = open_memstream(&printed, &len);
	cr_assert_eq(replay_print_recorded(&t, &rec, f, true, err, sizeof(err)),
		     REPLAY_DONE, "%s", err);
	fclose(f);
	char *live = replay_echo(dump_between, true, REPLAY_DONE);
	cr_expect_str_eq(printed, live);
	free(live);
	free(printed);
	free((char *)rec.text);
	trace_free(&t);
}
