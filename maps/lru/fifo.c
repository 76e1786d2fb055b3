/* SPDX-License-Identifier: MIT */
/*
 * lru/fifo: first in, first out.  Every key in use sits on one queue in
 * the order it was inserted; the oldest insert leaves first, however often
 * it was used.  A reference for `maplab sim` and the floor every other
 * policy should beat: it keeps no reference bit at all.
 *
 *   lookup (program): nothing.  No lock, no store: a hit changes nothing.
 *   insert: a key that gets a free element enters at the queue's head.
 *   evict:  the tail (the oldest insert) leaves; its element, reused for
 *           the new key, moves to the head.
 *   delete: off the queue, onto the free list.
 *   replace: the new element takes the old one's place (a new value is
 *           not a new insert, and a write is no more a hit than a read).
 *
 * This is libCacheSim's FIFO (libCacheSim/cache/eviction/FIFO.c, commit
 * 2800fe42f22b15a29c4efda0a473bafa05c2b169, read for behaviour: insert at
 * q_head, evict q_tail, FIFO_find does not touch the queue).  On one
 * thread the two evict the same keys in the same order.  Beyond FIFO.c
 * (which has no updates): the replace above, and, the core popping before
 * it looks (the kernel's order), an update of a present key in a full map
 * first evicts the oldest key.
 *
 * Concurrency.  `lock` guards the queue, the free list and each element's
 * `type`; insert (pop_free), eviction, replace and delete (push_free) take
 * it; a lookup never does, and writes nothing.  Invariants under the lock:
 *  - every element is on exactly one of `queue` and `free`, as `type` says;
 *  - a popped element is on the queue before the table links it.
 * An eviction that cannot unlink the tail (a concurrent update or delete
 * took it out of the table first; its push_free is on its way) moves it to
 * the head and tries the next: one pass over the queue at most, then
 * NULL (the update answers -ENOMEM) when every element is mid-update
 * elsewhere.  On one thread the tail always unlinks.
 * Lock order: `lock`, then a bucket lock (lru_htab_evict).
 */
#include "maps/base/lock.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_htab.h"
#include "maps/lru/core/lru_queue.h"

#include <errno.h>
#include <stdlib.h>

enum { ON_FREE, ON_QUEUE };

struct fifo_lru {
	struct map_spinlock lock;
	struct lru_queue queue;
	struct dlist free;
};

static struct fifo_lru *fifo_state(struct lru_htab *h)
{
	return h->policy_state;
}

static int fifo_init(struct lru_htab *h)
{
	struct fifo_lru *q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	map_spin_init(&q->lock);
	lru_queue_init(&q->queue);
	dlist_init(&q->free);
	for (uint32_t i = 0; i < h->n_elems; i++) {
		struct lru_node *n = lru_htab_node(h, i);
		n->type = ON_FREE;
		dlist_add_tail(&n->link, &q->free);
	}
	h->policy_state = q;
	return 0;
}

static void fifo_fini(struct lru_htab *h)
{
	free(h->policy_state);
}

/*
 * Lock held: unlink the oldest key that is still in the table and hand
 * its element back, moved to the head for the new key.  NULL when every
 * element is mid-update elsewhere.
 */
static struct lru_node *fifo_evict_oldest(struct lru_htab *h, unsigned cpu)
{
	struct fifo_lru *q = fifo_state(h);
	struct map_work_slot *w = lru_work(h, cpu);
	map_work_count(&w->refills, 1);
	for (uint32_t tried = 0; tried < q->queue.len; tried++) {
		struct lru_node *n = lru_queue_oldest(&q->queue);
		map_work_count(&w->nodes_scanned, 1);
		lru_queue_requeue(&q->queue, n);
		if (lru_htab_evict(h, cpu, n))
			return n;
	}
	return NULL;
}

static struct lru_node *fifo_pop_free(struct lru_htab *h, unsigned cpu,
				      uint32_t hash)
{
	struct fifo_lru *q = fifo_state(h);
	lru_lock(h, cpu, &q->lock);
	struct dlist *f = dlist_first(&q->free);
	struct lru_node *n = NULL;
	if (f) {
		n = lru_node_of(f);
		dlist_del(f);
		lru_queue_push(&q->queue, n);
		n->type = ON_QUEUE;
	} else {
		n = fifo_evict_oldest(h, cpu);
	}
	if (n)
		lru_node_set_hash(n, hash);
	map_spin_unlock(&q->lock);
	return n;
}

static void fifo_push_free(struct lru_htab *h, unsigned cpu,
			   struct lru_node *n)
{
	struct fifo_lru *q = fifo_state(h);
	lru_lock(h, cpu, &q->lock);
	lru_queue_del(&q->queue, n);
	n->type = ON_FREE;
	dlist_add(&n->link, &q->free);
	map_spin_unlock(&q->lock);
}

/* A hit changes nothing: no bit to set, no lock to take. */
static void fifo_referenced(struct lru_htab *h, unsigned cpu,
			    struct lru_node *n)
{
	(void)h, (void)cpu, (void)n;
}

/*
 * A replace keeps the key's age: n takes old's place.  n may have been
 * evicted and reused since the table linked it (by another thread): then
 * it is that key's now, and moving it only shifts that key's turn.
 */
static void fifo_replaced(struct lru_htab *h, unsigned cpu, struct lru_node *n,
			  struct lru_node *old)
{
	struct fifo_lru *q = fifo_state(h);
	lru_lock(h, cpu, &q->lock);
	if (n->type == ON_QUEUE && old->type == ON_QUEUE) {
		lru_queue_del(&q->queue, n);
		lru_queue_add_beside(&q->queue, n, old);
	}
	map_spin_unlock(&q->lock);
}

static int fifo_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt)
{
	struct fifo_lru *q = fifo_state(h);
	map_spin_lock(&q->lock);
	lru_dump_begin(f, fmt, "lru/fifo: newest first; the last key leaves "
			       "next");
	lru_dump_list(h, f, fmt, "queue", "queue", &q->queue.head, NULL);
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "free: %zu elements\n", lru_dump_list_length(&q->free));
	lru_dump_end(f, fmt);
	map_spin_unlock(&q->lock);
	return 0;
}

/* Nothing per element beyond lru_node: the queue's head and the lock. */
static size_t fifo_state_bytes(const struct lru_htab *h)
{
	(void)h;
	return sizeof(struct fifo_lru);
}

static const struct lru_policy fifo_policy = {
	.init = fifo_init,
	.fini = fifo_fini,
	.pop_free = fifo_pop_free,
	.push_free = fifo_push_free,
	.referenced = fifo_referenced,
	.replaced = fifo_replaced,
	.dump = fifo_dump,
	.state_bytes = fifo_state_bytes,
};

static int fifo_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&fifo_policy, attr, out);
}

const struct map_ops lru_fifo_ops = {
	.name = "lru/fifo",
	.description = "FIFO: a hit changes nothing; the oldest insert "
		       "leaves, under one lock",
	LRU_HTAB_MAP_OPS,
	.create = fifo_create,
	.one_hit_may_not_save = 1,
};
