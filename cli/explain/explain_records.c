/* SPDX-License-Identifier: MIT */
/*
 * explain_records.c: explain's figures as records (--save FILE, jsonl),
 * for the programs that read them (reproduce's findings writer).  Per
 * size, one {"record":"explain"} per side:
 *
 *   side, kernel, map, op, entries, key_size, value_size
 *   ns_per_op (F, F_min, F_max)   the unsampled runs' (explain.h)
 *   map_call_ns                   kernel: program - baseline
 *   samples                       the sampled run's samples in the op
 *   steps {step: ns}              a step's ns per op: its share of the
 *                                 samples times ns_per_op (sampled)
 *   shares {step: share}          the shares themselves, 0 to 1
 *   diff_<name>_ns, diff_<name>_base_ns
 *                                 each differential run's ns/op and the
 *                                 run it is set against (differential)
 *
 * A step with no samples is left out of steps and shares.
 */
#include "cli/explain/explain.h"
#include "harness/results/record.h"

#include <math.h>
#include <stdio.h>

/* Field names are not copied by record.h: they are these. */
static const char *const diff_fields[DIFF_COUNT][2] = {
	[DIFF_SIZE] = { "diff_size_ns", "diff_size_base_ns" },
	[DIFF_VALUE] = { "diff_value_ns", "diff_value_base_ns" },
	[DIFF_KEY] = { "diff_key_ns", "diff_key_base_ns" },
	[DIFF_PREALLOC] = { "diff_prealloc_ns", "diff_prealloc_base_ns" },
};

static void add_steps(struct record *r, const struct explain_side *s,
		      char texts[2][PROF_STEP_COUNT][32])
{
	const char *ns[2 * PROF_STEP_COUNT], *shares[2 * PROF_STEP_COUNT];
	unsigned n = 0;
	uint64_t covered = prof_tally_covered(&s->sampled.tally);
	for (int st = 0; st < PROF_STEP_COUNT && covered; st++) {
		double step_ns = explain_step_ns(s, (enum prof_step)st);
		uint64_t samples = s->sampled.tally.step[st];
		if (!samples || !isfinite(step_ns))
			continue;
		snprintf(texts[0][n], 32, "%.2f", step_ns);
		snprintf(texts[1][n], 32, "%.4f", (double)samples / (double)covered);
		ns[2 * n] = shares[2 * n] = prof_step_name((enum prof_step)st);
		ns[2 * n + 1] = texts[0][n];
		shares[2 * n + 1] = texts[1][n];
		n++;
	}
	record_pairs(r, "steps", ns, n);
	record_pairs(r, "shares", shares, n);
}

static void add_diffs(struct record *r, const struct explain_point *p,
		      const struct explain_side *s)
{
	for (int d = 0; d < DIFF_COUNT; d++) {
		if (!p->diff_run[d])
			continue;
		record_figure(r, diff_fields[d][0], "%.2f", s->diff_ns[d]);
		record_figure(r, diff_fields[d][1], "%.2f", s->diff_base_ns[d]);
	}
}

void explain_record_head(struct record *r, const struct explain_cli *c,
			 const struct explain_point *p,
			 const struct explain_side *s, const char *op)
{
	record_init(r, "explain");
	record_text(r, "side", s->label);
	record_bool(r, "kernel", s->kernel);
	record_text(r, "map", s->design ? s->design->name
					: map_type_name(s->map_type));
	record_text(r, "op", op);
	record_whole(r, "entries", p->entries);
	record_whole(r, "key_size", c->b.w.key_size);
	record_whole(r, "value_size", c->b.w.value_size);
}

void explain_write_records(FILE *f, const struct explain_cli *c,
			   const struct explain_point *p)
{
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *s = &p->sides[i];
		char texts[2][PROF_STEP_COUNT][32];
		struct record r;
		explain_record_head(&r, c, p, s, explain_op_name(c->op));
		record_spread(&r, "ns_per_op", "%.2f", s->ns.median, s->ns.min,
			      s->ns.max);
		if (s->kernel)
			record_spread(&r, "map_call_ns", "%.2f", s->map_call_ns.median,
				      s->map_call_ns.min, s->map_call_ns.max);
		record_whole(&r, "samples", s->sampled_ok ?
			     prof_tally_covered(&s->sampled.tally) : 0);
		add_steps(&r, s, texts);
		add_diffs(&r, p, s);
		record_write(f, RECORD_JSONL, &r, 1, NULL, 0);
		record_free(&r);
	}
}
