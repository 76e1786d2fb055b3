/* SPDX-License-Identifier: MIT */
#include "harness/stress/stress.h"
#include "harness/common/clock.h"
#include "harness/workload/keys.h"
#include "harness/common/rng.h"
#include "harness/common/team.h"
#include "maps/base/area.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 255 /* a value's thread field is 8 bits; 255 = prefill */
#define PREFILL_TID MAX_THREADS
#define SEQ_LIMIT (1ULL << 40) /* a value's write-number field */
/* Ops between QSBR quiescent states: a QSBR reader that never announces
 * one holds up every grace period, and call_rcu would never free. */
#define QUIESCE_EVERY 64

/* A thread's last successful write to one key; seq 0: none. */
struct last_write {
	uint64_t seq;        /* write number + 1 */
	uint64_t start, end; /* run->clock just before the call, just after */
};

struct worker {
	struct stress_run *run;
	unsigned tid;
	int32_t *net;             /* per key: successful inserts - deletes */
	struct last_write *last;  /* per key */
	uint64_t seq;             /* write numbers used */
	uint64_t quota;           /* ops; 0: until stopped */
	struct stress_report counts;
	char unexpected[200];     /* the first answer a correct map never gives */
	bool out_of_memory;       /* the worker could not start (not the map) */
};

struct stress_run {
	const struct stress_opts *o;
	struct map *map;
	uint32_t type, key_range;
	enum stress_rules rules;
	atomic_uint_fast64_t clock; /* orders writes in real time */
	struct worker *workers;     /* threads + 1: the last is the prefill */
};

enum stress_rules stress_rules_for(uint32_t type)
{
	return type == MAP_TYPE_LRU_HASH ? STRESS_MAY_EVICT : STRESS_EXACT;
}

/* --- values ----------------------------------------------------------------- */

static uint16_t key_tag(uint32_t k)
{
	return (uint16_t)rng_mix64(k + 0x51ed27u);
}

static void make_value(uint32_t k, unsigned tid, uint64_t seq, uint8_t *v,
		       uint32_t value_size)
{
	uint64_t word = key_tag(k) | (uint64_t)tid << 16 | seq << 24;
	memcpy(v, &word, 8);
	for (uint32_t i = 8; i < value_size; i++)
		v[i] = (uint8_t)rng_mix64(word + i);
}

/* --- the workers ------------------------------------------------------------ */

static void note_unexpected(struct worker *w, const char *op, uint32_t k,
			    int err)
{
	if (!w->unexpected[0])
		snprintf(w->unexpected, sizeof(w->unexpected), "%s of key %u "
			 "answered %s (%d), which a correct map never does here",
			 op, k, map_errno_text(-err), err);
}

static int do_update(struct worker *w, uint32_t k, uint8_t *key, uint8_t *val,
		     uint64_t flags)
{
	struct stress_run *run = w->run;
	uint64_t seq = w->seq++;
	make_value(k, w->tid, seq, val, run->map->attr.value_size);
	uint64_t start = atomic_fetch_add(&run->clock, 1);
	int err = map_update(run->map, key, val, flags);
	uint64_t end = atomic_fetch_add(&run->clock, 1);
	if (!err)
		w->last[k] = (struct last_write){ seq + 1, start, end };
	return err;
}

/*
 * A map that evicts answers -ENOMEM when every element is mid-update on
 * some thread (the kernel's LRU does: fewer elements than threads), so
 * there it is "full"; elsewhere ENOMEM is a defect.
 */
static bool is_full_answer(const struct worker *w, int err)
{
	return err == -E2BIG || err == -ENOSPC ||
	       (err == -ENOMEM && w->run->rules == STRESS_MAY_EVICT);
}

static void do_insert(struct worker *w, uint32_t k, uint8_t *key, uint8_t *val)
{
	struct stress_report *c = &w->counts;
	int err = do_update(w, k, key, val, MAP_NOEXIST);
	if (!err) {
		c->inserts++;
		w->net[k]++;
	} else if (err == -EEXIST) {
		c->failed_inserts++;
	} else if (is_full_answer(w, err)) {
		c->full_errors++;
	} else {
		note_unexpected(w, "an insert", k, err);
	}
}

static void one_op(struct worker *w, struct rng *r, uint8_t *key, uint8_t *val)
{
	struct stress_run *run = w->run;
	struct stress_report *c = &w->counts;
	uint32_t k = (uint32_t)rng_below(r, run->key_range);
	unsigned dice = (unsigned)rng_below(r, 100);
	int err;

	key_encode(run->type, k, key, run->map->attr.key_size);
	if (dice < 30) {
		do_insert(w, k, key, val);
	} else if (dice < 45) {
		err = do_update(w, k, key, val, MAP_EXIST);
		if (!err)
			c->replaces++;
		else if (is_full_answer(w, err))
			c->full_errors++;
		else if (err != -ENOENT)
			note_unexpected(w, "a replace", k, err);
	} else if (dice < 75) {
		err = map_delete(run->map, key);
		if (!err) {
			c->deletes++;
			w->net[k]--;
		} else if (err != -ENOENT) {
			note_unexpected(w, "a delete", k, err);
		}
	} else {
		map_rcu_read_lock();
		if (map_lookup(run->map, key))
			c->lookup_hits++;
		map_rcu_read_unlock();
		c->lookups++;
	}
	c->ops++;
}

static void worker_body(void *ctx, unsigned tid, unsigned phase,
			const atomic_bool *stop)
{
	struct stress_run *run = ctx;
	struct worker *w = &run->workers[tid];
	const struct map_attr *a = &run->map->attr;
	uint8_t *key = malloc(a->key_size), *val = malloc(a->value_size);
	struct rng r;

	(void)phase;
	rng_seed(&r, run->o->seed * 1000003u + tid);
	w->out_of_memory = !key || !val;
	while (!w->out_of_memory && !w->unexpected[0] && w->seq < SEQ_LIMIT &&
	       !atomic_load_explicit(stop, memory_order_relaxed) &&
	       (!w->quota || w->counts.ops < w->quota)) {
		one_op(w, &r, key, val);
		if (w->counts.ops % QUIESCE_EVERY == 0)
			map_rcu_quiescent();
	}
	free(key);
	free(val);
}

/* --- the checks ------------------------------------------------------------- */

static int failf(struct stress_report *rep, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep->failure, sizeof(rep->failure), fmt, ap);
	va_end(ap);
	return 1;
}

static const struct worker *writer_of(const struct stress_run *run,
				      unsigned tid)
{
	if (tid == PREFILL_TID)
		return &run->workers[run->o->threads];
	return tid < run->o->threads ? &run->workers[tid] : NULL;
}

/* The value is the latest successful write the history allows. */
static int check_latest(const struct stress_run *run, uint32_t k,
			unsigned tid, uint64_t seq, struct stress_report *rep)
{
	const struct worker *w = writer_of(run, tid);
	const struct last_write *mine = w ? &w->last[k] : NULL;

	if (!mine || mine->seq == 0)
		return failf(rep, "key %u holds a value no successful update "
			     "wrote (thread %u, write %llu)", k, tid,
			     (unsigned long long)seq);
	if (mine->seq != seq + 1)
		return failf(rep, "key %u holds thread %u's write %llu, but that "
			     "thread's later write %llu to it succeeded: an update "
			     "was lost", k, tid, (unsigned long long)seq,
			     (unsigned long long)(mine->seq - 1));
	for (unsigned u = 0; u <= run->o->threads; u++) {
		const struct last_write *other = &run->workers[u].last[k];
		if (&run->workers[u] != w && other->seq && other->start > mine->end)
			return failf(rep, "key %u holds thread %u's write %llu, but "
				     "a write to it that began after that one had "
				     "returned also succeeded (thread %u, write "
				     "%llu): an update was lost", k, tid,
				     (unsigned long long)seq,
				     u == run->o->threads ? PREFILL_TID : u,
				     (unsigned long long)(other->seq - 1));
	}
	return 0;
}

static int check_value(const struct stress_run *run, uint32_t k,
		       const uint8_t *v, struct stress_report *rep)
{
	uint32_t value_size = run->map->attr.value_size;
	uint64_t word;
	memcpy(&word, v, 8);

	if ((uint16_t)word != key_tag(k))
		return failf(rep, "key %u holds a value written for another key "
			     "(tag %04x, want %04x)", k, (unsigned)(uint16_t)word,
			     key_tag(k));
	for (uint32_t i = 8; i < value_size; i++)
		if (v[i] != (uint8_t)rng_mix64(word + i))
			return failf(rep, "key %u: value byte %u is torn", k, i);
	return check_latest(run, k, (word >> 16) & 0xff, word >> 24, rep);
}

/* Presence against the counts, under the map type's rules. */
static int check_presence(const struct stress_run *run, uint32_t k, long net,
			  bool present, struct stress_report *rep)
{
	if (run->rules == STRESS_EXACT) {
		if (net != 0 && net != 1)
			return failf(rep, "key %u: %ld more successful inserts "
				     "than deletes (two threads inserted the same "
				     "key?)", k, net);
		if (present != (net == 1))
			return failf(rep, "key %u is %s but the successful "
				     "operations say it should %s", k,
				     present ? "present" : "missing",
				     net ? "be there" : "be gone");
		return 0;
	}
	/* May evict: an evicted key can be inserted again (net > 1), and a
	 * delete of an evicted key fails, but a key is never deleted twice. */
	if (net < 0)
		return failf(rep, "key %u: more successful deletes than inserts",
			     k);
	if (present && net == 0)
		return failf(rep, "key %u is present but the successful "
			     "operations say it should be gone", k);
	rep->evicted += !present && net > 0;
	return 0;
}

static int check_keys(struct stress_run *run, struct stress_report *rep,
		      uint64_t *present_keys)
{
	const struct map_attr *a = &run->map->attr;
	uint8_t *key = malloc(a->key_size), *val = malloc(a->value_size);
	int rc = key && val ? 0 : failf(rep, "out of memory while checking");

	for (uint32_t k = 0; k < run->key_range && !rc; k++) {
		long net = 0;
		for (unsigned t = 0; t <= run->o->threads; t++)
			net += run->workers[t].net[k];
		key_encode(run->type, k, key, a->key_size);
		bool present = map_lookup_copy(run->map, key, val) == 0;
		rc = check_presence(run, k, net, present, rep);
		if (!rc && present)
			rc = check_value(run, k, val, rep);
		rep->expected += net > 0 ? 1 : 0;
		*present_keys += present;
	}
	free(key);
	free(val);
	return rc;
}

/* A get_next_key walk meets each present key once, and nothing else. */
static int check_walk(struct stress_run *run, uint64_t present,
		      struct stress_report *rep)
{
	const struct map_attr *a = &run->map->attr;
	uint8_t *seen = calloc(run->key_range, 1);
	uint8_t *cur = malloc(a->key_size), *next = malloc(a->key_size);
	bool first = true;
	int rc = seen && cur && next ? 0 : failf(rep, "out of memory");

	while (!rc && map_get_next_key(run->map, first ? NULL : cur, next) == 0) {
		uint64_t k = key_decode(run->type, next, a->key_size);
		if (k >= run->key_range)
			rc = failf(rep, "the walk met a key no thread used");
		else if (seen[k]++)
			rc = failf(rep, "the walk met key %llu twice",
				   (unsigned long long)k);
		rep->found++;
		uint8_t *t = cur;
		cur = next;
		next = t;
		first = false;
	}
	if (!rc && rep->found != present)
		rc = failf(rep, "the walk met %llu keys; lookups found %llu",
			   (unsigned long long)rep->found,
			   (unsigned long long)present);
	free(seen);
	free(cur);
	free(next);
	return rc;
}

/*
 * Every successful insert is present, deleted, or evicted by the map's own
 * count; and no more keys live than the map has room for.  A map that
 * keeps no count (map_ops.work NULL) is checked for room only.
 */
static int check_evictions(struct stress_run *run, uint64_t present,
			   struct stress_report *rep)
{
	const struct map *m = run->map;
	if (present > m->attr.max_entries)
		return failf(rep, "%llu keys live in a map of %u entries",
			     (unsigned long long)present, m->attr.max_entries);
	rep->evictions = map_work_of(m, -1).evictions;
	if (!m->ops->work)
		return 0;
	if (run->rules == STRESS_EXACT && rep->evictions)
		return failf(rep, "the map says it evicted %llu keys, which its "
			     "type does not allow",
			     (unsigned long long)rep->evictions);
	uint64_t in = rep->initial + rep->inserts;
	uint64_t out = rep->deletes + rep->evictions;
	if (in < out || in - out != present)
		return failf(rep, "%llu keys present; prefilled %llu + inserted "
			     "%llu - deleted %llu - evicted %llu = %lld",
			     (unsigned long long)present,
			     (unsigned long long)rep->initial,
			     (unsigned long long)rep->inserts,
			     (unsigned long long)rep->deletes,
			     (unsigned long long)rep->evictions,
			     (long long)in - (long long)out);
	return 0;
}

static int check_answers(const struct stress_run *run,
			 struct stress_report *rep)
{
	for (unsigned t = 0; t < run->o->threads; t++)
		if (run->workers[t].unexpected[0])
			return failf(rep, "thread %u: %s", t,
				     run->workers[t].unexpected);
	return 0;
}

/* --- the run ---------------------------------------------------------------- */

static int prefill(struct stress_run *run, struct stress_report *rep)
{
	struct worker *w = &run->workers[run->o->threads];
	const struct map_attr *a = &run->map->attr;
	uint8_t *key = malloc(a->key_size), *val = malloc(a->value_size);
	uint32_t n = (uint32_t)((uint64_t)run->key_range * run->o->prefill_pct / 100);
	int rc = key && val ? 0 : -ENOMEM;

	for (uint32_t k = 0; k < n && !rc; k++) {
		key_encode(run->type, k, key, a->key_size);
		int err = do_update(w, k, key, val, MAP_NOEXIST);
		if (!err) {
			w->net[k]++;
			rep->initial++;
		}
	}
	free(key);
	free(val);
	return rc;
}

static int alloc_worker(struct stress_run *run, unsigned tid)
{
	struct worker *w = &run->workers[tid];
	size_t n = run->key_range;
	w->run = run;
	w->tid = tid;
	w->net = map_area_alloc_array(n, sizeof(*w->net), 64);
	w->last = map_area_alloc_array(n, sizeof(*w->last), 64);
	if (!w->net || !w->last)
		return -ENOMEM;
	memset(w->net, 0, n * sizeof(*w->net));
	memset(w->last, 0, n * sizeof(*w->last));
	return 0;
}

static void sum_counts(struct stress_run *run, struct stress_report *rep)
{
	for (unsigned t = 0; t < run->o->threads; t++) {
		struct stress_report *c = &run->workers[t].counts;
		rep->ops += c->ops;
		rep->inserts += c->inserts;
		rep->replaces += c->replaces;
		rep->deletes += c->deletes;
		rep->lookups += c->lookups;
		rep->lookup_hits += c->lookup_hits;
		rep->failed_inserts += c->failed_inserts;
		rep->full_errors += c->full_errors;
	}
}

static int check_opts(const struct stress_opts *o, uint32_t range,
			 struct stress_report *rep)
{
	uint64_t fits = key_capacity(o->attr.type, o->attr.key_size);
	if (o->threads == 0 || o->threads >= MAX_THREADS)
		return failf(rep, "threads must be 1..%d", MAX_THREADS - 1), -EINVAL;
	/* Past its limit a design answers -EBUSY, which would read as a
	 * broken map: refused before any thread starts (map_ops.max_threads;
	 * bench_threads_fit says the same for bench). */
	if (o->ops->max_threads && o->threads > o->ops->max_threads)
		return failf(rep, "%s serves at most %u threads at once, not "
			     "%u%s%s", o->ops->name, o->ops->max_threads,
			     o->threads, o->ops->max_threads_why ? ": " : "",
			     o->ops->max_threads_why ? o->ops->max_threads_why
						      : ""), -EUSERS;
	if (o->attr.value_size < 8)
		return failf(rep, "stress needs value_size >= 8 to tag each "
			     "value with its writer"), -EINVAL;
	if (range > fits)
		return failf(rep, "%u keys do not fit in %u-byte %s keys", range,
			     o->attr.key_size, map_type_name(o->attr.type)),
		       -EINVAL;
	if (o->seconds <= 0 && o->max_ops == 0)
		return failf(rep, "give a duration or an op count"), -EINVAL;
	return 0;
}

/* Per-thread counts and last writes: refuse what cannot be allocated. */
static int make_workers(struct stress_run *run, struct stress_report *rep)
{
	const struct stress_opts *o = run->o;
	run->workers = calloc(o->threads + 1, sizeof(*run->workers));
	int rc = run->workers ? 0 : -ENOMEM;
	for (unsigned t = 0; t <= o->threads && !rc; t++)
		rc = alloc_worker(run, t);
	for (unsigned t = 0; t < o->threads && !rc; t++)
		run->workers[t].quota = o->max_ops ? team_share(o->max_ops,
								o->threads) : 0;
	if (rc)
		failf(rep, "no memory for the bookkeeping of %u keys x %u "
		      "threads (%zu bytes each)", run->key_range, o->threads + 1,
		      sizeof(struct last_write) + sizeof(int32_t));
	return rc;
}

static void free_workers(struct stress_run *run)
{
	for (unsigned t = 0; run->workers && t <= run->o->threads; t++) {
		free(run->workers[t].net);
		free(run->workers[t].last);
	}
	free(run->workers);
}

static int run_and_check(struct stress_run *run, struct stress_report *rep)
{
	const struct stress_opts *o = run->o;
	struct team team;
	struct team_config tc = { .threads = o->threads, .rcu = true,
				  .cpu_slots = true, .body = worker_body,
				  .ctx = run };
	uint64_t present = 0;

	int rc = team_start(&team, &tc, rep->failure, sizeof(rep->failure));
	if (rc)
		return rc;
	uint64_t t0 = clock_now_ns();
	team_run_phase(&team, 0, o->seconds);
	rep->seconds = (double)(clock_now_ns() - t0) / 1e9;
	team_join(&team);

	sum_counts(run, rep);
	for (unsigned t = 0; t < o->threads; t++)
		if (run->workers[t].out_of_memory)
			return failf(rep, "thread %u: out of memory for its key and "
				     "value", t), -ENOMEM;
	rc = check_answers(run, rep);
	if (!rc)
		rc = check_keys(run, rep, &present);
	if (!rc)
		rc = check_walk(run, present, rep);
	if (!rc)
		rc = check_evictions(run, present, rep);
	return rc;
}

int stress_run(const struct stress_opts *o, struct stress_report *rep)
{
	struct stress_run run = { .o = o, .type = o->attr.type };
	struct map_attr attr = o->attr;
	int rc;

	memset(rep, 0, sizeof(*rep));
	run.key_range = o->key_range ? o->key_range
		: (uint32_t)((uint64_t)STRESS_DEFAULT_RANGE_PCT *
			     o->attr.max_entries / 100);
	run.rules = o->rules == STRESS_RULES_OF_TYPE ? stress_rules_for(run.type)
						     : o->rules;
	atomic_init(&run.clock, 1); /* 0: the prefill's writes come first */
	if ((rc = check_opts(o, run.key_range, rep)))
		return rc;
	if (attr.ncpus < o->threads)
		attr.ncpus = map_cpus_for_threads(o->threads);
	map_thread_online();
	rc = map_create(o->ops, &attr, &run.map);
	if (rc) {
		failf(rep, "create failed: %s", map_errno_text(-rc));
		map_thread_offline();
		return rc;
	}
	rc = make_workers(&run, rep);
	if (!rc) {
		run.workers[o->threads].tid = PREFILL_TID;
		rc = prefill(&run, rep);
		if (rc)
			failf(rep, "out of memory");
	}
	if (!rc)
		rc = run_and_check(&run, rep);
	free_workers(&run);
	map_destroy(run.map);
	map_thread_offline();
	return rc;
}
