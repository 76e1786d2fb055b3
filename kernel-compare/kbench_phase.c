/* SPDX-License-Identifier: MIT */
/*
 * kbench_phase.c: the kernel's LPM benchmark's whole-map phases (--lpm-op
 * insert, delete, free: harness/bench/phase.h) on the kernel's own map,
 * through the same rounds as the designs' (bench_phase_drive: one pinned
 * worker, untimed preparation, a timed part).
 *
 * insert, delete: kbench's programs (bpf/kbench.bpf.c) over kbench's key
 * table, with ONE stream: the N ops of the pass on keys 0..N-1 in order
 * (kb_runner_prepare_pass), and N steps a run, so that one
 * BPF_PROG_TEST_RUN (repeat 1) of kb_insert or kb_delete is one pass, timed
 * by the kernel; kb_baseline, run the same way right after it, does every
 * step but the map call, and the pass's time is the difference.  The
 * counts of the worker's CPU record say every call did what it should.
 * Between passes, untimed, the map is brought back as the kernel's
 * benchmark does it: emptied with one BPF_MAP_DELETE_BATCH of the N keys
 * (insert), refilled with one BPF_MAP_UPDATE_BATCH (delete).
 *
 *   round:  prepare (worker)               timed (worker)
 *           insert: DELETE_BATCH N keys    record; TEST_RUN kb_insert (N steps);
 *           delete: UPDATE_BATCH N keys    TEST_RUN kb_baseline (N steps);
 *           (the first round: the map       record again
 *            as created, empty or full)
 *
 * free: the kernel's own benchmark's measure (bpf/kbench_free.bpf.c):
 * fentry and fexit programs on bpf_map_free_deferred, matching our map by
 * its name; where the kernel refuses tracing programs (this lab's VM: a
 * policy answers EPERM), raw tracepoint programs on the workqueue's
 * workqueue_execute_start and _end, which bracket the same call of the
 * map's work item, and the result says which timed it.  prepare: create an LPM map so named and fill it
 * (BPF_MAP_UPDATE_BATCH); timed: close its only fd, and wait for the
 * fexit (10 s at most: a kernel whose free never passes there is told in
 * one line).  The time is the kernel's, from fentry to fexit: the walk and
 * the frees of trie_free and what bpf_map_free_deferred does around it
 * (its security hook, the memcg's put); nothing of it can be split
 * further from here.
 */
#include "kernel-compare/kbench_runner.h"
#include "kernel-compare/bpf/kbench_shared.h"
#include "kernel-compare/kbench_free.skel.h"
#include "harness/bench/phase.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long a free may take to reach the fexit program. */
#define KPHASE_FREE_TIMEOUT_NS (10ull * 1000000000ull)
/* How often the wait for it looks. */
#define KPHASE_POLL_NS 20000

struct kphase {
	struct kb_runner k;         /* keys (and, for a pass, its stream and the
				       target map) */
	struct kb_programs progs;   /* insert, delete */
	struct kbench_free *watch;  /* free: the fentry and fexit programs */
	enum bench_lpm_op op;
	int cpu;                    /* the worker's, whose record holds the
				       stream; -1 before the first round */
	bool full;                  /* the target holds keys 0..N-1 */
	uint8_t *values;            /* the N values of a refill or a fill */
	int free_fd;                /* free: the map to free next */
	char name[16];              /* free: its name (BPF_OBJ_NAME_LEN) */
	const char *timer;          /* free: what timed it (bench.h) */
	bool measured;
	struct bench_memory memory;
};

static uint32_t entries(const struct kphase *p)
{
	return p->k.c->b.w.entries;
}

/* The first round: the stream goes to the record of the worker's CPU (the
 * team pinned it), as kbench's place_streams does for each worker. */
static int place_stream(struct kphase *p, char *err, size_t errlen)
{
	struct kb_cpu record = { .base = 0, .len = entries(p) };
	p->cpu = sched_getcpu();
	int rc = p->cpu < 0 ? -errno
			    : bpf_map_update_elem(p->progs.cpus_fd, &p->cpu,
						  &record, BPF_ANY);
	if (rc)
		snprintf(err, errlen, "writing the record of cpu %d: %s", p->cpu,
			 map_errno_text(-rc));
	return rc;
}

/* One batch call over the N keys: delete them all, or put them all in
 * (BPF_ANY, as the kernel's benchmark's fill).  0, or -errno with a
 * reason. */
static int batch_all(struct kphase *p, int fd, bool delete, char *err,
		     size_t errlen)
{
	LIBBPF_OPTS(bpf_map_batch_opts, o);
	uint32_t count = entries(p);
	int rc = delete ? bpf_map_delete_batch(fd, p->k.keys, &count, &o)
			: bpf_map_update_batch(fd, p->k.keys, p->values, &count,
					       &o);
	if (!rc && count != entries(p))
		rc = -EIO;
	if (rc)
		snprintf(err, errlen, "%s: %u of the %u keys, then %s",
			 delete ? "BPF_MAP_DELETE_BATCH" : "BPF_MAP_UPDATE_BATCH",
			 count, entries(p), map_errno_text(-rc));
	return rc;
}

/* The full map's memory, the first time it is full (the kernel's count). */
static void measure_memory(struct kphase *p, int fd)
{
	if (p->measured)
		return;
	p->memory = kb_runner_kernel_memory(fd, entries(p));
	p->measured = true;
}

static int pass_prepare(struct kphase *p, char *err, size_t errlen)
{
	int rc = p->cpu < 0 ? place_stream(p, err, errlen) : 0;
	if (rc)
		return rc;
	if (p->full)
		measure_memory(p, p->k.target_fd);
	if (p->op == BENCH_LPM_INSERT && p->full)
		rc = batch_all(p, p->k.target_fd, true, err, errlen);
	else if (p->op == BENCH_LPM_DELETE && !p->full)
		rc = batch_all(p, p->k.target_fd, false, err, errlen);
	if (!rc)
		p->full = p->op == BENCH_LPM_DELETE;
	return rc;
}

/* One pass in one program run, its baseline after it; the CPU record's
 * counts around both. */
static int pass_timed(struct kphase *p, struct bench_phase_round *out,
		      char *err, size_t errlen)
{
	const enum bench_op op = bench_lpm_op_counted_as(p->op);
	struct kb_cpu before, after;
	double prog = 0, base = 0;
	int rc = bpf_map_lookup_elem(p->progs.cpus_fd, &p->cpu, &before);
	if (!rc)
		rc = kb_test_run(p->progs.prog_fd, 1, &prog);
	if (!rc)
		rc = kb_test_run(p->progs.base_fd, 1, &base);
	if (!rc)
		rc = bpf_map_lookup_elem(p->progs.cpus_fd, &p->cpu, &after);
	if (rc) {
		snprintf(err, errlen, "the %s pass on cpu %d: %s", bench_op_names[op],
			 p->cpu, rc == -EFAULT ? "the program aborted (it ran on "
			 "another CPU than its worker's, or a step left its "
			 "arrays)" : map_errno_text(-rc));
		return rc;
	}
	out->ok = after.ok[op] - before.ok[op];
	out->fail = after.fail[op] - before.fail[op];
	out->keys = entries(p);
	out->program_ns = prog;
	out->baseline_ns = base;
	out->ns = prog > base ? (uint64_t)(prog - base) : 0;
	/* what the pass left: full after inserts that all went in */
	p->full = op == OP_INSERT && out->ok == entries(p);
	return 0;
}

/* --- free -------------------------------------------------------------------------- */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static int libbpf_loud(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

/* The timer's programs of one kind (fentry and fexit; or the workqueue's
 * tracepoints), loaded alone and attached, watching for maps named
 * p->name.  0, or -errno with the kernel's word in *what. */
static int watch_with(struct kphase *p, bool fentry, const char **what)
{
	struct kbench_free *w = kbench_free__open();
	int rc = 0;
	*what = "open";
	if (!w)
		return -errno;
	memcpy((char *)w->rodata->want_name, p->name, sizeof(p->name));
	bpf_program__set_autoload(w->progs.kb_free_enter, fentry);
	bpf_program__set_autoload(w->progs.kb_free_exit, fentry);
	bpf_program__set_autoload(w->progs.kb_wq_start, !fentry);
	bpf_program__set_autoload(w->progs.kb_wq_end, !fentry);
	if ((rc = kbench_free__load(w)))
		*what = "load";
	else if ((rc = kbench_free__attach(w)))
		*what = "attach";
	if (rc)
		kbench_free__destroy(w);
	else
		p->watch = w;
	return rc;
}

/*
 * The free's timer: fentry and fexit on bpf_map_free_deferred, as the
 * kernel's benchmark times it; where the kernel refuses those (no BPF
 * trampolines, or a policy against tracing programs), the workqueue's
 * tracepoints around the same call (bpf/kbench_free.bpf.c).  Which one
 * into p->timer.  0, or -errno with a reason naming both refusals.
 */
static int watch_frees(struct kphase *p, char *err, size_t errlen)
{
	libbpf_print_fn_t was = libbpf_set_print(p->k.c->verbose ? libbpf_loud
								   : libbpf_quiet);
	const char *what_fentry, *what_tp;
	snprintf(p->name, sizeof(p->name), "maplab_f%d", (int)getpid());
	int rc_fentry = watch_with(p, true, &what_fentry), rc = rc_fentry;
	p->timer = "fentry";
	if (rc_fentry) {
		rc = watch_with(p, false, &what_tp);
		p->timer = "workqueue_tracepoints";
	}
	libbpf_set_print(was);
	if (rc)
		snprintf(err, errlen, "no timer for the kernel's free: fentry and "
			 "fexit on bpf_map_free_deferred (%s: %s) and the "
			 "workqueue's tracepoints (%s: %s) both refused%s",
			 what_fentry, map_errno_text(-rc_fentry), what_tp,
			 map_errno_text(-rc), p->k.c->verbose ? ""
			 : " (--verbose prints libbpf's and the verifier's words)");
	return rc;
}

static int free_prepare(struct kphase *p, char *err, size_t errlen)
{
	const struct workload *w = &p->k.c->b.w;
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = p->k.c->b.map_flags);
	int rc = p->watch ? 0 : watch_frees(p, err, errlen);
	if (rc)
		return rc;
	p->free_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, p->name, w->key_size,
				    w->value_size, w->entries, &o);
	if (p->free_fd < 0) {
		rc = p->free_fd;
		snprintf(err, errlen, "the kernel refuses an lpm_trie map with "
			 "key_size=%u value_size=%u max_entries=%u: %s",
			 w->key_size, w->value_size, w->entries,
			 map_errno_text(-rc));
		return rc;
	}
	rc = batch_all(p, p->free_fd, false, err, errlen);
	if (!rc)
		measure_memory(p, p->free_fd);
	return rc;
}

static uint64_t read_u64(const volatile uint64_t *x)
{
	return *x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Close the map's only fd; its free is timed by the fexit. */
static int free_timed(struct kphase *p, struct bench_phase_round *out,
		      char *err, size_t errlen)
{
	const volatile uint64_t *frees = (uint64_t *)&p->watch->bss->frees;
	const volatile uint64_t *total = (uint64_t *)&p->watch->bss->total_ns;
	uint64_t seen = read_u64(frees), ns = read_u64(total);
	uint64_t deadline = now_ns() + KPHASE_FREE_TIMEOUT_NS;
	struct timespec poll = { 0, KPHASE_POLL_NS };

	close(p->free_fd);
	p->free_fd = -1;
	while (read_u64(frees) == seen) {
		if (now_ns() > deadline) {
			snprintf(err, errlen, "the kernel's free of map %s was not "
				 "seen within %llu s: the fexit program on "
				 "bpf_map_free_deferred never fired (does this "
				 "kernel free maps elsewhere?)", p->name,
				 KPHASE_FREE_TIMEOUT_NS / 1000000000ull);
			return -ETIMEDOUT;
		}
		nanosleep(&poll, NULL);
	}
	/* the fexit adds total_ns before it moves frees */
	out->ns = read_u64(total) - ns;
	out->keys = entries(p);
	out->rcu_ns = out->walk_ns = NAN;
	return 0;
}

/* --- the engine ------------------------------------------------------------------ */

static int kphase_prepare(void *ctx, char *err, size_t errlen)
{
	struct kphase *p = ctx;
	return p->op == BENCH_LPM_FREE ? free_prepare(p, err, errlen)
				       : pass_prepare(p, err, errlen);
}

static int kphase_timed(void *ctx, struct bench_phase_round *out, char *err,
			size_t errlen)
{
	struct kphase *p = ctx;
	return p->op == BENCH_LPM_FREE ? free_timed(p, out, err, errlen)
				       : pass_timed(p, out, err, errlen);
}

/* The N values of the fills, as bench's prefill writes them. */
static int make_values(struct kphase *p)
{
	const uint32_t size = p->k.c->b.w.value_size;
	p->values = malloc((size_t)entries(p) * size);
	if (!p->values)
		return -ENOMEM;
	for (uint32_t i = 0; i < entries(p); i++)
		workload_fill_value(p->values + (size_t)i * size, size, i);
	return 0;
}

/* Keys, values, and the map and programs of a pass.  0 or -errno. */
static int set_up(struct kphase *p, const struct kbench_config *c, char *err,
		  size_t errlen)
{
	struct kbench_config own = *c;
	own.ops_per_run = c->b.w.entries; /* one pass a program run */
	own.run_repeat = 1;
	int rc = kb_runner_prepare_pass(&p->k, &own,
					bench_lpm_op_counted_as(p->op) < OP_COUNT
					? bench_lpm_op_counted_as(p->op) : OP_INSERT,
					err, errlen);
	if (rc)
		return rc;
	if (make_values(p)) {
		snprintf(err, errlen, "out of memory for %u values",
			 c->b.w.entries);
		return -ENOMEM;
	}
	if (p->op == BENCH_LPM_FREE)
		return 0;
	if ((rc = kb_runner_create_target(&p->k, err, errlen)))
		return rc;
	p->full = p->op == BENCH_LPM_DELETE; /* its prefill: 100 or 0 % */
	return kb_programs_load(&p->progs, &p->k, err, errlen);
}

int kbench_phase_run(const struct kbench_config *c, struct kbench_result *out,
		     char *err, size_t errlen)
{
	struct kphase p = { .op = c->b.lpm_op, .cpu = -1, .free_fd = -1,
			    .k = { .target_fd = -1 } };
	struct bench_phase_engine e = { kphase_prepare, kphase_timed, NULL, &p,
					false };
	struct bench_phase_sums sums;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (c->map_type != MAP_TYPE_LPM_TRIE) {
		snprintf(err, errlen, "the LPM benchmark's %s runs on an "
			 "lpm_trie map, not a %s map", bench_lpm_op_name(p.op),
			 map_type_name(c->map_type));
		return -EINVAL;
	}
	if (c->b.w.entries > KBENCH_MAX_RUN_OPS) {
		snprintf(err, errlen, "a pass of %u keys in one program run: at "
			 "most %u (bpf_loop's limit)", c->b.w.entries,
			 KBENCH_MAX_RUN_OPS);
		return -EOPNOTSUPP;
	}
	if (!(rc = set_up(&p, c, err, errlen)))
		rc = bench_phase_drive(&p.k.c->b, &e, &out->r, &sums, err, errlen);
	if (!rc) {
		bool pass = p.op != BENCH_LPM_FREE && out->r.ops;
		out->rounds = (unsigned)sums.rounds;
		out->program_ns_per_op = pass ? sums.program_ns / out->r.ops : NAN;
		out->baseline_ns_per_op = pass ? sums.baseline_ns / out->r.ops : NAN;
		out->r.memory = p.memory;
		out->r.free_timer = p.timer;
		out->r.prefilled = p.op == BENCH_LPM_INSERT ? 0 : entries(&p);
	}
	if (p.free_fd >= 0)
		close(p.free_fd);
	kbench_free__destroy(p.watch);
	kb_programs_free(&p.progs);
	free(p.values);
	if (p.k.c)
		kb_runner_free(&p.k);
	return rc;
}
