/* SPDX-License-Identifier: MIT */
/*
 * trace.c: the v1 trace parser.  One pass, a line at a time; the current
 * map line gives the key and value sizes that later lines are checked
 * against, so a malformed key is reported at its own line.
 */
#include "trace.h"
#include "hex.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 8

static const struct {
	const char *name;
	uint32_t bit;
} flag_names[] = {
	{ "no_prealloc", MAP_F_NO_PREALLOC },
	{ "no_common_lru", MAP_F_NO_COMMON_LRU },
	{ "zero_seed", MAP_F_ZERO_SEED },
};
#define N_FLAG_NAMES (sizeof(flag_names) / sizeof(flag_names[0]))

static const char *const update_flag_names[] = { "any", "noexist", "exist" };

struct parser {
	const char *name;
	unsigned lineno;
	bool have_map;
	struct map_attr attr;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...)
{
	int off = snprintf(p->err, p->errlen, "%s:%u: ", p->name, p->lineno);
	if (off < 0 || (size_t)off >= p->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + off, p->errlen - (size_t)off, fmt, ap);
	va_end(ap);
	return -1;
}

static int split(char *s, char **tok)
{
	int n = 0;
	char *save;
	for (char *t = strtok_r(s, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == MAX_TOKENS)
			return MAX_TOKENS + 1;
		tok[n++] = t;
	}
	return n;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '\0')
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_flags(struct parser *p, char *s, uint32_t *out)
{
	*out = 0;
	char *save;
	for (char *f = strtok_r(s, "|", &save); f; f = strtok_r(NULL, "|", &save)) {
		uint32_t bits;
		size_t i;
		for (i = 0; i < N_FLAG_NAMES; i++)
			if (strcmp(f, flag_names[i].name) == 0)
				break;
		if (i < N_FLAG_NAMES)
			bits = flag_names[i].bit;
		else if (parse_u32(f, &bits))
			return fail(p, "unknown map flag '%s' (no_prealloc, "
				       "no_common_lru, zero_seed or a number)", f);
		*out |= bits;
	}
	return 0;
}

static int parse_map(struct parser *p, char **tok, int n, struct trace_line *l)
{
	if (n < 5)
		return fail(p, "map needs a type, key_size=, value_size= and "
			       "max_entries=");
	l->attr.type = map_type_from_name(tok[1]);
	if (!l->attr.type)
		return fail(p, "unknown map type '%s' (hash, lru_hash, lpm_trie)",
			    tok[1]);
	bool seen[4] = { false };
	for (int i = 2; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq)
			return fail(p, "expected name=value, got '%s'", tok[i]);
		*eq = '\0';
		const char *key = tok[i], *val = eq + 1;
		static const char *const names[] = { "key_size", "value_size",
						     "max_entries", "flags" };
		uint32_t *dst[] = { &l->attr.key_size, &l->attr.value_size,
				    &l->attr.max_entries, &l->attr.flags };
		int k;
		for (k = 0; k < 4; k++)
			if (strcmp(key, names[k]) == 0)
				break;
		if (k == 4)
			return fail(p, "unknown map attribute '%s'", key);
		if (seen[k])
			return fail(p, "%s given twice", key);
		seen[k] = true;
		if (k == 3) {
			if (parse_flags(p, eq + 1, dst[k]))
				return -1;
		} else if (parse_u32(val, dst[k])) {
			return fail(p, "%s must be a number from 0 to %u, got '%s'",
				    key, UINT32_MAX, val);
		}
	}
	if (!seen[0] || !seen[1] || !seen[2])
		return fail(p, "map needs key_size=, value_size= and max_entries=");
	return 0;
}

static int parse_bytes(struct parser *p, const char *what, const char *hex,
		       uint32_t size, uint8_t **out)
{
	if (size == 0)
		return fail(p, "the map line above has %s_size=0, which every "
			       "map refuses: no operation can follow it", what);
	*out = malloc(size);
	if (!*out)
		return fail(p, "out of memory");
	if (hex_decode(hex, *out, size))
		return fail(p, "%s '%.40s%s' is not %u bytes of hex (%u digits)",
			    what, hex, strlen(hex) > 40 ? "..." : "", size,
			    2 * size);
	return 0;
}

static int parse_op(struct parser *p, char **tok, int n, struct trace_line *l)
{
	static const struct {
		const char *word;
		enum trace_op op;
		int min, max; /* token counts */
	} ops[] = {
		{ "update", TRACE_UPDATE, 3, 4 }, { "lookup", TRACE_LOOKUP, 2, 2 },
		{ "plookup", TRACE_PLOOKUP, 2, 2 }, { "delete", TRACE_DELETE, 2, 2 },
		{ "next", TRACE_NEXT, 2, 2 },     { "dump", TRACE_DUMP, 1, 1 },
	};
	size_t i;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(tok[0], ops[i].word) == 0)
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return fail(p, "unknown operation '%s' (map, update, lookup, "
			       "plookup, delete, next, dump)", tok[0]);
	if (n < ops[i].min || n > ops[i].max)
		return fail(p, "'%s' takes %d to %d words, got %d", tok[0],
			    ops[i].min, ops[i].max, n);
	if (!p->have_map)
		return fail(p, "'%s' before any map line", tok[0]);
	l->op = ops[i].op;

	if (l->op == TRACE_DUMP)
		return 0;
	if (l->op == TRACE_NEXT && strcmp(tok[1], "-") == 0)
		return 0;
	if (parse_bytes(p, "key", tok[1], p->attr.key_size, &l->key))
		return -1;
	if (l->op != TRACE_UPDATE)
		return 0;
	if (parse_bytes(p, "value", tok[2], p->attr.value_size, &l->value))
		return -1;
	l->flags = MAP_ANY;
	if (n == 4) {
		uint64_t f;
		for (f = 0; f < 3; f++)
			if (strcmp(tok[3], update_flag_names[f]) == 0)
				break;
		if (f == 3)
			return fail(p, "update flag '%s' is not any, noexist or "
				       "exist", tok[3]);
		l->flags = f;
	}
	return 0;
}

static struct trace_line *append(struct trace *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct trace_line *lines = realloc(t->lines, cap * sizeof(*lines));
		if (!lines)
			return NULL;
		t->lines = lines;
		t->cap = cap;
	}
	struct trace_line *l = &t->lines[t->n++];
	memset(l, 0, sizeof(*l));
	return l;
}

static int parse_line(struct parser *p, char *text, struct trace *t)
{
	char *hash = strchr(text, '#');
	if (hash)
		*hash = '\0';
	char *tok[MAX_TOKENS];
	int n = split(text, tok);
	if (n == 0)
		return 0;
	if (n > MAX_TOKENS)
		return fail(p, "too many words");
	struct trace_line *l = append(t);
	if (!l)
		return fail(p, "out of memory");
	l->lineno = p->lineno;
	if (strcmp(tok[0], "map") == 0) {
		l->op = TRACE_MAP;
		if (parse_map(p, tok, n, l))
			return -1;
		p->attr = l->attr;
		p->have_map = true;
		return 0;
	}
	return parse_op(p, tok, n, l);
}

int trace_parse(FILE *in, const char *name, struct trace *out, char *err,
		size_t errlen)
{
	struct parser p = { .name = name, .err = err, .errlen = errlen };
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (getline(&buf, &cap, in) >= 0) {
		p.lineno++;
		if (parse_line(&p, buf, out)) {
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(in)) {
		snprintf(err, errlen, "%s: read error: %s", name, strerror(errno));
		rc = -1;
	}
	free(buf);
	if (rc)
		trace_free(out);
	return rc;
}

int trace_parse_string(const char *text, const char *name, struct trace *out,
		       char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return -1;
	}
	int rc = trace_parse(f, name, out, err, errlen);
	fclose(f);
	return rc;
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->lines[i].key);
		free(t->lines[i].value);
	}
	free(t->lines);
	memset(t, 0, sizeof(*t));
}

void trace_format_flags(uint32_t flags, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < N_FLAG_NAMES; i++) {
		if (!(flags & flag_names[i].bit))
			continue;
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0,
					"%s%s", off ? "|" : "", flag_names[i].name);
		flags &= ~flag_names[i].bit;
	}
	if (flags || off == 0)
		snprintf(buf + off, off < len ? len - off : 0, "%s%#" PRIx32,
			 off ? "|" : "", flags);
}

void trace_format_errno(int err, char *buf, size_t len)
{
	const char *name = map_errno_name(err);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%d", err);
}

static const char *const op_words[] = {
	[TRACE_MAP] = "map",         [TRACE_UPDATE] = "update",
	[TRACE_LOOKUP] = "lookup",   [TRACE_PLOOKUP] = "plookup",
	[TRACE_DELETE] = "delete",   [TRACE_NEXT] = "next",
	[TRACE_DUMP] = "dump",
};

void trace_print_line(FILE *f, const struct trace_line *l,
		      const struct map_attr *attr)
{
	if (l->op == TRACE_MAP) {
		char flags[96];
		trace_format_flags(l->attr.flags, flags, sizeof(flags));
		fprintf(f, "map %s key_size=%u value_size=%u max_entries=%u",
			map_type_name(l->attr.type), l->attr.key_size,
			l->attr.value_size, l->attr.max_entries);
		if (l->attr.flags)
			fprintf(f, " flags=%s", flags);
		return;
	}
	fputs(op_words[l->op], f);
	if (l->op == TRACE_NEXT && !l->key)
		fputs(" -", f);
	if (l->key) {
		putc(' ', f);
		hex_print(f, l->key, attr->key_size);
	}
	if (l->op == TRACE_UPDATE) {
		putc(' ', f);
		hex_print(f, l->value, attr->value_size);
		fprintf(f, " %s", update_flag_names[l->flags]);
	}
}
