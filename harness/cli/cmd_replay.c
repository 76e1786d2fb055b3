/* SPDX-License-Identifier: MIT */
/*
 * maplab replay | validate | gentrace: traces on designs and on the kernel.
 */
#include "cli.h"
#include "options.h"
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

/* Options of replay, validate and gentrace. */
struct trace_cmd {
	const char *cmd;
	const char *map;       /* --map */
	const char *file;      /* --trace */
	bool random;           /* --random: a generated trace */
	bool echo;             /* --echo (replay) */
	unsigned max_diffs;    /* --max-diffs (validate) */
	struct tracegen_opts gen;
};

static const char usage_replay[] =
	"usage: maplab replay [--map DESIGN|kernel] (--trace FILE | --random ...) [--echo]\n\n"
	"Runs a trace (format v1, docs/traces.md) and prints one result line\n"
	"per operation.  Each map line uses the kernel-faithful design of its\n"
	"type, unless --map names another design of that type, or `kernel`\n"
	"for the running kernel's own map (needs root).\n";

static const char usage_validate[] =
	"usage: maplab validate [--map DESIGN] (--trace FILE | --random ...) [--max-diffs N]\n\n"
	"Replays the trace on the design (default: the kernel-faithful one of\n"
	"each map line's type) and on the kernel's own map, compares the\n"
	"result lines, and shows the first differences.\n"
	"Exit 0: identical; 1: they differ; 2: bad input or no BPF here.\n";

static const char usage_gentrace[] =
	"usage: maplab gentrace [options]\n\n"
	"Writes a random trace to stdout: one map line, --ops operations over a\n"
	"key space 1.5 times max_entries (so the map fills), a dump.\n";

/* The options that shape a random trace (--random, gentrace). */
#define GEN_OPTIONS                                                          \
	{ OPT_TYPE, "map type: hash, lru_hash or lpm_trie (hash)" },        \
	{ OPT_ENTRIES, "max_entries (64)" },                                 \
	{ OPT_KEY_SIZE, "key bytes (4)" },                                   \
	{ OPT_VALUE_SIZE, "value bytes (8)" },                               \
	{ OPT_FLAGS, "map flags (zero_seed): no_prealloc, no_common_lru,\n"   \
		     "zero_seed, rdonly, wronly, rdonly_prog, wronly_prog,\n"  \
		     "numa_node, or a number (0x... allowed)" },             \
	{ OPT_OPS, "operation lines (1000)" },                               \
	{ OPT_SEED, "(1)" }

static const struct cmd_option replay_options[] = {
	{ OPT_MAP, "a design, or kernel: the running kernel's own map" },
	{ OPT_TRACE, NULL },
	{ OPT_RANDOM, NULL },
	{ OPT_ECHO, NULL },
	GEN_OPTIONS,
};

static const struct cmd_option validate_options[] = {
	{ OPT_MAP, "the design to compare with the kernel" },
	{ OPT_TRACE, NULL },
	{ OPT_RANDOM, NULL },
	{ OPT_MAX_DIFFS, "differences to show (5)" },
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
	case OPT_MAX_DIFFS: c->max_diffs = (unsigned)v->u; return 0;
	case OPT_TYPE:
		a->type = map_type_from_name(v->text);
		return a->type ? 0 : cli_error(c->cmd, "--type wants hash, "
					       "lru_hash or lpm_trie, got '%s'",
					       v->text);
	case OPT_ENTRIES: a->max_entries = (uint32_t)v->u; return 0;
	case OPT_KEY_SIZE: a->key_size = (uint32_t)v->u; return 0;
	case OPT_VALUE_SIZE: a->value_size = (uint32_t)v->u; return 0;
	case OPT_FLAGS: return cli_apply_flags(c->cmd, v->text, &a->flags);
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
	return opts_parse(c->cmd, argc, argv, opts, n, apply_trace_option, c,
			  usage, NULL);
}

/* Parse --trace FILE, or generate with --random.  0 or EXIT_USAGE. */
static int load_trace(struct trace_cmd *c, struct trace *t)
{
	char err[512];
	int rc;

	if (!c->file == !c->random)
		return cli_error(c->cmd, "give exactly one of --trace FILE and "
				 "--random (try --help)");
	if (c->random) {
		char *text = tracegen_string(&c->gen);
		if (!text)
			return cli_error(c->cmd, "out of memory");
		rc = trace_parse_string(text, "random", t, err, sizeof(err));
		free(text);
	} else if (strcmp(c->file, "-") == 0) {
		rc = trace_parse(stdin, "stdin", t, err, sizeof(err));
	} else {
		FILE *f = fopen(c->file, "r");
		if (!f)
			return cli_error(c->cmd, "cannot open %s: %s", c->file,
					 strerror(errno));
		rc = trace_parse(f, c->file, t, err, sizeof(err));
		fclose(f);
	}
	if (rc) {
		fprintf(stderr, "maplab %s: %s\n", c->cmd, err);
		return EXIT_USAGE;
	}
	return 0;
}

static struct replay_side kernel_side(void)
{
	return replay_fixed_side("kernel", &kmap_ops);
}

static int kernel_ready(const char *cmd)
{
	char why[256];
	if (kmap_available(why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "maplab %s: the kernel side is not available here: %s\n",
		cmd, why);
	return EXIT_USAGE;
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
		return kernel_ready(c->cmd);
	}
	const struct map_ops *design = NULL;
	if (c->map && !(design = map_find(c->map)))
		return cli_error(c->cmd, "no design '%s' (maplab list shows "
				 "them)", c->map);
	*side = replay_user_side(design);
	return 0;
}

static int print_replay(const struct trace *t, const struct replay_result *r,
			bool echo)
{
	for (size_t i = 0; i < r->n; i++) {
		if (echo) {
			fputs("# ", stdout);
			trace_print_line(stdout, &t->lines[i],
					 replay_attr_at(t, i));
			putchar('\n');
		}
		fwrite(r->text + r->starts[i], 1, r->starts[i + 1] - r->starts[i],
		       stdout);
	}
	return fflush(stdout) ? EXIT_USAGE : EXIT_OK;
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
	struct replay_result r;
	rc = replay_run(&t, c.file ? c.file : "random", &side, &r, err,
			sizeof(err));
	print_replay(&t, &r, c.echo);
	if (rc) {
		fprintf(stderr, "maplab replay: %s\n", err);
		rc = EXIT_USAGE;
	}
	replay_result_free(&r);
	trace_free(&t);
	return rc;
}

static void print_indented(const char *side, const char *text, size_t len)
{
	char label[64];
	snprintf(label, sizeof(label), "%s:", side);
	int first = 1;
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		printf("  %-12s %.*s\n", first ? label : "", (int)(e - i),
		       text + i);
		first = 0;
		i = e + 1;
	}
	if (len == 0)
		printf("  %-12s (nothing: the replay stopped before)\n", label);
}

static int compare_results(const struct trace *t, const char *label,
			   const struct replay_result *user,
			   const struct replay_result *kern, unsigned max_diffs)
{
	unsigned diffs = 0, unordered = 0;

	for (size_t i = 0; i < t->n; i++)
		unordered += !replay_line_comparable(t, i);
	for (size_t i = replay_next_difference(t, user, kern, 0); i < t->n;
	     i = replay_next_difference(t, user, kern, i + 1)) {
		if (++diffs > max_diffs)
			continue;
		size_t ul, kl;
		const char *u = replay_line_text(user, i, &ul);
		const char *k = replay_line_text(kern, i, &kl);
		printf("line %u: ", t->lines[i].lineno);
		trace_print_line(stdout, &t->lines[i], replay_attr_at(t, i));
		putchar('\n');
		print_indented("kernel", k, kl);
		print_indented(label, u, ul);
	}
	if (unordered)
		printf("validate: %u next lines not compared: without zero_seed "
		       "the order depends on each side's random seed\n",
		       unordered);
	if (diffs)
		printf("validate: %u of %zu trace lines differ (%s vs kernel)\n",
		       diffs, t->n, label);
	else
		printf("validate: %zu trace lines, %s matches the kernel\n", t->n,
		       label);
	return diffs ? EXIT_CHECK_FAILED : EXIT_OK;
}

int cmd_validate(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "validate" };
	struct replay_side side;
	struct trace t;
	char uerr[512] = "", kerr[512] = "";

	int rc = parse_trace_cmd(&c, argc, argv, validate_options,
				 N_OPTS(validate_options), usage_validate);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = pick_side(&c, false, &side)) || (rc = kernel_ready(c.cmd)) ||
	    (rc = load_trace(&c, &t)))
		return rc;

	const char *name = c.file ? c.file : "random";
	struct replay_side kside = kernel_side();
	struct replay_result user, kern;
	int urc = replay_run(&t, name, &side, &user, uerr, sizeof(uerr));
	int krc = replay_run(&t, name, &kside, &kern, kerr, sizeof(kerr));
	rc = compare_results(&t, side.label, &user, &kern, c.max_diffs);
	if (urc || krc) {
		fprintf(stderr, "maplab validate: %s\n", urc ? uerr : kerr);
		if (rc == EXIT_OK)
			rc = EXIT_USAGE;
	}
	replay_result_free(&user);
	replay_result_free(&kern);
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
	tracegen_write(stdout, &c.gen);
	return fflush(stdout) ? EXIT_USAGE : EXIT_OK;
}
