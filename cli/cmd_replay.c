/* SPDX-License-Identifier: MIT */
/*
 * maplab replay | validate | gentrace: traces on designs and on the kernel.
 */
#include "cli/cli.h"
#include "cli/options.h"
#include "harness/trace/replay.h"
#include "harness/trace/trace.h"
#include "harness/trace/tracegen.h"
#include "kernel-compare/kmap.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* Options of replay, validate and gentrace. */
struct trace_cmd {
	const char *cmd;
	const char *map;       /* --map */
	const char *file;      /* --trace */
	bool random;           /* --random: a generated trace */
	bool echo;             /* --echo (replay) */
	bool verbose;          /* --verbose: the verifier's log on a refusal */
	unsigned max_diffs;    /* --max-diffs (validate) */
	bool key_size_given, flags_given;
	struct tracegen_opts gen;
};

static const char usage_replay[] =
	"usage: maplab replay [--map DESIGN|kernel] (--trace FILE | --random ...) [--echo]\n\n"
	"Runs a trace (format v1, docs/traces.md) and prints one result line\n"
	"per operation, as it goes.  Each map line uses the kernel-faithful\n"
	"design of its type, unless --map names another design of that type,\n"
	"or `kernel` for the running kernel's own map (needs root).  The replay\n"
	"runs on cpu 0.  Exit 0: replayed; 2: bad input, an error of the trace,\n"
	"or the replay could not run.\n";

static const char usage_validate[] =
	"usage: maplab validate [--map DESIGN] (--trace FILE | --random ...) [--max-diffs N]\n\n"
	"Replays the trace on the design (default: the kernel-faithful one of\n"
	"each map line's type) and on the kernel's own map, line by line in\n"
	"lock step on cpu 0, compares the result lines, and shows the first\n"
	"differences.\n"
	"Exit 0: identical; 1: they differ; 2: bad input, an error of the\n"
	"trace, no BPF here, or the replay could not run.\n";

static const char usage_gentrace[] =
	"usage: maplab gentrace [options]\n\n"
	"Writes a random trace to stdout: one map line, --ops operations over a\n"
	"key space 1.5 times max_entries (so the map fills), a dump.  An LPM\n"
	"trie's is twice max_entries prefixes of a few related addresses, which\n"
	"nest and part, with trailing bits, prefix lengths beyond the data and\n"
	"walks in the kernel's order (docs/traces.md).\n";

/* The options that shape a random trace (--random, gentrace). */
#define GEN_OPTIONS                                                          \
	{ OPT_TYPE, "map type: hash, lru_hash or lpm_trie (hash)" },        \
	{ OPT_ENTRIES, "max_entries (64)" },                                 \
	{ OPT_KEY_SIZE, "key bytes (4; 8 for lpm_trie: a /32 address)" },    \
	{ OPT_VALUE_SIZE, "value bytes (8)" },                               \
	{ OPT_FLAGS, "map flags (zero_seed; no_prealloc for lpm_trie):\n"     \
		     "no_prealloc, no_common_lru,\n"                         \
		     "zero_seed, rdonly, wronly, rdonly_prog, wronly_prog,\n"  \
		     "numa_node, or a number (0x... allowed)" },             \
	{ OPT_OPS, "operation lines (1000)" },                               \
	{ OPT_SEED, "(1)" }

#define VERBOSE_HELP \
	"show the verifier's log if it refuses the kernel's lookup program"

static const struct cmd_option replay_options[] = {
	{ OPT_MAP, "a design, or kernel: the running kernel's own map" },
	{ OPT_TRACE, NULL },
	{ OPT_RANDOM, NULL },
	{ OPT_ECHO, NULL },
	{ OPT_VERBOSE, VERBOSE_HELP },
	GEN_OPTIONS,
};

static const struct cmd_option validate_options[] = {
	{ OPT_MAP, "the design to compare with the kernel" },
	{ OPT_TRACE, NULL },
	{ OPT_RANDOM, NULL },
	{ OPT_MAX_DIFFS, "differences to show (5)" },
	{ OPT_VERBOSE, VERBOSE_HELP },
	GEN_OPTIONS,
};

static const struct cmd_option gentrace_options[] = { GEN_OPTIONS };

#define N_OPTS(a) (sizeof(a) / sizeof((a)[0]))

static int apply_trace_option(void *ctx, enum opt_id id,
			      const struct opt_value *v)
{
	struct trace_cmd *c = ctx;
	struct map_attr *a = &c->gen.attr;

	switch (id) {
	case OPT_MAP: c->map = v->text; return 0;
	case OPT_TRACE: c->file = v->text; return 0;
	case OPT_RANDOM: c->random = true; return 0;
	case OPT_ECHO: c->echo = true; return 0;
	case OPT_VERBOSE: c->verbose = true; return 0;
	case OPT_MAX_DIFFS: c->max_diffs = (unsigned)v->u; return 0;
	case OPT_TYPE:
		a->type = map_type_from_name(v->text);
		return a->type ? 0 : cli_error(c->cmd, "--type wants hash, "
					       "lru_hash or lpm_trie, got '%s'",
					       v->text);
	case OPT_ENTRIES: a->max_entries = (uint32_t)v->u; return 0;
	case OPT_KEY_SIZE:
		a->key_size = (uint32_t)v->u;
		c->key_size_given = true;
		return 0;
	case OPT_VALUE_SIZE: a->value_size = (uint32_t)v->u; return 0;
	case OPT_FLAGS:
		c->flags_given = true;
		return cli_apply_flags(c->cmd, v->text, &a->flags);
	case OPT_OPS: c->gen.ops = v->u; return 0;
	case OPT_SEED: c->gen.seed = v->u; return 0;
	default: return cli_error(c->cmd, "option not handled here (a bug)");
	}
}

/* 0 to go on, 1 for --help given, EXIT_USAGE for bad usage. */
static int parse_trace_cmd(struct trace_cmd *c, int argc, char **argv,
			   const struct cmd_option *opts, size_t n,
			   const char *usage)
{
	struct map_attr def = { .type = MAP_TYPE_HASH, .key_size = 4,
				.value_size = 8, .max_entries = 64,
				.flags = MAP_F_ZERO_SEED };
	c->gen.attr = def;
	c->gen.ops = 1000;
	c->gen.seed = 1;
	c->max_diffs = 5;
	int rc = opts_parse(c->cmd, argc, argv, opts, n, apply_trace_option, c,
			    usage, NULL);
	/* An LPM trie takes a prefix length before its data, and must be
	 * made with BPF_F_NO_PREALLOC: defaults it can be made with. */
	if (rc == 0 && c->gen.attr.type == MAP_TYPE_LPM_TRIE) {
		if (!c->key_size_given)
			c->gen.attr.key_size = 8;
		if (!c->flags_given)
			c->gen.attr.flags = MAP_F_NO_PREALLOC;
	}
	return rc;
}

int cli_read_trace(const char *cmd, const char *file, struct trace *t)
{
	char err[512];
	int rc;
	if (strcmp(file, "-") == 0) {
		rc = trace_parse(stdin, "stdin", t, err, sizeof(err));
	} else {
		FILE *f = fopen(file, "r");
		if (!f)
			return cli_error(cmd, "cannot open %s: %s", file,
					 strerror(errno));
		rc = trace_parse(f, file, t, err, sizeof(err));
		fclose(f);
	}
	return rc ? cli_error(cmd, "%s", err) : 0;
}

/* Parse --trace FILE, or generate with --random.  0 or EXIT_USAGE. */
static int load_trace(struct trace_cmd *c, struct trace *t)
{
	char err[512];

	if (!c->file == !c->random)
		return cli_error(c->cmd, "give exactly one of --trace FILE and "
				 "--random (try --help)");
	if (!c->random)
		return cli_read_trace(c->cmd, c->file, t);
	char *text = tracegen_string(&c->gen);
	if (!text)
		return cli_error(c->cmd, "out of memory");
	int rc = trace_parse_string(text, "random", t, err, sizeof(err));
	free(text);
	return rc ? cli_error(c->cmd, "%s", err) : 0;
}

static struct replay_side kernel_side(void)
{
	return replay_fixed_side("kernel", &kmap_ops, kmap_prog_lookup);
}

static int kernel_ready(const struct trace_cmd *c)
{
	char why[256];
	if (kmap_available(why, sizeof(why)) != 0) {
		fprintf(stderr, "maplab %s: the kernel side is not available "
			"here: %s\n", c->cmd, why);
		return EXIT_USAGE;
	}
	kmap_set_verbose(c->verbose);
	return 0;
}

/* The side --map asks for.  EXIT_USAGE for an unknown design. */
static int pick_side(struct trace_cmd *c, bool allow_kernel,
		     struct replay_side *side)
{
	if (c->map && strcmp(c->map, "kernel") == 0) {
		if (!allow_kernel)
			return cli_error(c->cmd, "--map names the design to "
				"compare with the kernel, not `kernel`");
		*side = kernel_side();
		return kernel_ready(c);
	}
	const struct map_ops *design = NULL;
	if (c->map && !(design = map_find(c->map)))
		return cli_error(c->cmd, "no design '%s' (maplab list shows "
				 "them)", c->map);
	*side = replay_user_side(design);
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "replay" };
	struct replay_side side;
	struct trace t;
	char err[512];

	int rc = parse_trace_cmd(&c, argc, argv, replay_options,
				 N_OPTS(replay_options), usage_replay);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = pick_side(&c, true, &side)) || (rc = load_trace(&c, &t)))
		return rc;
	enum replay_stop stop = replay_run(&t, c.file ? c.file : "random",
					   &side, stdout, c.echo, err,
					   sizeof(err));
	if (fflush(stdout) && !stop) {
		snprintf(err, sizeof(err), "writing the results failed: %s",
			 strerror(errno));
		stop = REPLAY_FAILED;
	}
	trace_free(&t);
	if (stop)
		return cli_error(c.cmd, "%s", err);
	return EXIT_OK;
}

/* What validate's report needs while the comparison runs. */
struct diff_report {
	const char *label;  /* the design's side */
	unsigned max_diffs; /* differences shown; the rest only counted */
	unsigned shown;
};

static void print_indented(const struct replay_answer *a)
{
	char label[64];
	snprintf(label, sizeof(label), "%s:", a->side);
	if (a->stop) {
		printf("  %-12s (the replay stopped here: %.*s)\n", label,
		       (int)a->len, a->text);
		return;
	}
	int first = 1;
	for (size_t i = 0; i < a->len;) {
		size_t e = i;
		while (e < a->len && a->text[e] != '\n')
			e++;
		printf("  %-12s %.*s\n", first ? label : "", (int)(e - i),
		       a->text + i);
		first = 0;
		i = e + 1;
	}
}

static void show_difference(void *ctx, const struct trace *t, size_t i,
			    const struct replay_answer *kern,
			    const struct replay_answer *user)
{
	struct diff_report *r = ctx;
	if (r->shown++ >= r->max_diffs)
		return;
	printf("line %u: ", t->lines[i].lineno);
	trace_print_line(stdout, t, i);
	putchar('\n');
	print_indented(kern);
	print_indented(user);
}

/*
 * The summary and the exit status: a side that could not run is 2 (the
 * check did not happen); then differences are 1; then an error of the
 * trace that both sides met alike is 2, as a replay's would be.
 */
static int summarise(const struct trace_cmd *c, const struct diff_report *r,
		     const struct replay_comparison *cmp)
{
	if (cmp->unordered)
		printf("validate: %zu next lines not compared: without "
		       "zero_seed the order depends on each side's random "
		       "seed\n", cmp->unordered);
	if (cmp->differences)
		printf("validate: %zu of %zu trace lines differ (%s vs "
		       "kernel)\n", cmp->differences, cmp->lines, r->label);
	else if (cmp->stop == REPLAY_DONE)
		printf("validate: %zu trace lines, %s matches the kernel\n",
		       cmp->lines, r->label);
	if (fflush(stdout) && cmp->stop != REPLAY_FAILED)
		return cli_error(c->cmd, "writing the report failed: %s",
				 strerror(errno));
	if (cmp->stop != REPLAY_DONE)
		cli_error(c->cmd, "%s", cmp->why);
	if (cmp->stop == REPLAY_FAILED)
		return EXIT_USAGE;
	if (cmp->differences)
		return EXIT_CHECK_FAILED;
	return cmp->stop ? EXIT_USAGE : EXIT_OK;
}

/* Whether release ("6.18.44-fc") is of version `models` ("6.18"). */
static bool release_is(const char *release, const char *models)
{
	size_t n = strlen(models);
	return strncmp(release, models, n) == 0 &&
	       !(release[n] >= '0' && release[n] <= '9');
}

/*
 * A faithful design matches the kernel whose behaviour it models
 * (map_ops.models): on another kernel a difference may be the kernel's
 * own change.  One warning line per such design the trace's map lines
 * use; the exit status stays the comparison's.
 */
static void warn_other_kernel(const struct trace_cmd *c,
			      const struct replay_side *side,
			      const struct trace *t)
{
	const struct map_ops *warned[16];
	unsigned n_warned = 0;
	struct utsname u;
	if (uname(&u) != 0)
		return;
	for (size_t i = 0; i < t->n && n_warned < 16; i++) {
		const struct map_attr *a = &t->lines[i].attr;
		const struct map_ops *o = t->lines[i].op == TRACE_MAP
			? side->choose(a->type, a->flags, side->ctx) : NULL;
		bool seen = false;
		for (unsigned k = 0; k < n_warned; k++)
			seen = seen || warned[k] == o;
		if (!o || seen || !o->faithful || !o->models ||
		    release_is(u.release, o->models))
			continue;
		warned[n_warned++] = o;
		fprintf(stderr, "maplab %s: warning: %s models kernel %s, and this "
			"kernel is %s: a difference may be the kernel's own change\n",
			c->cmd, o->name, o->models, u.release);
	}
}

int cmd_validate(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "validate" };
	struct replay_side side;
	struct trace t;

	int rc = parse_trace_cmd(&c, argc, argv, validate_options,
				 N_OPTS(validate_options), usage_validate);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = pick_side(&c, false, &side)) || (rc = kernel_ready(&c)) ||
	    (rc = load_trace(&c, &t)))
		return rc;
	warn_other_kernel(&c, &side, &t);

	struct replay_side kside = kernel_side();
	const struct map_ops *design = c.map ? map_find(c.map) : NULL;
	if (design) /* the kernel makes the design's kind of map */
		kside.add_flags = design->mode_flags;
	struct diff_report report = { .label = side.label, .max_diffs = c.max_diffs };
	struct replay_comparison cmp;
	replay_compare(&t, c.file ? c.file : "random", &kside, &side,
		       show_difference, &report, &cmp);
	rc = summarise(&c, &report, &cmp);
	trace_free(&t);
	return rc;
}

int cmd_gentrace(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "gentrace" };
	int rc = parse_trace_cmd(&c, argc, argv, gentrace_options,
				 N_OPTS(gentrace_options), usage_gentrace);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if (tracegen_write(stdout, &c.gen) != 0)
		return cli_error(c.cmd, "out of memory");
	return fflush(stdout) ? EXIT_USAGE : EXIT_OK;
}
