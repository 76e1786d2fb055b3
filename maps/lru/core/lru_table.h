/* SPDX-License-Identifier: MIT */
/*
 * lru_table.h: the table an LRU hash (lru_htab) keeps its keys in, one of
 * two engines of maps/tables behind one small table of operations:
 *
 *   lru_table_chains   htab.h: the kernel's bucket array of nulls chains,
 *                      a spin lock per bucket.  The faithful designs and
 *                      every textbook one.
 *   lru_table_tagged   tagtab.h: cache-line buckets of tags and element
 *                      numbers, a seqlock per bucket.  lru/sieve_percpu
 *                      (docs/lru-sieve-percpu.md, choice 5).
 *
 * lru_htab_create picks one, once, from the policy's tagged_table, and
 * every operation after that calls through it: the core and the policies
 * never ask which table they are on.  Both hold the same struct htab_node,
 * last in each element (lru_htab.h draws one), and keep the same
 * contracts (htab.h's): lookups and get_next_key in an RCU read section
 * with no lock; an update locks the key's bucket in update_begin and
 * unlocks it in update_commit (or, refused by the flags, in update_begin
 * itself); delete_key and unlink_node take the bucket's lock themselves.
 * Lock order: a policy's lock, then a bucket lock, never the reverse.
 *
 * Why function pointers, and not a test of a flag in each op (as before)
 * or one copy of each op per table: the engines' calls were out of line
 * already (jhash too), so the ops add one indirect call where there was a
 * direct one, always to the same target for a map, and take away the
 * flag's loads and branches.  Counted by cachegrind on `maplab bench
 * --mix lookup=90,update=10 --entries 65536` (the difference of 100K and
 * 300K ops, so the prefill cancels out): lru/linux_common 312.2 ->
 * 312.7 instructions an op, lru/clock 300.4 -> 300.9, lru/sieve_percpu
 * 287.5 -> 286.4, with 2.1 more indirect branches an op and no more
 * mispredicted; timed, builds in turn, the two were within the noise of
 * this shared 2-cpu VM (the commit that brought this file gives the
 * figures).
 */
#ifndef MAPLAB_LRU_TABLE_H
#define MAPLAB_LRU_TABLE_H

#include "maps/base/map.h"
#include "maps/tables/htab.h"
#include "maps/tables/tagtab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The table itself: the one its ops name. */
union lru_table {
	struct htab_table chains;
	struct tagtab tagged;
};

/* An update's state between update_begin and update_commit. */
union lru_table_update {
	struct htab_update chains;
	struct tagtab_update tagged;
};

struct lru_table_ops {
	const char *name; /* "chains" or "tagged" */

	/* The table for attr's max_entries keys, seeded unless
	 * MAP_F_ZERO_SEED, over the map's n_elems elements (elem_size bytes
	 * each from elems, the htab_node node_offset bytes in: the tagged
	 * table numbers them).  0 or -ENOMEM; destroy undoes a failed init. */
	int (*init)(union lru_table *t, const struct map_attr *attr,
		    uint8_t *elems, size_t elem_size, size_t node_offset,
		    uint32_t n_elems);
	void (*destroy)(union lru_table *t);
	/* Bytes of the buckets (map_ops.memory). */
	size_t (*bytes)(const union lru_table *t);

	/* The key's 32-bit hash (kept in its htab_node). */
	uint32_t (*hash)(const union lru_table *t, const void *key);
	/* The same, for an update that is about to lock the key's bucket:
	 * the tagged table also loads the bucket's line for writing now
	 * (tagtab_prefetch_for_write), while the policy pops an element. */
	uint32_t (*update_hash)(const union lru_table *t, const void *key);

	/* RCU read section held.  The node holding key, or NULL. */
	struct htab_node *(*lookup)(union lru_table *t, uint32_t hash,
				    const void *key);
	/* Lock the key's bucket, find its node (*old, or NULL) and check the
	 * flags: 0 with the bucket locked, or the flags' error with nothing
	 * locked. */
	int (*update_begin)(union lru_table *t, const void *key, uint32_t hash,
			    uint64_t flags, union lru_table_update *u,
			    struct htab_node **old);
	/* Link n (hash already set) with key and value at the head, unlink
	 * the old node, unlock. */
	void (*update_commit)(union lru_table *t, union lru_table_update *u,
			      struct htab_node *n, const void *key,
			      const void *value, uint32_t value_size);
	/* Lock, find and unlink the key's node: it, or NULL when absent. */
	struct htab_node *(*delete_key)(union lru_table *t, const void *key);
	/* Unlink exactly n if it is still in the table (an eviction): false
	 * when a concurrent update or delete unlinked it first. */
	bool (*unlink_node)(union lru_table *t, struct htab_node *n);
	/* RCU read section held.  get_next_key in the table's order. */
	int (*next_key_rcu)(union lru_table *t, const void *key, void *next);
};

extern const struct lru_table_ops lru_table_chains;
extern const struct lru_table_ops lru_table_tagged;

#endif /* MAPLAB_LRU_TABLE_H */
