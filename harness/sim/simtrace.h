/* SPDX-License-Identifier: MIT */
/*
 * simtrace.h: cache traces for `maplab sim`: a stream of object ids (and,
 * where the format has them, object sizes), read whole into memory before
 * any timing, from a file or from a generator.
 *
 * Files (the format from --trace-format, or guessed from the name):
 *   txt            one key a line: decimal, or hex with 0x; blank lines and
 *                  lines starting with '#' are skipped
 *   csv            one request a line; the key is column N (1-based) or the
 *                  column named NAME in a header line (--csv-column)
 *   oracleGeneral  libCacheSim's binary format: 24-byte little-endian
 *                  records {u32 timestamp, u64 id, u32 size, i64 next},
 *                  next being the request index of the id's next request
 *                  (-1: none)
 * A name ending in .zst is read through libzstd (when built with it).
 *
 * Generators (a spec instead of a file; docs/sim.md):
 *   zipf:alpha=A,keys=N,requests=M,seed=S
 *   loop:keys=N,requests=M
 *   scan:requests=M,start=S
 *   hotset:keys=N,hot=H,share=P,shift=R,requests=M,seed=S
 *   mix:PART+PART+...   parts above interleaved at random (seed 1), each
 *                       part in its own id space
 * and, but for mix, size=S: object sizes 1..S (fixed per id).
 */
#ifndef MAPLAB_SIMTRACE_H
#define MAPLAB_SIMTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum sim_trace_format {
	SIM_TRACE_AUTO, SIM_TRACE_TXT, SIM_TRACE_CSV, SIM_TRACE_ORACLE,
};

struct sim_trace {
	uint64_t *ids;    /* n object ids */
	uint32_t *sizes;  /* n object sizes, or NULL (not in the format) */
	size_t n;
	char name[128];   /* for titles: the file's base name or the spec */
};

/* "txt", "csv", "oracleGeneral" -> format; -1 for another name. */
int sim_trace_parse_format(const char *name, enum sim_trace_format *out);
const char *sim_trace_format_name(enum sim_trace_format f);

/* The format a file name says (AUTO when it says none: read as txt). */
enum sim_trace_format sim_trace_guess_format(const char *path);

/* Whether a spec names a generator rather than a file. */
bool sim_trace_is_generator(const char *spec);

/*
 * Read the file at path (format: AUTO guesses from the name; csv_column:
 * "N" or a header's NAME, NULL for column 1).  0, or a negative errno
 * with one line in err that names the file and the line or record:
 * -EINVAL for bad content (a non-numeric key, a truncated record, no
 * request at all), -ENOENT and such from opening, -EOPNOTSUPP for a .zst
 * file in a build without libzstd.
 */
int sim_trace_read(const char *path, enum sim_trace_format format,
		   const char *csv_column, struct sim_trace *t, char *err,
		   size_t errlen);

/* Build the trace a generator spec describes.  0, or -EINVAL / -ENOMEM
 * with one line in err. */
int sim_trace_generate(const char *spec, struct sim_trace *t, char *err,
		       size_t errlen);

/*
 * next[i] = index of the next request of ids[i], or -1: the next-use
 * positions Belady's algorithm and the oracleGeneral format need.  0 or
 * -ENOMEM.
 */
int sim_trace_next_use(const uint64_t *ids, size_t n, int64_t *next);

/* Write t in format (txt or oracleGeneral: timestamps are the request
 * index, sizes 1 when t has none).  0 or -errno. */
int sim_trace_write(FILE *f, const struct sim_trace *t,
		    enum sim_trace_format format);

void sim_trace_free(struct sim_trace *t);

/* Whether the build reads .zst files. */
bool sim_trace_have_zstd(void);

#endif /* MAPLAB_SIMTRACE_H */
