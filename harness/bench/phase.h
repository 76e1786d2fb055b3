/* SPDX-License-Identifier: MIT */
/*
 * phase.h: whole-map phases, the three workloads of the kernel's LPM-trie
 * benchmark that a stream of ops cannot hold (bench_lpm_trie_map.c's
 * lpm-trie-insert, -delete and -free; --lpm-op insert|delete|free).
 *
 *   insert   all N prefixes, one after another, BPF_NOEXIST, into an EMPTY
 *            map: one pass, timed; the map emptied again between passes
 *   delete   every key of a FULL map, one after another: one pass, timed;
 *            the map refilled between passes
 *   free     the free of a map of N prefixes: created and filled, untimed;
 *            then freed, timed
 *
 * The prefixes are the workload's key table's entries 0..N-1 (N = its
 * --entries), in that order: the table bench and kbench make
 * (workload_make_keys), so every --prefixes set applies, and the kernel's
 * side walks the very same keys.  N per pass, so the figure is the cost of
 * a whole map's worth of inserts or deletes (ns per key), and of a whole
 * map's free (ns per map, and per prefix).
 *
 * Why rounds and not a stream: an insert into an empty map and a delete
 * from a full one change the map for the next op, so after N of them the
 * map must be brought back (emptied, refilled) before the next pass can
 * mean the same thing.  The kernel's benchmark does that between runs of
 * its program, outside its timing (BPF_MAP_DELETE_BATCH before an insert
 * pass, BPF_MAP_UPDATE_BATCH before a delete pass); so do these rounds:
 *
 *   main thread                        the one worker (cpu slot 0, pinned to
 *   ───────────                        the first CPU this process may use,
 *                                      RCU-registered: as bench's worker 0)
 *   round r:
 *     prepare ───────────────────────► insert: create the map (the first
 *                                      round) or delete its N keys; delete:
 *                                      create or refill it; free: create a
 *                                      new map and fill it.  Then, for
 *                                      insert and delete, an RCU barrier, so
 *                                      nothing the refill retired is still
 *                                      being freed when the clock starts
 *     observer's begin, map's work ──► timed: the pass (one RCU read section
 *     (the worker waits at the gate)     per BENCH_BATCH keys, as bench's
 *                                        batches), or the free
 *     observer's end, map's work
 *   until the timed parts add up to --duration (or their keys to --ops; at
 *   least one round), after untimed warm-up rounds for --warmup s
 *
 * Single thread: the kernel's benchmark runs one producer for these three
 * (its validate refuses more), since concurrent passes would insert and
 * delete one another's keys.
 *
 * The free, and where its time goes.  A design's destroy (map_ops.destroy)
 * first waits for every RCU callback the map queued (rcu_barrier: nodes
 * that its fill replaced and retired), then walks its structure and frees
 * it.  The timed part measures the two apart:
 *
 *   t_wait     map_rcu_barrier() just before destroy: the wait for what the
 *              map handed to RCU, and one barrier's round trip
 *   t_destroy  map_destroy(): the walk and the frees, and destroy's own
 *              barrier, which now has nothing of the map's to wait for
 *   t_idle     map_rcu_barrier() just after: a barrier with nothing to wait
 *              for, the price of that own barrier
 *
 *   free = t_wait + t_destroy;  RCU = t_wait + min(t_idle, t_destroy);
 *   walk and free = t_destroy - min(t_idle, t_destroy)
 *
 * so the two parts add up to the whole.  (Called alone, destroy's one
 * barrier would wait for the callbacks itself: about t_wait, plus the
 * walk.)  The kernel's free is timed whole (kbench.h: bpf_map_free_deferred
 * between an fentry and an fexit program), and has no such split.
 *
 * Keys and values: each pass writes one value, the same for every key (the
 * kernel's benchmark writes 1); the fill before a free and the refill
 * before a delete write workload_fill_value's k-th, as bench's prefill.
 */
#ifndef MAPLAB_PHASE_H
#define MAPLAB_PHASE_H

#include "harness/bench/bench.h"

#include <stdbool.h>
#include <stdint.h>

/* "lookup", "update", "insert", "delete", "free"; "none" for
 * BENCH_LPM_NONE. */
const char *bench_lpm_op_name(enum bench_lpm_op op);

/* The op called name (one of the five above), into *op: 0, or -1. */
int bench_lpm_op_parse(const char *name, enum bench_lpm_op *op);

/* Whether op is a whole-map phase (insert, delete, free): run by
 * bench_phase_run, on one thread. */
static inline bool bench_lpm_op_is_phase(enum bench_lpm_op op)
{
	return op == BENCH_LPM_INSERT || op == BENCH_LPM_DELETE ||
	       op == BENCH_LPM_FREE;
}

/* The bench op a phase's map calls are counted as (OP_INSERT, OP_DELETE);
 * OP_COUNT for free, which makes none. */
enum bench_op bench_lpm_op_counted_as(enum bench_lpm_op op);

/* What one round's timed part did, as an engine reports it. */
struct bench_phase_round {
	uint64_t ns;      /* the timed part's time */
	uint64_t keys;    /* keys it covered: N (a free: the map's N) */
	uint64_t ok, fail;/* its map calls (none for a free) */
	double rcu_ns, walk_ns; /* a free's two parts (above); NaN: not told
				   apart */
	/* The kernel's pass: its program's and its baseline's times (ns
	 * is the first less the second); 0 elsewhere. */
	double program_ns, baseline_ns;
};

/* The timed rounds' sums beside the result, for a caller that wants
 * them (the kernel's side: its programs' times). */
struct bench_phase_sums {
	uint64_t rounds;
	double program_ns, baseline_ns;
};

/*
 * What a side does in a round, on the team's one worker (the design's
 * side here, the kernel's in kernel-compare/kbench_phase.c).  Each returns
 * 0, or -errno with a one-line reason in err, which ends the run.
 */
struct bench_phase_engine {
	/* Untimed: bring the map to where the timed part starts from. */
	int (*prepare)(void *ctx, char *err, size_t errlen);
	/* Timed: the pass or the free, into *out. */
	int (*timed)(void *ctx, struct bench_phase_round *out, char *err,
		     size_t errlen);
	/* Optional: the map's work so far (map_ops.work), read from the main
	 * thread while the worker waits; false where it counts none. */
	bool (*work)(void *ctx, struct map_work *out);
	void *ctx;
	bool rcu;         /* the worker registers with RCU and claims cpu slot
			     0 (a design's side) */
};

/*
 * Rounds of e on one pinned worker, for c (c->lpm_op a phase; c->threads
 * 1): warm-up rounds for c->warmup s, then timed rounds until their timed
 * parts add up to c->seconds (c->seconds 0: until their keys reach
 * c->ops), at least one.  c->observer is told around each timed part, and
 * c->progress between rounds.  Into r: ops (keys, over every timed part),
 * ok and fail (as bench_lpm_op_counted_as), seconds (the timed parts'
 * sum), mops, ns_per_op (ns per key; a free's: per prefix), the work of
 * the timed parts where e counts it; a free's maps_freed and free_ns,
 * free_rcu_ns, free_walk_ns per map; and into *sums (NULL: not wanted)
 * the timed rounds' count and program and baseline times.  0, or -errno
 * with a reason in err.
 */
int bench_phase_drive(const struct bench_config *c,
		      const struct bench_phase_engine *e,
		      struct bench_result *r, struct bench_phase_sums *sums,
		      char *err, size_t errlen);

/*
 * The phase c->lpm_op (insert, delete or free) on design c->design, with
 * c->w's keys (made for the design's map type, as bench_run makes them):
 * bench_phase_drive with the design's engine (above).  r->memory: the
 * full map's, the first time it is full (bench.h's figure: design count,
 * or the allocator's bytes).  -EINVAL (with a reason) for more than one
 * thread or an op that is not a phase.  bench_run calls it for such a c.
 */
int bench_phase_run(const struct bench_config *c, struct bench_result *r,
		    char *err, size_t errlen);

#endif /* MAPLAB_PHASE_H */
