/* SPDX-License-Identifier: MIT */
/*
 * lru/clock: CLOCK, second chance with one reference bit.  Every key in use
 * sits on one ring; a hand points at the next candidate for eviction.
 *
 *   lookup (program): set the key's ref bit.  No lock, no list write.
 *   evict:  while the key under the hand is referenced, clear its bit and
 *           step the hand on; evict the first unreferenced key.  The hand
 *           steps past it, and the new key reuses its element in place,
 *           which is now just behind the hand.
 *   insert: a key that gets a free element goes just behind the hand too.
 *   delete: off the ring (a hand on it steps on first).
 *
 * "Just behind the hand" is the one place the hand reaches last, a whole
 * turn from now.  The ring is a dlist with a sentinel that the hand skips;
 * the hand steps towards ->prev and "behind" is hand->next:
 *
 *        newest ... key  key  [hand: oldest]  (sentinel, skipped)
 *   <- the hand moves this way;  a new key goes between the newest and the
 *      hand, i.e. at hand->next
 *
 * Read from hand->next round to the hand, the ring is libCacheSim's Clock
 * queue (libCacheSim/cache/eviction/Clock.c, n-bit-counter=1) from head
 * to tail: Clock inserts at the head with freq 0, a hit sets freq to 1 (it
 * saturates at 1), and eviction looks at the tail: a tail with freq 1 gets
 * 0 and moves to the head, else it leaves.  Our hand passing a referenced
 * key is that move (the key is then the newest, just behind the hand),
 * without rewriting the list; an evicted tail's element, reused in place,
 * is Clock's insert at the head.  So on one thread the two evict the same
 * keys in the same order.  Where the sentinel sits on the ring means
 * nothing (the hand skips it); the dump parks it just behind the hand so
 * that the ring prints newest first and the hand's key last.
 *
 * Beyond Clock (which has neither): a replace puts the new element in the
 * old one's place with its bit set (a write is a hit); and, the core
 * popping before it looks (the kernel's order), an update of a present key
 * in a full map first evicts a key, as the kernel's LRU does.
 *
 * Concurrency.  `lock` guards the ring, the hand, the free list and each
 * element's `type`; it is taken by insert (pop_free), eviction, replace
 * and delete (push_free), never by a lookup, which only stores the bit
 * (a racy store, as the kernel's bpf_lru_node_set_ref: a bit set while the
 * hand clears it can be lost, which costs the key its second chance).
 * Invariants under the lock:
 *  - every element is on exactly one of `ring` and `free`, as `type` says;
 *  - hand == &ring exactly when the ring is empty;
 *  - a popped element is on the ring before the table links it: a sweep
 *    that meets it then fails to unlink it (lru_htab_evict) and steps on.
 * The sweep honours ref bits for two turns, then takes the first key it
 * can unlink: lookups on other threads could otherwise keep it turning.
 * On one thread it never gets there (one turn clears every bit).
 * Lock order: `lock`, then a bucket lock (lru_htab_evict).
 */
#include "maps/base/lock.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_htab.h"

#include <errno.h>
#include <stdlib.h>

enum { ON_FREE, ON_RING };

struct clock_lru {
	struct map_spinlock lock;
	struct dlist ring;   /* sentinel: the hand skips it */
	struct dlist *hand;  /* the next candidate; &ring when empty */
	struct dlist free;
	uint32_t on_ring;
};

static struct clock_lru *clock_state(struct lru_htab *h)
{
	return h->policy_state;
}

static int clock_init(struct lru_htab *h)
{
	struct clock_lru *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	map_spin_init(&c->lock);
	dlist_init(&c->ring);
	dlist_init(&c->free);
	c->hand = &c->ring;
	for (uint32_t i = 0; i < h->n_elems; i++) {
		struct lru_node *n = lru_htab_node(h, i);
		n->type = ON_FREE;
		dlist_add_tail(&n->link, &c->free);
	}
	h->policy_state = c;
	return 0;
}

static void clock_fini(struct lru_htab *h)
{
	free(h->policy_state);
}

/* Where the hand goes from p: the next key towards ->prev, skipping the
 * sentinel.  p itself when it is the only key. */
static struct dlist *clock_step(struct clock_lru *c, struct dlist *p)
{
	return lru_step_wrapping(&c->ring, p);
}

/* Lock held: n onto the ring just behind the hand. */
static void clock_link_behind_hand(struct clock_lru *c, struct lru_node *n)
{
	dlist_add(&n->link, c->hand);
	if (c->hand == &c->ring)
		c->hand = &n->link;
	c->on_ring++;
}

/* Lock held: n off the ring; a hand on n steps on first. */
static void clock_unlink_from_ring(struct clock_lru *c, struct lru_node *n)
{
	if (c->hand == &n->link) {
		struct dlist *next = clock_step(c, &n->link);
		c->hand = next == &n->link ? &c->ring : next;
	}
	dlist_del(&n->link);
	c->on_ring--;
}

/*
 * Lock held: sweep from the hand to the first key that is unreferenced
 * and still in the table, unlink it from the table, and leave the hand on
 * the key after it.  The element stays where it is (just behind the hand
 * now) for the new key.  NULL when every element is mid-update elsewhere.
 */
static struct lru_node *clock_sweep(struct lru_htab *h, unsigned cpu)
{
	struct clock_lru *c = clock_state(h);
	struct dlist *at;
	struct lru_node *n = lru_hand_sweep(h, cpu, &c->ring, c->hand,
					    c->on_ring, &at);
	c->hand = n ? clock_step(c, at) : at;
	return n;
}

static struct lru_node *clock_pop_free(struct lru_htab *h, unsigned cpu,
				       uint32_t hash)
{
	struct clock_lru *c = clock_state(h);
	lru_lock(h, cpu, &c->lock);
	struct dlist *f = dlist_first(&c->free);
	struct lru_node *n = NULL;
	if (f) {
		n = lru_node_of(f);
		dlist_del(f);
		clock_link_behind_hand(c, n);
	} else {
		n = clock_sweep(h, cpu);
	}
	if (n) {
		lru_node_clear_ref(n);
		lru_node_set_hash(n, hash);
		n->type = ON_RING;
	}
	map_spin_unlock(&c->lock);
	return n;
}

static void clock_push_free(struct lru_htab *h, unsigned cpu,
			    struct lru_node *n)
{
	struct clock_lru *c = clock_state(h);
	lru_lock(h, cpu, &c->lock);
	clock_unlink_from_ring(c, n);
	n->type = ON_FREE;
	dlist_add(&n->link, &c->free);
	map_spin_unlock(&c->lock);
}

/*
 * A replace: the new element takes the old one's place (on the side the
 * hand reaches after it, so that once old leaves, n stands exactly where
 * old stood, and a hand on old steps onto n) and is marked, as a hit
 * would mark it.  n may have been evicted and reused since the table
 * linked it, by a sweep on another thread: then it is that key's now,
 * and moving it only shifts that key's turn, as a stale ref bit would.
 */
static void clock_replaced(struct lru_htab *h, unsigned cpu,
			   struct lru_node *n, struct lru_node *old)
{
	struct clock_lru *c = clock_state(h);
	lru_lock(h, cpu, &c->lock);
	if (n->type == ON_RING) {
		clock_unlink_from_ring(c, n);
		dlist_add_before(&n->link, &old->link);
		c->on_ring++;
		lru_node_set_ref(n);
	}
	map_spin_unlock(&c->lock);
}

/* The ring reads newest first, the hand's key last, once the sentinel is
 * parked just behind the hand; that moves no key. */
static int clock_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt)
{
	struct clock_lru *c = clock_state(h);
	map_spin_lock(&c->lock);
	if (c->hand != &c->ring) {
		dlist_del(&c->ring);
		dlist_add(&c->ring, c->hand);
	}
	lru_dump_begin(f, fmt, "lru/clock: newest first; the hand sweeps "
			       "from the last key towards the first");
	lru_dump_list(h, f, fmt, "ring", "ring", &c->ring, c->hand);
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "free: %zu elements\n", lru_dump_list_length(&c->free));
	lru_dump_end(f, fmt);
	map_spin_unlock(&c->lock);
	return 0;
}

static const struct lru_policy clock_policy = {
	.init = clock_init,
	.fini = clock_fini,
	.pop_free = clock_pop_free,
	.push_free = clock_push_free,
	/* .referenced: the core's default, which sets the ref bit */
	.replaced = clock_replaced,
	.dump = clock_dump,
};

static int clock_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&clock_policy, attr, out);
}

const struct map_ops lru_clock_ops = {
	.name = "lru/clock",
	.description = "CLOCK: lookups set a bit without a lock; one hand "
		       "sweeps on eviction, clearing bits, under one lock",
	LRU_HTAB_MAP_OPS,
	.create = clock_create,
};
