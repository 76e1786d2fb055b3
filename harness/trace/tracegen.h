/* SPDX-License-Identifier: MIT */
/*
 * tracegen.h: random v1 traces for differential testing (validate, the
 * kernel tests).  Deterministic in the seed.
 *
 * The key space is a little larger than max_entries, so a trace fills the
 * map, meets -E2BIG, deletes and refills; keys are scattered bytes, not
 * counters, so they spread over buckets as real keys do.
 *
 * An LPM trie's trace (key_size 5 to 260) is shaped like a routing table
 * instead (tracegen_lpm.c): its key space is key_space prefixes (by
 * default twice max_entries, at most 2 * ops + 16) of a few related base
 * addresses, of lengths weighted to the long end, so prefixes
 * nest and diverge, and the trie holds intermediate nodes and real nodes
 * above others.  The generator keeps the set of prefixes the map holds, so
 * it can aim operations at present keys and at the branch points between
 * them (intermediate nodes, or real nodes with two children).  Over the
 * trace:
 *   - trailing bits beyond the prefix length are zero, the base address's,
 *     or random, so a re-inserted prefix may change them;
 *   - some keys have a prefix length beyond the data's bits (max_prefixlen
 *     + 1, further, UINT32_MAX): the kernel's EINVAL, ENOENT or first key;
 *   - updates take any, noexist and exist alike, on absent, present and
 *     intermediate prefixes, and fill the map to -ENOSPC;
 *   - deletes aim at present keys, absent ones and intermediate nodes;
 *   - lookups also use full-length addresses, which hit at any depth or
 *     miss;
 *   - `next` starts from no key, present keys, branch points and absent
 *     keys, and now and then walks the whole map in the kernel's order
 *     (next -, then next of each key in post-order: the last says ENOENT).
 * Hash and LRU traces are what they were before LPM traces had their own
 * pass, byte for byte (tests and kernel tests depend on them).
 *
 * CPUs (n_cpus > 0): `cpu N` lines among the operations, N from cpus[].
 * The first operation runs on cpus[0]; after it the trace stays on one cpu
 * for a run of operations and then moves to another of the list.  Runs
 * are mostly short (1 to 4 lines: a key inserted on one cpu is looked up,
 * deleted or evicted from the other) with long ones between (up to 256:
 * one cpu drains its local free list and must refill it from the global
 * list or steal from the other's).  The cpu lines come from a generator
 * of their own, seeded from the seed: the same seed gives the same
 * operations with or without cpus.
 */
#ifndef MAPLAB_TRACEGEN_H
#define MAPLAB_TRACEGEN_H

#include "maps/base/map.h"

#include <stdint.h>
#include <stdio.h>

/* The cpus one trace may move between (ids below MAP_MAX_CPUS). */
#define TRACEGEN_MAX_CPUS 64

struct tracegen_opts {
	struct map_attr attr; /* type, sizes, max_entries, flags */
	uint64_t seed;
	uint64_t ops;         /* operation lines after the map line */
	unsigned key_space;   /* distinct keys; 0: max_entries * 3 / 2 + 2
				 (an LPM trie's: max_entries * 2 + 2) */
	unsigned n_cpus;      /* 0: no cpu lines (all on cpu 0) */
	uint16_t cpus[TRACEGEN_MAX_CPUS]; /* the cpus the trace moves between */
};

/*
 * Write one map line, opts->ops operations and a final dump, a line at a
 * time (memory does not grow with ops).  0; or, the trace unfinished,
 * -ENOMEM out of memory (an LPM trace's model of the map), or where a write
 * to out failed (ferror(out)), that write's negative errno: the trace stops
 * at the line it failed on.
 */
int tracegen_write(FILE *out, const struct tracegen_opts *opts);

/* The same into a malloc'ed string (NULL out of memory: never a trace cut
 * short). */
char *tracegen_string(const struct tracegen_opts *opts);

#endif /* MAPLAB_TRACEGEN_H */
