/* SPDX-License-Identifier: MIT */
/*
 * maplab replay: a trace on a design or on the kernel's own map, its result
 * lines as it goes (docs/traces.md).
 */
#include "cli/cli.h"
#include "cli/trace/trace_cmd.h"
#include "harness/common/outfile.h"

#include <stdio.h>
#include <string.h>

static const char usage_replay[] =
	"usage: maplab replay [--map DESIGN|kernel] (--trace FILE | --random ...) [--echo]\n\n"
	"Runs a trace (format v1, docs/traces.md) and prints one result line\n"
	"per operation, as it goes.  Each map line uses the kernel-faithful\n"
	"design of its type, unless --map names another design of that type,\n"
	"or `kernel` for the running kernel's own map (needs root).  The replay\n"
	"runs each op on cpu 0, or the cpu of the `cpu N` line above it.\n"
	"Exit 0: replayed; 2: bad input, an error of the trace, or the replay\n"
	"could not run.\n";

static const struct cmd_option replay_options[] = {
	{ &opt_map_one, "a design, or kernel: the running kernel's own map" },
	{ &opt_trace, NULL },
	{ &opt_random, NULL },
	{ &opt_echo, NULL },
	{ &opt_verbose, TRACE_VERBOSE_HELP },
	TRACE_GEN_OPTIONS,
};

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
	if ((rc = trace_cmd_pick_side(&c, true, &side)) ||
	    (rc = trace_cmd_load(&c, &t)))
		return rc;
	/* A write that fails stops the replay at that line; the one line
	 * names stdout with the write's errno. */
	struct outfile out;
	out_stdout(&out);
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
