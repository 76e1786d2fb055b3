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
	{ &opt_trace, NULL },
	{ &opt_random, NULL },
	TRACE_VM_OPTIONS,
	{ &opt_model, TRACE_MODEL_HELP },
	{ &opt_echo, NULL },
	{ &opt_verbose, TRACE_VERBOSE_HELP },
	TRACE_GEN_OPTIONS,
};

/* replay --map kernel --kernel K: the trace replayed in K's VM, printed as
 * it came back.  The exit status. */
static int replay_in_vm(struct trace_cmd *c, struct outfile *out)
{
	struct trace_batch b;
	struct vm_kernel kernel;
	struct vm_run run;
	struct vm_trace *recs;
	uint32_t no_flags = 0;
	char err[600];
	int rc = trace_batch_load(c, &b);
	if (rc)
		return rc;
	if ((rc = trace_batch_in_vm(c, &b, &no_flags, 1, &kernel, &run, &recs))) {
		trace_batch_free(&b);
		return rc;
	}
	enum replay_stop stop = replay_print_recorded(&b.items[0].t,
						      &recs[0].rec, out->f,
						      c->echo, err, sizeof(err));
	int werr = out_close(out);
	vm_traces_free(recs, 1);
	free(recs);
	trace_batch_free(&b);
	if (werr)
		return opts_write_failed(c->cmd, out, werr);
	return stop ? cli_error(c->cmd, "%s", err) : EXIT_OK;
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
	if (c.kernel) {
		if (!c.map || strcmp(c.map, "kernel") != 0)
			return cli_error(c.cmd, "--kernel boots a kernel for its "
					 "own maps: give --map kernel (a design "
					 "runs here, with no VM)");
		return replay_in_vm(&c, &out);
	}
	if ((rc = trace_cmd_pick_side(&c, true, &side)) ||
	    (rc = trace_cmd_load(&c, &t)))
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
