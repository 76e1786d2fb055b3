/* SPDX-License-Identifier: MIT */
/*
 * hash/cow: the hash table of eBPF for Windows (libs/runtime/
 * ebpf_hash_table.c, as ../shared/research/bpf_performance.md section 2.1
 * describes it), reimplemented from that description: per-bucket locks,
 * lock-free readers, and copy-on-write buckets.
 *
 *   buckets[i]: [lock][data] -> immutable bucket: [count][backup][entry 0][entry 1]...
 *                                entry: [value block pointer][key bytes]
 *   value block: [rcu head][value]      allocated per update, never reused
 *
 * A reader finds its bucket, loads the data pointer once, scans the keys
 * inline, and returns the value block's value: it takes no lock and
 * writes nothing.  A writer, under the bucket's lock, never changes what a
 * reader may be looking at: every update, an overwrite included, allocates
 * a new value block and a new bucket array (the old entries and the
 * change), publishes the new array with one release store, and frees the
 * old array and the old value after an RCU grace period (Windows uses its
 * epoch allocator).  An insert also allocates a "backup" array one entry
 * smaller than the new one, which the next delete uses.  (Windows keeps a
 * backup per entry, so that a delete never allocates; hash/cow keeps one
 * per array and makes the next one after each delete, an allocation the
 * Windows design does not pay.)  So an overwrite costs two allocations and two
 * deferred frees, where hash/linux swaps in a preallocated element: the
 * price of readers that never see an element reused (docs/hash.md).
 *
 * Limits: Windows' BPF_MAP_TYPE_HASH has no entry limit; hash/cow keeps
 * BPF's -E2BIG at max_entries, with an atomic count of live keys raised
 * before an insert (the fixed-size tables of Windows do the same with an
 * interlocked count).  The hash is jhash (Windows: CRC32 or Murmur3), and
 * BPF_F_NO_PREALLOC is accepted and changes nothing (nothing is
 * preallocated here).
 *
 * Invariants, under a bucket's lock: its array holds each of its keys
 * once; a published array is never written again; an array or value block
 * is freed only after it is unpublished and a grace period has passed.
 */
#include "maps/common/area.h"
#include "maps/common/attr.h"
#include "maps/common/jhash.h"
#include "maps/common/lock.h"
#include "maps/common/map.h"
#include "maps/common/rcu.h"
#include "maps/common/update_flags.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct cow_value {
	struct rcu_head rcu;
	_Alignas(8) uint8_t data[]; /* value_size bytes */
};

struct cow_entry {
	struct cow_value *value;
	/* key bytes follow, padded to 8 */
};

struct cow_array {
	struct rcu_head rcu;
	uint32_t count;
	struct cow_array *backup; /* count - 1 entries, for the next delete */
	/* count entries of entry_size bytes follow */
};

/* 16 bytes, as Windows' {bucket pointer, lock} pair: four to a line */
struct cow_bucket {
	struct map_spinlock lock;
	_Atomic(struct cow_array *) data; /* NULL: empty */
};

struct cow_htab {
	struct map map;
	struct cow_bucket *buckets;
	uint32_t n_buckets, seed;
	size_t entry_size;
	atomic_uint count;   /* live keys, for -E2BIG */
	_Atomic int64_t bytes; /* arrays and values allocated, not yet freed */
};

static struct cow_htab *cow_of(struct map *m)
{
	return (struct cow_htab *)m;
}

static struct cow_entry *entry_at(const struct cow_htab *h,
				  const struct cow_array *a, uint32_t i)
{
	return (struct cow_entry *)((uint8_t *)(a + 1) + i * h->entry_size);
}

static void *entry_key(struct cow_entry *e)
{
	return e + 1;
}

static uint32_t bucket_index(const struct cow_htab *h, const void *key)
{
	return map_jhash(key, h->map.attr.key_size, h->seed) &
	       (h->n_buckets - 1);
}

static struct cow_bucket *bucket_of(struct cow_htab *h, const void *key)
{
	return &h->buckets[bucket_index(h, key)];
}

/* --- allocation: every block is counted, freed after a grace period ---------- */

static size_t array_bytes(const struct cow_htab *h, uint32_t count)
{
	return sizeof(struct cow_array) + (size_t)count * h->entry_size;
}

static struct cow_array *array_new(struct cow_htab *h, uint32_t count)
{
	struct cow_array *a = malloc(array_bytes(h, count));
	if (!a)
		return NULL;
	a->count = count;
	a->backup = NULL;
	atomic_fetch_add(&h->bytes, (int64_t)array_bytes(h, count));
	return a;
}

static struct cow_value *value_new(struct cow_htab *h, const void *value)
{
	uint32_t vs = h->map.attr.value_size;
	struct cow_value *v = malloc(sizeof(*v) + vs);
	if (!v)
		return NULL;
	memcpy(v->data, value, vs);
	atomic_fetch_add(&h->bytes, (int64_t)(sizeof(*v) + vs));
	return v;
}

/* The rcu heads do not know their map: sizes are uncounted when the
 * block is handed to RCU, not when it is freed. */
static void retire_array(struct cow_htab *h, struct cow_array *a)
{
	if (!a)
		return;
	atomic_fetch_sub(&h->bytes, (int64_t)array_bytes(h, a->count));
	map_rcu_free_block(&a->rcu);
}

static void retire_value(struct cow_htab *h, struct cow_value *v)
{
	atomic_fetch_sub(&h->bytes,
			 (int64_t)(sizeof(*v) + h->map.attr.value_size));
	map_rcu_free_block(&v->rcu);
}

static void free_array_now(struct cow_htab *h, struct cow_array *a)
{
	if (!a)
		return;
	atomic_fetch_sub(&h->bytes, (int64_t)array_bytes(h, a->count));
	free(a);
}

/* --- create and destroy --------------------------------------------------------- */

static void cow_destroy(struct map *m)
{
	struct cow_htab *h = cow_of(m);
	for (uint32_t i = 0; h->buckets && i < h->n_buckets; i++) {
		struct cow_array *a = atomic_load(&h->buckets[i].data);
		if (!a)
			continue;
		for (uint32_t e = 0; e < a->count; e++)
			free(entry_at(h, a, e)->value);
		free(a->backup);
		free(a);
	}
	map_rcu_barrier(); /* what updates retired */
	free(h->buckets);
	free(h);
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
	h->n_buckets = map_roundup_pow2(attr->max_entries);
	h->entry_size = sizeof(struct cow_entry) + ((attr->key_size + 7u) & ~7u);
	if (!(attr->flags & MAP_F_ZERO_SEED) &&
	    getrandom(&h->seed, sizeof(h->seed), 0) != sizeof(h->seed))
		h->seed = 0x9e3779b9u;
	h->buckets = map_area_alloc_array(h->n_buckets, sizeof(*h->buckets), 64);
	if (!h->buckets) {
		free(h);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < h->n_buckets; i++) {
		map_spin_init(&h->buckets[i].lock);
		atomic_init(&h->buckets[i].data, NULL);
	}
	*out = &h->map;
	return 0;
}

/* --- readers ------------------------------------------------------------------------ */

/* The key's index in a, or -1. */
static int index_of(const struct cow_htab *h, struct cow_array *a,
		    const void *key)
{
	for (uint32_t i = 0; a && i < a->count; i++)
		if (memcmp(entry_key(entry_at(h, a, i)), key,
			   h->map.attr.key_size) == 0)
			return (int)i;
	return -1;
}

static void *cow_lookup(struct map *m, const void *key)
{
	struct cow_htab *h = cow_of(m);
	struct cow_array *a = atomic_load_explicit(&bucket_of(h, key)->data,
						   memory_order_acquire);
	int i = index_of(h, a, key);
	return i < 0 ? NULL : entry_at(h, a, (uint32_t)i)->value->data;
}

static int cow_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, cow_lookup, key, value);
}

/* --- writers (the bucket's lock held) ---------------------------------------------- */

/* A copy of old with entry i's value replaced by v (old's backup kept). */
static struct cow_array *with_value(struct cow_htab *h, struct cow_array *old,
				    uint32_t i, struct cow_value *v)
{
	struct cow_array *a = array_new(h, old->count);
	if (!a)
		return NULL;
	memcpy(entry_at(h, a, 0), entry_at(h, old, 0),
	       (size_t)old->count * h->entry_size);
	entry_at(h, a, i)->value = v;
	a->backup = old->backup;
	return a;
}

/* old (may be NULL) and one more entry; its backup, one smaller, made too. */
static struct cow_array *with_key(struct cow_htab *h, struct cow_array *old,
				  const void *key, struct cow_value *v)
{
	uint32_t n = old ? old->count : 0;
	struct cow_array *a = array_new(h, n + 1);
	struct cow_array *backup = array_new(h, n);
	if (!a || !backup) {
		free_array_now(h, a);
		free_array_now(h, backup);
		return NULL;
	}
	if (n)
		memcpy(entry_at(h, a, 0), entry_at(h, old, 0), n * h->entry_size);
	struct cow_entry *e = entry_at(h, a, n);
	e->value = v;
	memset(entry_key(e), 0, h->entry_size - sizeof(*e));
	memcpy(entry_key(e), key, h->map.attr.key_size);
	a->backup = backup;
	return a;
}

static int cow_update(struct map *m, const void *key, const void *value,
		      uint64_t flags)
{
	struct cow_htab *h = cow_of(m);
	int err = map_update_flags_valid(flags);
	if (err)
		return err;
	struct cow_bucket *b = bucket_of(h, key);
	map_spin_lock(&b->lock);
	struct cow_array *old = atomic_load_explicit(&b->data,
						     memory_order_relaxed);
	int i = index_of(h, old, key);
	err = map_update_flags_check(i >= 0, flags);
	if (err)
		goto unlock;
	if (i < 0 && atomic_fetch_add(&h->count, 1) >= h->map.attr.max_entries) {
		atomic_fetch_sub(&h->count, 1);
		err = -E2BIG;
		goto unlock;
	}
	struct cow_value *v = value_new(h, value);
	struct cow_array *a = !v ? NULL
			      : i >= 0 ? with_value(h, old, (uint32_t)i, v)
				       : with_key(h, old, key, v);
	if (!a) {
		if (v) {
			atomic_fetch_sub(&h->bytes, (int64_t)(sizeof(*v) +
						      m->attr.value_size));
			free(v);
		}
		if (i < 0)
			atomic_fetch_sub(&h->count, 1);
		err = -ENOMEM;
		goto unlock;
	}
	atomic_store_explicit(&b->data, a, memory_order_release);
	if (i >= 0) {
		retire_value(h, entry_at(h, old, (uint32_t)i)->value);
	} else if (old) {
		/* the new array made its own backup: the old one's goes */
		retire_array(h, old->backup);
	}
	retire_array(h, old);
unlock:
	map_spin_unlock(&b->lock);
	return err;
}

static int cow_delete(struct map *m, const void *key)
{
	struct cow_htab *h = cow_of(m);
	struct cow_bucket *b = bucket_of(h, key);
	map_spin_lock(&b->lock);
	struct cow_array *old = atomic_load_explicit(&b->data,
						     memory_order_relaxed);
	int i = index_of(h, old, key);
	if (i < 0) {
		map_spin_unlock(&b->lock);
		return -ENOENT;
	}
	/* The backup the last insert made (or, if making it failed, one made
	 * now: the only way a delete can run out of memory). */
	struct cow_array *a = old->backup ? old->backup
					  : array_new(h, old->count - 1);
	if (!a) {
		map_spin_unlock(&b->lock);
		return -ENOMEM;
	}
	for (uint32_t s = 0, d = 0; s < old->count; s++)
		if (s != (uint32_t)i)
			memcpy(entry_at(h, a, d++), entry_at(h, old, s),
			       h->entry_size);
	/* the next delete's backup; without memory, that delete makes one */
	a->backup = a->count ? array_new(h, a->count - 1) : NULL;
	struct cow_value *gone = entry_at(h, old, (uint32_t)i)->value;
	atomic_store_explicit(&b->data, a->count ? a : NULL,
			      memory_order_release);
	if (!a->count)
		retire_array(h, a);
	retire_value(h, gone);
	retire_array(h, old); /* not its backup: that is a, published */
	atomic_fetch_sub(&h->count, 1);
	map_spin_unlock(&b->lock);
	return 0;
}

/* get_next_key: buckets in turn, each array in order. */
static int first_from(struct cow_htab *h, uint32_t b, uint32_t from,
		      void *next)
{
	struct cow_array *a = atomic_load_explicit(&h->buckets[b].data,
						   memory_order_acquire);
	if (!a || from >= a->count)
		return -ENOENT;
	memcpy(next, entry_key(entry_at(h, a, from)), h->map.attr.key_size);
	return 0;
}

static int cow_get_next_key(struct map *m, const void *key, void *next)
{
	struct cow_htab *h = cow_of(m);
	uint32_t b = 0, from = 0;
	int err = -ENOENT;
	map_rcu_read_lock();
	if (key) {
		uint32_t home = bucket_index(h, key);
		int i = index_of(h, atomic_load_explicit(&h->buckets[home].data,
							 memory_order_acquire),
				 key);
		if (i >= 0) {
			b = home;
			from = (uint32_t)i + 1;
		}
	}
	for (; b < h->n_buckets && err; b++, from = 0)
		err = first_from(h, b, from, next);
	map_rcu_read_unlock();
	return err;
}

static size_t cow_memory(const struct map *m)
{
	const struct cow_htab *h = (const struct cow_htab *)m;
	int64_t bytes = atomic_load(&((struct cow_htab *)h)->bytes);
	return sizeof(*h) + (size_t)h->n_buckets * sizeof(*h->buckets) +
	       (bytes > 0 ? (size_t)bytes : 0);
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
