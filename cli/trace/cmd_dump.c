/* SPDX-License-Identifier: MIT */
/*
 * maplab dump: a design's inner state after a trace.
 *
 * The trace is replayed by harness/trace's replayer (replay.h: on cpu 0
 * or a `cpu N` line's, a line at a time), its result lines discarded, and each map the trace
 * makes is dumped through map_ops.dump_state once its last op has run:
 * when the next map line replaces it, or at the end of the trace.  So a
 * trace with several map lines gets one dump per map, in order, each after
 * a comment line ("# ..." in text, "// ..." in dot, which Graphviz skips)
 * that names its map line and the trace's last line on that map.
 *
 * The replayer knows nothing of dumps: it is handed a copy of the design's
 * map_ops whose create notes which map line it serves and whose destroy
 * dumps the map before destroying it.  A destroy has only the map to go
 * on, so what the dumps need lives in one record of this file, set before
 * the replay and read by those two calls (the replay runs on this thread
 * alone, and one dump command runs at a time).
 */
#include "cli/cli.h"
#include "cli/options.h"
#include "harness/common/outfile.h"
#include "harness/common/parse.h"
#include "harness/trace/replay.h"
#include "harness/trace/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char usage_dump[] =
	"usage: maplab dump --map DESIGN --trace FILE [--format text|dot]\n\n"
	"Replays the trace on the design (on cpu 0 or a `cpu N` line's cpu, as\n"
	"replay does; the result lines are not shown) and prints the design's\n"
	"inner state after the last op on each map: its lists in order, each\n"
	"key with its reference bit (*), its hands and partitions.  A trace\n"
	"with several map lines gets a dump per map, in order, each after a\n"
	"comment line naming its map line.  --format dot writes Graphviz digraphs instead (dot -Tsvg).\n"
	"Every map line must be of the design's type.  Exit 0: dumped; 2: bad\n"
	"input, a design without a dump, a map the design refused, or an error\n"
	"of the trace.\n";
static const char after_dump[] =
	"example:\n  maplab dump --map lru/global --trace my.trace --format dot | "
	"dot -Tsvg >lru.svg\n";

static const struct cmd_option dump_options[] = {
	{ &opt_map_one, "the design to dump (maplab list)" },
	{ &opt_trace, NULL },
	{ &opt_format, "text, or dot: Graphviz digraphs (text)" },
	{ &opt_model, "the kernel version a faithful design behaves as\n"
		      "(maplab list; default: the newest)" },
};

struct dump_cmd {
	const char *map;
	const char *file;
	enum map_dump_format format;
	uint32_t model;
};

static int apply_dump_option(void *ctx, enum opt_id id,
			     const struct opt_value *v)
{
	struct dump_cmd *c = ctx;
	char shown[80];
	switch (id) {
	case OPT_MAP: c->map = v->text; return 0;
	case OPT_TRACE: c->file = v->text; return 0;
	case OPT_MODEL: return opts_model("dump", v->text, &c->model);
	case OPT_FORMAT:
		if (strcmp(v->text, "text") == 0)
			c->format = MAP_DUMP_TEXT;
		else if (strcmp(v->text, "dot") == 0)
			c->format = MAP_DUMP_DOT;
		else
			return cli_error("dump", "--format wants text or dot, got "
					 "'%s'", parse_printable(v->text, shown,
								 sizeof(shown)));
		return 0;
	default: return cli_error("dump", "option not handled here (a bug)");
	}
}

/* What the wrapped create and destroy need (see the top of the file). */
static struct dump_state {
	const struct map_ops *design;
	const struct trace *t;
	const char *trace_name;
	enum map_dump_format format;
	size_t maps_made;   /* map lines met so far */
	size_t map_line;    /* trace.lines index of the map line in force */
	char failure[256];  /* the first thing that went wrong, or "" */
} dump;

static void fail_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail_once(const char *fmt, ...)
{
	if (dump.failure[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dump.failure, sizeof(dump.failure), fmt, ap);
	va_end(ap);
}

/* The index in t->lines of its n-th map line (0-based). */
static size_t nth_map_line(const struct trace *t, size_t n)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->lines[i].op == TRACE_MAP && n-- == 0)
			return i;
	return t->n;
}

static int dump_create(const struct map_attr *attr, struct map **out)
{
	dump.map_line = nth_map_line(dump.t, dump.maps_made++);
	int err = dump.design->create(attr, out);
	if (err) {
		char name[32];
		trace_format_errno(-err, name, sizeof(name));
		fail_once("%s:%u: %s refuses this map (%s): nothing to dump",
			  dump.trace_name, dump.t->lines[dump.map_line].lineno,
			  dump.design->name, name);
	}
	return err;
}

/* "# lru/global: the map of line 1 (lru_hash key_size=4 ...), after line 9". */
static void print_heading(void)
{
	const struct trace_line *map_line = &dump.t->lines[dump.map_line];
	size_t last = dump.map_line;
	while (last + 1 < dump.t->n && dump.t->lines[last + 1].op != TRACE_MAP)
		last++;
	printf("%s %s: the map of line %u (", dump.format == MAP_DUMP_DOT ? "//"
	       : "#", dump.design->name, map_line->lineno);
	trace_print_line(stdout, dump.t, dump.map_line);
	if (last == dump.map_line)
		printf("), before any op on it\n");
	else
		printf("), after line %u\n", dump.t->lines[last].lineno);
}

static void dump_destroy(struct map *m)
{
	print_heading();
	int err = dump.design->dump_state(m, stdout, dump.format);
	if (err)
		fail_once("%s could not dump its state: %s", dump.design->name,
			  map_errno_text(-err));
	dump.design->destroy(m);
}

/* Every map line must be the design's type: one design serves them all. */
static int check_map_lines(const struct trace *t, const char *name,
			   const struct map_ops *design)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_line *l = &t->lines[i];
		if (l->op == TRACE_MAP && l->attr.type != design->type)
			return cli_error("dump", "%s:%u: a %s map line, and %s is "
					 "a %s design (every map line must be of "
					 "its type)", name, l->lineno,
					 map_type_name(l->attr.type), design->name,
					 map_type_name(design->type));
	}
	if (nth_map_line(t, 0) == t->n)
		return cli_error("dump", "%s has no map line: nothing to dump",
				 name);
	return 0;
}

/* The design --map names, if it can dump.  0 or EXIT_USAGE. */
static int find_design(const struct dump_cmd *c, const struct map_ops **out)
{
	if (!c->map || !c->file)
		return cli_error("dump", "give --map DESIGN and --trace FILE (try "
				 "--help)");
	*out = map_find(c->map);
	if (!*out)
		return opts_no_design("dump", c->map, "");
	if (!(*out)->dump_state)
		return cli_error("dump", "%s has no inner state to show (its "
				 "map_ops has no dump_state)", (*out)->name);
	return 0;
}

/* The write of the replay's results stream: taken whole, kept nowhere. */
static ssize_t discard_results(void *cookie, const char *buf, size_t size)
{
	(void)cookie, (void)buf;
	return (ssize_t)size;
}

/* Replay t with the wrapped design; 0, or EXIT_USAGE after one line. */
static int replay_and_dump(const struct dump_cmd *c, const struct trace *t,
			   const char *name, const struct map_ops *design)
{
	struct map_ops wrapped = *design;
	wrapped.create = dump_create;
	wrapped.destroy = dump_destroy;
	dump = (struct dump_state){ .design = design, .t = t,
				    .trace_name = name, .format = c->format };

	/* The replay's result lines go nowhere: a stream whose writer takes
	 * every byte and keeps none (a cookie without a writer would fail
	 * its first flush, and the replay stop with it). */
	FILE *results = fopencookie(NULL, "w", (cookie_io_functions_t){
					    .write = discard_results });
	char err[512];
	if (!results)
		return cli_error("dump", "out of memory");
	struct replay_side side = replay_fixed_side(design->name, &wrapped, NULL);
	side.model = c->model;
	enum replay_stop stop = replay_run(t, name, &side, results, false,
					   err, sizeof(err));
	fclose(results);
	/* The dumps went to stdout as each map ended: a write that failed
	 * there is the one line, before anything else that went wrong (the
	 * dumps are lost either way). */
	struct outfile out;
	out_stdout(&out);
	int werr = out_close(&out);
	if (werr)
		return opts_write_failed("dump", &out, werr);
	if (stop)
		return cli_error("dump", "%s", err);
	if (dump.failure[0])
		return cli_error("dump", "%s", dump.failure);
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	struct dump_cmd c = { .format = MAP_DUMP_TEXT };
	const struct map_ops *design = NULL;
	struct trace t;
	int rc = opts_parse("dump", argc, argv, dump_options,
			    sizeof(dump_options) / sizeof(dump_options[0]),
			    apply_dump_option, &c, usage_dump, after_dump);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	if ((rc = find_design(&c, &design)) ||
	    (rc = cli_read_trace("dump", c.file, &t)))
		return rc;
	char name[CLI_TRACE_NAME_LEN];
	cli_trace_name(c.file, name, sizeof(name));
	rc = check_map_lines(&t, name, design);
	if (!rc)
		rc = replay_and_dump(&c, &t, name, design);
	trace_free(&t);
	return rc;
}
