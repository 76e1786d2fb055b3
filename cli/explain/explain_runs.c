/* SPDX-License-Identifier: MIT */
/*
 * explain_runs.c: explain's runs of one size (explain.h): the sides (the
 * kernel's map in each mode the designs stand for, then each design), the
 * unsampled runs (measure.h's interleaved repeats), one sampled run a side
 * (explain_sample.h), the differential runs; and --overhead's pairs.
 */
#include "cli/cli.h"
#include "cli/explain/explain.h"
#include "cli/measure/measure.h"
#include "cli/options.h"
#include "harness/common/clock.h"
#include "kernel-compare/kbench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPLAIN_DIFF_REPEAT 2
#define EXPLAIN_DIFF_SECONDS 0.3
/* The sampled kernel run's test runs last about this long (ms): see
 * sampled_run_repeat. */
#define EXPLAIN_TEST_RUN_MS 200

/* --- the sides ------------------------------------------------------------------ */

/* The kernel's map in each mode the designs stand for, then each design. */
void explain_lay_out_sides(const struct explain_cli *c, struct explain_point *p)
{
	const struct bench_cli *b = &c->b;
	struct kbench_mode modes[BENCH_MAX_MAPS];
	unsigned n_modes = kbench_modes(b->maps, b->map_types, b->n_maps, modes, NULL);

	p->n_sides = 0;
	for (unsigned i = 0; i < n_modes; i++) {
		struct explain_side *s = &p->sides[p->n_sides++];
		char suffix[64];
		measure_mode_suffix(modes[i].flags, suffix, sizeof(suffix));
		*s = (struct explain_side){ .kernel = true, .map_type = modes[i].type,
					    .mode_flags = modes[i].flags };
		snprintf(s->label, sizeof(s->label), "kernel %s%s",
			 map_type_name(modes[i].type), suffix);
	}
	for (unsigned i = 0; i < b->n_maps && p->n_sides < EXPLAIN_MAX_SIDES; i++) {
		struct explain_side *s = &p->sides[p->n_sides++];
		*s = (struct explain_side){ .design = b->maps[i],
					    .map_type = b->map_types[i],
					    .mode_flags = b->maps[i]->mode_flags };
		snprintf(s->label, sizeof(s->label), "%s", b->maps[i]->name);
	}
	for (unsigned i = 0; i < p->n_sides; i++)
		for (int d = 0; d < DIFF_COUNT; d++)
			p->sides[i].diff_ns[d] = NAN;
}

/* The measurement of p's sides (measure.h); those in `skip` left out. */
int explain_add_sides(const struct bench_cli *b, const struct explain_point *p,
		      const bool *skip, struct measurement *m, int *index)
{
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *e = &p->sides[i];
		index[i] = -1;
		if (skip && skip[i])
			continue;
		struct side s = { .kind = e->kernel ? &side_kernel : &side_user,
				  .design = e->design, .map_type = e->map_type,
				  .mode_flags = e->mode_flags, .reference = -1 };
		snprintf(s.label, sizeof(s.label), "%s", e->label);
		index[i] = (int)m->n_sides;
		int rc = measure_add_side(m, b->cmd, &s);
		if (rc)
			return rc;
	}
	return 0;
}

/* The asked op's share of a point's ops (1 for a mix of one op). */
static double op_share(const struct report_point *pt, enum bench_op op)
{
	uint64_t all = 0;
	for (int o = 0; o < OP_COUNT; o++)
		all += pt->ok[o] + pt->fail[o];
	return all ? (double)(pt->ok[op] + pt->fail[op]) / (double)all : 1.0;
}

/* b's workload at `entries` max_entries (a key range given as a percent
 * taken of it again). */
void explain_at_size(const struct explain_cli *c, struct bench_cli *b,
		     uint32_t entries)
{
	b->w.entries = entries;
	if (c->b.key_range.n && c->b.key_range.percent)
		b->w.key_range = (uint32_t)((uint64_t)entries * c->b.key_range.n / 100);
}

/* Run p's sides unsampled on b's workload; their ns/op into ns (the
 * kernel's: its program per step) and, where main, the rest too. */
static int run_unsampled(const struct bench_cli *b, struct explain_point *p,
			 const bool *skip, double *ns_out, bool main_run,
			 enum bench_op op)
{
	struct measurement m = { 0 };
	int index[EXPLAIN_MAX_SIDES];
	int rc = explain_add_sides(b, p, skip, &m, index);
	if (!rc)
		rc = measure_run(b, &m);
	for (unsigned i = 0; i < p->n_sides && !rc; i++) {
		struct explain_side *s = &p->sides[i];
		if (index[i] < 0)
			continue;
		const struct report_point *pt = measure_point(&m, (unsigned)index[i], 0);
		struct spread ns = pt->field[s->kernel ? RF_PROGRAM_NS : RF_NS_PER_OP];
		if (!pt->runs)
			ns.median = ns.min = ns.max = NAN;
		if (ns_out)
			ns_out[i] = ns.median;
		if (main_run) {
			s->ns = ns;
			s->map_call_ns = pt->field[RF_NS_PER_OP];
			s->op_share = op_share(pt, op);
		}
	}
	measure_free(&m);
	return rc;
}

/* --- the sampled runs ------------------------------------------------------------ */

static struct bench_config side_config(const struct bench_cli *b,
				       const struct explain_side *s,
				       double seconds)
{
	return (struct bench_config){
		.design = s->design,
		.w = workload_for_type(&b->w, s->map_type),
		.map_flags = bench_map_flags(s->map_type, b->map_flags | s->mode_flags),
		.threads = b->threads[0], .seconds = seconds, .warmup = b->warmup,
	};
}

static struct explain_target target_of(const struct bench_cli *b, enum bench_op op)
{
	static const char *const programs[OP_COUNT] = {
		"kb_lookup", "kb_update", "kb_insert", "kb_delete", "kb_upsert",
		"kb_replace", "kb_lookup_write" };
	/* each program's bpf_loop callback (kernel-compare/bpf/kbench.bpf.c) */
	static const char *const callbacks[OP_COUNT] = {
		"step_lookup", "step_update", "step_insert", "step_delete",
		"step_upsert", "step_replace", "step_lookup_write" };
	/* The map function's word, that tells apart the two ops of a pair's
	 * program (kb_mix).  A program of one op gets none: every sample
	 * under it is in its ns/op, so it is the op's whatever the program
	 * calls (replace calls delete and update; an interrupt's handler is
	 * no map function at all), and its steps add up to its ns/op. */
	static const char *const words[OP_COUNT] = {
		[OP_INSERT] = "update", [OP_DELETE] = "delete" };
	bool one_op = b->w.mix[op] == 100;
	return (struct explain_target){ .op = op,
					.program = one_op ? programs[op] : "kb_mix",
					.program_callback = one_op ? callbacks[op]
								   : "step_mix",
					.kernel_op = one_op ? NULL : words[op] };
}

/* The sampled kernel run's test-run repeat count: enough that one test
 * run lasts EXPLAIN_TEST_RUN_MS by the unsampled runs' time per op, so that
 * the XDP dispatcher's re-patching around each stays near 1% of the
 * samples. */
static unsigned sampled_run_repeat(const struct bench_cli *b,
				   const struct explain_side *s)
{
	double ns = s->ns.median * b->run_ops;
	if (!(ns > 0))
		return b->run_repeat;
	double repeat = EXPLAIN_TEST_RUN_MS * 1e6 / ns;
	return repeat < b->run_repeat ? b->run_repeat
	       : repeat > 8192 ? 8192 : (unsigned)repeat;
}

static int sample_side(const struct explain_cli *c, const struct bench_cli *b,
		       struct explain_side *s)
{
	struct bench_config bc = side_config(b, s, c->sample_seconds);
	struct explain_target t = target_of(b, c->op);
	char err[256];
	int rc;
	t.chains = c->chains;
	t.side = s->label;
	if (s->kernel) {
		struct kbench_config kc = { .b = bc, .map_type = s->map_type,
					    .ops_per_run = b->run_ops,
					    .run_repeat = sampled_run_repeat(b, s),
					    .verbose = b->verbose };
		rc = explain_sample_kernel(&kc, &t, c->hz, &s->sampled, err, sizeof(err));
	} else {
		rc = explain_sample_user(&bc, &t, c->hz, &s->sampled, err, sizeof(err));
	}
	if (rc)
		return cli_error("explain", "%s: the sampled run failed: %s", s->label, err);
	s->sampled_ok = true;
	if (c->chains && (rc = out_flush(c->chains)))
		return opts_write_failed("explain", c->chains, rc);
	return 0;
}

/* --- the differential runs --------------------------------------------------------- */

/* b at the small map's size, where p's is larger: whether it changed. */
static bool small_map(const struct explain_cli *c, const struct explain_point *p,
		      struct bench_cli *b)
{
	if (p->entries <= EXPLAIN_SMALL_ENTRIES)
		return false;
	explain_at_size(c, b, EXPLAIN_SMALL_ENTRIES);
	if (b->w.key_range && b->w.key_range < EXPLAIN_SMALL_ENTRIES)
		b->w.key_range = EXPLAIN_SMALL_ENTRIES;
	return true;
}

/* An element's field (its key or value size) grown by step; the change in
 * words into label. */
static void grow_field(const struct bench_cli *b, const char *what,
		       uint32_t *field, uint32_t step, char *label, size_t len)
{
	snprintf(label, len, "%s %u -> %u B at %u entries", what, *field,
		 *field + step, b->w.entries);
	*field += step;
}

/* Whether diff d applies to c's op at p's size, and b changed for it; its
 * label into p. */
static bool diff_workload(const struct explain_cli *c, enum explain_diff d,
			  struct explain_point *p, struct bench_cli *b)
{
	uint32_t type = c->b.map_types[0];
	bool writes = c->op == OP_UPDATE || c->op == OP_INSERT ||
		      c->op == OP_UPSERT || c->op == OP_REPLACE ||
		      c->op == OP_LOOKUP_WRITE;
	bool prefixes = b->w.prefixes != PREFIXES_NONE;
	char *label = p->diff_label[d];
	size_t len = sizeof(p->diff_label[d]);

	switch (d) {
	case DIFF_SIZE:
		if (!small_map(c, p, b))
			return false;
		snprintf(label, len, "max_entries %u -> %u", p->entries,
			 EXPLAIN_SMALL_ENTRIES);
		return true;
	case DIFF_VALUE:
		if (!writes)
			return false;
		small_map(c, p, b);
		grow_field(b, "value", &b->w.value_size, EXPLAIN_VALUE_STEP, label, len);
		return true;
	case DIFF_KEY:
		if (type == MAP_TYPE_LPM_TRIE || prefixes)
			return false;
		small_map(c, p, b);
		grow_field(b, "key", &b->w.key_size, EXPLAIN_KEY_STEP, label, len);
		return true;
	case DIFF_PREALLOC:
		if (type != MAP_TYPE_HASH || c->op == OP_LOOKUP ||
		    (b->map_flags & MAP_F_NO_PREALLOC))
			return false;
		snprintf(label, len, "BPF_F_NO_PREALLOC");
		b->map_flags |= MAP_F_NO_PREALLOC;
		return true;
	default:
		return false;
	}
}

/* Sides whose design refuses b's map (a design without BPF_F_NO_PREALLOC,
 * a key size it does not take): skipped in that run. */
static void refusing_sides(const struct bench_cli *b, const struct explain_point *p,
			   bool *skip)
{
	for (unsigned i = 0; i < p->n_sides; i++) {
		const struct explain_side *s = &p->sides[i];
		skip[i] = false;
		if (s->kernel)
			continue;
		struct bench_config bc = side_config(b, s, 0);
		skip[i] = bench_design_accepts(&bc) != 0;
	}
}

static int run_diffs(const struct explain_cli *c, const struct bench_cli *base,
		     struct explain_point *p)
{
	for (int d = 0; d < DIFF_COUNT; d++) {
		struct bench_cli b = *base;
		b.repeat = EXPLAIN_DIFF_REPEAT;
		b.seconds = c->b.seconds < EXPLAIN_DIFF_SECONDS ? c->b.seconds
								 : EXPLAIN_DIFF_SECONDS;
		p->diff_run[d] = diff_workload(c, (enum explain_diff)d, p, &b);
		if (!p->diff_run[d])
			continue;
		bool skip[EXPLAIN_MAX_SIDES];
		double ns[EXPLAIN_MAX_SIDES];
		refusing_sides(&b, p, skip);
		int rc = run_unsampled(&b, p, skip, ns, false, c->op);
		if (rc)
			return rc;
		bool at_small = (d == DIFF_VALUE || d == DIFF_KEY) &&
				p->entries > EXPLAIN_SMALL_ENTRIES;
		for (unsigned i = 0; i < p->n_sides; i++) {
			struct explain_side *s = &p->sides[i];
			s->diff_ns[d] = skip[i] ? NAN : ns[i];
			s->diff_base_ns[d] = at_small ? s->diff_ns[DIFF_SIZE]
						      : s->ns.median;
		}
	}
	return 0;
}

/* --- what sampling costs (--overhead N) ------------------------------------------------ */

/* One run of side s, sampled at hz or (hz 0) not: its ns/op (the kernel's:
 * its program per step), or NaN with a message printed. */
static double one_run(const struct explain_cli *c, const struct bench_cli *b,
		      struct explain_side *s, unsigned hz)
{
	struct bench_config bc = side_config(b, s, b->seconds);
	struct kbench_config kc = { .b = bc, .map_type = s->map_type,
				    .ops_per_run = b->run_ops,
				    .run_repeat = b->run_repeat };
	struct explain_target t = target_of(b, c->op);
	char err[256];
	int rc;
	double ns = NAN;
	if (hz) {
		struct explain_sampled out;
		rc = s->kernel ? explain_sample_kernel(&kc, &t, hz, &out, err, sizeof(err))
			       : explain_sample_user(&bc, &t, hz, &out, err, sizeof(err));
		if (!rc)
			ns = out.ns_per_op;
		explain_sampled_free(&out);
	} else if (s->kernel) {
		struct kbench_result r;
		if (!(rc = kbench_run(&kc, &r, err, sizeof(err))))
			ns = r.program_ns_per_op;
	} else {
		struct bench_result r;
		if (!(rc = bench_run(&bc, &r, err, sizeof(err))))
			ns = r.ns_per_op;
	}
	if (rc)
		cli_error("explain", "%s: %s", s->label, err);
	return ns;
}

/* N pairs per side, the sides in turn; the spread of sampled / unsampled. */
int explain_overhead(const struct explain_cli *c, FILE *out)
{
	struct explain_point p;
	unsigned n = c->overhead_pairs;
	double *ratio = calloc((size_t)n * EXPLAIN_MAX_SIDES, sizeof(double));
	if (!ratio)
		return cli_error("explain", "out of memory");
	explain_lay_out_sides(c, &p);
	for (unsigned k = 0; k < n; k++)
		for (unsigned i = 0; i < p.n_sides; i++) {
			double plain = one_run(c, &c->b, &p.sides[i], 0);
			double sampled = one_run(c, &c->b, &p.sides[i], c->hz);
			if (!isfinite(plain) || !isfinite(sampled)) {
				free(ratio);
				return EXIT_USAGE;
			}
			ratio[i * n + k] = sampled / plain;
		}
	fprintf(out, "what sampling at %u Hz costs: %u pairs of %.2g s runs per "
		"side (unsampled, then sampled), the sides in turn\n", c->hz, n,
		c->b.seconds);
	for (unsigned i = 0; i < p.n_sides; i++) {
		struct spread r = spread_of(&ratio[i * n], n);
		fprintf(out, "  %-28s sampled / unsampled ns/op: median %+.1f%% "
			"[%+.1f%% to %+.1f%%]\n", p.sides[i].label,
			100 * (r.median - 1), 100 * (r.min - 1), 100 * (r.max - 1));
	}
	free(ratio);
	return 0;
}


int explain_size(const struct explain_cli *c, uint32_t entries,
			struct explain_point *p)
{
	struct bench_cli b = c->b;
	uint64_t t0 = clock_now_ns();
	int rc;

	explain_at_size(c, &b, entries);
	p->entries = entries;
	explain_lay_out_sides(c, p);
	if ((rc = run_unsampled(&b, p, NULL, NULL, true, c->op)))
		return rc;
	for (unsigned i = 0; i < p->n_sides; i++)
		if ((rc = sample_side(c, &b, &p->sides[i])))
			return rc;
	if (!c->no_diff && (rc = run_diffs(c, &b, p)))
		return rc;
	p->seconds = (double)(clock_now_ns() - t0) / 1e9;
	return 0;
}

void explain_point_free(struct explain_point *p)
{
	for (unsigned i = 0; i < p->n_sides; i++)
		explain_sampled_free(&p->sides[i].sampled);
}
