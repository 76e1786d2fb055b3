/* SPDX-License-Identifier: MIT */
/*
 * measure.h: the one driver of bench, kbench and compare.
 *
 * A side is one way to run a point (a thread count of a workload): a
 * userspace design, the kernel's map inside BPF programs, the kernel's map
 * through bpf(2) one call an op, or in batches.  A measurement runs a table
 * of sides at every thread count, --repeat times, interleaved:
 *
 *   for each repeat r:
 *       run the reference probe (harness/bench/probe.h)
 *       for each thread count:
 *           run every side once, starting r sides further along the table
 *
 * so the runs of one repeat are made within seconds of each other, and a
 * ratio taken within a repeat (a speed-up, a side over the kernel's) holds
 * runs made side by side; no side always runs first after the probe.  A
 * point a side cannot run here (-EOPNOTSUPP: batches of a mixed workload,
 * more threads than CPUs) is skipped with a note; any other failure ends
 * the command with one line.
 *
 * Two sides are references rather than maps (--physical D): "harness",
 * the noop design through bench's loop (the harness's own cost per op),
 * and "loads", independent random 8-byte loads over a buffer of D's
 * footprint (harness/bench/limit.h: the memory system's floor for a loop
 * of lookups).  Neither has a ratio to the kernel.  A third kind stands
 * beside a DPDK adapter: DPDK's table used plainly (maps/plain/plain.h),
 * run through bench's loop as a design is; every side of its map type
 * gets its ns/op over the plain table's too.
 */
#ifndef MAPLAB_MEASURE_H
#define MAPLAB_MEASURE_H

#include "cli/measure/bench_options.h"
#include "harness/results/host.h"
#include "harness/bench/limit.h"
#include "harness/common/outfile.h"
#include "harness/results/report.h"

#include <stdio.h>

struct side;

/* How a kind of side runs one point: 0, or a negative errno with a
 * one-line reason in err. */
struct side_kind {
	const char *name; /* the record's side */
	int (*run)(const struct side *s, const struct bench_cli *cli,
		   const struct bench_config *b, struct report_run *out,
		   char *err, size_t errlen);
};

extern const struct side_kind side_user, side_kernel, side_syscall,
	side_syscall_batch, side_harness, side_loads, side_plain;

struct side {
	const struct side_kind *kind;
	const struct map_ops *design; /* side_user's design (side_harness:
					 noop; side_loads: whose footprint) */
	uint32_t map_type;            /* the kernel sides' map type */
	/* Flags the side's maps get beyond --flags: a design's mode_flags, or
	 * those of the kernel's mode it runs (BPF_F_NO_COMMON_LRU). */
	uint32_t mode_flags;
	int reference;                /* the side this one's ns/op is divided
					 by (compare: the kernel in BPF of its
					 mode); -1: none */
	int plain;                    /* the plain DPDK table's side of its
					 map type (RF_PLAIN_RATIO); -1: none
					 (set by measure_add_side and
					 measure_add_plain_sides) */
	const char *map;              /* the record's map */
	char label[96];               /* its name in tables */
	/* side_loads: the buffer its loads read, owned by the measurement
	 * (measure_free frees it); empty for the other kinds. */
	struct limit_buffer buffer;
};

/* Each map's sides, the two reference sides of --physical and the plain
 * DPDK tables (one a map type at most). */
#define MEASURE_MAX_SIDES (BENCH_MAX_MAPS * 3 + 2 + 2)

struct measurement {
	struct side sides[MEASURE_MAX_SIDES];
	unsigned n_sides;
	/* Filled by measure_run; freed by measure_free. */
	unsigned n_threads;
	struct bench_config *configs; /* [side][thread count] */
	struct report_point *points;  /* [side][thread count] */
	struct report_run *runs;      /* [side][thread count][repeat] */
};

/* Add a copy of side (its map is set here, from its design or map type):
 * 0, or EXIT_USAGE (message printed) when the table is full. */
int measure_add_side(struct measurement *m, const char *cmd,
		     const struct side *side);

/*
 * With --physical D, add the reference sides: "harness (noop)", then
 * "random loads (D, <size>)" over a buffer of D's footprint, measured as
 * bench measures a map's memory (bench_footprint: D's map with the
 * workload's sizes and flags and the cpu slots of the most threads of
 * --threads, prefilled).  A footprint this build cannot measure (D keeps
 * no count, and the allocator is libc's) leaves the loads side out, with
 * a note.  0, or EXIT_USAGE (message printed).  Nothing without
 * --physical.
 */
int measure_add_physical_sides(const struct bench_cli *cli,
			       struct measurement *m);

/* " +no_common_lru" for mode flags (the names of map_flag_names), "" for
 * none: what a kernel side's label adds to say which mode it runs. */
void measure_mode_suffix(uint32_t mode_flags, char *buf, size_t len);

/*
 * Beside each DPDK adapter among the sides (hash/dpdk, lpm_trie/dpdk),
 * its plain table (maps/plain/plain.h): a side of its own, labelled
 * "plain/rte_fib (reference)", run as a design is, whose ns/op every side
 * of that map type is divided by as well (RF_PLAIN_RATIO).  Only for
 * lookups (lookup=100, or --lpm-op lookup): a plain table answers nothing
 * else; otherwise a note says it was left out.  Call once the map sides
 * are in.  0, or EXIT_USAGE (message printed).
 */
int measure_add_plain_sides(const struct bench_cli *cli, struct measurement *m);

/*
 * Run every side at every thread count of cli, cli->repeat times,
 * interleaved as above; then each side's speed-ups, each side's ratios to
 * its reference side, and every point summed up with its flags.  0, or
 * EXIT_USAGE after one line on stderr.
 */
int measure_run(const struct bench_cli *cli, struct measurement *m);

static inline struct report_point *measure_point(const struct measurement *m,
						 unsigned side, unsigned t)
{
	return &m->points[(size_t)side * m->n_threads + t];
}

void measure_free(struct measurement *m);

/* --- kbench's and compare's command line ---------------------------------------- */

/* bench_cli_parse with bench's options and the kernel side's. */
int measure_parse_kernel_cmd(struct bench_cli *cli, int argc, char **argv,
			     const char *usage, const char *after);

/* Whether the kernel side can run here; if not, one line says why (and,
 * when `alone`, that the userspace side runs alone). */
bool measure_kernel_ready(const char *cmd, bool alone);

/* --- where the results go ------------------------------------------------------ */

/* --out (or stdout) and --save's file (appended), opened before any run so
 * a bad path fails at once; each whole or undone (harness/common/outfile.h). */
struct outputs {
	struct outfile out;
	struct outfile save; /* only with has_save */
	bool has_save;
};

/* 0, or EXIT_USAGE (message printed; nothing left open). */
int outputs_open(const struct bench_cli *cli, struct outputs *o);

/*
 * The points in --format to the output (table: print_table when not NULL,
 * else the workload's lines and report_write's table) and as jsonl to
 * --save's file, appended.
 */
typedef void (*table_printer)(FILE *f, const struct bench_cli *cli,
			      const struct host_record *host,
			      const struct measurement *m);
void outputs_write(const struct bench_cli *cli, struct outputs *o,
		   const struct host_record *host, const struct measurement *m,
		   table_printer print_table);

/* The workload's lines, as the run takes it (after --key-range, the
 * prefix set and its key size are resolved): its mix, keys and map, the
 * flags its maps are created with; its prefixes and where the lookups
 * that hit land (with hash_note, that a hash map's key is the address
 * alone).  Wrapped to WRAP_COLUMNS. */
void measure_print_workload(FILE *f, const struct bench_cli *cli, bool hash_note);

/*
 * Close both.  rc (the run's status) not 0: both undone, rc returned.
 * A failed write to either, at any flush, undoes both (--out removed,
 * --save cut back to its earlier records) and is EXIT_USAGE after one
 * line naming the file with the errno's text.
 */
int outputs_close(const struct bench_cli *cli, struct outputs *o, int rc);

#endif /* MAPLAB_MEASURE_H */
