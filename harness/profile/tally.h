/* SPDX-License-Identifier: MIT */
/*
 * tally.h: the samples of one side of `maplab explain`, classified into the
 * steps of the op (steps.h) and counted: per region, per step with the
 * functions behind it, as folded stacks for the flame graph
 * (flamegraph.h).
 */
#ifndef MAPLAB_PROFILE_TALLY_H
#define MAPLAB_PROFILE_TALLY_H

#include "harness/profile/flamegraph.h"
#include "harness/profile/steps.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The strings of the chains added need live only until prof_tally_finish
 * returns: the tally copies what it keeps. */

/* A function under a step, and its samples there. */
struct prof_fn {
	char *name;     /* the function, or its module where it has no name */
	bool kernel;
	uint64_t samples;
};

struct prof_ip_count;

/*
 * The samples of one side, tallied: per region, and per step with the
 * functions behind it for the op's region and the harness's (on the kernel
 * side the harness is outside the program: not in the side's ns/op, see
 * prof_tally_covered, and not drawn).  The baseline's and the other op's
 * samples are only counted.
 */
struct prof_tally {
	bool kernel;
	uint64_t region[PROF_REGION_COUNT];
	uint64_t step[PROF_STEP_COUNT];
	struct prof_fn *fns[PROF_STEP_COUNT];
	unsigned n_fns[PROF_STEP_COUNT], cap_fns[PROF_STEP_COUNT];
	uint64_t samples;   /* every sample added */
	uint64_t shallow;   /* chains of two frames or fewer */
	uint64_t off_thread;/* samples of threads other than the workers: CPU
			       time beside the op's, not in its ns/op */
	/* The flame graph's stacks (folded, flamegraph.h), merged. */
	struct fg_stack *stacks;
	size_t n_stacks, cap_stacks;
	/* private: leaf addresses of kernel functions, for the irqs-off lump */
	struct prof_ip_count *ips;
	size_t n_ips, cap_ips;
};

/* Add one sample (its chain at most PROF_MAX_FRAMES frames; a run of one
 * repeated address counts as one frame) of a worker thread (off_thread false) or of another
 * thread of the process (true: liburcu's call_rcu thread, whose work is
 * reclamation: counted in off_thread, drawn under its own root, never in
 * the op's shares).  0 or -ENOMEM. */
int prof_tally_add(struct prof_tally *t, const struct prof_scope *scope,
		   const struct prof_frame *chain, unsigned n, bool off_thread);

/* After the last add: move irqs-off lumps to PROF_STEP_IRQS_OFF and sort
 * each step's functions, most samples first.  0 or -ENOMEM. */
int prof_tally_finish(struct prof_tally *t);

/* The samples the side's ns/op covers, what its shares are of: the op
 * region's and the other op's (an insert/delete pair's ns/op is of both),
 * and on the user side the bench loop's (harness) too. */
uint64_t prof_tally_covered(const struct prof_tally *t);

void prof_tally_free(struct prof_tally *t);

/* At least this many samples of a function, and this share of them at one
 * address, make an irqs-off lump. */
#define PROF_IRQS_OFF_MIN_SAMPLES 20
#define PROF_IRQS_OFF_SHARE 0.6

#endif /* MAPLAB_PROFILE_TALLY_H */
