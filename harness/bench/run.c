/* SPDX-License-Identifier: MIT */
/*
 * run.c: bench_run, the one way in to a timed run, which picks its engine
 * by the op: a stream of ops on a prefilled map (bench.c), or one of the
 * kernel's LPM benchmark's whole-map phases (phase.c: insert, delete,
 * free).  Here, above both, so that neither engine calls the other.
 */
#include "harness/bench/bench.h"
#include "harness/bench/phase.h"

int bench_run(const struct bench_config *c, struct bench_result *r,
	      char *err, size_t errlen)
{
	if (bench_lpm_op_is_phase(c->lpm_op))
		return bench_phase_run(c, r, err, errlen);
	return bench_stream_run(c, r, err, errlen);
}
