/* SPDX-License-Identifier: MIT */
/*
 * tracegen_internal.h: what tracegen.c (every map type) and tracegen_lpm.c
 * (the LPM trie's keys) share.  Not for use outside harness/trace.
 */
#ifndef MAPLAB_TRACEGEN_INTERNAL_H
#define MAPLAB_TRACEGEN_INTERNAL_H

#include "harness/trace/tracegen.h"
#include "harness/common/rng.h"

#include <stdint.h>
#include <stdio.h>

/* An LPM key's prefix length: 4 bytes, host order, before 1 to 256 data
 * bytes (the kernel's LPM_DATA_SIZE_MIN and _MAX). */
#define TRACEGEN_LPM_PREFIX_BYTES 4
#define TRACEGEN_LPM_DATA_MAX 256

/* Operation mix, in percent of lines; the rest are dumps. */
enum { P_UPDATE = 40, P_LOOKUP = 18, P_PLOOKUP = 8, P_DELETE = 18, P_NEXT = 14 };

/* Update flags by number: any, noexist, exist. */
extern const char *const tracegen_update_flags[3];

/* The comment line and the map line that open every trace; `extra` is
 * appended to the comment (may be ""). */
void tracegen_put_head(FILE *out, const struct tracegen_opts *o,
		       unsigned key_space, const char *extra);

/* " <hex>" of size random bytes (buf: size bytes of room). */
void tracegen_put_value(FILE *out, struct rng *r, uint8_t *buf, uint32_t size);

/* Where the trace's cpu lines come from (tracegen.h, "CPUs"). */
struct tracegen_cpus {
	const struct tracegen_opts *o;
	struct rng r;
	uint64_t left;   /* operations before the next move */
	int current;     /* -1: no cpu line yet */
};

void tracegen_cpus_init(struct tracegen_cpus *c, const struct tracegen_opts *o);

/* Before each operation line: a `cpu N` line where the run has ended. */
void tracegen_put_cpu(FILE *out, struct tracegen_cpus *c);

/* 0, or where a write to out has failed (ferror), that write's negative
 * errno: checked after every line, so a trace stops at its first failure. */
int tracegen_write_error(FILE *out);

/*
 * An LPM trie's trace (tracegen_lpm.c), for the key sizes the kernel takes
 * (5 to 260): the head, opts->ops lines and the final dump.  0, -ENOMEM
 * out of memory, or a failed write's negative errno (tracegen_write_error);
 * the trace then ends early, without its dump.
 */
int tracegen_lpm_write(FILE *out, const struct tracegen_opts *o, struct rng *r,
		       unsigned key_space);

#endif /* MAPLAB_TRACEGEN_INTERNAL_H */
