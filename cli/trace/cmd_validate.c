/* SPDX-License-Identifier: MIT */
/*
 * maplab validate: a trace replayed on a design and on the kernel's own map in
 * lock step, the first differences shown.
 */
#include "cli/cli.h"
#include "cli/trace/trace_cmd.h"
#include "harness/common/outfile.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static const char usage_validate[] =
	"usage: maplab validate [--map D[,D...]] (--trace FILE | --random ...) [--max-diffs N]\n\n"
	"Replays the trace on the design (default: the kernel-faithful one of\n"
	"each map line's type) and on the kernel's own map, line by line in\n"
	"lock step on cpu 0 (or a `cpu N` line's cpu), compares the result\n"
	"lines, and shows the first differences.  A list of designs validates\n"
	"each in turn on the same trace, each one's result under its name.\n"
	"Exit 0: identical; 1: a design differs; 2: bad input, an error of the\n"
	"trace, no BPF here, or the replay could not run.\n";

static const struct cmd_option validate_options[] = {
	{ &opt_map, "the designs to compare with the kernel, in turn" },
	{ &opt_trace, NULL },
	{ &opt_random, NULL },
	{ &opt_max_diffs, "differences to show (" STR(TRACE_DEFAULT_MAX_DIFFS) ")" },
	{ &opt_verbose, TRACE_VERBOSE_HELP },
	TRACE_GEN_OPTIONS,
};

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
 * The summary and the exit status: output that could not be written is 2
 * (one line naming it: the result is lost); a side that could not run is
 * 2 (the check did not happen); then differences are 1; then an error of
 * the trace that both sides met alike is 2, as a replay's would be.
 */
static int summarise(const struct trace_cmd *c, const struct diff_report *r,
		     const struct replay_comparison *cmp, struct outfile *out)
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
	int werr = out_flush(out);
	if (werr)
		return opts_write_failed(c->cmd, out, werr);
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
 * use, on any of the sides; the exit status stays the comparison's.
 */
static void warn_other_kernel(const struct trace_cmd *c,
			      const struct replay_side *sides, unsigned n_sides,
			      const struct trace *t)
{
	const struct map_ops *warned[16];
	unsigned n_warned = 0;
	struct utsname u;
	if (uname(&u) != 0)
		return;
	for (unsigned s = 0; s < n_sides; s++)
		for (size_t i = 0; i < t->n && n_warned < 16; i++) {
			const struct map_attr *a = &t->lines[i].attr;
			const struct map_ops *o = t->lines[i].op == TRACE_MAP
				? sides[s].choose(a->type, a->flags, sides[s].ctx)
				: NULL;
			bool seen = false;
			for (unsigned k = 0; k < n_warned; k++)
				seen = seen || warned[k] == o;
			if (!o || seen || !o->faithful || !o->models ||
			    release_is(u.release, o->models))
				continue;
			warned[n_warned++] = o;
			fprintf(stderr, "maplab %s: warning: %s models kernel %s, "
				"and this kernel is %s: a difference may be the "
				"kernel's own change\n", c->cmd, o->name, o->models,
				u.release);
		}
}

/* The most designs one --map list validates. */
#define VALIDATE_MAX_DESIGNS 64

/*
 * The sides --map asks for, each to be compared with the kernel in turn:
 * the designs of a list, or one side (a design, or the faithful ones when
 * --map is not given; `kernel` is refused there).  designs[i] is side i's
 * design, NULL for the faithful ones.  0, or EXIT_USAGE after one line.
 */
static int pick_sides(struct trace_cmd *c, struct replay_side *sides,
		      const struct map_ops **designs, unsigned *n)
{
	if (!c->map || strcmp(c->map, "kernel") == 0) {
		*n = 1;
		designs[0] = NULL;
		return trace_cmd_pick_side(c, false, &sides[0]);
	}
	int rc = opts_design_list(c->cmd, c->map, designs,
				  VALIDATE_MAX_DESIGNS, n);
	for (unsigned i = 0; i < *n && !rc; i++)
		sides[i] = replay_user_side(designs[i]);
	return rc;
}

/* One side against the kernel: its differences and summary.  The exit
 * status of summarise. */
static int validate_side(const struct trace_cmd *c, const struct trace *t,
			 const char *name, const struct replay_side *side,
			 const struct map_ops *design, struct outfile *out)
{
	struct replay_side kside = trace_cmd_kernel_side();
	if (design) /* the kernel makes the design's kind of map */
		kside.add_flags = design->mode_flags;
	struct diff_report report = { .label = side->label,
				      .max_diffs = c->max_diffs };
	struct replay_comparison cmp;
	replay_compare(t, name, &kside, side, show_difference, &report, &cmp);
	return summarise(c, &report, &cmp, out);
}

int cmd_validate(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "validate" };
	struct replay_side sides[VALIDATE_MAX_DESIGNS];
	const struct map_ops *designs[VALIDATE_MAX_DESIGNS];
	unsigned n_sides;
	struct trace t;

	int rc = trace_cmd_parse(&c, argc, argv, validate_options,
				 N_OPTIONS(validate_options), usage_validate);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = pick_sides(&c, sides, designs, &n_sides)) ||
	    (rc = trace_cmd_kernel_ready(&c)) || (rc = trace_cmd_load(&c, &t)))
		return rc;
	char name[CLI_TRACE_NAME_LEN];
	cli_trace_name(c.file, name, sizeof(name));
	if (t.n == 0) { /* "matches the kernel" would claim a check never made */
		trace_free(&t);
		return cli_error(c.cmd, "%s has no map line and no operation: "
				 "nothing to compare", name);
	}
	warn_other_kernel(&c, sides, n_sides, &t);

	/* Each design in turn, under a heading where there are several; the
	 * worst status wins, and a design that could not be checked (2)
	 * stops the list there. */
	struct outfile out;
	out_stdout(&out);
	int worst = EXIT_OK;
	for (unsigned i = 0; i < n_sides && worst != EXIT_USAGE; i++) {
		if (n_sides > 1)
			fprintf(out.f, "%s# %s\n", i ? "\n" : "", sides[i].label);
		rc = validate_side(&c, &t, name, &sides[i], designs[i], &out);
		worst = rc > worst ? rc : worst;
	}
	trace_free(&t);
	return worst;
}
