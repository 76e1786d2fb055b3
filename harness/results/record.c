/* SPDX-License-Identifier: MIT */
/*
 * record.c: records built, and written as jsonl, csv or a table
 * (record.h has the rules); the Python scripts that came with maplab found
 * (beside its executable, then in its source tree); and the one plotter
 * run on a folder of records, what it says read through a pipe so that
 * its failure is one line.
 */
#include "harness/results/record.h"
#include "harness/common/parse.h"
#include "harness/common/wrap.h"
#include "maps/base/map.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where the build put the scripts (harness/results/meson.build): the
 * source tree's folder of them, and the path from the installed
 * executable's folder to their installed one. */
#ifndef MAPLAB_RESULTS_SOURCE
#define MAPLAB_RESULTS_SOURCE "harness/results"
#endif
#ifndef MAPLAB_BIN_TO_DATA
#define MAPLAB_BIN_TO_DATA "../share/maplab"
#endif

extern char **environ;

/* What a record copied: one block each, in a list. */
struct record_block {
	struct record_block *next;
	max_align_t data[];
};

static void *must(void *p)
{
	if (!p) {
		fputs("maplab: out of memory building a record\n", stderr);
		abort();
	}
	return p;
}

/* size bytes of r's own, and a '\0' after them. */
static void *record_alloc(struct record *r, size_t size)
{
	struct record_block *b = must(malloc(sizeof(*b) + size + 1));
	b->next = r->blocks;
	r->blocks = b;
	((char *)b->data)[size] = '\0';
	return b->data;
}

void record_init(struct record *r, const char *kind)
{
	*r = (struct record){ .kind = kind };
}

void record_free(struct record *r)
{
	while (r->blocks) {
		struct record_block *next = r->blocks->next;
		free(r->blocks);
		r->blocks = next;
	}
	free(r->fields);
	*r = (struct record){ 0 };
}

static struct record_field *add(struct record *r, const char *name,
				enum record_type type)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->fields = must(realloc(r->fields, r->cap * sizeof(*r->fields)));
	}
	struct record_field *f = &r->fields[r->n++];
	*f = (struct record_field){ .name = name, .type = type };
	return f;
}

struct record_field *record_text(struct record *r, const char *name,
				 const char *text)
{
	struct record_field *f = add(r, name, RECORD_TEXT);
	f->v.text = text;
	f->missing = text == NULL;
	return f;
}

struct record_field *record_textf(struct record *r, const char *name,
				  const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int len = vsnprintf(NULL, 0, format, ap);
	va_end(ap);
	char *text = record_alloc(r, len > 0 ? (size_t)len : 0);
	va_start(ap, format);
	vsnprintf(text, (size_t)(len > 0 ? len : 0) + 1, format, ap);
	va_end(ap);
	return record_text(r, name, text);
}

struct record_field *record_whole(struct record *r, const char *name,
				  uint64_t value)
{
	struct record_field *f = add(r, name, RECORD_WHOLE);
	f->v.whole = value;
	return f;
}

struct record_field *record_figure(struct record *r, const char *name,
				   const char *format, double value)
{
	struct record_field *f = add(r, name, RECORD_FIGURE);
	f->format = format;
	f->v.figure[0] = value;
	f->missing = isnan(value);
	return f;
}

struct record_field *record_spread(struct record *r, const char *name,
				   const char *format, double median,
				   double min, double max)
{
	struct record_field *f = add(r, name, RECORD_SPREAD);
	f->format = format;
	f->v.figure[0] = median;
	f->v.figure[1] = min;
	f->v.figure[2] = max;
	f->missing = isnan(median);
	return f;
}

struct record_field *record_bool(struct record *r, const char *name,
				 int value)
{
	struct record_field *f = add(r, name, RECORD_BOOL);
	f->v.truth = value > 0;
	f->missing = value < 0;
	return f;
}

static struct record_field *add_list(struct record *r, const char *name,
				     enum record_type type, const void *items,
				     size_t size, unsigned n)
{
	struct record_field *f = add(r, name, type);
	void *copy = record_alloc(r, size * n);
	if (n)
		memcpy(copy, items, size * n);
	f->v.list.items = copy;
	f->v.list.n = n;
	return f;
}

struct record_field *record_figures(struct record *r, const char *name,
				    const char *format, const double *values,
				    unsigned n)
{
	struct record_field *f = add_list(r, name, RECORD_FIGURES, values,
					  sizeof(double), n);
	f->format = format;
	return f;
}

struct record_field *record_words(struct record *r, const char *name,
				  const char *const *words, unsigned n)
{
	return add_list(r, name, RECORD_WORDS, words, sizeof(char *), n);
}

struct record_field *record_pairs(struct record *r, const char *name,
				  const char *const *pairs, unsigned n)
{
	return add_list(r, name, RECORD_PAIRS, pairs, 2 * sizeof(char *), n);
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

const struct record_field *record_find(const struct record *r,
				       const char *name, const char *group)
{
	for (unsigned i = 0; i < r->n; i++)
		if (strcmp(r->fields[i].name, name) == 0 &&
		    same(r->fields[i].group, group))
			return &r->fields[i];
	return NULL;
}

int record_parse_format(const char *name, enum record_format *out)
{
	static const char *const names[] = { "table", "jsonl", "csv" };
	for (int i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (enum record_format)i;
			return 0;
		}
	return -1;
}

static bool is_host(const struct record *r)
{
	return r->kind && strcmp(r->kind, "host") == 0;
}

/* --- jsonl --------------------------------------------------------------------- */

/* A JSON string, escaped. */
static void json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			putc(*s, f);
	}
	putc('"', f);
}

/* v in format, or `blank` where it was not measured (NaN): "null" in
 * jsonl, "" in csv, "-" in a table. */
static void put_figure(FILE *f, const char *format, double v,
		       const char *blank)
{
	if (isnan(v))
		fputs(blank, f);
	else
		fprintf(f, format, v);
}

static void json_figure(FILE *f, const char *format, double v)
{
	put_figure(f, format, v, "null");
}

static void json_value(FILE *f, const struct record_field *x)
{
	const char *const *texts = x->v.list.items;
	if (x->missing) {
		fputs("null", f);
		return;
	}
	switch (x->type) {
	case RECORD_TEXT:
		json_string(f, x->v.text);
		break;
	case RECORD_WHOLE:
		fprintf(f, "%llu", (unsigned long long)x->v.whole);
		break;
	case RECORD_FIGURE:
	case RECORD_SPREAD:
		json_figure(f, x->format, x->v.figure[0]);
		break;
	case RECORD_BOOL:
		fputs(x->v.truth ? "true" : "false", f);
		break;
	case RECORD_FIGURES:
		putc('[', f);
		for (unsigned i = 0; i < x->v.list.n; i++) {
			fputs(i ? "," : "", f);
			json_figure(f, x->format, ((const double *)x->v.list.items)[i]);
		}
		putc(']', f);
		break;
	case RECORD_WORDS:
		putc('[', f);
		for (unsigned i = 0; i < x->v.list.n; i++) {
			fputs(i ? "," : "", f);
			json_string(f, texts[i]);
		}
		putc(']', f);
		break;
	case RECORD_PAIRS:
		putc('{', f);
		for (unsigned i = 0; i < x->v.list.n; i++) {
			fputs(i ? "," : "", f);
			json_string(f, texts[2 * i]);
			putc(':', f);
			json_string(f, texts[2 * i + 1]);
		}
		putc('}', f);
		break;
	}
}

static bool in_jsonl(const struct record_field *x)
{
	return !(x->flags & RECORD_NO_JSONL) &&
	       !(x->missing && (x->flags & RECORD_OMIT));
}

/* ,"name":value (a spread's three); `first`: no comma. */
static void json_member(FILE *f, const struct record_field *x, bool first)
{
	static const char *const suffix[] = { "", "_min", "_max" };
	int parts = x->type == RECORD_SPREAD ? 3 : 1;
	for (int i = 0; i < parts; i++) {
		fputs(first && i == 0 ? "\"" : ",\"", f);
		fprintf(f, "%s%s\":", x->name, suffix[i]);
		if (x->type == RECORD_SPREAD)
			json_figure(f, x->format, x->missing ? NAN
							     : x->v.figure[i]);
		else
			json_value(f, x);
	}
}

/* Whether a field before fields[i] is of fields[i]'s group. */
static bool group_seen(const struct record *r, unsigned i)
{
	for (unsigned k = 0; k < i; k++)
		if (same(r->fields[k].group, r->fields[i].group) &&
		    in_jsonl(&r->fields[k]))
			return true;
	return false;
}

static void write_jsonl(FILE *f, const struct record *r)
{
	fputs("{\"record\":", f);
	json_string(f, r->kind);
	for (unsigned i = 0; i < r->n; i++) {
		const struct record_field *x = &r->fields[i];
		if (!in_jsonl(x))
			continue;
		if (!x->group) {
			json_member(f, x, false);
			continue;
		}
		if (group_seen(r, i))
			continue; /* written with its group's first field */
		fprintf(f, ",\"%s\":{", x->group);
		bool first = true;
		for (unsigned k = i; k < r->n; k++)
			if (same(r->fields[k].group, x->group) &&
			    in_jsonl(&r->fields[k])) {
				json_member(f, &r->fields[k], first);
				first = false;
			}
		putc('}', f);
	}
	fputs("}\n", f);
}

/* --- cells: what csv and the table print of a field -------------------------------- */

/* A growing string of one cell. */
struct cell {
	char *text;
	size_t len;
	FILE *f;
};

static void cell_open(struct cell *c)
{
	c->text = NULL;
	c->len = 0;
	c->f = must(open_memstream(&c->text, &c->len));
}

static char *cell_close(struct cell *c)
{
	fclose(c->f);
	return c->text;
}

/*
 * The text of part `part` of x (0: the value, a spread's median; 1, 2: a
 * spread's min, max), as a cell: "" (csv) or "-" (table) when not
 * measured; lists joined by `sep`; figures in `format` (NULL: x's own).
 */
static void cell_value(FILE *f, const struct record_field *x, int part,
		       const char *format, const char *sep, bool table)
{
	const char *const *texts = x->v.list.items;
	const char *blank = table ? "-" : "";
	format = format ? format : x->format;
	if (x->missing) {
		fputs(blank, f);
		return;
	}
	switch (x->type) {
	case RECORD_TEXT:
		fputs(x->v.text, f);
		break;
	case RECORD_WHOLE:
		fprintf(f, "%llu", (unsigned long long)x->v.whole);
		break;
	case RECORD_FIGURE:
	case RECORD_SPREAD:
		put_figure(f, format, x->v.figure[x->type == RECORD_SPREAD ? part : 0],
			   blank);
		break;
	case RECORD_BOOL:
		fputs(table ? (x->v.truth ? "yes" : "no")
			    : (x->v.truth ? "1" : "0"), f);
		break;
	case RECORD_FIGURES:
		for (unsigned i = 0; i < x->v.list.n; i++) {
			fputs(i ? sep : "", f);
			put_figure(f, format, ((const double *)x->v.list.items)[i],
				   blank);
		}
		break;
	case RECORD_WORDS:
		for (unsigned i = 0; i < x->v.list.n; i++)
			fprintf(f, "%s%s", i ? sep : "", texts[i]);
		break;
	case RECORD_PAIRS:
		for (unsigned i = 0; i < x->v.list.n; i++)
			fprintf(f, "%s%s=%s", i ? sep : "", texts[2 * i],
				texts[2 * i + 1]);
		break;
	}
}

/* --- csv ------------------------------------------------------------------------ */

static bool in_csv(const struct record_field *x)
{
	return !(x->flags & RECORD_NO_CSV);
}

/* A csv cell, quoted where it holds a comma, a quote or a line end. */
static void csv_cell(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

void record_write_csv_header(FILE *f, const struct record *r)
{
	static const char *const suffix[] = { "", "_min", "_max" };
	bool first = true;
	for (unsigned i = 0; i < r->n; i++) {
		const struct record_field *x = &r->fields[i];
		if (!in_csv(x))
			continue;
		for (int p = 0; p < (x->type == RECORD_SPREAD ? 3 : 1); p++) {
			fprintf(f, "%s%s%s%s%s", first ? "" : ",", x->name,
				suffix[p], x->group ? "_" : "",
				x->group ? x->group : "");
			first = false;
		}
	}
	putc('\n', f);
}

static void write_csv_row(FILE *f, const struct record *r)
{
	bool first = true;
	for (unsigned i = 0; i < r->n; i++) {
		const struct record_field *x = &r->fields[i];
		if (!in_csv(x))
			continue;
		for (int p = 0; p < (x->type == RECORD_SPREAD ? 3 : 1); p++) {
			struct cell c;
			cell_open(&c);
			cell_value(c.f, x, p, NULL, "|", false);
			fputs(first ? "" : ",", f);
			csv_cell(f, cell_close(&c));
			free(c.text);
			first = false;
		}
	}
	putc('\n', f);
}

/* --- the table ---------------------------------------------------------------------- */

/* One line's cells: cells[column]. */
struct table_line {
	char **cells;
};

static char *table_cell(const struct record *r,
			const struct record_column *col, int part)
{
	struct cell c;
	cell_open(&c);
	const struct record_field *x = record_find(r, col->field, NULL);
	if (part && (col->flags & RECORD_PART))
		fputs(part == 1 ? "min" : "max", c.f);
	else if (part && (!x || x->type != RECORD_SPREAD))
		; /* blank in a spread row */
	else if (!x)
		fputs("-", c.f);
	else
		cell_value(c.f, x, part, col->format, ", ", true);
	return cell_close(&c);
}

/* A cell padded to width columns (columns, not bytes: a mark may be
 * multibyte), left- or right-aligned. */
static void table_pad(FILE *f, const char *cell, int width, bool left)
{
	int pad = width - (int)wrap_width(cell);
	pad = pad > 0 ? pad : 0;
	if (left)
		fprintf(f, "%s%*s", cell, pad, "");
	else
		fprintf(f, "%*s%s", pad, "", cell);
}

/* The room a line has for the last column's sentence before it is put
 * under the row instead. */
#define TABLE_MIN_ROOM 24

/* One line: cells padded to widths, gaps between; no blanks at its end.
 * A last column of sentences (RECORD_LEFT) that would run past
 * WRAP_COLUMNS is broken at its blanks, each piece on a line of its own
 * starting where the column starts (or 4 in, where the row leaves it
 * less than TABLE_MIN_ROOM). */
static void table_print(FILE *f, const struct record_column *cols,
			unsigned n_cols, const int *width, char *const *cells)
{
	char *line = NULL;
	size_t len = 0;
	FILE *l = must(open_memstream(&line, &len));
	unsigned last = n_cols - 1;
	for (unsigned c = 0; c < last; c++) {
		int gap = c == 0 ? 0 : cols[c].gap ? cols[c].gap : 1;
		fprintf(l, "%*s", gap, "");
		table_pad(l, cells[c], width[c], cols[c].flags & RECORD_LEFT);
	}
	fprintf(l, "%*s", last == 0 ? 0 : cols[last].gap ? cols[last].gap : 1, "");
	fflush(l);
	size_t start = wrap_width(line);
	const char *rest = cells[last];
	bool wrap = (cols[last].flags & RECORD_LEFT) &&
		    start + wrap_width(rest) > WRAP_COLUMNS;
	if (!wrap)
		table_pad(l, rest, width[last], cols[last].flags & RECORD_LEFT);
	fclose(l);
	size_t indent = WRAP_COLUMNS - start >= TABLE_MIN_ROOM ? start : 4;
	bool beside = wrap && indent == start; /* its first piece on the row */
	while (len && line[len - 1] == ' ' && !beside)
		line[--len] = '\0';
	fprintf(f, "%s", line);
	free(line);
	if (wrap) {
		while (*rest) {
			size_t n = wrap_take(rest, WRAP_COLUMNS - indent);
			if (!beside)
				fprintf(f, "\n%*s", (int)indent, "");
			fprintf(f, "%.*s", (int)n, rest);
			beside = false;
			rest += n;
			while (*rest == ' ')
				rest++;
		}
	}
	fputc('\n', f);
}

static void write_table(FILE *f, const struct record *records, unsigned n,
			const struct record_column *cols, unsigned n_cols)
{
	size_t rows = 0, max_rows = 1;
	for (unsigned i = 0; i < n; i++)
		max_rows += records[i].spread_rows ? 3 : 1;
	char **cells = must(calloc(max_rows * n_cols, sizeof(char *)));
	int *width = must(calloc(n_cols, sizeof(int)));

	for (unsigned c = 0; c < n_cols; c++) {
		cells[c] = must(strdup(cols[c].title));
		width[c] = cols[c].width;
	}
	rows = 1;
	for (unsigned i = 0; i < n; i++) {
		if (is_host(&records[i]))
			continue;
		for (int part = 0; part < (records[i].spread_rows ? 3 : 1); part++) {
			for (unsigned c = 0; c < n_cols; c++)
				cells[rows * n_cols + c] = table_cell(&records[i],
								      &cols[c], part);
			rows++;
		}
	}
	for (size_t row = 0; row < rows; row++)
		for (unsigned c = 0; c < n_cols; c++) {
			int len = (int)wrap_width(cells[row * n_cols + c]);
			width[c] = len > width[c] ? len : width[c];
		}
	for (size_t row = 0; row < rows; row++)
		table_print(f, cols, n_cols, width, &cells[row * n_cols]);
	for (size_t i = 0; i < rows * n_cols; i++)
		free(cells[i]);
	free(cells);
	free(width);
}

/* --- the writer ---------------------------------------------------------------------- */

void record_write(FILE *f, enum record_format format,
		  const struct record *records, unsigned n,
		  const struct record_column *columns, unsigned n_columns)
{
	bool header = false;
	switch (format) {
	case RECORD_JSONL:
		for (unsigned i = 0; i < n; i++)
			write_jsonl(f, &records[i]);
		break;
	case RECORD_CSV:
		for (unsigned i = 0; i < n; i++) {
			if (is_host(&records[i]))
				continue;
			if (!header)
				record_write_csv_header(f, &records[i]);
			header = true;
			write_csv_row(f, &records[i]);
		}
		break;
	case RECORD_TABLE:
		write_table(f, records, n, columns, n_columns);
		break;
	}
}

/* --- the plotter --------------------------------------------------------------------- */

/* path = dir/rel/name, where it fits: true. */
static bool join_path(char *path, size_t len, const char *dir, const char *rel,
		      const char *name)
{
	int n = rel[0] == '/' ? snprintf(path, len, "%s/%s", rel, name)
		: rel[0] ? snprintf(path, len, "%s/%s/%s", dir, rel, name)
			 : snprintf(path, len, "%s/%s", dir, name);
	return n >= 0 && (size_t)n < len;
}

int record_find_script_from(const char *exe, const char *bin_to_data,
			    const char *source_dir, const char *name,
			    char *path, size_t len, char *err, size_t errlen)
{
	char exe_dir[PATH_MAX], looked[3][PATH_MAX], shown[3][PATH_MAX];
	const char *slash = exe ? strrchr(exe, '/') : NULL;
	/* Beside the executable: its build tree's copies, then where
	 * `meson install` put them for it (bindir -> datadir/maplab); then
	 * the source tree it was built from. */
	const char *places[3][2] = { { exe_dir, "../harness/results" },
				     { exe_dir, bin_to_data },
				     { source_dir, "" } };
	unsigned n = 0;

	snprintf(exe_dir, sizeof(exe_dir), "%.*s", slash ? (int)(slash - exe)
		 : 1, slash ? exe : ".");
	for (unsigned i = exe ? 0 : 2; i < 3; i++) {
		if (!join_path(looked[n], sizeof(looked[n]), places[i][0],
			       places[i][1], name))
			continue;
		if (access(looked[n], R_OK) == 0) {
			/* Shown in notes: the path without its "..". */
			char real[PATH_MAX];
			snprintf(path, len, "%s", realpath(looked[n], real)
				 ? real : looked[n]);
			return 0;
		}
		/* The folder, for the message. */
		parse_printable(looked[n], shown[n], sizeof(shown[n]));
		*strrchr(shown[n], '/') = '\0';
		n++;
	}
	/* "A, B nor C" */
	int used = snprintf(err, errlen, "%s is not in ", name);
	for (unsigned i = 0; i < n && used >= 0 && (size_t)used < errlen; i++)
		used += snprintf(err + used, errlen - (size_t)used, "%s%s",
				 i == 0 ? "" : i + 1 == n ? " nor " : ", ",
				 shown[i]);
	if (used >= 0 && (size_t)used < errlen)
		snprintf(err + used, errlen - (size_t)used, ": run maplab from "
			 "its build tree, or install it with meson install");
	return -ENOENT;
}

int record_find_script(const char *name, char *path, size_t len, char *err,
		       size_t errlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n >= 0)
		exe[n] = '\0';
	return record_find_script_from(n > 0 ? exe : NULL, MAPLAB_BIN_TO_DATA,
				       MAPLAB_RESULTS_SOURCE, name, path, len,
				       err, errlen);
}

const char *record_python(void)
{
	const char *chosen = getenv("MAPLAB_PYTHON");

	if (chosen && chosen[0])
		return chosen;
	if (access("/usr/bin/python3", X_OK) == 0)
		return "/usr/bin/python3";
	return "python3";
}

/*
 * What a script wrote on a pipe, kept to be said after it ends: all of it
 * where it succeeds, its last line (its one-line error) where it fails.
 * The first half goes on to stderr when the buffer fills, so the end is
 * always kept.
 */
struct captured {
	char buf[65536];
	size_t len;
};

static void capture_from(int fd, struct captured *c)
{
	for (;;) {
		if (c->len == sizeof(c->buf)) {
			size_t half = sizeof(c->buf) / 2;
			fwrite(c->buf, 1, half, stderr);
			memmove(c->buf, c->buf + half, c->len - half);
			c->len -= half;
		}
		ssize_t got = read(fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return;
		c->len += (size_t)got;
	}
}

/* The last line that is not blank, without its newline, into out. */
static void last_line(const struct captured *c, char *out, size_t len)
{
	size_t end = c->len, start;
	while (end > 0 && (c->buf[end - 1] == '\n' || c->buf[end - 1] == ' '))
		end--;
	for (start = end; start > 0 && c->buf[start - 1] != '\n'; start--)
		;
	snprintf(out, len, "%.*s", (int)(end - start), c->buf + start);
}

/* Why the script at `script` failed, in one line: its own line where it
 * wrote one as "NAME: ..." (fail_on_write's, report.py's), else the last
 * line it wrote (a traceback's exception), else its exit status. */
static void failure_note(const char *script, const struct captured *c,
			 int status, char *note, size_t notelen)
{
	const char *name = strrchr(script, '/') ? strrchr(script, '/') + 1
						 : script;
	char line[1024], shown[1024];
	last_line(c, line, sizeof(line));
	parse_printable(line, shown, sizeof(shown));
	if (strncmp(line, name, strlen(name)) == 0 &&
	    line[strlen(name)] == ':')
		snprintf(note, notelen, "%s", shown);
	else if (line[0])
		snprintf(note, notelen, "%s failed: %s", name, shown);
	else if (WIFEXITED(status))
		snprintf(note, notelen, "%s failed (exit status %d)", name,
			 WEXITSTATUS(status));
	else
		snprintf(note, notelen, "%s was killed (signal %d)", name,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/*
 * `python` running script on dir.  Its stdout goes to ours, or (to_stderr)
 * to our stderr.  capture: its stdout and stderr are read through a pipe,
 * said on our stderr when it succeeds, and its failure made one line.
 * 0; 1 with a note that starts with `what` ("no plots") where python
 * cannot be run; -1 with a note where the script failed (captured: its
 * own line).
 */
static int run_results_script(const char *script, const char *dir,
			      bool to_stderr, bool capture, const char *what,
			      char *note, size_t notelen)
{
	const char *python = record_python();
	char *argv[] = { (char *)python, (char *)script, (char *)dir, NULL };
	posix_spawn_file_actions_t actions;
	struct captured *c = NULL;
	int pipe_fd[2] = { -1, -1 };
	pid_t pid;
	int status, rc;
	char shown[512];

	parse_printable(dir, shown, sizeof(shown));
	note[0] = '\0';
	if (capture && (!(c = calloc(1, sizeof(*c))) ||
			pipe2(pipe_fd, O_CLOEXEC))) {
		snprintf(note, notelen, "%s: %s", what, map_errno_text(errno));
		free(c);
		return 1;
	}
	if ((rc = posix_spawn_file_actions_init(&actions))) {
		snprintf(note, notelen, "%s: %s", what, map_errno_text(rc));
		if (capture) {
			close(pipe_fd[0]);
			close(pipe_fd[1]);
		}
		free(c);
		return 1;
	}
	if (capture) {
		posix_spawn_file_actions_adddup2(&actions, pipe_fd[1],
						 STDOUT_FILENO);
		posix_spawn_file_actions_adddup2(&actions, pipe_fd[1],
						 STDERR_FILENO);
	} else if (to_stderr) {
		posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO,
						 STDOUT_FILENO);
	}
	rc = posix_spawnp(&pid, python, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (capture) {
		close(pipe_fd[1]);
		if (rc == 0)
			capture_from(pipe_fd[0], c);
		close(pipe_fd[0]);
	}
	if (rc) {
		snprintf(note, notelen, "%s: %s is %s (%s); the records are in "
			 "%s/results.jsonl: run python3 %s %s", what, python,
			 rc == ENOENT ? "not installed" : "not runnable",
			 map_errno_text(rc), shown, script, shown);
		free(c);
		return 1;
	}
	while ((rc = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (rc < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (c)
			failure_note(script, c, rc < 0 ? 0 : status, note,
				     notelen);
		else
			snprintf(note, notelen, "%s: %s failed (above); the "
				 "records are in %s/results.jsonl", what, script,
				 shown);
		free(c);
		return -1;
	}
	if (c)
		fwrite(c->buf, 1, c->len, stderr);
	free(c);
	return 0;
}

int record_plot(const char *plotter, const char *dir, char *note,
		size_t notelen)
{
	/* Its line of what it wrote (the plots' paths) goes to stderr, with
	 * maplab's other notes: maplab's stdout may be jsonl. */
	return run_results_script(plotter, dir, true, true, "no plots", note,
				  notelen);
}
