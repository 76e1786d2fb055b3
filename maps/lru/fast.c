/* SPDX-License-Identifier: MIT */
/*
 * lru/fast: our fastest LRU hash.  SIEVE (lru/sieve, maps/common/
 * lru_ring.c), sharded by the key's hash: S rings, each with its own lock,
 * its own hand and its own share of the elements, so that two threads
 * almost never meet on a lock or on a ring's cache lines.
 *
 *   update(key):  hash (once, by the core) -> shard = hash's top log2(S)
 *                 bits (the bucket index uses the low bits, so a shard's
 *                 keys spread over every bucket) -> that ring's pop: a
 *                 free element, else that ring's SIEVE eviction
 *   lookup(key):  the core's default: set the visited bit, and only if it
 *                 is not set already, so a hot key's line stays shared
 *   delete, a replace's old element: back to the ring that owns it
 *                 (lru_node.cpu holds the ring's number here, set at init;
 *                 an element never changes ring)
 *
 *   shards[0]  [lock|queue|hand|free]   elements  0 .. c0-1
 *   shards[1]  [lock|queue|hand|free]   elements c0 .. c0+c1-1
 *   ...        one ring per 128 bytes   a shard's elements are contiguous
 *
 * S is a power of two: 8 per cpu slot and at least 64, so that two
 * threads' inserts meet on a ring's lock about 1/S of the time, but no
 * more than max_entries / FAST_MIN_PER_SHARD (small maps have one ring,
 * and are then exactly lru/sieve).  Ring i owns max_entries / S elements,
 * one more for the first max_entries % S, so the map holds exactly
 * max_entries keys.
 *
 * What sharding costs: a ring evicts when its own elements are all in use,
 * even while another ring has free ones, so the map evicts before it holds
 * max_entries keys (evicts_early), and each ring's SIEVE sees only its
 * keys: the victim is the best of ~max_entries/S candidates, not of all.
 * With hashed keys the rings fill evenly (a binomial spread: c +- sqrt(c)
 * keys each); measured on a zipf 0.99 stream the miss ratio stays within
 * 1% of one ring's (docs/lru-fast.md, and the unit test that asserts
 * fast <= 1.02 x exact LRU).
 *
 * Concurrency: each ring as lru_ring.c says (its lock guards its queue,
 * hand, free list and its elements' `type`); no state is shared between
 * rings, and nothing here is written after create.  Lock order: a ring's
 * lock, then a bucket lock; never two rings' locks.
 */
#include "maps/common/area.h"
#include "maps/common/lru_ring.h"

#include <errno.h>
#include <stdlib.h>

enum {
	FAST_SHARDS_PER_CPU = 8,
	FAST_MIN_SHARDS = 64,
	FAST_MAX_SHARDS = 4096,
	FAST_MIN_PER_SHARD = 128, /* below it, a ring's victims get worse */
};

struct fast_lru {
	uint32_t n_shards;  /* a power of two */
	unsigned shift;     /* 32 - log2(n_shards): hash >> shift is the shard */
	struct lru_ring *shards;
};

static struct fast_lru *state(struct lru_htab *h)
{
	return h->policy_state;
}

static uint32_t pow2_floor(uint32_t x)
{
	return x ? 1u << (31 - __builtin_clz(x)) : 0;
}

static uint32_t shard_count(uint32_t max_entries, uint32_t ncpus)
{
	uint32_t want = FAST_SHARDS_PER_CPU * ncpus;
	if (want < FAST_MIN_SHARDS)
		want = FAST_MIN_SHARDS;
	if (want > FAST_MAX_SHARDS)
		want = FAST_MAX_SHARDS;
	want = pow2_floor(want);
	uint32_t room = pow2_floor(max_entries / FAST_MIN_PER_SHARD);
	if (room < 1)
		room = 1;
	return want < room ? want : room;
}

static struct lru_ring *ring_of_hash(struct fast_lru *f, uint32_t hash)
{
	/* 64-bit shift: one shard shifts by 32 and gets 0 */
	return &f->shards[(uint64_t)hash >> f->shift];
}

static struct lru_ring *ring_of_node(struct fast_lru *f,
				     const struct lru_node *n)
{
	return &f->shards[n->cpu];
}

static int fast_init(struct lru_htab *h)
{
	struct fast_lru *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->n_shards = shard_count(h->n_elems, h->map.attr.ncpus);
	f->shift = 32 - (unsigned)__builtin_ctz(f->n_shards);
	f->shards = map_area_alloc_array(f->n_shards, sizeof(*f->shards),
					 _Alignof(struct lru_ring));
	if (!f->shards) {
		free(f);
		return -ENOMEM;
	}
	uint32_t each = h->n_elems / f->n_shards;
	uint32_t extra = h->n_elems % f->n_shards;
	uint32_t i = 0;
	for (uint32_t s = 0; s < f->n_shards; s++) {
		struct lru_ring *r = &f->shards[s];
		lru_ring_init(r);
		for (uint32_t end = i + each + (s < extra); i < end; i++)
			lru_ring_give(r, lru_htab_node(h, i), (uint16_t)s);
	}
	h->policy_state = f;
	return 0;
}

static void fast_fini(struct lru_htab *h)
{
	struct fast_lru *f = state(h);
	free(f->shards);
	free(f);
}

static struct lru_node *fast_pop_free(struct lru_htab *h, unsigned cpu,
				      uint32_t hash)
{
	return lru_ring_pop(h, ring_of_hash(state(h), hash), cpu, hash);
}

static void fast_push_free(struct lru_htab *h, unsigned cpu,
			   struct lru_node *n)
{
	lru_ring_push_free(h, ring_of_node(state(h), n), cpu, n);
}

/* n and old hold the same key, so the same hash and the same ring. */
static void fast_replaced(struct lru_htab *h, unsigned cpu,
			  struct lru_node *n, struct lru_node *old)
{
	lru_ring_replaced(h, ring_of_node(state(h), old), cpu, n, old);
}

static int fast_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt)
{
	struct fast_lru *s = state(h);
	lru_dump_begin(f, fmt, "lru/fast: one SIEVE queue per shard of the "
			       "key hashes, newest first");
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "shards: %u (hash >> %u)\n", s->n_shards, s->shift);
	for (uint32_t i = 0; i < s->n_shards; i++) {
		char id[16], name[24];
		snprintf(id, sizeof(id), "s%u", i);
		snprintf(name, sizeof(name), "shard %u", i);
		lru_ring_dump(h, &s->shards[i], f, fmt, id, name);
	}
	lru_dump_end(f, fmt);
	return 0;
}

static size_t fast_state_bytes(const struct lru_htab *h)
{
	const struct fast_lru *f = h->policy_state;
	return sizeof(*f) + (size_t)f->n_shards * sizeof(*f->shards);
}

static const struct lru_policy fast_policy = {
	.init = fast_init,
	.fini = fast_fini,
	.pop_free = fast_pop_free,
	.push_free = fast_push_free,
	/* .referenced: the core's default, which sets the bit if unset */
	.replaced = fast_replaced,
	.dump = fast_dump,
	.state_bytes = fast_state_bytes,
};

static int fast_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&fast_policy, attr, out);
}

const struct map_ops lru_fast_ops = {
	.name = "lru/fast",
	.description = "SIEVE sharded by key hash: a lock, a hand and a share "
		       "of the elements per shard; lookups only set a bit",
	LRU_HTAB_MAP_OPS,
	.evicts_early = 1,
	.create = fast_create,
};
