/* SPDX-License-Identifier: MIT */
/*
 * maplab replay: a trace on a design or on the kernel's own map, its result
 * lines as it goes (docs/traces.md).
 */
#include "cli/cli.h"
#include "cli/trace/trace_batch.h"
#include "cli/trace/trace_cmd.h"
#include "harness/common/outfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

static const char usage_replay[] =
	"usage: maplab replay [--map DESIGN|kernel [--kernel K [--vm-cpus N]]]\n"
	"                     (--trace FILE | --random ...) [--echo]\n\n"
	"Runs a trace (format v1, docs/traces.md) and prints one result line\n"
	"per operation, as it goes.  Each map line uses the kernel-faithful\n"
	"design of its type, unless --map names another design of that type,\n"
	"or `kernel` for the running kernel's own map (needs root); with\n"
	"--kernel K, the maps of kernel K in a virtual machine (the results\n"
	"come back when the VM is done).  The replay runs each op on cpu 0,\n"
	"or the cpu of the `cpu N` line above it.\n"
	"Exit 0: replayed; 2: bad input, an error of the trace, no VM, or the\n"
	"replay could not run.\n";

static const struct cmd_option replay_options[] = {
	{ &opt_map_one, "a design, or kernel: the running kernel's own map" },
	{ &opt_trace, "the trace to run (- reads stdin), or a folder: every\n"
		      ".trace in it, each under its name" },
	{ &opt_random, NULL },
	{ &opt_seeds, "with --random: a trace for each seed from A to B" },
	TRACE_VM_OPTIONS,
	{ &opt_model, TRACE_MODEL_HELP },
	{ &opt_echo, NULL },
	{ &opt_verbose, TRACE_VERBOSE_HELP },
	TRACE_GEN_OPTIONS,
};

/* One trace of a batch, its results as they came back (or were
 * replayed here), under a heading where the batch holds several. */
static enum replay_stop print_one(const struct trace_cmd *c,
				  const struct trace_batch *b, size_t i,
				  const struct replay_side *side,
				  const struct vm_trace *rec, FILE *out,
				  char *err, size_t errlen)
{
	const struct trace_item *it = &b->items[i];
	if (b->n > 1)
		fprintf(out, "%s# %s\n", i ? "\n" : "", it->name);
	if (rec)
		return replay_print_recorded(&it->t, &rec->rec, out, c->echo, err,
					     errlen);
	return replay_run(&it->t, it->name, side, out, c->echo, err, errlen);
}

/*
 * A batch (--trace DIR, --seeds, or any trace with --kernel K): each
 * trace's results in turn, from K's VM (one boot for all) or replayed
 * here on side.  The exit status: 2 at the first trace that stopped.
 */
static int replay_batch(struct trace_cmd *c, const struct replay_side *side,
			struct outfile *out)
{
	struct trace_batch b;
	struct vm_kernel kernel;
	struct vm_run run;
	struct vm_trace *recs = NULL;
	uint32_t no_flags = 0;
	char err[600];
	int rc = trace_batch_load(c, &b);
	if (rc)
		return rc;
	if (c->kernel &&
	    (rc = trace_batch_in_vm(c, &b, &no_flags, 1, &kernel, &run, &recs))) {
		trace_batch_free(&b);
		return rc;
	}
	enum replay_stop stop = REPLAY_DONE;
	for (size_t i = 0; i < b.n && !stop; i++)
		stop = print_one(c, &b, i, side, recs ? &recs[i] : NULL, out->f,
				 err, sizeof(err));
	int werr = out_close(out);
	if (recs) {
		vm_traces_free(recs, b.n);
		free(recs);
	}
	trace_batch_free(&b);
	if (werr)
		return opts_write_failed(c->cmd, out, werr);
	return stop ? cli_error(c->cmd, "%s", err) : EXIT_OK;
}

/* Whether the options name a batch rather than one trace streamed. */
static bool is_batch(const struct trace_cmd *c)
{
	struct stat st;
	return c->kernel || c->seeds_given ||
	       (c->file && strcmp(c->file, "-") != 0 && stat(c->file, &st) == 0 &&
		S_ISDIR(st.st_mode));
}

int cmd_replay(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "replay" };
	struct replay_side side;
	struct trace t;
	char err[512];

	int rc = trace_cmd_parse(&c, argc, argv, replay_options,
				 N_OPTIONS(replay_options), usage_replay);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	struct outfile out;
	out_stdout(&out);
	if (c.kernel && (!c.map || strcmp(c.map, "kernel") != 0))
		return cli_error(c.cmd, "--kernel boots a kernel for its own "
				 "maps: give --map kernel (a design runs here, "
				 "with no VM)");
	if (!c.kernel && (rc = trace_cmd_pick_side(&c, true, &side)))
		return rc;
	if (is_batch(&c))
		return replay_batch(&c, &side, &out);
	if ((rc = trace_cmd_load(&c, &t)))
		return rc;
	/* A write that fails stops the replay at that line; the one line
	 * names stdout with the write's errno. */
	char name[CLI_TRACE_NAME_LEN];
	enum replay_stop stop = replay_run(&t, cli_trace_name(c.file, name,
							      sizeof(name)),
					   &side, out.f, c.echo, err,
					   sizeof(err));
	int werr = out_close(&out);
	trace_free(&t);
	if (werr)
		return opts_write_failed(c.cmd, &out, werr);
	if (stop)
		return cli_error(c.cmd, "%s", err);
	return EXIT_OK;
}
