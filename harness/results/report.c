/* SPDX-License-Identifier: MIT */
/*
 * report.c: repeats summed up into medians and spreads, the flags, and the
 * three formats.  One table of fields (name, how it is printed) drives the
 * jsonl and csv writers, so every figure gets its _min and _max alike.
 */
#include "harness/results/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double quantiles[] = { 0.50, 0.90, 0.99, 0.999 };
#define N_QUANTILES 4

static const struct field_spec {
	const char *name;   /* jsonl key and csv column */
	const char *format; /* printf format of the value */
} fields[RF_COUNT] = {
	[RF_OPS] = { "ops", "%.0f" },
	[RF_SECONDS] = { "seconds", "%.6f" },
	[RF_MOPS] = { "mops", "%.4f" },
	[RF_NS_PER_OP] = { "ns_per_op", "%.3f" },
	[RF_P50] = { "p50_ns", "%.0f" },
	[RF_P90] = { "p90_ns", "%.0f" },
	[RF_P99] = { "p99_ns", "%.0f" },
	[RF_P999] = { "p999_ns", "%.0f" },
	[RF_PROGRAM_NS] = { "program_ns_per_op", "%.3f" },
	[RF_BASELINE_NS] = { "baseline_ns_per_op", "%.3f" },
	[RF_SPEEDUP] = { "speedup", "%.4f" },
	[RF_KERNEL_RATIO] = { "kernel_ratio", "%.4f" },
	[RF_EVICTIONS] = { "evictions", "%.0f" },
	[RF_EVICTIONS_PER_OP] = { "evictions_per_op", "%.4f" },
	[RF_NODES_SCANNED_PER_OP] = { "nodes_scanned_per_op", "%.4f" },
	[RF_LOCKS_PER_OP] = { "locks_per_op", "%.4f" },
	[RF_EVICTIONS_PER_REFILL] = { "evictions_per_refill", "%.4f" },
	[RF_ALLOCATIONS_PER_OP] = { "allocations_per_op", "%.4f" },
	[RF_LOCK_NS_PER_OP] = { "lock_ns_per_op", "%.3f" },
	/* Enough digits that bytes_per_entry x entries gives the bytes back. */
	[RF_BYTES_PER_ENTRY] = { "bytes_per_entry", "%.6f" },
	[RF_BUFFER_BYTES] = { "buffer_bytes", "%.0f" },
	[RF_PROBE_NS] = { "probe_ns", "%.3f" },
};

static const char *const flag_names[] = { "superlinear", "wide_spread",
					   "below_baseline" };
#define N_FLAGS 3

/* --- statistics ------------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double spread_part(const struct spread *s, enum spread_part part)
{
	return part == SPREAD_MEDIAN ? s->median : part == SPREAD_MIN ? s->min
								      : s->max;
}

struct spread spread_of(const double *values, unsigned n)
{
	double sorted[REPORT_MAX_RUNS];
	unsigned m = 0;
	for (unsigned i = 0; i < n && m < REPORT_MAX_RUNS; i++)
		if (!isnan(values[i]))
			sorted[m++] = values[i];
	if (m == 0)
		return (struct spread){ NAN, NAN, NAN };
	qsort(sorted, m, sizeof(double), compare_double);
	double median = m % 2 ? sorted[m / 2]
			      : (sorted[m / 2 - 1] + sorted[m / 2]) / 2;
	return (struct spread){ median, sorted[0], sorted[m - 1] };
}

/* count / per, NaN where nothing was done to divide by. */
static double per(uint64_t count, uint64_t per)
{
	return per ? (double)count / (double)per : NAN;
}

/* The work figures r has: the evictions alone, or every one (the lock
 * time only where the design timed a lock: 0 ns means it does not time
 * them, or the run took none, and a "0 ns" beside an LRU design's locks
 * would read as a measurement). */
static void report_run_work(struct report_run *run,
			    const struct bench_result *r)
{
	const struct map_work *w = &r->work;
	if (!r->has_evictions && !r->has_work)
		return;
	run->v[RF_EVICTIONS] = (double)w->evictions;
	run->v[RF_EVICTIONS_PER_OP] = per(w->evictions, r->ops);
	if (!r->has_work)
		return;
	run->v[RF_NODES_SCANNED_PER_OP] = per(w->nodes_scanned, r->ops);
	run->v[RF_LOCKS_PER_OP] = per(w->locks, r->ops);
	run->v[RF_EVICTIONS_PER_REFILL] = per(w->evictions, w->refills);
	run->v[RF_ALLOCATIONS_PER_OP] = per(w->allocations, r->ops);
	if (w->lock_ns)
		run->v[RF_LOCK_NS_PER_OP] = per(w->lock_ns, r->ops);
}

void report_run_from(struct report_run *run, const struct bench_result *r,
		     bool latency)
{
	for (int f = 0; f < RF_COUNT; f++)
		run->v[f] = NAN;
	run->v[RF_OPS] = (double)r->ops;
	run->v[RF_SECONDS] = r->seconds;
	run->v[RF_MOPS] = r->mops;
	run->v[RF_NS_PER_OP] = r->ns_per_op;
	for (int q = 0; q < N_QUANTILES && latency; q++)
		run->v[RF_P50 + q] = (double)hist_quantile(&r->latency,
							   quantiles[q]);
	memcpy(run->ok, r->ok, sizeof(run->ok));
	memcpy(run->fail, r->fail, sizeof(run->fail));
	report_run_work(run, r);
	run->memory_from = r->memory.from;
	if (r->memory.from != BENCH_MEMORY_NONE)
		run->v[RF_BYTES_PER_ENTRY] = r->memory.bytes_per_entry;
}

bool report_is_superlinear(double speedup, unsigned threads,
			   unsigned base_threads, unsigned cpus)
{
	unsigned running = threads < cpus ? threads : cpus;
	unsigned base_running = base_threads < cpus ? base_threads : cpus;
	if (base_running == 0)
		return false;
	return speedup > REPORT_SPEEDUP_SLACK * running / base_running;
}

bool report_is_wide_spread(struct spread mops)
{
	return mops.min >= 0 && mops.max > REPORT_SPREAD_LIMIT * mops.min;
}

void report_derive_speedups(struct report_point *points, unsigned n,
			    unsigned cpus)
{
	const struct report_point *base = NULL;
	for (unsigned i = 0; i < n; i++)
		if (points[i].runs && (!base || points[i].config->threads <
						base->config->threads))
			base = &points[i];
	for (unsigned i = 0; base && i < n; i++) {
		struct report_point *p = &points[i];
		p->cpus = cpus;
		if (!p->runs || p->config->threads <= base->config->threads)
			continue;
		p->base_threads = base->config->threads;
		for (unsigned r = 0; r < p->runs && r < base->runs; r++) {
			double was = base->run[r].v[RF_MOPS];
			p->run[r].v[RF_SPEEDUP] = was > 0 ? p->run[r].v[RF_MOPS] / was
							  : NAN;
		}
	}
}

void report_derive_ratio(struct report_point *p,
			 const struct report_point *ref)
{
	for (unsigned r = 0; r < p->runs && r < ref->runs; r++) {
		double kernel = ref->run[r].v[RF_NS_PER_OP];
		p->run[r].v[RF_KERNEL_RATIO] = kernel > 0
			? p->run[r].v[RF_NS_PER_OP] / kernel : NAN;
	}
}

void report_summarise(struct report_point *p)
{
	double values[REPORT_MAX_RUNS];
	unsigned n = p->runs < REPORT_MAX_RUNS ? p->runs : REPORT_MAX_RUNS;

	for (int f = 0; f < RF_COUNT; f++) {
		for (unsigned r = 0; r < n; r++)
			values[r] = p->run[r].v[f];
		p->field[f] = spread_of(values, n);
	}
	memset(p->ok, 0, sizeof(p->ok));
	memset(p->fail, 0, sizeof(p->fail));
	p->memory_from = BENCH_MEMORY_NONE;
	for (unsigned r = 0; r < n && !p->memory_from; r++)
		p->memory_from = p->run[r].memory_from;
	for (unsigned r = 0; r < n; r++)
		for (int op = 0; op < OP_COUNT; op++) {
			p->ok[op] += p->run[r].ok[op];
			p->fail[op] += p->run[r].fail[op];
		}
	p->flags = 0;
	if (n > 1 && report_is_wide_spread(p->field[RF_MOPS]))
		p->flags |= REPORT_WIDE_SPREAD;
	if (!isnan(p->field[RF_SPEEDUP].median) &&
	    report_is_superlinear(p->field[RF_SPEEDUP].median,
				  p->config->threads, p->base_threads, p->cpus))
		p->flags |= REPORT_SUPERLINEAR;
	if (!isnan(p->field[RF_PROGRAM_NS].median) &&
	    !(p->field[RF_NS_PER_OP].median > 0))
		p->flags |= REPORT_BELOW_BASELINE;
}

int report_parse_format(const char *name, enum report_format *out)
{
	static const char *const names[] = { "table", "jsonl", "csv" };
	for (int i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (enum report_format)i;
			return 0;
		}
	return -1;
}

/* --- table ---------------------------------------------------------------------- */

/* "lookup 100%, update all but 3": what each kind of op answered. */
static void format_succeeded(const struct report_point *p, char *buf,
			     size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int op = 0; op < OP_COUNT && off < len; op++) {
		uint64_t n = p->ok[op] + p->fail[op];
		if (!n)
			continue;
		/* A few failures in millions must not round away: name them. */
		double pct = 100.0 * (double)p->ok[op] / (double)n;
		if (p->fail[op] && pct > 99.5)
			off += (size_t)snprintf(buf + off, len - off, "%s%s all but %llu",
						off ? ", " : "", bench_op_names[op],
						(unsigned long long)p->fail[op]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%s %.0f%%",
						off ? ", " : "", bench_op_names[op],
						pct);
	}
}

static void format_flags(unsigned flags, const char *sep, char *buf,
			 size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < N_FLAGS && off < len; i++)
		if (flags & (1u << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						off ? sep : "", flag_names[i]);
}

/* The name column: wide enough for the longest label, at least 16. */
static int name_width(const struct report_point *points, unsigned n)
{
	size_t width = 16;
	for (unsigned i = 0; i < n; i++)
		if (points[i].runs && strlen(points[i].label) > width)
			width = strlen(points[i].label);
	return (int)width;
}

static void table_header(FILE *f, int width)
{
	fprintf(f, "%-*s %7s %9s %8s %7s %7s %7s %7s %8s  %s\n", width, "map",
		"threads", "Mops/s", "ns/op", "p50", "p90", "p99", "p99.9",
		"B/entry", "ops that succeeded");
}

/* After the name and threads columns: one value of each figure. */
static void table_figures(FILE *f, const struct report_point *p,
			  enum spread_part which)
{
	const struct spread *s = p->field;
	fprintf(f, " %9.2f %8.1f", spread_part(&s[RF_MOPS], which),
		spread_part(&s[RF_NS_PER_OP], which));
	for (int q = 0; q < N_QUANTILES; q++)
		if (isnan(s[RF_P50 + q].median))
			fprintf(f, " %7s", "-");
		else
			fprintf(f, " %7.0f", spread_part(&s[RF_P50 + q], which));
	if (isnan(s[RF_BYTES_PER_ENTRY].median))
		fprintf(f, " %8s", "-");
	else
		fprintf(f, " %8.1f", spread_part(&s[RF_BYTES_PER_ENTRY], which));
}

typedef void (*row_figures)(FILE *f, const struct report_point *p,
			    enum spread_part which);

/* A point's row (name, threads, its medians, then `tail`) and, when it has
 * repeats, rows of its minima and maxima under it. */
static void spread_rows(FILE *f, const struct report_point *p, int width,
			row_figures figures, const char *tail)
{
	fprintf(f, "%-*s %7u", width, p->label, p->config->threads);
	figures(f, p, SPREAD_MEDIAN);
	fprintf(f, "%s\n", tail);
	for (int part = SPREAD_MIN; part <= SPREAD_MAX && p->runs > 1; part++) {
		fprintf(f, "%-*s %7s", width, "", part == SPREAD_MIN ? "min" : "max");
		figures(f, p, (enum spread_part)part);
		fputc('\n', f);
	}
}

static void row_table(FILE *f, const struct report_point *p, int width)
{
	char succeeded[160], flags[64], tail[256];
	format_succeeded(p, succeeded, sizeof(succeeded));
	format_flags(p->flags, ", ", flags, sizeof(flags));
	snprintf(tail, sizeof(tail), "  %s%s%s", succeeded,
		 p->flags ? "   ! " : "", flags);
	spread_rows(f, p, width, table_figures, tail);
}

static void note_superlinear(FILE *f, const struct report_point *p)
{
	const struct spread *s = &p->field[RF_SPEEDUP];
	unsigned most = p->config->threads < p->cpus ? p->config->threads
						      : p->cpus;
	unsigned base = p->base_threads < p->cpus ? p->base_threads : p->cpus;
	fprintf(f, "  %s, %u threads: superlinear: %.2fx the Mops/s at %u "
		"thread%s (%.2fx to %.2fx over %u repeats), where %u CPU%s can "
		"give at most %.2fx\n", p->label, p->config->threads, s->median,
		p->base_threads, p->base_threads == 1 ? "" : "s", s->min, s->max,
		p->runs, p->cpus, p->cpus == 1 ? "" : "s", (double)most / base);
}

static void note_wide_spread(FILE *f, const struct report_point *p)
{
	const struct spread *s = &p->field[RF_MOPS];
	fprintf(f, "  %s, %u thread%s: wide spread: Mops/s from %.2f to %.2f "
		"over %u repeats (%.1fx)\n", p->label, p->config->threads,
		p->config->threads == 1 ? "" : "s", s->min, s->max, p->runs,
		s->min > 0 ? s->max / s->min : INFINITY);
}

static void note_below_baseline(FILE *f, const struct report_point *p)
{
	fprintf(f, "  %s, %u thread%s: below baseline: the program took %.1f "
		"ns a step and its baseline %.1f: the map call is lost in the "
		"loop's own noise (more --run-ops or --repeat, or a quieter "
		"machine)\n", p->label, p->config->threads,
		p->config->threads == 1 ? "" : "s",
		p->field[RF_PROGRAM_NS].median, p->field[RF_BASELINE_NS].median);
}

void report_write_notes(FILE *f, const struct report_point *points,
			unsigned n)
{
	bool any = false;
	for (unsigned i = 0; i < n; i++) {
		const struct report_point *p = &points[i];
		if (!p->runs || !p->flags)
			continue;
		if (!any)
			fputs("\n! flagged: figures this machine cannot have given "
			      "as they stand; see docs/bench.md, \"Flagged "
			      "results\"\n", f);
		any = true;
		if (p->flags & REPORT_SUPERLINEAR)
			note_superlinear(f, p);
		if (p->flags & REPORT_WIDE_SPREAD)
			note_wide_spread(f, p);
		if (p->flags & REPORT_BELOW_BASELINE)
			note_below_baseline(f, p);
	}
}

/* Whether an earlier point than points[i] has its label and source. */
static bool source_named_before(const struct report_point *points,
				unsigned i)
{
	for (unsigned k = 0; k < i; k++)
		if (points[k].runs &&
		    points[k].memory_from == points[i].memory_from &&
		    strcmp(points[k].label, points[i].label) == 0)
			return true;
	return false;
}

void report_write_memory_sources(FILE *f, const struct report_point *points,
				 unsigned n)
{
	static const char *const sources[] = {
		[BENCH_MEMORY_DESIGN] = "the design's own count",
		[BENCH_MEMORY_ALLOCATOR] = "jemalloc's allocated bytes after an "
					   "RCU barrier, less those before "
					   "the map",
		[BENCH_MEMORY_KERNEL] = "the kernel's memlock (fdinfo)",
	};
	bool any = false;
	for (int from = BENCH_MEMORY_DESIGN; from <= BENCH_MEMORY_KERNEL;
	     from++) {
		bool named = false; /* a label of this source written */
		for (unsigned i = 0; i < n; i++) {
			const struct report_point *p = &points[i];
			if (!p->runs || (int)p->memory_from != from ||
			    source_named_before(points, i))
				continue;
			if (!named)
				fprintf(f, "%s%s: ", any ? "; from " :
					"bytes per entry: the map's bytes after "
					"the prefill over max_entries; from ",
					sources[from]);
			fprintf(f, "%s%s", named ? ", " : "", p->label);
			named = any = true;
		}
	}
	if (any)
		fputc('\n', f);
}

/* --- the work table ------------------------------------------------------------ */

/* The columns, lock ns last: it is shown only where a point has it, so a
 * table of designs that time no lock keeps its five columns. */
static const enum report_field work_fields[] = {
	RF_EVICTIONS_PER_OP, RF_NODES_SCANNED_PER_OP, RF_LOCKS_PER_OP,
	RF_EVICTIONS_PER_REFILL, RF_ALLOCATIONS_PER_OP, RF_LOCK_NS_PER_OP,
};
#define N_WORK_FIELDS (sizeof(work_fields) / sizeof(work_fields[0]))
#define WORK_CELL 13

static bool has_work_figures(const struct report_point *p)
{
	return p->runs && !isnan(p->field[RF_EVICTIONS_PER_OP].median);
}

static bool has_lock_time(const struct report_point *points, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (has_work_figures(&points[i]) &&
		    !isnan(points[i].field[RF_LOCK_NS_PER_OP].median))
			return true;
	return false;
}

static void work_cells(FILE *f, const struct report_point *p,
		       enum spread_part which, size_t n_fields)
{
	for (size_t i = 0; i < n_fields; i++) {
		const struct spread *s = &p->field[work_fields[i]];
		if (isnan(spread_part(s, which)))
			fprintf(f, " %*s", WORK_CELL, "-");
		else
			fprintf(f, " %*.3f", WORK_CELL, spread_part(s, which));
	}
}

/* A row of a table without the lock ns column, and of one with it. */
static void work_figures(FILE *f, const struct report_point *p,
			 enum spread_part which)
{
	work_cells(f, p, which, N_WORK_FIELDS - 1);
}

static void work_figures_timed(FILE *f, const struct report_point *p,
			       enum spread_part which)
{
	work_cells(f, p, which, N_WORK_FIELDS);
}

void report_write_work(FILE *f, const struct report_point *points,
		       unsigned n)
{
	bool any = false, timed = has_lock_time(points, n);
	int width = name_width(points, n);
	for (unsigned i = 0; i < n; i++) {
		const struct report_point *p = &points[i];
		if (!has_work_figures(p))
			continue;
		if (!any) {
			fprintf(f, "\nwork per op (the timed ops' own; "
				"docs/bench.md, \"Work per op\")\n%-*s %7s %*s "
				"%*s %*s %*s %*s", width, "map", "threads",
				WORK_CELL, "evictions", WORK_CELL, "nodes scanned",
				WORK_CELL, "locks", WORK_CELL, "evict/refill",
				WORK_CELL, "allocations");
			if (timed)
				fprintf(f, " %*s", WORK_CELL, "lock ns");
			fputc('\n', f);
		}
		any = true;
		spread_rows(f, p, width,
			    timed ? work_figures_timed : work_figures, "");
	}
}

static const struct report_point *first_measured(
	const struct report_point *points, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (points[i].runs)
			return &points[i];
	return NULL;
}

void report_write_probe(FILE *f, const struct report_point *points,
			unsigned n)
{
	const struct report_point *p = first_measured(points, n);
	if (!p || isnan(p->field[RF_PROBE_NS].median))
		return;
	const struct spread *s = &p->field[RF_PROBE_NS];
	fprintf(f, "reference probe: %.1f ns a step", s->median);
	if (p->runs > 1)
		fprintf(f, " (%.1f to %.1f over %u repeats)", s->min, s->max,
			p->runs);
	fputs(": the same pointer chase before each repeat; a higher figure "
	      "than another run's here means a busier machine\n", f);
}

static void write_table(FILE *f, const struct host_record *host,
			const struct report_point *points, unsigned n)
{
	int width = name_width(points, n);
	table_header(f, width);
	for (unsigned i = 0; i < n; i++)
		if (points[i].runs)
			row_table(f, &points[i], width);
	report_write_notes(f, points, n);
	report_write_work(f, points, n);
	fputs("\nlatency columns in ns (sampled ops, each including one clock "
	      "read); with repeats, each figure is its median, min and max\n", f);
	report_write_memory_sources(f, points, n);
	host_record_line(f, host);
	report_write_probe(f, points, n);
}

/* --- jsonl and csv ------------------------------------------------------------ */

static void jsonl_field(FILE *f, const struct field_spec *spec,
			const struct spread *s)
{
	static const char *const suffix[] = { "", "_min", "_max" };
	const double values[] = { s->median, s->min, s->max };
	for (int i = 0; i < 3; i++) {
		fprintf(f, ",\"%s%s\":", spec->name, suffix[i]);
		fprintf(f, spec->format, values[i]);
	}
}

static void jsonl_runs(FILE *f, const char *name,
		       const struct report_point *p, enum report_field field)
{
	fprintf(f, ",\"%s\":[", name);
	for (unsigned r = 0; r < p->runs; r++) {
		fputs(r ? "," : "", f);
		if (isnan(p->run[r].v[field]))
			fputs("null", f);
		else
			fprintf(f, fields[field].format, p->run[r].v[field]);
	}
	putc(']', f);
}

static void jsonl_counts(FILE *f, const char *name, const uint64_t *counts)
{
	fprintf(f, ",\"%s\":{", name);
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(f, "%s\"%s\":%llu", op ? "," : "", bench_op_names[op],
			(unsigned long long)counts[op]);
	putc('}', f);
}

static void row_jsonl(FILE *f, const struct report_point *p)
{
	const struct bench_config *c = p->config;
	char mix[96], dist[48];

	workload_format_mix(c->w.mix, mix, sizeof(mix));
	workload_format_dist(&c->w, dist, sizeof(dist));
	fprintf(f, "{\"record\":\"result\",\"side\":\"%s\",\"map\":", p->side);
	json_string(f, p->map);
	fputs(",\"label\":", f);
	json_string(f, p->label);
	fprintf(f, ",\"mix\":\"%s\",\"dist\":\"%s\",\"threads\":%u,"
		"\"entries\":%u", mix, dist, c->threads, c->w.entries);
	if (c->w.key_range)
		fprintf(f, ",\"key_range\":%u", c->w.key_range);
	if (c->w.prefixes)
		fprintf(f, ",\"prefixes\":\"%s\",\"hit_ratio\":%g",
			prefix_set_name(c->w.prefixes), workload_hit_ratio(&c->w));
	fprintf(f, ",\"key_size\":%u,\"value_size\":%u,\"prefill\":%u,"
		"\"map_flags\":%u,\"runs\":%u", c->w.key_size, c->w.value_size,
		c->w.prefill_pct, c->map_flags, p->runs);
	for (int field = 0; field < RF_COUNT; field++) {
		if (isnan(p->field[field].median))
			continue;
		jsonl_field(f, &fields[field], &p->field[field]);
		if (field == RF_BYTES_PER_ENTRY && p->memory_from)
			fprintf(f, ",\"memory_from\":\"%s\"",
				bench_memory_from_name(p->memory_from));
	}
	if (!isnan(p->field[RF_SPEEDUP].median))
		fprintf(f, ",\"speedup_over_threads\":%u", p->base_threads);
	jsonl_runs(f, "mops_runs", p, RF_MOPS);
	jsonl_runs(f, "probe_ns_runs", p, RF_PROBE_NS);
	fputs(",\"flags\":[", f);
	for (int i = 0, first = 1; i < N_FLAGS; i++)
		if (p->flags & (1u << i)) {
			fprintf(f, "%s\"%s\"", first ? "" : ",", flag_names[i]);
			first = 0;
		}
	putc(']', f);
	jsonl_counts(f, "ok", p->ok);
	jsonl_counts(f, "fail", p->fail);
	fputs("}\n", f);
}

static void csv_header(FILE *f)
{
	fputs("side,map,label,mix,dist,threads,entries,key_range,prefixes,"
	      "hit_ratio,key_size,value_size,prefill,map_flags,runs", f);
	for (int i = 0; i < RF_COUNT; i++) {
		fprintf(f, ",%s,%s_min,%s_max", fields[i].name, fields[i].name,
			fields[i].name);
		if (i == RF_BYTES_PER_ENTRY)
			fputs(",memory_from", f);
	}
	fputs(",flags", f);
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(f, ",%s_ok,%s_fail", bench_op_names[op],
			bench_op_names[op]);
	fputc('\n', f);
}

static void row_csv(FILE *f, const struct report_point *p)
{
	const struct bench_config *c = p->config;
	char mix[96], dist[48], flags[64], range[16] = "", hits[16] = "";

	workload_format_mix(c->w.mix, mix, sizeof(mix));
	workload_format_dist(&c->w, dist, sizeof(dist));
	if (c->w.key_range)
		snprintf(range, sizeof(range), "%u", c->w.key_range);
	if (c->w.prefixes)
		snprintf(hits, sizeof(hits), "%g", workload_hit_ratio(&c->w));
	fprintf(f, "%s,%s,\"%s\",\"%s\",%s,%u,%u,%s,%s,%s,%u,%u,%u,%u,%u",
		p->side, p->map, p->label, mix, dist, c->threads, c->w.entries,
		range, c->w.prefixes ? prefix_set_name(c->w.prefixes) : "", hits,
		c->w.key_size, c->w.value_size, c->w.prefill_pct, c->map_flags,
		p->runs);
	for (int i = 0; i < RF_COUNT; i++) {
		const struct spread *s = &p->field[i];
		const double values[] = { s->median, s->min, s->max };
		for (int k = 0; k < 3; k++) {
			putc(',', f);
			if (!isnan(values[k]))
				fprintf(f, fields[i].format, values[k]);
		}
		if (i == RF_BYTES_PER_ENTRY)
			fprintf(f, ",%s", p->memory_from ?
				bench_memory_from_name(p->memory_from) : "");
	}
	format_flags(p->flags, "|", flags, sizeof(flags));
	fprintf(f, ",%s", flags);
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(f, ",%llu,%llu", (unsigned long long)p->ok[op],
			(unsigned long long)p->fail[op]);
	fputc('\n', f);
}

void report_write(FILE *out, enum report_format format,
		  const struct host_record *host,
		  const struct report_point *points, unsigned n)
{
	if (format == REPORT_TABLE) {
		write_table(out, host, points, n);
	} else if (format == REPORT_JSONL) {
		fputs("{\"record\":\"host\",\"host\":", out);
		host_record_json(out, host);
		fputs("}\n", out);
		for (unsigned i = 0; i < n; i++)
			if (points[i].runs)
				row_jsonl(out, &points[i]);
	} else {
		csv_header(out);
		for (unsigned i = 0; i < n; i++)
			if (points[i].runs)
				row_csv(out, &points[i]);
	}
	fflush(out);
}
