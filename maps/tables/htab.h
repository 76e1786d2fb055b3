/* SPDX-License-Identifier: MIT */
/*
 * htab.h: the hash core every BPF-semantics hash design is built on
 * (hash/linux today; the LRU hashes are this core plus an eviction
 * policy): the bucket array, its nulls chains, the locked update
 * protocol, and unlinking one exact node.
 *
 *   buckets[0]  [lock] first -> node -> node -> NULLS(0)
 *   buckets[1]  [lock] first -> NULLS(1)
 *   buckets[2]  [lock] first -> node -> NULLS(2)
 *   ...                       n_buckets = roundup_pow_of_two(max_entries)
 *
 *   element: [design's header][htab_node: chain, hash][key, padded to 8][value, padded to 8]
 *                              ^ embedded last         ^ htab_node_key()  ^ htab_node_value()
 *
 * As the kernel's hashtab.c: a key lives in bucket (hash & (n_buckets - 1)),
 * hash = jhash(key, key_size, seed); new and replacing nodes go to the head
 * of their chain, so a chain reads newest first; the full 32-bit hash is
 * kept in the node and compared before the key bytes.
 *
 * Locks.  bucket.lock guards its chain's links and the choice between
 * insert and replace.  Readers take no lock: they walk under RCU and
 * restart when a walk ends on another bucket's nulls marker
 * (nulls_list.h says why that can happen).
 *
 * Lock order, for designs that add their own locks (the LRU lists): an
 * LRU lock is taken BEFORE a bucket lock, never the reverse.  Eviction
 * holds the LRU list's lock and calls htab_unlink_node(), which takes the
 * node's bucket lock; so code that holds a bucket lock must not take an
 * LRU lock (the kernel's bpf_lru_list.c and hashtab.c keep the same order).
 */
#ifndef MAPLAB_HTAB_H
#define MAPLAB_HTAB_H

#include "maps/base/jhash.h"
#include "maps/base/lock.h"
#include "maps/base/nulls_list.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct htab_node {
	struct nulls_node chain;
	uint32_t hash;
	uint32_t index; /* tagtab.h: the element's number (its buckets hold
			   numbers, not pointers); unused by the chains */
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

/*
 * Bytes of one element whose htab_node sits node_offset bytes in (the
 * design's header before it): node, key and value, each padded to 8 as
 * the kernel pads them.
 */
static inline size_t htab_elem_size(size_t node_offset, uint32_t key_size,
				    uint32_t value_size)
{
	return node_offset + sizeof(struct htab_node) + HTAB_ROUND8(key_size) +
	       HTAB_ROUND8(value_size);
}

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

/* A hash seed from getrandom (tagtab.c seeds with it too). */
uint32_t htab_random_seed(void);

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

/* --- the locked update protocol ----------------------------------------------
 *
 *   htab_update_begin   lock the key's bucket, find its node, check flags
 *   (the design picks or fills an element: a spare, a free-list pop, ...)
 *   htab_update_commit  fill hash (unless the node has it already: an LRU
 *                       stores it when it pops the element, under its own
 *                       lock, and an eviction may be reading it), key and
 *                       value; link the new node at the head; unlink the
 *                       old one; unlock
 *   or htab_update_abort  unlock, nothing changed
 *
 * New before old out, as the kernel does: a reader that starts after the
 * link finds the new node first.  One already past the head, before the
 * old node, finds neither: a lookup racing a replace can miss the key
 * (the cost of never blocking readers; docs/hash_linux.md).  After commit
 * the old node is unlinked but still readable: the design frees it after
 * a grace period, or reuses it at once as the kernel's preallocated maps
 * do.
 */
struct htab_update {
	uint32_t hash;
	struct htab_bucket *bucket; /* locked between begin and commit/abort */
	struct htab_node *old;      /* the key's node, or NULL */
};

/* 0 with the bucket locked, or the flags' error (-EEXIST, -ENOENT) with
 * nothing locked.  flags must already be valid (map_update_flags_valid). */
int htab_update_begin(struct htab_table *t, const void *key, uint64_t flags,
		      struct htab_update *u);
/* The same for a key whose hash the caller has (htab_hash). */
int htab_update_begin_hashed(struct htab_table *t, const void *key,
			     uint32_t hash, uint64_t flags,
			     struct htab_update *u);
void htab_update_commit(struct htab_table *t, struct htab_update *u,
			struct htab_node *n, const void *key,
			const void *value, uint32_t value_size);
void htab_update_abort(struct htab_update *u);

/* Lock, find and unlink the key's node: the node (readable until the
 * design frees it), or NULL when the key is absent. */
struct htab_node *htab_delete_key(struct htab_table *t, const void *key);

/*
 * Unlink exactly node n if it is still in its chain, under its bucket's
 * lock; false when it is not there any more (a concurrent update or delete
 * unlinked it first).  What an LRU's eviction needs: it picks a node from
 * its list without the bucket lock, and must not unlink a node that has
 * since left the table (the kernel's htab_lru_map_delete_node).
 */
bool htab_unlink_node(struct htab_table *t, struct htab_node *n);

/*
 * get_next_key in the kernel's order (htab_map_get_next_key): key == NULL
 * or a key not in the table -> the first key of the first non-empty bucket;
 * else the next node in key's chain, else the first node of a following
 * bucket.  RCU read section held.  0, or -ENOENT after the last key.
 */
int htab_next_key_rcu(struct htab_table *t, const void *key, void *next);

/* Single-threaded (destroy): call fn on every node still chained. */
void htab_for_each_node(struct htab_table *t,
			void (*fn)(struct htab_node *n, void *arg), void *arg);

#endif /* MAPLAB_HTAB_H */
