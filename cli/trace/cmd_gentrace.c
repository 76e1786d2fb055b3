/* SPDX-License-Identifier: MIT */
/*
 * maplab gentrace: a random trace on stdout, for validate and tests.
 */
#include "cli/cli.h"
#include "cli/trace/trace_cmd.h"
#include "harness/common/outfile.h"

#include <stdio.h>

static const char usage_gentrace[] =
	"usage: maplab gentrace [options]\n\n"
	"Writes a random trace to stdout: one map line, --ops operations over a\n"
	"key space 1.5 times max_entries (so the map fills), a dump.  An LPM\n"
	"trie's is twice max_entries prefixes of a few related addresses, which\n"
	"nest and part, with trailing bits, prefix lengths beyond the data and\n"
	"walks in the kernel's order (docs/traces.md).\n";

static const struct cmd_option gentrace_options[] = { TRACE_GEN_OPTIONS };

int cmd_gentrace(int argc, char **argv)
{
	struct trace_cmd c = { .cmd = "gentrace" };
	int rc = trace_cmd_parse(&c, argc, argv, gentrace_options,
				 N_OPTIONS(gentrace_options), usage_gentrace);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	/* A write that fails stops the trace there (a full disk, a closed
	 * pipe): one line naming stdout with the write's errno, whatever
	 * --ops asked for. */
	struct outfile out;
	out_stdout(&out);
	rc = tracegen_write(out.f, &c.gen);
	if (rc == 0)
		rc = out_close(&out);
	if (rc == 0)
		return EXIT_OK;
	if (ferror(stdout))
		return opts_write_failed(c.cmd, &out, rc);
	return cli_error(c.cmd, "out of memory");
}
