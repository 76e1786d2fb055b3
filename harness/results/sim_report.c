/* SPDX-License-Identifier: MIT */
/*
 * sim_report.c: sim's rows as records (sim_report.h has the fields), the
 * table's sentences around them, and the folder the plotter draws from.
 */
#include "harness/results/sim_report.h"
#include "harness/results/report.h"
#include "harness/common/wrap.h"
#include "harness/common/parse.h"
#include "maps/base/map.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : NAN;
}

static double byte_ratio(const struct sim_result *r)
{
	return r->has_bytes && r->bytes > 0 ? r->byte_misses / r->bytes : NAN;
}

static double effective(const struct sim_row *w)
{
	return isnan(w->r.live_mean) ? NAN : w->r.live_mean / w->entries;
}

/* The host in a row's own columns: a csv or a jsonl of one shape has no
 * host record, and rows of several hosts stay apart in one frame. */
static void host_columns(const struct host_record *host, struct record *r)
{
	record_text(r, "host_hostname", host->hostname);
	record_text(r, "host_cpu_model", host->cpu_model);
	record_text(r, "host_kernel", host->kernel);
	record_whole(r, "host_nproc", (uint64_t)host->nproc)->missing =
		host->nproc < 0;
	record_text(r, "host_date", host->date);
}

/* Figures to nine significant digits: enough for any ratio's last count. */
#define FIGURE "%.9g"

static void sim_record(const struct sim_report *rep,
		       const struct host_record *host, const struct sim_row *w,
		       struct record *r)
{
	const struct sim_input *in = rep->in;
	record_init(r, "sim");
	record_text(r, "trace", in->trace->name);
	record_text(r, "format", rep->format_name);
	record_whole(r, "requests_total", in->n);
	record_whole(r, "distinct_keys", in->distinct);
	record_whole(r, "key_size", in->key_size);
	record_bool(r, "keys_hashed", in->hashed);
	record_whole(r, "warmup_requests", in->warmup);
	record_text(r, "policy", w->policy);
	record_whole(r, "entries", w->entries);
	record_whole(r, "threads", w->threads);
	record_text(r, "split", rep->split);
	record_whole(r, "requests", w->r.requests);
	record_whole(r, "misses", w->r.misses);
	record_figure(r, "miss_ratio", FIGURE, ratio(w->r.misses, w->r.requests));
	record_figure(r, "byte_miss_ratio", FIGURE, byte_ratio(&w->r));
	record_whole(r, "evictions", w->r.evictions)->missing =
		!w->r.has_evictions;
	record_whole(r, "insert_failures", w->r.insert_failures);
	record_figure(r, "seconds", FIGURE, w->r.seconds);
	record_figure(r, "mreq_per_s", FIGURE, w->r.mreq_per_s);
	record_figure(r, "live_mean", FIGURE, w->r.live_mean);
	record_figure(r, "effective_capacity", FIGURE, effective(w));
	record_figure(r, "meta_bytes_per_entry", FIGURE, w->r.meta_per_entry);
	record_figure(r, "stray", FIGURE, w->r.stray);
	record_whole(r, "stray_victims", w->r.stray_victims);
	/* Last, so that the columns above keep their places in csv. */
	record_whole(r, "repeat", w->repeat);
	record_whole(r, "repeats", rep->repeats);
	record_whole(r, "cpus", w->cpus);
	record_bool(r, "serial", w->serial);
	/* String keys (simkeys.h): ids are their hashes. */
	record_bool(r, "ids_hashed_from_strings", in->trace->string_keys);
	record_whole(r, "id_collisions", in->trace->id_collisions);
	host_columns(host, r);
}

/* A record per row, after the host's where `with_host`; *out to
 * free_records. */
static unsigned build_records(const struct host_record *host,
			      const struct sim_report *rep, bool with_host,
			      struct record **out)
{
	unsigned first = with_host ? 1 : 0;
	struct record *r = calloc((size_t)rep->n + 1, sizeof(*r));
	if (!r) {
		fputs("maplab: out of memory writing the report\n", stderr);
		abort();
	}
	if (with_host)
		host_record_build(host, &r[0]);
	for (unsigned i = 0; i < rep->n; i++)
		sim_record(rep, host, &rep->rows[i], &r[first + i]);
	*out = r;
	return rep->n + first;
}

static void free_records(struct record *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		record_free(&r[i]);
	free(r);
}

/* --- the table: a line per point, its repeats summed up ------------------------------ */

typedef double (*row_figure)(const struct sim_row *w);

static double row_misses(const struct sim_row *w) { return (double)w->r.misses; }
static double row_miss_ratio(const struct sim_row *w)
{
	return ratio(w->r.misses, w->r.requests);
}
static double row_byte_ratio(const struct sim_row *w) { return byte_ratio(&w->r); }
static double row_evictions(const struct sim_row *w)
{
	return w->r.has_evictions ? (double)w->r.evictions : NAN;
}
static double row_mreq(const struct sim_row *w) { return w->r.mreq_per_s; }
static double row_meta(const struct sim_row *w) { return w->r.meta_per_entry; }
static double row_stray(const struct sim_row *w) { return w->r.stray; }

/* A figure of point i over its repeats (sim_report.h: rows' order). */
static struct spread over_repeats(const struct sim_report *rep, unsigned i,
				  row_figure get)
{
	double v[SIM_REPORT_MAX_REPEATS];
	unsigned points = rep->n / rep->repeats;
	for (unsigned r = 0; r < rep->repeats; r++)
		v[r] = get(&rep->rows[r * points + i]);
	return spread_of(v, rep->repeats);
}

/* Point i's miss ratio differs between its repeats: threads interleave
 * their requests differently each run. */
static bool miss_varies(const struct sim_report *rep, unsigned i)
{
	struct spread s = over_repeats(rep, i, row_miss_ratio);
	return s.max > s.min;
}

/* A figure's least and greatest as a table's cell, "-" for none. */
static struct record_field *range_cell(struct record *r, const char *name,
				       const char *format, struct spread s)
{
	if (isnan(s.min))
		return record_text(r, name, NULL);
	return record_textf(r, name, format, s.min, s.max);
}

/* Point i as the table's record: each figure its median over the
 * repeats, Mreq/s's and the miss ratio's least and greatest as text. */
static void point_record(const struct sim_report *rep, unsigned i,
			 struct record *r)
{
	const struct sim_row *w = &rep->rows[i];
	struct spread miss = over_repeats(rep, i, row_miss_ratio);
	struct spread mreq = over_repeats(rep, i, row_mreq);
	struct spread eff = over_repeats(rep, i, effective);
	record_init(r, "sim");
	record_text(r, "policy", w->policy);
	record_whole(r, "entries", w->entries);
	record_whole(r, "threads", w->threads);
	record_whole(r, "cpus", w->cpus);
	record_whole(r, "requests", w->r.requests);
	record_figure(r, "misses", "%.0f", over_repeats(rep, i, row_misses).median);
	record_figure(r, "miss_ratio", FIGURE, miss.median);
	range_cell(r, "miss_range", "%.4f-%.4f", miss);
	record_figure(r, "byte_miss_ratio", FIGURE,
		      over_repeats(rep, i, row_byte_ratio).median);
	record_figure(r, "evictions", "%.0f",
		      over_repeats(rep, i, row_evictions).median);
	record_figure(r, "mreq_per_s", FIGURE, mreq.median);
	range_cell(r, "mreq_range", "%.2f-%.2f", mreq);
	record_figure(r, "effective_capacity", FIGURE, eff.median);
	record_figure(r, "meta_bytes_per_entry", FIGURE,
		      over_repeats(rep, i, row_meta).median);
	record_figure(r, "stray", FIGURE, over_repeats(rep, i, row_stray).median);
}

/* The columns shown: the byte miss ratio where the trace has sizes; with
 * repeats, Mreq/s's range, and the miss ratio's where any point's varies. */
static unsigned table_columns(const struct sim_report *rep,
			      struct record_column *shown)
{
	static const struct record_column cols[] = {
		{ "policy", "policy", 24, RECORD_LEFT, NULL, 0 },
		{ "entries", "entries", 8, 0, NULL, 0 },
		{ "thr", "threads", 3, 0, NULL, 0 },
		{ "cpus", "cpus", 4, 0, NULL, 0 },
		{ "requests", "requests", 10, 0, NULL, 0 },
		{ "misses", "misses", 10, 0, NULL, 0 },
		{ "miss", "miss_ratio", 8, 0, "%.4f", 0 },
		{ "miss min-max", "miss_range", 13, 0, NULL, 0 },
		{ "bytemiss", "byte_miss_ratio", 8, 0, "%.4f", 0 },
		{ "evictions", "evictions", 10, 0, NULL, 0 },
		{ "Mreq/s", "mreq_per_s", 8, 0, "%.2f", 0 },
		{ "min-max", "mreq_range", 11, 0, NULL, 0 },
		{ "effcap", "effective_capacity", 7, 0, "%.3f", 0 },
		{ "meta/e", "meta_bytes_per_entry", 6, 0, "%.0f", 0 },
		{ "stray", "stray", 7, 0, "%.4f", 0 },
	};
	unsigned points = rep->n / rep->repeats, n = 0;
	bool varies = false, serial = false;
	for (unsigned i = 0; i < points && rep->repeats > 1; i++)
		varies = varies || miss_varies(rep, i);
	for (unsigned i = 0; i < rep->n; i++)
		serial = serial || rep->rows[i].serial;
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		const char *field = cols[c].field;
		if ((!rep->in->has_sizes && !strcmp(field, "byte_miss_ratio")) ||
		    (rep->repeats == 1 && !strcmp(field, "mreq_range")) ||
		    (!varies && !strcmp(field, "miss_range")) ||
		    (!serial && !strcmp(field, "cpus")))
			continue;
		shown[n++] = cols[c];
	}
	return n;
}

static void write_table(FILE *f, const struct sim_report *rep)
{
	const struct sim_input *in = rep->in;
	struct record_column shown[16];
	unsigned n_shown = table_columns(rep, shown);
	unsigned points = rep->repeats ? rep->n / rep->repeats : 0;
	struct record *records = calloc(points + 1, sizeof(*records));
	if (!records) {
		fputs("maplab: out of memory writing the report\n", stderr);
		abort();
	}
	for (unsigned i = 0; i < points; i++)
		point_record(rep, i, &records[i]);

	wrap_printf(f, "trace %s (%s): %zu requests, %u distinct keys, warm-up %llu"
		", key_size %u%s\n", in->trace->name, rep->format_name,
		in->n, in->distinct, (unsigned long long)in->warmup,
		in->key_size, in->hashed ? " (ids hashed down: collisions "
		"change miss ratios)" : "");
	if (in->trace->string_keys)
		wrap_printf(f, "keys: strings, hashed to 8-byte ids with %s: "
			    "%llu collisions (distinct strings on one id)\n",
			    in->trace->id_hash, (unsigned long long)
			    in->trace->id_collisions);
	if (rep->notes)
		wrap_printf(f, "%s\n", rep->notes);
	if (rep->repeats > 1)
		wrap_printf(f, "%u repeats, every point in turn within each: each "
			    "figure is the median of its %u runs, min-max the "
			    "least and the greatest\n", rep->repeats, rep->repeats);
	fputc('\n', f);
	record_write(f, RECORD_TABLE, records, points, shown, n_shown);
	wrap_printf(f, "\nmiss: misses / requests (after the warm-up); Mreq/s: every "
		"request, warm-up included; effcap: mean live entries / entries; "
		"meta/e: bytes per entry beyond key and value; stray: share of "
		"victims not among the k least recently used (one thread).  "
		"split: %s.%s\n", rep->split, rep->rows && rep->n &&
		rep->rows[rep->n - 1].serial ? "  cpus: serial cpus (--cpus): "
		"one thread replays the requests in order, each as the cpu the "
		"split gives it, so the figures repeat exactly" : "");
	free_records(records, points);
}

/* --- the writers --------------------------------------------------------------------- */

void sim_report_write(FILE *f, enum record_format format,
		      const struct host_record *host,
		      const struct sim_report *rep)
{
	struct record *records;
	unsigned n;
	if (format == RECORD_TABLE) {
		write_table(f, rep);
		host_record_line(f, host);
		return;
	}
	n = build_records(host, rep, false, &records);
	if (format == RECORD_CSV && n == 0) {
		/* No rows: the header alone. */
		struct sim_row none = { .policy = "" };
		struct record any;
		sim_record(rep, host, &none, &any);
		record_write_csv_header(f, &any);
		record_free(&any);
	} else {
		record_write(f, format, records, n, NULL, 0);
	}
	free_records(records, n);
}

void sim_report_log(FILE *f, const struct host_record *host,
		    const struct sim_report *rep)
{
	struct record *records;
	unsigned n = build_records(host, rep, true, &records);
	record_write(f, RECORD_JSONL, records, n, NULL, 0);
	free_records(records, n);
}

int sim_plot_open(struct sim_plot *p, const char *dir, char *err,
		  size_t errlen)
{
	char path[sizeof(p->dir) + 16];
	struct stat st;
	int rc;

	memset(p, 0, sizeof(*p));
	parse_printable(dir, p->shown, sizeof(p->shown));
	if (strlen(dir) >= sizeof(p->dir)) {
		snprintf(err, errlen, "%s: %s", p->shown,
			 map_errno_text(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	strcpy(p->dir, dir);
	if ((rc = record_find_script("report.py", p->plotter,
				     sizeof(p->plotter), err, errlen)))
		return rc;
	if (mkdir(dir, 0777) == 0) {
		p->made_dir = true;
	} else if (errno != EEXIST || stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		rc = errno == EEXIST ? ENOTDIR : errno;
		snprintf(err, errlen, "cannot create %s: %s", p->shown,
			 map_errno_text(rc));
		return -rc;
	}
	snprintf(path, sizeof(path), "%s/results.jsonl", dir);
	if ((rc = out_open(&p->records, path, OUT_TRUNCATE))) {
		char shown[600];
		snprintf(err, errlen, "cannot write %s: %s",
			 parse_printable(path, shown, sizeof(shown)),
			 map_errno_text(-rc));
		if (p->made_dir)
			rmdir(dir);
		return rc;
	}
	return 0;
}

void sim_plot_discard(struct sim_plot *p)
{
	out_discard(&p->records);
	if (p->made_dir)
		rmdir(p->dir); /* only where empty: nothing else is lost */
}

int sim_plot_draw(struct sim_plot *p, const struct host_record *host,
		  const struct sim_report *rep, char *note, size_t notelen)
{
	char why[600];
	int rc;

	sim_report_log(p->records.f, host, rep);
	if ((rc = out_close(&p->records))) {
		snprintf(note, notelen, "cannot write %s",
			 out_error(&p->records, rc, why, sizeof(why)));
		if (p->made_dir)
			rmdir(p->dir);
		return rc;
	}
	rc = record_plot(p->plotter, p->dir, note, notelen);
	if (rc < 0) {
		size_t used = strlen(note);
		snprintf(note + used, notelen - used, " (the records are in "
			 "%s/results.jsonl)", p->shown);
	}
	return rc;
}
