/* SPDX-License-Identifier: MIT */
/* limit.c: independent random loads over a buffer (limit.h). */
#include "harness/bench/limit.h"
#include "harness/common/clock.h"
#include "harness/common/rng.h"
#include "harness/common/team.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PHASE_WARMUP, PHASE_TIMED };

struct limit_worker {
	const struct limit_shared *shared;
	struct rng rng;          /* this worker's addresses */
	uint64_t quota;          /* loads to do when counting loads */
	uint64_t loads;          /* done in the timed phase */
	_Atomic uint64_t done;   /* so far (read by progress) */
	uint64_t sink;           /* every sum, so no load is dead */
	uint64_t t_start, t_end; /* ns */
} __attribute__((aligned(64)));

struct limit_shared {
	const struct limit_buffer *b;
	const struct bench_config *c;
	struct limit_worker *workers;
};

int limit_buffer_init(struct limit_buffer *b, size_t bytes)
{
	size_t n = bytes / sizeof(uint64_t);
	/* aligned_alloc wants a size that is a multiple of the alignment. */
	size_t size = (n * sizeof(uint64_t) + 63) & ~(size_t)63;

	*b = (struct limit_buffer){ 0 };
	if (!n)
		return -EINVAL;
	b->words = aligned_alloc(64, size);
	if (!b->words)
		return -ENOMEM;
	/* Written, so every page is backed before the clock runs. */
	for (size_t i = 0; i < n; i++)
		b->words[i] = rng_mix64(i);
	b->n_words = n;
	return 0;
}

void limit_buffer_free(struct limit_buffer *b)
{
	free(b->words);
	*b = (struct limit_buffer){ 0 };
}

/* LIMIT_BATCH loads, each from a random word: the next address comes from
 * the generator, never from a loaded value, so the loads overlap. */
static uint64_t load_batch(const uint64_t *words, uint64_t n_words,
			   struct rng *rng)
{
	struct rng r = *rng; /* in a register, not reloaded after each load */
	uint64_t sum = 0;
	for (unsigned i = 0; i < LIMIT_BATCH; i++)
		sum += words[rng_below(&r, n_words)];
	*rng = r;
	return sum;
}

/* Batches until told to stop, or until the quota is met. */
static uint64_t run_loads(struct limit_worker *w, const atomic_bool *stop,
			  uint64_t quota)
{
	const struct limit_buffer *b = w->shared->b;
	uint64_t n = 0;
	for (;;) {
		w->sink += load_batch(b->words, b->n_words, &w->rng);
		n += LIMIT_BATCH;
		atomic_store_explicit(&w->done, n, memory_order_relaxed);
		if (quota ? n >= quota
			  : atomic_load_explicit(stop, memory_order_relaxed))
			return n;
	}
}

/* The team's body: the warm-up, untimed, or the timed phase. */
static void worker_phase(void *ctx, unsigned tid, unsigned phase,
			 const atomic_bool *stop)
{
	struct limit_worker *w = &((struct limit_shared *)ctx)->workers[tid];
	if (phase == PHASE_WARMUP) {
		run_loads(w, stop, 0);
		return;
	}
	w->t_start = clock_now_ns();
	w->loads = run_loads(w, stop, w->quota);
	w->t_end = clock_now_ns();
}

static double fraction_done(void *ctx)
{
	const struct limit_shared *s = ctx;
	uint64_t done = 0;
	for (unsigned t = 0; t < s->c->threads; t++)
		done += atomic_load_explicit(&s->workers[t].done,
					     memory_order_relaxed);
	return (double)done / (double)s->c->ops;
}

/* Each worker's generator and share of the loads; NULL when out of memory. */
static struct limit_worker *make_workers(const struct limit_shared *s)
{
	const struct bench_config *c = s->c;
	struct limit_worker *w = aligned_alloc(64, sizeof(*w) * c->threads);
	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w) * c->threads);
	for (unsigned t = 0; t < c->threads; t++) {
		w[t].shared = s;
		rng_seed(&w[t].rng, rng_mix64(c->w.seed ^ (t + 1)));
		w[t].quota = bench_worker_quota(c, LIMIT_BATCH);
	}
	return w;
}

/* The timed phase's loads, as lookups that all succeeded. */
static void collect(const struct limit_shared *s, struct bench_result *r)
{
	uint64_t fail[OP_COUNT] = { 0 };
	for (unsigned t = 0; t < s->c->threads; t++) {
		const struct limit_worker *w = &s->workers[t];
		uint64_t ok[OP_COUNT] = { [OP_LOOKUP] = w->loads };
		bench_result_add(r, ok, fail, NULL, w->t_start, w->t_end);
	}
	bench_result_finish(r, s->c->threads);
}

int limit_run(const struct limit_buffer *b, const struct bench_config *c,
	      struct bench_result *r, char *err, size_t errlen)
{
	struct limit_shared s = { .b = b, .c = c };
	struct team team;
	struct team_config tc = {
		.threads = c->threads, .body = worker_phase, .ctx = &s,
		.progress = c->progress, .progress_arg = c->progress_arg,
		.done_fraction = c->seconds > 0 ? NULL : fraction_done,
	};

	memset(r, 0, sizeof(*r));
	s.workers = make_workers(&s);
	if (!s.workers) {
		snprintf(err, errlen, "out of memory preparing %u workers",
			 c->threads);
		return -ENOMEM;
	}
	int rc = team_start(&team, &tc, err, errlen);
	if (!rc) {
		if (c->warmup > 0)
			team_run_phase(&team, PHASE_WARMUP, c->warmup);
		team_run_phase(&team, PHASE_TIMED, c->seconds);
		team_join(&team);
		collect(&s, r);
	}
	free(s.workers);
	return rc;
}
