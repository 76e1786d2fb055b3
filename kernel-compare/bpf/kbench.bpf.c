// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * kbench.bpf.c: the workloads of `maplab bench`, run inside the kernel.
 *
 * Each program is run by BPF_PROG_TEST_RUN (as XDP, on a dummy packet) with a
 * repeat count.  One run does `ops_per_run` steps of the calling CPU's
 * precomputed stream (the very streams the userspace benchmark replays),
 * through bpf_loop:
 *
 *   step: op  = stream[cpu.base + cpu.pos]      (array lookup, inlined)
 *         key = keys[op.key]                    (array lookup, inlined)
 *         the map call on `target`              (absent in kb_baseline;
 *                                                two for kb_replace, a
 *                                                delete and an update; a
 *                                                lookup and a store or an
 *                                                insert for kb_lookup_write)
 *         count ok / fail, advance pos
 *
 * One program per op of harness/workload/workload.h (kb_lookup ...
 * kb_lookup_write), for a stream of that op alone, and kb_mix for a mixed
 * stream.  kb_baseline does every step but the map call, so (prog -
 * baseline) / ops is the map call's own cost.  The counts let userspace check that the calls
 * really happened and found what they should (a lookup of a prefilled key
 * must hit), so the figure is neither inflated nor optimised away.  A run
 * that cannot do all its steps (no stream for this CPU, a step outside the
 * arrays) returns XDP_ABORTED, which userspace reports as an error.
 *
 * What keeps the verifier's work independent of --run-ops: ops_per_run is
 * read from .data at run time (not a constant the verifier would use to
 * bound, and so unroll, the loop's exploration), and nothing the loop
 * computes is branched on afterwards, so the states of successive steps
 * are equal and the callback is verified once.  (A checksum compared after
 * the loop, as before, made its range precise and every step's state new:
 * the verifier then explored ops_per_run steps and gave up at 2048.)
 *
 * The map sizes below are placeholders: userspace sets each map's type,
 * sizes and flags before load (the target map is created by userspace and
 * handed to libbpf). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "kernel-compare/bpf/kbench_shared.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, 4);
	__uint(value_size, 8);
	__uint(max_entries, 1);
} target SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4); /* = the target's key_size */
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
} keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct kb_op);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
} stream SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct kb_cpu);
	__uint(max_entries, 1); /* = the possible CPUs */
} cpus SEC(".maps");

/* The value written by updates and inserts (one per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 8); /* = the target's value_size */
	__uint(max_entries, 1);
} scratch SEC(".maps");

/* Steps in one run: set by userspace, read at run time (see above). */
__u32 ops_per_run = 1024;

/* lookup_write's bytes written in place: min(4, the target's value_size),
 * set by userspace before load.  Read-only, so the verifier knows it and
 * checks only the stores it allows (a 2-byte value takes 2). */
const volatile __u32 lookup_write_bytes = 4;

struct loop_ctx {
	struct kb_cpu *cpu;
	void *value;
	__u32 sink;
};

/* A program's lookup, then a write into the value where the lookup
 * points, as bpf_performance's rolling_lru writes 0 into its int; an
 * absent key is put in (BPF_NOEXIST, as bench's lookup_write). */
static __always_inline int lookup_write(void *key, void *value)
{
	__u8 *v = bpf_map_lookup_elem(&target, key);
	if (!v)
		return bpf_map_update_elem(&target, key, value, BPF_NOEXIST) == 0;
	if (lookup_write_bytes >= 4) {
		*(__u32 *)v = 0;
	} else {
		for (int i = 0; i < 3; i++)
			if (i < lookup_write_bytes)
				v[i] = 0;
	}
	return 1;
}

/* One op of workload.h's table: 1 if it succeeded (a replace: both of its
 * calls), else 0. */
static __always_inline int map_call(int op, void *key, void *value)
{
	switch (op) {
	case KB_OP_LOOKUP:
		return bpf_map_lookup_elem(&target, key) != 0;
	case KB_OP_UPDATE:
		return bpf_map_update_elem(&target, key, value, BPF_EXIST) == 0;
	case KB_OP_INSERT:
		return bpf_map_update_elem(&target, key, value, BPF_NOEXIST) == 0;
	case KB_OP_DELETE:
		return bpf_map_delete_elem(&target, key) == 0;
	case KB_OP_UPSERT:
		return bpf_map_update_elem(&target, key, value, BPF_ANY) == 0;
	case KB_OP_REPLACE: {
		int deleted = bpf_map_delete_elem(&target, key) == 0;
		return (bpf_map_update_elem(&target, key, value, BPF_ANY) == 0) &
		       deleted;
	}
	default:
		return lookup_write(key, value);
	}
}

/*
 * One step.  Inlined into one bpf_loop callback per program, with
 * with_map_call and only_op constants, so each program holds only the map
 * calls it makes (kb_lookup loads on a map programs may only read) and the
 * baseline none.
 */
static __always_inline long step(struct loop_ctx *c, int with_map_call,
				 int only_op)
{
	struct kb_cpu *cpu = c->cpu;
	__u32 idx = cpu->base + cpu->pos;
	struct kb_op *op = bpf_map_lookup_elem(&stream, &idx);
	if (!op)
		return 1;
	__u32 k = op->key;
	void *key = bpf_map_lookup_elem(&keys, &k);
	if (!key)
		return 1;
	__u32 kind = only_op >= 0 ? (__u32)only_op : op->op;
	if (kind >= KB_OP_COUNT)
		return 1; /* not an op: the run aborts */
	if (with_map_call) {
		if (map_call(kind, key, c->value))
			cpu->ok[kind]++;
		else
			cpu->fail[kind]++;
	} else {
		c->sink += kind + *(volatile __u8 *)key; /* touch what a step reads */
	}
	if (++cpu->pos >= cpu->len)
		cpu->pos = 0;
	return 0;
}

static long step_baseline(__u32 i, void *c) { return step(c, 0, -1); }
static long step_mix(__u32 i, void *c) { return step(c, 1, -1); }
static long step_lookup(__u32 i, void *c) { return step(c, 1, KB_OP_LOOKUP); }
static long step_update(__u32 i, void *c) { return step(c, 1, KB_OP_UPDATE); }
static long step_insert(__u32 i, void *c) { return step(c, 1, KB_OP_INSERT); }
static long step_delete(__u32 i, void *c) { return step(c, 1, KB_OP_DELETE); }
static long step_upsert(__u32 i, void *c) { return step(c, 1, KB_OP_UPSERT); }
static long step_replace(__u32 i, void *c) { return step(c, 1, KB_OP_REPLACE); }
static long step_lookup_write(__u32 i, void *c)
{
	return step(c, 1, KB_OP_LOOKUP_WRITE);
}

static __always_inline int run(long (*step_fn)(__u32, void *), int baseline)
{
	__u32 cpu_id = bpf_get_smp_processor_id(), zero = 0;
	struct loop_ctx c = { 0 };

	c.cpu = bpf_map_lookup_elem(&cpus, &cpu_id);
	c.value = bpf_map_lookup_elem(&scratch, &zero);
	if (!c.cpu || !c.value || c.cpu->len == 0)
		return XDP_ABORTED;
	/* The baseline walks the stream but must not move it on: the next
	 * program run has to meet each insert before its delete. */
	__u32 start = c.cpu->pos, steps = ops_per_run;
	long done = bpf_loop(steps, step_fn, &c, 0);
	if (baseline) {
		c.cpu->pos = start;
		c.cpu->sink = c.sink;
	}
	return done == steps ? XDP_PASS : XDP_ABORTED;
}

SEC("xdp") int kb_baseline(struct xdp_md *ctx) { return run(step_baseline, 1); }
SEC("xdp") int kb_mix(struct xdp_md *ctx) { return run(step_mix, 0); }
SEC("xdp") int kb_lookup(struct xdp_md *ctx) { return run(step_lookup, 0); }
SEC("xdp") int kb_update(struct xdp_md *ctx) { return run(step_update, 0); }
SEC("xdp") int kb_insert(struct xdp_md *ctx) { return run(step_insert, 0); }
SEC("xdp") int kb_delete(struct xdp_md *ctx) { return run(step_delete, 0); }
SEC("xdp") int kb_upsert(struct xdp_md *ctx) { return run(step_upsert, 0); }
SEC("xdp") int kb_replace(struct xdp_md *ctx) { return run(step_replace, 0); }
SEC("xdp") int kb_lookup_write(struct xdp_md *ctx)
{
	return run(step_lookup_write, 0);
}
