/* SPDX-License-Identifier: MIT */
/*
 * hash/seqlock_buckets's own choices, beyond the BPF semantics conformance_hash
 * checks on every hash design: a value of up to 8 bytes is replaced in
 * place (a program's pointer to it sees the new value, and the element
 * keeps its place), a larger one moves to the slot's extra element (the
 * old pointer keeps the old value, as in the kernel); a full map still
 * replaces; and deletes stick.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

static struct map *make(uint32_t value_size, uint32_t max_entries)
{
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = 4,
			      .value_size = value_size,
			      .max_entries = max_entries, .ncpus = 2 };
	struct map *m = NULL;
	cr_assert_eq(map_create(map_find("hash/seqlock_buckets"), &a, &m), 0);
	return m;
}

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_thread_offline();
}

TestSuite(hash_fast, .init = set_up, .fini = tear_down, .timeout = 60);

Test(hash_fast, a_small_value_is_replaced_in_place)
{
	struct map *m = make(8, 16);
	uint32_t key = 7;
	uint64_t one = 1, two = 2;
	cr_assert_eq(map_update(m, &key, &one, MAP_NOEXIST), 0);
	map_rcu_read_lock();
	uint64_t *before = map_lookup(m, &key);
	cr_assert_not_null(before);
	cr_assert_eq(map_update(m, &key, &two, MAP_EXIST), 0);
	cr_expect_eq(*before, 2, "the old pointer sees the new value");
	cr_expect_eq(map_lookup(m, &key), before, "the element did not move");
	map_rcu_read_unlock();
	map_destroy(m);
}

Test(hash_fast, a_large_value_moves_to_a_new_element)
{
	struct map *m = make(16, 16);
	uint32_t key = 7;
	uint64_t one[2] = { 1, 1 }, two[2] = { 2, 2 }, got[2];
	cr_assert_eq(map_update(m, &key, one, MAP_NOEXIST), 0);
	map_rcu_read_lock();
	uint64_t *before = map_lookup(m, &key);
	cr_assert_eq(map_update(m, &key, two, MAP_ANY), 0);
	cr_expect_eq(before[0], 1, "the old element keeps the old value");
	cr_expect_neq(map_lookup(m, &key), before);
	map_rcu_read_unlock();
	cr_assert_eq(map_lookup_copy(m, &key, got), 0);
	cr_expect(got[0] == 2 && got[1] == 2);
	map_destroy(m);
}

Test(hash_fast, a_full_map_replaces_and_refuses_new_keys)
{
	for (uint32_t vs = 8; vs <= 16; vs += 8) {
		struct map *m = make(vs, 64);
		uint64_t v[2] = { 3, 3 };
		for (uint32_t k = 0; k < 64; k++)
			cr_assert_eq(map_update(m, &k, v, MAP_NOEXIST), 0);
		uint32_t extra = 64;
		cr_expect_eq(map_update(m, &extra, v, MAP_ANY), -E2BIG);
		for (uint32_t k = 0; k < 64; k++)
			cr_expect_eq(map_update(m, &k, v, MAP_ANY), 0,
				     "replace %u in a full map", k);
		uint32_t gone = 5;
		cr_assert_eq(map_delete(m, &gone), 0);
		cr_expect_eq(map_update(m, &extra, v, MAP_NOEXIST), 0);
		map_destroy(m);
	}
}

/* Every key found, every delete sticks.  With 8-byte values the map is
 * flat (its probes past home are tests/maps/tables/test_flattab.c's); the tagged
 * layout's overflow chains are tests/maps/tables/test_tagtab.c's. */
Test(hash_fast, every_key_is_reachable_and_deletes_stick)
{
	uint64_t v = 1, got;
	struct map *m;
	m = make(8, 200);
	for (uint32_t k = 0; k < 200; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	for (uint32_t k = 0; k < 200; k++)
		cr_expect_eq(map_lookup_copy(m, &k, &got), 0, "key %u", k);
	for (uint32_t k = 0; k < 200; k += 2)
		cr_assert_eq(map_delete(m, &k), 0);
	for (uint32_t k = 0; k < 200; k++)
		cr_expect_eq(map_lookup_copy(m, &k, &got), k % 2 ? 0 : -ENOENT,
			     "key %u", k);
	map_destroy(m);
}
