/* SPDX-License-Identifier: MIT */
/*
 * Conformance of every LPM-trie design (maps/lpm_trie/) to the kernel's
 * BPF_MAP_TYPE_LPM_TRIE semantics (kernel/bpf/lpm_trie.c, 6.18), through
 * map.h only: creation checks and their errno; the update flags; -ENOSPC
 * when full, a replace still allowed; longest-prefix lookups, bounded by
 * the key's own prefix length; a prefix length beyond the data's bits
 * (update and delete -EINVAL, lookup -ENOENT, get_next_key the first key);
 * trailing bits kept as given; and the shared checks of conformance.c (every
 * key once per walk, values, sizes).  Then, against a reference model (a
 * list of prefixes scanned for the longest match, as the kernel
 * selftests' tlpm): /0 keys; walks of nested shapes, get_next_key from a
 * key given with other trailing bits going on from that key; every
 * lookup around thirteen nested prefixes of one address; and thousands of
 * random updates, deletes and lookups for 1-, 4- and 16-byte data, each
 * answer compared with the model's.  The order of get_next_key is each
 * design's own; lpm_trie/linux's (the kernel's post-order) is checked in
 * tests/maps/lpm_trie/test_linux.c and against the kernel itself.  A
 * design over a table of fixed geometry (lpm_trie/dpdk: IPv4 and IPv6) is
 * skipped, with the reason, where a check needs a map it cannot make
 * (design_limits below).
 */
#include "tests/maps/conformance.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/rcu.h"

static const uint32_t lpm_flag_sets[] = { MAP_F_NO_PREALLOC };

/* --- what a design cannot hold ---------------------------------------------
 *
 * A design that is an adapter over a table with fixed geometry takes only
 * some of the maps the kernel takes, and refuses the rest at create
 * (-EINVAL or -E2BIG, with a message), never faking them.  Each check
 * below that needs another key size or a larger max_entries skips such a
 * design for that part, says so with the reason, and runs the rest.
 */
struct design_limit {
	const char *design;
	struct {
		uint32_t key_size;    /* a key size it takes */
		uint32_t max_entries; /* the most it takes of that size */
	} takes[3];
	const char *why;
};

static const struct design_limit design_limits[] = {
	{ "lpm_trie/dpdk", { { 8, 1u << 20 }, { 20, 1u << 14 } },
	  "an adapter over DPDK's rte_fib and rte_fib6: IPv4 keys (key_size "
	  "8, max_entries at most 2^20) and IPv6 keys (key_size 20, at most "
	  "2^14), tbl8 groups sized for every prefix; maps/lpm_trie/dpdk.c" },
	{ "lpm_trie/lctrie", { { 5, UINT32_MAX }, { 8, UINT32_MAX },
			       { 20, UINT32_MAX } },
	  "keys as 128-bit numbers: data of 1 to 16 bytes (key_size 5 to "
	  "20); maps/lpm_trie/lctrie.c" },
};

static const struct design_limit *limit_of(const struct vcase *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(design_limits); i++)
		if (!strcmp(c->ops->name, design_limits[i].design))
			return &design_limits[i];
	return NULL;
}

/* Does c's design take such a map?  If not, say what is skipped, why. */
static bool design_takes(const struct vcase *c, uint32_t key_size,
			 uint32_t max_entries, const char *what)
{
	const struct design_limit *l = limit_of(c);
	if (!l)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(l->takes); i++)
		if (key_size == l->takes[i].key_size &&
		    max_entries <= l->takes[i].max_entries)
			return true;
	cr_log_info("%s: skipped %s (key_size %u, max_entries %u): %s",
		    c->name, what, key_size, max_entries, l->why);
	return false;
}

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
			if (!design_takes(c, sizes[s][0], sizes[s][2],
					  "a create the kernel accepts"))
				break; /* said once for every flag */
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
			check_any_inserts_and_replaces);
}

Test(shared, noexist_and_exist)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_noexist);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_exist);
}

Test(shared, other_flags_are_einval)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_bad_update_flags);
}

Test(shared, lookups)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_absent_keys);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_delete_then_lookup);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_program_lookup);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_batch_lookup);
}

Test(shared, walks)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_walk_empty);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_walk_every_key);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_walk_after_changes);
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_drain_by_walk);
}

/* Data of 1 to 256 bytes: for designs that take every key size. */
static void check_sizes_of_any_key(const struct vcase *c)
{
	if (design_takes(c, 4 + 1, 16, "keys and values of every size") &&
	    design_takes(c, 4 + 256, 16, "keys and values of every size"))
		check_sizes(c);
}

Test(shared, sizes)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_sizes_of_any_key);
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

/* --- a reference model: a list of prefixes, scanned ---------------------------
 *
 * After the kernel selftests' tlpm (map_tests/lpm_trie_map_basic_ops.c): the
 * stored prefixes in an array, the longest match by a linear scan.  A
 * design's every answer is compared with it: lookup (both kinds), update
 * and delete errors, and walks (every key once, its bytes as stored, and
 * get_next_key from a key given with other trailing bits going on from
 * that key, since the key is its prefix).  Values are unique, and name
 * the prefix that answered in their low 16 bits.
 */

#define REF_DATA_MAX 16 /* the widest keys here: 20 bytes */
#define REF_MAX 256

struct lkey {
	uint32_t prefixlen;
	uint8_t data[REF_DATA_MAX];
};

struct ref_entry {
	struct lkey key; /* as last given: trailing bits included */
	uint64_t value;
};

struct ref {
	uint32_t data_size, max_entries, n;
	struct ref_entry e[REF_MAX];
};

static unsigned bit_at(const uint8_t *data, uint32_t i)
{
	return data[i / 8] >> (7 - i % 8) & 1;
}

/* The first n bits of a and b are equal. */
static bool same_bits(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (bit_at(a, i) != bit_at(b, i))
			return false;
	return true;
}

static uint32_t max_len(const struct ref *r)
{
	return 8 * r->data_size;
}

/* The entry that is k's prefix (the same length and bits), or -1. */
static long ref_find(const struct ref *r, const struct lkey *k)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->e[i].key.prefixlen == k->prefixlen &&
		    same_bits(r->e[i].key.data, k->data, k->prefixlen))
			return i;
	return -1;
}

/* The longest stored prefix no longer than k's that covers k, or -1. */
static long ref_match(const struct ref *r, const struct lkey *k)
{
	long best = -1;
	if (k->prefixlen > max_len(r))
		return -1;
	for (uint32_t i = 0; i < r->n; i++) {
		const struct lkey *p = &r->e[i].key;
		if (p->prefixlen <= k->prefixlen &&
		    (best < 0 || p->prefixlen > r->e[best].key.prefixlen) &&
		    same_bits(p->data, k->data, p->prefixlen))
			best = i;
	}
	return best;
}

/* "/len hexbytes", for messages. */
static const char *key_text(const struct ref *r, const struct lkey *k,
			    char buf[64])
{
	int at = snprintf(buf, 64, "/%u ", k->prefixlen);
	for (uint32_t i = 0; i < r->data_size && at < 60; i++)
		at += snprintf(buf + at, 64 - at, "%02x", k->data[i]);
	return buf;
}

/* k with every bit past its prefix length inverted: the same key. */
static struct lkey other_trailing_bits(const struct ref *r,
				       const struct lkey *k)
{
	struct lkey o = *k;
	for (uint32_t i = k->prefixlen; i < max_len(r); i++)
		o.data[i / 8] ^= (uint8_t)(0x80u >> (i % 8));
	return o;
}

static struct map *new_ref_map(const struct vcase *c, struct ref *r,
			       uint32_t data_size, uint32_t max_entries)
{
	cr_assert(data_size <= REF_DATA_MAX && max_entries <= REF_MAX);
	r->data_size = data_size;
	r->max_entries = max_entries;
	r->n = 0;
	return new_map(c, 4 + data_size, sizeof(uint64_t), max_entries);
}

/* Both lookups of k agree with the model. */
static void expect_lookup(const struct vcase *c, struct map *m,
			  const struct ref *r, const struct lkey *k)
{
	char kb[64], pb[64];
	long want = ref_match(r, k);
	uint64_t got = 0;
	int err = map_lookup_copy(m, k, &got);
	if (want < 0) {
		cr_assert_eq(err, -ENOENT, "%s: lookup %s: %d (value of /%u), "
			     "want ENOENT: no stored prefix covers it", c->name,
			     key_text(r, k, kb), err, (unsigned)(got & 0xffff));
	} else {
		const struct ref_entry *e = &r->e[want];
		cr_assert_eq(err, 0, "%s: lookup %s: %d, want %s", c->name,
			     key_text(r, k, kb), err, key_text(r, &e->key, pb));
		cr_assert_eq(got, e->value, "%s: lookup %s answered /%u, want %s",
			     c->name, key_text(r, k, kb),
			     (unsigned)(got & 0xffff), key_text(r, &e->key, pb));
	}
	map_rcu_read_lock();
	const uint64_t *v = map_lookup(m, k);
	uint64_t seen = 0;
	if (v)
		memcpy(&seen, v, sizeof(seen));
	map_rcu_read_unlock();
	cr_assert_eq(v != NULL, want >= 0, "%s: program lookup %s: %s",
		     c->name, key_text(r, k, kb), v ? "hit" : "miss");
	if (v)
		cr_assert_eq(seen, r->e[want].value,
			     "%s: program lookup %s answered /%u", c->name,
			     key_text(r, k, kb), (unsigned)(seen & 0xffff));
}

/* Update k as the model says the kernel answers: the error, and the model
 * changed to match. */
static void ref_update(const struct vcase *c, struct map *m, struct ref *r,
		       const struct lkey *k, uint64_t value, uint64_t flags)
{
	char kb[64];
	long i = ref_find(r, k);
	int want;
	if (i >= 0)
		want = flags == MAP_NOEXIST ? -EEXIST : 0;
	else if (flags == MAP_EXIST)
		want = -ENOENT;
	else if (r->n == r->max_entries)
		want = -ENOSPC;
	else
		want = 0;
	int err = map_update(m, k, &value, flags);
	cr_assert_eq(err, want, "%s: update %s flags %llu with %u keys: %d, "
		     "want %d", c->name, key_text(r, k, kb),
		     (unsigned long long)flags, r->n, err, want);
	if (err)
		return;
	if (i < 0)
		i = r->n++;
	r->e[i] = (struct ref_entry){ *k, value };
}

static void ref_delete(const struct vcase *c, struct map *m, struct ref *r,
		       const struct lkey *k)
{
	char kb[64];
	long i = ref_find(r, k);
	int err = map_delete(m, k);
	cr_assert_eq(err, i >= 0 ? 0 : -ENOENT, "%s: delete %s: %d", c->name,
		     key_text(r, k, kb), err);
	if (i >= 0)
		r->e[i] = r->e[--r->n];
}

/* Value for the serial-th write of k: unique, and naming k's length. */
static uint64_t value_of(uint64_t serial, const struct lkey *k)
{
	return serial << 16 | k->prefixlen;
}

/*
 * get_next_key from NULL meets every stored key once and nothing else,
 * with its bytes as stored; from each key given with other trailing bits
 * it answers what it answers from the stored bytes (the same key, so the
 * walk goes on from it); and from a key not in the map (absent, when
 * given) it starts again at the first key (map.h).
 */
static void expect_walk_of(const struct vcase *c, struct map *m,
			   const struct ref *r, const struct lkey *absent)
{
	char kb[64];
	bool seen[REF_MAX] = { false };
	struct lkey first, k, next, alt_next;
	uint32_t count = 0;
	int err = map_get_next_key(m, NULL, &first);
	size_t kbytes = 4 + r->data_size;

	next = first;
	while (err == 0) {
		cr_assert_lt(count, r->n, "%s: the walk goes on past %u keys",
			     c->name, r->n);
		long i = ref_find(r, &next);
		cr_assert_geq(i, 0, "%s: the walk met %s, which is no key",
			      c->name, key_text(r, &next, kb));
		cr_assert(!seen[i], "%s: the walk met %s twice", c->name,
			  key_text(r, &next, kb));
		cr_assert_eq(memcmp(next.data, r->e[i].key.data, r->data_size),
			     0, "%s: the walk gave %s, stored as %s", c->name,
			     key_text(r, &next, kb),
			     key_text(r, &r->e[i].key, (char[64]){ 0 }));
		seen[i] = true;
		count++;
		k = next;
		err = map_get_next_key(m, &k, &next);
		struct lkey alt = other_trailing_bits(r, &k);
		int alt_err = map_get_next_key(m, &alt, &alt_next);
		cr_assert_eq(alt_err, err, "%s: get_next_key from %s: %d, from "
			     "the same key with other trailing bits: %d",
			     c->name, key_text(r, &k, kb), err, alt_err);
		if (!err)
			cr_assert_eq(memcmp(&alt_next, &next, kbytes), 0,
				     "%s: get_next_key from %s gave %s, from "
				     "the same key with other trailing bits %s",
				     c->name, key_text(r, &k, kb),
				     key_text(r, &next, (char[64]){ 0 }),
				     key_text(r, &alt_next, (char[64]){ 0 }));
	}
	cr_assert_eq(err, -ENOENT, "%s: the walk ended with %d", c->name, err);
	cr_assert_eq(count, r->n, "%s: the walk met %u keys of %u", c->name,
		     count, r->n);
	if (absent && count) {
		cr_assert_lt(ref_find(r, absent), 0);
		cr_assert_eq(map_get_next_key(m, absent, &next), 0,
			     "%s: get_next_key from absent %s", c->name,
			     key_text(r, absent, kb));
		cr_assert_eq(memcmp(&next, &first, kbytes), 0,
			     "%s: get_next_key from absent %s gave %s, not "
			     "the first key %s", c->name,
			     key_text(r, absent, kb),
			     key_text(r, &next, (char[64]){ 0 }),
			     key_text(r, &first, (char[64]){ 0 }));
	}
}

/* A v4 key for the model. */
static struct lkey l4(uint32_t prefixlen, uint8_t a, uint8_t b, uint8_t c,
		      uint8_t d)
{
	return (struct lkey){ prefixlen, { a, b, c, d } };
}

/* --- /0 ----------------------------------------------------------------------- */

/* The value lookup_copy finds for k in a model's map, or 0 when none. */
static uint64_t value64_for(struct map *m, struct lkey k)
{
	uint64_t v = 0;
	return map_lookup_copy(m, &k, &v) ? 0 : v;
}

static void check_slash_zero(const struct vcase *c)
{
	struct ref r;
	struct map *m = new_ref_map(c, &r, 4, 16);
	uint64_t serial = 1;
	/* /0 alone: it answers every lookup, at every key length */
	struct lkey zero = l4(0, 0xde, 0xad, 0xbe, 0xef);
	ref_update(c, m, &r, &zero, value_of(serial++, &zero), MAP_NOEXIST);
	for (uint32_t len = 0; len <= 32; len++) {
		struct lkey q = l4(len, (uint8_t)(len * 37), 1, 2,
				   (uint8_t)len);
		expect_lookup(c, m, &r, &q);
	}
	struct lkey over = l4(33, 1, 2, 3, 4);
	uint64_t v;
	cr_expect_eq(map_lookup_copy(m, &over, &v), -ENOENT, "%s", c->name);
	/* /0 with any data is that key: NOEXIST fails, EXIST replaces and
	 * stores the new (all trailing) bits */
	struct lkey zero2 = l4(0, 0x11, 0x22, 0x33, 0x44);
	ref_update(c, m, &r, &zero2, value_of(serial++, &zero2), MAP_NOEXIST);
	ref_update(c, m, &r, &zero2, value_of(serial++, &zero2), MAP_EXIST);
	expect_walk_of(c, m, &r, NULL);
	struct lkey next;
	cr_assert_eq(map_get_next_key(m, &zero, &next), -ENOENT,
		     "%s: the only key, /0, given with other bits", c->name);

	/* longer prefixes beside it: /0 answers what nothing longer does,
	 * and a key of length 0 finds only /0 */
	struct lkey more[] = { l4(8, 10, 0, 0, 0), l4(32, 10, 1, 2, 3),
			       l4(1, 128, 0, 0, 0), l4(24, 10, 1, 2, 0xff) };
	for (size_t i = 0; i < ARRAY_SIZE(more); i++)
		ref_update(c, m, &r, &more[i], value_of(serial++, &more[i]),
			   MAP_ANY);
	struct lkey probes[] = {
		l4(32, 10, 1, 2, 3), l4(32, 10, 1, 2, 4), l4(32, 10, 1, 3, 4),
		l4(32, 11, 1, 2, 3), l4(32, 200, 0, 0, 1), l4(0, 10, 1, 2, 3),
		l4(0, 200, 0, 0, 1), l4(7, 10, 1, 2, 3), l4(1, 10, 1, 2, 3),
		l4(1, 200, 1, 2, 3), l4(8, 10, 1, 2, 3), l4(23, 10, 1, 2, 3),
	};
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		expect_lookup(c, m, &r, &probes[i]);
	cr_expect_eq(value64_for(m, l4(0, 10, 1, 2, 3)), value_of(3, &zero2),
		     "%s: a key of length 0 finds /0", c->name);
	cr_expect_eq(value64_for(m, l4(32, 11, 0, 0, 0)), value_of(3, &zero2),
		     "%s: /0 where nothing longer matches", c->name);
	struct lkey absent = l4(16, 10, 1, 0, 0);
	expect_walk_of(c, m, &r, &absent);

	/* delete /0 (given with other bits): every lookup it answered misses */
	struct lkey zero3 = l4(0, 0xff, 0xff, 0xff, 0xff);
	ref_delete(c, m, &r, &zero3);
	cr_expect_eq(value64_for(m, l4(0, 10, 1, 2, 3)), 0, "%s: /0 deleted",
		     c->name);
	cr_expect_eq(value64_for(m, l4(32, 11, 0, 0, 0)), 0, "%s: /0 deleted",
		     c->name);
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		expect_lookup(c, m, &r, &probes[i]);
	ref_delete(c, m, &r, &zero);
	ref_update(c, m, &r, &zero, 1, MAP_EXIST);
	expect_walk_of(c, m, &r, &zero);

	/* /0 again, then alone once more */
	ref_update(c, m, &r, &zero, value_of(serial++, &zero), MAP_NOEXIST);
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		expect_lookup(c, m, &r, &probes[i]);
	expect_walk_of(c, m, &r, &absent);
	for (size_t i = 0; i < ARRAY_SIZE(more); i++)
		ref_delete(c, m, &r, &more[i]);
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		expect_lookup(c, m, &r, &probes[i]);
	expect_walk_of(c, m, &r, &absent);
	ref_delete(c, m, &r, &zero2);
	cr_assert_eq(r.n, 0);
	cr_expect_eq(map_get_next_key(m, NULL, &next), -ENOENT, "%s: empty",
		     c->name);
	cr_expect_eq(value64_for(m, l4(32, 11, 0, 0, 0)), 0, "%s", c->name);
	map_destroy(m);
}

/* --- walks of nested shapes ---------------------------------------------------- */

/* A deterministic generator for the tests below (splitmix64). */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t random_below(uint64_t *state, uint64_t n)
{
	return next_random(state) % n;
}

/* k with random bits past its prefix length. */
static struct lkey with_random_trailing_bits(const struct ref *r,
					     struct lkey k, uint64_t *rng)
{
	for (uint32_t i = k.prefixlen; i < max_len(r); i++)
		if (next_random(rng) & 1)
			k.data[i / 8] ^= (uint8_t)(0x80u >> (i % 8));
	return k;
}

/* l4 in a static initialiser */
#define L4(len, a, b, c, d) { len, { a, b, c, d } }

struct shape {
	const char *what;
	size_t n;
	struct lkey keys[16];
};

static const struct shape shapes[] = {
	{ "a chain: /0 to /32 of one address", 9,
	  { L4(0, 0, 0, 0, 0), L4(1, 128, 0, 0, 0), L4(8, 172, 0, 0, 0),
	    L4(12, 172, 16, 0, 0), L4(16, 172, 16, 0, 0),
	    L4(24, 172, 16, 5, 0), L4(25, 172, 16, 5, 128),
	    L4(31, 172, 16, 5, 130), L4(32, 172, 16, 5, 131) } },
	{ "the kernel's example", 4,
	  { L4(16, 192, 168, 0, 0), L4(24, 192, 168, 0, 0),
	    L4(24, 192, 168, 128, 0), L4(24, 192, 168, 1, 0) } },
	{ "every prefix of 10/8 to /11", 15,
	  { L4(8, 10, 0, 0, 0), L4(9, 10, 0, 0, 0), L4(9, 10, 128, 0, 0),
	    L4(10, 10, 0, 0, 0), L4(10, 10, 64, 0, 0),
	    L4(10, 10, 128, 0, 0), L4(10, 10, 192, 0, 0),
	    L4(11, 10, 0, 0, 0), L4(11, 10, 32, 0, 0), L4(11, 10, 64, 0, 0),
	    L4(11, 10, 96, 0, 0), L4(11, 10, 128, 0, 0),
	    L4(11, 10, 160, 0, 0), L4(11, 10, 192, 0, 0),
	    L4(11, 10, 224, 0, 0) } },
	{ "siblings: forks only", 8,
	  { L4(32, 10, 0, 0, 0), L4(32, 10, 0, 0, 1), L4(32, 10, 0, 0, 2),
	    L4(32, 10, 0, 0, 3), L4(32, 10, 0, 0, 7), L4(32, 10, 0, 1, 0),
	    L4(32, 138, 0, 0, 0), L4(32, 255, 255, 255, 255) } },
	{ "two chains with a shared stem and /0", 12,
	  { L4(0, 0, 0, 0, 0), L4(4, 16, 0, 0, 0), L4(20, 16, 1, 16, 0),
	    L4(28, 16, 1, 16, 16), L4(32, 16, 1, 16, 17),
	    L4(21, 16, 1, 24, 0), L4(26, 16, 1, 24, 64),
	    L4(32, 16, 1, 24, 65), L4(2, 64, 0, 0, 0), L4(3, 96, 0, 0, 0),
	    L4(3, 64, 0, 0, 0), L4(32, 127, 0, 0, 1) } },
};

static void check_walks_of_shapes(const struct vcase *c)
{
	uint64_t rng = 0x5eed;
	for (size_t s = 0; s < ARRAY_SIZE(shapes); s++) {
		const struct shape *sh = &shapes[s];
		for (int order = 0; order < 2; order++) {
			struct ref r;
			struct map *m = new_ref_map(c, &r, 4, 16);
			uint64_t serial = 1;
			for (size_t j = 0; j < sh->n; j++) {
				size_t at = order ? sh->n - 1 - j : j;
				struct lkey k = with_random_trailing_bits(
					&r, sh->keys[at], &rng);
				ref_update(c, m, &r, &k, value_of(serial++, &k),
					   MAP_NOEXIST);
			}
			struct lkey absent = l4(5, 1, 2, 3, 4);
			cr_log_info("%s: %s, inserted %s", c->name, sh->what,
				    order ? "backwards" : "in order");
			expect_walk_of(c, m, &r, &absent);
			/* every other one replaced with new trailing bits,
			 * then every other one gone */
			for (size_t j = 0; j < sh->n; j += 2) {
				struct lkey k = with_random_trailing_bits(
					&r, sh->keys[j], &rng);
				ref_update(c, m, &r, &k, value_of(serial++, &k),
					   MAP_EXIST);
			}
			expect_walk_of(c, m, &r, &absent);
			for (size_t j = order; j < sh->n; j += 2)
				ref_delete(c, m, &r, &sh->keys[j]);
			expect_walk_of(c, m, &r, &absent);
			map_destroy(m);
		}
	}
}

/* k with every bit past its prefix length zero: the same key again. */
static struct lkey masked(const struct ref *r, const struct lkey *k)
{
	struct lkey o = *k;
	for (uint32_t i = k->prefixlen; i < max_len(r); i++)
		o.data[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
	return o;
}

/* A stored key, given with other trailing bits, goes on from that key. */
static void check_next_from_other_trailing_bits(const struct vcase *c)
{
	struct ref r;
	struct map *m = new_ref_map(c, &r, 4, 16);
	struct lkey keys[] = { l4(16, 10, 1, 0xab, 0xcd), l4(24, 10, 1, 2, 0x3c),
			       l4(8, 10, 0xf0, 0, 0x55), l4(0, 7, 7, 7, 7),
			       l4(31, 10, 1, 2, 0x81) };
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		ref_update(c, m, &r, &keys[i], value_of(i + 1, &keys[i]),
			   MAP_NOEXIST);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		struct lkey alts[2] = { other_trailing_bits(&r, &keys[i]),
					masked(&r, &keys[i]) };
		struct lkey want;
		int err = map_get_next_key(m, &keys[i], &want);
		for (size_t a = 0; a < 2; a++) {
			struct lkey got;
			int alt_err = map_get_next_key(m, &alts[a], &got);
			cr_assert_eq(alt_err, err, "%s: get_next_key from /%u: "
				     "%d as stored, %d with %s trailing bits",
				     c->name, keys[i].prefixlen, err, alt_err,
				     a ? "zero" : "inverted");
			if (!err)
				cr_expect_eq(memcmp(&got, &want, 8), 0,
					     "%s: from /%u with %s trailing "
					     "bits: /%u, from the stored bytes "
					     "/%u", c->name, keys[i].prefixlen,
					     a ? "zero" : "inverted",
					     got.prefixlen, want.prefixlen);
		}
	}
	expect_walk_of(c, m, &r, NULL);
	map_destroy(m);
}

TestSuite(zero_and_walks, .timeout = TEST_TIMEOUT_S);

Test(zero_and_walks, slash_zero_matches_what_nothing_longer_does)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets, check_slash_zero);
}

Test(zero_and_walks, next_key_from_other_trailing_bits_goes_on)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_next_from_other_trailing_bits);
}

Test(zero_and_walks, nested_shapes_walk_every_key_once)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_walks_of_shapes);
}

/* --- nested prefixes against the model ------------------------------------------ */

/* Every lookup of a's prefixes, and of the addresses that part from a at
 * each bit, at every key length: 33 + 32 * 33 lookups, each against the
 * model.  Bits past the key's length are random: they must not count. */
static void expect_lookups_around(const struct vcase *c, struct map *m,
				  const struct ref *r, const struct lkey *a,
				  uint64_t *rng)
{
	for (int flip = -1; flip < (int)max_len(r); flip++) {
		struct lkey q = *a;
		if (flip >= 0)
			q.data[flip / 8] ^= (uint8_t)(0x80u >> (flip % 8));
		for (uint32_t len = 0; len <= max_len(r); len++) {
			q.prefixlen = len;
			struct lkey k = with_random_trailing_bits(r, q, rng);
			expect_lookup(c, m, r, &k);
		}
	}
}

static void check_nested_on_one_path(const struct vcase *c)
{
	static const uint32_t lengths[] = { 0,  1,  7,  8,  9,  15, 16,
					    17, 23, 24, 25, 31, 32 };
	enum { N = ARRAY_SIZE(lengths) };
	/* insertion and deletion orders: ascending, descending, mixed */
	static const uint8_t orders[3][N] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
		{ 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 },
		{ 6, 0, 12, 3, 9, 1, 11, 4, 8, 2, 10, 5, 7 },
	};
	/* 192.168.90.60: ones and zeros on both sides of each byte edge */
	const struct lkey a = l4(32, 0xc0, 0xa8, 0x5a, 0x3c);
	uint64_t rng = 0x1e57;
	uint64_t serial = 1;

	for (int o = 0; o < 3; o++) {
		struct ref r;
		struct map *m = new_ref_map(c, &r, 4, 32);
		for (int j = 0; j < N; j++) {
			struct lkey k = a;
			k.prefixlen = lengths[orders[o][j]];
			k = with_random_trailing_bits(&r, k, &rng);
			ref_update(c, m, &r, &k, value_of(serial++, &k),
				   MAP_NOEXIST);
			expect_lookups_around(c, m, &r, &a, &rng);
		}
		expect_walk_of(c, m, &r, NULL);
		for (int j = 0; j < N; j++) {
			struct lkey k = a;
			k.prefixlen = lengths[orders[(o + 1) % 3][j]];
			k = with_random_trailing_bits(&r, k, &rng);
			ref_delete(c, m, &r, &k);
			ref_delete(c, m, &r, &k); /* ENOENT now */
			expect_lookups_around(c, m, &r, &a, &rng);
			if (j % 4 == 0)
				expect_walk_of(c, m, &r, NULL);
		}
		cr_assert_eq(r.n, 0);
		map_destroy(m);
	}
}

/*
 * Random prefixes that nest and part: each from one of a few base
 * addresses, maybe with one bit flipped (parting from the base there), of
 * a random length, with random trailing bits.
 */
#define BASES 6

static struct lkey random_prefix(const struct ref *r,
				 const uint8_t bases[BASES][REF_DATA_MAX],
				 uint64_t *rng)
{
	struct lkey k = { 0, { 0 } };
	memcpy(k.data, bases[random_below(rng, BASES)], r->data_size);
	if (random_below(rng, 2)) {
		uint32_t flip = (uint32_t)random_below(rng, max_len(r));
		k.data[flip / 8] ^= (uint8_t)(0x80u >> (flip % 8));
	}
	/* a quarter full-length: the lookups of addresses */
	k.prefixlen = random_below(rng, 4) == 0
			      ? max_len(r)
			      : (uint32_t)random_below(rng, max_len(r) + 1);
	return with_random_trailing_bits(r, k, rng);
}

struct model_counts {
	uint64_t hits, misses, inserts, replaces, deletes;
	uint64_t eexist, enoent, enospc, writes;
};

/* A program's write through the pointer a lookup of k gives (k's longest
 * match is the model's entry i): the value stays until that prefix is
 * replaced or deleted, whatever updates of other prefixes do to the
 * design's structure meanwhile (the kernel's element keeps it). */
static void write_in_place(const struct vcase *c, struct map *m,
			   struct ref *r, const struct lkey *k, long i,
			   uint64_t value)
{
	char kb[64];
	map_rcu_read_lock();
	uint64_t *v = map_lookup(m, k);
	cr_assert_not_null(v, "%s: program lookup %s to write: a miss",
			   c->name, key_text(r, k, kb));
	memcpy(v, &value, sizeof(value));
	map_rcu_read_unlock();
	r->e[i].value = value;
}

static void count_update(struct model_counts *n, const struct ref *r,
			 uint32_t before, long found, uint64_t flags)
{
	if (r->n > before)
		n->inserts++;
	else if (found >= 0 && flags != MAP_NOEXIST)
		n->replaces++;
	else if (found >= 0)
		n->eexist++;
	else if (flags == MAP_EXIST)
		n->enoent++;
	else
		n->enospc++;
}

static void run_random_model(const struct vcase *c, uint32_t data_size,
			     uint32_t max_entries, unsigned ops, uint64_t seed)
{
	struct ref *r = malloc(sizeof(*r));
	cr_assert_not_null(r);
	struct map *m = new_ref_map(c, r, data_size, max_entries);
	uint8_t bases[BASES][REF_DATA_MAX];
	uint64_t rng = seed;
	struct model_counts n = { 0 };

	for (int b = 0; b < BASES; b++)
		for (uint32_t i = 0; i < data_size; i++)
			bases[b][i] = (uint8_t)next_random(&rng);
	for (unsigned op = 1; op <= ops; op++) {
		/* phases of 1000 ops: growing (to full), then shrinking */
		bool growing = (op / 1000) % 2 == 0;
		unsigned dice = (unsigned)random_below(&rng, 100);
		unsigned update_pct = growing ? 65 : 20;
		unsigned delete_pct = growing ? 5 : 50;
		struct lkey k = random_prefix(r, bases, &rng);
		/* a write to a stored prefix, often: replaces, deletes */
		if (dice < update_pct + delete_pct && r->n &&
		    random_below(&rng, 2)) {
			k = r->e[random_below(&rng, r->n)].key;
			k = with_random_trailing_bits(r, k, &rng);
		}
		if (dice < update_pct) {
			static const uint64_t flag_of[] = { MAP_ANY, MAP_ANY,
							    MAP_NOEXIST,
							    MAP_EXIST };
			uint64_t flags = flag_of[random_below(&rng, 4)];
			uint32_t before = r->n;
			long found = ref_find(r, &k);
			ref_update(c, m, r, &k, value_of(op, &k), flags);
			count_update(&n, r, before, found, flags);
			expect_lookup(c, m, r, &k);
			struct lkey under = { max_len(r), { 0 } };
			memcpy(under.data, k.data, data_size);
			expect_lookup(c, m, r, &under);
		} else if (dice < update_pct + delete_pct) {
			long found = ref_find(r, &k);
			ref_delete(c, m, r, &k);
			if (found >= 0)
				n.deletes++;
			else
				n.enoent++;
			expect_lookup(c, m, r, &k);
			struct lkey under = { max_len(r), { 0 } };
			memcpy(under.data, k.data, data_size);
			expect_lookup(c, m, r, &under);
		} else {
			expect_lookup(c, m, r, &k);
			long hit = ref_match(r, &k);
			*(hit >= 0 ? &n.hits : &n.misses) += 1;
			/* a lookup in 3 that hits writes its value in place */
			if (hit >= 0 && random_below(&rng, 3) == 0) {
				write_in_place(c, m, r, &k, hit,
					       value_of(op, &r->e[hit].key));
				n.writes++;
			}
		}
		if (op % 250 == 0) {
			struct lkey absent;
			do
				absent = random_prefix(r, bases, &rng);
			while (ref_find(r, &absent) >= 0);
			expect_walk_of(c, m, r, &absent);
		}
	}
	cr_log_info("%s, %u data bytes: %llu inserts %llu replaces %llu "
		    "deletes, %llu hits %llu misses, %llu EEXIST %llu ENOENT "
		    "%llu ENOSPC, %llu writes in place", c->name, data_size,
		    (unsigned long long)n.inserts,
		    (unsigned long long)n.replaces,
		    (unsigned long long)n.deletes, (unsigned long long)n.hits,
		    (unsigned long long)n.misses, (unsigned long long)n.eexist,
		    (unsigned long long)n.enoent, (unsigned long long)n.enospc,
		    (unsigned long long)n.writes);
	/* the run met every case, or it tested less than it claims */
	cr_expect(n.inserts && n.replaces && n.deletes && n.hits && n.misses &&
		  n.eexist && n.enoent && n.enospc && n.writes,
		  "%s, %u data bytes: a case never came up", c->name,
		  data_size);
	map_destroy(m);
	free(r);
}

static void check_random_against_the_model(const struct vcase *c)
{
	if (design_takes(c, 4 + 1, 24, "the model with 1-byte data"))
		run_random_model(c, 1, 24, 20000, 0x1a2b);
	run_random_model(c, 4, 64, 20000, 0x3c4d);
	if (design_takes(c, 4 + 16, 64, "the model with 16-byte data"))
		run_random_model(c, 16, 64, 20000, 0x5e6f);
}

TestSuite(model, .timeout = TEST_TIMEOUT_S);

Test(model, nested_prefixes_on_one_path)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_nested_on_one_path);
}

Test(model, random_prefixes_of_5_8_and_20_byte_keys)
{
	ON_EVERY_DESIGN(MAP_TYPE_LPM_TRIE, lpm_flag_sets,
			check_random_against_the_model);
}
