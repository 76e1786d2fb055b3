/* SPDX-License-Identifier: MIT */
/*
 * sim_report.c: sim's rows as records (sim_report.h has the fields), the
 * table's sentences around them, and the folder the plotter draws from.
 */
#include "harness/results/sim_report.h"
#include "harness/common/wrap.h"
#include "harness/common/parse.h"
#include "maps/base/map.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Figures to nine significant digits: enough for any ratio's last count. */
#define FIGURE "%.9g"

static void sim_record(const struct sim_report *rep, const struct sim_row *w,
		       struct record *r)
{
	const struct sim_input *in = rep->in;
	record_init(r, "sim");
	record_text(r, "trace", in->trace->name);
	record_text(r, "format", rep->format_name);
	record_whole(r, "requests_total", in->trace->n);
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
	/* String keys (simkeys.h): ids are their hashes. */
	record_bool(r, "ids_hashed_from_strings", in->trace->string_keys);
	record_whole(r, "id_collisions", in->trace->id_collisions);
}

/* The host's record, then a record per row; *out to free_records. */
static unsigned build_records(const struct host_record *host,
			      const struct sim_report *rep,
			      struct record **out)
{
	struct record *r = calloc((size_t)rep->n + 1, sizeof(*r));
	if (!r) {
		fputs("maplab: out of memory writing the report\n", stderr);
		abort();
	}
	host_record_build(host, &r[0]);
	for (unsigned i = 0; i < rep->n; i++)
		sim_record(rep, &rep->rows[i], &r[i + 1]);
	*out = r;
	return rep->n + 1;
}

static void free_records(struct record *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		record_free(&r[i]);
	free(r);
}

static void write_table(FILE *f, const struct record *records, unsigned n,
			const struct sim_report *rep)
{
	const struct sim_input *in = rep->in;
	const struct record_column cols[] = {
		{ "policy", "policy", 24, RECORD_LEFT, NULL, 0 },
		{ "entries", "entries", 8, 0, NULL, 0 },
		{ "thr", "threads", 3, 0, NULL, 0 },
		{ "requests", "requests", 10, 0, NULL, 0 },
		{ "misses", "misses", 10, 0, NULL, 0 },
		{ "miss", "miss_ratio", 8, 0, "%.4f", 0 },
		{ "bytemiss", "byte_miss_ratio", 8, 0, "%.4f", 0 },
		{ "evictions", "evictions", 10, 0, NULL, 0 },
		{ "Mreq/s", "mreq_per_s", 8, 0, "%.2f", 0 },
		{ "effcap", "effective_capacity", 7, 0, "%.3f", 0 },
		{ "meta/e", "meta_bytes_per_entry", 6, 0, "%.0f", 0 },
		{ "stray", "stray", 7, 0, "%.4f", 0 },
	};
	struct record_column shown[sizeof(cols) / sizeof(cols[0])];
	unsigned n_shown = 0;
	/* The byte miss ratio where the trace has sizes. */
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		if (in->trace->sizes || strcmp(cols[c].field, "byte_miss_ratio"))
			shown[n_shown++] = cols[c];

	wrap_printf(f, "trace %s (%s): %zu requests, %u distinct keys, warm-up %llu"
		", key_size %u%s\n", in->trace->name, rep->format_name,
		in->trace->n, in->distinct, (unsigned long long)in->warmup,
		in->key_size, in->hashed ? " (ids hashed down: collisions "
		"change miss ratios)" : "");
	if (in->trace->string_keys)
		wrap_printf(f, "keys: strings, hashed to 8-byte ids with %s: "
			    "%llu collisions (distinct strings on one id)\n",
			    in->trace->id_hash, (unsigned long long)
			    in->trace->id_collisions);
	if (rep->notes)
		wrap_printf(f, "%s\n", rep->notes);
	fputc('\n', f);
	record_write(f, RECORD_TABLE, records, n, shown, n_shown);
	wrap_printf(f, "\nmiss: misses / requests (after the warm-up); Mreq/s: every "
		"request, warm-up included; effcap: mean live entries / entries; "
		"meta/e: bytes per entry beyond key and value; stray: share of "
		"victims not among the k least recently used (one thread).  "
		"split: %s.\n", rep->split);
}

void sim_report_write(FILE *f, enum record_format format,
		      const struct host_record *host,
		      const struct sim_report *rep)
{
	struct record *records;
	unsigned n = build_records(host, rep, &records);
	if (format == RECORD_CSV && n == 1) {
		/* No rows: the header alone. */
		struct sim_row none = { .policy = "" };
		struct record any;
		sim_record(rep, &none, &any);
		record_write_csv_header(f, &any);
		record_free(&any);
	} else if (format == RECORD_TABLE) {
		write_table(f, records, n, rep);
		host_record_line(f, host);
	} else {
		record_write(f, format, records, n, NULL, 0);
	}
	free_records(records, n);
}

int sim_plot(const char *dir, const struct host_record *host,
	     const struct sim_report *rep, char *note, size_t notelen)
{
	char path[4096], shown[512];
	FILE *f;
	int err;

	note[0] = '\0';
	if (mkdir(dir, 0777) && errno != EEXIST) {
		err = errno;
		snprintf(note, notelen, "cannot create %s: %s",
			 parse_printable(dir, shown, sizeof(shown)),
			 map_errno_text(err));
		return -err;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/results.jsonl", dir) >=
	    sizeof(path)) {
		snprintf(note, notelen, "%s: %s",
			 parse_printable(dir, shown, sizeof(shown)),
			 map_errno_text(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (!(f = fopen(path, "w"))) {
		err = errno;
		snprintf(note, notelen, "cannot write %s: %s",
			 parse_printable(path, shown, sizeof(shown)),
			 map_errno_text(err));
		return -err;
	}
	sim_report_write(f, RECORD_JSONL, host, rep);
	if (fclose(f)) {
		err = errno;
		snprintf(note, notelen, "writing %s failed: %s",
			 parse_printable(path, shown, sizeof(shown)),
			 map_errno_text(err));
		return -err;
	}
	return record_plot(dir, note, notelen);
}
