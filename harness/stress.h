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
 * Each thread counts, per key, its successful inserts minus deletes.  After
 * all threads stop:
 *   - for every key, the sum over threads (plus the prefill) is 0 or 1 and
 *     equals whether the map holds the key;
 *   - the map holds exactly initial + inserts - deletes keys, and a
 *     get_next_key walk meets each of them exactly once;
 *   - every value found is one that some thread wrote to that very key in
 *     a successful update: a value carries (key tag, thread, write number),
 *     each thread marks its successful write numbers in a bitmap, and the
 *     bytes past the first 8 repeat a pattern derived from them, so a torn
 *     or stale value is caught.
 * Values are not checked while threads run: a design that reuses elements
 * at once (hash/linux) may legally show a reader another key's value.
 */
#ifndef MAPLAB_STRESS_H
#define MAPLAB_STRESS_H

#include "../maps/common/map.h"

#include <stdint.h>

struct stress_opts {
	const struct map_ops *ops;
	struct map_attr attr;  /* ncpus is raised to threads if smaller */
	unsigned threads;
	uint32_t key_range;    /* keys 0..key_range-1; 0: 2 * max_entries */
	double seconds;        /* run time (0: run max_ops per thread) */
	uint64_t max_ops;      /* per thread; 0: no limit */
	unsigned prefill_pct;  /* percent of key_range inserted first */
	uint64_t seed;
};

struct stress_report {
	uint64_t ops, inserts, replaces, deletes, lookups, lookup_hits;
	uint64_t failed_inserts, full_errors; /* -EEXIST, -E2BIG/-ENOSPC */
	uint64_t initial, expected, found;
	double seconds;
	char failure[512]; /* first check that failed; "" when all passed */
};

/*
 * Run and check.  0: every check passed.  1: a check failed (report.failure
 * says which).  Negative errno: the run could not start (create failed,
 * value_size < 8, key_range too large for key_size...), with a message in
 * report.failure.
 */
int stress_run(const struct stress_opts *opts, struct stress_report *report);

#endif /* MAPLAB_STRESS_H */
