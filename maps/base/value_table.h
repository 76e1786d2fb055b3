/* SPDX-License-Identifier: MIT */
/*
 * value_table.h: values by id, for a design whose table answers with
 * ids (lpm_trie/multibit's compiled table, lpm_trie/dpdk's next hops,
 * hash/dpdk's data pointers): each stored key takes an id (1 and up) and
 * its value lives at the id's place, so a lookup's answer is one load
 * from a dense table, not a pointer chased into an element of its own.
 *
 *   chunks -> [c0][c1]...   each VALUE_CHUNK_IDS values of `stride` bytes
 *
 * Contract (map.h's): a value pointer keeps naming its key's value for
 * the reader's RCU section.  So an id is never reused at once: the writer
 * gives it back with value_table_release_later, from an RCU callback run
 * after a grace period, and only then may value_table_take hand it out
 * again.  Chunks never move once made; when ids run out (every one in use
 * or waiting out a grace period) a new chunk is added, and a longer
 * array of chunk pointers replaces the old one (freed after a grace
 * period).  Init makes room for the ids its caller asks for, so a map
 * that stays within them never grows the table.
 *
 * Locks: take, put_now and grow run under the owner's writer lock;
 * release_later may run beside them (an RCU callback): it pushes on a
 * lock-free stack that take empties whole, with one exchange.
 */
#ifndef MAPLAB_VALUE_TABLE_H
#define MAPLAB_VALUE_TABLE_H

#include "maps/base/rcu.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define VALUE_CHUNK_BITS 12
#define VALUE_CHUNK_IDS (1u << VALUE_CHUNK_BITS)

struct value_chunks {
	struct rcu_head rcu; /* first: freed after a grace period */
	uint32_t n;          /* chunk pointers in use */
	unsigned char *chunk[];
};

struct value_table {
	_Atomic(struct value_chunks *) chunks;
	uint32_t stride;     /* value_size rounded up to 8 */
	uint32_t capacity;   /* ids the chunks hold (id 0 is never given) */
	uint32_t next;       /* writer: the first id never given out */
	uint32_t last;       /* the largest id to give (value_table_limit) */
	uint32_t free_list;  /* writer: ids free now, linked through their
				places (0 ends it) */
	_Atomic uint32_t released; /* ids free after their grace period, a
				      stack linked the same way */
	size_t bytes;        /* chunks and the pointer array */
};

/* Room for max_ids ids; 0 or -ENOMEM. */
int value_table_init(struct value_table *t, uint32_t value_size,
		     uint32_t max_ids);
void value_table_destroy(struct value_table *t);

/* Ids up to last only (an owner whose ids are stored in narrower fields):
 * take answers 0 when every one is in use or waiting out its grace
 * period.  Writer, before the first take. */
static inline void value_table_limit(struct value_table *t, uint32_t last)
{
	t->last = last;
}

/* Where id's value lives, for a reader in its RCU section or the
 * writer. */
static inline void *value_table_at(const struct value_table *t, uint32_t id)
{
	const struct value_chunks *c =
		atomic_load_explicit(&t->chunks, memory_order_acquire);
	return c->chunk[id >> VALUE_CHUNK_BITS] +
	       (size_t)(id & (VALUE_CHUNK_IDS - 1)) * t->stride;
}

/* Writer: a free id (its place's bytes undefined), or 0 without memory
 * or past the limit. */
uint32_t value_table_take(struct value_table *t);

/* Writer: id, taken and never shown to a reader, is free again. */
void value_table_put_now(struct value_table *t, uint32_t id);

/* After a grace period since no reader can reach id (an RCU callback):
 * id is free again. */
void value_table_release_later(struct value_table *t, uint32_t id);

/* What carries one id through a grace period (value_table_retire). */
struct value_retired {
	struct rcu_head rcu; /* first: map_rcu_call's */
	struct value_table *values;
	uint32_t id;
};

/* Writer: id, which no reader can reach from now on, free again after a
 * grace period, through r (malloc'd by the caller, so that a writer can
 * take it before it changes anything; freed then). */
void value_table_retire(struct value_table *t, struct value_retired *r,
			uint32_t id);

#endif /* MAPLAB_VALUE_TABLE_H */
