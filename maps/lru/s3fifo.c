/* SPDX-License-Identifier: MIT */
/*
 * lru/s3fifo: S3-FIFO (Yang et al., SOSP'23), as libCacheSim's S3FIFO.c
 * with its default parameters (small-size-ratio=0.10, ghost-size-ratio=
 * 0.90, move-to-main-threshold=2): three FIFO queues.
 *
 *   small: new keys, 10% of the capacity.  Most keys are used once and
 *          should leave soon ("quick demotion").
 *   main:  keys used again, the other 90%, run as a CLOCK with a two-bit
 *          counter.
 *   ghost: the hashes (no keys, no values) of keys evicted from small, at
 *          most 90% of the capacity; the policy's own state, outside the
 *          table.
 *
 *   lookup (program): freq = min(freq + 1, 3), a relaxed atomic store on
 *           the element's lru_node.ref; no lock.
 *   insert: a key whose hash is in the ghost leaves the ghost and enters
 *           main; any other key enters small, except that until the first
 *           eviction a key that finds small full enters main (the cache
 *           fills main before it first evicts).  freq starts at 0.
 *   evict (only when no element is free):
 *           if main holds more than its share or small is empty, from
 *           main: a tail with freq >= 1 goes back to main's head with
 *           freq - 1; the first tail with freq 0 leaves;
 *           else from small, until one key leaves or small is empty: a
 *           tail with freq >= 2 moves to main's head with freq 0, else it
 *           leaves and its hash enters the ghost (the ghost's oldest hash
 *           leaving when it is full); a small queue emptied by moves
 *           starts the choice again (main is then over its share).
 *   delete: off its queue, onto the free list; the ghost is untouched.
 *   replace: the new element takes the old one's place and queue, with
 *           the old freq plus one (a write counts as a hit).
 *
 * Source, read for behaviour only: libCacheSim/cache/eviction/S3FIFO.c at
 * commit 035d832c7757f8934e60081cd70eabbf11260d96 (not S3FIFOv0.c, which
 * keeps inserting into small while the cache fills).  What we took from
 * it, with its names:
 *  - sizes: small = (int64_t)(C * 0.10), main = C - small, ghost =
 *    (int64_t)(C * 0.90), in double arithmetic on an object count (every
 *    object has size 1); we compute them the same way;
 *  - S3FIFO_find bumps freq with no cap; the cap of 3 applies when main
 *    reinserts (freq = MIN(freq, 3) - 1).  A counter that saturates at 3
 *    gives the same decisions (the small queue compares with 2, main
 *    takes MIN(freq, 3)) and fits lru_node.ref;
 *  - a key promoted from small enters main as a new object: freq 0
 *    (cache_insert_base zeroes objects); S3FIFO_insert sets freq 0;
 *  - the ghost is checked (and the hash removed) when the key is looked
 *    up, before any eviction of this request can push more into it; we
 *    check it at the start of pop_free, also before evicting;
 *  - has_evicted turns true at the first S3FIFO_evict call and stays.
 * Where we differ:
 *  - below C = 20, small gets max(1, C * 0.10) elements.  There
 *    libCacheSim's small queue has room for at most one object and
 *    S3FIFO_insert refuses any object whose size is not below it, so its
 *    cache never holds anything; a map must take every key.  From C = 20
 *    on, no key is refused and the two agree;
 *  - the ghost keeps 32-bit hashes, not object ids: two keys with one hash
 *    share a ghost entry (the chance is about ghost length / 2^32 a miss);
 *  - replaces and deletes, which libCacheSim's replay does not have; and
 *    an update of a present key in a full map first evicts (the core pops
 *    before it looks, the kernel's order).
 * On one thread, from C = 20, the map evicts what S3FIFO.c evicts, in the
 * same order (barring a hash collision in the ghost).
 *
 * Concurrency.  `lock` guards the three queues, the free list, the ghost,
 * has_evicted and each element's `type`; insert (pop_free), eviction,
 * replace and delete (push_free) take it.  A lookup only stores freq (a
 * racy read-modify-write: two hits at once may count as one).  Invariants
 * under the lock:
 *  - every element is on exactly one of free, small and main, as `type`
 *    says; small.len + main.len + free elements = n_elems;
 *  - a popped element is on its queue before the table links it;
 *  - a ghost hash is on the ghost's FIFO and on its bucket chain, once.
 * An eviction that cannot unlink a tail (a concurrent update or delete
 * took it out of the table; its push_free is on its way) puts it back at
 * the head of its queue and goes on.  Lookups on other threads could keep
 * freq up for ever, so an eviction honours freq for 4 x n_elems steps,
 * then takes the first tail it can unlink, for one more n_elems steps,
 * then gives up (NULL: -ENOMEM) with every element mid-update elsewhere.
 * On one thread it never gets there (each step lowers a freq, promotes or
 * evicts).  Lock order: `lock`, then a bucket lock (lru_htab_evict).
 */
#include "maps/base/lock.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_htab.h"
#include "maps/lru/core/lru_queue.h"

#include <errno.h>
#include <stdlib.h>

enum { ON_FREE, ON_SMALL, ON_MAIN };

#define FREQ_MAX 3          /* two bits */
#define PROMOTE_AT 2        /* move-to-main-threshold */
#define SMALL_RATIO 0.10
#define GHOST_RATIO 0.90

/* --- the ghost: a FIFO of hashes, with a chained table to find them ------------- */

struct ghost_entry {
	struct dlist link;  /* on the ghost's fifo or its free list */
	uint32_t hash;
	uint32_t next;      /* the next entry on its bucket's chain, + 1; 0 ends */
};

struct ghost {
	uint32_t cap, len, mask;
	uint32_t *bucket;           /* [mask + 1]: the first entry + 1, or 0 */
	struct ghost_entry *entry;  /* [cap] */
	struct dlist fifo;          /* newest first */
	struct dlist free;
};

static int s3fifo_ghost_init(struct ghost *g, uint32_t cap)
{
	uint32_t buckets = 1;
	while (buckets < cap)
		buckets <<= 1;
	g->cap = cap;
	g->mask = buckets - 1;
	g->bucket = calloc(buckets, sizeof(*g->bucket));
	g->entry = calloc(cap ? cap : 1, sizeof(*g->entry));
	if (!g->bucket || !g->entry)
		return -ENOMEM;
	dlist_init(&g->fifo);
	dlist_init(&g->free);
	for (uint32_t i = 0; i < cap; i++)
		dlist_add_tail(&g->entry[i].link, &g->free);
	return 0;
}

static void s3fifo_ghost_fini(struct ghost *g)
{
	free(g->bucket);
	free(g->entry);
}

static uint32_t s3fifo_ghost_index(const struct ghost *g,
				   const struct ghost_entry *e)
{
	return (uint32_t)(e - g->entry);
}

/* The chain link that points at the entry for hash (*link == 0: none). */
static uint32_t *s3fifo_ghost_find(struct ghost *g, uint32_t hash)
{
	uint32_t *link = &g->bucket[hash & g->mask];
	while (*link && g->entry[*link - 1].hash != hash)
		link = &g->entry[*link - 1].next;
	return link;
}

/* The entry *link points at leaves the chain and the fifo. */
static void s3fifo_ghost_drop(struct ghost *g, uint32_t *link)
{
	struct ghost_entry *e = &g->entry[*link - 1];
	*link = e->next;
	dlist_move(&e->link, &g->free);
	g->len--;
}

/* Whether hash was in the ghost; it is not any more.  S3FIFO_find's
 * ghost_fifo->remove. */
static bool s3fifo_ghost_take(struct ghost *g, uint32_t hash)
{
	if (!g->cap)
		return false;
	uint32_t *link = s3fifo_ghost_find(g, hash);
	if (!*link)
		return false;
	s3fifo_ghost_drop(g, link);
	return true;
}

/* hash enters the ghost, its oldest hash leaving when it is full.  A hash
 * already there stays where it is (a hit in libCacheSim's ghost FIFO). */
static void s3fifo_ghost_add(struct ghost *g, uint32_t hash)
{
	if (!g->cap || *s3fifo_ghost_find(g, hash))
		return;
	if (g->len == g->cap) {
		struct ghost_entry *old = dlist_entry(dlist_last(&g->fifo),
						      struct ghost_entry, link);
		s3fifo_ghost_drop(g, s3fifo_ghost_find(g, old->hash));
	}
	struct ghost_entry *e = dlist_entry(dlist_first(&g->free),
					    struct ghost_entry, link);
	uint32_t *head = &g->bucket[hash & g->mask];
	e->hash = hash;
	e->next = *head;
	*head = s3fifo_ghost_index(g, e) + 1;
	dlist_move(&e->link, &g->fifo);
	g->len++;
}

/* --- the policy ------------------------------------------------------------------ */

struct s3fifo_lru {
	struct map_spinlock lock;
	struct lru_queue small, main;
	struct dlist free;
	uint32_t small_cap, main_cap;
	bool has_evicted;  /* an eviction has happened: small takes every insert */
	struct ghost ghost;
};

static struct s3fifo_lru *s3fifo_state(struct lru_htab *h)
{
	return h->policy_state;
}

static uint8_t s3fifo_freq_of(const struct lru_node *n)
{
	return atomic_load_explicit(&n->ref, memory_order_relaxed);
}

static void s3fifo_set_freq(struct lru_node *n, uint8_t f)
{
	atomic_store_explicit(&n->ref, f, memory_order_relaxed);
}

static uint32_t s3fifo_hash_of(struct lru_node *n)
{
	return lru_htab_hnode(n)->hash;
}

static int s3fifo_init(struct lru_htab *h)
{
	struct s3fifo_lru *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	uint32_t c = h->n_elems;
	/* As S3FIFO_init: the double product, truncated. */
	uint32_t small = (uint32_t)(int64_t)((double)c * SMALL_RATIO);
	s->small_cap = small ? small : 1;
	s->main_cap = c - s->small_cap;
	h->policy_state = s; /* fini frees what init made, on failure too */
	uint32_t ghost_cap = (uint32_t)(int64_t)((double)c * GHOST_RATIO);
	int err = s3fifo_ghost_init(&s->ghost, ghost_cap);
	if (err)
		return err;
	map_spin_init(&s->lock);
	lru_queue_init(&s->small);
	lru_queue_init(&s->main);
	dlist_init(&s->free);
	for (uint32_t i = 0; i < c; i++) {
		struct lru_node *n = lru_htab_node(h, i);
		n->type = ON_FREE;
		dlist_add_tail(&n->link, &s->free);
	}
	return 0;
}

static void s3fifo_fini(struct lru_htab *h)
{
	struct s3fifo_lru *s = s3fifo_state(h);
	s3fifo_ghost_fini(&s->ghost);
	free(s);
}

static struct lru_queue *s3fifo_queue_of(struct s3fifo_lru *s,
					 const struct lru_node *n)
{
	return n->type == ON_MAIN ? &s->main : &s->small;
}

/* S3FIFO_evict's choice: main when it holds more than its share, or when
 * small is empty. */
static bool s3fifo_evict_from_main(const struct s3fifo_lru *s)
{
	return s->main.len > s->main_cap || s->small.len == 0;
}

/*
 * Lock held: one step at the tail of small or main.  True when the tail
 * left the table (then it is off its queue, ours); otherwise it moved
 * (a reinsertion, a promotion, or a skip of a key mid-update elsewhere).
 */
static bool s3fifo_step_at_tail(struct lru_htab *h, unsigned cpu, bool in_main,
				bool honour_freq, struct lru_node **victim)
{
	struct s3fifo_lru *s = s3fifo_state(h);
	struct lru_queue *q = in_main ? &s->main : &s->small;
	struct lru_node *t = lru_queue_oldest(q);
	uint8_t f = s3fifo_freq_of(t);
	map_work_count(&lru_work(h, cpu)->nodes_scanned, 1);

	if (honour_freq && in_main && f >= 1) {
		lru_queue_requeue(q, t);          /* CLOCK: one more turn */
		s3fifo_set_freq(t, (f < FREQ_MAX ? f : FREQ_MAX) - 1);
		return false;
	}
	if (honour_freq && !in_main && f >= PROMOTE_AT) {
		lru_queue_del(q, t);              /* used again: to main */
		lru_queue_push(&s->main, t);
		t->type = ON_MAIN;
		s3fifo_set_freq(t, 0);
		return false;
	}
	if (!lru_htab_evict(h, cpu, t)) {
		lru_queue_requeue(q, t);          /* leaving anyway */
		return false;
	}
	if (!in_main)
		s3fifo_ghost_add(&s->ghost, s3fifo_hash_of(t));
	lru_queue_del(q, t);
	*victim = t;
	return true;
}

/*
 * Lock held: evict one key and return its element, off every queue.  The
 * small queue is worked until a key leaves it or it is empty, as
 * S3FIFO_evict_small; then the choice is made again, as the next
 * S3FIFO_evict call would.  NULL when every element is mid-update.
 */
static struct lru_node *s3fifo_evict(struct lru_htab *h, unsigned cpu)
{
	struct s3fifo_lru *s = s3fifo_state(h);
	uint64_t honour = 4 * (uint64_t)h->n_elems;
	uint64_t limit = honour + h->n_elems;
	struct lru_node *victim = NULL;

	map_work_count(&lru_work(h, cpu)->refills, 1);
	s->has_evicted = true;
	bool in_main = s3fifo_evict_from_main(s);
	for (uint64_t steps = 0; steps < limit; steps++) {
		if (!in_main && s->small.len == 0)
			in_main = s3fifo_evict_from_main(s);
		if ((in_main ? s->main.len : s->small.len) == 0)
			break; /* every element free: not on one thread */
		if (s3fifo_step_at_tail(h, cpu, in_main, steps < honour,
					&victim))
			return victim;
	}
	return NULL;
}

/* Lock held: n, off every list, enters the queue S3FIFO_insert picks. */
static void s3fifo_insert(struct s3fifo_lru *s, struct lru_node *n,
			  bool ghost_hit)
{
	bool to_main = ghost_hit ||
		       (!s->has_evicted && s->small.len >= s->small_cap);
	lru_queue_push(to_main ? &s->main : &s->small, n);
	n->type = to_main ? ON_MAIN : ON_SMALL;
	s3fifo_set_freq(n, 0);
}

static struct lru_node *s3fifo_pop_free(struct lru_htab *h, unsigned cpu,
					uint32_t hash)
{
	struct s3fifo_lru *s = s3fifo_state(h);
	lru_lock(h, cpu, &s->lock);
	/* Before evicting: an eviction may push this hash out of the ghost. */
	bool ghost_hit = s3fifo_ghost_take(&s->ghost, hash);
	struct dlist *f = dlist_first(&s->free);
	struct lru_node *n;
	if (f) {
		n = lru_node_of(f);
		dlist_del(f);
	} else {
		n = s3fifo_evict(h, cpu);
	}
	if (n) {
		s3fifo_insert(s, n, ghost_hit);
		lru_node_set_hash(n, hash);
	}
	map_spin_unlock(&s->lock);
	return n;
}

static void s3fifo_push_free(struct lru_htab *h, unsigned cpu,
			     struct lru_node *n)
{
	struct s3fifo_lru *s = s3fifo_state(h);
	lru_lock(h, cpu, &s->lock);
	lru_queue_del(s3fifo_queue_of(s, n), n);
	n->type = ON_FREE;
	dlist_add(&n->link, &s->free);
	map_spin_unlock(&s->lock);
}

/* A hit: freq + 1, saturating at 3.  No lock; a racing hit may be lost. */
static void s3fifo_referenced(struct lru_htab *h, unsigned cpu,
			      struct lru_node *n)
{
	(void)h, (void)cpu;
	uint8_t f = s3fifo_freq_of(n);
	if (f < FREQ_MAX)
		s3fifo_set_freq(n, f + 1);
}

/*
 * A replace: n takes old's place and queue, with old's freq and one hit
 * more.  n may have been evicted and reused since the table linked it (by
 * another thread): then it is that key's now, and this only shifts it.
 */
static void s3fifo_replaced(struct lru_htab *h, unsigned cpu,
			    struct lru_node *n, struct lru_node *old)
{
	struct s3fifo_lru *s = s3fifo_state(h);
	lru_lock(h, cpu, &s->lock);
	if (n->type != ON_FREE && old->type != ON_FREE) {
		uint8_t f = s3fifo_freq_of(old);
		lru_queue_del(s3fifo_queue_of(s, n), n);
		lru_queue_add_beside(s3fifo_queue_of(s, old), n, old);
		n->type = old->type;
		s3fifo_set_freq(n, f < FREQ_MAX ? f + 1 : FREQ_MAX);
	}
	map_spin_unlock(&s->lock);
}

/* --- dump -------------------------------------------------------------------------- */

/* "name (len of cap): key:freq ...", newest first. */
static void s3fifo_dump_queue_text(struct lru_htab *h, FILE *f,
				   const char *name,
				   const struct lru_queue *q, uint32_t cap)
{
	fprintf(f, "%s (%u of %u):", name, q->len, cap);
	for (const struct dlist *p = q->head.next; p != &q->head; p = p->next) {
		const struct lru_node *n = dlist_entry(p, struct lru_node, link);
		fputc(' ', f);
		lru_dump_key(f, h, n);
		fprintf(f, ":%u", s3fifo_freq_of(n));
	}
	fputc('\n', f);
}

static void s3fifo_dump_ghost_text(FILE *f, const struct ghost *g)
{
	fprintf(f, "ghost (%u of %u):", g->len, g->cap);
	for (const struct dlist *p = g->fifo.next; p != &g->fifo; p = p->next)
		fprintf(f, " #%08x",
			dlist_entry(p, struct ghost_entry, link)->hash);
	fputc('\n', f);
}

static int s3fifo_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt)
{
	struct s3fifo_lru *s = s3fifo_state(h);
	map_spin_lock(&s->lock);
	lru_dump_begin(f, fmt, "lru/s3fifo: each queue newest first, the last "
			       "key is looked at next; ref: freq > 0");
	if (fmt == MAP_DUMP_TEXT) {
		s3fifo_dump_queue_text(h, f, "small", &s->small, s->small_cap);
		s3fifo_dump_queue_text(h, f, "main", &s->main, s->main_cap);
		s3fifo_dump_ghost_text(f, &s->ghost);
		fprintf(f, "free: %zu elements; evicted yet: %s\n",
			lru_dump_list_length(&s->free), s->has_evicted ? "yes" : "no");
	} else {
		lru_dump_list(h, f, fmt, "small", "small", &s->small.head, NULL);
		lru_dump_list(h, f, fmt, "main", "main", &s->main.head, NULL);
		fprintf(f, "  ghost [label=\"ghost: %u of %u hashes\", "
			"shape=note];\n", s->ghost.len, s->ghost.cap);
	}
	lru_dump_end(f, fmt);
	map_spin_unlock(&s->lock);
	return 0;
}

/* Beyond lru_node (freq lives in its ref byte): the ghost. */
static size_t s3fifo_state_bytes(const struct lru_htab *h)
{
	const struct s3fifo_lru *s = h->policy_state;
	return sizeof(*s) + (size_t)s->ghost.cap * sizeof(struct ghost_entry) +
	       ((size_t)s->ghost.mask + 1) * sizeof(uint32_t);
}

static const struct lru_policy s3fifo_policy = {
	.init = s3fifo_init,
	.fini = s3fifo_fini,
	.pop_free = s3fifo_pop_free,
	.push_free = s3fifo_push_free,
	.referenced = s3fifo_referenced,
	.replaced = s3fifo_replaced,
	.dump = s3fifo_dump,
	.state_bytes = s3fifo_state_bytes,
};

static int s3fifo_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&s3fifo_policy, attr, out);
}

const struct map_ops lru_s3fifo_ops = {
	.name = "lru/s3fifo",
	.description = "S3-FIFO: small, main (2-bit CLOCK) and ghost FIFOs; "
		       "lookups bump a counter without a lock",
	LRU_HTAB_MAP_OPS,
	.create = s3fifo_create,
	.one_hit_may_not_save = 1,
};
