/* SPDX-License-Identifier: MIT */
/*
 * maplab reproduce: the lab's findings re-derived from scratch (reproduce.h).
 * Runs the plan's steps in order, each a maplab command of its own (this
 * binary, through /proc/self/exe), a line on stderr per step with the time
 * spent and left; gathers each step's records into DIR/results.jsonl,
 * tagged with the step and its finding; then the findings writer
 * (harness/results/findings.py) reads them and writes DIR/findings.md and
 * the plots, and prints each finding's answer.
 *
 * The folder's invariants (docs/findings.md, "The folder"):
 *   - DIR holds one run: a folder with another run's files in it is
 *     refused before anything is written (reproduce_folder.c says which names);
 *   - findings.md exists only when every step has run and findings.py has
 *     written it; until then DIR/INCOMPLETE says the run is unfinished
 *     (written first, rewritten with the reason when the run stops early,
 *     removed at the end), so a run that was killed, interrupted or out of
 *     disk cannot be taken for a finished one;
 *   - results.jsonl holds whole steps: a step's records and its step
 *     record are added after it ends, and flushed, and checked, then;
 *   - an interrupted step leaves nothing: its raw file and explain folder
 *     are removed.
 * SIGINT and SIGTERM are forwarded to the running child (a step, or
 * findings.py) and waited for; no child outlives reproduce
 * (reproduce_child.c).
 */
#include "cli/cli.h"
#include "cli/measure/measure.h"
#include "cli/options.h"
#include "cli/reproduce/reproduce.h"
#include "harness/common/clock.h"
#include "harness/common/outfile.h"
#include "harness/common/parse.h"
#include "harness/results/host.h"
#include "harness/results/record.h"
#include "kernel-compare/vm/vm.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	"  6  the kernels users run (5.10, 6.1, 6.12) on 2, 4 and 8 cpus: how\n"
	"     much of an LRU map each gives, the load on one cpu (not --quick)\n"
	"  7  the LPM trie at scale: lookups from 1K to 1M prefixes and the whole\n"
	"     Internet table, the kernel's LPM benchmark's writes, and what level\n"
	"     compression (lpm_trie/lctrie) buys\n"
	"  suite  the bpf_performance tests measured the suite's way\n\n"
	"The full run takes 25 to 30 minutes on 2 cores, --quick about 4.  The\n"
	"kernel's sides need root and BPF (finding 6's, QEMU too); without them\n"
	"the designs run alone and findings.md says what is missing.  DIR must\n"
	"be new or hold no other run; until the run has finished,\n"
	"DIR/INCOMPLETE says so (Ctrl-C stops it there, with the steps that\n"
	"finished kept).\n";
static const char after[] =
	"examples:\n"
	"  maplab reproduce --quick --out findings/\n"
	"  maplab reproduce --only 1 --out findings/    # one finding, full size\n"
	"  maplab reproduce --quick --dry-run --out x/  # the commands it would run\n";

static const struct opt_spec opt_quick = { OPT_QUICK, "quick", TAKES_NOTHING,
	0, 0, 0, 0, NULL,
	"two sizes, short runs, 2 repeats (about 4 minutes)" };
static const struct opt_spec opt_only = { OPT_ONLY, "only", TAKES_TEXT, 0, 0,
	0, 0, "N[,N...]", "only these findings: 1 to 7, suite" };
static const struct opt_spec opt_dry_run = { OPT_DRY_RUN, "dry-run",
	TAKES_NOTHING, 0, 0, 0, 0, NULL,
	"print the commands it would run, and stop (writes nothing)" };

static const struct opt_spec opt_out_dir = { OPT_OUT, "out", TAKES_TEXT, 0, 0,
	0, 0, "DIR", "where the findings go" };

static const struct cmd_option options[] = {
	{ &opt_out_dir, "write findings.md, results.jsonl and the plots into DIR\n"
		    "(made if need be; refused if it holds another run)" },
	{ &opt_quick, NULL },
	{ &opt_only, NULL },
	{ &opt_dry_run, NULL },
	{ &opt_quiet, "no line per step" },
};

struct repro_cli {
	const char *dir;
	bool quick, dry_run, quiet;
	bool only[FINDING_LAST + 1];
	char command[1024]; /* the command line, for DIR/INCOMPLETE */
	char dir_buf[4096]; /* dir without trailing slashes: "d/x", not "d//x" */
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
				       "(1 to 7, or suite)",
				       parse_printable(w, shown, sizeof(shown)));
		} else {
			c->only[f] = true;
		}
	}
	free(copy);
	if (!rc && !n)
		rc = cli_error("reproduce", "--only: name at least one finding "
			       "(1 to 7, or suite)");
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

static void keep_command(struct repro_cli *c, int argc, char **argv)
{
	size_t used = (size_t)snprintf(c->command, sizeof(c->command),
				       "maplab reproduce");
	for (int a = 1; a < argc && used < sizeof(c->command); a++) {
		char shown[512];
		used += (size_t)snprintf(c->command + used, sizeof(c->command) - used,
					 " %s", parse_printable(argv[a], shown,
								sizeof(shown)));
	}
}

static void tidy_dir(struct repro_cli *c)
{
	size_t n = strlen(c->dir);
	while (n > 1 && c->dir[n - 1] == '/')
		n--;
	if (n < sizeof(c->dir_buf)) {
		memcpy(c->dir_buf, c->dir, n);
		c->dir_buf[n] = '\0';
		c->dir = c->dir_buf;
	}
}

/* The examples/ folder: the working directory's, when it is a maplab
 * tree, else the source tree's this binary was built from. */
static const char *examples_dir(void)
{
	return access("examples/traces/hotset.txt", R_OK) ? MAPLAB_EXAMPLES
							  : "examples";
}

/* path as messages show it: control bytes escaped. */
static const char *shown_path(const char *path, char *buf, size_t len)
{
	return parse_printable(path, buf, len);
}

/* Whether --quick leaves out every finding --only asks for (finding 6
 * alone): refused before anything is looked at or made. */
static bool only_left_out(const struct repro_cli *c)
{
	bool any = false;
	for (int f = 1; f <= FINDING_LAST; f++) {
		if (c->only[f] && f != FINDING_KERNELS)
			return false;
		any |= c->only[f];
	}
	return c->quick && any;
}

/* Whether finding 6's kernel policies can boot their VMs here (QEMU);
 * where the finding runs and they cannot, a note says why, as
 * measure_kernel_ready does for the kernel side. */
static bool vm_ready(const struct repro_cli *c)
{
	bool any = false;
	for (int f = 1; f <= FINDING_LAST; f++)
		any |= c->only[f];
	if (c->quick || (any && !c->only[FINDING_KERNELS]))
		return false; /* finding 6 does not run */
	char why[256];
	if (vm_available(why, sizeof(why)) == 0)
		return true;
	fprintf(stderr, "maplab reproduce: no VM here: %s; finding 6's "
		"kernels answer through the designs alone\n", why);
	return false;
}

/* --- the run ----------------------------------------------------------------------- */

struct repro_run {
	const struct repro_cli *c;
	const struct repro_plan *p;
	struct outfile results;
	char started[32];
	double start_s;
	unsigned done;                  /* steps that ran to their end */
	unsigned failed;                /* of those, the ones that failed */
	int status[REPRO_MAX_STEPS];    /* each finished step's exit status */
	double seconds[REPRO_MAX_STEPS];
	char why[1024];                 /* a write or read that stopped the run */
};

/* A write or read that stops the run: its one line, kept for the marker.
 * text is "PATH: strerror" (made printable here).  EXIT_USAGE. */
static int run_error(struct repro_run *r, const char *text)
{
	shown_path(text, r->why, sizeof(r->why));
	return cli_error("reproduce", "%s", r->why);
}

static double now_s(void)
{
	return (double)clock_now_ns() / 1e9;
}

/*
 * DIR/INCOMPLETE, saying why the run is unfinished (state) and which
 * steps finished.  Written beside and renamed over the old marker, so a
 * marker is always there whole: a full disk keeps the one before.  0, or
 * EXIT_USAGE, after one line where say (the first marker, which must be
 * there before any step runs; a later one that fails leaves that one,
 * and the run's own error line stays the only one).
 */
static int write_marker(const struct repro_run *r, const char *state, bool say)
{
	char tmp[4096], path[4096];
	struct outfile o;
	int rc;
	snprintf(tmp, sizeof(tmp), "%s/INCOMPLETE.tmp", r->c->dir);
	snprintf(path, sizeof(path), "%s/INCOMPLETE", r->c->dir);
	if ((rc = out_open(&o, tmp, OUT_TRUNCATE)))
		return say ? opts_write_failed("reproduce", &o, rc) : EXIT_USAGE;
	fprintf(o.f, "This maplab reproduce run did not finish: findings.md is "
		"written only once every step has run.\n\n%s\n\nstarted: %s\n"
		"command: %s\nsteps finished: %u of %u%s\n", state, r->started,
		r->c->command, r->done, r->p->n_steps,
		r->done ? " (their records are in results.jsonl)" : "");
	for (unsigned i = 0; i < r->done; i++)
		fprintf(o.f, "  %s: exit %d, %.1f s\n", r->p->steps[i].id,
			r->status[i], r->seconds[i]);
	if ((rc = out_close(&o)))
		return say ? opts_write_failed("reproduce", &o, rc) : EXIT_USAGE;
	if (rename(tmp, path)) {
		char shown[4200];
		rc = say ? cli_error("reproduce", "%s: %s", shown_path(path, shown,
				     sizeof(shown)), strerror(errno)) : EXIT_USAGE;
		unlink(tmp);
		return rc;
	}
	return 0;
}

/* A step's records into results, each tagged: {"record":"K","step":..,
 * "finding":..,...}.  Its host records are dropped (results.jsonl starts
 * with the run's own), and so is a last line without its newline (not
 * whole).  The number of records; -errno where the raw file could not be
 * read (a missing one: the step wrote nothing, 0). */
static int gather(FILE *results, const char *dir, const struct repro_step *s,
		  char *path, size_t pathlen)
{
	char xdir[4096];
	repro_step_paths(dir, s, path, xdir, pathlen);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	ssize_t len;
	errno = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] != '\n' ||
		    strncmp(line, "{\"record\":\"", 11) ||
		    strstr(line, "{\"record\":\"host\""))
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
	int e = ferror(f) ? (errno ? errno : EIO) : 0;
	free(line);
	fclose(f);
	return e ? -e : n;
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
	record_whole(&r, "status", (uint64_t)status);
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
	record_text(&r, "left_out", p->left_out[0] ? p->left_out : NULL);
	record_whole(&r, "steps", p->n_steps);
	record_write(results, RECORD_JSONL, &r, 1, NULL, 0);
	record_free(&r);
}

/* DIR/results.jsonl, opened and started with the host and the plan, and
 * flushed: a folder that takes no data fails here, before any step.  0,
 * or EXIT_USAGE after one line (nothing left behind). */
static int open_results(struct repro_run *r)
{
	char path[4096];
	struct host_record host;
	struct record rec;
	int rc;
	snprintf(path, sizeof(path), "%s/results.jsonl", r->c->dir);
	if ((rc = out_open(&r->results, path, OUT_TRUNCATE)))
		return opts_write_failed("reproduce", &r->results, rc);
	host_record_read(&host);
	host_record_build(&host, &rec);
	record_write(r->results.f, RECORD_JSONL, &rec, 1, NULL, 0);
	record_free(&rec);
	write_plan_record(r->results.f, r->c, r->p);
	if ((rc = out_flush(&r->results))) {
		out_close(&r->results);
		return opts_write_failed("reproduce", &r->results, rc);
	}
	return 0;
}

static void print_plan(FILE *f, const struct repro_plan *p)
{
	double total = 0;
	if (p->cuts[0])
		fprintf(f, "# %s\n", p->cuts);
	for (unsigned i = 0; i < p->n_steps; i++) {
		char cmd[2048];
		repro_step_command(&p->steps[i], cmd, sizeof(cmd));
		/* The step's id too: its raw file's name, and what findings.py
		 * reads its records by. */
		fprintf(f, "# finding %s, %s (about %.0f s; step %s)\n%s\n",
			repro_finding_name(p->steps[i].finding), p->steps[i].what,
			p->steps[i].estimate_s, p->steps[i].id, cmd);
		total += p->steps[i].estimate_s;
	}
	fprintf(f, "# %u step%s, about %d:%02d here\n", p->n_steps,
		p->n_steps == 1 ? "" : "s", (int)total / 60, (int)total % 60);
}

/* Run one step: this binary with the step's words and its output
 * options.  Its wait status, or -1 (run_child). */
static int run_step(const struct repro_cli *c, const struct repro_step *s)
{
	char raw[4096], xdir[4096];
	char *argv[REPRO_MAX_ARGS + 8];
	unsigned n = 0;

	repro_step_paths(c->dir, s, raw, xdir, sizeof(raw));
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
	return repro_run_child("/proc/self/exe", argv, false, "cannot run itself",
			 false);
}

static void say_step(const struct repro_run *r, unsigned i)
{
	if (r->c->quiet)
		return;
	double left = 0, elapsed = now_s() - r->start_s;
	for (unsigned j = i; j < r->p->n_steps; j++)
		left += r->p->steps[j].estimate_s;
	fprintf(stderr, "reproduce: [%u/%u] %d:%02d, about %d:%02d left, "
		"finding %s: %s\n", i + 1, r->p->n_steps, (int)elapsed / 60,
		(int)elapsed % 60, (int)left / 60, (int)left % 60,
		repro_finding_name(r->p->steps[i].finding), r->p->steps[i].what);
}

/* A step that ran to its end: its records and its step record into
 * results.jsonl, flushed and checked.  0, or EXIT_USAGE after one line
 * (results.jsonl or the raw file failed: the run stops). */
static int keep_step(struct repro_run *r, unsigned i, int status, double seconds)
{
	const struct repro_step *s = &r->p->steps[i];
	char raw[4096];
	char text[4600];
	int n = gather(r->results.f, r->c->dir, s, raw, sizeof(raw)), rc;
	if (n < 0) {
		snprintf(text, sizeof(text), "%s: %s", raw, strerror(-n));
		return run_error(r, text);
	}
	write_step_record(r->results.f, s, (unsigned)status, seconds, (unsigned)n);
	if ((rc = out_flush(&r->results)))
		return run_error(r, out_error(&r->results, rc, text, sizeof(text)));
	r->status[i] = status;
	r->seconds[i] = seconds;
	r->done = i + 1;
	if (status) {
		char cmd[2048];
		repro_step_command(s, cmd, sizeof(cmd));
		fprintf(stderr, "maplab reproduce: step %s failed (exit %d): %s\n",
			s->id, status, cmd);
		r->failed++;
	}
	return 0;
}

/* The steps in order, until the last or a stop: 0 (all ran, or a stop
 * signal came: repro_stop_signal() says), or EXIT_USAGE after one line. */
static int run_plan(struct repro_run *r)
{
	for (unsigned i = 0; i < r->p->n_steps && !repro_stop_signal(); i++) {
		say_step(r, i);
		double t0 = now_s();
		int status = run_step(r->c, &r->p->steps[i]);
		if (status < 0 && repro_stop_signal())
			break; /* not started */
		int rc = repro_exit_status(status);
		if (repro_stop_signal() && rc) {
			/* it ended by the stop, so it did not finish */
			repro_remove_step_output(r->c->dir, &r->p->steps[i]);
			break;
		}
		if ((rc = keep_step(r, i, rc, now_s() - t0)))
			return rc;
	}
	if (!r->c->quiet && !repro_stop_signal())
		fprintf(stderr, "reproduce: %u steps in %.0f s\n", r->p->n_steps,
			now_s() - r->start_s);
	return 0;
}

/* After a stop signal: the marker says what finished, stderr says so in
 * two lines, and maplab ends by the signal.  script: findings.py's path
 * where it was running (every step had finished), else NULL. */
static int stopped(struct repro_run *r, const char *script)
{
	char state[4700], dir[512], where[600], kept[700];
	const char *sig = repro_signal_name(repro_stop_signal());
	shown_path(r->c->dir, dir, sizeof(dir));
	if (script) {
		repro_remove_findings_output(r->c->dir);
		snprintf(state, sizeof(state), "Interrupted by %s while findings.py "
			 "wrote findings.md: every step had finished, and "
			 "results.jsonl holds their records; findings.md and the "
			 "plots were removed.  python3 %s %s writes them from those "
			 "records.", sig, script, dir);
		snprintf(where, sizeof(where), "while findings.py wrote the findings "
			 "(removed)");
	} else if (r->done < r->p->n_steps) {
		snprintf(state, sizeof(state), "Interrupted by %s in step %u of %u "
			 "(%s): its output was removed, and the steps after it did "
			 "not run.", sig, r->done + 1, r->p->n_steps,
			 r->p->steps[r->done].id);
		snprintf(where, sizeof(where), "in step %u of %u (%s)", r->done + 1,
			 r->p->n_steps, r->p->steps[r->done].id);
	} else {
		snprintf(state, sizeof(state), "Interrupted by %s after the last "
			 "step, before findings.py ran.", sig);
		snprintf(where, sizeof(where), "after the last step");
	}
	if (r->done)
		snprintf(kept, sizeof(kept), "%u step%s finished, %s records in "
			 "%s/results.jsonl", r->done, r->done == 1 ? "" : "s",
			 r->done == 1 ? "its" : "their", dir);
	else
		snprintf(kept, sizeof(kept), "no step finished");
	write_marker(r, state, false);
	fprintf(stderr, "maplab reproduce: interrupted by %s %s: %s; no "
		"findings.md\nmaplab reproduce: %s/INCOMPLETE says what ran; run "
		"again into an empty folder for the findings\n", sig, where, kept,
		dir);
	return repro_die_of(repro_stop_signal());
}

/*
 * findings.py on DIR: findings.md, the plots, the answers on stdout.  0;
 * or EXIT_USAGE where it failed: its own one line stands where it said
 * why (exit 2, and 127 where python could not run), else one line here.
 * A stop signal while it ran: *interrupted.
 */
static int write_findings(const struct repro_run *r, char *script,
			  size_t len, bool *interrupted)
{
	const char *python = record_python();
	char dir[512], what[600], err[1024];
	shown_path(r->c->dir, dir, sizeof(dir));
	*interrupted = false;
	if (record_find_script("findings.py", script, len, err, sizeof(err)))
		return cli_error("reproduce", "no findings: %s; the records are in "
				 "%s/results.jsonl", err, dir);
	char *argv[] = { (char *)python, script, (char *)r->c->dir, NULL };
	snprintf(what, sizeof(what), "%s (to run findings.py on %s/results.jsonl)",
		 python, dir);
	int status = repro_run_child(python, argv, true, what, true);
	if (repro_stop_signal() && (status < 0 || repro_exit_status(status))) {
		*interrupted = true;
		return EXIT_USAGE;
	}
	if (status < 0)
		return cli_error("reproduce", "%s: %s", what, strerror(errno));
	int rc = repro_exit_status(status);
	if (rc == 0)
		return 0;
	if (rc == EXIT_USAGE || rc == 127)
		return EXIT_USAGE; /* its own line said why */
	return cli_error("reproduce", "findings.py failed (exit %d, above); the "
			 "records are in %s/results.jsonl", rc, dir);
}

static int finish_run(struct repro_run *r)
{
	bool interrupted;
	char script[4096] = "findings.py", state[4700], shown[4200];
	int rc = write_findings(r, script, sizeof(script), &interrupted);
	if (interrupted)
		return stopped(r, script);
	if (rc) {
		/* What it wrote before it failed is not the findings. */
		repro_remove_findings_output(r->c->dir);
		snprintf(state, sizeof(state), "Every step finished, and "
			 "results.jsonl holds their records, but findings.py "
			 "failed (its line on stderr said why): no findings.md, no "
			 "plots.  Once that is fixed, python3 %s %s writes them.",
			 script, shown_path(r->c->dir, shown, sizeof(shown)));
		write_marker(r, state, false);
		return rc;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/INCOMPLETE", r->c->dir);
	unlink(path);
	if (r->failed)
		return cli_error("reproduce", "%u step%s failed (above; findings.md "
				 "says what is missing)", r->failed,
				 r->failed == 1 ? "" : "s");
	return EXIT_OK;
}

/* The run, once its folder is there (made: by this run): the marker,
 * results.jsonl, the steps, findings.py. */
static int reproduce(const struct repro_cli *c, const struct repro_plan *p,
		     bool made)
{
	static struct repro_run r; /* the step tables: too big for a stack */
	int rc;
	memset(&r, 0, sizeof(r));
	r.c = c;
	r.p = p;
	r.start_s = now_s();
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(r.started, sizeof(r.started), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if ((rc = write_marker(&r, "Running, or stopped without a word (killed, "
			       "the machine down): findings.md is not there yet.",
			       true)) ||
	    (rc = open_results(&r))) {
		repro_unmake_dirs(c->dir, made);
		return rc;
	}
	rc = run_plan(&r);
	int closed = out_close(&r.results);
	if (rc || closed) {
		char state[1400], text[4600];
		if (!rc)
			rc = run_error(&r, out_error(&r.results, closed, text,
						     sizeof(text)));
		snprintf(state, sizeof(state), "Stopped: %s.  results.jsonl is %s; "
			 "each finished step's own output is in raw/.", r.why,
			 closed ? "removed (it could not be written whole)"
				: "whole up to the last finished step");
		write_marker(&r, state, false);
		return rc;
	}
	if (repro_stop_signal())
		return stopped(&r, NULL);
	return finish_run(&r);
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
	if (only_left_out(&c))
		return cli_error("reproduce", "--quick leaves out finding 6 (%s): "
				 "nothing to run (drop --quick)",
				 REPRO_KERNELS_WHY);
	keep_command(&c, argc, argv);
	tidy_dir(&c);

	/* A folder that cannot take the files, or holds another run, fails
	 * first, alone.  --dry-run writes nothing, so looks at no folder. */
	bool made = false;
	if (!c.dry_run) {
		repro_catch_stops();
		if ((rc = repro_make_dirs(c.dir, &made)))
			return rc;
	}
	static struct repro_plan plan;
	bool kernel = measure_kernel_ready("reproduce", false);
	bool vm = kernel && vm_ready(&c);
	if (repro_plan_build(&plan, c.quick, c.only, examples_dir(), kernel,
			     vm)) {
		if (!c.dry_run)
			repro_unmake_dirs(c.dir, made);
		return cli_error("reproduce", "the plan does not fit (a bug)");
	}
	if (c.dry_run) {
		struct outfile out;
		out_stdout(&out);
		print_plan(out.f, &plan);
		repro_plan_free(&plan);
		return (rc = out_close(&out)) ? opts_write_failed("reproduce", &out, rc) : EXIT_OK;
	}
	rc = reproduce(&c, &plan, made);
	repro_plan_free(&plan);
	return rc;
}
