/* SPDX-License-Identifier: MIT */
/*
 * report.c: repeats summed up into medians and spreads, the flags, and a
 * point as a "result" record (record.h), which record.h's writer prints as
 * jsonl, csv or a table row.  One table of figures (name, printf format)
 * describes them all, so every figure gets its _min and _max alike.  The
 * table's own sentences stay here: the notes on flagged points, where the
 * bytes per entry came from, the probe's line; its two tables (the points,
 * the work per op) are the writer's.
 */
#include "harness/results/report.h"
#include "harness/bench/phase.h"
#include "harness/common/wrap.h"
#include "maps/base/area.h"

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
	[RF_FREE_MS] = { "free_ms", "%.6f" },
	[RF_FREE_RCU_MS] = { "free_rcu_ms", "%.6f" },
	[RF_FREE_WALK_MS] = { "free_walk_ms", "%.6f" },
	[RF_PLAIN_RATIO] = { "plain_ratio", "%.4f" },
};

static const char *const flag_names[] = { "superlinear", "wide_spread",
					   "below_baseline", "writes_failed" };
#define N_FLAGS 4

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
	run->maps_freed = r->maps_freed;
	run->free_timer = r->free_timer;
	if (r->maps_freed) {
		run->v[RF_FREE_MS] = r->free_ns / 1e6;
		run->v[RF_FREE_RCU_MS] = r->free_rcu_ns / 1e6;
		run->v[RF_FREE_WALK_MS] = r->free_walk_ns / 1e6;
	}
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
			 const struct report_point *ref,
			 enum report_field into)
{
	for (unsigned r = 0; r < p->runs && r < ref->runs; r++) {
		double by = ref->run[r].v[RF_NS_PER_OP];
		p->run[r].v[into] = by > 0 ? p->run[r].v[RF_NS_PER_OP] / by : NAN;
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
	p->maps_freed = 0;
	p->free_timer = NULL;
	for (unsigned r = 0; r < n; r++) {
		p->maps_freed += p->run[r].maps_freed;
		if (!p->free_timer)
			p->free_timer = p->run[r].free_timer;
	}
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
	if (report_write_fail_share(p->ok, p->fail) > REPORT_FAIL_LIMIT)
		p->flags |= REPORT_WRITES_FAILED;
}

double report_write_fail_share(const uint64_t ok[OP_COUNT],
			       const uint64_t fail[OP_COUNT])
{
	uint64_t all = 0, failed = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		if (op == OP_LOOKUP) /* a miss is the workload's choice */
			continue;
		all += ok[op] + fail[op];
		failed += fail[op];
	}
	return all ? (double)failed / (double)all : NAN;
}

int report_parse_format(const char *name, enum report_format *out)
{
	enum record_format f;
	if (record_parse_format(name, &f))
		return -1;
	*out = (enum report_format)f;
	return 0;
}

/* --- the record ------------------------------------------------------------------ */

/* "lookup 100%, update all but 3": what each kind of op answered. */
static void format_succeeded(const struct report_point *p, char *buf,
			     size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	if (p->maps_freed) /* --lpm-op free: no op, whole maps */
		off += (size_t)snprintf(buf, len, "%llu map%s of %u prefixes freed",
					(unsigned long long)p->maps_freed,
					p->maps_freed == 1 ? "" : "s",
					p->config->w.entries);
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

/* The names of p's flags, in flag order: how many. */
static unsigned flag_words(const struct report_point *p,
			   const char *words[N_FLAGS])
{
	unsigned n = 0;
	for (int i = 0; i < N_FLAGS; i++)
		if (p->flags & (1u << i))
			words[n++] = flag_names[i];
	return n;
}

/* The kernel's LPM benchmark's fields (report.h), last, so that the
 * records of other workloads keep every field where it was: lpm_op,
 * maps_freed and the free's figures, left out of the jsonl where not
 * measured. */
static void report_record_lpm(const struct report_point *p, struct record *r)
{
	enum bench_lpm_op op = p->config->lpm_op;
	record_text(r, "lpm_op", op ? bench_lpm_op_name(op) : NULL)->flags =
		RECORD_OMIT;
	struct record_field *x = record_whole(r, "maps_freed", p->maps_freed);
	x->missing = !p->maps_freed;
	x->flags = RECORD_OMIT;
	for (int f = RF_FIRST_LATE; f < RF_COUNT; f++) {
		const struct spread *s = &p->field[f];
		record_spread(r, fields[f].name, fields[f].format, s->median,
			      s->min, s->max)->flags = RECORD_OMIT;
	}
	record_text(r, "free_timer", p->free_timer)->flags = RECORD_OMIT;
}

/*
 * p as a "result" record: the fields of report.h's top, in that order,
 * then "succeeded", the table's sentence of what each op answered and
 * the flags.  Every figure is a spread, left out of the jsonl where not
 * measured; csv gets every column.
 */
static void report_record(const struct report_point *p, struct record *r)
{
	const struct bench_config *c = p->config;
	const char *flags[N_FLAGS];
	unsigned n_flags = flag_words(p, flags);
	char mix[96], dist[48], line[256];
	struct record_field *x;
	double runs[REPORT_MAX_RUNS];
	unsigned n_runs = p->runs < REPORT_MAX_RUNS ? p->runs : REPORT_MAX_RUNS;

	record_init(r, "result");
	r->spread_rows = p->runs > 1;
	workload_format_mix(c->w.mix, mix, sizeof(mix));
	workload_format_dist(&c->w, dist, sizeof(dist));
	record_text(r, "side", p->side);
	record_text(r, "map", p->map);
	record_text(r, "label", p->label);
	record_textf(r, "mix", "%s", mix);
	record_textf(r, "dist", "%s", dist);
	record_whole(r, "threads", c->threads);
	record_whole(r, "entries", c->w.entries);
	x = record_whole(r, "key_range", c->w.key_range);
	x->missing = !c->w.key_range; /* the pool model */
	x->flags = RECORD_OMIT;
	record_text(r, "prefixes", c->w.prefixes ? prefix_set_name(c->w.prefixes)
						 : NULL)->flags = RECORD_OMIT;
	record_figure(r, "hit_ratio", "%g", c->w.prefixes ? workload_hit_ratio(&c->w)
							  : NAN)->flags = RECORD_OMIT;
	record_whole(r, "key_size", c->w.key_size);
	record_whole(r, "value_size", c->w.value_size);
	record_whole(r, "prefill", c->w.prefill_pct);
	x = record_whole(r, "batch", c->w.batch > 1 ? c->w.batch : 1);
	x->flags = RECORD_OMIT | RECORD_NO_CSV;
	x->missing = c->w.batch <= 1;
	x = record_bool(r, "hugepages", true);
	x->missing = !map_hugepages(); /* --hugepages: written where on */
	x->flags = RECORD_OMIT | RECORD_NO_CSV;
	record_whole(r, "map_flags", c->map_flags);
	record_whole(r, "runs", p->runs);
	for (int f = 0; f < RF_FIRST_LATE; f++) {
		const struct spread *s = &p->field[f];
		record_spread(r, fields[f].name, fields[f].format, s->median, s->min,
			      s->max)->flags = RECORD_OMIT;
		if (f == RF_BYTES_PER_ENTRY)
			record_text(r, "memory_from", bench_memory_from_name(
				p->memory_from))->flags = RECORD_OMIT;
	}
	x = record_whole(r, "speedup_over_threads", p->base_threads);
	x->missing = isnan(p->field[RF_SPEEDUP].median);
	x->flags = RECORD_OMIT | RECORD_NO_CSV;
	for (unsigned i = 0; i < n_runs; i++)
		runs[i] = p->run[i].v[RF_MOPS];
	record_figures(r, "mops_runs", fields[RF_MOPS].format, runs,
		       n_runs)->flags = RECORD_NO_CSV;
	for (unsigned i = 0; i < n_runs; i++)
		runs[i] = p->run[i].v[RF_NS_PER_OP];
	record_figures(r, "ns_per_op_runs", fields[RF_NS_PER_OP].format, runs,
		       n_runs)->flags = RECORD_NO_CSV;
	for (unsigned i = 0; i < n_runs; i++)
		runs[i] = p->run[i].v[RF_PROBE_NS];
	record_figures(r, "probe_ns_runs", fields[RF_PROBE_NS].format, runs,
		       n_runs)->flags = RECORD_NO_CSV;
	record_words(r, "flags", flags, n_flags);
	for (int op = 0; op < OP_COUNT; op++) {
		record_whole(r, bench_op_names[op], p->ok[op])->group = "ok";
		record_whole(r, bench_op_names[op], p->fail[op])->group = "fail";
	}
	report_record_lpm(p, r);
	/* The table's last column: the sentence, then the flags. */
	format_succeeded(p, line, sizeof(line));
	size_t off = strlen(line);
	for (unsigned i = 0; i < n_flags && off < sizeof(line); i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s",
					i ? ", " : "   ! ", flags[i]);
	record_textf(r, "succeeded", "%s", line)->flags = RECORD_TABLE_ONLY;
}

/* The measured points' records, the host's first when host is not NULL:
 * how many; *out to free with free_records. */
static unsigned build_records(const struct host_record *host,
			      const struct report_point *points, unsigned n,
			      bool (*keep)(const struct report_point *),
			      struct record **out)
{
	struct record *r = calloc((size_t)n + 1, sizeof(*r));
	unsigned k = 0;
	if (!r) {
		fputs("maplab: out of memory writing the report\n", stderr);
		abort();
	}
	if (host)
		host_record_build(host, &r[k++]);
	for (unsigned i = 0; i < n; i++)
		if (keep(&points[i]))
			report_record(&points[i], &r[k++]);
	*out = r;
	return k;
}

static void free_records(struct record *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		record_free(&r[i]);
	free(r);
}

static bool measured(const struct report_point *p)
{
	return p->runs > 0;
}

/* --- the tables -------------------------------------------------------------------- */

/* The name column: wide enough for the longest label of the points a
 * table shows (keep), at least 16 (so that the work table lines up with
 * the first where they show the same maps). */
static int name_width(const struct report_point *points, unsigned n,
		      bool (*keep)(const struct report_point *))
{
	size_t width = 16;
	for (unsigned i = 0; i < n; i++)
		if (keep(&points[i]) && strlen(points[i].label) > width)
			width = strlen(points[i].label);
	return (int)width;
}

static void note_superlinear(FILE *f, const struct report_point *p)
{
	const struct spread *s = &p->field[RF_SPEEDUP];
	unsigned most = p->config->threads < p->cpus ? p->config->threads
						      : p->cpus;
	unsigned base = p->base_threads < p->cpus ? p->base_threads : p->cpus;
	wrap_printf(f, "  %s, %u threads: superlinear: %.2fx the Mops/s at %u "
		"thread%s (%.2fx to %.2fx over %u repeats), where %u CPU%s can "
		"give at most %.2fx\n", p->label, p->config->threads, s->median,
		p->base_threads, p->base_threads == 1 ? "" : "s", s->min, s->max,
		p->runs, p->cpus, p->cpus == 1 ? "" : "s", (double)most / base);
}

static void note_wide_spread(FILE *f, const struct report_point *p)
{
	const struct spread *s = &p->field[RF_MOPS];
	wrap_printf(f, "  %s, %u thread%s: wide spread: Mops/s from %.2f to %.2f "
		"over %u repeats (%.1fx)\n", p->label, p->config->threads,
		p->config->threads == 1 ? "" : "s", s->min, s->max, p->runs,
		s->min > 0 ? s->max / s->min : INFINITY);
}

static void note_below_baseline(FILE *f, const struct report_point *p)
{
	wrap_printf(f, "  %s, %u thread%s: below baseline: the program took %.1f "
		"ns a step and its baseline %.1f: the map call is lost in the "
		"loop's own noise (more --run-ops or --repeat, or a quieter "
		"machine)\n", p->label, p->config->threads,
		p->config->threads == 1 ? "" : "s",
		p->field[RF_PROGRAM_NS].median, p->field[RF_BASELINE_NS].median);
}

static void note_writes_failed(FILE *f, const struct report_point *p)
{
	char ops[160];
	format_succeeded(p, ops, sizeof(ops));
	wrap_printf(f, "  %s, %u thread%s: writes failed: %.0f%% of the updates, "
		"inserts and deletes failed (succeeded: %s): the figure prices "
		"refusals more than the ops asked (give the map room: --prefill, "
		"--entries; or a mix that can run)\n", p->label, p->config->threads,
		p->config->threads == 1 ? "" : "s",
		100 * report_write_fail_share(p->ok, p->fail), ops);
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
			wrap_write(f, "\n! flagged: figures not to take as they "
				   "stand (this machine cannot have given them, "
				   "or they do not measure what was asked); see "
				   "docs/bench.md, \"Flagged results\"\n");
		any = true;
		if (p->flags & REPORT_SUPERLINEAR)
			note_superlinear(f, p);
		if (p->flags & REPORT_WIDE_SPREAD)
			note_wide_spread(f, p);
		if (p->flags & REPORT_BELOW_BASELINE)
			note_below_baseline(f, p);
		if (p->flags & REPORT_WRITES_FAILED)
			note_writes_failed(f, p);
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
	struct wrap_buffer line;
	FILE *l = wrap_begin(&line);
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
				fprintf(l, "%s%s: ", any ? "; from " :
					"bytes per entry: the map's bytes after "
					"the prefill over max_entries; from ",
					sources[from]);
			fprintf(l, "%s%s", named ? ", " : "", p->label);
			named = any = true;
		}
	}
	if (any)
		fputc('\n', l);
	wrap_end(&line, f);
}

/* --- the work table ------------------------------------------------------------ */

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

void report_write_work(FILE *f, const struct report_point *points,
		       unsigned n)
{
	/* Lock ns last: shown only where a point has it, so a table of
	 * designs that time no lock keeps its five columns. */
	struct record_column cols[] = {
		{ "map", "label", name_width(points, n, has_work_figures),
		  RECORD_LEFT, NULL, 0 },
		{ "threads", "threads", 7, RECORD_PART, NULL, 0 },
		{ "evictions", "evictions_per_op", 12, 0, "%.3f", 0 },
		{ "nodes scanned", "nodes_scanned_per_op", 12, 0, "%.3f", 0 },
		{ "locks", "locks_per_op", 12, 0, "%.3f", 0 },
		{ "evict/refill", "evictions_per_refill", 12, 0, "%.3f", 0 },
		{ "allocations", "allocations_per_op", 12, 0, "%.3f", 0 },
		{ "lock ns", "lock_ns_per_op", 12, 0, "%.3f", 0 },
	};
	unsigned n_cols = sizeof(cols) / sizeof(cols[0]);
	struct record *records;
	unsigned k = build_records(NULL, points, n, has_work_figures, &records);
	if (k) {
		fputs("\nwork per op (the timed ops' own; docs/bench.md, \"Work per "
		      "op\")\n", f);
		record_write(f, RECORD_TABLE, records, k, cols,
			     has_lock_time(points, n) ? n_cols : n_cols - 1);
	}
	free_records(records, k);
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
	struct wrap_buffer line;
	FILE *l = wrap_begin(&line);
	fprintf(l, "reference probe: %.1f ns a step", s->median);
	if (p->runs > 1)
		fprintf(l, " (%.1f to %.1f over %u repeats)", s->min, s->max,
			p->runs);
	fputs(": the same pointer chase before each repeat; a higher figure "
	      "than another run's here means a busier machine\n", l);
	wrap_end(&line, f);
}

/* The LPM benchmark's op of the measured points (one run has one). */
static enum bench_lpm_op lpm_op_of(const struct report_point *points,
				   unsigned n)
{
	const struct report_point *p = first_measured(points, n);
	return p ? p->config->lpm_op : BENCH_LPM_NONE;
}

const char *report_free_timer_words(const struct report_point *points,
				    unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const char *t = points[i].free_timer;
		if (!t)
			continue;
		return strcmp(t, "fentry") == 0
			? "fentry and fexit programs on bpf_map_free_deferred"
			: "the workqueue's execute_start and execute_end "
			  "tracepoints around bpf_map_free_deferred (this kernel "
			  "refused fentry)";
	}
	return NULL;
}

/*
 * The table of a whole-map phase (--lpm-op insert, delete, free): no
 * latencies (a pass is timed whole); ns per key, or a free's ms per map,
 * ns per prefix and, for designs, its two parts.  True where the points
 * are such a phase's (and the table is written).
 */
static bool write_phase_table(FILE *f, const struct record *records,
			      unsigned k, const struct report_point *points,
			      unsigned n)
{
	const int name = name_width(points, n, measured);
	const struct record_column pass_cols[] = {
		{ "map", "label", name, RECORD_LEFT, NULL, 0 },
		{ "threads", "threads", 7, RECORD_PART, NULL, 0 },
		{ "Mops/s", "mops", 9, 0, "%.2f", 0 },
		{ "ns/key", "ns_per_op", 8, 0, "%.1f", 0 },
		{ "B/entry", "bytes_per_entry", 8, 0, "%.1f", 0 },
		{ "ops that succeeded", "succeeded", 0, RECORD_LEFT, NULL, 2 },
	};
	const struct record_column free_cols[] = {
		{ "map", "label", name, RECORD_LEFT, NULL, 0 },
		{ "threads", "threads", 7, RECORD_PART, NULL, 0 },
		{ "ms/map", "free_ms", 9, 0, "%.3f", 0 },
		{ "ns/prefix", "ns_per_op", 9, 0, "%.1f", 0 },
		{ "RCU ms", "free_rcu_ms", 9, 0, "%.3f", 0 },
		{ "walk+free ms", "free_walk_ms", 12, 0, "%.3f", 0 },
		{ "B/entry", "bytes_per_entry", 8, 0, "%.1f", 0 },
		{ "maps", "succeeded", 0, RECORD_LEFT, NULL, 2 },
	};
	enum bench_lpm_op op = lpm_op_of(points, n);
	if (!bench_lpm_op_is_phase(op))
		return false;
	if (op == BENCH_LPM_FREE)
		record_write(f, RECORD_TABLE, records, k, free_cols,
			     sizeof(free_cols) / sizeof(free_cols[0]));
	else
		record_write(f, RECORD_TABLE, records, k, pass_cols,
			     sizeof(pass_cols) / sizeof(pass_cols[0]));
	report_write_notes(f, points, n);
	report_write_work(f, points, n);
	const char *timer = report_free_timer_words(points, n);
	if (op == BENCH_LPM_FREE)
		wrap_printf(f, "\nms/map: the free of a map of the N prefixes, "
			   "timed whole (a design's destroy%s%s); ns/prefix: the "
			   "same over N; RCU ms and "
			   "walk+free ms: where a design's destroy spent it, its "
			   "wait for the RCU callbacks the map queued and its walk "
			   "and frees (docs/bench.md, \"The kernel's LPM "
			   "benchmark\"); with repeats, each figure is its median, "
			   "min and max\n", timer ? "; the kernel's, timed by " : "",
			   timer ? timer : "");
	else
		wrap_printf(f, "\nns/key: one pass over the N prefixes, %s, timed "
			    "whole (no op sampled alone), over N; the map %s "
			    "between passes, untimed (docs/bench.md, \"The "
			    "kernel's LPM benchmark\"); with repeats, each figure "
			    "is its median, min and max\n",
			    op == BENCH_LPM_INSERT ? "each into an empty map "
			    "(BPF_NOEXIST)" : "each deleting a key of a full map",
			    op == BENCH_LPM_INSERT ? "emptied" : "refilled");
	return true;
}

static void write_table(FILE *f, const struct record *records, unsigned k,
			const struct host_record *host,
			const struct report_point *points, unsigned n)
{
	if (write_phase_table(f, records, k, points, n)) {
		report_write_memory_sources(f, points, n);
		host_record_line(f, host);
		report_write_probe(f, points, n);
		return;
	}
	const struct record_column cols[] = {
		{ "map", "label", name_width(points, n, measured), RECORD_LEFT,
		  NULL, 0 },
		{ "threads", "threads", 7, RECORD_PART, NULL, 0 },
		{ "Mops/s", "mops", 9, 0, "%.2f", 0 },
		{ "ns/op", "ns_per_op", 8, 0, "%.1f", 0 },
		{ "p50", "p50_ns", 7, 0, "%.0f", 0 },
		{ "p90", "p90_ns", 7, 0, "%.0f", 0 },
		{ "p99", "p99_ns", 7, 0, "%.0f", 0 },
		{ "p99.9", "p999_ns", 7, 0, "%.0f", 0 },
		{ "B/entry", "bytes_per_entry", 8, 0, "%.1f", 0 },
		{ "ops that succeeded", "succeeded", 0, RECORD_LEFT, NULL, 2 },
	};
	record_write(f, RECORD_TABLE, records, k, cols,
		     sizeof(cols) / sizeof(cols[0]));
	report_write_notes(f, points, n);
	report_write_work(f, points, n);
	wrap_write(f, "\nlatency columns in ns (sampled ops, each including one "
		   "clock read; ops sampled rarely enough that the clock costs "
		   "at most 1 % of a run); with repeats, each figure is its "
		   "median, min and max\n");
	report_write_memory_sources(f, points, n);
	host_record_line(f, host);
	report_write_probe(f, points, n);
}

void report_write(FILE *out, enum report_format format,
		  const struct host_record *host,
		  const struct report_point *points, unsigned n)
{
	struct record *records;
	unsigned k = build_records(host, points, n, measured, &records);
	if (format == REPORT_TABLE) {
		write_table(out, records, k, host, points, n);
	} else if (format == REPORT_CSV && k == 1 && n) {
		/* No point measured: the header alone, from any point. */
		struct record any;
		report_record(&points[0], &any);
		record_write_csv_header(out, &any);
		record_free(&any);
	} else {
		record_write(out, (enum record_format)format, records, k, NULL, 0);
	}
	free_records(records, k);
	/* No fflush here: the caller's outfile flushes, and keeps a failed
	 * write's errno (a flush here would take it: glibc drops what a
	 * failed fflush held, and the next flush sees only the error flag). */
}
