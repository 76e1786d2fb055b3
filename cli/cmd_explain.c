/* SPDX-License-Identifier: MIT */
/*
 * maplab explain: where the time of one op goes, in the kernel's map inside
 * BPF and in each design of --map, side by side (explain.h).
 *
 * For each size of --sizes (or --entries):
 *   1. the unsampled runs: the kernel's side and each design's, --repeat
 *      times, interleaved (measure.h): each side's ns/op with its spread;
 *   2. one sampled run per side (explain_sample.h), at --hz, for
 *      --sample-seconds: the shares of the steps;
 *   3. the differential runs, one workload change each (explain.h), run as
 *      the unsampled ones are: the ns/op differences that price what the
 *      samples cannot split (an interrupts-off section, the memory cost).
 * then the report (explain_report.c).
 */
#include "cli/cli.h"
#include "cli/explain.h"
#include "cli/measure.h"
#include "harness/common/clock.h"
#include "harness/common/parse.h"
#include "harness/profile/sampler.h"
#include "harness/profile/symbols.h"
#include "kernel-compare/kbench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXPLAIN_DEFAULT_REPEAT 3
#define EXPLAIN_DEFAULT_SECONDS 0.5
#define EXPLAIN_DEFAULT_SAMPLE_SECONDS 2.0
/* Samples per second of CPU time: each costs the sampled thread a timer
 * interrupt and an unwind, 50-100 us on the paravirtualised host measured
 * (docs/explain.md): +6% on the ns/op at 1 kHz, +1.5-3% at 250 Hz. */
#define EXPLAIN_DEFAULT_HZ 250
#define EXPLAIN_DEFAULT_WARMUP 0.1
#define EXPLAIN_DIFF_REPEAT 2
#define EXPLAIN_DIFF_SECONDS 0.3
#define EXPLAIN_INSERT_PREFILL 90
/* BPF_PROG_TEST_RUN's repeat count for the kernel's side: each test run of
 * an XDP program re-patches the XDP dispatcher twice (text_poke, IPIs to
 * every CPU: about 7% of the samples at kbench's 64 repeats of 1024 ops
 * on a 64K hash update here), a cost of the harness that longer runs
 * make small. */
#define EXPLAIN_RUN_REPEAT 256
#define EXPLAIN_TEST_RUN_MS 200

static const struct opt_spec opt_op = { OPT_OP, "op", TAKES_TEXT, 0, 0, 0, 0,
	"OP", NULL };
static const struct opt_spec opt_sizes = { OPT_SIZES, "sizes", TAKES_TEXT,
	0, 0, 0, 0, "N,N...", NULL };
static const struct opt_spec opt_svg = { OPT_SVG, "svg", TAKES_TEXT, 0, 0,
	0, 0, "FILE", NULL };
static const struct opt_spec opt_dir = { OPT_OUT, "out", TAKES_TEXT, 0, 0, 0,
	0, "DIR", NULL };
static const struct opt_spec opt_hz = { OPT_HZ, "hz", TAKES_NUMBER, 10, 10000,
	0, 0, "N", NULL };
static const struct opt_spec opt_sample_seconds = { OPT_SAMPLE_SECONDS,
	"sample-seconds", TAKES_SECONDS, 0, 0, 0.05, 60, "S", NULL };
static const struct opt_spec opt_chains = { OPT_CHAINS, "chains", TAKES_TEXT,
	0, 0, 0, 0, "FILE", NULL };
static const struct opt_spec opt_overhead = { OPT_OVERHEAD, "overhead",
	TAKES_NUMBER, 1, 1000, 0, 0, "N", NULL };
static const struct opt_spec opt_no_diff = { OPT_NO_DIFF, "no-diff",
	TAKES_NOTHING, 0, 0, 0, 0, NULL, NULL };

static const char usage[] =
	"usage: maplab explain --map DESIGN[,DESIGN...] --op OP [options]\n\n"
	"Runs OP on the kernel's map of the designs' type inside BPF (needs root:\n"
	"BPF and perf sampling with kernel call chains) and on each design, and\n"
	"shows where the time of one op goes on each side:\n"
	"  - ns/op of each side from unsampled runs (median, min and max);\n"
	"  - the steps of the op (hash, walk, compare, lock, allocation, copy, LRU\n"
	"    work, reclamation, BPF program, thunks, harness): each side's share of\n"
	"    its sampled time and ns per step, with the functions behind each;\n"
	"  - differential runs (a small map, a larger value, a larger key,\n"
	"    BPF_F_NO_PREALLOC) that price what sampling cannot split;\n"
	"  - a summary in words, each figure saying where it came from;\n"
	"  - with --svg or --out, a side-by-side flame graph (SVG).\n"
	"OP: lookup (lookup=100), update (update=100 of existing keys), insert or\n"
	"delete (insert=50,delete=50 pairs, prefill " STR(EXPLAIN_INSERT_PREFILL)
	"% so inserts find room; an LRU\n"
	"insert: insert=100 over a key range of 400% of the entries, so each\n"
	"insert of a new key evicts).  docs/explain.md teaches the output.\n";
static const char after[] =
	"examples:\n"
	"  maplab explain --map lpm_trie/linux --op update\n"
	"  maplab explain --map hash/linux,hash/seqlock_buckets --op lookup "
	"--sizes 1K,64K,1M --out explain/\n";

static const struct cmd_option options[] = {
	{ &opt_map, "designs (maplab list), all of one map type" },
	{ &opt_op, "lookup, update, insert or delete" },
	{ &opt_key_size, NULL },
	{ &opt_value_size, NULL },
	{ &opt_entries, NULL },
	{ &opt_sizes, "explain at each of these max_entries (1K = 1024, 1M);\n"
		      "one table across them" },
	{ &opt_prefill, NULL },
	{ &opt_key_range, NULL },
	{ &opt_flags, NULL },
	{ &opt_seed, NULL },
	{ &opt_duration, "timed seconds of each unsampled run ("
			 STR(EXPLAIN_DEFAULT_SECONDS) ")" },
	{ &opt_sample_seconds, "timed seconds of each sampled run ("
			       STR(EXPLAIN_DEFAULT_SAMPLE_SECONDS) ")" },
	{ &opt_repeat, "unsampled runs per side (" STR(EXPLAIN_DEFAULT_REPEAT) ")" },
	{ &opt_hz, "samples per second of CPU time, each thread ("
		   STR(EXPLAIN_DEFAULT_HZ) ")" },
	{ &opt_no_diff, "skip the differential runs" },
	{ &opt_overhead, "instead of explaining, measure what sampling costs: N\n"
			 "pairs of runs per side, unsampled then sampled, each of\n"
			 "--duration; the median of sampled / unsampled ns/op" },
	{ &opt_svg, "write the flame graph here (one file per size, -SIZE added\n"
		    "when there are several)" },
	{ &opt_dir, "write the report (explain.txt) and flame graphs into DIR" },
	{ &opt_chains, "write every sample's symbolised call chain here, one a\n"
		       "line (for other tools, and the tests' recordings)" },
	{ &opt_quiet, NULL },
	{ &opt_verbose, NULL },
};

const char *explain_op_name(enum bench_op op)
{
	static const char *const names[OP_COUNT] = { "lookup", "update", "insert",
						     "delete" };
	return op < OP_COUNT ? names[op] : "?";
}

/* 1K, 64K, 1M, or a plain count. */
static int parse_size(const char *cmd, const char *text, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (end != text && (*end == 'K' || *end == 'k'))
		n <<= 10, end++;
	else if (end != text && (*end == 'M' || *end == 'm'))
		n <<= 20, end++;
	if (end == text || *end || errno || n < 1 || n > (1u << 26)) {
		char shown[64];
		return cli_error(cmd, "--sizes wants counts from 1 to 64M (64K, "
				 "1M, 4096), got '%s'",
				 parse_printable(text, shown, sizeof(shown)));
	}
	*out = (uint32_t)n;
	return 0;
}

static int parse_sizes(struct explain_cli *c, const char *text)
{
	char buf[256];
	if (strlen(text) >= sizeof(buf))
		return cli_error("explain", "--sizes: the list is too long");
	strcpy(buf, text);
	c->n_sizes = 0;
	for (char *save, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (c->n_sizes == EXPLAIN_MAX_SIZES)
			return cli_error("explain", "--sizes: at most %d sizes",
					 EXPLAIN_MAX_SIZES);
		int rc = parse_size("explain", tok, &c->sizes[c->n_sizes++]);
		if (rc)
			return rc;
	}
	return c->n_sizes ? 0 : cli_error("explain", "--sizes: no size given");
}

static int apply_explain(void *ctx, enum opt_id id, const struct opt_value *v)
{
	struct explain_cli *c = ctx;
	char shown[64];
	switch (id) {
	case OPT_OP:
		for (int op = 0; op < OP_COUNT; op++)
			if (strcmp(v->text, explain_op_name((enum bench_op)op)) == 0) {
				c->op = (enum bench_op)op;
				c->op_given = true;
				return 0;
			}
		return cli_error("explain", "--op wants lookup, update, insert or "
				 "delete, got '%s'",
				 parse_printable(v->text, shown, sizeof(shown)));
	case OPT_SIZES: return parse_sizes(c, v->text);
	case OPT_SVG: c->svg = v->text; return 0;
	case OPT_HZ: c->hz = (unsigned)v->u; return 0;
	case OPT_SAMPLE_SECONDS: c->sample_seconds = v->seconds; return 0;
	case OPT_NO_DIFF: c->no_diff = true; return 0;
	case OPT_CHAINS: c->chains_path = v->text; return 0;
	case OPT_OVERHEAD: c->overhead_pairs = (unsigned)v->u; return 0;
	default:
		return cli_error("explain", "option not handled here (a bug)");
	}
}

static bool all_lru(const struct bench_cli *b)
{
	for (unsigned m = 0; m < b->n_maps; m++)
		if (b->map_types[m] != MAP_TYPE_LRU_HASH)
			return false;
	return true;
}

/* Once every option is read: the mix of --op, and the prefill or key range
 * it needs where the user gave none. */
static int settle(struct bench_cli *b, void *ctx)
{
	struct explain_cli *c = ctx;
	if (!c->op_given)
		return cli_error("explain", "--op is required: lookup, update, "
				 "insert or delete");
	c->dir = b->out;
	for (unsigned m = 1; m < b->n_maps; m++)
		if (b->map_types[m] != b->map_types[0])
			return cli_error("explain", "--map: %s and %s are of different "
					 "map types; explain one type at a time",
					 b->maps[0]->name, b->maps[m]->name);
	memset(b->w.mix, 0, sizeof(b->w.mix));
	bool lru_insert = c->op == OP_INSERT && all_lru(b);
	if (c->op == OP_LOOKUP || c->op == OP_UPDATE || lru_insert) {
		b->w.mix[c->op] = 100;
	} else {
		b->w.mix[OP_INSERT] = b->w.mix[OP_DELETE] = 50;
		if (b->w.prefill_pct == WORKLOAD_DEFAULT_PREFILL)
			b->w.prefill_pct = EXPLAIN_INSERT_PREFILL;
	}
	if (lru_insert && b->key_range.n == 0)
		b->key_range = (struct opt_count){ 400, true };
	return 0;
}

/* Where explain's defaults differ from bench's (before argv). */
static void set_defaults(struct bench_cli *b, void *ctx)
{
	struct explain_cli *c = ctx;
	c->hz = EXPLAIN_DEFAULT_HZ;
	c->sample_seconds = EXPLAIN_DEFAULT_SAMPLE_SECONDS;
	b->seconds = EXPLAIN_DEFAULT_SECONDS;
	b->repeat = EXPLAIN_DEFAULT_REPEAT;
	b->warmup = EXPLAIN_DEFAULT_WARMUP;
	b->run_repeat = EXPLAIN_RUN_REPEAT;
}

static int parse(struct explain_cli *c, int argc, char **argv)
{
	struct bench_cli_extra extra = { set_defaults, apply_explain, settle, c };
	c->b.cmd = "explain";
	c->b.extra = &extra;
	int rc = bench_cli_parse(&c->b, argc, argv, options, N_OPTIONS(options),
				 usage, after);
	c->b.extra = NULL;
	return rc;
}

/* --- the sides ------------------------------------------------------------------ */

/* The kernel's map in each mode the designs stand for, then each design. */
static void lay_out_sides(const struct explain_cli *c, struct explain_point *p)
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
static int add_sides(const struct bench_cli *b, const struct explain_point *p,
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
static void at_size(const struct explain_cli *c, struct bench_cli *b,
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
	int rc = add_sides(b, p, skip, &m, index);
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
	static const char *const programs[OP_COUNT] = { "kb_lookup", "kb_update",
							"kb_insert", "kb_delete" };
	static const char *const words[OP_COUNT] = { "lookup", "update", "update",
						     "delete" };
	bool one_op = b->w.mix[op] == 100;
	return (struct explain_target){ .op = op,
					.program = one_op ? programs[op] : "kb_mix",
					.kernel_op = words[op] };
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
	return 0;
}

/* --- the differential runs --------------------------------------------------------- */

/* b at the small map's size, where p's is larger: whether it changed. */
static bool small_map(const struct explain_cli *c, const struct explain_point *p,
		      struct bench_cli *b)
{
	if (p->entries <= EXPLAIN_SMALL_ENTRIES)
		return false;
	at_size(c, b, EXPLAIN_SMALL_ENTRIES);
	if (b->w.key_range && b->w.key_range < EXPLAIN_SMALL_ENTRIES)
		b->w.key_range = EXPLAIN_SMALL_ENTRIES;
	return true;
}

/* Whether diff d applies to c's op at p's size, and b changed for it; its
 * label into p. */
static bool diff_workload(const struct explain_cli *c, enum explain_diff d,
			  struct explain_point *p, struct bench_cli *b)
{
	uint32_t type = c->b.map_types[0];
	bool writes = c->op == OP_UPDATE || c->op == OP_INSERT;
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
		snprintf(label, len, "value %u -> %u B at %u entries", b->w.value_size,
			 b->w.value_size + EXPLAIN_VALUE_STEP, b->w.entries);
		b->w.value_size += EXPLAIN_VALUE_STEP;
		return true;
	case DIFF_KEY:
		if (type == MAP_TYPE_LPM_TRIE || prefixes)
			return false;
		small_map(c, p, b);
		snprintf(label, len, "key %u -> %u B at %u entries", b->w.key_size,
			 b->w.key_size + EXPLAIN_KEY_STEP, b->w.entries);
		b->w.key_size += EXPLAIN_KEY_STEP;
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
		struct map_attr attr = { .type = s->map_type, .key_size = bc.w.key_size,
					 .value_size = bc.w.value_size,
					 .max_entries = bc.w.entries,
					 .flags = bc.map_flags };
		struct map *m;
		if (map_create(s->design, &attr, &m)) {
			skip[i] = true;
			continue;
		}
		map_destroy(m);
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
static int measure_overhead(const struct explain_cli *c, FILE *out)
{
	struct explain_point p;
	unsigned n = c->overhead_pairs;
	double *ratio = calloc((size_t)n * EXPLAIN_MAX_SIDES, sizeof(double));
	if (!ratio)
		return cli_error("explain", "out of memory");
	lay_out_sides(c, &p);
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

/* --- one size, and the command ---------------------------------------------------- */

static int explain_size(const struct explain_cli *c, uint32_t entries,
			struct explain_point *p)
{
	struct bench_cli b = c->b;
	uint64_t t0 = clock_now_ns();
	int rc;

	at_size(c, &b, entries);
	p->entries = entries;
	lay_out_sides(c, p);
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

static void free_point(struct explain_point *p)
{
	for (unsigned i = 0; i < p->n_sides; i++)
		explain_sampled_free(&p->sides[i].sampled);
}

/* Refuse what cannot run before anything runs: exit 2 with the reason. */
static int check_can_run(void)
{
	char why[256];
	if (prof_sampler_check(why, sizeof(why)))
		return cli_error("explain", "cannot sample here: %s", why);
	if (!measure_kernel_ready("explain", false))
		return EXIT_USAGE;
	if (prof_jit_kallsyms() == 0)
		return cli_error("explain", "net.core.bpf_jit_kallsyms is 0: the "
				 "BPF programs would have no names in the samples; "
				 "as root: sysctl net.core.bpf_jit_kallsyms=1");
	return 0;
}

/* The path of p's flame graph: --svg FILE (FILE-SIZE.svg with several
 * sizes), or DIR/explain-TYPE-OP-SIZE.svg. */
static void svg_path(const struct explain_cli *c, const struct explain_point *p,
		     char *buf, size_t len)
{
	if (c->svg && c->n_sizes <= 1) {
		snprintf(buf, len, "%s", c->svg);
		return;
	}
	if (c->svg) {
		const char *dot = strrchr(c->svg, '.');
		int stem = dot ? (int)(dot - c->svg) : (int)strlen(c->svg);
		snprintf(buf, len, "%.*s-%u%s", stem, c->svg, p->entries, dot ? dot : ".svg");
		return;
	}
	snprintf(buf, len, "%s/explain-%s-%s-%u.svg", c->dir,
		 map_type_name(c->b.map_types[0]), explain_op_name(c->op), p->entries);
}

static FILE *open_report(const struct explain_cli *c)
{
	if (!c->dir)
		return stdout;
	char path[4096];
	if (mkdir(c->dir, 0777) && errno != EEXIST) {
		cli_error("explain", "--out %s: %s", c->dir, strerror(errno));
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/explain.txt", c->dir);
	FILE *f = fopen(path, "w");
	if (!f)
		cli_error("explain", "%s: %s", path, strerror(errno));
	return f;
}

int cmd_explain(int argc, char **argv)
{
	static struct explain_cli c;
	static struct explain_point points[EXPLAIN_MAX_SIZES];
	struct host_record host;
	int rc = parse(&c, argc, argv);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = check_can_run()))
		return rc;
	if (!c.n_sizes)
		c.sizes[c.n_sizes++] = c.b.w.entries;
	FILE *out = open_report(&c);
	if (!out)
		return EXIT_USAGE;
	if (c.chains_path && !(c.chains = fopen(c.chains_path, "w"))) {
		if (out != stdout)
			fclose(out);
		return cli_error("explain", "--chains %s: %s", c.chains_path,
				 strerror(errno));
	}
	host_record_read(&host);
	explain_print_header(out, &c, &host);
	if (c.overhead_pairs) {
		c.b.w.entries = c.sizes[0];
		rc = measure_overhead(&c, out);
		if (out != stdout)
			fclose(out);
		if (c.chains)
			fclose(c.chains);
		return rc;
	}
	unsigned n = 0;
	for (; n < c.n_sizes && !rc; n++) {
		rc = explain_size(&c, c.sizes[n], &points[n]);
		if (rc)
			break;
		explain_print_point(out, &c, &points[n]);
		if (c.svg || c.dir) {
			char path[4096];
			svg_path(&c, &points[n], path, sizeof(path));
			rc = explain_write_svg(&c, &points[n], path);
			if (!rc)
				fprintf(out, "flame graph: %s\n\n", path);
		}
		fflush(out);
	}
	if (!rc && n > 1)
		explain_print_sizes(out, &c, points, n);
	for (unsigned i = 0; i < n && i < c.n_sizes; i++)
		free_point(&points[i]);
	if (out != stdout && fclose(out) && !rc)
		rc = cli_error("explain", "writing the report failed");
	if (c.chains && fclose(c.chains) && !rc)
		rc = cli_error("explain", "writing %s failed", c.chains_path);
	if (!rc && c.dir)
		fprintf(stderr, "maplab explain: report in %s/explain.txt\n", c.dir);
	return rc;
}
