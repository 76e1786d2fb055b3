/* SPDX-License-Identifier: MIT */
/*
 * trace.h: maplab trace format v1 (DESIGN.md, "Traces").
 *
 *   map <hash|lru_hash|lpm_trie> key_size=N value_size=N max_entries=N [flags=F|F...]
 *   update <key> <value> [any|noexist|exist]
 *   lookup <key>      syscall-style: copies the value, never marks a reference
 *   plookup <key>     program-style: marks the reference (LRU)
 *   delete <key>
 *   next <key>|-      get_next_key; - asks for the first key
 *   dump              every entry, sorted by key bytes
 *
 * Keys and values are hex strings of exactly key_size / value_size bytes in
 * memory order.  '#' starts a comment; blank lines are skipped.  Flag names
 * are no_prealloc, no_common_lru, zero_seed; a number (decimal or 0x...) is
 * taken as raw flag bits, so a trace can ask for a flag the kernel rejects.
 */
#ifndef MAPLAB_TRACE_H
#define MAPLAB_TRACE_H

#include "maps/common/map.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum trace_op {
	TRACE_MAP,
	TRACE_UPDATE,
	TRACE_LOOKUP,
	TRACE_PLOOKUP,
	TRACE_DELETE,
	TRACE_NEXT,
	TRACE_DUMP,
};

struct trace_line {
	enum trace_op op;
	unsigned lineno;        /* 1-based line in the source */
	struct map_attr attr;   /* TRACE_MAP: the map asked for */
	uint8_t *key;           /* NULL for `next -` */
	uint8_t *value;         /* TRACE_UPDATE */
	uint64_t flags;         /* TRACE_UPDATE: MAP_ANY / NOEXIST / EXIST */
};

struct trace {
	struct trace_line *lines;
	size_t n, cap;
};

/*
 * Parse a whole trace.  0, or -1 with a message "NAME:LINE: what is wrong"
 * in err (the caller prints it and exits 2).
 */
int trace_parse(FILE *in, const char *name, struct trace *out, char *err,
		size_t errlen);
int trace_parse_string(const char *text, const char *name, struct trace *out,
		       char *err, size_t errlen);
void trace_free(struct trace *t);

/* The line as text (for validate's report): "update 01000000 0a00... any". */
void trace_print_line(FILE *f, const struct trace_line *l,
		      const struct map_attr *attr);

/* "no_prealloc|zero_seed", or "0", into buf. */
void trace_format_flags(uint32_t flags, char *buf, size_t len);

/* "EINVAL", or the number, into buf. */
void trace_format_errno(int err, char *buf, size_t len);

#endif /* MAPLAB_TRACE_H */
