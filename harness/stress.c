/* SPDX-License-Identifier: MIT */
#include "stress.h"
#include "rng.h"
#include "../maps/common/cpu.h"
#include "../maps/common/rcu.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEQ_BITS 40
#define MAX_THREADS 255 /* a value's thread field is 8 bits; 255 = prefill */
#define PREFILL_TID MAX_THREADS

struct worker {
	struct stress_run *run;
	unsigned tid;
	pthread_t thread;
	int32_t *net;        /* per key: successful inserts - deletes */
	uint8_t *written;    /* bitmap of write numbers that succeeded */
	uint64_t seq_cap;    /* bits in written */
	uint64_t seq;        /* write numbers used */
	struct stress_report counts;
};

struct stress_run {
	const struct stress_opts *o;
	struct map *map;
	uint32_t key_range;
	pthread_barrier_t start;
	atomic_bool stop;
	struct worker *workers; /* threads + 1: the last one is the prefill */
};

/* --- keys and values ------------------------------------------------------- */

static void make_key(uint32_t k, uint8_t *key, uint32_t key_size)
{
	memset(key, 0, key_size);
	for (uint32_t i = 0; i < key_size && i < 4; i++)
		key[i] = (uint8_t)(k >> (8 * i));
}

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

/* --- the workers ----------------------------------------------------------- */

static void mark_written(struct worker *w, uint64_t seq)
{
	w->written[seq / 8] |= (uint8_t)(1u << (seq % 8));
}

static bool was_written(const struct worker *w, uint64_t seq)
{
	return seq < w->seq_cap && (w->written[seq / 8] >> (seq % 8)) & 1;
}

static int do_update(struct worker *w, uint32_t k, uint8_t *key, uint8_t *val,
		     uint64_t flags)
{
	const struct map_attr *a = &w->run->map->attr;
	uint64_t seq = w->seq++;
	make_value(k, w->tid, seq, val, a->value_size);
	int err = map_update(w->run->map, key, val, flags);
	if (!err)
		mark_written(w, seq);
	return err;
}

static void one_op(struct worker *w, struct rng *r, uint8_t *key, uint8_t *val)
{
	struct stress_report *c = &w->counts;
	uint32_t k = (uint32_t)rng_below(r, w->run->key_range);
	unsigned dice = (unsigned)rng_below(r, 100);
	int err;

	make_key(k, key, w->run->map->attr.key_size);
	if (dice < 30) {
		err = do_update(w, k, key, val, MAP_NOEXIST);
		if (!err) {
			c->inserts++;
			w->net[k]++;
		} else if (err == -EEXIST) {
			c->failed_inserts++;
		} else if (err == -E2BIG || err == -ENOSPC) {
			c->full_errors++;
		}
	} else if (dice < 45) {
		if (do_update(w, k, key, val, MAP_EXIST) == 0)
			c->replaces++;
	} else if (dice < 75) {
		if (map_delete(w->run->map, key) == 0) {
			c->deletes++;
			w->net[k]--;
		}
	} else {
		map_rcu_read_lock();
		if (map_lookup(w->run->map, key))
			c->lookup_hits++;
		map_rcu_read_unlock();
		c->lookups++;
	}
	c->ops++;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct stress_opts *o = w->run->o;
	struct rng r;
	uint8_t *key = malloc(o->attr.key_size), *val = malloc(o->attr.value_size);

	map_thread_online();
	map_cpu_claim((int)w->tid);
	map_cpu_pin(w->tid);
	rng_seed(&r, o->seed * 1000003u + w->tid);
	pthread_barrier_wait(&w->run->start);
	while (key && val && w->seq < w->seq_cap &&
	       !atomic_load_explicit(&w->run->stop, memory_order_relaxed) &&
	       (!o->max_ops || w->counts.ops < o->max_ops))
		one_op(w, &r, key, val);
	map_cpu_release();
	map_thread_offline();
	free(key);
	free(val);
	return NULL;
}

/* --- the checks ------------------------------------------------------------ */

static int failf(struct stress_report *rep, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep->failure, sizeof(rep->failure), fmt, ap);
	va_end(ap);
	return 1;
}

static int check_value(struct stress_run *run, uint32_t k, const uint8_t *v,
		       struct stress_report *rep)
{
	uint32_t value_size = run->map->attr.value_size;
	uint64_t word;
	memcpy(&word, v, 8);
	unsigned tid = (word >> 16) & 0xff;
	uint64_t seq = word >> 24;
	unsigned nworkers = run->o->threads;

	if ((uint16_t)word != key_tag(k))
		return failf(rep, "key %u holds a value written for another key "
			     "(tag %04x, want %04x)", k, (unsigned)(uint16_t)word,
			     key_tag(k));
	const struct worker *w = tid == PREFILL_TID ? &run->workers[nworkers]
		: tid < nworkers ? &run->workers[tid] : NULL;
	if (!w || !was_written(w, seq))
		return failf(rep, "key %u holds a value no successful update "
			     "wrote (thread %u, write %llu)", k, tid,
			     (unsigned long long)seq);
	for (uint32_t i = 8; i < value_size; i++)
		if (v[i] != (uint8_t)rng_mix64(word + i))
			return failf(rep, "key %u: value byte %u is torn", k, i);
	return 0;
}

/* Every key: presence matches the net count; values are genuine. */
static int check_keys(struct stress_run *run, struct stress_report *rep)
{
	const struct map_attr *a = &run->map->attr;
	uint8_t *key = malloc(a->key_size), *val = malloc(a->value_size);
	int rc = 0;

	for (uint32_t k = 0; k < run->key_range && !rc && key && val; k++) {
		long net = 0;
		for (unsigned t = 0; t <= run->o->threads; t++)
			net += run->workers[t].net[k];
		make_key(k, key, a->key_size);
		int err = map_lookup_copy(run->map, key, val);
		if (net != 0 && net != 1)
			rc = failf(rep, "key %u: %ld more successful inserts than "
				   "deletes (two threads inserted the same key?)",
				   k, net);
		else if ((err == 0) != (net == 1))
			rc = failf(rep, "key %u is %s but the successful operations "
				   "say it should %s", k, err ? "missing" : "present",
				   net ? "be there" : "be gone");
		else if (!err)
			rc = check_value(run, k, val, rep);
		rep->expected += (uint64_t)net;
	}
	if (!key || !val)
		rc = failf(rep, "out of memory while checking");
	free(key);
	free(val);
	return rc;
}

/* A get_next_key walk sees each key once, and exactly expected of them. */
static int check_walk(struct stress_run *run, struct stress_report *rep)
{
	const struct map_attr *a = &run->map->attr;
	uint8_t *seen = calloc(run->key_range, 1);
	uint8_t *cur = malloc(a->key_size), *next = malloc(a->key_size);
	bool first = true;
	int rc = 0;

	while (!rc && seen && cur && next &&
	       map_get_next_key(run->map, first ? NULL : cur, next) == 0) {
		uint32_t k = 0;
		memcpy(&k, next, a->key_size < 4 ? a->key_size : 4);
		if (k >= run->key_range)
			rc = failf(rep, "the walk met key %u, which no thread used",
				   k);
		else if (seen[k]++)
			rc = failf(rep, "the walk met key %u twice", k);
		rep->found++;
		uint8_t *t = cur;
		cur = next;
		next = t;
		first = false;
	}
	if (!rc && rep->found != rep->expected)
		rc = failf(rep, "the map holds %llu keys; initial %llu + inserts "
			   "%llu - deletes %llu = %llu",
			   (unsigned long long)rep->found,
			   (unsigned long long)rep->initial,
			   (unsigned long long)rep->inserts,
			   (unsigned long long)rep->deletes,
			   (unsigned long long)rep->expected);
	free(seen);
	free(cur);
	free(next);
	return rc;
}

/* --- the run --------------------------------------------------------------- */

static int prefill(struct stress_run *run, struct stress_report *rep)
{
	struct worker *w = &run->workers[run->o->threads];
	const struct map_attr *a = &run->map->attr;
	uint8_t *key = malloc(a->key_size), *val = malloc(a->value_size);
	uint32_t n = (uint32_t)((uint64_t)run->key_range * run->o->prefill_pct / 100);
	int rc = key && val ? 0 : -ENOMEM;

	for (uint32_t k = 0; k < n && !rc; k++) {
		make_key(k, key, a->key_size);
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

static int alloc_worker(struct stress_run *run, unsigned tid, uint64_t seqs)
{
	struct worker *w = &run->workers[tid];
	w->run = run;
	w->tid = tid;
	w->seq_cap = seqs;
	w->net = calloc(run->key_range, sizeof(*w->net));
	w->written = calloc(seqs / 8 + 1, 1);
	return w->net && w->written ? 0 : -ENOMEM;
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

static int validate_opts(const struct stress_opts *o, uint32_t range,
			 struct stress_report *rep)
{
	if (o->threads == 0 || o->threads >= MAX_THREADS)
		return failf(rep, "threads must be 1..%d", MAX_THREADS - 1), -EINVAL;
	if (o->attr.value_size < 8)
		return failf(rep, "stress needs value_size >= 8 to tag each "
			     "value with its writer"), -EINVAL;
	if (o->attr.key_size < 4 && range > (1u << (8 * o->attr.key_size)))
		return failf(rep, "%u keys do not fit in %u-byte keys", range,
			     o->attr.key_size), -EINVAL;
	if (o->seconds <= 0 && o->max_ops == 0)
		return failf(rep, "give a duration or an op count"), -EINVAL;
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep for the run's duration, then tell the workers to stop. */
static void time_the_run(struct stress_run *run)
{
	if (run->o->seconds > 0) {
		struct timespec ts = {
			.tv_sec = (time_t)run->o->seconds,
			.tv_nsec = (long)((run->o->seconds -
					   (double)(time_t)run->o->seconds) * 1e9),
		};
		nanosleep(&ts, NULL);
		atomic_store(&run->stop, true);
	}
}

int stress_run(const struct stress_opts *o, struct stress_report *rep)
{
	struct stress_run run = { .o = o };
	struct map_attr attr = o->attr;
	int rc;

	memset(rep, 0, sizeof(*rep));
	run.key_range = o->key_range ? o->key_range : 2 * o->attr.max_entries;
	if ((rc = validate_opts(o, run.key_range, rep)))
		return rc;
	if (attr.ncpus < o->threads)
		attr.ncpus = o->threads > map_possible_cpus() ? o->threads
							      : map_possible_cpus();
	/* Write numbers a thread may use: enough for its op budget. */
	uint64_t seqs = o->max_ops ? o->max_ops + 1 : 1ULL << 27;

	map_thread_online();
	rc = map_create(o->ops, &attr, &run.map);
	if (rc) {
		failf(rep, "%s: create failed (%s)", o->ops->name, strerror(-rc));
		map_thread_offline();
		return rc;
	}
	run.workers = calloc(o->threads + 1, sizeof(*run.workers));
	rc = run.workers ? 0 : -ENOMEM;
	for (unsigned t = 0; t < o->threads && !rc; t++)
		rc = alloc_worker(&run, t, seqs);
	if (!rc)
		rc = alloc_worker(&run, o->threads, run.key_range + 1);
	if (!rc) {
		run.workers[o->threads].tid = PREFILL_TID;
		rc = prefill(&run, rep);
	}
	if (rc) {
		failf(rep, "out of memory");
		goto out;
	}

	pthread_barrier_init(&run.start, NULL, o->threads + 1);
	unsigned started = 0;
	for (; started < o->threads; started++)
		if (pthread_create(&run.workers[started].thread, NULL,
				   worker_main, &run.workers[started]))
			break;
	if (started < o->threads) {
		/* Cannot happen on a sane machine; the barrier would hang. */
		fprintf(stderr, "stress: could not start thread %u\n", started);
		abort();
	}
	pthread_barrier_wait(&run.start);
	double t0 = now_seconds();
	time_the_run(&run);
	for (unsigned t = 0; t < o->threads; t++)
		pthread_join(run.workers[t].thread, NULL);
	rep->seconds = now_seconds() - t0;
	pthread_barrier_destroy(&run.start);

	sum_counts(&run, rep);
	rc = check_keys(&run, rep);
	if (!rc)
		rc = check_walk(&run, rep);
out:
	for (unsigned t = 0; run.workers && t <= o->threads; t++) {
		free(run.workers[t].net);
		free(run.workers[t].written);
	}
	free(run.workers);
	map_destroy(run.map);
	map_thread_offline();
	return rc;
}
