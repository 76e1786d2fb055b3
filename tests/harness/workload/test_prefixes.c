/* SPDX-License-Identifier: MIT */
/*
 * The prefix sets of LPM workloads (harness/workload/prefixes.h):
 *  - each length's count is its share of the mix, rounded, summing to n;
 *    the BGP mix has the shape of a public table (mostly /24, a /23 and
 *    /22 bulge, few short prefixes), and a table's first n follow it;
 *  - prefixes are distinct and masked (no bit past the length set), IPv6
 *    ones in 2000::/3 with lengths of the mix only;
 *  - an address meant to hit lies inside its prefix, a miss inside none
 *    (checked against every prefix, not through the table's index);
 *  - the same spec makes the same table, another seed another one;
 *  - sizes from 1K to 1M; sets too dense to draw are refused.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness/workload/prefixes.h"

static struct prefix_table make(enum prefix_set set, uint64_t n,
				uint64_t extra, uint64_t misses, uint64_t seed)
{
	struct prefix_spec spec = { .set = set, .exact = n, .prefixes = n + extra,
				    .hits = n, .misses = misses, .seed = seed };
	struct prefix_table t;
	char err[256];
	cr_assert_eq(prefix_table_make(&spec, &t, err, sizeof(err)), 0, "%s", err);
	return t;
}

/* Whether the first len bits of a and b agree. */
static bool same_first_bits(const uint8_t *a, const uint8_t *b, unsigned len)
{
	if (memcmp(a, b, len / 8))
		return false;
	uint8_t m = (uint8_t)(0xff00u >> (len % 8));
	return len % 8 == 0 || ((a[len / 8] ^ b[len / 8]) & m) == 0;
}

/* No bit past len is set. */
static bool masked(const uint8_t *data, unsigned len, uint32_t size)
{
	uint8_t zero[PREFIX_MAX_DATA] = { 0 };
	uint8_t m = (uint8_t)~(0xff00u >> (len % 8));
	if (len / 8 >= size)
		return true;
	return (data[len / 8] & m) == 0 &&
	       memcmp(data + len / 8 + 1, zero, size - len / 8 - 1) == 0;
}

static size_t g_size; /* for by_prefix */

/* Records of length then data, g_size + 1 bytes. */
static int by_prefix(const void *a, const void *b)
{
	return memcmp(a, b, g_size + 1);
}

static void expect_distinct_and_masked(const struct prefix_table *t)
{
	const uint32_t size = t->data_size;
	uint8_t *rec = malloc(t->prefixes * (size + 1));
	cr_assert(rec != NULL);
	for (uint64_t i = 0; i < t->prefixes; i++) {
		const uint8_t *d = t->data + i * size;
		cr_assert(masked(d, t->len[i], size), "prefix %lu (/%u) has bits "
			  "past its length", i, t->len[i]);
		rec[i * (size + 1)] = t->len[i];
		memcpy(rec + i * (size + 1) + 1, d, size);
	}
	g_size = size;
	qsort(rec, t->prefixes, size + 1, by_prefix);
	for (uint64_t i = 1; i < t->prefixes; i++)
		cr_assert_neq(memcmp(rec + (i - 1) * (size + 1), rec + i * (size + 1),
				     size + 1), 0, "two equal prefixes");
	free(rec);
}

Test(prefixes, counts_are_the_mix_scaled_and_sum_to_n)
{
	const enum prefix_set sets[] = { PREFIXES_RANDOM32, PREFIXES_BGP,
					 PREFIXES_IPV6, PREFIXES_BPF_PERFORMANCE };
	const uint64_t sizes[] = { 1, 1000, 1024, 65536, 1 << 20 };
	uint64_t count[PREFIX_MAX_LEN + 1];
	for (size_t s = 0; s < 4; s++)
		for (size_t z = 0; z < 5; z++) {
			enum prefix_set set = sets[s];
			uint64_t n = sizes[z], sum = 0;
			double total = (double)prefix_set_total_weight(set);
			prefix_set_counts(set, n, count);
			for (unsigned len = 0; len <= 8 * prefix_set_data_size(set);
			     len++) {
				double want = (double)n * prefix_set_weight(set, len) /
					      total;
				cr_expect(count[len] + 1 > want && count[len] < want + 1,
					  "%s, %lu: /%u has %lu, not about %.2f",
					  prefix_set_name(set), n, len, count[len], want);
				sum += count[len];
			}
			cr_expect_eq(sum, n);
		}
}

Test(prefixes, the_bgp_mix_is_a_public_tables_shape)
{
	const double total = (double)prefix_set_total_weight(PREFIXES_BGP);
	double share[33], shorter_than_16 = 0;
	cr_expect_eq(prefix_set_total_weight(PREFIXES_BGP), 895537);
	for (unsigned len = 0; len <= 32; len++) {
		share[len] = prefix_set_weight(PREFIXES_BGP, len) / total;
		if (len < 16)
			shorter_than_16 += share[len];
	}
	cr_expect(share[24] > 0.58 && share[24] < 0.59, "/24: %.4f", share[24]);
	cr_expect(share[23] > 0.10 && share[22] > 0.10, "/23 %.4f, /22 %.4f",
		  share[23], share[22]);
	for (unsigned len = 0; len <= 32; len++)
		if (len != 24)
			cr_expect_lt(share[len], share[22] + 0.001, "/%u", len);
	cr_expect_lt(shorter_than_16, 0.005);
	cr_expect_eq(prefix_set_weight(PREFIXES_BGP, 8), 16, "the /8s");
	cr_expect_eq(prefix_set_weight(PREFIXES_BGP, 7), 0);
}

Test(prefixes, a_tables_first_prefixes_follow_the_mix_exactly)
{
	uint64_t want[PREFIX_MAX_LEN + 1], got[PREFIX_MAX_LEN + 1] = { 0 };
	struct prefix_table t = make(PREFIXES_BGP, 65536, 1000, 0, 7);
	prefix_set_counts(PREFIXES_BGP, 65536, want);
	for (uint64_t i = 0; i < 65536; i++)
		got[t.len[i]]++;
	for (unsigned len = 0; len <= 32; len++)
		cr_expect_eq(got[len], want[len], "/%u: %lu, not %lu", len, got[len],
			     want[len]);
	/* Shuffled: the first thousand hold the /24s' share too. */
	uint64_t first24 = 0;
	for (uint64_t i = 0; i < 1000; i++)
		first24 += t.len[i] == 24;
	cr_expect(first24 > 520 && first24 < 650, "%lu /24s in the first 1000",
		  first24);
	/* The pools' prefixes, drawn one by one, are of the mix's lengths. */
	for (uint64_t i = 65536; i < t.prefixes; i++)
		cr_expect_gt(prefix_set_weight(PREFIXES_BGP, t.len[i]), 0);
	prefix_table_free(&t);
}

Test(prefixes, prefixes_are_distinct_and_masked, .timeout = 120)
{
	const enum prefix_set sets[] = { PREFIXES_RANDOM32, PREFIXES_BGP,
					 PREFIXES_IPV6 };
	for (size_t s = 0; s < 3; s++) {
		struct prefix_table t = make(sets[s], 100000, 16256, 0, 3);
		expect_distinct_and_masked(&t);
		prefix_table_free(&t);
	}
}

Test(prefixes, ipv6_prefixes_are_global_unicast_of_the_mixs_lengths)
{
	struct prefix_table t = make(PREFIXES_IPV6, 4096, 0, 1000, 5);
	uint64_t got48 = 0, got64 = 0;
	cr_expect_eq(t.data_size, 16);
	cr_expect_eq(prefix_set_data_size(PREFIXES_IPV6), 16);
	for (uint64_t i = 0; i < t.prefixes; i++) {
		cr_expect_gt(prefix_set_weight(PREFIXES_IPV6, t.len[i]), 0, "/%u",
			     t.len[i]);
		cr_expect_eq(t.data[i * 16] & 0xe0, 0x20, "not in 2000::/3");
		got48 += t.len[i] == 48;
		got64 += t.len[i] == 64;
	}
	cr_expect(got48 > got64 && got64 > t.prefixes / 5, "/48 %lu, /64 %lu",
		  got48, got64);
	for (uint64_t j = 0; j < t.misses; j++)
		cr_expect_eq(t.miss[j * 16] & 0xe0, 0x20, "a miss outside 2000::/3");
	prefix_table_free(&t);
}

/* Every hit inside its prefix; every miss outside every prefix, by brute
 * force over the prefixes (the table's own index plays no part). */
static void expect_hits_and_misses(enum prefix_set set, uint64_t n)
{
	struct prefix_table t = make(set, n, 64, 2000, 11);
	const uint32_t size = t.data_size;
	for (uint64_t k = 0; k < t.hits; k++)
		cr_assert(same_first_bits(t.hit + k * size, t.data + k * size,
					  t.len[k]), "hit %lu outside its prefix", k);
	for (uint64_t j = 0; j < t.misses; j++)
		for (uint64_t i = 0; i < t.prefixes; i++)
			cr_assert(!same_first_bits(t.miss + j * size,
						   t.data + i * size, t.len[i]),
				  "miss %lu inside prefix %lu (/%u)", j, i, t.len[i]);
	for (uint64_t k = 0; k < t.hits; k++)
		cr_assert(prefix_table_covers(&t, t.hit + k * size));
	prefix_table_free(&t);
}

Test(prefixes, hits_lie_inside_their_prefix_and_misses_inside_none,
     .timeout = 120)
{
	expect_hits_and_misses(PREFIXES_RANDOM32, 1024);
	expect_hits_and_misses(PREFIXES_BGP, 4096);
	expect_hits_and_misses(PREFIXES_IPV6, 1024);
}

Test(prefixes, random32_hits_are_the_prefixes_themselves)
{
	struct prefix_table t = make(PREFIXES_RANDOM32, 1024, 0, 0, 2);
	cr_expect(prefix_set_full_length(PREFIXES_RANDOM32));
	cr_expect(!prefix_set_full_length(PREFIXES_BGP));
	for (uint64_t k = 0; k < t.prefixes; k++) {
		cr_expect_eq(t.len[k], 32);
		cr_expect_eq(memcmp(t.hit + 4 * k, t.data + 4 * k, 4), 0);
	}
	prefix_table_free(&t);
}

static bool equal_tables(const struct prefix_table *a,
			 const struct prefix_table *b)
{
	const uint32_t size = a->data_size;
	return a->prefixes == b->prefixes &&
	       memcmp(a->len, b->len, a->prefixes) == 0 &&
	       memcmp(a->data, b->data, a->prefixes * size) == 0 &&
	       memcmp(a->hit, b->hit, a->hits * size) == 0 &&
	       memcmp(a->miss, b->miss, a->misses * size) == 0;
}

Test(prefixes, the_seed_decides_everything)
{
	struct prefix_table a = make(PREFIXES_BGP, 8192, 640, 500, 42);
	struct prefix_table b = make(PREFIXES_BGP, 8192, 640, 500, 42);
	struct prefix_table c = make(PREFIXES_BGP, 8192, 640, 500, 43);
	cr_expect(equal_tables(&a, &b));
	cr_expect(!equal_tables(&a, &c));
	prefix_table_free(&a);
	prefix_table_free(&b);
	prefix_table_free(&c);
}

Test(prefixes, sizes_from_1k_to_1m, .timeout = 300)
{
	const uint64_t sizes[] = { 1024, 1 << 20 };
	for (size_t z = 0; z < 2; z++) {
		struct prefix_table t = make(PREFIXES_BGP, sizes[z], 0, 1000, 1);
		cr_expect_eq(t.prefixes, sizes[z]);
		prefix_table_free(&t);
		t = make(PREFIXES_IPV6, sizes[z], 0, 1000, 1);
		cr_expect_eq(t.prefixes, sizes[z]);
		prefix_table_free(&t);
	}
}

Test(prefixes, sets_too_dense_to_draw_are_refused)
{
	char err[256];
	cr_expect_eq(prefix_set_fits(PREFIXES_BGP, 1 << 20, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(prefix_set_fits(PREFIXES_BGP, 4000000, err, sizeof(err)), -1);
	cr_expect(strstr(err, "60956 /16 prefixes, more than half of the 65536")
		  != NULL, "%s", err);
	cr_expect_eq(prefix_set_fits(PREFIXES_RANDOM32, 1u << 31, err,
				     sizeof(err)), 0, "%s", err);
	cr_expect_eq(prefix_set_fits(PREFIXES_RANDOM32, (1u << 31) + 1, err,
				     sizeof(err)), -1);
}

/* bpf_performance's lpm.h reads the same table one length shorter: the
 * shares its suite's LPM tests run on (../shared research, section 1.3). */
Test(prefixes, the_bpf_performance_mix_is_lpm_hs_reading)
{
	const enum prefix_set s = PREFIXES_BPF_PERFORMANCE;
	const double total = (double)prefix_set_total_weight(s);
	cr_expect_eq(prefix_set_total_weight(s), 895537);
	double share[33];
	for (unsigned len = 0; len <= 32; len++)
		share[len] = prefix_set_weight(s, len) / total;
	cr_expect(share[23] > 0.584 && share[23] < 0.586, "/23: %.4f", share[23]);
	cr_expect(share[21] > 0.121 && share[21] < 0.123, "/21: %.4f", share[21]);
	cr_expect(share[22] > 0.108 && share[22] < 0.110, "/22: %.4f", share[22]);
	cr_expect(share[24] > 0.0015 && share[24] < 0.0017, "/24: %.5f", share[24]);
	cr_expect_eq(prefix_set_weight(s, 32), 0, "no /32");
	for (unsigned len = 0; len < 7; len++)
		cr_expect_eq(prefix_set_weight(s, len), 0, "nothing shorter than /7");
	cr_expect_gt(prefix_set_weight(s, 31), 0, "a /31");
	/* each length is the bgp set's next one */
	for (unsigned len = 0; len < 32; len++)
		cr_expect_eq(prefix_set_weight(s, len),
			     prefix_set_weight(PREFIXES_BGP, len + 1), "/%u", len);
	enum prefix_set parsed = PREFIXES_NONE;
	cr_expect_eq(prefix_set_parse("bpf_performance", &parsed), 0);
	cr_expect_eq(parsed, s);
	cr_expect_eq(prefix_set_data_size(s), 4);
	struct prefix_table t = make(s, 4096, 0, 1000, 3);
	for (uint64_t i = 0; i < t.prefixes; i++)
		cr_expect(t.len[i] >= 7 && t.len[i] <= 31, "/%u", t.len[i]);
	prefix_table_free(&t);
}

Test(prefixes, names_and_keys)
{
	enum prefix_set s = PREFIXES_NONE;
	cr_expect_eq(prefix_set_parse("bgp", &s), 0);
	cr_expect_eq(s, PREFIXES_BGP);
	cr_expect_eq(prefix_set_parse("BGP", &s), -1);
	cr_expect_str_eq(prefix_set_name(PREFIXES_IPV6), "ipv6");
	const uint8_t data[4] = { 192, 168, 0, 0 };
	uint8_t key[8];
	prefix_key(key, true, 16, data, 4);
	cr_expect_eq(memcmp(key, "\x10\0\0\0\xc0\xa8\0\0", 8), 0);
	prefix_key(key, false, 16, data, 4);
	cr_expect_eq(memcmp(key, data, 4), 0);
}
