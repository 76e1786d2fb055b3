/* SPDX-License-Identifier: MIT */
/*
 * lru/sampled: approximated LRU as Redis does it: no list in use order at
 * all.  Each key keeps the time of its last use; to evict, look at 5 keys
 * picked at random and evict the one used longest ago.
 *
 *   lookup (program): stamp the key with the map's clock.  No lock: one
 *           relaxed fetch-add on the clock, one relaxed store.
 *   insert: a key that gets a free element joins the live set, stamped.
 *   evict:  sample 5 distinct live keys uniformly (all of them when 5 or
 *           fewer are live), evict the one with the oldest stamp; its
 *           element is reused for the new key, stamped.
 *   delete: out of the live set, onto the free list.
 *   replace: the new element is stamped (a write is a use).
 *
 * With 5 keys or fewer the sample is every key, so the map is exact LRU;
 * with more, the victim is older than the 4 others sampled, so it is never
 * one of the 4 newest keys, and the larger the map the more a sample of 5
 * misses the oldest key.
 *
 * The clock is a per-map counter ticked once per use, not a time: two uses
 * never share a stamp, and a one-thread replay evicts the same keys
 * whatever the machine's speed, so tests and `maplab sim` are exactly
 * reproducible.  Its price is one cache line that every lookup writes: on
 * many cores that line moves between them (Redis avoids it with a coarse
 * clock that its cron updates).  The random picks come from a generator
 * per cpu slot (splitmix64), seeded from a fixed constant and the slot
 * number: replays are reproducible, and each slot's sequence does not
 * depend on what the others did.  The map's hash seed (BPF_F_ZERO_SEED or
 * not) does not matter: the live set is ordered by insert and delete.
 *
 * How Redis differs (redis/redis src/evict.c, server.h, redis.conf; see
 * docs/lru-textbook.md): since 3.0 Redis keeps an eviction pool of 16
 * candidates (EVPOOL_SIZE) across evictions, adding maxmemory-samples
 * keys (default 5) to it each time and evicting the idlest of the pool,
 * which makes it closer to LRU than one fresh sample; its keys carry a
 * 24-bit clock of 1 s resolution (LRU_BITS, LRU_CLOCK_RESOLUTION), so
 * keys used in the same second tie; and dictGetSomeKeys samples runs of
 * adjacent hash buckets, not keys uniformly.  This is the pre-3.0 scheme
 * with a uniform sample and an exact clock.  libCacheSim has no Redis
 * policy to compare with.
 *
 * Concurrency.  `lock` guards the live set (live[], pos[], n_live), the
 * free list, the generators and each element's `type`; insert, eviction,
 * replace and delete take it.  A lookup only ticks the clock and stores a
 * stamp (a stamp may be overwritten by a racing, slightly older tick,
 * which only ages the key by a little).  Invariants under the lock:
 *  - live[0..n_live) are the elements on no free list, each once, and
 *    pos[live[i]] == i; a popped element is live before the table links it;
 *  - every other element is on `free`, as `type` says.
 * A victim that cannot be unlinked (a concurrent update or delete took it
 * out of the table first) is passed over for the next oldest of the
 * sample; after 4 samples that found nothing, a scan of the live set takes
 * the first key it can unlink, and gives up (NULL: -ENOMEM) only when
 * every element is mid-update elsewhere.  Lock order: `lock`, then a
 * bucket lock (lru_htab_evict).
 */
#include "maps/base/lock.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_htab.h"

#include <errno.h>
#include <stdlib.h>

enum { ON_FREE, ON_LIVE };

#define SAMPLES 5         /* Redis's maxmemory-samples default */
#define SAMPLE_TRIES 4    /* fresh samples before the scan */
#define SEED 0x6d61706c61625f73ULL /* "maplab_s" */

struct sampled_lru {
	struct map_spinlock lock;
	struct dlist free;
	uint32_t *live;             /* [n_elems]: the live elements' indexes */
	uint32_t *pos;              /* [n_elems]: where each sits in live[] */
	uint32_t n_live;
	uint64_t *rng;              /* [ncpus]: splitmix64 states */
	_Atomic uint64_t clock;     /* ticks once per use */
	_Atomic uint64_t *stamp;    /* [n_elems]: the tick of the last use */
};

static struct sampled_lru *sampled_state(struct lru_htab *h)
{
	return h->policy_state;
}

/* splitmix64 (Steele, Lea, Flood 2014): one step of slot cpu's stream. */
static uint64_t sampled_next_random(struct sampled_lru *s, unsigned cpu)
{
	uint64_t z = (s->rng[cpu] += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void sampled_stamp_use(struct sampled_lru *s, const struct lru_node *n)
{
	uint64_t now = atomic_fetch_add_explicit(&s->clock, 1,
						 memory_order_relaxed) + 1;
	atomic_store_explicit(&s->stamp[n->index], now, memory_order_relaxed);
}

static uint64_t sampled_last_use(struct sampled_lru *s, uint32_t index)
{
	return atomic_load_explicit(&s->stamp[index], memory_order_relaxed);
}

static int sampled_init(struct lru_htab *h)
{
	struct sampled_lru *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	h->policy_state = s; /* fini frees what init made, on failure too */
	uint32_t ncpus = h->map.attr.ncpus;
	s->live = calloc(h->n_elems, sizeof(*s->live));
	s->pos = calloc(h->n_elems, sizeof(*s->pos));
	s->stamp = calloc(h->n_elems, sizeof(*s->stamp));
	s->rng = calloc(ncpus, sizeof(*s->rng));
	if (!s->live || !s->pos || !s->stamp || !s->rng)
		return -ENOMEM;
	map_spin_init(&s->lock);
	dlist_init(&s->free);
	for (uint32_t c = 0; c < ncpus; c++)
		s->rng[c] = SEED + c;
	for (uint32_t i = 0; i < h->n_elems; i++) {
		struct lru_node *n = lru_htab_node(h, i);
		n->type = ON_FREE;
		dlist_add_tail(&n->link, &s->free);
	}
	return 0;
}

static void sampled_fini(struct lru_htab *h)
{
	struct sampled_lru *s = sampled_state(h);
	free(s->live);
	free(s->pos);
	free(s->stamp);
	free(s->rng);
	free(s);
}

/* Lock held: live[i] and live[j] trade places. */
static void sampled_swap_live(struct sampled_lru *s, uint32_t i, uint32_t j)
{
	uint32_t a = s->live[i], b = s->live[j];
	s->live[i] = b;
	s->live[j] = a;
	s->pos[b] = i;
	s->pos[a] = j;
}

static void sampled_join_live(struct sampled_lru *s, const struct lru_node *n)
{
	s->live[s->n_live] = n->index;
	s->pos[n->index] = s->n_live++;
}

static void sampled_leave_live(struct sampled_lru *s, const struct lru_node *n)
{
	sampled_swap_live(s, s->pos[n->index], s->n_live - 1);
	s->n_live--;
}

/*
 * Lock held: draw k distinct live elements uniformly into live[0..k)
 * (the first k steps of a Fisher-Yates shuffle).
 */
static uint32_t sampled_draw_sample(struct lru_htab *h, unsigned cpu)
{
	struct sampled_lru *s = sampled_state(h);
	uint32_t k = s->n_live < SAMPLES ? s->n_live : SAMPLES;
	for (uint32_t i = 0; i < k; i++) {
		uint64_t r = sampled_next_random(s, cpu);
		sampled_swap_live(s, i, i + (uint32_t)(r % (s->n_live - i)));
	}
	map_work_count(&lru_work(h, cpu)->nodes_scanned, k);
	return k;
}

/* Lock held: the sample's oldest key that leaves the table, or NULL. */
static struct lru_node *sampled_evict_oldest_of_sample(struct lru_htab *h,
						       unsigned cpu, uint32_t k)
{
	struct sampled_lru *s = sampled_state(h);
	bool passed[SAMPLES] = { false };
	for (uint32_t tries = 0; tries < k; tries++) {
		uint32_t best = k;
		for (uint32_t i = 0; i < k; i++)
			if (!passed[i] &&
			    (best == k ||
			     sampled_last_use(s, s->live[i]) <
				     sampled_last_use(s, s->live[best])))
				best = i;
		struct lru_node *n = lru_htab_node(h, s->live[best]);
		if (lru_htab_evict(h, cpu, n))
			return n;
		passed[best] = true;
	}
	return NULL;
}

/* Lock held: evict a key; its element stays live, for the new key. */
static struct lru_node *sampled_evict(struct lru_htab *h, unsigned cpu)
{
	struct sampled_lru *s = sampled_state(h);
	map_work_count(&lru_work(h, cpu)->refills, 1);
	for (int t = 0; t < SAMPLE_TRIES; t++) {
		uint32_t k = sampled_draw_sample(h, cpu);
		struct lru_node *n = sampled_evict_oldest_of_sample(h, cpu, k);
		if (n)
			return n;
	}
	for (uint32_t i = 0; i < s->n_live; i++) {
		struct lru_node *n = lru_htab_node(h, s->live[i]);
		map_work_count(&lru_work(h, cpu)->nodes_scanned, 1);
		if (lru_htab_evict(h, cpu, n))
			return n;
	}
	return NULL;
}

static struct lru_node *sampled_pop_free(struct lru_htab *h, unsigned cpu,
					 uint32_t hash)
{
	struct sampled_lru *s = sampled_state(h);
	lru_lock(h, cpu, &s->lock);
	struct dlist *f = dlist_first(&s->free);
	struct lru_node *n;
	if (f) {
		n = lru_node_of(f);
		dlist_del(f);
		n->type = ON_LIVE;
		sampled_join_live(s, n);
	} else {
		n = sampled_evict(h, cpu);
	}
	if (n) {
		sampled_stamp_use(s, n);
		lru_node_set_hash(n, hash);
	}
	map_spin_unlock(&s->lock);
	return n;
}

static void sampled_push_free(struct lru_htab *h, unsigned cpu,
			      struct lru_node *n)
{
	struct sampled_lru *s = sampled_state(h);
	lru_lock(h, cpu, &s->lock);
	sampled_leave_live(s, n);
	n->type = ON_FREE;
	dlist_add(&n->link, &s->free);
	map_spin_unlock(&s->lock);
}

/* A hit: the key's last use is now.  No lock. */
static void sampled_referenced(struct lru_htab *h, unsigned cpu,
			       struct lru_node *n)
{
	(void)cpu;
	sampled_stamp_use(sampled_state(h), n);
}

/* A replace is a use of the new element (no ref bit: stamps decide). */
static void sampled_replaced(struct lru_htab *h, unsigned cpu,
			     struct lru_node *n, struct lru_node *old)
{
	(void)cpu, (void)old;
	sampled_stamp_use(sampled_state(h), n);
}

/* --- dump -------------------------------------------------------------------------- */

struct by_use {
	uint64_t stamp;
	uint32_t index;
};

static int sampled_newest_first(const void *a, const void *b)
{
	uint64_t x = ((const struct by_use *)a)->stamp;
	uint64_t y = ((const struct by_use *)b)->stamp;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void sampled_dump_entry(struct lru_htab *h, FILE *f,
			       enum map_dump_format fmt, const struct by_use *u,
			       size_t i)
{
	struct lru_node *n = lru_htab_node(h, u->index);
	if (fmt == MAP_DUMP_TEXT) {
		fputc(' ', f);
		lru_dump_key(f, h, n);
		fprintf(f, "@%llu", (unsigned long long)u->stamp);
		return;
	}
	fprintf(f, "    live_%zu [label=\"", i);
	lru_dump_key(f, h, n);
	fprintf(f, " @%llu\"];\n", (unsigned long long)u->stamp);
	if (i)
		fprintf(f, "    live_%zu -> live_%zu;\n", i - 1, i);
}

static int sampled_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt)
{
	struct sampled_lru *s = sampled_state(h);
	map_spin_lock(&s->lock);
	struct by_use *u = calloc(s->n_live ? s->n_live : 1, sizeof(*u));
	if (!u) {
		map_spin_unlock(&s->lock);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->n_live; i++)
		u[i] = (struct by_use){ sampled_last_use(s, s->live[i]),
					s->live[i] };
	qsort(u, s->n_live, sizeof(*u), sampled_newest_first);
	lru_dump_begin(f, fmt, "lru/sampled: keys by last use (@tick), newest "
			       "first; an eviction takes the oldest of 5 "
			       "picked at random");
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "live (%u):", s->n_live);
	else
		fprintf(f, "  subgraph cluster_live {\n    label=\"live (%u), "
			"clock %llu\";\n", s->n_live,
			(unsigned long long)atomic_load(&s->clock));
	for (uint32_t i = 0; i < s->n_live; i++)
		sampled_dump_entry(h, f, fmt, &u[i], i);
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "\nclock: %llu\nfree: %zu elements\n",
			(unsigned long long)atomic_load(&s->clock),
			lru_dump_list_length(&s->free));
	else
		fputs("  }\n", f);
	lru_dump_end(f, fmt);
	map_spin_unlock(&s->lock);
	free(u);
	return 0;
}

/* Beyond lru_node: a stamp and two live-set indexes an element, and a
 * generator a cpu slot. */
static size_t sampled_state_bytes(const struct lru_htab *h)
{
	return sizeof(struct sampled_lru) +
	       (size_t)h->n_elems * (sizeof(uint64_t) + 2 * sizeof(uint32_t)) +
	       (size_t)h->map.attr.ncpus * sizeof(uint64_t);
}

static const struct lru_policy sampled_policy = {
	.init = sampled_init,
	.fini = sampled_fini,
	.pop_free = sampled_pop_free,
	.push_free = sampled_push_free,
	.referenced = sampled_referenced,
	.replaced = sampled_replaced,
	.dump = sampled_dump,
	.state_bytes = sampled_state_bytes,
};

static int sampled_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&sampled_policy, attr, out);
}

const struct map_ops lru_sampled_ops = {
	.name = "lru/sampled",
	.description = "approximated LRU (Redis before 3.0): a stamp per use "
		       "without a lock; evict the oldest of 5 random keys",
	LRU_HTAB_MAP_OPS,
	.create = sampled_create,
};
