/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/dpdk against lpm_trie/linux (which replays the kernel byte for
 * byte), for IPv4 keys (rte_fib, key_size 8) and IPv6 keys (rte_fib6,
 * key_size 20): random updates with every flag, deletes, lookups of every
 * prefix length, batched lookups and get_next_key from present and absent
 * keys, on prefixes that nest.  Every answer and errno must be linux's,
 * except get_next_key's order, which is the RIB's own: the walks are
 * compared as sets of key bytes (trailing bits included, as the kernel
 * gives them back).  Then the design's own edges: other key sizes and too
 * large a max_entries refused at create; lookups capped by their prefix
 * length (the RIB's parent walk); the prefixes that end the address space
 * (DPDK rewrites the whole table for them: kept beside it); IPv6 prefixes
 * added and deleted far more often than the table's tbl8 reservations
 * allow (rte_fib6 never gives one back: the design builds a new table);
 * batches against single lookups; memory back to its empty size; a
 * reader's lookups under a writer's changes.  The comparison's
 * scaffolding is shared with test_multibit.c (random_vs_linux.h); what is
 * this design's own is here.
 * Built only with DPDK.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

#include "tests/maps/lpm_trie/random_vs_linux.h"
#include "tests/maps/replace_check.h"

#define KEY 8
#define KEY6 20

/* Lengths around DIR-24-8's /24 boundary often, past 32 now and then. */
static uint32_t random_len_v4(uint32_t max_len)
{
	(void)max_len; /* 32 */
	unsigned r = (unsigned)(twin_random() % 100);
	if (r < 2)
		return 33 + (uint32_t)(twin_random() % 3);
	if (r < 40)
		return 22 + (uint32_t)(twin_random() % 11);
	return (uint32_t)(twin_random() % 33);
}

/* TRIE's levels are bytes past tbl24's first 3: lengths on or beside a
 * byte boundary often, /0 to /8 and /120 to /128 often (the ends), past
 * 128 now and then. */
static uint32_t random_len_v6(uint32_t max_len)
{
	(void)max_len; /* 128 */
	unsigned r = (unsigned)(twin_random() % 100);
	if (r < 2)
		return 129 + (uint32_t)(twin_random() % 3);
	if (r < 45) {
		uint32_t l = 8 * (uint32_t)(twin_random() % 17) +
			     (uint32_t)(twin_random() % 5) - 2;
		return l > 128 ? (l > 200 ? 0 : 128) : l;
	}
	if (r < 60)
		return (uint32_t)(twin_random() % 9) +
		       (twin_random() % 2 ? 120 : 0);
	return (uint32_t)(twin_random() % 129);
}

/* Beside the shared bases: one that differs from the first only in its
 * last byte (tbl8 groups shared), and the end of the address space. */
static void shape_bases(uint32_t data_size)
{
	memcpy(twin_bases[3], twin_bases[0], data_size - 1);
	memset(twin_bases[4], 0xff, data_size);
}

/* Its walk in the RIB's order: compared as a set.  A batch one op in 20
 * (full-length keys in one bulk lookup). */
static const struct twin_rules dpdk_v4 = {
	.design = "lpm_trie/dpdk",
	.random_len = random_len_v4,
	.shape_bases = shape_bases,
	.batch_percent = 5,
};

static const struct twin_rules dpdk_v6 = {
	.design = "lpm_trie/dpdk",
	.random_len = random_len_v6,
	.shape_bases = shape_bases,
	.batch_percent = 5,
};

static int create(const char *name, uint32_t key_size, uint32_t max_entries,
		  struct map **m)
{
	return twin_create(name, key_size, max_entries, m);
}

static struct twin make_pair(uint32_t max_entries)
{
	return twin_make(&dpdk_v4, KEY, max_entries);
}

static struct twin make_pair6(uint32_t max_entries)
{
	return twin_make(&dpdk_v6, KEY6, max_entries);
}

static void random_run(uint32_t max_entries, unsigned ops)
{
	twin_random_run(&dpdk_v4, KEY, max_entries, ops);
}

static void random_run6(uint32_t max_entries, unsigned ops)
{
	twin_random_run(&dpdk_v6, KEY6, max_entries, ops);
}

TestSuite(lpm_dpdk, .timeout = 120);

Test(lpm_dpdk, matches_linux_on_ipv4_keys)
{
	random_run(200, 30000);
}

Test(lpm_dpdk, matches_linux_when_near_full)
{
	random_run(12, 20000);
}

Test(lpm_dpdk, matches_linux_in_a_larger_map)
{
	random_run(32768, 20000);
}

Test(lpm_dpdk, matches_linux_on_ipv6_keys)
{
	random_run6(200, 30000);
}

Test(lpm_dpdk, matches_linux_on_ipv6_keys_when_near_full)
{
	random_run6(12, 20000);
}

Test(lpm_dpdk, matches_linux_on_ipv6_keys_in_a_larger_map)
{
	random_run6(2521, 10000);
}

/* Every length 0..32 of one address, deleted from both ends; every
 * lookup length after each delete. */
Test(lpm_dpdk, nested_path)
{
	map_thread_online();
	struct twin p = make_pair(64);
	uint8_t k[KEY] = { 0, 0, 0, 0, 0xc0, 0xa8, 0x01, 0x2f };
	twin_nested_path(&p, k, 32);
	twin_free(&p);
	map_thread_offline();
}

/* Every length 0..128 of one IPv6 address, deleted from both ends; every
 * lookup length after each delete.  The all-ones address: every prefix
 * one that ends the address space. */
static void nested_path6(const uint8_t addr[16])
{
	map_thread_online();
	struct twin p = make_pair6(256);
	uint8_t k[KEY6];
	memcpy(k + 4, addr, 16);
	twin_nested_path(&p, k, 128);
	twin_empty(&p);
	twin_free(&p);
	map_thread_offline();
}

Test(lpm_dpdk, nested_ipv6_path)
{
	static const uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34,
				       0, 0, 0, 0, 0, 0, 0xfe, 0xdc, 0, 0x2f };
	static uint8_t ones[16];
	memset(ones, 0xff, 16);
	nested_path6(a);
	nested_path6(ones);
}

/* A stored prefix longer than the lookup's length never matches, though
 * the key's further bits match it. */
Test(lpm_dpdk, lookup_stops_at_its_own_length)
{
	map_thread_online();
	struct twin p = make_pair(64);
	uint8_t k[KEY] = { 0, 0, 0, 0, 10, 0, 0, 1 };
	uint32_t stored[] = { 24, 8, 30, 28 };
	for (unsigned i = 0; i < 4; i++) {
		uint64_t v = stored[i];
		memcpy(k, &stored[i], 4);
		cr_assert_eq(map_update(p.design, k, &v, MAP_ANY), 0);
		cr_assert_eq(map_update(p.linux, k, &v, MAP_ANY), 0);
	}
	for (uint32_t ask = 0; ask <= 32; ask++) {
		memcpy(k, &ask, 4);
		twin_check_lookup(&p, k);
	}
	twin_free(&p);
	map_thread_offline();
}

Test(lpm_dpdk, refuses_what_it_cannot_hold)
{
	map_thread_online();
	struct map *m = NULL;
	static const uint32_t refused[] = { 5, 7, 9, 12, 16, 19, 21, 36, 260 };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		cr_assert_eq(create("lpm_trie/dpdk", refused[i], 16, &m),
			     -EINVAL, "key_size %u", refused[i]);
	cr_assert_eq(create("lpm_trie/dpdk", 8, UINT32_MAX, &m), -E2BIG);
	cr_assert_eq(create("lpm_trie/dpdk", 8, (1u << 20) + 1, &m), -E2BIG);
	cr_assert_eq(create("lpm_trie/dpdk", 20, (1u << 14) + 1, &m), -E2BIG);
	cr_assert_null(m);
	map_thread_offline();
}

static void put_both(const struct twin *p, uint32_t addr, uint32_t len)
{
	uint8_t k[KEY] = { 0, 0, 0, 0, addr >> 24, addr >> 16, addr >> 8,
			   addr };
	uint64_t v = (uint64_t)addr << 8 | len;
	memcpy(k, &len, 4);
	cr_assert_eq(map_update(p->design, k, &v, MAP_NOEXIST), 0);
	cr_assert_eq(map_update(p->linux, k, &v, MAP_NOEXIST), 0);
}

static void lookups_around(const struct twin *p, uint32_t addr)
{
	uint8_t k[KEY] = { 32, 0, 0, 0 };
	for (int d = -2; d <= 2; d++)
		for (uint32_t len = 0; len <= 32; len++) {
			uint32_t a = addr + (uint32_t)d;
			memcpy(k, &len, 4);
			k[4] = a >> 24, k[5] = a >> 16, k[6] = a >> 8, k[7] = a;
			twin_check_lookup(p, k);
		}
}

/*
 * DPDK 22.11's DIR-24-8 rewrites the whole address space when a prefix
 * whose range ends at 2^32 is added or deleted while more specific
 * prefixes cover its end with no gap before the last: /0 over 0/1 and
 * 128/1, 128/1 over 128/2 and 192/2.  The design keeps such prefixes
 * beside the FIB; every lookup must still be linux's.
 */
Test(lpm_dpdk, prefixes_that_end_the_address_space)
{
	map_thread_online();
	struct twin p = make_pair(64);
	put_both(&p, 0x10000000, 24);
	put_both(&p, 0x00000000, 1);
	put_both(&p, 0x80000000, 1);
	put_both(&p, 0x00000000, 0);
	put_both(&p, 0xc0000000, 2);
	put_both(&p, 0x80000000, 2);
	put_both(&p, 0xffffff00, 24);
	put_both(&p, 0xfffffffe, 31);
	put_both(&p, 0xffffffff, 32);
	put_both(&p, 0xfffffffc, 30);
	lookups_around(&p, 0x10000000);
	lookups_around(&p, 0xfffffffe);
	lookups_around(&p, 0x80000000);
	lookups_around(&p, 0xc0000000);
	twin_check_walk(&p);
	uint8_t k[KEY];
	while (map_get_next_key(p.design, NULL, k) == 0) {
		cr_assert_eq(map_delete(p.design, k), 0);
		cr_assert_eq(map_delete(p.linux, k), 0);
		lookups_around(&p, 0xfffffffe);
		lookups_around(&p, 0x10000000);
	}
	twin_free(&p);
	map_thread_offline();
}

/* memory() counts DPDK's tables: the 2^24-entry table and a tbl8 group of
 * 256 next hops for every max_entries entry, at 4 bytes a next hop (next
 * hops are ids, which may outnumber max_entries). */
Test(lpm_dpdk, memory_counts_the_tables)
{
	map_thread_online();
	static const struct { uint32_t max_entries, nh_bytes; } sizes[] = {
		{ 64, 4 }, { 1024, 4 }, { 65536, 4 },
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct map *m = NULL;
		cr_assert_eq(create("lpm_trie/dpdk", 8, sizes[i].max_entries,
				    &m), 0);
		size_t bytes = m->ops->memory(m);
		size_t tables = ((size_t)1 << 24) * sizes[i].nh_bytes +
				(size_t)sizes[i].max_entries * 256 *
					sizes[i].nh_bytes;
		cr_log_info("lpm_trie/dpdk, max_entries %u: %zu bytes empty "
			    "(tbl24 and tbl8 groups %zu)",
			    sizes[i].max_entries, bytes, tables);
		cr_expect_geq(bytes, tables);
		cr_expect_lt(bytes, tables + tables / 2);
		map_destroy(m);
	}
	map_thread_offline();
}

/* /len of 10.1.2.0 with value v; the update's error. */
static int put_v(struct map *m, uint32_t len, uint64_t v)
{
	uint8_t k[KEY] = { 0, 0, 0, 0, 10, 1, 2, 0 };
	memcpy(k, &len, 4);
	return map_update(m, k, &v, MAP_ANY);
}

static const uint8_t inside[KEY] = { 32, 0, 0, 0, 10, 1, 2, 3 };

/* A replace moves the prefix to a new place: a reader's pointer to the old
 * value still reads it, whole, for the rest of its read section. */
Test(lpm_dpdk, a_replaced_value_stays_for_the_reader)
{
	map_thread_online();
	struct map *m = NULL;
	cr_assert_eq(create("lpm_trie/dpdk", KEY, 64, &m), 0);
	const uint8_t prefix[KEY] = { 24, 0, 0, 0, 10, 1, 2, 0 };
	expect_replace_keeps_old_value(m, prefix, inside);
	map_destroy(m);
	map_thread_offline();
}

/*
 * Next hops are ids, and an id comes back only after a grace period: a
 * reader that holds one back while a prefix is replaced over and over
 * keeps every replaced id out of use, 40000 of them here, more than a
 * 2-byte next hop could name, and every replace still succeeds; once the
 * grace period ends the ids come back, and replaces go on without the map
 * growing.
 */
Test(lpm_dpdk, ids_come_back_after_a_grace_period)
{
	map_thread_online();
	struct map *m = NULL;
	cr_assert_eq(create("lpm_trie/dpdk", KEY, 64, &m), 0);
	uint64_t v = 1;
	cr_assert_eq(put_v(m, 24, v), 0);
	map_rcu_read_lock(); /* holds every grace period back */
	for (; v < 40000; v++)
		cr_assert_eq(put_v(m, 24, v + 1), 0, "replace %lu in one grace "
			     "period", (unsigned long)v);
	const uint64_t *now = map_lookup(m, inside);
	cr_assert_not_null(now);
	cr_expect_eq(*now, v);
	map_rcu_read_unlock();
	map_rcu_barrier();
	size_t grown = m->ops->memory(m);
	for (unsigned i = 0; i < 100000; i++) {
		if (i % 1000 == 0)
			map_rcu_barrier();
		cr_assert_eq(put_v(m, 24, ++v), 0, "replace %u after the grace "
			     "period", i);
	}
	cr_expect_eq(m->ops->memory(m), grown, "ids did not come back");
	map_destroy(m);
	map_thread_offline();
}

/* --- IPv6 ---------------------------------------------------------------------- */

/* addr's prefix /len in both maps, its value naming it. */
static void put6(const struct twin *p, const uint8_t addr[16], uint32_t len)
{
	uint8_t k[KEY6];
	uint64_t v = (uint64_t)addr[0] << 56 | (uint64_t)addr[15] << 8 | len;
	memcpy(k, &len, 4);
	memcpy(k + 4, addr, 16);
	cr_assert_eq(map_update(p->design, k, &v, MAP_NOEXIST), 0, "/%u", len);
	cr_assert_eq(map_update(p->linux, k, &v, MAP_NOEXIST), 0, "/%u", len);
}

/* a + d as a 128-bit number, wrapping. */
static void add128(uint8_t out[16], const uint8_t a[16], int d)
{
	unsigned carry = 0;
	memcpy(out, a, 16);
	if (d >= 0) {
		carry = (unsigned)d;
		for (int i = 15; i >= 0 && carry; i--) {
			unsigned x = out[i] + carry;
			out[i] = (uint8_t)x;
			carry = x >> 8;
		}
	} else {
		carry = (unsigned)-d;
		for (int i = 15; i >= 0 && carry; i--) {
			int x = (int)out[i] - (int)carry;
			out[i] = (uint8_t)x;
			carry = x < 0;
		}
	}
}

/* Every lookup length 0..129 of the addresses a - 2 .. a + 2, single and
 * in one batch. */
static void lookups_around6(const struct twin *p, const uint8_t a[16])
{
	uint8_t keys[5 * 130][KEY6];
	unsigned n = 0;
	for (int d = -2; d <= 2; d++)
		for (uint32_t len = 0; len <= 129; len++, n++) {
			memcpy(keys[n], &len, 4);
			add128(keys[n] + 4, a, d);
			twin_check_lookup(p, keys[n]);
		}
	for (unsigned i = 0; i < n; i += MAP_BATCH_MAX) {
		unsigned b = n - i < MAP_BATCH_MAX ? n - i : MAP_BATCH_MAX;
		twin_check_batch_of(p, keys[i], b);
	}
}

static const uint8_t zero6[16];
static const uint8_t half6[16] = { 0x80 };
static const uint8_t quarter3[16] = { 0xc0 };
static const uint8_t doc6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
static uint8_t ones6[16], ones_but_last6[16], ones_low0[16];

static void make_ones(void)
{
	memset(ones6, 0xff, 16);
	memcpy(ones_but_last6, ones6, 16);
	ones_but_last6[15] = 0xfe;
	memcpy(ones_low0, ones6, 16);
	ones_low0[15] = 0;
}

/*
 * DPDK 22.11's TRIE rewrites the whole address space when a prefix whose
 * range ends at 2^128 is added or deleted while more specific prefixes
 * cover its end with no gap before the last: ::/0 over ::/1 and 8000::/1,
 * 8000::/1 over 8000::/2 and c000::/2 (its loop over the range's pieces
 * wraps to :: and reads that as "the whole space", as DIR-24-8 does for
 * IPv4).  The design keeps such prefixes beside the FIB; every lookup,
 * single or batched, must still be linux's, with /0 and /128 at both ends
 * of the space.
 */
Test(lpm_dpdk, ipv6_prefixes_that_end_the_address_space)
{
	map_thread_online();
	make_ones();
	struct twin p = make_pair6(64);
	put6(&p, doc6, 32);
	put6(&p, zero6, 128);
	put6(&p, zero6, 1);
	put6(&p, quarter3, 2);
	put6(&p, half6, 2);
	put6(&p, half6, 1);  /* over 8000::/2 and c000::/2 */
	put6(&p, zero6, 0);  /* over ::/1 and 8000::/1 */
	put6(&p, ones_low0, 120);
	put6(&p, ones_but_last6, 127);
	put6(&p, ones6, 128);
	put6(&p, ones6, 16);
	const uint8_t *around[] = { zero6, half6, quarter3, doc6, ones6,
				    ones_low0 };
	for (size_t i = 0; i < sizeof(around) / sizeof(around[0]); i++)
		lookups_around6(&p, around[i]);
	twin_check_walk(&p);
	uint8_t k[KEY6];
	while (map_get_next_key(p.design, NULL, k) == 0) {
		cr_assert_eq(map_delete(p.design, k), 0);
		cr_assert_eq(map_delete(p.linux, k), 0);
		lookups_around6(&p, ones6);
		lookups_around6(&p, doc6);
		lookups_around6(&p, zero6);
	}
	twin_empty(&p);
	twin_free(&p);
	map_thread_offline();
}

/* ::/0 over ::/1 and 8000::/1, added in the order that rewrites DPDK's
 * table, then the halves deleted under it. */
Test(lpm_dpdk, ipv6_default_route_over_both_halves)
{
	map_thread_online();
	make_ones();
	struct twin p = make_pair6(16);
	put6(&p, zero6, 1);
	put6(&p, half6, 1);
	put6(&p, zero6, 0);
	lookups_around6(&p, zero6);
	lookups_around6(&p, half6);
	lookups_around6(&p, ones6);
	uint8_t k[KEY6] = { 1 };
	memcpy(k + 4, half6, 16);
	cr_assert_eq(map_delete(p.design, k), 0);
	cr_assert_eq(map_delete(p.linux, k), 0);
	lookups_around6(&p, half6);
	lookups_around6(&p, doc6);
	twin_check_walk(&p);
	twin_empty(&p);
	twin_free(&p);
	map_thread_offline();
}

/*
 * rte_fib6 (22.11) reserves up to 13 tbl8 groups for a prefix longer than
 * /24 when it is added and never gives them back when it is deleted, so
 * its table refuses a new prefix with -ENOSPC after a few dozen deletes
 * of long prefixes in a small map.  The design builds a new table of the
 * prefixes it holds then: a /128 added and deleted a thousand times beside
 * three held prefixes (one each /64, /100, /127), and a full map whose
 * last prefix changes a thousand times, answer as linux's.
 */
Test(lpm_dpdk, ipv6_reservations_that_dpdk_never_gives_back)
{
	map_thread_online();
	struct twin p = make_pair6(4);
	uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, 1, 2, 3, 4,
			  5, 6, 7, 8, 9, 10, 11, 12 };
	put6(&p, a, 64);
	put6(&p, a, 100);
	put6(&p, a, 127);
	uint8_t k[KEY6] = { 128 };
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t v = i;
		memcpy(k + 4, a, 16);
		k[4 + 3 + i % 13] ^= (uint8_t)(1 + i % 255); /* new groups */
		cr_assert_eq(map_update(p.design, k, &v, MAP_NOEXIST), 0,
			     "add %u", i);
		cr_assert_eq(map_update(p.linux, k, &v, MAP_NOEXIST), 0);
		twin_check_lookup(&p, k);
		k[4 + 15] ^= 1; /* its neighbour: under /127 */
		twin_check_lookup(&p, k);
		k[4 + 15] ^= 1;
		cr_assert_eq(map_delete(p.design, k), 0, "delete %u", i);
		cr_assert_eq(map_delete(p.linux, k), 0);
		twin_check_lookup(&p, k);
	}
	twin_check_walk(&p);
	/* full: the fourth prefix in distinct /24s each time */
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t v = i;
		memcpy(k + 4, a, 16);
		k[4 + 2] = (uint8_t)(i % 251);
		k[4 + 15] = (uint8_t)i;
		cr_assert_eq(map_update(p.design, k, &v, MAP_NOEXIST), 0,
			     "add %u", i);
		cr_assert_eq(map_update(p.linux, k, &v, MAP_NOEXIST), 0);
		uint8_t more[KEY6];
		memcpy(more, k, KEY6);
		more[4 + 1] ^= 0x40;
		cr_assert_eq(map_update(p.design, more, &v, MAP_NOEXIST),
			     -ENOSPC);
		twin_check_lookup(&p, k);
		cr_assert_eq(map_delete(p.design, k), 0);
		cr_assert_eq(map_delete(p.linux, k), 0);
	}
	twin_check_walk(&p);
	twin_empty(&p);
	twin_free(&p);
	map_thread_offline();
}

/* Batches of IPv6 keys, /128 ones (one rte_fib6_lookup_bulk) among
 * shorter ones (the RIB): each key's answer is the single lookup's and
 * linux's. */
Test(lpm_dpdk, ipv6_batches_match_single_lookups)
{
	map_thread_online();
	struct twin p = make_pair6(256);
	twin_make_bases(&p);
	uint8_t keys[MAP_BATCH_MAX][KEY6];
	for (unsigned i = 0; i < 400; i++) {
		uint64_t v = i;
		twin_random_key(&p, keys[0]);
		map_update(p.design, keys[0], &v, MAP_ANY);
		map_update(p.linux, keys[0], &v, MAP_ANY);
	}
	twin_check_walk(&p);
	for (unsigned round = 0; round < 300; round++) {
		unsigned n = 1 + (unsigned)(twin_random() % MAP_BATCH_MAX);
		for (unsigned i = 0; i < n; i++) {
			twin_random_key(&p, keys[i]);
			if (twin_random() % 2)
				keys[i][0] = 128, keys[i][1] = 0;
		}
		twin_check_batch_of(&p, keys[0], n);
		void *found[MAP_BATCH_MAX];
		map_rcu_read_lock();
		map_lookup_batch(p.design, keys, n, found);
		for (unsigned i = 0; i < n; i++)
			cr_assert_eq(found[i], map_lookup(p.design, keys[i]),
				     "batch key %u (/%u): not the single "
				     "lookup's", i, twin_len_of(keys[i]));
		map_rcu_read_unlock();
	}
	twin_free(&p);
	map_thread_offline();
}

/* memory() counts TRIE's tables: a 2^24-entry tbl24 and 13 * max_entries
 * + 2 tbl8 groups of 256 entries, at 2 or 4 bytes an entry; then what a
 * table full of /48 to /64 prefixes (2000::/3) takes a prefix. */
Test(lpm_dpdk, memory_counts_the_ipv6_tables)
{
	map_thread_online();
	static const struct { uint32_t max_entries, entry_bytes; } sizes[] = {
		{ 64, 4 }, { 2520, 4 }, { 16384, 4 },
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct map *m = NULL;
		uint32_t me = sizes[i].max_entries;
		cr_assert_eq(create("lpm_trie/dpdk", KEY6, me, &m), 0);
		size_t bytes = m->ops->memory(m);
		size_t tables = (((size_t)1 << 24) +
				 ((size_t)13 * me + 2) * 256) *
				sizes[i].entry_bytes;
		uint64_t x = 0x12345, v = 0;
		uint8_t k[KEY6] = { 0 };
		uint32_t n = 0;
		while (n < me) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint32_t len = x % 3 ? 48 : 64;
			memcpy(k, &len, 4);
			for (int b = 0; b < 8; b++)
				k[4 + b] = (uint8_t)(x >> (8 * b));
			k[4] = 0x20 | (k[4] & 0x1f);
			n += map_update(m, k, &v, MAP_NOEXIST) == 0;
		}
		size_t full = m->ops->memory(m);
		cr_log_info("lpm_trie/dpdk, key_size 20, max_entries %u: %zu "
			    "bytes empty (tbl24 and tbl8 groups %zu), %zu full "
			    "of /48 and /64 prefixes: %zu bytes a prefix", me,
			    bytes, tables, full, full / me);
		cr_expect_geq(bytes, tables);
		cr_expect_lt(bytes, tables + tables / 2);
		map_destroy(m);
	}
	map_thread_offline();
}

/*
 * A reader under a writer: the writer adds and deletes the prefixes of one
 * address (/20 to /32, tbl8 groups made and freed), with a value that
 * names the prefix; the reader's /32 lookups of that address find, each
 * time, a whole value naming one of those prefixes, or nothing.
 */
struct churn {
	struct map *m;
	uint32_t key_size, bits;
	atomic_bool stop;
	atomic_ulong found;
};

/* 10.11.12.13, or 2001:db8::a0b:c0d */
static const uint8_t churn_addr4[4] = { 10, 11, 12, 13 };
static const uint8_t churn_addr6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					 0, 0, 0, 0, 10, 11, 12, 13 };

static void churn_key(const struct churn *c, uint8_t *k, uint32_t len)
{
	memcpy(k, &len, 4);
	memcpy(k + 4, c->bits == 32 ? churn_addr4 : churn_addr6, c->bits / 8);
}

static void *churn_writer(void *arg)
{
	struct churn *c = arg;
	map_thread_online();
	uint64_t x = 7;
	for (unsigned i = 0; i < 200000 && !atomic_load(&c->stop); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t len = c->bits - 12 + (uint32_t)(x % 13);
		uint8_t k[KEY6];
		churn_key(c, k, len);
		uint64_t v = (uint64_t)len * 0x0101010101010101ull;
		if (x & 0x100)
			map_update(c->m, k, &v, MAP_ANY);
		else
			map_delete(c->m, k);
	}
	atomic_store(&c->stop, true);
	map_thread_offline();
	return NULL;
}

static void *churn_reader(void *arg)
{
	struct churn *c = arg;
	map_thread_online();
	uint8_t k[KEY6];
	churn_key(c, k, c->bits);
	while (!atomic_load(&c->stop)) {
		map_rcu_read_lock();
		const uint8_t *v = map_lookup(c->m, k);
		if (v) {
			for (int b = 1; b < 8; b++)
				cr_assert_eq(v[b], v[0], "a torn value");
			cr_assert(v[0] >= c->bits - 12 && v[0] <= c->bits);
			atomic_fetch_add(&c->found, 1);
		}
		map_rcu_read_unlock();
	}
	map_thread_offline();
	return NULL;
}

/* IPv6: /116 to /128, whose tbl8 reservations rte_fib6 keeps: the writer
 * builds new tables while the reader looks. */
static void reader_under_writer(uint32_t key_size)
{
	map_thread_online();
	struct churn c = { .key_size = key_size, .bits = 8 * (key_size - 4),
			   .stop = false, .found = 0 };
	cr_assert_eq(create("lpm_trie/dpdk", key_size, 64, &c.m), 0);
	pthread_t w, r;
	cr_assert_eq(pthread_create(&r, NULL, churn_reader, &c), 0);
	cr_assert_eq(pthread_create(&w, NULL, churn_writer, &c), 0);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	cr_expect_gt(atomic_load(&c.found), 0, "the reader never found one");
	map_destroy(c.m);
	map_thread_offline();
}

Test(lpm_dpdk, a_reader_under_a_writer)
{
	reader_under_writer(KEY);
}

Test(lpm_dpdk, a_reader_under_a_writer_on_ipv6_keys)
{
	reader_under_writer(KEY6);
}
