/* SPDX-License-Identifier: MIT */
/*
 * replay.h: run a parsed trace on one side (a userspace design or the
 * kernel) and produce its result lines (DESIGN.md, "Traces"):
 *
 *   map ok | err ERRNO          update ok | err ERRNO
 *   lookup ok <value> | err E   plookup ok | err ENOENT
 *   delete ok | err ERRNO       next ok <key> | err ERRNO
 *   dump ok <n>, then n lines "  <key> <value>" sorted by key bytes
 *
 * The replay runs on the calling thread, which it pins to cpu 0 and gives
 * cpu slot 0, so per-CPU structures see one CPU on both sides.
 */
#ifndef MAPLAB_REPLAY_H
#define MAPLAB_REPLAY_H

#include "trace.h"

/* Which design serves a map line of this type and these flags. */
struct replay_side {
	const char *label; /* for messages: "hash/linux", "kernel" */
	/* NULL: the type has no design on this side (map err EOPNOTSUPP). */
	const struct map_ops *(*choose)(uint32_t type, uint32_t flags, void *ctx);
	void *ctx;
};

/* The result text, with where each trace line's results start. */
struct replay_result {
	char *text;      /* all result lines, '\n'-terminated */
	size_t len;
	size_t *starts;  /* [n + 1]: trace line i's results are
			    text[starts[i] .. starts[i+1]) */
	size_t n;        /* trace lines replayed (all of them on success) */
};

/*
 * Replay t on side.  0 on success.  -1 when the trace itself is in error
 * (an operation after a failed map line): err says where; result holds
 * the lines replayed before it.
 */
int replay_run(const struct trace *t, const char *trace_name,
	       const struct replay_side *side, struct replay_result *result,
	       char *err, size_t errlen);
void replay_result_free(struct replay_result *r);

/*
 * Whether trace line i's results can be compared across sides: a `next`
 * on a map without zero_seed cannot, since each side hashes with its own
 * random seed and so walks in its own order.
 */
int replay_line_comparable(const struct trace *t, size_t i);

/*
 * The first trace line at or after `from` whose results differ between a
 * and b (comparable lines only), or t->n when none does.  A side that
 * stopped early differs on every line it did not reach.
 */
size_t replay_next_difference(const struct trace *t,
			      const struct replay_result *a,
			      const struct replay_result *b, size_t from);

/* The results of trace line i on side r (empty if it was not reached). */
const char *replay_line_text(const struct replay_result *r, size_t i,
			     size_t *len);

/* The map attributes in force at trace line i (its map line's). */
const struct map_attr *replay_attr_at(const struct trace *t, size_t i);

/* The userspace side: `design` for map lines of its type (NULL: none),
 * the kernel-faithful design of the type for the others. */
struct replay_side replay_user_side(const struct map_ops *design);

/* A side where ops serves every map line (the kernel: kmap_ops). */
struct replay_side replay_fixed_side(const char *label,
				     const struct map_ops *ops);

#endif /* MAPLAB_REPLAY_H */
