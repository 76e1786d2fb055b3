/* SPDX-License-Identifier: MIT */
/*
 * stress.h: randomised concurrent operations on one map, then a check of
 * what is left against what the threads' successful operations imply
 * (after ASCYLIB's and Concurrency Kit's validators).
 *
 * Each thread owns a cpu slot and draws keys from a shared range.  Its
 * operations are chosen so that every success has one meaning:
 *   insert  = update NOEXIST   success: the key went from absent to present
 *   replace = update EXIST     success: present stays present, new value
 *   delete                     success: present to absent
 *   lookup  (program-style, in an RCU read section)
 * Any other answer than the ones a correct map gives (EEXIST, ENOENT, and
 * E2BIG or ENOSPC when full) fails the run: ENOMEM from a map with room
 * is a defect too.
 *
 * Each thread counts, per key, its successful inserts minus deletes, and
 * remembers its last successful write to each key: the write number and
 * two ticks of a global counter taken just before the call and just after
 * it returned.  After all threads stop, per key:
 *   - the sum of the counts over threads (plus the prefill) says whether
 *     the key must be present (1) or absent (0); a map type that may evict
 *     (lru_hash) may also have lost a key the counts call present;
 *   - a value found carries (key tag, thread t, write number s), and
 *     s must be t's last successful write to the key (else a later write
 *     of t's was lost), and no other thread's last successful write to it
 *     may have begun after t's write had returned (else that write was
 *     lost: it is ordered after t's, so the key should hold it or
 *     something later); where two writes overlapped in time, either may
 *     be last, and the check accepts both;
 *   - the bytes past the first 8 repeat a pattern derived from them, so a
 *     torn value is caught;
 * and a get_next_key walk meets each present key exactly once, and no
 * other.  A map that may evict must also hold no more keys than
 * max_entries, and, where it counts its evictions (map_ops.work), account
 * for every key: present = prefilled + inserts - deletes - evictions.
 * Values are not checked while threads run: a design that reuses elements
 * at once (hash/linux) may legally show a reader another key's value.
 */
#ifndef MAPLAB_STRESS_H
#define MAPLAB_STRESS_H

#include "maps/base/map.h"

#include <stdbool.h>
#include <stdint.h>

/* How the final contents of a map type are judged. */
enum stress_rules {
	STRESS_RULES_OF_TYPE, /* from the map type: exact, or may evict (LRU) */
	STRESS_EXACT,         /* every key the counts call present is there */
	STRESS_MAY_EVICT,     /* a key may be missing: the map evicted it */
};

/* The key range when none is given: twice the map, so inserts meet a full
 * map half the time (and LRU maps evict). */
#define STRESS_DEFAULT_RANGE_PCT 200

struct stress_opts {
	const struct map_ops *ops;
	struct map_attr attr;  /* ncpus is raised to threads if smaller */
	unsigned threads;
	uint32_t key_range;    /* keys 0..key_range-1; 0: the default,
				  STRESS_DEFAULT_RANGE_PCT % of max_entries */
	double seconds;        /* run time (0: run max_ops) */
	uint64_t max_ops;      /* in all, split over the threads; 0: no limit */
	unsigned prefill_pct;  /* percent of key_range inserted first */
	uint64_t seed;
	enum stress_rules rules;
};

struct stress_report {
	uint64_t ops, inserts, replaces, deletes, lookups, lookup_hits;
	uint64_t failed_inserts, full_errors; /* -EEXIST, -E2BIG/-ENOSPC */
	uint64_t initial, expected, found;
	uint64_t evicted;   /* keys the counts call present that are gone */
	uint64_t evictions; /* what the map says it evicted (map_ops.work) */
	double seconds;
	char failure[512]; /* first check that failed; "" when all passed */
};

/*
 * Run and check.  0: every check passed.  1: a check failed (report.failure
 * says which).  Negative errno: the run could not start (create failed,
 * value_size < 8, key_range too large for key_size, more threads than
 * the design serves (map_ops.max_threads: -EUSERS, before any thread
 * starts), a cpu slot taken, no memory for the bookkeeping...), with a
 * message in report.failure.
 */
int stress_run(const struct stress_opts *opts, struct stress_report *report);

/* The rules a map type is judged by. */
enum stress_rules stress_rules_for(uint32_t type);

#endif /* MAPLAB_STRESS_H */
