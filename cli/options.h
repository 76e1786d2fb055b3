/* SPDX-License-Identifier: MIT */
/*
 * options.h: every option of every maplab command, in one table, with one
 * spelling and one range each (so --key-size means the same thing, with
 * the same limits, to bench, stress, replay and gentrace).
 *
 * A command lists the options it accepts (struct cmd_option[]); the parser
 * builds getopt_long's table from that list alone, so an option meant for
 * another command is "unknown", and both "--opt value" and "--opt=value"
 * work.  Numbers are checked against the table's range before the command
 * sees them (harness/common/parse.h says how numbers are spelt).  The same
 * list prints the command's --help, so help and parser cannot disagree.
 */
#ifndef MAPLAB_OPTIONS_H
#define MAPLAB_OPTIONS_H

#include "harness/bench/bench.h"
#include "harness/results/report.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum opt_id {
	OPT_MAP = 256, OPT_KEY_SIZE, OPT_VALUE_SIZE, OPT_ENTRIES, OPT_PREFILL,
	OPT_MIX, OPT_DIST, OPT_FLAGS, OPT_THREADS, OPT_DURATION, OPT_OPS,
	OPT_WARMUP, OPT_REPEAT, OPT_SEED, OPT_RCU, OPT_FORMAT, OPT_OUT,
	OPT_SAVE, OPT_QUIET, OPT_VERBOSE, OPT_RUN_OPS, OPT_RUN_REPEAT,
	OPT_NO_SYSCALL, OPT_KEY_RANGE, OPT_TYPE, OPT_TRACE, OPT_RANDOM,
	OPT_ECHO, OPT_MAX_DIFFS, OPT_PHYSICAL, OPT_PREFIXES, OPT_HIT_RATIO,
	/* sim */
	OPT_POLICY, OPT_SIZES, OPT_TRACE_FORMAT, OPT_CSV_COLUMN, OPT_SPLIT,
	OPT_WARMUP_REQUESTS, OPT_PLOT, OPT_NO_STRAY, OPT_WRITE_TRACE,
};

/* One option a command accepts; help NULL: the table's own line. */
struct cmd_option {
	enum opt_id id;
	const char *help;
};

/* A value as the table checked it. */
struct opt_value {
	const char *text; /* as given */
	uint64_t u;       /* whole-number options: the number, or P of "P%" */
	bool percent;     /* a count given as "P%" (--key-range) */
	double seconds;   /* seconds options */
};

/*
 * A count that may be given as a share of another figure, as --key-range
 * N or P% (of --entries): kept as given until that figure is known.
 */
struct opt_count {
	uint64_t n;   /* 0: not given */
	bool percent;
};

/* The count, P% taken of `whole` (rounded down): 0, or EXIT_USAGE after
 * one line when that falls outside the option's range. */
int opts_count_of(const char *cmd, enum opt_id id, struct opt_count c,
		  uint64_t whole, uint64_t *out);

typedef int (*opt_apply)(void *ctx, enum opt_id id, const struct opt_value *v);

/*
 * Parse argv (argv[0] is the command's name) with the options in `opts`:
 * each is checked and handed to apply(ctx, id, value), which returns 0 or
 * EXIT_USAGE after printing one line.  --help prints `usage`, the option
 * lines and `after` (may be NULL) on stdout.  Returns 0 to go on, 1 when
 * --help was shown, or EXIT_USAGE.
 */
int opts_parse(const char *cmd, int argc, char **argv,
	       const struct cmd_option *opts, size_t n_opts, opt_apply apply,
	       void *ctx, const char *usage, const char *after);

/* The option lines of a command's --help. */
void opts_print_help(FILE *f, const struct cmd_option *opts, size_t n_opts);

/* --- what bench, kbench and compare share ----------------------------------- */

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
	struct opt_count key_range; /* --key-range, resolved into w */
	bool key_size_given;        /* else the maps' default: 4, or an LPM
				       prefix set's keys */
	double hit_ratio;           /* --hit-ratio, resolved into w.miss_ppm;
				       NaN: not given */
	uint32_t map_flags;
	double seconds;
	uint64_t ops;
	double warmup;
	unsigned repeat;
	enum report_format format;
	const char *out;
	const char *save; /* also append every record here, as jsonl */
	bool quiet;       /* no progress line even on a terminal */
	bool verbose;     /* kernel side: show the verifier's log on failure */
	/* kbench and compare */
	unsigned run_ops, run_repeat;
	bool no_syscall;
	/* --physical D: the reference sides (measure.h), on D's footprint;
	 * NULL: none */
	const struct map_ops *physical;
};

/*
 * Parse a bench-style command line into cli (cli->cmd and kernel_types set
 * by the caller): its defaults, then argv, then the checks that the
 * workload is possible (the key range holds the prefilled keys, keys fit,
 * the designs accept the map, the mix can run as asked).  Same returns as
 * opts_parse.
 */
int bench_cli_parse(struct bench_cli *cli, int argc, char **argv,
		    const struct cmd_option *opts, size_t n_opts,
		    const char *usage, const char *after);

/* The options of bench; kbench and compare add theirs to these. */
extern const struct cmd_option bench_options[];
extern const size_t bench_option_count;

/*
 * --map D[,D...]: the designs, at most max; an unknown name, an empty list
 * or an empty name is refused with one line.  0 or EXIT_USAGE.
 */
int opts_design_list(const char *cmd, const char *text,
		     const struct map_ops **out, unsigned max, unsigned *n);

/* --threads N[,N...]: at most max_n counts in the table's range.  0 or
 * EXIT_USAGE after one line. */
int opts_thread_list(const char *cmd, const char *text, unsigned *out,
		     unsigned max_n, unsigned *n);

#endif /* MAPLAB_OPTIONS_H */
