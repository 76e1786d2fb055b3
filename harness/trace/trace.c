/* SPDX-License-Identifier: MIT */
/*
 * trace.c: the v1 trace parser.  One pass, a line at a time (each line
 * at most TRACE_MAX_LINE bytes: trace.h); the current
 * map line gives the key and value sizes that later lines are checked
 * against, so a malformed key is reported at its own line.  Numbers and
 * flags are read by harness/common/parse.h, as on the command line, and
 * every piece of input quoted in a message is made printable first (a
 * trace may hold escape sequences meant for a terminal).
 */
#include "harness/trace/trace.h"
#include "harness/trace/hex.h"
#include "maps/base/cpu.h"
#include "harness/common/grow.h"
#include "harness/common/parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 8
#define SHOWN_LEN 48 /* input quoted in a message, escaped and cut */

static const char *const update_flag_names[] = { "any", "noexist", "exist" };

struct parser {
	const char *name;
	unsigned lineno;
	bool have_map;
	size_t map_index;     /* the map line in force */
	struct map_attr attr; /* its attributes */
	int cpu;              /* the cpu in force (the last cpu line's) */
	unsigned cpus;        /* the machine's cpus; 0: this process's */
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

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

/* key_size=, value_size=, max_entries=: decimal, as the kernel's u32. */
static int parse_size(struct parser *p, const char *key, const char *val,
		      uint32_t *out)
{
	uint64_t v;
	char shown[SHOWN_LEN];
	if (parse_u64(val, 0, UINT32_MAX, &v))
		return fail(p, "%s must be a decimal number from 0 to %u, got '%s'",
			    key, UINT32_MAX,
			    parse_printable(val, shown, sizeof(shown)));
	*out = (uint32_t)v;
	return 0;
}

static int parse_flags(struct parser *p, const char *val, uint32_t *out)
{
	char bad[SHOWN_LEN];
	if (parse_map_flags(val, out, bad, sizeof(bad)))
		return fail(p, "unknown map flag '%s' (%s, or a number; 0x... "
			       "allowed)", bad, map_flag_name_list());
	return 0;
}

static int parse_map(struct parser *p, char **tok, int n, struct trace_line *l)
{
	static const char *const names[] = { "key_size", "value_size",
					     "max_entries", "flags" };
	uint32_t *dst[] = { &l->attr.key_size, &l->attr.value_size,
			    &l->attr.max_entries, &l->attr.flags };
	bool seen[4] = { false };
	char shown[SHOWN_LEN];

	if (n < 5)
		return fail(p, "map needs a type, key_size=, value_size= and "
			       "max_entries=");
	l->attr.type = map_type_from_name(tok[1]);
	if (!l->attr.type)
		return fail(p, "unknown map type '%s' (hash, lru_hash, lpm_trie)",
			    parse_printable(tok[1], shown, sizeof(shown)));
	for (int i = 2; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq)
			return fail(p, "expected name=value, got '%s'",
				    parse_printable(tok[i], shown, sizeof(shown)));
		*eq = '\0';
		int k;
		for (k = 0; k < 4; k++)
			if (strcmp(tok[i], names[k]) == 0)
				break;
		if (k == 4)
			return fail(p, "unknown map attribute '%s'",
				    parse_printable(tok[i], shown, sizeof(shown)));
		if (seen[k])
			return fail(p, "%s given twice", names[k]);
		seen[k] = true;
		if (k == 3 ? parse_flags(p, eq + 1, dst[k])
			   : parse_size(p, names[k], eq + 1, dst[k]))
			return -1;
	}
	if (!seen[0] || !seen[1] || !seen[2])
		return fail(p, "map needs key_size=, value_size= and max_entries=");
	return 0;
}

static int parse_bytes(struct parser *p, const char *what, const char *hex,
		       uint32_t size, uint8_t **out)
{
	char shown[SHOWN_LEN];
	if (size == 0)
		return fail(p, "the map line above has %s_size=0, which every "
			       "map refuses: no operation can follow it", what);
	/* The length first: a size the hex cannot match is not allocated.
	 * Digits are counted in 64 bits (a u32 size wants up to 2^33 - 2). */
	uint64_t digits = 2 * (uint64_t)size;
	if (strlen(hex) != digits)
		goto not_hex;
	*out = malloc(size);
	if (!*out)
		return fail(p, "out of memory");
	if (hex_decode(hex, *out, size) == 0)
		return 0;
not_hex:
	return fail(p, "%s '%s' is not %u bytes of hex (%llu digits)", what,
		    parse_printable(hex, shown, sizeof(shown)), size,
		    (unsigned long long)digits);
}

static int parse_update_flag(struct parser *p, const char *word,
			     uint64_t *out)
{
	char shown[SHOWN_LEN];
	for (uint64_t f = 0; f < 3; f++)
		if (strcmp(word, update_flag_names[f]) == 0) {
			*out = f; /* MAP_ANY, MAP_NOEXIST, MAP_EXIST */
			return 0;
		}
	return fail(p, "update flag '%s' is not any, noexist or exist",
		    parse_printable(word, shown, sizeof(shown)));
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
	char shown[SHOWN_LEN];
	size_t i;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(tok[0], ops[i].word) == 0)
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return fail(p, "unknown operation '%s' (map, update, lookup, "
			       "plookup, delete, next, dump, cpu)",
			    parse_printable(tok[0], shown, sizeof(shown)));
	if (n < ops[i].min || n > ops[i].max)
		return fail(p, "'%s' takes %d to %d words, got %d", tok[0],
			    ops[i].min, ops[i].max, n);
	if (!p->have_map)
		return fail(p, "'%s' before any map line", tok[0]);
	l->op = ops[i].op;
	l->map_index = p->map_index;

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
	return n == 4 ? parse_update_flag(p, tok[3], &l->flags) : 0;
}

/* cpu N: decimal, and a CPU this process may run on (and a slot exists
 * for), so the replay can pin itself there when it comes to this line; or,
 * for another machine, one of its cpus. */
static int parse_cpu(struct parser *p, char **tok, int n, struct trace_line *l)
{
	char shown[SHOWN_LEN], allowed[128];
	uint64_t cpu;
	if (n != 2)
		return fail(p, "'cpu' takes 2 words, got %d", n);
	if (parse_u64(tok[1], 0, INT32_MAX, &cpu))
		return fail(p, "cpu wants a decimal cpu number, got '%s'",
			    parse_printable(tok[1], shown, sizeof(shown)));
	if (p->cpus && cpu >= p->cpus)
		return fail(p, "cpu %llu is past the machine's %u cpus (0 to %u)",
			    (unsigned long long)cpu, p->cpus, p->cpus - 1);
	map_cpu_allowed_text(allowed, sizeof(allowed));
	if (!p->cpus && !map_cpu_is_allowed((int)cpu))
		return fail(p, "cpu %llu is not one this process may run on "
			       "(allowed: %s)", (unsigned long long)cpu, allowed);
	if (cpu >= MAP_MAX_CPUS)
		return fail(p, "cpu %llu is past maplab's %d cpu slots",
			    (unsigned long long)cpu, MAP_MAX_CPUS);
	l->op = TRACE_CPU;
	l->map_index = p->map_index;
	l->cpu = p->cpu = (int)cpu;
	return 0;
}

static struct trace_line *append(struct trace *t)
{
	struct trace_line *lines = grow_array(t->lines, &t->cap, t->n + 1,
					      sizeof(*lines), 64);
	if (!lines)
		return NULL;
	t->lines = lines;
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
	l->cpu = p->cpu;
	if (strcmp(tok[0], "cpu") == 0)
		return parse_cpu(p, tok, n, l);
	if (strcmp(tok[0], "map") != 0)
		return parse_op(p, tok, n, l);
	l->op = TRACE_MAP;
	l->map_index = t->n - 1;
	if (parse_map(p, tok, n, l))
		return -1;
	p->attr = l->attr;
	p->map_index = l->map_index;
	p->have_map = true;
	return 0;
}

/*
 * The next line of in into *buf (grown by doubling, to TRACE_MAX_LINE + 2
 * bytes at most: the line, its newline and a NUL): its length, newline
 * included, NUL-terminated; 0 at the end of the input; -E2BIG where the
 * line runs past TRACE_MAX_LINE bytes without a newline (read no further:
 * /dev/zero is refused at once, not read until memory runs out); -ENOMEM;
 * or the -errno of a read error.  A NUL byte is kept (the caller refuses
 * it), so the length is the bytes read, not strlen's.
 */
static ssize_t read_line(FILE *in, char **buf, size_t *cap)
{
	size_t len = 0;
	int ch;
	for (;;) {
		errno = 0;
		ch = getc_unlocked(in);
		if (ch == EOF)
			break;
		if (ch != '\n' && len == TRACE_MAX_LINE)
			return -E2BIG;
		if (len + 2 > *cap) {
			size_t want = *cap ? 2 * *cap : 256;
			if (want > (size_t)TRACE_MAX_LINE + 2)
				want = (size_t)TRACE_MAX_LINE + 2;
			char *b = realloc(*buf, want);
			if (!b)
				return -ENOMEM;
			*buf = b;
			*cap = want;
		}
		(*buf)[len++] = (char)ch;
		if (ch == '\n')
			break;
	}
	if (ch == EOF && ferror(in))
		return -(errno ? errno : EIO);
	if (len)
		(*buf)[len] = '\0';
	return (ssize_t)len;
}

int trace_parse(FILE *in, const char *name, struct trace *out, char *err,
		size_t errlen)
{
	return trace_parse_for(in, name, 0, out, err, errlen);
}

int trace_parse_for(FILE *in, const char *name, unsigned cpus,
		    struct trace *out, char *err, size_t errlen)
{
	struct parser p = { .name = name, .err = err, .errlen = errlen,
			    .cpus = cpus };
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	while (!rc) {
		len = read_line(in, &buf, &cap);
		p.lineno++;
		if (len == 0)
			break;
		if (len == -E2BIG)
			rc = fail(&p, "the line is longer than %s, the most a "
				  "trace line may hold", TRACE_MAX_LINE_TEXT);
		else if (len == -ENOMEM)
			rc = fail(&p, "out of memory");
		else if (len < 0)
			rc = fail(&p, "read error: %s",
				  map_errno_text((int)-len));
		if (len < 0)
			break;
		/* A NUL would end the line early for everything below. */
		const char *nul = memchr(buf, '\0', (size_t)len);
		if (nul)
			rc = fail(&p, "a NUL byte at column %zu: a trace is text",
				  (size_t)(nul - buf) + 1);
		else
			rc = parse_line(&p, buf, out);
	}
	free(buf);
	if (rc)
		trace_free(out);
	return rc;
}

int trace_parse_string(const char *text, const char *name, struct trace *out,
		       char *err, size_t errlen)
{
	return trace_parse_string_for(text, name, 0, out, err, errlen);
}

int trace_parse_string_for(const char *text, const char *name, unsigned cpus,
			   struct trace *out, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", name, map_errno_text(errno));
		return -1;
	}
	int rc = trace_parse_for(f, name, cpus, out, err, errlen);
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
	[TRACE_DUMP] = "dump",       [TRACE_CPU] = "cpu",
};

void trace_print_line(FILE *f, const struct trace *t, size_t i)
{
	const struct trace_line *l = &t->lines[i];
	const struct map_attr *attr = trace_attr_at(t, i);

	if (l->op == TRACE_CPU) {
		fprintf(f, "cpu %d", l->cpu);
		return;
	}
	if (l->op == TRACE_MAP) {
		char flags[160];
		fprintf(f, "map %s key_size=%u value_size=%u max_entries=%u",
			map_type_name(attr->type), attr->key_size,
			attr->value_size, attr->max_entries);
		if (attr->flags)
			fprintf(f, " flags=%s", format_map_flags(attr->flags, flags,
								 sizeof(flags)));
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
