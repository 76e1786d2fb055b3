/* SPDX-License-Identifier: MIT */
/*
 * hash/seqlock_buckets: BPF_MAP_TYPE_HASH semantics, designed for speed rather than
 * copied from the kernel (docs/hash.md measures each choice).
 *
 * Two shapes, chosen at create by the key and value sizes:
 *
 *  - flat (key and value of 8 bytes or less, the common BPF case): keys
 *    and values in the buckets themselves, maps/tables/flattab.h: 64-byte
 *    buckets of 3 to 5 slots, open addressing by bucket, 2 slots a key.
 *    A lookup that hits reads one line; a replace is one atomic store.
 *
 *  - tagged (anything larger): the tagged table of maps/tables/tagtab.h
 *    (64-byte buckets, each a seqlock, 8 16-bit tags and 8 element
 *    numbers; keys beyond 8 overflow into a chain) over the preallocated
 *    elements of maps/base/elem_pool.h (a per-cpu free list and one
 *    extra element per slot, as hash/linux):
 *
 *      element: [free-list link][htab_node: chain, hash, index][key][value]
 *
 * docs/hash.md measures both against hash/linux.
 *
 * What differs from hash/linux, and why:
 *  - a lookup reads one bucket line, and (tagged) an element only when a
 *    tag matches; a chain reads the bucket and then each node in turn;
 *  - readers write nothing: no lock, no reference count; they read a
 *    bucket between two reads of its sequence count (tagtab.h);
 *  - XXH3 (libxxhash) rather than jhash, inlined for 4- and 8-byte keys;
 *  - a value of 8 bytes or less is overwritten in place by a replace, with
 *    one atomic store: no reader sees half of it, and no element changes
 *    hands.  Larger values go to the slot's extra element, as in the
 *    kernel, so a syscall lookup never copies a value half written.
 *
 * Semantics kept: the update flags and their errnos, -E2BIG for a new key
 * when max_entries are in, a replace allowed in a full map, get_next_key
 * visiting every key once when nothing changes (its order is the table's:
 * bucket by bucket, slots then overflow; not the kernel's).
 * BPF_F_NO_PREALLOC is accepted and changes nothing: every element is
 * preallocated (the flag only chooses the kernel's allocator).
 *
 * Elements (flat: slots) are reused at once after a delete, as in the kernel's
 * preallocated maps: a program-style reader holding a value pointer may
 * see it become another key's value.
 *
 * Locks (flat: flattab.h says which bucket's lock guards what).  Tagged:
 * a bucket's seqlock guards its slots, tags, overflow chain, and the
 * in-place value writes of its keys.  The free list's per-slot locks
 * are taken inside a bucket's (an insert pops under it, as the kernel's
 * alloc_htab_elem does), never the reverse.  A slot's extra element is
 * its own and needs no lock.
 */
#include "maps/base/attr.h"
#include "maps/base/cpu.h"
#include "maps/base/elem_pool.h"
#include "maps/base/fastkey.h"
#include "maps/tables/flattab.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/tables/tagtab.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct seqlock_buckets_elem {
	struct pcpu_freelist_node free_link;
	struct htab_node node; /* last: key and value follow */
};

struct seqlock_buckets {
	struct map map;
	bool flat; /* keys and values in the buckets: flat, not table + pool */
	bool value_in_place; /* value_size <= 8: a replace stores in place */
	struct tagtab table;
	struct elem_pool pool;
	size_t elem_size;
	struct flattab flattab;
};

static struct seqlock_buckets *seqlock_buckets_of(struct map *m)
{
	return (struct seqlock_buckets *)m;
}

static struct seqlock_buckets_elem *elem_of_node(struct htab_node *n)
{
	return (struct seqlock_buckets_elem *)((char *)n -
		offsetof(struct seqlock_buckets_elem, node));
}

static void seqlock_buckets_destroy(struct map *m)
{
	struct seqlock_buckets *h = seqlock_buckets_of(m);
	flattab_destroy(&h->flattab);
	tagtab_destroy(&h->table);
	elem_pool_destroy(&h->pool);
	free(h);
}

static int seqlock_buckets_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;
	/* aligned: the flat table keeps its count on a line of its own */
	struct seqlock_buckets *h =
		aligned_alloc(64, (sizeof(*h) + 63) & ~(size_t)63);
	if (!h)
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	h->map.attr = *attr;
	h->value_in_place = attr->value_size <= sizeof(uint64_t);
	h->flat = flattab_fits(attr->key_size, attr->value_size);
	if (h->flat) {
		err = flattab_init(&h->flattab, attr->max_entries,
				   attr->key_size, attr->flags & MAP_F_ZERO_SEED);
		if (err)
			seqlock_buckets_destroy(&h->map);
		else
			*out = &h->map;
		return err;
	}
	h->elem_size = htab_elem_size(offsetof(struct seqlock_buckets_elem, node),
				      attr->key_size, attr->value_size);
	err = elem_pool_init(&h->pool, attr->max_entries, attr->ncpus,
			     h->elem_size,
			     offsetof(struct seqlock_buckets_elem, free_link));
	if (!err)
		err = tagtab_init(&h->table, attr->max_entries, attr->key_size,
				  attr->flags & MAP_F_ZERO_SEED, h->pool.elems,
				  h->elem_size,
				  offsetof(struct seqlock_buckets_elem, node),
				  h->pool.n_elems);
	if (err) {
		seqlock_buckets_destroy(&h->map);
		return err;
	}
	*out = &h->map;
	return 0;
}

static void *seqlock_buckets_lookup(struct map *m, const void *key)
{
	struct seqlock_buckets *h = seqlock_buckets_of(m);
	if (h->flat)
		return flattab_lookup(&h->flattab,
				      flattab_hash_inline(&h->flattab, key), key);
	struct htab_node *n =
		tagtab_lookup(&h->table, tagtab_hash(&h->table, key), key);
	return n ? htab_node_value(n, m->attr.key_size) : NULL;
}

/*
 * A batch: every key hashed and its bucket's line asked for first, then
 * the probes, which find most lines arrived.  One lookup after another
 * waits for each bucket in turn; here the n misses overlap, up to what the
 * cpu can keep in flight (docs/hash.md, "Batched lookups").
 */
static unsigned seqlock_buckets_lookup_batch(struct map *m, const void *keys,
					     unsigned n, void **values)
{
	struct seqlock_buckets *h = seqlock_buckets_of(m);
	const uint8_t *k = keys;
	uint32_t ks = m->attr.key_size, hash[MAP_BATCH_MAX];
	unsigned hits = 0;
	for (unsigned i = 0; i < n; i++) {
		if (h->flat) {
			hash[i] = flattab_hash_inline(&h->flattab,
						      k + (size_t)i * ks);
			flattab_prefetch(&h->flattab, hash[i]);
		} else {
			hash[i] = tagtab_hash(&h->table, k + (size_t)i * ks);
			tagtab_prefetch(&h->table, hash[i]);
		}
	}
	for (unsigned i = 0; i < n; i++, k += ks) {
		if (h->flat) {
			values[i] = flattab_lookup(&h->flattab, hash[i], k);
		} else {
			struct htab_node *node =
				tagtab_lookup(&h->table, hash[i], k);
			values[i] = node ? htab_node_value(node, ks) : NULL;
		}
		hits += values[i] != NULL;
	}
	return hits;
}

static int seqlock_buckets_lookup_copy(struct map *m, const void *key,
				       void *value)
{
	struct seqlock_buckets *h = seqlock_buckets_of(m);
	if (h->flat) {
		uint64_t word;
		int err = flattab_lookup_word(
			&h->flattab, flattab_hash_inline(&h->flattab, key), key,
			&word);
		if (!err)
			memcpy(value, &word, m->attr.value_size);
		return err;
	}
	if (!h->value_in_place)
		return map_copy_value_rcu(m, seqlock_buckets_lookup, key, value);
	map_rcu_read_lock();
	uint64_t *v = seqlock_buckets_lookup(m, key);
	uint64_t word = v ? __atomic_load_n(v, __ATOMIC_RELAXED) : 0;
	map_rcu_read_unlock();
	if (!v)
		return -ENOENT;
	memcpy(value, &word, m->attr.value_size);
	return 0;
}

/* Bucket lock held: the new value over the old, in one store. */
static void store_in_place(struct htab_node *n, uint32_t key_size,
			   const void *value, uint32_t value_size)
{
	uint64_t word = 0;
	memcpy(&word, value, value_size);
	__atomic_store_n((uint64_t *)htab_node_value(n, key_size), word,
			 __ATOMIC_RELAXED);
}

static int seqlock_buckets_update(struct map *m, const void *key,
				  const void *value, uint64_t flags)
{
	struct seqlock_buckets *h = seqlock_buckets_of(m);
	struct tagtab_update u;
	int err = map_update_flags_valid(flags);
	if (err)
		return err;
	if (h->flat) {
		uint64_t word = 0;
		memcpy(&word, value, m->attr.value_size);
		return flattab_update(&h->flattab,
				      flattab_hash(&h->flattab, key), key, word,
				      flags);
	}
	unsigned cpu = map_this_cpu();
	uint32_t hash = tagtab_hash(&h->table, key);
	tagtab_prefetch_for_write(&h->table, hash);

	err = tagtab_update_begin(&h->table, key, hash, flags, &u);
	if (err)
		return err;
	if (u.old && h->value_in_place) {
		store_in_place(u.old, m->attr.key_size, value,
			       m->attr.value_size);
		tagtab_update_abort(&u); /* nothing linked or unlinked */
		return 0;
	}
	/* As hash/linux: the free list's lock inside the bucket's (the free
	 * list never takes a bucket lock). */
	struct seqlock_buckets_elem *e =
		u.old ? elem_pool_swap_extra(&h->pool, cpu, elem_of_node(u.old))
		      : elem_pool_pop(&h->pool, cpu);
	if (!e) {
		tagtab_update_abort(&u);
		return -E2BIG;
	}
	tagtab_update_commit(&h->table, &u, &e->node, key, value,
			     m->attr.value_size);
	return 0;
}

static int seqlock_buckets_delete(struct map *m, const void *key)
{
	struct seqlock_buckets *h = seqlock_buckets_of(m);
	if (h->flat)
		return flattab_delete(&h->flattab,
				      flattab_hash(&h->flattab, key), key);
	struct htab_node *n = tagtab_delete_key(&h->table, key);
	if (!n)
		return -ENOENT;
	elem_pool_push(&h->pool, map_this_cpu(), elem_of_node(n));
	return 0;
}

static int seqlock_buckets_get_next_key(struct map *m, const void *key,
					void *next)
{
	struct seqlock_buckets *h = seqlock_buckets_of(m);
	if (h->flat)
		return flattab_next_key(&h->flattab, key, next);
	map_rcu_read_lock();
	int err = tagtab_next_key_rcu(&h->table, key, next);
	map_rcu_read_unlock();
	return err;
}

static size_t seqlock_buckets_memory(const struct map *m)
{
	const struct seqlock_buckets *h = (const struct seqlock_buckets *)m;
	if (h->flat)
		return sizeof(*h) + flattab_bytes(&h->flattab);
	return sizeof(*h) + tagtab_bytes(&h->table) +
	       (size_t)h->pool.n_elems * h->elem_size +
	       (size_t)m->attr.ncpus * (sizeof(struct pcpu_freelist_head) +
					sizeof(struct elem_pool_extra));
}

const struct map_ops hash_seqlock_buckets_ops = {
	.name = "hash/seqlock_buckets",
	.description = "BPF hash semantics for speed: small keys and values "
		       "inside 64-byte buckets, tagged buckets for the rest, "
		       "seqlock readers, XXH3",
	.type = MAP_TYPE_HASH,
	.create = seqlock_buckets_create,
	.destroy = seqlock_buckets_destroy,
	.lookup = seqlock_buckets_lookup,
	.lookup_batch = seqlock_buckets_lookup_batch,
	.lookup_copy = seqlock_buckets_lookup_copy,
	.update = seqlock_buckets_update,
	.delete = seqlock_buckets_delete,
	.get_next_key = seqlock_buckets_get_next_key,
	.memory = seqlock_buckets_memory,
};
