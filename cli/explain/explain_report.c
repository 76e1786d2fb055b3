/* SPDX-License-Identifier: MIT */
/*
 * explain_report.c: explain's output (explain.h): the header, the time per
 * op, the steps table side by side, the functions behind each step, the
 * differential runs, a summary in words, the table across sizes, and the
 * flame graph.  Every figure says where it came from: "sampled" (a share
 * of a sampled run, times the unsampled ns/op) or "differential" (an ns/op
 * difference between two unsampled workloads).
 */
#include "cli/cli.h"
#include "cli/explain/explain.h"
#include "cli/measure/measure.h"
#include "cli/options.h"
#include "harness/common/parse.h"
#include "harness/common/wrap.h"
#include "harness/profile/flamegraph.h"
#include "harness/profile/symbols.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *explain_op_name(enum bench_op op)
{
	return op < OP_COUNT ? bench_op_names[op] : "?";
}

/* A step counted per op of any kind (the program's own code, the bench
 * loop), not per op of the asked kind. */
static bool shared_step(enum prof_step step)
{
	return step == PROF_STEP_PROGRAM || step == PROF_STEP_HARNESS;
}

static double share_of(const struct explain_side *s, uint64_t samples)
{
	uint64_t covered = prof_tally_covered(&s->sampled.tally);
	return covered ? (double)samples / (double)covered : NAN;
}

double explain_step_ns(const struct explain_side *s, enum prof_step step)
{
	if (s->kernel && step == PROF_STEP_HARNESS)
		return NAN; /* outside the program: not in its ns/op */
	double share = share_of(s, s->sampled.tally.step[step]);
	double ns = share * s->ns.median;
	return shared_step(step) || !(s->op_share > 0) ? ns : ns / s->op_share;
}

/* The asked op's time per op: its steps' ns summed. */
static double op_total_ns(const struct explain_side *s)
{
	double sum = 0;
	for (int st = 0; st < PROF_STEP_COUNT; st++) {
		double ns = explain_step_ns(s, (enum prof_step)st);
		if (isfinite(ns))
			sum += ns;
	}
	return sum;
}

static const char *side_basis(const struct explain_side *s)
{
	return s->kernel ? "BPF program, per op" : "bench loop, per op";
}

/* The mitigations that put thunks on a call's path (their cost lands on
 * the next instruction: no sample shows it). */
static void print_mitigations(FILE *f, const struct host_record *host)
{
	static const char *const thunky[] = { "spectre_v2", "retbleed",
		"spec_rstack_overflow", "indirect_target_selection" };
	fprintf(f, "mitigations (thunks cannot be sampled):");
	bool any = false;
	for (size_t k = 0; k < sizeof(thunky) / sizeof(thunky[0]); k++)
		for (unsigned i = 0; i < host->n_vulns; i++)
			if (strcmp(host->vulns[i].name, thunky[k]) == 0) {
				fprintf(f, "%s %s: %s", any ? ";" : "", thunky[k],
					host->vulns[i].status);
				any = true;
			}
	fprintf(f, "%s\n", any ? "" : " not reported");
}

static void print_header(FILE *f, const struct explain_cli *c,
			 const struct host_record *host)
{
	const struct bench_cli *b = &c->b;
	/* The map flags are the workload line's (measure_print_workload). */
	bool phase = bench_lpm_op_is_phase(b->lpm_op);
	fprintf(f, "maplab explain: %s %s, %u thread%s\n",
		map_type_name(b->map_types[0]), b->lpm_op
		? bench_lpm_op_name(b->lpm_op) : explain_op_name(c->op),
		b->threads[0], b->threads[0] == 1 ? "" : "s");
	measure_print_workload(f, b, false);
	if (c->n_sizes > 1) {
		fprintf(f, "sizes (max_entries, each in place of the entries above):");
		for (unsigned i = 0; i < c->n_sizes; i++)
			fprintf(f, "%s %u", i ? "," : "", c->sizes[i]);
		fputc('\n', f);
	}
	fprintf(f, "host: %s, %s, %ld cpus, kernel %s, %s\n", host->hostname,
		host->cpu_model, host->nproc, host->kernel, host->date);
	print_mitigations(f, host);
	if (phase) {
		fprintf(f, "timed, not sampled: %u run%s of %.2g s each a side, "
			"the sides in turn (median [min-max])\n\n", b->repeat,
			b->repeat == 1 ? "" : "s", b->seconds);
		return;
	}
	fprintf(f, "sampling: cpu-clock at %u Hz for %.2g s a side; ns/op from %u "
		"unsampled run%s of %.2g s each (median [min-max])\n\n", c->hz,
		c->sample_seconds, b->repeat, b->repeat == 1 ? "" : "s", b->seconds);
}

static void print_times(FILE *f, const struct explain_point *p)
{
	fprintf(f, "time per op (unsampled)\n");
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *s = &p->sides[i];
		fprintf(f, "  %-28s %8.1f ns [%.1f-%.1f]  (%s)", s->label,
			s->ns.median, s->ns.min, s->ns.max, side_basis(s));
		if (s->kernel)
			fprintf(f, "; the map call alone %.1f ns (program - baseline)",
				s->map_call_ns.median);
		fputc('\n', f);
		if (s->sampled.ns_per_op > 0) {
			double x = s->sampled.ns_per_op;
			fprintf(f, "  %-28s %8.1f ns in the sampled run (%+.1f%% on the "
				"median, %s the unsampled runs' spread)\n", "", x,
				100 * (x / s->ns.median - 1),
				x >= s->ns.min && x <= s->ns.max ? "inside" : "outside");
		}
	}
	fputc('\n', f);
}

/* Whether any side has samples in step st. */
static bool step_seen(const struct explain_point *p, enum prof_step st)
{
	for (unsigned i = 0; i < p->n_sides; i++)
		if (p->sides[i].sampled.tally.step[st])
			return true;
	return false;
}

/* The sides of a steps table (a label column of 38, then 23 a side)
 * within WRAP_COLUMNS; more go on in a table under it. */
#define STEP_SIDES ((WRAP_COLUMNS - 38) / 23)

/* Whether some side does reclamation off the measured thread. */
static bool any_off_thread(const struct explain_point *p)
{
	bool any = false;
	for (unsigned i = 0; i < p->n_sides; i++)
		any |= p->sides[i].sampled.tally.off_thread > 0;
	return any;
}

/* Reclamation done off the measured thread (liburcu's call_rcu thread):
 * CPU time beside the op's, per op, not in its total; sides [from, to). */
static void print_off_thread(FILE *f, const struct explain_point *p,
			     unsigned from, unsigned to)
{
	if (!any_off_thread(p))
		return;
	fprintf(f, "  %-36s", "+ reclamation off the thread");
	for (unsigned i = from; i < to; i++) {
		const struct explain_side *s = &p->sides[i];
		double share = share_of(s, s->sampled.tally.off_thread);
		if (s->sampled.tally.off_thread)
			fprintf(f, " %+9.1f%% %+11.1f", 100 * share, share * s->ns.median);
		else
			fprintf(f, " %10s %11s", "-", "-");
	}
	fputc('\n', f);
}

/* The other op of an insert/delete pair (other: its name): its share of
 * the samples and its ns per op of its kind; sides [from, to).  With the
 * rows above the total, the shares add up to 100%: the side's ns/op. */
static void print_other_op(FILE *f, const struct explain_point *p,
			   const char *other, unsigned from, unsigned to)
{
	char label[64];
	snprintf(label, sizeof(label), "the pair's other op (%s)", other);
	fprintf(f, "  %-36s", label);
	for (unsigned i = from; i < to; i++) {
		const struct explain_side *s = &p->sides[i];
		uint64_t n = s->sampled.tally.region[PROF_REGION_OTHER_OP];
		if (!n || !(s->op_share < 1)) {
			fprintf(f, " %10s %11s", "-", "-");
			continue;
		}
		double share = share_of(s, n);
		fprintf(f, " %9.1f%% %11.1f", 100 * share,
			share * s->ns.median / (1 - s->op_share));
	}
	fputc('\n', f);
}

/* The steps table of sides [from, to); other: the other op of a pair,
 * NULL for an op alone. */
static void print_step_columns(FILE *f, const struct explain_point *p,
			       const char *other, unsigned from, unsigned to)
{
	fprintf(f, "  %-36s", "");
	for (unsigned i = from; i < to; i++)
		fprintf(f, " %22.22s", p->sides[i].label);
	fprintf(f, "\n  %-36s", "step");
	for (unsigned i = from; i < to; i++)
		fprintf(f, " %10s %11s", "share", "ns");
	fputc('\n', f);
	for (int st = 0; st < PROF_STEP_COUNT; st++) {
		if (!step_seen(p, (enum prof_step)st))
			continue;
		fprintf(f, "  %-36s", prof_step_text((enum prof_step)st));
		for (unsigned i = from; i < to; i++) {
			const struct explain_side *s = &p->sides[i];
			uint64_t n = s->sampled.tally.step[st];
			if (!n || !isfinite(explain_step_ns(s, (enum prof_step)st))) {
				fprintf(f, " %10s %11s", "-", "-");
				continue;
			}
			fprintf(f, " %9.1f%% %11.1f", 100 * share_of(s, n),
				explain_step_ns(s, (enum prof_step)st));
		}
		fputc('\n', f);
	}
	fprintf(f, "  %-36s", "total");
	for (unsigned i = from; i < to; i++)
		fprintf(f, " %10s %11.1f", "", op_total_ns(&p->sides[i]));
	fputc('\n', f);
	if (other)
		print_other_op(f, p, other, from, to);
	print_off_thread(f, p, from, to);
}

static void print_steps(FILE *f, const struct explain_cli *c,
			const struct explain_point *p)
{
	bool pairs = p->sides[0].op_share < 0.99;
	const char *other = !pairs ? NULL
			    : explain_op_name(c->op == OP_INSERT ? OP_DELETE : OP_INSERT);
	fprintf(f, "steps of one %s (sampled share x unsampled ns/op)\n",
		explain_op_name(c->op));
	for (unsigned from = 0; from < p->n_sides; from += STEP_SIDES) {
		unsigned to = from + STEP_SIDES < p->n_sides ? from + STEP_SIDES
							     : p->n_sides;
		if (from)
			fputc('\n', f);
		print_step_columns(f, p, other, from, to);
	}
	if (any_off_thread(p))
		fprintf(f, "  (+ reclamation off the thread: the call_rcu thread's "
			"CPU per op, beside the total: sampled)\n");
	if (pairs)
		fprintf(f, "  (the op runs in %s pairs: its steps are per %s, the "
			"program's and harness's per op of either kind; the other "
			"op's row is its share and its ns per %s)\n",
			"insert/delete", explain_op_name(c->op), other);
	fputc('\n', f);
}

static void print_functions(FILE *f, const struct explain_point *p)
{
	fprintf(f, "functions behind each step (share of the side's samples)\n");
	for (int st = 0; st < PROF_STEP_COUNT; st++) {
		if (!step_seen(p, (enum prof_step)st))
			continue;
		fprintf(f, "  %s\n", prof_step_text((enum prof_step)st));
		for (unsigned i = 0; i < p->n_sides; i++) {
			const struct explain_side *s = &p->sides[i];
			const struct prof_tally *t = &s->sampled.tally;
			if (!t->step[st])
				continue;
			fprintf(f, "    %-24s", s->label);
			for (unsigned k = 0; k < t->n_fns[st] && k < 4; k++)
				if (t->fns[st][k].samples)
					fprintf(f, "%s %s %.1f%%", k ? "," : "",
						t->fns[st][k].name,
						100 * share_of(s, t->fns[st][k].samples));
			if (t->n_fns[st] > 4)
				fprintf(f, ", ...");
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

/* What a differential run's difference prices, in words. */
static const char *diff_meaning(enum explain_diff d)
{
	switch (d) {
	case DIFF_SIZE: return "memory: the cache and TLB misses of the larger map";
	case DIFF_VALUE: return "the value's bytes: their copy, and a larger element where one is allocated per update";
	case DIFF_KEY: return "hashing and comparing the key, per byte";
	case DIFF_PREALLOC: return "allocating on update instead of a preallocated pool";
	default: return "?";
	}
}

static bool any_diff(const struct explain_point *p)
{
	for (int d = 0; d < DIFF_COUNT; d++)
		if (p->diff_run[d])
			return true;
	return false;
}

/* The ns/op difference diff d makes on side s, signed so that a positive
 * figure is what the asked workload pays: for the size, what its larger
 * map costs over the small one; for the others, what the change adds. */
static double diff_effect(const struct explain_side *s, enum explain_diff d)
{
	if (!isfinite(s->diff_ns[d]) || !isfinite(s->diff_base_ns[d]))
		return NAN;
	double delta = s->diff_ns[d] - s->diff_base_ns[d];
	return d == DIFF_SIZE ? -delta : delta;
}

/* What the diff's step costs at the asked workload's own sizes: the copy
 * of its value and the hash and compare of its key scale by bytes. */
static double diff_at_workload(const struct explain_cli *c,
			       const struct explain_side *s, enum explain_diff d)
{
	double e = diff_effect(s, d);
	if (d == DIFF_VALUE)
		return e * c->b.w.value_size / EXPLAIN_VALUE_STEP;
	if (d == DIFF_KEY)
		return e * c->b.w.key_size / EXPLAIN_KEY_STEP;
	return e;
}

static void print_diffs(FILE *f, const struct explain_cli *c,
			const struct explain_point *p)
{
	if (!any_diff(p))
		return;
	fprintf(f, "differential runs (unsampled, median of %d; the ns/op "
		"difference a change of workload makes)\n", 2);
	for (int d = 0; d < DIFF_COUNT; d++) {
		if (!p->diff_run[d])
			continue;
		fprintf(f, "  %s: prices %s\n", p->diff_label[d],
			diff_meaning((enum explain_diff)d));
		for (unsigned i = 0; i < p->n_sides; i++) {
			const struct explain_side *s = &p->sides[i];
			double e = diff_effect(s, (enum explain_diff)d);
			fprintf(f, "    %-24s", s->label);
			if (!isfinite(e)) {
				fprintf(f, " refuses this map\n");
				continue;
			}
			fprintf(f, " %8.1f -> %8.1f ns/op", s->diff_base_ns[d], s->diff_ns[d]);
			if (d == DIFF_SIZE)
				fprintf(f, ": the larger map costs %+.1f ns", e);
			else if (d == DIFF_PREALLOC)
				fprintf(f, ": %+.1f ns", e);
			else
				fprintf(f, ": %+.1f ns, so ~%.1f ns at %u B",
					e, diff_at_workload(c, s, (enum explain_diff)d),
					d == DIFF_VALUE ? c->b.w.value_size : c->b.w.key_size);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

/* The steps of s, most ns first: at most n indices into order. */
static unsigned top_steps(const struct explain_side *s, enum prof_step *order,
			  unsigned n)
{
	unsigned k = 0;
	bool used[PROF_STEP_COUNT] = { false };
	while (k < n) {
		int best = -1;
		for (int st = 0; st < PROF_STEP_COUNT; st++)
			if (!used[st] && s->sampled.tally.step[st] &&
			    isfinite(explain_step_ns(s, (enum prof_step)st)) &&
			    (best < 0 || s->sampled.tally.step[st] >
					 s->sampled.tally.step[best]))
				best = st;
		if (best < 0)
			break;
		used[best] = true;
		order[k++] = (enum prof_step)best;
	}
	return k;
}

static const char *top_function(const struct explain_side *s, enum prof_step st)
{
	const struct prof_tally *t = &s->sampled.tally;
	return t->n_fns[st] ? t->fns[st][0].name : "?";
}

/* The interrupts-off section, priced by the differential runs where they
 * apply: the value copy inside it; the map's size, whose misses fall in it
 * and in the sampled steps alike, so it bounds the section's memory cost
 * from above; what is left at a cache-resident size is the lock and the
 * walk. */
static void split_irqs_off(FILE *f, const struct explain_cli *c,
			   const struct explain_point *p,
			   const struct explain_side *s)
{
	double lump = explain_step_ns(s, PROF_STEP_IRQS_OFF);
	double copy = diff_at_workload(c, s, DIFF_VALUE);
	double size = diff_effect(s, DIFF_SIZE);
	bool has_copy = p->diff_run[DIFF_VALUE] && isfinite(copy);
	bool has_size = p->diff_run[DIFF_SIZE] && isfinite(size);

	fprintf(f, "    Sampling cannot see inside the ~%.0f ns with interrupts "
		"off (its samples land where they come back on).", lump);
	if (!has_copy && !has_size) {
		fprintf(f, " No differential run applies here%s.\n",
			c->no_diff ? " (--no-diff)" : "");
		return;
	}
	fprintf(f, " Differential runs price what it may hold:");
	if (has_copy)
		fprintf(f, " the value's bytes ~%.0f ns at %u B (their copy, and a "
			"larger element to allocate where one is allocated per "
			"update)%s", copy, c->b.w.value_size, has_size ? ";" : ".");
	if (has_size && size <= lump)
		fprintf(f, " the map's size ~%.0f ns of cache and TLB misses for the "
			"whole op (at %u entries it costs %.0f ns).  If those misses "
			"all fall in this section, which walks the map under its lock, "
			"the lock and the walk of a cache-resident map are the "
			"remaining ~%.0f ns.", size, EXPLAIN_SMALL_ENTRIES,
			s->diff_ns[DIFF_SIZE],
			fmax(0, lump - size - (has_copy ? fmax(0, copy) : 0)));
	else if (has_size)
		fprintf(f, " the map's size ~%.0f ns of cache and TLB misses for the "
			"whole op, more than this section: they fall in it and in "
			"the sampled steps alike.", size);
	fputc('\n', f);
}

static void summarise_side(FILE *f, const struct explain_cli *c,
			   const struct explain_point *p,
			   const struct explain_side *s)
{
	enum prof_step order[3];
	unsigned n = top_steps(s, order, 3);
	fprintf(f, "  - %s %s: %.0f ns per op (%s, unsampled); of it", s->label,
		explain_op_name(c->op), s->ns.median, side_basis(s));
	for (unsigned k = 0; k < n; k++) {
		double share = share_of(s, s->sampled.tally.step[order[k]]);
		fprintf(f, "%s %.0f%% (~%.0f ns) %s, mostly %s", k ? ";" : "",
			100 * share, explain_step_ns(s, order[k]),
			order[k] == PROF_STEP_IRQS_OFF ? "runs with interrupts off"
			: prof_step_text(order[k]), top_function(s, order[k]));
	}
	fprintf(f, " (sampled).\n");
	if (s->sampled.tally.step[PROF_STEP_IRQS_OFF])
		split_irqs_off(f, c, p, s);
	if (s->sampled.tally.off_thread)
		fprintf(f, "    Off the measured thread (liburcu's call_rcu thread): "
			"+%.0f%% CPU (~%.0f ns per op, sampled), not in its ns/op.\n",
			100 * share_of(s, s->sampled.tally.off_thread),
			share_of(s, s->sampled.tally.off_thread) * s->ns.median);
}

static void summarise_memory(FILE *f, const struct explain_point *p)
{
	if (!p->diff_run[DIFF_SIZE])
		return;
	fprintf(f, "  - At %u entries against %u (differential):", p->entries,
		EXPLAIN_SMALL_ENTRIES);
	for (unsigned i = 0; i < p->n_sides; i++) {
		double e = diff_effect(&p->sides[i], DIFF_SIZE);
		if (isfinite(e))
			fprintf(f, "%s %s pays %+.0f ns of its %.0f for the map's size",
				i ? ";" : "", p->sides[i].label, e, p->sides[i].ns.median);
	}
	fprintf(f, ".\n");
}

/* The kernel's side in the mode design side s stands for. */
static const struct explain_side *kernel_of(const struct explain_point *p,
					    const struct explain_side *s)
{
	for (unsigned i = 0; i < p->n_sides; i++)
		if (p->sides[i].kernel && p->sides[i].mode_flags == s->mode_flags)
			return &p->sides[i];
	return &p->sides[0];
}

static void summarise_ratio(FILE *f, const struct explain_point *p)
{
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *s = &p->sides[i];
		const struct explain_side *k = kernel_of(p, s);
		if (s->kernel || !k->kernel || !(k->ns.median > 0))
			continue;
		int widest = -1;
		double gap = 0;
		for (int st = 0; st < PROF_STEP_COUNT; st++) {
			double a = explain_step_ns(k, (enum prof_step)st);
			double b = explain_step_ns(s, (enum prof_step)st);
			double g = fabs((isfinite(b) ? b : 0) - (isfinite(a) ? a : 0));
			if (g > gap) {
				gap = g;
				widest = st;
			}
		}
		fprintf(f, "  - %s takes %.2fx the time per op of the %s (%.0f vs "
			"%.0f ns, unsampled)", s->label, s->ns.median / k->ns.median,
			k->label, s->ns.median, k->ns.median);
		if (widest >= 0)
			fprintf(f, "; the widest step apart is %s (sampled)",
				prof_step_text((enum prof_step)widest));
		fprintf(f, ".\n");
	}
}

/* What a reader should not trust, or should know. */
static void print_cautions(FILE *f, const struct explain_point *p)
{
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *s = &p->sides[i];
		const struct prof_tally *t = &s->sampled.tally;
		uint64_t worker = t->samples - t->off_thread;
		if (s->sampled.lost)
			fprintf(f, "  ! %s: %llu samples lost (the rings filled)\n",
				s->label, (unsigned long long)s->sampled.lost);
		if (s->sampled.problem[0])
			fprintf(f, "  ! %s: %s\n", s->label, s->sampled.problem);
		if (!s->kernel && worker && t->shallow * 5 > worker)
			fprintf(f, "  ! %s: %.0f%% of the call chains have two frames or "
				"fewer: build with -Dframe_pointers=true\n", s->label,
				100.0 * (double)t->shallow / (double)worker);
		if (s->kernel) {
			uint64_t all = t->region[PROF_REGION_OP] + t->region[PROF_REGION_OTHER_OP] +
				       t->region[PROF_REGION_HARNESS];
			double outside = all ? (double)t->region[PROF_REGION_HARNESS] / (double)all : 0;
			fprintf(f, "  %s %s: %.1f%% of the workload thread's samples (the "
				"baseline program's aside) were outside the program "
				"(BPF_PROG_TEST_RUN, the XDP dispatcher), not in its ns/op",
				outside > 0.01 ? "!" : "-", s->label, 100 * outside);
			for (unsigned k = 0; k < t->n_fns[PROF_STEP_HARNESS] && k < 3; k++)
				fprintf(f, "%s %s", k ? "," : ":",
					t->fns[PROF_STEP_HARNESS][k].name);
			fputc('\n', f);
		}
		if (prof_tally_covered(t) < 200)
			fprintf(f, "  ! %s: only %llu samples: shares are rough; raise "
				"--sample-seconds\n", s->label,
				(unsigned long long)prof_tally_covered(t));
	}
}

static void print_point(FILE *f, const struct explain_cli *c,
			const struct explain_point *p)
{
	fprintf(f, "== %s %s at %u entries ==\n\n", map_type_name(c->b.map_types[0]),
		explain_op_name(c->op), p->entries);
	print_times(f, p);
	print_steps(f, c, p);
	print_functions(f, p);
	print_diffs(f, c, p);
	fprintf(f, "summary\n");
	for (unsigned i = 0; i < p->n_sides; i++)
		summarise_side(f, c, p, &p->sides[i]);
	summarise_memory(f, p);
	summarise_ratio(f, p);
	print_cautions(f, p);
	fprintf(f, "  (samples in each side's ns/op, and lost: ");
	for (unsigned i = 0; i < p->n_sides; i++)
		fprintf(f, "%s%s %llu, %llu lost", i ? "; " : "", p->sides[i].label,
			(unsigned long long)prof_tally_covered(&p->sides[i].sampled.tally),
			(unsigned long long)p->sides[i].sampled.lost);
	fprintf(f, "; this size took %.1f s)\n\n", p->seconds);
}

/* The header and each point go through wrap.h whole: their tables fit
 * WRAP_COLUMNS and pass unchanged, their sentences are broken to fit. */
void explain_print_header(FILE *f, const struct explain_cli *c,
			  const struct host_record *host)
{
	struct wrap_buffer b;
	print_header(wrap_begin(&b), c, host);
	wrap_end(&b, f);
}

void explain_print_point(FILE *f, const struct explain_cli *c,
			 const struct explain_point *p)
{
	struct wrap_buffer b;
	print_point(wrap_begin(&b), c, p);
	wrap_end(&b, f);
}

/* A side's name in a column of the sizes table: "kernel" for the kernel's
 * map, else the design's name. */
static const char *column_name(const struct explain_side *s)
{
	return s->kernel ? "kernel" : s->label;
}

/* The columns of the sizes table (a label column of 36, then 17 a
 * column) within WRAP_COLUMNS; more go on in a table under it. */
#define SIZE_COLUMNS ((WRAP_COLUMNS - 36) / 17)

/* The sizes table's columns [from, to): column j is size j / sides, side
 * j % sides. */
static void print_size_columns(FILE *f, const struct explain_point *points,
			       unsigned from, unsigned to)
{
	unsigned sides = points[0].n_sides;
	fprintf(f, "  %-34s", "max_entries");
	for (unsigned j = from; j < to; j++)
		fprintf(f, " %16u", points[j / sides].entries);
	fprintf(f, "\n  %-34s", "step");
	for (unsigned j = from; j < to; j++)
		fprintf(f, " %16.16s", column_name(&points[0].sides[j % sides]));
	fputc('\n', f);
	for (int st = 0; st < PROF_STEP_COUNT; st++) {
		bool seen = false;
		for (unsigned j = from; j < to; j++)
			seen |= step_seen(&points[j / sides], (enum prof_step)st);
		if (!seen)
			continue;
		fprintf(f, "  %-34s", prof_step_text((enum prof_step)st));
		for (unsigned j = from; j < to; j++) {
			const struct explain_side *s = &points[j / sides].sides[j % sides];
			double ns = explain_step_ns(s, (enum prof_step)st);
			if (s->sampled.tally.step[st] && isfinite(ns))
				fprintf(f, " %16.1f", ns);
			else
				fprintf(f, " %16s", "-");
		}
		fputc('\n', f);
	}
	fprintf(f, "  %-34s", "ns/op (unsampled)");
	for (unsigned j = from; j < to; j++)
		fprintf(f, " %16.1f", points[j / sides].sides[j % sides].ns.median);
	fputc('\n', f);
}

void explain_print_sizes(FILE *f, const struct explain_cli *c,
			 const struct explain_point *points, unsigned n)
{
	unsigned columns = n * points[0].n_sides;
	fprintf(f, "== across sizes: ns per step of one %s (sampled share x "
		"unsampled ns/op) ==\n\n", explain_op_name(c->op));
	for (unsigned from = 0; from < columns; from += SIZE_COLUMNS) {
		unsigned to = from + SIZE_COLUMNS < columns ? from + SIZE_COLUMNS
							    : columns;
		if (from)
			fputc('\n', f);
		print_size_columns(f, points, from, to);
	}
	fputc('\n', f);
}

int explain_write_svg(const struct explain_cli *c, const struct explain_point *p,
		      const char *path)
{
	struct fg_panel panels[EXPLAIN_MAX_SIDES];
	char titles[EXPLAIN_MAX_SIDES][160], title[200];
	unsigned n = 0;
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *s = &p->sides[i];
		if (!s->sampled.tally.n_stacks || !(s->ns.median > 0))
			continue;
		snprintf(titles[n], sizeof(titles[n]), "%s (%s)", s->label,
			 side_basis(s));
		panels[n] = (struct fg_panel){ titles[n], s->ns.median,
					       s->sampled.tally.stacks,
					       s->sampled.tally.n_stacks };
		n++;
	}
	snprintf(title, sizeof(title), "maplab explain: %s %s at %u entries",
		 map_type_name(c->b.map_types[0]), explain_op_name(c->op), p->entries);
	char shown[256];
	if (!n)
		return cli_error("explain", "%s: the flame graph could not be "
				 "written (no samples)",
				 parse_printable(path, shown, sizeof(shown)));
	struct outfile o;
	int rc = out_open(&o, path, OUT_TRUNCATE);
	if (rc)
		return cli_error("explain", "%s: %s", parse_printable(path, shown,
				 sizeof(shown)), strerror(-rc));
	if ((rc = fg_write_svg(o.f, title, panels, n, 0))) {
		out_discard(&o);
		return opts_write_failed("explain", &o, rc);
	}
	rc = out_close(&o);
	return rc ? opts_write_failed("explain", &o, rc) : 0;
}
