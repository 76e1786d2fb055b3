/* SPDX-License-Identifier: MIT */
/*
 * maplab compare: the kernel's map (in BPF, and through bpf(2)) and the
 * designs of --map, all of one map type (or LPM tries and hashes on the
 * same addresses: a prefix workload), measured as sides of one
 * interleaved run (measure.h), so every ratio to the kernel is taken
 * within a repeat between runs made side by side.  A design stands for the
 * kernel's map in its mode (map_ops.mode_flags: lru/linux_percpu for the
 * LRU hash with BPF_F_NO_COMMON_LRU), so there is one kernel side per
 * distinct mode among the designs, and each design's ratio is to the
 * kernel side of its own mode.  Each figure's table has a row per side and
 * a column per thread count (columns that would run past WRAP_COLUMNS go
 * on in a table under it), then the work per op of the designs that count
 * it; jsonl and csv write every point, ratios included.
 */
#include "cli/cli.h"
#include "cli/measure/measure.h"

#include "harness/common/wrap.h"
#include "kernel-compare/kbench.h"
#include "maps/plain/plain.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char usage_compare[] =
	"usage: maplab compare [options]\n\n"
	"bench on the named designs and kbench on the kernel map of their type,\n"
	"on identical work, side by side: a table per figure with a row per\n"
	"side and a column per thread count: the kernel's ns/op (in BPF and\n"
	"through the syscall), each design's ns/op and its ratio to the\n"
	"kernel's, then Mops/s.  A design with mode flags (as\n"
	"lru/linux_percpu's BPF_F_NO_COMMON_LRU) is compared with the kernel's\n"
	"map in that mode: one kernel side per mode among the designs.  LPM\n"
	"tries and hash maps run side by side on the same addresses with\n"
	"--prefixes random32 (a trie's key is the prefix length and the\n"
	"address, a hash's the address alone): one kernel side per type.  With\n"
	"--repeat N the sides run in turn within each repeat; each figure is the\n"
	"median of the N, with its min and max, and each ratio is taken within a\n"
	"repeat.  --format jsonl writes every record.  Without BPF here, it says\n"
	"so and runs the userspace side alone.\n";
static const char after_compare[] =
	"examples:\n  maplab compare --map hash/linux,hash/rculfhash --entries 65536 "
	"--mix lookup=100 --threads 1,2 --repeat 5\n"
	"  maplab compare --map lru/global --key-range 400% --mix "
	"insert=50,lookup=50 --threads 1,2 --repeat 5\n"
	"  maplab compare --map hash/linux,hash/seqlock_buckets --entries 1048576 "
	"--physical hash/seqlock_buckets --repeat 5\n"
	"  maplab compare --map lpm_trie/linux,lpm_trie/prefix_hash --prefixes "
	"bgp --hit-ratio 90 --repeat 5\n"
	"  maplab compare --map lpm_trie/linux,lpm_trie/prefix_hash,hash/linux,"
	"hash/cow --mix update=100\n";

/* The blanks between a table's columns. */
#define GAP 2

/* Point p's cell: the figure (median, min or max), with its ratio to the
 * kernel where the figure is ns/op and there is one, and a mark on a
 * flagged point's median where the figure is `timed` (a flag says a time
 * cannot be true; the map's bytes are measured apart from the clock).
 * "-" where not measured. */
static void format_cell(char *cell, size_t len, const struct report_point *p,
			enum report_field field, const char *format,
			enum spread_part part, bool timed)
{
	char ratio[24] = "";
	snprintf(cell, len, "-");
	if (!p->runs || isnan(spread_part(&p->field[field], part)))
		return;
	const struct spread *r = &p->field[RF_KERNEL_RATIO];
	if (field == RF_NS_PER_OP && !isnan(r->median))
		snprintf(ratio, sizeof(ratio), " (%.2fx)", spread_part(r, part));
	int n = snprintf(cell, len, format, spread_part(&p->field[field], part));
	snprintf(cell + n, len - (size_t)n, "%s%s", ratio,
		 timed && part == SPREAD_MEDIAN && p->flags ? " !" : "");
}

/* Thread count t's column title. */
static void format_title(char *title, size_t len, unsigned threads)
{
	snprintf(title, len, "%u thread%s", threads, threads == 1 ? "" : "s");
}

/* The widest of thread count t's cells (and its title). */
static int column_width(const struct bench_cli *cli,
			const struct measurement *m, unsigned t,
			enum report_field field, const char *format,
			unsigned parts, bool timed)
{
	char cell[64];
	format_title(cell, sizeof(cell), cli->threads[t]);
	size_t width = wrap_width(cell);
	for (unsigned s = 0; s < m->n_sides; s++)
		for (unsigned part = 0; part < parts; part++) {
			format_cell(cell, sizeof(cell), measure_point(m, s, t),
				    field, format, (enum spread_part)part, timed);
			width = wrap_width(cell) > width ? wrap_width(cell) : width;
		}
	return (int)width;
}

/* The side column: its longest label. */
static int side_width(const struct measurement *m)
{
	size_t width = strlen("side");
	for (unsigned s = 0; s < m->n_sides; s++)
		if (strlen(m->sides[s].label) > width)
			width = strlen(m->sides[s].label);
	return (int)width;
}

/* The thread counts [from, to) as one table: a row per side, and under it
 * rows of minima and maxima where there are `parts` 3. */
static void print_columns(FILE *f, const struct bench_cli *cli,
			  const struct measurement *m, unsigned from,
			  unsigned to, const int *width, enum report_field field,
			  const char *format, unsigned parts, bool timed)
{
	static const char *const part_names[] = { "", "  min", "  max" };
	int name = side_width(m);
	char cell[64];
	fprintf(f, "%-*s", name, "side");
	for (unsigned t = from; t < to; t++) {
		format_title(cell, sizeof(cell), cli->threads[t]);
		fprintf(f, "%*s%*s", GAP, "", width[t], cell);
	}
	fputc('\n', f);
	for (unsigned s = 0; s < m->n_sides; s++)
		for (unsigned part = 0; part < parts; part++) {
			fprintf(f, "%-*s", name,
				part ? part_names[part] : m->sides[s].label);
			for (unsigned t = from; t < to; t++) {
				format_cell(cell, sizeof(cell),
					    measure_point(m, s, t), field, format,
					    (enum spread_part)part, timed);
				int pad = width[t] - (int)wrap_width(cell);
				fprintf(f, "%*s%s", GAP + (pad > 0 ? pad : 0), "",
					cell);
			}
			fputc('\n', f);
		}
}

/* One figure of every side: a row per side, a column per thread count,
 * and rows of minima and maxima under each side when there were repeats
 * and `spread`.  Thread counts that would run a line past WRAP_COLUMNS go
 * on into a further table under the first. */
static void print_figure(FILE *f, const struct bench_cli *cli,
			 const struct measurement *m, enum report_field field,
			 const char *format, bool spread, bool timed)
{
	unsigned parts = cli->repeat > 1 && spread ? 3 : 1;
	int width[BENCH_MAX_THREAD_COUNTS];
	int name = side_width(m);
	for (unsigned t = 0; t < m->n_threads; t++)
		width[t] = column_width(cli, m, t, field, format, parts, timed);
	for (unsigned from = 0; from < m->n_threads;) {
		unsigned to = from + 1; /* one column at least, whatever it takes */
		int line = name + GAP + width[from];
		while (to < m->n_threads &&
		       line + GAP + width[to] <= WRAP_COLUMNS)
			line += GAP + width[to++];
		if (from)
			fputc('\n', f);
		print_columns(f, cli, m, from, to, width, field, format, parts,
			      timed);
		from = to;
	}
}

/* Whether some point of the measurement has figure `field`. */
static bool has_figure(const struct measurement *m, enum report_field field)
{
	for (size_t i = 0; i < (size_t)m->n_sides * m->n_threads; i++)
		if (m->points[i].runs && !isnan(m->points[i].field[field].median))
			return true;
	return false;
}

/* Where there are reference sides (--physical): what each one is. */
static void print_physical(FILE *f, const struct measurement *m)
{
	for (unsigned s = 0; s < m->n_sides; s++) {
		const struct side *side = &m->sides[s];
		if (side->kind == &side_harness)
			wrap_printf(f, "%s: the noop design through the same loop: "
				"the harness's own cost per op.\n", side->label);
		else if (plain_is(side->design))
			wrap_printf(f, "%s: DPDK's table used plainly, as a DPDK "
				"program uses it: the same keys, the table's own "
				"lookup and bulk lookup through the same loop, no "
				"BPF semantics; a reference, not a design "
				"(docs/bench.md, \"Plain DPDK tables\").\n",
				side->label);
		else if (side->kind == &side_loads)
			wrap_printf(f, "%s: independent random 8-byte loads over "
				"%zu bytes, %s's footprint: ns per load per "
				"thread, the memory system's floor for a loop of "
				"lookups (docs/bench.md).\n", side->label,
				limit_buffer_bytes(&side->buffer),
				side->design->name);
	}
}

/* Whether some side's ns/op is divided by another's. */
static bool has_ratios(const struct measurement *m)
{
	for (unsigned s = 0; s < m->n_sides; s++)
		if (m->sides[s].reference >= 0)
			return true;
	return false;
}

/* With kernel sides of several modes: which designs each one is the
 * reference of. */
static void print_modes(FILE *out, const struct measurement *m)
{
	unsigned kernels = 0;
	FILE *f;
	for (unsigned s = 0; s < m->n_sides; s++)
		kernels += m->sides[s].kind == &side_kernel;
	if (kernels < 2)
		return;
	struct wrap_buffer line;
	f = wrap_begin(&line);
	fputs("each design's ratio is to the kernel's map in the design's mode "
	      "(its mode flags):", f);
	for (unsigned k = 0; k < m->n_sides; k++) {
		if (m->sides[k].kind != &side_kernel)
			continue;
		const char *sep = " ";
		for (unsigned s = 0; s < m->n_sides; s++)
			if (m->sides[s].reference == (int)k &&
			    m->sides[s].kind == &side_user) {
				fprintf(f, "%s%s", sep, m->sides[s].label);
				sep = ", ";
			}
		fprintf(f, " to %s;", m->sides[k].label);
	}
	fputc('\n', f);
	wrap_end(&line, out);
}

/* Whether --map names maps of more than one type. */
static bool several_map_types(const struct bench_cli *cli)
{
	for (unsigned i = 1; i < cli->n_maps; i++)
		if (cli->map_types[i] != cli->map_types[0])
			return true;
	return false;
}

/* --lpm-op free: ms per map, and where a design's went (the kernel's
 * free is timed whole: "-" there). */
static void print_free_figures(FILE *f, const struct bench_cli *cli,
			       const struct measurement *m)
{
	fprintf(f, "\nms per map freed (the whole free)\n");
	print_figure(f, cli, m, RF_FREE_MS, "%.3f", true, true);
	if (!has_figure(m, RF_FREE_RCU_MS))
		return;
	fprintf(f, "\nof it, the designs' wait for RCU (ms per map, medians)\n");
	print_figure(f, cli, m, RF_FREE_RCU_MS, "%.3f", false, true);
	fprintf(f, "\nof it, the designs' walk and frees (ms per map, medians)\n");
	print_figure(f, cli, m, RF_FREE_WALK_MS, "%.3f", false, true);
}

/* The median over the repeats both ran of a's ns/op less b's. */
static double median_difference(const struct report_point *a,
				const struct report_point *b)
{
	double d[REPORT_MAX_RUNS];
	unsigned n = 0;
	for (unsigned r = 0; r < a->runs && r < b->runs; r++)
		d[n++] = a->run[r].v[RF_NS_PER_OP] - b->run[r].v[RF_NS_PER_OP];
	return spread_of(d, n).median;
}

/* Beside a DPDK adapter, its plain table (maps/plain/plain.h): every
 * side over the plain table, and what the adapter adds to it. */
static void print_plain(FILE *f, const struct bench_cli *cli,
			const struct measurement *m)
{
	if (!has_figure(m, RF_PLAIN_RATIO))
		return;
	fprintf(f, "\nns/op over the plain DPDK table's of the same map type, "
		"within each repeat\n");
	print_figure(f, cli, m, RF_PLAIN_RATIO, "%.2fx", true, false);
	for (unsigned s = 0; s < m->n_sides; s++) {
		const struct side *side = &m->sides[s];
		const struct side *plain = side->plain >= 0
					   ? &m->sides[side->plain] : NULL;
		if (!plain || !side->design ||
		    plain_for(side->design->name) != plain->design)
			continue;
		struct wrap_buffer line;
		FILE *w = wrap_begin(&line);
		fprintf(w, "%s's own cost over %s (ns/op, the median of its "
			"repeats' differences):", side->label, plain->design->name);
		for (unsigned t = 0; t < m->n_threads; t++)
			fprintf(w, "%s %.1f at %u thread%s", t ? "," : "",
				median_difference(measure_point(m, s, t),
						  measure_point(m, (unsigned)side->plain, t)),
				cli->threads[t], cli->threads[t] == 1 ? "" : "s");
		fputc('\n', w);
		wrap_end(&line, f);
	}
}

static void print_compare_table(FILE *f, const struct bench_cli *cli,
				const struct host_record *host,
				const struct measurement *m)
{
	bool ratios = has_ratios(m);
	measure_print_workload(f, cli, several_map_types(cli));
	if (cli->repeat > 1)
		fprintf(f, "%u repeats, sides in turn: each figure is the median, "
			"its min and max below it\n", cli->repeat);
	fprintf(f, "\n%s%s\n", cli->lpm_op == BENCH_LPM_FREE ? "ns per prefix freed"
		: bench_lpm_op_is_phase(cli->lpm_op) ? "ns per key, a pass timed whole"
		: "ns/op per thread", ratios
		? " (ratio: side / kernel BPF, within each repeat)" : "");
	print_figure(f, cli, m, RF_NS_PER_OP, "%.1f", true, true);
	if (cli->lpm_op == BENCH_LPM_FREE) {
		print_free_figures(f, cli, m);
	} else {
		fprintf(f, "\nMops/s, all threads\n");
		print_figure(f, cli, m, RF_MOPS, "%.2f", true, true);
	}
	print_plain(f, cli, m);
	if (has_figure(m, RF_BYTES_PER_ENTRY)) {
		/* The same map each repeat: its medians say it all. */
		fprintf(f, "\nbytes per entry of max_entries, after the prefill "
			"(medians)\n");
		print_figure(f, cli, m, RF_BYTES_PER_ENTRY, "%.1f", false,
			     false);
	}
	report_write_notes(f, m->points, m->n_sides * m->n_threads);
	report_write_work(f, m->points, m->n_sides * m->n_threads);
	fputc('\n', f);
	if (ratios && cli->lpm_op == BENCH_LPM_FREE) {
		const char *timer = report_free_timer_words(m->points,
						m->n_sides * m->n_threads);
		wrap_printf(f, "kernel BPF: the kernel's free of its map "
			"(bpf_map_free_deferred), timed by %s; the designs' free: "
			"their destroy, its RCU wait and its walk timed apart "
			"(docs/bench.md, \"The kernel's LPM benchmark\").\n",
			timer ? timer : "-");
	} else if (ratios && bench_lpm_op_is_phase(cli->lpm_op)) {
		wrap_printf(f, "kernel BPF: a pass over the N prefixes inside one "
			"BPF program run (BPF_PROG_TEST_RUN), its baseline "
			"subtracted; the map %s by bpf(2) batch calls between "
			"passes, untimed.\n", cli->lpm_op == BENCH_LPM_INSERT
			? "emptied" : "refilled");
	} else if (ratios) {
		wrap_printf(f, "kernel BPF: the map calls inside BPF programs via "
			"BPF_PROG_TEST_RUN, baseline subtracted%s\n",
			cli->no_syscall ? "." : "; kernel syscall: one bpf(2) call "
			"per op.");
		print_modes(f, m);
	} else {
		fprintf(f, "no kernel side on this machine: userspace only.\n");
	}
	print_physical(f, m);
	report_write_memory_sources(f, m->points, m->n_sides * m->n_threads);
	host_record_line(f, host);
	report_write_probe(f, m->points, m->n_sides * m->n_threads);
}

/* One kernel side of a mode: "kernel BPF", "kernel syscall +no_common_lru",
 * "kernel BPF lpm_trie" where the run has kernel maps of several types,
 * with its ns/op divided by side `reference`'s (-1: none). */
static int add_kernel_side(const struct bench_cli *cli, struct measurement *m,
			   const struct side_kind *kind, const char *name,
			   const struct kbench_mode *mode, bool typed,
			   int reference)
{
	struct side s = { .kind = kind, .map_type = mode->type,
			  .mode_flags = mode->flags, .reference = reference };
	char suffix[64];
	measure_mode_suffix(mode->flags, suffix, sizeof(suffix));
	snprintf(s.label, sizeof(s.label), "kernel %s%s%s%s", name,
		 typed ? " " : "", typed ? map_type_name(mode->type) : "", suffix);
	return measure_add_side(m, cli->cmd, &s);
}

/* Whether the modes are of more than one map type. */
static bool several_types(const struct kbench_mode *modes, unsigned n)
{
	for (unsigned k = 1; k < n; k++)
		if (modes[k].type != modes[0].type)
			return true;
	return false;
}

/* compare's sides: for each mode among the designs, the kernel in BPF (the
 * reference of that mode's other sides) and through bpf(2), where the
 * kernel side can run; then each design. */
static int add_sides(const struct bench_cli *cli, bool kernel,
		     struct measurement *m)
{
	struct kbench_mode modes[BENCH_MAX_MAPS];
	unsigned mode_of[BENCH_MAX_MAPS];
	int bpf_side[BENCH_MAX_MAPS];
	unsigned n_modes = kbench_modes(cli->maps, cli->map_types, cli->n_maps,
					modes, mode_of);
	bool typed = several_types(modes, n_modes);
	int rc = 0;

	for (unsigned k = 0; k < n_modes && kernel && !rc; k++) {
		bpf_side[k] = (int)m->n_sides;
		rc = add_kernel_side(cli, m, &side_kernel, "BPF", &modes[k], typed,
				     -1);
		if (!rc && !cli->no_syscall && !bench_lpm_op_is_phase(cli->lpm_op))
			rc = add_kernel_side(cli, m, &side_syscall, "syscall",
					     &modes[k], typed, bpf_side[k]);
	}
	for (unsigned i = 0; i < cli->n_maps && !rc; i++) {
		struct side s = {
			.kind = &side_user, .design = cli->maps[i],
			.map_type = cli->map_types[i],
			.mode_flags = cli->maps[i]->mode_flags,
			.reference = kernel ? bpf_side[mode_of[i]] : -1,
		};
		snprintf(s.label, sizeof(s.label), "%s", cli->maps[i]->name);
		rc = measure_add_side(m, cli->cmd, &s);
	}
	return rc;
}

/* Designs of one map type, or (a prefix workload: bench_cli_parse saw to
 * it that its prefixes are addresses) LPM tries and hashes on the same
 * addresses. */
static int one_map_type(const struct bench_cli *cli)
{
	for (unsigned i = 1; i < cli->n_maps && !cli->w.prefixes; i++)
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
	struct measurement m = { 0 };
	struct host_record host;
	struct outputs out;
	int rc = measure_parse_kernel_cmd(&cli, argc, argv, usage_compare,
					  after_compare);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = one_map_type(&cli)) ||
	    (rc = add_sides(&cli, measure_kernel_ready(cli.cmd, true), &m)) ||
	    (rc = measure_add_plain_sides(&cli, &m)) ||
	    (rc = measure_add_physical_sides(&cli, &m)) ||
	    (rc = outputs_open(&cli, &out))) {
		measure_free(&m);
		return rc;
	}
	host_record_read(&host);
	rc = measure_run(&cli, &m);
	if (!rc)
		outputs_write(&cli, &out, &host, &m, print_compare_table);
	measure_free(&m);
	return outputs_close(&cli, &out, rc);
}
