/* SPDX-License-Identifier: MIT */
/*
 * ksim_bench: how fast ksim replays a cache trace, and what one
 * BPF_PROG_TEST_RUN call costs on top of its requests (the figures of
 * docs/kernel-compare.md, "The kernel as a cache").
 *
 *   ksim_bench [--entries N] [--keys K] [--zipf S] [--requests R]
 *              [--batches B1,B2,...] [--repeat N] [--key-size 4|8]
 *              [--no-common-lru | --both-modes] [--streams 1|2]
 *
 * The trace: bench's range-model stream (harness/workload/workload.c) of R
 * lookups over keys 0..K-1 drawn by zipf(S), each key number written as
 * key-size little-endian bytes; the first R/4 requests warm the cache.
 * With --streams 2, stream i gets every other request, pinned to the i-th
 * CPU this process may use.
 *
 * Each repeat runs every batch size once, in order (with --both-modes, each
 * size in the common LRU and then with BPF_F_NO_COMMON_LRU), so the sizes
 * and modes are measured side by side (interleaved), and prints per size
 * and mode the median over
 * the repeats of requests/s and ns per request (wall time of ksim_run's
 * replay, all streams), with min and max, and, from the last repeat, the
 * miss ratio and the mean live count (sampled after each counted batch,
 * all streams) over the max_entries the kernel made.  The
 * per-batch overhead is estimated from the smallest and the largest batch
 * sizes: (ns/request at B1 - ns/request at Bmax) / (1/B1 - 1/Bmax).  With
 * --both-modes, the per-CPU mode's time over the common LRU's, taken within
 * each repeat, median (min-max).
 */
#include "kernel-compare/ksim.h"
#include "harness/common/outfile.h"
#include "harness/workload/workload.h"
#include "maps/base/cpu.h"

#include <errno.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCHES 16
#define MAX_REPEAT 64

struct options {
	uint32_t entries, keys, key_size, flags;
	double zipf;
	size_t requests;
	unsigned batches[MAX_BATCHES], n_batches, repeat, streams;
	bool both_modes;  /* each batch size in both LRU modes, interleaved */
};

static int usage(const char *why)
{
	fprintf(stderr, "ksim_bench: %s\nusage: ksim_bench [--entries N] "
		"[--keys K] [--zipf S] [--requests R] [--batches B1,B2,...] "
		"[--repeat N] [--key-size 4|8] [--no-common-lru | --both-modes] "
		"[--streams 1|2]\n", why);
	return 2;
}

static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_batches(char *s, struct options *o)
{
	o->n_batches = 0;
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		uint64_t v;
		if (o->n_batches == MAX_BATCHES ||
		    !parse_u64(tok, 1, KSIM_MAX_BATCH, &v))
			return false;
		o->batches[o->n_batches++] = (unsigned)v;
	}
	return o->n_batches > 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .entries = 65536, .keys = 1u << 20,
			       .key_size = 4, .zipf = 0.99,
			       .requests = 1u << 22, .repeat = 5,
			       .streams = 1, .n_batches = 5,
			       .batches = { 1, 16, 256, 8192, 65536 } };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;
		if (!strcmp(a, "--no-common-lru")) {
			o->flags = BPF_F_NO_COMMON_LRU;
			continue;
		}
		if (!strcmp(a, "--both-modes")) {
			o->both_modes = true;
			continue;
		}
		if (strncmp(a, "--", 2))
			return usage("arguments are options (--name value)");
		if (!v)
			return usage("an option without its value, or unknown");
		i++;
		if (!strcmp(a, "--entries") && parse_u64(v, 1, UINT32_MAX, &n))
			o->entries = (uint32_t)n;
		else if (!strcmp(a, "--keys") && parse_u64(v, 1, UINT32_MAX, &n))
			o->keys = (uint32_t)n;
		else if (!strcmp(a, "--requests") &&
			 parse_u64(v, 4, 1u << 26, &n))
			o->requests = (size_t)n;
		else if (!strcmp(a, "--repeat") && parse_u64(v, 1, MAX_REPEAT, &n))
			o->repeat = (unsigned)n;
		else if (!strcmp(a, "--key-size") &&
			 (!strcmp(v, "4") || !strcmp(v, "8")))
			o->key_size = (uint32_t)atoi(v);
		else if (!strcmp(a, "--streams") &&
			 (!strcmp(v, "1") || !strcmp(v, "2")))
			o->streams = (unsigned)atoi(v);
		else if (!strcmp(a, "--zipf") &&
			 (o->zipf = strtod(v, NULL)) > 0 && o->zipf < 10)
			continue;
		else if (!strcmp(a, "--batches") && parse_batches(v, o))
			continue;
		else
			return usage("a bad option or value");
	}
	return 0;
}

/* The trace's keys: bench's zipf stream of key numbers, as key bytes. */
static uint8_t *make_trace(const struct options *o)
{
	struct workload w = { .key_size = o->key_size, .value_size = 8,
			      .entries = o->entries, .key_range = o->keys,
			      .mix = { [OP_LOOKUP] = 100 }, .dist = DIST_ZIPF,
			      .zipf_s = o->zipf, .seed = 1 };
	struct key_sampler *s = workload_sampler_new(&w);
	struct stream st = { 0 };
	uint8_t *keys = malloc(o->requests * o->key_size);
	int rc = s && keys ? workload_make_stream(&w, s, 0, o->requests, &st)
			   : -ENOMEM;
	workload_sampler_free(s);
	if (rc) {
		free(keys);
		return NULL;
	}
	for (size_t i = 0; i < o->requests; i++) {
		uint64_t k = st.ops[i].key;
		memcpy(keys + i * o->key_size, &k, o->key_size); /* x86: LE */
	}
	workload_stream_free(&st);
	return keys;
}

/* Stream i: every streams-th request from i, as a packed copy. */
static int split(const struct options *o, const uint8_t *keys,
		 struct ksim_stream *s, uint8_t **own)
{
	cpu_set_t set;
	int cpus[2], found = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[found++] = c;
	if ((unsigned)found < o->streams)
		return -EOPNOTSUPP;
	for (unsigned i = 0; i < o->streams; i++) {
		size_t n = (o->requests - i + o->streams - 1) / o->streams;
		own[i] = malloc(n * o->key_size);
		if (!own[i])
			return -ENOMEM;
		for (size_t j = 0; j < n; j++)
			memcpy(own[i] + j * o->key_size,
			       keys + (j * o->streams + i) * o->key_size,
			       o->key_size);
		s[i] = (struct ksim_stream){ .keys = own[i], .n = n,
					     .counted_from = n / 4,
					     .cpu = cpus[i] };
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One batch size in one mode, over the repeats. */
struct point {
	unsigned batch;
	uint32_t flags;
	double ns[MAX_REPEAT];          /* ns per request, each repeat */
	double miss_ratio, live;        /* the last repeat's */
};

/* One ksim_run of the streams at point p.  0, or 1 with the message
 * printed. */
static int measure(const struct options *o, const struct ksim_stream *s,
		   struct point *p, unsigned repeat)
{
	struct ksim_config c = { .key_size = o->key_size, .value_size = 8,
				 .max_entries = o->entries,
				 .map_flags = p->flags, .batch = p->batch };
	struct ksim_stream_result res[2];
	struct ksim_result out = { .streams = res };
	char err[512];
	if (ksim_run(&c, s, o->streams, &out, err, sizeof(err))) {
		fprintf(stderr, "ksim_bench: %s\n", err);
		return 1;
	}
	uint64_t req = 0, counted = 0, miss = 0, live_sum = 0, samples = 0;
	for (unsigned i = 0; i < o->streams; i++) {
		req += s[i].n;
		counted += res[i].requests;
		miss += res[i].misses;
		live_sum += res[i].live_sum;
		samples += res[i].live_samples;
	}
	p->ns[repeat] = out.seconds * 1e9 / (double)req;
	p->miss_ratio = (double)miss / (double)counted;
	p->live = samples ? (double)live_sum / (double)samples /
			    out.max_entries : -1;
	return 0;
}

static double median(const double *v, unsigned n, double *min, double *max)
{
	double sorted[MAX_REPEAT];
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(double), cmp_double);
	*min = sorted[0];
	*max = sorted[n - 1];
	return sorted[n / 2];
}

/* The table of one mode's points (every `stride`-th from first). */
static void print_mode(const struct options *o, const struct point *pts,
		       unsigned first, unsigned stride)
{
	double med[MAX_BATCHES], min, max;
	unsigned lo = 0, hi = 0;

	printf("# %s\n%8s %14s %22s %10s %9s\n",
	       pts[first].flags ? "BPF_F_NO_COMMON_LRU" : "common LRU", "batch",
	       "Mrequests/s", "ns/request (min-max)", "miss ratio", "live/max");
	for (unsigned b = 0; b < o->n_batches; b++) {
		const struct point *p = &pts[first + b * stride];
		med[b] = median(p->ns, o->repeat, &min, &max);
		printf("%8u %14.2f %9.1f (%.1f-%.1f) %10.4f %9.3f\n", p->batch,
		       1e3 / med[b], med[b], min, max, p->miss_ratio, p->live);
		if (p->batch < pts[first + lo * stride].batch)
			lo = b;
		if (p->batch > pts[first + hi * stride].batch)
			hi = b;
	}
	unsigned blo = o->batches[lo], bhi = o->batches[hi];
	if (blo != bhi)
		printf("per-batch overhead (batch %u against %u): %.0f ns\n",
		       blo, bhi, (med[lo] - med[hi]) / (1.0 / blo - 1.0 / bhi));
}

/* With both modes: per batch size, per-CPU time over common time. */
static void print_mode_ratios(const struct options *o, const struct point *pts)
{
	printf("# BPF_F_NO_COMMON_LRU time / common LRU time, within each "
	       "repeat\n%8s %22s\n", "batch", "ratio (min-max)");
	for (unsigned b = 0; b < o->n_batches; b++) {
		double ratio[MAX_REPEAT], min, max;
		for (unsigned r = 0; r < o->repeat; r++)
			ratio[r] = pts[2 * b + 1].ns[r] / pts[2 * b].ns[r];
		double med = median(ratio, o->repeat, &min, &max);
		printf("%8u %9.3f (%.3f-%.3f)\n", o->batches[b], med, min, max);
	}
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse(argc, argv, &o))
		return 2;
	uint8_t *keys = make_trace(&o), *own[2] = { NULL, NULL };
	struct ksim_stream s[2];
	if (!keys || split(&o, keys, s, own)) {
		fprintf(stderr, "ksim_bench: cannot build the trace (or not "
			"enough CPUs for %u streams)\n", o.streams);
		return 1;
	}
	/* the points in run order: per batch size, its mode(s) */
	static struct point pts[2 * MAX_BATCHES];
	unsigned modes = o.both_modes ? 2 : 1, n = 0;
	for (unsigned b = 0; b < o.n_batches; b++)
		for (unsigned m = 0; m < modes; m++)
			pts[n++] = (struct point){
				.batch = o.batches[b],
				.flags = o.both_modes ? (m ? BPF_F_NO_COMMON_LRU : 0)
						      : o.flags };
	int rc = 0;
	for (unsigned r = 0; r < o.repeat && !rc; r++)
		for (unsigned i = 0; i < n && !rc; i++)
			rc = measure(&o, s, &pts[i], r);
	if (!rc) {
		printf("# ksim_bench: %zu requests (zipf %.2f over %u keys, "
		       "first quarter warm-up), %u entries, %u-byte keys, %u "
		       "stream%s, %u repeats\n", o.requests, o.zipf, o.keys,
		       o.entries, o.key_size, o.streams,
		       o.streams > 1 ? "s" : "", o.repeat);
		for (unsigned m = 0; m < modes; m++)
			print_mode(&o, pts, m, modes);
		if (o.both_modes)
			print_mode_ratios(&o, pts);
	}
	free(keys);
	free(own[0]);
	free(own[1]);
	/* Figures that could not be written are a failure, as maplab's. */
	struct outfile out;
	out_stdout(&out);
	int werr = out_close(&out);
	if (werr) {
		char why[256];
		fprintf(stderr, "ksim_bench: %s\n",
			out_error(&out, werr, why, sizeof(why)));
		return 2;
	}
	return rc;
}
