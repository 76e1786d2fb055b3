/* SPDX-License-Identifier: MIT */
/*
 * options.h: maplab's option engine, and the options several commands
 * share.
 *
 * An option is a `struct opt_spec`: its id, its one spelling, what its
 * value is (nothing, text, a whole number in a range, seconds in a range,
 * a count or a percent of another figure) and a line of help.  The
 * options one command alone takes are defined beside that command
 * (cmd_sim.c holds sim's, trace_cmd.c the trace commands', bench_options.c
 * the workload's); the ones several share are defined once here, so
 * --key-size means the same thing, with the same limits, to bench, stress,
 * gentrace and sim.
 *
 * A command lists what it accepts (struct cmd_option[]: a spec, and help
 * in the command's own words, usually with its default); the engine
 * builds getopt_long's table from that list alone, so an option meant for
 * another command is "unknown", and both "--opt value" and "--opt=value"
 * work.  Values are checked against the spec's range before the command
 * sees them (harness/common/parse.h says how numbers are spelt).  The same
 * list prints the command's --help, so help and parser cannot disagree.
 * A default shown in help is the same macro the command starts from.
 */
#ifndef MAPLAB_OPTIONS_H
#define MAPLAB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A number as text, for the defaults help shows: STR(65536) is "65536". */
#define STR_(x) #x
#define STR(x) STR_(x)

/* Every option id, of every command: getopt_long's val, and what the
 * commands' apply callbacks switch on. */
enum opt_id {
	OPT_MAP = 256, OPT_KEY_SIZE, OPT_VALUE_SIZE, OPT_ENTRIES, OPT_PREFILL,
	OPT_MIX, OPT_DIST, OPT_FLAGS, OPT_THREADS, OPT_DURATION, OPT_OPS,
	OPT_WARMUP, OPT_REPEAT, OPT_SEED, OPT_RCU, OPT_FORMAT, OPT_OUT,
	OPT_SAVE, OPT_QUIET, OPT_VERBOSE, OPT_RUN_OPS, OPT_RUN_REPEAT,
	OPT_NO_SYSCALL, OPT_KEY_RANGE, OPT_TYPE, OPT_TRACE, OPT_RANDOM,
	OPT_ECHO, OPT_MAX_DIFFS, OPT_CPUS, OPT_BATCH, OPT_PHYSICAL, OPT_PREFIXES, OPT_HIT_RATIO,
	OPT_LPM_OP, /* the kernel's LPM benchmark's workloads (bench_options.c) */
	OPT_HUGEPAGES, /* transparent huge pages for every side (bench_options.c) */
	/* a kernel in a virtual machine (replay, validate, sim) */
	OPT_KERNEL, OPT_VM_CPUS, OPT_SEEDS, OPT_MODEL,
	/* sim */
	OPT_POLICY, OPT_SIZES, OPT_TRACE_FORMAT, OPT_CSV_COLUMN, OPT_SPLIT,
	OPT_WARMUP_REQUESTS, OPT_PLOT, OPT_NO_STRAY, OPT_WRITE_TRACE, OPT_STREAM,
	OPT_CSV_SIZE_COLUMN, OPT_CSV_DELIMITER, OPT_CSV_HEADER, OPT_ID_TYPE,
	OPT_TRACE_TYPE_PARAMS,
	/* explain */
	OPT_OP, OPT_SVG, OPT_HZ, OPT_SAMPLE_SECONDS, OPT_NO_DIFF, OPT_CHAINS,
	OPT_OVERHEAD,
	/* reproduce */
	OPT_QUICK, OPT_ONLY, OPT_DRY_RUN,
};

enum opt_kind {
	TAKES_NOTHING, TAKES_TEXT, TAKES_NUMBER, TAKES_SECONDS,
	TAKES_COUNT_OR_PERCENT, /* "N" as TAKES_NUMBER, or "P%" of another
				   figure, P a whole number in smin..smax */
};

struct opt_spec {
	enum opt_id id;
	const char *name;    /* --name */
	enum opt_kind kind;
	uint64_t min, max;   /* TAKES_NUMBER, TAKES_COUNT_OR_PERCENT's N and
				the count P% comes to */
	double smin, smax;   /* TAKES_SECONDS; TAKES_COUNT_OR_PERCENT's P */
	const char *arg;     /* in help: "--name ARG" */
	const char *help;    /* where the command gives none */
};

/* One option a command accepts; help NULL: the spec's own line. */
struct cmd_option {
	const struct opt_spec *spec;
	const char *help;
};

#define N_OPTIONS(a) (sizeof(a) / sizeof((a)[0]))

/* The options several commands share (defined in options.c). */
extern const struct opt_spec opt_map, opt_map_one, opt_model, opt_kernel,
	opt_vm_cpus, opt_type, opt_key_size, opt_value_size,
	opt_entries, opt_prefill, opt_key_range, opt_flags, opt_threads,
	opt_duration, opt_ops, opt_seed, opt_rcu, opt_format, opt_out,
	opt_save, opt_quiet, opt_verbose, opt_trace;

/* A value as the spec checked it. */
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
 * one line when that falls outside the spec's range. */
int opts_count_of(const char *cmd, const struct opt_spec *s, struct opt_count c,
		  uint64_t whole, uint64_t *out);

typedef int (*opt_apply)(void *ctx, enum opt_id id, const struct opt_value *v);

/*
 * Parse argv (argv[0] is the command's name) with the options in `opts`:
 * each is checked and handed to apply(ctx, id, value), which returns 0 or
 * EXIT_USAGE after printing one line.  --help prints `usage`, the option
 * lines and `after` (may be NULL) on stdout.  An unknown option, long or
 * short, a value missing or an argument left over is one line on stderr.
 * Returns 0 to go on, 1 when --help was shown, or EXIT_USAGE.
 */
int opts_parse(const char *cmd, int argc, char **argv,
	       const struct cmd_option *opts, size_t n_opts, opt_apply apply,
	       void *ctx, const char *usage, const char *after);

/*
 * The one line for a --map name that is no design here: why it is
 * unavailable in this build (hash/dpdk without DPDK), or that no design
 * has the name (more: what else the option takes, "" for nothing).
 * EXIT_USAGE.
 */
int opts_no_design(const char *cmd, const char *name, const char *more);

/*
 * --map D[,D...]: the designs, at most max; an unknown name, an empty list
 * or an empty name is refused with one line.  0 or EXIT_USAGE.
 */
struct map_ops;
int opts_design_list(const char *cmd, const char *text,
		     const struct map_ops **out, unsigned max, unsigned *n);

/* --model V: a kernel version some faithful design models ("6.1"), into
 * *model (map_attr.model).  0 or EXIT_USAGE after one line naming the
 * versions there are. */
int opts_model(const char *cmd, const char *text, uint32_t *model);

/* Whether some faithful design models kernel version model. */
bool opts_model_known(uint32_t model);

/* --kernel given to a command that measures cost (kbench, compare,
 * explain): refused, with why.  EXIT_USAGE. */
int opts_refuse_vm_kernel(const char *cmd);

/* What those commands' --help says of --kernel. */
#define OPTS_KERNEL_REFUSED_HELP \
	"not here: a VM's timings mean nothing (replay and\n" \
	"validate take it: docs/kernels.md)"

/* --threads N[,N...]: at most max_n counts in the spec's range.  0 or
 * EXIT_USAGE after one line. */
int opts_thread_list(const char *cmd, const char *text, unsigned *out,
		     unsigned max_n, unsigned *n);

/* The same for another option of thread-like counts (sim's --cpus),
 * named in the message. */
int opts_count_list(const char *cmd, const char *option, const char *text,
		    unsigned *out, unsigned max_n, unsigned *n);

/* --type T: a map type by name.  0 or EXIT_USAGE after one line. */
int opts_map_type(const char *cmd, const char *text, uint32_t *type);

/*
 * Where a command's output went wrong (--out, --save, stdout): the one
 * line for a failed write to o, "maplab CMD: PATH: strerror" (the path
 * made printable; "standard output" for stdout), where rc is out_flush's
 * or out_close's -errno.  EXIT_USAGE.
 */
struct outfile;
int opts_write_failed(const char *cmd, const struct outfile *o, int rc);

#endif /* MAPLAB_OPTIONS_H */
