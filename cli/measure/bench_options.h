/* SPDX-License-Identifier: MIT */
/*
 * bench_options.h: the command line that bench, kbench and compare share:
 * the workload (harness/workload/workload.h) and how it is run.
 *
 * Its defaults are the workload's (WORKLOAD_DEFAULT_* in workload.h) and
 * the BENCH_DEFAULT_* below, written once: the parser starts from them and
 * the help prints them.  After parsing, the workload is checked as a whole
 * (the key range holds the prefilled keys, keys fit their bytes, the LPM
 * prefix set fits its key size, the designs accept the map, the mix can run
 * as asked), so a run that cannot mean what was asked is refused, or runs
 * with a warning that says what will really run.
 */
#ifndef MAPLAB_BENCH_OPTIONS_H
#define MAPLAB_BENCH_OPTIONS_H

#include "cli/options.h"
#include "harness/bench/bench.h"
#include "harness/bench/phase.h"
#include "harness/results/report.h"

#include <stdbool.h>
#include <stdint.h>

#define BENCH_MAX_MAPS 16
#define BENCH_MAX_THREAD_COUNTS 16

/* How a run is made, beside its workload. */
#define BENCH_DEFAULT_DESIGN "hash/linux"
#define BENCH_DEFAULT_THREADS 1
#define BENCH_DEFAULT_SECONDS 1
#define BENCH_DEFAULT_WARMUP 0.2
#define BENCH_DEFAULT_REPEAT 1
#define BENCH_DEFAULT_RUN_OPS 1024  /* kbench: map calls per program run */
#define BENCH_DEFAULT_RUN_REPEAT 64 /* kbench: BPF_PROG_TEST_RUN repeats */

/* A command's own options beside bench's (explain's --op), and what it
 * settles once every option is read, before the workload is checked. */
struct bench_cli;
struct bench_cli_extra {
	/* the command's own defaults, over bench's, before argv is read */
	void (*defaults)(struct bench_cli *c, void *ctx);
	opt_apply apply;   /* ids bench's table does not handle */
	int (*settle)(struct bench_cli *c, void *ctx); /* 0 or EXIT_USAGE */
	void *ctx;
};

struct bench_cli {
	const char *cmd;
	const struct map_ops *maps[BENCH_MAX_MAPS]; /* NULL: a kernel map type */
	uint32_t map_types[BENCH_MAX_MAPS];         /* each entry's map type */
	unsigned n_maps;
	bool kernel_types; /* --map may name a kernel map type (kbench) */
	unsigned threads[BENCH_MAX_THREAD_COUNTS];
	unsigned n_threads;
	struct workload w;
	bool mix_given;             /* --mix (refused beside --lpm-op) */
	/* --lpm-op: the kernel's LPM benchmark's workload (BENCH_LPM_NONE:
	 * none), resolved into w's mix and prefill and the configs' lpm_op */
	enum bench_lpm_op lpm_op;
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
	/* --hugepages: every side's large tables on transparent huge pages
	 * (maps/base/area.h, cli/main.c) */
	bool hugepages;
	/* --physical D: the reference sides (measure.h), on D's footprint;
	 * NULL: none */
	const struct map_ops *physical;
	/* NULL, or the command's own options (above) */
	const struct bench_cli_extra *extra;
};

/*
 * Parse a bench-style command line into cli (cli->cmd and kernel_types set
 * by the caller): the defaults, then argv, then the checks that the
 * workload is possible.  Same returns as opts_parse.
 */
int bench_cli_parse(struct bench_cli *cli, int argc, char **argv,
		    const struct cmd_option *opts, size_t n_opts,
		    const char *usage, const char *after);

/* The options of bench; kbench and compare add theirs to these. */
extern const struct cmd_option bench_options[];
extern const size_t bench_option_count;

/* Those of bench's own that explain shares. */
extern const struct opt_spec opt_repeat, opt_dist, opt_prefixes, opt_hit_ratio,
	opt_batch, opt_lpm_op;

/* What --lpm-op's help says, for every command that takes it. */
#define BENCH_LPM_OP_HELP \
	"the five workloads of the kernel's LPM benchmark\n" \
	"(bench_lpm_trie_map.c), on LPM maps only: lookup (a full map;\n" \
	"--mix lookup=100), update (BPF_EXIST on a full map; update=100);\n" \
	"insert (the N prefixes into an empty map, BPF_NOEXIST), delete\n" \
	"(every key of a full map), each one pass over the N prefixes\n" \
	"timed whole, the map emptied or refilled between passes\n" \
	"untimed; free (the free of a map of N prefixes: ms per map,\n" \
	"ns per prefix, a design's RCU wait apart).  insert, delete and\n" \
	"free run one thread; no --mix, --prefill or --key-range with\n" \
	"any (docs/bench.md, \"The kernel's LPM benchmark\")"

/* kbench's and compare's own (defined in measure.c). */
extern const struct opt_spec opt_run_ops, opt_run_repeat, opt_no_syscall;

#endif /* MAPLAB_BENCH_OPTIONS_H */
