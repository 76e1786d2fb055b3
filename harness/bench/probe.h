/* SPDX-License-Identifier: MIT */
/*
 * probe.h: the reference probe.  A fixed piece of work, timed before each
 * repeat of a benchmark, whose figure is kept with the results: the same
 * probe on the same machine should cost the same, so a run whose probe
 * cost more ran on a busier machine (a neighbour on the host, a stolen
 * vCPU, a kernel thread scanning memory) and its figures deserve less
 * trust.  Compare probes across runs of one machine only: on another
 * machine the probe measures another memory system.
 *
 * The work: a pointer chase through PROBE_NODES cache lines (4 MiB, more
 * than a core's L2, less than a server's L3) linked in one cycle in a fixed
 * random order, PROBE_STEPS dependent loads, on the first CPU this process
 * may use.  Each load waits for the one before, so the figure is the load
 * latency at that size, plus whatever the machine takes away.
 */
#ifndef MAPLAB_PROBE_H
#define MAPLAB_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define PROBE_NODES (1u << 16)
#define PROBE_STEPS (1u << 19)

/* One cache line: the index of the next node, and padding. */
struct probe_node {
	uint32_t next;
	uint32_t pad[15];
};

struct probe {
	struct probe_node *nodes; /* PROBE_NODES, one cycle through next */
};

/* Build the cycle (the same on every run): 0 or -ENOMEM. */
int probe_init(struct probe *p);

/*
 * Time PROBE_STEPS steps of the chase, pinned to the first allowed CPU
 * (the calling thread is unpinned afterwards; where the kernel refuses the
 * pin, it runs where it is): ns per step.
 */
double probe_run(struct probe *p);

void probe_free(struct probe *p);

#endif /* MAPLAB_PROBE_H */
