/* SPDX-License-Identifier: MIT */
/*
 * simtrace.c: reading cache traces whole into memory (txt, csv,
 * oracleGeneral, each optionally zstd-compressed), next-use positions and
 * writing traces back.  The generators live in simgen.c.
 *
 * A file is read into one buffer first (decompressed if .zst) and parsed
 * from there, so a bad line is reported with its number and nothing is
 * timed while a disk is read.  The id and size arrays grow by doubling.
 */
#include "simtrace.h"
#include "harness/common/parse.h"
#include "maps/base/map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef MAPLAB_HAVE_ZSTD
#include <zstd.h>
#endif

#define ORACLE_RECORD 24

int sim_trace_parse_format(const char *name, enum sim_trace_format *out)
{
	if (strcmp(name, "txt") == 0)
		*out = SIM_TRACE_TXT;
	else if (strcmp(name, "csv") == 0)
		*out = SIM_TRACE_CSV;
	else if (strcmp(name, "oracleGeneral") == 0)
		*out = SIM_TRACE_ORACLE;
	else
		return -1;
	return 0;
}

const char *sim_trace_format_name(enum sim_trace_format f)
{
	switch (f) {
	case SIM_TRACE_TXT: return "txt";
	case SIM_TRACE_CSV: return "csv";
	case SIM_TRACE_ORACLE: return "oracleGeneral";
	default: return "auto";
	}
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

enum sim_trace_format sim_trace_guess_format(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strstr(base, ".oracleGeneral"))
		return SIM_TRACE_ORACLE;
	if (ends_with(base, ".csv") || ends_with(base, ".csv.zst"))
		return SIM_TRACE_CSV;
	if (ends_with(base, ".txt") || ends_with(base, ".txt.zst"))
		return SIM_TRACE_TXT;
	return SIM_TRACE_AUTO;
}

bool sim_trace_have_zstd(void)
{
#ifdef MAPLAB_HAVE_ZSTD
	return true;
#else
	return false;
#endif
}

void sim_trace_free(struct sim_trace *t)
{
	free(t->ids);
	free(t->sizes);
	t->ids = NULL;
	t->sizes = NULL;
	t->n = 0;
}

/* --- the whole file in memory ------------------------------------------------ */

struct buffer {
	char *data;
	size_t len, cap;
};

static int buffer_reserve(struct buffer *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 1 << 16;
	while (cap < b->len + more + 1)
		cap *= 2;
	char *d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

static int read_plain(FILE *f, struct buffer *b)
{
	for (;;) {
		if (buffer_reserve(b, 1 << 16))
			return -ENOMEM;
		size_t got = fread(b->data + b->len, 1, b->cap - b->len - 1, f);
		b->len += got;
		if (got == 0)   /* a directory: EISDIR */
			return ferror(f) ? -(errno ? errno : EIO) : 0;
	}
}

#ifdef MAPLAB_HAVE_ZSTD
static int read_zstd(FILE *f, struct buffer *b, char *err, size_t errlen,
		     const char *path)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	size_t in_cap = ZSTD_DStreamInSize();
	char *in = malloc(in_cap);
	int rc = z && in ? 0 : -ENOMEM;
	size_t last = 0;

	if (!rc)
		ZSTD_initDStream(z);
	while (!rc) {
		size_t got = fread(in, 1, in_cap, f);
		if (got == 0) {
			rc = ferror(f) ? -EIO : 0;
			break;
		}
		ZSTD_inBuffer ib = { in, got, 0 };
		while (!rc && ib.pos < ib.size) {
			if (buffer_reserve(b, ZSTD_DStreamOutSize())) {
				rc = -ENOMEM;
				break;
			}
			ZSTD_outBuffer ob = { b->data + b->len,
					      b->cap - b->len - 1, 0 };
			last = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(last)) {
				snprintf(err, errlen, "%s: not a zstd stream "
					 "(%s)", path, ZSTD_getErrorName(last));
				rc = -EINVAL;
			}
			b->len += ob.pos;
		}
	}
	if (!rc && last != 0) {
		snprintf(err, errlen, "%s: the zstd stream is cut short", path);
		rc = -EINVAL;
	}
	ZSTD_freeDStream(z);
	free(in);
	return rc;
}
#endif

/* path is opened; name (path made printable) is what messages say. */
static int read_file(const char *path, const char *name, struct buffer *b,
		     char *err, size_t errlen)
{
	bool zst = ends_with(path, ".zst");
#ifndef MAPLAB_HAVE_ZSTD
	if (zst) {
		snprintf(err, errlen, "%s: this maplab was built without libzstd "
			 "(install libzstd-dev and rebuild, or decompress the "
			 "file with zstd -d)", name);
		return -EOPNOTSUPP;
	}
#endif
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "cannot open %s: %s", name,
			 map_errno_text(e));
		return -e;
	}
	int rc;
	errno = 0;
#ifdef MAPLAB_HAVE_ZSTD
	if (zst)
		rc = read_zstd(f, b, err, errlen, name);
	else
#endif
		rc = read_plain(f, b);
	fclose(f);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", name);
	else if (rc == -EIO)
		snprintf(err, errlen, "%s: read error", name);
	else if (rc < 0 && !zst)
		snprintf(err, errlen, "cannot read %s: %s", name,
			 map_errno_text(-rc));
	if (!rc && buffer_reserve(b, 0))
		rc = -ENOMEM;
	if (!rc)
		b->data[b->len] = '\0';
	return rc;
}

/* --- requests, appended ---------------------------------------------------- */

struct appender {
	struct sim_trace *t;
	size_t cap;
	bool sizes;
};

static int append(struct appender *a, uint64_t id, uint32_t size)
{
	struct sim_trace *t = a->t;
	if (t->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 4096;
		uint64_t *ids = realloc(t->ids, cap * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		t->ids = ids;
		if (a->sizes) {
			uint32_t *s = realloc(t->sizes, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			t->sizes = s;
		}
		a->cap = cap;
	}
	t->ids[t->n] = id;
	if (a->sizes)
		t->sizes[t->n] = size;
	t->n++;
	return 0;
}

/* --- txt and csv ------------------------------------------------------------- */

/* A key: decimal, or hex with 0x.  0 or -1. */
static int parse_key(const char *text, uint64_t *out)
{
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		return parse_bits(text, UINT64_MAX, out);
	return parse_u64(text, 0, UINT64_MAX, out);
}

/* The line at *p (its end made a NUL), advancing *p past it. */
static char *next_line(char **p, char *end)
{
	char *line = *p;
	if (line >= end)
		return NULL;
	char *nl = memchr(line, '\n', (size_t)(end - line));
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = end;
	}
	size_t len = strlen(line);
	if (len && line[len - 1] == '\r')
		line[len - 1] = '\0';
	return line;
}

/* Field `col` (0-based) of a comma-separated line, trimmed of spaces and
 * quotes, into buf; NULL when the line has fewer fields. */
static const char *csv_field(const char *line, unsigned col, char *buf,
			     size_t len)
{
	for (unsigned i = 0; i < col; i++) {
		line = strchr(line, ',');
		if (!line)
			return NULL;
		line++;
	}
	size_t n = strcspn(line, ",");
	while (n && (*line == ' ' || *line == '"'))
		line++, n--;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '"'))
		n--;
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), line);
	return buf;
}

/* Which column --csv-column names: a number (1-based), else a name in the
 * first line, which is then a header.  0, or -EINVAL with err. */
static int csv_column_of(const char *spec, const char *first, unsigned *col,
			 bool *header, const char *path, char *err,
			 size_t errlen)
{
	uint64_t n;
	char shown[80], field[256];
	*header = false;
	if (!spec || parse_u64(spec, 1, 4096, &n) == 0) {
		*col = spec ? (unsigned)n - 1 : 0;
		return 0;
	}
	for (unsigned i = 0; first && csv_field(first, i, field, sizeof(field));
	     i++)
		if (strcmp(field, spec) == 0) {
			*col = i;
			*header = true;
			return 0;
		}
	snprintf(err, errlen, "%s:1: no column named '%s' in the header line",
		 path, parse_printable(spec, shown, sizeof(shown)));
	return -EINVAL;
}

static int parse_text(char *data, size_t len, bool csv, const char *column,
		      const char *path, struct sim_trace *t, char *err,
		      size_t errlen)
{
	struct appender a = { .t = t };
	char *p = data, *end = data + len, *line;
	char field[256], shown[80];
	unsigned col = 0;
	bool header = false;
	size_t lineno = 0;

	if (memchr(data, '\0', len)) {
		snprintf(err, errlen, "%s: a NUL byte: not a text trace (is it "
			 "oracleGeneral? --trace-format says)", path);
		return -EINVAL;
	}
	if (csv) {
		char *nl = memchr(data, '\n', len);
		char first[4096];
		snprintf(first, sizeof(first), "%.*s",
			 (int)(nl ? nl - data : (long)len), data);
		int rc = csv_column_of(column, first, &col, &header, path, err,
				       errlen);
		if (rc)
			return rc;
	}
	while ((line = next_line(&p, end))) {
		uint64_t id;
		const char *text = line;
		lineno++;
		if (header && lineno == 1)
			continue;
		if (!csv) {
			while (*text == ' ' || *text == '\t')
				text++;
			if (*text == '\0' || *text == '#')
				continue;
			size_t n = strcspn(text, " \t");
			snprintf(field, sizeof(field), "%.*s", (int)n, text);
			text = field;
		} else if (*line == '\0') {
			continue;
		} else if (!(text = csv_field(line, col, field, sizeof(field)))) {
			snprintf(err, errlen, "%s:%zu: no column %u", path,
				 lineno, col + 1);
			return -EINVAL;
		}
		if (parse_key(text, &id)) {
			/* A header line the column number skipped over. */
			if (csv && lineno == 1 && !header)
				continue;
			snprintf(err, errlen, "%s:%zu: key '%s' is not a number "
				 "(decimal, or hex with 0x)", path, lineno,
				 parse_printable(text, shown, sizeof(shown)));
			return -EINVAL;
		}
		if (append(&a, id, 0)) {
			snprintf(err, errlen, "%s: out of memory", path);
			return -ENOMEM;
		}
	}
	return 0;
}

/* --- oracleGeneral ------------------------------------------------------------- */

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int parse_oracle(const unsigned char *data, size_t len,
			const char *path, struct sim_trace *t, char *err,
			size_t errlen)
{
	if (len % ORACLE_RECORD) {
		snprintf(err, errlen, "%s: %zu bytes is not a whole number of "
			 "24-byte oracleGeneral records: record %zu is cut short",
			 path, len, len / ORACLE_RECORD + 1);
		return -EINVAL;
	}
	t->n = len / ORACLE_RECORD;
	t->ids = malloc((t->n ? t->n : 1) * sizeof(*t->ids));
	t->sizes = malloc((t->n ? t->n : 1) * sizeof(*t->sizes));
	if (!t->ids || !t->sizes) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++) {
		const unsigned char *r = data + i * ORACLE_RECORD;
		t->ids[i] = le64(r + 4);
		t->sizes[i] = le32(r + 12);
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

int sim_trace_read(const char *path, enum sim_trace_format format,
		   const char *csv_column, struct sim_trace *t, char *err,
		   size_t errlen)
{
	struct buffer b = { 0 };
	char name[256]; /* the path in messages: made printable */
	int rc;

	memset(t, 0, sizeof(*t));
	parse_printable(path, name, sizeof(name));
	parse_printable(base_name(path), t->name, sizeof(t->name));
	if (format == SIM_TRACE_AUTO)
		format = sim_trace_guess_format(path);
	rc = read_file(path, name, &b, err, errlen);
	if (!rc && format == SIM_TRACE_ORACLE)
		rc = parse_oracle((const unsigned char *)b.data, b.len, name, t,
				  err, errlen);
	else if (!rc)
		rc = parse_text(b.data, b.len, format == SIM_TRACE_CSV,
				csv_column, name, t, err, errlen);
	if (!rc && t->n == 0) {
		snprintf(err, errlen, "%s: no requests in the trace (an empty "
			 "file?)", name);
		rc = -EINVAL;
	}
	free(b.data);
	if (rc)
		sim_trace_free(t);
	return rc;
}

/* --- next use, and writing ------------------------------------------------------ */

/*
 * Walking backwards, the next use of ids[i] is the last position seen for
 * that id.  An open-addressed table of id -> position, sized to a power of
 * two at least twice n, so probes stay short.
 */
int sim_trace_next_use(const uint64_t *ids, size_t n, int64_t *next)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	uint64_t *key = malloc(cap * sizeof(*key));
	int64_t *pos = malloc(cap * sizeof(*pos));
	if (!key || !pos) {
		free(key);
		free(pos);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cap; i++)
		pos[i] = -2; /* empty slot */
	for (size_t i = n; i-- > 0;) {
		size_t s = (size_t)(ids[i] * 0x9e3779b97f4a7c15ULL >> 20) &
			   (cap - 1);
		while (pos[s] != -2 && key[s] != ids[i])
			s = (s + 1) & (cap - 1);
		next[i] = pos[s] == -2 ? -1 : pos[s];
		key[s] = ids[i];
		pos[s] = (int64_t)i;
	}
	free(key);
	free(pos);
	return 0;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

int sim_trace_write(FILE *f, const struct sim_trace *t,
		    enum sim_trace_format format)
{
	if (format == SIM_TRACE_TXT || format == SIM_TRACE_AUTO) {
		for (size_t i = 0; i < t->n; i++)
			fprintf(f, "%llu\n", (unsigned long long)t->ids[i]);
		return ferror(f) ? -EIO : 0;
	}
	if (format != SIM_TRACE_ORACLE)
		return -EINVAL;
	int64_t *next = malloc((t->n ? t->n : 1) * sizeof(*next));
	if (!next || sim_trace_next_use(t->ids, t->n, next)) {
		free(next);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++) {
		unsigned char r[ORACLE_RECORD];
		put_le(r, i, 4);
		put_le(r + 4, t->ids[i], 8);
		put_le(r + 12, t->sizes ? t->sizes[i] : 1, 4);
		put_le(r + 16, (uint64_t)next[i], 8);
		fwrite(r, 1, sizeof(r), f);
	}
	free(next);
	return ferror(f) ? -EIO : 0;
}
