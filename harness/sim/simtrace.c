/* SPDX-License-Identifier: MIT */
/*
 * simtrace.c: reading cache traces (txt, csv, oracleGeneral, each
 * optionally zstd-compressed) in chunks, or whole into memory on top of
 * that; next-use positions and writing traces back.  The generators live
 * in simgen.c, cachesim's csv parameters in simcsv.c, string keys' hash
 * in simkeys.c.
 *
 * A reader holds one buffer of the file (decompressed where .zst): a
 * line of up to SIM_TRACE_MAX_LINE bytes, its newline and a NUL, never
 * grown, so a trace of any length streams through it and a file that is
 * no text (/dev/zero, a binary read as txt) is refused at its first
 * line, not read until memory runs out; a bad line is reported with its
 * number.  A reader reads its file once from the start; sim_trace_rewind
 * starts it again where the file is a regular one (a pipe, a FIFO or a
 * device gives its bytes once).  sim_trace_gather and sim_trace_read
 * gather the chunks before anything is timed, their arrays growing by
 * doubling.
 */
#include "harness/sim/simtrace.h"
#include "harness/sim/simkeys.h"
#include "harness/common/outfile.h"
#include "harness/common/parse.h"
#include "maps/base/map.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* --- the bytes, a buffer at a time ------------------------------------------- */

/* The buffer: the longest line, its newline, and a spare byte for the
 * NUL that ends it (a last line without a newline included). */
#define BUFFER_BYTES ((size_t)SIM_TRACE_MAX_LINE + 2)
#define PEEK_LINES 2       /* lines csv's guesses look at */

struct sim_trace_reader {
	FILE *f;
	char name[256];        /* the path in messages: made printable */
	enum sim_trace_format format;
	const char *once;      /* NULL: a regular file, read again by
				  sim_trace_rewind; else what it is (a pipe
				  or FIFO, a device, a socket): read once */
	char *buf;             /* bytes [start, end) not yet consumed; one
				  spare byte for a last line's NUL */
	size_t start, end, cap;
	bool eof;              /* the file (or stream) has no more */
	uint64_t bytes;        /* bytes delivered so far (decompressed) */
	uint64_t lineno;       /* txt and csv: the last line's number */
#ifdef MAPLAB_HAVE_ZSTD
	ZSTD_DStream *z;       /* NULL: a plain file */
	unsigned char *zin;
	size_t zin_len, zin_pos;
	size_t z_last;         /* ZSTD_decompressStream's last hint: 0 at a
				  frame's end */
#endif
	/* txt and csv */
	struct sim_csv_params p;
	unsigned id_col, size_col; /* 0-based; size_col UINT_MAX: none */
	char delim;
	bool skip_first;       /* line 1 is a header */
	int id_is_num;         /* -1 until the first data line says */
	struct sim_keys keys;
	bool failed;           /* an error was reported: only close now */
	struct sim_trace facts; /* string_keys, collisions, note */
};

/* Room for more at the end: consumed bytes moved out (the buffer made at
 * the first call).  0; -ENOMEM; or -E2BIG where the bytes not consumed
 * fill it all: a line longer than SIM_TRACE_MAX_LINE. */
static int make_room(struct sim_trace_reader *r)
{
	if (!r->buf) {
		if (!(r->buf = malloc(BUFFER_BYTES)))
			return -ENOMEM;
		r->cap = BUFFER_BYTES;
	}
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	return r->end + 1 < r->cap ? 0 : -E2BIG;
}

static int fill_plain(struct sim_trace_reader *r, char *err, size_t errlen)
{
	errno = 0;
	size_t got = fread(r->buf + r->end, 1, r->cap - r->end - 1, r->f);
	r->end += got;
	r->bytes += got;
	if (got)
		return 0;
	r->eof = true;
	if (!ferror(r->f))
		return 0;
	int e = errno ? errno : EIO;   /* a directory: EISDIR */
	snprintf(err, errlen, "cannot read %s: %s", r->name, map_errno_text(e));
	return -e;
}

#ifdef MAPLAB_HAVE_ZSTD
/* Decompress until some bytes come out or the file ends. */
static int fill_zstd(struct sim_trace_reader *r, char *err, size_t errlen)
{
	for (;;) {
		ZSTD_inBuffer ib = { r->zin, r->zin_len, r->zin_pos };
		ZSTD_outBuffer ob = { r->buf + r->end, r->cap - r->end - 1, 0 };
		size_t hint = ZSTD_decompressStream(r->z, &ob, &ib);
		if (ZSTD_isError(hint)) {
			snprintf(err, errlen, "%s: not a zstd stream (%s)",
				 r->name, ZSTD_getErrorName(hint));
			return -EINVAL;
		}
		/* A call with nothing to do after a frame's end hints at the
		 * next frame: only a call that did something says whether
		 * the stream ended cleanly. */
		if (ib.pos != r->zin_pos || ob.pos)
			r->z_last = hint;
		r->zin_pos = ib.pos;
		r->end += ob.pos;
		r->bytes += ob.pos;
		if (ob.pos)
			return 0;
		if (r->zin_pos < r->zin_len)
			continue;
		r->zin_len = fread(r->zin, 1, ZSTD_DStreamInSize(), r->f);
		r->zin_pos = 0;
		if (r->zin_len)
			continue;
		r->eof = true;
		if (ferror(r->f)) {
			snprintf(err, errlen, "%s: read error", r->name);
			return -EIO;
		}
		if (r->z_last) {
			snprintf(err, errlen, "%s: the zstd stream is cut short",
				 r->name);
			return -EINVAL;
		}
		return 0;
	}
}
#endif

/* More bytes into [start, end), unless at the end.  0 or -errno (-E2BIG:
 * the line at start fills the buffer, the caller words it). */
static int fill(struct sim_trace_reader *r, char *err, size_t errlen)
{
	if (r->eof)
		return 0;
	int rc = make_room(r);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", r->name);
	if (rc)
		return rc;
#ifdef MAPLAB_HAVE_ZSTD
	if (r->z)
		return fill_zstd(r, err, errlen);
#endif
	return fill_plain(r, err, errlen);
}

/*
 * The next line, its end made a NUL and a '\r' before it dropped: 1, 0 at
 * the end, or -errno.  A NUL byte inside is refused: the file is not text.
 */
static int next_line(struct sim_trace_reader *r, char **line, char *err,
		     size_t errlen)
{
	for (;;) {
		char *s = r->buf + r->start;
		size_t avail = r->end - r->start;
		char *nl = memchr(s, '\n', avail);
		if (nl || (r->eof && avail)) {
			size_t len = nl ? (size_t)(nl - s) : avail;
			s[len] = '\0';   /* the spare byte, at the end */
			r->start += nl ? len + 1 : len;
			r->lineno++;
			if (strlen(s) != len) {
				snprintf(err, errlen, "%s:%llu: a NUL byte: not "
					 "a text trace (is it oracleGeneral? "
					 "--trace-format says)", r->name,
					 (unsigned long long)r->lineno);
				return -EINVAL;
			}
			if (len && s[len - 1] == '\r')
				s[len - 1] = '\0';
			*line = s;
			return 1;
		}
		if (r->eof)
			return 0;
		int rc = fill(r, err, errlen);
		if (rc == -E2BIG)
			snprintf(err, errlen, "%s:%llu: the line is longer than "
				 "%s, the most a txt or csv trace line may hold "
				 "(is it a text trace?)", r->name,
				 (unsigned long long)r->lineno + 1,
				 SIM_TRACE_MAX_LINE_TEXT);
		if (rc)
			return rc;
	}
}

/* --- keys and csv fields ----------------------------------------------------- */

/* A key: decimal, or hex with 0x.  0 or -1. */
static int parse_key(const char *text, uint64_t *out)
{
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		return parse_bits(text, UINT64_MAX, out);
	return parse_u64(text, 0, UINT64_MAX, out);
}

struct field {
	const char *s;
	size_t len;
};

/* Field col (0-based) of line, trimmed of spaces and quotes: false when
 * the line has fewer fields. */
static bool csv_field(const char *line, char delim, unsigned col,
		      struct field *f)
{
	for (unsigned i = 0; i < col; i++) {
		line = strchr(line, delim);
		if (!line)
			return false;
		line++;
	}
	const char *stop = strchr(line, delim);
	size_t n = stop ? (size_t)(stop - line) : strlen(line);
	while (n && (*line == ' ' || *line == '"'))
		line++, n--;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '"'))
		n--;
	f->s = line;
	f->len = n;
	return true;
}

/* A field as a NUL-terminated copy, cut at len-1 bytes (for numbers and
 * messages: a number is never that long). */
static const char *field_text(const struct field *f, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)(f->len < len ? f->len : len - 1),
		 f->s);
	return buf;
}

static bool field_is_number(const struct field *f)
{
	char buf[64];
	uint64_t v;
	return f->len < sizeof(buf) && parse_key(field_text(f, buf, sizeof(buf)),
						 &v) == 0;
}

static bool line_has_number(const char *line, char delim)
{
	struct field f;
	for (unsigned i = 0; csv_field(line, delim, i, &f); i++)
		if (field_is_number(&f))
			return true;
	return false;
}

/* The column named name in the header line, or -1. */
static int column_named(const char *line, char delim, const char *name)
{
	struct field f;
	for (unsigned i = 0; csv_field(line, delim, i, &f); i++)
		if (f.len == strlen(name) && memcmp(f.s, name, f.len) == 0)
			return (int)i;
	return -1;
}

static void add_note(struct sim_trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_note(struct sim_trace_reader *r, const char *fmt, ...)
{
	char *n = r->facts.note;
	size_t used = strlen(n);
	if (used)
		used += snprintf(n + used, sizeof(r->facts.note) - used, "; ");
	if (used >= sizeof(r->facts.note))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(n + used, sizeof(r->facts.note) - used, fmt, ap);
	va_end(ap);
}

/* --- csv: what the first lines say ------------------------------------------ */

/* The first PEEK_LINES lines (or fewer: the file's), each a NUL-ended copy
 * in lines[i], read without consuming them. */
static int peek_lines(struct sim_trace_reader *r, char lines[][4096],
		      unsigned *n, char *err, size_t errlen)
{
	for (;;) {
		const char *s = r->buf + r->start, *end = r->buf + r->end;
		unsigned k = 0;
		while (k < PEEK_LINES && s < end) {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			if (!nl && !r->eof)
				break;
			size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
			if (len && s[len - 1] == '\r')
				len--;
			snprintf(lines[k++], 4096, "%.*s",
				 (int)(len < 4095 ? len : 4095), s);
			s = nl ? nl + 1 : end;
		}
		if (k == PEEK_LINES || r->eof || r->end - r->start > 65536) {
			*n = k;
			return 0;
		}
		int rc = fill(r, err, errlen);
		if (rc)
			return rc;
	}
}

static char guess_delimiter(struct sim_trace_reader *r, const char *first)
{
	if (r->p.delimiter)
		return r->p.delimiter;
	if (strchr(first, ',') || !*first)
		return ',';
	char d = strchr(first, '\t') ? '\t' : strchr(first, '|') ? '|' : ',';
	if (d != ',')
		add_note(r, "csv delimiter %s (line 1 has no comma)",
			 d == '\t' ? "tab" : "'|'");
	return d;
}

/* A column by name (line 1 then being a header) or by number. */
static int find_column(struct sim_trace_reader *r, const char *first,
		       const char *name, unsigned number, unsigned *col,
		       char *err, size_t errlen)
{
	char shown[80];
	if (!name) {
		*col = number - 1;
		return 0;
	}
	int c = column_named(first, r->delim, name);
	if (c < 0) {
		snprintf(err, errlen, "%s:1: no column named '%s' in the header "
			 "line", r->name, parse_printable(name, shown,
							  sizeof(shown)));
		return -EINVAL;
	}
	*col = (unsigned)c;
	r->skip_first = true;
	return 0;
}

/*
 * Whether line 1 is a header, unless told: it is where it has no number
 * and line 2 has one ("key,size" over "user:1,10"), or where a size
 * column holds no number on line 1 but does on line 2, or where keys are
 * numbers (obj-id-is-num=true) and line 1's is not.
 */
static bool looks_like_header(struct sim_trace_reader *r, char lines[][4096],
			      unsigned n)
{
	struct field a, b;
	if (n == 0)
		return false;
	if (r->p.id_is_num == 1 && csv_field(lines[0], r->delim, r->id_col, &a)
	    && !field_is_number(&a))
		return true;
	if (n < 2)
		return false;
	if (r->size_col != UINT_MAX &&
	    csv_field(lines[0], r->delim, r->size_col, &a) &&
	    csv_field(lines[1], r->delim, r->size_col, &b) &&
	    !field_is_number(&a) && field_is_number(&b))
		return true;
	return !line_has_number(lines[0], r->delim) &&
	       line_has_number(lines[1], r->delim);
}

/* The delimiter, the columns and the header, from the first n lines. */
static int csv_decide(struct sim_trace_reader *r, char lines[][4096],
		      unsigned n, char *err, size_t errlen)
{
	int rc;
	const char *first = n ? lines[0] : "";
	r->delim = guess_delimiter(r, first);
	if ((rc = find_column(r, first, r->p.id_name,
			      r->p.id_col ? r->p.id_col : 1, &r->id_col, err,
			      errlen)))
		return rc;
	r->size_col = UINT_MAX;
	if ((r->p.size_col || r->p.size_name) &&
	    (rc = find_column(r, first, r->p.size_name, r->p.size_col,
			      &r->size_col, err, errlen)))
		return rc;
	if (r->p.has_header >= 0 && !r->p.id_name && !r->p.size_name)
		r->skip_first = r->p.has_header;
	else if (!r->skip_first && r->p.has_header < 0 &&
		 looks_like_header(r, lines, n)) {
		r->skip_first = true;
		add_note(r, "line 1 taken as a header (has-header=false "
			 "reads it as a request)");
	}
	return 0;
}

/* csv_decide on the first lines, peeked at. */
static int csv_prepare(struct sim_trace_reader *r, char *err, size_t errlen)
{
	/* Not on the stack (8 KB), nor static: readers may open in threads. */
	char (*lines)[4096] = malloc(PEEK_LINES * sizeof(*lines));
	unsigned n;
	if (!lines) {
		snprintf(err, errlen, "%s: out of memory", r->name);
		return -ENOMEM;
	}
	int rc = peek_lines(r, lines, &n, err, errlen);
	if (!rc)
		rc = csv_decide(r, lines, n, err, errlen);
	free(lines);
	return rc;
}

/* --- opening and closing ----------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* NULL where fd is a regular file, which a reader may read again from its
 * start; else what it is, whose bytes come once. */
static const char *read_once(int fd)
{
	struct stat st;
	if (fstat(fd, &st))
		return "a file that cannot be examined";
	if (S_ISREG(st.st_mode))
		return NULL;
	if (S_ISFIFO(st.st_mode))
		return "a pipe or FIFO";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return "a device";
	return "not a regular file";
}

static int open_file(struct sim_trace_reader *r, const char *path, char *err,
		     size_t errlen)
{
	bool zst = ends_with(path, ".zst");
#ifndef MAPLAB_HAVE_ZSTD
	if (zst) {
		snprintf(err, errlen, "%s: this maplab was built without libzstd "
			 "(install libzstd-dev and rebuild, or decompress the "
			 "file with zstd -d)", r->name);
		return -EOPNOTSUPP;
	}
#else
	if (zst) {
		r->z = ZSTD_createDStream();
		r->zin = malloc(ZSTD_DStreamInSize());
		if (!r->z || !r->zin) {
			snprintf(err, errlen, "%s: out of memory", r->name);
			return -ENOMEM;
		}
		ZSTD_initDStream(r->z);
	}
#endif
	r->f = fopen(path, "rb");
	if (!r->f) {
		int e = errno;
		snprintf(err, errlen, "cannot open %s: %s", r->name,
			 map_errno_text(e));
		return -e;
	}
	r->once = read_once(fileno(r->f));
	return 0;
}

int sim_trace_open(const char *path, enum sim_trace_format format,
		   const struct sim_csv_params *p, struct sim_trace_reader **out,
		   char *err, size_t errlen)
{
	struct sim_trace_reader *r = calloc(1, sizeof(*r));
	int rc;
	*out = NULL;
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	parse_printable(path, r->name, sizeof(r->name));
	r->format = format == SIM_TRACE_AUTO ? sim_trace_guess_format(path)
					     : format;
	if (r->format == SIM_TRACE_AUTO)
		r->format = SIM_TRACE_TXT;
	if (p)
		r->p = *p;
	else
		sim_csv_params_init(&r->p);
	r->id_is_num = r->p.id_is_num;
	r->facts.id_hash = SIM_KEYS_HASH;
	sim_keys_init(&r->keys, NULL);
	rc = open_file(r, path, err, errlen);
	if (!rc && make_room(r)) {   /* the buffer, from the start */
		snprintf(err, errlen, "%s: out of memory", r->name);
		rc = -ENOMEM;
	}
	if (!rc && r->format == SIM_TRACE_CSV)
		rc = csv_prepare(r, err, errlen);
	if (rc) {
		sim_trace_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void sim_trace_close(struct sim_trace_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
#ifdef MAPLAB_HAVE_ZSTD
	ZSTD_freeDStream(r->z);
	free(r->zin);
#endif
	sim_keys_free(&r->keys);
	free(r->buf);
	free(r);
}

const char *sim_trace_reader_once(const struct sim_trace_reader *r)
{
	return r->once;
}

int sim_trace_rewind(struct sim_trace_reader *r, char *err, size_t errlen)
{
	if (r->once) {
		snprintf(err, errlen, "%s is %s: its requests can be read only "
			 "once", r->name, r->once);
		return -ESPIPE;
	}
	if (fseek(r->f, 0, SEEK_SET)) {
		int e = errno;
		snprintf(err, errlen, "cannot read %s again: %s", r->name,
			 map_errno_text(e));
		return -e;
	}
	clearerr(r->f);
	/* The position only: what the first lines decided (the csv's
	 * delimiter, columns and header, whether keys are numbers) holds,
	 * and string keys keep their table, so a pass counts no collision
	 * the first did not. */
	r->start = r->end = 0;
	r->eof = false;
	r->bytes = 0;
	r->lineno = 0;
#ifdef MAPLAB_HAVE_ZSTD
	if (r->z) {
		ZSTD_initDStream(r->z);
		r->zin_len = r->zin_pos = 0;
		r->z_last = 0;
	}
#endif
	return 0;
}

bool sim_trace_reader_has_sizes(const struct sim_trace_reader *r)
{
	return r->format == SIM_TRACE_ORACLE ||
	       (r->format == SIM_TRACE_CSV && r->size_col != UINT_MAX);
}

void sim_trace_reader_keys(const struct sim_trace_reader *r,
			   struct sim_trace *facts)
{
	facts->string_keys = r->id_is_num == 0;
	facts->id_collisions = r->keys.collisions;
	facts->id_hash = r->id_is_num == 0 ? SIM_KEYS_HASH : NULL;
	snprintf(facts->note, sizeof(facts->note), "%s", r->facts.note);
}

/* --- requests ------------------------------------------------------------------ */

/* Whether a key that is no number was meant as one: digits with a sign, or
 * 0x with anything (a key beyond 64 bits, "-5", "0xZZ"): refused, not
 * taken for the first of a trace of strings. */
static bool meant_as_number(const struct field *f)
{
	size_t i = f->len && (f->s[0] == '-' || f->s[0] == '+');
	if (f->len >= 2 && f->s[0] == '0' && (f->s[1] == 'x' || f->s[1] == 'X'))
		return true;
	if (i == f->len)
		return false;
	for (; i < f->len; i++)
		if (f->s[i] < '0' || f->s[i] > '9')
			return false;
	return true;
}

/*
 * The id of key text f at line lineno: a number, or a string's hash.  The
 * first key decides which, unless obj-id-is-num did.
 */
static int key_id(struct sim_trace_reader *r, const struct field *f,
		  uint64_t *id, char *err, size_t errlen)
{
	char buf[256], shown[80];
	bool number = f->len < sizeof(buf) &&
		      parse_key(field_text(f, buf, sizeof(buf)), id) == 0;
	if (r->id_is_num < 0) {
		r->id_is_num = number || meant_as_number(f);
		if (!number)
			add_note(r, "keys are strings ('%s' on line %llu): "
				 "hashed to 8-byte ids with %s",
				 parse_printable(field_text(f, buf, sizeof(buf)),
						 shown, sizeof(shown)),
				 (unsigned long long)r->lineno, SIM_KEYS_HASH);
	}
	if (r->id_is_num == 1 && !number) {
		snprintf(err, errlen, "%s:%llu: key '%s' is not a number "
			 "(decimal, or hex with 0x; string keys: "
			 "obj-id-is-num=false)", r->name,
			 (unsigned long long)r->lineno,
			 parse_printable(field_text(f, buf, sizeof(buf)), shown,
					 sizeof(shown)));
		return -EINVAL;
	}
	if (r->id_is_num == 0 && sim_keys_id(&r->keys, f->s, f->len, id)) {
		snprintf(err, errlen, "%s: out of memory", r->name);
		return -ENOMEM;
	}
	return 0;
}

static int size_of(struct sim_trace_reader *r, const char *line,
		   uint32_t *size, char *err, size_t errlen)
{
	struct field f;
	char buf[64], shown[80];
	uint64_t v;
	if (!csv_field(line, r->delim, r->size_col, &f)) {
		snprintf(err, errlen, "%s:%llu: no column %u (the size)",
			 r->name, (unsigned long long)r->lineno,
			 r->size_col + 1);
		return -EINVAL;
	}
	if (f.len >= sizeof(buf) ||
	    parse_u64(field_text(&f, buf, sizeof(buf)), 0, UINT32_MAX, &v)) {
		snprintf(err, errlen, "%s:%llu: size '%s' is not a number "
			 "(0 to 2^32-1)", r->name, (unsigned long long)r->lineno,
			 parse_printable(field_text(&f, buf, sizeof(buf)), shown,
					 sizeof(shown)));
		return -EINVAL;
	}
	*size = (uint32_t)v;
	return 0;
}

/* One txt or csv line: 1 with a request, 0 for a line without one. */
static int text_request(struct sim_trace_reader *r, char *line, uint64_t *id,
			uint32_t *size, char *err, size_t errlen)
{
	struct field f;
	*size = 1;
	if (r->format == SIM_TRACE_TXT) {
		line += strspn(line, " \t");
		if (*line == '\0' || *line == '#')
			return 0;
		f = (struct field){ line, strcspn(line, " \t") };
	} else if (*line == '\0' || (r->skip_first && r->lineno == 1)) {
		return 0;
	} else if (!csv_field(line, r->delim, r->id_col, &f)) {
		snprintf(err, errlen, "%s:%llu: no column %u", r->name,
			 (unsigned long long)r->lineno, r->id_col + 1);
		return -EINVAL;
	}
	int rc = key_id(r, &f, id, err, errlen);
	if (!rc && r->format == SIM_TRACE_CSV && r->size_col != UINT_MAX)
		rc = size_of(r, line, size, err, errlen);
	return rc ? rc : 1;
}

static ssize_t next_text(struct sim_trace_reader *r, uint64_t *ids,
			 uint32_t *sizes, size_t max, char *err, size_t errlen)
{
	size_t n = 0;
	while (n < max) {
		char *line = NULL;
		uint32_t size;
		int rc = next_line(r, &line, err, errlen);
		if (rc <= 0) {
			if (rc < 0)
				return rc;
			break;
		}
		rc = text_request(r, line, &ids[n], &size, err, errlen);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		if (sizes)
			sizes[n] = size;
		n++;
	}
	return (ssize_t)n;
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

static ssize_t next_oracle(struct sim_trace_reader *r, uint64_t *ids,
			   uint32_t *sizes, size_t max, char *err, size_t errlen)
{
	size_t n = 0;
	while (n < max) {
		while (r->end - r->start < ORACLE_RECORD && !r->eof) {
			int rc = fill(r, err, errlen);
			if (rc)
				return rc;
		}
		size_t left = r->end - r->start;
		if (left == 0)
			break;
		if (left < ORACLE_RECORD) {
			snprintf(err, errlen, "%s: %llu bytes is not a whole "
				 "number of 24-byte oracleGeneral records: "
				 "record %llu is cut short", r->name,
				 (unsigned long long)r->bytes,
				 (unsigned long long)(r->bytes / ORACLE_RECORD
						      + 1));
			return -EINVAL;
		}
		const unsigned char *rec =
			(const unsigned char *)r->buf + r->start;
		ids[n] = le64(rec + 4);
		if (sizes)
			sizes[n] = le32(rec + 12);
		r->start += ORACLE_RECORD;
		n++;
	}
	return (ssize_t)n;
}

ssize_t sim_trace_next(struct sim_trace_reader *r, uint64_t *ids,
		       uint32_t *sizes, size_t max, char *err, size_t errlen)
{
	if (r->failed) {
		snprintf(err, errlen, "%s: read after an error", r->name);
		return -EINVAL;
	}
	ssize_t n = r->format == SIM_TRACE_ORACLE
			    ? next_oracle(r, ids, sizes, max, err, errlen)
			    : next_text(r, ids, sizes, max, err, errlen);
	r->failed = n < 0;
	return n;
}

/* --- the whole trace ----------------------------------------------------------- */

#define READ_BATCH 65536

/* Room in t for READ_BATCH more requests (sizes too where has_sizes). */
static int reserve(struct sim_trace *t, size_t *cap, bool has_sizes)
{
	if (t->n + READ_BATCH <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : READ_BATCH;
	uint64_t *ids = realloc(t->ids, c * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	t->ids = ids;
	if (has_sizes) {
		uint32_t *s = realloc(t->sizes, c * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->sizes = s;
	}
	*cap = c;
	return 0;
}

int sim_trace_gather(struct sim_trace_reader *r, struct sim_trace *t,
		     size_t max, bool *whole, char *err, size_t errlen)
{
	bool has_sizes = sim_trace_reader_has_sizes(r);
	size_t cap = 0;
	ssize_t got;
	*whole = false;
	do {
		/* max + 1 at most: one more says the trace is longer. */
		size_t want = max - t->n < READ_BATCH ? max - t->n + 1
						      : READ_BATCH;
		if (reserve(t, &cap, has_sizes)) {
			snprintf(err, errlen, "%s: out of memory", r->name);
			return -ENOMEM;
		}
		got = sim_trace_next(r, t->ids + t->n,
				     has_sizes ? t->sizes + t->n : NULL, want,
				     err, errlen);
		if (got > 0)
			t->n += (size_t)got;
	} while (got > 0 && t->n <= max);
	*whole = got == 0;
	return got < 0 ? (int)got : 0;
}

int sim_trace_read(const char *path, enum sim_trace_format format,
		   const struct sim_csv_params *p, struct sim_trace *t,
		   char *err, size_t errlen)
{
	struct sim_trace_reader *r;
	bool whole;
	memset(t, 0, sizeof(*t));
	parse_printable(base_name(path), t->name, sizeof(t->name));
	int rc = sim_trace_open(path, format, p, &r, err, errlen);
	if (rc)
		return rc;
	rc = sim_trace_gather(r, t, SIZE_MAX - 1, &whole, err, errlen);
	if (!rc && t->n == 0) {
		snprintf(err, errlen, "%s: no requests in the trace (an empty "
			 "file?)", r->name);
		rc = -EINVAL;
	}
	sim_trace_reader_keys(r, t);
	sim_trace_close(r);
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

/* After a write into f: 0, or -errno of the write that failed, read at
 * once (a later flush of the stream has lost it: EIO). */
static int write_failed(FILE *f)
{
	return ferror(f) ? -(errno ? errno : EIO) : 0;
}

int sim_trace_write(FILE *f, const struct sim_trace *t,
		    enum sim_trace_format format)
{
	int rc = 0;
	errno = 0;
	if (format == SIM_TRACE_TXT || format == SIM_TRACE_AUTO) {
		for (size_t i = 0; i < t->n && !rc; i++) {
			fprintf(f, "%llu\n", (unsigned long long)t->ids[i]);
			rc = write_failed(f);
		}
		return rc ? rc : -stream_error(f);
	}
	if (format != SIM_TRACE_ORACLE)
		return -EINVAL;
	int64_t *next = malloc((t->n ? t->n : 1) * sizeof(*next));
	if (!next || sim_trace_next_use(t->ids, t->n, next)) {
		free(next);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n && !rc; i++) {
		unsigned char r[ORACLE_RECORD];
		put_le(r, i, 4);
		put_le(r + 4, t->ids[i], 8);
		put_le(r + 12, t->sizes ? t->sizes[i] : 1, 4);
		put_le(r + 16, (uint64_t)next[i], 8);
		fwrite(r, 1, sizeof(r), f);
		rc = write_failed(f);
	}
	free(next);
	return rc ? rc : -stream_error(f);
}
