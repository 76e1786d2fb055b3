/* SPDX-License-Identifier: MIT */
/*
 * maplab sim: hit ratios of the LRU designs, Belady's optimum and the
 * kernel's LRU hash on a cache trace, through the designs' own map code
 * (harness/sim/sim.h; docs/sim.md).  This file reads the command line
 * (cachesim's form rewritten first: sim_cachesim.h), opens every output
 * before any work (so a bad path fails at once, not after the run), loads
 * the trace (a generator's, or a file read once, held whole or streamed
 * when long: harness/sim/simfile.h), the policies and sizes (sim_plan.h),
 * runs every (policy, size, threads or serial cpus) point, --repeat times
 * in turn, and writes its records (sim_report.h): in --format to --out
 * (or stdout), as jsonl appended to --save, and for --plot into the
 * folder, where the one plotter (harness/results/report.py) draws them.
 * Every file is written whole or not at all (harness/common/outfile.h): a
 * run that fails leaves none of its outputs behind.
 */
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "cli/sim/sim_cachesim.h"
#include "cli/sim/sim_plan.h"
#include "harness/common/outfile.h"
#include "harness/common/parse.h"
#include "harness/sim/simfile.h"
#include "harness/results/sim_report.h"
#include "harness/sim/kernel_engine.h"
#include "kernel-compare/vm/vm.h"
#include "kernel-compare/vm/vm_sim.h"
#include "maps/base/cpu.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SIM_MAX_THREAD_COUNTS 16

static const char usage_sim[] =
	"usage: maplab sim --trace T --policy P[,P...] --sizes S[,S...] "
	"[options]\n"
	"       maplab sim TRACE TYPE POLICY[,POLICY...] SIZE[,SIZE...] "
	"[cachesim's options]\n\n"
	"Replays a cache trace through each policy at each size: every request\n"
	"is a program-style lookup (map_lookup in an RCU read section, which\n"
	"marks the key as a BPF program's lookup does), and a miss inserts the\n"
	"key, through the same map code bench measures.  Reports, per policy,\n"
	"size and thread count: requests, misses, miss ratio (and byte miss\n"
	"ratio where the trace has sizes), evictions, million requests per\n"
	"second, effective capacity (mean live entries / entries), metadata\n"
	"bytes per entry, and stray (one thread: the share of victims that were\n"
	"not among the k least recently used keys, k the number one insert\n"
	"evicted, against a shadow exact LRU in an untimed second pass).\n\n"
	"Policies: the LRU hash designs of `maplab list`; opt (Belady's offline\n"
	"optimum: evict the key used farthest ahead, never-again first; one\n"
	"thread); kernel and kernel:no_common_lru (the kernel's own LRU hash\n"
	"through BPF_PROG_TEST_RUN, where allowed); all (every LRU hash design,\n"
	"opt, and the kernel's two when available).  Names in any case;\n"
	"libCacheSim's names of the same policies are aliases: lru, fifo,\n"
	"clock (fifo-reinsertion, second-chance), sieve, s3fifo (s3-fifo),\n"
	"belady (optimal) (docs/sim.md, \"cachesim's conventions\").\n\n"
	"Traces: a file (txt: a key a line, decimal or 0x hex; csv: the column\n"
	"of --csv-column, sizes from --csv-size-column; oracleGeneral:\n"
	"libCacheSim's 24-byte binary records; the format guessed from the name\n"
	"unless --trace-format says; .zst files read through libzstd), or a\n"
	"generator (below).  cachesim's csv parameters are taken in the form its\n"
	"parser takes: -t \"obj-id-col=2,obj-size-col=3,delimiter=,,has-header="
	"true\"\n"
	"(commas between pairs; delimiter=, or delimiter=\\t; booleans true/"
	"false,\n1/0, yes/no).  Keys that are strings, not numbers (Twitter's "
	"and Meta's\ntraces), are hashed to 8-byte ids with xxh64; the report "
	"says so and\ncounts collisions.\n\n"
	"cachesim's command line (TRACE TYPE ALGO[,ALGO] SIZE[,SIZE] and its\n"
	"options) is read as cachesim reads it and answered with the maplab\n"
	"command line it comes to; an option sim cannot honour (--warmup-sec,\n"
	"-e, -a, ...) is refused with that line (docs/sim.md, \"cachesim's\n"
	"conventions\").\n\n"
	"Generators:\n"
	"  zipf:alpha=A,keys=N,requests=M,seed=S   (0.99, 10000, 100000, 1)\n"
	"  loop:keys=N,requests=M                  0..N-1 over and over\n"
	"  scan:requests=M,start=S                 every request a new key\n"
	"  hotset:keys=N,hot=H,share=P,shift=R,requests=M,seed=S\n"
	"      P% of requests on H hot keys, which move every R requests\n"
	"  mix:PART+PART...                         parts interleaved at random\n"
	"Keys are the 8-byte ids; --key-size below 8 hashes them down (the\n"
	"report says so: collisions change miss ratios).\n\n"
	"Threads: --threads N splits the trace over N pinned workers, request\n"
	"i to worker i % N (--split rr) or by key hash (--split hash: all of a\n"
	"key's requests from one cpu).\n\n"
	"Repeats: --repeat N runs every point N times, the points in turn within\n"
	"each repeat (not one point N times over), so that a noisy moment spreads\n"
	"over every point; the table gives each figure's median, with Mreq/s's\n"
	"min-max (and the miss ratio's where threads make it vary); jsonl and\n"
	"csv a row per repeat (repeat 0 to N-1), one shape for pandas.\n";
static const char after_sim[] =
	"examples:\n"
	"  maplab sim --trace zipf:alpha=0.99,keys=100000,requests=1000000 \\\n"
	"      --policy lru/global,lru/clock,opt --sizes 0.01,0.1\n"
	"  maplab sim --trace trace.oracleGeneral --policy lru,s3fifo,sieve "
	"--sizes auto\n"
	"      (cachesim: ./cachesim trace.oracleGeneral oracleGeneral "
	"lru,s3fifo,sieve 0 --ignore-obj-size true)\n"
	"  maplab sim --trace examples/traces/zipf_sizes.oracleGeneral --policy all "
	"--sizes 100,1000 --plot plots/\n"
	"  maplab sim --trace zipf:keys=200000,requests=2000000 --policy "
	"lru/linux_common,lru/linux_percpu --sizes 4096 --threads 1,2 "
	"--split hash\n";

/* sim's own options; the rest are shared (options.h). */
static const struct opt_spec opt_policy = { OPT_POLICY, "policy", TAKES_TEXT,
	0, 0, 0, 0, "P[,P...]",
	"LRU hash designs, opt, kernel, kernel:no_common_lru, or all" };
static const struct opt_spec opt_sizes = { OPT_SIZES, "sizes", TAKES_TEXT, 0, 0,
	0, 0, "S[,S...]",
	"cache sizes: entries, fractions (with a dot) of the distinct keys, "
	"or auto" };
static const struct opt_spec opt_trace_format = { OPT_TRACE_FORMAT,
	"trace-format", TAKES_TEXT, 0, 0, 0, 0, "F", "txt, csv or oracleGeneral" };
static const struct opt_spec opt_csv_column = { OPT_CSV_COLUMN, "csv-column",
	TAKES_TEXT, 0, 0, 0, 0, "N|NAME", "the csv column of the key" };
/* The deterministic multi-cpu mode (sim.h, "Serial cpus"). */
static const struct opt_spec opt_serial_cpus = { OPT_CPUS, "cpus", TAKES_TEXT,
	0, 0, 0, 0, "N[,N...]", "serial cpus: one thread, the split's cpus" };
static const struct opt_spec opt_csv_size_column = { OPT_CSV_SIZE_COLUMN,
	"csv-size-column", TAKES_TEXT, 0, 0, 0, 0, "COL",
	"the csv column of the object size" };
static const struct opt_spec opt_csv_delimiter = { OPT_CSV_DELIMITER,
	"csv-delimiter", TAKES_TEXT, 0, 0, 0, 0, "C", "the csv delimiter" };
static const struct opt_spec opt_csv_header = { OPT_CSV_HEADER, "csv-header",
	TAKES_TEXT, 0, 0, 0, 0, "yes|no", "whether line 1 is a header" };
static const struct opt_spec opt_id_type = { OPT_ID_TYPE, "id-type", TAKES_TEXT,
	0, 0, 0, 0, "T", "what a txt or csv trace's keys are" };
static const struct opt_spec opt_trace_type_params = { OPT_TRACE_TYPE_PARAMS,
	"trace-type-params", TAKES_TEXT, 0, 0, 0, 0, "P",
	"cachesim's csv parameters (its -t)" };
static const struct opt_spec opt_split = { OPT_SPLIT, "split", TAKES_TEXT, 0, 0,
	0, 0, "rr|hash", "how requests are split over threads" };
/* A trace has no clock: sim's warm-up is a count of requests, so it has a
 * name of its own, not bench's --warmup (seconds). */
static const struct opt_spec opt_warmup_requests = { OPT_WARMUP_REQUESTS,
	"warmup-requests", TAKES_NUMBER, 0, 1ULL << 40, 0, 0, "N",
	"requests that warm the cache and are not counted" };
static const struct opt_spec opt_plot = { OPT_PLOT, "plot", TAKES_TEXT, 0, 0, 0,
	0, "DIR", "write plots (PNG, SVG) and their data into DIR" };
static const struct opt_spec opt_stream = { OPT_STREAM, "stream",
	TAKES_NOTHING, 0, 0, 0, 0, NULL,
	"read the trace file as it is replayed, whatever its length" };
static const struct opt_spec opt_no_stray = { OPT_NO_STRAY, "no-stray",
	TAKES_NOTHING, 0, 0, 0, 0, NULL, "skip the untimed stray pass" };
/* Sim's own range: its repeats are summed up on the stack (sim_report.h). */
static const struct opt_spec opt_sim_repeat = { OPT_REPEAT, "repeat",
	TAKES_NUMBER, 1, SIM_REPORT_MAX_REPEATS, 0, 0, "N",
	"runs per point, the points in turn within each" };
static const struct opt_spec opt_write_trace = { OPT_WRITE_TRACE, "write-trace",
	TAKES_TEXT, 0, 0, 0, 0, "FILE", "write the trace to FILE and stop" };

static const struct cmd_option sim_options[] = {
	{ &opt_trace, "the trace: a file or a generator spec (above)" },
	{ &opt_trace_format, "txt, csv or oracleGeneral (from the file name)" },
	{ &opt_csv_column, "the key's column in a csv trace: 1-based, or its\n"
			   "name in a header line (1)" },
	{ &opt_csv_size_column, "the object size's column, N or NAME as\n"
				"--csv-column's (none; sizes give the byte "
				"miss ratio)" },
	{ &opt_csv_delimiter, "one character, or tab (',', or tab or '|' where "
			      "line 1\nhas no comma)" },
	{ &opt_csv_header, "whether line 1 of a csv is a header (where it "
			   "looks\nlike one)" },
	{ &opt_id_type, "number or string: a txt or csv trace's keys; strings\n"
			"are hashed to 8-byte ids (as the first key is)" },
	{ &opt_trace_type_params, "(or -t) cachesim's csv parameters: obj-id-col=N,\n"
				  "obj-size-col=N,delimiter=C,has-header=B,\n"
				  "obj-id-is-num=B" },
	{ &opt_policy, NULL },
	{ &opt_sizes, "cache sizes (max_entries): whole numbers, or fractions\n"
		      "of the trace's distinct keys with a dot (0.01,0.1);\n"
		      "auto (or 0): cachesim's, 0.001 to 0.8 of them" },
	{ &opt_warmup_requests, "the first N requests warm the cache and are "
				"not\ncounted (0)" },
	{ &opt_key_size, "key bytes, 1 to 8 (8: the ids themselves)" },
	{ &opt_threads, "worker threads; one result per count (1)" },
	{ &opt_serial_cpus, "one thread replays the trace in order, request i\n"
			    "as the cpu --split gives it among N (slot c;\n"
			    "the kernel's side pinned per request): exact,\n"
			    "repeatable; one result per count" },
	{ &opt_split, "rr (round-robin by request) or hash (by key) (rr)" },
	{ &opt_no_stray, NULL },
	{ &opt_stream, "read the trace file as it is replayed, however\n"
		       "short (beyond " STR(SIM_HOLD_MILLIONS) " million requests it always is)" },
	{ &opt_rcu, "liburcu flavour (memb)" },
	{ &opt_format, "table, jsonl or csv (table)" },
	{ &opt_out, NULL },
	{ &opt_save, NULL },
	{ &opt_plot, NULL },
	{ &opt_sim_repeat, "runs per point, the points in turn within each\n"
			   "repeat; medians with their min-max (1)" },
	{ &opt_write_trace, "write the trace (txt, or oracleGeneral by the "
			    "name,\nnext accesses filled) and stop" },
	{ &opt_kernel, "the kernel policies in a virtual machine booted from\n"
		       "kernel K (5.10, 6.1, 6.12, or a vmlinuz; fetched once\n"
		       "into ~/.cache/maplab/kernels), kept up for the run;\n"
		       "the designs here, modelling K on its cpus.  Miss\n"
		       "ratios only: a VM's Mreq/s mean nothing\n"
		       "(docs/kernels.md)" },
	{ &opt_vm_cpus, "the VM's vCPUs (1 to 8; this machine's count, at\n"
			"most 8)" },
	{ &opt_model, "the kernel version the faithful designs behave as\n"
		      "(maplab list; default: the newest, or --kernel's)" },
	{ &opt_quiet, NULL },
};

struct sim_cli {
	const char *trace, *trace_format, *policies, *sizes;
	struct sim_csv_params csv;
	const char *out, *save, *plot, *write_trace;
	uint64_t warmup;
	uint32_t key_size;
	unsigned repeat;
	unsigned threads[SIM_MAX_THREAD_COUNTS], n_threads;
	enum sim_split split;
	enum record_format format;
	bool quiet, no_stray;
	bool serial, threads_given; /* --cpus (threads[] holds its counts) */
	bool stream;
	const char *cachesim_notes; /* sim_cachesim.h's, a line each */
	/* --kernel K: the kernel policies in a VM of vm_cpus vCPUs, the
	 * designs' maps made for that many cpus */
	const char *kernel;
	unsigned vm_cpus;
	uint32_t model;             /* --model, or K's where modelled */
};

/* A column, "N" (1-based) or a header's NAME, into *col or *name. */
static void set_column(const char *text, unsigned *col, const char **name)
{
	uint64_t n;
	*col = 0;
	*name = NULL;
	if (parse_u64(text, 1, 4096, &n) == 0)
		*col = (unsigned)n;
	else
		*name = text;
}

/* The options that say how a csv trace is read, in maplab's words or in
 * cachesim's -t form; the last one given wins. */
static int apply_csv(struct sim_csv_params *p, enum opt_id id,
		     const char *text)
{
	char shown[80], err[512];
	bool b;
	switch (id) {
	case OPT_CSV_COLUMN:
		set_column(text, &p->id_col, &p->id_name);
		return 0;
	case OPT_CSV_SIZE_COLUMN:
		set_column(text, &p->size_col, &p->size_name);
		return 0;
	case OPT_CSV_DELIMITER:
		if (sim_csv_parse_delimiter(text, &p->delimiter))
			return cli_error("sim", "--csv-delimiter wants one "
					 "character or tab, got '%s'",
					 parse_printable(text, shown,
							 sizeof(shown)));
		return 0;
	case OPT_CSV_HEADER:
		if (sim_csv_parse_bool(text, &b))
			return cli_error("sim", "--csv-header wants yes or no, "
					 "got '%s'", parse_printable(
					 text, shown, sizeof(shown)));
		p->has_header = b;
		return 0;
	case OPT_ID_TYPE:
		if (strcmp(text, "number") && strcmp(text, "string"))
			return cli_error("sim", "--id-type wants number or "
					 "string, got '%s'", parse_printable(
					 text, shown, sizeof(shown)));
		p->id_is_num = strcmp(text, "number") == 0;
		return 0;
	default:
		if (sim_csv_params_parse(text, p, err, sizeof(err)))
			return cli_error("sim", "--trace-type-params: %s", err);
		return 0;
	}
}

static int apply_sim(void *ctx, enum opt_id id, const struct opt_value *v)
{
	struct sim_cli *c = ctx;
	char shown[80];
	switch (id) {
	case OPT_TRACE: c->trace = v->text; return 0;
	case OPT_TRACE_FORMAT: c->trace_format = v->text; return 0;
	case OPT_CSV_COLUMN:
	case OPT_CSV_SIZE_COLUMN:
	case OPT_CSV_DELIMITER:
	case OPT_CSV_HEADER:
	case OPT_ID_TYPE:
	case OPT_TRACE_TYPE_PARAMS:
		return apply_csv(&c->csv, id, v->text);
	case OPT_POLICY: c->policies = v->text; return 0;
	case OPT_SIZES: c->sizes = v->text; return 0;
	case OPT_WARMUP_REQUESTS: c->warmup = v->u; return 0;
	case OPT_REPEAT: c->repeat = (unsigned)v->u; return 0;
	case OPT_OUT: c->out = v->text; return 0;
	case OPT_SAVE: c->save = v->text; return 0;
	case OPT_PLOT: c->plot = v->text; return 0;
	case OPT_WRITE_TRACE: c->write_trace = v->text; return 0;
	case OPT_QUIET: c->quiet = true; return 0;
	case OPT_KERNEL: c->kernel = v->text; return 0;
	case OPT_VM_CPUS: c->vm_cpus = (unsigned)v->u; return 0;
	case OPT_MODEL: return opts_model("sim", v->text, &c->model);
	case OPT_NO_STRAY: c->no_stray = true; return 0;
	case OPT_STREAM: c->stream = true; return 0;
	case OPT_RCU: return cli_apply_rcu("sim", v->text);
	case OPT_KEY_SIZE:
		if (v->u > SIM_MAX_KEY_SIZE)
			return cli_error("sim", "--key-size: sim's keys are the "
					 "8-byte ids, or hashed down to 1 to 7 "
					 "bytes; got %llu",
					 (unsigned long long)v->u);
		c->key_size = (uint32_t)v->u;
		return 0;
	case OPT_THREADS:
	case OPT_CPUS:
		/* both fill threads[]: one or the other */
		if ((id == OPT_CPUS && c->threads_given) ||
		    (id == OPT_THREADS && c->serial))
			return cli_error("sim", "--threads N runs N threads at "
					 "once, --cpus N one thread as N cpus: "
					 "one or the other");
		c->threads_given = id == OPT_THREADS;
		c->serial = id == OPT_CPUS;
		return opts_count_list("sim", c->serial ? "--cpus" : "--threads",
				       v->text, c->threads,
				       SIM_MAX_THREAD_COUNTS, &c->n_threads);
	case OPT_SPLIT:
		if (strcmp(v->text, "rr") == 0)
			c->split = SIM_SPLIT_RR;
		else if (strcmp(v->text, "hash") == 0)
			c->split = SIM_SPLIT_HASH;
		else
			return cli_error("sim", "--split wants rr or hash, got "
					 "'%s'", parse_printable(v->text, shown,
								 sizeof(shown)));
		return 0;
	case OPT_FORMAT:
		if (record_parse_format(v->text, &c->format))
			return cli_error("sim", "--format wants table, jsonl or "
					 "csv, got '%s'", parse_printable(
					 v->text, shown, sizeof(shown)));
		return 0;
	default:
		return cli_error("sim", "option not handled");
	}
}

/* --- the trace --------------------------------------------------------------------- */

/*
 * What was taken unasked, on stderr once the command line is known good
 * (so that a refusal stays one line): the rewrite of cachesim's form
 * (sim_cachesim.h) and what the trace's reader decided.
 */
static void say_notes(const struct sim_cli *c, const struct sim_trace *t)
{
	for (const char *n = c->cachesim_notes, *end; n && *n;
	     n = *end ? end + 1 : end) {
		end = n + strcspn(n, "\n");
		fprintf(stderr, "maplab sim: note: %.*s\n", (int)(end - n), n);
	}
	if (t->note[0])
		fprintf(stderr, "maplab sim: note: %s: %s\n", t->name, t->note);
}

/* The trace file's format: --trace-format's, or the name's.  0, or
 * EXIT_USAGE after one line. */
static int trace_file_format(const struct sim_cli *c, enum sim_trace_format *f)
{
	char shown[80];
	*f = SIM_TRACE_AUTO;
	if (c->trace_format && sim_trace_parse_format(c->trace_format, f))
		return cli_error("sim", "--trace-format wants txt, csv or "
				 "oracleGeneral, got '%s'", parse_printable(
				 c->trace_format, shown, sizeof(shown)));
	if (*f == SIM_TRACE_AUTO)
		*f = sim_trace_guess_format(c->trace);
	return 0;
}

/* An error opening or reading the file, with the generators named where
 * the path may have meant one. */
static int trace_file_error(const struct sim_cli *c, int rc, const char *err)
{
	if (rc == -ENOENT && strchr(c->trace, ':'))
		return cli_error("sim", "%s (nor is it a generator: zipf:, "
				 "loop:, scan:, hotset:, mix:)", err);
	return cli_error("sim", "%s", err);
}

/* The whole trace into t, for --write-trace: a generator's, or a file's
 * (read once).  0, or EXIT_USAGE after one line. */
static int load_trace(const struct sim_cli *c, struct sim_trace *t)
{
	enum sim_trace_format f;
	char err[512];
	int rc;
	if (sim_trace_is_generator(c->trace)) {
		rc = sim_trace_generate(c->trace, t, err, sizeof(err));
		return rc ? cli_error("sim", "%s", err) : 0;
	}
	if ((rc = trace_file_format(c, &f)))
		return rc;
	rc = sim_trace_read(c->trace, f, &c->csv, t, err, sizeof(err));
	return rc ? trace_file_error(c, rc, err) : 0;
}

/*
 * The input the runs replay: a generator's trace, held; or the file's,
 * read once and held where it is short, else streamed through fs
 * (simfile.h).  0, or EXIT_USAGE after one line.
 */
static int prepare_input(const struct sim_cli *c, struct sim_trace *t,
			 struct sim_file *fs, struct sim_input *in,
			 const char **format_name)
{
	char err[512];
	int rc;
	if (sim_trace_is_generator(c->trace)) {
		*format_name = "generated";
		if (sim_trace_generate(c->trace, t, err, sizeof(err)) ||
		    sim_input_prepare(in, t, c->key_size, c->warmup, err,
				      sizeof(err)))
			return cli_error("sim", "%s", err);
		return 0;
	}
	struct sim_file_opts o = { .csv = &c->csv, .key_size = c->key_size,
				   .warmup = c->warmup, .stream = c->stream };
	if ((rc = trace_file_format(c, &o.format)))
		return rc;
	*format_name = sim_trace_format_name(o.format == SIM_TRACE_AUTO
					     ? SIM_TRACE_TXT : o.format);
	rc = sim_file_load(fs, c->trace, &o, t, in, err, sizeof(err));
	return rc ? trace_file_error(c, rc, err) : 0;
}

/* --- the outputs, opened before any work ------------------------------------------- */

/*
 * Every file sim writes, open from the start: --out (else stdout), --save,
 * --plot's folder, --write-trace.  A path that cannot be written is one
 * line and exit 2 before the trace is read; a write that fails at the end
 * names its file and the errno's text, and removes (or, for --save, cuts
 * back) what it wrote; a run that fails discards them all.
 */
struct sim_outputs {
	struct outfile out;   /* --out, or stdout */
	struct outfile save;  /* --save: appended */
	struct outfile trace; /* --write-trace */
	struct sim_plot plot; /* --plot */
	/* Open, and so to be closed or discarded (stdout: never closed). */
	bool open_out, open_save, open_trace, open_plot;
};

/* "cannot write PATH: strerror" for a failed out_open. */
static int open_failed(const char *path, int rc)
{
	char shown[256];
	return cli_error("sim", "cannot write %s: %s",
			 parse_printable(path, shown, sizeof(shown)),
			 map_errno_text(-rc));
}

/* Every output still open, undone: a run that failed leaves none. */
static void outputs_discard(struct sim_outputs *o)
{
	if (o->open_out)
		out_discard(&o->out);
	if (o->open_save)
		out_discard(&o->save);
	if (o->open_trace)
		out_discard(&o->trace);
	if (o->open_plot)
		sim_plot_discard(&o->plot);
	o->open_out = o->open_save = o->open_trace = o->open_plot = false;
}

/* Whether path is the trace file itself: opened to be written before the
 * trace is read, it would be cut short or lost. */
static bool is_the_trace(const struct sim_cli *c, const char *path)
{
	struct stat a, b;
	return path && !sim_trace_is_generator(c->trace) &&
	       stat(c->trace, &a) == 0 && S_ISREG(a.st_mode) &&
	       stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* 0, or EXIT_USAGE after one line (nothing left open). */
static int outputs_open(const struct sim_cli *c, struct sim_outputs *o)
{
	const char *paths[] = { c->out, c->save, c->write_trace };
	char err[1024], shown[256];
	int rc;
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++)
		if (is_the_trace(c, paths[i]))
			return cli_error("sim", "cannot write %s: it is the trace "
					 "itself, which sim reads after opening "
					 "its outputs", parse_printable(
					 paths[i], shown, sizeof(shown)));
	if (c->write_trace) {
		if ((rc = out_open(&o->trace, c->write_trace, OUT_TRUNCATE)))
			return open_failed(c->write_trace, rc);
		o->open_trace = true;
		return 0;
	}
	if (!c->out)
		out_stdout(&o->out);
	else if ((rc = out_open(&o->out, c->out, OUT_TRUNCATE)))
		return open_failed(c->out, rc);
	o->open_out = true;
	if (c->save && (rc = out_open(&o->save, c->save, OUT_APPEND))) {
		outputs_discard(o);
		return open_failed(c->save, rc);
	}
	o->open_save = c->save != NULL;
	if (c->plot && sim_plot_open(&o->plot, c->plot, err, sizeof(err))) {
		outputs_discard(o);
		return cli_error("sim", "--plot: %s", err);
	}
	o->open_plot = c->plot != NULL;
	return 0;
}

/* f closed whole (*open cleared): 0, or EXIT_USAGE after one line naming
 * it, the file undone. */
static int close_one(struct outfile *f, bool *open)
{
	int rc = out_close(f);
	*open = false;
	return rc ? opts_write_failed("sim", f, rc) : 0;
}

/* The trace into --write-trace's file (txt, or oracleGeneral by its
 * name).  0, or EXIT_USAGE after one line. */
static int write_trace(const struct sim_cli *c, struct sim_outputs *o,
		       const struct sim_trace *t)
{
	enum sim_trace_format f = sim_trace_guess_format(c->write_trace);
	int rc = sim_trace_write(o->trace.f, t, f == SIM_TRACE_ORACLE
					       ? f : SIM_TRACE_TXT);
	if (rc == 0)
		return close_one(&o->trace, &o->open_trace);
	/* The write's own errno (ENOSPC), kept before the close. */
	outputs_discard(o);
	return opts_write_failed("sim", &o->trace, rc);
}

/* --- the runs ------------------------------------------------------------------------ */

/* One run of point (k, s, t) in repeat r into *row: 0, or EXIT_USAGE
 * after one line. */
static int run_point(const struct sim_cli *c, struct sim_input *in,
		     const struct sim_plan *p, unsigned k, unsigned s,
		     unsigned t, unsigned r, struct progress *prog,
		     struct sim_row *row)
{
	const struct sim_policy *pol = &p->policies[k];
	char err[512];
	struct sim_config sc = {
		.policy = pol, .entries = p->sizes[s],
		.threads = pol->engine == SIM_ENGINE_OPT || c->serial
				   ? 1 : c->threads[t],
		.serial_cpus = pol->engine != SIM_ENGINE_OPT && c->serial
				       ? c->threads[t] : 0,
		.split = c->split, .stray = !c->no_stray,
		.ncpus = c->kernel ? c->vm_cpus : 0, .model = c->model,
		.progress = progress_update, .progress_arg = prog,
	};
	if (c->repeat > 1)
		progress_label(prog, "repeat %u of %u: %s, %u entries, %u "
			       "threads", r + 1, c->repeat, pol->name,
			       sc.entries, sc.threads);
	else
		progress_label(prog, "%s, %u entries, %u %s", pol->name,
			       sc.entries, sc.serial_cpus ? sc.serial_cpus
			       : sc.threads, sc.serial_cpus ? "serial cpus"
			       : "threads");
	row->policy = pol->name;
	row->entries = sc.entries;
	row->threads = sc.threads;
	row->cpus = sc.serial_cpus ? sc.serial_cpus : sc.threads;
	row->serial = sc.serial_cpus > 0;
	row->repeat = r;
	if (sim_run(in, &sc, &row->r, err, sizeof(err)))
		return cli_error("sim", "%s", err);
	if (c->kernel && pol->engine == SIM_ENGINE_KERNEL) {
		/* a VM's speed is the emulator's, not the kernel's: none */
		row->r.seconds = NAN;
		row->r.mreq_per_s = NAN;
	}
	return 0;
}

/*
 * Every point, --repeat times: the repeats outermost, so that each repeat
 * runs every point once before the next begins (as compare runs its sides
 * in turn); a slow spell of the machine then lands on several points, not
 * on all the runs of one.  rows get sim_report.h's order.
 */
static int run_points(const struct sim_cli *c, struct sim_input *in,
		      const struct sim_plan *p, struct sim_row *rows,
		      unsigned *n_rows)
{
	struct progress prog;
	int rc = 0;
	progress_init(&prog, c->quiet);
	*n_rows = 0;
	for (unsigned r = 0; r < c->repeat && !rc; r++)
		for (unsigned k = 0; k < p->n_policies && !rc; k++)
			for (unsigned s = 0; s < p->n_sizes && !rc; s++)
				for (unsigned t = 0; t < c->n_threads && !rc; t++) {
					/* opt is offline: one thread. */
					if (p->policies[k].engine == SIM_ENGINE_OPT &&
					    t > 0)
						break;
					rc = run_point(c, in, p, k, s, t, r,
						       &prog, &rows[*n_rows]);
					*n_rows += !rc;
				}
	progress_clear(&prog);
	return rc;
}

/* The records into every output, each closed whole; stopped at the first
 * that fails, the rest discarded.  0, or EXIT_USAGE after one line. */
static int write_outputs(const struct sim_cli *c, struct sim_outputs *o,
			 const struct sim_report *rep)
{
	struct host_record host;
	char note[1536];
	int rc;
	host_record_read(&host);
	sim_report_write(o->out.f, c->format, &host, rep);
	if ((rc = close_one(&o->out, &o->open_out)))
		goto fail;
	if (o->open_save) {
		sim_report_log(o->save.f, &host, rep);
		if ((rc = close_one(&o->save, &o->open_save)))
			goto fail;
	}
	if (o->open_plot) {
		o->open_plot = false;
		int p = sim_plot_draw(&o->plot, &host, rep, note, sizeof(note));
		if (p < 0)
			return cli_error("sim", "--plot: %s", note);
		if (p > 0)
			fprintf(stderr, "maplab sim: note: %s\n", note);
	}
	return 0;
fail:
	outputs_discard(o);
	return rc;
}

/* Notes on stderr: sizes beyond the distinct keys (they never evict). */
static void note_sizes(const struct sim_plan *p, const struct sim_input *in)
{
	for (unsigned s = 0; s < p->n_sizes; s++)
		if (p->sizes[s] > in->distinct)
			fprintf(stderr, "maplab sim: note: size %u is more than "
				"the trace's %u distinct keys: only first "
				"requests miss\n", p->sizes[s], in->distinct);
}

static int check_required(const struct sim_cli *c)
{
	if (!c->trace)
		return cli_error("sim", "--trace is required (a file or a "
				 "generator; try --help)");
	if (c->stream && (c->write_trace || sim_trace_is_generator(c->trace)))
		return cli_error("sim", "--stream reads a trace file as it is "
				 "replayed; %s", c->write_trace
				 ? "--write-trace writes one whole"
				 : "a generator's trace is made in memory");
	if (c->write_trace)
		return 0;
	if (!c->policies)
		return cli_error("sim", "--policy is required (try --help)");
	if (!c->sizes)
		return cli_error("sim", "--sizes is required (try --help)");
	return 0;
}

/* Opt and the kernel need the trace held: refused, with the way out, for
 * a streamed one.  0, or EXIT_USAGE after one line. */
static int refuse_streamed(const struct sim_plan *p, const struct sim_input *in)
{
	for (unsigned k = 0; in->source && k < p->n_policies; k++)
		if (p->policies[k].engine != SIM_ENGINE_MAP)
			return cli_error("sim", "--policy %s needs the trace "
					 "held whole, and this one is streamed "
					 "(%zu requests%s): the designs only, or "
					 "a shorter trace", p->policies[k].name,
					 in->n, in->n > SIM_HOLD_REQUESTS
					 ? ", over " STR(SIM_HOLD_MILLIONS)
					   " million" : ", --stream");
	return 0;
}

/* The designs' model for kernel k: --model's, else k's series where the
 * faithful designs model it. */
static void model_of(struct sim_cli *c, const char *series)
{
	uint32_t model;
	if (!c->model && map_model_parse(series, &model) == 0 &&
	    opts_model_known(model))
		c->model = model;
}

/*
 * --kernel K --vm-cpus N: the designs make their maps for N cpus and model
 * K; the kernel policies, if the plan asks for any, run in a VM booted
 * from K (kept up until vm_sim_close), on cpus the VM has.  Without a
 * kernel policy no VM is booted: a series is known by its name (a path's
 * header is read).  0, or EXIT_USAGE after one line.
 */
static int boot_kernel(struct sim_cli *c, const struct sim_plan *p,
		       char *note, size_t len)
{
	bool kernel = false;
	char err[1024];
	struct vm_kernel k;
	for (unsigned i = 0; i < p->n_policies; i++)
		kernel = kernel || p->policies[i].engine == SIM_ENGINE_KERNEL;
	uint32_t series;
	if (!kernel && !strchr(c->kernel, '/') &&
	    map_model_parse(c->kernel, &series) == 0) {
		model_of(c, c->kernel);
		snprintf(note, len, "the designs model kernel %s on %u cpus (no "
			 "kernel policy: no VM)", c->kernel, c->vm_cpus);
		return 0;
	}
	for (unsigned i = 0; kernel && i < c->n_threads; i++)
		if (c->threads[i] > c->vm_cpus)
			return cli_error("sim", "%s %u: the VM has %u vCPUs "
					 "(--vm-cpus)", c->serial ? "--cpus"
					 : "--threads", c->threads[i],
					 c->vm_cpus);
	if (vm_kernel_resolve(c->kernel, c->quiet, &k, err, sizeof(err)))
		return cli_error("sim", "%s", err);
	model_of(c, k.series);
	if (!kernel) {
		snprintf(note, len, "the designs model kernel %s on %u cpus (no "
			 "kernel policy: no VM)", k.series, c->vm_cpus);
		return 0;
	}
	/* ksim's program is BPF_PROG_TYPE_SYSCALL (kernel-compare/bpf/
	 * ksim.bpf.c), which came in 5.14: older kernels refuse it. */
	uint32_t v;
	if (map_model_parse(k.series, &v) == 0 && v < MAP_MODEL(5, 14))
		return cli_error("sim", "the kernel policies run a BPF program "
				 "of BPF_PROG_TYPE_SYSCALL, which kernel %s lacks "
				 "(5.14 and later have it): drop them, and the "
				 "designs alone model %s", k.series, k.series);
	if (vm_sim_open(&k, c->vm_cpus, c->quiet, err, sizeof(err)))
		return cli_error("sim", "%s", err);
	sim_set_kernel_engine(&vm_sim_engine);
	snprintf(note, len, "the kernel policies ran in %s; the designs made "
		 "their maps for %u cpus", vm_sim_label(), c->vm_cpus);
	return 0;
}

static int simulate(struct sim_cli *c, struct sim_outputs *o,
		    struct sim_trace *t, struct sim_input *in,
		    const char *format_name)
{
	struct sim_plan plan = { 0 };
	char notes[1024] = "", vm_note[600] = "";
	int rc;

	if ((rc = sim_plan_policies(&plan, c->policies)) ||
	    (rc = refuse_streamed(&plan, in)) ||
	    (rc = sim_plan_sizes(&plan, c->sizes, in->distinct)) ||
	    (c->kernel && (rc = boot_kernel(c, &plan, vm_note,
					    sizeof(vm_note)))))
		return rc;
	say_notes(c, t);
	if (plan.aliases_used[0])
		snprintf(notes, sizeof(notes), "policies: %s (libCacheSim's "
			 "names)%s", plan.aliases_used,
			 plan.sizes_note[0] ? "\n" : "");
	snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes), "%s",
		 plan.sizes_note);
	if (vm_note[0])
		snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes),
			 "%s%s", notes[0] ? "\n" : "", vm_note);
	/* jsonl and csv have no head: the notes go to stderr, a line each. */
	for (char *line = notes, *end; *line && c->format != RECORD_TABLE;
	     line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		fprintf(stderr, "maplab sim: note: %.*s\n", (int)(end - line),
			line);
	}
	if (c->warmup >= t->n)
		fprintf(stderr, "maplab sim: note: --warmup-requests %llu covers "
			"the whole trace (%zu requests): nothing is counted\n",
			(unsigned long long)c->warmup, t->n);
	note_sizes(&plan, in);
	if (in->source)
		fprintf(stderr, "maplab sim: note: %s: %zu requests, streamed: "
			"read again on each pass, %zu at a time (memory: one "
			"chunk and the table of %u distinct keys)\n", t->name,
			in->n, in->chunk, in->distinct);

	struct sim_row *rows = calloc((size_t)plan.n_policies * plan.n_sizes *
				      c->n_threads * c->repeat, sizeof(*rows));
	unsigned n_rows = 0;
	rc = rows ? run_points(c, in, &plan, rows, &n_rows)
		  : cli_error("sim", "out of memory");
	if (c->kernel)
		vm_sim_close(); /* none was open: nothing done */
	if (!rc) {
		struct sim_report rep = {
			.in = in, .format_name = format_name,
			.split = c->split == SIM_SPLIT_HASH ? "hash" : "rr",
			.rows = rows, .n = n_rows, .repeats = c->repeat,
			.notes = notes[0] ? notes : NULL,
		};
		rc = write_outputs(c, o, &rep);
	}
	free(rows);
	return rc;
}

/* bench's --warmup is seconds; sim's is --warmup-requests: say so to one
 * who reaches for the other.  0, or EXIT_USAGE after one line. */
static int refuse_warmup_seconds(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--warmup") == 0 ||
		    strncmp(argv[i], "--warmup=", 9) == 0)
			return cli_error("sim", "--warmup is bench's (seconds); "
					 "sim's warm-up counts requests: "
					 "--warmup-requests N");
	return 0;
}

/* cachesim_notes: the rewrite's (sim_cachesim.h), said once the command
 * line and the trace are known good. */
static int run_sim(int argc, char **argv, const char *cachesim_notes)
{
	struct sim_cli c = { .key_size = 8, .repeat = 1, .threads = { 1 },
			     .n_threads = 1 };
	struct sim_trace t = { 0 };
	const char *format_name = "txt";
	struct sim_outputs o;
	struct sim_file fs = { 0 };
	struct sim_input in;
	int rc;
	c.cachesim_notes = cachesim_notes;
	unsigned here = map_cpu_allowed_count();
	c.vm_cpus = here < VM_MAX_CPUS ? here : VM_MAX_CPUS;
	sim_csv_params_init(&c.csv);
	rc = opts_parse("sim", argc, argv, sim_options, N_OPTIONS(sim_options),
			apply_sim, &c, usage_sim, after_sim);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = check_required(&c)) || (rc = outputs_open(&c, &o)))
		return rc;
	if (c.write_trace) {
		if (!(rc = load_trace(&c, &t))) {
			say_notes(&c, &t);
			rc = write_trace(&c, &o, &t);
		}
	} else if (!(rc = prepare_input(&c, &t, &fs, &in, &format_name))) {
		rc = simulate(&c, &o, &t, &in, format_name);
		sim_input_free(&in);
	}
	outputs_discard(&o); /* what a failed run left open */
	sim_file_close(&fs);
	sim_trace_free(&t);
	return rc;
}

/* maplab's options, or cachesim's command line rewritten into them
 * (sim_cachesim.h). */
int cmd_sim(int argc, char **argv)
{
	char **args, notes[2048];
	int n, rc = refuse_warmup_seconds(argc, argv);
	if (rc || (rc = sim_cachesim_translate(argc, argv, sim_options,
					       N_OPTIONS(sim_options), &n,
					       &args, notes, sizeof(notes))))
		return rc;
	rc = run_sim(n, args, notes);
	free(args);
	return rc;
}
