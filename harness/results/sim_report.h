/* SPDX-License-Identifier: MIT */
/*
 * simreport.h: sim's results as a table, JSON lines or CSV, and as plots.
 *
 * jsonl: a host record first (docs/design.md), then one
 * {"record":"sim",...} per (policy, size, threads): trace, format,
 * requests_total, distinct_keys, key_size, keys_hashed, warmup, policy,
 * entries, threads, split, requests, misses, miss_ratio,
 * byte_miss_ratio (null without sizes), evictions, insert_failures,
 * seconds, mreq_per_s, live_mean, effective_capacity (live_mean /
 * entries), meta_bytes_per_entry, stray, stray_victims.  A figure not
 * measured is null (jsonl) or empty (csv) or "-" (table).
 */
#ifndef MAPLAB_SIMREPORT_H
#define MAPLAB_SIMREPORT_H

#include "harness/sim/sim.h"
#include "harness/results/host.h"

#include <stdio.h>

struct sim_row {
	const char *policy;
	uint32_t entries;
	unsigned threads;
	struct sim_result r;
};

struct sim_report {
	const struct sim_input *in;
	const char *format_name; /* the trace's format, or "generated" */
	const char *split;       /* "rr" or "hash" */
	const struct sim_row *rows;
	unsigned n;
};

enum sim_output { SIM_OUT_TABLE, SIM_OUT_JSONL, SIM_OUT_CSV };

void sim_report_write(FILE *f, enum sim_output fmt,
		      const struct host_record *host, const struct sim_report *rep);

/*
 * The Pareto plots (miss ratio against Mreq/s at the highest thread
 * count, one per size, a point per policy) and the miss-ratio curve (miss
 * ratio against size, a line per policy, at the fewest threads), as .dat
 * files, gnuplot scripts, and PNG and SVG files in dir (created if need
 * be).  0; or -errno with one line in note (the directory cannot be
 * written); or 1 with a note when gnuplot is missing or fails (the data
 * files stay).
 */
int sim_plot(const char *dir, const struct sim_report *rep, char *note,
	     size_t notelen);

#endif /* MAPLAB_SIMREPORT_H */
