/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.h: folded stacks and side-by-side flame graphs as SVG.
 *
 * Folded stacks are the exchange format of every flame-graph tool (Brendan
 * Gregg's): one line per distinct stack, frames root first, separated by
 * ';', then a space and the count:
 *
 *   bench_worker;map_update;htab_update;memcmp 12
 *
 * A frame may end in an annotation that picks its colour:
 *   _[k]  kernel          _[j]  BPF program (JITed)
 *   _[t]  thunk (return or indirect-branch mitigation)
 *   _[h]  harness (the bench loop, BPF_PROG_TEST_RUN, syscall entry)
 *   none  userspace (the design, libc, the allocator)
 *
 * The SVG holds one panel per side, left to right, each as wide as its
 * ns/op's share of the sum (a side that takes twice as long per op is
 * twice as wide), with the frames of each panel stacked from the bottom;
 * every rectangle has a <title> (the browser's tooltip: frame, samples,
 * share, ns per op) and a label where it is wide enough.  No scripts: it
 * reads in any browser or image viewer.
 */
#ifndef MAPLAB_PROFILE_FLAMEGRAPH_H
#define MAPLAB_PROFILE_FLAMEGRAPH_H

#include <stdint.h>
#include <stdio.h>

struct fg_stack {
	const char *folded;  /* "root;...;leaf", annotations included */
	uint64_t count;
};

struct fg_panel {
	const char *title;        /* e.g. "kernel lpm_trie update" */
	double ns_per_op;         /* the side's time per op: its width */
	const struct fg_stack *stacks;
	size_t n_stacks;
};

/*
 * Write one SVG with n panels side by side (width_px wide in all; 0 for
 * the default, 1600) under `title`.  0, or -EINVAL (no panel, a panel with
 * no samples or a ns_per_op that is not positive and finite, a stack line
 * with no frame), or -EIO where out fails.
 */
int fg_write_svg(FILE *out, const char *title, const struct fg_panel *panels,
		 unsigned n, unsigned width_px);

/*
 * Parse one folded line ("a;b;c 12\n") into a stack whose `folded` points
 * into line (the count and newline cut off in place).  0, or -EINVAL
 * where there is no count or no frame.
 */
int fg_parse_line(char *line, struct fg_stack *out);

#endif /* MAPLAB_PROFILE_FLAMEGRAPH_H */
