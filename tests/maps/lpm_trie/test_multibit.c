/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/multibit against lpm_trie/linux (which replays the kernel byte for
 * byte, tests/kernel-compare/test_kernel_lpm.c): random updates with every flag,
 * deletes, lookups of every prefix length and get_next_key from present
 * and absent keys, on nested prefixes that share their first bits, so
 * leaves split into nodes, nodes fold back into leaves and empty nodes go.
 * Every answer and errno must be linux's, except get_next_key's order,
 * which is fast's own: checked here against the pre-order the design
 * documents, written out independently.  Deleting every prefix must give
 * back every byte the trie took (no node left behind).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

#define KEY_MAX (4 + 256)
#define STRIDE 6

struct pair {
	struct map *fast, *linux;
	uint32_t key_size, data_size, max_len;
	size_t empty_bytes;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct map *create(const char *name, uint32_t key_size,
			  uint32_t max_entries)
{
	struct map_attr a = { .type = MAP_TYPE_LPM_TRIE, .key_size = key_size,
			      .value_size = 8, .max_entries = max_entries,
			      .flags = MAP_F_NO_PREALLOC };
	struct map *m;
	cr_assert_eq(map_create(map_find(name), &a, &m), 0, "%s", name);
	return m;
}

static struct pair make_pair(uint32_t key_size, uint32_t max_entries)
{
	struct pair p = { .key_size = key_size, .data_size = key_size - 4,
			  .max_len = 8 * (key_size - 4) };
	p.fast = create("lpm_trie/multibit", key_size, max_entries);
	p.linux = create("lpm_trie/linux", key_size, max_entries);
	p.empty_bytes = p.fast->ops->memory(p.fast);
	return p;
}

static void free_pair(struct pair *p)
{
	map_destroy(p->fast);
	map_destroy(p->linux);
}

/* Bases the keys start from: a few addresses that share long runs of
 * bits, and their variations in one random bit, so prefixes nest. */
static uint8_t bases[6][256];

static void make_bases(uint32_t data_size)
{
	for (unsigned i = 0; i < 6; i++)
		for (uint32_t j = 0; j < data_size; j++)
			bases[i][j] = (uint8_t)next_random();
	memcpy(bases[1], bases[0], data_size / 2); /* share a half */
	memcpy(bases[2], bases[0], data_size);
	bases[2][data_size - 1] ^= 1; /* differ in the last bit */
}

/* A length that often sits on or beside a 6-bit boundary. */
static uint32_t random_len(uint32_t max)
{
	uint32_t l = (uint32_t)(next_random() % (max + 1));
	if (next_random() % 2) {
		l = l / STRIDE * STRIDE + (uint32_t)(next_random() % 3) - 1;
		if (l > max) /* wrapped below 0, or past the end */
			l = next_random() % 2 ? 0 : max;
	}
	return l;
}

static void random_key(const struct pair *p, uint8_t *k)
{
	uint32_t len = random_len(p->max_len);
	memcpy(k, &len, 4);
	memcpy(k + 4, bases[next_random() % 6], p->data_size);
	if (next_random() % 3 == 0) { /* flip one bit anywhere */
		uint32_t bit = (uint32_t)(next_random() % p->max_len);
		k[4 + bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
	}
}

static uint32_t len_of(const uint8_t *k)
{
	uint32_t l;
	memcpy(&l, k, 4);
	return l;
}

static unsigned bit_at(const uint8_t *d, uint32_t i)
{
	return (d[i / 8] >> (7 - i % 8)) & 1;
}

/* The next 6 bits from bit off, zero past len. */
static unsigned chunk(const uint8_t *d, uint32_t len, uint32_t off)
{
	unsigned c = 0;
	for (uint32_t i = off; i < off + STRIDE; i++)
		c = c << 1 | (i < len ? bit_at(d, i) : 0);
	return c;
}

/*
 * The documented order, from first principles: compare 6 bits at a time;
 * a prefix that ends within the current 6 bits comes before one that goes
 * on, two that end there go shorter first, then by their bits.
 */
static int preorder_cmp(const uint8_t *a, const uint8_t *b)
{
	uint32_t la = len_of(a), lb = len_of(b);
	for (uint32_t off = 0;; off += STRIDE) {
		bool ends_a = la < off + STRIDE, ends_b = lb < off + STRIDE;
		unsigned ca = chunk(a + 4, la, off), cb = chunk(b + 4, lb, off);
		if (ends_a && ends_b) {
			if (la != lb)
				return la < lb ? -1 : 1;
			return ca < cb ? -1 : ca > cb;
		}
		if (ends_a != ends_b)
			return ends_a ? -1 : 1;
		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
}

static void check_lookup(const struct pair *p, const uint8_t *k)
{
	uint64_t vf = 0, vl = 0;
	int ef = map_lookup_copy(p->fast, k, &vf);
	int el = map_lookup_copy(p->linux, k, &vl);
	cr_assert_eq(ef, el, "lookup /%u: fast %d, linux %d", len_of(k), ef, el);
	cr_assert_eq(vf, vl, "lookup /%u: fast found %lu, linux %lu",
		     len_of(k), (unsigned long)vf, (unsigned long)vl);
}

/* A batch of random keys: fast's map_lookup_batch (its interleaved walks)
 * finds, key by key, the value linux's lookup finds. */
static void check_batch(const struct pair *p)
{
	uint8_t keys[MAP_BATCH_MAX * KEY_MAX];
	void *fast[MAP_BATCH_MAX];
	unsigned n = 1 + (unsigned)(next_random() % MAP_BATCH_MAX), want = 0;
	for (unsigned i = 0; i < n; i++)
		random_key(p, keys + (size_t)i * p->key_size);
	map_rcu_read_lock();
	unsigned hits = map_lookup_batch(p->fast, keys, n, fast);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *k = keys + (size_t)i * p->key_size;
		uint64_t *l = map_lookup(p->linux, k);
		want += l != NULL;
		cr_assert_eq(!fast[i], !l, "batch of %u, key %u (/%u): fast %p, "
			     "linux %p", n, i, len_of(k), fast[i], (void *)l);
		cr_assert(!l || memcmp(fast[i], l, 8) == 0, "batch of %u, key %u "
			  "(/%u): fast and linux found other values", n, i,
			  len_of(k));
	}
	map_rcu_read_unlock();
	cr_assert_eq(hits, want, "batch of %u: %u hits, linux %u", n, hits, want);
}

/* Walk fast's keys: each must be linux's (found with the same value and
 * given back with the bytes linux gives), in pre-order, each once. */
static void check_walk(const struct pair *p)
{
	uint8_t prev[KEY_MAX], next[KEY_MAX];
	size_t n = 0, linux_n = 0;
	const void *from = NULL;
	while (map_get_next_key(p->fast, from, next) == 0) {
		uint64_t vf, vl;
		cr_assert_eq(map_lookup_copy(p->linux, next, &vl), 0);
		/* exact: a lookup of a stored prefix finds that prefix */
		cr_assert_eq(map_lookup_copy(p->fast, next, &vf), 0);
		cr_assert_eq(vf, vl);
		if (from)
			cr_assert_lt(preorder_cmp(prev, next), 0,
				     "walk out of pre-order at key %zu", n);
		memcpy(prev, next, p->key_size);
		from = prev;
		cr_assert_lt(++n, 100000);
	}
	from = NULL;
	while (map_get_next_key(p->linux, from, next) == 0) {
		memcpy(prev, next, p->key_size);
		from = prev;
		linux_n++;
	}
	cr_assert_eq(n, linux_n, "fast walks %zu keys, linux %zu", n, linux_n);
}

/* Is k's very prefix in linux's trie?  1 yes, 0 no, -1 unknown (full). */
static int stored_in_linux(const struct pair *p, const uint8_t *k)
{
	uint64_t v = 0;
	int err = map_update(p->linux, k, &v, MAP_NOEXIST);
	if (err == -EEXIST)
		return 1;
	if (err == 0)
		cr_assert_eq(map_delete(p->linux, k), 0);
	return err == 0 ? 0 : -1;
}

/* get_next_key from k: from a stored prefix (whatever its trailing bits),
 * a later stored prefix; from any other key, the first. */
static void check_next_from(const struct pair *p, const uint8_t *k)
{
	uint8_t next[KEY_MAX], first[KEY_MAX];
	int stored = stored_in_linux(p, k);
	int err = map_get_next_key(p->fast, k, next);
	if (stored == 0) {
		cr_assert_eq(err, map_get_next_key(p->fast, NULL, first));
		if (!err)
			cr_assert_eq(memcmp(next, first, p->key_size), 0,
				     "an absent key's next is not the first");
	} else if (stored == 1 && !err) {
		cr_assert_lt(preorder_cmp(k, next), 0);
		cr_assert_eq(stored_in_linux(p, next), 1);
	}
}

static void random_op(const struct pair *p, unsigned op)
{
	uint8_t k[KEY_MAX];
	uint64_t v = next_random();
	random_key(p, k);
	if (op < 45) {
		uint64_t flags = next_random() % 4; /* 3: EINVAL */
		int ef = map_update(p->fast, k, &v, flags);
		int el = map_update(p->linux, k, &v, flags);
		cr_assert_eq(ef, el, "update /%u flags %lu: fast %d, linux %d",
			     len_of(k), (unsigned long)flags, ef, el);
	} else if (op < 70) {
		int ef = map_delete(p->fast, k), el = map_delete(p->linux, k);
		cr_assert_eq(ef, el, "delete /%u: fast %d, linux %d",
			     len_of(k), ef, el);
	} else if (op < 90) {
		check_lookup(p, k);
	} else if (op < 95) {
		check_batch(p);
	} else {
		check_next_from(p, k);
	}
}

static void random_run(uint32_t key_size, uint32_t max_entries, unsigned ops)
{
	map_thread_online();
	struct pair p = make_pair(key_size, max_entries);
	make_bases(p.data_size);
	for (unsigned i = 0; i < ops; i++) {
		random_op(&p, (unsigned)(next_random() % 100));
		if (i % 500 == 499)
			check_walk(&p);
	}
	check_walk(&p);
	/* empty it: every byte comes back, and nothing is found */
	uint8_t k[KEY_MAX];
	while (map_get_next_key(p.fast, NULL, k) == 0) {
		cr_assert_eq(map_delete(p.fast, k), 0);
		cr_assert_eq(map_delete(p.linux, k), 0);
	}
	cr_assert_eq(map_get_next_key(p.linux, NULL, k), -ENOENT);
	cr_assert_eq(p.fast->ops->memory(p.fast), p.empty_bytes,
		     "an empty trie holds %zu bytes, a new one %zu",
		     p.fast->ops->memory(p.fast), p.empty_bytes);
	for (unsigned i = 0; i < 200; i++) {
		random_key(&p, k);
		check_lookup(&p, k);
	}
	free_pair(&p);
	map_thread_offline();
}

TestSuite(lpm_fast, .timeout = 120);

Test(lpm_fast, matches_linux_on_one_byte_keys)
{
	random_run(5, 64, 20000);
}

Test(lpm_fast, matches_linux_on_ipv4_keys)
{
	random_run(8, 200, 30000);
}

Test(lpm_fast, matches_linux_on_20_byte_keys)
{
	random_run(20, 200, 20000);
}

Test(lpm_fast, matches_linux_on_260_byte_keys)
{
	random_run(260, 100, 5000);
}

Test(lpm_fast, matches_linux_when_near_full)
{
	random_run(8, 12, 20000);
}

/* /0 and full-length keys at once, and nodes that fold back: one path
 * of every length 0..32, deleted shortest first then longest first. */
Test(lpm_fast, nested_path_folds_back)
{
	map_thread_online();
	struct pair p = make_pair(8, 64);
	uint8_t k[8] = { 0, 0, 0, 0, 0xc0, 0xa8, 0x01, 0x2f };
	for (uint32_t len = 0; len <= 32; len++) {
		uint64_t v = len;
		memcpy(k, &len, 4);
		cr_assert_eq(map_update(p.fast, k, &v, MAP_NOEXIST), 0);
		cr_assert_eq(map_update(p.linux, k, &v, MAP_NOEXIST), 0);
	}
	check_walk(&p);
	for (uint32_t len = 0; len <= 32; len++) {
		uint32_t gone = len % 2 ? len : 32 - len; /* from both ends */
		memcpy(k, &gone, 4);
		int ef = map_delete(p.fast, k), el = map_delete(p.linux, k);
		cr_assert_eq(ef, el);
		for (uint32_t ask = 0; ask <= 32; ask++) {
			memcpy(k, &ask, 4);
			check_lookup(&p, k);
		}
	}
	cr_assert_eq(p.fast->ops->memory(p.fast), p.empty_bytes);
	free_pair(&p);
	map_thread_offline();
}

/* A lookup whose length ends inside a node sees none of the node's longer
 * prefixes, even where the key's further bits match them. */
Test(lpm_fast, lookup_stops_at_its_own_length)
{
	map_thread_online();
	struct pair p = make_pair(8, 64);
	uint8_t k[8] = { 0, 0, 0, 0, 0xc0, 0xa8, 0x01, 0x2f };
	uint32_t stored[] = { 10, 11, 3 };
	for (unsigned i = 0; i < 3; i++) {
		uint64_t v = stored[i];
		memcpy(k, &stored[i], 4);
		cr_assert_eq(map_update(p.fast, k, &v, MAP_ANY), 0);
		cr_assert_eq(map_update(p.linux, k, &v, MAP_ANY), 0);
	}
	for (uint32_t ask = 0; ask <= 32; ask++) {
		memcpy(k, &ask, 4);
		check_lookup(&p, k);
	}
	free_pair(&p);
	map_thread_offline();
}

/* Its work: every write takes the lock once and its hold time counts; a
 * lookup takes none and visits one descriptor per 6 bits it reads. */
Test(lpm_fast, counts_its_work)
{
	map_thread_online();
	struct pair p = make_pair(8, 64);
	uint8_t k[8] = { 0, 0, 0, 0, 10, 0, 0, 1 };
	uint64_t v = 1;
	for (uint32_t len = 0; len <= 32; len += 8) {
		memcpy(k, &len, 4);
		cr_assert_eq(map_update(p.fast, k, &v, MAP_ANY), 0);
	}
	cr_assert_eq(map_delete(p.fast, k), 0);
	struct map_work w = { 0 };
	p.fast->ops->work(p.fast, -1, &w);
	cr_assert_eq(w.locks, 6);
	cr_assert_gt(w.lock_ns, 0);
	struct map_work before = w, after = { 0 };
	uint32_t len = 32;
	memcpy(k, &len, 4);
	cr_assert_eq(map_lookup_copy(p.fast, k, &v), 0);
	p.fast->ops->work(p.fast, -1, &after);
	cr_assert_eq(after.locks, before.locks);
	cr_assert_eq(after.lock_ns, before.lock_ns);
	/* /0, /8, /16 and /24 are left: the root, the nodes at bits 6 and
	 * 12 (they hold /8 and /16), then /24, alone below, as a leaf hung
	 * straight from the node at 12: 4 descriptors, not the 5 a /24 has
	 * on its way with every node kept */
	cr_assert_eq(after.nodes_scanned - before.nodes_scanned, 4);
	free_pair(&p);
	map_thread_offline();
}
