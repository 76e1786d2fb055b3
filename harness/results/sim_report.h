/* SPDX-License-Identifier: MIT */
/*
 * sim_report.h: sim's points as "sim" records (record.h), written as a
 * table, JSON lines or CSV by record.h's one writer, and drawn by its one
 * plotter.
 *
 * A record per (policy, size, threads): trace, format, requests_total,
 * distinct_keys, key_size, keys_hashed, warmup_requests, policy, entries, threads,
 * split, requests, misses, miss_ratio, byte_miss_ratio (not measured
 * without sizes), evictions, insert_failures, seconds, mreq_per_s,
 * live_mean, effective_capacity (live_mean / entries),
 * meta_bytes_per_entry, stray, stray_victims.  A figure not measured is
 * null (jsonl), empty (csv) or "-" (table).  jsonl starts with the host
 * record; the table has a line on the trace above it, a note on its
 * columns and the host's line below.
 */
#ifndef MAPLAB_SIM_REPORT_H
#define MAPLAB_SIM_REPORT_H

#include "harness/sim/sim.h"
#include "harness/results/host.h"
#include "harness/results/record.h"

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
	const char *notes;       /* NULL, or lines for the table's head: the
				  * aliases used, where the sizes came from */
	const struct sim_row *rows;
	unsigned n;
};

void sim_report_write(FILE *f, enum record_format format,
		      const struct host_record *host,
		      const struct sim_report *rep);

/*
 * The plots of docs/sim.md ("Plots"): dir (created if need be) gets the
 * records as results.jsonl, and the one plotter (record_plot) draws them
 * there.  0; -errno with one line in note (dir or its results.jsonl
 * cannot be written); or 1 with a note when no plot could be drawn (the
 * records stay).
 */
int sim_plot(const char *dir, const struct host_record *host,
	     const struct sim_report *rep, char *note, size_t notelen);

#endif /* MAPLAB_SIM_REPORT_H */
