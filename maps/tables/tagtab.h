/* SPDX-License-Identifier: MIT */
/*
 * tagtab.h: a table of cache-line buckets with short hash tags, for the
 * designs that are not the kernel's and want fewer cache misses per op
 * than htab's chains (lru/sieve_percpu; hash/seqlock_buckets builds on it too).  The
 * protocol is htab's (lookup under RCU; update begin/commit/abort;
 * delete; unlink one exact node; get_next_key), on the same struct
 * htab_node, so a design can run on either table.
 *
 *   buckets[i], 64 bytes, one cache line:
 *     [seq][tag0..tag7][index0..index7][overflow -> node -> node -> NULL]
 *     seq:       map_seqlock: the writers' lock and the readers' count
 *     tag[s]:    16 bits from the key's hash; 0 = slot s is empty
 *     index[s]:  the element's number (its node at base + index * elem_size)
 *     overflow:  keys beyond 8, chained through their nodes' chain.next
 *
 * Why it is cheaper than a chain: a lookup that misses reads one line (a
 * chain reads the bucket, then every node in it); a hit reads the bucket
 * and one element, compared only when its tag matches (1 in 32768 for a
 * wrong key).  n_buckets = roundup_pow_of_two(max_entries / 4), so a full
 * map holds 2 to 4 keys a bucket on average and about 2 % of the keys
 * overflow at 4 (Poisson).
 *
 * Hash: XXH3 (libxxhash), 64 bits cut to 32, seeded unless zero_seed.
 * The bucket is hash & (n_buckets - 1); the tag a multiplicative remix of
 * all 32 bits, so that two keys of one bucket rarely share it.  A node
 * keeps its 32-bit hash (node->hash), from which bucket and tag follow.
 *
 * Readers write nothing: they read a bucket between map_seq_read_begin
 * and map_seq_read_retry, and trust a match only when the retry says the
 * bucket did not change while they compared (then the element was in it
 * all along, and a key is written only before its element is linked).
 * Elements must be preallocated and stay mapped while the table lives: a
 * reader may read a node that a writer has just unlinked and reused; the
 * retry throws such a read away.  A returned node's value may change under
 * a program-style reader, as in the kernel's preallocated maps.
 *
 * Writers hold the bucket's seqlock from begin to commit/abort, as
 * htab's bucket lock; a design's own locks come first (lock order:
 * design lock, then bucket), as there.
 */
#ifndef MAPLAB_TAGTAB_H
#define MAPLAB_TAGTAB_H

#include "maps/tables/htab.h"
#include "maps/base/lock.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAGTAB_SLOTS 8

struct tagtab_bucket {
	struct map_seqlock seq;
	_Atomic uint16_t tag[TAGTAB_SLOTS];
	_Atomic uint32_t index[TAGTAB_SLOTS];
	_Atomic(struct htab_node *) overflow;
} __attribute__((aligned(64)));

struct tagtab {
	struct tagtab_bucket *buckets;
	uint32_t n_buckets; /* a power of two */
	uint32_t seed;
	uint32_t key_size;
	uint32_t node_offset; /* an element's htab_node, bytes from its start */
	uint8_t *elems;       /* the design's elements, elem_size bytes each */
	size_t elem_size;
	uint32_t n_elems;
};

/*
 * The table for max_entries keys over the design's n_elems elements
 * (allocated by the design, laid out as htab.h draws them, the node
 * node_offset bytes into each).  Writes each node's index.  0 or -ENOMEM.
 */
int tagtab_init(struct tagtab *t, uint32_t max_entries, uint32_t key_size,
		int zero_seed, uint8_t *elems, size_t elem_size,
		size_t node_offset, uint32_t n_elems);
void tagtab_destroy(struct tagtab *t);
size_t tagtab_bytes(const struct tagtab *t);

uint32_t tagtab_hash(const struct tagtab *t, const void *key);

/* A writer that will lock the bucket of hash soon, and read it first: load
 * the line for writing now, so that the lock does not have to ask for it
 * again after the read (prefetchw: one transfer instead of two). */
static inline void tagtab_prefetch_for_write(const struct tagtab *t,
					     uint32_t hash)
{
	map_prefetch_for_write(&t->buckets[hash & (t->n_buckets - 1)]);
}

/* A reader that will look up hash soon (a batch of lookups): ask for its
 * bucket's line now, so that the batch's misses overlap. */
static inline void tagtab_prefetch(const struct tagtab *t, uint32_t hash)
{
	__builtin_prefetch(&t->buckets[hash & (t->n_buckets - 1)]);
}

/* RCU read section held (for the node's use after the return).  The node
 * holding key, or NULL. */
struct htab_node *tagtab_lookup(struct tagtab *t, uint32_t hash,
				const void *key);

/* The update protocol of htab.h, with the same contracts. */
struct tagtab_update {
	uint32_t hash;
	struct tagtab_bucket *bucket; /* locked between begin and commit/abort */
	struct htab_node *old;        /* the key's node, or NULL */
	int slot;                     /* old's slot, or -1: in the overflow */
};

int tagtab_update_begin(struct tagtab *t, const void *key, uint32_t hash,
			uint64_t flags, struct tagtab_update *u);
void tagtab_update_commit(struct tagtab *t, struct tagtab_update *u,
			  struct htab_node *n, const void *key,
			  const void *value, uint32_t value_size);
void tagtab_update_abort(struct tagtab_update *u);

struct htab_node *tagtab_delete_key(struct tagtab *t, const void *key);
bool tagtab_unlink_node(struct tagtab *t, struct htab_node *n);

/* get_next_key in the table's own order: buckets in turn, in each the
 * slots, then the overflow.  Visits every key once when nothing changes.
 * RCU read section held.  0, -ENOENT after the last key, or -ENOMEM (a key
 * over 64 bytes is read into a scratch copy first: next is written only
 * with a whole key). */
int tagtab_next_key_rcu(struct tagtab *t, const void *key, void *next);

#endif /* MAPLAB_TAGTAB_H */
