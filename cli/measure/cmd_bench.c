/* SPDX-License-Identifier: MIT */
/*
 * maplab bench | kbench: every map of --map, as one side each (bench: the
 * design in userspace) or three (kbench: the kernel's map inside BPF,
 * through bpf(2), and in batches where the workload allows), measured by
 * the one driver (measure.h) and written as one report.  compare lives in
 * cmd_compare.c.
 */
#include "cli/cli.h"
#include "cli/measure/measure.h"
#include "kernel-compare/kbench.h"

#include <stdlib.h>

static const char usage_bench[] =
	"usage: maplab bench [options]\n\n"
	"Runs a workload on each design at each thread count and reports\n"
	"throughput (Mops/s, all threads), time per op per thread, latency\n"
	"percentiles of sampled ops, and how many ops of each kind succeeded.\n"
	"Worker i holds cpu slot i and is pinned to the i-th CPU this process\n"
	"may use; keys come from streams built before the clock starts.  With\n"
	"--repeat N, each figure is the median of N interleaved runs, with its\n"
	"min and max; figures this machine cannot have given, and those whose\n"
	"writes mostly failed, are flagged\n"
	"(docs/bench.md).\n";
static const char after_bench[] =
	"example:\n  maplab bench --map hash/linux,hash/rculfhash --threads 1,2 "
	"--mix lookup=90,update=10 --repeat 5\n";

static const char usage_kbench[] =
	"usage: maplab kbench [options]\n\n"
	"Runs bench's workloads on the kernel's own map (needs root or CAP_BPF):\n"
	"  kernel   inside BPF programs run by BPF_PROG_TEST_RUN, one worker per\n"
	"           CPU, each replaying the same key stream as bench's worker of\n"
	"           the same number; a baseline program (all but the map call)\n"
	"           is subtracted (docs/kernel-compare.md)\n"
	"  syscall  the same ops through bpf(2), one call per op; and batched\n"
	"           (lookup=100: BPF_MAP_LOOKUP_BATCH walks; update=100:\n"
	"           BPF_MAP_UPDATE_BATCH)\n"
	"--map takes a kernel map type (hash, lru_hash, lpm_trie) or a design\n"
	"name, meaning the kernel map of its type in the design's mode (a design\n"
	"with mode flags, as lru/linux_percpu's BPF_F_NO_COMMON_LRU, adds them);\n"
	"each kernel map is run once.  Threads: at most one per CPU.\n"
	"--lpm-op insert|delete|free (an lpm_trie map): the kernel's LPM\n"
	"benchmark's whole-map phases, in BPF alone: a pass over the N prefixes\n"
	"in one program run (baseline subtracted), the map emptied or refilled\n"
	"by BPF_MAP_DELETE_BATCH or BPF_MAP_UPDATE_BATCH between passes; a\n"
	"free timed by fentry and fexit programs on bpf_map_free_deferred.\n";

/* bench's sides: each design of --map, in userspace. */
static int add_user_sides(const struct bench_cli *cli, struct measurement *m)
{
	int rc = 0;
	for (unsigned i = 0; i < cli->n_maps && !rc; i++) {
		struct side s = { .kind = &side_user, .design = cli->maps[i],
				  .map_type = cli->map_types[i],
				  .mode_flags = cli->maps[i]->mode_flags,
				  .reference = -1 };
		snprintf(s.label, sizeof(s.label), "%s", cli->maps[i]->name);
		rc = measure_add_side(m, cli->cmd, &s);
	}
	return rc;
}

/* kbench's sides: each kernel map --map stands for (a type in a mode), in
 * BPF, through bpf(2) and (for lookup=100 and update=100, the batches the
 * kernel offers) in batches. */
static int add_kernel_sides(const struct bench_cli *cli, struct measurement *m)
{
	bool batch = cli->w.mix[OP_LOOKUP] == 100 || cli->w.mix[OP_UPDATE] == 100;
	const struct side_kind *kinds[] = { &side_kernel, &side_syscall,
					    &side_syscall_batch };
	/* the LPM benchmark's whole-map phases run in BPF only, as the
	 * kernel's benchmark runs them */
	unsigned n_kinds = cli->no_syscall || bench_lpm_op_is_phase(cli->lpm_op)
			   ? 1 : batch ? 3 : 2;
	struct kbench_mode modes[BENCH_MAX_MAPS];
	unsigned n_modes = kbench_modes(cli->maps, cli->map_types, cli->n_maps,
					modes, NULL);
	int rc = 0;

	for (unsigned i = 0; i < n_modes && !rc; i++)
		for (unsigned k = 0; k < n_kinds && !rc; k++) {
			struct side s = { .kind = kinds[k], .map_type = modes[i].type,
					  .mode_flags = modes[i].flags,
					  .reference = -1 };
			char suffix[64];
			measure_mode_suffix(modes[i].flags, suffix, sizeof(suffix));
			snprintf(s.label, sizeof(s.label), "%s %s%s",
				 map_type_name(modes[i].type), kinds[k]->name,
				 suffix);
			rc = measure_add_side(m, cli->cmd, &s);
		}
	return rc;
}

/* Measure the sides and write them: 0, or EXIT_USAGE (message printed). */
static int bench_sides(struct bench_cli *cli, bool kernel)
{
	struct measurement m = { 0 };
	struct host_record host;
	struct outputs out;
	int rc = kernel ? add_kernel_sides(cli, &m) : add_user_sides(cli, &m);

	if (rc || (rc = measure_add_plain_sides(cli, &m)) ||
	    (rc = measure_add_physical_sides(cli, &m)) ||
	    (rc = outputs_open(cli, &out))) {
		measure_free(&m);
		return rc;
	}
	host_record_read(&host);
	rc = measure_run(cli, &m);
	if (!rc)
		outputs_write(cli, &out, &host, &m, NULL);
	measure_free(&m);
	return outputs_close(cli, &out, rc);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_cli cli = { .cmd = "bench" };
	int rc = bench_cli_parse(&cli, argc, argv, bench_options,
				 bench_option_count, usage_bench, after_bench);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	return bench_sides(&cli, false);
}

int cmd_kbench(int argc, char **argv)
{
	struct bench_cli cli = { .cmd = "kbench", .kernel_types = true };
	int rc = measure_parse_kernel_cmd(&cli, argc, argv, usage_kbench, NULL);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if (!measure_kernel_ready(cli.cmd, false))
		return EXIT_USAGE;
	return bench_sides(&cli, true);
}
