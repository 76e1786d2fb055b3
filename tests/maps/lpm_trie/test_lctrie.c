/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/lctrie against lpm_trie/linux (which replays the kernel byte
 * for byte, tests/kernel-compare/test_kernel_lpm.c): random updates with
 * every flag, deletes, lookups of every prefix length and get_next_key
 * from present and absent keys, for every data size the design takes (1
 * to 16 bytes), on prefixes that nest and share leaf addresses (10.0.0.0/8
 * and 10.0.0.0/16 are one leaf's chain); then thousands of distinct
 * prefixes, so that tnodes inflate, and deleted in random order, so that
 * they halve and collapse.  Every answer and errno must be linux's, except
 * get_next_key's order, which is the design's own: checked against the
 * order it documents (by masked address, then longer first), written out
 * here independently.  Emptying gives back every byte.  Then its structure
 * through the interface: the root's bits read from the dump, the blocks a
 * lookup visits (work()), a reader's value pointer across a replace,
 * readers that must find pinned prefixes while a writer's inserts and
 * deletes resize the nodes around them, and key sizes it refuses.  The
 * scaffolding of the comparison is shared with test_multibit.c
 * (random_vs_linux.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/cpu.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "tests/maps/lpm_trie/random_vs_linux.h"

#define DESIGN "lpm_trie/lctrie"

/* Lengths that make chains and backtracking: a fifth full length (host
 * routes: leaves that split at the bottom), a fifth short (prefixes that
 * leave out the index bits of the nodes below them: lookups come back to
 * them), some on and beside byte boundaries, the rest anywhere, and past
 * the data's bits now and then. */
static uint32_t random_len(uint32_t max)
{
	unsigned r = (unsigned)(twin_random() % 100);
	if (r < 2)
		return max + 1 + (uint32_t)(twin_random() % 3);
	if (r < 22)
		return max;
	if (r < 42)
		return (uint32_t)(twin_random() % (max < 9 ? max + 1 : 9));
	if (r < 55) {
		uint32_t l = 8 * (uint32_t)(twin_random() % (max / 8 + 1)) +
			     (uint32_t)(twin_random() % 3) - 1;
		return l > max ? max : l;
	}
	return (uint32_t)(twin_random() % (max + 1));
}

/* Beside the shared bases: the first byte of base 0 then zeros (its
 * prefixes of 8 bits and more share one leaf address), its first half
 * then zeros, and all zeros (/0 with the rest of 0/1). */
static void shape_bases(uint32_t data_size)
{
	memset(twin_bases[3], 0, data_size);
	twin_bases[3][0] = twin_bases[0][0];
	memset(twin_bases[4], 0, data_size);
	memcpy(twin_bases[4], twin_bases[0], (data_size + 1) / 2);
	memset(twin_bases[5], 0, data_size);
}

static unsigned bit_at(const uint8_t *d, uint32_t i)
{
	return (d[i / 8] >> (7 - i % 8)) & 1;
}

/*
 * The documented order, from first principles: the addresses masked to
 * their lengths, compared as numbers, first byte first (bits past a
 * prefix's length read as 0); one address's prefixes longer first.
 */
static int address_then_longer_cmp(const uint8_t *a, const uint8_t *b)
{
	uint32_t la = twin_len_of(a), lb = twin_len_of(b);
	uint32_t upto = la > lb ? la : lb;
	for (uint32_t i = 0; i < upto; i++) {
		unsigned x = i < la ? bit_at(a + 4, i) : 0;
		unsigned y = i < lb ? bit_at(b + 4, i) : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return la > lb ? -1 : la < lb;
}

/* No batch of its own: map_lookup_batch loops over lookup. */
static const struct twin_rules lctrie = {
	.design = DESIGN,
	.random_len = random_len,
	.shape_bases = shape_bases,
	.walk_cmp = address_then_longer_cmp,
	.batch_percent = 2,
};

static struct twin make_pair(uint32_t key_size, uint32_t max_entries)
{
	return twin_make(&lctrie, key_size, max_entries);
}

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_thread_offline();
}

TestSuite(lpm_lctrie, .init = set_up, .fini = tear_down, .timeout = 120);

/* --- random runs against linux (each: ops random ops, a walk compared
 * every 500, then emptied through the walk: memory back to new) --------- */

Test(lpm_lctrie, matches_linux_on_one_byte_keys)
{
	twin_random_run(&lctrie, 5, 64, 20000); /* 20000 ops */
}

Test(lpm_lctrie, matches_linux_on_ipv4_keys)
{
	twin_random_run(&lctrie, 8, 200, 30000); /* 30000 ops */
}

Test(lpm_lctrie, matches_linux_on_ipv6_keys)
{
	twin_random_run(&lctrie, 20, 200, 20000); /* 20000 ops */
}

/* Every data size it takes, 1 to 16 bytes: 3000 ops each. */
Test(lpm_lctrie, matches_linux_on_every_key_size)
{
	for (uint32_t size = 1; size <= 16; size++)
		twin_random_run(&lctrie, 4 + size, 100, 3000);
}

/* Near full: -ENOSPC for new prefixes, replaces still in (20000 ops). */
Test(lpm_lctrie, matches_linux_when_near_full)
{
	twin_random_run(&lctrie, 8, 12, 20000);
	twin_random_run(&lctrie, 20, 12, 10000);
}

/* /0 and full-length keys at once, one leaf's chain growing and
 * shrinking: every length 0..bits of one address, deleted from both ends,
 * every lookup length compared after each delete. */
Test(lpm_lctrie, nested_path_folds_back)
{
	struct twin p = make_pair(8, 64);
	uint8_t k[8] = { 0, 0, 0, 0, 0xc0, 0xa8, 0x01, 0x2f };
	twin_nested_path(&p, k, 32);
	twin_empty(&p);
	twin_free(&p);

	p = make_pair(20, 160);
	uint8_t k6[20] = { 0, 0, 0, 0, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			   0, 0, 0, 0, 0, 0, 0, 0 }; /* 2001:db8::: a long chain */
	twin_nested_path(&p, k6, 128);
	twin_empty(&p);
	twin_free(&p);
}

/* --- many prefixes: nodes inflate, then halve and collapse ----------------- */

/* The root tnode's bits, from the dump's first node line ("tnode ... bits
 * N ..."); 0 when the root is a leaf or the trie is empty. */
static unsigned root_bits(struct map *m)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_not_null(f);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_TEXT), 0);
	fclose(f);
	unsigned bits = 0;
	const char *line = strchr(text, '\n');
	if (line && strncmp(line + 1, "tnode ", 6) == 0) {
		const char *b = strstr(line, " bits ");
		cr_assert_not_null(b, "no bits in: %.80s", line + 1);
		cr_assert_eq(sscanf(b, " bits %u", &bits), 1);
	}
	free(text);
	return bits;
}

/* A random prefix of one of the bases' shapes, or of random bits. */
static void random_prefix(const struct twin *t, uint8_t *k, uint32_t len)
{
	memcpy(k, &len, 4);
	for (uint32_t i = 0; i < t->data_size; i++)
		k[4 + i] = (uint8_t)twin_random();
}

/* Lookups of random addresses and of the stored ones at other lengths. */
static unsigned check_lookups(const struct twin *t, const uint8_t *stored,
			      size_t n, unsigned count)
{
	uint8_t k[TWIN_KEY_MAX];
	for (unsigned i = 0; i < count; i++) {
		if (n && i % 2) {
			memcpy(k, stored + (twin_random() % n) * t->key_size,
			       t->key_size);
			uint32_t len = (uint32_t)(twin_random() %
						  (t->max_len + 1));
			memcpy(k, &len, 4);
			k[4 + t->data_size - 1] ^= (uint8_t)twin_random();
		} else {
			random_prefix(t, k, t->max_len);
		}
		twin_check_lookup(t, k);
	}
	return count;
}

static void shuffle(uint8_t *keys, size_t n, size_t ks)
{
	uint8_t tmp[TWIN_KEY_MAX];
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(twin_random() % i);
		memcpy(tmp, keys + (i - 1) * ks, ks);
		memcpy(keys + (i - 1) * ks, keys + j * ks, ks);
		memcpy(keys + j * ks, tmp, ks);
	}
}

/*
 * n random prefixes of lengths min_len..max_len into both maps (a few
 * shorter ones: prefixes that cover others), lookups compared all along;
 * the walk compared; then every prefix deleted in random order, the
 * lookups compared every 100 deletes.  The root's bits grow past
 * `inflated` and shrink again (halving) before the trie empties.
 */
static void grow_and_shrink(uint32_t key_size, unsigned n, uint32_t min_len,
			    unsigned inflated)
{
	static uint8_t keys[TWIN_MAX_WALK * TWIN_KEY_MAX];
	struct twin t = make_pair(key_size, n);
	uint8_t k[TWIN_KEY_MAX];
	unsigned lookups = 0;
	uint64_t v;

	for (unsigned i = 0; i < n; i++) {
		uint32_t len = i % 50 == 0 ? (uint32_t)(twin_random() % min_len)
			       : min_len + (uint32_t)(twin_random() %
						      (t.max_len - min_len + 1));
		random_prefix(&t, k, len);
		v = twin_random();
		cr_assert_eq(map_update(t.design, k, &v, MAP_ANY),
			     map_update(t.linux, k, &v, MAP_ANY));
		if (i % 500 == 499)
			lookups += check_lookups(&t, keys, 0, 200);
	}
	unsigned full_bits = root_bits(t.design);
	cr_assert_gt(full_bits, inflated, "%u prefixes: the root has %u bits",
		     n, full_bits);
	size_t stored = twin_walk(&t, t.linux, keys);
	twin_check_walk(&t);
	lookups += check_lookups(&t, keys, stored, 2000);
	shuffle(keys, stored, t.key_size);
	unsigned tenth_bits = 0;
	for (size_t i = 0; i < stored; i++) {
		const uint8_t *gone = keys + i * t.key_size;
		cr_assert_eq(map_delete(t.design, gone), 0);
		cr_assert_eq(map_delete(t.linux, gone), 0);
		if (i % 100 == 99)
			lookups += check_lookups(&t, keys + (i + 1) * t.key_size,
						 stored - i - 1, 100);
		if (i + 1 == stored - stored / 10)
			tenth_bits = root_bits(t.design);
	}
	cr_expect_lt(tenth_bits, full_bits, "a tenth left: the root kept its "
		     "%u bits", full_bits);
	cr_assert_eq(root_bits(t.design), 0);
	twin_empty(&t); /* both empty already: memory back to new */
	twin_free(&t);
	cr_log_info("%u prefixes: root %u bits full, %u at a tenth; %u "
		    "lookups compared", n, full_bits, tenth_bits, lookups);
}

/* 4000 prefixes of 16 to 32 bits (and some shorter): 4000 inserts, 4000
 * deletes, about 7500 lookups and one walk, each compared with linux. */
Test(lpm_lctrie, ipv4_nodes_inflate_then_halve_and_collapse)
{
	grow_and_shrink(8, 4000, 16, 6);
}

/* The same for IPv6, lengths 32 to 128 (the top 96 bits random). */
Test(lpm_lctrie, ipv6_nodes_inflate_then_halve_and_collapse)
{
	grow_and_shrink(20, 4000, 32, 6);
}

/* --- its structure, through the interface -------------------------------- */

struct v4key {
	uint32_t prefixlen;
	uint8_t addr[4];
};

/* A cpu slot for each thread the tests below start (the churn test's
 * writer and two readers), where the machine has fewer possible CPUs. */
#define MOST_THREADS 3

static struct map *new_v4(uint32_t max_entries)
{
	struct map_attr a = { .type = MAP_TYPE_LPM_TRIE, .key_size = 8,
			      .value_size = 8, .max_entries = max_entries,
			      .flags = MAP_F_NO_PREALLOC,
			      .ncpus = map_cpus_for_threads(MOST_THREADS) };
	struct map *m = NULL;
	cr_assert_eq(map_create(map_find(DESIGN), &a, &m), 0);
	return m;
}

static struct v4key host(uint32_t a)
{
	struct v4key k = { 32, { (uint8_t)(a >> 24), (uint8_t)(a >> 16),
				 (uint8_t)(a >> 8), (uint8_t)a } };
	return k;
}

/*
 * Level compression, seen in its work: 4096 random /32s make the root
 * inflate, and a lookup of a stored one visits a handful of blocks where
 * a binary trie visits one per bit that tells the keys apart (about 12
 * here); deleting them all folds every node away.
 */
Test(lpm_lctrie, a_big_insert_inflates_and_lookups_stay_short)
{
	struct map *m = new_v4(4096);
	size_t empty = m->ops->memory(m);
	uint32_t addr[4096];
	uint64_t v = 1;
	for (unsigned i = 0; i < 4096; i++) {
		addr[i] = (uint32_t)twin_random();
		struct v4key k = host(addr[i]);
		int err = map_update(m, &k, &v, MAP_NOEXIST);
		cr_assert(err == 0 || err == -EEXIST);
	}
	unsigned bits = root_bits(m);
	cr_assert_geq(bits, 8, "4096 keys: the root has %u bits", bits);

	struct map_work before = map_work_of(m, -1), after;
	for (unsigned i = 0; i < 4096; i++) {
		struct v4key k = host(addr[i]);
		cr_assert_eq(map_lookup_copy(m, &k, &v), 0);
	}
	after = map_work_of(m, -1);
	double per = (double)(after.nodes_scanned - before.nodes_scanned) / 4096;
	cr_assert_leq(per, 4.0, "a lookup visits %.2f blocks", per);
	cr_assert_eq(after.locks, before.locks, "lookups took a lock");

	for (unsigned i = 0; i < 4096; i++) {
		struct v4key k = host(addr[i]);
		int err = map_delete(m, &k);
		cr_assert(err == 0 || err == -ENOENT);
	}
	cr_assert_eq(root_bits(m), 0);
	cr_assert_eq(m->ops->memory(m), empty, "%zu bytes left",
		     m->ops->memory(m) - empty);
	map_destroy(m);
}

/* Each write takes the lock once, timed; a lookup takes none. */
Test(lpm_lctrie, counts_its_work)
{
	struct map *m = new_v4(64);
	struct v4key k = { 0, { 10, 0, 0, 1 } };
	uint64_t v = 1;
	for (uint32_t len = 0; len <= 32; len += 8) {
		k.prefixlen = len;
		cr_assert_eq(map_update(m, &k, &v, MAP_ANY), 0);
	}
	cr_assert_eq(map_delete(m, &k), 0);
	struct map_work w = map_work_of(m, -1);
	cr_assert_eq(w.locks, 6);
	cr_assert_gt(w.lock_ns, 0);
	/* each update: its element and a spare split node, allocated before
	 * the lock; the /32 split its leaf off 10.0.0.0's chain */
	cr_assert_geq(w.allocations, 10);
	k.prefixlen = 32;
	cr_assert_eq(map_lookup_copy(m, &k, &v), 0);
	struct map_work after = map_work_of(m, -1);
	cr_assert_eq(after.locks, w.locks);
	/* /0 to /24 of 10.0.0.1 mask to 0.0.0.0 and 10.0.0.0: two leaves
	 * under one tnode; 10.0.0.1/32 is gone, and the lookup finds /24 in
	 * 10.0.0.0's chain: the tnode, then the leaf */
	cr_assert_eq(after.nodes_scanned - w.nodes_scanned, 2);
	map_destroy(m);
}

/* A program's value pointer names its prefix's value for the rest of its
 * read section, through a replace and a delete (under AddressSanitizer a
 * block freed too early is a use-after-free here). */
Test(lpm_lctrie, a_reader_keeps_its_value_through_replace_and_delete)
{
	struct map *m = new_v4(64);
	struct v4key k = { 24, { 192, 168, 1, 0 } }, shorter = { 16, { 192, 168 } };
	uint64_t one = 1, two = 2, got;
	cr_assert_eq(map_update(m, &k, &one, MAP_NOEXIST), 0);
	cr_assert_eq(map_update(m, &shorter, &one, MAP_NOEXIST), 0);
	map_rcu_read_lock();
	const uint64_t *before = map_lookup(m, &k);
	cr_assert_not_null(before);
	cr_assert_eq(map_update(m, &k, &two, MAP_EXIST), 0);
	cr_expect_eq(*before, 1, "a replace wrote the value a reader holds");
	const uint64_t *after = map_lookup(m, &k);
	cr_expect_neq(after, before, "a replace reused the element");
	cr_expect_eq(*after, 2);
	cr_assert_eq(map_delete(m, &k), 0);
	cr_expect_eq(*after, 2, "a delete freed a block a reader holds");
	map_rcu_read_unlock();
	cr_expect_eq(map_lookup_copy(m, &k, &got), 0); /* the /16 now */
	cr_expect_eq(got, 1);
	map_destroy(m);
}

/*
 * Readers under a writer whose inserts and deletes inflate, halve and
 * collapse the nodes around 16 pinned /8s: every lookup of an address in
 * a pinned /8 finds a prefix that covers it, with that prefix's own value
 * (each value names its prefix), and a value pointer keeps its value
 * through the reader's section.  The writer runs ROUNDS rounds; the
 * readers run until it is done.
 */
#define PINNED 16
#define CHURN 1500
#define ROUNDS 6

struct churn {
	struct map *map;
	atomic_bool done;
	atomic_uint failures;
	char failure[160];
};

static uint64_t value_of(uint32_t len, uint32_t addr)
{
	return (uint64_t)len << 32 | addr;
}

static struct v4key key_of(uint32_t len, uint32_t addr)
{
	struct v4key k = host(addr);
	k.prefixlen = len;
	return k;
}

static uint32_t pinned_addr(unsigned j)
{
	return (uint32_t)(16 * j + 1) << 24;
}

static void *churn_writer(void *arg)
{
	struct churn *c = arg;
	uint32_t addr[CHURN], len[CHURN];
	uint64_t seed = 0x5eed;
	map_thread_online();
	map_cpu_claim(-1);
	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned i = 0; i < CHURN; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			addr[i] = pinned_addr((unsigned)(seed >> 60)) |
				  (uint32_t)(seed >> 20 & 0xffffff);
			len[i] = 9 + (uint32_t)(seed >> 8) % 24;
			addr[i] &= ~0u << (32 - len[i]);
			struct v4key k = key_of(len[i], addr[i]);
			uint64_t v = value_of(len[i], addr[i]);
			map_update(c->map, &k, &v, MAP_ANY);
		}
		for (unsigned i = 0; i < CHURN; i++) {
			struct v4key k = key_of(len[i], addr[i]);
			map_delete(c->map, &k);
		}
	}
	atomic_store(&c->done, true);
	map_cpu_release();
	map_thread_offline();
	return NULL;
}

static void *churn_reader(void *arg)
{
	struct churn *c = arg;
	uint64_t seed = (uint64_t)(uintptr_t)arg ^ 0xabcdef;
	map_thread_online();
	map_cpu_claim(-1);
	while (!atomic_load(&c->done)) {
		map_rcu_read_lock();
		for (unsigned i = 0; i < 64; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			uint32_t a = pinned_addr((unsigned)(seed >> 60)) |
				     (uint32_t)(seed >> 20 & 0xffffff);
			struct v4key k = key_of((uint32_t)(seed >> 8) % 2 ? 32 : 24, a);
			const uint64_t *v = map_lookup(c->map, &k);
			uint64_t got = v ? *v : 0;
			uint32_t len = (uint32_t)(got >> 32), p = (uint32_t)got;
			bool covers = v && len >= 8 && len <= k.prefixlen &&
				      ((a ^ p) & (~0u << (32 - len))) == 0;
			if (covers && v && *v != got)
				covers = false; /* the value changed under us */
			if (!covers && atomic_fetch_add(&c->failures, 1) == 0)
				snprintf(c->failure, sizeof(c->failure),
					 "lookup %08x/%u: %s %u/%08x", a,
					 k.prefixlen, v ? "found" : "nothing",
					 len, p);
		}
		map_rcu_read_unlock();
		map_rcu_quiescent();
	}
	map_cpu_release();
	map_thread_offline();
	return NULL;
}

Test(lpm_lctrie, readers_find_pinned_prefixes_while_nodes_resize)
{
	struct churn c = { .map = new_v4(PINNED + CHURN) };
	atomic_init(&c.done, false);
	atomic_init(&c.failures, 0);
	for (unsigned j = 0; j < PINNED; j++) {
		struct v4key k = key_of(8, pinned_addr(j));
		uint64_t v = value_of(8, pinned_addr(j));
		cr_assert_eq(map_update(c.map, &k, &v, MAP_NOEXIST), 0);
	}
	pthread_t w, r[2];
	cr_assert_eq(pthread_create(&w, NULL, churn_writer, &c), 0);
	for (unsigned i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&r[i], NULL, churn_reader, &c), 0);
	pthread_join(w, NULL);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	cr_assert_eq(atomic_load(&c.failures), 0, "%u lookups went wrong; the "
		     "first: %s", atomic_load(&c.failures), c.failure);
	struct v4key first;
	cr_assert_eq(map_get_next_key(c.map, NULL, &first), 0);
	cr_assert_eq(first.prefixlen, 8); /* only the pinned are left */
	map_destroy(c.map);
}

/* Keys over 16 data bytes: -EINVAL at create, *out untouched; 5 to 20
 * are taken. */
Test(lpm_lctrie, refuses_key_sizes_past_16_data_bytes)
{
	static struct map not_a_map;
	const uint32_t refused[] = { 21, 36, 260 };
	for (unsigned i = 0; i < 3; i++) {
		struct map *m = &not_a_map;
		cr_assert_eq(twin_create(DESIGN, refused[i], 16, &m), -EINVAL,
			     "key_size %u", refused[i]);
		cr_assert_eq(m, &not_a_map);
		char not_this[32];
		snprintf(not_this, sizeof(not_this), "not %u:", refused[i]);
		cr_assert(strstr(map_refusal(), "lpm_trie/lctrie takes key_size "
					       "20 at most") &&
			  strstr(map_refusal(), not_this),
			  "the reason given: '%s'", map_refusal());
	}
	for (uint32_t ks = 5; ks <= 20; ks++) {
		struct map *m = NULL;
		cr_assert_eq(twin_create(DESIGN, ks, 16, &m), 0, "key_size %u",
			     ks);
		cr_assert_str_empty(map_refusal()); /* a create clears it */
		map_destroy(m);
	}
}

/* The dumps draw tnodes with pos and bits and leaves with their chains. */
Test(lpm_lctrie, dumps_its_nodes_and_chains)
{
	struct map *m = new_v4(16);
	const struct v4key ks[] = { { 8, { 10 } }, { 16, { 10 } },
				    { 24, { 10, 1, 2 } }, { 0, { 0 } } };
	uint64_t v = 1;
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(map_update(m, &ks[i], &v, MAP_NOEXIST), 0);
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_TEXT), 0);
	fclose(f);
	cr_expect(strstr(text, "lpm_trie/lctrie: 4 prefixes, ") == text, "%s",
		  text);
	cr_expect_not_null(strstr(text, "leaf 10.0.0.0/16 10.0.0.0/8\n"), "%s",
			   text);
	cr_expect_not_null(strstr(text, "leaf 10.1.2.0/24\n"), "%s", text);
	/* 0.0.0.0 and 10.0.0.0 part at bit 27, 10.0.0.0 and 10.1.2.0 at bit
	 * 16; each one-bit tnode, both slots full, inflates once (fib_trie's
	 * should_inflate: 2 used of 2 is 50 %, of 4 only 25) */
	cr_expect_not_null(strstr(text, "\ntnode 0.0.0.0/4 pos 26 bits 2 "),
			   "%s", text);
	cr_expect_not_null(strstr(text, "  [10] tnode 10.0.0.0/15 pos 15 bits "
				  "2 "), "%s", text);
	free(text);
	text = NULL;
	f = open_memstream(&text, &size);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_DOT), 0);
	fclose(f);
	cr_expect(strncmp(text, "digraph maplab {", 16) == 0, "%s", text);
	cr_expect_not_null(strstr(text, "10.0.0.0/16\\n10.0.0.0/8\", style="
				  "rounded"), "%s", text);
	free(text);
	map_destroy(m);
}
