/* SPDX-License-Identifier: MIT */
/*
 * trace.h: maplab trace format v1 (docs/traces.md).
 *
 *   map <hash|lru_hash|lpm_trie> key_size=N value_size=N max_entries=N [flags=F|F...]
 *   update <key> <value> [any|noexist|exist]
 *   lookup <key>      syscall-style: copies the value, never marks a reference
 *   plookup <key>     program-style: marks the reference (LRU)
 *   delete <key>
 *   next <key>|-      get_next_key; - asks for the first key
 *   dump              every entry, sorted by key bytes
 *   cpu N             the lines after it run as cpu N (until the next cpu
 *                     line; before any, cpu 0)
 *
 * Keys and values are hex strings of exactly key_size / value_size bytes in
 * memory order.  '#' starts a comment; blank lines are skipped.  Sizes and
 * max_entries are decimal (harness/common/parse.h); flags are the names of
 * maps/base/map.h's table or numbers (0x... allowed), so a trace can ask
 * for a flag the kernel rejects.  A trace is text: a NUL byte is refused.
 * A line holds at most TRACE_MAX_LINE bytes (16 MiB, its newline not
 * counted): the longest valid line, an update of the largest key and value
 * the kernel takes (together under 4 MiB, KMALLOC_MAX_SIZE), is about
 * 8 MiB of hex; a longer one is refused at its line, so that input with
 * no newline (/dev/zero) is not read until memory runs out.
 * A cpu line names a CPU this process may run on (its affinity mask when
 * it started, maps/base/cpu.h): any other is refused at its line, with the
 * allowed set, so a trace never starts that cannot run to its end.  A
 * trace for another machine (a virtual machine's kernel, trace_parse_for)
 * names that machine's cpus instead: 0 to its count - 1.
 */
#ifndef MAPLAB_TRACE_H
#define MAPLAB_TRACE_H

#include "maps/base/map.h"

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
	TRACE_CPU,      /* a directive: the lines after it run as l->cpu */
};

struct trace_line {
	enum trace_op op;
	unsigned lineno;        /* 1-based line in the source */
	size_t map_index;       /* index in trace.lines of the map line in
				   force (a map line: its own) */
	struct map_attr attr;   /* TRACE_MAP: the map asked for */
	uint8_t *key;           /* NULL for `next -` */
	uint8_t *value;         /* TRACE_UPDATE */
	uint64_t flags;         /* TRACE_UPDATE: MAP_ANY / NOEXIST / EXIST */
	int cpu;                /* the cpu this line runs as (a cpu line: the
				   one it names); 0 before any cpu line */
};

struct trace {
	struct trace_line *lines;
	size_t n, cap;
};

/* The longest line, its newline not counted, and its name in messages. */
#define TRACE_MAX_LINE (16u << 20)
#define TRACE_MAX_LINE_TEXT "16 MiB"

/*
 * Parse a whole trace.  0, or -1 with a message "NAME:LINE: what is wrong"
 * in err (the caller prints it and exits 2).  Input quoted in a message is
 * made printable first.
 */
int trace_parse(FILE *in, const char *name, struct trace *out, char *err,
		size_t errlen);
int trace_parse_string(const char *text, const char *name, struct trace *out,
		       char *err, size_t errlen);

/*
 * The same, for a machine of `cpus` cpus (a virtual machine's): its cpu
 * lines may name cpus 0 to cpus - 1, whichever CPUs this process may run
 * on.  cpus 0: this process's, as trace_parse.
 */
int trace_parse_for(FILE *in, const char *name, unsigned cpus,
		    struct trace *out, char *err, size_t errlen);
int trace_parse_string_for(const char *text, const char *name, unsigned cpus,
			   struct trace *out, char *err, size_t errlen);
void trace_free(struct trace *t);

/* The map attributes in force at line i (its map line's): O(1).  A cpu
 * line before the first map line has none: this is line 0's (zeroed). */
static inline const struct map_attr *trace_attr_at(const struct trace *t,
						   size_t i)
{
	return &t->lines[t->lines[i].map_index].attr;
}

/* Line i as text (for --echo and validate's report):
 * "update 01000000 0a00... any". */
void trace_print_line(FILE *f, const struct trace *t, size_t i);

/* "EINVAL", or the number, into buf. */
void trace_format_errno(int err, char *buf, size_t len);

#endif /* MAPLAB_TRACE_H */
