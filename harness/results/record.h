/* SPDX-License-Identifier: MIT */
/*
 * record.h: maplab's one result record and its one writer.
 *
 * A record is a kind ("result": a point of bench, kbench or compare; "sim":
 * a point of sim; "host": the machine, once per run) and an ordered list of
 * named, typed fields.  The commands only describe their fields and build
 * records (report.c, sim_report.c, host.c); every byte of layout, in each
 * of the three formats, is written here, by these rules:
 *
 *   type     jsonl                csv                    table cell
 *   text     "escaped"            as is; quoted where    as is
 *                                 it holds , " or a \n
 *   whole    123                  123                    123
 *   figure   its printf format    its format             the column's format,
 *                                                        else its own
 *   spread   F, F_min, F_max      three columns          the median; the min
 *                                                        and max in spread rows
 *   bool     true / false         1 / 0                  yes / no
 *   figures  [1.5,null,...]       joined by |            joined by ", "
 *   words    ["a","b"]            joined by |            joined by ", "
 *   pairs    {"a":"x","b":"y"}    a=x|b=y                a=x, b=y
 *
 *   not measured (a NULL text, a NaN figure, a field marked missing):
 *            null, or left out    an empty cell          -
 *            with RECORD_OMIT
 *
 * jsonl: one line a record, {"record":KIND,...fields}; the fields of one
 * group nest in one object named by the group, written where the group's
 * first field stands (the host's fields in "host"; bench's op counts in
 * "ok" and "fail").
 *
 * csv: a header line of the field names (a spread's three; a grouped
 * field's NAME_GROUP: lookup_ok), then a row per record.  Every record of
 * one csv has the same fields in the same order; host records are not
 * written (csv has none).
 *
 * table: a line of column titles, then a row per record, each column as
 * wide as its width, its title and its widest cell; numbers right-aligned,
 * RECORD_LEFT columns left-aligned; no blanks at a line's end; widths
 * in characters (wrap.h).  A last column of sentences (RECORD_LEFT) that
 * would run a line past WRAP_COLUMNS is broken at its blanks onto lines
 * under the row, from where the column starts.  A record
 * with spread_rows gets two more rows under it: each spread field's least
 * and greatest, the RECORD_PART column saying "min" and "max", the other
 * columns blank.  Host records are not written (a table's foot names the
 * host in a sentence: host_record_line).
 *
 * Texts, names and groups are not copied (they must outlive the writing),
 * except those of record_textf; lists are copied.
 */
#ifndef MAPLAB_RECORD_H
#define MAPLAB_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum record_format { RECORD_TABLE, RECORD_JSONL, RECORD_CSV };

/* "table", "jsonl" or "csv" into *out: 0, or -1 for another name. */
int record_parse_format(const char *name, enum record_format *out);

enum record_type {
	RECORD_TEXT,
	RECORD_WHOLE,
	RECORD_FIGURE,
	RECORD_SPREAD,  /* a figure over repeats: median, min, max */
	RECORD_BOOL,
	RECORD_FIGURES, /* a list of figures, NaN for one not measured */
	RECORD_WORDS,   /* a list of texts */
	RECORD_PAIRS,   /* a list of (name, text) */
};

/* A field's flags. */
enum {
	RECORD_OMIT = 1 << 0,     /* jsonl: left out when not measured */
	RECORD_NO_JSONL = 1 << 1, /* not in jsonl */
	RECORD_NO_CSV = 1 << 2,   /* not in csv */
	/* A table's own cell (a sentence made for its readers). */
	RECORD_TABLE_ONLY = RECORD_NO_JSONL | RECORD_NO_CSV,
};

struct record_field {
	const char *name;
	const char *group;  /* NULL: none */
	enum record_type type;
	unsigned flags;
	const char *format; /* printf format of a figure, spread or figures */
	bool missing;       /* not measured */
	union {
		const char *text;
		uint64_t whole;
		double figure[3]; /* a figure: [0]; a spread: median, min, max */
		bool truth;
		struct {
			const void *items; /* doubles; texts; (name, text) pairs */
			unsigned n;
		} list;
	} v;
};

struct record {
	const char *kind;  /* "result", "sim", "host" */
	bool spread_rows;  /* table: the minima and maxima under its row */
	struct record_field *fields;
	unsigned n, cap;
	struct record_block *blocks; /* what it copied, freed with it */
};

void record_init(struct record *r, const char *kind);
void record_free(struct record *r);

/*
 * Add a field; each returns it, so that a caller may set its group and
 * flags (the pointer holds until the next field is added).  A record that cannot grow (no memory) aborts with a message:
 * records are small, and a half-written record would be a wrong one.
 */
struct record_field *record_text(struct record *r, const char *name,
				 const char *text /* NULL: not measured */);
struct record_field *record_textf(struct record *r, const char *name,
				  const char *format, ...)
	__attribute__((format(printf, 3, 4)));
struct record_field *record_whole(struct record *r, const char *name,
				  uint64_t value);
struct record_field *record_figure(struct record *r, const char *name,
				   const char *format, double value);
struct record_field *record_spread(struct record *r, const char *name,
				   const char *format, double median,
				   double min, double max);
struct record_field *record_bool(struct record *r, const char *name,
				 int value /* < 0: not known */);
struct record_field *record_figures(struct record *r, const char *name,
				    const char *format, const double *values,
				    unsigned n);
struct record_field *record_words(struct record *r, const char *name,
				  const char *const *words, unsigned n);
struct record_field *record_pairs(struct record *r, const char *name,
				  const char *const *pairs /* 2n: name, text */,
				  unsigned n);

/* The field of that name (and group; NULL: none), or NULL. */
const struct record_field *record_find(const struct record *r,
				       const char *name, const char *group);

/* A table's column: the field it shows and how. */
enum {
	RECORD_LEFT = 1 << 0, /* left-aligned (names, sentences) */
	RECORD_PART = 1 << 1, /* says "min" and "max" in spread rows */
};

struct record_column {
	const char *title;
	const char *field;  /* the field shown; a record without it: "-" */
	int width;          /* at least this wide */
	unsigned flags;
	const char *format; /* a figure's format here; NULL: the field's */
	int gap;            /* blanks before it (0: one); none before the first */
};

/*
 * The records in format (the rules above).  jsonl writes every record, in
 * order; csv and the table leave host records out; `columns` are the
 * table's (unused otherwise).
 */
void record_write(FILE *f, enum record_format format,
		  const struct record *records, unsigned n,
		  const struct record_column *columns, unsigned n_columns);

/* csv's header line for records like r (a csv of no rows). */
void record_write_csv_header(FILE *f, const struct record *r);

/*
 * Where maplab's script `name` is (report.py, findings.py; plotting.py,
 * which both import, lies beside each copy), so that a maplab run from
 * anywhere finds the scripts that came with it.  In order:
 *   1. its build tree's copies, beside the executable:
 *      EXE_DIR/../harness/results/NAME (harness/results/meson.build
 *      copies them there);
 *   2. its install: EXE_DIR/BINDIR_TO_DATADIR/maplab/NAME, where
 *      `meson install` (with or without --destdir) puts them
 *      (bin/ -> ../share/maplab/ with the default directories);
 *   3. the source tree it was built from.
 * EXE_DIR is the folder of /proc/self/exe.  0 with the path (without
 * "..") in path; or -ENOENT with one line in err that names the folders
 * it looked in.
 */
int record_find_script(const char *name, char *path, size_t len, char *err,
		       size_t errlen);

/* The same from exe (an executable's path; NULL: none, only source_dir),
 * bin_to_data (the installed scripts' folder from the executable's:
 * relative, or absolute) and source_dir (a source tree's
 * harness/results): for tests. */
int record_find_script_from(const char *exe, const char *bin_to_data,
			    const char *source_dir, const char *name,
			    char *path, size_t len, char *err, size_t errlen);

/*
 * The one plotter, at `plotter` (record_find_script's report.py), run on
 * dir, which holds a results.jsonl: it draws every plot those records make
 * (report.py's top).  The python that runs it: $MAPLAB_PYTHON where set,
 * else /usr/bin/python3 where it exists (Debian's, with
 * python3-matplotlib), else python3 from PATH.  What it prints (the
 * plots' paths, its notes: matplotlib missing) is read through a pipe and
 * said on stderr once it has succeeded.  0 (matplotlib missing included:
 * report.py says so itself, and exits 0); 1 with one line in note where
 * no plot could be drawn and the records stand (python missing: the note
 * says how to draw them later); or -1 with one line in note where the
 * plotter failed: its own one line where it wrote one (a plot it could
 * not write whole: "report.py: PATH: No space left on device"; it left no
 * partial file), else its last line (a traceback's exception).
 */
int record_plot(const char *plotter, const char *dir, char *note,
		size_t notelen);

/*
 * The python that runs maplab's scripts (the plotter, findings.py):
 * $MAPLAB_PYTHON where set (a venv's, with matplotlib); else Debian's
 * /usr/bin/python3, where python3-matplotlib is (a python3 earlier on
 * PATH, pyenv's say, may lack it); else python3 from PATH.
 */
const char *record_python(void);

#endif /* MAPLAB_RECORD_H */
