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
 * twice as wide), except that no panel is narrower than 4% of the
 * panels' width (a very cheap side still shows; the others share the
 * rest in proportion).  Each panel's heading gives its ns/op and samples,
 * so a widened panel cannot mislead.  The frames of each panel merge into
 * a tree (siblings in name order, so equal stacks merge), stacked from the
 * bottom above a root "all"; a frame's width is its share of its panel's
 * samples.  Every rectangle has a <title> (the browser's tooltip: frame,
 * kind, samples, share, ns per op) and a label where it is wide enough.
 * Rectangles under 0.1 px are not drawn (their samples still count).  No
 * scripts, fonts or stylesheets: it reads in any browser or image viewer.
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
 * the default, 1600) under `title` (NULL: none).  The stacks' strings are
 * read during the call only.  0, or -EINVAL before anything is written
 * (no panel or no stream; a width too narrow for n panels, under
 * 38n + 6 px; a panel with no stacks, with samples that sum to 0 or
 * overflow, or a ns_per_op that is not positive and finite; a stack with
 * no frame or an empty one: "", ";a", "a;;b", "a;"), -ENOMEM, or where
 * out fails, the -errno of its failed write (-ENOSPC on a full disk; -EIO
 * only where stdio kept no errno).  The picture is drawn in memory and
 * written in one call, then out is flushed: a caller's outfile (outfile.h)
 * sees the whole picture or the error.
 */
int fg_write_svg(FILE *out, const char *title, const struct fg_panel *panels,
		 unsigned n, unsigned width_px);

/*
 * Parse one folded line ("a;b;c 12\n") into a stack whose `folded` points
 * into line (the count and newline cut off in place).  Trailing spaces,
 * tabs, \r and \n are ignored; the count is the decimal digits after the
 * last space or tab (so a frame may hold spaces).  0, or -EINVAL, the line
 * left as it was, where there is no count, a count that is not decimal
 * digits or overflows 64 bits, or no frame or an empty one (as above).
 */
int fg_parse_line(char *line, struct fg_stack *out);

#endif /* MAPLAB_PROFILE_FLAMEGRAPH_H */
