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

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Run one point --repeat times; keep the run whose Mops/s is the median
 * (the lower middle for an even count) in *median.
 */
static int run_point(struct bench_cli *cli, struct bench_config *cfg,
		     struct progress *p, struct bench_result *median,
		     double *mops_runs)
{
	struct bench_result *runs = calloc(cli->repeat, sizeof(*runs));
	double sorted[1000];
	char err[256];
	int rc = 0;

	if (!runs)
		return cli_error(cli->cmd, "out of memory");
	for (unsigned i = 0; i < cli->repeat && !rc; i++) {
		progress_label(p, "%s threads=%u run %u/%u", cfg->design->name,
			       cfg->threads, i + 1, cli->repeat);
		rc = bench_run(cfg, &runs[i], err, sizeof(err));
		mops_runs[i] = sorted[i] = runs[i].mops;
	}
	progress_clear(p);
	if (rc) {
		free(runs);
		return cli_error(cli->cmd, "%s", err);
	}
	qsort(sorted, cli->repeat, sizeof(double), compare_double);
	double want = sorted[(cli->repeat - 1) / 2];
	for (unsigned i = 0; i < cli->repeat; i++)
		if (runs[i].mops == want) {
			*median = runs[i];
			break;
		}
	free(runs);
	return 0;
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

	double *mops_runs = calloc(cli.repeat, sizeof(double));
	for (unsigned m = 0; m < cli.n_maps && !rc && mops_runs; m++)
		for (unsigned t = 0; t < cli.n_threads && !rc; t++) {
			struct bench_config cfg = {
				.design = cli.maps[m], .w = cli.w,
				.map_flags = cli.map_flags,
				.threads = cli.threads[t], .seconds = cli.seconds,
				.ops = cli.ops, .warmup = cli.warmup,
				.progress = progress_update,
				.progress_arg = &progress,
			};
			struct bench_result median;
			rc = run_point(&cli, &cfg, &progress, &median, mops_runs);
			if (rc)
				break;
			struct report_row row = {
				.side = "user", .map = cfg.design->name,
				.config = &cfg, .result = &median,
				.mops_runs = mops_runs, .runs = cli.repeat,
			};
			report_row(&report, &row);
		}
	if (!mops_runs)
		rc = cli_error("bench", "out of memory");
	report_end(&report, &host);
	free(mops_runs);
	if (out != stdout && fclose(out))
		rc = cli_error("bench", "writing %s failed", cli.out);
	return rc;
}
