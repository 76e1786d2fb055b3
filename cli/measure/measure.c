/* SPDX-License-Identifier: MIT */
/*
 * measure.c: the driver (measure.h).  The arrays of a measurement are laid
 * out side-major: configs and points [side][thread count], runs
 * [side][thread count][repeat], so one side's points are contiguous (as
 * report_derive_speedups wants them) and a point's runs are in repeat order.
 */
#include "cli/measure/measure.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "harness/bench/memstat.h"
#include "harness/bench/probe.h"
#include "kernel-compare/kbench.h"
#include "kernel-compare/kmap.h"
#include "harness/common/parse.h"
#include "harness/common/wrap.h"
#include "maps/base/area.h"
#include "maps/base/cpu.h"
#include "maps/plain/plain.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- the kinds of side ---------------------------------------------------------- */

static int run_user(const struct side *s, const struct bench_cli *cli,
		    const struct bench_config *b, struct report_run *out,
		    char *err, size_t errlen)
{
	struct bench_result r;
	(void)s, (void)cli;
	int rc = bench_run(b, &r, err, errlen);
	/* a whole-map phase (--lpm-op) samples no op alone */
	if (!rc)
		report_run_from(out, &r, r.latency.total > 0);
	return rc;
}

static struct kbench_config kernel_config(const struct side *s,
					  const struct bench_cli *cli,
					  const struct bench_config *b)
{
	return (struct kbench_config){ .b = *b, .map_type = s->map_type,
				       .ops_per_run = cli->run_ops,
				       .run_repeat = cli->run_repeat,
				       .verbose = cli->verbose };
}

static int run_kernel(const struct side *s, const struct bench_cli *cli,
		      const struct bench_config *b, struct report_run *out,
		      char *err, size_t errlen)
{
	struct kbench_config kc = kernel_config(s, cli, b);
	struct kbench_result r;
	int rc = kbench_run(&kc, &r, err, errlen);
	if (rc)
		return rc;
	report_run_from(out, &r.r, false); /* no latencies inside BPF */
	out->v[RF_PROGRAM_NS] = r.program_ns_per_op;
	out->v[RF_BASELINE_NS] = r.baseline_ns_per_op;
	return 0;
}

static int run_syscalls(const struct side *s, const struct bench_cli *cli,
			const struct bench_config *b, enum syscall_mode mode,
			struct report_run *out, char *err, size_t errlen)
{
	struct kbench_config kc = kernel_config(s, cli, b);
	struct bench_result r;
	int rc = kbench_syscall_run(&kc, mode, &r, err, errlen);
	if (!rc)
		report_run_from(out, &r, true);
	return rc;
}

static int run_syscall(const struct side *s, const struct bench_cli *cli,
		       const struct bench_config *b, struct report_run *out,
		       char *err, size_t errlen)
{
	return run_syscalls(s, cli, b, SYSCALL_SINGLE, out, err, errlen);
}

static int run_syscall_batch(const struct side *s, const struct bench_cli *cli,
			     const struct bench_config *b,
			     struct report_run *out, char *err, size_t errlen)
{
	return run_syscalls(s, cli, b, SYSCALL_BATCH, out, err, errlen);
}

/* The noop design through bench's loop: the harness's cost, no map. */
static int run_harness(const struct side *s, const struct bench_cli *cli,
		       const struct bench_config *b, struct report_run *out,
		       char *err, size_t errlen)
{
	int rc = run_user(s, cli, b, out, err, errlen);
	out->v[RF_BYTES_PER_ENTRY] = NAN; /* a noop "map" holds nothing */
	out->memory_from = BENCH_MEMORY_NONE;
	return rc;
}

static int run_loads(const struct side *s, const struct bench_cli *cli,
		     const struct bench_config *b, struct report_run *out,
		     char *err, size_t errlen)
{
	struct bench_result r;
	(void)cli;
	int rc = limit_run(&s->buffer, b, &r, err, errlen);
	if (!rc) {
		report_run_from(out, &r, false); /* no latencies sampled */
		out->v[RF_BUFFER_BYTES] = (double)limit_buffer_bytes(&s->buffer);
	}
	return rc;
}

const struct side_kind side_user = { "user", run_user };
const struct side_kind side_harness = { "harness", run_harness };
const struct side_kind side_loads = { "loads", run_loads };
/* a plain DPDK table runs through bench's loop as a design does */
const struct side_kind side_plain = { "plain", run_user };
const struct side_kind side_kernel = { "kernel", run_kernel };
const struct side_kind side_syscall = { "syscall", run_syscall };
const struct side_kind side_syscall_batch = { "syscall-batch",
					      run_syscall_batch };

int measure_add_side(struct measurement *m, const char *cmd,
		     const struct side *side)
{
	if (m->n_sides == MEASURE_MAX_SIDES)
		return cli_error(cmd, "at most %d sides at once", MEASURE_MAX_SIDES);
	struct side *s = &m->sides[m->n_sides++];
	*s = *side;
	s->map = s->design ? s->design->name : map_type_name(s->map_type);
	s->plain = -1;
	return 0;
}

/* Whether the run asks the plain tables' one question: lookups. */
static bool lookups_only(const struct bench_cli *cli)
{
	return cli->w.mix[OP_LOOKUP] == 100 &&
	       (cli->lpm_op == BENCH_LPM_NONE || cli->lpm_op == BENCH_LPM_LOOKUP);
}

/* The side whose design is d, or -1. */
static int side_of_design(const struct measurement *m, const struct map_ops *d)
{
	for (unsigned s = 0; s < m->n_sides; s++)
		if (m->sides[s].design == d)
			return (int)s;
	return -1;
}

/* --hugepages beside a DPDK table with no huge pages reserved for its
 * heap: say that it stays on 4 KiB pages (docs/bench.md, "Huge pages"). */
static void dpdk_without_hugepages(const struct bench_cli *cli,
				   const struct measurement *m)
{
	if (!cli->hugepages || map_hugetlb_free_pages() > 0)
		return;
	for (unsigned s = 0; s < m->n_sides; s++) {
		const struct map_ops *d = m->sides[s].design;
		if (d && (plain_for(d->name) || plain_is(d))) {
			fprintf(stderr, "maplab %s: --hugepages: no huge pages are "
				"reserved for DPDK's heap (vm.nr_hugepages is 0): "
				"%s stays on 4 KiB pages\n", cli->cmd, d->name);
			return;
		}
	}
}

int measure_add_plain_sides(const struct bench_cli *cli, struct measurement *m)
{
	unsigned n_map_sides = m->n_sides;
	dpdk_without_hugepages(cli, m);
	for (unsigned a = 0; a < n_map_sides; a++) {
		const struct side adapter = m->sides[a];
		const struct map_ops *plain =
			adapter.design ? plain_for(adapter.design->name) : NULL;
		if (!plain || side_of_design(m, plain) >= 0)
			continue;
		if (!lookups_only(cli)) {
			fprintf(stderr, "maplab %s: %s: left out: a plain table "
				"answers lookups only (lookup=100)\n", cli->cmd,
				plain->name);
			continue;
		}
		struct side s = { .kind = &side_plain, .design = plain,
				  .map_type = adapter.map_type,
				  .reference = adapter.reference };
		snprintf(s.label, sizeof(s.label), "%s (reference)", plain->name);
		int rc = measure_add_side(m, cli->cmd, &s);
		if (rc)
			return rc;
		for (unsigned k = 0; k < n_map_sides; k++)
			if (m->sides[k].map_type == adapter.map_type)
				m->sides[k].plain = (int)m->n_sides - 1;
	}
	return 0;
}

/* "17.0 MB": bytes in the unit that keeps a figure or two before the
 * point. */
static void format_bytes(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB" };
	int u = 0;
	while (bytes >= 1000 && u < 4) {
		bytes /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

/* The most threads of --threads. */
static unsigned most_threads(const struct bench_cli *cli)
{
	unsigned most = 1;
	for (unsigned t = 0; t < cli->n_threads; t++)
		most = cli->threads[t] > most ? cli->threads[t] : most;
	return most;
}

/* The loads side: its buffer sized to D's footprint (measure.h). */
static int add_loads_side(const struct bench_cli *cli, struct measurement *m)
{
	const struct map_ops *d = cli->physical;
	struct side s = { .kind = &side_loads, .design = d,
			  .map_type = d->type ? d->type : MAP_TYPE_HASH,
			  .mode_flags = d->mode_flags, .reference = -1 };
	struct bench_config b = { .design = d,
				  .w = workload_for_type(&cli->w, s.map_type),
				  .map_flags = cli->map_flags | d->mode_flags,
				  .threads = most_threads(cli) };
	struct bench_memory mem;
	char err[256], size[32];

	int rc = bench_footprint(&b, &mem, err, sizeof(err));
	if (rc)
		return cli_error(cli->cmd, "--physical %s: %s", d->name, err);
	if (mem.from == BENCH_MEMORY_NONE) {
		fprintf(stderr, "maplab %s: random loads: skipped: %s keeps no "
			"count of its memory, and this build's allocator (%s) "
			"gives none (jemalloc does)\n", cli->cmd, d->name,
			memstat_available() ? "jemalloc" : "libc");
		return 0;
	}
	if ((rc = limit_buffer_init(&s.buffer, (size_t)mem.bytes)))
		return cli_error(cli->cmd, "--physical %s: no buffer of %.0f "
				 "bytes: %s", d->name, mem.bytes,
				 map_errno_text(-rc));
	format_bytes(limit_buffer_bytes(&s.buffer), size, sizeof(size));
	/* The label names the series in report.md and the plots (report.py
	 * draws with matplotlib, which takes any text; no quote in it, as
	 * when gnuplot drew). */
	snprintf(s.label, sizeof(s.label), "random loads (%s, %s)", d->name,
		 size);
	if ((rc = measure_add_side(m, cli->cmd, &s)))
		limit_buffer_free(&s.buffer);
	return rc;
}

int measure_add_physical_sides(const struct bench_cli *cli,
			       struct measurement *m)
{
	struct side harness = { .kind = &side_harness, .design = &bench_noop_ops,
				.map_type = MAP_TYPE_HASH, .reference = -1 };
	if (!cli->physical)
		return 0;
	snprintf(harness.label, sizeof(harness.label), "harness (noop)");
	int rc = measure_add_side(m, cli->cmd, &harness);
	return rc ? rc : add_loads_side(cli, m);
}

void measure_mode_suffix(uint32_t mode_flags, char *buf, size_t len)
{
	char names[128];
	buf[0] = '\0';
	if (mode_flags)
		snprintf(buf, len, " +%s",
			 format_map_flags(mode_flags, names, sizeof(names)));
}

/* --- the run -------------------------------------------------------------------- */

/* The arrays, and each point's constant part (side, config, runs' place). */
static int lay_out(const struct bench_cli *cli, struct measurement *m,
		   struct progress *progress)
{
	size_t points = (size_t)m->n_sides * cli->n_threads;
	m->n_threads = cli->n_threads;
	m->configs = calloc(points, sizeof(*m->configs));
	m->points = calloc(points, sizeof(*m->points));
	m->runs = calloc(points * cli->repeat, sizeof(*m->runs));
	if (!m->configs || !m->points || !m->runs)
		return cli_error(cli->cmd, "out of memory");
	for (unsigned s = 0; s < m->n_sides; s++)
		for (unsigned t = 0; t < cli->n_threads; t++) {
			size_t i = (size_t)s * cli->n_threads + t;
			const struct side *side = &m->sides[s];
			/* The workload as the side's map type takes it (in a
			 * prefix workload a hash's keys are the addresses
			 * alone), with the flags that type requires. */
			m->configs[i] = (struct bench_config){
				.design = side->design, /* NULL: a kernel side */
				.w = workload_for_type(&cli->w, side->map_type),
				.map_flags = bench_map_flags(side->map_type,
					cli->map_flags | side->mode_flags),
				.threads = cli->threads[t],
				.lpm_op = cli->lpm_op,
				.seconds = cli->seconds, .ops = cli->ops,
				.warmup = cli->warmup, .progress = progress_update,
				.progress_arg = progress,
			};
			m->points[i] = (struct report_point){
				.side = side->kind->name, .map = side->map,
				.label = side->label, .config = &m->configs[i],
				.run = &m->runs[i * cli->repeat],
			};
		}
	return 0;
}

/* -EOPNOTSUPP: the point cannot run here.  It is dropped, with a note. */
static void skip_point(const struct bench_cli *cli, struct progress *progress,
		       struct report_point *p, const char *why)
{
	progress_clear(progress);
	fprintf(stderr, "maplab %s: %s, %u thread%s: skipped: %s\n", cli->cmd,
		p->label, p->config->threads, p->config->threads == 1 ? "" : "s",
		why);
	p->runs = 0;
}

/* One repeat: every point not skipped, run once.  0 or EXIT_USAGE. */
static int run_repeat(const struct bench_cli *cli, struct measurement *m,
		      unsigned r, double probe_ns, bool *skipped,
		      struct progress *progress)
{
	char err[512];
	for (unsigned t = 0; t < m->n_threads; t++)
		for (unsigned k = 0; k < m->n_sides; k++) {
			unsigned s = (k + r) % m->n_sides;
			const struct side *side = &m->sides[s];
			size_t i = (size_t)s * m->n_threads + t;
			struct report_point *p = &m->points[i];
			if (skipped[i])
				continue;
			progress_label(progress, "%s, %u thread%s, repeat %u/%u",
				       side->label, p->config->threads,
				       p->config->threads == 1 ? "" : "s", r + 1,
				       cli->repeat);
			int rc = side->kind->run(side, cli, p->config, &p->run[r],
						 err, sizeof(err));
			if (rc == -EOPNOTSUPP) {
				skip_point(cli, progress, p, err);
				skipped[i] = true;
				continue;
			}
			if (rc) {
				progress_clear(progress);
				return cli_error(cli->cmd, "%s, %u thread%s: %s",
						 side->label, p->config->threads,
						 p->config->threads == 1 ? "" : "s",
						 err);
			}
			p->run[r].v[RF_PROBE_NS] = probe_ns;
			p->runs = r + 1;
		}
	return 0;
}

static int run_all(const struct bench_cli *cli, struct measurement *m,
		   struct progress *progress)
{
	struct probe probe;
	bool *skipped = calloc((size_t)m->n_sides * m->n_threads, sizeof(bool));
	int rc = 0;

	if (!skipped || probe_init(&probe)) {
		free(skipped);
		return cli_error(cli->cmd, "out of memory");
	}
	for (unsigned r = 0; r < cli->repeat && !rc; r++) {
		progress_label(progress, "reference probe, repeat %u/%u", r + 1,
			       cli->repeat);
		rc = run_repeat(cli, m, r, probe_run(&probe), skipped, progress);
	}
	progress_clear(progress);
	probe_free(&probe);
	free(skipped);
	return rc;
}

/* Speed-ups within each side, ratios to the references, then summaries. */
static void sum_up(struct measurement *m)
{
	unsigned nt = m->n_threads;
	unsigned cpus = map_cpu_allowed_count();
	for (unsigned s = 0; s < m->n_sides; s++)
		report_derive_speedups(measure_point(m, s, 0), nt, cpus);
	for (unsigned s = 0; s < m->n_sides; s++) {
		int ref = m->sides[s].reference;
		int plain = m->sides[s].plain;
		for (unsigned t = 0; t < nt && ref >= 0; t++)
			report_derive_ratio(measure_point(m, s, t),
					    measure_point(m, (unsigned)ref, t),
					    RF_KERNEL_RATIO);
		for (unsigned t = 0; t < nt && plain >= 0; t++)
			report_derive_ratio(measure_point(m, s, t),
					    measure_point(m, (unsigned)plain, t),
					    RF_PLAIN_RATIO);
	}
	for (size_t i = 0; i < (size_t)m->n_sides * nt; i++)
		report_summarise(&m->points[i]);
}

int measure_run(const struct bench_cli *cli, struct measurement *m)
{
	struct progress progress;
	progress_init(&progress, cli->quiet);
	int rc = lay_out(cli, m, &progress);
	if (!rc)
		rc = run_all(cli, m, &progress);
	if (!rc)
		sum_up(m);
	return rc;
}

void measure_free(struct measurement *m)
{
	for (unsigned s = 0; s < m->n_sides; s++)
		limit_buffer_free(&m->sides[s].buffer);
	free(m->configs);
	free(m->points);
	free(m->runs);
	m->configs = NULL;
	m->points = NULL;
	m->runs = NULL;
}

/* --- kbench's and compare's command line ---------------------------------------- */

const struct opt_spec opt_run_ops = { OPT_RUN_OPS, "run-ops", TAKES_NUMBER, 1,
	KBENCH_MAX_RUN_OPS, 0, 0, "N", "map calls per BPF program run" };
const struct opt_spec opt_run_repeat = { OPT_RUN_REPEAT, "run-repeat",
	TAKES_NUMBER, 1, 1ULL << 20, 0, 0, "N", "BPF_PROG_TEST_RUN repeat count" };
const struct opt_spec opt_no_syscall = { OPT_NO_SYSCALL, "no-syscall",
	TAKES_NOTHING, 0, 0, 0, 0, NULL,
	"the kernel side in BPF only, no bpf(2) sides" };

static const struct cmd_option kernel_options[] = {
	{ &opt_run_ops, "map calls per BPF program run ("
			STR(BENCH_DEFAULT_RUN_OPS) ")" },
	{ &opt_run_repeat, "BPF_PROG_TEST_RUN repeat count ("
			   STR(BENCH_DEFAULT_RUN_REPEAT) ")" },
	{ &opt_no_syscall, NULL },
	{ &opt_verbose, NULL },
	{ &opt_kernel, OPTS_KERNEL_REFUSED_HELP },
};
#define N_KERNEL_OPTIONS N_OPTIONS(kernel_options)

int measure_parse_kernel_cmd(struct bench_cli *cli, int argc, char **argv,
			     const char *usage, const char *after)
{
	size_t n = bench_option_count + N_KERNEL_OPTIONS;
	struct cmd_option *opts = calloc(n, sizeof(*opts));
	if (!opts)
		return cli_error(cli->cmd, "out of memory");
	memcpy(opts, bench_options, bench_option_count * sizeof(*opts));
	memcpy(opts + bench_option_count, kernel_options, sizeof(kernel_options));
	int rc = bench_cli_parse(cli, argc, argv, opts, n, usage, after);
	free(opts);
	return rc;
}

bool measure_kernel_ready(const char *cmd, bool alone)
{
	char why[256];
	if (kmap_available(why, sizeof(why)) == 0)
		return true;
	fprintf(stderr, "maplab %s: no kernel side here: %s%s\n", cmd, why,
		alone ? "; running the userspace side alone" : "");
	return false;
}

/* --- where the results go ------------------------------------------------------- */

/* "cannot write PATH: strerror", as a path that could not be opened. */
static int cannot_open(const struct bench_cli *cli, const char *path, int rc)
{
	char shown[256];
	return cli_error(cli->cmd, "cannot write %s: %s",
			 parse_printable(path, shown, sizeof(shown)),
			 map_errno_text(-rc));
}

int outputs_open(const struct bench_cli *cli, struct outputs *o)
{
	int rc = 0;
	o->has_save = cli->save != NULL;
	if (cli->out)
		rc = out_open(&o->out, cli->out, OUT_TRUNCATE);
	else
		out_stdout(&o->out);
	if (rc)
		return cannot_open(cli, cli->out, rc);
	if (o->has_save && (rc = out_open(&o->save, cli->save, OUT_APPEND))) {
		out_discard(&o->out);
		return cannot_open(cli, cli->save, rc);
	}
	return 0;
}

void outputs_write(const struct bench_cli *cli, struct outputs *o,
		   const struct host_record *host, const struct measurement *m,
		   table_printer print_table)
{
	unsigned n = m->n_sides * m->n_threads;
	bool several_types = false;
	FILE *out = o->out.f;
	for (unsigned i = 1; i < cli->n_maps; i++)
		several_types |= cli->map_types[i] != cli->map_types[0];
	if (cli->format == REPORT_TABLE && print_table) {
		print_table(out, cli, host, m);
	} else {
		if (cli->format == REPORT_TABLE) {
			measure_print_workload(out, cli, several_types);
			fputc('\n', out);
		}
		report_write(out, cli->format, host, m->points, n);
	}
	if (o->has_save)
		report_write(o->save.f, REPORT_JSONL, host, m->points, n);
}

/*
 * Both files whole, or neither: a write that failed in either (at any
 * flush: stdio keeps the first failure's errno for out_flush) undoes both,
 * --out removed and --save cut back to its earlier records, so a rerun
 * neither finds half a report nor appends its records twice.  Only a
 * close that fails after both flushed can leave the other file whole.
 */
int outputs_close(const struct bench_cli *cli, struct outputs *o, int rc)
{
	struct outfile *failed = NULL;
	int err = 0;
	if (rc) { /* the run failed: nothing it wrote looks finished */
		out_discard(&o->out);
		if (o->has_save)
			out_discard(&o->save);
		return rc;
	}
	if ((err = out_flush(&o->out)))
		failed = &o->out;
	else if (o->has_save && (err = out_flush(&o->save)))
		failed = &o->save;
	if (failed) {
		out_discard(&o->out);
		if (o->has_save)
			out_discard(&o->save);
		return opts_write_failed(cli->cmd, failed, err);
	}
	if ((err = out_close(&o->out))) {
		if (o->has_save)
			out_discard(&o->save);
		return opts_write_failed(cli->cmd, &o->out, err);
	}
	if (o->has_save && (err = out_close(&o->save)))
		return opts_write_failed(cli->cmd, &o->save, err);
	return 0;
}

/* --- the workload, in words ------------------------------------------------------- */

/* The map flags every map of the run is created with (--flags, and those
 * its type requires; a design's mode flags are in its side's label), as
 * ", flags X" or, where types differ, ", flags X on lpm_trie maps, none on
 * hash maps"; "" where there are none. */
static void format_run_flags(const struct bench_cli *cli, char *out,
			     size_t len)
{
	size_t off = 0;
	bool same = true;
	uint32_t first = bench_map_flags(cli->map_types[0], cli->map_flags);
	char names[128];
	out[0] = '\0';
	for (unsigned i = 1; i < cli->n_maps; i++)
		same &= bench_map_flags(cli->map_types[i], cli->map_flags) == first;
	if (same) {
		if (first)
			snprintf(out, len, ", flags %s",
				 format_map_flags(first, names, sizeof(names)));
		return;
	}
	for (unsigned i = 0; i < cli->n_maps && off < len; i++) {
		uint32_t type = cli->map_types[i], flags;
		bool seen = false;
		for (unsigned k = 0; k < i; k++)
			seen |= cli->map_types[k] == type;
		if (seen)
			continue;
		flags = bench_map_flags(type, cli->map_flags);
		off += (size_t)snprintf(out + off, len - off, "%s%s on %s maps",
					off ? ", " : ", flags ",
					flags ? format_map_flags(flags, names,
								 sizeof(names))
					      : "none",
					map_type_name(type));
	}
}

/* Where a prefix workload's lookups that hit land: the stored prefixes
 * only where every key they draw from is prefilled. */
static const char *hits_inside(const struct workload *w)
{
	if (prefix_set_listed(w->prefixes))
		return "the space the entries cover, drawn uniformly";
	if (w->key_range)
		return "a prefix of the key range";
	return w->prefill_pct == 100 ? "a stored prefix"
				     : "a prefix of the entries";
}

/* --lpm-op: which of the kernel's LPM benchmark's workloads runs, in
 * words (harness/bench/phase.h). */
static void print_lpm_op(FILE *f, const struct bench_cli *cli)
{
	static const char *const what[BENCH_LPM_COUNT] = {
		[BENCH_LPM_LOOKUP] = "lookups in a full map (lookup=100)",
		[BENCH_LPM_UPDATE] = "updates of its present keys, BPF_EXIST, in "
				     "a full map (update=100)",
		[BENCH_LPM_INSERT] = "the N prefixes inserted one after another, "
				     "BPF_NOEXIST, into an empty map: each pass "
				     "timed whole, the map emptied between passes, "
				     "untimed",
		[BENCH_LPM_DELETE] = "every key of a full map deleted one after "
				     "another: each pass timed whole, the map "
				     "refilled between passes, untimed",
		[BENCH_LPM_FREE] = "the free of a map of the N prefixes (created "
				   "and filled untimed): each timed whole; a "
				   "design's split into its RCU wait and its walk "
				   "and frees",
	};
	wrap_printf(f, "the kernel's LPM benchmark (bench_lpm_trie_map.c), %s: "
		    "%s%s\n", bench_lpm_op_name(cli->lpm_op), what[cli->lpm_op],
		    bench_lpm_op_is_phase(cli->lpm_op) ? "; one thread" : "");
}

void measure_print_workload(FILE *f, const struct bench_cli *cli, bool hash_note)
{
	char mix[96], dist[48], range[96] = "", flags[320];
	const struct workload *w = &cli->w;
	workload_format_mix(w->mix, mix, sizeof(mix));
	workload_format_dist(w, dist, sizeof(dist));
	format_run_flags(cli, flags, sizeof(flags));
	if (cli->lpm_op) {
		print_lpm_op(f, cli);
		snprintf(mix, sizeof(mix), "--lpm-op %s",
			 bench_lpm_op_name(cli->lpm_op));
	}
	if (w->key_range)
		snprintf(range, sizeof(range), " from a range of %u (%.0f%% of the "
			 "entries)", w->key_range,
			 100.0 * w->key_range / w->entries);
	wrap_printf(f, "workload: %s, %s keys%s, %u entries (%u%% prefilled), "
		    "key %u B, value %u B%s\n", mix, dist, range, w->entries,
		    w->prefill_pct, w->key_size, w->value_size, flags);
	/* Lookups (lookup_write's included) ask for addresses; the other ops
	 * name prefixes. */
	bool lookups = w->mix[OP_LOOKUP] || w->mix[OP_LOOKUP_WRITE];
	const char *note = !hash_note ? ""
			   : workload_other_maps_take_prefixes(w)
				     ? "; a hash map's key is the prefix whole, its length "
				       "and address, as a trie's"
				     : "; a hash map's key is the address alone";
	char sample[160] = "";
	uint64_t listed = prefix_set_listed_count(w->prefixes);
	if (listed > w->entries)
		snprintf(sample, sizeof(sample), " (a sample of %u of its %llu "
			 "prefixes, each length's share kept)", w->entries,
			 (unsigned long long)listed);
	if (w->prefixes && lookups)
		wrap_printf(f, "prefixes: %s%s; lookups ask for full-length addresses, "
			    "%g%% of them inside %s, the others outside every "
			    "prefix%s\n", prefix_set_name(w->prefixes), sample,
			    workload_hit_ratio(w), hits_inside(w), note);
	else if (w->prefixes)
		wrap_printf(f, "prefixes: %s%s; every op names a prefix of the "
			    "set%s\n", prefix_set_name(w->prefixes), sample, note);
	if (cli->hugepages)
		wrap_printf(f, "huge pages: transparent huge pages advised for the "
			    "designs' large areas and the allocator's memory; "
			    "DPDK's heap on the huge pages vm.nr_hugepages "
			    "reserves, where it reserves any (--hugepages)\n");
	if (w->batch > 1 && w->mix[OP_LOOKUP]) /* only lookups are batched */
		wrap_printf(f, "batch: lookups %u keys at a time (map_lookup_batch; "
			    "a design without its own batch loops over its "
			    "lookup), ns/op per key; the kernel's maps have no "
			    "batched lookup for programs: their sides look up "
			    "one key at a time\n", w->batch);
}
