/* SPDX-License-Identifier: MIT */
/*
 * lru/sieve_percpu: our fastest LRU hash.  SIEVE (lru/sieve; the queue, its hand
 * and its lock are an lru_ring, maps/lru/core/lru_ring.c) with one ring per
 * cpu slot: a thread inserts into its own ring and evicts from its own
 * ring, so in the steady state of an evicting workload no two threads
 * touch the same ring's lock, hand or head, and a lookup only sets a
 * visited bit (only when it is not set: a hot key's line stays shared).
 *
 *   ring[0] [lock|queue|hand|free]   ring[1] [lock|queue|hand|free]  ...
 *            one ring per 128 bytes; free_total on its own line
 *
 *   pop_free(cpu, hash):
 *     1. my ring: a free element of mine; or, if no ring has a free one
 *        (free_total == 0) and my ring holds its fair half share
 *        (min_keys = max_entries / ncpus / 2), my ring's SIEVE victim
 *     2. else a free element of another ring, which then becomes mine
 *     3. else the SIEVE victim of the ring with the most keys (mine, or
 *        another's, whose element then becomes mine)
 *   push_free(n): back onto the free list of the ring that holds n
 *        (lru_node.cpu names it here: the ring's number, which is the
 *        slot that inserted the key, not the slot that frees it); when
 *        that ring is the caller's own, n may be its one spare, which
 *        free_total leaves out: a failed insert (the key was there) frees
 *        the element it popped, and the next pop takes it back, with no
 *        write to a shared line and no other slot sent to fetch it
 *   replace: the core's default: the new element is marked (visited) and
 *        sits at the head of my ring; the old one is freed in its ring.
 *        (lru/sieve moves it into the old one's place; across rings there
 *        is no such place.)
 *
 * So one thread alone has every element in its ring (step 2 hands it the
 * others' free ones before it evicts) and evicts exactly as lru/sieve; N
 * threads inserting alike each hold about 1/N of the keys, and each evicts
 * among its own, the victim being the best of a 1/N share of the keys, not
 * of all; a thread that inserts little keeps at least half a fair share
 * (it takes victims from the largest ring until then), so its keys are not
 * churned.  No ring evicts while a counted free element is left anywhere,
 * so the map holds max_entries keys before it evicts, less at most one
 * spare per ring (only where several slots insert: a lone slot pops its
 * own spare first) and up to the races of step 2, where a thread that
 * finds the free element it counted on taken evicts.
 *
 * We first sharded by key hash (the suggestion): every insert then
 * took a ring whose lock line the other thread may have written last (a
 * busy-machine profile put two thirds of pop_free's time on that line).
 * Side by side at 2 threads, per-slot rings with the spare gave 9.79
 * Mops/s against 7.44 for 64 hash shards (docs/lru-sieve-percpu.md, with the
 * command and host).  What is left shared is free_total (written when a
 * free list changes beyond a spare: fill, deletes) and a replace's or
 * delete's push onto another slot's ring.
 *
 * Concurrency: each ring as lru_ring.c says; an element moves from one
 * ring to another only through lru_ring_take (under the giving ring's
 * lock, after which no other thread can reach it: it is in no list and,
 * if it was a key's, in no bucket) and lru_ring_adopt (under the taking
 * ring's lock, before the table links it).  free_total and the rings'
 * key counts are hints read without a lock.  Lock order: one ring's lock,
 * then a bucket lock; never two rings' locks.
 */
#include "maps/base/area.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_ring.h"

#include <errno.h>
#include <stdlib.h>

struct sieve_percpu {
	/* read-only after create */
	uint32_t n_rings;  /* one per cpu slot */
	uint32_t min_keys; /* a ring this small takes victims elsewhere */
	struct lru_ring *rings;
	/* written as free lists change: on a line of its own */
	_Alignas(128) _Atomic uint64_t free_total;
};

static struct sieve_percpu *sieve_percpu_state(struct lru_htab *h)
{
	return h->policy_state;
}

static int sieve_percpu_init(struct lru_htab *h)
{
	struct sieve_percpu *f = map_area_alloc(sizeof(*f),
						 _Alignof(struct sieve_percpu));
	if (!f)
		return -ENOMEM;
	atomic_init(&f->free_total, 0);
	f->n_rings = h->map.attr.ncpus;
	f->min_keys = h->n_elems / f->n_rings / 2;
	f->rings = map_area_alloc_array(f->n_rings, sizeof(*f->rings),
					_Alignof(struct lru_ring));
	if (!f->rings) {
		free(f);
		return -ENOMEM;
	}
	for (uint32_t r = 0; r < f->n_rings; r++)
		lru_ring_init(&f->rings[r], (uint16_t)r, &f->free_total);
	/* Spread out, so that each slot starts with free elements of its own. */
	for (uint32_t i = 0; i < h->n_elems; i++)
		lru_ring_give(&f->rings[i % f->n_rings], lru_htab_node(h, i));
	h->policy_state = f;
	return 0;
}

static void sieve_percpu_fini(struct lru_htab *h)
{
	struct sieve_percpu *f = sieve_percpu_state(h);
	free(f->rings);
	free(f);
}

static bool sieve_percpu_free_anywhere(struct sieve_percpu *f)
{
	return atomic_load_explicit(&f->free_total, memory_order_relaxed) > 0;
}

/* Step 2: a free element from another ring, now `mine`'s. */
static struct lru_node *sieve_percpu_adopt_free(struct lru_htab *h,
						struct sieve_percpu *f,
						unsigned cpu, uint32_t hash)
{
	for (uint32_t i = 1;
	     i < f->n_rings && sieve_percpu_free_anywhere(f); i++) {
		struct lru_ring *r = &f->rings[(cpu + i) % f->n_rings];
		struct lru_node *n = lru_ring_take(h, r, cpu, false);
		if (n) {
			lru_ring_adopt(h, &f->rings[cpu], cpu, n, hash);
			return n;
		}
	}
	return NULL;
}

static struct lru_ring *sieve_percpu_ring_with_most_keys(struct sieve_percpu *f,
							 unsigned cpu)
{
	struct lru_ring *best = &f->rings[cpu];
	for (uint32_t r = 0; r < f->n_rings; r++)
		if (lru_ring_keys(&f->rings[r]) > lru_ring_keys(best))
			best = &f->rings[r];
	return best;
}

static struct lru_node *sieve_percpu_pop_free(struct lru_htab *h, unsigned cpu,
					      uint32_t hash)
{
	struct sieve_percpu *f = sieve_percpu_state(h);
	struct lru_ring *mine = &f->rings[cpu];
	uint32_t min_keys =
		sieve_percpu_free_anywhere(f) ? UINT32_MAX : f->min_keys;

	struct lru_node *n = lru_ring_pop(h, mine, cpu, hash, min_keys);
	if (n)
		return n;
	n = sieve_percpu_adopt_free(h, f, cpu, hash);
	if (n)
		return n;
	struct lru_ring *victims = sieve_percpu_ring_with_most_keys(f, cpu);
	if (victims != mine) {
		n = lru_ring_take(h, victims, cpu, true);
		if (n) {
			lru_ring_adopt(h, mine, cpu, n, hash);
			return n;
		}
	}
	/* mine has the most keys, or the other ring's were all mid-update */
	return lru_ring_pop(h, mine, cpu, hash, 0);
}

static void sieve_percpu_push_free(struct lru_htab *h, unsigned cpu,
				   struct lru_node *n)
{
	/* The owner's own free (a failed insert, a delete, a replace of its
	 * key) is its spare: it pops it next, with no shared write. */
	struct lru_ring *owner = &sieve_percpu_state(h)->rings[n->cpu];
	lru_ring_push_free(h, owner, cpu, n, n->cpu == cpu);
}

static int sieve_percpu_dump(struct lru_htab *h, FILE *f,
			     enum map_dump_format fmt)
{
	struct sieve_percpu *s = sieve_percpu_state(h);
	lru_dump_begin(f, fmt, "lru/sieve_percpu: one SIEVE queue per cpu slot, "
			       "newest first");
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "rings: %u, free: %llu, a ring below %u keys takes "
			"victims from the largest\n", s->n_rings,
			(unsigned long long)atomic_load(&s->free_total),
			s->min_keys);
	for (uint32_t i = 0; i < s->n_rings; i++) {
		char id[16], name[24];
		snprintf(id, sizeof(id), "r%u", i);
		snprintf(name, sizeof(name), "ring %u", i);
		lru_ring_dump(h, &s->rings[i], f, fmt, id, name);
	}
	lru_dump_end(f, fmt);
	return 0;
}

static size_t sieve_percpu_state_bytes(const struct lru_htab *h)
{
	const struct sieve_percpu *f = h->policy_state;
	return sizeof(*f) + (size_t)f->n_rings * sizeof(*f->rings);
}

static const struct lru_policy sieve_percpu_policy = {
	.init = sieve_percpu_init,
	.fini = sieve_percpu_fini,
	.pop_free = sieve_percpu_pop_free,
	.push_free = sieve_percpu_push_free,
	/* .referenced: the core's default, which sets the bit if unset;
	 * .replaced: the core's default, which marks the new element */
	.dump = sieve_percpu_dump,
	.state_bytes = sieve_percpu_state_bytes,
	.tagged_table = true,
	.flags_before_pop = true,
};

static int sieve_percpu_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&sieve_percpu_policy, attr, out);
}

const struct map_ops lru_sieve_percpu_ops = {
	.name = "lru/sieve_percpu",
	.description = "SIEVE with one queue per cpu slot: inserts and evictions "
		       "on the slot's own ring; lookups only set a bit",
	LRU_HTAB_MAP_OPS,
	/* several slots inserting may evict with a spare left in each ring */
	.evicts_early = 1,
	.create = sieve_percpu_create,
};
