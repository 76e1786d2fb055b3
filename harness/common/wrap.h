/* SPDX-License-Identifier: MIT */
/*
 * wrap.h: text for a terminal, no line wider than WRAP_COLUMNS.
 *
 * The tables of bench, kbench, compare, sim and explain lay themselves out
 * within WRAP_COLUMNS; the sentences under them (notes on flagged points,
 * where the bytes came from, the host, the probe) go through wrap_write,
 * which breaks each line at its blanks.  A line broken keeps its own
 * indentation and its continuation lines are indented two more, so a note
 * indented under its heading stays visibly one note.  Widths count
 * characters, not bytes: a UTF-8 mark ("⚠") is one column.
 */
#ifndef MAPLAB_WRAP_H
#define MAPLAB_WRAP_H

#include <stddef.h>
#include <stdio.h>

#define WRAP_COLUMNS 120

/* The columns s takes: its characters, UTF-8 continuation bytes not
 * counted (the first n bytes of s; wrap_width: all of them). */
size_t wrap_width_n(const char *s, size_t n);
size_t wrap_width(const char *s);

/* How many bytes of s the next line of `room` columns takes: up to the
 * last blank after a comma before s runs past room, so that the items of
 * a list ("lookup 90%, insert 100%") stay whole; where there is none, the
 * last blank (the first word whole, where it alone is wider); all of s
 * where it fits.  Blanks at the break are the
 * caller's to skip. */
size_t wrap_take(const char *s, size_t room);

/* text (any number of lines) to f, each line broken at blanks to fit
 * WRAP_COLUMNS.  A word wider than a line is written whole, on a line of
 * its own. */
void wrap_write(FILE *f, const char *text);
void wrap_printf(FILE *f, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

/* A text written in pieces (fprintf to b->f), then wrapped as a whole:
 * wrap_begin opens b->f, wrap_end writes what it holds to f and frees it.
 * Out of memory aborts with a message: a report half written would be a
 * wrong one. */
struct wrap_buffer {
	FILE *f;
	char *text;
	size_t len;
};
FILE *wrap_begin(struct wrap_buffer *b);
void wrap_end(struct wrap_buffer *b, FILE *f);

#endif /* MAPLAB_WRAP_H */
