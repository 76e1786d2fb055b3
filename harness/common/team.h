/* SPDX-License-Identifier: MIT */
/*
 * team.h: a team of worker threads that run phases in step: what bench,
 * stress and kbench share (spawn, pin, line up, time, stop, join).
 *
 *   main thread                            worker i
 *   ───────────                            ────────
 *   team_start: spawn N threads ─────────► register with RCU (cfg.rcu), claim
 *                                          cpu slot i (cfg.cpu_slots), pin to the
 *                                          i-th CPU this process may use
 *   wait until every worker is set up ◄─── report: ready, or why not
 *   (any failure: all exit, -errno and a message naming the worker)
 *
 *   team_run_phase(p, seconds):
 *     open the gate for phase p ─────────► cfg.body(ctx, i, p, stop): runs until
 *     sleep `seconds` (progress), then        *stop, or until its own quota is met
 *     raise stop; with seconds == 0, let
 *     the bodies stop themselves
 *     wait until every body returned ◄────
 *   ... more phases ...
 *   team_join: the workers unregister and exit; joined
 *
 * While the main thread waits it is offline for RCU (under QSBR an online
 * thread that sleeps would hold up every grace period, and nothing freed
 * with call_rcu would be reclaimed during the run).
 *
 * A pin that fails, a cpu slot held by another thread, a thread that cannot
 * be created: each fails the whole team, never a silent fallback (two
 * workers on one core, or on one slot, measure or test the wrong thing).
 */
#ifndef MAPLAB_TEAM_H
#define MAPLAB_TEAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One phase of one worker.  Must return soon after *stop becomes true. */
typedef void (*team_body)(void *ctx, unsigned worker, unsigned phase,
			  const atomic_bool *stop);

struct team_config {
	unsigned threads;
	bool rcu;        /* each worker registers with RCU for its life */
	bool cpu_slots;  /* worker i claims cpu slot i (maps/base/cpu.h) */
	team_body body;
	void *ctx;
	/* Optional, called about every 100 ms from the main thread with the
	 * fraction of the phase done (seconds elapsed, or done_fraction(ctx)
	 * when the bodies stop themselves). */
	void (*progress)(double done, void *arg);
	void *progress_arg;
	double (*done_fraction)(void *ctx);
};

struct team {
	struct team_config cfg;
	/* private to team.c */
	pthread_t *threads;
	unsigned started;
	int *setup_err;            /* per worker: 0 or -errno */
	int *pinned_cpu;           /* per worker: the CPU id it runs on */
	pid_t *tid;                /* per worker: its thread id (gettid) */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	unsigned arrived;          /* workers that finished setting up */
	unsigned finished;         /* workers done with the current phase */
	unsigned generation;       /* bumped each time the gate opens */
	bool exiting;
	unsigned phase;
	atomic_bool stop;
};

/*
 * Spawn and set up cfg->threads workers.  0, or -errno with a one-line
 * reason in err (nothing is left running).
 */
int team_start(struct team *t, const struct team_config *cfg, char *err,
	       size_t errlen);

/*
 * Run phase `phase` on every worker: for `seconds`, then stop them; or,
 * with seconds == 0, until every body returns on its own.
 */
void team_run_phase(struct team *t, unsigned phase, double seconds);

/* The CPU id worker i is pinned to (after team_start). */
int team_cpu_of(const struct team *t, unsigned worker);

/* Worker i's thread id (after team_start): what a profiler samples. */
pid_t team_tid_of(const struct team *t, unsigned worker);

/* One worker's share of `total` operations: every worker does as many,
 * rounded up, so the team does at least `total`. */
static inline uint64_t team_share(uint64_t total, unsigned threads)
{
	return (total + threads - 1) / threads;
}

/* Tell the workers to exit and join them. */
void team_join(struct team *t);

#endif /* MAPLAB_TEAM_H */
