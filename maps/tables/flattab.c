/* SPDX-License-Identifier: MIT */
/*
 * flattab.c: see flattab.h.
 *
 * Invariants, each under the lock of the bucket it names:
 *   - a key is in at most one slot of the table; a slot holds a key
 *     exactly when its used bit is set;
 *   - a key k living in bucket d with home h has added one to the
 *     overflow of every bucket from h up to d - 1 (wrapping), so a probe
 *     for k never stops before d;
 *   - the count of keys never exceeds max_entries, which is at most half
 *     the slots: a probe for a free slot always finds one.
 *
 * A writer waits for a second bucket (its lock, or a read of it) only if
 * the bucket comes after its home in index order.  A bucket before it
 * (the probe wrapped) is tried once; when busy, the op lets go and starts
 * again (-EAGAIN inside this file, never returned).  So every wait points
 * to a higher index and no cycle of waiters can form.
 */
#include "maps/tables/flattab.h"
#include "maps/base/area.h"
#include "maps/base/attr.h"
#include "maps/base/fastkey.h"
#include "maps/tables/htab.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct flattab_head) == 12, "a 12-byte bucket head");

/* The most slots of key_size bytes, with their 8-byte values, in a line. */
static uint32_t slots_for(uint32_t key_size)
{
	for (uint32_t k = 8; k > 0; k--) {
		size_t values = (FLATTAB_KEYS_OFFSET + k * key_size + 7) & ~(size_t)7;
		if (values + k * sizeof(uint64_t) <= FLATTAB_BUCKET_BYTES)
			return k;
	}
	return 0;
}

bool flattab_fits(uint32_t key_size, uint32_t value_size)
{
	/* three slots at least: with fewer, half-full buckets overflow often */
	return key_size >= 1 && key_size <= FLATTAB_MAX_KEY &&
	       value_size <= FLATTAB_MAX_VALUE && slots_for(key_size) >= 3;
}

int flattab_init(struct flattab *t, uint32_t max_entries, uint32_t key_size,
		 bool zero_seed)
{
	memset(t, 0, sizeof(*t));
	t->key_size = key_size;
	t->slots = slots_for(key_size);
	t->value_offset = (uint32_t)((FLATTAB_KEYS_OFFSET + t->slots * key_size + 7) &
				     ~(size_t)7);
	t->max_entries = max_entries;
	t->seed = zero_seed ? 0 : htab_random_seed();
	/* two slots a key: n_buckets >= 2 * max_entries / slots */
	uint64_t want = ((uint64_t)max_entries * 2 + t->slots - 1) / t->slots;
	if (want > (1u << 31))
		return -ENOMEM;
	uint32_t n = map_roundup_pow2(want ? (uint32_t)want : 1);
	t->mask = n - 1;
	t->buckets = map_area_alloc_array(n, FLATTAB_BUCKET_BYTES,
					  FLATTAB_BUCKET_BYTES);
	if (!t->buckets)
		return -ENOMEM;
	memset(t->buckets, 0, (size_t)n * FLATTAB_BUCKET_BYTES);
	return 0;
}

void flattab_destroy(struct flattab *t)
{
	free(t->buckets);
	t->buckets = NULL;
}

size_t flattab_bytes(const struct flattab *t)
{
	return ((size_t)t->mask + 1) * FLATTAB_BUCKET_BYTES;
}

uint32_t flattab_hash(const struct flattab *t, const void *key)
{
	return flattab_hash_inline(t, key);
}

/* --- a bucket's parts (the rest are flattab.h's) ---------------------------- */

static inline unsigned all_slots(const struct flattab *t)
{
	return (1u << t->slots) - 1;
}

/* What one read of a bucket saw. */
struct view {
	int slot;          /* key's slot, or -1 */
	unsigned used;
	uint32_t overflow;
	uint64_t word;     /* key's value, when slot >= 0 */
};

/* Read b as it is: the caller holds b's lock, or checks the read against
 * b's sequence count afterwards. */
static inline void scan(const struct flattab *t, uint8_t *b, const void *key,
			struct view *v)
{
	struct flattab_head *h = flattab_head_of(b);
	v->used = atomic_load_explicit(&h->used, memory_order_relaxed);
	unsigned m = flattab_match(t, b, v->used, key);
	v->slot = m ? __builtin_ctz(m) : -1;
	v->overflow = atomic_load_explicit(&h->overflow, memory_order_relaxed);
	if (v->slot >= 0)
		v->word = atomic_load_explicit(flattab_value_at(t, b, (unsigned)v->slot),
					       memory_order_relaxed);
}

/* A snapshot of b, waiting out its writers. */
static inline void read_bucket(const struct flattab *t, uint8_t *b,
			       const void *key, struct view *v)
{
	struct map_seqlock *l = &flattab_head_of(b)->seq;
	uint32_t s;
	do {
		s = map_seq_read_begin(l);
		scan(t, b, key, v);
	} while (map_seq_read_retry(l, s));
}

/* Bucket i's snapshot for a writer holding home's lock: false (read
 * nothing) when i is before home and a writer holds it (see the top). */
static bool writer_read(const struct flattab *t, uint32_t home, uint32_t i,
			const void *key, struct view *v)
{
	uint8_t *b = flattab_bucket(t, i);
	if (i == home) {
		scan(t, b, key, v);
		return true;
	}
	if (i > home) {
		read_bucket(t, b, key, v);
		return true;
	}
	struct map_seqlock *l = &flattab_head_of(b)->seq;
	uint32_t s;
	do {
		if (!map_seq_read_try_begin(l, &s))
			return false;
		scan(t, b, key, v);
	} while (map_seq_read_retry(l, s));
	return true;
}

/* Lock bucket i for a writer holding home's: false (not locked) when i is
 * before home and busy. */
static bool writer_lock(const struct flattab *t, uint32_t home, uint32_t i)
{
	struct map_seqlock *l = &flattab_head_of(flattab_bucket(t, i))->seq;
	if (i > home) {
		map_seq_lock(l);
		return true;
	}
	return map_seq_trylock(l);
}

static inline uint32_t next_bucket(const struct flattab *t, uint32_t i)
{
	return (i + 1) & t->mask;
}

/* Add delta to the overflow of every bucket from home up to (not with)
 * at: the buckets a key living at `at` passed. */
static void add_overflow(const struct flattab *t, uint32_t home, uint32_t at,
			 int32_t delta)
{
	for (uint32_t i = home; i != at; i = next_bucket(t, i))
		atomic_fetch_add_explicit(&flattab_head_of(flattab_bucket(t, i))->overflow,
					  (uint32_t)delta, memory_order_relaxed);
}

/* --- writers -------------------------------------------------------------- */

/* Where a writer holding home's lock found key, and a bucket that had a
 * free slot (the first of the probe, or after it). */
struct probe {
	uint32_t home;
	bool found;
	uint32_t at; /* key's bucket, when found */
	int slot;
	uint32_t free_at;
	bool has_free;
};

/* Walk key's probe from home: 0, or -EAGAIN (a wrapped bucket was busy).
 * With want_free, go on past the probe's end to the first free slot. */
static int writer_probe(const struct flattab *t, const void *key, bool want_free,
			struct probe *p)
{
	struct view v;
	uint32_t i = p->home;
	bool probing = true;
	p->found = p->has_free = false;
	for (uint32_t n = 0; n <= t->mask; n++, i = next_bucket(t, i)) {
		if (!writer_read(t, p->home, i, key, &v))
			return -EAGAIN;
		if (probing && v.slot >= 0) {
			p->found = true;
			p->at = i;
			p->slot = v.slot;
			return 0;
		}
		if (!p->has_free && v.used != all_slots(t)) {
			p->has_free = true;
			p->free_at = i;
		}
		probing = probing && v.overflow;
		if (!probing && (p->has_free || !want_free))
			return 0;
	}
	/* every slot looked taken as we went (writers were busy): again */
	return want_free && !p->has_free ? -EAGAIN : 0;
}

/* One more key in the table, unless max_entries are in. */
static bool take_count(struct flattab *t)
{
	if (atomic_fetch_add_explicit(&t->count, 1, memory_order_relaxed) <
	    t->max_entries)
		return true;
	atomic_fetch_sub_explicit(&t->count, 1, memory_order_relaxed);
	return false;
}

/* A new key into the first free slot from p->free_at on: 0, -E2BIG, or
 * -EAGAIN.  The home's lock is held; a later bucket's is taken for its
 * slot.  The key is counted only once its slot is locked and free, so an
 * insert that waits, or starts again, holds no place another could use. */
static int place_new(struct flattab *t, struct probe *p, const void *key,
		     uint64_t word)
{
	uint32_t i = p->free_at;
	for (uint32_t n = 0; n <= t->mask; n++, i = next_bucket(t, i)) {
		if (i != p->home && !writer_lock(t, p->home, i))
			return -EAGAIN;
		uint8_t *b = flattab_bucket(t, i);
		struct flattab_head *h = flattab_head_of(b);
		unsigned used = atomic_load_explicit(&h->used,
						     memory_order_relaxed);
		unsigned free = ~used & all_slots(t);
		int err = free && !take_count(t) ? -E2BIG : 0;
		if (free && !err) {
			unsigned s = (unsigned)__builtin_ctz(free);
			add_overflow(t, p->home, i, 1); /* before it is seen */
			fastkey_copy(flattab_key_at(t, b, s), key, t->key_size);
			atomic_store_explicit(flattab_value_at(t, b, s), word,
					      memory_order_relaxed);
			atomic_store_explicit(&h->used, used | 1u << s,
					      memory_order_relaxed);
		}
		if (i != p->home)
			map_seq_unlock(&h->seq);
		if (free)
			return err;
	}
	return -EAGAIN; /* every slot taken as we went: start again */
}

static int update_locked(struct flattab *t, struct probe *p, const void *key,
			 uint64_t word, uint64_t flags)
{
	int err = writer_probe(t, key, true, p);
	if (err)
		return err;
	if (p->found) {
		if ((err = map_update_flags_check(true, flags)))
			return err;
		atomic_store_explicit(flattab_value_at(t, flattab_bucket(t, p->at),
					       (unsigned)p->slot),
				      word, memory_order_relaxed);
		return 0;
	}
	if ((err = map_update_flags_check(false, flags)))
		return err;
	return place_new(t, p, key, word);
}

static int delete_locked(struct flattab *t, struct probe *p, const void *key)
{
	int err = writer_probe(t, key, false, p);
	if (err || !p->found)
		return err ? err : -ENOENT;
	if (p->at != p->home && !writer_lock(t, p->home, p->at))
		return -EAGAIN;
	struct flattab_head *h = flattab_head_of(flattab_bucket(t, p->at));
	unsigned used = atomic_load_explicit(&h->used, memory_order_relaxed);
	atomic_store_explicit(&h->used, used & ~(1u << p->slot),
			      memory_order_relaxed);
	if (p->at != p->home)
		map_seq_unlock(&h->seq);
	add_overflow(t, p->home, p->at, -1); /* after it is gone */
	atomic_fetch_sub_explicit(&t->count, 1, memory_order_relaxed);
	return 0;
}

/* An update or a delete, as run under the home bucket's lock. */
struct write {
	const void *key;
	bool delete;
	uint64_t word, flags; /* an update's */
};

/* w under the lock of its key's home, again after each -EAGAIN. */
static int write_under_home_lock(struct flattab *t, uint32_t hash,
				 const struct write *w)
{
	struct probe p = { .home = hash & t->mask };
	struct map_seqlock *l = &flattab_head_of(flattab_bucket(t, p.home))->seq;
	unsigned spins = 0;
	map_prefetch_for_write(l);
	int err;
	for (;;) {
		map_seq_lock(l);
		err = w->delete ? delete_locked(t, &p, w->key)
				: update_locked(t, &p, w->key, w->word, w->flags);
		map_seq_unlock(l);
		if (err != -EAGAIN)
			return err;
		map_wait_a_little(&spins);
	}
}

int flattab_update(struct flattab *t, uint32_t hash, const void *key,
		   uint64_t word, uint64_t flags)
{
	struct write w = { .key = key, .word = word, .flags = flags };
	return write_under_home_lock(t, hash, &w);
}

int flattab_delete(struct flattab *t, uint32_t hash, const void *key)
{
	struct write w = { .key = key, .delete = true };
	return write_under_home_lock(t, hash, &w);
}

/* --- get_next_key ----------------------------------------------------------- */

/* The first key of b in a slot from `from` on, copied to next: true, or
 * false when b has none. */
static bool first_from(const struct flattab *t, uint8_t *b, unsigned from,
		       void *next)
{
	struct map_seqlock *l = &flattab_head_of(b)->seq;
	uint8_t key[FLATTAB_MAX_KEY]; /* next is written only with a key */
	uint32_t s;
	bool got;
	do {
		s = map_seq_read_begin(l);
		unsigned used = atomic_load_explicit(&flattab_head_of(b)->used,
						     memory_order_relaxed);
		unsigned rest = from < 32 ? used >> from << from : 0;
		got = rest != 0;
		if (got)
			memcpy(key, flattab_key_at(t, b, (unsigned)__builtin_ctz(rest)),
			       t->key_size);
	} while (map_seq_read_retry(l, s));
	if (got)
		memcpy(next, key, t->key_size);
	return got;
}

int flattab_next_key(struct flattab *t, const void *key, void *next)
{
	uint32_t i = 0;
	unsigned from = 0;
	uint8_t *b;
	int slot = key ? flattab_find(t, flattab_hash(t, key), key, &b, NULL)
		       : -1;
	if (slot >= 0) {
		i = (uint32_t)((size_t)(b - t->buckets) / FLATTAB_BUCKET_BYTES);
		from = (unsigned)slot + 1;
	}
	for (; i <= t->mask; i++, from = 0)
		if (first_from(t, flattab_bucket(t, i), from, next))
			return 0;
	return -ENOENT;
}
