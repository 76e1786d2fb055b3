/* SPDX-License-Identifier: MIT */
/*
 * bench_cli.h: the workload options that bench (and, later, kbench and
 * compare) share, parsed once, with one-line errors for impossible
 * workloads.
 */
#ifndef MAPLAB_BENCH_CLI_H
#define MAPLAB_BENCH_CLI_H

#include "bench.h"
#include "report.h"

#include <stdbool.h>

#define BENCH_MAX_MAPS 16
#define BENCH_MAX_THREAD_COUNTS 16

struct bench_cli {
	const char *cmd;
	const struct map_ops *maps[BENCH_MAX_MAPS]; /* NULL: a kernel map type */
	uint32_t map_types[BENCH_MAX_MAPS];         /* each entry's map type */
	unsigned n_maps;
	bool kernel_types; /* --map may name a kernel map type (kbench) */
	unsigned threads[BENCH_MAX_THREAD_COUNTS];
	unsigned n_threads;
	struct workload w;
	uint32_t map_flags;
	double seconds;
	uint64_t ops;
	double warmup;
	unsigned repeat;
	enum report_format format;
	const char *out;
	bool quiet; /* no progress line even on a terminal */
};

/*
 * Parse argv into cli.  Returns 0 to go on, 1 when --help was shown, or
 * EXIT_USAGE after printing one line on stderr.  help() prints the
 * command's usage.
 */
int bench_cli_parse(struct bench_cli *cli, int argc, char **argv,
		    void (*help)(void));

/* The option list, for --help texts. */
extern const char bench_cli_options_help[];

#endif /* MAPLAB_BENCH_CLI_H */
