/* SPDX-License-Identifier: MIT */
/*
 * bench.h: one benchmark run: a design, a workload, a thread count.
 *
 *   main thread                     worker i (a thread of harness/common/team.h:
 *                                   cpu slot i, pinned to the i-th CPU this
 *                                   process may use)
 *   ───────────                     ────────────────────────────────────────────
 *   build the keys and every        ──
 *   worker's op stream; read the
 *   allocator; create the map,
 *   prefill, rcu_barrier, read the
 *   map's memory (below)
 *   team_start ────────────────────► register, claim, pin
 *   phase warm-up (--warmup s) ─────► replay the stream, untimed
 *   phase timed (--duration s, ────► replay the stream in batches of BATCH
 *   or until every quota is done)     ops, one RCU read section per batch;
 *                                     one op in sample_every is timed alone
 *                                     (bench_sample_every);
 *                                     record its own start and end times
 *   join, merge, destroy map
 *
 * The map's memory: its bytes after the prefill, over max_entries, is its
 * bytes per entry (of max_entries, not of the live keys: a map that
 * preallocates pays for the entries it may hold).  The bytes are the
 * design's own count where it keeps one (map_ops.memory), else the
 * allocator's: jemalloc's allocated bytes (memstat.h) after the prefill and
 * an RCU barrier (so nothing the prefill retired is still pending) less
 * those before map_create.  Everything else the run allocates (keys,
 * sampler, streams) is allocated before the first reading, so the delta is
 * the map's alone.  A libc build has no allocator count: a design without
 * its own has no figure there (BENCH_MEMORY_NONE), never a wrong one.
 *
 * The design's work (map_ops.work: evictions, refills, list nodes scanned,
 * locks taken) is read from the map, every slot together, when the timed
 * phase starts and when it ends: the workers wait at the team's gate
 * then, so both reads are exact, and the difference is the timed ops'
 * own work (not the prefill's, not the warm-up's).
 *
 * A batch is one RCU read section and ends with an RCU quiescent state,
 * as a BPF program runs a loop of map calls under one rcu_read_lock.
 * Throughput comes from whole-run time; latency percentiles from the
 * sampled ops (each sample includes one clock read, about 25 ns here:
 * compare with the noop design's figures).  A sample's two clock reads
 * are in the run's time too, so they are taken rarely enough to cost at
 * most 1 % of it: one op in 64 cost 0.8 ns an op, a tenth of a fast
 * hash lookup, which the kernel's side (timed once per run) never pays
 * (docs/bench.md, "What a run does").
 */
#ifndef MAPLAB_BENCH_H
#define MAPLAB_BENCH_H

#include "harness/bench/histogram.h"
#include "harness/workload/workload.h"
#include "maps/base/map.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define BENCH_BATCH 256
/* One op in this many is timed when the run has no warm-up to price its
 * ops by (and in kbench's syscall loop, whose ops cost hundreds of ns). */
#define BENCH_SAMPLE_EVERY 64
#define BENCH_SAMPLE_EVERY_MAX 65536
/* The key of the op this many ops ahead is prefetched: the keys are the
 * harness's, read at random from a table as large as the key range (4 MB
 * at 1M 4-byte keys), and a miss there would be counted as the map's. */
#define BENCH_KEY_AHEAD 16

/*
 * Told when the timed phase begins and ends, from the main thread, while
 * every worker waits at the team's gate: what it does there is not timed,
 * and what it sees between the two calls is the timed phase alone.  A
 * sampling profiler (harness/profile) starts and stops there.  Any error
 * is the observer's to keep: the run goes on.
 */
struct bench_observer {
	/* workers: the workers' thread ids (team_tid_of), n of them */
	void (*timed_begin)(void *arg, const pid_t *workers, unsigned n);
	void (*timed_end)(void *arg);
	void *arg;
};

/*
 * The five workloads of the kernel's own LPM-trie benchmark
 * (tools/testing/selftests/bpf/benchs/bench_lpm_trie_map.c and
 * progs/lpm_trie_bench.c), as --lpm-op names them.  lookup and update are
 * bench's mixes (lookup=100, update=100 on a full map); insert, delete and
 * free are whole-map phases, run by bench_phase_run (phase.h).  The
 * numbers are kept: records name them by bench_lpm_op_name.
 */
enum bench_lpm_op {
	BENCH_LPM_NONE,   /* not the LPM benchmark's workload */
	BENCH_LPM_LOOKUP, /* lookups in a full map */
	BENCH_LPM_UPDATE, /* BPF_EXIST updates of its present keys */
	BENCH_LPM_INSERT, /* all N prefixes into an empty map, BPF_NOEXIST */
	BENCH_LPM_DELETE, /* every key of a full map */
	BENCH_LPM_FREE,   /* the free of a map of N prefixes */
	BENCH_LPM_COUNT
};

struct bench_config {
	const struct map_ops *design;
	struct workload w;
	/* BENCH_LPM_NONE, or the LPM benchmark's workload: its insert,
	 * delete and free go to bench_phase_run (phase.h), not bench_run;
	 * its lookup and update are the mixes w holds. */
	enum bench_lpm_op lpm_op;
	uint32_t map_flags;
	unsigned threads;
	double seconds;   /* timed duration; 0 means run ops */
	uint64_t ops;     /* total ops across threads when seconds == 0 */
	double warmup;    /* seconds */
	/* Called about every 100 ms from the main thread with the fraction
	 * done (0..1); NULL for none. */
	void (*progress)(double done, void *arg);
	void *progress_arg;
	/* NULL for none (kbench's runs honour it too) */
	const struct bench_observer *observer;
};

/* Where a map's memory figure came from. */
enum bench_memory_from {
	BENCH_MEMORY_NONE,      /* no figure */
	BENCH_MEMORY_DESIGN,    /* the design's count (map_ops.memory) */
	BENCH_MEMORY_ALLOCATOR, /* jemalloc's allocated bytes, a delta */
	BENCH_MEMORY_KERNEL,    /* the kernel's own accounting of its map (the
				   memlock line of the map fd's fdinfo) */
};

/* "design", "allocator", "kernel"; NULL for BENCH_MEMORY_NONE. */
const char *bench_memory_from_name(enum bench_memory_from from);

/* A map's memory after the prefill. */
struct bench_memory {
	enum bench_memory_from from; /* which reading `bytes` is */
	double bytes;                /* the figure reported; NaN: none */
	double bytes_per_entry;      /* bytes / max_entries */
	/* Both userspace readings, NaN where not taken: the design's count
	 * (a design without map_ops.memory has none) and the allocator's
	 * delta (a libc build has none). */
	double design_bytes, allocator_bytes;
};

struct bench_result {
	uint64_t ops;
	uint64_t ok[OP_COUNT], fail[OP_COUNT];
	double seconds;   /* first start to last end */
	double mops;      /* ops / seconds / 1e6, all threads */
	double ns_per_op; /* per thread: threads * seconds / ops */
	struct histogram latency;
	uint64_t prefilled;
	uint64_t t_first, t_last; /* ns: first worker's start, last one's end */
	/* The timed ops' work: has_work when the design counts it (every
	 * member), has_evictions when only the evictions are known (the
	 * kernel's map: from its size, kernel-compare/kbench.h). */
	bool has_work, has_evictions;
	struct map_work work;
	/* The map's memory after the prefill (above); from NONE and bytes 0
	 * where a result was not made by bench_run (zeroed). */
	struct bench_memory memory;
	/* One op in sample_every was timed alone (bench_sample_every); 0
	 * where a result was not made by bench_run. */
	uint32_t sample_every;
	/* --lpm-op free (phase.h): the maps freed (0: not a free), and per
	 * map the time of the whole free and, where the side can tell them
	 * apart (a design's; NaN for the kernel's), of its wait for RCU and
	 * of its walk and free, ns: rcu_ns + walk_ns = free_ns. */
	uint64_t maps_freed;
	double free_ns, free_rcu_ns, free_walk_ns;
	/* What timed a free where it is not the side's own clock (the
	 * kernel's: "fentry", or "workqueue_tracepoints"); NULL otherwise. */
	const char *free_timer;
};

/*
 * How often to time an op alone, given what an op cost in the warm-up
 * (ns, per thread) and what one clock read costs (ns): the least power of
 * two n for which a sample's two reads are at most 1 % of n ops' time,
 * within 1 and BENCH_SAMPLE_EVERY_MAX; BENCH_SAMPLE_EVERY when either
 * figure is not a positive number.
 */
uint32_t bench_sample_every(double op_ns, double clock_ns);

/*
 * Whether design serves `threads` worker threads at once (its
 * map_ops.max_threads; a NULL design, the kernel's map, has no limit):
 * 0, or -EUSERS with a one-line reason in err that names the design and
 * its limit.  bench_run checks it before it starts a thread; a command
 * checks it up front, before its first run.
 */
int bench_threads_fit(const struct map_ops *design, unsigned threads,
		      char *err, size_t errlen);

/* 0, or a negative errno with a one-line reason in err.  Keys are made for
 * the design's map type when c->w.type is 0 (workload_for_type), and the
 * map gets the flags its type requires (bench_map_flags); a thread count
 * past the design's limit is -EUSERS (bench_threads_fit).  A c whose
 * lpm_op is a whole-map phase is run by bench_phase_run (phase.h). */
int bench_run(const struct bench_config *c, struct bench_result *r,
	      char *err, size_t errlen);

/* bench_run's engine for a stream of ops (bench.c; run.c picks it): the
 * threads, the prefill, the timed repeats. */
int bench_stream_run(const struct bench_config *c, struct bench_result *r,
		     char *err, size_t errlen);

/*
 * A design's memory as bench_run measures it, without the run: c's map
 * (c->design with the workload's sizes, c->map_flags and the cpu slots of
 * c->threads) created, prefilled, measured and destroyed.  0, or a
 * negative errno with a one-line reason in err.  The caller must not be
 * inside an RCU read section.
 */
int bench_footprint(const struct bench_config *c, struct bench_memory *out,
		    char *err, size_t errlen);

/*
 * One result from many workers (bench's, kbench's syscall side): add each
 * worker's counts, sampled latencies (may be NULL) and start and end times,
 * then finish: seconds from the first start to the last end, Mops/s of all
 * threads, ns per op per thread.
 */
void bench_result_add(struct bench_result *r, const uint64_t ok[OP_COUNT],
		      const uint64_t fail[OP_COUNT],
		      const struct histogram *latency, uint64_t t_start,
		      uint64_t t_end);
void bench_result_finish(struct bench_result *r, unsigned threads);

/* A worker's ops when c counts ops (c->seconds == 0): its share of
 * c->ops, rounded up to whole batches of `batch` ops, so a batch is never
 * cut; 0 (no quota: run until stopped) when c runs for a duration. */
static inline uint64_t bench_worker_quota(const struct bench_config *c,
					  unsigned batch)
{
	if (c->seconds > 0)
		return 0;
	uint64_t share = (c->ops + c->threads - 1) / c->threads;
	return (share + batch - 1) / batch * batch;
}

/* flags, and those no map of `type` can be created without: an LPM trie
 * needs BPF_F_NO_PREALLOC (the kernel, and every LPM design, refuse it
 * otherwise), so bench, kbench and compare add it to every LPM map they
 * create, the kernel's too.  Not a mode: no LPM trie is made without it. */
static inline uint32_t bench_map_flags(uint32_t type, uint32_t flags)
{
	return flags | (type == MAP_TYPE_LPM_TRIE ? MAP_F_NO_PREALLOC : 0);
}

/* Whether c->design takes the map bench_run would create for c (its
 * type, sizes, flags and cpu slots): 0, or the design's -errno. */
int bench_design_accepts(const struct bench_config *c);

/* c as bench_run runs it: the keys of the design's map type (unless
 * c->w.type names one) and the flags that type requires. */
struct bench_config bench_config_typed(const struct bench_config *c);

/* The map the run created for c (attr as bench_run makes it: the design's
 * type, the workload's sizes, c->map_flags, the cpu slots of c->threads). */
struct map_attr bench_map_attr(const struct bench_config *c);

/*
 * m's memory now, as bench_run measures it after its prefill: the
 * design's count, and the allocator's bytes less `before` (read just
 * before m was created; NULL: none), after an RCU barrier.  The caller
 * must be an RCU-registered thread outside any read section.
 */
struct bench_memory bench_memory_of(struct map *m, const size_t *before);

struct team;
/* Call o's timed_begin (begin: with the team's thread ids) or timed_end;
 * nothing where o is NULL.  For the drivers of a team (bench, kbench). */
void bench_observe_timed(const struct bench_observer *o,
			 const struct team *team, bool begin);

/* The no-op design: every call returns at once.  It prices the harness
 * itself (loop, key fetch, dispatch, sampling).  Not in the registry. */
extern const struct map_ops bench_noop_ops;

#endif /* MAPLAB_BENCH_H */
