/* SPDX-License-Identifier: MIT */
/*
 * maplab: the command line.  `maplab <command> [options]`; each command
 * lives in its own cmd_*.c and answers --help.
 */
#include "cli/cli.h"
#include "cli/options.h"
#include "kernel-compare/vm/vm.h"
#include "harness/common/outfile.h"
#include "harness/common/parse.h"
#include "kernel-compare/ksim.h"
#include "maps/base/map.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct cli_command commands[] = {
	{ "list", "every map design, with a line on each", cmd_list },
	{ "bench", "designs under contention: throughput and latency", cmd_bench },
	{ "stress", "concurrent random ops, then a check of the contents",
	  cmd_stress },
	{ "kbench", "bench's workloads on the kernel's maps (in BPF, and via bpf(2))",
	  cmd_kbench },
	{ "compare", "bench and kbench on the same work, side by side",
	  cmd_compare },
	{ "replay", "run a trace on a design or on the kernel's map", cmd_replay },
	{ "validate", "replay on a design and on the kernel; show differences",
	  cmd_validate },
	{ "gentrace", "write a random trace (for validate and tests)",
	  cmd_gentrace },
	{ "dump", "a design's inner state (its lists, ref bits) after a trace",
	  cmd_dump },
	{ "sim", "cache traces through the designs: miss ratios, speed", cmd_sim },
	{ "explain", "where one op's time goes: the kernel's map and designs, "
	  "step by step", cmd_explain },
	{ "reproduce", "the lab's findings re-derived: findings.md, tables, plots",
	  cmd_reproduce },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fputs("usage: maplab <command> [options]\n\n"
	      "maplab is a lab for the internals of concurrent maps: userspace\n"
	      "reimplementations of the kernel's BPF maps, checked against the\n"
	      "kernel's own.\n\ncommands:\n", f);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n`maplab <command> --help` tells more.  Exit status: 0 ok, "
	      "1 a check failed, 2 bad usage or input.\n", f);
}

/*
 * Output that could not be written is a failure, not a success with less
 * to read: a full disk or a closed pipe must not exit 0.  Every command's
 * stdout ends here (a command that writes much checks it as it goes too):
 * one line naming it with the write's own errno ("No space left on
 * device"), exit 2.  A command that returned EXIT_USAGE has said why in
 * its one line (its own failed write, or what stopped it): no second
 * line.  cmd NULL: maplab's own usage.
 */
static int finish_output(const char *cmd, int rc)
{
	struct outfile out;
	out_stdout(&out);
	int err = out_close(&out);
	if (!err)
		return rc;
	if (rc != EXIT_USAGE && cmd)
		opts_write_failed(cmd, &out, err);
	else if (rc != EXIT_USAGE)
		fprintf(stderr, "maplab: standard output: %s\n",
			map_errno_text(-err));
	return EXIT_USAGE;
}

/* name=value, or value after the variable's own and sep. */
static void add_to_env(const char *name, const char *value, const char *sep)
{
	const char *had = getenv(name);
	char both[1024];
	if (had && *had) {
		snprintf(both, sizeof(both), "%s%s%s", had, sep, value);
		value = both;
	}
	setenv(name, value, 1);
}

/*
 * --hugepages and the allocator.  jemalloc reads its options (MALLOC_CONF
 * thp:always: its extents advised MADV_HUGEPAGE) and glibc its tunables
 * (GLIBC_TUNABLES glibc.malloc.hugetlb=1: the same for its heap) once,
 * before main.  So where the command line asks for huge pages and this is
 * not yet the start that has them, maplab sets both and starts itself
 * again, once ($MAPLAB_HUGEPAGES marks that start).  Where that exec
 * fails, the run goes on: the designs' areas and DPDK's heap are advised
 * in this process anyway (maps/base/area.h).
 */
static void allocator_hugepages(char **argv)
{
	bool asked = false;
	for (char **a = argv + 1; *a && !asked; a++)
		asked = strcmp(*a, "--hugepages") == 0;
	if (!asked || getenv("MAPLAB_HUGEPAGES"))
		return;
	add_to_env("MALLOC_CONF", "thp:always,metadata_thp:always", ",");
	add_to_env("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", ":");
	setenv("MAPLAB_HUGEPAGES", "1", 1);
	execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
	/* maplab as a virtual machine's init, booted by `--kernel K`
	 * (kernel-compare/vm/vm.h): it replays the job and powers off.
	 * Anywhere else this returns at once. */
	vm_agent_main();
	allocator_hugepages(argv);
	/* sim's kernel policy runs on kernel-compare's engine (absent.c's,
	 * which says why not, in a build without the kernel side) */
	sim_set_kernel_engine(&ksim_engine);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return finish_output(NULL, EXIT_OK);
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return finish_output(commands[i].name,
					     commands[i].run(argc - 1, argv + 1));
	char shown[80];
	fprintf(stderr, "maplab: unknown command '%s'\n\n",
		parse_printable(argv[1], shown, sizeof(shown)));
	usage(stderr);
	return EXIT_USAGE;
}
