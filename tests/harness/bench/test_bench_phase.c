/* SPDX-License-Identifier: MIT */
/*
 * The kernel's LPM benchmark's whole-map phases (harness/bench/phase.h):
 *  - --lpm-op's names parse and print back, and nothing else parses;
 *  - the rounds' driver runs prepare then the timed part each round, and
 *    stops once the timed parts reach --duration (or their keys --ops),
 *    whatever the wall clock says; an engine's error ends the run with its
 *    reason; more than one thread is refused;
 *  - on a design (lpm_trie/linux, the dense keys of the kernel's
 *    benchmark): an insert pass puts exactly N keys into an empty map,
 *    every call succeeds and the map holds N after it; a delete pass
 *    leaves it empty; a free destroys one full map a round (and the one
 *    its memory was measured on), its parts non-negative and adding up to
 *    the whole.
 * A wrapper design counts each destroyed map's keys (get_next_key) before
 * it hands the map to lpm_trie/linux's destroy.  No timing is asserted.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "harness/bench/phase.h"
#include "maps/base/rcu.h"

#define N 1000

/* --- names --------------------------------------------------------------------- */

Test(bench_phase, lpm_op_names_round_trip)
{
	for (int op = BENCH_LPM_LOOKUP; op < BENCH_LPM_COUNT; op++) {
		enum bench_lpm_op back = BENCH_LPM_NONE;
		cr_expect_eq(bench_lpm_op_parse(bench_lpm_op_name(op), &back), 0);
		cr_expect_eq((int)back, op);
	}
	enum bench_lpm_op x = BENCH_LPM_LOOKUP;
	cr_expect_eq(bench_lpm_op_parse("bogus", &x), -1);
	cr_expect_eq(bench_lpm_op_parse("none", &x), -1);
	cr_expect_eq(bench_lpm_op_parse("", &x), -1);
	cr_expect_eq(x, BENCH_LPM_LOOKUP, "a refused name changed the op");
	cr_expect(!bench_lpm_op_is_phase(BENCH_LPM_LOOKUP));
	cr_expect(!bench_lpm_op_is_phase(BENCH_LPM_UPDATE));
	cr_expect(bench_lpm_op_is_phase(BENCH_LPM_FREE));
	cr_expect_eq(bench_lpm_op_counted_as(BENCH_LPM_DELETE), OP_DELETE);
	cr_expect_eq(bench_lpm_op_counted_as(BENCH_LPM_FREE), OP_COUNT);
}

/* --- the driver, on an engine that only counts --------------------------------------- */

struct fake {
	unsigned prepares, timed, fail_at; /* fail_at: the timed call that fails */
	bool prepared;                     /* prepare ran since the last timed */
};

static int fake_prepare(void *ctx, char *err, size_t errlen)
{
	struct fake *f = ctx;
	(void)err, (void)errlen;
	f->prepares++;
	f->prepared = true;
	return 0;
}

/* Claims 1 ms and 100 keys a round, at once: the driver must add up what
 * the engine says, not the wall clock. */
static int fake_timed(void *ctx, struct bench_phase_round *out, char *err,
		      size_t errlen)
{
	struct fake *f = ctx;
	cr_expect(f->prepared, "a timed part without a prepare before it");
	f->prepared = false;
	if (++f->timed == f->fail_at) {
		snprintf(err, errlen, "fake failure at %u", f->timed);
		return -EIO;
	}
	out->ns = 1000000;
	out->keys = 100;
	out->ok = 100;
	return 0;
}

static struct bench_config fake_config(double seconds, uint64_t ops)
{
	return (struct bench_config){ .lpm_op = BENCH_LPM_INSERT, .threads = 1,
				      .seconds = seconds, .ops = ops };
}

static int drive(struct fake *f, const struct bench_config *c,
		 struct bench_result *r, char *err, size_t errlen)
{
	struct bench_phase_engine e = { fake_prepare, fake_timed, NULL, f, false };
	return bench_phase_drive(c, &e, r, NULL, err, errlen);
}

Test(bench_phase, rounds_run_until_the_timed_parts_reach_the_duration)
{
	struct fake f = { 0 };
	struct bench_config c = fake_config(0.02, 0);
	struct bench_result r;
	char err[256];
	cr_assert_eq(drive(&f, &c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(f.timed, 20, "20 rounds of 1 ms make 0.02 s, not %u", f.timed);
	cr_expect_eq(f.prepares, f.timed);
	cr_expect_eq(r.ops, 2000);
	cr_expect_eq(r.ok[OP_INSERT], 2000);
	cr_expect_float_eq(r.seconds, 0.02, 1e-9);
	cr_expect_float_eq(r.ns_per_op, 1e4, 1e-6);
	cr_expect_eq(r.maps_freed, 0, "an insert frees no map");
}

Test(bench_phase, rounds_run_until_their_keys_reach_ops)
{
	struct fake f = { 0 };
	struct bench_config c = fake_config(0, 250);
	struct bench_result r;
	char err[256];
	cr_assert_eq(drive(&f, &c, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(f.timed, 3, "250 keys take 3 rounds of 100, not %u", f.timed);
	cr_expect_eq(r.ops, 300);
}

Test(bench_phase, an_engines_error_ends_the_run_with_its_reason)
{
	struct fake f = { .fail_at = 2 };
	struct bench_config c = fake_config(0, 1000);
	struct bench_result r;
	char err[256] = "";
	cr_expect_eq(drive(&f, &c, &r, err, sizeof(err)), -EIO);
	cr_expect_str_eq(err, "fake failure at 2");
	cr_expect_eq(f.timed, 2, "rounds went on after the failure");
}

Test(bench_phase, more_than_one_thread_is_refused)
{
	struct fake f = { 0 };
	struct bench_config c = fake_config(0, 100);
	struct bench_result r;
	char err[256] = "";
	c.threads = 2;
	cr_expect_eq(drive(&f, &c, &r, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "one thread"), "%s", err);
	cr_expect_eq(f.prepares, 0, "a refused run ran");
	c.threads = 1;
	c.lpm_op = BENCH_LPM_LOOKUP; /* a mix, not a phase */
	cr_expect_eq(drive(&f, &c, &r, err, sizeof(err)), -EINVAL);
}

/* --- a design: lpm_trie/linux, its destroy watched -------------------------------- */

static const struct map_ops *real;
static struct map_ops watched;
static unsigned destroys;
static uint64_t last_keys, fewest_keys;

/* Its keys, counted by a walk in a read section (the caller is an
 * RCU-registered thread: the phase's worker, or the run's main thread). */
static uint64_t count_keys(struct map *m)
{
	uint8_t key[8], next[8];
	uint64_t n = 0;
	map_rcu_read_lock();
	for (const void *k = NULL; map_get_next_key(m, k, next) == 0; k = key) {
		memcpy(key, next, sizeof(key));
		n++;
	}
	map_rcu_read_unlock();
	return n;
}

static void watched_destroy(struct map *m)
{
	last_keys = count_keys(m);
	if (last_keys < fewest_keys)
		fewest_keys = last_keys;
	destroys++;
	real->destroy(m);
}

static struct bench_config dense(enum bench_lpm_op op, uint64_t ops)
{
	real = map_find("lpm_trie/linux");
	cr_assert_not_null(real);
	watched = *real;
	watched.destroy = watched_destroy;
	destroys = 0;
	last_keys = 0;
	fewest_keys = UINT64_MAX;
	struct bench_config c = {
		.design = &watched, .lpm_op = op, .threads = 1, .ops = ops,
		.w = { .key_size = 8, .value_size = 8, .entries = N,
		       .prefill_pct = op == BENCH_LPM_INSERT ? 0 : 100,
		       .dist = DIST_UNIFORM, .seed = 1,
		       .prefixes = PREFIXES_DENSE },
		.map_flags = MAP_F_NO_PREALLOC,
	};
	if (op != BENCH_LPM_FREE)
		c.w.mix[bench_lpm_op_counted_as(op)] = 100;
	return c;
}

static struct bench_result run(const struct bench_config *c)
{
	struct bench_result r;
	char err[256];
	cr_assert_eq(bench_run(c, &r, err, sizeof(err)), 0, "%s", err);
	return r;
}

Test(bench_phase, an_insert_pass_puts_every_key_into_an_empty_map, .timeout = 60)
{
	struct bench_config c = dense(BENCH_LPM_INSERT, 3 * N);
	struct bench_result r = run(&c);
	cr_expect_eq(r.ops % N, 0, "%lu keys: not whole passes of %d", r.ops, N);
	cr_expect_geq(r.ops, 3 * N);
	cr_expect_eq(r.ok[OP_INSERT], r.ops, "%lu of %lu inserts went in",
		     r.ok[OP_INSERT], r.ops);
	cr_expect_eq(r.fail[OP_INSERT], 0);
	cr_expect_eq(r.prefilled, 0);
	cr_expect_gt(r.ns_per_op, 0);
	cr_expect_eq(last_keys, N, "the map held %lu keys after the last pass",
		     last_keys);
	cr_expect_eq(r.maps_freed, 0);
}

Test(bench_phase, a_delete_pass_empties_a_full_map, .timeout = 60)
{
	struct bench_config c = dense(BENCH_LPM_DELETE, 2 * N);
	struct bench_result r = run(&c);
	cr_expect_eq(r.ops % N, 0);
	cr_expect_geq(r.ops, 2 * N);
	cr_expect_eq(r.ok[OP_DELETE], r.ops, "%lu of %lu deletes found their key",
		     r.ok[OP_DELETE], r.ops);
	cr_expect_eq(r.fail[OP_DELETE], 0);
	cr_expect_eq(last_keys, 0, "the map held %lu keys after the last pass",
		     last_keys);
	cr_expect_eq(r.prefilled, N);
}

Test(bench_phase, a_free_destroys_a_full_map_each_round, .timeout = 60)
{
	struct bench_config c = dense(BENCH_LPM_FREE, 3 * N);
	struct bench_result r = run(&c);
	cr_expect_geq(r.maps_freed, 3);
	cr_expect_eq(r.ops, r.maps_freed * N, "a free counts the map's N prefixes");
	/* each round's map, and the one its memory was measured on */
	cr_expect_eq(destroys, r.maps_freed + 1, "%u destroys for %lu maps freed",
		     destroys, r.maps_freed);
	cr_expect_eq(fewest_keys, N, "a destroyed map held %lu keys, not %d",
		     fewest_keys, N);
	cr_expect_gt(r.free_ns, 0);
	cr_expect(r.free_rcu_ns >= 0 && r.free_walk_ns >= 0, "rcu %.0f walk %.0f",
		  r.free_rcu_ns, r.free_walk_ns);
	cr_expect_float_eq(r.free_rcu_ns + r.free_walk_ns, r.free_ns,
			   1e-6 * r.free_ns + 1e-3, "the parts %.0f + %.0f are not "
			   "the whole %.0f", r.free_rcu_ns, r.free_walk_ns, r.free_ns);
	cr_expect_float_eq(r.ns_per_op * N, r.free_ns, 1e-6 * r.free_ns + 1e-3);
	cr_expect(r.memory.from != BENCH_MEMORY_NONE || isnan(r.memory.bytes));
	cr_expect_null(r.free_timer, "a design's own clock timed it");
}
