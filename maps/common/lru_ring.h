/* SPDX-License-Identifier: MIT */
/*
 * lru_ring.h: a SIEVE queue, one lock's worth of an LRU policy.  lru/sieve
 * is one ring for the whole map; lru/fast is many, one per shard of the
 * key hashes.  The algorithm, its source and its invariants are in
 * lru_ring.c.
 *
 * Every function takes h (the core, for lru_htab_evict and the work
 * counters), the ring, and the calling cpu slot; each takes the ring's
 * lock itself.  No bucket lock may be held (lock order: ring, then
 * bucket).
 */
#ifndef MAPLAB_LRU_RING_H
#define MAPLAB_LRU_RING_H

#include "lock.h"
#include "lru_htab.h"

#include <stdint.h>
#include <stdio.h>

/* On its own cache lines (two: the next line is prefetched with it), so
 * that rings taken by different threads share no line. */
struct lru_ring {
	struct map_spinlock lock;
	struct dlist queue;   /* sentinel: ->next the head (newest), ->prev
				 the tail (oldest) */
	struct dlist *hand;   /* the next candidate; &queue: start at the tail */
	struct dlist free;    /* elements with no key */
	uint32_t on_queue;
	uint32_t n_elems;     /* elements the ring owns, on either list */
} __attribute__((aligned(128)));

/* An empty ring with no elements. */
void lru_ring_init(struct lru_ring *r);
/* At init, before any other thread sees the ring: n is the ring's, free.
 * n->cpu is set to `id`, which names the ring to its policy. */
void lru_ring_give(struct lru_ring *r, struct lru_node *n, uint16_t id);

/* The policy's pop_free on this ring: a free element, else the first
 * unvisited key's from the hand on; at the head, unvisited, hash set.
 * NULL when every key is mid-update on other threads. */
struct lru_node *lru_ring_pop(struct lru_htab *h, struct lru_ring *r,
			      unsigned cpu, uint32_t hash);
/* The policy's push_free: n, which left the table, back onto the free list. */
void lru_ring_push_free(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
			struct lru_node *n);
/* The policy's replaced: n takes old's place on the ring, visited, as a
 * hit on old would leave it.  Both are this ring's. */
void lru_ring_replaced(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
		       struct lru_node *n, struct lru_node *old);

/* "name (n): newest ... [hand]key ... oldest" and the free count (text),
 * or a dot cluster `id`; the hand is drawn on the key it looks at next. */
void lru_ring_dump(struct lru_htab *h, struct lru_ring *r, FILE *f,
		   enum map_dump_format fmt, const char *id, const char *name);

#endif /* MAPLAB_LRU_RING_H */
