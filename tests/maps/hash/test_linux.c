/* SPDX-License-Identifier: MIT */
/*
 * hash/linux's own limits, beyond what conformance_hash checks on every
 * hash design: with BPF_F_NO_PREALLOC the kernel takes each element from
 * bpf_mem_alloc, which kmallocs the element (48-byte struct htab_elem, key
 * and value each rounded up to 8) plus its 8-byte free-list link.  Past
 * KMALLOC_MAX_SIZE (4 MiB) that cannot succeed: create accepts the map,
 * but every update that needs an element is -ENOMEM and the map stays
 * empty.  The figures below were measured on the running kernel (6.18,
 * x86-64) by bisecting value_size at which the first insert fails, for
 * each key size; tests/kernel-compare/test_kernel_hash.c replays the same
 * boundary on both sides.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_thread_offline();
}

TestSuite(hash_linux, .init = set_up, .fini = tear_down, .timeout = 60);

/* The largest value_size whose first insert the kernel stores, by key
 * size; one byte more and it answers ENOMEM (measured). */
static const struct {
	uint32_t key_size, last_stored;
} boundary[] = {
	{ 1, 4194240 },  { 4, 4194240 },  { 8, 4194240 },  { 9, 4194232 },
	{ 16, 4194232 }, { 17, 4194224 }, { 40, 4194208 }, { 100, 4194144 },
	{ 512, 4193736 },
};

static struct map *make(uint32_t key_size, uint32_t value_size,
			uint32_t max_entries, uint32_t flags)
{
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = key_size,
			      .value_size = value_size,
			      .max_entries = max_entries,
			      .flags = flags | MAP_F_ZERO_SEED, .ncpus = 1 };
	struct map *m = NULL;
	cr_assert_eq(map_create(map_find("hash/linux"), &a, &m), 0,
		     "key_size %u value_size %u flags %#x", key_size,
		     value_size, flags);
	return m;
}

/* Key number i of key_size bytes. */
static void make_key(uint8_t *key, uint32_t key_size, uint8_t i)
{
	memset(key, 0, key_size);
	key[0] = i;
}

/* The map holds no key at all: lookups miss and the walk finds nothing. */
static void expect_empty(struct map *m, uint32_t key_size, uint8_t *value,
			 const char *what)
{
	uint8_t key[512], next[512];
	for (uint8_t i = 1; i <= 3; i++) {
		make_key(key, key_size, i);
		cr_expect_eq(map_lookup_copy(m, key, value), -ENOENT,
			     "%s: key %u", what, i);
	}
	cr_expect_eq(map_get_next_key(m, NULL, next), -ENOENT, "%s", what);
}

Test(hash_linux, no_prealloc_element_over_kmalloc_max_is_enomem)
{
	uint8_t *value = malloc(4u << 20), *got = malloc(4u << 20);
	cr_assert(value && got);
	uint8_t key[512];

	for (size_t b = 0; b < sizeof(boundary) / sizeof(boundary[0]); b++) {
		uint32_t ks = boundary[b].key_size;
		uint32_t vs = boundary[b].last_stored;

		/* One byte under: stored, replaced (a new element), deleted. */
		struct map *m = make(ks, vs, 2, MAP_F_NO_PREALLOC);
		memset(value, 0xa5, vs);
		make_key(key, ks, 1);
		cr_expect_eq(map_update(m, key, value, MAP_ANY), 0,
			     "key_size %u value_size %u stores", ks, vs);
		value[vs - 1] = 0x5a;
		cr_expect_eq(map_update(m, key, value, MAP_EXIST), 0,
			     "key_size %u value_size %u replaces", ks, vs);
		cr_expect_eq(map_lookup_copy(m, key, got), 0);
		cr_expect(memcmp(got, value, vs) == 0, "the replaced value");
		make_key(key, ks, 2);
		cr_expect_eq(map_update(m, key, value, MAP_NOEXIST), 0);
		make_key(key, ks, 3);
		cr_expect_eq(map_update(m, key, value, MAP_ANY), -E2BIG,
			     "full before out of memory");
		make_key(key, ks, 1);
		cr_expect_eq(map_delete(m, key), 0);
		map_destroy(m);

		/* One byte over: created, but no update finds an element. */
		vs++;
		m = make(ks, vs, 2, MAP_F_NO_PREALLOC);
		memset(value, 0xa5, vs);
		make_key(key, ks, 1);
		cr_expect_eq(map_update(m, key, value, MAP_ANY), -ENOMEM,
			     "key_size %u value_size %u", ks, vs);
		cr_expect_eq(map_update(m, key, value, MAP_NOEXIST), -ENOMEM,
			     "key_size %u value_size %u noexist", ks, vs);
		/* The flags are checked first: nothing to replace. */
		cr_expect_eq(map_update(m, key, value, MAP_EXIST), -ENOENT,
			     "key_size %u value_size %u exist", ks, vs);
		cr_expect_eq(map_update(m, key, value, MAP_EXIST + 1), -EINVAL);
		make_key(key, ks, 2);
		cr_expect_eq(map_update(m, key, value, MAP_ANY), -ENOMEM);
		cr_expect_eq(map_delete(m, key), -ENOENT);
		expect_empty(m, ks, got, "after ENOMEM");
		map_destroy(m);
	}
	free(value);
	free(got);
}

/* Elements that are allocated at create (the default) fit no kmalloc and
 * need none: the kernel stores every size its create accepts. */
Test(hash_linux, preallocated_elements_have_no_kmalloc_limit)
{
	uint32_t vs = 4194241; /* over the limit with no_prealloc, key 4 */
	uint8_t *value = malloc(vs), *got = malloc(vs);
	cr_assert(value && got);
	memset(value, 0x3c, vs);
	struct map *m = make(4, vs, 1, 0);
	uint32_t key = 1;
	cr_expect_eq(map_update(m, &key, value, MAP_ANY), 0);
	cr_expect_eq(map_update(m, &key, value, MAP_ANY), 0, "a replace");
	cr_expect_eq(map_lookup_copy(m, &key, got), 0);
	cr_expect(memcmp(got, value, vs) == 0);
	map_destroy(m);
	free(value);
	free(got);
}
