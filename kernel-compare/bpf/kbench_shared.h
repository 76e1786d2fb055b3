/* SPDX-License-Identifier: MIT */
/*
 * kbench_shared.h: what the in-kernel benchmark program and its userspace driver
 * share.  Included by the BPF program (clang -target bpf) and by C; the C
 * side (kernel-compare/kbench_prog.c) asserts that the op numbers and
 * struct kb_op match harness/workload/workload.h's, so streams are copied
 * as they are.
 */
#ifndef MAPLAB_KBENCH_SHARED_H
#define MAPLAB_KBENCH_SHARED_H

/* The ops of harness/workload/workload.h's enum bench_op, same numbers. */
#define KB_OP_LOOKUP 0
#define KB_OP_UPDATE 1
#define KB_OP_INSERT 2
#define KB_OP_DELETE 3
#define KB_OP_UPSERT 4
#define KB_OP_REPLACE 5
#define KB_OP_LOOKUP_WRITE 6
#define KB_OP_COUNT 7 /* OP_COUNT */

/* One step of a worker's stream: harness/workload/workload.h's struct
 * stream_op, same layout. */
struct kb_op {
	unsigned int key; /* index into the keys array */
	unsigned int op;  /* KB_OP_* */
};

/*
 * The record of one CPU, indexed by its real id (bpf_get_smp_processor_id):
 * where the stream of the worker pinned there starts, where it has got
 * to, and the counts of its map calls.  A CPU no worker is pinned to has
 * len == 0, and a program run there aborts.
 */
struct kb_cpu {
	unsigned int base;   /* first index of this CPU's stream */
	unsigned int len;    /* its length */
	unsigned int pos;    /* next op (kept across runs) */
	unsigned int sink;   /* the baseline's sum of what it read (kept so
				the compiler keeps those loads) */
	unsigned long long ok[KB_OP_COUNT], fail[KB_OP_COUNT];
};

#endif /* MAPLAB_KBENCH_SHARED_H */
