/* SPDX-License-Identifier: MIT */
/*
 * lru/sieve: SIEVE (NSDI 2024) over the whole map: one FIFO queue, new
 * keys at the head, a visited bit that a lookup sets without a lock, and
 * a hand that sweeps from the tail towards the head, clearing bits, and
 * evicts the first unvisited key; survivors never move, and the hand
 * keeps its place between evictions.  On one thread it evicts exactly
 * what libCacheSim's cache/eviction/Sieve.c (commit
 * 11c93a3513bac3693cbc5b056623923f30ec0c3e) evicts.
 *
 * The queue, its hand and its lock are one lru_ring (maps/lru/core/
 * lru_ring.c, which states the algorithm and its invariants); this file
 * only gives the ring every element.  One lock guards the queue: inserts,
 * evictions, replaces and deletes take it, lookups never do.
 */
#include "maps/base/area.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_ring.h"

#include <errno.h>
#include <stdlib.h>

static struct lru_ring *sieve_ring(struct lru_htab *h)
{
	return h->policy_state;
}

static int sieve_init(struct lru_htab *h)
{
	struct lru_ring *r = map_area_alloc(sizeof(*r), _Alignof(struct lru_ring));
	if (!r)
		return -ENOMEM;
	lru_ring_init(r, 0, NULL);
	for (uint32_t i = 0; i < h->n_elems; i++)
		lru_ring_give(r, lru_htab_node(h, i));
	h->policy_state = r;
	return 0;
}

static void sieve_fini(struct lru_htab *h)
{
	free(h->policy_state);
}

static struct lru_node *sieve_pop_free(struct lru_htab *h, unsigned cpu,
				       uint32_t hash)
{
	return lru_ring_pop(h, sieve_ring(h), cpu, hash, 0);
}

static void sieve_push_free(struct lru_htab *h, unsigned cpu,
			    struct lru_node *n)
{
	lru_ring_push_free(h, sieve_ring(h), cpu, n, false);
}

static void sieve_replaced(struct lru_htab *h, unsigned cpu,
			   struct lru_node *n, struct lru_node *old)
{
	lru_ring_replaced(h, sieve_ring(h), cpu, n, old);
}

static int sieve_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt)
{
	lru_dump_begin(f, fmt, "lru/sieve: newest first; the hand sweeps from "
			       "the oldest key towards the newest");
	lru_ring_dump(h, sieve_ring(h), f, fmt, "queue", "queue");
	lru_dump_end(f, fmt);
	return 0;
}

static size_t sieve_state_bytes(const struct lru_htab *h)
{
	(void)h;
	return sizeof(struct lru_ring);
}

static const struct lru_policy sieve_policy = {
	.init = sieve_init,
	.fini = sieve_fini,
	.pop_free = sieve_pop_free,
	.push_free = sieve_push_free,
	/* .referenced: the core's default, which sets the bit if unset */
	.replaced = sieve_replaced,
	.dump = sieve_dump,
	.state_bytes = sieve_state_bytes,
};

static int sieve_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&sieve_policy, attr, out);
}

const struct map_ops lru_sieve_ops = {
	.name = "lru/sieve",
	.description = "SIEVE: one FIFO queue, lookups set a visited bit "
		       "without a lock, a hand that keeps its place evicts",
	LRU_HTAB_MAP_OPS,
	.create = sieve_create,
};
