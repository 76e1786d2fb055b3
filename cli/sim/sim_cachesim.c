/* SPDX-License-Identifier: MIT */
/*
 * sim_cachesim.c: cachesim's command line, as `maplab sim` takes it
 * (sim_cachesim.h).
 *
 * cachesim (libCacheSim/bin/cachesim/cli_parser.c) takes four arguments,
 * trace_path trace_type eviction_algo cache_size, and options.  The
 * arguments map one to one; of the options, those that change no result
 * here are taken with a note, those maplab has no equivalent for are
 * refused, and in both cases the user is shown the maplab command line
 * that does what could be mapped, so that they learn it.  Policy names
 * and sizes are left as written: --policy knows libCacheSim's names, and
 * --sizes answers sizes in bytes.
 */
#include "cli/sim/sim_cachesim.h"
#include "cli/cli.h"
#include "harness/common/parse.h"
#include "harness/sim/simtrace.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum cs_action {
	CS_MAP,          /* becomes maplab's `to` with the same value */
	CS_NOTE,         /* changes no result here: a note */
	CS_QUIET_IF_NO,  /* a boolean: false is --quiet */
	CS_OK_IF_NO,     /* a boolean: false is the default, true refused */
	CS_OK_IF,        /* taken when the value is `ok`, else refused */
	CS_REFUSE,
};

struct cs_option {
	const char *name;   /* --name */
	char letter;        /* -l, or 0 */
	enum cs_action action;
	const char *to;     /* CS_MAP: maplab's option; CS_OK_IF: the value */
	const char *why;    /* a note, or why it is refused */
};

static const struct cs_option cs_options[] = {
	{ "trace-type-params", 't', CS_MAP, "--trace-type-params", NULL },
	{ "output", 'o', CS_MAP, "--out", NULL },
	{ "ignore-obj-size", 0, CS_NOTE, NULL, "a BPF map counts entries "
	  "whatever the sizes, so sim's sizes are entries and the byte miss "
	  "ratio is reported beside the miss ratio" },
	{ "num-thread", 0, CS_NOTE, NULL, "cachesim's threads run caches side "
	  "by side; sim runs them in turn (its --threads splits one trace)" },
	{ "report-interval", 0, CS_NOTE, NULL, "sim reports each point at "
	  "its end" },
	{ "verbose", 'v', CS_QUIET_IF_NO, NULL, NULL },
	{ "use-ttl", 0, CS_OK_IF_NO, NULL, "sim's traces carry no TTL" },
	{ "consider-obj-metadata", 0, CS_OK_IF_NO, NULL, "sim reports metadata "
	  "bytes per entry instead" },
	{ "sample-ratio", 's', CS_OK_IF, "1", "sim replays every request" },
	{ "num-req", 'n', CS_OK_IF, "-1", "sim replays the whole trace" },
	{ "warmup-sec", 0, CS_REFUSE, NULL, "a trace here has no clock: "
	  "--warmup-requests N counts requests" },
	{ "eviction-params", 'e', CS_REFUSE, NULL, "the designs take no "
	  "parameters" },
	{ "admission", 'a', CS_REFUSE, NULL, "a BPF map admits every insert" },
	{ "admission-params", 0, CS_REFUSE, NULL, "a BPF map admits every "
	  "insert" },
};
#define N_CS_OPTIONS (sizeof(cs_options) / sizeof(cs_options[0]))

/* What the rewrite gathers. */
struct cs_line {
	char **out;          /* the new argv */
	int n;
	const char *args[4]; /* trace, type, algos, sizes */
	int n_args;
	char refused[512];   /* "--warmup-sec (why); -e (why)" */
	char notes[512];
	bool ignore_obj_size;
	int rc;
};

static const struct cs_option *cs_long(const char *name, size_t len)
{
	for (size_t i = 0; i < N_CS_OPTIONS; i++)
		if (strlen(cs_options[i].name) == len &&
		    strncmp(cs_options[i].name, name, len) == 0)
			return &cs_options[i];
	return NULL;
}

static const struct cs_option *cs_short(char letter)
{
	for (size_t i = 0; i < N_CS_OPTIONS; i++)
		if (cs_options[i].letter && cs_options[i].letter == letter)
			return &cs_options[i];
	return NULL;
}

/* Whether sim's option --name (len bytes) takes a value: the option of
 * that name, or else the first it begins (getopt_long takes a prefix). */
static bool sim_takes_value(const struct cmd_option *opts, size_t n_opts,
			    const char *name, size_t len)
{
	const struct opt_spec *prefix = NULL;
	for (size_t i = 0; i < n_opts; i++) {
		const struct opt_spec *o = opts[i].spec;
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len)
			return o->kind != TAKES_NOTHING;
		if (!prefix)
			prefix = o;
	}
	return prefix && prefix->kind != TAKES_NOTHING;
}

static void append(char *buf, size_t len, const char *fmt, const char *a,
		   const char *b)
{
	size_t used = strlen(buf);
	if (used < len)
		snprintf(buf + used, len - used, fmt, used ? "; " : "", a, b);
}

/* One cachesim option with its value (NULL: none was given). */
static void cs_take(struct cs_line *l, const struct cs_option *o,
		    const char *value)
{
	char shown[80];
	bool b = false;
	if (!value) {
		l->rc = cli_error("sim", "cachesim's --%s wants a value",
				  o->name);
		return;
	}
	if ((o->action == CS_QUIET_IF_NO || o->action == CS_OK_IF_NO ||
	     strcmp(o->name, "ignore-obj-size") == 0) &&
	    sim_csv_parse_bool(value, &b)) {
		l->rc = cli_error("sim", "cachesim's --%s wants true or false "
				  "(1/0, yes/no), got '%s'", o->name,
				  parse_printable(value, shown, sizeof(shown)));
		return;
	}
	switch (o->action) {
	case CS_MAP:
		l->out[l->n++] = (char *)o->to;
		l->out[l->n++] = (char *)value;
		return;
	case CS_NOTE:
		if (strcmp(o->name, "ignore-obj-size") == 0)
			l->ignore_obj_size = b;
		append(l->notes, sizeof(l->notes), "%scachesim's --%s: %s",
		       o->name, o->why);
		return;
	case CS_QUIET_IF_NO:
		if (!b)
			l->out[l->n++] = "--quiet";
		return;
	case CS_OK_IF_NO:
		if (b)
			append(l->refused, sizeof(l->refused), "%s--%s true (%s)",
			       o->name, o->why);
		return;
	case CS_OK_IF:
		if (strcmp(value, o->to) != 0)
			append(l->refused, sizeof(l->refused), "%s--%s (%s)",
			       o->name, o->why);
		return;
	case CS_REFUSE:
		append(l->refused, sizeof(l->refused), "%s--%s (%s)", o->name,
		       o->why);
		return;
	}
}

/*
 * argv[*i], an option: a cachesim one is taken (with its value, from
 * "--name=v", "-tv" or the next word), a maplab one copied with its value.
 */
static void scan_option(struct cs_line *l, int argc, char **argv, int *i,
			const struct cmd_option *opts, size_t n_opts)
{
	const char *a = argv[*i], *value = NULL;
	const struct cs_option *o;
	bool has_next = *i + 1 < argc;
	if (a[1] == '-') {
		size_t len = strcspn(a + 2, "=");
		o = cs_long(a + 2, len);
		if (a[2 + len] == '=')
			value = a + 3 + len;
		if (!o) {
			l->out[l->n++] = (char *)a;
			if (!value && has_next &&
			    sim_takes_value(opts, n_opts, a + 2, len))
				l->out[l->n++] = argv[++*i];
			return;
		}
	} else {
		o = cs_short(a[1]);
		if (!o) {
			l->out[l->n++] = (char *)a;   /* opts_parse refuses it */
			return;
		}
		if (a[2])
			value = a + 2;
	}
	if (!value && has_next)
		value = argv[++*i];
	cs_take(l, o, value);
}

/* word, quoted for a shell where it needs it, appended to buf. */
static void shell_word(char *buf, size_t len, const char *word)
{
	size_t used = strlen(buf);
	bool plain = *word && strspn(word, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				     "_./:=,+-%@") == strlen(word);
	used += snprintf(buf + used, used < len ? len - used : 0, " %s",
			 plain ? "" : "'");
	for (const char *p = word; *p && used < len; p++)
		used += snprintf(buf + used, len - used, "%s",
				 *p == '\'' && !plain ? "'\\''"
						      : (char[2]){ *p, 0 });
	if (!plain && used < len)
		snprintf(buf + used, len - used, "'");
}

/* The maplab command line of out[1..n). */
static const char *command_line(const struct cs_line *l, char *buf,
				size_t len)
{
	snprintf(buf, len, "maplab sim");
	for (int i = 1; i < l->n; i++)
		shell_word(buf, len, l->out[i]);
	return buf;
}

/* cachesim's trace type as --trace-format, NULL for auto; false for one
 * maplab does not read. */
static bool map_trace_type(const char *type, const char **format)
{
	*format = NULL;
	if (strcasecmp(type, "auto") == 0)
		return true;
	if (strcasecmp(type, "txt") == 0)
		*format = "txt";
	else if (strcasecmp(type, "csv") == 0)
		*format = "csv";
	else if (strcasecmp(type, "oracleGeneral") == 0 ||
		 strcasecmp(type, "oracleGeneralBin") == 0)
		*format = "oracleGeneral";
	return *format != NULL;
}

/* The four arguments, first in the new argv (their options after). */
static void put_arguments(struct cs_line *l, char **front)
{
	const char *format;
	char shown[80];
	int k = 0;
	front[k++] = "--trace";
	front[k++] = (char *)l->args[0];
	if (!map_trace_type(l->args[1], &format))
		append(l->refused, sizeof(l->refused), "%strace type %s (sim "
		       "reads txt, csv and oracleGeneral)%s",
		       parse_printable(l->args[1], shown, sizeof(shown)), "");
	else if (format) {
		front[k++] = "--trace-format";
		front[k++] = (char *)format;
	}
	front[k++] = "--policy";
	front[k++] = (char *)l->args[2];
	front[k++] = "--sizes";
	front[k++] = (char *)l->args[3];
	front[k] = NULL;
}

/* The new argv: argv[0], the arguments' options, then the rest. */
static void assemble(struct cs_line *l, char **rest, int n_rest)
{
	char *front[12];
	put_arguments(l, front);
	l->n = 1;
	for (int i = 0; front[i]; i++)
		l->out[l->n++] = front[i];
	for (int i = 0; i < n_rest; i++)
		l->out[l->n++] = rest[i];
	l->out[l->n] = NULL;
}

static bool sizes_in_bytes_maybe(const char *sizes)
{
	return strcmp(sizes, "0") != 0 && strcasecmp(sizes, "auto") != 0 &&
	       !strchr(sizes, '.');
}

/* One note line appended to notes. */
static void add_line(char *notes, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_line(char *notes, size_t len, const char *fmt, ...)
{
	size_t used = strlen(notes);
	va_list ap;
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	used += vsnprintf(notes + used, len - used, fmt, ap);
	va_end(ap);
	if (used + 1 < len)
		strcat(notes, "\n");
}

int sim_cachesim_translate(int argc, char **argv, const struct cmd_option *opts,
			   size_t n_opts, int *out_argc, char ***out_argv,
			   char *notes, size_t noteslen)
{
	struct cs_line l = { 0 };
	char **rest = calloc((size_t)argc * 2 + 16, sizeof(char *));
	l.out = calloc((size_t)argc * 2 + 16, sizeof(char *));
	if (!rest || !l.out) {
		free(rest);
		free(l.out);
		return cli_error("sim", "out of memory");
	}
	/* Options first into out[1..], then moved behind the arguments. */
	l.out[l.n++] = argv[0];
	int extra = 0;
	for (int i = 1; i < argc && !l.rc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			while (++i < argc && l.n_args < 4)
				l.args[l.n_args++] = argv[i];
			extra += argc - i;
			break;
		}
		if (a[0] == '-' && a[1]) {
			scan_option(&l, argc, argv, &i, opts, n_opts);
			continue;
		}
		if (l.n_args < 4)
			l.args[l.n_args++] = a;
		else
			extra++;
	}
	int n_rest = l.n - 1;
	memcpy(rest, l.out + 1, (size_t)n_rest * sizeof(char *));
	int rc = l.rc;
	if (!rc && l.n_args == 0) {
		/* maplab's own form (cachesim's options, if any, mapped). */
		l.out[l.n] = NULL;
	} else if (!rc && (l.n_args < 4 || extra)) {
		rc = cli_error("sim", "takes options (--trace, --policy, --sizes; "
			       "try --help), or cachesim's four arguments TRACE "
			       "TYPE ALGO[,ALGO...] SIZE[,SIZE...]: got %d",
			       l.n_args + extra);
	} else if (!rc) {
		assemble(&l, rest, n_rest);
	}
	char line[1024];
	if (!rc && l.refused[0])
		rc = cli_error("sim", "cachesim's %s: no maplab equivalent; the "
			       "rest is: %s", l.refused,
			       command_line(&l, line, sizeof(line)));
	free(rest);
	if (rc) {
		free(l.out);
		return rc;
	}
	notes[0] = '\0';
	if (l.n_args == 4) {
		add_line(notes, noteslen, "cachesim's form; maplab's is: %s",
			 command_line(&l, line, sizeof(line)));
		if (!l.ignore_obj_size && sizes_in_bytes_maybe(l.args[3]))
			add_line(notes, noteslen, "sizes are entries here "
				 "(cachesim counts bytes unless "
				 "--ignore-obj-size)");
	}
	for (char *n = l.notes, *end; *n; n = *end ? end + 2 : end) {
		end = strstr(n, "; ") ? strstr(n, "; ") : n + strlen(n);
		add_line(notes, noteslen, "%.*s", (int)(end - n), n);
	}
	*out_argc = l.n;
	*out_argv = l.out;
	return 0;
}
