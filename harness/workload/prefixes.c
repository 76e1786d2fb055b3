/* SPDX-License-Identifier: MIT */
/* prefixes.c: the prefix sets of LPM workloads (prefixes.h). */
#include "harness/workload/prefixes.h"
#include "harness/common/rng.h"
#include "harness/workload/prefix_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * microsoft/bpf_performance, bpf/lpm.h: SCALED_CUMULATIVE_COUNT_N's
 * counts, N = 0..31, of 895,537 routes (bgp.potaroo.net bgp-active.html).
 * Entry N sums the routes of lengths up to N + 1 (prefixes.h).
 */
static const uint32_t bgp_cumulative[32] = {
	0, 0, 0, 0, 0, 0, 0, 16, 29, 70, 172, 478, 1074, 2289, 4379, 18026,
	26417, 40633, 66374, 110039, 163137, 272418, 370199, 894075, 895534,
	895534, 895534, 895535, 895535, 895536, 895536, 895537,
};

/* Ours: per mille.  /48 (a site) and /64 (a subnet) heavy, the shorter
 * allocations (/32 of an ISP, /36../44) and some host routes (/128). */
static const struct {
	uint8_t len;
	uint16_t weight;
} ipv6_mix[] = {
	{ 32, 80 }, { 36, 20 }, { 40, 40 }, { 44, 60 }, { 48, 350 },
	{ 52, 30 }, { 56, 70 }, { 60, 20 }, { 64, 250 }, { 80, 10 },
	{ 96, 20 }, { 112, 10 }, { 128, 40 },
};

static const char *const set_names[] = {
	[PREFIXES_NONE] = "none", [PREFIXES_RANDOM32] = "random32",
	[PREFIXES_BGP] = "bgp", [PREFIXES_IPV6] = "ipv6",
	[PREFIXES_BPF_PERFORMANCE] = "bpf_performance",
	[PREFIXES_DENSE] = "dense", [PREFIXES_INTERNET] = "internet",
	[PREFIXES_INTERNET6] = "internet6",
	[PREFIXES_FILE] = "FILE", [PREFIXES_FILE6] = "FILE6",
};

/* The list sets' lists, read once (prefix_set_load), and FILE's path. */
static struct prefix_list lists[PREFIXES_COUNT];
static bool listed_loaded[PREFIXES_COUNT];
static const char *file_path = "";

bool prefix_set_listed(enum prefix_set s)
{
	return s == PREFIXES_INTERNET || s == PREFIXES_INTERNET6 ||
	       s == PREFIXES_FILE || s == PREFIXES_FILE6;
}

void prefix_set_use_file(const char *path)
{
	for (int s = PREFIXES_FILE; s <= PREFIXES_FILE6; s++) {
		prefix_list_free(&lists[s]);
		listed_loaded[s] = false;
	}
	file_path = path;
}

enum prefix_set prefix_set_family(enum prefix_set s, uint32_t data_size)
{
	bool v6 = data_size == 16;
	if (s == PREFIXES_INTERNET || s == PREFIXES_INTERNET6)
		return v6 ? PREFIXES_INTERNET6 : PREFIXES_INTERNET;
	if (s == PREFIXES_FILE || s == PREFIXES_FILE6)
		return v6 ? PREFIXES_FILE6 : PREFIXES_FILE;
	return s;
}

int prefix_set_load(enum prefix_set s, char *err, size_t errlen)
{
	char shipped[4096];
	if (!prefix_set_listed(s) || listed_loaded[s])
		return 0;
	const char *path = s == PREFIXES_FILE || s == PREFIXES_FILE6
				   ? file_path
				   : prefix_data_path(PREFIX_INTERNET_FILE, shipped,
						      sizeof(shipped));
	int rc = prefix_list_read(path, prefix_set_data_size(s), &lists[s], err,
				  errlen);
	listed_loaded[s] = rc == 0;
	return rc;
}

uint64_t prefix_set_listed_count(enum prefix_set s)
{
	return prefix_set_listed(s) ? lists[s].n : 0;
}

int prefix_set_parse(const char *text, enum prefix_set *out)
{
	for (int s = PREFIXES_RANDOM32; s < PREFIXES_COUNT; s++)
		if (s != PREFIXES_FILE && s != PREFIXES_FILE6 &&
		    strcmp(text, set_names[s]) == 0) {
			*out = (enum prefix_set)s;
			return 0;
		}
	return -1;
}

const char *prefix_set_name(enum prefix_set s)
{
	if (s == PREFIXES_FILE || s == PREFIXES_FILE6)
		return file_path;
	return s < PREFIXES_COUNT ? set_names[s] : "none";
}

uint32_t prefix_set_data_size(enum prefix_set s)
{
	switch (s) {
	case PREFIXES_RANDOM32:
	case PREFIXES_BGP:
	case PREFIXES_BPF_PERFORMANCE:
	case PREFIXES_DENSE:
	case PREFIXES_INTERNET:
	case PREFIXES_FILE: return 4;
	case PREFIXES_IPV6:
	case PREFIXES_INTERNET6:
	case PREFIXES_FILE6: return 16;
	default: return 0;
	}
}

bool prefix_set_full_length(enum prefix_set s)
{
	return s == PREFIXES_RANDOM32 || s == PREFIXES_DENSE;
}

static unsigned max_len(enum prefix_set s)
{
	return 8 * prefix_set_data_size(s);
}

/* Leading bits every address of the set has fixed (IPv6: 001, global
 * unicast), so its prefixes of length L number 2^(L - fixed). */
static unsigned fixed_bits(enum prefix_set s)
{
	return prefix_set_data_size(s) == 16 ? 3 : 0;
}

uint64_t prefix_set_weight(enum prefix_set s, unsigned len)
{
	switch (s) {
	case PREFIXES_RANDOM32:
	case PREFIXES_DENSE:
		return len == 32;
	case PREFIXES_INTERNET:
	case PREFIXES_INTERNET6:
	case PREFIXES_FILE:
	case PREFIXES_FILE6:
		return len <= max_len(s) ? lists[s].count[len] : 0;
	case PREFIXES_BGP:
		if (len == 0 || len > 32)
			return 0;
		return bgp_cumulative[len - 1] -
		       (len >= 2 ? bgp_cumulative[len - 2] : 0);
	case PREFIXES_BPF_PERFORMANCE:
		/* lpm.h's reading: length N for the indices from entry N - 1
		 * to entry N, one length shorter than the table's */
		if (len > 31)
			return 0;
		return bgp_cumulative[len] -
		       (len >= 1 ? bgp_cumulative[len - 1] : 0);
	case PREFIXES_IPV6:
		for (size_t i = 0; i < sizeof(ipv6_mix) / sizeof(ipv6_mix[0]); i++)
			if (ipv6_mix[i].len == len)
				return ipv6_mix[i].weight;
		return 0;
	default:
		return 0;
	}
}

uint64_t prefix_set_total_weight(enum prefix_set s)
{
	uint64_t sum = 0;
	for (unsigned len = 0; len <= max_len(s); len++)
		sum += prefix_set_weight(s, len);
	return sum;
}

void prefix_set_counts(enum prefix_set s, uint64_t n, uint64_t *count)
{
	const unsigned top = max_len(s);
	const uint64_t total = prefix_set_total_weight(s);
	uint64_t rem[PREFIX_MAX_LEN + 1], given = 0;

	if (!total) { /* a list set not read */
		memset(count, 0, (top + 1) * sizeof(*count));
		return;
	}
	for (unsigned len = 0; len <= top; len++) {
		unsigned __int128 share = (unsigned __int128)n *
					  prefix_set_weight(s, len);
		count[len] = (uint64_t)(share / total);
		rem[len] = (uint64_t)(share % total);
		given += count[len];
	}
	/* Largest remainders first; among equal ones, the shorter length. */
	for (; given < n; given++) {
		unsigned best = 0;
		for (unsigned len = 1; len <= top; len++)
			if (rem[len] > rem[best])
				best = len;
		count[best]++;
		rem[best] = 0;
	}
}

/* 2^(len - fixed): the set's prefixes of this length, or 0 where there is
 * no such length; saturated at 2^63. */
static uint64_t prefixes_of_length(enum prefix_set s, unsigned len)
{
	unsigned bits = len - fixed_bits(s);
	if (len < fixed_bits(s))
		return 0;
	return bits >= 63 ? 1ULL << 63 : 1ULL << bits;
}

int prefix_set_fits(enum prefix_set s, uint64_t exact, char *err,
		    size_t errlen)
{
	uint64_t count[PREFIX_MAX_LEN + 1];

	if (s == PREFIXES_NONE)
		return 0;
	if (prefix_set_listed(s)) {
		if (exact <= lists[s].n)
			return 0;
		snprintf(err, errlen, "%llu prefixes asked for; %s holds %llu %s "
			 "prefixes", (unsigned long long)exact,
			 s == PREFIXES_INTERNET || s == PREFIXES_INTERNET6
				 ? "the internet table" : prefix_set_name(s),
			 (unsigned long long)lists[s].n,
			 prefix_set_data_size(s) == 4 ? "IPv4" : "IPv6");
		return -1;
	}
	prefix_set_counts(s, exact, count);
	for (unsigned len = 0; len <= max_len(s); len++)
		if (count[len] > prefixes_of_length(s, len) / 2) {
			snprintf(err, errlen, "%llu %s prefixes hold %llu /%u "
				 "prefixes, more than half of the %llu there are",
				 (unsigned long long)exact, prefix_set_name(s),
				 (unsigned long long)count[len], len,
				 (unsigned long long)prefixes_of_length(s, len));
			return -1;
		}
	return 0;
}

/* --- the index: every prefix by its length and masked bits ------------------ */

/* It reads the table's arrays, never the table itself, so a table may be
 * moved (returned by value) with its index. */
struct prefix_index {
	const uint8_t *len, *data; /* the table's */
	uint32_t size;             /* data bytes */
	uint32_t *slot;         /* prefix number + 1; 0: empty */
	uint64_t mask;          /* slots - 1 */
	uint64_t present[(PREFIX_MAX_LEN + 64) / 64]; /* lengths present */
};

/* data's first len bits, the rest zero, into out. */
static void mask_to(const uint8_t *data, unsigned len, uint32_t size,
		    uint8_t *out)
{
	uint32_t full = len / 8;
	memcpy(out, data, full);
	if (full < size) {
		out[full] = (uint8_t)(data[full] & (0xff00u >> (len % 8)));
		memset(out + full + 1, 0, size - full - 1);
	}
}

static uint64_t hash_of(unsigned len, const uint8_t *masked, uint32_t size)
{
	uint64_t w[2] = { 0, 0 };
	memcpy(w, masked, size);
	return rng_mix64(w[0] ^ rng_mix64(w[1] + len));
}

/* The slot holding (len, masked), or the empty slot where it would go. */
static uint64_t find_slot(const struct prefix_index *x, unsigned len,
			  const uint8_t *masked)
{
	uint64_t i = hash_of(len, masked, x->size) & x->mask;
	for (; x->slot[i]; i = (i + 1) & x->mask) {
		uint64_t p = x->slot[i] - 1;
		if (x->len[p] == len &&
		    memcmp(x->data + p * x->size, masked, x->size) == 0)
			break;
	}
	return i;
}

/* Prefix p (already in the table) into the index: false when an equal
 * prefix is in already. */
static bool index_add(struct prefix_index *x, uint64_t p)
{
	uint64_t i = find_slot(x, x->len[p], x->data + p * x->size);
	if (x->slot[i])
		return false;
	x->slot[i] = (uint32_t)(p + 1);
	x->present[x->len[p] / 64] |= 1ULL << (x->len[p] % 64);
	return true;
}

bool prefix_table_covers(const struct prefix_table *t, const uint8_t *addr)
{
	const struct prefix_index *x = t->index;
	uint8_t masked[PREFIX_MAX_DATA];
	for (unsigned len = 0; len <= 8 * t->data_size; len++) {
		if (!(x->present[len / 64] & (1ULL << (len % 64))))
			continue;
		mask_to(addr, len, t->data_size, masked);
		if (x->slot[find_slot(x, len, masked)])
			return true;
	}
	return false;
}

static int index_init(struct prefix_index **out, const struct prefix_table *t)
{
	struct prefix_index *x = calloc(1, sizeof(*x));
	uint64_t slots = 16;
	while (slots < 2 * t->prefixes)
		slots *= 2;
	if (x)
		x->slot = calloc(slots, sizeof(*x->slot));
	if (!x || !x->slot) {
		free(x);
		return -ENOMEM;
	}
	x->len = t->len;
	x->data = t->data;
	x->size = t->data_size;
	x->mask = slots - 1;
	*out = x;
	return 0;
}

/* --- drawing ----------------------------------------------------------------- */

/* A random address of the set's space (IPv6: 2000::/3). */
static void random_address(enum prefix_set s, struct rng *r, uint8_t *out,
			   uint32_t size)
{
	for (uint32_t i = 0; i < size; i += 8) {
		uint64_t v = rng_next(r);
		memcpy(out + i, &v, size - i < 8 ? size - i : 8);
	}
	if (s == PREFIXES_IPV6)
		out[0] = (uint8_t)(0x20 | (out[0] & 0x1f));
}

/* A random address inside the prefix (len, data). */
static void address_inside(enum prefix_set s, struct rng *r, unsigned len,
			   const uint8_t *data, uint32_t size, uint8_t *out)
{
	uint32_t full = len / 8;
	random_address(s, r, out, size);
	memcpy(out, data, full);
	if (full < size) {
		uint8_t keep = (uint8_t)(0xff00u >> (len % 8));
		out[full] = (uint8_t)((data[full] & keep) | (out[full] & ~keep));
	}
}

/* A length drawn from the set's mix. */
static unsigned draw_length(enum prefix_set s, struct rng *r, uint64_t total)
{
	uint64_t u = rng_below(r, total);
	unsigned len = 0;
	for (; len < max_len(s); len++) {
		uint64_t w = prefix_set_weight(s, len);
		if (u < w)
			break;
		u -= w;
	}
	return len;
}

/* Attempts at a distinct prefix, or at a miss, before giving up. */
#define DRAW_ATTEMPTS (1u << 20)

/* The lengths: the first `exact` by the counts, shuffled; then drawn. */
static void draw_lengths(const struct prefix_spec *spec, struct prefix_table *t,
			 struct rng *r)
{
	uint64_t count[PREFIX_MAX_LEN + 1], at = 0;
	prefix_set_counts(spec->set, spec->exact, count);
	for (unsigned len = 0; len <= max_len(spec->set); len++)
		for (uint64_t i = 0; i < count[len]; i++)
			t->len[at++] = (uint8_t)len;
	for (uint64_t i = spec->exact; i > 1; i--) {
		uint64_t j = rng_below(r, i);
		uint8_t tmp = t->len[i - 1];
		t->len[i - 1] = t->len[j];
		t->len[j] = tmp;
	}
	uint64_t total = prefix_set_total_weight(spec->set);
	for (uint64_t i = spec->exact; i < spec->prefixes; i++)
		t->len[i] = (uint8_t)draw_length(spec->set, r, total);
}

/* Prefix i's bits, drawn until no earlier prefix equals it. */
static int draw_prefix(const struct prefix_spec *spec, struct prefix_table *t,
		       struct rng *r, uint64_t i)
{
	uint8_t addr[PREFIX_MAX_DATA];
	uint8_t *data = t->data + i * t->data_size;
	for (unsigned n = 0; n < DRAW_ATTEMPTS; n++) {
		random_address(spec->set, r, addr, t->data_size);
		mask_to(addr, t->len[i], t->data_size, data);
		if (index_add(t->index, i))
			return 0;
	}
	return -ENOSPC;
}

static int draw_misses(const struct prefix_spec *spec, struct prefix_table *t,
		       struct rng *r)
{
	for (uint64_t j = 0; j < t->misses; j++) {
		uint8_t *addr = t->miss + j * t->data_size;
		unsigned n = 0;
		do
			random_address(spec->set, r, addr, t->data_size);
		while (prefix_table_covers(t, addr) && ++n < DRAW_ATTEMPTS);
		if (n == DRAW_ATTEMPTS)
			return -ENOSPC;
	}
	return 0;
}

/* --- the list sets and dense ------------------------------------------------ */

/* The first `exact` prefixes: a sample of the list that keeps its shape
 * (prefixes.h), in a shuffled order; every one in the index. */
static int sample_list(const struct prefix_spec *spec, struct prefix_table *t,
		       struct rng *r)
{
	const struct prefix_list *l = &lists[spec->set];
	const uint32_t size = t->data_size;
	uint64_t count[PREFIX_MAX_LEN + 1], start[PREFIX_MAX_LEN + 2] = { 0 };
	uint32_t *by_len = malloc((l->n ? l->n : 1) * sizeof(*by_len));
	uint64_t at = 0;

	if (!by_len)
		return -ENOMEM;
	/* the list's prefix numbers, grouped by length */
	for (unsigned len = 0; len <= max_len(spec->set); len++)
		start[len + 1] = start[len] + l->count[len];
	for (uint64_t i = 0; i < l->n; i++)
		by_len[start[l->len[i]]++] = (uint32_t)i;
	for (unsigned len = max_len(spec->set) + 1; len > 0; len--)
		start[len] = start[len - 1];
	start[0] = 0;
	/* each length's share, drawn by a partial shuffle of its group */
	prefix_set_counts(spec->set, spec->exact, count);
	for (unsigned len = 0; len <= max_len(spec->set); len++) {
		uint32_t *group = by_len + start[len];
		for (uint64_t k = 0; k < count[len]; k++) {
			uint64_t j = k + rng_below(r, l->count[len] - k);
			uint32_t pick = group[j];
			group[j] = group[k];
			group[k] = pick;
			by_len[at++] = pick; /* at <= start[len] + k: already read */
		}
	}
	for (uint64_t i = spec->exact; i > 1; i--) {
		uint64_t j = rng_below(r, i);
		uint32_t tmp = by_len[i - 1];
		by_len[i - 1] = by_len[j];
		by_len[j] = tmp;
	}
	for (uint64_t i = 0; i < spec->exact; i++) {
		t->len[i] = l->len[by_len[i]];
		memcpy(t->data + i * size, l->data + (uint64_t)by_len[i] * size,
		       size);
		index_add(t->index, i); /* distinct: the list's are */
	}
	free(by_len);
	return 0;
}

/* A list set's pool prefixes' lengths: the list's mix, except that no
 * length gets more than half of its 2^len prefixes, the sample's
 * included (a short list, three prefixes of /8, /16 and /24, would need
 * thousands of /8s); what a length cannot take goes to the longest. */
static void pool_lengths(const struct prefix_spec *spec,
			 struct prefix_table *t, struct rng *r)
{
	const unsigned top = max_len(spec->set);
	uint64_t count[PREFIX_MAX_LEN + 1], taken[PREFIX_MAX_LEN + 1] = { 0 };
	uint64_t at = spec->exact;

	for (uint64_t i = 0; i < spec->exact; i++)
		taken[t->len[i]]++;
	prefix_set_counts(spec->set, spec->prefixes - spec->exact, count);
	for (unsigned len = 0; len < top; len++) {
		uint64_t room = prefixes_of_length(spec->set, len) / 2;
		room = room > taken[len] ? room - taken[len] : 0;
		if (count[len] > room) {
			count[top] += count[len] - room;
			count[len] = room;
		}
	}
	for (unsigned len = 0; len <= top; len++)
		for (uint64_t k = 0; k < count[len]; k++)
			t->len[at++] = (uint8_t)len;
	for (uint64_t i = spec->prefixes - spec->exact; i > 1; i--) {
		uint64_t j = spec->exact + rng_below(r, i);
		uint8_t tmp = t->len[spec->exact + i - 1];
		t->len[spec->exact + i - 1] = t->len[j];
		t->len[j] = tmp;
	}
}

/* Prefix i of dense: i as the host's u32, a /32. */
static void dense_prefix(struct prefix_table *t, uint64_t i)
{
	uint32_t v = (uint32_t)i;
	t->len[i] = 32;
	memcpy(t->data + i * 4, &v, 4);
	index_add(t->index, i);
}

/* The space the first n prefixes cover, as sorted disjoint intervals of
 * addresses read as big-endian numbers, with their running sizes: an
 * address uniform over the space is one uniform number below the total. */
typedef unsigned __int128 addr_num;

struct cover {
	addr_num *first, *last, *upto; /* upto[i]: addresses in 0..i */
	size_t n;
};

static addr_num number_of(const uint8_t *data, uint32_t size)
{
	addr_num v = 0;
	for (uint32_t i = 0; i < size; i++)
		v = v << 8 | data[i];
	return v;
}

static void bytes_of(addr_num v, uint8_t *data, uint32_t size)
{
	for (uint32_t i = size; i > 0; i--, v >>= 8)
		data[i - 1] = (uint8_t)v;
}

static int by_first(const void *a, const void *b)
{
	const addr_num *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int cover_make(const struct prefix_table *t, uint64_t n,
		      struct cover *c)
{
	const uint32_t size = t->data_size, bits = 8 * size;
	addr_num *pairs = malloc((n ? n : 1) * 2 * sizeof(*pairs));
	memset(c, 0, sizeof(*c));
	c->first = malloc((n ? n : 1) * sizeof(addr_num));
	c->last = malloc((n ? n : 1) * sizeof(addr_num));
	c->upto = malloc((n ? n : 1) * sizeof(addr_num));
	if (!pairs || !c->first || !c->last || !c->upto) {
		free(pairs);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++) {
		unsigned host = bits - t->len[i];
		addr_num ones = host >= 128 ? ~(addr_num)0
					    : ((addr_num)1 << host) - 1;
		pairs[2 * i] = number_of(t->data + i * size, size);
		pairs[2 * i + 1] = pairs[2 * i] | ones;
	}
	qsort(pairs, n, 2 * sizeof(*pairs), by_first);
	addr_num total = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (c->n && pairs[2 * i] <= c->last[c->n - 1]) {
			if (pairs[2 * i + 1] > c->last[c->n - 1]) {
				total += pairs[2 * i + 1] - c->last[c->n - 1];
				c->last[c->n - 1] = pairs[2 * i + 1];
				c->upto[c->n - 1] = total;
			}
			continue; /* nested in the one before */
		}
		c->first[c->n] = pairs[2 * i];
		c->last[c->n] = pairs[2 * i + 1];
		total += pairs[2 * i + 1] - pairs[2 * i] + 1;
		c->upto[c->n++] = total;
	}
	free(pairs);
	return 0;
}

static void cover_free(struct cover *c)
{
	free(c->first);
	free(c->last);
	free(c->upto);
}

/* Address k: uniform over the space. */
static void draw_covered(const struct cover *c, struct rng *r, uint8_t *out,
			 uint32_t size)
{
	addr_num total = c->upto[c->n - 1];
	addr_num u = (addr_num)rng_next(r) << 64 | rng_next(r);
	if (total) /* 0: the whole space (2^128 wrapped) */
		u %= total;
	size_t lo = 0, hi = c->n - 1;
	while (lo < hi) { /* the first interval whose running size exceeds u */
		size_t mid = lo + (hi - lo) / 2;
		if (c->upto[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	addr_num below = lo ? c->upto[lo - 1] : 0;
	bytes_of(c->first[lo] + (u - below), out, size);
}

static int draw_hits_covered(const struct prefix_spec *spec,
			     struct prefix_table *t, struct rng *r)
{
	struct cover c;
	if (cover_make(t, spec->exact, &c)) {
		cover_free(&c);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < t->hits && c.n; k++)
		draw_covered(&c, r, t->hit + k * t->data_size, t->data_size);
	cover_free(&c);
	return 0;
}

static struct rng rng_for(uint64_t seed, uint64_t purpose)
{
	struct rng r;
	rng_seed(&r, rng_mix64(seed * 0x9e3779b97f4a7c15ULL + purpose));
	return r;
}

static int check_spec(const struct prefix_spec *spec, char *err, size_t errlen)
{
	int rc = prefix_set_load(spec->set, err, errlen);
	if (rc)
		return rc;
	if (prefix_set_listed(spec->set) &&
	    prefix_set_fits(spec->set, spec->exact, err, errlen))
		return -ENOSPC;
	if (spec->set != PREFIXES_NONE && spec->set < PREFIXES_COUNT &&
	    spec->exact <= spec->prefixes &&
	    (spec->hits <= spec->prefixes || prefix_set_listed(spec->set)) &&
	    spec->prefixes < UINT32_MAX)
		return 0;
	snprintf(err, errlen, "a prefix table needs a set, at most %u prefixes, "
		 "and no more exact ones or hits (but a list set's) than prefixes", UINT32_MAX - 1);
	return -EINVAL;
}

/* Every prefix: the first `exact` by the set's rule (the mix's lengths,
 * the list's sample, dense's order), the rest drawn by the mix. */
static int draw_all_prefixes(const struct prefix_spec *spec,
			     struct prefix_table *t, struct rng *lengths,
			     struct rng *bits)
{
	uint64_t i = 0;
	int rc = 0;
	if (spec->set == PREFIXES_DENSE) {
		for (; i < t->prefixes; i++)
			dense_prefix(t, i);
		return 0;
	}
	if (prefix_set_listed(spec->set)) {
		if ((rc = sample_list(spec, t, lengths)))
			return rc;
		pool_lengths(spec, t, lengths);
		i = spec->exact;
	} else {
		draw_lengths(spec, t, lengths);
	}
	for (; i < t->prefixes && !rc; i++)
		rc = draw_prefix(spec, t, bits, i);
	return rc;
}

/* Lookups' addresses: a list set's uniform over the covered space, any
 * other's inside prefix k. */
static int draw_hits(const struct prefix_spec *spec, struct prefix_table *t,
		     struct rng *r)
{
	if (prefix_set_listed(spec->set))
		return draw_hits_covered(spec, t, r);
	for (uint64_t k = 0; k < t->hits; k++)
		address_inside(spec->set, r, t->len[k],
			       t->data + k * t->data_size, t->data_size,
			       t->hit + k * t->data_size);
	return 0;
}

int prefix_table_make(const struct prefix_spec *spec, struct prefix_table *t,
		      char *err, size_t errlen)
{
	const uint32_t size = prefix_set_data_size(spec->set);
	int rc = check_spec(spec, err, errlen);

	memset(t, 0, sizeof(*t));
	if (rc)
		return rc;
	*t = (struct prefix_table){ .set = spec->set, .data_size = size,
				    .prefixes = spec->prefixes,
				    .hits = spec->hits, .misses = spec->misses };
	t->len = malloc(spec->prefixes ? spec->prefixes : 1);
	t->data = malloc((spec->prefixes ? spec->prefixes : 1) * size);
	t->hit = malloc((spec->hits ? spec->hits : 1) * size);
	t->miss = malloc((spec->misses ? spec->misses : 1) * size);
	if (!t->len || !t->data || !t->hit || !t->miss ||
	    index_init(&t->index, t)) {
		snprintf(err, errlen, "out of memory for %llu %s prefixes",
			 (unsigned long long)spec->prefixes,
			 prefix_set_name(spec->set));
		prefix_table_free(t);
		return -ENOMEM;
	}
	struct rng lengths = rng_for(spec->seed, 1), bits = rng_for(spec->seed, 2);
	struct rng hits = rng_for(spec->seed, 3), misses = rng_for(spec->seed, 4);
	if ((rc = draw_all_prefixes(spec, t, &lengths, &bits)) ||
	    (rc = draw_hits(spec, t, &hits))) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory for %llu %s prefixes",
				 (unsigned long long)spec->prefixes,
				 prefix_set_name(spec->set));
		else
			snprintf(err, errlen, "no room for %llu distinct %s "
				 "prefixes", (unsigned long long)spec->prefixes,
				 prefix_set_name(spec->set));
		prefix_table_free(t);
		return rc;
	}
	if ((rc = draw_misses(spec, t, &misses))) {
		snprintf(err, errlen, "%llu %s prefixes leave too few addresses "
			 "uncovered for lookups that miss",
			 (unsigned long long)spec->prefixes,
			 prefix_set_name(spec->set));
		prefix_table_free(t);
	}
	return rc;
}

void prefix_table_free(struct prefix_table *t)
{
	if (t->index)
		free(t->index->slot);
	free(t->index);
	free(t->len);
	free(t->data);
	free(t->hit);
	free(t->miss);
	memset(t, 0, sizeof(*t));
}

void prefix_key(uint8_t *key, bool lpm, unsigned len, const uint8_t *data,
		uint32_t data_size)
{
	if (lpm) {
		uint32_t prefixlen = len;
		memcpy(key, &prefixlen, sizeof(prefixlen));
		key += sizeof(prefixlen);
	}
	memcpy(key, data, data_size);
}
