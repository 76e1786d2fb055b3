/* SPDX-License-Identifier: MIT */
/*
 * conformance_hash.c: what every BPF_MAP_TYPE_HASH design must do.
 *
 * Every test runs on every design in map_registry[] whose type is
 * MAP_TYPE_HASH (a design added to the registry is tested with no change
 * here), preallocated and with BPF_F_NO_PREALLOC, with and without
 * BPF_F_ZERO_SEED.  Passing proves that the design answers as the Linux
 * kernel's hash map does (kernel/bpf/hashtab.c, 6.18; the research notes
 * shared/research/kernel_maps.md, sections 1.2 and 1.5-1.8):
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

#include "maps/common/cpu.h"
#include "maps/common/jhash.h"
#include "maps/common/map.h"
#include "maps/common/rcu.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A design that loops forever fails its test instead of hanging the run. */
#define TEST_TIMEOUT_S 60

/* Largest key or value of the size tests; guard bytes written after one. */
#define MAX_KV 512
#define GUARD 8
#define CANARY 0xEE

/* The kernel's limits on x86-64 (6.18): KMALLOC_MAX_SIZE and
 * sizeof(struct htab_elem); key_size + value_size must stay below their
 * difference (htab_map_alloc_check). */
#define KMALLOC_MAX_SIZE (4u << 20)
#define HTAB_ELEM_SIZE 48u

/* --- the designs and flag sets -------------------------------------------- */

/* One design with one set of creation flags, and its name for messages. */
struct hcase {
	const struct map_ops *ops;
	uint32_t flags;
	char name[96];
};

typedef void (*case_check)(const struct hcase *c);

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

static void describe(struct hcase *c, const struct map_ops *ops,
		     uint32_t flags)
{
	c->ops = ops;
	c->flags = flags;
	snprintf(c->name, sizeof(c->name), "%s [%s%s]", ops->name,
		 flags & MAP_F_NO_PREALLOC ? "no_prealloc" : "prealloc",
		 flags & MAP_F_ZERO_SEED ? "|zero_seed" : "");
}

/* Runs check on every hash design of the registry, once per flag set. */
static void run_on_hash_designs(const uint32_t *flag_sets, size_t n_sets,
				case_check check)
{
	int designs = 0;

	map_thread_online();
	for (size_t d = 0; map_registry[d]; d++) {
		const struct map_ops *ops = map_registry[d];
		if (ops->type != MAP_TYPE_HASH)
			continue;
		designs++;
		for (size_t s = 0; s < n_sets; s++) {
			struct hcase c;
			describe(&c, ops, flag_sets[s]);
			check(&c);
		}
	}
	map_thread_offline();
	cr_assert_gt(designs, 0, "map_registry[] holds no hash design");
}

#define ON_EVERY_HASH_DESIGN(flag_sets, check) \
	run_on_hash_designs(flag_sets, ARRAY_SIZE(flag_sets), check)

static struct map *new_map_ncpus(const struct hcase *c, uint32_t key_size,
				 uint32_t value_size, uint32_t max_entries,
				 uint32_t ncpus)
{
	struct map_attr attr = {
		.type = MAP_TYPE_HASH,
		.key_size = key_size,
		.value_size = value_size,
		.max_entries = max_entries,
		.flags = c->flags,
		.ncpus = ncpus,
	};
	struct map *m = NULL;
	int err = map_create(c->ops, &attr, &m);
	cr_assert_eq(err, 0, "%s: create key %u value %u max_entries %u: %d",
		     c->name, key_size, value_size, max_entries, err);
	cr_assert_not_null(m, "%s: create returned 0 but no map", c->name);
	cr_assert_eq(m->ops, c->ops, "%s: map->ops is not the design",
		     c->name);
	return m;
}

static struct map *new_map(const struct hcase *c, uint32_t key_size,
			   uint32_t value_size, uint32_t max_entries)
{
	return new_map_ncpus(c, key_size, value_size, max_entries, 0);
}

/* Runs the calling thread as cpu slot `slot` (0: no claimed slot). */
static void use_slot(unsigned slot)
{
	if (slot == 0) {
		map_cpu_release();
		return;
	}
	int got = map_cpu_claim((int)slot);
	cr_assert_eq(got, (int)slot, "claim cpu slot %u: %d", slot, got);
}

/* The highest slot a map created with ncpus = 0 serves. */
static unsigned last_slot(void)
{
	return map_possible_cpus() - 1;
}

/* --- keys and values ------------------------------------------------------ */

/*
 * The keys and values one test uses, numbered 0..n-1.
 *
 * per_set == 0: 4-byte keys holding the number (host order).
 * per_set > 0: byte keys of key_size bytes, all equal to base except:
 *   key 2x   has base's LAST byte xor x,         x < per_set
 *   key 2x+1 has base's FIRST byte xor (0x80|x), x < per_set
 * so keys differ in one byte only; keys n and n+1 are absent ones of each
 * kind.  (With key_size 1 both kinds are that one byte; bit 7 tells them
 * apart.)
 */
struct space {
	uint32_t key_size;
	uint32_t value_size;
	uint32_t n;
	uint32_t per_set;
	uint8_t base[MAX_KV];
};

static struct space int_space(uint32_t value_size, uint32_t n)
{
	struct space sp = { .key_size = 4, .value_size = value_size, .n = n };
	return sp;
}

static struct space byte_space(uint32_t key_size, uint32_t value_size,
			       uint32_t per_set)
{
	struct space sp = { .key_size = key_size, .value_size = value_size,
			    .n = 2 * per_set, .per_set = per_set };
	cr_assert(per_set < 127 && key_size >= 1 && key_size <= MAX_KV &&
		  value_size <= MAX_KV, "bad byte_space");
	for (uint32_t j = 0; j < key_size; j++)
		sp.base[j] = (uint8_t)(0x35 ^ (j * 29));
	return sp;
}

static void make_key(const struct space *sp, uint32_t i, uint8_t *key)
{
	if (!sp->per_set) {
		memcpy(key, &i, 4);
		return;
	}
	memcpy(key, sp->base, sp->key_size);
	if (i % 2 == 0)
		key[sp->key_size - 1] ^= (uint8_t)(i / 2);
	else
		key[0] ^= (uint8_t)(0x80 | (i / 2));
}

/* The number of key in sp, or -1 if it is none of keys 0..n-1. */
static long key_number(const struct space *sp, const uint8_t *key)
{
	uint32_t i;

	if (!sp->per_set) {
		memcpy(&i, key, 4);
	} else {
		uint8_t first = key[0] ^ sp->base[0];
		uint8_t last = key[sp->key_size - 1] ^ sp->base[sp->key_size - 1];
		if (sp->key_size == 1)
			i = first & 0x80 ? 2u * (first & 0x7f) + 1 : 2u * first;
		else
			i = first ? 2u * (first ^ 0x80u) + 1 : 2u * last;
	}
	if (i >= sp->n)
		return -1;
	uint8_t want[MAX_KV];
	make_key(sp, i, want);
	return memcmp(want, key, sp->key_size) == 0 ? (long)i : -1;
}

/* Value generation gen of key i: its first 4 bytes differ between keys. */
static void make_value(uint32_t value_size, uint32_t i, uint32_t gen,
		       uint8_t *value)
{
	uint32_t x = i * 0x9e3779b1u + gen * 0x85ebca77u + 1;
	for (uint32_t j = 0; j < value_size; j++)
		value[j] = (uint8_t)((x >> (8 * (j & 3))) + (j >> 2) * 37);
}

/*
 * A buffer whose data (ODD(b)) starts one byte past an 8-byte boundary,
 * so designs see keys and values at odd addresses, with room for guard
 * bytes after MAX_KV bytes.
 */
struct odd_buf {
	_Alignas(8) uint8_t raw[1 + MAX_KV + GUARD];
};
#define ODD(b) ((b).raw + 1)

static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static bool all_canary(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != CANARY)
			return false;
	return true;
}

static void expect_same_bytes(const struct hcase *c, const char *what,
			      uint32_t i, const uint8_t *got,
			      const uint8_t *want, uint32_t size)
{
	size_t at = first_difference(got, want, size);
	unsigned g = at < size ? got[at] : 0, w = at < size ? want[at] : 0;
	cr_assert_eq(at, size,
		     "%s: %s of key #%u differs at byte %zu of %u: 0x%02x, "
		     "want 0x%02x", c->name, what, i, at, size, g, w);
}

/* --- operations, checked -------------------------------------------------- */

/*
 * update(key i, value gen, flags) from heap buffers at odd addresses, freed
 * at once: a design that kept a pointer to them instead of copying reads
 * freed memory (AddressSanitizer) or the next call's bytes (lookups).
 */
static int put(struct map *m, const struct space *sp, uint32_t i,
	       uint32_t gen, uint64_t flags)
{
	uint8_t *key = malloc(1 + MAX_KV), *value = malloc(1 + MAX_KV);
	cr_assert(key && value);
	make_key(sp, i, key + 1);
	make_value(sp->value_size, i, gen, value + 1);
	int err = map_update(m, key + 1, value + 1, flags);
	free(key);
	free(value);
	return err;
}

static void expect_put(const struct hcase *c, struct map *m,
		       const struct space *sp, uint32_t i, uint32_t gen,
		       uint64_t flags, int want)
{
	int err = put(m, sp, i, gen, flags);
	cr_assert_eq(err, want, "%s: update key #%u flags %#llx: %d, want %d",
		     c->name, i, (unsigned long long)flags, err, want);
}

static void expect_delete(const struct hcase *c, struct map *m,
			  const struct space *sp, uint32_t i, int want)
{
	struct odd_buf key;
	make_key(sp, i, ODD(key));
	int err = map_delete(m, ODD(key));
	cr_assert_eq(err, want, "%s: delete key #%u: %d, want %d", c->name, i,
		     err, want);
}

/* Program-style lookup: copies what the returned pointer shows. */
static bool program_lookup(struct map *m, const uint8_t *key, uint8_t *out,
			   uint32_t value_size)
{
	map_rcu_read_lock();
	const uint8_t *p = map_lookup(m, key);
	if (p)
		memcpy(out, p, value_size);
	map_rcu_read_unlock();
	return p != NULL;
}

/* Key i holds value generation gen, seen by both lookups. */
static void expect_entry(const struct hcase *c, struct map *m,
			 const struct space *sp, uint32_t i, uint32_t gen)
{
	struct odd_buf key, got;
	uint8_t want[MAX_KV];

	make_key(sp, i, ODD(key));
	make_value(sp->value_size, i, gen, want);

	memset(got.raw, CANARY, sizeof(got.raw));
	int err = map_lookup_copy(m, ODD(key), ODD(got));
	cr_assert_eq(err, 0, "%s: lookup_copy key #%u: %d, want 0", c->name,
		     i, err);
	expect_same_bytes(c, "lookup_copy", i, ODD(got), want, sp->value_size);
	cr_assert(all_canary(ODD(got) + sp->value_size, GUARD),
		  "%s: lookup_copy key #%u wrote past value_size %u", c->name,
		  i, sp->value_size);

	memset(got.raw, CANARY, sizeof(got.raw));
	bool found = program_lookup(m, ODD(key), ODD(got), sp->value_size);
	cr_assert(found, "%s: lookup key #%u: NULL", c->name, i);
	expect_same_bytes(c, "lookup", i, ODD(got), want, sp->value_size);
}

/* Key i is absent: both lookups say so, and lookup_copy writes nothing. */
static void expect_absent(const struct hcase *c, struct map *m,
			  const struct space *sp, uint32_t i)
{
	struct odd_buf key, got;

	make_key(sp, i, ODD(key));
	memset(got.raw, CANARY, sizeof(got.raw));
	int err = map_lookup_copy(m, ODD(key), ODD(got));
	cr_assert_eq(err, -ENOENT, "%s: lookup_copy absent key #%u: %d, "
		     "want -ENOENT", c->name, i, err);
	cr_assert(all_canary(got.raw, sizeof(got.raw)),
		  "%s: lookup_copy absent key #%u wrote the value buffer",
		  c->name, i);
	bool found = program_lookup(m, ODD(key), ODD(got), sp->value_size);
	cr_assert(!found, "%s: lookup absent key #%u: not NULL", c->name, i);
}

static uint32_t count_live(const bool *live, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		k += live[i];
	return k;
}

/*
 * get_next_key from NULL until -ENOENT returns each key i with live[i]
 * exactly once and nothing else, writing exactly key_size bytes, and the
 * final -ENOENT writes nothing.
 */
static void expect_walk(const struct hcase *c, struct map *m,
			const struct space *sp, const bool *live)
{
	uint32_t want = count_live(live, sp->n), steps = 0;
	bool *seen = calloc(sp->n, sizeof(*seen));
	struct odd_buf prev, next;
	const uint8_t *from = NULL;
	int err;

	cr_assert_not_null(seen);
	for (;;) {
		memset(next.raw, CANARY, sizeof(next.raw));
		err = map_get_next_key(m, from, ODD(next));
		if (err)
			break;
		cr_assert(all_canary(ODD(next) + sp->key_size, GUARD),
			  "%s: get_next_key wrote past key_size %u", c->name,
			  sp->key_size);
		long i = key_number(sp, ODD(next));
		cr_assert_geq(i, 0, "%s: walk returned a key never inserted "
			      "(after %u keys)", c->name, steps);
		cr_assert(live[i], "%s: walk returned key #%ld, not in the map",
			  c->name, i);
		cr_assert(!seen[i], "%s: walk returned key #%ld twice", c->name,
			  i);
		seen[i] = true;
		steps++;
		memcpy(ODD(prev), ODD(next), sp->key_size);
		from = ODD(prev);
	}
	cr_assert_eq(err, -ENOENT, "%s: get_next_key after %u keys: %d, want "
		     "-ENOENT", c->name, steps, err);
	cr_assert(all_canary(next.raw, sizeof(next.raw)),
		  "%s: get_next_key returning -ENOENT wrote the key buffer",
		  c->name);
	cr_assert_eq(steps, want, "%s: walk saw %u keys, want %u", c->name,
		     steps, want);
	free(seen);
}

static bool *new_live(uint32_t n)
{
	bool *live = calloc(n, sizeof(*live));
	cr_assert_not_null(live);
	return live;
}

/* --- registry ------------------------------------------------------------- */

static void check_design_is_complete(const struct hcase *c)
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
	ON_EVERY_HASH_DESIGN(no_flags, check_design_is_complete);
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

static void check_create_rejects(const struct hcase *c)
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
	ON_EVERY_HASH_DESIGN(every_flag_set, check_create_rejects);
}

static void expect_attr_kept(const struct hcase *c, const struct map *m,
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

static void expect_create_keeps(const struct hcase *c,
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

static void check_create_accepts(const struct hcase *c)
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
	ON_EVERY_HASH_DESIGN(every_flag_set, check_create_accepts);
}

/* The largest key + value the kernel accepts works end to end. */
static void check_largest_element(const struct hcase *c)
{
	uint32_t value_size = KMALLOC_MAX_SIZE - HTAB_ELEM_SIZE - 4 - 1;
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
	ON_EVERY_HASH_DESIGN(every_flag_set, check_largest_element);
}

/* Capacity is max_entries whatever the number of cpu slots. */
static void check_capacity_for_ncpus(const struct hcase *c)
{
	static const uint32_t ncpus[] = { 1, 3, 64 };
	struct space sp = int_space(8, 8);

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
	ON_EVERY_HASH_DESIGN(every_flag_set, check_capacity_for_ncpus);
}

static void check_maps_are_independent(const struct hcase *c)
{
	struct space sp = int_space(8, 4);
	struct map *a = new_map(c, 4, 8, 4), *b = new_map(c, 4, 8, 4);
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
	ON_EVERY_HASH_DESIGN(every_flag_set, check_maps_are_independent);
}

/* --- update flags --------------------------------------------------------- */

static void check_any_inserts_and_replaces(const struct hcase *c)
{
	struct space sp = int_space(8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, 4, 8, 16);

	expect_absent(c, m, &sp, 3);
	expect_put(c, m, &sp, 3, 0, MAP_ANY, 0);
	expect_entry(c, m, &sp, 3, 0);
	expect_put(c, m, &sp, 3, 1, MAP_ANY, 0);
	expect_entry(c, m, &sp, 3, 1);
	live[3] = true;
	expect_walk(c, m, &sp, live); /* a replace adds no key */
	expect_put(c, m, &sp, 5, 0, MAP_ANY, 0);
	live[5] = true;
	expect_entry(c, m, &sp, 3, 1);
	expect_entry(c, m, &sp, 5, 0);
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

TestSuite(update, .timeout = TEST_TIMEOUT_S);

Test(update, any_inserts_and_replaces)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_any_inserts_and_replaces);
}

static void check_noexist(const struct hcase *c)
{
	struct space sp = int_space(8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, 4, 8, 16);

	expect_put(c, m, &sp, 3, 0, MAP_NOEXIST, 0);
	expect_put(c, m, &sp, 3, 1, MAP_NOEXIST, -EEXIST);
	expect_entry(c, m, &sp, 3, 0);
	live[3] = true;
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

Test(update, noexist_on_a_present_key_is_eexist)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_noexist);
}

static void check_exist(const struct hcase *c)
{
	struct space sp = int_space(8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, 4, 8, 16);

	expect_put(c, m, &sp, 4, 0, MAP_EXIST, -ENOENT);
	expect_absent(c, m, &sp, 4);
	expect_walk(c, m, &sp, live);
	expect_put(c, m, &sp, 4, 0, MAP_ANY, 0);
	expect_put(c, m, &sp, 4, 1, MAP_EXIST, 0);
	expect_entry(c, m, &sp, 4, 1);
	expect_put(c, m, &sp, 6, 0, MAP_EXIST, -ENOENT);
	expect_absent(c, m, &sp, 6);
	live[4] = true;
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

Test(update, exist_on_an_absent_key_is_enoent)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_exist);
}

static void check_bad_update_flags(const struct hcase *c)
{
	static const uint64_t bad[] = {
		3, MAP_F_LOCK, MAP_F_LOCK | MAP_NOEXIST, MAP_F_LOCK | MAP_EXIST,
		8, 16, 1ULL << 32, 1ULL << 63, UINT64_MAX,
	};
	struct space sp = int_space(8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, 4, 8, 16);

	expect_put(c, m, &sp, 1, 0, MAP_ANY, 0);
	live[1] = true;
	for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
		expect_put(c, m, &sp, 1, 1, bad[k], -EINVAL);
		expect_entry(c, m, &sp, 1, 0);
		expect_put(c, m, &sp, 2, 1, bad[k], -EINVAL);
		expect_absent(c, m, &sp, 2);
	}
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

Test(update, other_flags_are_einval_and_change_nothing)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_bad_update_flags);
}

/* --- a full map ----------------------------------------------------------- */

static void check_full_map_of(const struct hcase *c, uint32_t max)
{
	struct space sp = int_space(8, 2 * max + 2);
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

static void check_full_maps(const struct hcase *c)
{
	static const uint32_t sizes[] = { 1, 7, 64, 1000 };
	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++)
		check_full_map_of(c, sizes[k]);
}

TestSuite(full, .timeout = TEST_TIMEOUT_S);

Test(full, exactly_max_entries_fit)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_full_maps);
}

/* --- lookup and delete ---------------------------------------------------- */

static void check_absent_keys(const struct hcase *c)
{
	struct space sp = int_space(8, 16);
	struct map *m = new_map(c, 4, 8, 16);

	for (uint32_t i = 0; i < 4; i++) {
		expect_absent(c, m, &sp, i);
		expect_delete(c, m, &sp, i, -ENOENT);
	}
	expect_put(c, m, &sp, 1, 0, MAP_ANY, 0);
	expect_put(c, m, &sp, 2, 0, MAP_ANY, 0);
	expect_absent(c, m, &sp, 3);
	expect_delete(c, m, &sp, 3, -ENOENT);
	expect_entry(c, m, &sp, 1, 0);
	expect_entry(c, m, &sp, 2, 0);
	map_destroy(m);
}

TestSuite(lookup, .timeout = TEST_TIMEOUT_S);

Test(lookup, absent_keys_are_enoent)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_absent_keys);
}

static void check_delete_then_lookup(const struct hcase *c)
{
	struct space sp = int_space(8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, 4, 8, 16);

	for (uint32_t i = 1; i <= 8; i++) {
		expect_put(c, m, &sp, i, 0, MAP_ANY, 0);
		live[i] = true;
	}
	expect_delete(c, m, &sp, 4, 0);
	live[4] = false;
	expect_absent(c, m, &sp, 4);
	expect_delete(c, m, &sp, 4, -ENOENT);
	expect_put(c, m, &sp, 4, 0, MAP_EXIST, -ENOENT);
	for (uint32_t i = 1; i <= 8; i++)
		if (live[i])
			expect_entry(c, m, &sp, i, 0);
	expect_walk(c, m, &sp, live);
	expect_put(c, m, &sp, 4, 1, MAP_NOEXIST, 0);
	live[4] = true;
	expect_entry(c, m, &sp, 4, 1);
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

Test(lookup, delete_then_lookup_is_enoent)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_delete_then_lookup);
}

/* lookup returns a pointer into the map: a program writes through it. */
static void check_program_lookup(const struct hcase *c)
{
	struct space sp = int_space(8, 16);
	struct map *m = new_map(c, 4, 8, 16);
	uint8_t want[8], got[8];
	uint32_t key = 7, absent = 6;

	expect_put(c, m, &sp, 7, 0, MAP_ANY, 0);
	make_value(8, 7, 0, want);

	map_rcu_read_lock();
	uint8_t *p = map_lookup(m, &key);
	bool same = p && memcmp(p, want, 8) == 0;
	if (p)
		p[0] ^= 0xff; /* as a BPF program's store into its value */
	void *none = map_lookup(m, &absent);
	map_rcu_read_unlock();

	cr_assert_not_null(p, "%s: lookup of a present key: NULL", c->name);
	cr_assert(same, "%s: lookup's pointer does not show the value",
		  c->name);
	cr_assert_null(none, "%s: lookup of an absent key: not NULL", c->name);
	cr_assert_eq(map_lookup_copy(m, &key, got), 0, "%s", c->name);
	want[0] ^= 0xff;
	expect_same_bytes(c, "lookup_copy after a write through lookup", 7,
			  got, want, 8);

	expect_put(c, m, &sp, 7, 1, MAP_ANY, 0);
	expect_entry(c, m, &sp, 7, 1);
	map_destroy(m);
}

Test(lookup, program_lookup_points_at_the_value)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_program_lookup);
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

static void check_colliding_keys(const struct hcase *c)
{
	enum { KEYS = 1 << 18 };
	uint32_t a = 0, b = 0;
	find_jhash_collision(&a, &b, KEYS);

	struct space sp = int_space(8, KEYS);
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
	ON_EVERY_HASH_DESIGN(zero_seed_flag_sets, check_colliding_keys);
}

/* --- iteration ------------------------------------------------------------ */

static void check_walk_empty(const struct hcase *c)
{
	struct space sp = int_space(8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, 4, 8, 64);
	struct odd_buf next;
	uint32_t absent = 5;

	expect_walk(c, m, &sp, live);
	memset(next.raw, CANARY, sizeof(next.raw));
	int err = map_get_next_key(m, &absent, ODD(next));
	cr_assert_eq(err, -ENOENT, "%s: get_next_key(absent) on an empty map: "
		     "%d", c->name, err);
	cr_assert(all_canary(next.raw, sizeof(next.raw)), "%s", c->name);

	expect_put(c, m, &sp, 5, 0, MAP_ANY, 0);
	expect_delete(c, m, &sp, 5, 0);
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

TestSuite(iteration, .timeout = TEST_TIMEOUT_S);

Test(iteration, empty_map_has_no_first_key)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_walk_empty);
}

static void check_walk_every_key(const struct hcase *c)
{
	struct space sp = int_space(8, 3000);
	bool *live = new_live(sp.n);
	struct map *m = new_map(c, 4, 8, 1000);

	for (uint32_t j = 0; j < 1000; j++) {
		if (j == 300)
			expect_walk(c, m, &sp, live); /* partly full */
		expect_put(c, m, &sp, 3 * j, 0, MAP_NOEXIST, 0);
		live[3 * j] = true;
	}
	expect_walk(c, m, &sp, live); /* full */
	map_destroy(m);
	free(live);
}

Test(iteration, walk_returns_every_key_once)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_walk_every_key);
}

/* The key get_next_key gives after `from` (NULL: the first). */
static int next_key_after(struct map *m, const uint32_t *from, uint32_t *next)
{
	return map_get_next_key(m, from, next);
}

static void check_walk_restarts(const struct hcase *c)
{
	static const uint32_t absent[] = { 50, 51, 999, 0xffffffffu };
	struct space sp = int_space(8, 64);
	struct map *m = new_map(c, 4, 8, 64);
	uint32_t first, next;

	for (uint32_t i = 0; i < 50; i++)
		expect_put(c, m, &sp, i, 0, MAP_ANY, 0);
	cr_assert_eq(next_key_after(m, NULL, &first), 0);
	for (size_t k = 0; k < ARRAY_SIZE(absent); k++) {
		next = 0xdeadbeef;
		int err = next_key_after(m, &absent[k], &next);
		cr_assert_eq(err, 0, "%s: get_next_key(absent %u): %d", c->name,
			     absent[k], err);
		cr_assert_eq(next, first, "%s: get_next_key(absent %u) gave %u, "
			     "not the first key %u", c->name, absent[k], next,
			     first);
	}

	/* Deleting the first key: asking for its successor restarts at the
	 * new first key. */
	uint32_t deleted = first;
	expect_delete(c, m, &sp, deleted, 0);
	cr_assert_eq(next_key_after(m, NULL, &first), 0);
	cr_assert_neq(first, deleted, "%s", c->name);
	cr_assert_eq(next_key_after(m, &deleted, &next), 0);
	cr_assert_eq(next, first, "%s: get_next_key(deleted key) gave %u, not "
		     "the first key %u", c->name, next, first);

	/* A present key's successor is another present key. */
	for (uint32_t i = 0; i < 50; i++) {
		if (i == deleted)
			continue;
		int err = next_key_after(m, &i, &next);
		if (err == -ENOENT)
			continue; /* the last key */
		cr_assert_eq(err, 0, "%s", c->name);
		cr_assert(next != i && next < 50 && next != deleted,
			  "%s: get_next_key(%u) gave %u", c->name, i, next);
	}
	map_destroy(m);
}

Test(iteration, absent_key_restarts_the_walk)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_walk_restarts);
}

static void check_walk_after_changes(const struct hcase *c)
{
	struct space sp = int_space(8, 240);
	bool *live = new_live(sp.n);
	uint32_t *gen = calloc(sp.n, sizeof(*gen));
	struct map *m = new_map(c, 4, 8, 256);

	cr_assert_not_null(gen);
	for (uint32_t i = 0; i < 200; i++) {
		expect_put(c, m, &sp, i, 0, MAP_NOEXIST, 0);
		live[i] = true;
	}
	for (uint32_t i = 0; i < 200; i += 3) {
		expect_delete(c, m, &sp, i, 0);
		live[i] = false;
	}
	for (uint32_t i = 0; i < 200; i += 5) {
		if (i % 2) { /* replace only: the deleted stay deleted */
			expect_put(c, m, &sp, i, 1, MAP_EXIST,
				   live[i] ? 0 : -ENOENT);
		} else {     /* replace, or insert again if deleted */
			expect_put(c, m, &sp, i, 1, MAP_ANY, 0);
			live[i] = true;
		}
		gen[i] = 1;
	}
	for (uint32_t i = 200; i < 240; i++) {
		expect_put(c, m, &sp, i, 2, MAP_NOEXIST, 0);
		live[i] = true;
		gen[i] = 2;
	}
	for (uint32_t i = 0; i < sp.n; i++) {
		if (live[i])
			expect_entry(c, m, &sp, i, gen[i]);
		else
			expect_absent(c, m, &sp, i);
	}
	expect_walk(c, m, &sp, live);
	map_destroy(m);
	free(gen);
	free(live);
}

Test(iteration, walk_follows_deletes_and_replaces)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_walk_after_changes);
}

/* Deleting whatever key comes first until none is left empties the map. */
static void check_drain_by_walk(const struct hcase *c)
{
	struct space sp = int_space(8, 100);
	bool live[100] = { false };
	struct map *m = new_map(c, 4, 8, 100);
	uint32_t key, drained = 0;
	int err;

	for (uint32_t i = 0; i < 100; i++)
		expect_put(c, m, &sp, i, 0, MAP_ANY, 0);
	while ((err = next_key_after(m, NULL, &key)) == 0) {
		cr_assert_lt(key, 100u, "%s: walk gave unknown key %u", c->name,
			     key);
		expect_delete(c, m, &sp, key, 0);
		drained++;
		cr_assert_leq(drained, 100u, "%s", c->name);
	}
	cr_assert_eq(err, -ENOENT, "%s", c->name);
	cr_assert_eq(drained, 100u, "%s: drained %u keys", c->name, drained);
	for (uint32_t i = 0; i < 100; i++)
		expect_absent(c, m, &sp, i);
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

Test(iteration, delete_first_key_until_empty)
{
	ON_EVERY_HASH_DESIGN(every_flag_set, check_drain_by_walk);
}

/*
 * Kernel-faithful designs with BPF_F_ZERO_SEED: the walk is bucket by
 * bucket (jhash(key, key_size, 0) & (n_buckets - 1), n_buckets =
 * roundup_pow_of_two(max_entries)), newest insert or replace first within
 * a bucket (research notes 1.3, 1.5, 1.8).
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

static void check_kernel_order_of(const struct hcase *c, uint32_t key_size)
{
	enum { MAX = 64, N = 102 };
	static const uint32_t replaced[] = { 3, 17, 40, 0 };
	struct space sp = byte_space(key_size, 8, N / 2);
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

static void check_kernel_order(const struct hcase *c)
{
	if (!c->ops->faithful)
		return;
	check_kernel_order_of(c, 4);  /* jhash2 in the kernel */
	check_kernel_order_of(c, 13); /* jhash: whole words and a tail */
}

Test(iteration, faithful_zero_seed_order_is_the_kernels)
{
	ON_EVERY_HASH_DESIGN(zero_seed_flag_sets, check_kernel_order);
}

/* --- key and value sizes -------------------------------------------------- */

static const uint32_t sizes[] = {
	1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 31, 32, 33, 64, 100, 255, 256,
	511, 512,
};

/*
 * One map of key_size ks and value_size vs, full with 2 x 16 keys that
 * differ from each other in their last byte or in their first: insert,
 * read back, walk, replace, delete, re-insert.
 */
static void check_one_geometry(const struct hcase *c, uint32_t ks,
			       uint32_t vs)
{
	struct space sp = byte_space(ks, vs, 16);
	bool live[32];
	uint32_t gen[32] = { 0 };
	struct map *m = new_map(c, ks, vs, sp.n);

	for (uint32_t i = 0; i < sp.n; i++) {
		expect_put(c, m, &sp, i, 0, MAP_NOEXIST, 0);
		live[i] = true;
	}
	for (uint32_t i = 0; i < sp.n; i++)
		expect_entry(c, m, &sp, i, 0);
	expect_absent(c, m, &sp, sp.n);     /* last byte differs */
	expect_absent(c, m, &sp, sp.n + 1); /* first byte differs */
	expect_put(c, m, &sp, sp.n, 0, MAP_ANY, -E2BIG);
	expect_put(c, m, &sp, sp.n + 1, 0, MAP_NOEXIST, -E2BIG);
	expect_put(c, m, &sp, sp.n, 0, MAP_EXIST, -ENOENT);
	expect_walk(c, m, &sp, live);

	for (uint32_t i = 1; i < sp.n; i += 2) {
		expect_put(c, m, &sp, i, 1, MAP_EXIST, 0);
		gen[i] = 1;
	}
	for (uint32_t i = 0; i < sp.n; i += 4) {
		expect_delete(c, m, &sp, i, 0);
		live[i] = false;
	}
	for (uint32_t i = 0; i < sp.n; i++) {
		if (live[i]) {
			expect_entry(c, m, &sp, i, gen[i]);
		} else {
			expect_absent(c, m, &sp, i);
			expect_delete(c, m, &sp, i, -ENOENT);
		}
	}
	expect_walk(c, m, &sp, live);

	for (uint32_t i = 0; i < sp.n; i += 4) {
		expect_put(c, m, &sp, i, 2, MAP_NOEXIST, 0);
		live[i] = true;
		gen[i] = 2;
	}
	for (uint32_t i = 0; i < sp.n; i++)
		expect_entry(c, m, &sp, i, gen[i]);
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

/*
 * Every key size with two value sizes, the same index and the mirrored one
 * (1 with 1 and 512, 512 with 512 and 1, ...), so every value size with two
 * key sizes.  The pairs take the four flag sets in turn, so each key size
 * and each value size runs both preallocated and not.  (Every pair with
 * every flag set would cost a map each: 10 ms or more for a design whose
 * destroy waits for RCU callbacks.)
 */
static void check_sizes(const struct hcase *base)
{
	const size_t n = ARRAY_SIZE(sizes);
	size_t pair = 0;

	for (size_t i = 0; i < n; i++) {
		const size_t partners[] = { i, n - 1 - i };
		for (size_t p = 0; p < ARRAY_SIZE(partners); p++, pair++) {
			struct hcase c;
			describe(&c, base->ops,
				 every_flag_set[pair % ARRAY_SIZE(every_flag_set)]);
			check_one_geometry(&c, sizes[i], sizes[partners[p]]);
		}
	}
}

TestSuite(sizes, .timeout = TEST_TIMEOUT_S);

Test(sizes, keys_and_values_of_1_to_512_bytes)
{
	static const uint32_t flag_sets_chosen_inside[] = { 0 };
	ON_EVERY_HASH_DESIGN(flag_sets_chosen_inside, check_sizes);
}
