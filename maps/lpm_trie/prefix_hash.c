/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/prefix_hash: the LPM map of eBPF for Windows
 * (libs/execution_context/ebpf_maps.c in github.com/microsoft/
 * ebpf-for-windows; docs/lpm_trie.md describes it): "currently a hash-map with
 * special behavior for find".  Not a trie:
 *
 *   table:   the copy-on-write hash of maps/tables/cowtab.h (Windows' own
 *            hash table), keyed by [prefix length][data masked to it]
 *   present: a bitmap of the prefix lengths ever inserted, one bit per
 *            length 0..max_prefixlen
 *
 * An update is one hash update (a new value block and a new bucket array,
 * as every update of that table) and sets its length's bit.  A delete is
 * one hash delete and never clears the bit, as in Windows: a length whose
 * last prefix went still costs every later lookup a probe.  A lookup of
 * prefix length L probes the present lengths from L down: for each, the
 * key's data masked to that length, one exact hash lookup; the first hit
 * is the longest match.  Its cost grows with the number of lengths
 * present, not with the number of prefixes (docs/lpm_trie.md).
 *
 * Semantics kept from the kernel's trie: the key format, the creation
 * checks and errnos (map_check_lpm_attr), -ENOSPC when full, a replace
 * allowed in a full map, a prefix length beyond the data's bits (update
 * and delete -EINVAL, lookup -ENOENT, get_next_key the first key), and the
 * trailing bits beyond the prefix stored as given and returned by
 * get_next_key: the table's key is masked, so the given bytes ride in the
 * value block, ahead of the value, and a replace stores the new ones.
 * get_next_key walks the table's order (bucket by bucket), not the
 * kernel's post-order; a key not in the map starts again from the first.
 *
 * Locks: the table's (one per bucket); the bitmap's bits are set with an
 * atomic or, after a test, as Windows does (test-then-set).
 */
#include "maps/base/attr.h"
#include "maps/tables/cowtab.h"
#include "maps/lpm_trie/core/lpm_key.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define LENGTHS_MAX (8 * MAP_LPM_DATA_MAX + 1)
#define WORD_BITS 64

struct prefix_hash {
	struct map map;
	struct cowtab table; /* key: LPM key, data masked; value: data, value */
	uint32_t data_size;
	uint32_t max_prefixlen;
	_Atomic uint64_t present[(LENGTHS_MAX + WORD_BITS - 1) / WORD_BITS];
};

static struct prefix_hash *prefix_hash_of(struct map *m)
{
	return (struct prefix_hash *)m;
}

/* The table's key for len bits of data: [len][data, bits past len zero]. */
static void masked_key(const struct prefix_hash *p, uint32_t len,
		       const uint8_t *data, uint8_t *out)
{
	memcpy(out, &len, MAP_LPM_PREFIX_BYTES);
	uint8_t *d = out + MAP_LPM_PREFIX_BYTES;
	uint32_t whole = len / 8;
	memcpy(d, data, whole);
	memset(d + whole, 0, p->data_size - whole);
	if (len % 8)
		d[whole] = data[whole] & (uint8_t)(0xff00u >> (len % 8));
}

static bool is_present(struct prefix_hash *p, uint32_t len)
{
	return atomic_load_explicit(&p->present[len / WORD_BITS],
				    memory_order_relaxed) &
	       (1ull << (len % WORD_BITS));
}

static void mark_present(struct prefix_hash *p, uint32_t len)
{
	if (!is_present(p, len))
		atomic_fetch_or_explicit(&p->present[len / WORD_BITS],
					 1ull << (len % WORD_BITS),
					 memory_order_relaxed);
}

/* The longest present length at or below len, or -1: a reverse bit scan. */
static int32_t present_at_or_below(struct prefix_hash *p, int32_t len)
{
	while (len >= 0) {
		uint64_t word = atomic_load_explicit(&p->present[len / WORD_BITS],
						     memory_order_relaxed);
		uint32_t bit = (uint32_t)len % WORD_BITS;
		word &= bit == WORD_BITS - 1 ? ~0ull : (2ull << bit) - 1;
		if (word)
			return (int32_t)((uint32_t)len / WORD_BITS * WORD_BITS +
					 63 - (uint32_t)__builtin_clzll(word));
		len = (int32_t)((uint32_t)len / WORD_BITS * WORD_BITS) - 1;
	}
	return -1;
}

/* --- the map -------------------------------------------------------------- */

static void *prefix_hash_lookup(struct map *m, const void *key)
{
	struct prefix_hash *p = prefix_hash_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	uint8_t probe[MAP_LPM_PREFIX_BYTES + MAP_LPM_DATA_MAX];
	if (len > p->max_prefixlen)
		return NULL;
	for (int32_t l = present_at_or_below(p, (int32_t)len); l >= 0;
	     l = present_at_or_below(p, l - 1)) {
		masked_key(p, (uint32_t)l, lpm_data_of(key), probe);
		uint8_t *block = cowtab_lookup(&p->table, probe);
		if (block)
			return block + p->data_size; /* past the given data */
	}
	return NULL;
}

static int prefix_hash_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, prefix_hash_lookup, key, value);
}

static int prefix_hash_update(struct map *m, const void *key,
			      const void *value, uint64_t flags)
{
	struct prefix_hash *p = prefix_hash_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	uint8_t table_key[MAP_LPM_PREFIX_BYTES + MAP_LPM_DATA_MAX];
	if (flags > MAP_EXIST || len > p->max_prefixlen)
		return -EINVAL;
	/* the block: the data as given, then the value */
	uint8_t *block = malloc(p->data_size + m->attr.value_size);
	if (!block)
		return -ENOMEM;
	memcpy(block, lpm_data_of(key), p->data_size);
	memcpy(block + p->data_size, value, m->attr.value_size);
	masked_key(p, len, lpm_data_of(key), table_key);
	/* the bit before the entry is published: whoever sees the entry
	 * sees its length present (a failed update leaves a bit that costs
	 * a probe, as a deleted length's does) */
	mark_present(p, len);
	int err = cowtab_update(&p->table, table_key, block, flags);
	free(block);
	return err;
}

static int prefix_hash_delete(struct map *m, const void *key)
{
	struct prefix_hash *p = prefix_hash_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	uint8_t table_key[MAP_LPM_PREFIX_BYTES + MAP_LPM_DATA_MAX];
	if (len > p->max_prefixlen)
		return -EINVAL;
	masked_key(p, len, lpm_data_of(key), table_key);
	return cowtab_delete(&p->table, table_key); /* the bit stays */
}

static int prefix_hash_get_next_key(struct map *m, const void *key, void *next)
{
	struct prefix_hash *p = prefix_hash_of(m);
	uint8_t table_key[MAP_LPM_PREFIX_BYTES + MAP_LPM_DATA_MAX];
	const void *from = NULL, *k;
	void *block;
	if (key && lpm_prefixlen_of(key) <= p->max_prefixlen) {
		masked_key(p, lpm_prefixlen_of(key), lpm_data_of(key), table_key);
		from = table_key;
	}
	map_rcu_read_lock();
	int err = cowtab_next_rcu(&p->table, from, &k, &block);
	if (!err) {
		memcpy(next, k, MAP_LPM_PREFIX_BYTES);
		memcpy((uint8_t *)next + MAP_LPM_PREFIX_BYTES, block,
		       p->data_size);
	}
	map_rcu_read_unlock();
	return err;
}

static void prefix_hash_destroy(struct map *m)
{
	cowtab_destroy(&prefix_hash_of(m)->table);
	free(m);
}

static int prefix_hash_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_lpm_attr(attr);
	if (err)
		return err;
	struct prefix_hash *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->map.attr = *attr;
	p->data_size = attr->key_size - MAP_LPM_PREFIX_BYTES;
	p->max_prefixlen = 8 * p->data_size;
	err = cowtab_init(&p->table, attr->max_entries, attr->key_size,
			  p->data_size + attr->value_size, false, -ENOSPC);
	if (err) {
		free(p);
		return err;
	}
	*out = &p->map;
	return 0;
}

static size_t prefix_hash_memory(const struct map *m)
{
	const struct prefix_hash *p = (const struct prefix_hash *)m;
	return sizeof(*p) + cowtab_bytes(&p->table);
}

const struct map_ops lpm_trie_prefix_hash_ops = {
	.name = "lpm_trie/prefix_hash",
	.description = "eBPF for Windows: one copy-on-write hash of (prefix "
		       "length, masked prefix), a bitmap of lengths probed "
		       "longest first",
	.type = MAP_TYPE_LPM_TRIE,
	.create = prefix_hash_create,
	.destroy = prefix_hash_destroy,
	.lookup = prefix_hash_lookup,
	.lookup_copy = prefix_hash_lookup_copy,
	.update = prefix_hash_update,
	.delete = prefix_hash_delete,
	.get_next_key = prefix_hash_get_next_key,
	.memory = prefix_hash_memory,
};
