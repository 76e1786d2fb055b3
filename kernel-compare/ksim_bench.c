/* SPDX-License-Identifier: MIT */
/*
 * ksim_bench: how fast ksim replays a cache trace, and what one
 * BPF_PROG_TEST_RUN call costs on top of its requests (the figures of
 * docs/kernel-compare.md, "The kernel as a cache").
 *
 *   ksim_bench [--entries N] [--keys K] [--zipf S] [--requests R]
 *              [--batches B1,B2,...] [--repeat N] [--key-size 4|8]
 *              [--no-common-lru] [--streams 1|2]
 *
 * The trace: bench's range-model stream (harness/bench/workload.c) of R
 * lookups over keys 0..K-1 drawn by zipf(S), each key number written as
 * key-size little-endian bytes; the first R/4 requests warm the cache.
 * With --streams 2, stream i gets every other request, pinned to the i-th
 * CPU this process may use.
 *
 * Each repeat runs every batch size once, in order, so the sizes are
 * measured side by side (interleaved), and prints per size the median over
 * the repeats of requests/s and ns per request (wall time of ksim_run's
 * replay, all streams), with min and max, and, from the last repeat, the
 * miss ratio and the mean live count (sampled after each counted batch,
 * all streams) over the max_entries the kernel made.  The
 * per-batch overhead is estimated from the smallest and the largest batch
 * sizes: (ns/request at B1 - ns/request at Bmax) / (1/B1 - 1/Bmax).
 */
#include "kernel-compare/ksim.h"
#include "harness/bench/workload.h"
#include "maps/common/cpu.h"

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
};

static int usage(const char *why)
{
	fprintf(stderr, "ksim_bench: %s\nusage: ksim_bench [--entries N] "
		"[--keys K] [--zipf S] [--requests R] [--batches B1,B2,...] "
		"[--repeat N] [--key-size 4|8] [--no-common-lru] "
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
	static double ns[MAX_BATCHES][MAX_REPEAT];
	double miss_ratio[MAX_BATCHES] = { 0 }, live[MAX_BATCHES] = { 0 };
	for (unsigned r = 0; r < o.repeat; r++)
		for (unsigned b = 0; b < o.n_batches; b++) {
			struct ksim_config c = { .key_size = o.key_size,
						 .value_size = 8,
						 .max_entries = o.entries,
						 .map_flags = o.flags,
						 .batch = o.batches[b] };
			struct ksim_stream_result res[2];
			struct ksim_result out = { .streams = res };
			char err[512];
			int rc = ksim_run(&c, s, o.streams, &out, err, sizeof(err));
			if (rc) {
				fprintf(stderr, "ksim_bench: %s\n", err);
				return 1;
			}
			uint64_t req = 0, miss = 0;
			for (unsigned i = 0; i < o.streams; i++) {
				req += s[i].n;
				miss += res[i].misses;
			}
			ns[b][r] = out.seconds * 1e9 / (double)req;
			uint64_t counted = 0, live_sum = 0, samples = 0;
			for (unsigned i = 0; i < o.streams; i++) {
				counted += res[i].requests;
				live_sum += res[i].live_sum;
				samples += res[i].live_samples;
			}
			miss_ratio[b] = (double)miss / (double)counted;
			live[b] = samples ? (double)live_sum / (double)samples /
					    out.max_entries : -1;
		}
	printf("# ksim_bench: %zu requests (zipf %.2f over %u keys, first "
	       "quarter warm-up), %u entries, %u-byte keys, %s, %u stream%s, "
	       "%u repeats\n", o.requests, o.zipf, o.keys, o.entries,
	       o.key_size, o.flags ? "BPF_F_NO_COMMON_LRU" : "common LRU",
	       o.streams, o.streams > 1 ? "s" : "", o.repeat);
	printf("%8s %14s %22s %10s %9s\n", "batch", "Mrequests/s",
	       "ns/request (min-max)", "miss ratio", "live/max");
	double med[MAX_BATCHES];
	for (unsigned b = 0; b < o.n_batches; b++) {
		qsort(ns[b], o.repeat, sizeof(double), cmp_double);
		med[b] = ns[b][o.repeat / 2];
		printf("%8u %14.2f %9.1f (%.1f-%.1f) %10.4f %9.3f\n",
		       o.batches[b], 1e3 / med[b], med[b], ns[b][0],
		       ns[b][o.repeat - 1], miss_ratio[b], live[b]);
	}
	unsigned lo = 0, hi = 0;
	for (unsigned b = 1; b < o.n_batches; b++) {
		if (o.batches[b] < o.batches[lo])
			lo = b;
		if (o.batches[b] > o.batches[hi])
			hi = b;
	}
	if (o.batches[lo] != o.batches[hi])
		printf("per-batch overhead (batch %u against %u): %.0f ns\n",
		       o.batches[lo], o.batches[hi],
		       (med[lo] - med[hi]) /
		       (1.0 / o.batches[lo] - 1.0 / o.batches[hi]));
	free(keys);
	free(own[0]);
	free(own[1]);
	return 0;
}
