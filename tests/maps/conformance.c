/* SPDX-License-Identifier: MIT */
/*
 * conformance.c: see conformance.h.  Every check runs its design through map.h
 * only, with keys and values at odd addresses from buffers freed at once (a
 * design that kept a pointer instead of copying is caught), and guard bytes
 * after each output (a design that writes past key_size or value_size is
 * caught).
 */
#include "tests/maps/conformance.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#define LPM_HEADER 4
#define KEY_MAX (LPM_HEADER + MAX_KV) /* the largest key a check makes */

/* --- designs and cases ------------------------------------------------------ */

static int full_map_error(uint32_t type)
{
	switch (type) {
	case MAP_TYPE_LPM_TRIE: return -ENOSPC;
	case MAP_TYPE_LRU_HASH: return 0;
	default: return -E2BIG;
	}
}

void describe(struct vcase *c, const struct map_ops *ops, uint32_t type,
	      uint32_t flags)
{
	c->ops = ops;
	c->type = type;
	c->flags = flags;
	c->full_err = full_map_error(type);
	snprintf(c->name, sizeof(c->name), "%s [%s%s%s]", ops->name,
		 flags & MAP_F_NO_PREALLOC ? "no_prealloc" : "prealloc",
		 flags & MAP_F_ZERO_SEED ? "|zero_seed" : "",
		 flags & MAP_F_NO_COMMON_LRU ? "|no_common_lru" : "");
}

void run_on_designs(uint32_t type, const uint32_t *flag_sets, size_t n_sets,
		    case_check check)
{
	int designs = 0;

	map_thread_online();
	for (size_t d = 0; map_registry[d]; d++) {
		const struct map_ops *ops = map_registry[d];
		if (ops->type != type)
			continue;
		designs++;
		for (size_t s = 0; s < n_sets; s++) {
			struct vcase c;
			describe(&c, ops, type, flag_sets[s]);
			check(&c);
		}
	}
	map_thread_offline();
	cr_assert_gt(designs, 0, "map_registry[] holds no %s design",
		     map_type_name(type));
}

/*
 * Room for max_entries keys without an eviction.  A map that evicts (an
 * LRU: a full one evicts even for an update that then fails, since the
 * kernel's takes an element before it looks for the key) gets more, and
 * one that evicts early (the kernel's common LRU frees in batches of up to
 * 128 before it is full; its per-CPU LRU gives each cpu a share) twice that
 * per cpu and a batch more, and one that evicts by set 32 times, so checks
 * meant for a map with room see no eviction.  conformance_lru.c tests full maps itself.
 */
static uint32_t room_for(const struct vcase *c, uint32_t max_entries,
			 uint32_t ncpus)
{
	if (c->full_err)
		return max_entries;
	if (!c->ops->evicts_early)
		return max_entries + 1; /* never full: an update finds a free one */
	if (c->ops->evicts_by_set)
		/* 4 sets of 8 a key: that any set sees 9 of n keys is about
		 * n * 0.25^9 / 9! (Poisson), under 1e-8 for n = 1000 */
		return 32 * max_entries + 64;
	uint32_t cpus = ncpus ? ncpus : map_possible_cpus();
	return 2 * max_entries * cpus + 256;
}

struct map *new_map_ncpus(const struct vcase *c, uint32_t key_size,
			  uint32_t value_size, uint32_t max_entries,
			  uint32_t ncpus)
{
	max_entries = room_for(c, max_entries, ncpus);
	struct map_attr attr = {
		.type = c->type,
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

struct map *new_map(const struct vcase *c, uint32_t key_size,
		    uint32_t value_size, uint32_t max_entries)
{
	return new_map_ncpus(c, key_size, value_size, max_entries, 0);
}

void use_slot(unsigned slot)
{
	if (slot == 0) {
		map_cpu_release();
		return;
	}
	int got = map_cpu_claim((int)slot);
	cr_assert_eq(got, (int)slot, "claim cpu slot %u: %d", slot, got);
}

unsigned last_slot(void)
{
	return map_possible_cpus() - 1;
}

/* --- keys and values -------------------------------------------------------- */

static uint32_t header_of(const struct vcase *c)
{
	return c->type == MAP_TYPE_LPM_TRIE ? LPM_HEADER : 0;
}

struct space int_space(const struct vcase *c, uint32_t value_size, uint32_t n)
{
	struct space sp = { .header = header_of(c), .value_size = value_size,
			    .n = n };
	sp.key_size = sp.header + 4;
	return sp;
}

struct space byte_space(const struct vcase *c, uint32_t data_size,
			uint32_t value_size, uint32_t per_set)
{
	struct space sp = { .header = header_of(c), .value_size = value_size,
			    .n = 2 * per_set, .per_set = per_set };
	sp.key_size = sp.header + data_size;
	cr_assert(per_set < 127 && data_size >= 1 && data_size <= MAX_KV &&
		  value_size <= MAX_KV, "bad byte_space");
	for (uint32_t j = 0; j < data_size; j++)
		sp.base[j] = (uint8_t)(0x35 ^ (j * 29));
	return sp;
}

/* An LPM key's data bytes: at most 256 (the kernel's LPM_DATA_SIZE_MAX). */
static uint32_t data_size(const struct vcase *c, uint32_t wanted)
{
	return c->type == MAP_TYPE_LPM_TRIE && wanted > 256 ? 256 : wanted;
}

void make_key(const struct space *sp, uint32_t i, uint8_t *key)
{
	uint32_t data = sp->key_size - sp->header;
	if (sp->header) {
		uint32_t prefixlen = 8 * data;
		memcpy(key, &prefixlen, sp->header);
		key += sp->header;
	}
	if (!sp->per_set) {
		memcpy(key, &i, 4);
		return;
	}
	memcpy(key, sp->base, data);
	if (i % 2 == 0)
		key[data - 1] ^= (uint8_t)(i / 2);
	else
		key[0] ^= (uint8_t)(0x80 | (i / 2));
}

long key_number(const struct space *sp, const uint8_t *key)
{
	const uint8_t *d = key + sp->header;
	uint32_t data = sp->key_size - sp->header;
	uint32_t i;

	if (!sp->per_set) {
		memcpy(&i, d, 4);
	} else {
		uint8_t first = d[0] ^ sp->base[0];
		uint8_t last = d[data - 1] ^ sp->base[data - 1];
		if (data == 1)
			i = first & 0x80 ? 2u * (first & 0x7f) + 1 : 2u * first;
		else
			i = first ? 2u * (first ^ 0x80u) + 1 : 2u * last;
	}
	if (i >= sp->n)
		return -1;
	uint8_t want[KEY_MAX];
	make_key(sp, i, want);
	return memcmp(want, key, sp->key_size) == 0 ? (long)i : -1;
}

/* get_next_key after key number `from` (-1: the first key), as a number
 * (-1 for a key not in sp). */
static int next_number(struct map *m, const struct space *sp, long from,
		       long *next)
{
	uint8_t key[KEY_MAX], out[KEY_MAX];
	if (from >= 0)
		make_key(sp, (uint32_t)from, key);
	int err = map_get_next_key(m, from >= 0 ? key : NULL, out);
	if (!err)
		*next = key_number(sp, out);
	return err;
}

/*
 * A buffer whose data (ODD(b)) starts one byte past an 8-byte boundary,
 * so designs see keys and values at odd addresses, with room for guard
 * bytes after the largest key or value.
 */
struct odd_buf {
	_Alignas(8) uint8_t raw[1 + KEY_MAX + GUARD];
};
#define ODD(b) ((b).raw + 1)

/* Value generation gen of key i: its first 4 bytes differ between keys. */
void make_value(uint32_t value_size, uint32_t i, uint32_t gen,
		       uint8_t *value)
{
	uint32_t x = i * 0x9e3779b1u + gen * 0x85ebca77u + 1;
	for (uint32_t j = 0; j < value_size; j++)
		value[j] = (uint8_t)((x >> (8 * (j & 3))) + (j >> 2) * 37);
}

size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
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

static void expect_same_bytes(const struct vcase *c, const char *what,
			      uint32_t i, const uint8_t *got,
			      const uint8_t *want, uint32_t size)
{
	size_t at = first_difference(got, want, size);
	unsigned g = at < size ? got[at] : 0, w = at < size ? want[at] : 0;
	cr_assert_eq(at, size,
		     "%s: %s of key #%u differs at byte %zu of %u: 0x%02x, "
		     "want 0x%02x", c->name, what, i, at, size, g, w);
}

/*
 * update(key i, value gen, flags) from heap buffers at odd addresses, freed
 * at once: a design that kept a pointer to them instead of copying reads
 * freed memory (AddressSanitizer) or the next call's bytes (lookups).
 */
int put(struct map *m, const struct space *sp, uint32_t i,
	       uint32_t gen, uint64_t flags)
{
	uint8_t *key = malloc(1 + KEY_MAX), *value = malloc(1 + MAX_KV);
	cr_assert(key && value);
	make_key(sp, i, key + 1);
	make_value(sp->value_size, i, gen, value + 1);
	int err = map_update(m, key + 1, value + 1, flags);
	free(key);
	free(value);
	return err;
}

void expect_put(const struct vcase *c, struct map *m,
		       const struct space *sp, uint32_t i, uint32_t gen,
		       uint64_t flags, int want)
{
	int err = put(m, sp, i, gen, flags);
	cr_assert_eq(err, want, "%s: update key #%u flags %#llx: %d, want %d",
		     c->name, i, (unsigned long long)flags, err, want);
}

void expect_delete(const struct vcase *c, struct map *m,
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
void expect_entry(const struct vcase *c, struct map *m,
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
void expect_absent(const struct vcase *c, struct map *m,
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
void expect_walk(const struct vcase *c, struct map *m,
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

bool *new_live(uint32_t n)
{
	bool *live = calloc(n, sizeof(*live));
	cr_assert_not_null(live);
	return live;
}

void check_any_inserts_and_replaces(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, sp.key_size, 8, 16);

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

void check_noexist(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, sp.key_size, 8, 16);

	expect_put(c, m, &sp, 3, 0, MAP_NOEXIST, 0);
	expect_put(c, m, &sp, 3, 1, MAP_NOEXIST, -EEXIST);
	expect_entry(c, m, &sp, 3, 0);
	live[3] = true;
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

void check_exist(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, sp.key_size, 8, 16);

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

void check_bad_update_flags(const struct vcase *c)
{
	static const uint64_t bad[] = {
		3, MAP_F_LOCK, MAP_F_LOCK | MAP_NOEXIST, MAP_F_LOCK | MAP_EXIST,
		8, 16, 1ULL << 32, 1ULL << 63, UINT64_MAX,
	};
	struct space sp = int_space(c, 8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, sp.key_size, 8, 16);

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

void check_absent_keys(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 16);
	struct map *m = new_map(c, sp.key_size, 8, 16);

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

void check_delete_then_lookup(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, sp.key_size, 8, 16);

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

/* lookup returns a pointer into the map: a program writes through it. */
void check_program_lookup(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 16);
	struct map *m = new_map(c, sp.key_size, 8, 16);
	uint8_t want[8], got[8], key[KEY_MAX], absent[KEY_MAX];

	make_key(&sp, 7, key);
	make_key(&sp, 6, absent);
	expect_put(c, m, &sp, 7, 0, MAP_ANY, 0);
	make_value(8, 7, 0, want);

	map_rcu_read_lock();
	uint8_t *p = map_lookup(m, key);
	bool same = p && memcmp(p, want, 8) == 0;
	if (p)
		p[0] ^= 0xff; /* as a BPF program's store into its value */
	void *none = map_lookup(m, absent);
	map_rcu_read_unlock();

	cr_assert_not_null(p, "%s: lookup of a present key: NULL", c->name);
	cr_assert(same, "%s: lookup's pointer does not show the value",
		  c->name);
	cr_assert_null(none, "%s: lookup of an absent key: not NULL", c->name);
	cr_assert_eq(map_lookup_copy(m, key, got), 0, "%s", c->name);
	want[0] ^= 0xff;
	expect_same_bytes(c, "lookup_copy after a write through lookup", 7,
			  got, want, 8);

	expect_put(c, m, &sp, 7, 1, MAP_ANY, 0);
	expect_entry(c, m, &sp, 7, 1);
	map_destroy(m);
}

/* A program's store through a lookup's pointer stays in the key's value
 * while other keys come and go around it, as the kernel's element keeps
 * it until its key is replaced or deleted: inserts that fill the map
 * (tables grow, buckets are copied or split), deletes of half of them,
 * and inserts again. */
void check_write_survives_other_updates(const struct vcase *c)
{
	enum { N = 64, MINE = 7 };
	struct space sp = int_space(c, 8, N);
	struct map *m = new_map(c, sp.key_size, 8, N);
	uint8_t key[KEY_MAX], want[8], got[8];

	make_key(&sp, MINE, key);
	expect_put(c, m, &sp, MINE, 0, MAP_ANY, 0);
	map_rcu_read_lock();
	uint8_t *p = map_lookup(m, key);
	cr_assert_not_null(p, "%s: lookup of a present key: NULL", c->name);
	p[0] ^= 0xff; /* as a BPF program's stores into its value */
	p[7] ^= 0x5a;
	map_rcu_read_unlock();
	make_value(8, MINE, 0, want);
	want[0] ^= 0xff;
	want[7] ^= 0x5a;

	for (uint32_t i = 0; i < N; i++)
		if (i != MINE)
			expect_put(c, m, &sp, i, 0, MAP_NOEXIST, 0);
	for (uint32_t i = 0; i < N; i += 2) /* MINE is odd: it stays */
		expect_delete(c, m, &sp, i, 0);
	for (uint32_t i = 0; i < N; i += 2)
		expect_put(c, m, &sp, i, 1, MAP_NOEXIST, 0);
	cr_assert_eq(map_lookup_copy(m, key, got), 0, "%s", c->name);
	expect_same_bytes(c, "a value written in place, after other keys came "
			  "and went", MINE, got, want, 8);
	map_destroy(m);
}

void check_batch_lookup(const struct vcase *c)
{
	enum { N = 48 }; /* keys 0..N-1, the even ones present */
	static const unsigned batch_sizes[] = { 1, 2, 7, 33, MAP_BATCH_MAX };
	struct space sp = int_space(c, 8, N);
	struct map *m = new_map(c, sp.key_size, 8, N);
	uint8_t *keys = malloc((size_t)MAP_BATCH_MAX * sp.key_size);
	void *values[MAP_BATCH_MAX];
	cr_assert_not_null(keys);
	for (uint32_t i = 0; i < N; i += 2)
		expect_put(c, m, &sp, i, 0, MAP_ANY, 0);
	for (size_t b = 0; b < ARRAY_SIZE(batch_sizes); b++) {
		unsigned n = batch_sizes[b], want_hits = 0;
		/* keys i*5 mod N: present and absent ones mixed */
		for (unsigned i = 0; i < n; i++) {
			make_key(&sp, (i * 5 + b) % N, keys + (size_t)i * sp.key_size);
			want_hits += (i * 5 + b) % N % 2 == 0;
		}
		map_rcu_read_lock();
		unsigned hits = map_lookup_batch(m, keys, n, values);
		for (unsigned i = 0; i < n; i++) {
			void *one = map_lookup(m, keys + (size_t)i * sp.key_size);
			cr_assert_eq(values[i], one, "%s: batch of %u, key %u: %p, "
				     "its lookup %p", c->name, n, (i * 5 + (unsigned)b) % N,
				     values[i], one);
		}
		map_rcu_read_unlock();
		cr_assert_eq(hits, want_hits, "%s: batch of %u: %u hits, want %u",
			     c->name, n, hits, want_hits);
	}
	free(keys);
	map_destroy(m);
}

void check_walk_empty(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 16);
	bool live[16] = { false };
	struct map *m = new_map(c, sp.key_size, 8, 64);
	struct odd_buf next;
	uint8_t absent[KEY_MAX];

	make_key(&sp, 5, absent);
	expect_walk(c, m, &sp, live);
	memset(next.raw, CANARY, sizeof(next.raw));
	int err = map_get_next_key(m, absent, ODD(next));
	cr_assert_eq(err, -ENOENT, "%s: get_next_key(absent) on an empty map: "
		     "%d", c->name, err);
	cr_assert(all_canary(next.raw, sizeof(next.raw)), "%s", c->name);

	expect_put(c, m, &sp, 5, 0, MAP_ANY, 0);
	expect_delete(c, m, &sp, 5, 0);
	expect_walk(c, m, &sp, live);
	map_destroy(m);
}

void check_walk_every_key(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 3000);
	bool *live = new_live(sp.n);
	struct map *m = new_map(c, sp.key_size, 8, 1000);

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

void check_walk_restarts(const struct vcase *c)
{
	static const uint32_t absent[] = { 50, 51, 999, 0xffffffffu };
	struct space sp = int_space(c, 8, 64);
	struct map *m = new_map(c, sp.key_size, 8, 64);
	long first, next;

	for (uint32_t i = 0; i < 50; i++)
		expect_put(c, m, &sp, i, 0, MAP_ANY, 0);
	cr_assert_eq(next_number(m, &sp, -1, &first), 0);
	for (size_t k = 0; k < ARRAY_SIZE(absent); k++) {
		next = -1;
		int err = next_number(m, &sp, absent[k], &next);
		cr_assert_eq(err, 0, "%s: get_next_key(absent %u): %d", c->name,
			     absent[k], err);
		cr_assert_eq(next, first, "%s: get_next_key(absent %u) gave #%ld, "
			     "not the first key #%ld", c->name, absent[k], next,
			     first);
	}

	/* Deleting the first key: asking for its successor restarts at the
	 * new first key. */
	long deleted = first;
	expect_delete(c, m, &sp, (uint32_t)deleted, 0);
	cr_assert_eq(next_number(m, &sp, -1, &first), 0);
	cr_assert_neq(first, deleted, "%s", c->name);
	cr_assert_eq(next_number(m, &sp, deleted, &next), 0);
	cr_assert_eq(next, first, "%s: get_next_key(deleted key) gave #%ld, not "
		     "the first key #%ld", c->name, next, first);

	/* A present key's successor is another present key. */
	for (long i = 0; i < 50; i++) {
		if (i == deleted)
			continue;
		int err = next_number(m, &sp, i, &next);
		if (err == -ENOENT)
			continue; /* the last key */
		cr_assert_eq(err, 0, "%s", c->name);
		cr_assert(next != i && next >= 0 && next < 50 && next != deleted,
			  "%s: get_next_key(#%ld) gave #%ld", c->name, i, next);
	}
	map_destroy(m);
}

void check_walk_after_changes(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 240);
	bool *live = new_live(sp.n);
	uint32_t *gen = calloc(sp.n, sizeof(*gen));
	struct map *m = new_map(c, sp.key_size, 8, 256);

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

/* Deleting whatever key comes first until none is left empties the map. */
void check_drain_by_walk(const struct vcase *c)
{
	struct space sp = int_space(c, 8, 100);
	bool live[100] = { false };
	struct map *m = new_map(c, sp.key_size, 8, 100);
	uint32_t drained = 0;
	long key;
	int err;

	for (uint32_t i = 0; i < 100; i++)
		expect_put(c, m, &sp, i, 0, MAP_ANY, 0);
	while ((err = next_number(m, &sp, -1, &key)) == 0) {
		cr_assert(key >= 0, "%s: walk gave a key never inserted", c->name);
		expect_delete(c, m, &sp, (uint32_t)key, 0);
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

static const uint32_t sizes[] = {
	1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 31, 32, 33, 64, 100, 255, 256,
	511, 512,
};

/* The creation flags the size checks take in turn, per map type. */
static const uint32_t *size_flag_rotation(uint32_t type, size_t *n)
{
	static const uint32_t hash[] = {
		0, MAP_F_NO_PREALLOC, MAP_F_ZERO_SEED,
		MAP_F_NO_PREALLOC | MAP_F_ZERO_SEED,
	};
	/* (a design's own mode flags, as BPF_F_NO_COMMON_LRU, it adds) */
	static const uint32_t lru[] = { 0, MAP_F_ZERO_SEED };
	static const uint32_t lpm[] = { MAP_F_NO_PREALLOC };
	switch (type) {
	case MAP_TYPE_LRU_HASH: *n = ARRAY_SIZE(lru); return lru;
	case MAP_TYPE_LPM_TRIE: *n = ARRAY_SIZE(lpm); return lpm;
	default: *n = ARRAY_SIZE(hash); return hash;
	}
}

/*
 * One map of key_size ks and value_size vs, full with 2 x 16 keys that
 * differ from each other in their last byte or in their first: insert,
 * read back, walk, replace, delete, re-insert.
 */
static void check_one_geometry(const struct vcase *c, uint32_t ks,
			       uint32_t vs)
{
	struct space sp = byte_space(c, ks, vs, 16);
	bool live[32];
	uint32_t gen[32] = { 0 };
	struct map *m = new_map(c, sp.key_size, vs, sp.n);

	for (uint32_t i = 0; i < sp.n; i++) {
		expect_put(c, m, &sp, i, 0, MAP_NOEXIST, 0);
		live[i] = true;
	}
	for (uint32_t i = 0; i < sp.n; i++)
		expect_entry(c, m, &sp, i, 0);
	expect_absent(c, m, &sp, sp.n);     /* last byte differs */
	expect_absent(c, m, &sp, sp.n + 1); /* first byte differs */
	if (c->full_err) { /* a map that evicts is checked by its own suite */
		expect_put(c, m, &sp, sp.n, 0, MAP_ANY, c->full_err);
		expect_put(c, m, &sp, sp.n + 1, 0, MAP_NOEXIST, c->full_err);
	}
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
 * key sizes.  The pairs take the type's flag sets in turn (for a hash:
 * with and without prealloc and zero_seed), so each key size and each
 * value size meets each kind of map.  (Every pair with
 * every flag set would cost a map each: 10 ms or more for a design whose
 * destroy waits for RCU callbacks.)
 */
void check_sizes(const struct vcase *base)
{
	const size_t n = ARRAY_SIZE(sizes);
	size_t pair = 0, n_sets;
	const uint32_t *flag_sets = size_flag_rotation(base->type, &n_sets);

	for (size_t i = 0; i < n; i++) {
		const size_t partners[] = { i, n - 1 - i };
		for (size_t p = 0; p < ARRAY_SIZE(partners); p++, pair++) {
			struct vcase c;
			describe(&c, base->ops, base->type,
				 flag_sets[pair % n_sets]);
			check_one_geometry(&c, data_size(&c, sizes[i]),
					   sizes[partners[p]]);
		}
	}
}
