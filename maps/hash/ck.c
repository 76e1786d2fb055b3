/* SPDX-License-Identifier: MIT */
/*
 * hash/ck: a baseline adapter over Concurrency Kit's ck_ht (Debian's
 * libck-dev), as hash/rculfhash is over liburcu's table: BPF hash
 * semantics on top where the table allows them.
 *
 * ck_ht is an open-addressing table with a single writer and any number
 * of lock-free readers (its *_spmc calls).  Keys are byte strings
 * (CK_HT_MODE_BYTESTRING): an entry points at the key bytes and at the
 * value, both inside one element of ours:
 *
 *   element: [rcu head][key, padded to 8][value]
 *
 * Limits, and how they are met:
 *  - one writer: every update and delete takes the map's one writer lock
 *    (a spin lock): writers never run in parallel, whatever the keys;
 *  - memory ck_ht frees while readers may still look (its old slot array
 *    after a resize, with "defer" set) goes through an RCU grace period,
 *    by the allocator callbacks below; our replaced and deleted elements
 *    too, so a reader never sees an element reused;
 *  - max_entries: a count of live keys under the writer lock (-E2BIG);
 *  - get_next_key: ck_ht iterates in slot order and cannot start at a
 *    key, so the walk finds the given key by iterating from the start:
 *    O(n) a call.  It holds the writer lock, since ck_ht's iterator is not
 *    one of its reader-safe calls;
 *  - BPF_F_NO_PREALLOC is accepted and changes nothing; BPF_F_ZERO_SEED
 *    gives ck_ht the seed 0.
 */
#include "maps/base/attr.h"
#include "maps/base/lock.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#include <ck_ht.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct hash_ck_elem {
	struct rcu_head rcu;
	_Alignas(8) uint8_t data[]; /* key (padded to 8), then value */
};

struct hash_ck {
	struct map map;
	ck_ht_t table;
	struct map_spinlock writer;
	uint32_t count;    /* live keys, under writer */
	size_t key_stride; /* key bytes padded to 8 */
};

static struct hash_ck *hash_ck_of(struct map *m)
{
	return (struct hash_ck *)m;
}

/* --- ck_ht's allocator: deferred frees wait for a grace period ------------------- */

struct hash_ck_block {
	struct rcu_head rcu;
	_Alignas(16) uint8_t data[];
};

static void *hash_ck_alloc(size_t size)
{
	struct hash_ck_block *b = malloc(sizeof(*b) + size);
	return b ? b->data : NULL;
}

static void hash_ck_free(void *p, size_t size, bool defer)
{
	(void)size;
	if (!p)
		return;
	struct hash_ck_block *b =
		(struct hash_ck_block *)((uint8_t *)p -
					 offsetof(struct hash_ck_block, data));
	if (defer)
		map_rcu_free_block(&b->rcu);
	else
		free(b);
}

static void *hash_ck_realloc(void *p, size_t old_size, size_t new_size,
			     bool defer)
{
	void *q = hash_ck_alloc(new_size);
	if (q && p) {
		memcpy(q, p, old_size < new_size ? old_size : new_size);
		hash_ck_free(p, old_size, defer);
	}
	return q;
}

static struct ck_malloc allocator = {
	.malloc = hash_ck_alloc,
	.realloc = hash_ck_realloc,
	.free = hash_ck_free,
};

/* --- elements ---------------------------------------------------------------------- */

static void *elem_key(struct hash_ck_elem *e)
{
	return e->data;
}

static void *elem_value(const struct hash_ck *h, struct hash_ck_elem *e)
{
	return e->data + h->key_stride;
}

static struct hash_ck_elem *elem_new(struct hash_ck *h, const void *key,
				     const void *value)
{
	struct hash_ck_elem *e = malloc(sizeof(*e) + h->key_stride +
				   h->map.attr.value_size);
	if (!e)
		return NULL;
	memset(e->data, 0, h->key_stride);
	memcpy(elem_key(e), key, h->map.attr.key_size);
	memcpy(elem_value(h, e), value, h->map.attr.value_size);
	return e;
}

static void retire_elem(struct hash_ck_elem *e)
{
	map_rcu_free_block(&e->rcu);
}

/* --- create and destroy --------------------------------------------------------- */

static void hash_ck_destroy(struct map *m)
{
	struct hash_ck *h = hash_ck_of(m);
	ck_ht_iterator_t it = CK_HT_ITERATOR_INITIALIZER;
	ck_ht_entry_t *entry;
	while (ck_ht_next(&h->table, &it, &entry))
		free(ck_ht_entry_value(entry));
	ck_ht_destroy(&h->table);
	map_rcu_barrier(); /* what updates retired, and ck_ht's deferred frees */
	free(h);
}

static int hash_ck_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;
	struct hash_ck *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->map.attr = *attr;
	h->key_stride = (attr->key_size + 7u) & ~(size_t)7;
	map_spin_init(&h->writer);
	uint64_t seed = 0;
	if (!(attr->flags & MAP_F_ZERO_SEED) &&
	    getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = 0x9e3779b97f4a7c15ull;
	if (!ck_ht_init(&h->table, CK_HT_MODE_BYTESTRING | CK_HT_WORKLOAD_DELETE,
			NULL, &allocator, attr->max_entries, seed)) {
		free(h);
		return -ENOMEM;
	}
	*out = &h->map;
	return 0;
}

/* --- operations ------------------------------------------------------------------------ */

static ck_ht_hash_t hash_of(struct hash_ck *h, const void *key)
{
	ck_ht_hash_t hash;
	ck_ht_hash(&hash, &h->table, key, (uint16_t)h->map.attr.key_size);
	return hash;
}

static struct hash_ck_elem *find_hashed(struct hash_ck *h, ck_ht_hash_t hash,
					const void *key)
{
	ck_ht_entry_t entry;
	ck_ht_entry_key_set(&entry, key, (uint16_t)h->map.attr.key_size);
	return ck_ht_get_spmc(&h->table, hash, &entry) ? ck_ht_entry_value(&entry)
							: NULL;
}

static struct hash_ck_elem *find(struct hash_ck *h, const void *key)
{
	return find_hashed(h, hash_of(h, key), key);
}

static void *hash_ck_lookup(struct map *m, const void *key)
{
	struct hash_ck *h = hash_ck_of(m);
	struct hash_ck_elem *e = find(h, key);
	return e ? elem_value(h, e) : NULL;
}

static int hash_ck_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, hash_ck_lookup, key, value);
}

static int hash_ck_update(struct map *m, const void *key, const void *value,
			  uint64_t flags)
{
	struct hash_ck *h = hash_ck_of(m);
	int err = map_update_flags_valid(flags);
	if (err)
		return err;
	ck_ht_hash_t hash = hash_of(h, key);
	map_spin_lock(&h->writer);
	struct hash_ck_elem *old = find_hashed(h, hash, key);
	err = map_update_flags_check(old != NULL, flags);
	if (!err && !old && h->count >= m->attr.max_entries)
		err = -E2BIG;
	struct hash_ck_elem *e = err ? NULL : elem_new(h, key, value);
	if (!err && !e)
		err = -ENOMEM;
	if (!err) {
		ck_ht_entry_t entry;
		ck_ht_entry_set(&entry, hash, elem_key(e),
				(uint16_t)m->attr.key_size, e);
		/* set: insert, or replace and hand back the old entry */
		if (!ck_ht_set_spmc(&h->table, hash, &entry)) {
			free(e);
			err = -ENOMEM;
		} else if (old) {
			retire_elem(old);
		} else {
			h->count++;
		}
	}
	map_spin_unlock(&h->writer);
	return err;
}

static int hash_ck_delete(struct map *m, const void *key)
{
	struct hash_ck *h = hash_ck_of(m);
	ck_ht_hash_t hash = hash_of(h, key);
	ck_ht_entry_t entry;
	ck_ht_entry_key_set(&entry, key, (uint16_t)m->attr.key_size);
	map_spin_lock(&h->writer);
	bool found = ck_ht_remove_spmc(&h->table, hash, &entry);
	if (found) {
		retire_elem(ck_ht_entry_value(&entry));
		h->count--;
	}
	map_spin_unlock(&h->writer);
	return found ? 0 : -ENOENT;
}

static int hash_ck_get_next_key(struct map *m, const void *key, void *next)
{
	struct hash_ck *h = hash_ck_of(m);
	ck_ht_iterator_t it = CK_HT_ITERATOR_INITIALIZER;
	ck_ht_entry_t *entry;
	int err = -ENOENT;
	map_spin_lock(&h->writer);
	bool found_key = key && find(h, key);
	bool passed = !found_key;
	while (ck_ht_next(&h->table, &it, &entry)) {
		struct hash_ck_elem *e = ck_ht_entry_value(entry);
		if (passed) {
			memcpy(next, elem_key(e), m->attr.key_size);
			err = 0;
			break;
		}
		passed = memcmp(elem_key(e), key, m->attr.key_size) == 0;
	}
	map_spin_unlock(&h->writer);
	return err;
}

const struct map_ops hash_ck_ops = {
	.name = "hash/ck",
	.description = "baseline: BPF hash semantics over Concurrency Kit's "
		       "ck_ht (one writer at a time, lock-free readers)",
	.type = MAP_TYPE_HASH,
	.create = hash_ck_create,
	.destroy = hash_ck_destroy,
	.lookup = hash_ck_lookup,
	.lookup_copy = hash_ck_lookup_copy,
	.update = hash_ck_update,
	.delete = hash_ck_delete,
	.get_next_key = hash_ck_get_next_key,
};
