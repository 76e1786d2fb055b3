/* SPDX-License-Identifier: MIT */
/*
 * hash/cow: the hash map of eBPF for Windows: its copy-on-write hash table
 * (maps/tables/cowtab.h: per-bucket locks, lock-free readers, every
 * update a new value block and a new bucket array, old ones freed after a
 * grace period) behind map.h with BPF hash semantics.
 *
 * Limits: Windows' BPF_MAP_TYPE_HASH has no entry limit; hash/cow keeps
 * BPF's -E2BIG at max_entries (the table's count of live keys).  The hash
 * is jhash (Windows: CRC32 or Murmur3), and BPF_F_NO_PREALLOC is accepted
 * and changes nothing (nothing is preallocated here).  docs/hash.md
 * measures what its updates cost and why.
 */
#include "maps/base/attr.h"
#include "maps/tables/cowtab.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cow_htab {
	struct map map;
	struct cowtab table;
};

static struct cowtab *table_of(struct map *m)
{
	return &((struct cow_htab *)m)->table;
}

static void cow_destroy(struct map *m)
{
	cowtab_destroy(table_of(m));
	free(m);
}

static int cow_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;
	struct cow_htab *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->map.attr = *attr;
	err = cowtab_init(&h->table, attr->max_entries, attr->key_size,
			  attr->value_size, attr->flags & MAP_F_ZERO_SEED,
			  -E2BIG);
	if (err) {
		free(h);
		return err;
	}
	*out = &h->map;
	return 0;
}

static void *cow_lookup(struct map *m, const void *key)
{
	return cowtab_lookup(table_of(m), key);
}

static int cow_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, cow_lookup, key, value);
}

static int cow_update(struct map *m, const void *key, const void *value,
		      uint64_t flags)
{
	int err = map_update_flags_valid(flags);
	return err ? err : cowtab_update(table_of(m), key, value, flags);
}

static int cow_delete(struct map *m, const void *key)
{
	return cowtab_delete(table_of(m), key);
}

static int cow_get_next_key(struct map *m, const void *key, void *next)
{
	const void *k;
	void *v;
	map_rcu_read_lock();
	int err = cowtab_next_rcu(table_of(m), key, &k, &v);
	if (!err)
		memcpy(next, k, m->attr.key_size);
	map_rcu_read_unlock();
	return err;
}

static size_t cow_memory(const struct map *m)
{
	const struct cow_htab *h = (const struct cow_htab *)m;
	return sizeof(*h) + cowtab_bytes(&h->table);
}

const struct map_ops hash_cow_ops = {
	.name = "hash/cow",
	.description = "eBPF for Windows: per-bucket locks, lock-free readers, "
		       "copy-on-write buckets: every update allocates",
	.type = MAP_TYPE_HASH,
	.create = cow_create,
	.destroy = cow_destroy,
	.lookup = cow_lookup,
	.lookup_copy = cow_lookup_copy,
	.update = cow_update,
	.delete = cow_delete,
	.get_next_key = cow_get_next_key,
	.memory = cow_memory,
};
