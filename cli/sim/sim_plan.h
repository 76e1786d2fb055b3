/* SPDX-License-Identifier: MIT */
/*
 * sim_plan.h: the policies and sizes `maplab sim` runs, read from its
 * --policy and --sizes (docs/sim.md, "Usage" and "cachesim's
 * conventions").  Each reader returns 0, or EXIT_USAGE after one line on
 * stderr that says what was wrong and what is taken instead.
 */
#ifndef MAPLAB_SIM_PLAN_H
#define MAPLAB_SIM_PLAN_H

#include "harness/sim/sim.h"

#include <stdint.h>

#define SIM_MAX_POLICIES 32
#define SIM_MAX_SIZES 32

struct sim_plan {
	struct sim_policy policies[SIM_MAX_POLICIES];
	unsigned n_policies;
	uint32_t sizes[SIM_MAX_SIZES];
	unsigned n_sizes;
	char aliases_used[256]; /* "lru = lru/global, ...": each alias used */
	char sizes_note[512];   /* where auto sizes came from ("" if given) */
};

/* --policy's comma-separated words into p->policies.  The kernel's
 * policies are asked for only where named (or `all`, which leaves them
 * out, with a note, where they cannot run). */
int sim_plan_policies(struct sim_plan *p, const char *text);

/* --sizes' words into p->sizes, fractions and auto taken of `distinct`,
 * the trace's distinct keys. */
int sim_plan_sizes(struct sim_plan *p, const char *text, uint32_t distinct);

#endif /* MAPLAB_SIM_PLAN_H */
