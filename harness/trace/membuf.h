/* SPDX-License-Identifier: MIT */
/*
 * membuf.h: a write stream into a growable buffer that fails loudly.  When
 * the buffer cannot grow, the stream's write fails with ENOMEM, which sets
 * its error flag (ferror), so a writer that checks sees it.  glibc's
 * open_memstream instead cuts the text short and reports no error: a
 * generated trace or a replay's results would be silently truncated.
 */
#ifndef MAPLAB_MEMBUF_H
#define MAPLAB_MEMBUF_H

#include <stddef.h>
#include <stdio.h>

struct membuf {
	char *text; /* malloc'ed, not NUL-terminated; the caller frees it */
	size_t len, cap;
};

/* A stream appending to b (zeroed first), or NULL (errno set).  Rewind by
 * setting b->len to 0 after an fflush. */
FILE *membuf_open(struct membuf *b);

#endif /* MAPLAB_MEMBUF_H */
