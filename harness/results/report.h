/* SPDX-License-Identifier: MIT */
/*
 * report.h: a point's repeats summed up into figures with their spread, the
 * flags on figures that cannot be true, and the point as a "result" record
 * (record.h), which record.h's one writer prints as a table row, JSON lines
 * or CSV.
 *
 * A point is one side (user, kernel, syscall, syscall-batch) on one map at
 * one thread count, measured --repeat times.  Every figure of the point is
 * the median of that figure over the repeats (a per-field median: the
 * Mops/s and the ns/op of a record need not come from the same run), with
 * the least and the greatest beside it.  A ratio (a speed-up, a side's cost
 * over the kernel's) is taken within each repeat, between runs made side by
 * side, and then summed up the same way: on a noisy machine only ratios
 * measured side by side mean anything.
 *
 * jsonl: a first line {"record":"host",...} (docs/design.md's host record), then
 * one {"record":"result",...} per point: side, map, label (its name in
 * tables), mix, dist, threads, entries, key_range (range workloads only),
 * prefixes and hit_ratio (prefix workloads only), key_size, value_size, prefill, map_flags, runs, then each figure F
 * measured (ops, seconds, mops, ns_per_op, p50_ns, p90_ns, p99_ns, p999_ns;
 * program_ns_per_op and baseline_ns_per_op on the kernel side; speedup and
 * kernel_ratio where derived; the work of designs that count it:
 * evictions (a count per run), evictions_per_op, nodes_scanned_per_op,
 * locks_per_op, evictions_per_refill, allocations_per_op, lock_ns_per_op
 * (designs that time their locks); the map's memory: bytes_per_entry,
 * its bytes after the prefill over max_entries, followed by memory_from,
 * where the bytes came from: "design" (map_ops.memory), "allocator"
 * (jemalloc's count) or "kernel" (the kernel map's memlock); buffer_bytes,
 * the size of the loads side's buffer; probe_ns) as F, F_min and F_max,
 * then speedup_over_threads (where there is a speedup), mops_runs,
 * ns_per_op_runs and probe_ns_runs (every repeat's value, in order: a
 * ratio between two sides of one run is taken repeat by repeat from
 * them), flags, and the ok and
 * fail counts of every op summed over the repeats; then, for the kernel's
 * LPM benchmark's workloads (--lpm-op), lpm_op ("lookup", "update",
 * "insert", "delete", "free") and a free's figures: maps_freed (summed
 * over the repeats), free_ms (ms per map), free_rcu_ms and free_walk_ms
 * (a design's RCU wait and walk and frees, per map), each with its spread,
 * and free_timer (the kernel's: "fentry" or "workqueue_tracepoints")
 * (ns_per_op is then ns per key, a free's ns per prefix).  csv has the same
 * fields but speedup_over_threads and the two lists, each figure as F,
 * F_min, F_max, the counts as lookup_ok, lookup_fail, ...; a field not
 * measured left empty (key_range in the pool model, memory_from where no
 * memory was measured), memory_from in the column after
 * bytes_per_entry_max.
 */
#ifndef MAPLAB_REPORT_H
#define MAPLAB_REPORT_H

#include "harness/bench/bench.h"
#include "harness/results/host.h"
#include "harness/results/record.h"

#include <stdbool.h>
#include <stdio.h>

/* record.h's formats, under the name the option engine (cli/options.c)
 * knows them by. */
enum report_format {
	REPORT_TABLE = RECORD_TABLE,
	REPORT_JSONL = RECORD_JSONL,
	REPORT_CSV = RECORD_CSV,
};

/* The figures of a point, each measured (or derived) once per repeat. */
enum report_field {
	RF_OPS, RF_SECONDS, RF_MOPS, RF_NS_PER_OP,
	RF_P50, RF_P90, RF_P99, RF_P999,  /* sampled latencies, ns */
	RF_PROGRAM_NS, RF_BASELINE_NS,    /* side kernel: the two programs */
	RF_SPEEDUP,      /* Mops/s over the same side's at its fewest threads */
	RF_KERNEL_RATIO, /* ns/op over the kernel's in BPF (compare) */
	/* The timed ops' work (bench.h), where the map's side counts it. */
	RF_EVICTIONS,              /* keys evicted in the run */
	RF_EVICTIONS_PER_OP,
	RF_NODES_SCANNED_PER_OP,   /* list nodes visited */
	RF_LOCKS_PER_OP,           /* locks taken, bucket locks included */
	RF_EVICTIONS_PER_REFILL,   /* keys evicted per trip to shared state */
	RF_ALLOCATIONS_PER_OP,     /* blocks allocated (trie nodes) */
	RF_LOCK_NS_PER_OP,         /* ns locks were held; NaN where no lock
				      was timed (map_work.lock_ns 0) */
	RF_BYTES_PER_ENTRY, /* the map's bytes after the prefill / max_entries
			       (bench.h: where the bytes come from) */
	RF_BUFFER_BYTES,    /* side loads: its buffer (limit.h) */
	RF_PROBE_NS,     /* the reference probe before the repeat (probe.h) */
	/* --lpm-op free (harness/bench/phase.h), ms per map: the whole free,
	 * and a design's two parts of it (the RCU wait; the walk and the
	 * frees).  Written after the op counts (see report_record), so that
	 * csv's earlier columns keep their places. */
	RF_FREE_MS, RF_FREE_RCU_MS, RF_FREE_WALK_MS,
	/* ns/op over the plain DPDK table's beside a DPDK adapter (same
	 * repeat, same thread count: maps/plain/plain.h) */
	RF_PLAIN_RATIO,
	RF_COUNT
};

/* The first of the figures written after the op counts. */
#define RF_FIRST_LATE RF_FREE_MS

/* A figure over the repeats.  All NaN when it was not measured. */
struct spread {
	double median, min, max;
};

enum spread_part { SPREAD_MEDIAN, SPREAD_MIN, SPREAD_MAX };
double spread_part(const struct spread *s, enum spread_part part);

/* The repeats of one point are capped here (--repeat's range). */
#define REPORT_MAX_RUNS 1000

/*
 * The spread of the values of values[0..n) that are not NaN; the median of
 * an even count is the mean of the two middle values.
 */
struct spread spread_of(const double *values, unsigned n);

/* One repeat of a point: each figure, NaN where not measured. */
struct report_run {
	double v[RF_COUNT];
	uint64_t ok[OP_COUNT], fail[OP_COUNT];
	enum bench_memory_from memory_from; /* RF_BYTES_PER_ENTRY's source */
	uint64_t maps_freed; /* --lpm-op free: the maps its run freed */
	const char *free_timer; /* bench_result's (static text, or NULL) */
};

/* A run's figures from its bench_result: latencies only if `latency`;
 * the work figures that r has (has_work, has_evictions); its memory where
 * r->memory has a figure. */
void report_run_from(struct report_run *run, const struct bench_result *r,
		     bool latency);

/* Flags: figures that cannot be true on this machine, or that do not
 * measure what was asked. */
enum {
	/* Faster, over its fewest threads, than its threads on these CPUs
	 * could make it. */
	REPORT_SUPERLINEAR = 1 << 0,
	/* Its repeats' Mops/s spread more than REPORT_SPREAD_LIMIT times. */
	REPORT_WIDE_SPREAD = 1 << 1,
	/* Side kernel: the map call cost no more than the noise of the
	 * baseline it is measured against (program - baseline <= 0), so its
	 * ns/op says nothing. */
	REPORT_BELOW_BASELINE = 1 << 2,
	/* More than REPORT_FAIL_LIMIT of its writes (every op but lookup:
	 * updates, inserts, deletes, upserts, replaces, lookup_writes) failed: its ns/op is mostly refusals' (a full map refusing
	 * inserts, updates of keys evicted meanwhile), not the ops asked.
	 * Lookups that miss are left out: a miss is a workload's choice
	 * (--hit-ratio, a key range). */
	REPORT_WRITES_FAILED = 1 << 3,
};

/* The share of a point's writes that may fail before it is flagged. */
#define REPORT_FAIL_LIMIT 0.5

/* The share of the writes (every op but lookup: a lookup_write fails only
 * when its insert does) in ok and fail that failed; NaN where there were
 * none. */
double report_write_fail_share(const uint64_t ok[OP_COUNT],
			       const uint64_t fail[OP_COUNT]);

/*
 * The rules.  n threads on c CPUs run at most min(n, c) at once, so over
 * b threads the speed-up is at most min(n, c) / min(b, c); a measured
 * speed-up more than REPORT_SPEEDUP_SLACK times that is superlinear (the
 * slack lets a quiet machine's timing noise pass).  Repeats whose greatest
 * Mops/s is more than REPORT_SPREAD_LIMIT times their least spread widely.
 */
#define REPORT_SPEEDUP_SLACK 1.10
#define REPORT_SPREAD_LIMIT 2.0
bool report_is_superlinear(double speedup, unsigned threads,
			   unsigned base_threads, unsigned cpus);
bool report_is_wide_spread(struct spread mops);

struct report_point {
	const char *side;  /* "user", "kernel", "syscall", "syscall-batch" */
	const char *map;   /* design name or kernel map type */
	const char *label; /* its name in tables and notes */
	const struct bench_config *config; /* workload, threads, map flags */
	struct report_run *run; /* [runs], in repeat order */
	unsigned runs;          /* 0: not measured (it could not run here) */
	/* Set by report_derive_speedups. */
	unsigned base_threads; /* the speed-up is over this many threads */
	unsigned cpus;         /* on this many CPUs */
	/* Set by report_summarise. */
	struct spread field[RF_COUNT];
	uint64_t ok[OP_COUNT], fail[OP_COUNT]; /* over every run */
	uint64_t maps_freed;                   /* over every run */
	const char *free_timer;                /* its runs' first */
	unsigned flags;
	enum bench_memory_from memory_from; /* its runs' (NONE: no figure) */
};

/*
 * One side's points, one per thread count: each point with more threads
 * than the side's fewest gets, repeat by repeat, its Mops/s over the
 * fewest-thread point's (same repeat).  cpus: the CPUs the run may use.
 */
void report_derive_speedups(struct report_point *points, unsigned n,
			    unsigned cpus);

/* p's ns/op over ref's, repeat by repeat, into p's figure `into`:
 * RF_KERNEL_RATIO (ref: the kernel in BPF at the same thread count, run
 * in the same repeats) or RF_PLAIN_RATIO (ref: the plain DPDK table). */
void report_derive_ratio(struct report_point *p,
			 const struct report_point *ref,
			 enum report_field into);

/* The spreads, the op counts and the flags, from p's runs. */
void report_summarise(struct report_point *p);

/* -1 for an unknown name. */
int report_parse_format(const char *name, enum report_format *out);

/*
 * The points measured (runs > 0) as one report: jsonl and csv as above;
 * a table has a row per point, with rows of minima and maxima when there
 * were repeats, then a note on each flagged point, the work per op of the
 * points that count it (a second table, so the first stays readable), the
 * host and the probe.  Not flushed: the caller checks out where its
 * writing ends (harness/common/outfile.h's out_flush, or stream_error).
 */
void report_write(FILE *out, enum report_format format,
		  const struct host_record *host,
		  const struct report_point *points, unsigned n);

/* Pieces of the table that compare's own table shares: the notes on the
 * flagged points (nothing if none), the table of work per op (the points
 * with work figures, nothing if none), the line that says where each
 * map's bytes per entry came from (nothing if no point has them), and the
 * probe's line. */
/* What timed the kernel's free among points (--lpm-op free), in words for
 * a sentence: "fentry and fexit programs on bpf_map_free_deferred" or the
 * workqueue's tracepoints around that call; NULL where no point's free
 * was timed so (no kernel side). */
const char *report_free_timer_words(const struct report_point *points,
				    unsigned n);

void report_write_notes(FILE *f, const struct report_point *points,
			unsigned n);
void report_write_memory_sources(FILE *f, const struct report_point *points,
				 unsigned n);
void report_write_work(FILE *f, const struct report_point *points,
		       unsigned n);
void report_write_probe(FILE *f, const struct report_point *points,
			unsigned n);

#endif /* MAPLAB_REPORT_H */
