/* SPDX-License-Identifier: MIT */
/*
 * The random comparison of an LPM-trie design with lpm_trie/linux (which
 * replays the kernel byte for byte), shared by the designs' own tests
 * (test_multibit.c, test_dpdk.c): both maps get the same random updates
 * with every flag, deletes, lookups of every prefix length, batched
 * lookups, and get_next_key from present and absent keys, on prefixes that
 * nest; every answer and errno must be linux's.  get_next_key's order is
 * each design's own: a walk is compared with linux's as a set of key bytes
 * (trailing bits included, as the kernel gives them back), and, where the
 * test gives the design's order (twin_rules.walk_cmp), in that order.
 * After the run both are emptied through the design's walk: every byte
 * the design took comes back.
 *
 * What each test chooses sits in its struct twin_rules: the design, the
 * prefix lengths it draws (around its own strides and boundaries), the
 * bases its keys start from, and how often a batch is checked.  One
 * translation unit includes this header: its functions are static.
 */
#ifndef MAPLAB_TESTS_LPM_RANDOM_VS_LINUX_H
#define MAPLAB_TESTS_LPM_RANDOM_VS_LINUX_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

#define TWIN_KEY_MAX (4 + 256)
#define TWIN_MAX_WALK 4096 /* keys in one walk, at most */
#define TWIN_BASES 6

struct twin;

struct twin_rules {
	const char *design; /* the registry name of the map under test */
	/* A random prefix length for data of max_len bits (past max_len now
	 * and then: update and delete -EINVAL, lookup nothing). */
	uint32_t (*random_len)(uint32_t max_len);
	/* Extra shaping of twin_bases after twin_make_bases, or NULL. */
	void (*shape_bases)(uint32_t data_size);
	/* The design's get_next_key order (< 0: a before b), or NULL: the
	 * walk is compared as a set only. */
	int (*walk_cmp)(const uint8_t *a, const uint8_t *b);
	unsigned batch_percent; /* of the random ops: a batched lookup */
};

struct twin {
	const struct twin_rules *rules;
	struct map *design, *linux;
	uint32_t key_size, data_size, max_len;
	size_t empty_bytes; /* the design's memory() when new */
};

static uint64_t twin_rng = 0x9e3779b97f4a7c15ull;

static inline uint64_t twin_random(void)
{
	twin_rng ^= twin_rng << 13;
	twin_rng ^= twin_rng >> 7;
	twin_rng ^= twin_rng << 17;
	return twin_rng;
}

/* map_create's answer for an LPM trie of `name` with 8-byte values. */
static inline int twin_create(const char *name, uint32_t key_size,
			      uint32_t max_entries, struct map **m)
{
	struct map_attr a = { .type = MAP_TYPE_LPM_TRIE, .key_size = key_size,
			      .value_size = 8, .max_entries = max_entries,
			      .flags = MAP_F_NO_PREALLOC };
	const struct map_ops *ops = map_find(name);
	cr_assert_not_null(ops, "%s is not in the registry", name);
	return map_create(ops, &a, m);
}

static inline struct twin twin_make(const struct twin_rules *rules,
				    uint32_t key_size, uint32_t max_entries)
{
	struct twin t = { .rules = rules, .key_size = key_size,
			  .data_size = key_size - 4,
			  .max_len = 8 * (key_size - 4) };
	cr_assert_eq(twin_create(rules->design, key_size, max_entries,
				 &t.design), 0, "%s, key_size %u",
		     rules->design, key_size);
	cr_assert_eq(twin_create("lpm_trie/linux", key_size, max_entries,
				 &t.linux), 0);
	t.empty_bytes = t.design->ops->memory(t.design);
	return t;
}

static inline void twin_free(struct twin *t)
{
	map_destroy(t->design);
	map_destroy(t->linux);
}

static inline uint32_t twin_len_of(const uint8_t *k)
{
	uint32_t l;
	memcpy(&l, k, 4);
	return l;
}

/* Bases the keys start from: a few addresses that share long runs of
 * bits, and their variations in one random bit, so prefixes nest. */
static uint8_t twin_bases[TWIN_BASES][256];

static inline void twin_make_bases(const struct twin *t)
{
	uint32_t size = t->data_size;
	for (unsigned i = 0; i < TWIN_BASES; i++)
		for (uint32_t j = 0; j < size; j++)
			twin_bases[i][j] = (uint8_t)twin_random();
	memcpy(twin_bases[1], twin_bases[0], size / 2); /* share a half */
	memcpy(twin_bases[2], twin_bases[0], size);
	twin_bases[2][size - 1] ^= 1; /* differ in the last bit */
	if (t->rules->shape_bases)
		t->rules->shape_bases(size);
}

static inline void twin_random_key(const struct twin *t, uint8_t *k)
{
	uint32_t len = t->rules->random_len(t->max_len);
	memcpy(k, &len, 4);
	memcpy(k + 4, twin_bases[twin_random() % TWIN_BASES], t->data_size);
	if (twin_random() % 3 == 0) { /* flip one bit anywhere */
		uint32_t bit = (uint32_t)(twin_random() % t->max_len);
		k[4 + bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
	}
}

static inline void twin_check_lookup(const struct twin *t, const uint8_t *k)
{
	uint64_t vd = 0, vl = 0;
	int ed = map_lookup_copy(t->design, k, &vd);
	int el = map_lookup_copy(t->linux, k, &vl);
	cr_assert_eq(ed, el, "lookup /%u: %s %d, linux %d", twin_len_of(k),
		     t->rules->design, ed, el);
	cr_assert_eq(vd, vl, "lookup /%u: %s found %lu, linux %lu",
		     twin_len_of(k), t->rules->design, (unsigned long)vd,
		     (unsigned long)vl);
}

/* A batch of keys: the design's map_lookup_batch finds, key by key, the
 * value linux's lookup finds, and counts the hits. */
static inline void twin_check_batch_of(const struct twin *t,
				       const uint8_t *keys, unsigned n)
{
	void *found[MAP_BATCH_MAX];
	unsigned want = 0;
	map_rcu_read_lock();
	unsigned hits = map_lookup_batch(t->design, keys, n, found);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *k = keys + (size_t)i * t->key_size;
		uint64_t *l = map_lookup(t->linux, k);
		want += l != NULL;
		cr_assert_eq(!found[i], !l, "batch of %u, key %u (/%u): %s "
			     "%p, linux %p", n, i, twin_len_of(k),
			     t->rules->design, found[i], (void *)l);
		cr_assert(!l || memcmp(found[i], l, 8) == 0, "batch of %u, "
			  "key %u (/%u): %s and linux found other values", n,
			  i, twin_len_of(k), t->rules->design);
	}
	map_rcu_read_unlock();
	cr_assert_eq(hits, want, "batch of %u: %u hits, linux %u", n, hits,
		     want);
}

static inline void twin_check_batch(const struct twin *t)
{
	uint8_t keys[MAP_BATCH_MAX * TWIN_KEY_MAX];
	unsigned n = 1 + (unsigned)(twin_random() % MAP_BATCH_MAX);
	for (unsigned i = 0; i < n; i++)
		twin_random_key(t, keys + (size_t)i * t->key_size);
	twin_check_batch_of(t, keys, n);
}

static size_t twin_sort_size; /* qsort's comparator has no argument */

static inline int twin_key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, twin_sort_size);
}

/* A whole walk of m into keys, each key given back found in both maps
 * with the same value; in the design's order where the test gives it. */
static inline size_t twin_walk(const struct twin *t, struct map *m,
			       uint8_t *keys)
{
	size_t n = 0, ks = t->key_size;
	const uint8_t *from = NULL;
	int (*cmp)(const uint8_t *, const uint8_t *) =
		m == t->design ? t->rules->walk_cmp : NULL;
	while (map_get_next_key(m, from, keys + n * ks) == 0) {
		const uint8_t *k = keys + n * ks;
		if (from && cmp)
			cr_assert_lt(cmp(from, k), 0, "%s: walk out of its "
				     "order at key %zu", m->ops->name, n);
		twin_check_lookup(t, k); /* a stored prefix finds itself */
		from = k;
		cr_assert_lt(++n, TWIN_MAX_WALK, "%s: the walk does not end",
			     m->ops->name);
	}
	return n;
}

/* The design's walk and linux's: the same keys with the same bytes, each
 * once, and the same value under each. */
static inline void twin_check_walk(const struct twin *t)
{
	static uint8_t kd[TWIN_MAX_WALK * TWIN_KEY_MAX],
		kl[TWIN_MAX_WALK * TWIN_KEY_MAX];
	size_t ks = t->key_size;
	size_t nd = twin_walk(t, t->design, kd), nl = twin_walk(t, t->linux, kl);
	cr_assert_eq(nd, nl, "%s walks %zu keys, linux %zu", t->rules->design,
		     nd, nl);
	twin_sort_size = ks;
	qsort(kd, nd, ks, twin_key_cmp);
	qsort(kl, nl, ks, twin_key_cmp);
	for (size_t i = 1; i < nd; i++)
		cr_assert_neq(memcmp(kd + (i - 1) * ks, kd + i * ks, ks), 0,
			      "%s: a key twice in one walk", t->rules->design);
	cr_assert_eq(memcmp(kd, kl, nd * ks), 0, "the walks' keys differ");
}

/* Is k's very prefix in linux's trie?  1 yes, 0 no, -1 unknown (full). */
static inline int twin_stored_in_linux(const struct twin *t, const uint8_t *k)
{
	uint64_t v = 0;
	int err = map_update(t->linux, k, &v, MAP_NOEXIST);
	if (err == -EEXIST)
		return 1;
	if (err == 0)
		cr_assert_eq(map_delete(t->linux, k), 0);
	return err == 0 ? 0 : -1;
}

/* get_next_key from k: from a stored prefix (whatever its trailing bits),
 * another stored prefix, later in the design's order where the test gives
 * it; from any other key (a length past the data's included), the first. */
static inline void twin_check_next_from(const struct twin *t, const uint8_t *k)
{
	uint8_t next[TWIN_KEY_MAX], first[TWIN_KEY_MAX];
	int stored = twin_len_of(k) > t->max_len ? 0
						 : twin_stored_in_linux(t, k);
	int err = map_get_next_key(t->design, k, next);
	if (stored == 0) {
		cr_assert_eq(err, map_get_next_key(t->design, NULL, first));
		if (!err)
			cr_assert_eq(memcmp(next, first, t->key_size), 0,
				     "an absent key's next is not the first");
	} else if (stored == 1 && !err) {
		if (t->rules->walk_cmp)
			cr_assert_lt(t->rules->walk_cmp(k, next), 0);
		cr_assert_eq(twin_stored_in_linux(t, next), 1);
	}
}

/* A program's write through a lookup's pointer, into both maps: the value
 * must stay until its prefix is replaced or deleted, whatever updates of
 * other prefixes do to the design's nodes meanwhile (a later lookup
 * compares it with linux's, where the element keeps it). */
static inline void twin_write_in_place(const struct twin *t, const uint8_t *k,
				       uint64_t v)
{
	map_rcu_read_lock();
	uint64_t *d = map_lookup(t->design, k), *l = map_lookup(t->linux, k);
	cr_assert_eq(!d, !l, "lookup /%u to write: %s %p, linux %p",
		     twin_len_of(k), t->rules->design, (void *)d, (void *)l);
	if (d) {
		memcpy(d, &v, sizeof(v));
		memcpy(l, &v, sizeof(v));
	}
	map_rcu_read_unlock();
}

/* One random op: 45% updates (every flag, an invalid one too), 25%
 * deletes, then lookups (one in 4 of them writes the value it finds in
 * place), batches (batch_percent) and get_next_key (5%). */
static inline void twin_random_op(const struct twin *t, unsigned op)
{
	uint8_t k[TWIN_KEY_MAX];
	uint64_t v = twin_random();
	const char *name = t->rules->design;
	twin_random_key(t, k);
	if (op < 45) {
		uint64_t flags = twin_random() % 4; /* 3: EINVAL */
		int ed = map_update(t->design, k, &v, flags);
		int el = map_update(t->linux, k, &v, flags);
		cr_assert_eq(ed, el, "update /%u flags %lu: %s %d, linux %d",
			     twin_len_of(k), (unsigned long)flags, name, ed, el);
	} else if (op < 70) {
		int ed = map_delete(t->design, k), el = map_delete(t->linux, k);
		cr_assert_eq(ed, el, "delete /%u: %s %d, linux %d",
			     twin_len_of(k), name, ed, el);
	} else if (op < 95 - t->rules->batch_percent) {
		if (op % 4 == 0)
			twin_write_in_place(t, k, v);
		twin_check_lookup(t, k);
	} else if (op < 95) {
		twin_check_batch(t);
	} else {
		twin_check_next_from(t, k);
	}
}

/* Delete every key through the design's walk, from both maps: then both
 * are empty and the design holds what it held new. */
static inline void twin_empty(const struct twin *t)
{
	uint8_t k[TWIN_KEY_MAX];
	while (map_get_next_key(t->design, NULL, k) == 0) {
		cr_assert_eq(map_delete(t->design, k), 0);
		cr_assert_eq(map_delete(t->linux, k), 0);
	}
	cr_assert_eq(map_get_next_key(t->linux, NULL, k), -ENOENT);
	map_rcu_barrier(); /* deleted elements are gone */
	size_t bytes = t->design->ops->memory(t->design);
	cr_assert_eq(bytes, t->empty_bytes, "%s: empty it holds %zu bytes, "
		     "new %zu", t->rules->design, bytes, t->empty_bytes);
}

/* Every length 0..bits of the address in k (k's prefix length is
 * overwritten) into both maps, the walks compared; then deleted from both
 * ends (/0 and the full length first), every lookup length 0..bits + 1
 * compared after each delete: nodes fold back as their prefixes go. */
static inline void twin_nested_path(const struct twin *t, uint8_t *k,
				    uint32_t bits)
{
	for (uint32_t len = 0; len <= bits; len++) {
		uint64_t v = len;
		memcpy(k, &len, 4);
		cr_assert_eq(map_update(t->design, k, &v, MAP_NOEXIST), 0);
		cr_assert_eq(map_update(t->linux, k, &v, MAP_NOEXIST), 0);
	}
	twin_check_walk(t);
	for (uint32_t len = 0; len <= bits; len++) {
		uint32_t gone = len % 2 ? len : bits - len;
		memcpy(k, &gone, 4);
		cr_assert_eq(map_delete(t->design, k), map_delete(t->linux, k));
		for (uint32_t ask = 0; ask <= bits + 1; ask++) {
			memcpy(k, &ask, 4);
			twin_check_lookup(t, k);
		}
	}
}

/* ops random ops on a new pair, the walks compared every 500; then both
 * emptied, and lookups in the empty maps. */
static inline void twin_random_run(const struct twin_rules *rules,
				   uint32_t key_size, uint32_t max_entries,
				   unsigned ops)
{
	map_thread_online();
	struct twin t = twin_make(rules, key_size, max_entries);
	twin_make_bases(&t);
	for (unsigned i = 0; i < ops; i++) {
		twin_random_op(&t, (unsigned)(twin_random() % 100));
		if (i % 500 == 499)
			twin_check_walk(&t);
	}
	twin_check_walk(&t);
	twin_empty(&t);
	uint8_t k[TWIN_KEY_MAX];
	for (unsigned i = 0; i < 200; i++) {
		twin_random_key(&t, k);
		twin_check_lookup(&t, k);
	}
	twin_free(&t);
	map_thread_offline();
}

#endif
