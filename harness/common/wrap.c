/* SPDX-License-Identifier: MIT */
/*
 * wrap.c: lines broken at blanks to fit a terminal (wrap.h).
 */
#include "harness/common/wrap.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t wrap_width_n(const char *s, size_t n)
{
	size_t width = 0;
	for (size_t i = 0; i < n && s[i]; i++)
		width += ((unsigned char)s[i] & 0xc0) != 0x80;
	return width;
}

size_t wrap_width(const char *s)
{
	return wrap_width_n(s, strlen(s));
}

size_t wrap_take(const char *s, size_t room)
{
	size_t n = strlen(s), cut = 0, list_cut = 0, col = 0;
	if (wrap_width(s) <= room)
		return n;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' && i > 0 && s[i - 1] != ' ') {
			if (col > room)
				break;
			cut = i;
			if (s[i - 1] == ',')
				list_cut = i;
		}
		col += ((unsigned char)s[i] & 0xc0) != 0x80;
	}
	if (list_cut)
		return list_cut;
	if (cut == 0) { /* one word wider than the room: whole */
		while (cut < n && s[cut] == ' ')
			cut++;
		while (cut < n && s[cut] != ' ')
			cut++;
	}
	return cut;
}

/* One line (no '\n'), n bytes: broken at blanks, continuation lines
 * indented two more than the line. */
static void wrap_line(FILE *f, const char *line, size_t n)
{
	size_t indent = 0;
	while (indent < n && line[indent] == ' ')
		indent++;
	size_t hang = indent + 2, at = 0, col = 0;
	bool first = true;
	if (wrap_width_n(line, n) <= WRAP_COLUMNS) {
		fprintf(f, "%.*s\n", (int)n, line);
		return;
	}
	fprintf(f, "%*s", (int)indent, "");
	col = indent;
	at = indent;
	while (at < n) {
		size_t end = at;
		while (end < n && line[end] != ' ')
			end++;
		size_t word = wrap_width_n(line + at, end - at);
		if (!first && col + 1 + word > WRAP_COLUMNS) {
			fprintf(f, "\n%*s", (int)hang, "");
			col = hang;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)(end - at), line + at);
		col += word;
		first = false;
		at = end;
		while (at < n && line[at] == ' ')
			at++;
	}
	fputc('\n', f);
}

void wrap_write(FILE *f, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		wrap_line(f, text, n);
		text += n + (nl != NULL);
	}
}

static void *must(void *p)
{
	if (!p) {
		fputs("maplab: out of memory writing the report\n", stderr);
		abort();
	}
	return p;
}

void wrap_printf(FILE *f, const char *format, ...)
{
	struct wrap_buffer b;
	va_list ap;
	va_start(ap, format);
	vfprintf(wrap_begin(&b), format, ap);
	va_end(ap);
	wrap_end(&b, f);
}

FILE *wrap_begin(struct wrap_buffer *b)
{
	b->text = NULL;
	b->len = 0;
	b->f = must(open_memstream(&b->text, &b->len));
	return b->f;
}

void wrap_end(struct wrap_buffer *b, FILE *f)
{
	fclose(b->f);
	wrap_write(f, b->text);
	free(b->text);
	b->f = NULL;
	b->text = NULL;
}
