/* SPDX-License-Identifier: MIT */
/*
 * htab_table.h: the bucket array and chains shared by the kernel-faithful
 * hash designs (hash/linux now; the LRU designs over the same core later).
 *
 *   buckets[0]  [lock] first -> node -> node -> NULLS(0)
 *   buckets[1]  [lock] first -> NULLS(1)
 *   buckets[2]  [lock] first -> node -> NULLS(2)
 *   ...                       n_buckets = roundup_pow_of_two(max_entries)
 *
 *   node: [chain links][hash][pad][key, padded to 8][value ...]
 *                                  ^ htab_node_key()  ^ key + round_up(key_size, 8)
 *
 * As the kernel's hashtab.c: a key lives in bucket (hash & (n_buckets - 1)),
 * hash = jhash(key, key_size, seed); new and replacing nodes go to the head
 * of their chain, so a chain reads newest first; the full 32-bit hash is
 * kept in the node and compared before the key bytes.
 *
 * Locks: bucket.lock guards the chain's links (add, delete).  Readers take
 * no lock: they walk under RCU and restart when a walk ends on another
 * bucket's nulls marker (nulls_list.h says why that can happen).
 *
 * A design embeds struct htab_node as the last member of its element; the
 * key and value follow it in the same allocation.
 */
#ifndef MAPLAB_HTAB_TABLE_H
#define MAPLAB_HTAB_TABLE_H

#include "jhash.h"
#include "lock.h"
#include "nulls_list.h"

#include <stdint.h>
#include <string.h>

struct htab_node {
	struct nulls_node chain;
	uint32_t hash;
	uint32_t pad;
	/* key, then value, follow */
};

struct htab_bucket {
	struct nulls_head head;
	struct map_spinlock lock;
};

struct htab_table {
	struct htab_bucket *buckets;
	uint32_t n_buckets; /* a power of two */
	uint32_t seed;      /* jhash initval; 0 with BPF_F_ZERO_SEED */
	uint32_t key_size;
};

#define HTAB_ROUND8(x) (((x) + 7u) & ~7u)

static inline void *htab_node_key(struct htab_node *n)
{
	return n + 1;
}

static inline void *htab_node_value(struct htab_node *n, uint32_t key_size)
{
	return (uint8_t *)(n + 1) + HTAB_ROUND8(key_size);
}

static inline struct htab_node *htab_node_of(struct nulls_node *chain)
{
	return (struct htab_node *)((uint8_t *)chain -
				    offsetof(struct htab_node, chain));
}

/*
 * n_buckets = roundup_pow_of_two(max_entries); the seed is random unless
 * zero_seed.  0 or -ENOMEM.
 */
int htab_table_init(struct htab_table *t, uint32_t max_entries,
		    uint32_t key_size, int zero_seed);
void htab_table_destroy(struct htab_table *t);

static inline uint32_t htab_hash(const struct htab_table *t, const void *key)
{
	return map_jhash(key, t->key_size, t->seed);
}

static inline struct htab_bucket *htab_bucket_of(struct htab_table *t,
						 uint32_t hash)
{
	return &t->buckets[hash & (t->n_buckets - 1)];
}

/* RCU read section held.  The node holding key, or NULL. */
struct htab_node *htab_lookup_rcu(struct htab_table *t, uint32_t hash,
				  const void *key);

/* The bucket's lock held.  The node holding key, or NULL. */
struct htab_node *htab_lookup_locked(struct htab_table *t,
				     struct htab_bucket *b, uint32_t hash,
				     const void *key);

/*
 * get_next_key in the kernel's order (htab_map_get_next_key): key == NULL
 * or a key not in the table -> the first key of the first non-empty bucket;
 * else the next node in key's chain, else the first node of a later bucket.
 * RCU read section held.  0, or -ENOENT after the last key.
 */
int htab_next_key_rcu(struct htab_table *t, const void *key, void *next);

/* Single-threaded (destroy): call fn on every node still chained. */
void htab_for_each_node(struct htab_table *t,
			void (*fn)(struct htab_node *n, void *arg), void *arg);

#endif /* MAPLAB_HTAB_TABLE_H */
