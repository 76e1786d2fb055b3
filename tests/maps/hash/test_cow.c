/* SPDX-License-Identifier: MIT */
/*
 * hash/cow's own property, beyond the BPF semantics conformance_hash
 * checks: nothing a reader holds is ever written or reused.  A program's
 * value pointer taken before an overwrite or a delete still reads the old
 * value for the rest of its read section (under AddressSanitizer, a block
 * freed too early would be a use-after-free here), and every array and
 * value block the map allocated is given back when its keys go.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

static struct map *make(uint32_t max_entries)
{
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = max_entries,
			      .ncpus = 2 };
	struct map *m = NULL;
	cr_assert_eq(map_create(map_find("hash/cow"), &a, &m), 0);
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

TestSuite(hash_cow, .init = set_up, .fini = tear_down, .timeout = 60);

Test(hash_cow, a_reader_keeps_the_old_value_through_overwrite_and_delete)
{
	struct map *m = make(16);
	uint32_t key = 3;
	uint64_t one = 1, two = 2, got;
	cr_assert_eq(map_update(m, &key, &one, MAP_NOEXIST), 0);
	map_rcu_read_lock();
	const uint64_t *before = map_lookup(m, &key);
	cr_assert_not_null(before);
	cr_assert_eq(map_update(m, &key, &two, MAP_EXIST), 0);
	cr_expect_eq(*before, 1, "an overwrite wrote the old value block");
	const uint64_t *after = map_lookup(m, &key);
	cr_expect_neq(after, before, "an overwrite reused the value block");
	cr_assert_eq(map_delete(m, &key), 0);
	cr_expect_eq(*after, 2, "a delete freed a block a reader holds");
	map_rcu_read_unlock();
	cr_expect_eq(map_lookup_copy(m, &key, &got), -ENOENT);
	map_destroy(m);
}

Test(hash_cow, every_block_goes_back_with_its_keys)
{
	struct map *m = make(1024);
	size_t empty = m->ops->memory(m);
	uint64_t v = 7;
	for (uint32_t k = 0; k < 1024; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	size_t full = m->ops->memory(m);
	/* each key: its entry in an array, a value block, a backup entry */
	cr_expect_geq(full - empty, 1024 * (4 + 8), "%zu bytes for 1024 keys",
		      full - empty);
	for (uint32_t k = 0; k < 1024; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_EXIST), 0);
	cr_expect_eq(m->ops->memory(m), full, "overwrites leaked or lost blocks");
	for (uint32_t k = 0; k < 1024; k++)
		cr_assert_eq(map_delete(m, &k), 0);
	cr_expect_eq(m->ops->memory(m), empty, "deletes left blocks counted");
	map_destroy(m);
}
