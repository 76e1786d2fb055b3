/* SPDX-License-Identifier: MIT */
/*
 * simreport.c: sim's rows written out (simreport.h has the fields).
 */
#include "harness/results/sim_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A figure in a table cell: "-" when not measured. */
static void cell(FILE *f, int width, const char *fmt, double v)
{
	char buf[32];
	if (isnan(v))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), fmt, v);
	fprintf(f, " %*s", width, buf);
}

static void json_number(FILE *f, const char *name, double v)
{
	if (isnan(v))
		fprintf(f, ",\"%s\":null", name);
	else
		fprintf(f, ",\"%s\":%.9g", name, v);
}

static void csv_number(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.9g", v);
}

static void write_table(FILE *f, const struct sim_report *rep)
{
	const struct sim_input *in = rep->in;
	bool bytes = in->trace->sizes != NULL;
	fprintf(f, "trace %s (%s): %zu requests, %u distinct keys, warm-up %llu"
		", key_size %u%s\n\n", in->trace->name, rep->format_name,
		in->trace->n, in->distinct, (unsigned long long)in->warmup,
		in->key_size, in->hashed ? " (ids hashed down: collisions "
		"change miss ratios)" : "");
	fprintf(f, "%-24s %8s %3s %10s %10s %8s", "policy", "entries", "thr",
		"requests", "misses", "miss");
	if (bytes)
		fprintf(f, " %8s", "bytemiss");
	fprintf(f, " %10s %8s %7s %6s %7s\n", "evictions", "Mreq/s", "effcap",
		"meta/e", "stray");
	for (unsigned i = 0; i < rep->n; i++) {
		const struct sim_row *w = &rep->rows[i];
		fprintf(f, "%-24s %8u %3u %10llu %10llu", w->policy, w->entries,
			w->threads, (unsigned long long)w->r.requests,
			(unsigned long long)w->r.misses);
		cell(f, 8, "%.4f", ratio(w->r.misses, w->r.requests));
		if (bytes)
			cell(f, 8, "%.4f", byte_ratio(&w->r));
		cell(f, 10, "%.0f", w->r.has_evictions ? (double)w->r.evictions
						       : NAN);
		cell(f, 8, "%.2f", w->r.mreq_per_s);
		cell(f, 7, "%.3f", effective(w));
		cell(f, 6, "%.0f", w->r.meta_per_entry);
		cell(f, 7, "%.4f", w->r.stray);
		fputc('\n', f);
	}
	fprintf(f, "\nmiss: misses / requests (after the warm-up); Mreq/s: every "
		"request, warm-up included; effcap: mean live entries / entries; "
		"meta/e: bytes per entry beyond key and value; stray: share of "
		"victims not among the k least recently used (one thread).  "
		"split: %s.\n", rep->split);
}

static void write_jsonl(FILE *f, const struct sim_report *rep)
{
	const struct sim_input *in = rep->in;
	for (unsigned i = 0; i < rep->n; i++) {
		const struct sim_row *w = &rep->rows[i];
		fputs("{\"record\":\"sim\",\"trace\":", f);
		json_string(f, in->trace->name);
		fputs(",\"format\":", f);
		json_string(f, rep->format_name);
		fprintf(f, ",\"requests_total\":%zu,\"distinct_keys\":%u,"
			"\"key_size\":%u,\"keys_hashed\":%s,\"warmup\":%llu,"
			"\"policy\":", in->trace->n, in->distinct, in->key_size,
			in->hashed ? "true" : "false",
			(unsigned long long)in->warmup);
		json_string(f, w->policy);
		fprintf(f, ",\"entries\":%u,\"threads\":%u,\"split\":\"%s\","
			"\"requests\":%llu,\"misses\":%llu", w->entries,
			w->threads, rep->split, (unsigned long long)w->r.requests,
			(unsigned long long)w->r.misses);
		json_number(f, "miss_ratio", ratio(w->r.misses, w->r.requests));
		json_number(f, "byte_miss_ratio", byte_ratio(&w->r));
		json_number(f, "evictions", w->r.has_evictions ?
				(double)w->r.evictions : NAN);
		fprintf(f, ",\"insert_failures\":%llu",
			(unsigned long long)w->r.insert_failures);
		json_number(f, "seconds", w->r.seconds);
		json_number(f, "mreq_per_s", w->r.mreq_per_s);
		json_number(f, "live_mean", w->r.live_mean);
		json_number(f, "effective_capacity", effective(w));
		json_number(f, "meta_bytes_per_entry", w->r.meta_per_entry);
		json_number(f, "stray", w->r.stray);
		fprintf(f, ",\"stray_victims\":%llu}\n",
			(unsigned long long)w->r.stray_victims);
	}
}

/* A CSV field, quoted when it holds a comma or a quote (a generator's
 * spec does). */
static void csv_string(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_csv(FILE *f, const struct sim_report *rep)
{
	const struct sim_input *in = rep->in;
	fputs("trace,format,requests_total,distinct_keys,key_size,keys_hashed,"
	      "warmup,policy,entries,threads,split,requests,misses,miss_ratio,"
	      "byte_miss_ratio,evictions,insert_failures,seconds,mreq_per_s,"
	      "live_mean,effective_capacity,meta_bytes_per_entry,stray,"
	      "stray_victims\n", f);
	for (unsigned i = 0; i < rep->n; i++) {
		const struct sim_row *w = &rep->rows[i];
		csv_string(f, in->trace->name);
		fprintf(f, ",%s,%zu,%u,%u,%d,%llu,%s,%u,%u,%s,%llu,%llu",
			rep->format_name, in->trace->n,
			in->distinct, in->key_size, in->hashed,
			(unsigned long long)in->warmup, w->policy, w->entries,
			w->threads, rep->split, (unsigned long long)w->r.requests,
			(unsigned long long)w->r.misses);
		csv_number(f, ratio(w->r.misses, w->r.requests));
		csv_number(f, byte_ratio(&w->r));
		csv_number(f, w->r.has_evictions ? (double)w->r.evictions : NAN);
		fprintf(f, ",%llu", (unsigned long long)w->r.insert_failures);
		csv_number(f, w->r.seconds);
		csv_number(f, w->r.mreq_per_s);
		csv_number(f, w->r.live_mean);
		csv_number(f, effective(w));
		csv_number(f, w->r.meta_per_entry);
		csv_number(f, w->r.stray);
		fprintf(f, ",%llu\n", (unsigned long long)w->r.stray_victims);
	}
}

void sim_report_write(FILE *f, enum sim_output fmt,
		      const struct host_record *host, const struct sim_report *rep)
{
	if (fmt == SIM_OUT_JSONL) {
		fputs("{\"record\":\"host\",\"host\":", f);
		host_record_json(f, host);
		fputs("}\n", f);
		write_jsonl(f, rep);
	} else if (fmt == SIM_OUT_CSV) {
		write_csv(f, rep);
	} else {
		write_table(f, rep);
		host_record_line(f, host);
	}
}
