/* SPDX-License-Identifier: MIT */
/*
 * lru/global: strict LRU.  One list of every key in use, most recently
 * used at the head, under one lock; every program lookup and every replace
 * moves its key to the head; an insert into a full map evicts exactly the
 * least recently used key, the list's tail.
 *
 *   used: head -> MRU -> ... -> LRU <- tail     free: elements not in use
 *
 * It is the exact-order reference whose cost the other designs avoid:
 * every lookup that hits takes the global lock and writes the list (the
 * "global consensus on the age of keys" that eBPF for Windows found too
 * expensive), so lookups from many threads serialise on one cache line.
 *
 * Invariants (under `lock`):
 *  - every element is on exactly one of `used` and `free`, and its type
 *    says which;
 *  - a popped element is at the head of `used` before the table links it:
 *    an eviction that meets it first fails to unlink it and passes on.
 * Lock order: `lock`, then a bucket lock (lru_htab_evict).
 */
#include "maps/base/lock.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_htab.h"

#include <errno.h>
#include <stdlib.h>

enum { ON_FREE, ON_USED };

struct global_lru {
	struct map_spinlock lock;
	struct dlist used, free;
};

static struct global_lru *global_state(struct lru_htab *h)
{
	return h->policy_state;
}

static int global_init(struct lru_htab *h)
{
	struct global_lru *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	map_spin_init(&g->lock);
	dlist_init(&g->used);
	dlist_init(&g->free);
	for (uint32_t i = 0; i < h->n_elems; i++) {
		struct lru_node *n = lru_htab_node(h, i);
		n->type = ON_FREE;
		dlist_add_tail(&n->link, &g->free);
	}
	h->policy_state = g;
	return 0;
}

static void global_fini(struct lru_htab *h)
{
	free(h->policy_state);
}

/* Lock held: the least recently used element the table still holds,
 * unlinked from it; NULL if every element is mid-update elsewhere. */
static struct lru_node *global_evict_oldest(struct lru_htab *h, unsigned cpu)
{
	struct global_lru *g = global_state(h);
	struct map_work_slot *w = lru_work(h, cpu);
	map_work_count(&w->refills, 1);
	for (struct dlist *p = g->used.prev; p != &g->used; p = p->prev) {
		map_work_count(&w->nodes_scanned, 1);
		if (lru_htab_evict(h, cpu, lru_node_of(p)))
			return lru_node_of(p);
	}
	return NULL;
}

static struct lru_node *global_pop_free(struct lru_htab *h, unsigned cpu,
					uint32_t hash)
{
	struct global_lru *g = global_state(h);
	lru_lock(h, cpu, &g->lock);
	struct dlist *p = dlist_first(&g->free);
	struct lru_node *n = p ? lru_node_of(p) : global_evict_oldest(h, cpu);
	if (n) {
		lru_node_set_hash(n, hash);
		n->type = ON_USED;
		dlist_move(&n->link, &g->used);
	}
	map_spin_unlock(&g->lock);
	return n;
}

static void global_push_free(struct lru_htab *h, unsigned cpu,
			     struct lru_node *n)
{
	struct global_lru *g = global_state(h);
	lru_lock(h, cpu, &g->lock);
	n->type = ON_FREE;
	dlist_move(&n->link, &g->free);
	map_spin_unlock(&g->lock);
}

/* A hit: to the head, if the element is still in use (a concurrent delete
 * may have freed it since the lookup found it). */
static void global_referenced(struct lru_htab *h, unsigned cpu,
			      struct lru_node *n)
{
	struct global_lru *g = global_state(h);
	lru_lock(h, cpu, &g->lock);
	if (n->type == ON_USED)
		dlist_move(&n->link, &g->used);
	map_spin_unlock(&g->lock);
}

/* The new element went to the head when it was popped: nothing to do. */
static void global_replaced(struct lru_htab *h, unsigned cpu,
			    struct lru_node *n, struct lru_node *old)
{
	(void)h, (void)cpu, (void)n, (void)old;
}

static int global_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt)
{
	struct global_lru *g = global_state(h);
	lru_dump_begin(f, fmt, "lru/global: most recently used first");
	lru_dump_list(h, f, fmt, "used", "used, MRU first", &g->used, NULL);
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "free: %zu elements\n", lru_dump_list_length(&g->free));
	lru_dump_end(f, fmt);
	return 0;
}

static const struct lru_policy global_policy = {
	.init = global_init,
	.fini = global_fini,
	.pop_free = global_pop_free,
	.push_free = global_push_free,
	.referenced = global_referenced,
	.replaced = global_replaced,
	.dump = global_dump,
};

static int global_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&global_policy, attr, out);
}

const struct map_ops lru_global_ops = {
	.name = "lru/global",
	.description = "strict LRU: one list, one lock; every hit moves its key "
		       "to the front, eviction takes the exact oldest",
	LRU_HTAB_MAP_OPS,
	.create = global_create,
};
