/* SPDX-License-Identifier: MIT */
/*
 * sim_report.h: sim's points as "sim" records (record.h), written as a
 * table, JSON lines or CSV by record.h's one writer, and drawn by its one
 * plotter.
 *
 * A record per (policy, size, threads, repeat): trace, format, requests_total,
 * distinct_keys, key_size, keys_hashed, warmup_requests, policy, entries, threads,
 * split, requests, misses, miss_ratio, byte_miss_ratio (not measured
 * without sizes), evictions, insert_failures, seconds, mreq_per_s,
 * live_mean, effective_capacity (live_mean / entries),
 * meta_bytes_per_entry, stray, stray_victims, then repeat (0 to
 * repeats - 1), repeats, and the host that ran it, its host record's
 * fields of the same names: host_hostname, host_cpu_model, host_kernel,
 * host_nproc, host_date.  A figure not measured is null
 * (jsonl), empty (csv) or "-" (table).
 *
 * jsonl and csv are one shape for pandas (docs/sim.md, "Results for
 * pandas"): every line the same fields, no host record (the host is in
 * each row's host_ columns), so pd.read_csv and pd.read_json(lines=True)
 * load them as they are.  The lab's log (--save, --plot's results.jsonl)
 * is the jsonl led by the host record, as every command's log is, which
 * report.py merges by.  The table is a line per point, its figures the
 * medians over the repeats, Mreq/s's least and greatest beside it; a
 * line on the trace above it, a note on its columns and the host's line
 * below.
 */
#ifndef MAPLAB_SIM_REPORT_H
#define MAPLAB_SIM_REPORT_H

#include "harness/common/outfile.h"
#include "harness/sim/sim.h"
#include "harness/results/host.h"
#include "harness/results/record.h"

#include <stdbool.h>
#include <stdio.h>

/* --repeat's range: a point's repeats are summed up on the stack. */
#define SIM_REPORT_MAX_REPEATS 100

struct sim_row {
	const char *policy;
	uint32_t entries;
	unsigned threads;
	unsigned cpus;   /* the cpus its requests ran as: threads, or the
			    serial cpus of one thread (--cpus) */
	bool serial;     /* --cpus: one thread, request i on the split's cpu */
	unsigned repeat; /* 0 to repeats - 1 */
	struct sim_result r;
};

struct sim_report {
	const struct sim_input *in;
	const char *format_name; /* the trace's format, or "generated" */
	const char *split;       /* "rr" or "hash" */
	const char *notes;       /* NULL, or lines for the table's head: the
				  * aliases used, where the sizes came from */
	/* Every point once per repeat, the repeats in turn (a repeat runs
	 * every point before the next repeat starts): the point i of repeat r
	 * is rows[r * (n / repeats) + i]. */
	const struct sim_row *rows;
	unsigned n;
	unsigned repeats; /* 1 or more */
};

/* rep in format: a table, or pandas' jsonl or csv (above). */
void sim_report_write(FILE *f, enum record_format format,
		      const struct host_record *host,
		      const struct sim_report *rep);

/* The lab's log: the host record, then rep's records, as jsonl. */
void sim_report_log(FILE *f, const struct host_record *host,
		    const struct sim_report *rep);

/*
 * The plots of docs/sim.md ("Plots"): a folder that gets the records as
 * results.jsonl, and the one plotter (record_plot) draws them there.
 * Opened before any work, so that a folder that cannot be written, or a
 * maplab that cannot find its plotter, fails at once, not after the run:
 *
 *   sim_plot_open     the folder made if need be (and remembered as made),
 *                     DIR/results.jsonl opened (outfile.h), the plotter
 *                     found (record_find_script).  0, or -errno with one
 *                     line in err; nothing is left behind on error.
 *   sim_plot_draw     the records written whole, then drawn.  0; 1 with a
 *                     note where no plot could be drawn and the records
 *                     stand (python missing); -errno (the records could
 *                     not be written: none left) or -1 (the plotter
 *                     failed; its one line, and where the records are) with
 *                     one line in note.
 *   sim_plot_discard  a run that failed: the records' file removed, and
 *                     the folder where sim_plot_open made it and it is
 *                     empty.
 */
struct sim_plot {
	char dir[1024];         /* as given; its printable form in shown */
	char shown[512];
	bool made_dir;
	struct outfile records; /* DIR/results.jsonl */
	char plotter[4096];     /* report.py's path */
};

int sim_plot_open(struct sim_plot *p, const char *dir, char *err,
		  size_t errlen);
int sim_plot_draw(struct sim_plot *p, const struct host_record *host,
		  const struct sim_report *rep, char *note, size_t notelen);
void sim_plot_discard(struct sim_plot *p);

#endif /* MAPLAB_SIM_REPORT_H */
