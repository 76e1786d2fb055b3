/* SPDX-License-Identifier: MIT */
/*
 * record.c: records built, and written as jsonl, csv or a table
 * (record.h has the rules); and the one plotter run on a folder of them.
 */
#include "harness/results/record.h"
#include "harness/common/parse.h"
#include "harness/common/wrap.h"
#include "maps/base/map.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MAPLAB_PLOTTER
#define MAPLAB_PLOTTER "harness/results/report.py"
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

/*
 * The python that runs the plotter: $MAPLAB_PYTHON where set (a venv's,
 * one with matplotlib); else Debian's /usr/bin/python3, where the distro's
 * python3-matplotlib is (a python3 earlier on PATH, pyenv's say, may lack
 * it); else python3 from PATH.
 */
static const char *plot_python(void)
{
	const char *chosen = getenv("MAPLAB_PYTHON");

	if (chosen && chosen[0])
		return chosen;
	if (access("/usr/bin/python3", X_OK) == 0)
		return "/usr/bin/python3";
	return "python3";
}

/* `python` running script on dir, its stdout to ours or (to_stderr) to our
 * stderr.  0, or 1 with a note that starts with `what` ("no plots"). */
static int run_results_script(const char *script, const char *dir,
			      bool to_stderr, const char *what, char *note,
			      size_t notelen)
{
	const char *python = plot_python();
	char *argv[] = { (char *)python, (char *)script, (char *)dir, NULL };
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int status, rc;
	char shown[512];

	parse_printable(dir, shown, sizeof(shown));
	note[0] = '\0';
	if (access(script, R_OK)) {
		snprintf(note, notelen, "%s: %s is missing (this maplab was built "
			 "from a source tree that has moved); the records are in "
			 "%s/results.jsonl", what, script, shown);
		return 1;
	}
	if (posix_spawn_file_actions_init(&actions)) {
		snprintf(note, notelen, "%s: out of memory", what);
		return 1;
	}
	if (to_stderr)
		posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO,
						 STDOUT_FILENO);
	rc = posix_spawnp(&pid, python, &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (rc) {
		snprintf(note, notelen, "%s: %s is %s (%s); the records are in "
			 "%s/results.jsonl: run python3 %s %s", what, python,
			 rc == ENOENT ? "not installed" : "not runnable",
			 map_errno_text(rc), shown, script, shown);
		return 1;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		snprintf(note, notelen, "%s: %s failed (above); the records are "
			 "in %s/results.jsonl", what, script, shown);
		return 1;
	}
	return 0;
}

int record_plot(const char *dir, char *note, size_t notelen)
{
	/* Its line of what it wrote (the plots' paths) goes to stderr, with
	 * maplab's other notes: maplab's stdout may be jsonl. */
	return run_results_script(MAPLAB_PLOTTER, dir, true, "no plots", note,
				  notelen);
}

int record_findings(const char *dir, char *note, size_t notelen)
{
	/* Its answers are the command's output: stdout. */
	return run_results_script(MAPLAB_FINDINGS, dir, false, "no findings",
				  note, notelen);
}
