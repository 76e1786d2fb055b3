/* SPDX-License-Identifier: MIT */
/*
 * maplab sim: hit ratios of the LRU designs, Belady's optimum and the
 * kernel's LRU hash on a cache trace, through the designs' own map code
 * (harness/sim/sim.h; docs/sim.md).  This file reads the command line
 * (cachesim's form rewritten first: sim_cachesim.h), the trace (held
 * whole, or streamed when long: "a trace file read as it is replayed"),
 * the policies and sizes (sim_plan.h), runs every (policy, size, threads
 * or serial cpus) point, --repeat times in turn, and writes its records
 * (sim_report.h): in --format to --out, as jsonl to --save, and for
 * --plot into the folder, where the one plotter
 * (harness/results/report.py) draws them.
 */
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "cli/sim_cachesim.h"
#include "cli/sim_plan.h"
#include "harness/common/parse.h"
#include "harness/sim/sim.h"
#include "harness/results/sim_report.h"
#include "maps/base/cpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static int load_trace(const struct sim_cli *c, struct sim_trace *t,
		      const char **format_name)
{
	enum sim_trace_format f = SIM_TRACE_AUTO;
	char err[512], shown[80];
	int rc;
	if (c->trace_format && sim_trace_parse_format(c->trace_format, &f))
		return cli_error("sim", "--trace-format wants txt, csv or "
				 "oracleGeneral, got '%s'", parse_printable(
				 c->trace_format, shown, sizeof(shown)));
	if (sim_trace_is_generator(c->trace)) {
		rc = sim_trace_generate(c->trace, t, err, sizeof(err));
		*format_name = "generated";
	} else {
		if (f == SIM_TRACE_AUTO)
			f = sim_trace_guess_format(c->trace);
		rc = sim_trace_read(c->trace, f, &c->csv, t, err,
				    sizeof(err));
		if (rc == -ENOENT && strchr(c->trace, ':'))
			return cli_error("sim", "%s (nor is it a generator: zipf:, "
					 "loop:, scan:, hotset:, mix:)", err);
		*format_name = sim_trace_format_name(f == SIM_TRACE_AUTO
						     ? SIM_TRACE_TXT : f);
	}
	return rc ? cli_error("sim", "%s", err) : 0;
}

/* --- a trace file read as it is replayed ------------------------------------------- */

/*
 * A file of more requests than this is streamed (sim.h, struct
 * sim_source), not held: held, a request takes some 48 bytes (its id,
 * size, key bytes and number, and its share of the key table), so 16
 * million take about 800 MB; streamed, memory is one chunk and the table
 * of distinct keys, however long the trace.  Opt and the kernel need the
 * trace held.
 */
#define SIM_HOLD_MILLIONS 16
#define SIM_HOLD_REQUESTS ((size_t)SIM_HOLD_MILLIONS << 20)

struct file_source {
	const char *path;
	enum sim_trace_format format;
	const struct sim_csv_params *csv;
	struct sim_trace_reader *r;
	struct sim_trace *t; /* its key facts, at each pass's end */
};

static int file_rewind(void *ctx, char *err, size_t errlen)
{
	struct file_source *fs = ctx;
	if (fs->r)
		sim_trace_close(fs->r);
	fs->r = NULL;
	return sim_trace_open(fs->path, fs->format, fs->csv, &fs->r, err,
			      errlen);
}

static long file_next(void *ctx, uint64_t *ids, uint32_t *sizes, size_t max,
		      char *err, size_t errlen)
{
	struct file_source *fs = ctx;
	ssize_t got = sim_trace_next(fs->r, ids, sizes, max, err, errlen);
	if (got == 0)
		sim_trace_reader_keys(fs->r, fs->t);
	return (long)got;
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

/* An error opening or reading the file, as load_trace words it. */
static int trace_file_error(const struct sim_cli *c, int rc, const char *err)
{
	if (rc == -ENOENT && strchr(c->trace, ':'))
		return cli_error("sim", "%s (nor is it a generator: zipf:, "
				 "loop:, scan:, hotset:, mix:)", err);
	return cli_error("sim", "%s", err);
}

/*
 * The input of a trace file: one streamed pass counts its requests and
 * numbers its keys; a trace of SIM_HOLD_REQUESTS or fewer (and no
 * --stream) is then read again whole into t and held.  0, or EXIT_USAGE
 * after one line.  fs stays open while in is streamed (sim_trace_close).
 */
static int prepare_file(const struct sim_cli *c, struct sim_trace *t,
			struct file_source *fs, struct sim_source *src,
			struct sim_input *in, const char **format_name)
{
	char err[512];
	int rc = trace_file_format(c, &fs->format);
	if (rc)
		return rc;
	fs->path = c->trace;
	fs->csv = &c->csv;
	fs->t = t;
	*format_name = sim_trace_format_name(fs->format == SIM_TRACE_AUTO
					     ? SIM_TRACE_TXT : fs->format);
	const char *slash = strrchr(c->trace, '/');
	parse_printable(slash ? slash + 1 : c->trace, t->name, sizeof(t->name));
	*src = (struct sim_source){ .rewind = file_rewind, .next = file_next,
				    .ctx = fs };
	if ((rc = file_rewind(fs, err, sizeof(err))))
		return trace_file_error(c, rc, err);
	src->has_sizes = sim_trace_reader_has_sizes(fs->r);
	rc = sim_input_stream(in, t, src, c->key_size, c->warmup, 0, err,
			      sizeof(err));
	if (rc) {
		sim_trace_close(fs->r);
		fs->r = NULL;
		return trace_file_error(c, rc, err);
	}
	t->n = in->n;
	if (c->stream || in->n > SIM_HOLD_REQUESTS)
		return 0;
	sim_input_free(in);
	sim_trace_close(fs->r);
	fs->r = NULL;
	rc = sim_trace_read(c->trace, fs->format, &c->csv, t, err, sizeof(err));
	if (rc)
		return trace_file_error(c, rc, err);
	rc = sim_input_prepare(in, t, c->key_size, c->warmup, err, sizeof(err));
	return rc ? cli_error("sim", "%s", err) : 0;
}

static int write_trace(const struct sim_cli *c, const struct sim_trace *t)
{
	enum sim_trace_format f = sim_trace_guess_format(c->write_trace);
	char shown[256];
	parse_printable(c->write_trace, shown, sizeof(shown));
	FILE *o = fopen(c->write_trace, "wb");
	if (!o) /* shown was made before: errno is fopen's */
		return cli_error("sim", "cannot write %s: %s", shown,
				 map_errno_text(errno));
	int rc = sim_trace_write(o, t, f == SIM_TRACE_ORACLE ? f
							    : SIM_TRACE_TXT);
	if (fclose(o) || rc)
		return cli_error("sim", "writing %s failed", shown);
	return 0;
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

static int write_outputs(const struct sim_cli *c, const struct sim_report *rep)
{
	struct host_record host;
	FILE *out = stdout;
	int rc = 0;
	host_record_read(&host);
	char shown[256];
	if (c->out && !(out = fopen(c->out, "w"))) {
		int e = errno;
		return cli_error("sim", "cannot write %s: %s",
				 parse_printable(c->out, shown, sizeof(shown)),
				 map_errno_text(e));
	}
	sim_report_write(out, c->format, &host, rep);
	if (out != stdout && fclose(out))
		rc = cli_error("sim", "writing %s failed",
			       parse_printable(c->out, shown, sizeof(shown)));
	if (c->save) {
		FILE *s = fopen(c->save, "a");
		if (!s) {
			int e = errno;
			return cli_error("sim", "cannot append to %s: %s",
					 parse_printable(c->save, shown,
							 sizeof(shown)),
					 map_errno_text(e));
		}
		sim_report_log(s, &host, rep);
		if (fclose(s))
			rc = cli_error("sim", "writing %s failed",
				       parse_printable(c->save, shown,
						       sizeof(shown)));
	}
	if (c->plot) {
		char note[1024];
		int p = sim_plot(c->plot, &host, rep, note, sizeof(note));
		if (p < 0)
			rc = cli_error("sim", "--plot: %s", note);
		else if (p > 0)
			fprintf(stderr, "maplab sim: note: %s\n", note);
	}
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

static int simulate(const struct sim_cli *c, struct sim_trace *t,
		    struct sim_input *in, const char *format_name)
{
	struct sim_plan plan = { 0 };
	char notes[1024] = "";
	int rc;

	if ((rc = sim_plan_policies(&plan, c->policies)) ||
	    (rc = refuse_streamed(&plan, in)) ||
	    (rc = sim_plan_sizes(&plan, c->sizes, in->distinct)))
		return rc;
	say_notes(c, t);
	if (plan.aliases_used[0])
		snprintf(notes, sizeof(notes), "policies: %s (libCacheSim's "
			 "names)%s", plan.aliases_used,
			 plan.sizes_note[0] ? "\n" : "");
	snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes), "%s",
		 plan.sizes_note);
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
	if (!rc) {
		struct sim_report rep = {
			.in = in, .format_name = format_name,
			.split = c->split == SIM_SPLIT_HASH ? "hash" : "rr",
			.rows = rows, .n = n_rows, .repeats = c->repeat,
			.notes = notes[0] ? notes : NULL,
		};
		rc = write_outputs(c, &rep);
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
	int rc;
	c.cachesim_notes = cachesim_notes;
	sim_csv_params_init(&c.csv);
	rc = opts_parse("sim", argc, argv, sim_options, N_OPTIONS(sim_options),
			apply_sim, &c, usage_sim, after_sim);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = check_required(&c)))
		return rc;
	if (c.write_trace || sim_trace_is_generator(c.trace))
		rc = load_trace(&c, &t, &format_name);
	if (!rc && c.write_trace) {
		say_notes(&c, &t);
		rc = write_trace(&c, &t);
		sim_trace_free(&t);
		return rc;
	}
	struct file_source fs = { 0 };
	struct sim_source src;
	struct sim_input in;
	char err[512];
	if (!rc && sim_trace_is_generator(c.trace) &&
	    (rc = sim_input_prepare(&in, &t, c.key_size, c.warmup, err,
				    sizeof(err))))
		rc = cli_error("sim", "%s", err);
	else if (!rc && !sim_trace_is_generator(c.trace))
		rc = prepare_file(&c, &t, &fs, &src, &in, &format_name);
	if (!rc) {
		rc = simulate(&c, &t, &in, format_name);
		sim_input_free(&in);
	}
	if (fs.r)
		sim_trace_close(fs.r);
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
