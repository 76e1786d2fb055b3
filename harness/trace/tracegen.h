/* SPDX-License-Identifier: MIT */
/*
 * tracegen.h: random v1 traces for differential testing (validate, the
 * kernel tests).  Deterministic in the seed.
 *
 * The key space is a little larger than max_entries, so a trace fills the
 * map, meets -E2BIG, deletes and refills; keys are scattered bytes, not
 * counters, so they spread over buckets as real keys do.
 */
#ifndef MAPLAB_TRACEGEN_H
#define MAPLAB_TRACEGEN_H

#include "maps/common/map.h"

#include <stdint.h>
#include <stdio.h>

struct tracegen_opts {
	struct map_attr attr; /* type, sizes, max_entries, flags */
	uint64_t seed;
	uint64_t ops;         /* operation lines after the map line */
	unsigned key_space;   /* distinct keys; 0: max_entries * 3 / 2 + 2 */
};

/* Write one map line, opts->ops operations and a final dump. */
void tracegen_write(FILE *out, const struct tracegen_opts *opts);

/* The same into a malloc'ed string (NULL on ENOMEM). */
char *tracegen_string(const struct tracegen_opts *opts);

#endif /* MAPLAB_TRACEGEN_H */
