/* SPDX-License-Identifier: MIT */
/*
 * Conformance of every LPM-trie design (maps/lpm_trie/) to the kernel's
 * BPF_MAP_TYPE_LPM_TRIE semantics (kernel/bpf/lpm_trie.c, 6.18), through
 * map.h only: creation checks and their errno; the update flags; -ENOSPC
 * when full, a replace still allowed; longest-prefix lookups, bounded by
 * the key's own prefix length; a prefix length beyond the data's bits
 * (update and delete -EINVAL, lookup -ENOENT, get_next_key the first key);
 * trailing bits kept as given; and the shared checks of validate.c (every
 * key once per walk, values, sizes).  The order of get_next_key is each
 * design's own; lpm_trie/linux's (the kernel's post-order) is checked in
 * tests/unit/test_lpm_linux.c and against the kernel itself.
 */
#include "validate.h"

#include <errno.h>
#include <string.h>

#include "maps/common/rcu.h"

static const uint32_t lpm_flag_sets[] = { MAP_F_NO_PREALLOC };

/* --- create --------------------------------------------------------------- */

struct attr_case {
	const char *what;
	uint32_t key_size, value_size, max_entries, flags;
	int err;
};

#define NP MAP_F_NO_PREALLOC
static const struct attr_case bad_attrs[] = {
	{ "no BPF_F_NO_PREALLOC", 8, 8, 16, 0, -EINVAL },
	{ "max_entries 0", 8, 8, 0, NP, -EINVAL },
	{ "key_size 4 (no data)", 4, 8, 16, NP, -EINVAL },
	{ "key_size 0", 0, 8, 16, NP, -EINVAL },
	{ "key_size 261 (257 data bytes)", 261, 8, 16, NP, -EINVAL },
	{ "value_size 0", 8, 0, 16, NP, -EINVAL },
	{ "value_size 4 MiB", 8, 4u << 20, 16, NP, -EINVAL },
	{ "zero_seed (a hash flag)", 8, 8, 16, NP | MAP_F_ZERO_SEED, -EINVAL },
	{ "no_common_lru", 8, 8, 16, NP | MAP_F_NO_COMMON_LRU, -EINVAL },
	{ "unknown flag 1<<20", 8, 8, 16, NP | (1u << 20), -EINVAL },
	{ "RDONLY and WRONLY", 8, 8, 16, NP | MAP_F_RDONLY | MAP_F_WRONLY,
	  -EINVAL },
};

static void check_create_rejects(const struct vcase *c)
{
	static struct map not_a_map;
	for (size_t k = 0; k < ARRAY_SIZE(bad_attrs); k++) {
		const struct attr_case *a = &bad_attrs[k];
		struct map_attr attr = {
			.type = MAP_TYPE_LPM_TRIE, .key_size = a->key_size,
			.value_size = a->value_size,
			.max_entries = a->max_entries, .flags = a->flags,
		};
		struct map *m = &not_a_map;
		int err = map_create(c->ops, &attr, &m);
		cr_assert_eq(err, a->err, "%s: create with %s: %d, want %d",
			     c->name, a->what, err, a->err);
		cr_assert_eq(m, &not_a_map, "%s: failed create set *out",
			     c->name);
	}
}

static void check_create_accepts(const struct vcase *c)
{
	static const uint32_t sizes[][3] = { { 5, 1, 3 }, { 8, 8, 3 },
					     { 20, 3, 3 }, { 260, 512, 3 },
					     { 8, 8, UINT32_MAX } };
	static const uint32_t extra[] = { 0, MAP_F_NUMA_NODE, MAP_F_RDONLY,
					   MAP_F_WRONLY_PROG };
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++)
		for (size_t f = 0; f < ARRAY_SIZE(extra); f++) {
			struct map_attr attr = {
				.type = MAP_TYPE_LPM_TRIE,
				.key_size = sizes[s][0],
				.value_size = sizes[s][1],
				.max_entries = sizes[s][2],
				.flags = NP | extra[f],
			};
			struct map *m = NULL;
			cr_assert_eq(map_create(c->ops, &attr, &m), 0,
				     "%s: key %u value %u flags %#x", c->name,
				     attr.key_size, attr.value_size, attr.flags);
			map_destroy(m);
		}
}

TestSuite(create, .timeout = TEST_TIMEOUT_S);

Test(create, bad_attributes_get_the_kernels_errno)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_create_rejects);
}

Test(create, every_key_size_the_kernel_accepts)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_create_accepts);
}

/* --- the shared checks ------------------------------------------------------ */

TestSuite(shared, .timeout = TEST_TIMEOUT_S);

Test(shared, any_inserts_and_replaces)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			validate_any_inserts_and_replaces);
}

Test(shared, noexist_and_exist)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, validate_noexist);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, validate_exist);
}

Test(shared, other_flags_are_einval)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			validate_bad_update_flags);
}

Test(shared, lookups)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, validate_absent_keys);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			validate_delete_then_lookup);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			validate_program_lookup);
}

Test(shared, walks)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, validate_walk_empty);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			validate_walk_every_key);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			validate_walk_after_changes);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			validate_drain_by_walk);
}

Test(shared, sizes)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, validate_sizes);
}

/* --- prefixes ---------------------------------------------------------------- */

/* An IPv4 LPM key: prefix length, then the address, most significant first. */
struct v4key {
	uint32_t prefixlen;
	uint8_t addr[4];
};

static struct v4key v4(uint32_t prefixlen, uint8_t a, uint8_t b, uint8_t c,
		       uint8_t d)
{
	return (struct v4key){ prefixlen, { a, b, c, d } };
}

static struct map *new_v4_map(const struct vcase *c, uint32_t max_entries)
{
	return new_map(c, sizeof(struct v4key), sizeof(uint32_t), max_entries);
}

static int put_v4(struct map *m, struct v4key k, uint32_t value,
		  uint64_t flags)
{
	return map_update(m, &k, &value, flags);
}

/* The value lookup_copy finds for k, or 0 when none. */
static uint32_t value_for(struct map *m, struct v4key k)
{
	uint32_t v = 0;
	int err = map_lookup_copy(m, &k, &v);
	return err ? 0 : v;
}

static void check_longest_match(const struct vcase *c)
{
	struct map *m = new_v4_map(c, 16);
	cr_assert_eq(put_v4(m, v4(8, 10, 0, 0, 0), 8, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(16, 10, 1, 0, 0), 16, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(24, 10, 1, 2, 0), 24, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(32, 10, 1, 2, 3), 32, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(0, 0, 0, 0, 0), 100, MAP_ANY), 0);

	cr_expect_eq(value_for(m, v4(32, 10, 1, 2, 3)), 32, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 2, 4)), 24, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 3, 3)), 16, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 2, 2, 3)), 8, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 11, 1, 2, 3)), 100,
		     "%s: the default route", c->name);
	/* the key's own prefix length bounds the match */
	cr_expect_eq(value_for(m, v4(20, 10, 1, 2, 3)), 16, "%s", c->name);
	cr_expect_eq(value_for(m, v4(24, 10, 1, 2, 3)), 24, "%s", c->name);
	cr_expect_eq(value_for(m, v4(7, 10, 1, 2, 3)), 100, "%s", c->name);
	/* a deleted middle prefix: the next shorter one answers */
	cr_assert_eq(map_delete(m, &(struct v4key){ 16, { 10, 1, 0, 0 } }), 0);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 3, 3)), 8, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 2, 4)), 24, "%s", c->name);
	map_destroy(m);
}

static void check_prefix_beyond_the_data(const struct vcase *c)
{
	struct map *m = new_v4_map(c, 16);
	struct v4key too_long = v4(33, 10, 1, 2, 3), next;
	uint32_t v = 1;
	cr_assert_eq(put_v4(m, v4(32, 10, 1, 2, 3), 7, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(8, 10, 0, 0, 0), 8, MAP_ANY), 0);
	cr_expect_eq(map_update(m, &too_long, &v, MAP_ANY), -EINVAL, "%s",
		     c->name);
	cr_expect_eq(map_delete(m, &too_long), -EINVAL, "%s", c->name);
	cr_expect_eq(map_lookup_copy(m, &too_long, &v), -ENOENT, "%s",
		     c->name);
	struct v4key first;
	cr_assert_eq(map_get_next_key(m, NULL, &first), 0);
	cr_assert_eq(map_get_next_key(m, &too_long, &next), 0);
	cr_expect_eq(memcmp(&next, &first, sizeof(next)), 0,
		     "%s: a prefix beyond the data gives the first key", c->name);
	map_destroy(m);
}

static void check_trailing_bits_are_kept(const struct vcase *c)
{
	struct map *m = new_v4_map(c, 16);
	struct v4key next;
	cr_assert_eq(put_v4(m, v4(16, 10, 1, 0xab, 0xcd), 1, MAP_ANY), 0);
	cr_assert_eq(map_get_next_key(m, NULL, &next), 0);
	cr_expect(next.prefixlen == 16 && next.addr[2] == 0xab &&
		  next.addr[3] == 0xcd, "%s: stored as given", c->name);
	/* the same prefix with other trailing bits is the same key */
	cr_expect_eq(put_v4(m, v4(16, 10, 1, 0x12, 0x34), 2, MAP_NOEXIST),
		     -EEXIST, "%s", c->name);
	cr_assert_eq(put_v4(m, v4(16, 10, 1, 0x12, 0x34), 2, MAP_ANY), 0);
	cr_assert_eq(map_get_next_key(m, NULL, &next), 0);
	cr_expect(next.addr[2] == 0x12 && next.addr[3] == 0x34,
		  "%s: a replace stores the new trailing bits", c->name);
	cr_expect_eq(map_get_next_key(m, &next, &next), -ENOENT, "%s: one key",
		     c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 0xff, 0xff)), 2, "%s",
		     c->name);
	map_destroy(m);
}

static void check_full_trie(const struct vcase *c)
{
	struct map *m = new_v4_map(c, 3);
	cr_assert_eq(put_v4(m, v4(24, 10, 1, 1, 0), 1, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(24, 10, 1, 2, 0), 2, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(16, 10, 1, 0, 0), 3, MAP_ANY), 0);
	cr_expect_eq(put_v4(m, v4(24, 10, 1, 3, 0), 4, MAP_ANY), -ENOSPC,
		     "%s: full", c->name);
	/* 10.1.0.0/22 exists only as the fork of the two /24s, if at all:
	 * it is a new key, and there is no room */
	cr_expect_eq(put_v4(m, v4(22, 10, 1, 0, 0), 4, MAP_ANY), -ENOSPC,
		     "%s: full", c->name);
	cr_expect_eq(put_v4(m, v4(24, 10, 1, 2, 0), 5, MAP_EXIST), 0,
		     "%s: a replace in a full trie", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 2, 9)), 5, "%s", c->name);
	cr_expect_eq(put_v4(m, v4(24, 10, 1, 3, 0), 4, MAP_EXIST), -ENOENT,
		     "%s: EXIST on an absent key in a full trie", c->name);
	cr_assert_eq(map_delete(m, &(struct v4key){ 24, { 10, 1, 1, 0 } }), 0);
	cr_expect_eq(put_v4(m, v4(24, 10, 1, 3, 0), 4, MAP_NOEXIST), 0,
		     "%s: room after a delete", c->name);
	map_destroy(m);
}

static void check_absent_prefixes(const struct vcase *c)
{
	struct map *m = new_v4_map(c, 16);
	cr_assert_eq(put_v4(m, v4(24, 10, 1, 1, 0), 1, MAP_ANY), 0);
	cr_assert_eq(put_v4(m, v4(24, 10, 1, 2, 0), 2, MAP_ANY), 0);
	/* the /22 both /24s share is no key, whatever a design keeps there */
	struct v4key fork = v4(22, 10, 1, 0, 0);
	cr_expect_eq(map_delete(m, &fork), -ENOENT, "%s", c->name);
	cr_expect_eq(put_v4(m, fork, 3, MAP_EXIST), -ENOENT, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 0, 1)), 0,
		     "%s: no prefix covers 10.1.0.1", c->name);
	cr_assert_eq(put_v4(m, fork, 3, MAP_NOEXIST), 0, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 0, 1)), 3, "%s", c->name);
	cr_expect_eq(map_delete(m, &fork), 0, "%s", c->name);
	cr_expect_eq(map_delete(m, &fork), -ENOENT, "%s", c->name);
	cr_expect_eq(value_for(m, v4(32, 10, 1, 2, 1)), 2, "%s", c->name);
	map_destroy(m);
}

TestSuite(prefixes, .timeout = TEST_TIMEOUT_S);

Test(prefixes, the_longest_prefix_answers)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_longest_match);
}

Test(prefixes, a_prefix_beyond_the_data)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_prefix_beyond_the_data);
}

Test(prefixes, trailing_bits_are_kept_as_given)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_trailing_bits_are_kept);
}

Test(prefixes, a_full_trie_is_enospc_and_still_replaces)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_full_trie);
}

Test(prefixes, a_fork_is_not_a_key)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_absent_prefixes);
}
