/* SPDX-License-Identifier: MIT */
/*
 * sampler.h: sampling threads of this process with perf_event_open(2).
 *
 * One software cpu-clock event per thread (pid = the thread's tid, cpu =
 * -1: a per-task event that follows the thread across CPUs; an inherited
 * event cannot be mmapped), sampling IP, TID and the call chain with
 * kernel frames (exclude_kernel = 0: needs root or CAP_PERFMON while
 * kernel.perf_event_paranoid is above 1), every 1e9 / hz ns of the
 * thread's CPU time.  Each event has its own mmapped ring (2 MiB), drained
 * by prof_sampler_drain into a prof_sample_set (ring.h); a ring that fills
 * before it is drained makes the kernel drop samples, counted as `lost`.
 *
 * A cpu-clock sample is taken from a timer interrupt: nothing is sampled
 * while interrupts are off, and the samples of such a section land on the
 * first instruction after it (docs/explain.md).  Each sample costs the
 * sampled thread about 30 us of kernel time on the hosts measured, so the
 * rate is kept near 1 kHz and timings come from unsampled runs.
 *
 * Thread safety: one owner (the main thread); the sampled threads need do
 * nothing.  Start and stop while the sampled threads wait (bench's gate),
 * so that the samples cover the timed phase alone.
 */
#ifndef MAPLAB_PROFILE_SAMPLER_H
#define MAPLAB_PROFILE_SAMPLER_H

#include "harness/profile/ring.h"

#include <stddef.h>
#include <sys/types.h>

#define PROF_DEFAULT_HZ 1000

struct prof_sampler;

/*
 * Whether this process may sample its own threads with kernel call chains.
 * 0; or -EACCES (-EPERM, ...: perf_event_open's own errno) with a one-line
 * reason in why that names the fix (run as root, or lower
 * kernel.perf_event_paranoid to 1); -ENOENT where the kernel has no
 * perf_event_open.
 */
int prof_sampler_check(char *why, size_t whylen);

/*
 * Open, map and enable one event on each of tids[0..n), sampling at hz
 * (1..1e9; the kernel raises periods under 10 us to 10 us).  The events
 * are enabled only once all are open.  0 and *out; or -errno with a
 * one-line reason in err naming the thread (-ESRCH for one that has
 * exited, -EINVAL for hz out of range), *out NULL and nothing left open.
 */
int prof_sampler_start(struct prof_sampler **out, const pid_t *tids,
		       unsigned n, unsigned hz, char *err, size_t errlen);

/* Move every sample in the rings so far into set (the events go on).
 * 0, -ENOMEM, or -EINVAL for a malformed ring; each ring's tail moves past
 * what was there even on an error (a ring that failed once would fail
 * again), so the set may lack some of those samples.  Safe while the
 * sampled threads run; the owner alone drains. */
int prof_sampler_drain(struct prof_sampler *p, struct prof_sample_set *set);

/* Disable every event, then drain.  Same returns as prof_sampler_drain. */
int prof_sampler_stop(struct prof_sampler *p, struct prof_sample_set *set);

/* Close and unmap; NULL is fine. */
void prof_sampler_free(struct prof_sampler *p);

#endif /* MAPLAB_PROFILE_SAMPLER_H */
