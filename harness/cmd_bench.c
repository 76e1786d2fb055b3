/* SPDX-License-Identifier: MIT */
/* maplab bench: userspace designs under contention. */
#include "bench_cli.h"
#include "cli.h"
#include "progress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help_bench(void)
{
	printf("usage: maplab bench [options]\n\n"
	       "Runs a workload on each design at each thread count and reports\n"
	       "throughput (Mops/s, all threads), time per op per thread, latency\n"
	       "percentiles of sampled ops, and how many ops of each kind succeeded.\n"
	       "Worker i holds cpu slot i and is pinned to core i mod nproc; keys\n"
	       "come from streams built before the clock starts.\n\n%s\n"
	       "example:\n  maplab bench --map hash/linux,hash/rculfhash --threads 1,2 "
	       "--mix lookup=90,update=10\n", bench_cli_options_help);
}

/* The run whose Mops/s is the median; every run's Mops/s into mops. */
static const struct bench_result *median_run(const struct bench_result *runs,
					     unsigned n, double *mops)
{
	for (unsigned i = 0; i < n; i++)
		mops[i] = runs[i].mops;
	return &runs[bench_median_index(mops, n)];
}

/*
 * All thread counts of one design, --repeat times.  The repeats go round
 * the thread counts (1,2,4,1,2,4,...) rather than one count after the other,
 * so a noisy spell on a shared machine spreads over every point instead of
 * spoiling one, and ratios between points stay fair.
 */
static int run_design(struct bench_cli *cli, const struct map_ops *design,
		      struct progress *p, struct report *report)
{
	unsigned nt = cli->n_threads, reps = cli->repeat;
	struct bench_result *runs = calloc((size_t)nt * reps, sizeof(*runs));
	double *mops = calloc(reps, sizeof(double));
	struct bench_config cfg[BENCH_MAX_THREAD_COUNTS];
	char err[256];
	int rc = runs && mops ? 0 : cli_error(cli->cmd, "out of memory");

	for (unsigned t = 0; t < nt; t++)
		cfg[t] = (struct bench_config){
			.design = design, .w = cli->w, .map_flags = cli->map_flags,
			.threads = cli->threads[t], .seconds = cli->seconds,
			.ops = cli->ops, .warmup = cli->warmup,
			.progress = progress_update, .progress_arg = p,
		};
	for (unsigned r = 0; r < reps && !rc; r++)
		for (unsigned t = 0; t < nt && !rc; t++) {
			progress_label(p, "%s threads=%u run %u/%u", design->name,
				       cli->threads[t], r + 1, reps);
			rc = bench_run(&cfg[t], &runs[t * reps + r], err,
				       sizeof(err));
			if (rc)
				rc = cli_error(cli->cmd, "%s", err);
		}
	progress_clear(p);
	for (unsigned t = 0; t < nt && !rc; t++) {
		const struct bench_result *median =
			median_run(&runs[t * reps], reps, mops);
		struct report_row row = {
			.side = "user", .map = design->name, .config = &cfg[t],
			.result = median, .mops_runs = mops, .runs = reps,
		};
		report_row(report, &row);
	}
	free(runs);
	free(mops);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_cli cli = { .cmd = "bench" };
	int rc = bench_cli_parse(&cli, argc, argv, help_bench);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;

	FILE *out = stdout;
	if (cli.out && !(out = fopen(cli.out, "w")))
		return cli_error("bench", "cannot write %s: %s", cli.out,
				 strerror(errno));
	struct host_record host;
	struct report report;
	struct progress progress;
	host_record_read(&host);
	progress_init(&progress, cli.quiet);
	report_begin(&report, out, cli.format, &host);

	for (unsigned m = 0; m < cli.n_maps && !rc; m++)
		rc = run_design(&cli, cli.maps[m], &progress, &report);
	report_end(&report, &host);
	if (out != stdout && fclose(out))
		rc = cli_error("bench", "writing %s failed", cli.out);
	return rc;
}
