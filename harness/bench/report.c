/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <string.h>

static const double quantiles[] = { 0.50, 0.90, 0.99, 0.999 };
static const char *const quantile_names[] = { "p50_ns", "p90_ns", "p99_ns",
					       "p999_ns" };
#define N_QUANTILES 4

int report_parse_format(const char *name, enum report_format *out)
{
	static const char *const names[] = { "table", "jsonl", "csv" };
	for (int i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (enum report_format)i;
			return 0;
		}
	return -1;
}

static void table_header(FILE *f)
{
	fprintf(f, "%-16s %7s %9s %8s %7s %7s %7s %7s  %s\n", "map", "threads",
		"Mops/s", "ns/op", "p50", "p90", "p99", "p99.9",
		"ops that succeeded");
}

static const char csv_header[] =
	"side,map,mix,dist,threads,entries,key_size,value_size,prefill,ops,"
	"seconds,mops,ns_per_op,p50_ns,p90_ns,p99_ns,p999_ns,runs,"
	"lookup_ok,lookup_fail,update_ok,update_fail,insert_ok,insert_fail,"
	"delete_ok,delete_fail\n";

void report_begin(struct report *r, FILE *out, enum report_format format,
		  const struct host_record *host)
{
	r->out = out;
	r->format = format;
	r->rows = 0;
	if (format == REPORT_TABLE) {
		table_header(out);
	} else if (format == REPORT_JSONL) {
		fputs("{\"record\":\"host\",\"host\":", out);
		host_record_json(out, host);
		fputs("}\n", out);
	} else {
		fputs(csv_header, out);
	}
}

static void row_table(FILE *f, const struct report_row *row)
{
	const struct bench_result *res = row->result;
	char ok[160] = "";
	size_t off = 0;

	for (int op = 0; op < OP_COUNT; op++) {
		uint64_t n = res->ok[op] + res->fail[op];
		if (!n)
			continue;
		/* A few failures in millions must not round away: name them. */
		double pct = 100.0 * (double)res->ok[op] / (double)n;
		uint64_t failed = res->fail[op];
		if (failed && pct > 99.5)
			off += (size_t)snprintf(ok + off, sizeof(ok) - off,
						"%s%s all but %llu", off ? ", " : "",
						bench_op_names[op],
						(unsigned long long)failed);
		else
			off += (size_t)snprintf(ok + off, sizeof(ok) - off,
						"%s%s %.0f%%", off ? ", " : "",
						bench_op_names[op], pct);
	}
	char name[64];
	snprintf(name, sizeof(name), "%s%s%s", row->map,
		 strcmp(row->side, "user") ? " " : "",
		 strcmp(row->side, "user") ? row->side : "");
	fprintf(f, "%-16s %7u %9.2f %8.1f", name, row->config->threads,
		res->mops, res->ns_per_op);
	for (int q = 0; q < N_QUANTILES; q++)
		if (row->no_latency)
			fprintf(f, " %7s", "-");
		else
			fprintf(f, " %7llu", (unsigned long long)hist_quantile(
						     &res->latency, quantiles[q]));
	fprintf(f, "  %s\n", ok);
}

static void row_jsonl(FILE *f, const struct report_row *row)
{
	const struct bench_config *c = row->config;
	const struct bench_result *res = row->result;
	char mix[96], dist[48];

	workload_format_mix(c->w.mix, mix, sizeof(mix));
	workload_format_dist(&c->w, dist, sizeof(dist));
	fprintf(f, "{\"record\":\"result\",\"side\":\"%s\",\"map\":", row->side);
	json_string(f, row->map);
	fprintf(f, ",\"mix\":\"%s\",\"dist\":\"%s\",\"threads\":%u,"
		"\"entries\":%u,\"key_size\":%u,\"value_size\":%u,"
		"\"prefill\":%u,\"map_flags\":%u,\"ops\":%llu,\"seconds\":%.6f,"
		"\"mops\":%.4f,\"ns_per_op\":%.3f",
		mix, dist, c->threads, c->w.entries, c->w.key_size,
		c->w.value_size, c->w.prefill_pct, c->map_flags,
		(unsigned long long)res->ops, res->seconds, res->mops,
		res->ns_per_op);
	for (int q = 0; q < N_QUANTILES && !row->no_latency; q++)
		fprintf(f, ",\"%s\":%llu", quantile_names[q],
			(unsigned long long)hist_quantile(&res->latency,
							  quantiles[q]));
	if (!strcmp(row->side, "kernel"))
		fprintf(f, ",\"program_ns_per_op\":%.3f,\"baseline_ns_per_op\":%.3f",
			row->program_ns, row->baseline_ns);
	fputs(",\"ok\":{", f);
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(f, "%s\"%s\":%llu", op ? "," : "", bench_op_names[op],
			(unsigned long long)res->ok[op]);
	fputs("},\"fail\":{", f);
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(f, "%s\"%s\":%llu", op ? "," : "", bench_op_names[op],
			(unsigned long long)res->fail[op]);
	fprintf(f, "},\"runs\":%u,\"mops_runs\":[", row->runs);
	for (unsigned i = 0; i < row->runs; i++)
		fprintf(f, "%s%.4f", i ? "," : "", row->mops_runs[i]);
	fputs("]}\n", f);
}

static void row_csv(FILE *f, const struct report_row *row)
{
	const struct bench_config *c = row->config;
	const struct bench_result *res = row->result;
	char mix[96], dist[48];

	workload_format_mix(c->w.mix, mix, sizeof(mix));
	workload_format_dist(&c->w, dist, sizeof(dist));
	fprintf(f, "%s,%s,\"%s\",%s,%u,%u,%u,%u,%u,%llu,%.6f,%.4f,%.3f",
		row->side, row->map, mix, dist, c->threads, c->w.entries,
		c->w.key_size, c->w.value_size, c->w.prefill_pct,
		(unsigned long long)res->ops, res->seconds, res->mops,
		res->ns_per_op);
	for (int q = 0; q < N_QUANTILES; q++)
		if (row->no_latency)
			fputs(",", f);
		else
			fprintf(f, ",%llu", (unsigned long long)hist_quantile(
						    &res->latency, quantiles[q]));
	fprintf(f, ",%u", row->runs);
	for (int op = 0; op < OP_COUNT; op++)
		fprintf(f, ",%llu,%llu", (unsigned long long)res->ok[op],
			(unsigned long long)res->fail[op]);
	fputc('\n', f);
}

void report_row(struct report *r, const struct report_row *row)
{
	switch (r->format) {
	case REPORT_TABLE:
		row_table(r->out, row);
		break;
	case REPORT_JSONL:
		row_jsonl(r->out, row);
		break;
	case REPORT_CSV:
		row_csv(r->out, row);
		break;
	}
	r->rows++;
	fflush(r->out);
}

void report_end(struct report *r, const struct host_record *host)
{
	if (r->format != REPORT_TABLE)
		return;
	fprintf(r->out, "\nlatency columns in ns (sampled ops, each including one "
		"clock read); host: %s, %s, %ld cpus, %s, rcu %s\n",
		host->kernel, host->cpu_model, host->nproc, host->allocator,
		host->rcu);
}
