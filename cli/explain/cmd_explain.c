/* SPDX-License-Identifier: MIT */
/*
 * maplab explain: where the time of one op goes, in the kernel's map inside
 * BPF and in each design of --map, side by side (explain.h).
 *
 * This file holds its options and its defaults, and the run of the
 * command: refuse what cannot run (no permission to sample, no kernel
 * side, no JITed program names), then for each size of --sizes (or
 * --entries) explain_size (explain_runs.c: the unsampled, sampled and
 * differential runs) and the report (explain_report.c).
 */
#include "cli/cli.h"
#include "cli/explain/explain.h"
#include "cli/measure/measure.h"
#include "harness/common/outfile.h"
#include "harness/common/parse.h"
#include "harness/profile/sampler.h"
#include "harness/profile/symbols.h"
#include "kernel-compare/kbench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPLAIN_DEFAULT_REPEAT 3
#define EXPLAIN_DEFAULT_SECONDS 0.5
#define EXPLAIN_DEFAULT_SAMPLE_SECONDS 2.0
/* Samples per second of CPU time: each costs the sampled thread a timer
 * interrupt and an unwind, 50-100 us on the paravirtualised host measured
 * (docs/explain.md): +6% on the ns/op at 1 kHz, +1.5-3% at 250 Hz. */
#define EXPLAIN_DEFAULT_HZ 250
#define EXPLAIN_DEFAULT_WARMUP 0.1
#define EXPLAIN_INSERT_PREFILL 90
/* BPF_PROG_TEST_RUN's repeat count for the kernel's side: each test run of
 * an XDP program re-patches the XDP dispatcher twice (text_poke, IPIs to
 * every CPU: about 7% of the samples at kbench's 64 repeats of 1024 ops
 * on a 64K hash update here), a cost of the harness that longer runs
 * make small. */
#define EXPLAIN_RUN_REPEAT 256


static const struct opt_spec opt_op = { OPT_OP, "op", TAKES_TEXT, 0, 0, 0, 0,
	"OP", NULL };
static const struct opt_spec opt_sizes = { OPT_SIZES, "sizes", TAKES_TEXT,
	0, 0, 0, 0, "N,N...", NULL };
static const struct opt_spec opt_svg = { OPT_SVG, "svg", TAKES_TEXT, 0, 0,
	0, 0, "FILE", NULL };
static const struct opt_spec opt_dir = { OPT_OUT, "out", TAKES_TEXT, 0, 0, 0,
	0, "DIR", NULL };
static const struct opt_spec opt_hz = { OPT_HZ, "hz", TAKES_NUMBER, 10, 10000,
	0, 0, "N", NULL };
static const struct opt_spec opt_sample_seconds = { OPT_SAMPLE_SECONDS,
	"sample-seconds", TAKES_SECONDS, 0, 0, 0.05, 60, "S", NULL };
static const struct opt_spec opt_chains = { OPT_CHAINS, "chains", TAKES_TEXT,
	0, 0, 0, 0, "FILE", NULL };
static const struct opt_spec opt_overhead = { OPT_OVERHEAD, "overhead",
	TAKES_NUMBER, 1, 1000, 0, 0, "N", NULL };
static const struct opt_spec opt_no_diff = { OPT_NO_DIFF, "no-diff",
	TAKES_NOTHING, 0, 0, 0, 0, NULL, NULL };

static const char usage[] =
	"usage: maplab explain --map DESIGN[,DESIGN...] --op OP [options]\n\n"
	"Runs OP on the kernel's map of the designs' type inside BPF (needs root:\n"
	"BPF and perf sampling with kernel call chains) and on each design, and\n"
	"shows where the time of one op goes on each side:\n"
	"  - ns/op of each side from unsampled runs (median, min and max);\n"
	"  - the steps of the op (hash, walk, compare, lock, allocation, copy, LRU\n"
	"    work, reclamation, BPF program, thunks, harness): each side's share of\n"
	"    its sampled time and ns per step, with the functions behind each;\n"
	"  - differential runs (a small map, a larger value, a larger key,\n"
	"    BPF_F_NO_PREALLOC) that price what sampling cannot split;\n"
	"  - a summary in words, each figure saying where it came from;\n"
	"  - with --svg or --out, a side-by-side flame graph (SVG).\n"
	"OP: lookup (lookup=100), update (update=100 of existing keys), insert or\n"
	"delete (insert=50,delete=50 pairs, prefill " STR(EXPLAIN_INSERT_PREFILL)
	"% so inserts find room; an LRU\n"
	"insert: insert=100 over a key range of 400% of the entries, so each\n"
	"insert of a new key evicts), upsert, replace or lookup_write (upsert=100\n"
	"and so on: docs/bench.md; replace's and lookup_write's steps count both\n"
	"of their map calls).  docs/explain.md teaches the output.\n"
	"--lpm-op OP (an LPM map) in place of --op: the kernel's LPM benchmark's\n"
	"workloads; lookup and update are explained as --op is; insert, delete\n"
	"and free (whole-map phases, one thread) are timed, not sampled: ns per\n"
	"key of a pass (the kernel's program less its baseline, the designs'\n"
	"work per key), or a free's ms per map (a design's RCU wait apart from\n"
	"its walk and frees; the kernel's bpf_map_free_deferred whole).\n";
static const char after[] =
	"examples:\n"
	"  maplab explain --map lpm_trie/linux --op update\n"
	"  maplab explain --map lpm_trie/linux,lpm_trie/multibit --prefixes dense "
	"--lpm-op free\n"
	"  maplab explain --map hash/linux,hash/seqlock_buckets --op lookup "
	"--sizes 1K,64K,1M --out explain/\n";

static const struct cmd_option options[] = {
	{ &opt_map, "designs (maplab list), all of one map type" },
	{ &opt_op, "lookup, update, insert, delete, upsert, replace or\n"
		   "lookup_write" },
	{ &opt_lpm_op, "lookup | update | insert | delete | free: the kernel's\n"
		       "LPM benchmark's workloads (above), in place of --op" },
	{ &opt_key_size, NULL },
	{ &opt_value_size, NULL },
	{ &opt_entries, NULL },
	{ &opt_sizes, "explain at each of these max_entries (1K = 1024, 1M);\n"
		      "one table across them" },
	{ &opt_prefill, NULL },
	{ &opt_key_range, NULL },
	{ &opt_dist, NULL },
	{ &opt_prefixes, NULL },
	{ &opt_hit_ratio, NULL },
	{ &opt_flags, NULL },
	{ &opt_seed, NULL },
	{ &opt_batch, "lookups N keys at a time (map_lookup_batch): ns/op\n"
		      "per key; the kernel's side looks up one at a time (1)" },
	{ &opt_duration, "timed seconds of each unsampled run ("
			 STR(EXPLAIN_DEFAULT_SECONDS) ")" },
	{ &opt_sample_seconds, "timed seconds of each sampled run ("
			       STR(EXPLAIN_DEFAULT_SAMPLE_SECONDS) ")" },
	{ &opt_repeat, "unsampled runs per side (" STR(EXPLAIN_DEFAULT_REPEAT) ")" },
	{ &opt_hz, "samples per second of CPU time, each thread ("
		   STR(EXPLAIN_DEFAULT_HZ) ")" },
	{ &opt_no_diff, "skip the differential runs" },
	{ &opt_overhead, "instead of explaining, measure what sampling costs: N\n"
			 "pairs of runs per side, unsampled then sampled, each of\n"
			 "--duration; the median of sampled / unsampled ns/op" },
	{ &opt_svg, "write the flame graph here (one file per size, -SIZE added\n"
		    "when there are several)" },
	{ &opt_dir, "write the report (explain.txt) and flame graphs into DIR" },
	{ &opt_chains, "write every sample's symbolised call chain here, one a\n"
		       "line (for other tools, and the tests' recordings)" },
	{ &opt_save, "also append the figures to FILE as jsonl records (one\n"
		     "per side and size)" },
	{ &opt_quiet, NULL },
	{ &opt_verbose, NULL },
	{ &opt_kernel, OPTS_KERNEL_REFUSED_HELP },
};

/* 1K, 64K, 1M, or a plain count. */
static int parse_size(const char *cmd, const char *text, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (end != text && (*end == 'K' || *end == 'k'))
		n <<= 10, end++;
	else if (end != text && (*end == 'M' || *end == 'm'))
		n <<= 20, end++;
	if (end == text || *end || errno || n < 1 || n > (1u << 26)) {
		char shown[64];
		return cli_error(cmd, "--sizes wants counts from 1 to 64M (64K, "
				 "1M, 4096), got '%s'",
				 parse_printable(text, shown, sizeof(shown)));
	}
	*out = (uint32_t)n;
	return 0;
}

static int parse_sizes(struct explain_cli *c, const char *text)
{
	char buf[256];
	if (strlen(text) >= sizeof(buf))
		return cli_error("explain", "--sizes: the list is too long");
	strcpy(buf, text);
	c->n_sizes = 0;
	for (char *save, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (c->n_sizes == EXPLAIN_MAX_SIZES)
			return cli_error("explain", "--sizes: at most %d sizes",
					 EXPLAIN_MAX_SIZES);
		int rc = parse_size("explain", tok, &c->sizes[c->n_sizes++]);
		if (rc)
			return rc;
	}
	return c->n_sizes ? 0 : cli_error("explain", "--sizes: no size given");
}

static int apply_explain(void *ctx, enum opt_id id, const struct opt_value *v)
{
	struct explain_cli *c = ctx;
	char shown[64];
	switch (id) {
	case OPT_OP:
		for (int op = 0; op < OP_COUNT; op++)
			if (strcmp(v->text, explain_op_name((enum bench_op)op)) == 0) {
				c->op = (enum bench_op)op;
				c->op_given = true;
				return 0;
			}
		return cli_error("explain", "--op wants lookup, update, insert, "
				 "delete, upsert, replace or lookup_write, got '%s'",
				 parse_printable(v->text, shown, sizeof(shown)));
	case OPT_SIZES: return parse_sizes(c, v->text);
	case OPT_SVG: c->svg = v->text; return 0;
	case OPT_HZ: c->hz = (unsigned)v->u; return 0;
	case OPT_SAMPLE_SECONDS: c->sample_seconds = v->seconds; return 0;
	case OPT_NO_DIFF: c->no_diff = true; return 0;
	case OPT_CHAINS: c->chains_path = v->text; return 0;
	case OPT_OVERHEAD: c->overhead_pairs = (unsigned)v->u; return 0;
	default:
		return cli_error("explain", "option not handled here (a bug)");
	}
}

static bool all_lru(const struct bench_cli *b)
{
	for (unsigned m = 0; m < b->n_maps; m++)
		if (b->map_types[m] != MAP_TYPE_LRU_HASH)
			return false;
	return true;
}

/* What --lpm-op refuses beside it in explain: --op (it is the op), and for
 * a whole-map phase, which is timed and not sampled, the sampling's own
 * options.  0, or EXIT_USAGE after one line. */
static int settle_lpm_op(struct explain_cli *c)
{
	const char *op = bench_lpm_op_name(c->b.lpm_op);
	const char *sampling = c->svg ? "--svg" : c->chains_path ? "--chains"
			       : c->overhead_pairs ? "--overhead" : NULL;
	if (c->op_given)
		return cli_error("explain", "--lpm-op %s: no --op with it (it is "
				 "the op)", op);
	if (bench_lpm_op_is_phase(c->b.lpm_op) && sampling)
		return cli_error("explain", "--lpm-op %s: no %s with it (a "
				 "whole-map phase is timed, not sampled)", op,
				 sampling);
	/* lookup and update: the ops explain samples; a phase's runs do not
	 * read c->op */
	c->op = c->b.lpm_op == BENCH_LPM_UPDATE ? OP_UPDATE : OP_LOOKUP;
	c->op_given = true;
	return 0;
}

/* Once every option is read: the mix of --op, and the prefill or key range
 * it needs where the user gave none (--lpm-op: its own, resolve_lpm_op's
 * in bench_options.c). */
static int settle(struct bench_cli *b, void *ctx)
{
	struct explain_cli *c = ctx;
	int rc = b->lpm_op ? settle_lpm_op(c) : 0;
	if (rc)
		return rc;
	if (!c->op_given)
		return cli_error("explain", "--op is required: lookup, update, "
				 "insert, delete, upsert, replace or lookup_write");
	c->dir = b->out;
	for (unsigned m = 1; m < b->n_maps; m++)
		if (b->map_types[m] != b->map_types[0])
			return cli_error("explain", "--map: %s and %s are of different "
					 "map types; explain one type at a time",
					 b->maps[0]->name, b->maps[m]->name);
	if (b->lpm_op)
		return 0;
	memset(b->w.mix, 0, sizeof(b->w.mix));
	bool lru_insert = c->op == OP_INSERT && all_lru(b);
	bool pairs = c->op == OP_DELETE || (c->op == OP_INSERT && !lru_insert);
	if (!pairs) { /* one op alone: its own program on the kernel's side */
		b->w.mix[c->op] = 100;
	} else {
		b->w.mix[OP_INSERT] = b->w.mix[OP_DELETE] = 50;
		if (b->w.prefill_pct == WORKLOAD_DEFAULT_PREFILL)
			b->w.prefill_pct = EXPLAIN_INSERT_PREFILL;
	}
	if (lru_insert && b->key_range.n == 0)
		b->key_range = (struct opt_count){ 400, true };
	return 0;
}

/* Where explain's defaults differ from bench's (before argv). */
static void set_defaults(struct bench_cli *b, void *ctx)
{
	struct explain_cli *c = ctx;
	c->hz = EXPLAIN_DEFAULT_HZ;
	c->sample_seconds = EXPLAIN_DEFAULT_SAMPLE_SECONDS;
	b->seconds = EXPLAIN_DEFAULT_SECONDS;
	b->repeat = EXPLAIN_DEFAULT_REPEAT;
	b->warmup = EXPLAIN_DEFAULT_WARMUP;
	b->run_repeat = EXPLAIN_RUN_REPEAT;
}

static int parse(struct explain_cli *c, int argc, char **argv)
{
	struct bench_cli_extra extra = { set_defaults, apply_explain, settle, c };
	c->b.cmd = "explain";
	c->b.extra = &extra;
	int rc = bench_cli_parse(&c->b, argc, argv, options, N_OPTIONS(options),
				 usage, after);
	c->b.extra = NULL;
	return rc;
}

/* --- the command ------------------------------------------------------------------ */

/* Refuse what cannot run before anything runs: exit 2 with the reason.
 * `sampled`: whether the runs sample (all but --lpm-op's phases). */
static int check_can_run(bool sampled)
{
	char why[256];
	if (!sampled)
		return measure_kernel_ready("explain", false) ? 0 : EXIT_USAGE;
	if (prof_sampler_check(why, sizeof(why)))
		return cli_error("explain", "cannot sample here: %s", why);
	if (!measure_kernel_ready("explain", false))
		return EXIT_USAGE;
	if (prof_jit_kallsyms() == 0)
		return cli_error("explain", "net.core.bpf_jit_kallsyms is 0: the "
				 "BPF programs would have no names in the samples; "
				 "as root: sysctl net.core.bpf_jit_kallsyms=1");
	return 0;
}

/* The path of p's flame graph: --svg FILE (FILE-SIZE.svg with several
 * sizes), or DIR/explain-TYPE-OP-SIZE.svg. */
static void svg_path(const struct explain_cli *c, const struct explain_point *p,
		     char *buf, size_t len)
{
	if (c->svg && c->n_sizes <= 1) {
		snprintf(buf, len, "%s", c->svg);
		return;
	}
	if (c->svg) {
		const char *dot = strrchr(c->svg, '.');
		int stem = dot ? (int)(dot - c->svg) : (int)strlen(c->svg);
		snprintf(buf, len, "%.*s-%u%s", stem, c->svg, p->entries, dot ? dot : ".svg");
		return;
	}
	snprintf(buf, len, "%s/explain-%s-%s-%u.svg", c->dir,
		 map_type_name(c->b.map_types[0]), explain_op_name(c->op), p->entries);
}

/* The files explain writes, open from before the first run to the end. */
struct explain_files {
	struct outfile report;   /* DIR/explain.txt, or stdout */
	struct outfile chains;   /* --chains FILE */
	struct outfile save;     /* --save FILE, appended */
	bool made_dir;           /* --out DIR did not exist: removed on failure
				    when nothing else is in it */
};

/* The report's file: DIR/explain.txt (DIR made where it is not there), or
 * stdout.  0, or EXIT_USAGE after one line. */
static int open_report(const struct explain_cli *c, struct outfile *o,
		       bool *made_dir)
{
	char path[4096], shown[256];
	if (!c->dir) {
		out_stdout(o);
		return 0;
	}
	if (mkdir(c->dir, 0777) == 0)
		*made_dir = true;
	else if (errno != EEXIST)
		return cli_error("explain", "--out %s: %s",
				 parse_printable(c->dir, shown, sizeof(shown)),
				 strerror(errno));
	snprintf(path, sizeof(path), "%s/explain.txt", c->dir);
	int rc = out_open(o, path, OUT_TRUNCATE);
	if (rc)
		return cli_error("explain", "%s: %s",
				 parse_printable(path, shown, sizeof(shown)),
				 strerror(-rc));
	return 0;
}

/* The files c writes, as a list: the report first.  NULL where not asked. */
static void all_files(struct explain_files *files, const struct explain_cli *c,
		      struct outfile *out[3])
{
	out[0] = &files->report;
	out[1] = c->chains;
	out[2] = c->save;
}

/* Everything written so far pushed to its file.  0, or EXIT_USAGE after
 * one line naming the first file that failed. */
static int flush_files(struct explain_files *files, const struct explain_cli *c)
{
	struct outfile *out[3];
	all_files(files, c, out);
	for (int i = 0; i < 3; i++) {
		int rc = out[i] ? out_flush(out[i]) : 0;
		if (rc)
			return opts_write_failed("explain", out[i], rc);
	}
	return 0;
}

/* Each size explained, reported and drawn as soon as it is done; then the
 * table across sizes.  The report and the records of a size are flushed
 * before its flame graph is drawn, the line naming the graph after.  0,
 * or EXIT_USAGE after one line. */
static int explain_sizes(struct explain_cli *c, struct explain_files *files)
{
	static struct explain_point points[EXPLAIN_MAX_SIZES];
	FILE *out = files->report.f;
	int rc = 0;
	unsigned n = 0;
	while (n < c->n_sizes && !rc) {
		struct explain_point *p = &points[n++];
		if ((rc = explain_size(c, c->sizes[n - 1], p)))
			break;
		explain_print_point(out, c, p);
		if (c->save)
			explain_write_records(c->save->f, c, p);
		if ((rc = flush_files(files, c)) || !(c->svg || c->dir))
			continue;
		char path[4096];
		svg_path(c, p, path, sizeof(path));
		if (!(rc = explain_write_svg(c, p, path))) {
			fprintf(out, "flame graph: %s\n\n", path);
			rc = flush_files(files, c);
		}
	}
	if (!rc && n > 1)
		explain_print_sizes(out, c, points, n);
	for (unsigned i = 0; i < n; i++)
		explain_point_free(&points[i]);
	return rc;
}

/* --lpm-op's whole-map phases, size by size (explain_lpm.c), each
 * flushed as soon as it is done.  0, or EXIT_USAGE after one line. */
static int explain_lpm_sizes(struct explain_cli *c, struct explain_files *files)
{
	int rc = 0;
	for (unsigned i = 0; i < c->n_sizes && !rc; i++)
		if (!(rc = explain_lpm_size(c, c->sizes[i], files->report.f)))
			rc = flush_files(files, c);
	return rc;
}

/* --svg FILE's folder must take files: checked before the runs, which it
 * would otherwise fail after.  0, or EXIT_USAGE after one line. */
static int check_svg_folder(const char *svg)
{
	char dir[4096], shown[256];
	const char *slash = strrchr(svg, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - svg) + 1 : 1,
		 slash ? svg : ".");
	if (access(dir, W_OK) == 0)
		return 0;
	return cli_error("explain", "--svg %s: %s",
			 parse_printable(svg, shown, sizeof(shown)), strerror(errno));
}

/* The report's file, --chains's and --save's, open before anything runs,
 * so that a bad path fails at once.  0, or EXIT_USAGE (nothing left open,
 * nothing made). */
static int open_files(struct explain_cli *c, struct explain_files *files)
{
	char shown[256];
	int rc;
	if (c->svg && check_svg_folder(c->svg))
		return EXIT_USAGE;
	if ((rc = open_report(c, &files->report, &files->made_dir)))
		return rc;
	if (c->chains_path &&
	    (rc = out_open(&files->chains, c->chains_path, OUT_TRUNCATE))) {
		out_discard(&files->report);
		return cli_error("explain", "--chains %s: %s", parse_printable(
				 c->chains_path, shown, sizeof(shown)), strerror(-rc));
	}
	c->chains = c->chains_path ? &files->chains : NULL;
	if (c->b.save && (rc = out_open(&files->save, c->b.save, OUT_APPEND))) {
		out_discard(&files->report);
		if (c->chains)
			out_discard(c->chains);
		return cli_error("explain", "--save %s: %s", parse_printable(
				 c->b.save, shown, sizeof(shown)), strerror(-rc));
	}
	c->save = c->b.save ? &files->save : NULL;
	return 0;
}

/* The end of the command's files: rc 0, each flushed and closed (a failure
 * is the one line, exit 2); otherwise (the command failed, and has said
 * why) each undone: the report and the chains removed, --save cut back to
 * its earlier records. */
static int close_files(struct explain_cli *c, struct explain_files *files, int rc)
{
	struct outfile *out[3];
	all_files(files, c, out);
	if (!rc)
		rc = flush_files(files, c);
	for (int i = 0; i < 3; i++) {
		if (!out[i])
			continue;
		if (rc) {
			out_discard(out[i]);
			continue;
		}
		int err = out_close(out[i]);
		if (err)
			rc = opts_write_failed("explain", out[i], err);
	}
	if (rc && files->made_dir)
		rmdir(c->dir); /* only where it is empty: a flame graph stays */
	c->chains = c->save = NULL;
	return rc;
}

int cmd_explain(int argc, char **argv)
{
	static struct explain_cli c;
	static struct explain_files files;
	struct host_record host;
	int rc = parse(&c, argc, argv);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	bool phase = bench_lpm_op_is_phase(c.b.lpm_op);
	if ((rc = check_can_run(!phase)))
		return rc;
	if (!c.n_sizes)
		c.sizes[c.n_sizes++] = c.b.w.entries;
	if ((rc = open_files(&c, &files)))
		return rc;
	host_record_read(&host);
	explain_print_header(files.report.f, &c, &host);
	if (c.save) {
		struct record r;
		host_record_build(&host, &r);
		record_write(c.save->f, RECORD_JSONL, &r, 1, NULL, 0);
		record_free(&r);
	}
	/* a file that cannot be written stops the command before its runs */
	rc = flush_files(&files, &c);
	if (!rc && c.overhead_pairs) {
		c.b.w.entries = c.sizes[0];
		rc = explain_overhead(&c, files.report.f);
	} else if (!rc) {
		rc = phase ? explain_lpm_sizes(&c, &files)
			   : explain_sizes(&c, &files);
	}
	rc = close_files(&c, &files, rc);
	char shown[256];
	if (!rc && c.dir)
		fprintf(stderr, "maplab explain: report in %s/explain.txt\n",
			parse_printable(c.dir, shown, sizeof(shown)));
	return rc;
}
