/* SPDX-License-Identifier: MIT */
/*
 * report.h: benchmark results as a table, as JSON lines or as CSV.
 *
 * jsonl: a first line {"record":"host",...} (DESIGN.md's host record), then
 * one {"record":"result",...} per result with side, map, mix, dist,
 * threads, entries, key_size, value_size, ops, seconds, mops, ns_per_op,
 * p50_ns, p90_ns, p99_ns, p999_ns, per-op ok and fail counts, and, with
 * --repeat, the Mops/s of every run (the record is the median run's).
 */
#ifndef MAPLAB_REPORT_H
#define MAPLAB_REPORT_H

#include "bench.h"
#include "host.h"

#include <stdbool.h>
#include <stdio.h>

enum report_format { REPORT_TABLE, REPORT_JSONL, REPORT_CSV };

struct report_row {
	const char *side;    /* "user", later "kernel", "syscall" */
	const char *map;     /* design name or kernel map type */
	const struct bench_config *config;
	const struct bench_result *result; /* the median run */
	const double *mops_runs;           /* every run's Mops/s */
	unsigned runs;
	bool no_latency;     /* percentiles not measured (side "kernel") */
	double program_ns;   /* side "kernel": program and baseline per op */
	double baseline_ns;
};

struct report {
	FILE *out;
	enum report_format format;
	unsigned rows;
};

/* -1 for an unknown name. */
int report_parse_format(const char *name, enum report_format *out);

void report_begin(struct report *r, FILE *out, enum report_format format,
		  const struct host_record *host);
void report_row(struct report *r, const struct report_row *row);
void report_end(struct report *r, const struct host_record *host);

#endif /* MAPLAB_REPORT_H */
