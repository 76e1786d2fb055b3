/* SPDX-License-Identifier: MIT */
/*
 * explain_lpm.c: `maplab explain --lpm-op insert|delete|free`, where the
 * time of the kernel's LPM benchmark's whole-map phases goes
 * (harness/bench/phase.h), on the kernel's map and each design.
 *
 * A phase times a whole pass, or a whole free, on one thread: there is no
 * op to sample alone, so these are timed parts, not samples (--lpm-op
 * lookup and update are ops, and explain samples them as --op does).
 *
 *   insert, delete   ns per key of a pass; the kernel's split into its
 *                    program and its baseline (program - baseline: the
 *                    map calls); each design's work per key (nodes
 *                    walked, locks, allocations: report_write_work)
 *   free             ms per map; a design's split into its wait for RCU
 *                    (the callbacks the map queued) and its walk and
 *                    frees, each with its share; the kernel's timed
 *                    whole (bpf_map_free_deferred), no split
 *
 * The runs are measure.h's (the sides in turn, --repeat each), the
 * sides explain_runs.c's; --save writes one {"record":"explain"} a side.
 */
#include "cli/cli.h"
#include "cli/explain/explain.h"
#include "cli/measure/measure.h"
#include "harness/bench/phase.h"
#include "harness/common/wrap.h"
#include "harness/results/record.h"

#include <math.h>
#include <stdio.h>

/* "1.234 [1.200-1.300]": a spread as the report prints it. */
static void print_spread(FILE *f, const char *format, struct spread s)
{
	fprintf(f, format, s.median);
	fputs(" [", f);
	fprintf(f, format, s.min);
	fputc('-', f);
	fprintf(f, format, s.max);
	fputc(']', f);
}

/* part's share of whole, "(12%)", or nothing where either is unknown. */
static void print_share(FILE *f, double part, double whole)
{
	if (isfinite(part) && whole > 0)
		fprintf(f, " (%.0f%%)", 100 * part / whole);
}

static void print_free(FILE *f, const struct explain_point *p,
		       const struct measurement *m, const int *index)
{
	fprintf(f, "free of a map of %u prefixes, ms per map (median "
		"[min-max]):\n", p->entries);
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct report_point *pt = measure_point(m, (unsigned)index[i], 0);
		const struct spread *v = pt->field;
		fprintf(f, "  %-28s ", p->sides[i].label);
		print_spread(f, "%.3f", v[RF_FREE_MS]);
		if (p->sides[i].kernel) {
			fprintf(f, "  timed whole: bpf_map_free_deferred\n");
			continue;
		}
		fprintf(f, "\n  %-28s   RCU wait %.3f", "", v[RF_FREE_RCU_MS].median);
		print_share(f, v[RF_FREE_RCU_MS].median, v[RF_FREE_MS].median);
		fprintf(f, ", walk and frees %.3f", v[RF_FREE_WALK_MS].median);
		print_share(f, v[RF_FREE_WALK_MS].median, v[RF_FREE_MS].median);
		fputc('\n', f);
	}
	const char *timer = report_free_timer_words(m->points,
						    m->n_sides * m->n_threads);
	fputc('\n', f);
	wrap_printf(f, "where it goes: a design's free is its destroy: first its "
		    "wait for the RCU callbacks the map queued (nodes its fill "
		    "replaced: a grace period, and liburcu's call_rcu thread, "
		    "which sleeps between batches), then the walk of its "
		    "structure and the free of every node, timed together.  "
		    "The kernel's is bpf_map_free_deferred, timed whole%s%s: "
		    "trie_free's walk and frees, and what the work item does "
		    "around them; a grace period the kernel waits before it "
		    "(where a program used the map) is outside it, and this "
		    "map was used by none.\n\n", timer ? " by " : "",
		    timer ? timer : "");
}

static void print_pass(FILE *f, const struct explain_cli *c,
		       const struct explain_point *p,
		       const struct measurement *m, const int *index)
{
	fprintf(f, "%s pass over %u prefixes, ns per key (median [min-max]):\n",
		bench_lpm_op_name(c->b.lpm_op), p->entries);
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct report_point *pt = measure_point(m, (unsigned)index[i], 0);
		const struct spread *v = pt->field;
		fprintf(f, "  %-28s ", p->sides[i].label);
		print_spread(f, "%.1f", v[RF_NS_PER_OP]);
		if (p->sides[i].kernel)
			fprintf(f, "  the program %.1f, less its baseline %.1f",
				v[RF_PROGRAM_NS].median, v[RF_BASELINE_NS].median);
		fputc('\n', f);
	}
	report_write_work(f, m->points, m->n_sides * m->n_threads);
	fputc('\n', f);
	wrap_printf(f, "where it goes: each pass is timed whole, on one thread "
		    "(no op alone, so no samples); the kernel's pass runs in one "
		    "BPF program, and its baseline (every step but the map "
		    "call) is taken off; the work per key says what a design's "
		    "calls did (nodes walked, locks, allocations).\n\n");
}

/* One record a side: explain.h's fields for a phase (--save). */
static void write_records(FILE *f, const struct explain_cli *c,
			  const struct explain_point *p,
			  const struct measurement *m, const int *index)
{
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *s = &p->sides[i];
		const struct report_point *pt = measure_point(m, (unsigned)index[i], 0);
		const struct spread *v = pt->field;
		struct record r;
		explain_record_head(&r, c, p, s, bench_lpm_op_name(c->b.lpm_op));
		record_text(&r, "lpm_op", bench_lpm_op_name(c->b.lpm_op));
		record_spread(&r, "ns_per_op", "%.2f", v[RF_NS_PER_OP].median,
			      v[RF_NS_PER_OP].min, v[RF_NS_PER_OP].max);
		if (c->b.lpm_op == BENCH_LPM_FREE) {
			record_whole(&r, "maps_freed", pt->maps_freed);
			record_spread(&r, "free_ms", "%.6f", v[RF_FREE_MS].median,
				      v[RF_FREE_MS].min, v[RF_FREE_MS].max);
			if (!s->kernel) {
				record_figure(&r, "free_rcu_ms", "%.6f",
					      v[RF_FREE_RCU_MS].median);
				record_figure(&r, "free_walk_ms", "%.6f",
					      v[RF_FREE_WALK_MS].median);
			}
			record_text(&r, "free_timer", pt->free_timer);
		} else if (s->kernel) {
			record_figure(&r, "program_ns", "%.2f",
				      v[RF_PROGRAM_NS].median);
			record_figure(&r, "baseline_ns", "%.2f",
				      v[RF_BASELINE_NS].median);
		}
		record_write(f, RECORD_JSONL, &r, 1, NULL, 0);
		record_free(&r);
	}
}

int explain_lpm_size(const struct explain_cli *c, uint32_t entries, FILE *out)
{
	struct bench_cli b = c->b;
	struct explain_point p = { .entries = entries };
	struct measurement m = { 0 };
	int index[EXPLAIN_MAX_SIDES];

	explain_at_size(c, &b, entries);
	explain_lay_out_sides(c, &p);
	int rc = explain_add_sides(&b, &p, NULL, &m, index);
	if (!rc)
		rc = measure_run(&b, &m);
	if (!rc && c->b.lpm_op == BENCH_LPM_FREE)
		print_free(out, &p, &m, index);
	else if (!rc)
		print_pass(out, c, &p, &m, index);
	if (!rc && c->save)
		write_records(c->save->f, c, &p, &m, index);
	measure_free(&m);
	return rc;
}
