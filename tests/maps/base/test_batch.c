/* SPDX-License-Identifier: MIT */
/*
 * map_lookup_batch under concurrent updates, on every hash and LPM-trie
 * design (the designs' own batches and map.h's loop alike): a writer
 * thread inserts, replaces and deletes one set of keys (churning) while
 * the main thread looks up batches that mix them with keys that stay in
 * the map untouched.  A batch must answer as lookups would, each key at
 * some moment of the call: a staying key always hits and its value names
 * it; a churning key that hits has a value that names a key (where a
 * design reuses an element at once, as the kernel's preallocated hash
 * does, the value may be another key's by the time it is read: map.h's
 * lookup contract).  Not checked: that a key being replaced hits, which
 * hash/linux does not promise, as the kernel does not (docs/hash_linux.md).
 * Run under ASan and UBSan in CI, which catch a batch that reads freed
 * memory.  Not a stress test under TSan: reading a value through a
 * program's pointer while a writer rewrites it is the race BPF's lookup
 * contract allows (map.h), and TSan would report it.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/clock.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"
#include "tests/common/designs.h"

enum { STAYING = 64, CHURNING = 64, KEYS = STAYING + CHURNING };

struct shared {
	struct map *map;
	uint32_t type, key_size;
	atomic_bool stop;
	uint64_t writes;
	int claimed;       /* the writer's cpu slot claim: 1, or -errno */
};

/* Key k: a hash key of 4 bytes, or an LPM key /32 of 4 address bytes. */
static void make_key(const struct shared *s, uint32_t k, uint8_t *key)
{
	uint32_t addr = 0x0a000000u + k * 7919u;
	if (s->type == MAP_TYPE_LPM_TRIE) {
		uint32_t len = 32;
		memcpy(key, &len, 4);
		for (int i = 0; i < 4; i++)
			key[4 + i] = (uint8_t)(addr >> (24 - 8 * i));
	} else {
		memcpy(key, &addr, 4);
	}
}

/* Value: the key's number, then a generation. */
static void make_value(uint32_t k, uint32_t gen, uint8_t v[8])
{
	memcpy(v, &k, 4);
	memcpy(v + 4, &gen, 4);
}

static void *writer(void *arg)
{
	struct shared *s = arg;
	uint8_t key[8], value[8];
	map_thread_online();
	s->claimed = map_cpu_claim(1);
	for (uint32_t gen = 1; !atomic_load(&s->stop); gen++) {
		uint32_t k = STAYING + gen % CHURNING;
		make_key(s, k, key);
		make_value(k, gen, value);
		if (gen / CHURNING % 3 == 0)
			map_delete(s->map, key);
		else /* an insert, or a replace of the key's value */
			map_update(s->map, key, value, MAP_ANY);
		s->writes++;
		if (gen % 64 == 0)
			map_rcu_quiescent();
	}
	map_cpu_release();
	map_thread_offline();
	return NULL;
}

/* Batches for `seconds`: each staying key hits and names itself, each
 * churning key that hits names a key.  The batches run; the first wrong
 * answer in `failure` (asserted after the writer stops: an assertion here
 * would leave the writer running on this frame). */
static uint64_t read_batches(struct shared *s, double seconds, char *failure,
			     size_t len)
{
	uint8_t keys[MAP_BATCH_MAX * 8];
	void *values[MAP_BATCH_MAX];
	uint32_t which[MAP_BATCH_MAX];
	uint64_t end = clock_now_ns() + (uint64_t)(seconds * 1e9), batches = 0;
	for (uint32_t round = 0; clock_now_ns() < end && !failure[0];
	     round++, batches++) {
		unsigned n = 1 + round % MAP_BATCH_MAX;
		for (unsigned i = 0; i < n; i++) {
			which[i] = (round * 13 + i * 5) % KEYS;
			make_key(s, which[i], keys + (size_t)i * s->key_size);
		}
		map_rcu_read_lock();
		unsigned hits = map_lookup_batch(s->map, keys, n, values);
		unsigned counted = 0;
		for (unsigned i = 0; i < n; i++) {
			uint32_t named;
			if (!values[i]) {
				if (which[i] < STAYING && !failure[0])
					snprintf(failure, len, "staying key %u "
						 "missed in a batch of %u",
						 which[i], n);
				continue;
			}
			counted++;
			memcpy(&named, values[i], 4);
			if ((named >= KEYS || (which[i] < STAYING &&
					       named != which[i])) && !failure[0])
				snprintf(failure, len, "key %u's value names "
					 "key %u", which[i], named);
		}
		map_rcu_read_unlock();
		if (hits != counted && !failure[0])
			snprintf(failure, len, "%u hits said, %u values", hits,
				 counted);
		if (round % 16 == 0)
			map_rcu_quiescent();
	}
	return batches;
}

static void batches_under_writes(uint32_t type, uint32_t flags,
				 uint32_t max_entries)
{
	const struct map_ops *designs[MAX_TEST_DESIGNS];
	size_t n = designs_of_type(type, designs);
	if (map_cpu_allowed_count() < 2)
		cr_skip_test("one CPU allowed: the writer and the reader would "
			     "not overlap");
	for (size_t d = 0; d < n; d++) {
		struct shared s = { .type = type,
				    .key_size = type == MAP_TYPE_LPM_TRIE ? 8 : 4};
		struct map_attr a = { .type = type, .key_size = s.key_size,
				      .value_size = 8, .max_entries = max_entries,
				      .flags = flags };
		uint8_t key[8], value[8];
		int rc = map_create(designs[d], &a, &s.map);
		if (rc == -EOPNOTSUPP)
			continue; /* a design this build cannot make */
		cr_assert_eq(rc, 0, "%s: create: %d", designs[d]->name, rc);
		for (uint32_t k = 0; k < KEYS; k++) {
			make_key(&s, k, key);
			make_value(k, 0, value);
			cr_assert_eq(map_update(s.map, key, value, MAP_ANY), 0);
		}
		pthread_t w;
		cr_assert_eq(pthread_create(&w, NULL, writer, &s), 0);
		char failure[160] = "";
		uint64_t batches = read_batches(&s, 0.3, failure,
						sizeof(failure));
		atomic_store(&s.stop, true);
		pthread_join(w, NULL);
		cr_assert_eq(s.claimed, 1, "the writer's cpu slot: %d", s.claimed);
		cr_assert_eq(failure[0], '\0', "%s: %s", designs[d]->name,
			     failure);
		cr_expect_gt(batches, 100, "%s: %llu batches", designs[d]->name,
			     (unsigned long long)batches);
		cr_expect_gt(s.writes, 100, "%s: %llu writes", designs[d]->name,
			     (unsigned long long)s.writes);
		map_destroy(s.map);
	}
}

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_thread_offline();
}

TestSuite(batch, .init = set_up, .fini = tear_down, .timeout = 120);

Test(batch, hash_designs_under_writes)
{
	batches_under_writes(MAP_TYPE_HASH, MAP_F_ZERO_SEED, 2 * KEYS);
}

Test(batch, hash_designs_without_prealloc_under_writes)
{
	batches_under_writes(MAP_TYPE_HASH, MAP_F_ZERO_SEED | MAP_F_NO_PREALLOC,
			     2 * KEYS);
}

Test(batch, lpm_trie_designs_under_writes)
{
	batches_under_writes(MAP_TYPE_LPM_TRIE, MAP_F_NO_PREALLOC, 2 * KEYS);
}

/* A map made for 2^18 prefixes, where lpm_trie/multibit boxes a third
 * level and its lookups read copies of that level's slots, which the
 * writer rewrites under a sequence count. */
Test(batch, large_lpm_trie_designs_under_writes)
{
	batches_under_writes(MAP_TYPE_LPM_TRIE, MAP_F_NO_PREALLOC, 1u << 18);
}
