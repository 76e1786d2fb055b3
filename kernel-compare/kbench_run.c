/* SPDX-License-Identifier: MIT */
/*
 * kbench_run.c: kbench_run, the kernel side's one way in to a timed run,
 * which picks its engine by the op: a stream of ops in BPF programs
 * (kbench_prog.c), or one of the kernel's LPM benchmark's whole-map phases
 * (kbench_phase.c: insert, delete, free), which uses kbench_prog.c's
 * programs.  Here, above both, so that neither calls the other.
 */
#include "kernel-compare/kbench.h"
#include "kernel-compare/kbench_runner.h"
#include "harness/bench/phase.h"

int kbench_run(const struct kbench_config *c, struct kbench_result *r,
	       char *err, size_t errlen)
{
	if (bench_lpm_op_is_phase(c->b.lpm_op))
		return kbench_phase_run(c, r, err, errlen);
	return kbench_prog_run(c, r, err, errlen);
}
