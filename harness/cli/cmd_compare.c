/* SPDX-License-Identifier: MIT */
/*
 * maplab compare: the kernel's map (in BPF, and through bpf(2)) and the
 * designs of --map, all of one map type, measured as sides of one
 * interleaved run (measure.h), so every ratio to the kernel is taken
 * within a repeat between runs made side by side.  The table puts the
 * sides in columns; jsonl and csv write every point, ratios included.
 */
#include "cli.h"
#include "measure.h"

#include <math.h>
#include <stdio.h>

static const char usage_compare[] =
	"usage: maplab compare [options]\n\n"
	"bench on the named designs and kbench on the kernel map of their type,\n"
	"on identical work, in one table: for each thread count, the kernel's\n"
	"ns/op (in BPF and through the syscall), each design's ns/op and its\n"
	"ratio to the kernel's, and Mops/s.  With --repeat N the sides run in\n"
	"turn within each repeat; each figure is the median of the N, with its\n"
	"min and max, and each ratio is taken within a repeat.  --format jsonl\n"
	"writes every record.  Without BPF here, it says so and runs the\n"
	"userspace side alone.\n";
static const char after_compare[] =
	"example:\n  maplab compare --map hash/linux,hash/rculfhash --entries 65536 "
	"--mix lookup=100 --threads 1,2 --repeat 5\n";

#define CELL 22

/* A figure with its ratio to the kernel where there is one, and a mark
 * on a flagged point's median. */
static void print_cell(FILE *f, const struct report_point *p,
		       enum report_field field, const char *format,
		       enum spread_part part)
{
	char cell[48] = "-", ratio[24] = "";
	if (p->runs) {
		const struct spread *r = &p->field[RF_KERNEL_RATIO];
		if (field == RF_NS_PER_OP && !isnan(r->median))
			snprintf(ratio, sizeof(ratio), " (%.2fx)",
				 spread_part(r, part));
		int len = snprintf(cell, sizeof(cell), format,
				   spread_part(&p->field[field], part));
		snprintf(cell + len, sizeof(cell) - (size_t)len, "%s%s", ratio,
			 part == SPREAD_MEDIAN && p->flags ? " !" : "");
	}
	fprintf(f, " %*s", CELL, cell);
}

/* One figure of every side: a line per thread count, and under it lines
 * of minima and maxima when there were repeats. */
static void print_figure(FILE *f, const struct bench_cli *cli,
			 const struct measurement *m, enum report_field field,
			 const char *format)
{
	static const char *const part_names[] = { "", "  min", "  max" };
	unsigned parts = cli->repeat > 1 ? 3 : 1;
	fprintf(f, "%-8s", "threads");
	for (unsigned s = 0; s < m->n_sides; s++)
		fprintf(f, " %*s", CELL, m->sides[s].label);
	fputc('\n', f);
	for (unsigned t = 0; t < m->n_threads; t++)
		for (unsigned part = 0; part < parts; part++) {
			if (part == 0)
				fprintf(f, "%-8u", cli->threads[t]);
			else
				fprintf(f, "%-8s", part_names[part]);
			for (unsigned s = 0; s < m->n_sides; s++)
				print_cell(f, measure_point(m, s, t), field, format,
					   (enum spread_part)part);
			fputc('\n', f);
		}
}

static void print_compare_table(FILE *f, const struct bench_cli *cli,
				const struct host_record *host,
				const struct measurement *m)
{
	char mix[96], dist[48];
	workload_format_mix(cli->w.mix, mix, sizeof(mix));
	workload_format_dist(&cli->w, dist, sizeof(dist));
	fprintf(f, "workload: %s, %s keys, %u entries (%u%% prefilled), key %u B, "
		"value %u B\n", mix, dist, cli->w.entries, cli->w.prefill_pct,
		cli->w.key_size, cli->w.value_size);
	if (cli->repeat > 1)
		fprintf(f, "%u repeats, sides in turn: each figure is the median, "
			"its min and max below it\n", cli->repeat);
	fprintf(f, "\nns/op per thread%s\n", m->reference >= 0
		? " (ratio: side / kernel BPF, within each repeat)" : "");
	print_figure(f, cli, m, RF_NS_PER_OP, "%.1f");
	fprintf(f, "\nMops/s, all threads\n");
	print_figure(f, cli, m, RF_MOPS, "%.2f");
	report_write_notes(f, m->points, m->n_sides * m->n_threads);
	fputc('\n', f);
	if (m->reference >= 0)
		fprintf(f, "kernel BPF: the map calls inside BPF programs via "
			"BPF_PROG_TEST_RUN, baseline subtracted; kernel syscall: one "
			"bpf(2) call per op.\n");
	else
		fprintf(f, "no kernel side on this machine: userspace only.\n");
	host_record_line(f, host);
	report_write_probe(f, m->points, m->n_sides * m->n_threads);
}

/* compare's sides: the kernel in BPF (the reference) and through bpf(2),
 * where the kernel side can run, then each design. */
static int add_sides(const struct bench_cli *cli, bool kernel,
		     struct measurement *m)
{
	uint32_t type = cli->map_types[0];
	int rc = 0;
	if (kernel) {
		m->reference = (int)m->n_sides;
		rc = measure_add_side(m, cli->cmd, &side_kernel, NULL, type,
				      "kernel BPF");
		if (!rc && !cli->no_syscall)
			rc = measure_add_side(m, cli->cmd, &side_syscall, NULL, type,
					      "kernel syscall");
	}
	for (unsigned i = 0; i < cli->n_maps && !rc; i++)
		rc = measure_add_side(m, cli->cmd, &side_user, cli->maps[i], type,
				      cli->maps[i]->name);
	return rc;
}

static int one_map_type(const struct bench_cli *cli)
{
	for (unsigned i = 1; i < cli->n_maps; i++)
		if (cli->map_types[i] != cli->map_types[0])
			return cli_error(cli->cmd, "--map: compare designs of one "
					 "map type at a time (%s is a %s map, %s a %s "
					 "map)", cli->maps[0]->name,
					 map_type_name(cli->map_types[0]),
					 cli->maps[i]->name,
					 map_type_name(cli->map_types[i]));
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct bench_cli cli = { .cmd = "compare" };
	struct measurement m = { .reference = -1 };
	struct host_record host;
	struct outputs out;
	int rc = measure_parse_kernel_cmd(&cli, argc, argv, usage_compare,
					  after_compare);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = one_map_type(&cli)) ||
	    (rc = add_sides(&cli, measure_kernel_ready(cli.cmd, true), &m)) ||
	    (rc = outputs_open(&cli, &out)))
		return rc;
	host_record_read(&host);
	rc = measure_run(&cli, &m);
	if (!rc)
		outputs_write(&cli, &out, &host, &m, print_compare_table);
	measure_free(&m);
	return outputs_close(&cli, &out, rc);
}
