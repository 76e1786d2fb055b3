/* SPDX-License-Identifier: MIT */
/*
 * kbench_runner.h: what kbench's two engines (kbench_prog.c, the BPF
 * programs; kbench_syscall.c, bpf(2) from userspace) share.  Private to
 * kernel-compare.
 *
 *   kb_runner_prepare        refuse a point this machine cannot run (more
 *                          threads than CPUs the process may use); build the
 *                          keys and each worker's stream, as bench does
 *   kb_runner_create_target  create the kernel map of the config (type, sizes,
 *                          flags), prefill it with bench's keys and values,
 *                          and read its memory as the kernel counts it
 *   kb_runner_run_team       the thread team (harness/common/team.h): worker i
 *                          pinned to the i-th CPU this process may use; a
 *                          warm-up phase, then the timed phase (--duration,
 *                          or until every worker has done its quota); an
 *                          LRU map's keys counted around the timed phase
 *   kb_runner_evictions      the timed phase's evictions, from those counts
 *   kb_runner_free
 *
 * The kernel keeps no count of its LRU's evictions that userspace can
 * read, but every key that leaves the map without a delete was evicted,
 * so over the timed phase (no other writer):
 *
 *   evictions = inserts that succeeded - deletes that succeeded
 *               - (keys at the end - keys at the start)
 *
 * (an update, successful or not, can evict too: the kernel takes a free
 * element before it looks the key up, as the userspace designs do).  An
 * upsert, a replace or a lookup_write may or may not add a key, and its
 * count does not say which: a run with any of them has no eviction count.
 * The
 * keys are counted while every worker waits at the team's gate, by
 * BPF_MAP_LOOKUP_BATCH walks (about 17 ms for 64K keys here).
 *
 * One kb_runner serves one run; the main thread owns it, and the workers
 * only read it (each writes only to its engine's per-worker record).
 */
#ifndef MAPLAB_KBENCH_RUNNER_H
#define MAPLAB_KBENCH_RUNNER_H

#include "kernel-compare/kbench.h"
#include "harness/common/clock.h"
#include "harness/common/team.h"

#include <stdatomic.h>
#include <stdint.h>

/* A worker's ops so far in the timed phase, on a line of its own: written
 * by the worker, read (relaxed, for progress only) by the main thread. */
struct kb_done {
	_Atomic uint64_t ops;
} __attribute__((aligned(64)));

struct kb_runner {
	/* The caller's config as the kernel map takes it: the workload of its
	 * type (workload_for_type: an LPM trie's keys, or a hash's address
	 * bytes in a prefix workload) and the flags the type requires
	 * (bench_map_flags).  c points to it: the engines read only c. */
	struct kbench_config own;
	const struct kbench_config *c;
	uint8_t *keys;          /* key i at keys + i * key_size */
	struct stream *streams; /* one per worker: bench's streams, as long
				   (workload_stream_len) */
	size_t stream_slot;     /* room for the longest stream */
	/* Keys in the map when the timed phase starts and ends, where
	 * kb_runner_run_team counted them (keys_counted). */
	bool keys_counted;
	uint64_t keys_before, keys_after;
	int target_fd;          /* the kernel map, or -1 before it is created */
	uint64_t quota;         /* map calls per worker when counting ops
				   (c->b.seconds == 0); else 0 */
	struct kb_done *done;   /* one per worker */
	/* The target map's memory after the prefill, by the kernel's own
	 * accounting (the memlock line of its fd's fdinfo), for the
	 * engines' results; from NONE where the kernel shows none. */
	struct bench_memory memory;
};

enum kb_phase { KB_PHASE_WARMUP, KB_PHASE_TIMED };

/* How an engine runs its workers on the team. */
struct kb_team_plan {
	team_body body;       /* called with phase KB_PHASE_WARMUP or _TIMED */
	void *ctx;
	bool warmup;          /* run a warm-up phase (for c->b.warmup s) */
	/* Count an LRU map's keys around the timed phase, for its evictions
	 * (an engine whose ok counts are its inserts and deletes). */
	bool evictions;
	/* Optional: called once every worker is pinned, before any phase,
	 * with the team (team_cpu_of gives each worker's CPU id).  0, or
	 * -errno with a reason in err, which ends the run. */
	int (*pinned)(void *ctx, const struct team *team, char *err,
		      size_t errlen);
};

/* 0, or -errno (-EOPNOTSUPP for a point this machine cannot run) with a
 * one-line reason in err.  On success kb_runner_free must follow. */
int kb_runner_prepare(struct kb_runner *k, const struct kbench_config *c,
		    char *err, size_t errlen);

/* Create and prefill k->target_fd, then read k->memory.  0, or the
 * kernel's -errno with a reason in err. */
int kb_runner_create_target(struct kb_runner *k, char *err, size_t errlen);

/* Start the team, run its phases, join.  0, or -errno with a reason in err
 * (a worker that cannot be started or pinned, what plan->pinned says, a
 * count of the map's keys that failed). */
int kb_runner_run_team(struct kb_runner *k, const struct kb_team_plan *plan,
		     char *err, size_t errlen);

/* r's evictions (r->has_evictions), from r's ok counts and the keys
 * counted around the timed phase; nothing where none were counted. */
void kb_runner_evictions(const struct kb_runner *k, struct bench_result *r);

void kb_runner_free(struct kb_runner *k);

/*
 * For the whole-map phases (kbench_phase.c): k with the keys of c's
 * workload and ONE stream, of the N ops `op` on keys 0..N-1 in order (an
 * insert or a delete pass, as harness/bench/phase.h's), so that the
 * workload's program makes one pass in a run of c->ops_per_run = N steps.
 * kb_runner_create_target then makes the map, filled with the workload's
 * prefill (0 %: empty; 100 %: full).  0, or -errno with a reason in err;
 * on success kb_runner_free must follow.
 */
int kb_runner_prepare_pass(struct kb_runner *k, const struct kbench_config *c,
			   enum bench_op op, char *err, size_t errlen);

/* The kernel's own count of map fd's bytes (the memlock line of its
 * fdinfo), as a memory figure over max_entries; from NONE where the
 * kernel shows none. */
struct bench_memory kb_runner_kernel_memory(int fd, uint32_t max_entries);

/* --- the programs of bpf/kbench.bpf.c (kbench_prog.c) --------------------------- */

struct kbench;
struct bpf_program;

struct kb_programs {
	struct kbench *skel;
	struct bpf_program *prog;      /* the workload's program */
	int prog_fd, base_fd, cpus_fd; /* it, kb_baseline, the cpus array */
};

/*
 * The programs for k: the object opened and sized for k's keys and
 * streams and its target map (k->target_fd), its step count
 * k->c->ops_per_run; the workload's program (picked by its streams' ops)
 * and the baseline loaded, alone; the keys and streams copied into their
 * arrays.  No CPU gets a stream: the caller writes the records.  0, or
 * -errno with a reason in err; kb_programs_free must follow either way.
 */
int kb_programs_load(struct kb_programs *p, const struct kb_runner *k,
		     char *err, size_t errlen);
void kb_programs_free(struct kb_programs *p);

/* One BPF_PROG_TEST_RUN of fd with `repeat`: the kernel's mean time per
 * run, ns.  0, -EFAULT where the program aborted, or the syscall's -errno. */
int kb_test_run(int fd, unsigned repeat, double *mean_ns);

/* kbench_run's engine for a stream of ops: BPF programs over the
 * workload's streams (kbench_prog.c). */
int kbench_prog_run(const struct kbench_config *c, struct kbench_result *r,
		    char *err, size_t errlen);

/* The LPM benchmark's insert, delete or free on the kernel's map
 * (kbench_phase.c; kbench_run, kbench_run.c, calls it for such a
 * c->b.lpm_op). */
int kbench_phase_run(const struct kbench_config *c, struct kbench_result *r,
		     char *err, size_t errlen);

/* Worker `worker` has done `ops` ops of the timed phase (for progress). */
static inline void kb_runner_done(const struct kb_runner *k, unsigned worker,
				uint64_t ops)
{
	atomic_store_explicit(&k->done[worker].ops, ops, memory_order_relaxed);
}


#endif /* MAPLAB_KBENCH_RUNNER_H */
