/* SPDX-License-Identifier: MIT */
/*
 * outfile.h: a file maplab writes, that is either whole or not there.
 *
 * A lab must never report a result it did not keep.  stdio hides write
 * errors: a failed write sets the stream's error flag, and once a flush
 * has failed, fclose may return 0 with the data gone.  An outfile checks
 * every flush, keeps the first errno it saw (ENOSPC stays "No space left
 * on device", not a generic EIO), and on failure undoes what it wrote:
 *
 *   "w"  the file is removed (it did not exist whole before either: its
 *        old contents were truncated at open);
 *   "a"  the file is cut back to the size it had at open, so an earlier
 *        run's records survive a failed append.
 *
 * Only a regular file is undone: a character device (/dev/full,
 * /dev/stdout), a FIFO or a terminal is written and left as it is.
 * stdout itself can be an outfile (out_stdout), so a command writes one
 * way whatever --out says.
 *
 * Why not fopen: stdio keeps only a flag for a failed write, and after a
 * flush whose failure was not looked at, the errno is gone and fclose may
 * answer 0.  f is stdio's over our own write(2), which keeps the errno in
 * the outfile before stdio hears of the failure.
 *
 * Usage:
 *   struct outfile o;
 *   if ((rc = out_open(&o, path, OUT_TRUNCATE)))   -> one line, exit 2
 *   ... fprintf(o.f, ...); out_flush(&o) where a reader may look ...
 *   if ((rc = out_close(&o)))                      -> one line naming
 *                                                     o's path, exit 2
 * out_error() formats that line's cause: "PATH: strerror".
 *
 * Not thread-safe: one writer per outfile, as stdio's FILE.  An open
 * outfile must stay where it is (f's writes reach it by its address):
 * never copy one.
 */
#ifndef MAPLAB_OUTFILE_H
#define MAPLAB_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

enum out_mode {
	OUT_TRUNCATE,	/* "w": a new file; removed on failure */
	OUT_APPEND,	/* "a": records added; cut back on failure */
};

struct outfile {
	FILE *f;		/* write here */
	int fd;			/* under f: its writes keep their errno */
	char path[4096];	/* as the caller named it; kept after close,
				 * for the error message */
	enum out_mode mode;
	bool undo;		/* a regular file this outfile may undo */
	bool is_stdout;		/* never closed, never undone */
	off_t start;		/* OUT_APPEND: the size at open */
	int err;		/* the first errno seen, 0 while all is well */
};

/* Opens path for writing.  0, or -errno (nothing open, nothing made). */
int out_open(struct outfile *o, const char *path, enum out_mode mode);

/* stdout as an outfile, named "standard output" in messages. */
void out_stdout(struct outfile *o);

/* Pushes what is buffered to the file: a reader (tail -f, a progress
 * check) sees it now, and a full disk is found here, not at the end.
 * 0, or the first -errno this outfile has seen (sticky). */
int out_flush(struct outfile *o);

/* Flushes and closes.  0: the file is whole.  Otherwise -errno of the
 * first failure, and the file is undone (see above).  o is finished
 * either way. */
int out_close(struct outfile *o);

/* Closes and undoes, whatever was written: a run that failed elsewhere,
 * or was interrupted, leaves no file that looks finished. */
void out_discard(struct outfile *o);

/* "PATH: strerror(-rc)" into buf, for the caller's one-line error. */
const char *out_error(const struct outfile *o, int rc, char *buf, size_t len);

/* The errno a stream's failed write left, for code handed a FILE * alone
 * (a writer that prints into the caller's stream): fflush's errno, else
 * EIO where the flag was set by a flush whose errno is gone.  0: no
 * error.  Call it where the writing ends, before anything else touches
 * errno. */
int stream_error(FILE *f);

#endif /* MAPLAB_OUTFILE_H */
