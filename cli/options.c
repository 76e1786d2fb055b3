/* SPDX-License-Identifier: MIT */
/*
 * options.c: the option engine (options.h), and the options that several
 * commands share.  A command's own options are defined beside it.
 */
#include "cli/options.h"
#include "kernel-compare/vm/vm.h"
#include "cli/cli.h"
#include "harness/common/outfile.h"
#include "harness/common/parse.h"
#include "maps/base/map.h"
#include "maps/base/unavailable.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1ULL << 20)

/* --- the options several commands share ------------------------------------ */

/* Sizes stop at the kernel's largest element (4 MiB): larger values would
 * only meet the map's own E2BIG. */
const struct opt_spec opt_map = { OPT_MAP, "map", TAKES_TEXT, 0, 0, 0, 0,
	"D[,D...]", "designs (maplab list)" };
const struct opt_spec opt_kernel = { OPT_KERNEL, "kernel", TAKES_TEXT, 0, 0,
	0, 0, "K", "the kernel's side in a virtual machine booted from K" };
const struct opt_spec opt_vm_cpus = { OPT_VM_CPUS, "vm-cpus", TAKES_NUMBER, 1,
	VM_MAX_CPUS, 0, 0, "N", "the virtual machine's vCPUs" };
const struct opt_spec opt_model = { OPT_MODEL, "model", TAKES_TEXT, 0, 0, 0, 0,
	"V", "the kernel version the faithful designs behave as" };
/* --map where a command runs one design (replay, dump): its help says so. */
const struct opt_spec opt_map_one = { OPT_MAP, "map", TAKES_TEXT, 0, 0, 0, 0,
	"D", "a design (maplab list)" };
const struct opt_spec opt_type = { OPT_TYPE, "type", TAKES_TEXT, 0, 0, 0, 0,
	"T", "map type: hash, lru_hash or lpm_trie" };
const struct opt_spec opt_key_size = { OPT_KEY_SIZE, "key-size", TAKES_NUMBER,
	1, 4 * MIB, 0, 0, "N", "key bytes" };
const struct opt_spec opt_value_size = { OPT_VALUE_SIZE, "value-size",
	TAKES_NUMBER, 1, 4 * MIB, 0, 0, "N", "value bytes" };
const struct opt_spec opt_entries = { OPT_ENTRIES, "entries", TAKES_NUMBER, 1,
	1ULL << 31, 0, 0, "N", "max_entries" };
const struct opt_spec opt_prefill = { OPT_PREFILL, "prefill", TAKES_NUMBER, 0,
	100, 0, 0, "P", "percent of the entries inserted before timing" };
const struct opt_spec opt_key_range = { OPT_KEY_RANGE, "key-range",
	TAKES_COUNT_OR_PERCENT, 1, 1ULL << 31, 1, 100000, "N|P%",
	"keys drawn from 0..N-1, N or P % of --entries" };
const struct opt_spec opt_flags = { OPT_FLAGS, "flags", TAKES_TEXT, 0, 0, 0, 0,
	"F|F", "map flags: no_prealloc, no_common_lru, zero_seed, rdonly, wronly,\n"
	"rdonly_prog, wronly_prog, numa_node, or a number (0x... allowed)" };
const struct opt_spec opt_threads = { OPT_THREADS, "threads", TAKES_TEXT, 1,
	254, 0, 0, "N[,N...]", "worker threads (1 to 254); one result per count" };
const struct opt_spec opt_duration = { OPT_DURATION, "duration", TAKES_SECONDS,
	0, 0, 0.01, 3600, "S", "seconds per run" };
const struct opt_spec opt_ops = { OPT_OPS, "ops", TAKES_NUMBER, 1, 1ULL << 40,
	0, 0, "N", "operations per run, all threads together (instead of "
	"--duration)" };
const struct opt_spec opt_seed = { OPT_SEED, "seed", TAKES_NUMBER, 0,
	UINT64_MAX, 0, 0, "N", "random seed" };
const struct opt_spec opt_rcu = { OPT_RCU, "rcu", TAKES_TEXT, 0, 0, 0, 0,
	"memb|qsbr", "liburcu flavour" };
const struct opt_spec opt_format = { OPT_FORMAT, "format", TAKES_TEXT, 0, 0, 0,
	0, "F", "output format" };
const struct opt_spec opt_out = { OPT_OUT, "out", TAKES_TEXT, 0, 0, 0, 0,
	"FILE", "write results there instead of stdout" };
const struct opt_spec opt_save = { OPT_SAVE, "save", TAKES_TEXT, 0, 0, 0, 0,
	"FILE", "also append every record to FILE as jsonl" };
const struct opt_spec opt_quiet = { OPT_QUIET, "quiet", TAKES_NOTHING, 0, 0, 0,
	0, NULL, "no progress line" };
const struct opt_spec opt_verbose = { OPT_VERBOSE, "verbose", TAKES_NOTHING, 0,
	0, 0, 0, NULL, "show libbpf's messages and the verifier's log when a "
	"load fails" };
const struct opt_spec opt_trace = { OPT_TRACE, "trace", TAKES_TEXT, 0, 0, 0, 0,
	"FILE", "the trace to run (- reads stdin)" };

/* --- the engine -------------------------------------------------------------- */

/* The command's option whose id is `id`, or NULL (a letter getopt met, a
 * value that is no option's). */
static const struct opt_spec *option_with_id(const struct cmd_option *opts,
					     size_t n_opts, int id)
{
	for (size_t i = 0; i < n_opts; i++)
		if ((int)opts[i].spec->id == id)
			return opts[i].spec;
	return NULL;
}

static void print_help(FILE *f, const struct cmd_option *opts, size_t n_opts)
{
	for (size_t i = 0; i < n_opts; i++) {
		const struct opt_spec *s = opts[i].spec;
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

int opts_count_of(const char *cmd, const struct opt_spec *s, struct opt_count c,
		  uint64_t whole, uint64_t *out)
{
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
		const struct opt_spec *s = opts[i].spec;
		t[i] = (struct option){ s->name, s->kind == TAKES_NOTHING ?
					no_argument : required_argument, 0, s->id };
	}
	t[n] = (struct option){ "help", no_argument, 0, 'h' };
	return t;
}

/*
 * What getopt refused, as one line.  optopt is the id of a long option
 * that lacks its value, or the letter of an unknown short option ("-x",
 * or the first unknown letter of "-qx"), or 0 for an unknown long one.
 */
static int refused(const char *cmd, char **argv, const struct cmd_option *opts,
		   size_t n_opts)
{
	char shown[80];
	const struct opt_spec *s = option_with_id(opts, n_opts, optopt);
	if (s)
		return cli_error(cmd, "--%s needs a value (try --help)", s->name);
	if (optopt > 0 && optopt < 256) {
		char letter[3] = { '-', (char)optopt, 0 };
		return cli_error(cmd, "unknown option '%s' (try --help)",
				 parse_printable(letter, shown, sizeof(shown)));
	}
	return cli_error(cmd, "unknown option '%s' (try --help)",
			 parse_printable(argv[optind - 1], shown, sizeof(shown)));
}

/* getopt_long takes "--run-ops --quiet" as run-ops = "--quiet": refuse. */
static int takes_an_option_as_value(const char *cmd, const struct opt_spec *s,
				    const char *arg)
{
	char shown[80];
	if (s->kind == TAKES_NOTHING || strncmp(arg, "--", 2) != 0)
		return 0;
	return cli_error(cmd, "--%s needs a value, got the option '%s' (try "
			 "--help)", s->name,
			 parse_printable(arg, shown, sizeof(shown)));
}

/* The command's option spelt exactly `name` (len bytes), or NULL. */
static const struct opt_spec *exact_option(const struct cmd_option *opts,
					   size_t n_opts, const char *name,
					   size_t len)
{
	for (size_t i = 0; i < n_opts; i++) {
		const struct opt_spec *s = opts[i].spec;
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
	char shown[80];
	int opt;
	rc = table ? 0 : cli_error(cmd, "out of memory");

	optind = 1;
	opterr = 0;
	optopt = 0;
	while (!rc && (opt = getopt_long(argc, argv, "h", table, NULL)) != -1) {
		if (opt == 'h') {
			printf("%s", usage);
			if (n_opts) {
				printf("\noptions:\n");
				print_help(stdout, opts, n_opts);
			}
			if (after)
				printf("\n%s", after);
			rc = 1;
			break;
		}
		if (opt == '?' || opt == ':') {
			rc = refused(cmd, argv, opts, n_opts);
			break;
		}
		const struct opt_spec *s = option_with_id(opts, n_opts, opt);
		struct opt_value v = { 0 };
		if (optarg && (rc = takes_an_option_as_value(cmd, s, optarg)))
			break;
		if (optarg && (rc = check_value(cmd, s, optarg, &v)))
			break;
		rc = apply(ctx, (enum opt_id)opt, &v);
	}
	if (!rc && optind < argc)
		rc = cli_error(cmd, "unexpected argument '%s' (try --help)",
			       parse_printable(argv[optind], shown, sizeof(shown)));
	free(table);
	return rc;
}


/* --- values several commands parse alike ------------------------------------ */

int opts_no_design(const char *cmd, const char *name, const char *more)
{
	char shown[80];
	const char *why = map_unavailable_why(name);
	if (why)
		return cli_error(cmd, "%s is unavailable: %s", name, why);
	return cli_error(cmd, "no design '%s' (maplab list shows them%s)",
			 parse_printable(name, shown, sizeof(shown)), more);
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
	const struct map_ops *ops = map_find(name);
	if (!ops)
		l->rc = opts_no_design(l->cmd, name, "");
	else if (*l->n == l->max)
		l->rc = cli_error(l->cmd, "at most %u designs at once", l->max);
	else
		l->out[(*l->n)++] = ops;
	return l->rc ? -1 : 0;
}

int opts_design_list(const char *cmd, const char *text,
		     const struct map_ops **out, unsigned max, unsigned *n)
{
	struct design_list l = { cmd, out, max, n, 0 };
	char shown[80];
	*n = 0;
	if (parse_list(text, add_design, &l) == 0)
		return 0;
	return l.rc ? l.rc : cli_error(cmd, "--map wants design names separated "
				      "by commas, got '%s'",
				      parse_printable(text, shown, sizeof(shown)));
}

int opts_thread_list(const char *cmd, const char *text, unsigned *out,
		     unsigned max_n, unsigned *n)
{
	return opts_count_list(cmd, "--threads", text, out, max_n, n);
}

int opts_count_list(const char *cmd, const char *option, const char *text,
		    unsigned *out, unsigned max_n, unsigned *n)
{
	const struct opt_spec *s = &opt_threads;
	uint64_t v[64];
	char shown[80];
	if (max_n > 64 || parse_u64_list(text, s->min, s->max, v, max_n, n))
		return cli_error(cmd, "%s wants whole numbers from %llu to "
				 "%llu separated by commas (at most %u), got '%s'",
				 option, (unsigned long long)s->min,
				 (unsigned long long)s->max, max_n,
				 parse_printable(text, shown, sizeof(shown)));
	for (unsigned i = 0; i < *n; i++)
		out[i] = (unsigned)v[i];
	return 0;
}

int opts_map_type(const char *cmd, const char *text, uint32_t *type)
{
	char shown[80];
	*type = map_type_from_name(text);
	if (*type)
		return 0;
	return cli_error(cmd, "--type wants hash, lru_hash or lpm_trie, got '%s'",
			 parse_printable(text, shown, sizeof(shown)));
}

int opts_write_failed(const char *cmd, const struct outfile *o, int rc)
{
	char shown[256];
	return cli_error(cmd, "%s: %s", o->is_stdout ? "standard output"
			 : parse_printable(o->path, shown, sizeof(shown)),
			 map_errno_text(rc < 0 ? -rc : rc));
}

/* The versions some faithful design models, oldest first, into buf. */
static void every_model(char *buf, size_t len)
{
	uint32_t seen[32];
	unsigned n = 0;
	for (size_t i = 0; map_registry[i]; i++) {
		const char *p = map_registry[i]->faithful
				? map_registry[i]->models : NULL;
		for (; p && *p; p += strspn(p, " ")) {
			char word[16];
			size_t w = strcspn(p, " ");
			uint32_t v;
			snprintf(word, sizeof(word), "%.*s", (int)(w < 15 ? w : 15), p);
			p += w;
			if (map_model_parse(word, &v))
				continue;
			unsigned at = 0;
			while (at < n && seen[at] < v)
				at++;
			if ((at < n && seen[at] == v) || n == 32)
				continue;
			memmove(&seen[at + 1], &seen[at], (n - at) * sizeof(*seen));
			seen[at] = v;
			n++;
		}
	}
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		char v[16];
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", i ? (i + 1 == n ? " and " : ", ")
			 : "", map_model_text(seen[i], v, sizeof(v)));
	}
}

bool opts_model_known(uint32_t model)
{
	for (size_t i = 0; map_registry[i]; i++)
		if (map_registry[i]->faithful && map_models(map_registry[i], model))
			return true;
	return false;
}

int opts_model(const char *cmd, const char *text, uint32_t *model)
{
	char shown[64], versions[256];
	if (map_model_parse(text, model) == 0 && opts_model_known(*model))
		return 0;
	every_model(versions, sizeof(versions));
	return cli_error(cmd, "--model wants a kernel version the faithful "
			 "designs model (%s), got '%s'", versions,
			 parse_printable(text, shown, sizeof(shown)));
}

int opts_refuse_vm_kernel(const char *cmd)
{
	return cli_error(cmd, "--kernel boots a kernel in a virtual machine for "
			 "its behaviour (replay, validate): a VM's timings mean "
			 "nothing (TCG emulates the CPU; docs/kernels.md), so %s "
			 "measures this machine's kernel alone", cmd);
}
