/* SPDX-License-Identifier: MIT */
/*
 * kbench.h: the workloads of `maplab bench` on the kernel's own maps.
 *
 * Two engines, one per side, on what kbench_runner.h gives both (the keys,
 * the workers' streams, the prefilled target map, a thread team whose
 * worker i is pinned to the i-th CPU this process may use):
 *
 * side "kernel" (kbench_prog.c): inside BPF programs (bpf/kbench.bpf.c) run
 * by BPF_PROG_TEST_RUN, one worker thread per CPU, each replaying the same
 * precomputed stream as the userspace worker of the same number, through
 * the same keys.  Every round runs the workload program and the baseline
 * program (every step but the map call) with the same repeat count; the
 * map call's cost is (program - baseline) / ops.  docs/kernel-compare.md
 * says how the figure is derived and checked.
 *
 * side "syscall" (kbench_syscall.c): the same ops through bpf(2) from
 * userspace, one call per op (what a userspace consumer of a kernel map
 * pays), and in batches (BPF_MAP_LOOKUP_BATCH walking the map,
 * BPF_MAP_UPDATE_BATCH of the stream's keys).
 *
 * Errors: -EOPNOTSUPP, with the reason in err, for a point this machine
 * cannot run (more threads than CPUs this process may use; batch syscalls
 * for a mixed workload); any other negative errno is a real failure (the
 * kernel refused the map or the program, a pin failed, ...).
 */
#ifndef MAPLAB_KBENCH_H
#define MAPLAB_KBENCH_H

#include "harness/bench/bench.h"

#include <stdbool.h>

struct kbench_config {
	struct bench_config b;   /* workload, threads, seconds/ops, warmup */
	uint32_t map_type;       /* MAP_TYPE_* */
	unsigned ops_per_run;    /* map calls in one program run (1024) */
	unsigned run_repeat;     /* BPF_PROG_TEST_RUN repeat count (64) */
	bool verbose;            /* libbpf's messages and the verifier's log
				    on stderr (else silent) */
};

struct kbench_result {
	struct bench_result r;     /* ops, ok/fail, mops, ns_per_op */
	double program_ns_per_op;  /* the workload program, per step */
	double baseline_ns_per_op; /* the baseline program, per step */
	unsigned rounds;           /* program + baseline pairs timed */
};

/* The most map calls one program run may make: bpf_loop's limit (the
 * kernel's BPF_MAX_LOOPS). */
#define KBENCH_MAX_RUN_OPS (1u << 23)

enum syscall_mode { SYSCALL_SINGLE, SYSCALL_BATCH };

/*
 * The kernel map a design stands for: its type, and the creation flags of
 * its mode (map_ops.mode_flags: lru/linux_percpu stands for the kernel's
 * LRU hash with BPF_F_NO_COMMON_LRU).
 */
struct kbench_mode {
	uint32_t type;
	uint32_t flags;
};

/*
 * The kernel maps that n maps stand for, each once: map i is designs[i]
 * (its type and mode flags), or, where designs[i] is NULL, the kernel's
 * own map of type types[i] (no mode flags).  Writes the distinct modes to
 * out (room for n) in first-seen order and, when mode_of is not NULL, the
 * index of map i's mode to mode_of[i].  Returns how many.
 */
unsigned kbench_modes(const struct map_ops *const *designs,
		      const uint32_t *types, unsigned n,
		      struct kbench_mode *out, unsigned *mode_of);

/* 0, or a negative errno with a one-line reason (see Errors above).
 * ops_per_run: 1 to 2^23 (bpf_loop's limit). */
int kbench_run(const struct kbench_config *c, struct kbench_result *r,
	       char *err, size_t errlen);

/*
 * The same workload through the bpf(2) syscall.  SYSCALL_BATCH supports
 * lookup-only (a LOOKUP_BATCH walk of the whole map) and update-only
 * (UPDATE_BATCH of the stream's keys, 256 a call) workloads; others are
 * -EOPNOTSUPP.
 */
int kbench_syscall_run(const struct kbench_config *c, enum syscall_mode mode,
		       struct bench_result *r, char *err, size_t errlen);

#endif /* MAPLAB_KBENCH_H */
