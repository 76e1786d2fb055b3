/* SPDX-License-Identifier: MIT */
/*
 * flattab.h: a table whose 64-byte buckets hold small keys and values
 * themselves, for hash/seqlock_buckets when a key and a value each fit in 8 bytes
 * (the common BPF case: a u32 or u64 key, a counter).  A lookup that hits
 * reads one cache line, where a table of elements (htab, tagtab)
 * reads the bucket and then the element.
 *
 *   buckets[i], 64 bytes, one cache line (4-byte keys shown):
 *     [seq][overflow][used] [key0 key1 key2 key3] [value0 .. value3]
 *     seq:       map_seqlock: the writers' lock and the readers' count
 *     overflow:  how many keys live past this bucket although their probe
 *                passed through it (their home is here or before)
 *     used:      bit s set: slot s holds a key
 *     key[s]:    key_size bytes; value[s]: 8 bytes, a value of up to 8
 *
 * Open addressing by bucket: a key's home is hash & (n_buckets - 1); it
 * lives in the first bucket from its home, wrapping at the end, that had
 * a free slot when it came.  Keys never move, so a value's address holds
 * while its key is in (as an element's does in the kernel's maps).  A
 * lookup stops at the first bucket whose overflow is 0: no key beyond it
 * passed through, so none of this probe is beyond it.  A delete leaves no
 * tombstone: it takes one from the overflow of each bucket it passed (F14
 * does the same; Bronson and Shi, "Open-sourcing F14", Facebook, 2019).
 * The table has 2 slots for every key (n_buckets a power of two, so half
 * to a quarter of the slots are used when full): probes past the home
 * are rare, and there is always a free slot.
 *
 * Locks.  An op on key k holds k's home bucket's seqlock for its whole
 * length: ops on one key are serialised there.  An insert or delete whose
 * slot is in a later bucket also takes that bucket's seqlock (the slot's
 * bytes are that bucket's; readers of it must see the change), two locks
 * at most, the home's first.  Past the table's end the order would turn
 * around, so there the second lock is only tried, and on failure the op
 * lets go of both and starts again: no cycle of waiters can form.
 * overflow counts change with atomic adds, under the home's lock only:
 * they are hints a reader needs only as far as the keys it looks for, and
 * a key adds itself to them before it is published and takes itself away
 * after it is gone.  A replace of a present key stores its value word
 * atomically, under the home's lock: a reader sees the old value or the
 * new, never half.  Every write op holds its home's seqlock, so readers
 * of the home bucket wait out and retry any op of a key at home, even a
 * failed one (a hot counter's readers retry on each of its updates); a
 * key living past its home has its value stored without a new count in
 * its own bucket, which is safe for the same reason.
 *
 * Readers write nothing: a bucket is read between map_seq_read_begin and
 * map_seq_read_retry, as in tagtab.h.  The returned value pointer may see
 * a replace, or, after a delete, another key's value, as a program's
 * pointer into the kernel's preallocated maps may.
 */
#ifndef MAPLAB_FLATTAB_H
#define MAPLAB_FLATTAB_H

#include "maps/base/fastkey.h"
#include "maps/base/lock.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FLATTAB_BUCKET_BYTES 64
#define FLATTAB_MAX_KEY 8
#define FLATTAB_MAX_VALUE 8

struct flattab_head {
	struct map_seqlock seq;
	_Atomic uint32_t overflow;
	_Atomic uint8_t used;
};

struct flattab {
	uint8_t *buckets;      /* n_buckets lines of FLATTAB_BUCKET_BYTES */
	uint32_t mask;         /* n_buckets - 1 */
	uint32_t seed;
	uint32_t key_size;
	uint32_t slots;        /* per bucket */
	uint32_t value_offset; /* of value[0] within a bucket */
	uint32_t max_entries;
	/* Keys in, for -E2BIG: on a line of its own, away from the
	 * read-mostly fields above. */
	_Alignas(64) _Atomic uint32_t count;
};

/* Whether keys of key_size and values of value_size fit in a bucket. */
bool flattab_fits(uint32_t key_size, uint32_t value_size);

/* 0, or -ENOMEM. */
int flattab_init(struct flattab *t, uint32_t max_entries, uint32_t key_size,
		 bool zero_seed);
void flattab_destroy(struct flattab *t);
size_t flattab_bytes(const struct flattab *t);

/* --- the readers, inline: a lookup is short enough that a call, and
 * the registers it saves, would be a good part of it; and the fewer
 * instructions a lookup takes, the more of them the cpu runs at once, each
 * waiting for its own cache miss ------------------------------------------- */

#define FLATTAB_KEYS_OFFSET sizeof(struct flattab_head)

static inline uint8_t *flattab_bucket(const struct flattab *t, uint32_t i)
{
	return t->buckets + (size_t)i * FLATTAB_BUCKET_BYTES;
}

static inline struct flattab_head *flattab_head_of(uint8_t *b)
{
	return (struct flattab_head *)b;
}

static inline uint8_t *flattab_key_at(const struct flattab *t, uint8_t *b,
				      unsigned s)
{
	return b + FLATTAB_KEYS_OFFSET + (size_t)s * t->key_size;
}

static inline _Atomic uint64_t *flattab_value_at(const struct flattab *t,
						 uint8_t *b, unsigned s)
{
	return (_Atomic uint64_t *)(b + t->value_offset +
				    s * sizeof(uint64_t));
}

/* The used slots of b that hold key, as a mask (one bit, unless a writer
 * is busy in b: the seqlock's retry then throws the answer away). */
static inline unsigned flattab_match(const struct flattab *t, uint8_t *b,
				     unsigned used, const void *key)
{
#if defined(__SSE2__)
	if (t->key_size == 4 && t->slots == 4) {
		/* the four keys in one compare, as tagtab compares its tags */
		uint32_t k;
		memcpy(&k, key, 4);
		__m128i keys = _mm_loadu_si128(
			(const __m128i *)flattab_key_at(t, b, 0));
		__m128i eq = _mm_cmpeq_epi32(keys, _mm_set1_epi32((int)k));
		return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(eq)) & used;
	}
#endif
	unsigned m = 0;
	for (unsigned rest = used; rest; rest &= rest - 1) {
		unsigned s = (unsigned)__builtin_ctz(rest);
		if (fastkey_equal(flattab_key_at(t, b, s), key, t->key_size))
			m |= 1u << s;
	}
	return m;
}

/*
 * The probe for key, each bucket read between two reads of its sequence
 * count: key's slot, with its bucket in *bucket and (when word is not
 * NULL) its value word read in the same snapshot, or -1.
 */
static inline __attribute__((always_inline)) int
flattab_find(const struct flattab *t, uint32_t hash, const void *key,
	     uint8_t **bucket, uint64_t *word)
{
	uint32_t i = hash & t->mask;
	for (uint32_t probed = 0; probed <= t->mask;) {
		uint8_t *b = flattab_bucket(t, i);
		struct flattab_head *h = flattab_head_of(b);
		uint32_t seq = map_seq_read_begin(&h->seq);
		unsigned m = flattab_match(
			t, b, atomic_load_explicit(&h->used, memory_order_relaxed),
			key);
		uint32_t overflow =
			atomic_load_explicit(&h->overflow, memory_order_relaxed);
		int slot = m ? __builtin_ctz(m) : -1;
		if (slot >= 0 && word)
			*word = atomic_load_explicit(
				flattab_value_at(t, b, (unsigned)slot),
				memory_order_relaxed);
		if (map_seq_read_retry(&h->seq, seq))
			continue;
		if (slot >= 0) {
			*bucket = b;
			return slot;
		}
		if (!overflow)
			return -1;
		i = (i + 1) & t->mask;
		probed++;
	}
	return -1;
}

/* A reader that will look up hash soon (a batch of lookups): ask for its
 * first bucket's line now, so that the batch's misses overlap. */
static inline void flattab_prefetch(const struct flattab *t, uint32_t hash)
{
	__builtin_prefetch(flattab_bucket(t, hash & t->mask));
}

/* The value word of key (8 bytes, the value first), or NULL.  A caller
 * that uses it after the return holds an RCU read section, as for any
 * design's lookup (the table itself never frees a bucket).  Always
 * inlined: gcc left it out of line in a batch's loop, a call a key
 * (docs/hash.md, "The hash inline"). */
static inline __attribute__((always_inline)) uint64_t *
flattab_lookup(struct flattab *t, uint32_t hash, const void *key)
{
	uint8_t *b;
	int slot = flattab_find(t, hash, key, &b, NULL);
	return slot < 0 ? NULL
			: (uint64_t *)flattab_value_at(t, b, (unsigned)slot);
}

/* key's value word, read in the same snapshot as the match (a slot that
 * changes key in between is not returned): 0 or -ENOENT. */
static inline int flattab_lookup_word(struct flattab *t, uint32_t hash,
				      const void *key, uint64_t *word)
{
	uint8_t *b;
	return flattab_find(t, hash, key, &b, word) < 0 ? -ENOENT : 0;
}

/* The key's hash, for every op of the table. */
uint32_t flattab_hash(const struct flattab *t, const void *key);

/* The same hash, inline, for the readers' hot paths (a design's lookup and
 * batch): a call per key cost 9 % of a batch of 32 at 1M entries and 15 %
 * at 64K (docs/hash.md, "The hash inline").  Out of line for the rest, as
 * gcc's array-bounds check, seeing a 4-byte key object through the inlined
 * XXH3, cannot tell that key_size is 4 and not 8. */
static inline uint32_t flattab_hash_inline(const struct flattab *t,
					   const void *key)
{
	return fastkey_hash(key, t->key_size, t->seed);
}

/* Insert or replace under the BPF update flags (update_flags.h): 0,
 * -EEXIST, -ENOENT, or -E2BIG for a new key when max_entries are in. */
int flattab_update(struct flattab *t, uint32_t hash, const void *key,
		   uint64_t word, uint64_t flags);

/* 0, or -ENOENT. */
int flattab_delete(struct flattab *t, uint32_t hash, const void *key);

/* get_next_key in table order, bucket by bucket, slot by slot: every key
 * once when nothing changes; a key not in the table (or NULL) gives the
 * first.  0, or -ENOENT after the last key. */
int flattab_next_key(struct flattab *t, const void *key, void *next);

#endif /* MAPLAB_FLATTAB_H */
