/* SPDX-License-Identifier: MIT */
/* prefixes.c: the prefix sets of LPM workloads (prefixes.h). */
#include "harness/workload/prefixes.h"
#include "harness/common/rng.h"

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
};

int prefix_set_parse(const char *text, enum prefix_set *out)
{
	for (int s = PREFIXES_RANDOM32; s < PREFIXES_COUNT; s++)
		if (strcmp(text, set_names[s]) == 0) {
			*out = (enum prefix_set)s;
			return 0;
		}
	return -1;
}

const char *prefix_set_name(enum prefix_set s)
{
	return s < PREFIXES_COUNT ? set_names[s] : "none";
}

uint32_t prefix_set_data_size(enum prefix_set s)
{
	switch (s) {
	case PREFIXES_RANDOM32:
	case PREFIXES_BGP:
	case PREFIXES_BPF_PERFORMANCE: return 4;
	case PREFIXES_IPV6: return 16;
	default: return 0;
	}
}

bool prefix_set_full_length(enum prefix_set s)
{
	return s == PREFIXES_RANDOM32;
}

static unsigned max_len(enum prefix_set s)
{
	return 8 * prefix_set_data_size(s);
}

/* Leading bits every address of the set has fixed (IPv6: 001, global
 * unicast), so its prefixes of length L number 2^(L - fixed). */
static unsigned fixed_bits(enum prefix_set s)
{
	return s == PREFIXES_IPV6 ? 3 : 0;
}

uint64_t prefix_set_weight(enum prefix_set s, unsigned len)
{
	switch (s) {
	case PREFIXES_RANDOM32:
		return len == 32;
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

static struct rng rng_for(uint64_t seed, uint64_t purpose)
{
	struct rng r;
	rng_seed(&r, rng_mix64(seed * 0x9e3779b97f4a7c15ULL + purpose));
	return r;
}

static int check_spec(const struct prefix_spec *spec, char *err, size_t errlen)
{
	if (spec->set != PREFIXES_NONE && spec->set < PREFIXES_COUNT &&
	    spec->exact <= spec->prefixes && spec->hits <= spec->prefixes &&
	    spec->prefixes < UINT32_MAX)
		return 0;
	snprintf(err, errlen, "a prefix table needs a set, at most %u prefixes, "
		 "and no more exact ones or hits than prefixes", UINT32_MAX - 1);
	return -EINVAL;
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
	draw_lengths(spec, t, &lengths);
	for (uint64_t i = 0; i < t->prefixes && !rc; i++)
		rc = draw_prefix(spec, t, &bits, i);
	if (rc) {
		snprintf(err, errlen, "no room for %llu distinct %s prefixes",
			 (unsigned long long)spec->prefixes,
			 prefix_set_name(spec->set));
		prefix_table_free(t);
		return rc;
	}
	for (uint64_t k = 0; k < t->hits; k++)
		address_inside(spec->set, &hits, t->len[k], t->data + k * size,
			       size, t->hit + k * size);
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
