/* SPDX-License-Identifier: MIT */
/*
 * tagtab.c: see tagtab.h.
 *
 * A key's place in its bucket is a position: 0..7 a slot, 8 + k the k-th
 * node of the overflow.  Invariants, under the bucket's lock:
 *   - a slot is empty exactly when its tag is 0; a used slot's index names
 *     a node whose hash falls in this bucket and whose tag is tag[s];
 *   - a key is in at most one place of the whole table;
 *   - the overflow is not empty only while every slot is used: a delete
 *     from a slot moves the overflow's first node into it.  So a lookup
 *     that finds an empty slot still reads the overflow (cheap: it is
 *     NULL), but an insert never has to look past a free slot.
 */
#include "maps/tables/tagtab.h"
#include "maps/base/area.h"
#include "maps/base/attr.h"
#include "maps/base/fastkey.h"
#include "maps/base/update_flags.h"


#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct tagtab_bucket) == 64,
	       "a tagtab bucket is one cache line");

int tagtab_init(struct tagtab *t, uint32_t max_entries, uint32_t key_size,
		int zero_seed, uint8_t *elems, size_t elem_size,
		size_t node_offset, uint32_t n_elems)
{
	uint32_t want = max_entries / 4 ? max_entries / 4 : 1;
	t->n_buckets = map_roundup_pow2(want);
	t->key_size = key_size;
	t->seed = zero_seed ? 0 : htab_random_seed();
	t->elems = elems;
	t->elem_size = elem_size;
	t->node_offset = (uint32_t)node_offset;
	t->n_elems = n_elems;
	t->buckets = map_area_alloc_array(t->n_buckets, sizeof(*t->buckets), 64);
	if (!t->buckets)
		return -ENOMEM;
	memset(t->buckets, 0, (size_t)t->n_buckets * sizeof(*t->buckets));
	for (uint32_t i = 0; i < n_elems; i++)
		((struct htab_node *)(elems + (size_t)i * elem_size +
				      node_offset))->index = i;
	return 0;
}

void tagtab_destroy(struct tagtab *t)
{
	free(t->buckets);
	t->buckets = NULL;
}

size_t tagtab_bytes(const struct tagtab *t)
{
	return (size_t)t->n_buckets * sizeof(*t->buckets);
}

uint32_t tagtab_hash(const struct tagtab *t, const void *key)
{
	return fastkey_hash(key, t->key_size, t->seed);
}

static inline uint16_t tag_of(uint32_t hash)
{
	/* the high half of a multiply depends on every bit of the hash, the
	 * bucket's low bits included; | 1 keeps 0 for "empty" */
	return (uint16_t)(((hash * 0x9e3779b1u) >> 16) | 1u);
}

static inline struct tagtab_bucket *bucket_of(struct tagtab *t, uint32_t hash)
{
	return &t->buckets[hash & (t->n_buckets - 1)];
}

static inline struct htab_node *node_at(const struct tagtab *t, uint32_t index)
{
	return (struct htab_node *)(t->elems + (size_t)index * t->elem_size +
				    t->node_offset);
}

static inline bool node_holds(const struct tagtab *t, const struct htab_node *n,
			      uint32_t hash, const void *key)
{
	return n->hash == hash &&
	       fastkey_equal((const void *)(n + 1), key, t->key_size);
}

static inline struct htab_node *overflow_next(struct htab_node *n)
{
	struct nulls_node *p =
		atomic_load_explicit(&n->chain.next, memory_order_relaxed);
	return p ? htab_node_of(p) : NULL;
}

static inline void set_overflow_next(struct htab_node *n, struct htab_node *next)
{
	atomic_store_explicit(&n->chain.next, next ? &next->chain : NULL,
			      memory_order_relaxed);
}

static inline uint16_t load_tag(struct tagtab_bucket *b, int s)
{
	return atomic_load_explicit(&b->tag[s], memory_order_relaxed);
}

static inline uint32_t load_index(struct tagtab_bucket *b, int s)
{
	return atomic_load_explicit(&b->index[s], memory_order_relaxed);
}

/*
 * The slots whose tag is `tag`, one bit each.  With SSE2 (every x86-64)
 * the 8 tags are 16 bytes, compared in one instruction.  The load is one
 * plain 16-byte read of memory a writer may be changing: the caller's
 * seqlock retry throws away whatever it read then, as for every other
 * load of a read pass.
 */
#if defined(__SSE2__)
#include <emmintrin.h>
static inline unsigned tag_matches(struct tagtab_bucket *b, uint16_t tag)
{
	__m128i tags = _mm_loadu_si128((const __m128i *)(const void *)b->tag);
	__m128i eq = _mm_cmpeq_epi16(tags, _mm_set1_epi16((short)tag));
	/* 16-bit lanes packed to bytes: one mask bit a slot */
	return (unsigned)_mm_movemask_epi8(_mm_packs_epi16(eq,
							   _mm_setzero_si128()));
}
#else
static inline unsigned tag_matches(struct tagtab_bucket *b, uint16_t tag)
{
	unsigned mask = 0;
	for (int s = 0; s < TAGTAB_SLOTS; s++)
		if (atomic_load_explicit(&b->tag[s], memory_order_relaxed) == tag)
			mask |= 1u << s;
	return mask;
}
#endif

/* --- readers --------------------------------------------------------------------- */

/*
 * One pass over b between begin (seq) and a retry: *pos and the node of
 * key, or NULL.  false when a writer came: the pass is void.
 */
static bool read_pass(struct tagtab *t, struct tagtab_bucket *b, uint32_t seq,
		      uint32_t hash, const void *key, struct htab_node **out,
		      int *pos)
{
	*out = NULL;
	for (unsigned m = tag_matches(b, tag_of(hash)); m; m &= m - 1) {
		int s = __builtin_ctz(m);
		struct htab_node *n = node_at(t, load_index(b, s));
		if (node_holds(t, n, hash, key)) {
			*out = n;
			*pos = s;
			return !map_seq_read_retry(&b->seq, seq);
		}
	}
	int p = TAGTAB_SLOTS;
	struct htab_node *n =
		atomic_load_explicit(&b->overflow, memory_order_relaxed);
	for (; n; n = overflow_next(n), p++) {
		/* checked at every step: a node unlinked and reused since we
		 * read the pointer to it leads into another bucket's chain */
		if (map_seq_read_retry(&b->seq, seq))
			return false;
		if (node_holds(t, n, hash, key)) {
			*out = n;
			*pos = p;
			break;
		}
	}
	return !map_seq_read_retry(&b->seq, seq);
}

static struct htab_node *read_find(struct tagtab *t, struct tagtab_bucket *b,
				   uint32_t hash, const void *key, int *pos)
{
	struct htab_node *n;
	uint32_t seq;
	do
		seq = map_seq_read_begin(&b->seq);
	while (!read_pass(t, b, seq, hash, key, &n, pos));
	return n;
}

struct htab_node *tagtab_lookup(struct tagtab *t, uint32_t hash,
				const void *key)
{
	int pos;
	return read_find(t, bucket_of(t, hash), hash, key, &pos);
}

/* --- writers (the bucket's lock held) ---------------------------------------- */

/* The node of key in locked b, and its slot (-1: in the overflow). */
static struct htab_node *locked_find(struct tagtab *t, struct tagtab_bucket *b,
				     uint32_t hash, const void *key, int *slot)
{
	uint16_t tag = tag_of(hash);
	for (int s = 0; s < TAGTAB_SLOTS; s++) {
		if (load_tag(b, s) != tag)
			continue;
		struct htab_node *n = node_at(t, load_index(b, s));
		if (node_holds(t, n, hash, key)) {
			*slot = s;
			return n;
		}
	}
	*slot = -1;
	struct htab_node *n =
		atomic_load_explicit(&b->overflow, memory_order_relaxed);
	for (; n; n = overflow_next(n))
		if (node_holds(t, n, hash, key))
			return n;
	return NULL;
}

static void put_in_slot(struct tagtab_bucket *b, int s, struct htab_node *n)
{
	atomic_store_explicit(&b->index[s], n->index, memory_order_relaxed);
	atomic_store_explicit(&b->tag[s], tag_of(n->hash), memory_order_relaxed);
}

static void push_overflow(struct tagtab_bucket *b, struct htab_node *n)
{
	set_overflow_next(n, atomic_load_explicit(&b->overflow,
						  memory_order_relaxed));
	atomic_store_explicit(&b->overflow, n, memory_order_relaxed);
}

static void link_new(struct tagtab_bucket *b, struct htab_node *n)
{
	for (int s = 0; s < TAGTAB_SLOTS; s++)
		if (load_tag(b, s) == 0) {
			put_in_slot(b, s, n);
			return;
		}
	push_overflow(b, n);
}

/* Empty slot s; the overflow's first node, if any, takes it. */
static void empty_slot(struct tagtab_bucket *b, int s)
{
	struct htab_node *first =
		atomic_load_explicit(&b->overflow, memory_order_relaxed);
	if (first) {
		atomic_store_explicit(&b->overflow, overflow_next(first),
				      memory_order_relaxed);
		put_in_slot(b, s, first);
	} else {
		atomic_store_explicit(&b->tag[s], 0, memory_order_relaxed);
	}
}

/* Replace old (or, with n NULL, remove it) in the overflow of locked b. */
static void overflow_replace(struct tagtab_bucket *b, struct htab_node *old,
			     struct htab_node *n)
{
	struct htab_node *after = overflow_next(old);
	if (n)
		set_overflow_next(n, after);
	struct htab_node *repl = n ? n : after;
	struct htab_node *p = atomic_load_explicit(&b->overflow,
						   memory_order_relaxed);
	if (p == old) {
		atomic_store_explicit(&b->overflow, repl, memory_order_relaxed);
		return;
	}
	while (overflow_next(p) != old)
		p = overflow_next(p);
	set_overflow_next(p, repl);
}

int tagtab_update_begin(struct tagtab *t, const void *key, uint32_t hash,
			uint64_t flags, struct tagtab_update *u)
{
	u->hash = hash;
	u->bucket = bucket_of(t, hash);
	map_seq_lock(&u->bucket->seq);
	u->old = locked_find(t, u->bucket, hash, key, &u->slot);
	int err = map_update_flags_check(u->old != NULL, flags);
	if (err)
		map_seq_unlock(&u->bucket->seq);
	return err;
}

void tagtab_update_commit(struct tagtab *t, struct tagtab_update *u,
			  struct htab_node *n, const void *key,
			  const void *value, uint32_t value_size)
{
	if (n->hash != u->hash)
		n->hash = u->hash;
	fastkey_copy((void *)(n + 1), key, t->key_size);
	fastkey_copy(htab_node_value(n, t->key_size), value, value_size);
	if (!u->old)
		link_new(u->bucket, n);
	else if (u->slot >= 0)
		put_in_slot(u->bucket, u->slot, n);
	else
		overflow_replace(u->bucket, u->old, n);
	map_seq_unlock(&u->bucket->seq);
}

void tagtab_update_abort(struct tagtab_update *u)
{
	map_seq_unlock(&u->bucket->seq);
}

static void unlink_found(struct tagtab_bucket *b, struct htab_node *n, int slot)
{
	if (slot >= 0)
		empty_slot(b, slot);
	else
		overflow_replace(b, n, NULL);
}

struct htab_node *tagtab_delete_key(struct tagtab *t, const void *key)
{
	uint32_t hash = tagtab_hash(t, key);
	struct tagtab_bucket *b = bucket_of(t, hash);
	int slot;

	map_seq_lock(&b->seq);
	struct htab_node *n = locked_find(t, b, hash, key, &slot);
	if (n)
		unlink_found(b, n, slot);
	map_seq_unlock(&b->seq);
	return n;
}

bool tagtab_unlink_node(struct tagtab *t, struct htab_node *n)
{
	struct tagtab_bucket *b = bucket_of(t, n->hash);
	bool found = false;

	map_seq_lock(&b->seq);
	for (int s = 0; s < TAGTAB_SLOTS && !found; s++)
		if (load_tag(b, s) && load_index(b, s) == n->index) {
			empty_slot(b, s);
			found = true;
		}
	for (struct htab_node *p = atomic_load_explicit(&b->overflow,
							memory_order_relaxed);
	     p && !found; p = overflow_next(p))
		if (p == n) {
			overflow_replace(b, n, NULL);
			found = true;
		}
	map_seq_unlock(&b->seq);
	return found;
}

/* --- get_next_key ------------------------------------------------------------------ */

/* One pass: the key at position >= from in b, copied to next. */
static bool first_from_pass(struct tagtab *t, struct tagtab_bucket *b,
			    uint32_t seq, int from, void *next, bool *got)
{
	*got = false;
	for (int s = from; s < TAGTAB_SLOTS; s++) {
		if (!load_tag(b, s))
			continue;
		fastkey_copy(next, (void *)(node_at(t, load_index(b, s)) + 1),
			   t->key_size);
		*got = true;
		return !map_seq_read_retry(&b->seq, seq);
	}
	int p = TAGTAB_SLOTS;
	struct htab_node *n =
		atomic_load_explicit(&b->overflow, memory_order_relaxed);
	for (; n; n = overflow_next(n), p++) {
		if (map_seq_read_retry(&b->seq, seq))
			return false;
		if (p >= from) {
			fastkey_copy(next, (void *)(n + 1), t->key_size);
			*got = true;
			break;
		}
	}
	return !map_seq_read_retry(&b->seq, seq);
}

/* A pass copies into scratch; next is written only with a key that a pass
 * confirmed (a spoilt pass may have copied bytes, and the walk may then
 * end with -ENOENT, which must leave next as it was). */
static bool first_from(struct tagtab *t, struct tagtab_bucket *b, int from,
		       void *scratch, void *next)
{
	bool got;
	uint32_t seq;
	do
		seq = map_seq_read_begin(&b->seq);
	while (!first_from_pass(t, b, seq, from, scratch, &got));
	if (got)
		memcpy(next, scratch, t->key_size);
	return got;
}

int tagtab_next_key_rcu(struct tagtab *t, const void *key, void *next)
{
	uint32_t i = 0;
	int from = 0;

	if (key) {
		uint32_t hash = tagtab_hash(t, key);
		int pos;
		if (read_find(t, bucket_of(t, hash), hash, key, &pos)) {
			i = hash & (t->n_buckets - 1);
			from = pos + 1;
		}
	}
	/* a hash key may be megabytes (attr.c): the scratch key is on the
	 * stack only when small */
	uint8_t small[64];
	void *scratch = t->key_size <= sizeof(small) ? small : malloc(t->key_size);
	if (!scratch)
		return -ENOMEM;
	int err = -ENOENT;
	for (; i < t->n_buckets && err; i++, from = 0)
		if (first_from(t, &t->buckets[i], from, scratch, next))
			err = 0;
	if (scratch != small)
		free(scratch);
	return err;
}
