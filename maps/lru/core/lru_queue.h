/* SPDX-License-Identifier: MIT */
/*
 * lru_queue.h: a FIFO queue of an LRU policy's elements, over dlist.h,
 * with its length kept (the textbook FIFO policies, lru/fifo and
 * lru/s3fifo, size their queues and decide by lengths).
 *
 *   head (newest) <-> ... <-> tail (oldest)
 *
 * Elements enter at the head and are looked at from the tail, as
 * libCacheSim's FIFO queues (cache_insert_LRU puts an object at q_head,
 * to_evict takes q_tail).  No locking here: the policy that owns a queue
 * holds its lock around every call.
 */
#ifndef MAPLAB_LRU_QUEUE_H
#define MAPLAB_LRU_QUEUE_H

#include "maps/lru/core/lru_htab.h"

struct lru_queue {
	struct dlist head;
	uint32_t len;
};

static inline void lru_queue_init(struct lru_queue *q)
{
	dlist_init(&q->head);
	q->len = 0;
}

/* n, on no list, enters at the head (the newest end). */
static inline void lru_queue_push(struct lru_queue *q, struct lru_node *n)
{
	dlist_add(&n->link, &q->head);
	q->len++;
}

/* n, on q, leaves it. */
static inline void lru_queue_del(struct lru_queue *q, struct lru_node *n)
{
	dlist_del(&n->link);
	q->len--;
}

/* The oldest element, or NULL when q is empty. */
static inline struct lru_node *lru_queue_oldest(const struct lru_queue *q)
{
	struct dlist *p = dlist_last(&q->head);
	return p ? lru_node_of(p) : NULL;
}

/* n, on q, goes back in at the head (a reinsertion). */
static inline void lru_queue_requeue(struct lru_queue *q, struct lru_node *n)
{
	dlist_move(&n->link, &q->head);
}

/* n, on no list, takes the place of `at` (on q), just on its newer side:
 * once `at` leaves, n stands where it stood. */
static inline void lru_queue_add_beside(struct lru_queue *q,
					struct lru_node *n, struct lru_node *at)
{
	dlist_add_before(&n->link, &at->link);
	q->len++;
}

#endif /* MAPLAB_LRU_QUEUE_H */
