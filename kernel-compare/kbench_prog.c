/* SPDX-License-Identifier: MIT */
/*
 * kbench_prog.c: kbench's kernel side, the map calls inside the BPF
 * programs of bpf/kbench.bpf.c, run by BPF_PROG_TEST_RUN (see kbench.h).
 *
 *   main thread                               worker i, pinned to CPU c_i
 *   create and prefill the target map          (the i-th CPU the process
 *   (kbench_runner.c); load the workload's        may use; a real cpu id)
 *   program and the baseline with it; copy
 *   the keys and the streams into their
 *   mmap'ed arrays
 *   start the team; record of CPU c_i :=
 *   stream i (every other CPU: no stream)
 *   warm-up phase ─────────────────────────►  test_run(program) until told
 *   timed phase ───────────────────────────►  read c_i's counts; rounds of
 *   (--duration, or until every quota)          test_run(program, repeat R)
 *                                               test_run(baseline, repeat R)
 *                                             read c_i's counts again
 *   join; the figure from the kernel's timings, the counts from c_i's record
 *
 * The program finds its stream by the id of the CPU it runs on
 * (bpf_get_smp_processor_id), so a run anywhere but on a worker's own CPU
 * finds no stream and aborts: a pin that did not hold is an error, never
 * a figure.  The cpus array has a record for every possible CPU, so every
 * id the kernel gives fits.
 */
#include "kernel-compare/kbench_runner.h"
#include "kernel-compare/bpf/kbench_shared.h"
#include "kernel-compare/kbench.skel.h"
#include "harness/bench/phase.h"
#include "maps/base/cpu.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The streams are copied into the BPF arrays as they are. */
_Static_assert(KB_OP_LOOKUP == OP_LOOKUP && KB_OP_UPDATE == OP_UPDATE &&
	       KB_OP_INSERT == OP_INSERT && KB_OP_DELETE == OP_DELETE &&
	       KB_OP_UPSERT == OP_UPSERT && KB_OP_REPLACE == OP_REPLACE &&
	       KB_OP_LOOKUP_WRITE == OP_LOOKUP_WRITE &&
	       KB_OP_COUNT == OP_COUNT && OP_COUNT == 7,
	       "bpf/kbench_shared.h's KB_OP_* are enum bench_op's");
_Static_assert(sizeof(struct kb_op) == sizeof(struct stream_op) &&
	       offsetof(struct kb_op, key) == offsetof(struct stream_op, key) &&
	       offsetof(struct kb_op, op) == offsetof(struct stream_op, op),
	       "struct kb_op has struct stream_op's layout");
_Static_assert(sizeof(((struct kb_cpu *)0)->ok) ==
	       OP_COUNT * sizeof(((struct kb_cpu *)0)->ok[0]),
	       "a kb_cpu counts every op");

struct kb_worker {
	int cpu;                        /* the CPU it is pinned to */
	int err;                        /* 0, or the first -errno */
	double prog_ns, base_ns;        /* sums of per-run means */
	unsigned rounds;
	uint64_t t_start, t_end;        /* the timed phase, ns */
	struct kb_cpu before, after;    /* its CPU's record around it */
} __attribute__((aligned(64)));

struct prog_run {
	const struct kb_runner *k;
	struct kb_programs progs;
	struct kb_worker *workers;
};

/* --- loading --------------------------------------------------------------- */

/* The program for the streams: one op kind throughout, or the mix. */
static struct bpf_program *pick_program(struct kbench *skel,
					const struct kb_runner *k)
{
	int kind = -1;
	for (unsigned t = 0; t < k->c->b.threads; t++)
		for (size_t i = 0; i < k->streams[t].len; i++) {
			int op = (int)k->streams[t].ops[i].op;
			if (kind == -1)
				kind = op;
			else if (kind != op)
				return skel->progs.kb_mix;
		}
	switch (kind) {
	case OP_LOOKUP: return skel->progs.kb_lookup;
	case OP_UPDATE: return skel->progs.kb_update;
	case OP_INSERT: return skel->progs.kb_insert;
	case OP_DELETE: return skel->progs.kb_delete;
	case OP_UPSERT: return skel->progs.kb_upsert;
	case OP_REPLACE: return skel->progs.kb_replace;
	case OP_LOOKUP_WRITE: return skel->progs.kb_lookup_write;
	default: return skel->progs.kb_mix;
	}
}

/*
 * Sizes, the target map, the step count; and only the two programs the run
 * needs are loaded (a lookup workload then runs on a map that programs
 * may only read: BPF_F_RDONLY_PROG).  0 or -errno.
 */
static int configure(struct kb_programs *p, const struct kb_runner *k)
{
	const struct kbench_config *c = k->c;
	const struct workload *w = &c->b.w;
	struct kbench *skel = p->skel;
	struct bpf_program *prog;
	int bad = 0;

	int rc = bpf_map__reuse_fd(skel->maps.target, k->target_fd);
	if (rc)
		return rc;
	bad |= bpf_map__set_value_size(skel->maps.keys, w->key_size);
	bad |= bpf_map__set_max_entries(skel->maps.keys,
		(uint32_t)workload_key_count(w, c->b.threads));
	bad |= bpf_map__set_max_entries(skel->maps.stream,
		(uint32_t)(c->b.threads * k->stream_slot));
	bad |= bpf_map__set_max_entries(skel->maps.cpus, map_possible_cpus());
	bad |= bpf_map__set_value_size(skel->maps.scratch, w->value_size);
	p->prog = pick_program(skel, k);
	bpf_object__for_each_program(prog, skel->obj)
		bad |= bpf_program__set_autoload(prog, prog == p->prog ||
						 prog == skel->progs.kb_baseline);
	skel->data->ops_per_run = c->ops_per_run;
	skel->rodata->lookup_write_bytes = w->value_size < LOOKUP_WRITE_BYTES
					   ? w->value_size : LOOKUP_WRITE_BYTES;
	return bad ? -EINVAL : 0;
}

/* libbpf's messages, the verifier's log among them, for --verbose. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

/* Open, configure and load the object, with libbpf silent unless
 * verbose.  0, or -errno with a reason in err. */
static int load(struct kb_programs *p, const struct kb_runner *k, char *err,
		size_t errlen)
{
	const struct kbench_config *c = k->c;
	libbpf_print_fn_t before = libbpf_set_print(c->verbose ? print_libbpf
							       : NULL);
	int rc = 0;

	p->skel = kbench__open();
	if (!p->skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the kbench BPF object: %s",
			 map_errno_text(-rc));
	} else if ((rc = configure(p, k))) {
		snprintf(err, errlen, "cannot set up the kbench BPF object: %s",
			 map_errno_text(-rc));
	} else if ((rc = kbench__load(p->skel))) {
		snprintf(err, errlen, "the kernel refused the kbench programs "
			 "(%s, kb_baseline) on its %s map: %s%s",
			 bpf_program__name(p->prog), map_type_name(c->map_type),
			 map_errno_text(-rc), c->verbose ? ""
			 : " (--verbose prints the verifier's log)");
	}
	libbpf_set_print(before);
	return rc;
}

/* Copy keys and streams into the mmap'ed BPF arrays. */
static int fill_arrays(const struct kb_programs *p, const struct kb_runner *k)
{
	const struct kbench_config *c = k->c;
	const struct workload *w = &c->b.w;
	uint64_t nkeys = workload_key_count(w, c->b.threads);
	size_t stride = (w->key_size + 7u) & ~7u; /* mmapable arrays: 8-aligned */
	size_t keys_len = nkeys * stride;
	size_t stream_len = bpf_map__max_entries(p->skel->maps.stream) *
			    sizeof(struct kb_op);

	uint8_t *kmem = mmap(NULL, keys_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			     bpf_map__fd(p->skel->maps.keys), 0);
	if (kmem == MAP_FAILED)
		return -errno;
	for (uint64_t i = 0; i < nkeys; i++)
		memcpy(kmem + i * stride, k->keys + i * w->key_size,
		       w->key_size);
	munmap(kmem, keys_len);

	struct kb_op *smem = mmap(NULL, stream_len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, bpf_map__fd(p->skel->maps.stream),
				  0);
	if (smem == MAP_FAILED)
		return -errno;
	for (unsigned t = 0; t < c->b.threads; t++)
		memcpy(&smem[t * k->stream_slot], k->streams[t].ops,
		       k->streams[t].len * sizeof(struct kb_op));
	munmap(smem, stream_len);
	return 0;
}

int kb_programs_load(struct kb_programs *p, const struct kb_runner *k,
		     char *err, size_t errlen)
{
	int rc;
	*p = (struct kb_programs){ .prog_fd = -1, .base_fd = -1, .cpus_fd = -1 };
	if ((rc = load(p, k, err, errlen)))
		return rc;
	if ((rc = fill_arrays(p, k))) {
		snprintf(err, errlen, "filling the stream arrays: %s",
			 map_errno_text(-rc));
		return rc;
	}
	p->prog_fd = bpf_program__fd(p->prog);
	p->base_fd = bpf_program__fd(p->skel->progs.kb_baseline);
	p->cpus_fd = bpf_map__fd(p->skel->maps.cpus);
	return 0;
}

void kb_programs_free(struct kb_programs *p)
{
	kbench__destroy(p->skel);
	p->skel = NULL;
}

/* The team's `pinned`: give each worker's CPU its stream. */
static int place_streams(void *ctx, const struct team *team, char *err,
			 size_t errlen)
{
	struct prog_run *p = ctx;
	unsigned records = bpf_map__max_entries(p->progs.skel->maps.cpus);

	for (unsigned t = 0; t < p->k->c->b.threads; t++) {
		int cpu = team_cpu_of(team, t);
		struct kb_cpu record = { .base = (unsigned)(t * p->k->stream_slot),
					 .len = (unsigned)p->k->streams[t].len };
		p->workers[t].cpu = cpu;
		if ((unsigned)cpu >= records) {
			snprintf(err, errlen, "worker %u runs on cpu %d, beyond "
				 "the %u possible CPUs", t, cpu, records);
			return -EOPNOTSUPP;
		}
		int rc = bpf_map_update_elem(p->progs.cpus_fd, &cpu, &record,
					     BPF_ANY);
		if (rc) {
			snprintf(err, errlen, "writing the record of cpu %d: %s",
				 cpu, map_errno_text(-rc));
			return rc;
		}
	}
	return 0;
}

/* --- the workers ------------------------------------------------------------ */

int kb_test_run(int fd, unsigned repeat, double *mean_ns)
{
	uint8_t packet[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = packet,
		    .data_size_in = sizeof(packet), .repeat = (int)repeat);
	int rc = bpf_prog_test_run_opts(fd, &o);
	if (rc)
		return rc;
	if (o.retval != XDP_PASS)
		return -EFAULT; /* aborted: see describe_worker_error */
	*mean_ns = o.duration;
	return 0;
}

static void warm_up(const struct prog_run *p, struct kb_worker *w,
		    const atomic_bool *stop)
{
	double ns;
	while (!w->err && !atomic_load_explicit(stop, memory_order_relaxed))
		w->err = kb_test_run(p->progs.prog_fd, 1, &ns);
}

/* Rounds of program and baseline, between two reads of the counts. */
static void timed_rounds(const struct prog_run *p, unsigned worker,
			 const atomic_bool *stop)
{
	struct kb_worker *w = &p->workers[worker];
	const struct kbench_config *c = p->k->c;
	const uint64_t per_round = (uint64_t)c->run_repeat * c->ops_per_run;
	uint64_t quota = p->k->quota;

	w->t_start = clock_now_ns();
	if (!w->err)
		w->err = bpf_map_lookup_elem(p->progs.cpus_fd, &w->cpu,
					     &w->before);
	while (!w->err && (quota ? w->rounds * per_round < quota
				 : !atomic_load_explicit(stop,
							 memory_order_relaxed))) {
		double prog, base;
		w->err = kb_test_run(p->progs.prog_fd, c->run_repeat, &prog);
		if (!w->err)
			w->err = kb_test_run(p->progs.base_fd, c->run_repeat,
					     &base);
		if (!w->err) {
			w->prog_ns += prog;
			w->base_ns += base;
			w->rounds++;
			kb_runner_done(p->k, worker, w->rounds * per_round);
		}
	}
	if (!w->err)
		w->err = bpf_map_lookup_elem(p->progs.cpus_fd, &w->cpu,
					     &w->after);
	w->t_end = clock_now_ns();
}

static void worker_phase(void *ctx, unsigned worker, unsigned phase,
			 const atomic_bool *stop)
{
	struct prog_run *p = ctx;
	if (phase == KB_PHASE_WARMUP)
		warm_up(p, &p->workers[worker], stop);
	else
		timed_rounds(p, worker, stop);
}

static int describe_worker_error(const struct prog_run *p, char *err,
				 size_t errlen)
{
	for (unsigned t = 0; t < p->k->c->b.threads; t++) {
		const struct kb_worker *w = &p->workers[t];
		if (w->err == -EFAULT)
			snprintf(err, errlen, "worker %u on cpu %d: the program "
				 "aborted (no stream for the CPU it ran on, or a "
				 "step outside its arrays)", t, w->cpu);
		else if (w->err)
			snprintf(err, errlen, "worker %u on cpu %d: "
				 "BPF_PROG_TEST_RUN: %s", t, w->cpu,
				 map_errno_text(-w->err));
		if (w->err)
			return w->err;
	}
	return 0;
}

/*
 * The counts from each CPU's record (bench_result_add), the figures from
 * the kernel's own timings: per thread, (program - baseline) per step.
 */
static void collect(const struct prog_run *p, struct kbench_result *out)
{
	const struct kbench_config *c = p->k->c;
	const unsigned threads = c->b.threads;
	double ns_sum = 0, prog_sum = 0, base_sum = 0, mops = 0;

	for (unsigned t = 0; t < threads; t++) {
		const struct kb_worker *w = &p->workers[t];
		uint64_t ok[OP_COUNT], fail[OP_COUNT];
		for (int op = 0; op < OP_COUNT; op++) {
			ok[op] = w->after.ok[op] - w->before.ok[op];
			fail[op] = w->after.fail[op] - w->before.fail[op];
		}
		bench_result_add(&out->r, ok, fail, NULL, w->t_start, w->t_end);
		double steps = (double)w->rounds * c->ops_per_run;
		double per_op = steps ? (w->prog_ns - w->base_ns) / steps : 0;
		ns_sum += per_op;
		prog_sum += steps ? w->prog_ns / steps : 0;
		base_sum += steps ? w->base_ns / steps : 0;
		if (per_op > 0)
			mops += 1e3 / per_op;
		out->rounds += w->rounds;
	}
	bench_result_finish(&out->r, threads);
	/* Not the wall clock's figures: the map call's own cost. */
	out->r.mops = mops;
	out->r.ns_per_op = ns_sum / threads;
	out->program_ns_per_op = prog_sum / threads;
	out->baseline_ns_per_op = base_sum / threads;
}

static int check_run_ops(const struct kbench_config *c, char *err,
			 size_t errlen)
{
	if (c->ops_per_run >= 1 && c->ops_per_run <= KBENCH_MAX_RUN_OPS &&
	    c->run_repeat >= 1)
		return 0;
	snprintf(err, errlen, "map calls per run must be 1 to %u (bpf_loop's "
		 "limit), and the repeat count at least 1", KBENCH_MAX_RUN_OPS);
	return -EINVAL;
}

int kbench_prog_run(const struct kbench_config *c, struct kbench_result *out,
		    char *err, size_t errlen)
{
	struct kb_runner k;
	struct prog_run p = { .k = &k };
	struct kb_team_plan plan = {
		.body = worker_phase, .ctx = &p, .warmup = true,
		.pinned = place_streams, .evictions = true,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = check_run_ops(c, err, errlen)) ||
	    (rc = kb_runner_prepare(&k, c, err, errlen)))
		return rc;
	p.workers = aligned_alloc(64, sizeof(*p.workers) * c->b.threads);
	if (!p.workers) {
		snprintf(err, errlen, "out of memory for %u workers", c->b.threads);
		rc = -ENOMEM;
		goto out;
	}
	memset(p.workers, 0, sizeof(*p.workers) * c->b.threads);
	if ((rc = kb_runner_create_target(&k, err, errlen)) ||
	    (rc = kb_programs_load(&p.progs, &k, err, errlen)))
		goto out;
	rc = kb_runner_run_team(&k, &plan, err, errlen);
	if (!rc)
		rc = describe_worker_error(&p, err, errlen);
	if (!rc) {
		collect(&p, out);
		kb_runner_evictions(&k, &out->r);
		out->r.memory = k.memory;
	}
out:
	kb_programs_free(&p.progs);
	free(p.workers);
	kb_runner_free(&k);
	return rc;
}
