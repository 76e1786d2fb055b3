/* SPDX-License-Identifier: MIT */
/*
 * phase.c: whole-map phases (phase.h): the rounds' driver, shared with the
 * kernel's side, and the design's engine.
 *
 * What it measures, and why so: the kernel's LPM benchmark prices an
 * insert into an EMPTY trie, a delete from a FULL one and the free of a
 * whole trie, which a stream replayed in a loop cannot (its map would
 * fill up, or run empty, within one pass).  So each round brings the map
 * to the state the op needs, untimed, then times one pass over the N
 * prefixes (or one free) alone, on one worker as bench's worker 0: pinned,
 * cpu slot 0, RCU-registered, its map calls in RCU read sections of
 * BENCH_BATCH keys.  The figure is the timed parts' sum over their keys.
 */
#include "harness/bench/phase.h"
#include "harness/bench/memstat.h"
#include "harness/common/clock.h"
#include "harness/common/team.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lpm_op_names[BENCH_LPM_COUNT] = {
	[BENCH_LPM_NONE] = "none", [BENCH_LPM_LOOKUP] = "lookup",
	[BENCH_LPM_UPDATE] = "update", [BENCH_LPM_INSERT] = "insert",
	[BENCH_LPM_DELETE] = "delete", [BENCH_LPM_FREE] = "free",
};

const char *bench_lpm_op_name(enum bench_lpm_op op)
{
	return op < BENCH_LPM_COUNT ? lpm_op_names[op] : "?";
}

int bench_lpm_op_parse(const char *name, enum bench_lpm_op *op)
{
	for (int i = BENCH_LPM_LOOKUP; i < BENCH_LPM_COUNT; i++)
		if (strcmp(name, lpm_op_names[i]) == 0) {
			*op = (enum bench_lpm_op)i;
			return 0;
		}
	return -1;
}

enum bench_op bench_lpm_op_counted_as(enum bench_lpm_op op)
{
	switch (op) {
	case BENCH_LPM_LOOKUP: return OP_LOOKUP;
	case BENCH_LPM_UPDATE: return OP_UPDATE;
	case BENCH_LPM_INSERT: return OP_INSERT;
	case BENCH_LPM_DELETE: return OP_DELETE;
	default: return OP_COUNT;
	}
}

/* --- the rounds ------------------------------------------------------------------ */

enum { STEP_PREPARE, STEP_TIMED };

/* Rounds may take their wall time up to this many times --duration (the
 * refills, the team's steps) before the run ends short of it: a tiny map's
 * passes would otherwise need millions of rounds. */
#define PHASE_WALL_FACTOR 5
/* Progress at most this often. */
#define PHASE_PROGRESS_NS 100000000ull

/* What the worker reports of its last step: written by the worker, read by
 * the main thread after team_run_phase returns (the team's gate orders
 * them). */
struct drive {
	const struct bench_phase_engine *e;
	int err;
	char why[256];
	struct bench_phase_round round;
};

static void drive_step(void *ctx, unsigned worker, unsigned phase,
		       const atomic_bool *stop)
{
	struct drive *d = ctx;
	(void)worker, (void)stop;
	if (d->err)
		return;
	if (phase == STEP_PREPARE) {
		d->err = d->e->prepare(d->e->ctx, d->why, sizeof(d->why));
		return;
	}
	d->round = (struct bench_phase_round){ .rcu_ns = NAN, .walk_ns = NAN };
	d->err = d->e->timed(d->e->ctx, &d->round, d->why, sizeof(d->why));
}

/* after - before, member by member (bench.c's work_since). */
static void add_work(struct map_work *sum, const struct map_work *before,
		     const struct map_work *after)
{
	sum->evictions += after->evictions - before->evictions;
	sum->refills += after->refills - before->refills;
	sum->nodes_scanned += after->nodes_scanned - before->nodes_scanned;
	sum->locks += after->locks - before->locks;
	sum->steals += after->steals - before->steals;
	sum->allocations += after->allocations - before->allocations;
	sum->lock_ns += after->lock_ns - before->lock_ns;
}

/* The timed rounds' sums. */
struct totals {
	uint64_t rounds, ns, keys, ok, fail;
	double program_ns, baseline_ns;
	double rcu_ns, walk_ns; /* NaN once a round did not tell them apart */
	bool has_work;
	struct map_work work;
};

/* One round: prepare, then (timed) the timed part, the observer told around
 * it and the map's work read around it.  0, or the engine's -errno. */
static int one_round(const struct bench_config *c, struct team *team,
		     struct drive *d, struct totals *t, bool timed)
{
	struct map_work before = { 0 }, after = { 0 };
	team_run_phase(team, STEP_PREPARE, 0);
	if (d->err)
		return d->err;
	bool work = timed && d->e->work && d->e->work(d->e->ctx, &before);
	if (timed)
		bench_observe_timed(c->observer, team, true);
	team_run_phase(team, STEP_TIMED, 0);
	if (timed)
		bench_observe_timed(c->observer, team, false);
	if (d->err || !timed)
		return d->err;
	if (work && d->e->work(d->e->ctx, &after)) {
		add_work(&t->work, &before, &after);
		t->has_work = true;
	}
	const struct bench_phase_round *r = &d->round;
	t->rounds++;
	t->ns += r->ns;
	t->keys += r->keys;
	t->ok += r->ok;
	t->fail += r->fail;
	t->program_ns += r->program_ns;
	t->baseline_ns += r->baseline_ns;
	t->rcu_ns += r->rcu_ns;   /* NaN stays NaN */
	t->walk_ns += r->walk_ns;
	return 0;
}

/* Whether the timed rounds have done what c asks (or run out of wall
 * time: PHASE_WALL_FACTOR). */
static bool enough(const struct bench_config *c, const struct totals *t,
		   uint64_t wall_ns)
{
	if (!t->rounds)
		return false;
	if (c->seconds <= 0)
		return t->keys >= c->ops;
	return (double)t->ns >= c->seconds * 1e9 ||
	       (double)wall_ns >= PHASE_WALL_FACTOR * c->seconds * 1e9;
}

static double fraction(const struct bench_config *c, const struct totals *t)
{
	double f = c->seconds > 0 ? (double)t->ns / (c->seconds * 1e9)
				  : (double)t->keys / (double)c->ops;
	return f < 1 ? f : 1;
}

/* The totals as a result (bench.h's fields; phase.h says which). */
static void finish(const struct bench_config *c, const struct totals *t,
		   uint64_t t_first, uint64_t t_last, struct bench_result *r)
{
	enum bench_op op = bench_lpm_op_counted_as(c->lpm_op);
	r->ops = t->keys;
	if (op < OP_COUNT) {
		r->ok[op] = t->ok;
		r->fail[op] = t->fail;
	}
	r->seconds = (double)t->ns / 1e9;
	r->mops = t->ns ? (double)t->keys / ((double)t->ns / 1e3) : 0;
	r->ns_per_op = t->keys ? (double)t->ns / (double)t->keys : 0;
	r->t_first = t_first;
	r->t_last = t_last;
	r->has_work = r->has_evictions = t->has_work;
	r->work = t->work;
	if (c->lpm_op == BENCH_LPM_FREE && t->rounds) {
		r->maps_freed = t->rounds;
		r->free_ns = (double)t->ns / (double)t->rounds;
		r->free_rcu_ns = t->rcu_ns / (double)t->rounds;
		r->free_walk_ns = t->walk_ns / (double)t->rounds;
	}
}

int bench_phase_drive(const struct bench_config *c,
		      const struct bench_phase_engine *e,
		      struct bench_result *r, struct bench_phase_sums *sums,
		      char *err, size_t errlen)
{
	struct drive d = { .e = e };
	struct totals t = { 0 };
	struct team team;
	struct team_config tc = { .threads = 1, .rcu = e->rcu,
				  .cpu_slots = e->rcu, .body = drive_step,
				  .ctx = &d };

	memset(r, 0, sizeof(*r));
	r->free_ns = r->free_rcu_ns = r->free_walk_ns = NAN;
	if (!bench_lpm_op_is_phase(c->lpm_op) || c->threads != 1) {
		snprintf(err, errlen, "the LPM benchmark's %s runs on one "
			 "thread, as a whole-map phase (not %u threads)",
			 bench_lpm_op_name(c->lpm_op), c->threads);
		return -EINVAL;
	}
	int rc = team_start(&team, &tc, err, errlen);
	if (rc)
		return rc;
	uint64_t start = clock_now_ns();
	while (!rc && c->warmup > 0 &&
	       (double)(clock_now_ns() - start) < c->warmup * 1e9)
		rc = one_round(c, &team, &d, &t, false);
	uint64_t t_first = clock_now_ns(), shown = t_first;
	while (!rc && !enough(c, &t, clock_now_ns() - t_first)) {
		rc = one_round(c, &team, &d, &t, true);
		if (c->progress && clock_now_ns() - shown >= PHASE_PROGRESS_NS) {
			c->progress(fraction(c, &t), c->progress_arg);
			shown = clock_now_ns();
		}
	}
	uint64_t t_last = clock_now_ns();
	team_join(&team);
	if (rc) {
		snprintf(err, errlen, "%s", d.why);
		return rc;
	}
	finish(c, &t, t_first, t_last, r);
	if (sums)
		*sums = (struct bench_phase_sums){ t.rounds, t.program_ns,
						   t.baseline_ns };
	return 0;
}

/* --- the design's engine ------------------------------------------------------------ */

struct design_phase {
	const struct bench_config *c; /* typed (bench_config_typed) */
	const uint8_t *keys;          /* entries 0..N-1 first */
	uint8_t *value;               /* every pass's value */
	uint8_t *fill_value;          /* the fills' (workload_fill_value) */
	struct map *map;              /* NULL between a free and the next
					 prepare */
	bool measured;
	struct bench_memory memory;
};

static const uint8_t *key_of(const struct design_phase *p, uint64_t k)
{
	return p->keys + k * p->c->w.key_size;
}

static int create(struct design_phase *p, char *err, size_t errlen)
{
	struct map_attr attr = bench_map_attr(p->c);
	int rc = map_create(p->c->design, &attr, &p->map);
	if (rc)
		snprintf(err, errlen, "%s refuses key_size=%u value_size=%u "
			 "max_entries=%u: %s", p->c->design->name,
			 attr.key_size, attr.value_size, attr.max_entries,
			 map_errno_text(-rc));
	return rc;
}

/* Key k of the map's pass, in (BPF_NOEXIST, as bench's prefill) or out. */
static int insert_key(struct design_phase *p, uint64_t k)
{
	workload_fill_value(p->fill_value, p->c->w.value_size, k);
	return map_update(p->map, key_of(p, k), p->fill_value, MAP_NOEXIST);
}

static int delete_key(struct design_phase *p, uint64_t k)
{
	return map_delete(p->map, key_of(p, k));
}

/* call on keys 0..N-1, a quiescent state every BENCH_BATCH keys (QSBR).
 * 0, or the first refusal, in err after `doing`. */
static int every_key(struct design_phase *p,
		     int (*call)(struct design_phase *p, uint64_t k),
		     const char *doing, char *err, size_t errlen)
{
	const struct workload *w = &p->c->w;
	for (uint64_t k = 0; k < w->entries; k++) {
		int rc = call(p, k);
		if (rc) {
			snprintf(err, errlen, "%s: %s refused key %llu of %u: %s",
				 doing, p->c->design->name,
				 (unsigned long long)k + 1, w->entries,
				 map_errno_text(-rc));
			return rc;
		}
		if (k % BENCH_BATCH == BENCH_BATCH - 1)
			map_rcu_quiescent();
	}
	return 0;
}

/* Put keys 0..N-1 in.  0, or the first refusal. */
static int fill(struct design_phase *p, char *err, size_t errlen)
{
	return every_key(p, insert_key, "filling the map", err, errlen);
}

/* Delete keys 0..N-1, every one of which is in.  0, or the first refusal. */
static int empty(struct design_phase *p, char *err, size_t errlen)
{
	return every_key(p, delete_key, "emptying the map", err, errlen);
}

/* The full map's memory, once, on a map of its own (created, filled,
 * measured as bench measures a prefilled map, destroyed): a reading on the
 * timed map would drain its RCU callbacks, which a free must wait for. */
static int measure_memory(struct design_phase *p, char *err, size_t errlen)
{
	size_t before;
	bool counted = memstat_allocated(&before);
	int rc = create(p, err, errlen);
	if (!rc && !(rc = fill(p, err, errlen)))
		p->memory = bench_memory_of(p->map, counted ? &before : NULL);
	if (p->map)
		map_destroy(p->map);
	p->map = NULL;
	p->measured = true;
	return rc;
}

static int design_prepare(void *ctx, char *err, size_t errlen)
{
	struct design_phase *p = ctx;
	int rc = p->measured ? 0 : measure_memory(p, err, errlen);
	if (rc)
		return rc;
	switch (p->c->lpm_op) {
	case BENCH_LPM_INSERT: /* an empty map */
		rc = p->map ? empty(p, err, errlen) : create(p, err, errlen);
		break;
	case BENCH_LPM_DELETE: /* a full map */
		rc = p->map ? 0 : create(p, err, errlen);
		if (!rc)
			rc = fill(p, err, errlen);
		break;
	default: /* free: a new full map; its callbacks left pending */
		if (!(rc = create(p, err, errlen)))
			rc = fill(p, err, errlen);
		return rc;
	}
	/* What the refill or the emptying retired is freed before the clock
	 * starts, not during the pass. */
	if (!rc)
		map_rcu_barrier();
	return rc;
}

/* One pass over keys 0..N-1: insert (BPF_NOEXIST, one value) or delete,
 * BENCH_BATCH keys to a read section. */
static void pass(struct design_phase *p, struct bench_phase_round *out)
{
	const uint32_t n = p->c->w.entries;
	const bool insert = p->c->lpm_op == BENCH_LPM_INSERT;
	struct map *m = p->map;
	uint64_t ok = 0;
	uint64_t t0 = clock_now_ns();
	for (uint32_t k = 0; k < n;) {
		uint32_t end = n - k > BENCH_BATCH ? k + BENCH_BATCH : n;
		map_rcu_read_lock();
		for (; k < end; k++)
			ok += (insert ? map_update(m, key_of(p, k), p->value,
						   MAP_NOEXIST)
				      : map_delete(m, key_of(p, k))) == 0;
		map_rcu_read_unlock();
		map_rcu_quiescent();
	}
	out->ns = clock_now_ns() - t0;
	out->keys = n;
	out->ok = ok;
	out->fail = n - ok;
}

/* The free, its RCU wait and its walk timed apart (phase.h). */
static void free_map(struct design_phase *p, struct bench_phase_round *out)
{
	uint64_t t0 = clock_now_ns();
	map_rcu_barrier();
	uint64_t t1 = clock_now_ns();
	map_destroy(p->map);
	uint64_t t2 = clock_now_ns();
	map_rcu_barrier();
	uint64_t t3 = clock_now_ns();
	p->map = NULL;
	uint64_t wait = t1 - t0, destroy = t2 - t1, idle = t3 - t2;
	if (idle > destroy)
		idle = destroy;
	out->ns = wait + destroy;
	out->keys = p->c->w.entries;
	out->rcu_ns = (double)(wait + idle);
	out->walk_ns = (double)(destroy - idle);
}

static int design_timed(void *ctx, struct bench_phase_round *out, char *err,
			size_t errlen)
{
	struct design_phase *p = ctx;
	(void)err, (void)errlen;
	if (p->c->lpm_op == BENCH_LPM_FREE)
		free_map(p, out);
	else
		pass(p, out);
	return 0;
}

static bool design_work(void *ctx, struct map_work *out)
{
	struct design_phase *p = ctx;
	if (!p->map || !p->map->ops->work)
		return false;
	*out = map_work_of(p->map, -1);
	return true;
}

int bench_phase_run(const struct bench_config *config, struct bench_result *r,
		    char *err, size_t errlen)
{
	struct bench_config own = bench_config_typed(config);
	struct design_phase p = { .c = &own };
	struct bench_phase_engine e = { design_prepare, design_timed,
					design_work, &p, true };
	int rc;

	memset(r, 0, sizeof(*r));
	if (!bench_lpm_op_is_phase(own.lpm_op) || own.threads != 1) {
		snprintf(err, errlen, "the LPM benchmark's %s runs on one "
			 "thread, as a whole-map phase (not %u threads)",
			 bench_lpm_op_name(own.lpm_op), own.threads);
		return -EINVAL;
	}
	/* the free's walk is timed alone (design_work reads no freed map) */
	if (own.lpm_op == BENCH_LPM_FREE)
		e.work = NULL;
	map_thread_online();
	p.keys = workload_make_keys(&own.w, 1, err, errlen);
	p.value = calloc(1, own.w.value_size);
	p.fill_value = calloc(1, own.w.value_size);
	rc = p.keys ? 0 : -ENOMEM; /* err says why */
	if (!rc && (!p.value || !p.fill_value)) {
		snprintf(err, errlen, "out of memory for the values");
		rc = -ENOMEM;
	}
	if (!rc) {
		workload_fill_value(p.value, own.w.value_size, 1);
		rc = bench_phase_drive(&own, &e, r, NULL, err, errlen);
	}
	if (!rc) {
		r->memory = p.memory;
		r->prefilled = own.lpm_op == BENCH_LPM_INSERT ? 0 : own.w.entries;
	}
	if (p.map)
		map_destroy(p.map);
	free(p.value);
	free(p.fill_value);
	free((void *)p.keys);
	map_thread_offline();
	return rc;
}
