/* SPDX-License-Identifier: MIT */
/*
 * replay.h: run a parsed trace on one side (a userspace design or the
 * kernel) and write its result lines as it goes (docs/design.md, "Traces";
 * docs/traces.md):
 *
 *   map ok | err ERRNO          update ok | err ERRNO
 *   lookup ok <value> | err E   plookup ok | err ENOENT
 *   delete ok | err ERRNO       next ok <key> | err ERRNO
 *   dump ok <n>, then n lines "  <key> <value>" sorted by key bytes
 *   cpu ok
 *
 * lookup, update, delete, next and dump are what a userspace program gets
 * from bpf(2), so they go through map.h's syscall layer (map_sys_*: a
 * BPF_F_RDONLY map refuses update and delete with EPERM, a BPF_F_WRONLY one
 * lookup and get_next_key); plookup is a program's lookup.
 *
 * A replay runs on the calling thread, which it pins to the cpu of each
 * line (cpu 0 until a `cpu N` line, then N) and gives that cpu slot, so
 * per-CPU structures (an LRU's lists) see the same cpu on both sides; a
 * cpu line answers "ok".  Afterwards the thread holds no slot and may run on
 * every CPU the process may use again.  Memory does not grow with the
 * output: results are written line by line, and replay_compare holds one
 * trace line's results per side at a time.
 */
#ifndef MAPLAB_REPLAY_H
#define MAPLAB_REPLAY_H

#include "harness/trace/trace.h"

#include <stdbool.h>

/* Which design serves a map line of this type and these flags. */
struct replay_side {
	const char *label; /* for messages: "hash/linux", "kernel" */
	/* NULL: the type has no design on this side (map err EOPNOTSUPP). */
	const struct map_ops *(*choose)(uint32_t type, uint32_t flags, void *ctx);
	void *ctx;
	/*
	 * plookup, where the side has its own (the kernel: a BPF program run
	 * by BPF_PROG_TEST_RUN, kmap_prog_lookup): 0 found, -ENOENT absent,
	 * any other -errno when the lookup could not run at all, which stops
	 * the replay (REPLAY_FAILED).  NULL: map_lookup in an RCU read section.
	 */
	int (*prog_lookup)(struct map *map, const void *key);
	/*
	 * Creation flags added to every map line on this side: validate's
	 * kernel side takes the compared design's mode flags (lru/linux_percpu
	 * is the kernel's LRU with BPF_F_NO_COMMON_LRU), so both sides make
	 * the same kind of map from the same line.
	 */
	uint32_t add_flags;
	/*
	 * The cpus this side's maps are made for (map_attr.ncpus); 0: this
	 * machine's possible CPUs.  A design compared with a virtual
	 * machine's kernel takes the VM's count.
	 */
	unsigned ncpus;
	/* The kernel version its faithful designs behave as (map_attr.model;
	 * 0: their newest). */
	uint32_t model;
	/* Where the work of every map the side made is added as the map
	 * goes (map_ops.work; NULL: not kept): what the traces exercised. */
	struct map_work *work;
	/*
	 * A cpu line needs only its cpu slot (maps/base/cpu.h), not the CPU:
	 * a design compared with a recording of another machine's kernel,
	 * whose cpus this machine may not have.  false (the default): the
	 * replay thread also pins itself to that CPU, as the kernel's per-CPU
	 * lists follow the CPU a program runs on (and a design replayed here
	 * runs where the kernel would).
	 */
	bool slots_only;
};

/* How a replay ended. */
enum replay_stop {
	REPLAY_DONE,        /* every line replayed */
	REPLAY_TRACE_ERROR, /* an operation on the map of a map line that failed:
			       the trace is in error (docs/design.md) */
	REPLAY_FAILED,      /* the replay could not go on, for a reason that is
			       not an answer of the map: a cpu not allowed, the
			       kernel's lookup program could not run, out of
			       memory, the results could not be written */
};

/*
 * Replay t on side, writing each line's results to out as it goes (echo:
 * the trace line itself first, as a comment "# update ...").  REPLAY_DONE,
 * or why it stopped, with a one-line message "NAME:LINE: ..." in err.
 */
enum replay_stop replay_run(const struct trace *t, const char *trace_name,
			    const struct replay_side *side, FILE *out,
			    bool echo, char *err, size_t errlen);

/* How a replay ended, whole: what a comparison needs of a side that was
 * replayed elsewhere (a virtual machine's kernel) and recorded. */
struct replay_end {
	enum replay_stop stop;
	size_t line;           /* where it stopped: an index in t->lines */
	int map_err;           /* REPLAY_TRACE_ERROR: the failed map line's
				  errno (negative), which both sides must
				  share for them to agree */
	char why[512];         /* the message, when stop is not REPLAY_DONE */
};

/* replay_run without echo, its end kept whole in *end: a recording. */
void replay_record(const struct trace *t, const char *trace_name,
		   const struct replay_side *side, FILE *out,
		   struct replay_end *end);

/* A side replayed elsewhere: its result lines (replay_record's out, text
 * of len bytes) and its end. */
struct replay_recorded {
	const char *label;
	const char *text;
	size_t len;
	struct replay_end end;
};

/* One side's results for one trace line, as replay_compare hands them. */
struct replay_answer {
	const char *side;      /* the side's label */
	const char *text;      /* its result lines, '\n'-terminated; where it
				  stopped instead: why (one line, no '\n') */
	size_t len;
	enum replay_stop stop; /* REPLAY_DONE: answered; REPLAY_TRACE_ERROR:
				  stopped at this line instead */
};

/* Called for each trace line whose results differ (t->lines[i]). */
typedef void (*replay_difference_fn)(void *ctx, const struct trace *t,
				     size_t i, const struct replay_answer *a,
				     const struct replay_answer *b);

struct replay_comparison {
	size_t lines;          /* trace lines compared: both sides replayed
				  them, or one side alone stopped there */
	size_t unordered;      /* of them, `next` lines not compared (below) */
	size_t differences;
	/*
	 * REPLAY_DONE: both ran to the end.  REPLAY_TRACE_ERROR: the trace is
	 * in error at line `lines`; both sides stopping there alike is
	 * agreement, one side alone is a difference (counted).  REPLAY_FAILED:
	 * a side could not go on; what was compared before stands.
	 */
	enum replay_stop stop;
	char why[512];         /* the message, when stop is not REPLAY_DONE */
};

/*
 * Replay t on a and b in lock step, a line at a time, and compare each
 * comparable line's results as it goes; on_difference (may be NULL) sees
 * every difference.  The comparison ends where either side stops.
 */
void replay_compare(const struct trace *t, const char *trace_name,
		    const struct replay_side *a, const struct replay_side *b,
		    replay_difference_fn on_difference, void *ctx,
		    struct replay_comparison *out);

/*
 * A recording printed as replay_run would have printed it (echo: each
 * trace line as a comment above its answer).  REPLAY_DONE, or where it
 * stopped (REPLAY_FAILED too where the recording is cut short), with the
 * message in err.
 */
enum replay_stop replay_print_recorded(const struct trace *t,
				       const struct replay_recorded *rec,
				       FILE *out, bool echo, char *err,
				       size_t errlen);

/*
 * replay_compare with side a recorded: its answer to each line read from
 * a->text in turn (one result line an op; a dump's "ok N" and its N
 * lines), its stop from a->end.  A recording that runs out before its end,
 * or holds a line no result looks like, stops the comparison as
 * REPLAY_FAILED ("the kernel's recording ... is cut short").  b runs on
 * cpu slots alone: cpu lines need not be CPUs this process may run on.
 */
void replay_compare_recorded(const struct trace *t, const char *trace_name,
			     const struct replay_recorded *a,
			     const struct replay_side *b,
			     replay_difference_fn on_difference, void *ctx,
			     struct replay_comparison *out);

/*
 * Whether trace line i's results can be compared across sides: a `next`
 * on a map without zero_seed cannot, since each side hashes with its own
 * random seed and so walks in its own order.
 */
bool replay_line_comparable(const struct trace *t, size_t i);

/* The userspace side: `design` for map lines of its type (NULL: none),
 * the kernel-faithful design of the type for the others. */
struct replay_side replay_user_side(const struct map_ops *design);

/* A side where ops serves every map line (the kernel: kmap_ops, with
 * kmap_prog_lookup); prog_lookup may be NULL. */
struct replay_side replay_fixed_side(const char *label,
				     const struct map_ops *ops,
				     int (*prog_lookup)(struct map *map,
							const void *key));

#endif /* MAPLAB_REPLAY_H */
