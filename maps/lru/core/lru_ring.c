/* SPDX-License-Identifier: MIT */
/*
 * lru_ring.c: SIEVE (Zhang et al., "SIEVE is Simpler than LRU: an
 * Efficient Turn-Key Eviction Algorithm for Web Caches", NSDI 2024), as
 * libCacheSim implements it in libCacheSim/cache/eviction/Sieve.c (commit
 * 11c93a3513bac3693cbc5b056623923f30ec0c3e, read for behaviour; docs/
 * lru-sieve-percpu.md).  One FIFO queue and a hand:
 *
 *   head (newest)                                  tail (oldest)
 *   queue.next -> K5 -> K4 -> K3* -> K2 -> K1* -> (queue: sentinel)
 *                                   hand ^          the hand moves <- this
 *                                                   way, towards the head
 *   insert:  at the head, unvisited.
 *   hit:     set the key's visited bit (lru_node.ref): no lock, no move,
 *            and no store when it is set already.
 *   evict:   from the hand (from the tail when the hand is NULL): a
 *            visited key loses its bit and the hand steps towards the
 *            head, wrapping from the head to the tail; the first unvisited
 *            key leaves, and the hand stays on its neighbour towards the
 *            head (NULL when it was the head) for the next eviction.
 *            Survivors never move.
 *   delete:  off the queue; a hand on it steps to its neighbour towards
 *            the head (Sieve_remove_obj).
 *
 * Sieve.c's NULL pointer is our hand on the sentinel: both mean "start at
 * the tail", and a step towards the head from the head lands on it.  On
 * one thread we evict exactly the keys Sieve.c evicts, in its order (the
 * letter tests of tests/maps/lru/test_sieve.c).  Beyond Sieve.c,
 * which has neither: a replace puts the new element in the old one's
 * place, visited, as a hit would leave the old one (one step nearer the
 * head, so that a hand on old, stepping on as old leaves, meets it); and,
 * the core popping before it looks (the kernel's order), an update of a
 * present key in a full ring evicts a key first, as the kernel's LRU does.
 *
 * Concurrency.  `lock` guards the queue, the hand, the free list and each
 * element's `type` while the element is the ring's; a lookup takes no lock
 * and only stores the bit (racy, as the kernel's bpf_lru_node_set_ref: a
 * bit set while the hand clears it can be lost, which costs the key its
 * second chance).  on_queue is written under the lock and read by anyone
 * (lru_ring_keys: a hint).  Invariants under the lock:
 *  - each element whose lru_node.cpu is the ring's id is on exactly one of
 *    `queue` and `free`, as its `type` says, or in transit: taken by
 *    lru_ring_take for another ring (then no list and no bucket holds it,
 *    so no other thread can reach it until lru_ring_adopt links it there);
 *  - on_queue counts the queue; the hand is on it or on the sentinel;
 *  - a popped element is on the queue before the table links it, and an
 *    element leaves the queue only through push_free, after the table
 *    unlinked it, or through an eviction, which unlinks it from the table
 *    first: so an eviction that meets a key mid-update on another thread
 *    fails to unlink it (lru_htab_evict) and steps on.
 * An eviction honours visited bits for two turns, then takes the first
 * key it can unlink, so that lookups on other threads cannot keep it
 * turning; on one thread it never gets there (one turn clears every bit).
 * Lock order: `lock`, then a bucket lock (lru_htab_evict).
 */
#include "maps/lru/core/lru_ring.h"
#include "maps/lru/core/lru_dump.h"

enum { ON_FREE, ON_QUEUE };

void lru_ring_init(struct lru_ring *r, uint16_t id,
		   _Atomic uint64_t *free_total)
{
	map_spin_init(&r->lock);
	dlist_init(&r->queue);
	dlist_init(&r->free);
	r->hand = &r->queue;
	atomic_init(&r->on_queue, 0);
	r->id = id;
	r->free_total = free_total;
	r->spares = 0;
}

static void lru_ring_count_free(struct lru_ring *r, int64_t delta)
{
	if (r->free_total)
		atomic_fetch_add_explicit(r->free_total, (uint64_t)delta,
					  memory_order_relaxed);
}

void lru_ring_give(struct lru_ring *r, struct lru_node *n)
{
	n->cpu = r->id;
	n->type = ON_FREE;
	dlist_add_tail(&n->link, &r->free);
	lru_ring_count_free(r, 1);
}

static void lru_ring_set_keys(struct lru_ring *r, uint32_t n)
{
	atomic_store_explicit(&r->on_queue, n, memory_order_relaxed);
}

/* Where the hand looks first: the tail when it is on the sentinel. */
static struct dlist *lru_ring_hand_start(struct lru_ring *r)
{
	return r->hand == &r->queue ? r->queue.prev : r->hand;
}

/* Lock held: n off the queue; a hand on n steps towards the head first
 * (onto the sentinel when n is the head: Sieve.c's NULL). */
static void lru_ring_unlink(struct lru_ring *r, struct lru_node *n)
{
	if (r->hand == &n->link)
		r->hand = n->link.prev;
	dlist_del(&n->link);
	lru_ring_set_keys(r, lru_ring_keys(r) - 1);
}

/* Lock held: n (no key yet) at the head, unvisited, for a key of hash. */
static void lru_ring_link_at_head(struct lru_ring *r, struct lru_node *n,
				  uint32_t hash)
{
	lru_node_clear_ref(n);
	lru_node_set_hash(n, hash);
	n->type = ON_QUEUE;
	dlist_add(&n->link, &r->queue);
	lru_ring_set_keys(r, lru_ring_keys(r) + 1);
}

/* Lock held: a free element off the free list, or NULL. */
static struct lru_node *lru_ring_take_free(struct lru_ring *r)
{
	struct dlist *f = dlist_first(&r->free);
	if (!f)
		return NULL;
	dlist_del(f);
	if (r->spares)
		r->spares--;
	else
		lru_ring_count_free(r, -1);
	return lru_node_of(f);
}

/*
 * Lock held: from the hand, clear visited bits up to the first unvisited
 * key still in the table, unlink it from the table and from the queue
 * (the hand on its neighbour), and return its element.  NULL when every
 * key is mid-update elsewhere (never on one thread).
 */
static struct lru_node *lru_ring_evict(struct lru_htab *h, struct lru_ring *r,
				       unsigned cpu)
{
	struct dlist *at;
	struct lru_node *n = lru_hand_sweep(h, cpu, &r->queue,
					    lru_ring_hand_start(r),
					    lru_ring_keys(r), &at);
	if (n) {
		r->hand = at;
		lru_ring_unlink(r, n); /* the hand steps to its neighbour */
	} else if (at != &r->queue) {
		r->hand = at;
	}
	return n;
}

struct lru_node *lru_ring_pop(struct lru_htab *h, struct lru_ring *r,
			      unsigned cpu, uint32_t hash, uint32_t min_keys)
{
	lru_lock(h, cpu, &r->lock);
	struct lru_node *n = lru_ring_take_free(r);
	if (!n && lru_ring_keys(r) >= min_keys)
		n = lru_ring_evict(h, r, cpu);
	if (n)
		lru_ring_link_at_head(r, n, hash);
	map_spin_unlock(&r->lock);
	return n;
}

struct lru_node *lru_ring_take(struct lru_htab *h, struct lru_ring *r,
			       unsigned cpu, bool evict_one)
{
	lru_lock(h, cpu, &r->lock);
	struct lru_node *n = evict_one ? lru_ring_evict(h, r, cpu)
				       : lru_ring_take_free(r);
	map_spin_unlock(&r->lock);
	return n;
}

void lru_ring_adopt(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
		    struct lru_node *n, uint32_t hash)
{
	lru_lock(h, cpu, &r->lock);
	n->cpu = r->id;
	lru_ring_link_at_head(r, n, hash);
	map_spin_unlock(&r->lock);
}

void lru_ring_push_free(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
			struct lru_node *n, bool spare)
{
	lru_lock(h, cpu, &r->lock);
	lru_ring_unlink(r, n);
	n->type = ON_FREE;
	dlist_add(&n->link, &r->free);
	if (spare && !r->spares)
		r->spares = 1;
	else
		lru_ring_count_free(r, 1);
	map_spin_unlock(&r->lock);
}

/*
 * n may have been evicted and reused since the table linked it, by an
 * eviction on another thread: it is then that key's, and moving it only
 * shifts that key's turn, as a stale visited bit would; or it may be free
 * again (that update failed), and then it stays where it is.
 */
void lru_ring_replaced(struct lru_htab *h, struct lru_ring *r, unsigned cpu,
		       struct lru_node *n, struct lru_node *old)
{
	lru_lock(h, cpu, &r->lock);
	if (n->type == ON_QUEUE) {
		lru_ring_unlink(r, n);
		dlist_add_before(&n->link, &old->link);
		lru_ring_set_keys(r, lru_ring_keys(r) + 1);
		lru_node_set_ref(n);
	}
	map_spin_unlock(&r->lock);
}

void lru_ring_dump(struct lru_htab *h, struct lru_ring *r, FILE *f,
		   enum map_dump_format fmt, const char *id, const char *name)
{
	map_spin_lock(&r->lock);
	lru_dump_list(h, f, fmt, id, name, &r->queue, lru_ring_hand_start(r));
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "%s free: %zu elements\n", name,
			lru_dump_list_length(&r->free));
	map_spin_unlock(&r->lock);
}
