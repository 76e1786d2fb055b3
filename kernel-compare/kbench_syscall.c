/* SPDX-License-Identifier: MIT */
/*
 * kbench_syscall.c: kbench's syscall side, the workload through bpf(2)
 * from userspace (see kbench.h).
 *
 *   main thread                          worker i, pinned to the i-th CPU
 *   create and prefill the map            the process may use
 *   (kbench_runner.c); start the team
 *   warm-up phase (single calls) ──────►  replay stream i, one call per op,
 *                                         uncounted, until told
 *   timed phase ───────────────────────►  SYSCALL_SINGLE: one call per op
 *   (--duration, or until every quota)      (two for a replace, a delete and
 *                                           an update; a lookup_write's
 *                                           lookup and then its write back
 *                                           or its insert),
 *                                           every BENCH_SAMPLE_EVERY-th timed
 *                                         SYSCALL_BATCH: 256 elements a call
 *                                           (LOOKUP_BATCH walks the map;
 *                                           UPDATE_BATCH of stream i's keys),
 *                                           each call's time / elements
 *   join; one result (bench_result_add / bench_result_finish)
 *
 * Each worker writes only its own record; the main thread reads them
 * after the join.
 */
#include "kernel-compare/kbench_runner.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 256 /* elements in one batch call */

struct sc_worker {
	uint8_t *value;                 /* what updates and inserts write */
	uint8_t *read;                  /* lookup_write's copy of a value */
	size_t pos;                     /* next op of the stream: kept across
					   phases, so no key is inserted twice */
	int err;                        /* a batch call that failed: -errno */
	uint64_t ok[OP_COUNT], fail[OP_COUNT];
	struct histogram latency;
	uint64_t t_start, t_end;        /* the timed phase, ns */
} __attribute__((aligned(64)));

struct syscall_run {
	const struct kb_runner *k;
	enum syscall_mode mode;
	struct sc_worker *workers;
};

/* lookup_write through bpf(2): a lookup syscall copies the value out;
 * found, its first LOOKUP_WRITE_BYTES bytes are zeroed (as the program
 * writes them in place) and written back with BPF_EXIST; absent, the key
 * is put in (BPF_NOEXIST).  0, or the failed call's -errno. */
static int syscall_lookup_write(int fd, const void *key, struct sc_worker *w,
				uint32_t value_size)
{
	if (bpf_map_lookup_elem(fd, key, w->read))
		return bpf_map_update_elem(fd, key, w->value, BPF_NOEXIST);
	memset(w->read, 0, value_size < LOOKUP_WRITE_BYTES ? value_size
							  : LOOKUP_WRITE_BYTES);
	return bpf_map_update_elem(fd, key, w->read, BPF_EXIST);
}

/* One op of workload.h's table as syscalls: 0, or -errno (a replace's
 * delete's, where its update went through). */
static int syscall_op(int fd, uint32_t op, const void *key, struct sc_worker *w,
		      uint32_t value_size)
{
	switch (op) {
	case OP_LOOKUP:
		return bpf_map_lookup_elem(fd, key, w->read);
	case OP_UPDATE:
		return bpf_map_update_elem(fd, key, w->value, BPF_EXIST);
	case OP_INSERT:
		return bpf_map_update_elem(fd, key, w->value, BPF_NOEXIST);
	case OP_DELETE:
		return bpf_map_delete_elem(fd, key);
	case OP_UPSERT:
		return bpf_map_update_elem(fd, key, w->value, BPF_ANY);
	case OP_REPLACE: {
		/* both calls, always, as the program makes them */
		int deleted = bpf_map_delete_elem(fd, key);
		int updated = bpf_map_update_elem(fd, key, w->value, BPF_ANY);
		return updated ? updated : deleted;
	}
	default:
		return syscall_lookup_write(fd, key, w, value_size);
	}
}

/* One call per op of stream `worker` until told to stop (or, timed, until
 * the quota is met).  Counts and samples only when timed. */
static void single_calls(const struct syscall_run *s, unsigned worker,
			 bool timed, const atomic_bool *stop)
{
	struct sc_worker *w = &s->workers[worker];
	const struct kb_runner *k = s->k;
	const uint32_t key_size = k->c->b.w.key_size;
	const uint32_t value_size = k->c->b.w.value_size;
	const struct stream *st = &k->streams[worker];
	const uint64_t quota = timed ? k->quota : 0;

	for (uint64_t n = 0; quota ? n < quota
				   : !atomic_load_explicit(stop,
							   memory_order_relaxed);
	     n++) {
		const struct stream_op *op = &st->ops[w->pos];
		const uint8_t *key = k->keys + (size_t)op->key * key_size;
		w->pos = (w->pos + 1) % st->len;
		if (!timed) {
			syscall_op(k->target_fd, op->op, key, w, value_size);
			continue;
		}
		uint64_t t0 = n % BENCH_SAMPLE_EVERY == 0 ? clock_now_ns() : 0;
		int rc = syscall_op(k->target_fd, op->op, key, w, value_size);
		if (t0)
			hist_add(&w->latency, clock_now_ns() - t0);
		(rc ? w->fail : w->ok)[op->op]++;
		kb_runner_done(k, worker, n + 1);
	}
}

/* One LOOKUP_BATCH of the walk; starts it again at its end.  Elements
 * read, or -errno. */
static long lookup_batch(int fd, void *keys, void *values, void *cursor,
			 bool *first)
{
	uint32_t count = BATCH;
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	int rc = bpf_map_lookup_batch(fd, *first ? NULL : cursor, cursor, keys,
				      values, &count, &o);
	*first = rc == -ENOENT; /* walked the whole map */
	return rc && rc != -ENOENT ? rc : (long)count;
}

/* One UPDATE_BATCH of the next BATCH keys of stream `worker`.  Elements
 * written, or -errno. */
static long update_batch(const struct syscall_run *s, unsigned worker,
			 void *keys, void *values)
{
	struct sc_worker *w = &s->workers[worker];
	const struct kb_runner *k = s->k;
	const uint32_t key_size = k->c->b.w.key_size;
	const struct stream *st = &k->streams[worker];
	uint32_t count = BATCH;

	for (uint32_t i = 0; i < count; i++) {
		memcpy((uint8_t *)keys + i * key_size,
		       k->keys + (size_t)st->ops[w->pos].key * key_size,
		       key_size);
		w->pos = (w->pos + 1) % st->len;
	}
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
	int rc = bpf_map_update_batch(k->target_fd, keys, values, &count, &o);
	return rc ? (long)rc : (long)count;
}

/* Batches until told to stop or the quota is met: lookup=100 walks the
 * map, update=100 writes the stream's keys (kbench_syscall_run checks). */
static void batch_calls(const struct syscall_run *s, unsigned worker,
			const atomic_bool *stop)
{
	struct sc_worker *w = &s->workers[worker];
	const struct workload *wl = &s->k->c->b.w;
	const int op = wl->mix[OP_LOOKUP] == 100 ? OP_LOOKUP : OP_UPDATE;
	const uint64_t quota = s->k->quota;
	void *keys = calloc(BATCH, wl->key_size);
	void *values = calloc(BATCH, wl->value_size);
	void *cursor = calloc(1, wl->key_size + 8);
	bool first = true;

	if (!keys || !values || !cursor)
		w->err = -ENOMEM;
	while (!w->err && (quota ? w->ok[op] < quota
				 : !atomic_load_explicit(stop,
							 memory_order_relaxed))) {
		uint64_t t0 = clock_now_ns();
		long n = op == OP_LOOKUP
				 ? lookup_batch(s->k->target_fd, keys, values,
						cursor, &first)
				 : update_batch(s, worker, keys, values);
		if (n < 0) {
			w->err = (int)n;
		} else if (n > 0) {
			hist_add(&w->latency, (clock_now_ns() - t0) / (uint64_t)n);
			w->ok[op] += (uint64_t)n;
			kb_runner_done(s->k, worker, w->ok[op]);
		}
	}
	free(keys);
	free(values);
	free(cursor);
}

static void worker_phase(void *ctx, unsigned worker, unsigned phase,
			 const atomic_bool *stop)
{
	struct syscall_run *s = ctx;
	struct sc_worker *w = &s->workers[worker];

	if (phase == KB_PHASE_WARMUP) {
		single_calls(s, worker, false, stop);
		return;
	}
	w->t_start = clock_now_ns();
	if (s->mode == SYSCALL_SINGLE)
		single_calls(s, worker, true, stop);
	else
		batch_calls(s, worker, stop);
	w->t_end = clock_now_ns();
}

static int make_workers(struct syscall_run *s, char *err, size_t errlen)
{
	const struct bench_config *b = &s->k->c->b;
	s->workers = aligned_alloc(64, sizeof(*s->workers) * b->threads);
	if (s->workers)
		memset(s->workers, 0, sizeof(*s->workers) * b->threads);
	for (unsigned t = 0; s->workers && t < b->threads; t++) {
		s->workers[t].value = calloc(1, b->w.value_size);
		s->workers[t].read = calloc(1, b->w.value_size);
		if (!s->workers[t].value || !s->workers[t].read)
			break;
		workload_fill_value(s->workers[t].value, b->w.value_size, t + 1);
	}
	if (s->workers && s->workers[b->threads - 1].value &&
	    s->workers[b->threads - 1].read)
		return 0;
	snprintf(err, errlen, "out of memory for %u workers", b->threads);
	return -ENOMEM;
}

static void free_workers(struct syscall_run *s)
{
	for (unsigned t = 0; s->workers && t < s->k->c->b.threads; t++) {
		free(s->workers[t].value);
		free(s->workers[t].read);
	}
	free(s->workers);
}

/* One result from every worker's counts, samples and times; or the first
 * failed batch call. */
static int collect(const struct syscall_run *s, struct bench_result *r,
		   char *err, size_t errlen)
{
	const unsigned threads = s->k->c->b.threads;
	for (unsigned t = 0; t < threads; t++) {
		const struct sc_worker *w = &s->workers[t];
		if (w->err) {
			snprintf(err, errlen, "worker %u: a batch call failed: %s",
				 t, map_errno_text(-w->err));
			return w->err;
		}
		bench_result_add(r, w->ok, w->fail, &w->latency, w->t_start,
				 w->t_end);
	}
	bench_result_finish(r, threads);
	return 0;
}

int kbench_syscall_run(const struct kbench_config *c, enum syscall_mode mode,
		       struct bench_result *r, char *err, size_t errlen)
{
	const struct workload *wl = &c->b.w;
	struct kb_runner k;
	struct syscall_run s = { .k = &k, .mode = mode };
	struct kb_team_plan plan = {
		.body = worker_phase, .ctx = &s, .warmup = mode == SYSCALL_SINGLE,
		/* A batch update inserts too, as BPF_ANY: not counted. */
		.evictions = mode == SYSCALL_SINGLE,
	};
	int rc;

	memset(r, 0, sizeof(*r));
	if (mode == SYSCALL_BATCH && wl->mix[OP_LOOKUP] != 100 &&
	    wl->mix[OP_UPDATE] != 100) {
		/* Mixes, and upsert, replace and lookup_write alone: a batch
		 * call cannot make a replace's two calls per key, or write a
		 * value only where a lookup found it. */
		snprintf(err, errlen, "batch syscalls are measured for lookup=100 "
			 "and update=100 workloads only");
		return -EOPNOTSUPP;
	}
	if (mode == SYSCALL_BATCH && wl->mix[OP_LOOKUP] == 100 &&
	    workload_prefill_count(wl) == 0) {
		/* A walk of an empty map reads nothing: no op would ever be
		 * counted, and a run of --ops would never end. */
		snprintf(err, errlen, "a batch lookup walks the map, and nothing "
			 "is prefilled");
		return -EOPNOTSUPP;
	}
	if ((rc = kb_runner_prepare(&k, c, err, errlen)))
		return rc;
	if (!(rc = make_workers(&s, err, errlen)) &&
	    !(rc = kb_runner_create_target(&k, err, errlen)) &&
	    !(rc = kb_runner_run_team(&k, &plan, err, errlen)) &&
	    !(rc = collect(&s, r, err, errlen))) {
		kb_runner_evictions(&k, r);
		r->memory = k.memory;
	}
	free_workers(&s);
	kb_runner_free(&k);
	return rc;
}
