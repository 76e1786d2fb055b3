/* SPDX-License-Identifier: MIT */
/*
 * explain.h: `maplab explain`, where the time of one op goes, in the
 * kernel's map (inside BPF) and in each design, side by side.
 *
 *   cmd_explain.c      the options, the checks, the command
 *   explain_runs.c     for each size: the unsampled runs (ns/op with
 *                      spread, measure.h's interleaved repeats), one
 *                      sampled run per side (explain_sample.h), the
 *                      differential runs; --overhead's pairs
 *   explain_sample.c   one sampled run, tallied
 *   explain_report.c   the tables, the summary in words, the flame graph
 *   explain_records.c  the figures as jsonl records (--save)
 *   explain_lpm.c      --lpm-op insert, delete, free: the kernel's LPM
 *                      benchmark's whole-map phases, timed, not sampled
 *
 * Each side's ns/op covers what its samples cover: the kernel's is the
 * workload program's time per step (the map call, the program's own code
 * and the call; the baseline program's run is not sampled into it), the
 * design's is bench's loop per op (the design's op, and the harness's row).
 * A step's ns is its share of the side's samples times that ns/op.
 * docs/explain.md says how to read it.
 */
#ifndef MAPLAB_EXPLAIN_H
#define MAPLAB_EXPLAIN_H

#include "cli/measure/bench_options.h"
#include "cli/measure/measure.h"
#include "cli/explain/explain_sample.h"
#include "harness/common/outfile.h"
#include "harness/results/host.h"
#include "harness/results/report.h"

#include <stdio.h>

/* The differential runs: one workload change each, whose ns/op difference
 * prices a step that sampling cannot split. */
enum explain_diff {
	DIFF_SIZE,      /* a small map (EXPLAIN_SMALL_ENTRIES): memory cost */
	/* The next two run at the small map's size, against it: a larger
	 * element in a map that does not fit the caches would price the
	 * footprint again, not the copy or the hash. */
	DIFF_VALUE,     /* value + EXPLAIN_VALUE_STEP bytes: the copy */
	DIFF_KEY,       /* key + EXPLAIN_KEY_STEP bytes: hash and compare */
	DIFF_PREALLOC,  /* BPF_F_NO_PREALLOC: allocation on update */
	DIFF_COUNT
};

#define EXPLAIN_SMALL_ENTRIES 1024
#define EXPLAIN_VALUE_STEP 256
#define EXPLAIN_KEY_STEP 32
#define EXPLAIN_MAX_SIDES (BENCH_MAX_MAPS + 1)
#define EXPLAIN_MAX_SIZES 8

struct explain_side {
	char label[96];
	bool kernel;
	const struct map_ops *design;   /* NULL: the kernel's map */
	uint32_t map_type, mode_flags;
	struct spread ns;               /* per op as sampled (see above) */
	struct spread map_call_ns;      /* kernel: program - baseline */
	double op_share;                /* the asked op's share of the ops */
	struct explain_sampled sampled;
	bool sampled_ok;
	double diff_ns[DIFF_COUNT];     /* ns/op of each differential run;
					   NaN: not run */
	double diff_base_ns[DIFF_COUNT];/* the run it is set against: ns, or
					   (value and key) the small map's */
};

struct explain_point {
	uint32_t entries;
	struct explain_side sides[EXPLAIN_MAX_SIDES];
	unsigned n_sides;
	bool diff_run[DIFF_COUNT];
	char diff_label[DIFF_COUNT][64];
	double seconds;                 /* wall time of this size's runs */
};

struct explain_cli {
	struct bench_cli b;
	enum bench_op op;
	bool op_given;
	uint32_t sizes[EXPLAIN_MAX_SIZES];
	unsigned n_sizes;
	const char *svg;   /* --svg FILE */
	const char *dir;   /* --out DIR */
	unsigned hz;
	double sample_seconds;
	bool no_diff;
	const char *chains_path;  /* --chains FILE */
	unsigned overhead_pairs;  /* --overhead N: measure sampling's cost */
	/* Open for the whole command (cmd_explain.c); NULL: not asked.  Every
	 * write to them is checked where explain flushes: a failed one stops
	 * the command (opts_write_failed) and none is left half written. */
	struct outfile *chains;   /* --chains FILE, flushed a line at a time */
	struct outfile *save;     /* --save FILE: the records, appended */
};

/* Explain c's op at `entries` into p: every run, for every side.  0, or
 * EXIT_USAGE after one line.  explain_point_free must follow, either way. */
int explain_size(const struct explain_cli *c, uint32_t entries,
		 struct explain_point *p);
void explain_point_free(struct explain_point *p);

/* The parts of explain_size that explain_lpm.c shares (explain_runs.c):
 * b's workload at `entries` max_entries (a key range given as a percent
 * taken of it again); p's sides (the kernel's map in each mode the
 * designs stand for, then each design); those sides (but those in skip)
 * added to m, each one's index in m into index.  0, or EXIT_USAGE. */
void explain_at_size(const struct explain_cli *c, struct bench_cli *b,
		     uint32_t entries);
void explain_lay_out_sides(const struct explain_cli *c, struct explain_point *p);
int explain_add_sides(const struct bench_cli *b, const struct explain_point *p,
		      const bool *skip, struct measurement *m, int *index);

/* --lpm-op insert, delete or free (explain_lpm.c): the phase at `entries`
 * on every side, timed (no samples), its report to out and (--save) its
 * records.  0, or EXIT_USAGE after one line. */
int explain_lpm_size(const struct explain_cli *c, uint32_t entries, FILE *out);

/* --overhead N: N pairs of runs per side, unsampled then sampled; the
 * spread of their ratio, to out.  0, or EXIT_USAGE after one line. */
int explain_overhead(const struct explain_cli *c, FILE *out);

/* "lookup", ... */
const char *explain_op_name(enum bench_op op);

/* The report of one size, to f. */
void explain_print_point(FILE *f, const struct explain_cli *c,
			 const struct explain_point *p);

/* The table of every size (ns per step, each side), to f. */
void explain_print_sizes(FILE *f, const struct explain_cli *c,
			 const struct explain_point *points, unsigned n);

/* The header: what runs, the host, its mitigations, the sampling. */
void explain_print_header(FILE *f, const struct explain_cli *c,
			  const struct host_record *host);

struct record;
/* A record's first fields for side s of point p, its op named op: what
 * every explain record begins with (record_init'ed here). */
void explain_record_head(struct record *r, const struct explain_cli *c,
			 const struct explain_point *p,
			 const struct explain_side *s, const char *op);

/* p's figures as jsonl records to f (explain_records.c says which). */
void explain_write_records(FILE *f, const struct explain_cli *c,
			   const struct explain_point *p);

/* The side-by-side flame graph of p to path, a whole file or none (a
 * write that failed removes it).  0, or EXIT_USAGE after one line. */
int explain_write_svg(const struct explain_cli *c,
		      const struct explain_point *p, const char *path);

/* A side's ns per op of step s (its share of the covered samples times
 * its ns/op, per op of the asked kind); NaN where it has no samples. */
double explain_step_ns(const struct explain_side *s, enum prof_step step);

#endif /* MAPLAB_EXPLAIN_H */
