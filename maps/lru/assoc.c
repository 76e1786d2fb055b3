/* SPDX-License-Identifier: MIT */
/*
 * lru/assoc: a set-associative LRU hash.  The table is an array of sets
 * of 8 ways; a key lives in one set (chosen by its hash) and that set is
 * its whole world: it is inserted there, and when the set is full one of
 * the set's own keys leaves, chosen by SIEVE (lru/sieve's rules, a queue
 * and a hand per set).  Keys and values sit in the set itself: there are
 * no elements, no lists, no free pool, nothing shared between sets.
 *
 *   set (128 bytes for 4-byte keys and 8-byte values, cache-line aligned):
 *     [seq][used][visited][hand][n][order[8]] [key 0..7] [value 0..7]
 *     with 4-byte keys, the header and the keys fill the first 48 bytes:
 *     a miss reads one line; the values follow (2 on line 0, 6 on line 1)
 *     used:     bit w: way w holds a key
 *     visited:  bit w: way w's key was looked up by a program since the
 *               hand last passed it (set without the lock, as SIEVE's)
 *     order:    the used ways, oldest first: order[0] is SIEVE's tail,
 *               order[n-1] its head (the newest)
 *     hand:     the position in order the next eviction looks at first
 *               (HAND_AT_TAIL: start at the tail, Sieve.c's NULL hand)
 *
 * What it buys: a lookup reads one line (a hit reads the value on the
 * adjacent one); an insert reads and writes one set, evicting from it
 * with no second bucket to visit and no lock but the set's.  Nothing
 * holds a global age: this is the far end of "maintaining a global
 * consensus on the age of keys is expensive" (docs/lru-sieve-percpu.md).
 *
 * What it costs: a key can be evicted while other sets have room (a set
 * fills before the map does: evicts_early), and the victim is the best
 * of 8, not of all the keys.  On zipf 0.99 it misses 0.94x exact LRU's
 * ratio (docs/lru-sieve-percpu.md, tests/maps/lru/test_sieve.c), where full SIEVE
 * misses 0.92x.  The map holds n_sets * 8 keys, n_sets = max_entries / 8
 * (fewer ways when max_entries < 8): up to 7 fewer than max_entries.
 *
 * Concurrency: each set's seqlock (lock.h).  Writers (update, delete)
 * hold it; readers (lookup, get_next_key, lookup_copy) read between
 * map_seq_read_begin and a retry, and trust a match only when the retry
 * says the set did not change.  A program lookup returns a pointer into
 * the set: the way may be given to another key after the read section's
 * check, as the kernel's preallocated elements are reused (its value then
 * changes under the reader).  The visited bits are hints, written by
 * readers with an atomic or, cleared by the hand under the lock.
 */
#include "maps/base/area.h"
#include "maps/base/attr.h"
#include "maps/base/cpu.h"
#include "maps/base/fastkey.h"
#include "maps/tables/htab.h"
#include "maps/base/lock.h"
#include "maps/base/work.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define WAYS 8
#define HAND_AT_TAIL 0xff /* Sieve.c's NULL hand: start at the tail */

struct set_head {
	struct map_seqlock seq;
	_Atomic uint8_t used;
	_Atomic uint8_t visited;
	_Atomic uint8_t hand;
	_Atomic uint8_t n;
	_Atomic uint8_t order[WAYS];
	/* keys, then values, follow at the offsets in struct assoc */
};

struct assoc {
	struct map map;
	uint8_t *sets;
	uint32_t n_sets, ways;
	uint32_t set_size;      /* bytes, a multiple of 64 */
	uint32_t key_stride;    /* key bytes rounded up to 4 */
	uint32_t keys_at, values_at, value_stride;
	uint32_t seed;
	void (*on_evict)(void *ctx, const void *key);
	void *on_evict_ctx;
	struct map_work_slot *work; /* [ncpus] */
};

static struct assoc *assoc_of(struct map *m)
{
	return (struct assoc *)m;
}

static struct set_head *assoc_set_at(const struct assoc *a, uint32_t i)
{
	return (struct set_head *)(a->sets + (size_t)i * a->set_size);
}

/* any n_sets, not only powers of two: the map holds max_entries */
static uint32_t assoc_set_index(const struct assoc *a, uint32_t hash)
{
	return (uint32_t)(((uint64_t)hash * a->n_sets) >> 32);
}

static struct set_head *assoc_set_of(const struct assoc *a, uint32_t hash)
{
	return assoc_set_at(a, assoc_set_index(a, hash));
}

static uint8_t *assoc_key_at(const struct assoc *a, struct set_head *s,
			     unsigned w)
{
	return (uint8_t *)s + a->keys_at + w * a->key_stride;
}

static uint8_t *assoc_value_at(const struct assoc *a, struct set_head *s,
			       unsigned w)
{
	return (uint8_t *)s + a->values_at + w * a->value_stride;
}

static uint8_t assoc_load8(_Atomic uint8_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

static void assoc_store8(_Atomic uint8_t *p, uint8_t v)
{
	atomic_store_explicit(p, v, memory_order_relaxed);
}

/* --- create and destroy ------------------------------------------------------ */

static void assoc_destroy(struct map *m)
{
	struct assoc *a = assoc_of(m);
	free(a->sets);
	free(a->work);
	free(a);
}

static void assoc_lay_out(struct assoc *a, uint32_t max_entries)
{
	const struct map_attr *at = &a->map.attr;
	a->ways = max_entries < WAYS ? max_entries : WAYS;
	a->n_sets = max_entries / a->ways;
	a->key_stride = (at->key_size + 3u) & ~3u;
	a->value_stride = HTAB_ROUND8(at->value_size);
	a->keys_at = sizeof(struct set_head);
	a->values_at = HTAB_ROUND8(a->keys_at + a->ways * a->key_stride);
	uint32_t bytes = a->values_at + a->ways * a->value_stride;
	a->set_size = (bytes + 63u) & ~63u;
}

static int assoc_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;
	if (attr->flags & MAP_F_NO_COMMON_LRU)
		return -EINVAL;
	struct assoc *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->map.attr = *attr;
	assoc_lay_out(a, attr->max_entries);
	a->seed = attr->flags & MAP_F_ZERO_SEED ? 0 : htab_random_seed();
	a->sets = map_area_alloc_array(a->n_sets, a->set_size, 64);
	a->work = map_area_alloc_array(attr->ncpus, sizeof(*a->work), 64);
	if (!a->sets || !a->work) {
		assoc_destroy(&a->map);
		return -ENOMEM;
	}
	memset(a->sets, 0, (size_t)a->n_sets * a->set_size);
	memset(a->work, 0, attr->ncpus * sizeof(*a->work));
	*out = &a->map;
	return 0;
}

/* --- finding a key ------------------------------------------------------------ */

/* The way of key in s, or -1.  Under the lock, or inside a read pass. */
static int assoc_way_of(const struct assoc *a, struct set_head *s,
			const void *key)
{
	uint8_t used = assoc_load8(&s->used);
	for (unsigned w = 0; w < a->ways; w++)
		if ((used >> w & 1) && fastkey_equal(assoc_key_at(a, s, w), key,
						     a->map.attr.key_size))
			return (int)w;
	return -1;
}

/* Lock-free: the way of key in s as of one moment, or -1. */
static int assoc_read_way(const struct assoc *a, struct set_head *s,
			  const void *key)
{
	uint32_t seq;
	int w;
	do {
		seq = map_seq_read_begin(&s->seq);
		w = assoc_way_of(a, s, key);
	} while (map_seq_read_retry(&s->seq, seq));
	return w;
}

static void *assoc_lookup(struct map *m, const void *key)
{
	struct assoc *a = assoc_of(m);
	struct set_head *s =
		assoc_set_of(a, fastkey_hash(key, m->attr.key_size, a->seed));
	int w = assoc_read_way(a, s, key);
	if (w < 0)
		return NULL;
	uint8_t bit = (uint8_t)(1u << w);
	/* a hot key's line stays shared */
	if (!(assoc_load8(&s->visited) & bit))
		atomic_fetch_or_explicit(&s->visited, bit, memory_order_relaxed);
	return assoc_value_at(a, s, (unsigned)w);
}

static int assoc_lookup_copy(struct map *m, const void *key, void *value)
{
	struct assoc *a = assoc_of(m);
	struct set_head *s =
		assoc_set_of(a, fastkey_hash(key, m->attr.key_size, a->seed));
	uint32_t seq;
	int w;
	do { /* the copy is one moment's too: no torn value */
		seq = map_seq_read_begin(&s->seq);
		w = assoc_way_of(a, s, key);
		if (w >= 0)
			fastkey_copy(value, assoc_value_at(a, s, (unsigned)w),
				     m->attr.value_size);
	} while (map_seq_read_retry(&s->seq, seq));
	return w < 0 ? -ENOENT : 0;
}

/* --- the queue of a set (its lock held) --------------------------------------- */

static unsigned assoc_position_of(struct set_head *s, unsigned w)
{
	unsigned n = assoc_load8(&s->n), p = 0;
	while (p < n && assoc_load8(&s->order[p]) != w)
		p++;
	return p;
}

/* Way w leaves the queue; a hand past it steps back with the keys, a hand
 * on it stays on its neighbour towards the head (Sieve.c's remove). */
static void assoc_leave_queue(struct set_head *s, unsigned w)
{
	unsigned n = assoc_load8(&s->n), p = assoc_position_of(s, w);
	for (unsigned i = p; i + 1 < n; i++)
		assoc_store8(&s->order[i], assoc_load8(&s->order[i + 1]));
	assoc_store8(&s->n, (uint8_t)(n - 1));
	unsigned hand = assoc_load8(&s->hand);
	if (hand < n && hand > p)
		assoc_store8(&s->hand, (uint8_t)(hand - 1));
	else if (hand == p && p == n - 1) /* it was on the head */
		assoc_store8(&s->hand, HAND_AT_TAIL);
	assoc_store8(&s->used, assoc_load8(&s->used) & (uint8_t)~(1u << w));
	/* an atomic and: readers set other ways' bits at the same time */
	atomic_fetch_and_explicit(&s->visited, (uint8_t)~(1u << w),
				  memory_order_relaxed);
}

static void assoc_join_queue(struct set_head *s, unsigned w)
{
	unsigned n = assoc_load8(&s->n);
	assoc_store8(&s->order[n], (uint8_t)w);
	assoc_store8(&s->n, (uint8_t)(n + 1));
	assoc_store8(&s->used, assoc_load8(&s->used) | (uint8_t)(1u << w));
	/* new keys come in unvisited (again: a reader of the way's old key
	 * may have set the bit since assoc_leave_queue cleared it) */
	atomic_fetch_and_explicit(&s->visited, (uint8_t)~(1u << w),
				  memory_order_relaxed);
}

/* SIEVE in a full set: from the hand towards the head (wrapping to the
 * tail), clear visited bits up to the first unvisited key: it leaves. */
static unsigned assoc_evict(struct assoc *a, struct set_head *s,
			    struct map_work_slot *work)
{
	unsigned n = assoc_load8(&s->n), p = assoc_load8(&s->hand), scanned = 0;
	if (p >= n)
		p = 0;
	for (;; p = p + 1 < n ? p + 1 : 0) {
		unsigned w = assoc_load8(&s->order[p]);
		uint8_t bit = (uint8_t)(1u << w);
		scanned++;
		if (!(assoc_load8(&s->visited) & bit))
			break;
		atomic_fetch_and_explicit(&s->visited, (uint8_t)~bit,
					  memory_order_relaxed);
	}
	unsigned victim = assoc_load8(&s->order[p]);
	if (a->on_evict)
		a->on_evict(a->on_evict_ctx, assoc_key_at(a, s, victim));
	assoc_store8(&s->hand, (uint8_t)p); /* its neighbour will stand there */
	assoc_leave_queue(s, victim);
	map_work_count(&work->refills, 1); /* one eviction pass, as lru/sieve_percpu counts */
	map_work_count(&work->nodes_scanned, scanned);
	map_work_count(&work->evictions, 1);
	return victim;
}

static unsigned assoc_free_way(const struct assoc *a, struct set_head *s)
{
	uint8_t used = assoc_load8(&s->used);
	unsigned w = 0;
	while (w < a->ways && (used >> w & 1))
		w++;
	return w;
}

/* --- update and delete ------------------------------------------------------------ */

/* The set of key, locked; the lock counted on this thread's slot, whose
 * counters *work points at. */
static struct set_head *assoc_lock_set_of(struct assoc *a, const void *key,
					  struct map_work_slot **work)
{
	uint32_t hash = fastkey_hash(key, a->map.attr.key_size, a->seed);
	struct set_head *s = assoc_set_of(a, hash);
	*work = &a->work[map_this_cpu()];
	map_seq_lock(&s->seq);
	map_work_count(&(*work)->locks, 1);
	return s;
}

static int assoc_update(struct map *m, const void *key, const void *value,
			uint64_t flags)
{
	struct assoc *a = assoc_of(m);
	int err = map_update_flags_valid(flags);
	if (err)
		return err;
	struct map_work_slot *work;
	struct set_head *s = assoc_lock_set_of(a, key, &work);
	int w = assoc_way_of(a, s, key);
	err = map_update_flags_check(w >= 0, flags);
	if (!err) {
		if (w >= 0) { /* a replace is a hit: in place, visited */
			atomic_fetch_or_explicit(&s->visited,
						 (uint8_t)(1u << w),
						 memory_order_relaxed);
		} else {
			w = (int)assoc_free_way(a, s);
			if ((unsigned)w == a->ways)
				w = (int)assoc_evict(a, s, work);
			fastkey_copy(assoc_key_at(a, s, (unsigned)w), key,
				     m->attr.key_size);
			assoc_join_queue(s, (unsigned)w);
		}
		fastkey_copy(assoc_value_at(a, s, (unsigned)w), value,
			     m->attr.value_size);
	}
	map_seq_unlock(&s->seq);
	return err;
}

static int assoc_delete(struct map *m, const void *key)
{
	struct assoc *a = assoc_of(m);
	struct map_work_slot *work;
	struct set_head *s = assoc_lock_set_of(a, key, &work);
	int w = assoc_way_of(a, s, key);
	if (w >= 0)
		assoc_leave_queue(s, (unsigned)w);
	map_seq_unlock(&s->seq);
	return w < 0 ? -ENOENT : 0;
}

/* --- get_next_key: sets in turn, in each the ways in order ----------------------- */

/* The key of the first used way >= from in set i, copied to next. */
static bool assoc_first_from(struct assoc *a, uint32_t i, unsigned from,
			     void *next)
{
	struct set_head *s = assoc_set_at(a, i);
	uint32_t seq;
	bool got;
	do {
		seq = map_seq_read_begin(&s->seq);
		uint8_t used = assoc_load8(&s->used);
		got = false;
		for (unsigned w = from; w < a->ways && !got; w++)
			if (used >> w & 1) {
				fastkey_copy(next, assoc_key_at(a, s, w),
					     a->map.attr.key_size);
				got = true;
			}
	} while (map_seq_read_retry(&s->seq, seq));
	return got;
}

static int assoc_get_next_key(struct map *m, const void *key, void *next)
{
	struct assoc *a = assoc_of(m);
	uint32_t i = 0;
	unsigned from = 0;
	if (key) {
		uint32_t hash = fastkey_hash(key, m->attr.key_size, a->seed);
		struct set_head *s = assoc_set_of(a, hash);
		int w = assoc_read_way(a, s, key);
		if (w >= 0) {
			i = assoc_set_index(a, hash);
			from = (unsigned)w + 1;
		}
	}
	for (; i < a->n_sets; i++, from = 0)
		if (assoc_first_from(a, i, from, next))
			return 0;
	return -ENOENT;
}

/* --- what the harness reads ---------------------------------------------------------- */

static void assoc_work(const struct map *m, int cpu, struct map_work *w)
{
	const struct assoc *a = (const struct assoc *)m;
	map_work_sum(a->work, m->attr.ncpus, cpu, w);
}

static void assoc_watch_evictions(struct map *m,
				  void (*fn)(void *ctx, const void *key),
				  void *ctx)
{
	struct assoc *a = assoc_of(m);
	a->on_evict_ctx = ctx;
	a->on_evict = fn;
}

static size_t assoc_memory(const struct map *m)
{
	const struct assoc *a = (const struct assoc *)m;
	return sizeof(*a) + (size_t)a->n_sets * a->set_size +
	       (size_t)m->attr.ncpus * sizeof(*a->work);
}

static void assoc_print_key(FILE *f, const struct assoc *a, struct set_head *s,
			    unsigned w)
{
	const uint8_t *k = assoc_key_at(a, s, w);
	for (uint32_t i = 0; i < a->map.attr.key_size; i++)
		fprintf(f, "%02x", k[i]);
}

/* Text: each non-empty set's queue, newest first, * visited, the hand.
 * Dot: one cluster per non-empty set. */
static int assoc_dump_state(struct map *m, FILE *f, enum map_dump_format fmt)
{
	struct assoc *a = assoc_of(m);
	bool dot = fmt == MAP_DUMP_DOT;
	if (dot)
		fprintf(f, "digraph maplab {\n  label=\"lru/assoc: %u sets of "
			"%u ways, each queue newest first\";\n  labelloc=t;\n"
			"  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n",
			a->n_sets, a->ways);
	else
		fprintf(f, "lru/assoc: %u sets of %u ways; each non-empty set's "
			"queue newest first\n", a->n_sets, a->ways);
	for (uint32_t i = 0; i < a->n_sets; i++) {
		struct set_head *s = assoc_set_at(a, i);
		unsigned n = assoc_load8(&s->n), hand = assoc_load8(&s->hand);
		if (!n)
			continue;
		if (hand >= n)
			hand = 0;
		if (dot)
			fprintf(f, "  subgraph cluster_s%u {\n    label=\"set %u\";\n",
				i, i);
		else
			fprintf(f, "set %u (%u):", i, n);
		for (unsigned p = n; p-- > 0;) {
			unsigned w = assoc_load8(&s->order[p]);
			bool vis = assoc_load8(&s->visited) >> w & 1;
			if (dot) {
				fprintf(f, "    s%u_%u [label=\"", i, p);
				assoc_print_key(f, a, s, w);
				fprintf(f, "%s\"%s];\n", vis ? " visited" : "",
					p == hand ? ", penwidth=3, color=\"#c03030\"" : "");
				if (p + 1 < n)
					fprintf(f, "    s%u_%u -> s%u_%u;\n", i, p + 1, i, p);
			} else {
				fputs(p == hand ? " [hand]" : " ", f);
				assoc_print_key(f, a, s, w);
				if (vis)
					fputc('*', f);
			}
		}
		fputs(dot ? "  }\n" : "\n", f);
	}
	if (dot)
		fputs("}\n", f);
	return 0;
}

const struct map_ops lru_assoc_ops = {
	.name = "lru/assoc",
	.description = "set-associative: 8-way sets, each its own SIEVE queue; "
		       "keys and values in the set, nothing shared between sets",
	.type = MAP_TYPE_LRU_HASH,
	/* a set fills (and evicts) before the map does */
	.evicts_early = 1,
	.evicts_by_set = 1,
	.create = assoc_create,
	.destroy = assoc_destroy,
	.lookup = assoc_lookup,
	.lookup_copy = assoc_lookup_copy,
	.update = assoc_update,
	.delete = assoc_delete,
	.get_next_key = assoc_get_next_key,
	.work = assoc_work,
	.dump_state = assoc_dump_state,
	.watch_evictions = assoc_watch_evictions,
	.memory = assoc_memory,
};
