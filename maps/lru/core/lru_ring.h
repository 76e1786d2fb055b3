/* SPDX-License-Identifier: MIT */
/*
 * lru_ring.h: a SIEVE queue, one lock's worth of an LRU policy.  lru/sieve
 * is one ring for the whole map; lru/sieve_percpu is one per cpu slot.  The algorithm, its source and its invariants are in
 * lru_ring.c.
 *
 * Every function takes h (the core, for lru_htab_evict and the work
 * counters), the ring, and the calling cpu slot; each takes the ring's
 * lock itself.  No bucket lock may be held (lock order: ring, then
 * bucket).
 */
#ifndef MAPLAB_LRU_RING_H
#define MAPLAB_LRU_RING_H

#include "maps/base/lock.h"
#include "maps/lru/core/lru_htab.h"

#include <stdatomic.h>
#include <stdbool.h>
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
	_Atomic uint32_t on_queue; /* written under lock, read by any thread */
	uint16_t id;          /* stored in each element's lru_node.cpu */
	/* NULL, or a count of the free elements of every ring that shares
	 * it (lru/sieve_percpu), kept as this ring's free list changes */
	_Atomic uint64_t *free_total;
	uint32_t spares;      /* free elements left out of free_total: 0 or 1 */
} __attribute__((aligned(128)));

/* An empty ring named `id`, counting its free elements into free_total
 * (may be NULL). */
void lru_ring_init(struct lru_ring *r, uint16_t id,
		   _Atomic uint64_t *free_total);
/* At init, before any other thread sees the ring: n is the ring's, free. */
void lru_ring_give(struct lru_ring *r, struct lru_node *n);

/*
 * The policy's pop_free on this ring: a free element, else, if the ring
 * holds at least min_keys keys, the first unvisited key's from the hand
 * on; it goes to the head, unvisited, its hash set.  NULL when neither
 * (or every key is mid-update on other threads).
 */
struct lru_node *lru_ring_pop(struct lru_htab *h, struct lru_ring *r,
			      unsigned cpu, uint32_t hash, uint32_t min_keys);
/* For another ring: a free element of r's (evict false), or the element
 * of r's next victim (evict true), which leaves r.  NULL when none. */
struct lru_node *lru_ring_take(struct lru_htab *h, struct lru_ring *r,
			       unsigned cpu, bool evict);
/* n, taken from another ring, joins r at the head for a key of `hash`. */
void lru_ring_adopt(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
		    struct lru_node *n, uint32_t hash);
/* The policy's push_free: n, which left the table, back onto the free
 * list.  `spare`: if the ring has no spare, n becomes it and free_total
 * is left alone (for a ring's owner, who will pop it next: no shared
 * write, and no other ring comes for it). */
void lru_ring_push_free(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
			struct lru_node *n, bool spare);
/* The policy's replaced: n takes old's place on the ring, visited, as a
 * hit on old would leave it.  Both are this ring's. */
void lru_ring_replaced(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
		       struct lru_node *n, struct lru_node *old);

/* Keys on the ring now (a relaxed read: a hint without the lock). */
static inline uint32_t lru_ring_keys(const struct lru_ring *r)
{
	return atomic_load_explicit(&r->on_queue, memory_order_relaxed);
}

/* "name (n): newest ... [hand]key ... oldest" and the free count (text),
 * or a dot cluster `id`; the hand is drawn on the key it looks at next. */
void lru_ring_dump(struct lru_htab *h, struct lru_ring *r, FILE *f,
		   enum map_dump_format fmt, const char *id, const char *name);

#endif /* MAPLAB_LRU_RING_H */
