/* SPDX-License-Identifier: MIT */
#include "harness/common/parse.h"
#include "maps/base/map.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int parse_hex_digit(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digits in base 10 or 16, no overflow past UINT64_MAX. */
static int parse_digits(const char *s, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		int d = base == 16 ? parse_hex_digit(*s) : is_digit(*s) ? *s - '0' : -1;
		if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / base)
			return -1;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	if (!text || parse_digits(text, 10, &v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_bits(const char *text, uint64_t max, uint64_t *out)
{
	uint64_t v;
	if (!text)
		return -1;
	bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
	if (parse_digits(hex ? text + 2 : text, hex ? 16 : 10, &v) || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_decimal(const char *text, double min, double max, double *out)
{
	const char *s = text;
	unsigned digits = 0, dots = 0;
	double v = 0, scale = 1;

	if (!text)
		return -1;
	for (; *s; s++) {
		if (*s == '.' && dots++ == 0)
			continue;
		if (!is_digit(*s))
			return -1;
		digits++;
		if (dots) {
			scale /= 10;
			v += (*s - '0') * scale;
		} else {
			v = v * 10 + (*s - '0');
		}
	}
	if (digits == 0 || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_split(const char *text, const char *seps,
		int (*item)(const char *word, void *ctx), void *ctx)
{
	char word[256];
	const char *p = text;
	for (;;) {
		size_t len = strcspn(p, seps);
		if (len == 0 || len >= sizeof(word))
			return -1;
		memcpy(word, p, len);
		word[len] = '\0';
		int rc = item(word, ctx);
		if (rc || !p[len])
			return rc;
		p += len + 1;
	}
}

int parse_list(const char *text, int (*item)(const char *word, void *ctx),
	       void *ctx)
{
	return parse_split(text, ",", item, ctx);
}

struct u64_list {
	uint64_t min, max, *out;
	unsigned max_n, *n;
};

static int add_u64(const char *word, void *ctx)
{
	struct u64_list *l = ctx;
	if (*l->n == l->max_n || parse_u64(word, l->min, l->max, &l->out[*l->n]))
		return -1;
	(*l->n)++;
	return 0;
}

int parse_u64_list(const char *text, uint64_t min, uint64_t max,
		   uint64_t *out, unsigned max_n, unsigned *n)
{
	struct u64_list l = { min, max, out, max_n, n };
	*n = 0;
	return parse_list(text, add_u64, &l);
}

const char *parse_printable(const char *text, char *buf, size_t len)
{
	size_t off = 0;
	if (len == 0)
		return buf;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		char piece[5];
		if (*p >= 0x20 && *p < 0x7f)
			piece[0] = (char)*p, piece[1] = '\0';
		else
			snprintf(piece, sizeof(piece), "\\x%02x", *p);
		size_t n = strlen(piece);
		if (off + n + 4 > len) { /* room for "..." and the NUL */
			snprintf(buf + off, len - off, "...");
			return buf;
		}
		memcpy(buf + off, piece, n);
		off += n;
	}
	buf[off] = '\0';
	return buf;
}

static int parse_one_flag(const char *word, uint32_t *bits)
{
	uint64_t v;
	for (unsigned i = 0; i < map_flag_name_count; i++)
		if (strcmp(word, map_flag_names[i].name) == 0) {
			*bits = map_flag_names[i].bit;
			return 0;
		}
	if (parse_bits(word, UINT32_MAX, &v))
		return -1;
	*bits = (uint32_t)v;
	return 0;
}

struct flag_words {
	uint32_t flags;
	char *bad;
	size_t badlen;
};

static int add_flag_word(const char *word, void *ctx)
{
	struct flag_words *f = ctx;
	uint32_t bits;
	if (parse_one_flag(word, &bits)) {
		parse_printable(word, f->bad, f->badlen);
		return -1;
	}
	f->flags |= bits;
	return 0;
}

int parse_map_flags(const char *text, uint32_t *out, char *bad, size_t badlen)
{
	struct flag_words f = { 0, bad, badlen };
	if (badlen)
		bad[0] = '\0';
	if (parse_split(text, "|,", add_flag_word, &f)) {
		if (badlen && !bad[0]) /* an empty word: show the whole text */
			parse_printable(text, bad, badlen);
		return -1;
	}
	*out = f.flags;
	return 0;
}

const char *format_map_flags(uint32_t flags, char *buf, size_t len)
{
	size_t off = 0;
	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < map_flag_name_count && off < len; i++) {
		if (!(flags & map_flag_names[i].bit))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					off ? "|" : "", map_flag_names[i].name);
		flags &= ~map_flag_names[i].bit;
	}
	if ((flags || off == 0) && off < len)
		snprintf(buf + off, len - off, flags ? "%s%#x" : "%s%u",
			 off ? "|" : "", flags);
	return buf;
}

const char *map_flag_name_list(void)
{
	static char list[256];
	size_t off = 0;
	for (unsigned i = 0; i < map_flag_name_count && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					i ? ", " : "", map_flag_names[i].name);
	return list;
}
