/* SPDX-License-Identifier: MIT */
/*
 * probe.c: the reference probe (probe.h).  Sattolo's algorithm turns the
 * identity into a random cyclic permutation, so the chase visits every node
 * before it comes back; the fixed seed makes it the same chase on every run
 * and every machine.
 */
#include "harness/bench/probe.h"
#include "harness/common/clock.h"
#include "harness/common/rng.h"
#include "maps/base/cpu.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#define PROBE_SEED 0x70726f6265ULL /* "probe" */

int probe_init(struct probe *p)
{
	struct rng rng;
	p->nodes = aligned_alloc(64, PROBE_NODES * sizeof(*p->nodes));
	if (!p->nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < PROBE_NODES; i++)
		p->nodes[i] = (struct probe_node){ .next = i };
	rng_seed(&rng, PROBE_SEED);
	for (uint32_t i = PROBE_NODES - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rng_below(&rng, i); /* j < i: one cycle */
		uint32_t t = p->nodes[i].next;
		p->nodes[i].next = p->nodes[j].next;
		p->nodes[j].next = t;
	}
	return 0;
}

/* `steps` loads, each from the address the one before it read. */
static uint32_t chase(const struct probe_node *nodes, uint32_t at,
		      uint32_t steps)
{
	for (uint32_t i = 0; i < steps; i++)
		at = ((const volatile struct probe_node *)&nodes[at])->next;
	return at;
}

double probe_run(struct probe *p)
{
	/* Where the kernel refuses the pin, the run's workers are refused
	 * theirs too and fail the run with their own message: the probe
	 * runs where it is rather than say it first. */
	bool pinned = map_cpu_pin(0) >= 0;
	uint32_t at = chase(p->nodes, 0, PROBE_NODES); /* warm: one lap */
	uint64_t t0 = clock_now_ns();
	chase(p->nodes, at, PROBE_STEPS);
	uint64_t elapsed = clock_now_ns() - t0;
	if (pinned)
		map_cpu_unpin();
	return (double)elapsed / PROBE_STEPS;
}

void probe_free(struct probe *p)
{
	free(p->nodes);
	p->nodes = NULL;
}
