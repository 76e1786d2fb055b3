/* SPDX-License-Identifier: MIT */
#include "cli/options.h"
#include "cli/cli.h"
#include "harness/workload/keys.h"
#include "harness/common/parse.h"
#include "kernel-compare/kbench.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum opt_kind {
	TAKES_NOTHING, TAKES_TEXT, TAKES_NUMBER, TAKES_SECONDS,
	TAKES_COUNT_OR_PERCENT, /* "N" as TAKES_NUMBER, or "P%" of another
				   figure, P a whole number in smin..smax */
};

struct opt_spec {
	enum opt_id id;
	const char *name;
	enum opt_kind kind;
	uint64_t min, max;   /* TAKES_NUMBER, TAKES_COUNT_OR_PERCENT's N and
				the count P% comes to */
	double smin, smax;   /* TAKES_SECONDS; TAKES_COUNT_OR_PERCENT's P */
	const char *arg;     /* in help: "--name ARG" */
	const char *help;
};

#define MIB (1ULL << 20)

/* The one table.  Sizes stop at the kernel's largest element (4 MiB):
 * larger values would only meet the map's own E2BIG. */
static const struct opt_spec specs[] = {
	{ OPT_MAP, "map", TAKES_TEXT, 0, 0, 0, 0, "D[,D...]",
	  "designs (maplab list)" },
	{ OPT_TYPE, "type", TAKES_TEXT, 0, 0, 0, 0, "T",
	  "map type: hash, lru_hash or lpm_trie" },
	{ OPT_KEY_SIZE, "key-size", TAKES_NUMBER, 1, 4 * MIB, 0, 0, "N",
	  "key bytes" },
	{ OPT_VALUE_SIZE, "value-size", TAKES_NUMBER, 1, 4 * MIB, 0, 0, "N",
	  "value bytes" },
	{ OPT_ENTRIES, "entries", TAKES_NUMBER, 1, 1ULL << 31, 0, 0, "N",
	  "max_entries" },
	{ OPT_PREFILL, "prefill", TAKES_NUMBER, 0, 100, 0, 0, "P",
	  "percent of the entries inserted before timing" },
	{ OPT_MIX, "mix", TAKES_TEXT, 0, 0, 0, 0, "op=P,...",
	  "lookup, update (existing keys), insert (new keys), delete;\n"
	  "percents summing to 100" },
	{ OPT_DIST, "dist", TAKES_TEXT, 0, 0, 0, 0, "D",
	  "uniform | zipf:S | hotset:P,F (P % of ops on F % of the keys)" },
	{ OPT_FLAGS, "flags", TAKES_TEXT, 0, 0, 0, 0, "F|F",
	  "map flags: no_prealloc, no_common_lru, zero_seed, rdonly, wronly,\n"
	  "rdonly_prog, wronly_prog, numa_node, or a number (0x... allowed)" },
	{ OPT_THREADS, "threads", TAKES_TEXT, 1, 254, 0, 0, "N[,N...]",
	  "worker threads (1 to 254); one result per count" },
	{ OPT_DURATION, "duration", TAKES_SECONDS, 0, 0, 0.01, 3600, "S",
	  "seconds per run" },
	{ OPT_OPS, "ops", TAKES_NUMBER, 1, 1ULL << 40, 0, 0, "N",
	  "operations per run, all threads together (instead of --duration)" },
	{ OPT_WARMUP, "warmup", TAKES_SECONDS, 0, 0, 0, 3600, "S",
	  "untimed seconds before each run" },
	{ OPT_REPEAT, "repeat", TAKES_NUMBER, 1, 1000, 0, 0, "N",
	  "runs per point; the median is reported, with min and max" },
	{ OPT_SEED, "seed", TAKES_NUMBER, 0, UINT64_MAX, 0, 0, "N",
	  "random seed" },
	{ OPT_RCU, "rcu", TAKES_TEXT, 0, 0, 0, 0, "memb|qsbr",
	  "liburcu flavour" },
	{ OPT_FORMAT, "format", TAKES_TEXT, 0, 0, 0, 0, "F",
	  "output format" },
	{ OPT_OUT, "out", TAKES_TEXT, 0, 0, 0, 0, "FILE",
	  "write results there instead of stdout" },
	{ OPT_SAVE, "save", TAKES_TEXT, 0, 0, 0, 0, "FILE",
	  "also append every record to FILE as jsonl" },
	{ OPT_QUIET, "quiet", TAKES_NOTHING, 0, 0, 0, 0, NULL,
	  "no progress line" },
	{ OPT_VERBOSE, "verbose", TAKES_NOTHING, 0, 0, 0, 0, NULL,
	  "show libbpf's messages and the verifier's log when a load fails" },
	{ OPT_RUN_OPS, "run-ops", TAKES_NUMBER, 1, KBENCH_MAX_RUN_OPS, 0, 0, "N",
	  "map calls per BPF program run" },
	{ OPT_RUN_REPEAT, "run-repeat", TAKES_NUMBER, 1, 1ULL << 20, 0, 0, "N",
	  "BPF_PROG_TEST_RUN repeat count" },
	{ OPT_NO_SYSCALL, "no-syscall", TAKES_NOTHING, 0, 0, 0, 0, NULL,
	  "the kernel side in BPF only, no bpf(2) sides" },
	{ OPT_PHYSICAL, "physical", TAKES_TEXT, 0, 0, 0, 0, "D",
	  "two reference sides beside the maps: the harness alone (the noop\n"
	  "design through the same loop: its own ns per op) and independent\n"
	  "random 8-byte loads over a buffer of design D's footprint (its\n"
	  "bytes after the prefill, as B/entry measures them): the memory\n"
	  "system's floor for a loop of lookups (docs/bench.md)" },
	{ OPT_PREFIXES, "prefixes", TAKES_TEXT, 0, 0, 0, 0, "S",
	  "LPM maps: the stored prefixes: random32, bgp or ipv6" },
	{ OPT_HIT_RATIO, "hit-ratio", TAKES_TEXT, 0, 0, 0, 0, "P",
	  "LPM maps: percent of the lookups meant to hit" },
	{ OPT_KEY_RANGE, "key-range", TAKES_COUNT_OR_PERCENT, 1, 1ULL << 31, 1,
	  100000, "N|P%", "keys drawn from 0..N-1, N or P % of --entries\n"
	  "(200%)" },
	{ OPT_TRACE, "trace", TAKES_TEXT, 0, 0, 0, 0, "FILE",
	  "the trace to run (- reads stdin)" },
	{ OPT_RANDOM, "random", TAKES_NOTHING, 0, 0, 0, 0, NULL,
	  "a random trace instead (the options below shape it)" },
	{ OPT_ECHO, "echo", TAKES_NOTHING, 0, 0, 0, 0, NULL,
	  "print each trace line, as a comment, above its results" },
	{ OPT_MAX_DIFFS, "max-diffs", TAKES_NUMBER, 1, 1000000, 0, 0, "N",
	  "differences to show" },
	/* sim's --warmup counts requests, not seconds: a trace has no clock */
	{ OPT_POLICY, "policy", TAKES_TEXT, 0, 0, 0, 0, "P[,P...]",
	  "LRU hash designs, opt, kernel, kernel:no_common_lru, or all" },
	{ OPT_SIZES, "sizes", TAKES_TEXT, 0, 0, 0, 0, "S[,S...]",
	  "cache sizes: entries, or fractions (with a dot) of the distinct keys" },
	{ OPT_TRACE_FORMAT, "trace-format", TAKES_TEXT, 0, 0, 0, 0, "F",
	  "txt, csv or oracleGeneral" },
	{ OPT_CSV_COLUMN, "csv-column", TAKES_TEXT, 0, 0, 0, 0, "N|NAME",
	  "the csv column of the key" },
	{ OPT_SPLIT, "split", TAKES_TEXT, 0, 0, 0, 0, "rr|hash",
	  "how requests are split over threads" },
	{ OPT_WARMUP_REQUESTS, "warmup", TAKES_NUMBER, 0, 1ULL << 40, 0, 0, "N",
	  "requests that warm the cache and are not counted" },
	{ OPT_PLOT, "plot", TAKES_TEXT, 0, 0, 0, 0, "DIR",
	  "write plots (PNG, SVG) and their data into DIR" },
	{ OPT_NO_STRAY, "no-stray", TAKES_NOTHING, 0, 0, 0, 0, NULL,
	  "skip the untimed stray pass" },
	{ OPT_WRITE_TRACE, "write-trace", TAKES_TEXT, 0, 0, 0, 0, "FILE",
	  "write the trace to FILE and stop" },
};
#define N_SPECS (sizeof(specs) / sizeof(specs[0]))

static const struct opt_spec *spec_of(enum opt_id id)
{
	for (size_t i = 0; i < N_SPECS; i++)
		if (specs[i].id == id)
			return &specs[i];
	return NULL;
}

void opts_print_help(FILE *f, const struct cmd_option *opts, size_t n_opts)
{
	for (size_t i = 0; i < n_opts; i++) {
		const struct opt_spec *s = spec_of(opts[i].id);
		const char *help = opts[i].help ? opts[i].help : s->help;
		char head[64];
		snprintf(head, sizeof(head), "--%s%s%s", s->name, s->arg ? " " : "",
			 s->arg ? s->arg : "");
		fprintf(f, "  %-22s ", head);
		for (const char *p = help; *p; p++) {
			fputc(*p, f);
			if (*p == '\n')
				fprintf(f, "  %-22s ", "");
		}
		fputc('\n', f);
	}
	fprintf(f, "  %-22s %s\n", "--help", "this text");
}

/* "P%": P into v->u.  0, or -1 when text is not a whole percent in range. */
static int parse_percent(const struct opt_spec *s, const char *text,
			 struct opt_value *v)
{
	size_t len = strlen(text);
	char number[32];
	if (len < 2 || len >= sizeof(number) || text[len - 1] != '%')
		return -1;
	snprintf(number, sizeof(number), "%.*s", (int)(len - 1), text);
	v->percent = true;
	return parse_u64(number, (uint64_t)s->smin, (uint64_t)s->smax, &v->u);
}

static int check_count_or_percent(const char *cmd, const struct opt_spec *s,
				  const char *text, struct opt_value *v)
{
	char shown[80];
	bool percent = strchr(text, '%') != NULL;
	if (percent ? parse_percent(s, text, v) == 0
		    : parse_u64(text, s->min, s->max, &v->u) == 0)
		return 0;
	return cli_error(cmd, "--%s wants a whole number from %llu to %llu, or "
			 "a whole percent from %g%% to %g%%, got '%s'", s->name,
			 (unsigned long long)s->min, (unsigned long long)s->max,
			 s->smin, s->smax,
			 parse_printable(text, shown, sizeof(shown)));
}

int opts_count_of(const char *cmd, enum opt_id id, struct opt_count c,
		  uint64_t whole, uint64_t *out)
{
	const struct opt_spec *s = spec_of(id);
	/* P (at most smax) times whole (at most 2^32) fits 64 bits.  An N was
	 * checked against the range as it was parsed: only a P% fails here. */
	*out = c.percent ? whole * c.n / 100 : c.n;
	if (*out >= s->min && *out <= s->max)
		return 0;
	return cli_error(cmd, "--%s %llu%% of %llu is %llu, outside 1 to %llu",
			 s->name, (unsigned long long)c.n,
			 (unsigned long long)whole, (unsigned long long)*out,
			 (unsigned long long)s->max);
}

static int check_value(const char *cmd, const struct opt_spec *s,
		       const char *text, struct opt_value *v)
{
	char shown[80];
	v->text = text;
	if (s->kind == TAKES_COUNT_OR_PERCENT)
		return check_count_or_percent(cmd, s, text, v);
	if (s->kind == TAKES_NUMBER && parse_u64(text, s->min, s->max, &v->u))
		return cli_error(cmd, "--%s wants a whole number from %llu to %llu "
				 "(decimal), got '%s'", s->name,
				 (unsigned long long)s->min,
				 (unsigned long long)s->max,
				 parse_printable(text, shown, sizeof(shown)));
	if (s->kind == TAKES_SECONDS &&
	    parse_decimal(text, s->smin, s->smax, &v->seconds))
		return cli_error(cmd, "--%s wants seconds from %g to %g, got '%s'",
				 s->name, s->smin, s->smax,
				 parse_printable(text, shown, sizeof(shown)));
	return 0;
}

static struct option *build_getopt_table(const struct cmd_option *opts,
					 size_t n)
{
	struct option *t = calloc(n + 2, sizeof(*t));
	if (!t)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct opt_spec *s = spec_of(opts[i].id);
		t[i] = (struct option){ s->name, s->kind == TAKES_NOTHING ?
					no_argument : required_argument, 0, s->id };
	}
	t[n] = (struct option){ "help", no_argument, 0, 'h' };
	return t;
}

/* What getopt refused, as one line. */
static int refused(const char *cmd, char **argv)
{
	char shown[80];
	const char *word = argv[optind - 1];
	if (optopt && optopt != 'h')
		return cli_error(cmd, "--%s needs a value (try --help)",
				 spec_of((enum opt_id)optopt)->name);
	return cli_error(cmd, "unknown option '%s' (try --help)",
			 parse_printable(word, shown, sizeof(shown)));
}

/* getopt_long takes "--run-ops --quiet" as run-ops = "--quiet": refuse. */
static int takes_an_option_as_value(const char *cmd, const struct opt_spec *s,
				    const char *arg)
{
	if (s->kind == TAKES_NOTHING || strncmp(arg, "--", 2) != 0)
		return 0;
	return cli_error(cmd, "--%s needs a value, got the option '%s' (try "
			 "--help)", s->name, arg);
}

/* The command's option spelt exactly `name` (len bytes), or NULL. */
static const struct opt_spec *exact_option(const struct cmd_option *opts,
					   size_t n_opts, const char *name,
					   size_t len)
{
	for (size_t i = 0; i < n_opts; i++) {
		const struct opt_spec *s = spec_of(opts[i].id);
		if (strlen(s->name) == len && strncmp(s->name, name, len) == 0)
			return s;
	}
	return NULL;
}

/*
 * getopt_long takes any unambiguous prefix ("--dur" for --duration); maplab
 * takes only the options' full names, so a script's meaning cannot change
 * when an option is added.  Words after "--" and option values are skipped.
 */
static int refuse_abbreviations(const char *cmd, int argc, char **argv,
				const struct cmd_option *opts, size_t n_opts)
{
	char shown[80];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			break;
		if (strncmp(a, "--", 2) != 0)
			continue;
		size_t len = strcspn(a + 2, "=");
		const struct opt_spec *s = exact_option(opts, n_opts, a + 2, len);
		if (!s && !(len == 4 && strncmp(a + 2, "help", 4) == 0))
			return cli_error(cmd, "unknown option '%s' (try --help)",
					 parse_printable(a, shown, sizeof(shown)));
		if (s && s->kind != TAKES_NOTHING && !a[2 + len])
			i++; /* its value */
	}
	return 0;
}

int opts_parse(const char *cmd, int argc, char **argv,
	       const struct cmd_option *opts, size_t n_opts, opt_apply apply,
	       void *ctx, const char *usage, const char *after)
{
	int rc = refuse_abbreviations(cmd, argc, argv, opts, n_opts);
	if (rc)
		return rc;
	struct option *table = build_getopt_table(opts, n_opts);
	int opt;
	rc = table ? 0 : cli_error(cmd, "out of memory");

	optind = 1;
	opterr = 0;
	while (!rc && (opt = getopt_long(argc, argv, "h", table, NULL)) != -1) {
		if (opt == 'h') {
			printf("%s", usage);
			if (n_opts) {
				printf("\noptions:\n");
				opts_print_help(stdout, opts, n_opts);
			}
			if (after)
				printf("\n%s", after);
			rc = 1;
			break;
		}
		if (opt == '?' || opt == ':') {
			rc = refused(cmd, argv);
			break;
		}
		const struct opt_spec *s = spec_of((enum opt_id)opt);
		struct opt_value v = { 0 };
		if (optarg && (rc = takes_an_option_as_value(cmd, s, optarg)))
			break;
		if (optarg && (rc = check_value(cmd, s, optarg, &v)))
			break;
		rc = apply(ctx, (enum opt_id)opt, &v);
	}
	if (!rc && optind < argc)
		rc = cli_error(cmd, "unexpected argument '%s' (try --help)",
			       argv[optind]);
	free(table);
	return rc;
}

/* --- bench, kbench, compare ------------------------------------------------- */

const struct cmd_option bench_options[] = {
	{ OPT_MAP, "designs (maplab list), or noop: the harness alone\n"
		   "(hash/linux)" },
	{ OPT_KEY_SIZE, "key bytes (4; an LPM map's: its --prefixes' keys)" },
	{ OPT_VALUE_SIZE, "value bytes (8)" },
	{ OPT_ENTRIES, "max_entries (65536)" },
	{ OPT_PREFILL, "percent of the entries inserted before timing (100)" },
	{ OPT_KEY_RANGE, "every op draws its key from 0..N-1 (N or P % of\n"
			 "--entries): a range beyond the entries makes LRU maps\n"
			 "evict (none: lookups and updates on the entries,\n"
			 "inserts and deletes on each thread's own keys)" },
	{ OPT_PREFIXES, "LPM maps: the prefixes stored: random32 (random /32s),\n"
			"bgp (IPv4, a public BGP table's prefix lengths) or\n"
			"ipv6 (/48 and /64 heavy), with 8-byte keys (20 for\n"
			"ipv6); lookups ask for full-length addresses; a hash\n"
			"map of the run takes the address alone (random32\n"
			"only).  docs/bench.md, \"LPM workloads\" (random32)" },
	{ OPT_HIT_RATIO, "LPM maps: percent of the lookups that ask for an\n"
			 "address inside a stored prefix; the others ask for\n"
			 "one no prefix covers (100)" },
	{ OPT_MIX, "lookup, update (existing keys), insert (new keys), delete;\n"
		   "percents summing to 100 (lookup=100)" },
	{ OPT_DIST, "uniform | zipf:S | hotset:P,F (P % of ops on F % of the\n"
		    "keys) (uniform)" },
	{ OPT_FLAGS, NULL },
	{ OPT_THREADS, "worker threads (1 to 254); one result per count (1)" },
	{ OPT_DURATION, "timed seconds per run (1)" },
	{ OPT_OPS, NULL },
	{ OPT_WARMUP, "untimed seconds before each run (0.2)" },
	{ OPT_REPEAT, "runs per point; the median is reported, with the min\n"
		      "and max (1)" },
	{ OPT_SEED, "key streams and prefix sets (1)" },
	{ OPT_RCU, "liburcu flavour (memb)" },
	{ OPT_FORMAT, "table, jsonl or csv (table)" },
	{ OPT_OUT, NULL },
	{ OPT_SAVE, NULL },
	{ OPT_QUIET, NULL },
	{ OPT_PHYSICAL, NULL },
};
const size_t bench_option_count = sizeof(bench_options) / sizeof(bench_options[0]);

/* The map type a design's maps have. */
static uint32_t type_of(const struct map_ops *ops)
{
	return ops->type ? ops->type : MAP_TYPE_HASH;
}

struct design_list {
	const char *cmd;
	const struct map_ops **out;
	unsigned max, *n;
	int rc;
};

static int add_design(const char *name, void *ctx)
{
	struct design_list *l = ctx;
	char shown[80];
	const struct map_ops *ops = map_find(name);
	if (!ops)
		l->rc = cli_error(l->cmd, "no design '%s' (maplab list shows them)",
				  parse_printable(name, shown, sizeof(shown)));
	else if (*l->n == l->max)
		l->rc = cli_error(l->cmd, "at most %u designs at once", l->max);
	else
		l->out[(*l->n)++] = ops;
	return l->rc ? -1 : 0;
}

/* A --map list; an empty list or name is refused with the given words. */
static int map_list(const char *cmd, const char *text,
		    int (*add)(const char *, void *), void *ctx, const int *rc)
{
	char shown[80];
	if (parse_list(text, add, ctx) == 0)
		return 0;
	return *rc ? *rc : cli_error(cmd, "--map wants design names separated "
				     "by commas, got '%s'",
				     parse_printable(text, shown, sizeof(shown)));
}

int opts_design_list(const char *cmd, const char *text,
		     const struct map_ops **out, unsigned max, unsigned *n)
{
	struct design_list l = { cmd, out, max, n, 0 };
	*n = 0;
	return map_list(cmd, text, add_design, &l, &l.rc);
}

struct bench_maps {
	struct bench_cli *c;
	int rc;
};

/* One --map entry of bench, kbench or compare. */
static int add_bench_map(const char *name, void *ctx)
{
	struct bench_maps *l = ctx;
	struct bench_cli *c = l->c;
	char shown[80];
	const struct map_ops *ops = strcmp(name, "noop") == 0 ? &bench_noop_ops
							      : map_find(name);
	uint32_t type = ops ? type_of(ops) : map_type_from_name(name);
	if (!ops && !(c->kernel_types && type))
		l->rc = cli_error(c->cmd, "no design '%s' (maplab list shows them%s)",
				  parse_printable(name, shown, sizeof(shown)),
				  c->kernel_types ? "; kernel map types: hash, "
				  "lru_hash, lpm_trie" : "");
	else if (c->n_maps == BENCH_MAX_MAPS)
		l->rc = cli_error(c->cmd, "at most %d designs at once",
				  BENCH_MAX_MAPS);
	if (l->rc)
		return -1;
	c->map_types[c->n_maps] = type;
	c->maps[c->n_maps++] = ops;
	return 0;
}

static int parse_bench_maps(struct bench_cli *c, const char *text)
{
	struct bench_maps l = { c, 0 };
	c->n_maps = 0;
	return map_list(c->cmd, text, add_bench_map, &l, &l.rc);
}

/* --physical D: any design of the registry (of any map type: it lends
 * only its footprint). */
static int parse_physical(struct bench_cli *c, const char *name)
{
	char shown[80];
	c->physical = map_find(name);
	if (c->physical)
		return 0;
	return cli_error(c->cmd, "--physical: no design '%s' (maplab list shows "
			 "them)", parse_printable(name, shown, sizeof(shown)));
}

int opts_thread_list(const char *cmd, const char *text, unsigned *out,
		     unsigned max_n, unsigned *n)
{
	const struct opt_spec *s = spec_of(OPT_THREADS);
	uint64_t v[64];
	char shown[80];
	if (max_n > 64 || parse_u64_list(text, s->min, s->max, v, max_n, n))
		return cli_error(cmd, "--threads wants whole numbers from %llu to "
				 "%llu separated by commas (at most %u), got '%s'",
				 (unsigned long long)s->min,
				 (unsigned long long)s->max, max_n,
				 parse_printable(text, shown, sizeof(shown)));
	for (unsigned i = 0; i < *n; i++)
		out[i] = (unsigned)v[i];
	return 0;
}

static int apply_bench(void *ctx, enum opt_id id, const struct opt_value *v)
{
	struct bench_cli *c = ctx;
	char err[256];

	switch (id) {
	case OPT_MAP: return parse_bench_maps(c, v->text);
	case OPT_KEY_SIZE:
		c->w.key_size = (uint32_t)v->u;
		c->key_size_given = true;
		return 0;
	case OPT_PREFIXES:
		return prefix_set_parse(v->text, &c->w.prefixes)
			? cli_error(c->cmd, "--prefixes wants random32, bgp or ipv6, "
				    "got '%s'", parse_printable(v->text, err,
								 sizeof(err)))
			: 0;
	case OPT_HIT_RATIO:
		return parse_decimal(v->text, 0, 100, &c->hit_ratio)
			? cli_error(c->cmd, "--hit-ratio wants a percent from 0 to "
				    "100, got '%s'", parse_printable(v->text, err,
								     sizeof(err)))
			: 0;
	case OPT_VALUE_SIZE: c->w.value_size = (uint32_t)v->u; return 0;
	case OPT_ENTRIES: c->w.entries = (uint32_t)v->u; return 0;
	case OPT_PREFILL: c->w.prefill_pct = (unsigned)v->u; return 0;
	case OPT_KEY_RANGE:
		c->key_range = (struct opt_count){ v->u, v->percent };
		return 0;
	case OPT_MIX:
		return workload_parse_mix(v->text, c->w.mix, err, sizeof(err))
			? cli_error(c->cmd, "%s", err) : 0;
	case OPT_DIST:
		return workload_parse_dist(v->text, &c->w, err, sizeof(err))
			? cli_error(c->cmd, "%s", err) : 0;
	case OPT_FLAGS: return cli_apply_flags(c->cmd, v->text, &c->map_flags);
	case OPT_THREADS:
		return opts_thread_list(c->cmd, v->text, c->threads,
					BENCH_MAX_THREAD_COUNTS, &c->n_threads);
	case OPT_DURATION: c->seconds = v->seconds; c->ops = 0; return 0;
	case OPT_OPS: c->ops = v->u; c->seconds = 0; return 0;
	case OPT_WARMUP: c->warmup = v->seconds; return 0;
	case OPT_REPEAT: c->repeat = (unsigned)v->u; return 0;
	case OPT_SEED: c->w.seed = v->u; return 0;
	case OPT_RCU: return cli_apply_rcu(c->cmd, v->text);
	case OPT_FORMAT:
		return report_parse_format(v->text, &c->format)
			? cli_error(c->cmd, "--format wants table, jsonl or csv, "
				    "got '%s'", v->text) : 0;
	case OPT_OUT: c->out = v->text; return 0;
	case OPT_SAVE: c->save = v->text; return 0;
	case OPT_QUIET: c->quiet = true; return 0;
	case OPT_VERBOSE: c->verbose = true; return 0;
	case OPT_RUN_OPS: c->run_ops = (unsigned)v->u; return 0;
	case OPT_RUN_REPEAT: c->run_repeat = (unsigned)v->u; return 0;
	case OPT_NO_SYSCALL: c->no_syscall = true; return 0;
	case OPT_PHYSICAL: return parse_physical(c, v->text);
	default:
		return cli_error(c->cmd, "option not handled here (a bug)");
	}
}

static void set_defaults(struct bench_cli *c)
{
	c->maps[0] = map_find("hash/linux");
	c->map_types[0] = MAP_TYPE_HASH;
	c->n_maps = c->maps[0] ? 1 : 0;
	c->threads[0] = 1;
	c->n_threads = 1;
	c->w.key_size = 4;
	c->w.value_size = 8;
	c->w.entries = 65536;
	c->w.prefill_pct = 100;
	c->w.mix[OP_LOOKUP] = 100;
	c->w.dist = DIST_UNIFORM;
	c->w.seed = 1;
	c->hit_ratio = NAN;
	c->seconds = 1;
	c->warmup = 0.2;
	c->repeat = 1;
	c->format = REPORT_TABLE;
	c->run_ops = 1024;
	c->run_repeat = 64;
}

/* Design ops must accept the workload's map of `type` (what --opt names):
 * try one.  0, or EXIT_USAGE after one line. */
static int design_accepts(const struct bench_cli *c, const char *opt,
			  const struct map_ops *ops, uint32_t type)
{
	struct map_attr attr = { .type = type,
				 .key_size = workload_for_type(&c->w, type).key_size,
				 .value_size = c->w.value_size,
				 .max_entries = c->w.entries,
				 .flags = bench_map_flags(type, c->map_flags) };
	struct map *m;
	int err = map_create(ops, &attr, &m);
	if (!err) {
		map_destroy(m);
		return 0;
	}
	return cli_error(c->cmd, "%s%s refuses this map (key_size=%u "
			 "value_size=%u max_entries=%u flags=%#x): %s", opt,
			 ops->name, attr.key_size, attr.value_size,
			 attr.max_entries, attr.flags, strerror(-err));
}

/* The designs must accept the workload's map: try one before running. */
static int check_designs_accept(struct bench_cli *c)
{
	int rc = 0;
	map_thread_online();
	for (unsigned i = 0; i < c->n_maps && !rc; i++)
		if (c->maps[i]) /* else a kernel map type: the kernel judges */
			rc = design_accepts(c, "", c->maps[i], c->map_types[i]);
	if (!rc && c->physical)
		rc = design_accepts(c, "--physical: ", c->physical,
				    type_of(c->physical));
	map_thread_offline();
	return rc;
}

/* --key-range as a number of keys; the prefilled keys are its first. */
static int resolve_key_range(struct bench_cli *c)
{
	uint64_t range, prefilled = workload_prefill_count(&c->w);
	if (!c->key_range.n)
		return 0;
	int rc = opts_count_of(c->cmd, OPT_KEY_RANGE, c->key_range,
			       c->w.entries, &range);
	if (rc)
		return rc;
	if (range < prefilled)
		return cli_error(c->cmd, "--key-range gives %llu keys, fewer than "
				 "the %llu prefilled, which are the range's first",
				 (unsigned long long)range,
				 (unsigned long long)prefilled);
	c->w.key_range = (uint32_t)range;
	return 0;
}

/* Whether some map of the run is an LPM trie. */
static bool some_map_is_lpm(const struct bench_cli *c)
{
	for (unsigned m = 0; m < c->n_maps; m++)
		if (c->map_types[m] == MAP_TYPE_LPM_TRIE)
			return true;
	return false;
}

/* The other maps of a prefix workload run on the addresses alone: only
 * where every prefix is a full-length one (an address), so a hash's
 * exact match and a trie's longest match find the same keys.  noop takes
 * the LPM keys.  0, or EXIT_USAGE after one line. */
static int check_other_maps(struct bench_cli *c)
{
	for (unsigned m = 0; m < c->n_maps; m++) {
		if (c->maps[m] == &bench_noop_ops)
			c->map_types[m] = MAP_TYPE_LPM_TRIE;
		if (c->map_types[m] == MAP_TYPE_LPM_TRIE ||
		    prefix_set_full_length(c->w.prefixes))
			continue;
		return cli_error(c->cmd, "--map: %s is a %s map: it runs an LPM "
				 "workload on its addresses, so only on full-length "
				 "prefixes (--prefixes random32), not %s",
				 c->maps[m] ? c->maps[m]->name
					    : map_type_name(c->map_types[m]),
				 map_type_name(c->map_types[m]),
				 prefix_set_name(c->w.prefixes));
	}
	if (c->physical && type_of(c->physical) != MAP_TYPE_LPM_TRIE &&
	    !prefix_set_full_length(c->w.prefixes))
		return cli_error(c->cmd, "--physical: %s is a %s map: it would "
				 "hold the addresses alone, so only of full-length "
				 "prefixes (--prefixes random32), not %s",
				 c->physical->name,
				 map_type_name(type_of(c->physical)),
				 prefix_set_name(c->w.prefixes));
	return 0;
}

/*
 * --prefixes and --hit-ratio: an LPM map's workload is a prefix set's
 * (random32 for 8-byte keys, or when --key-size is not given), whose keys
 * the set sizes; other key sizes keep full-length keys numbered as a
 * hash's (harness/workload/keys.h).  0, or EXIT_USAGE after one line.
 */
static int resolve_prefixes(struct bench_cli *c)
{
	enum prefix_set *set = &c->w.prefixes;
	bool lpm = some_map_is_lpm(c);
	int rc = 0;

	if (*set && !lpm)
		return cli_error(c->cmd, "--prefixes %s: for LPM maps, and --map "
				 "names none (lpm_trie/linux, lpm_trie/prefix_hash%s)",
				 prefix_set_name(*set),
				 c->kernel_types ? ", lpm_trie" : "");
	if (lpm && !*set && (!c->key_size_given || c->w.key_size == 8))
		*set = PREFIXES_RANDOM32;
	if (*set) {
		uint32_t data = prefix_set_data_size(*set);
		if (!c->key_size_given)
			c->w.key_size = 4 + data;
		else if (c->w.key_size != 4 + data)
			return cli_error(c->cmd, "--prefixes %s makes %u-byte LPM "
					 "keys (a 4-byte prefix length and %u address "
					 "bytes), not --key-size %u",
					 prefix_set_name(*set), 4 + data, data,
					 c->w.key_size);
		rc = check_other_maps(c);
	}
	if (rc || isnan(c->hit_ratio))
		return rc;
	if (!*set)
		return cli_error(c->cmd, "--hit-ratio: for the LPM workloads of "
				 "--prefixes only (an LPM map with 8- or 20-byte "
				 "keys)");
	c->w.miss_ppm = (uint32_t)llround((100 - c->hit_ratio) * 10000);
	return 0;
}

/* `keys` distinct keys (`which` says whose) must fit in the workload's
 * keys of map type `type`.  0, or EXIT_USAGE after one line. */
static int keys_fit(const struct bench_cli *c, uint32_t type, uint64_t keys,
		    const char *which)
{
	if (keys <= key_capacity(type, c->w.key_size))
		return 0;
	return cli_error(c->cmd, "%llu distinct keys (%s) do not fit in %u-byte "
			 "%s keys", (unsigned long long)keys, which,
			 c->w.key_size, map_type_name(type));
}

/* A prefix workload's prefixes must be drawable (distinct: not too many
 * of one length); its key numbers must fit a stream op's 32 bits. */
static int check_prefixes_fit(const struct bench_cli *c, uint64_t keys)
{
	struct workload_layout l;
	char err[200];
	workload_layout(&c->w, 1, &l);
	if (prefix_set_fits(c->w.prefixes, l.stored, err, sizeof(err)))
		return cli_error(c->cmd, "--prefixes %s: %s",
				 prefix_set_name(c->w.prefixes), err);
	if (keys > UINT32_MAX)
		return cli_error(c->cmd, "%llu keys (prefixes and the addresses "
				 "lookups ask for) are more than a stream can name",
				 (unsigned long long)keys);
	return 0;
}

/* Every key number the run uses must have its own key bytes. */
static int check_keys_fit(struct bench_cli *c)
{
	unsigned most = 0;
	for (unsigned t = 0; t < c->n_threads; t++)
		most = c->threads[t] > most ? c->threads[t] : most;
	uint64_t keys = workload_key_count(&c->w, most);
	char which[64];
	int rc = 0;
	if (c->w.prefixes)
		return check_prefixes_fit(c, keys);
	if (c->w.key_range)
		snprintf(which, sizeof(which), "the key range");
	else
		snprintf(which, sizeof(which), "entries and each thread's pool "
			 "of %d", WORKLOAD_POOL);
	for (unsigned m = 0; m < c->n_maps && !rc; m++)
		rc = keys_fit(c, c->map_types[m], keys, which);
	if (!rc && c->physical)
		rc = keys_fit(c, type_of(c->physical), keys, which);
	return rc;
}

static void warn(const struct bench_cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct bench_cli *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "maplab %s: warning: ", c->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Whether some map of the run refuses new keys when full (a hash, a
 * trie), rather than evicting (an LRU). */
static bool some_map_refuses_when_full(const struct bench_cli *c)
{
	for (unsigned m = 0; m < c->n_maps; m++)
		if (c->map_types[m] != MAP_TYPE_LRU_HASH)
			return true;
	return false;
}

/*
 * The pool model's streams (workload.h) hold back deletes with nothing to
 * delete and inserts with the whole pool in: refuse a mix that cannot run
 * at all, and say what really runs where it differs from the mix asked.
 */
static int check_pool_mix(struct bench_cli *c)
{
	const unsigned *mix = c->w.mix;
	double share[OP_COUNT];
	char asked[96];

	if (mix[OP_DELETE] && !mix[OP_INSERT])
		return cli_error(c->cmd, "--mix: delete=%u has nothing to delete: a "
				 "worker deletes only keys it inserted itself; give "
				 "insert= a share too, or --key-range", mix[OP_DELETE]);
	if (workload_stream_mix(&c->w, share))
		return cli_error(c->cmd, "out of memory");
	workload_format_mix(mix, asked, sizeof(asked));
	for (int op = 0; op < OP_COUNT; op++)
		if (share[op] < mix[op] - 1.0 || share[op] > mix[op] + 1.0) {
			warn(c, "the streams hold lookup=%.0f,update=%.0f,insert="
			     "%.0f,delete=%.0f, not %s: each worker deletes only "
			     "keys it inserted, and inserts only while its pool of "
			     "%d keys is not all in the map", share[OP_LOOKUP],
			     share[OP_UPDATE], share[OP_INSERT], share[OP_DELETE],
			     asked, WORKLOAD_POOL);
			break;
		}
	return 0;
}

/* Inserts that a map which does not evict (a hash, a trie) must refuse. */
static void warn_inserts_refused(const struct bench_cli *c)
{
	const struct workload *w = &c->w;
	if (!w->mix[OP_INSERT] || !some_map_refuses_when_full(c))
		return;
	if (!w->key_range && w->prefill_pct == 100)
		warn(c, "the map is full (--prefill 100) and inserts add new keys: "
		     "every insert will fail (E2BIG; ENOSPC in an LPM trie), and so "
		     "will the deletes of their keys; lower --prefill to leave room");
	else if (w->key_range > w->entries)
		warn(c, "the key range (%u keys) is larger than the map (%u "
		     "entries), and only an LRU map evicts: once the others are "
		     "full, every insert of a key not in them fails (E2BIG)",
		     w->key_range, w->entries);
}

/*
 * A workload that cannot run as asked is refused, or runs with a warning
 * that says what will really run: no silent lookups in place of deletes,
 * no run of failures that looks like a measurement.  The range model
 * makes the mix as asked; its inserts can fill a map that does not evict.
 */
static int check_mix_runs_as_asked(struct bench_cli *c)
{
	const struct workload *w = &c->w;
	int rc = w->key_range ? 0 : check_pool_mix(c);
	if (rc)
		return rc;
	warn_inserts_refused(c);
	if (w->miss_ppm && !w->mix[OP_LOOKUP])
		warn(c, "--hit-ratio is a share of the lookups, and the mix has "
		     "none");
	/* In the range model, inserts put in keys that updates can find. */
	if (w->mix[OP_UPDATE] && w->prefill_pct == 0 &&
	    !(w->key_range && w->mix[OP_INSERT]))
		warn(c, "no key is prefilled (--prefill 0): every update of an "
		     "existing key will fail (ENOENT)");
	return 0;
}

int bench_cli_parse(struct bench_cli *c, int argc, char **argv,
		    const struct cmd_option *opts, size_t n_opts,
		    const char *usage, const char *after)
{
	set_defaults(c);
	int rc = opts_parse(c->cmd, argc, argv, opts, n_opts, apply_bench, c,
			    usage, after);
	if (rc)
		return rc;
	if (c->n_maps == 0)
		return cli_error(c->cmd, "hash/linux, the default design, is not "
				 "built: give --map");
	if ((rc = resolve_prefixes(c)) || (rc = resolve_key_range(c)) ||
	    (rc = check_keys_fit(c)) ||
	    (rc = check_mix_runs_as_asked(c)))
		return rc;
	return check_designs_accept(c);
}
