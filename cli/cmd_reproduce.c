/* SPDX-License-Identifier: MIT */
/*
 * maplab reproduce: the lab's findings re-derived from scratch (reproduce.h).
 * Runs the plan's steps in order, each a maplab command of its own (this
 * binary, through /proc/self/exe), a line on stderr per step with the time
 * spent and left; gathers each step's records into DIR/results.jsonl,
 * tagged with the step and its finding; then the findings writer
 * (harness/results/findings.py) reads them and writes DIR/findings.md and
 * the plots, and prints each finding's answer.
 */
#include "cli/cli.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "cli/reproduce.h"
#include "harness/common/clock.h"
#include "harness/common/parse.h"
#include "harness/results/host.h"
#include "harness/results/record.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
	"usage: maplab reproduce --out DIR [--quick] [--only N[,N...]]\n\n"
	"Re-derives the lab's findings from scratch, on this machine, and writes\n"
	"DIR/findings.md: each finding's question, its answer in one sentence\n"
	"with this run's numbers, a table, plots, the commands that re-run it\n"
	"alone, and how far to trust it (spread, host, flags).  Beside them, the\n"
	"bpf_performance suite's published Linux and Windows figures with this\n"
	"machine's for the same tests.  Also DIR/results.jsonl (every record,\n"
	"tagged with its step), the plots (PNG and SVG), explain's reports.\n\n"
	"  1  LPM-trie updates against hash updates, kernel and designs, 1K-1M\n"
	"  2  the price of a global consensus on key age: every LRU's speed\n"
	"     against threads, beside its miss ratio\n"
	"  3  preallocated against BPF_F_NO_PREALLOC hash maps: cost and memory\n"
	"  4  common against per-CPU LRU: capacity when the load is on one cpu\n"
	"  5  the kernel-versus-userspace gap for one algorithm, split by explain\n"
	"  suite  the bpf_performance tests measured the suite's way\n\n"
	"The full run takes about 25 minutes on 2 cores, --quick about 4.  The\n"
	"kernel's sides need root and BPF; without them the designs run alone\n"
	"and findings.md says what is missing.\n";
static const char after[] =
	"examples:\n"
	"  maplab reproduce --quick --out findings/\n"
	"  maplab reproduce --only 1 --out findings/    # one finding, full size\n"
	"  maplab reproduce --quick --dry-run --out x/  # the commands it would run\n";

static const struct opt_spec opt_quick = { OPT_QUICK, "quick", TAKES_NOTHING,
	0, 0, 0, 0, NULL,
	"two sizes, short runs, 2 repeats (about 4 minutes)" };
static const struct opt_spec opt_only = { OPT_ONLY, "only", TAKES_TEXT, 0, 0,
	0, 0, "N[,N...]", "only these findings: 1 to 5, suite" };
static const struct opt_spec opt_dry_run = { OPT_DRY_RUN, "dry-run",
	TAKES_NOTHING, 0, 0, 0, 0, NULL,
	"print the commands it would run, and stop" };

static const struct opt_spec opt_out_dir = { OPT_OUT, "out", TAKES_TEXT, 0, 0,
	0, 0, "DIR", "where the findings go" };

static const struct cmd_option options[] = {
	{ &opt_out_dir, "write findings.md, results.jsonl and the plots into DIR\n"
		    "(made if need be)" },
	{ &opt_quick, NULL },
	{ &opt_only, NULL },
	{ &opt_dry_run, NULL },
	{ &opt_quiet, "no line per step" },
};

struct repro_cli {
	const char *dir;
	bool quick, dry_run, quiet;
	bool only[FINDING_LAST + 1];
};

static int parse_only(struct repro_cli *c, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	if (!copy)
		return cli_error("reproduce", "out of memory");
	int rc = 0, n = 0;
	for (char *w = strtok_r(copy, ",", &save); w && !rc;
	     w = strtok_r(NULL, ",", &save), n++) {
		enum repro_finding f;
		if (repro_parse_finding(w, &f)) {
			char shown[64];
			rc = cli_error("reproduce", "--only: no finding '%s' "
				       "(1, 2, 3, 4, 5 or suite)",
				       parse_printable(w, shown, sizeof(shown)));
		} else {
			c->only[f] = true;
		}
	}
	free(copy);
	if (!rc && !n)
		rc = cli_error("reproduce", "--only: name at least one finding "
			       "(1, 2, 3, 4, 5 or suite)");
	return rc;
}

static int apply(void *ctx, enum opt_id id, const struct opt_value *v)
{
	struct repro_cli *c = ctx;
	switch (id) {
	case OPT_OUT: c->dir = v->text; return 0;
	case OPT_QUICK: c->quick = true; return 0;
	case OPT_DRY_RUN: c->dry_run = true; return 0;
	case OPT_QUIET: c->quiet = true; return 0;
	case OPT_ONLY: return parse_only(c, v->text);
	default: return 0;
	}
}

/* The examples/ folder: the working directory's, when it is a maplab
 * tree, else the source tree's this binary was built from. */
static const char *examples_dir(void)
{
	return access("examples/traces/hotset.txt", R_OK) ? MAPLAB_EXAMPLES
							  : "examples";
}

/* DIR and DIR/raw, made if need be; a DIR that cannot take files fails
 * here, before any run. */
static int make_dirs(const char *dir)
{
	char path[4096], shown[512];
	parse_printable(dir, shown, sizeof(shown));
	if (mkdir(dir, 0777) && errno != EEXIST)
		return cli_error("reproduce", "--out %s: %s", shown, strerror(errno));
	snprintf(path, sizeof(path), "%s/raw", dir);
	if (mkdir(path, 0777) && errno != EEXIST)
		return cli_error("reproduce", "--out %s: %s", shown, strerror(errno));
	if (access(path, W_OK))
		return cli_error("reproduce", "--out %s: %s", shown, strerror(errno));
	return 0;
}

static void print_plan(FILE *f, const struct repro_plan *p)
{
	double total = 0;
	for (unsigned i = 0; i < p->n_steps; i++) {
		char cmd[2048];
		repro_step_command(&p->steps[i], cmd, sizeof(cmd));
		fprintf(f, "# finding %s, %s (about %.0f s)\n%s\n",
			repro_finding_name(p->steps[i].finding), p->steps[i].what,
			p->steps[i].estimate_s, cmd);
		total += p->steps[i].estimate_s;
	}
	fprintf(f, "# %u step%s, about %d:%02d here\n", p->n_steps,
		p->n_steps == 1 ? "" : "s", (int)total / 60, (int)total % 60);
}

/* Run one step: this binary with the step's words and its output
 * options.  The exit status, or -1 when it could not start. */
static int run_step(const struct repro_cli *c, const struct repro_step *s)
{
	char raw[4096], xdir[4096];
	char *argv[REPRO_MAX_ARGS + 8];
	unsigned n = 0;

	snprintf(raw, sizeof(raw), "%s/raw/%s.jsonl", c->dir, s->id);
	snprintf(xdir, sizeof(xdir), "%s/explain-%s", c->dir, s->id);
	unlink(raw); /* explain's --save appends */
	argv[n++] = "maplab";
	for (unsigned a = 0; a < s->argc; a++)
		argv[n++] = s->argv[a];
	if (s->explain) {
		argv[n++] = "--save";
		argv[n++] = raw;
		argv[n++] = "--out";
		argv[n++] = xdir;
	} else {
		argv[n++] = "--format";
		argv[n++] = "jsonl";
		argv[n++] = "--out";
		argv[n++] = raw;
	}
	argv[n] = NULL;

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv("/proc/self/exe", argv);
		fprintf(stderr, "maplab reproduce: cannot run itself: %s\n",
			strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A step's records into results, each tagged: {"record":"K","step":..,
 * "finding":..,...}.  Its host records are dropped: results.jsonl starts
 * with the run's own. */
static unsigned gather(FILE *results, const char *dir, const struct repro_step *s)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/raw/%s.jsonl", dir, s->id);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (strncmp(line, "{\"record\":\"", 11) || strstr(line, "{\"record\":\"host\""))
			continue;
		char *comma = strchr(line + 11, '"');
		if (!comma || comma[1] != ',')
			continue;
		fwrite(line, 1, (size_t)(comma + 2 - line), results);
		fprintf(results, "\"step\":\"%s\",\"finding\":\"%s\",", s->id,
			repro_finding_name(s->finding));
		fputs(comma + 2, results);
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

static void write_step_record(FILE *results, const struct repro_step *s,
			      int status, double seconds, unsigned records)
{
	char cmd[2048];
	struct record r;
	repro_step_command(s, cmd, sizeof(cmd));
	record_init(&r, "step");
	record_text(&r, "step", s->id);
	record_text(&r, "finding", repro_finding_name(s->finding));
	record_text(&r, "what", s->what);
	record_text(&r, "command", cmd);
	record_whole(&r, "status", (uint64_t)(status < 0 ? 255 : status));
	record_figure(&r, "seconds", "%.1f", seconds);
	record_whole(&r, "records", records);
	record_write(results, RECORD_JSONL, &r, 1, NULL, 0);
	record_free(&r);
}

static void write_plan_record(FILE *results, const struct repro_cli *c,
			      const struct repro_plan *p)
{
	struct record r;
	record_init(&r, "reproduce");
	record_bool(&r, "quick", c->quick);
	record_text(&r, "cuts", p->cuts[0] ? p->cuts : NULL);
	record_whole(&r, "steps", p->n_steps);
	record_write(results, RECORD_JSONL, &r, 1, NULL, 0);
	record_free(&r);
}

static double now_s(void)
{
	return (double)clock_now_ns() / 1e9;
}

static void say_step(const struct repro_cli *c, const struct repro_plan *p,
		     unsigned i, double elapsed)
{
	if (c->quiet)
		return;
	double left = 0;
	for (unsigned j = i; j < p->n_steps; j++)
		left += p->steps[j].estimate_s;
	fprintf(stderr, "reproduce: [%u/%u] %d:%02d, about %d:%02d left, "
		"finding %s: %s\n", i + 1, p->n_steps, (int)elapsed / 60,
		(int)elapsed % 60, (int)left / 60, (int)left % 60,
		repro_finding_name(p->steps[i].finding), p->steps[i].what);
}

static int run_plan(const struct repro_cli *c, const struct repro_plan *p,
		    FILE *results, unsigned *failed)
{
	double start = now_s();
	*failed = 0;
	for (unsigned i = 0; i < p->n_steps; i++) {
		const struct repro_step *s = &p->steps[i];
		say_step(c, p, i, now_s() - start);
		double t0 = now_s();
		int status = run_step(c, s);
		unsigned n = gather(results, c->dir, s);
		write_step_record(results, s, status, now_s() - t0, n);
		fflush(results);
		if (status) {
			char cmd[2048];
			repro_step_command(s, cmd, sizeof(cmd));
			fprintf(stderr, "maplab reproduce: step %s failed (exit %d): %s\n",
				s->id, status, cmd);
			(*failed)++;
		}
	}
	if (!c->quiet)
		fprintf(stderr, "reproduce: %u steps in %.0f s\n", p->n_steps,
			now_s() - start);
	return 0;
}

static FILE *open_results(const char *dir, const struct repro_cli *c,
			  const struct repro_plan *p)
{
	char path[4096], shown[512];
	snprintf(path, sizeof(path), "%s/results.jsonl", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		cli_error("reproduce", "%s: %s", parse_printable(path, shown,
			  sizeof(shown)), strerror(errno));
		return NULL;
	}
	struct host_record host;
	struct record r;
	host_record_read(&host);
	host_record_build(&host, &r);
	record_write(f, RECORD_JSONL, &r, 1, NULL, 0);
	record_free(&r);
	write_plan_record(f, c, p);
	return f;
}

int cmd_reproduce(int argc, char **argv)
{
	struct repro_cli c = { 0 };
	int rc = opts_parse("reproduce", argc, argv, options, N_OPTIONS(options),
			    apply, &c, usage, after);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if (!c.dir)
		return cli_error("reproduce", "--out DIR is required: where "
				 "findings.md, results.jsonl and the plots go");

	/* A folder that cannot take the files fails first, alone. */
	if (!c.dry_run && (rc = make_dirs(c.dir)))
		return rc;
	struct repro_plan plan;
	bool kernel = measure_kernel_ready("reproduce", false);
	if (repro_plan_build(&plan, c.quick, c.only, examples_dir(), kernel))
		return cli_error("reproduce", "the plan does not fit (a bug)");
	if (c.dry_run) {
		print_plan(stdout, &plan);
		repro_plan_free(&plan);
		return EXIT_OK;
	}
	FILE *results = NULL;
	unsigned failed = 0;
	if (!(results = open_results(c.dir, &c, &plan))) {
		repro_plan_free(&plan);
		return EXIT_USAGE;
	}
	run_plan(&c, &plan, results, &failed);
	repro_plan_free(&plan);
	if (fclose(results))
		return cli_error("reproduce", "results.jsonl: %s", strerror(errno));

	char note[1024];
	if (record_findings(c.dir, note, sizeof(note)))
		return cli_error("reproduce", "%s", note);
	if (failed)
		return cli_error("reproduce", "%u step%s failed (above; findings.md "
				 "says what is missing)", failed,
				 failed == 1 ? "" : "s");
	return EXIT_OK;
}
