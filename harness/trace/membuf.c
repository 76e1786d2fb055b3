/* SPDX-License-Identifier: MIT */
/* membuf.c: see membuf.h. */
#include "harness/trace/membuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static ssize_t membuf_write(void *cookie, const char *buf, size_t size)
{
	struct membuf *b = cookie;
	if (size > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap - b->len < size && cap <= SIZE_MAX / 2)
			cap *= 2;
		char *grown = cap - b->len >= size ? realloc(b->text, cap) : NULL;
		if (!grown) {
			errno = ENOMEM;
			return -1;
		}
		b->text = grown;
		b->cap = cap;
	}
	memcpy(b->text + b->len, buf, size);
	b->len += size;
	return (ssize_t)size;
}

FILE *membuf_open(struct membuf *b)
{
	cookie_io_functions_t io = { .write = membuf_write };
	memset(b, 0, sizeof(*b));
	return fopencookie(b, "w", io);
}
