/* SPDX-License-Identifier: MIT */
#include "harness/workload/workload.h"
#include "harness/workload/keys.h"
#include "harness/common/parse.h"
#include "maps/base/area.h"
#include "maps/base/map.h"
#include "harness/common/rng.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bench_op_names[OP_COUNT] = {
	[OP_LOOKUP] = "lookup",   [OP_UPDATE] = "update",
	[OP_INSERT] = "insert",   [OP_DELETE] = "delete",
	[OP_UPSERT] = "upsert",   [OP_REPLACE] = "replace",
	[OP_LOOKUP_WRITE] = "lookup_write",
};

struct key_sampler {
	const struct workload *w;
	struct workload_layout layout; /* its bases (no thread count's) */
	double *zipf_cdf; /* DIST_ZIPF: cumulative probability of rank r */
	uint32_t *rank_to_key; /* a permutation, so hot keys are scattered */
	uint32_t hot_keys;
};

/* One "op=P" item of --mix into mix; 0 or -1 with a message. */
static int parse_mix_item(const char *item, unsigned mix[OP_COUNT],
			  bool seen[OP_COUNT], char *err, size_t len)
{
	char shown[64];
	const char *eq = strchr(item, '=');
	size_t name_len = eq ? (size_t)(eq - item) : 0;
	uint64_t pct;
	int op;

	if (!eq) {
		snprintf(err, len, "--mix wants op=percent items, got '%s'",
			 parse_printable(item, shown, sizeof(shown)));
		return -1;
	}
	for (op = 0; op < OP_COUNT; op++)
		if (strlen(bench_op_names[op]) == name_len &&
		    strncmp(item, bench_op_names[op], name_len) == 0)
			break;
	if (op == OP_COUNT) {
		snprintf(err, len, "--mix: unknown op '%.*s' (lookup, update, "
			 "insert, delete, upsert, replace, lookup_write)",
			 (int)name_len,
			 parse_printable(item, shown, sizeof(shown)));
		return -1;
	}
	if (seen[op]) {
		snprintf(err, len, "--mix names %s twice", bench_op_names[op]);
		return -1;
	}
	if (parse_u64(eq + 1, 0, 100, &pct)) {
		snprintf(err, len, "--mix: %s wants a whole percent 0..100, got "
			 "'%s'", bench_op_names[op],
			 parse_printable(eq + 1, shown, sizeof(shown)));
		return -1;
	}
	seen[op] = true;
	mix[op] = (unsigned)pct;
	return 0;
}

struct mix_parse {
	unsigned *mix;
	bool seen[OP_COUNT];
	char *err;
	size_t len;
};

static int add_mix_item(const char *item, void *ctx)
{
	struct mix_parse *m = ctx;
	return parse_mix_item(item, m->mix, m->seen, m->err, m->len);
}

int workload_parse_mix(const char *text, unsigned mix[OP_COUNT], char *err,
		       size_t len)
{
	struct mix_parse m = { .mix = mix, .err = err, .len = len };
	char shown[64];
	unsigned sum = 0;

	memset(mix, 0, sizeof(unsigned) * OP_COUNT);
	err[0] = '\0';
	if (parse_list(text, add_mix_item, &m)) {
		if (!err[0]) /* an empty item */
			snprintf(err, len, "--mix wants op=percent items separated "
				 "by commas, got '%s'",
				 parse_printable(text, shown, sizeof(shown)));
		return -1;
	}
	for (int op = 0; op < OP_COUNT; op++)
		sum += mix[op];
	if (sum != 100) {
		snprintf(err, len, "--mix percents sum to %u, not 100", sum);
		return -1;
	}
	return 0;
}

/* "P,F" of hotset:P,F: two whole percents. */
static int parse_hotset(const char *text, unsigned *p, unsigned *f)
{
	const char *comma = strchr(text, ',');
	char first[16];
	uint64_t a, b;
	if (!comma || (size_t)(comma - text) >= sizeof(first))
		return -1;
	snprintf(first, sizeof(first), "%.*s", (int)(comma - text), text);
	if (parse_u64(first, 0, 100, &a) || parse_u64(comma + 1, 1, 100, &b))
		return -1;
	*p = (unsigned)a;
	*f = (unsigned)b;
	return 0;
}

int workload_parse_dist(const char *text, struct workload *w, char *err,
			size_t len)
{
	char shown[64];
	if (strcmp(text, "uniform") == 0) {
		w->dist = DIST_UNIFORM;
		return 0;
	}
	if (strncmp(text, "zipf:", 5) == 0) {
		double s;
		if (parse_decimal(text + 5, 0, 5, &s) == 0 && s > 0) {
			w->dist = DIST_ZIPF;
			w->zipf_s = s;
			return 0;
		}
	}
	unsigned p, f;
	if (strncmp(text, "hotset:", 7) == 0 && parse_hotset(text + 7, &p, &f) == 0) {
		w->dist = DIST_HOTSET;
		w->hot_pct = p;
		w->hot_keys_pct = f;
		return 0;
	}
	snprintf(err, len, "--dist wants uniform, zipf:S (0 < S <= 5) or "
		 "hotset:P,F (P %% of ops on F %% of keys, whole percents), got "
		 "'%s'", parse_printable(text, shown, sizeof(shown)));
	return -1;
}

void workload_format_mix(const unsigned mix[OP_COUNT], char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int op = 0; op < OP_COUNT; op++)
		if (mix[op] && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%u",
						off ? "," : "", bench_op_names[op],
						mix[op]);
}

void workload_format_dist(const struct workload *w, char *buf, size_t len)
{
	switch (w->dist) {
	case DIST_UNIFORM:
		snprintf(buf, len, "uniform");
		break;
	case DIST_ZIPF:
		snprintf(buf, len, "zipf:%g", w->zipf_s);
		break;
	case DIST_HOTSET:
		snprintf(buf, len, "hotset:%u,%u", w->hot_pct, w->hot_keys_pct);
		break;
	}
}

uint64_t workload_prefill_count(const struct workload *w)
{
	return (uint64_t)w->entries * w->prefill_pct / 100;
}

/* The keys lookups and updates draw from: 0..n-1. */
static uint32_t sample_space(const struct workload *w)
{
	return w->key_range ? w->key_range : w->entries;
}

void workload_layout(const struct workload *w, unsigned threads,
		     struct workload_layout *out)
{
	uint64_t prefilled = workload_prefill_count(w);
	uint64_t stored = w->key_range ? (w->key_range > prefilled ? w->key_range
							      : prefilled)
				       : w->entries;
	bool addresses = w->prefixes != PREFIXES_NONE &&
			 !prefix_set_full_length(w->prefixes);
	uint64_t at = stored;

	out->stored = stored;
	out->hit_base = addresses ? at : 0;
	at += addresses ? sample_space(w) : 0;
	out->miss_base = at;
	out->misses = w->prefixes != PREFIXES_NONE && w->miss_ppm &&
		      (w->mix[OP_LOOKUP] || w->mix[OP_LOOKUP_WRITE])
		      ? sample_space(w) : 0;
	at += out->misses;
	out->pool_base = at;
	out->total = at + (w->key_range ? 0 : (uint64_t)threads * WORKLOAD_POOL);
}

uint64_t workload_key_count(const struct workload *w, unsigned threads)
{
	struct workload_layout l;
	workload_layout(w, threads, &l);
	return l.total;
}

bool workload_other_maps_take_prefixes(const struct workload *w)
{
	return w->prefixes != PREFIXES_NONE &&
	       !prefix_set_full_length(w->prefixes) && !w->mix[OP_LOOKUP] &&
	       !w->mix[OP_LOOKUP_WRITE];
}

/* Whether a map of w's type takes LPM keys (a prefix length, then the
 * address) in a prefix workload. */
static bool takes_lpm_keys(const struct workload *w, uint32_t type)
{
	return type == MAP_TYPE_LPM_TRIE || workload_other_maps_take_prefixes(w);
}

struct workload workload_for_type(const struct workload *w, uint32_t type)
{
	struct workload own = *w;
	own.type = type;
	if (w->prefixes != PREFIXES_NONE)
		own.key_size = prefix_set_data_size(w->prefixes) +
			       (takes_lpm_keys(w, type) ? 4 : 0);
	return own;
}

/* A prefix workload's table (workload.h): prefixes for the entries and
 * for the pools of WORKLOAD_MAX_POOLS workers (the misses avoid them all,
 * at every thread count), an address inside each entry, the misses. */
static int make_prefix_table(const struct workload *w,
			     const struct workload_layout *l,
			     struct prefix_table *t, char *err, size_t errlen)
{
	const struct prefix_spec spec = {
		.set = w->prefixes, .exact = l->stored,
		.prefixes = l->stored +
			    (w->key_range ? 0 : WORKLOAD_MAX_POOLS * WORKLOAD_POOL),
		.hits = prefix_set_full_length(w->prefixes) ? 0 : sample_space(w),
		.misses = l->misses, .seed = w->seed,
	};
	return prefix_table_make(&spec, t, err, errlen);
}

static uint8_t *make_prefix_keys(const struct workload *w, unsigned threads,
				 char *err, size_t errlen)
{
	const bool lpm = takes_lpm_keys(w, w->type);
	const uint32_t data = prefix_set_data_size(w->prefixes);
	const unsigned full = 8 * data;
	struct workload_layout l;
	struct prefix_table t;
	uint8_t *keys;

	workload_layout(w, threads, &l);
	if (threads > WORKLOAD_MAX_POOLS) {
		snprintf(err, errlen, "a prefix workload has pools for %u threads "
			 "at most, not %u", WORKLOAD_MAX_POOLS, threads);
		return NULL;
	}
	if (w->key_size != data + (lpm ? 4 : 0)) {
		snprintf(err, errlen, "%s prefixes make %u-byte keys for a %s map, "
			 "not %u", prefix_set_name(w->prefixes), data + (lpm ? 4 : 0),
			 map_type_name(w->type), w->key_size);
		return NULL;
	}
	if (make_prefix_table(w, &l, &t, err, errlen))
		return NULL;
	keys = map_area_alloc_array(l.total, w->key_size, 16);
	if (!keys)
		snprintf(err, errlen, "cannot allocate %llu keys of %u bytes",
			 (unsigned long long)l.total, w->key_size);
	for (uint64_t k = 0; keys && k < l.total; k++) {
		uint8_t *key = keys + k * w->key_size;
		if (k < l.stored)
			prefix_key(key, lpm, t.len[k], t.data + k * data, data);
		else if (k < l.miss_base)
			prefix_key(key, lpm, full, t.hit + (k - l.hit_base) * data,
				   data);
		else if (k < l.pool_base)
			prefix_key(key, lpm, full, t.miss + (k - l.miss_base) * data,
				   data);
		else {
			uint64_t p = l.stored + (k - l.pool_base);
			prefix_key(key, lpm, t.len[p], t.data + p * data, data);
		}
	}
	prefix_table_free(&t);
	return keys;
}

uint8_t *workload_make_keys(const struct workload *w, unsigned threads,
			    char *err, size_t errlen)
{
	if (w->prefixes != PREFIXES_NONE)
		return make_prefix_keys(w, threads, err, errlen);
	uint64_t n = workload_key_count(w, threads);
	uint8_t *keys = map_area_alloc_array(n, w->key_size, 16);
	if (!keys) {
		snprintf(err, errlen, "cannot allocate %llu keys of %u bytes",
			 (unsigned long long)n, w->key_size);
		return NULL;
	}
	for (uint64_t k = 0; k < n; k++)
		key_encode(w->type, k, keys + k * w->key_size, w->key_size);
	return keys;
}

static uint32_t *random_permutation(uint32_t n, uint64_t seed)
{
	uint32_t *p = malloc((size_t)n * sizeof(*p));
	struct rng r;
	if (!p)
		return NULL;
	rng_seed(&r, seed ^ 0x5eed);
	for (uint32_t i = 0; i < n; i++)
		p[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)rng_below(&r, i);
		uint32_t t = p[i - 1];
		p[i - 1] = p[j];
		p[j] = t;
	}
	return p;
}

struct key_sampler *workload_sampler_new(const struct workload *w)
{
	struct key_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	const uint32_t n = sample_space(w);
	s->w = w;
	workload_layout(w, 1, &s->layout);
	if (w->dist == DIST_UNIFORM)
		return s;
	s->rank_to_key = random_permutation(n, w->seed);
	if (!s->rank_to_key)
		goto fail;
	if (w->dist == DIST_HOTSET) {
		uint64_t hot = (uint64_t)n * w->hot_keys_pct / 100;
		s->hot_keys = hot ? (uint32_t)hot : 1;
		return s;
	}
	s->zipf_cdf = malloc((size_t)n * sizeof(double));
	if (!s->zipf_cdf)
		goto fail;
	double sum = 0;
	for (uint32_t r = 0; r < n; r++)
		sum += pow((double)(r + 1), -w->zipf_s);
	double acc = 0;
	for (uint32_t r = 0; r < n; r++) {
		acc += pow((double)(r + 1), -w->zipf_s) / sum;
		s->zipf_cdf[r] = acc;
	}
	return s;
fail:
	workload_sampler_free(s);
	return NULL;
}

void workload_sampler_free(struct key_sampler *s)
{
	if (!s)
		return;
	free(s->zipf_cdf);
	free(s->rank_to_key);
	free(s);
}

static uint32_t sample_key(const struct key_sampler *s, struct rng *r)
{
	const struct workload *w = s->w;
	const uint32_t n = sample_space(w);
	switch (w->dist) {
	case DIST_ZIPF: {
		double u = (double)(rng_next(r) >> 11) / 9007199254740992.0;
		uint32_t lo = 0, hi = n - 1;
		while (lo < hi) { /* first rank whose cdf >= u */
			uint32_t mid = lo + (hi - lo) / 2;
			if (s->zipf_cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		return s->rank_to_key[lo];
	}
	case DIST_HOTSET: {
		int hot = rng_below(r, 100) < w->hot_pct;
		uint32_t cold = n - s->hot_keys;
		if (hot || cold == 0)
			return s->rank_to_key[rng_below(r, s->hot_keys)];
		return s->rank_to_key[s->hot_keys + rng_below(r, cold)];
	}
	default:
		return (uint32_t)rng_below(r, n);
	}
}

/* A lookup's key: in a prefix workload, the address inside the entry
 * drawn, or now and then (miss_ppm) an address no prefix covers; else the
 * entry drawn. */
static uint32_t lookup_key(const struct key_sampler *s, struct rng *r)
{
	const struct workload_layout *l = &s->layout;
	if (l->misses && rng_below(r, 1000000) < s->w->miss_ppm)
		return (uint32_t)(l->miss_base + rng_below(r, l->misses));
	return (uint32_t)(l->hit_base + sample_key(s, r));
}

/* The key of an op not on a pool: a lookup's (lookup_write's too), or a
 * stored key for the writes (update, upsert, replace). */
static uint32_t drawn_key(const struct key_sampler *s, int op, struct rng *r)
{
	return op == OP_LOOKUP || op == OP_LOOKUP_WRITE ? lookup_key(s, r)
							: sample_key(s, r);
}

static int pick_op(const struct workload *w, struct rng *r)
{
	unsigned dice = (unsigned)rng_below(r, 100);
	for (int op = 0; op < OP_COUNT; op++) {
		if (dice < w->mix[op])
			return op;
		dice -= w->mix[op];
	}
	return OP_LOOKUP;
}

size_t workload_stream_len(const struct workload *w)
{
	uint64_t len = (uint64_t)w->key_range * 4;
	if (len < WORKLOAD_STREAM_MIN)
		return WORKLOAD_STREAM_MIN;
	return len > WORKLOAD_STREAM_MAX ? WORKLOAD_STREAM_MAX : (size_t)len;
}

static void seed_stream(const struct workload *w, unsigned tid, struct rng *r)
{
	rng_seed(r, w->seed * 7919 + tid + 1);
}

/* The range model: every op's key from the whole range. */
static int make_range_stream(const struct workload *w,
			     const struct key_sampler *s, unsigned tid,
			     size_t len, struct stream *out)
{
	struct rng r;
	out->ops = malloc(len * sizeof(*out->ops));
	if (!out->ops)
		return -ENOMEM;
	seed_stream(w, tid, &r);
	for (size_t n = 0; n < len; n++) {
		int op = pick_op(w, &r);
		out->ops[n].op = (uint32_t)op;
		out->ops[n].key = drawn_key(s, op, &r);
	}
	out->len = len;
	return 0;
}

/* The pool model: inserts and deletes on the worker's own pool. */
static int make_pool_stream(const struct workload *w,
			    const struct key_sampler *s, unsigned tid,
			    size_t len, struct stream *out)
{
	uint32_t pool_base = (uint32_t)(s->layout.pool_base + tid * WORKLOAD_POOL);
	uint32_t next_insert = 0, oldest = 0, outstanding = 0;
	struct rng r;

	/* Room for the deletes that close the loop. */
	out->ops = malloc((len + WORKLOAD_POOL) * sizeof(*out->ops));
	if (!out->ops)
		return -ENOMEM;
	seed_stream(w, tid, &r);
	size_t n = 0;
	for (; n < len; n++) {
		int op = pick_op(w, &r);
		/* Keep the pool consistent: no delete with nothing inserted,
		 * no insert with the whole pool in the map. */
		if (op == OP_DELETE && outstanding == 0)
			op = w->mix[OP_INSERT] ? OP_INSERT : OP_LOOKUP;
		else if (op == OP_INSERT && outstanding == WORKLOAD_POOL)
			op = w->mix[OP_DELETE] ? OP_DELETE : OP_LOOKUP;
		uint32_t key;
		if (op == OP_INSERT) {
			key = pool_base + next_insert;
			next_insert = (next_insert + 1) % WORKLOAD_POOL;
			outstanding++;
		} else if (op == OP_DELETE) {
			key = pool_base + oldest;
			oldest = (oldest + 1) % WORKLOAD_POOL;
			outstanding--;
		} else {
			key = drawn_key(s, op, &r);
		}
		out->ops[n].op = (uint32_t)op;
		out->ops[n].key = key;
	}
	for (; outstanding; outstanding--, n++) {
		out->ops[n].op = OP_DELETE;
		out->ops[n].key = pool_base + oldest;
		oldest = (oldest + 1) % WORKLOAD_POOL;
	}
	out->len = n;
	return 0;
}

int workload_make_stream(const struct workload *w,
			 const struct key_sampler *s, unsigned tid,
			 size_t len, struct stream *out)
{
	return w->key_range ? make_range_stream(w, s, tid, len, out)
			    : make_pool_stream(w, s, tid, len, out);
}

void workload_stream_free(struct stream *s)
{
	free(s->ops);
	s->ops = NULL;
	s->len = 0;
}

int workload_stream_mix(const struct workload *w, double share[OP_COUNT])
{
	struct key_sampler *sampler = workload_sampler_new(w);
	struct stream st = { 0 };
	int rc = sampler ? workload_make_stream(w, sampler, 0, 1u << 16, &st)
			 : -ENOMEM;
	uint64_t count[OP_COUNT] = { 0 };
	for (size_t i = 0; !rc && i < st.len; i++)
		count[st.ops[i].op]++;
	for (int op = 0; op < OP_COUNT; op++)
		share[op] = rc ? 0 : 100.0 * (double)count[op] / (double)st.len;
	workload_stream_free(&st);
	workload_sampler_free(sampler);
	return rc;
}

void workload_fill_value(uint8_t *v, uint32_t size, uint64_t n)
{
	uint64_t word = n * 0x9e3779b97f4a7c15ULL + 1;
	for (uint32_t i = 0; i < size; i += 8) {
		uint32_t k = size - i < 8 ? size - i : 8;
		memcpy(v + i, &word, k);
	}
}

struct workload workload_default(void)
{
	struct workload w = {
		.type = MAP_TYPE_HASH,
		.key_size = WORKLOAD_DEFAULT_KEY_SIZE,
		.value_size = WORKLOAD_DEFAULT_VALUE_SIZE,
		.entries = WORKLOAD_DEFAULT_ENTRIES,
		.prefill_pct = WORKLOAD_DEFAULT_PREFILL,
		.dist = DIST_UNIFORM,
		.seed = WORKLOAD_DEFAULT_SEED,
		.batch = 1,
	};
	char err[128];
	/* the two texts above are the help's; parsed, they cannot fail */
	workload_parse_mix(WORKLOAD_DEFAULT_MIX, w.mix, err, sizeof(err));
	workload_parse_dist(WORKLOAD_DEFAULT_DIST, &w, err, sizeof(err));
	return w;
}
