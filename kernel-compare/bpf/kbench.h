/* SPDX-License-Identifier: MIT */
/*
 * kbench.h: what the in-kernel benchmark program and its userspace driver
 * share.  Included by the BPF program (clang -target bpf) and by C.
 */
#ifndef MAPLAB_KBENCH_SHARED_H
#define MAPLAB_KBENCH_SHARED_H

/* The ops of harness/workload.h, same numbers. */
#define KB_OP_LOOKUP 0
#define KB_OP_UPDATE 1
#define KB_OP_INSERT 2
#define KB_OP_DELETE 3

#define KB_MAX_CPUS 256

/* One step of a worker's stream: harness/workload.h's struct stream_op. */
struct kb_op {
	unsigned int key; /* index into the keys array */
	unsigned int op;  /* KB_OP_* */
};

/* Per CPU: where its stream starts and where it has got to, and counts. */
struct kb_cpu {
	unsigned int base;   /* first index of this CPU's stream */
	unsigned int len;    /* its length */
	unsigned int pos;    /* next op (kept across runs) */
	unsigned int pad;
	unsigned long long ok[4], fail[4];
};

#endif /* MAPLAB_KBENCH_SHARED_H */
