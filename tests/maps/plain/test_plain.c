/* SPDX-License-Identifier: MIT */
/*
 * The plain DPDK tables (maps/plain/plain.h) against the adapters they
 * stand beside, on the keys bench gives them:
 *  - plain/rte_fib answers every lookup of a prefix workload (addresses
 *    inside the prefixes and addresses outside every one, on the BGP-
 *    shaped set, the real Internet table's sample and random /32s) with
 *    the next hop of the prefix lpm_trie/dpdk answers with, single and in
 *    batches of every size;
 *  - plain/rte_hash answers every stored key with its data and every
 *    other key with none, as hash/dpdk does, single and in batches;
 *  - what they refuse: rte_fib other key sizes and more prefixes than
 *    lpm_trie/dpdk takes, a reference's delete and walk (-EOPNOTSUPP);
 *  - which adapter each stands beside, and that no design has one.
 * Built only with DPDK.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/workload/workload.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/plain/plain.h"
#include "tests/common/lpm_streams.h"

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_thread_offline();
}

TestSuite(plain, .init = set_up, .fini = tear_down, .timeout = 120);

static struct map *make(const struct map_ops *ops, uint32_t type,
			uint32_t key_size, uint32_t max_entries)
{
	struct map_attr a = { .type = type, .key_size = key_size,
			      .value_size = 4, .max_entries = max_entries,
			      .flags = type == MAP_TYPE_LPM_TRIE
				       ? MAP_F_NO_PREALLOC : 0 };
	struct map *m = NULL;
	cr_assert_not_null(ops);
	int rc = map_create(ops, &a, &m);
	cr_assert_eq(rc, 0, "%s: %s", ops->name, map_refusal());
	return m;
}

/* The id the adapter holds for key (its value, as stored: the key's
 * number + 1), or 0 where it finds nothing. */
static uint64_t adapter_answer(struct map *m, const void *key)
{
	uint32_t id = 0;
	map_rcu_read_lock();
	const void *v = map_lookup(m, key);
	if (v)
		memcpy(&id, v, sizeof(id));
	map_rcu_read_unlock();
	return id;
}

/* Keys first .. first + n - 1 of the table, single and in batches of 1
 * to MAP_BATCH_MAX: the plain table answers each as the adapter does.
 * Returns how many matched. */
static uint64_t answers_agree(struct map *adapter, struct map *plain,
			      const uint8_t *keys, uint32_t key_size,
			      uint64_t first, uint64_t n)
{
	uint64_t matched = 0;
	for (uint64_t k = first; k < first + n; k++) {
		const uint8_t *key = keys + k * key_size;
		uint64_t want = adapter_answer(adapter, key);
		uint64_t got = plain_answer(plain, key);
		cr_assert_eq(got, want, "key %llu: plain %llu, adapter %llu",
			     (unsigned long long)k, (unsigned long long)got,
			     (unsigned long long)want);
		matched += got != 0;
	}
	unsigned size = 1;
	for (uint64_t k = first; k < first + n; k += size, size = size % MAP_BATCH_MAX + 1) {
		unsigned b = (unsigned)(first + n - k < size ? first + n - k : size);
		void *values[MAP_BATCH_MAX];
		unsigned hits = map_lookup_batch(plain, keys + k * key_size, b, values);
		unsigned want = 0;
		for (unsigned i = 0; i < b; i++) {
			bool found = adapter_answer(adapter, keys + (k + i) * key_size);
			cr_assert_eq(values[i] != NULL, found, "key %llu in a batch of %u",
				     (unsigned long long)(k + i), b);
			want += found;
		}
		cr_assert_eq(hits, want);
	}
	return matched;
}

/* Both tables hold the workload's entries (entry k with id k + 1, in
 * order, as bench's prefill stores them); every lookup address, those
 * meant to hit and those meant to miss, answered alike. */
static void fib_agrees_on(enum prefix_set set, unsigned entries)
{
	char err[256];
	cr_assert_eq(prefix_set_load(set, err, sizeof(err)), 0, "%s", err);
	struct workload w = lpm_workload(set, "lookup=100", entries, 90);
	struct workload_layout l;
	uint8_t *keys = workload_make_keys(&w, 1, err, sizeof(err));
	cr_assert_not_null(keys, "%s", err);
	workload_layout(&w, 1, &l);
	struct map *adapter = make(map_find("lpm_trie/dpdk"), MAP_TYPE_LPM_TRIE,
				   w.key_size, entries);
	struct map *plain = make(plain_for("lpm_trie/dpdk"), MAP_TYPE_LPM_TRIE,
				 w.key_size, entries);
	for (uint64_t k = 0; k < l.stored; k++) {
		uint32_t id = (uint32_t)k + 1;
		const uint8_t *key = keys + k * w.key_size;
		cr_assert_eq(map_update(adapter, key, &id, MAP_NOEXIST), 0);
		cr_assert_eq(map_update(plain, key, &id, MAP_NOEXIST), 0);
	}
	uint64_t hit_first = l.hit_base, hit_n = l.stored;
	uint64_t found = answers_agree(adapter, plain, keys, w.key_size,
				       hit_first, hit_n);
	cr_expect_eq(found, hit_n, "%s: every address inside a prefix matches",
		     prefix_set_name(set));
	cr_expect_eq(answers_agree(adapter, plain, keys, w.key_size,
				   l.miss_base, l.misses), 0,
		     "%s: no address outside every prefix matches",
		     prefix_set_name(set));
	map_destroy(adapter);
	map_destroy(plain);
	free(keys);
}

Test(plain, rte_fib_answers_as_lpm_trie_dpdk_on_bgp)
{
	fib_agrees_on(PREFIXES_BGP, 30000);
}

Test(plain, rte_fib_answers_as_lpm_trie_dpdk_on_the_internet_table)
{
	fib_agrees_on(PREFIXES_INTERNET, 60000);
}

Test(plain, rte_fib_answers_as_lpm_trie_dpdk_on_random_32s)
{
	fib_agrees_on(PREFIXES_RANDOM32, 20000);
}

Test(plain, rte_hash_answers_as_hash_dpdk)
{
	const unsigned entries = 20000;
	struct workload w = workload_default();
	struct workload_layout l;
	char err[256];
	w.type = MAP_TYPE_HASH;
	w.key_size = 8;
	w.entries = entries;
	uint8_t *keys = workload_make_keys(&w, 2, err, sizeof(err));
	cr_assert_not_null(keys, "%s", err);
	workload_layout(&w, 2, &l);
	struct map *adapter = make(map_find("hash/dpdk"), MAP_TYPE_HASH, 8, entries);
	struct map *plain = make(plain_for("hash/dpdk"), MAP_TYPE_HASH, 8, entries);
	for (uint64_t k = 0; k < entries; k++) {
		uint32_t id = (uint32_t)k + 1;
		cr_assert_eq(map_update(adapter, keys + k * 8, &id, MAP_NOEXIST), 0);
		cr_assert_eq(map_update(plain, keys + k * 8, &id, MAP_NOEXIST), 0);
	}
	cr_expect_eq(answers_agree(adapter, plain, keys, 8, 0, entries), entries);
	/* the workers' pool keys are not stored: no answer */
	cr_expect_eq(answers_agree(adapter, plain, keys, 8, l.pool_base,
				   l.total - l.pool_base), 0);
	/* the table is full: one more key is E2BIG, as a full hash's */
	cr_expect_eq(map_update(plain, keys + l.pool_base * 8, &entries, MAP_NOEXIST),
		     -E2BIG);
	map_destroy(adapter);
	map_destroy(plain);
	free(keys);
}

Test(plain, what_a_plain_table_refuses)
{
	const struct map_ops *fib = plain_for("lpm_trie/dpdk");
	struct map_attr a = { .type = MAP_TYPE_LPM_TRIE, .key_size = 20,
			      .value_size = 4, .max_entries = 16,
			      .flags = MAP_F_NO_PREALLOC };
	struct map *m = NULL;
	cr_expect_eq(map_create(fib, &a, &m), -EINVAL);
	cr_expect(strstr(map_refusal(), "plain/rte_fib takes IPv4 keys") != NULL,
		  "%s", map_refusal());
	a.key_size = 8;
	a.max_entries = (1u << 20) + 1;
	cr_expect_eq(map_create(fib, &a, &m), -E2BIG);
	m = make(fib, MAP_TYPE_LPM_TRIE, 8, 16);
	uint8_t key[8] = { 32, 0, 0, 0, 10, 0, 0, 1 }, next[8];
	uint32_t value = 1;
	cr_expect_eq(map_update(m, key, &value, MAP_ANY), 0);
	cr_expect_eq(plain_answer(m, key), 1);
	cr_expect_eq(map_delete(m, key), -EOPNOTSUPP);
	cr_expect_eq(map_get_next_key(m, NULL, next), -EOPNOTSUPP);
	map_destroy(m);
}

Test(plain, which_adapter_each_stands_beside)
{
	const struct map_ops *fib = plain_for("lpm_trie/dpdk");
	const struct map_ops *hash = plain_for("hash/dpdk");
	cr_assert_not_null(fib);
	cr_assert_not_null(hash);
	cr_expect_str_eq(fib->name, "plain/rte_fib");
	cr_expect_str_eq(hash->name, "plain/rte_hash");
	cr_expect(plain_is(fib) && plain_is(hash));
	unsigned designs = 0;
	for (const struct map_ops *const *d = map_registry; *d; d++, designs++) {
		cr_expect(!plain_is(*d), "%s is a design", (*d)->name);
		if (strcmp((*d)->name, "hash/dpdk") && strcmp((*d)->name, "lpm_trie/dpdk"))
			cr_expect_null(plain_for((*d)->name), "%s", (*d)->name);
	}
	cr_expect_gt(designs, 10, "the registry was walked");
	cr_expect_null(map_find("plain/rte_fib"), "a reference is not in the registry");
}
