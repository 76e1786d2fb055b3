/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/dpdk against lpm_trie/linux (which replays the kernel byte for
 * byte): random updates with every flag, deletes, lookups of every prefix
 * length and get_next_key from present and absent keys, on IPv4 prefixes
 * that nest (the design is IPv4 only).  Every answer and errno must be
 * linux's, except get_next_key's order, which is the RIB's own: the walks
 * are compared as sets of key bytes (trailing bits included, as the
 * kernel gives them back).  Then the design's own edges: other key sizes
 * and too large a max_entries refused at create; lookups capped by their
 * prefix length (the RIB's parent walk); memory back to its empty size;
 * a reader's lookups under a writer's changes.  The comparison's
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

#define KEY 8

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

/* Beside the shared bases: one in the same /24 as the first (tbl8 groups
 * shared), and the end of the address space. */
static void shape_bases(uint32_t data_size)
{
	memcpy(twin_bases[3], twin_bases[0], data_size - 1);
	memset(twin_bases[4], 0xff, data_size);
}

/* Its walk in the RIB's order: compared as a set. */
static const struct twin_rules dpdk_v4 = {
	.design = "lpm_trie/dpdk",
	.random_len = random_len_v4,
	.shape_bases = shape_bases,
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

static void random_run(uint32_t max_entries, unsigned ops)
{
	twin_random_run(&dpdk_v4, KEY, max_entries, ops);
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

/* 1-byte next hops hold 127 at most: the largest such map, full. */
Test(lpm_dpdk, matches_linux_at_the_largest_one_byte_next_hop)
{
	random_run(127, 20000);
}

Test(lpm_dpdk, matches_linux_with_two_byte_next_hops)
{
	random_run(128, 20000);
}

/* Every length 0..32 of one address, deleted from both ends; every
 * lookup length after each delete. */
Test(lpm_dpdk, nested_path)
{
	map_thread_online();
	struct twin p = make_pair(64);
	uint8_t k[KEY] = { 0, 0, 0, 0, 0xc0, 0xa8, 0x01, 0x2f };
	for (uint32_t len = 0; len <= 32; len++) {
		uint64_t v = len;
		memcpy(k, &len, 4);
		cr_assert_eq(map_update(p.design, k, &v, MAP_NOEXIST), 0);
		cr_assert_eq(map_update(p.linux, k, &v, MAP_NOEXIST), 0);
	}
	twin_check_walk(&p);
	for (uint32_t len = 0; len <= 32; len++) {
		uint32_t gone = len % 2 ? len : 32 - len;
		memcpy(k, &gone, 4);
		cr_assert_eq(map_delete(p.design, k), map_delete(p.linux, k));
		for (uint32_t ask = 0; ask <= 33; ask++) {
			memcpy(k, &ask, 4);
			twin_check_lookup(&p, k);
		}
	}
	twin_free(&p);
	map_thread_offline();
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
	cr_assert_eq(create("lpm_trie/dpdk", 5, 16, &m), -EINVAL);
	cr_assert_eq(create("lpm_trie/dpdk", 20, 16, &m), -EINVAL);
	cr_assert_eq(create("lpm_trie/dpdk", 260, 16, &m), -EINVAL);
	cr_assert_eq(create("lpm_trie/dpdk", 8, UINT32_MAX, &m), -E2BIG);
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
 * 256 next hops for every max_entries entry, at the next hop's size. */
Test(lpm_dpdk, memory_counts_the_tables)
{
	map_thread_online();
	static const struct { uint32_t max_entries, nh_bytes; } sizes[] = {
		{ 64, 1 }, { 1024, 2 }, { 65536, 4 },
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

/*
 * A reader under a writer: the writer adds and deletes the prefixes of one
 * address (/20 to /32, tbl8 groups made and freed), with a value that
 * names the prefix; the reader's /32 lookups of that address find, each
 * time, a whole value naming one of those prefixes, or nothing.
 */
struct churn {
	struct map *m;
	atomic_bool stop;
	atomic_ulong found;
};

#define CHURN_ADDR 0x0a0b0c0du

static void *churn_writer(void *arg)
{
	struct churn *c = arg;
	map_thread_online();
	uint64_t x = 7;
	for (unsigned i = 0; i < 200000 && !atomic_load(&c->stop); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t len = 20 + (uint32_t)(x % 13);
		uint8_t k[KEY] = { 0, 0, 0, 0, 10, 11, 12, 13 };
		memcpy(k, &len, 4);
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
	uint8_t k[KEY] = { 32, 0, 0, 0, 10, 11, 12, 13 };
	while (!atomic_load(&c->stop)) {
		map_rcu_read_lock();
		const uint8_t *v = map_lookup(c->m, k);
		if (v) {
			for (int b = 1; b < 8; b++)
				cr_assert_eq(v[b], v[0], "a torn value");
			cr_assert(v[0] >= 20 && v[0] <= 32);
			atomic_fetch_add(&c->found, 1);
		}
		map_rcu_read_unlock();
	}
	map_thread_offline();
	return NULL;
}

Test(lpm_dpdk, a_reader_under_a_writer)
{
	map_thread_online();
	struct churn c = { .stop = false, .found = 0 };
	cr_assert_eq(create("lpm_trie/dpdk", KEY, 64, &c.m), 0);
	pthread_t w, r;
	cr_assert_eq(pthread_create(&r, NULL, churn_reader, &c), 0);
	cr_assert_eq(pthread_create(&w, NULL, churn_writer, &c), 0);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	cr_expect_gt(atomic_load(&c.found), 0, "the reader never found one");
	map_destroy(c.m);
	map_thread_offline();
}
