/* SPDX-License-Identifier: MIT */
/*
 * reproduce.h: `maplab reproduce`, the lab's findings re-derived by one
 * command.
 *
 *   reproduce_plan.c  what runs: each finding's experiments as maplab
 *                     command lines (compare, sim, explain), full or quick
 *   cmd_reproduce.c   the options; runs the plan step by step, each step a
 *                     maplab command of its own, and gathers their records
 *                     into DIR/results.jsonl; then findings.py writes
 *                     findings.md and the plots from those records
 *   reproduce_child.c the steps as child processes, under SIGINT and
 *                     SIGTERM (below, "Stopping")
 *   reproduce_folder.c the run's folder (below, "The folder")
 *
 * Why each step is a whole maplab command rather than a call into
 * measure.h: the command a step runs is the command findings.md prints
 * for re-running that experiment alone, so the two cannot disagree, and a
 * step that fails (no BPF here, a design refusing a workload) is one
 * failed command with its own message, not a half-finished run.  The
 * interleaving bench does (the sides of a point run in turn within each
 * repeat, docs/bench.md) happens inside each step: a step holds every
 * side a finding's ratio is taken between.
 *
 * A step's records are tagged as they are gathered: each line of its
 * output gets "step" (the step's id) and "finding" (its number) after
 * {"record":...}, and a {"record":"step"} line says what ran: the id, the
 * finding, the command, its exit status and its seconds.
 */
#ifndef MAPLAB_REPRODUCE_H
#define MAPLAB_REPRODUCE_H

#include <stdbool.h>
#include <stddef.h>

/* The findings, by number (findings.md's sections), and the section that
 * sets this machine's figures beside the published ones. */
enum repro_finding {
	FINDING_TRIE_VS_HASH = 1,
	FINDING_LRU_CONSENSUS,
	FINDING_PREALLOC,
	FINDING_PERCPU_LRU,
	FINDING_KERNEL_GAP,
	FINDING_KERNELS,   /* the kernels users run: 5.10, 6.1, 6.12 */
	FINDING_LPM_SCALE, /* the LPM trie at scale, level compression */
	FINDING_PUBLISHED, /* "suite" on the command line */
	FINDING_LAST = FINDING_PUBLISHED,
};

#define REPRO_MAX_ARGS 48
#define REPRO_MAX_STEPS 96

/* One maplab command of the plan. */
struct repro_step {
	char id[48];           /* unique, a file name: "f1-update-64K" */
	enum repro_finding finding;
	char what[120];        /* progress line: what it measures (under 64
				  characters, so the line fits 120 columns) */
	unsigned argc;
	char *argv[REPRO_MAX_ARGS]; /* argv[0] is the command (compare) */
	/* Where its records go, added by the runner: raw/<id>.jsonl through
	 * --format jsonl --out; an explain step's through --save, its report
	 * and flame graphs into explain-<id>/ through --out. */
	bool explain;
	double estimate_s;     /* for the progress line's time left */
};

struct repro_plan {
	bool quick;
	struct repro_step steps[REPRO_MAX_STEPS];
	unsigned n_steps;
	/* What --quick cut, in words, for findings.md (empty when full). */
	char cuts[768];
	/* A finding asked for that --quick leaves out, in words ("finding 6
	 * (...)"; empty when none): a plan of no steps says so. */
	char left_out[160];
};

/* Why --quick leaves finding 6 out. */
#define REPRO_KERNELS_WHY "six kernels booted in VMs: minutes under TCG"

/* The plan for these findings (only[f] true: run finding f; every
 * finding when none is set; finding 5 reads finding 1's steps), the
 * traces of `examples` (the examples/ folder) in it; `kernel`: whether
 * the kernel side can run here; `vm`: whether a VM can boot here too
 * (QEMU: finding 6's kernel policies); reproduce_plan.c says what runs
 * without them.  0, or -1 when the plan does not fit (a programming
 * error: REPRO_MAX_* too small). */
int repro_plan_build(struct repro_plan *p, bool quick,
		     const bool only[FINDING_LAST + 1], const char *examples,
		     bool kernel, bool vm);
void repro_plan_free(struct repro_plan *p);

/* The step's command as one shell line ("maplab compare --map ..."),
 * without the output options reproduce adds. */
void repro_step_command(const struct repro_step *s, char *buf, size_t len);

/* "1".."7" or "suite" back to the finding: 0 or -1. */
int repro_parse_finding(const char *text, enum repro_finding *out);
const char *repro_finding_name(enum repro_finding f);

/* --- Stopping (reproduce_child.c) -------------------------------------------
 * SIGINT and SIGTERM are caught (unless maplab started with them ignored,
 * as under nohup: they stay ignored), forwarded to the running child and
 * waited for.  The caller then says what finished and dies of the signal.
 */

/* Catch the stop signals; once, before the first child. */
void repro_catch_stops(void);

/* The first stop signal caught, or 0. */
int repro_stop_signal(void);

/* Runs file with argv (search: through PATH) and waits for it.  Its wait
 * status; -1 where it could not be started (errno set) or a stop signal
 * came first (nothing started).  what names it in an exec failure's
 * message.  hold_int: the child starts with SIGINT blocked and unblocks
 * it itself when it can die of it (findings.py). */
int repro_run_child(const char *file, char *const argv[], bool search,
		    const char *what, bool hold_int);

/* A wait status as an exit status: the child's, or 128 + its signal
 * (255: none). */
int repro_exit_status(int status);

/* "SIGINT", "SIGTERM". */
const char *repro_signal_name(int sig);

/* Ends this process by sig, as the signal would have with no handler
 * (status 130 for SIGINT).  Returns only if the signal does not end it. */
int repro_die_of(int sig);

/* --- The folder (reproduce_folder.c) ----------------------------------------
 * DIR holds one run.  A folder with another run's files is refused; what
 * an interrupted step or findings.py left is removed, and nothing else.
 */

struct repro_step;

/* DIR and DIR/raw, made if need be.  0, or EXIT_USAGE after one line: a
 * DIR that cannot take files, or holds another run.  *made: DIR was made
 * here. */
int repro_make_dirs(const char *dir, bool *made);

/* The folder as repro_make_dirs found it (a run stopped before its first
 * step): only what it made, and only where empty. */
void repro_unmake_dirs(const char *dir, bool made);

/* A step's raw file (DIR/raw/ID.jsonl) and explain folder
 * (DIR/explain-ID), each into a buffer of len bytes. */
void repro_step_paths(const char *dir, const struct repro_step *s, char *raw,
		      char *xdir, size_t len);

/* What an interrupted step left: its raw file, its explain folder. */
void repro_remove_step_output(const char *dir, const struct repro_step *s);

/* What an interrupted or failed findings.py left: findings.md, the plots. */
void repro_remove_findings_output(const char *dir);

#endif /* MAPLAB_REPRODUCE_H */
