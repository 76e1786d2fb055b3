/* SPDX-License-Identifier: MIT */
/*
 * simtrace.h: cache traces for `maplab sim`: a stream of object ids (and,
 * where the format has them, object sizes), from a file or from a
 * generator.  A file is read in chunks through a sim_trace_reader, so
 * memory need not grow with the trace; sim_trace_read is that reader
 * gathering the whole trace before any timing.
 *
 * Files (the format from --trace-format, or guessed from the name):
 *   txt            one key a line: decimal, or hex with 0x; blank lines and
 *                  lines starting with '#' are skipped
 *   csv            one request a line; the key is column N (1-based) or the
 *                  column named NAME in a header line, the object size
 *                  likewise where one is named (struct sim_csv_params)
 *   oracleGeneral  libCacheSim's binary format: 24-byte little-endian
 *                  records {u32 timestamp, u64 id, u32 size, i64 next},
 *                  next being the request index of the id's next request
 *                  (-1: none)
 * A name ending in .zst is read through libzstd (when built with it).
 * A txt or csv line holds at most SIM_TRACE_MAX_LINE bytes (1 MiB, its
 * newline not counted): a longer one is refused at its line, so that a
 * file with no newline (/dev/zero) is not read until memory runs out.
 * Keys in txt and csv are numbers (decimal, or hex with 0x) or strings:
 * strings are hashed to 8-byte ids (simkeys.h), and the collisions
 * counted.  Unless told, the first data line decides which.
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
#include <sys/types.h>

enum sim_trace_format {
	SIM_TRACE_AUTO, SIM_TRACE_TXT, SIM_TRACE_CSV, SIM_TRACE_ORACLE,
};

struct sim_trace {
	uint64_t *ids;    /* n object ids */
	uint32_t *sizes;  /* n object sizes, or NULL (not in the format) */
	size_t n;
	char name[128];   /* for titles: the file's base name or the spec */
	/* String keys: ids are their hashes (id_hash: its name), and
	 * id_collisions distinct strings fell on an id another one held. */
	bool string_keys;
	uint64_t id_collisions;
	const char *id_hash;
	char note[512];   /* what the reader decided unasked ("" if nothing):
			     a header line skipped, string keys, a delimiter */
};

/*
 * How a csv (and, for id_is_num, a txt) trace is read: cachesim's trace
 * parameters (sim_csv_params_parse reads its -t form), or maplab's
 * options.  Columns are 1-based, as cachesim's.
 */
struct sim_csv_params {
	unsigned id_col;        /* the key's column; 0: 1, or id_name's */
	const char *id_name;    /* the key's column by its header name */
	unsigned size_col;      /* the object size's column; 0: none */
	const char *size_name;  /* ... by its header name */
	char delimiter;         /* 0: ',' (tab or '|' where line 1 has no comma) */
	int has_header;         /* -1: line 1 is one where it looks like one */
	int id_is_num;          /* -1: as the first data line's key is */
	bool time_col;          /* cachesim's time-col was given: sim has no
				   clock, so it is read past */
};

/* Nothing given: key in column 1, the rest detected. */
void sim_csv_params_init(struct sim_csv_params *p);

/*
 * cachesim's -t / --trace-type-params text (its parse_reader_params in
 * libCacheSim/bin/cli_reader_utils.c): key=value pairs separated by
 * commas (and, as its --help writes them, semicolons); keys without case,
 * '_' as '-': obj-id-col (obj-id-field), obj-size-col (obj-size-field,
 * size-col, size-field), time-col (time-field), delimiter, has-header
 * (header), obj-id-is-num.  Booleans true/false, 1/0, yes/no, y/n.  A
 * delimiter is one character; "delimiter=," and "delimiter=\," are a
 * comma, "delimiter=\t" a tab.  0, or -EINVAL with one line in err that
 * names the bad key or value (and the keys allowed).
 */
int sim_csv_params_parse(const char *text, struct sim_csv_params *p,
			 char *err, size_t errlen);

/* A boolean as cachesim spells it: 0 (into *out), or -1. */
int sim_csv_parse_bool(const char *text, bool *out);

/* A delimiter as maplab's --csv-delimiter takes it: one character, "\t"
 * or "tab".  0, or -1. */
int sim_csv_parse_delimiter(const char *text, char *out);

/* "txt", "csv", "oracleGeneral" -> format; -1 for another name. */
int sim_trace_parse_format(const char *name, enum sim_trace_format *out);
const char *sim_trace_format_name(enum sim_trace_format f);

/* The format a file name says (AUTO when it says none: read as txt). */
enum sim_trace_format sim_trace_guess_format(const char *path);

/* Whether a spec names a generator rather than a file. */
bool sim_trace_is_generator(const char *spec);

/* The longest txt or csv line, its newline not counted, and its name in
 * messages and docs. */
#define SIM_TRACE_MAX_LINE (1u << 20)
#define SIM_TRACE_MAX_LINE_TEXT "1 MiB"

/*
 * A file read in chunks: memory holds one buffer of the file (and, for
 * string keys, each distinct string once), however long the trace.
 *
 * sim_trace_open: format AUTO guesses from the name; p (NULL: all
 * detected) says how a csv is read.  0, or a negative errno with one line
 * in err: -ENOENT and such from opening, -EINVAL for content the first
 * lines already show is bad (a csv column name not in the header line),
 * -EOPNOTSUPP for a .zst file in a build without libzstd.
 *
 * sim_trace_next: up to max requests into ids (and sizes, where not NULL:
 * the objects' sizes, 1 where the format has none).  The count, 0 at the
 * end, or a negative errno with one line in err that names the file and
 * the line or record: -EINVAL for bad content (a key that is not a number
 * in a trace of numbers, a truncated record), -ENOMEM.  After an error the
 * reader only closes.
 *
 * sim_trace_reader_has_sizes: whether the format (or csv's size column)
 * gives object sizes.  sim_trace_reader_keys: the trace's key facts so
 * far (string_keys, id_collisions, id_hash, note; ids etc. left empty).
 *
 * sim_trace_reader_once: NULL where the file is a regular file, which
 * sim_trace_rewind may read again; else what it is ("a pipe or FIFO", "a
 * device", "a socket"), whose bytes come only once.
 *
 * sim_trace_rewind: back to the first request, for another pass over a
 * regular file (the same stream, sought to 0: no second open).  What the
 * first lines decided (csv's delimiter, columns and header; whether keys
 * are numbers) holds, and string keys keep their table: a pass counts no
 * collision an earlier pass counted.  0; -ESPIPE for a file read once,
 * with one line in err; or the errno of the seek.
 */
struct sim_trace_reader;
int sim_trace_open(const char *path, enum sim_trace_format format,
		   const struct sim_csv_params *p, struct sim_trace_reader **r,
		   char *err, size_t errlen);
ssize_t sim_trace_next(struct sim_trace_reader *r, uint64_t *ids,
		       uint32_t *sizes, size_t max, char *err, size_t errlen);
bool sim_trace_reader_has_sizes(const struct sim_trace_reader *r);
const char *sim_trace_reader_once(const struct sim_trace_reader *r);
int sim_trace_rewind(struct sim_trace_reader *r, char *err, size_t errlen);
void sim_trace_reader_keys(const struct sim_trace_reader *r,
			   struct sim_trace *facts);
void sim_trace_close(struct sim_trace_reader *r);

/*
 * r's requests into t, whose arrays are empty (t zeroed but for its
 * name), until r ends (*whole true) or t holds max + 1 of them (*whole
 * false: the trace is longer than max; r is left past them).  0, or a
 * negative errno with one line in err (sim_trace_next's, -ENOMEM); t's
 * arrays are the caller's to free either way (sim_trace_free).
 */
int sim_trace_gather(struct sim_trace_reader *r, struct sim_trace *t,
		     size_t max, bool *whole, char *err, size_t errlen);

/*
 * Read the whole file at path through a sim_trace_reader (arguments as
 * sim_trace_open's).  0, or a negative errno with one line in err, as
 * sim_trace_open and sim_trace_next say, and -EINVAL for a trace with no
 * request at all.
 */
int sim_trace_read(const char *path, enum sim_trace_format format,
		   const struct sim_csv_params *p, struct sim_trace *t,
		   char *err, size_t errlen);

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
 * index, sizes 1 when t has none).  0, or -errno: the failed write's
 * (stream_error, harness/common/outfile.h), -ENOMEM, -EINVAL. */
int sim_trace_write(FILE *f, const struct sim_trace *t,
		    enum sim_trace_format format);

void sim_trace_free(struct sim_trace *t);

/* Whether the build reads .zst files. */
bool sim_trace_have_zstd(void);

#endif /* MAPLAB_SIMTRACE_H */
