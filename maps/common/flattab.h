/* SPDX-License-Identifier: MIT */
/*
 * flattab.h: a table whose 64-byte buckets hold small keys and values
 * themselves, for hash/fast when a key and a value each fit in 8 bytes
 * (the common BPF case: a u32 or u64 key, a counter).  A lookup that hits
 * reads one cache line, where a table of elements (htab_core, tagtab)
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
 * atomically, under the home's lock, without a new sequence count: a
 * reader sees the old value or the new, never half.
 *
 * Readers write nothing: a bucket is read between map_seq_read_begin and
 * map_seq_read_retry, as in tagtab.h.  The returned value pointer may see
 * a replace, or, after a delete, another key's value, as a program's
 * pointer into the kernel's preallocated maps may.
 */
#ifndef MAPLAB_FLATTAB_H
#define MAPLAB_FLATTAB_H

#include "lock.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

uint32_t flattab_hash(const struct flattab *t, const void *key);

/* The value word of key (8 bytes, the value first), or NULL.  A caller
 * that uses it after the return holds an RCU read section, as for any
 * design's lookup (the table itself never frees a bucket). */
uint64_t *flattab_lookup(struct flattab *t, uint32_t hash, const void *key);

/* key's value word, read in the same snapshot as the match (a slot that
 * changes key in between is not returned): 0 or -ENOENT. */
int flattab_lookup_word(struct flattab *t, uint32_t hash, const void *key,
			uint64_t *word);

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
