/* SPDX-License-Identifier: MIT */
/*
 * maplab validate: a trace replayed on a design and on the kernel's own map in
 * lock step, the first differences shown.
 */
#include "cli/cli.h"
#include "cli/trace/trace_batch.h"
#include "cli/trace/trace_cmd.h"
#include "harness/common/outfile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static const char usage_validate[] =
	"usage: maplab validate [--map D[,D...]] (--trace FILE|DIR | --random [--seeds A-B] ...)\n"
	"                       [--kernel K [--vm-cpus N]] [--max-diffs N]\n\n"
	"Replays the trace on the design (default: the kernel-faithful one of\n"
	"each map line's type) and on the kernel's own map, line by line in\n"
	"lock step on cpu 0 (or a `cpu N` line's cpu), compares the result\n"
	"lines, and shows the first differences.  A list of designs validates\n"
	"each in turn on the same traces, each one's result under its name.\n"
	"A folder validates every .trace in it, --seeds a random trace a seed.\n"
	"--kernel K runs the kernel's side in a virtual machine booted from K\n"
	"(one boot for all the traces), the designs' here, and compares them\n"
	"as they come back: Debian's 5.10, 6.1 and 6.12, with the cpu count\n"
	"your users run (--vm-cpus).\n"
	"Exit 0: identical; 1: a design differs; 2: bad input, an error of the\n"
	"trace, no BPF here, no VM, or the replay could not run.\n";

static const struct cmd_option validate_options[] = {
	{ &opt_map, "the designs to compare with the kernel, in turn" },
	{ &opt_trace, "the trace to run (- reads stdin), or a folder: every\n"
		      ".trace in it" },
	{ &opt_random, NULL },
	{ &opt_seeds, "with --random: a trace for each seed from A to B" },
	TRACE_VM_OPTIONS,
	{ &opt_model, "the kernel version the faithful designs behave as\n"
		      "(default: the kernel's own, where they model it)" },
	{ &opt_max_diffs, "differences to show (" STR(TRACE_DEFAULT_MAX_DIFFS) ")" },
	{ &opt_verbose, TRACE_VERBOSE_HELP },
	TRACE_GEN_OPTIONS,
};

/* What validate's report needs while the comparisons run. */
struct diff_report {
	const char *label;  /* the design's side */
	const char *trace;  /* the trace compared now: named where the batch
			       holds several */
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
	if (r->trace)
		printf("%s, ", r->trace);
	printf("line %u: ", t->lines[i].lineno);
	trace_print_line(stdout, t, i);
	putchar('\n');
	print_indented(kern);
	print_indented(user);
}

/* A design's comparisons over the batch, summed. */
struct tally {
	size_t traces, lines, unordered, differences, differing;
	bool failed, trace_error;
};

static void tally_add(struct tally *t, const struct replay_comparison *cmp)
{
	t->traces++;
	t->lines += cmp->lines;
	t->unordered += cmp->unordered;
	t->differences += cmp->differences;
	t->differing += cmp->differences > 0;
	t->failed = t->failed || cmp->stop == REPLAY_FAILED;
	t->trace_error = t->trace_error || cmp->stop == REPLAY_TRACE_ERROR;
}

/*
 * The summary and the exit status: output that could not be written is 2
 * (one line naming it: the result is lost); a side that could not run is
 * 2 (the check did not happen); then differences are 1; then an error of
 * a trace that both sides met alike is 2, as a replay's would be.
 */
static int summarise(const struct trace_cmd *c, const char *label,
		     const char *kernel, const struct tally *t,
		     struct outfile *out)
{
	if (t->unordered)
		printf("validate: %zu next lines not compared: without "
		       "zero_seed the order depends on each side's random "
		       "seed\n", t->unordered);
	/* this machine's kernel: "matches the kernel", "(X vs kernel)" */
	const char *vs = kernel ? kernel : "kernel";
	const char *matches = kernel ? kernel : "the kernel";
	if (t->traces == 1 && t->differences)
		printf("validate: %zu of %zu trace lines differ (%s vs %s)\n",
		       t->differences, t->lines, label, vs);
	else if (t->differences)
		printf("validate: %zu of %zu traces differ, %zu of %zu trace "
		       "lines (%s vs %s)\n", t->differing, t->traces,
		       t->differences, t->lines, label, vs);
	else if (!t->failed && !t->trace_error && t->traces == 1)
		printf("validate: %zu trace lines, %s matches %s\n", t->lines,
		       label, matches);
	else if (!t->failed && !t->trace_error)
		printf("validate: %zu traces, %zu trace lines, %s matches %s\n",
		       t->traces, t->lines, label, matches);
	int werr = out_flush(out);
	if (werr)
		return opts_write_failed(c->cmd, out, werr);
	if (t->failed)
		return EXIT_USAGE;
	if (t->differences)
		return EXIT_CHECK_FAILED;
	return t->trace_error ? EXIT_USAGE : EXIT_OK;
}

/* The version a release is of ("6.12.118+deb13-cloud-amd64": 6.12), as a
 * model; 0 where it says none. */
static uint32_t release_model(const char *release)
{
	unsigned major, minor;
	if (sscanf(release, "%3u.%3u", &major, &minor) != 2 || major > 255 ||
	    minor > 255)
		return 0;
	return MAP_MODEL(major, minor);
}

/*
 * A faithful design matches the kernels whose behaviour it models
 * (map_ops.models), each as its model (the sides' model: the kernel's own
 * version, or --model's): on another kernel, or with another model, a
 * difference may be the kernel's own change.  One warning line per such
 * design the traces' map lines use, on any of the sides; the exit status
 * stays the comparison's.
 */
static void warn_other_kernel(const struct trace_cmd *c,
			      const struct replay_side *sides, unsigned n_sides,
			      const struct trace_batch *b, const char *release)
{
	uint32_t kernel = release_model(release);
	const struct map_ops *warned[16];
	unsigned n_warned = 0;
	for (unsigned s = 0; s < n_sides; s++)
		for (size_t k = 0; k < b->n; k++) {
			const struct trace *t = &b->items[k].t;
			for (size_t i = 0; i < t->n && n_warned < 16; i++) {
				const struct map_attr *a = &t->lines[i].attr;
				const struct map_ops *o = t->lines[i].op == TRACE_MAP
					? sides[s].choose(a->type, a->flags,
							  sides[s].ctx)
					: NULL;
				if (!o || !o->faithful || !o->models)
					continue; /* not a map line, or no model */
				bool seen = false;
				for (unsigned w = 0; w < n_warned; w++)
					seen = seen || warned[w] == o;
				uint32_t as = sides[s].model ? sides[s].model
					      : map_newest_model(o);
				if (seen || as == kernel)
					continue;
				warned[n_warned++] = o;
				char v[16];
				fprintf(stderr, "maplab %s: warning: %s behaves "
					"as kernel %s (it models %s), and this "
					"kernel is %s: a difference may be the "
					"kernel's own change\n", c->cmd, o->name,
					map_model_text(as, v, sizeof(v)),
					o->models, release);
			}
		}
}

/*
 * Each side's model: --model's, else the kernel's own version where the
 * side's faithful designs model it (validate --kernel 6.1 compares with
 * 6.1's behaviour; a 6.1 machine's kernel too), else their newest.
 */
static void set_models(const struct trace_cmd *c, struct replay_side *sides,
		       const struct map_ops **designs, unsigned n,
		       uint32_t kernel)
{
	for (unsigned i = 0; i < n; i++) {
		bool modelled = true;
		if (designs[i])
			modelled = !designs[i]->faithful ||
				   map_models(designs[i], kernel);
		for (size_t r = 0; !designs[i] && map_registry[r]; r++)
			if (map_registry[r]->faithful)
				modelled = modelled &&
					   map_models(map_registry[r], kernel);
		sides[i].model = c->model ? c->model : modelled ? kernel : 0;
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

/* Where the kernel's side comes from: this machine's kernel, live, or a
 * VM's recordings (one set for each of the designs' mode flags). */
struct kernel_side {
	const char *label;            /* NULL: this machine's; or the VM's */
	struct vm_trace *recs;        /* NULL: live */
	uint32_t flags[VALIDATE_MAX_DESIGNS];
	size_t n_flags;
	struct vm_kernel kernel;
	struct vm_run run;
};

/* The VM's recordings, one set for each mode the designs stand for. */
static int record_in_vm(const struct trace_cmd *c, const struct trace_batch *b,
			const struct map_ops **designs, unsigned n,
			struct kernel_side *k)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t f = designs[i] ? designs[i]->mode_flags : 0;
		bool seen = false;
		for (size_t j = 0; j < k->n_flags; j++)
			seen = seen || k->flags[j] == f;
		if (!seen)
			k->flags[k->n_flags++] = f;
	}
	int rc = trace_batch_in_vm(c, b, k->flags, k->n_flags, &k->kernel,
				   &k->run, &k->recs);
	k->label = k->run.label;
	return rc;
}

static const struct replay_recorded *recording_of(const struct kernel_side *k,
						  size_t n_traces, size_t i,
						  const struct map_ops *design)
{
	uint32_t f = design ? design->mode_flags : 0;
	size_t set = 0;
	while (set + 1 < k->n_flags && k->flags[set] != f)
		set++;
	return &k->recs[set * n_traces + i].rec;
}

/* One design against the kernel on every trace: its differences and
 * summary.  The exit status of summarise. */
static int validate_side(const struct trace_cmd *c, const struct trace_batch *b,
			 const struct replay_side *side,
			 const struct map_ops *design,
			 const struct kernel_side *k, struct outfile *out)
{
	struct replay_side kside = trace_cmd_kernel_side();
	struct replay_side dside = *side;
	if (design) /* the kernel makes the design's kind of map */
		kside.add_flags = design->mode_flags;
	if (k->recs)
		dside.ncpus = c->vm_cpus;
	struct map_work work = { 0 };
	dside.work = &work;
	struct diff_report report = { .label = side->label,
				      .max_diffs = c->max_diffs };
	struct tally tally = { 0 };
	for (size_t i = 0; i < b->n && !tally.failed; i++) {
		const struct trace_item *it = &b->items[i];
		struct replay_comparison cmp;
		report.trace = b->n > 1 ? it->name : NULL;
		if (k->recs)
			replay_compare_recorded(&it->t, it->name,
						recording_of(k, b->n, i, design),
						&dside, show_difference, &report,
						&cmp);
		else
			replay_compare(&it->t, it->name, &kside, &dside,
				       show_difference, &report, &cmp);
		tally_add(&tally, &cmp);
		if (b->n > 1 && cmp.differences) /* which traces, all of them */
			printf("validate: %s: %zu of %zu trace lines differ\n",
			       it->name, cmp.differences, cmp.lines);
		if (cmp.stop != REPLAY_DONE)
			cli_error(c->cmd, "%s", cmp.why);
	}
	if (b->n > 1 && (work.evictions || work.steals))
		printf("validate: %s evicted %llu keys and stole %llu free "
		       "nodes from other cpus on the way\n", side->label,
		       (unsigned long long)work.evictions,
		       (unsigned long long)work.steals);
	return summarise(c, side->label, k->label, &tally, out);
}

int cmd_validate(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "validate" };
	struct replay_side sides[VALIDATE_MAX_DESIGNS];
	const struct map_ops *designs[VALIDATE_MAX_DESIGNS];
	static struct kernel_side k;
	unsigned n_sides;
	struct trace_batch b;

	int rc = trace_cmd_parse(&c, argc, argv, validate_options,
				 N_OPTIONS(validate_options), usage_validate);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = pick_sides(&c, sides, designs, &n_sides)) ||
	    (!c.kernel && (rc = trace_cmd_kernel_ready(&c))) ||
	    (rc = trace_batch_load(&c, &b)))
		return rc;
	for (size_t i = 0; i < b.n; i++)
		if (b.items[i].t.n == 0) { /* "matches" would claim a check never made */
			rc = cli_error(c.cmd, "%s has no map line and no "
				       "operation: nothing to compare",
				       b.items[i].name);
			trace_batch_free(&b);
			return rc;
		}
	if (c.kernel && (rc = record_in_vm(&c, &b, designs, n_sides, &k))) {
		trace_batch_free(&b);
		return rc;
	}
	struct utsname u;
	const char *release = c.kernel ? k.kernel.release
			      : uname(&u) == 0 ? u.release : "";
	set_models(&c, sides, designs, n_sides, release_model(release));
	warn_other_kernel(&c, sides, n_sides, &b, release);

	/* Each design in turn, under a heading where there are several; the
	 * worst status wins, and a design that could not be checked (2)
	 * stops the list there. */
	struct outfile out;
	out_stdout(&out);
	int worst = EXIT_OK;
	for (unsigned i = 0; i < n_sides && worst != EXIT_USAGE; i++) {
		if (n_sides > 1)
			fprintf(out.f, "%s# %s\n", i ? "\n" : "", sides[i].label);
		rc = validate_side(&c, &b, &sides[i], designs[i], &k, &out);
		worst = rc > worst ? rc : worst;
	}
	if (k.recs) {
		vm_traces_free(k.recs, k.n_flags * b.n);
		free(k.recs);
	}
	trace_batch_free(&b);
	return worst;
}
