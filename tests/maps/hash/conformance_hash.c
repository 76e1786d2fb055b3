/* SPDX-License-Identifier: MIT */
/*
 * conformance_hash.c: what every BPF_MAP_TYPE_HASH design must do.
 *
 * Every test runs on every design in map_registry[] whose type is
 * MAP_TYPE_HASH (a design added to the registry is tested with no change
 * here; conformance.h holds the checks every family shares), preallocated and with BPF_F_NO_PREALLOC, with and without
 * BPF_F_ZERO_SEED.  Passing proves that the design answers as the Linux
 * kernel's hash map does (the kernel's kernel/bpf/hashtab.c, 6.18, read
 * for behaviour; docs/hash_linux.md):
 *
 *  - create checks attributes in the kernel's order and with its errno, a
 *    failed create leaves *out alone, a good one keeps the attributes;
 *  - update: BPF_ANY inserts and replaces, BPF_NOEXIST on a present key is
 *    -EEXIST, BPF_EXIST on an absent key is -ENOENT, any other flags
 *    (BPF_F_LOCK included) are -EINVAL, and a failed update changes nothing;
 *  - capacity is exactly max_entries: the next new key is -E2BIG, a replace
 *    still succeeds in a full map, a delete makes room again, whichever cpu
 *    slot freed it;
 *  - lookup_copy and delete of an absent key are -ENOENT and write nothing;
 *    the program-style lookup returns a pointer to the value bytes (a write
 *    through it is seen by the next lookup) or NULL;
 *  - get_next_key from NULL walks every live key exactly once, then -ENOENT;
 *    a key not in the map restarts the walk at the first key;
 *  - keys and values of 1..512 bytes, passed at odd addresses, come back
 *    byte for byte, and exactly key_size / value_size bytes are written;
 *    two keys with the same 32-bit jhash are two entries;
 *  - a kernel-faithful design with BPF_F_ZERO_SEED walks in the kernel's
 *    order (bucket by bucket, newest first within a bucket).
 *
 * Run time: a map whose destroy waits for RCU callbacks (rcu_barrier; here
 * every no-prealloc map, and every map of a design that frees through
 * call_rcu) costs about 10 ms once its process has queued a callback,
 * because liburcu's call_rcu worker sleeps 10 ms between batches.  So the
 * tests create few maps, and criterion runs each test in its own process.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/maps/conformance.h"
#include "maps/base/cpu.h"
#include "maps/base/jhash.h"
#include "maps/base/rcu.h"

/* The kernel's limits on x86-64 (6.18): KMALLOC_MAX_SIZE and
 * sizeof(struct htab_elem); key_size + value_size must stay below their
 * difference (htab_map_alloc_check). */
#define KMALLOC_MAX_SIZE (4u << 20)
#define HTAB_ELEM_SIZE 48u

static const uint32_t every_flag_set[] = {
	0,
	MAP_F_NO_PREALLOC,
	MAP_F_ZERO_SEED,
	MAP_F_NO_PREALLOC | MAP_F_ZERO_SEED,
};
static const uint32_t zero_seed_flag_sets[] = {
	MAP_F_ZERO_SEED,
	MAP_F_NO_PREALLOC | MAP_F_ZERO_SEED,
};

/* --- registry ------------------------------------------------------------- */

static void check_design_is_complete(const struct vcase *c)
{
	const struct map_ops *o = c->ops;
	cr_assert_not_null(o->name);
	cr_assert(strncmp(o->name, "hash/", 5) == 0,
		  "%s: a hash design's name starts with hash/", o->name);
	cr_assert_not_null(o->description, "%s: no description", o->name);
	cr_assert(o->create && o->destroy && o->lookup && o->lookup_copy &&
		  o->update && o->delete && o->get_next_key,
		  "%s: an operation is missing", o->name);
	cr_assert_eq(map_find(o->name), o, "%s: map_find does not find it",
		     o->name);
}

TestSuite(registry, .timeout = TEST_TIMEOUT_S);

Test(registry, hash_designs_are_complete)
{
	static const uint32_t no_flags[] = { 0 };
	ON_EVERY_DESIGN(MAP_TYPE_HASH, no_flags, check_design_is_complete);
}

/* --- create --------------------------------------------------------------- */

struct attr_case {
	const char *what;
	uint32_t type, key_size, value_size, max_entries, flags;
	int err;
};

static const struct attr_case bad_attrs[] = {
	{ "key_size 0", MAP_TYPE_HASH, 0, 8, 16, 0, -EINVAL },
	{ "value_size 0", MAP_TYPE_HASH, 4, 0, 16, 0, -EINVAL },
	{ "max_entries 0", MAP_TYPE_HASH, 4, 8, 0, 0, -EINVAL },
	{ "every size 0", MAP_TYPE_HASH, 0, 0, 0, 0, -EINVAL },
	{ "unknown flag 1<<20", MAP_TYPE_HASH, 4, 8, 16, 1u << 20, -EINVAL },
	{ "unknown flag 1<<5 (STACK_BUILD_ID)", MAP_TYPE_HASH, 4, 8, 16,
	  1u << 5, -EINVAL },
	{ "unknown flag 1<<10 (MMAPABLE)", MAP_TYPE_HASH, 4, 8, 16, 1u << 10,
	  -EINVAL },
	{ "unknown flag 1<<31", MAP_TYPE_HASH, 4, 8, 16, 1u << 31, -EINVAL },
	{ "NO_COMMON_LRU on a hash map", MAP_TYPE_HASH, 4, 8, 16,
	  MAP_F_NO_COMMON_LRU, -EINVAL },
	{ "RDONLY and WRONLY", MAP_TYPE_HASH, 4, 8, 16,
	  MAP_F_RDONLY | MAP_F_WRONLY, -EINVAL },
	{ "key 4 + value 4 MiB", MAP_TYPE_HASH, 4, 4u << 20, 1, 0, -E2BIG },
	{ "key 4 MiB + value 4", MAP_TYPE_HASH, 4u << 20, 4, 1, 0, -E2BIG },
	{ "key + value = KMALLOC_MAX_SIZE - sizeof(htab_elem)", MAP_TYPE_HASH,
	  4, KMALLOC_MAX_SIZE - HTAB_ELEM_SIZE - 4, 1, 0, -E2BIG },
	{ "key + value wrapping 32 bits", MAP_TYPE_HASH, 1u << 31, 1u << 31,
	  1, 0, -E2BIG },
	{ "key and value UINT32_MAX", MAP_TYPE_HASH, UINT32_MAX, UINT32_MAX, 1,
	  0, -E2BIG },
	{ "max_entries 2^31 + 1", MAP_TYPE_HASH, 4, 8, (1u << 31) + 1, 0,
	  -E2BIG },
	{ "max_entries UINT32_MAX", MAP_TYPE_HASH, 4, 8, UINT32_MAX, 0,
	  -E2BIG },
	/* n_buckets > U32_MAX / sizeof(struct bucket) (16 bytes) */
	{ "max_entries 2^31", MAP_TYPE_HASH, 4, 8, 1u << 31, 0, -E2BIG },
	{ "max_entries 2^27 + 1", MAP_TYPE_HASH, 4, 8, (1u << 27) + 1, 0,
	  -E2BIG },
	/* The kernel's order: flags, then zero sizes, then E2BIG. */
	{ "unknown flag before E2BIG", MAP_TYPE_HASH, 4, 8, (1u << 31) + 1,
	  1u << 20, -EINVAL },
	{ "NO_COMMON_LRU before zero sizes", MAP_TYPE_HASH, 0, 0, 0,
	  MAP_F_NO_COMMON_LRU, -EINVAL },
	{ "NO_COMMON_LRU before E2BIG", MAP_TYPE_HASH, 4, 4u << 20, 16,
	  MAP_F_NO_COMMON_LRU, -EINVAL },
	{ "max_entries 0 before key + value E2BIG", MAP_TYPE_HASH, 4, 4u << 20,
	  0, 0, -EINVAL },
	{ "key_size 0 before max_entries E2BIG", MAP_TYPE_HASH, 0, 8,
	  (1u << 31) + 1, 0, -EINVAL },
	/* A type this design does not implement. */
	{ "type lru_hash", MAP_TYPE_LRU_HASH, 4, 8, 16, 0, -EINVAL },
	{ "type lpm_trie", MAP_TYPE_LPM_TRIE, 8, 8, 16, 0, -EINVAL },
	{ "type 0", 0, 4, 8, 16, 0, -EINVAL },
	{ "type 2 (array)", 2, 4, 8, 16, 0, -EINVAL },
	{ "type 1000", 1000, 4, 8, 16, 0, -EINVAL },
};

static void check_create_rejects(const struct vcase *c)
{
	static struct map not_a_map;

	for (size_t k = 0; k < ARRAY_SIZE(bad_attrs); k++) {
		const struct attr_case *a = &bad_attrs[k];
		struct map_attr attr = {
			.type = a->type,
			.key_size = a->key_size,
			.value_size = a->value_size,
			.max_entries = a->max_entries,
			.flags = a->flags | c->flags,
		};
		struct map *m = &not_a_map;
		int err = map_create(c->ops, &attr, &m);
		cr_assert_eq(err, a->err, "%s: create with %s: %d, want %d",
			     c->name, a->what, err, a->err);
		cr_assert_eq(m, &not_a_map, "%s: failed create with %s set *out",
			     c->name, a->what);
	}
}

TestSuite(create, .timeout = TEST_TIMEOUT_S);

Test(create, bad_attributes_get_the_kernels_errno)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_create_rejects);
}

static void expect_attr_kept(const struct vcase *c, const struct map *m,
			     const struct map_attr *attr)
{
	uint32_t ncpus = attr->ncpus ? attr->ncpus : map_possible_cpus();
	cr_assert(m->attr.type == attr->type &&
		  m->attr.key_size == attr->key_size &&
		  m->attr.value_size == attr->value_size &&
		  m->attr.max_entries == attr->max_entries &&
		  m->attr.flags == attr->flags && m->attr.ncpus == ncpus,
		  "%s: map->attr {%u %u %u %u %#x %u}, want {%u %u %u %u %#x %u}",
		  c->name, m->attr.type, m->attr.key_size, m->attr.value_size,
		  m->attr.max_entries, m->attr.flags, m->attr.ncpus, attr->type,
		  attr->key_size, attr->value_size, attr->max_entries,
		  attr->flags, ncpus);
}

static void expect_create_keeps(const struct vcase *c,
				const struct map_attr *attr)
{
	struct map *m = NULL;
	int err = map_create(c->ops, attr, &m);
	cr_assert_eq(err, 0, "%s: create key %u value %u max_entries %u "
		     "flags %#x ncpus %u: %d", c->name, attr->key_size,
		     attr->value_size, attr->max_entries, attr->flags,
		     attr->ncpus, err);
	cr_assert_eq(m->ops, c->ops);
	expect_attr_kept(c, m, attr);
	map_destroy(m);
}

static void check_create_accepts(const struct vcase *c)
{
	static const uint32_t geometry[][3] = {
		{ 1, 1, 1 }, { 4, 8, 1000 }, { 512, 512, 7 },
		{ 3, 100, 64 }, { 13, 1, 2 }, { 600, 3, 5 },
	};
	static const uint32_t ncpus[] = { 0, 1, 3 };
	/* Accepted, checked, but not enforced by a map design (map.h). */
	static const uint32_t access_flags[] = {
		MAP_F_NUMA_NODE, MAP_F_RDONLY, MAP_F_WRONLY,
		MAP_F_RDONLY_PROG, MAP_F_WRONLY_PROG,
	};
	struct map_attr attr = { .type = MAP_TYPE_HASH, .flags = c->flags };

	for (size_t g = 0; g < ARRAY_SIZE(geometry); g++) {
		attr.key_size = geometry[g][0];
		attr.value_size = geometry[g][1];
		attr.max_entries = geometry[g][2];
		for (size_t n = 0; n < ARRAY_SIZE(ncpus); n++) {
			attr.ncpus = ncpus[n];
			expect_create_keeps(c, &attr);
		}
	}
	attr.ncpus = 0;
	for (size_t f = 0; f < ARRAY_SIZE(access_flags); f++) {
		attr.flags = c->flags | access_flags[f];
		expect_create_keeps(c, &attr);
	}
}

Test(create, good_attributes_are_kept)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_create_accepts);
}

/*
 * The largest key + value the kernel stores works end to end.  Preallocated,
 * that is the largest create accepts.  With BPF_F_NO_PREALLOC each element
 * is kmalloc'ed with an 8-byte link, the key and value each rounded up to
 * 8, so a 4-byte key stores a value of at most 4 MiB - 48 - 8 - 8 bytes
 * (one more is -ENOMEM on the kernel and on hash/linux:
 * tests/maps/hash/test_linux.c).
 */
static void check_largest_element(const struct vcase *c)
{
	uint32_t value_size = c->flags & MAP_F_NO_PREALLOC
		? KMALLOC_MAX_SIZE - HTAB_ELEM_SIZE - 8 - 8
		: KMALLOC_MAX_SIZE - HTAB_ELEM_SIZE - 4 - 1;
	struct map *m = new_map_ncpus(c, 4, value_size, 1, 1);
	uint8_t *value = malloc(value_size), *got = malloc(value_size);
	cr_assert(value && got);
	make_value(value_size, 1, 0, value);

	uint32_t key = 1;
	cr_assert_eq(map_update(m, &key, value, MAP_NOEXIST), 0, "%s", c->name);
	memset(got, 0, value_size);
	cr_assert_eq(map_lookup_copy(m, &key, got), 0, "%s", c->name);
	size_t at = first_difference(got, value, value_size);
	cr_assert_eq(at, value_size, "%s: 4 MiB value differs at byte %zu",
		     c->name, at);
	key = 2;
	cr_assert_eq(map_update(m, &key, value, MAP_ANY), -E2BIG, "%s",
		     c->name);
	free(value);
	free(got);
	map_destroy(m);
}

Test(create, largest_element_the_kernel_accepts)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_largest_element);
}

/* Capacity is max_entries whatever the number of cpu slots. */
static void check_capacity_for_ncpus(const struct vcase *c)
{
	static const uint32_t ncpus[] = { 1, 3, 64 };
	struct space sp = int_space(c, 8, 8);

	for (size_t n = 0; n < ARRAY_SIZE(ncpus); n++) {
		struct map *m = new_map_ncpus(c, 4, 8, 5, ncpus[n]);
		for (uint32_t i = 0; i < 5; i++)
			expect_put(c, m, &sp, i, 0, MAP_NOEXIST, 0);
		expect_put(c, m, &sp, 5, 0, MAP_ANY, -E2BIG);
		for (uint32_t i = 0; i < 5; i++)
			expect_entry(c, m, &sp, i, 0);
		map_destroy(m);
	}
}

Test(create, capacity_does_not_depend_on_ncpus)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_capacity_for_ncpus);
}

static void check_maps_are_independent(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 4);
	struct map *a = new_map(c, sp.key_size, 8, 4);
	struct map *b = new_map(c, sp.key_size, 8, 4);
	expect_put(c, a, &sp, 1, 0, MAP_ANY, 0);
	expect_put(c, b, &sp, 2, 1, MAP_ANY, 0);
	expect_entry(c, a, &sp, 1, 0);
	expect_absent(c, a, &sp, 2);
	expect_entry(c, b, &sp, 2, 1);
	expect_absent(c, b, &sp, 1);
	map_destroy(a);
	expect_entry(c, b, &sp, 2, 1);
	map_destroy(b);
}

Test(create, two_maps_share_nothing)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_maps_are_independent);
}

/* --- update flags --------------------------------------------------------- */

TestSuite(update, .timeout = TEST_TIMEOUT_S);

Test(update, any_inserts_and_replaces)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_any_inserts_and_replaces);
}

Test(update, noexist_on_a_present_key_is_eexist)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_noexist);
}

Test(update, exist_on_an_absent_key_is_enoent)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_exist);
}

Test(update, other_flags_are_einval_and_change_nothing)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_bad_update_flags);
}

/* --- a full map ----------------------------------------------------------- */

static void check_full_map_of(const struct vcase *c, uint32_t max)
{
	struct space sp = int_space(c, 8, 2 * max + 2);
	bool *live = new_live(sp.n);
	struct map *m = new_map(c, 4, 8, max);
	unsigned other = last_slot();

	/* Exactly max new keys fit. */
	for (uint32_t i = 0; i < max; i++) {
		expect_put(c, m, &sp, i, 0, i % 2 ? MAP_NOEXIST : MAP_ANY, 0);
		live[i] = true;
	}
	expect_put(c, m, &sp, max, 0, MAP_ANY, -E2BIG);
	expect_put(c, m, &sp, max, 0, MAP_NOEXIST, -E2BIG);
	expect_put(c, m, &sp, max, 0, MAP_EXIST, -ENOENT);
	expect_put(c, m, &sp, 0, 9, MAP_NOEXIST, -EEXIST);
	expect_absent(c, m, &sp, max);

	/* Replaces succeed in a full map, from any slot, and take no room. */
	for (uint32_t gen = 1; gen <= 2; gen++) {
		use_slot(gen == 2 ? other : 0);
		for (uint32_t i = 0; i < max; i++)
			expect_put(c, m, &sp, i, gen,
				   i % 2 ? MAP_EXIST : MAP_ANY, 0);
	}
	use_slot(0);
	expect_put(c, m, &sp, max + 1, 0, MAP_ANY, -E2BIG);
	for (uint32_t i = 0; i < max; i++)
		expect_entry(c, m, &sp, i, 2);
	expect_walk(c, m, &sp, live);

	/* A delete, on another slot, makes room for exactly one new key. */
	use_slot(other);
	expect_delete(c, m, &sp, 0, 0);
	use_slot(0);
	live[0] = false;
	expect_absent(c, m, &sp, 0);
	expect_put(c, m, &sp, max, 3, MAP_NOEXIST, 0);
	live[max] = true;
	expect_put(c, m, &sp, max + 1, 0, MAP_ANY, -E2BIG);
	expect_entry(c, m, &sp, max, 3);
	expect_walk(c, m, &sp, live);

	/* Emptied on another slot, it takes max new keys again. */
	use_slot(other);
	for (uint32_t i = 0; i <= max; i++) {
		if (live[i])
			expect_delete(c, m, &sp, i, 0);
		live[i] = false;
	}
	use_slot(0);
	expect_walk(c, m, &sp, live);
	for (uint32_t i = max + 2; i < 2 * max + 2; i++) {
		expect_put(c, m, &sp, i, 4, MAP_NOEXIST, 0);
		live[i] = true;
	}
	expect_put(c, m, &sp, 0, 0, MAP_ANY, -E2BIG);
	for (uint32_t i = max + 2; i < 2 * max + 2; i++)
		expect_entry(c, m, &sp, i, 4);
	expect_walk(c, m, &sp, live);

	map_destroy(m);
	free(live);
}

static void check_full_maps(const struct vcase *c)
{
	static const uint32_t sizes[] = { 1, 7, 64, 1000 };
	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++)
		check_full_map_of(c, sizes[k]);
}

TestSuite(full, .timeout = TEST_TIMEOUT_S);

Test(full, exactly_max_entries_fit)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_full_maps);
}

/* --- lookup and delete ---------------------------------------------------- */

TestSuite(lookup, .timeout = TEST_TIMEOUT_S);

Test(lookup, absent_keys_are_enoent)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_absent_keys);
}

Test(lookup, delete_then_lookup_is_enoent)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_delete_then_lookup);
}

Test(lookup, program_lookup_points_at_the_value)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_program_lookup);
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_batch_lookup);
}

Test(lookup, a_write_in_place_survives_other_keys_updates)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set,
			check_write_survives_other_updates);
}

/*
 * Two 4-byte keys whose jhash with seed 0 is the same 32-bit value, found
 * by a birthday search over 2^18 keys (about 8 such pairs).  A
 * kernel-faithful design with BPF_F_ZERO_SEED then holds both in one
 * bucket with equal stored hashes, and must tell them apart by their bytes;
 * for other designs they are two ordinary keys.
 */
struct hashed_key {
	uint32_t hash, key;
};

static int by_hash(const void *pa, const void *pb)
{
	const struct hashed_key *a = pa, *b = pb;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static void find_jhash_collision(uint32_t *a, uint32_t *b, uint32_t keys)
{
	static uint32_t found_a, found_b; /* the search runs once */
	if (found_a != found_b) {
		*a = found_a;
		*b = found_b;
		return;
	}
	struct hashed_key *h = malloc(keys * sizeof(*h));
	cr_assert_not_null(h);
	for (uint32_t i = 0; i < keys; i++) {
		h[i].key = i;
		h[i].hash = map_jhash(&i, 4, 0);
	}
	qsort(h, keys, sizeof(*h), by_hash);
	bool found = false;
	for (uint32_t i = 0; i + 1 < keys && !found; i++) {
		if (h[i].hash == h[i + 1].hash) {
			*a = found_a = h[i].key;
			*b = found_b = h[i + 1].key;
			found = true;
		}
	}
	free(h);
	cr_assert(found, "no jhash collision among %u keys", keys);
}

static void check_colliding_keys(const struct vcase *c)
{
	enum { KEYS = 1 << 18 };
	uint32_t a = 0, b = 0;
	find_jhash_collision(&a, &b, KEYS);

	struct space sp = int_space(c, 8, KEYS);
	bool *live = new_live(KEYS);
	struct map *m = new_map(c, 4, 8, 16);

	expect_put(c, m, &sp, a, 0, MAP_NOEXIST, 0);
	expect_put(c, m, &sp, b, 0, MAP_NOEXIST, 0);
	expect_entry(c, m, &sp, a, 0);
	expect_entry(c, m, &sp, b, 0);
	expect_put(c, m, &sp, b, 1, MAP_EXIST, 0);
	expect_entry(c, m, &sp, a, 0);
	expect_entry(c, m, &sp, b, 1);
	live[a] = live[b] = true;
	expect_walk(c, m, &sp, live);
	expect_delete(c, m, &sp, a, 0);
	live[a] = false;
	expect_absent(c, m, &sp, a);
	expect_entry(c, m, &sp, b, 1);
	expect_walk(c, m, &sp, live);
	map_destroy(m);
	free(live);
}

Test(lookup, keys_with_equal_hashes_are_distinct)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, zero_seed_flag_sets, check_colliding_keys);
}

/* --- iteration ------------------------------------------------------------ */

TestSuite(iteration, .timeout = TEST_TIMEOUT_S);

Test(iteration, empty_map_has_no_first_key)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_walk_empty);
}

Test(iteration, walk_returns_every_key_once)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_walk_every_key);
}

Test(iteration, absent_key_restarts_the_walk)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_walk_restarts);
}

Test(iteration, walk_follows_deletes_and_replaces)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_walk_after_changes);
}

Test(iteration, delete_first_key_until_empty)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, every_flag_set, check_drain_by_walk);
}

/*
 * Kernel-faithful designs with BPF_F_ZERO_SEED: the walk is bucket by
 * bucket (jhash(key, key_size, 0) & (n_buckets - 1), n_buckets =
 * roundup_pow_of_two(max_entries)), newest insert or replace first within
 * a bucket (docs/hash_linux.md).
 */
struct stamped {
	uint32_t key, bucket, stamp;
};

static int kernel_order(const void *pa, const void *pb)
{
	const struct stamped *a = pa, *b = pb;
	if (a->bucket != b->bucket)
		return a->bucket < b->bucket ? -1 : 1;
	return a->stamp > b->stamp ? -1 : a->stamp < b->stamp;
}

static void check_kernel_order_of(const struct vcase *c, uint32_t key_size)
{
	enum { MAX = 64, N = 102 };
	static const uint32_t replaced[] = { 3, 17, 40, 0 };
	struct space sp = byte_space(c, key_size, 8, N / 2);
	uint32_t stamp[N] = { 0 }, clock = 0; /* 0: absent */
	struct map *m = new_map(c, key_size, 8, MAX);

	for (uint32_t i = 0; i < 48; i++) {
		expect_put(c, m, &sp, i, 0, MAP_NOEXIST, 0);
		stamp[i] = ++clock;
	}
	for (size_t k = 0; k < ARRAY_SIZE(replaced); k++) {
		expect_put(c, m, &sp, replaced[k], 1, MAP_EXIST, 0);
		stamp[replaced[k]] = ++clock;
	}
	expect_delete(c, m, &sp, 5, 0);
	expect_delete(c, m, &sp, 22, 0);
	stamp[5] = stamp[22] = 0;
	for (uint32_t i = 100; i < N; i++) {
		expect_put(c, m, &sp, i, 0, MAP_ANY, 0);
		stamp[i] = ++clock;
	}

	struct stamped want[N];
	uint8_t key[MAX_KV];
	size_t n = 0;
	for (uint32_t i = 0; i < N; i++) {
		if (!stamp[i])
			continue;
		make_key(&sp, i, key);
		want[n].key = i;
		want[n].bucket = map_jhash(key, key_size, 0) & (MAX - 1);
		want[n].stamp = stamp[i];
		n++;
	}
	qsort(want, n, sizeof(want[0]), kernel_order);

	uint8_t prev[MAX_KV], next[MAX_KV];
	for (size_t k = 0; k < n; k++) {
		int err = map_get_next_key(m, k ? prev : NULL, next);
		cr_assert_eq(err, 0, "%s: walk ended after %zu of %zu keys",
			     c->name, k, n);
		long got = key_number(&sp, next);
		cr_assert_eq(got, (long)want[k].key, "%s: key %zu of the walk "
			     "is #%ld, the kernel's is #%u (bucket %u)",
			     c->name, k, got, want[k].key, want[k].bucket);
		memcpy(prev, next, key_size);
	}
	cr_assert_eq(map_get_next_key(m, prev, next), -ENOENT, "%s", c->name);
	map_destroy(m);
}

static void check_kernel_order(const struct vcase *c)
{
	if (!c->ops->faithful)
		return;
	check_kernel_order_of(c, 4);  /* jhash2 in the kernel */
	check_kernel_order_of(c, 13); /* jhash: whole words and a tail */
}

Test(iteration, faithful_zero_seed_order_is_the_kernels)
{
	ON_EVERY_DESIGN(MAP_TYPE_HASH, zero_seed_flag_sets, check_kernel_order);
}

/* --- key and value sizes -------------------------------------------------- */

TestSuite(sizes, .timeout = TEST_TIMEOUT_S);

Test(sizes, keys_and_values_of_1_to_512_bytes)
{
	static const uint32_t flag_sets_chosen_inside[] = { 0 };
	ON_EVERY_DESIGN(MAP_TYPE_HASH, flag_sets_chosen_inside, check_sizes);
}
