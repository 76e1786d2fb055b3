/* SPDX-License-Identifier: MIT */
#include "harness/common/team.h"
#include "harness/common/clock.h"
#include "maps/base/cpu.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct member {
	struct team *team;
	unsigned index;
};

static int set_up_worker(struct team *t, unsigned i)
{
	if (t->cfg.rcu)
		map_thread_online();
	if (t->cfg.cpu_slots) {
		int slot = map_cpu_claim((int)i);
		if (slot < 0)
			return slot;
	}
	t->tid[i] = gettid();
	int cpu = map_cpu_pin(i);
	if (cpu >= 0)
		t->pinned_cpu[i] = cpu;
	return cpu < 0 ? cpu : 0;
}

static void tear_down_worker(struct team *t)
{
	if (t->cfg.cpu_slots)
		map_cpu_release();
	if (t->cfg.rcu)
		map_thread_offline();
}

struct gate_wait {
	struct team *t;
	unsigned *seen;
};

/* Lock held: wait for the gate to open again. */
static void wait_at_gate(void *arg)
{
	struct gate_wait *g = arg;
	while (g->t->generation == *g->seen)
		pthread_cond_wait(&g->t->changed, &g->t->lock);
}

static void *worker_main(void *arg)
{
	struct member *m = arg;
	struct team *t = m->team;
	unsigned i = m->index;
	free(m);

	int err = set_up_worker(t, i);
	pthread_mutex_lock(&t->lock);
	t->setup_err[i] = err;
	t->arrived++;
	pthread_cond_broadcast(&t->changed);
	unsigned seen = t->generation;
	struct gate_wait gate = { t, &seen };
	for (;;) {
		/* Offline while it waits: under QSBR an idle online worker
		 * (one whose quota is done while others run on) would hold
		 * up every grace period. */
		map_rcu_offline_call(wait_at_gate, &gate);
		seen = t->generation;
		if (t->exiting)
			break;
		unsigned phase = t->phase;
		pthread_mutex_unlock(&t->lock);
		t->cfg.body(t->cfg.ctx, i, phase, &t->stop);
		pthread_mutex_lock(&t->lock);
		t->finished++;
		pthread_cond_broadcast(&t->changed);
	}
	pthread_mutex_unlock(&t->lock);
	tear_down_worker(t);
	return NULL;
}

/* Open the gate: a new generation, for a phase or for exit. */
static void open_gate(struct team *t, bool exiting, unsigned phase)
{
	pthread_mutex_lock(&t->lock);
	t->exiting = exiting;
	t->phase = phase;
	t->finished = 0;
	atomic_store(&t->stop, false);
	t->generation++;
	pthread_cond_broadcast(&t->changed);
	pthread_mutex_unlock(&t->lock);
}

static void join_started(struct team *t)
{
	open_gate(t, true, 0);
	for (unsigned i = 0; i < t->started; i++)
		pthread_join(t->threads[i], NULL);
	t->started = 0;
}

static void free_team(struct team *t)
{
	pthread_cond_destroy(&t->changed);
	pthread_mutex_destroy(&t->lock);
	free(t->threads);
	free(t->setup_err);
	free(t->pinned_cpu);
	free(t->tid);
	t->threads = NULL;
	t->tid = NULL;
	t->setup_err = t->pinned_cpu = NULL;
}

static void wait_arrivals(struct team *t)
{
	pthread_mutex_lock(&t->lock);
	while (t->arrived < t->started)
		pthread_cond_wait(&t->changed, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

static void describe_setup_error(const struct team *t, unsigned i, char *err,
				 size_t errlen)
{
	int e = -t->setup_err[i];
	if (e == EBUSY && t->cfg.cpu_slots)
		snprintf(err, errlen, "worker %u needs cpu slot %u, which another "
			 "thread of this process holds", i, i);
	else if (t->cfg.cpu_slots && e == EINVAL && i >= MAP_MAX_CPUS)
		snprintf(err, errlen, "worker %u: no cpu slot %u (at most %d)", i,
			 i, MAP_MAX_CPUS);
	else
		snprintf(err, errlen, "cannot pin worker %u to cpu %d: %s", i,
			 map_cpu_allowed_id(i % map_cpu_allowed_count()),
			 map_errno_text(e));
}

int team_start(struct team *t, const struct team_config *cfg, char *err,
	       size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->changed, &attr);
	pthread_condattr_destroy(&attr);
	t->threads = calloc(cfg->threads, sizeof(*t->threads));
	t->setup_err = calloc(cfg->threads, sizeof(*t->setup_err));
	t->pinned_cpu = calloc(cfg->threads, sizeof(*t->pinned_cpu));
	t->tid = calloc(cfg->threads, sizeof(*t->tid));
	if (!t->threads || !t->setup_err || !t->pinned_cpu || !t->tid) {
		free_team(t);
		snprintf(err, errlen, "out of memory for %u threads", cfg->threads);
		return -ENOMEM;
	}
	int rc = 0;
	for (; t->started < cfg->threads; t->started++) {
		struct member *m = malloc(sizeof(*m));
		if (m)
			*m = (struct member){ t, t->started };
		rc = m ? -pthread_create(&t->threads[t->started], NULL,
					 worker_main, m) : -ENOMEM;
		if (rc) {
			free(m);
			snprintf(err, errlen, "cannot start worker thread %u of %u: "
				 "%s", t->started, cfg->threads,
				 map_errno_text(-rc));
			break;
		}
	}
	wait_arrivals(t);
	for (unsigned i = 0; i < t->started && !rc; i++)
		if (t->setup_err[i]) {
			rc = t->setup_err[i];
			describe_setup_error(t, i, err, errlen);
		}
	if (rc) {
		join_started(t);
		free_team(t);
	}
	return rc;
}

struct phase_wait {
	struct team *t;
	double seconds;
};

/* Wait on the team's condition until every body returned or the clock
 * reaches until_ns (CLOCK_MONOTONIC).  Lock held.  True when all returned. */
static bool wait_finished_until(struct team *t, uint64_t until_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(until_ns / 1000000000ULL),
			       .tv_nsec = (long)(until_ns % 1000000000ULL) };
	while (t->finished < t->started)
		if (pthread_cond_timedwait(&t->changed, &t->lock, &ts) == ETIMEDOUT)
			return t->finished == t->started;
	return true;
}

/* Progress every 100 ms; stop the bodies at the deadline (if timed), or
 * as soon as all of them returned on their own. */
static void wait_for_phase(void *arg)
{
	struct phase_wait *pw = arg;
	struct team *t = pw->t;
	const struct team_config *c = &t->cfg;
	const uint64_t tick = 100000000ULL;
	uint64_t t0 = clock_now_ns(), end = t0 + (uint64_t)(pw->seconds * 1e9);
	bool done = false;

	pthread_mutex_lock(&t->lock);
	while (!done) {
		uint64_t now = clock_now_ns();
		if (pw->seconds > 0 && now >= end)
			break;
		if (c->progress) {
			pthread_mutex_unlock(&t->lock);
			c->progress(pw->seconds > 0
					    ? (double)(now - t0) / (pw->seconds * 1e9)
				    : c->done_fraction ? c->done_fraction(c->ctx) : 0,
				    c->progress_arg);
			pthread_mutex_lock(&t->lock);
		}
		uint64_t until = now + tick;
		if (pw->seconds > 0 && until > end)
			until = end;
		done = wait_finished_until(t, until);
	}
	atomic_store(&t->stop, true);
	while (t->finished < t->started)
		pthread_cond_wait(&t->changed, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

void team_run_phase(struct team *t, unsigned phase, double seconds)
{
	struct phase_wait pw = { t, seconds };
	open_gate(t, false, phase);
	map_rcu_offline_call(wait_for_phase, &pw);
}

int team_cpu_of(const struct team *t, unsigned worker)
{
	return t->pinned_cpu[worker];
}

pid_t team_tid_of(const struct team *t, unsigned worker)
{
	return t->tid[worker];
}

void team_join(struct team *t)
{
	join_started(t);
	free_team(t);
}
