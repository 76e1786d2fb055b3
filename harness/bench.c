/* SPDX-License-Identifier: MIT */
#include "bench.h"
#include "../maps/common/cpu.h"
#include "../maps/common/rcu.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bench_worker {
	struct bench_shared *shared;
	unsigned tid;
	pthread_t thread;
	struct stream stream;
	size_t pos;              /* where in the stream: kept across phases,
				     so no key is inserted twice */
	uint8_t *value;
	uint64_t writes;
	uint64_t quota;           /* ops to do when counting ops */
	_Atomic uint64_t done;    /* ops so far (read by progress) */
	uint64_t ok[OP_COUNT], fail[OP_COUNT];
	struct histogram latency;
	uint64_t t_start, t_end;  /* ns */
	int err;
} __attribute__((aligned(64)));

struct bench_shared {
	const struct bench_config *c;
	struct map *map;
	const uint8_t *keys;
	struct key_sampler *sampler;
	pthread_barrier_t ready, go;
	atomic_bool stop_warmup, stop;
	struct bench_worker *workers;
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One op; true if it succeeded. */
static inline bool do_op(struct bench_worker *w, struct map *m,
			 const struct stream_op *op, const uint8_t *key)
{
	switch (op->op) {
	case OP_LOOKUP: {
		const volatile uint8_t *v = map_lookup(m, key);
		if (!v)
			return false;
		(void)v[0]; /* touch the value, as a program would */
		return true;
	}
	case OP_UPDATE:
		w->value[0] = (uint8_t)++w->writes;
		return map_update(m, key, w->value, MAP_EXIST) == 0;
	case OP_INSERT:
		w->value[0] = (uint8_t)++w->writes;
		return map_update(m, key, w->value, MAP_NOEXIST) == 0;
	default:
		return map_delete(m, key) == 0;
	}
}

/*
 * Replay the stream until told to stop (or the quota is met).  Counts and
 * samples only when `timed`.
 */
static void run_phase(struct bench_worker *w, bool timed, atomic_bool *stop,
		      uint64_t quota)
{
	struct bench_shared *s = w->shared;
	struct map *m = s->map;
	const uint32_t key_size = s->c->w.key_size;
	const struct stream_op *ops = w->stream.ops;
	const size_t len = w->stream.len;
	size_t pos = w->pos;
	uint64_t n = 0;

	for (;;) {
		map_rcu_read_lock();
		for (unsigned i = 0; i < BENCH_BATCH; i++) {
			const struct stream_op *op = &ops[pos];
			const uint8_t *key = s->keys + (size_t)op->key * key_size;
			if (++pos == len)
				pos = 0;
			if (timed && (n + i) % BENCH_SAMPLE_EVERY == 0) {
				uint64_t t0 = now_ns();
				bool ok = do_op(w, m, op, key);
				hist_add(&w->latency, now_ns() - t0);
				(ok ? w->ok : w->fail)[op->op]++;
			} else if (timed) {
				(do_op(w, m, op, key) ? w->ok : w->fail)[op->op]++;
			} else {
				do_op(w, m, op, key);
			}
		}
		map_rcu_read_unlock();
		map_rcu_quiescent();
		n += BENCH_BATCH;
		atomic_store_explicit(&w->done, n, memory_order_relaxed);
		if (quota ? n >= quota
			  : atomic_load_explicit(stop, memory_order_relaxed))
			break;
	}
	w->pos = pos;
}

static void *worker_main(void *arg)
{
	struct bench_worker *w = arg;
	struct bench_shared *s = w->shared;
	const struct bench_config *c = s->c;

	map_thread_online();
	map_cpu_claim((int)w->tid);
	map_cpu_pin(w->tid);
	pthread_barrier_wait(&s->ready);
	if (c->warmup > 0)
		run_phase(w, false, &s->stop_warmup, 0);
	pthread_barrier_wait(&s->go);
	w->t_start = now_ns();
	run_phase(w, true, &s->stop, w->quota);
	w->t_end = now_ns();
	map_cpu_release();
	map_thread_offline();
	return NULL;
}

/* Insert the first prefill % of keys 0..entries-1.  Returns how many. */
static uint64_t prefill(struct bench_shared *s)
{
	const struct workload *w = &s->c->w;
	uint64_t n = (uint64_t)w->entries * w->prefill_pct / 100, done = 0;
	uint8_t *value = calloc(1, w->value_size);

	for (uint64_t k = 0; value && k < n; k++) {
		workload_fill_value(value, w->value_size, k);
		done += map_update(s->map, s->keys + k * w->key_size, value,
				   MAP_NOEXIST) == 0;
	}
	free(value);
	return done;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };
	nanosleep(&ts, NULL);
}

static double fraction_done(struct bench_shared *s, uint64_t t0)
{
	const struct bench_config *c = s->c;
	if (c->seconds > 0)
		return (double)(now_ns() - t0) / (c->seconds * 1e9);
	uint64_t done = 0;
	for (unsigned t = 0; t < c->threads; t++)
		done += atomic_load_explicit(&s->workers[t].done,
					     memory_order_relaxed);
	return (double)done / (double)c->ops;
}

/* Sleep through a phase, reporting progress, then raise its stop flag. */
static void wait_phase(struct bench_shared *s, double seconds, atomic_bool *stop,
		       bool report)
{
	const struct bench_config *c = s->c;
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);

	for (;;) {
		uint64_t now = now_ns();
		if (seconds > 0 && now >= end)
			break;
		if (seconds <= 0) { /* counting ops: the workers stop alone */
			bool all = true;
			for (unsigned t = 0; t < c->threads; t++)
				all &= atomic_load_explicit(&s->workers[t].done,
						memory_order_relaxed) >= s->workers[t].quota;
			if (all)
				break;
		}
		if (report && c->progress)
			c->progress(fraction_done(s, t0), c->progress_arg);
		uint64_t left = seconds > 0 ? end - now : 100000000ULL;
		sleep_ns(left < 100000000ULL ? left : 100000000ULL);
	}
	atomic_store(stop, true);
}

static void collect(struct bench_shared *s, struct bench_result *r)
{
	const struct bench_config *c = s->c;
	uint64_t first = UINT64_MAX, last = 0;

	for (unsigned t = 0; t < c->threads; t++) {
		struct bench_worker *w = &s->workers[t];
		for (int op = 0; op < OP_COUNT; op++) {
			r->ok[op] += w->ok[op];
			r->fail[op] += w->fail[op];
			r->ops += w->ok[op] + w->fail[op];
		}
		hist_merge(&r->latency, &w->latency);
		if (w->t_start < first)
			first = w->t_start;
		if (w->t_end > last)
			last = w->t_end;
	}
	r->seconds = (double)(last - first) / 1e9;
	r->mops = r->seconds > 0 ? (double)r->ops / r->seconds / 1e6 : 0;
	r->ns_per_op = r->ops ? r->seconds * 1e9 * c->threads / (double)r->ops
			      : 0;
}

static int setup_workers(struct bench_shared *s, char *err, size_t errlen)
{
	const struct bench_config *c = s->c;
	/* A stream long enough not to repeat in cache-friendly ways, short
	 * enough to build quickly: 2^18 ops per thread, or the quota. */
	size_t len = 1u << 18;

	s->workers = aligned_alloc(64, sizeof(*s->workers) * c->threads);
	if (!s->workers)
		goto nomem;
	memset(s->workers, 0, sizeof(*s->workers) * c->threads);
	for (unsigned t = 0; t < c->threads; t++) {
		struct bench_worker *w = &s->workers[t];
		w->shared = s;
		w->tid = t;
		if (c->seconds <= 0) {
			uint64_t q = c->ops / c->threads;
			w->quota = (q + BENCH_BATCH - 1) / BENCH_BATCH * BENCH_BATCH;
			if (w->quota == 0)
				w->quota = BENCH_BATCH;
		}
		w->value = calloc(1, c->w.value_size);
		if (!w->value || workload_make_stream(&c->w, s->sampler, t, len,
						      &w->stream))
			goto nomem;
		workload_fill_value(w->value, c->w.value_size, t + 1);
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory preparing %u workers", c->threads);
	return -ENOMEM;
}

static void free_workers(struct bench_shared *s)
{
	for (unsigned t = 0; s->workers && t < s->c->threads; t++) {
		workload_stream_free(&s->workers[t].stream);
		free(s->workers[t].value);
	}
	free(s->workers);
}

int bench_run(const struct bench_config *c, struct bench_result *r,
	      char *err, size_t errlen)
{
	struct bench_shared s = { .c = c };
	struct map_attr attr = {
		.type = c->design->type ? c->design->type : MAP_TYPE_HASH,
		.key_size = c->w.key_size, .value_size = c->w.value_size,
		.max_entries = c->w.entries, .flags = c->map_flags,
	};
	int rc;

	memset(r, 0, sizeof(*r));
	if (c->threads > map_possible_cpus())
		attr.ncpus = c->threads; /* one slot per worker */
	map_thread_online();
	rc = map_create(c->design, &attr, &s.map);
	if (rc) {
		snprintf(err, errlen, "%s refuses key_size=%u value_size=%u "
			 "max_entries=%u: %s", c->design->name, attr.key_size,
			 attr.value_size, attr.max_entries, strerror(-rc));
		map_thread_offline();
		return rc;
	}
	s.keys = workload_make_keys(&c->w, c->threads);
	s.sampler = workload_sampler_new(&c->w);
	rc = s.keys && s.sampler ? setup_workers(&s, err, errlen) : -ENOMEM;
	if (rc == -ENOMEM && !s.workers)
		snprintf(err, errlen, "out of memory for %llu keys",
			 (unsigned long long)workload_key_count(&c->w, c->threads));
	if (rc)
		goto out;
	r->prefilled = prefill(&s);

	pthread_barrier_init(&s.ready, NULL, c->threads + 1);
	pthread_barrier_init(&s.go, NULL, c->threads + 1);
	for (unsigned t = 0; t < c->threads; t++)
		if (pthread_create(&s.workers[t].thread, NULL, worker_main,
				   &s.workers[t])) {
			fprintf(stderr, "maplab: cannot start thread %u\n", t);
			abort(); /* the barriers would wait for it forever */
		}
	/* The main thread only waits from here: under QSBR it must not hold
	 * up grace periods. */
	pthread_barrier_wait(&s.ready);
	if (c->warmup > 0)
		wait_phase(&s, c->warmup, &s.stop_warmup, false);
	pthread_barrier_wait(&s.go);
	wait_phase(&s, c->seconds, &s.stop, true);
	for (unsigned t = 0; t < c->threads; t++)
		pthread_join(s.workers[t].thread, NULL);
	pthread_barrier_destroy(&s.ready);
	pthread_barrier_destroy(&s.go);
	collect(&s, r);
out:
	free_workers(&s);
	workload_sampler_free(s.sampler);
	free((void *)s.keys);
	map_destroy(s.map);
	map_thread_offline();
	return rc;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

unsigned bench_median_index(const double *values, unsigned n)
{
	double *sorted = malloc(n * sizeof(double));
	unsigned index = 0;
	if (!sorted)
		return 0;
	memcpy(sorted, values, n * sizeof(double));
	qsort(sorted, n, sizeof(double), compare_double);
	for (unsigned i = 0; i < n; i++)
		if (values[i] == sorted[(n - 1) / 2]) {
			index = i;
			break;
		}
	free(sorted);
	return index;
}

/* --- the no-op design ------------------------------------------------------ */

struct noop_map {
	struct map map;
	uint64_t value[8];
};

static int noop_create(const struct map_attr *attr, struct map **out)
{
	struct noop_map *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->map.attr = *attr;
	*out = &m->map;
	return 0;
}

static void noop_destroy(struct map *m)
{
	free(m);
}

static void *noop_lookup(struct map *m, const void *key)
{
	(void)key;
	return ((struct noop_map *)m)->value;
}

static int noop_lookup_copy(struct map *m, const void *key, void *value)
{
	(void)m, (void)key, (void)value;
	return 0;
}

static int noop_update(struct map *m, const void *key, const void *value,
		       uint64_t flags)
{
	(void)m, (void)key, (void)value, (void)flags;
	return 0;
}

static int noop_delete(struct map *m, const void *key)
{
	(void)m, (void)key;
	return 0;
}

static int noop_get_next_key(struct map *m, const void *key, void *next)
{
	(void)m, (void)key, (void)next;
	return -ENOENT;
}

const struct map_ops bench_noop_ops = {
	.name = "noop",
	.description = "does nothing: the harness's own cost per op",
	.type = 0,
	.create = noop_create,
	.destroy = noop_destroy,
	.lookup = noop_lookup,
	.lookup_copy = noop_lookup_copy,
	.update = noop_update,
	.delete = noop_delete,
	.get_next_key = noop_get_next_key,
};
