/* SPDX-License-Identifier: MIT */
/*
 * maplab bench | kbench | compare: one driver (run_side) measures any side
 * (a userspace design, the kernel map in BPF, the kernel map through
 * bpf(2)) at every thread count, --repeat times, and reports the medians.
 */
#include "options.h"
#include "cli.h"
#include "progress.h"
#include "kernel-compare/kbench.h"
#include "kernel-compare/kmap.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_bench[] =
	"usage: maplab bench [options]\n\n"
	"Runs a workload on each design at each thread count and reports\n"
	"throughput (Mops/s, all threads), time per op per thread, latency\n"
	"percentiles of sampled ops, and how many ops of each kind succeeded.\n"
	"Worker i holds cpu slot i and is pinned to the i-th CPU this process\n"
	"may use; keys come from streams built before the clock starts.\n";
static const char after_bench[] =
	"example:\n  maplab bench --map hash/linux,hash/rculfhash --threads 1,2 "
	"--mix lookup=90,update=10\n";

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
	"name, meaning the kernel map of its type.  Threads: at most one per CPU.\n";

static const char usage_compare[] =
	"usage: maplab compare [options]\n\n"
	"bench on the named designs and kbench on the kernel map of their type,\n"
	"on identical work, in one table: for each thread count, the kernel's\n"
	"ns/op (in BPF and through the syscall), each design's ns/op and its\n"
	"ratio to the kernel's, and Mops/s.  --format jsonl writes every record.\n"
	"Without BPF here, it says so and runs the userspace side alone.\n";
static const char after_compare[] =
	"example:\n  maplab compare --map hash/linux,hash/rculfhash --entries 65536 "
	"--mix lookup=100 --threads 1,2\n";

/* kbench's and compare's options: bench's, and the kernel side's. */
static const struct cmd_option kernel_options[] = {
	{ OPT_RUN_OPS, "map calls per BPF program run (1024)" },
	{ OPT_RUN_REPEAT, "BPF_PROG_TEST_RUN repeat count (64)" },
	{ OPT_NO_SYSCALL, NULL },
	{ OPT_VERBOSE, NULL },
};
#define N_KERNEL_OPTIONS (sizeof(kernel_options) / sizeof(kernel_options[0]))

/* bench's options followed by the kernel side's, in one list. */
static struct cmd_option *with_kernel_options(size_t *n)
{
	*n = bench_option_count + N_KERNEL_OPTIONS;
	struct cmd_option *all = calloc(*n, sizeof(*all));
	if (!all)
		return NULL;
	memcpy(all, bench_options, bench_option_count * sizeof(*all));
	memcpy(all + bench_option_count, kernel_options, sizeof(kernel_options));
	return all;
}

static int parse_kernel_cmd(struct bench_cli *cli, int argc, char **argv,
			    const char *usage, const char *after)
{
	size_t n;
	struct cmd_option *opts = with_kernel_options(&n);
	if (!opts)
		return cli_error(cli->cmd, "out of memory");
	int rc = bench_cli_parse(cli, argc, argv, opts, n, usage, after);
	free(opts);
	return rc;
}

/* Options kbench and compare add to bench's. */
struct kernel_opts {
	unsigned run_ops, run_repeat;
	bool no_syscall;
};

static struct kernel_opts kernel_opts_of(const struct bench_cli *cli)
{
	struct kernel_opts k = { cli->run_ops, cli->run_repeat, cli->no_syscall };
	return k;
}

static struct kbench_config kconfig(const struct bench_config *b, uint32_t type,
				    const struct kernel_opts *k)
{
	struct kbench_config c = { .b = *b, .map_type = type,
				   .ops_per_run = k->run_ops,
				   .run_repeat = k->run_repeat };
	return c;
}

/* What one row of results is: a side on a map. */
enum side { SIDE_USER, SIDE_KERNEL, SIDE_SYSCALL, SIDE_BATCH };
static const char *const side_names[] = { "user", "kernel", "syscall",
					  "syscall-batch" };

/*
 * Measure one side at every thread count, --repeat times round the counts,
 * and report the median of each.  A side that cannot run a point (batch
 * for a mixed workload, more threads than CPUs) is skipped with a note.
 */
static int run_side(struct bench_cli *cli, enum side side,
		    const struct map_ops *design, uint32_t type,
		    const struct kernel_opts *kopts, struct progress *p,
		    struct report *report, struct report_row *rows_out)
{
	unsigned nt = cli->n_threads, reps = cli->repeat;
	const char *label = design ? design->name : map_type_name(type);
	struct bench_result *runs = calloc((size_t)nt * reps, sizeof(*runs));
	struct kbench_result *kruns = calloc((size_t)nt * reps, sizeof(*kruns));
	double *mops = calloc((size_t)nt * reps, sizeof(double));
	bool *skipped = calloc(nt, sizeof(bool));
	static struct bench_config cfgs[4][BENCH_MAX_THREAD_COUNTS];
	char err[512];
	int rc = runs && kruns && mops && skipped ? 0 : -ENOMEM;

	for (unsigned t = 0; t < nt; t++)
		cfgs[side][t] = (struct bench_config){
			.design = design ? design : &bench_noop_ops, .w = cli->w,
			.map_flags = cli->map_flags, .threads = cli->threads[t],
			.seconds = cli->seconds, .ops = cli->ops,
			.warmup = cli->warmup, .progress = progress_update,
			.progress_arg = p,
		};
	for (unsigned r = 0; r < reps && !rc; r++)
		for (unsigned t = 0; t < nt && !rc; t++) {
			struct bench_config *b = &cfgs[side][t];
			struct kbench_config kc = kconfig(b, type, kopts);
			size_t i = t * reps + r;
			if (skipped[t])
				continue;
			progress_label(p, "%s %s threads=%u run %u/%u", label,
				       side_names[side], b->threads, r + 1, reps);
			if (side == SIDE_USER)
				rc = bench_run(b, &runs[i], err, sizeof(err));
			else if (side == SIDE_KERNEL)
				rc = kbench_run(&kc, &kruns[i], err, sizeof(err));
			else
				rc = kbench_syscall_run(&kc, side == SIDE_BATCH ?
							SYSCALL_BATCH : SYSCALL_SINGLE,
							&runs[i], err, sizeof(err));
			if (side == SIDE_KERNEL && !rc)
				runs[i] = kruns[i].r;
			mops[i] = runs[i].mops;
			if (rc && side != SIDE_USER &&
			    rc == -EOPNOTSUPP) {
				progress_clear(p);
				if (r == 0)
					fprintf(stderr, "maplab %s: %s %s, %u threads: "
						"skipped: %s\n", cli->cmd, label,
						side_names[side], b->threads, err);
				skipped[t] = true;
				rc = 0;
			}
		}
	progress_clear(p);
	if (rc)
		cli_error(cli->cmd, "%s", err);
	for (unsigned t = 0; t < nt && !rc; t++) {
		if (skipped[t])
			continue;
		unsigned m = bench_median_index(&mops[t * reps], reps);
		size_t i = t * reps + m;
		struct report_row row = {
			.side = side_names[side], .map = label,
			.config = &cfgs[side][t], .result = &runs[i],
			.mops_runs = &mops[t * reps], .runs = reps,
			.no_latency = side == SIDE_KERNEL,
			.program_ns = kruns[i].program_ns_per_op,
			.baseline_ns = kruns[i].baseline_ns_per_op,
		};
		if (report)
			report_row(report, &row);
		if (rows_out) {
			rows_out[t] = row;
			/* Keep a copy: the arrays are freed below. */
			struct bench_result *keep = malloc(sizeof(*keep));
			if (keep)
				*keep = runs[i];
			rows_out[t].result = keep;
			rows_out[t].mops_runs = NULL;
			rows_out[t].config = NULL; /* cfgs is reused per design */
		}
	}
	free(runs);
	free(kruns);
	free(mops);
	free(skipped);
	return rc ? EXIT_USAGE : 0;
}

static int kernel_ready(const char *cmd, bool quiet_fail)
{
	char why[256];
	if (kmap_available(why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "maplab %s: no kernel side here: %s%s\n", cmd, why,
		quiet_fail ? "; running the userspace side alone" : "");
	return -1;
}

static FILE *open_out(struct bench_cli *cli)
{
	FILE *out = cli->out ? fopen(cli->out, "w") : stdout;
	if (!out)
		cli_error(cli->cmd, "cannot write %s: %s", cli->out, strerror(errno));
	return out;
}

static int close_out(struct bench_cli *cli, FILE *out, int rc)
{
	if (out != stdout && fclose(out))
		return cli_error(cli->cmd, "writing %s failed", cli->out);
	return rc;
}

/*
 * bench and kbench: every map of --map, each side in turn, into one report
 * (the user side for bench; kernel, syscall and, where supported, batched
 * syscalls for kbench).
 */
static int report_sides(struct bench_cli *cli, const struct kernel_opts *k,
			bool kernel)
{
	FILE *out = open_out(cli);
	if (!out)
		return EXIT_USAGE;
	struct host_record host;
	struct report report;
	struct progress progress;
	bool batch = cli->w.mix[OP_LOOKUP] == 100 || cli->w.mix[OP_UPDATE] == 100;
	int rc = 0;

	host_record_read(&host);
	progress_init(&progress, cli->quiet);
	report_begin(&report, out, cli->format, &host);
	for (unsigned m = 0; m < cli->n_maps && !rc; m++) {
		uint32_t type = cli->map_types[m];
		if (!kernel) {
			rc = run_side(cli, SIDE_USER, cli->maps[m], type, k,
				      &progress, &report, NULL);
			continue;
		}
		rc = run_side(cli, SIDE_KERNEL, NULL, type, k, &progress, &report,
			      NULL);
		if (!rc && !k->no_syscall)
			rc = run_side(cli, SIDE_SYSCALL, NULL, type, k, &progress,
				      &report, NULL);
		if (!rc && !k->no_syscall && batch)
			rc = run_side(cli, SIDE_BATCH, NULL, type, k, &progress,
				      &report, NULL);
	}
	report_end(&report, &host);
	return close_out(cli, out, rc);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_cli cli = { .cmd = "bench" };
	struct kernel_opts none = { 0 };
	int rc = bench_cli_parse(&cli, argc, argv, bench_options,
				 bench_option_count, usage_bench, after_bench);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	return report_sides(&cli, &none, false);
}

int cmd_kbench(int argc, char **argv)
{
	struct bench_cli cli = { .cmd = "kbench", .kernel_types = true };
	int rc = parse_kernel_cmd(&cli, argc, argv, usage_kbench, NULL);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	struct kernel_opts k = kernel_opts_of(&cli);
	if (kernel_ready("kbench", false))
		return EXIT_USAGE;
	return report_sides(&cli, &k, true);
}

/* --- compare ------------------------------------------------------------------ */

#define MAX_COLUMNS (BENCH_MAX_MAPS + 3)

struct column {
	const char *title;
	struct report_row rows[BENCH_MAX_THREAD_COUNTS];
	bool have[BENCH_MAX_THREAD_COUNTS];
	bool is_kernel;
};

static void print_compare_table(FILE *f, struct bench_cli *cli,
				struct column *cols, unsigned ncols, int kernel_col,
				const struct host_record *host)
{
	char mix[96], dist[48];
	workload_format_mix(cli->w.mix, mix, sizeof(mix));
	workload_format_dist(&cli->w, dist, sizeof(dist));
	fprintf(f, "workload: %s, %s keys, %u entries (%u%% prefilled), key %u B, "
		"value %u B\n\n", mix, dist, cli->w.entries, cli->w.prefill_pct,
		cli->w.key_size, cli->w.value_size);
	fprintf(f, "ns/op per thread (ratio: design / kernel in BPF)\n");
	fprintf(f, "%-8s", "threads");
	for (unsigned c = 0; c < ncols; c++)
		fprintf(f, " %22s", cols[c].title);
	fputc('\n', f);
	for (unsigned t = 0; t < cli->n_threads; t++) {
		fprintf(f, "%-8u", cli->threads[t]);
		double kns = kernel_col >= 0 && cols[kernel_col].have[t]
			? cols[kernel_col].rows[t].result->ns_per_op : NAN;
		for (unsigned c = 0; c < ncols; c++) {
			char cell[48] = "-";
			if (cols[c].have[t]) {
				double ns = cols[c].rows[t].result->ns_per_op;
				if (!cols[c].is_kernel && !isnan(kns) && kns > 0)
					snprintf(cell, sizeof(cell), "%.1f (%.2fx)", ns,
						 ns / kns);
				else
					snprintf(cell, sizeof(cell), "%.1f", ns);
			}
			fprintf(f, " %22s", cell);
		}
		fputc('\n', f);
	}
	fprintf(f, "\nMops/s, all threads\n%-8s", "threads");
	for (unsigned c = 0; c < ncols; c++)
		fprintf(f, " %22s", cols[c].title);
	fputc('\n', f);
	for (unsigned t = 0; t < cli->n_threads; t++) {
		fprintf(f, "%-8u", cli->threads[t]);
		for (unsigned c = 0; c < ncols; c++) {
			if (cols[c].have[t])
				fprintf(f, " %22.2f", cols[c].rows[t].result->mops);
			else
				fprintf(f, " %22s", "-");
		}
		fputc('\n', f);
	}
	fputc('\n', f);
	if (kernel_col >= 0)
		fprintf(f, "kernel BPF: the map calls inside BPF programs via "
			"BPF_PROG_TEST_RUN, baseline subtracted; kernel syscall: one "
			"bpf(2) call per op.\n");
	else
		fprintf(f, "no kernel side on this machine: userspace only.\n");
	fprintf(f, "host: %s, %s, %ld cpus, %s, rcu %s\n", host->kernel,
		host->cpu_model, host->nproc, host->allocator, host->rcu);
}

static void free_column(struct column *col, unsigned nt)
{
	for (unsigned t = 0; t < nt; t++)
		if (col->have[t])
			free((void *)col->rows[t].result);
}

int cmd_compare(int argc, char **argv)
{
	struct bench_cli cli = { .cmd = "compare" };
	int rc = parse_kernel_cmd(&cli, argc, argv, usage_compare, after_compare);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	struct kernel_opts k = kernel_opts_of(&cli);
	for (unsigned m = 1; m < cli.n_maps; m++)
		if (cli.map_types[m] != cli.map_types[0])
			return cli_error("compare", "--map: compare designs of one "
					 "map type at a time (%s is a %s map, %s a %s "
					 "map)", cli.maps[0]->name,
					 map_type_name(cli.map_types[0]),
					 cli.maps[m]->name,
					 map_type_name(cli.map_types[m]));
	bool kernel = kernel_ready("compare", true) == 0;

	FILE *out = open_out(&cli);
	if (!out)
		return EXIT_USAGE;
	struct host_record host;
	struct progress progress;
	struct report report;
	struct column *cols = calloc(MAX_COLUMNS, sizeof(*cols));
	unsigned ncols = 0;
	int kernel_col = -1;
	host_record_read(&host);
	progress_init(&progress, cli.quiet);
	if (!cols)
		return close_out(&cli, out, cli_error("compare", "out of memory"));
	/* jsonl and csv stream every record; the table is printed at the end.
	 * --save appends jsonl records to a file as well. */
	struct report saved;
	FILE *save = cli.save ? fopen(cli.save, "a") : NULL;
	if (cli.save && !save) {
		free(cols);
		return close_out(&cli, out, cli_error("compare", "cannot write %s: "
					"%s", cli.save, strerror(errno)));
	}
	struct report *stream = cli.format != REPORT_TABLE ? &report
			      : save ? &saved : NULL;
	if (cli.format != REPORT_TABLE)
		report_begin(&report, out, cli.format, &host);
	else if (save)
		report_begin(&saved, save, REPORT_JSONL, &host);

	uint32_t type = cli.map_types[0];
	if (kernel) {
		enum side sides[] = { SIDE_KERNEL, SIDE_SYSCALL };
		for (unsigned s = 0; s < 2 && !rc; s++) {
			if (s == 1 && k.no_syscall)
				break;
			struct column *col = &cols[ncols];
			col->title = s ? "kernel syscall" : "kernel BPF";
			col->is_kernel = true;
			if (s == 0)
				kernel_col = (int)ncols;
			rc = run_side(&cli, sides[s], NULL, type, &k, &progress, stream,
				      col->rows);
			for (unsigned t = 0; t < cli.n_threads; t++)
				col->have[t] = col->rows[t].result != NULL;
			ncols++;
		}
	}
	for (unsigned m = 0; m < cli.n_maps && !rc; m++) {
		struct column *col = &cols[ncols++];
		col->title = cli.maps[m]->name;
		rc = run_side(&cli, SIDE_USER, cli.maps[m], type, &k, &progress,
			      stream, col->rows);
		for (unsigned t = 0; t < cli.n_threads; t++)
			col->have[t] = col->rows[t].result != NULL;
	}
	if (cli.format != REPORT_TABLE)
		report_end(&report, &host);
	else if (!rc)
		print_compare_table(out, &cli, cols, ncols, kernel_col, &host);
	if (save && fclose(save))
		rc = cli_error("compare", "writing %s failed", cli.save);
	for (unsigned c = 0; c < ncols; c++)
		free_column(&cols[c], cli.n_threads);
	free(cols);
	return close_out(&cli, out, rc);
}
