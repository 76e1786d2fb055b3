/* SPDX-License-Identifier: MIT */
/*
 * maplab replay | validate | gentrace: traces on designs and on the kernel.
 */
#include "cli.h"
#include "replay.h"
#include "trace.h"
#include "tracegen.h"
#include "../kernel-compare/kmap.h"

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

static const char gen_help[] =
	"random trace options (--random, gentrace):\n"
	"  --type hash|lru_hash|lpm_trie   map type (hash)\n"
	"  --entries N      max_entries (64)\n"
	"  --key-size N     bytes (4)      --value-size N  bytes (8)\n"
	"  --flags F|F      no_prealloc, no_common_lru, zero_seed (zero_seed)\n"
	"  --ops N          operations (1000)\n"
	"  --seed N         (1)\n";

static void help_replay(void)
{
	printf("usage: maplab replay [--map DESIGN|kernel] (--trace FILE | --random ...) [--echo]\n\n"
	       "Runs a trace (format v1, docs/traces.md) and prints one result line\n"
	       "per operation.  Each map line uses the kernel-faithful design of its\n"
	       "type, unless --map names another design of that type, or `kernel`\n"
	       "for the running kernel's own map (needs root).  `--trace -` reads stdin.\n\n"
	       "  --echo           print each trace line, as a comment, before its result\n\n%s",
	       gen_help);
}

static void help_validate(void)
{
	printf("usage: maplab validate [--map DESIGN] (--trace FILE | --random ...) [--max-diffs N]\n\n"
	       "Replays the trace on the design (default: the kernel-faithful one of\n"
	       "each map line's type) and on the kernel's own map, compares the\n"
	       "result lines, and shows the first differences (--max-diffs, 5).\n"
	       "Exit 0: identical; 1: they differ; 2: bad input or no BPF here.\n\n%s",
	       gen_help);
}

static void help_gentrace(void)
{
	printf("usage: maplab gentrace [options]\n\n"
	       "Writes a random trace to stdout: one map line, --ops operations\n"
	       "over a key space 1.5 times max_entries (so the map fills), a dump.\n\n%s",
	       gen_help);
}

enum { OPT_TYPE = 256, OPT_ENTRIES, OPT_KEY, OPT_VALUE, OPT_FLAGS, OPT_OPS,
       OPT_SEED, OPT_RANDOM, OPT_ECHO, OPT_DIFFS };

static int parse_gen_option(struct trace_cmd *c, int opt, const char *arg)
{
	uint64_t v;
	struct map_attr *a = &c->gen.attr;

	switch (opt) {
	case OPT_TYPE:
		a->type = map_type_from_name(arg);
		if (!a->type)
			return cli_error(c->cmd, "--type wants hash, lru_hash "
				"or lpm_trie, got '%s'", arg), -1;
		return 0;
	case OPT_FLAGS:
		return cli_parse_map_flags(c->cmd, arg, &a->flags);
	case OPT_SEED:
		return cli_parse_u64(c->cmd, "seed", arg, 0, UINT64_MAX,
				     &c->gen.seed);
	}
	static const struct {
		int opt;
		const char *name;
		uint64_t max;
	} nums[] = { { OPT_ENTRIES, "entries", 1u << 24 },
		     { OPT_KEY, "key-size", 4096 },
		     { OPT_VALUE, "value-size", 65536 },
		     { OPT_OPS, "ops", 100000000 } };
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (nums[i].opt != opt)
			continue;
		if (cli_parse_u64(c->cmd, nums[i].name, arg, 1, nums[i].max, &v))
			return -1;
		uint32_t *dst[] = { &a->max_entries, &a->key_size,
				    &a->value_size, &c->gen.ops };
		*dst[i] = (uint32_t)v;
		return 0;
	}
	return -1;
}

/* 0 to go on, 1 for --help given, -1 for bad usage. */
static int parse_trace_cmd(struct trace_cmd *c, int argc, char **argv,
			   void (*help)(void))
{
	static const struct option opts[] = {
		{ "help", no_argument, 0, 'h' },
		{ "map", required_argument, 0, 'm' },
		{ "trace", required_argument, 0, 't' },
		{ "random", no_argument, 0, OPT_RANDOM },
		{ "echo", no_argument, 0, OPT_ECHO },
		{ "max-diffs", required_argument, 0, OPT_DIFFS },
		{ "type", required_argument, 0, OPT_TYPE },
		{ "entries", required_argument, 0, OPT_ENTRIES },
		{ "key-size", required_argument, 0, OPT_KEY },
		{ "value-size", required_argument, 0, OPT_VALUE },
		{ "flags", required_argument, 0, OPT_FLAGS },
		{ "ops", required_argument, 0, OPT_OPS },
		{ "seed", required_argument, 0, OPT_SEED },
		{ 0, 0, 0, 0 },
	};
	struct map_attr def = { .type = MAP_TYPE_HASH, .key_size = 4,
				.value_size = 8, .max_entries = 64,
				.flags = MAP_F_ZERO_SEED };
	c->gen.attr = def;
	c->gen.ops = 1000;
	c->gen.seed = 1;
	c->max_diffs = 5;

	int o;
	uint64_t v;
	optind = 1;
	while ((o = getopt_long(argc, argv, "hm:t:", opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			help();
			return 1;
		case 'm':
			c->map = optarg;
			break;
		case 't':
			c->file = optarg;
			break;
		case OPT_RANDOM:
			c->random = true;
			break;
		case OPT_ECHO:
			c->echo = true;
			break;
		case OPT_DIFFS:
			if (cli_parse_u64(c->cmd, "max-diffs", optarg, 1, 1000000,
					  &v))
				return -1;
			c->max_diffs = (unsigned)v;
			break;
		case '?':
			cli_error(c->cmd, "unknown option or missing value "
				  "(try --help)");
			return -1;
		default:
			if (parse_gen_option(c, o, optarg))
				return -1;
		}
	}
	if (optind < argc) {
		cli_error(c->cmd, "unexpected argument '%s' (try --help)",
			  argv[optind]);
		return -1;
	}
	return 0;
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

	int rc = parse_trace_cmd(&c, argc, argv, help_replay);
	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
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

	int rc = parse_trace_cmd(&c, argc, argv, help_validate);
	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
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
	int rc = parse_trace_cmd(&c, argc, argv, help_gentrace);
	if (rc)
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	if (c.file || c.map)
		return cli_error("gentrace", "takes only the random trace "
				 "options (try --help)");
	tracegen_write(stdout, &c.gen);
	return fflush(stdout) ? EXIT_USAGE : EXIT_OK;
}
