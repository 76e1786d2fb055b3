/* SPDX-License-Identifier: MIT */
/*
 * cowtab.h: the hash table of eBPF for Windows (libs/runtime/
 * ebpf_hash_table.c in github.com/microsoft/ebpf-for-windows; docs/hash.md
 * describes it), reimplemented from that description: per-bucket locks,
 * lock-free readers, and copy-on-write buckets.  hash/cow is this table
 * behind map.h; lpm_trie/prefix_hash keys it by prefix length and masked
 * prefix, as Windows' LPM map keys the same table.
 *
 *   buckets[i]: [lock][data] -> immutable array: [count][backup][entry 0][entry 1]...
 *                                entry: [value block pointer][key bytes]
 *   value block: [rcu head][value]      allocated per update, never reused
 *
 * A reader finds its bucket, loads the data pointer once, scans the keys
 * inline, and returns the value block's value: it takes no lock and
 * writes nothing.  A writer, under the bucket's lock, never changes what a
 * reader may be looking at: every update, an overwrite included, allocates
 * a new value block and a new array (the old entries and the change),
 * publishes the new array with one release store, and frees the old array
 * and the old value after an RCU grace period (Windows uses its epoch
 * allocator).  An insert also allocates a "backup" array one entry
 * smaller than the new one, which the next delete uses.  (Windows keeps a
 * backup per entry, so that a delete never allocates; cowtab keeps one per
 * array and makes the next one after each delete, an allocation the
 * Windows design does not pay.)  So an overwrite costs two allocations and
 * two deferred frees: the price of readers that never see a value reused.
 *
 * Limits: a count of live keys, raised before an insert, refuses the key
 * past max_entries with the owner's errno (full_err: -E2BIG for a hash,
 * -ENOSPC for a trie); Windows' fixed-size tables do the same with an
 * interlocked count.  n_buckets = roundup_pow2(max_entries), at most
 * COWTAB_MAX_BUCKETS: an LPM map may be made for 2^32 - 1 entries and
 * allocate nothing until keys come, so the buckets, allocated at init,
 * stop at 64 MB (past 4M keys the chains grow).  The hash is jhash
 * (Windows: CRC32 or Murmur3).
 *
 * Invariants, under a bucket's lock: its array holds each of its keys
 * once; a published array is never written again; an array or value block
 * is freed only after it is unpublished and a grace period has passed.
 */
#ifndef MAPLAB_COWTAB_H
#define MAPLAB_COWTAB_H

#include "maps/base/lock.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COWTAB_MAX_BUCKETS (1u << 22)

struct cowtab_array;

/* 16 bytes, as Windows' {bucket pointer, lock} pair: four to a line */
struct cowtab_bucket {
	struct map_spinlock lock;
	_Atomic(struct cowtab_array *) data; /* NULL: empty */
};

struct cowtab {
	struct cowtab_bucket *buckets;
	uint32_t n_buckets, seed;
	uint32_t key_size, value_size, max_entries;
	int full_err;          /* an insert past max_entries */
	size_t entry_size;
	atomic_uint count;     /* live keys */
	_Atomic int64_t bytes; /* arrays and values allocated, not yet freed */
};

/* 0 or -ENOMEM.  zero_seed: the hash seed is 0 (else random). */
int cowtab_init(struct cowtab *t, uint32_t max_entries, uint32_t key_size,
		uint32_t value_size, bool zero_seed, int full_err);
/* Frees every array and value; waits for those already retired. */
void cowtab_destroy(struct cowtab *t);

/* RCU read section held.  key's value, or NULL. */
void *cowtab_lookup(struct cowtab *t, const void *key);

/* Insert or replace; flags already known to be MAP_ANY, MAP_NOEXIST or
 * MAP_EXIST.  0, -EEXIST, -ENOENT, full_err, or -ENOMEM. */
int cowtab_update(struct cowtab *t, const void *key, const void *value,
		  uint64_t flags);

/* 0, -ENOENT, or -ENOMEM (a delete whose backup could not be made). */
int cowtab_delete(struct cowtab *t, const void *key);

/*
 * RCU read section held.  The entry after key's in table order (buckets
 * in turn, each array in order; key NULL or absent: the first): its key
 * and value, valid inside the read section.  0, or -ENOENT after the last.
 */
int cowtab_next_rcu(struct cowtab *t, const void *key, const void **next_key,
		    void **next_value);

/* Bytes held: the buckets, and the arrays and values not yet retired. */
size_t cowtab_bytes(const struct cowtab *t);

#endif /* MAPLAB_COWTAB_H */
