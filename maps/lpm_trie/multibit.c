/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/multibit: maplab's own LPM map.  A multibit trie of stride 6 whose
 * nodes are compressed with bitmaps (the Tree Bitmap of Eatherton, Varghese
 * and Dittia, 2004, with poptrie's popcount-indexed arrays of descriptors,
 * Asai and Ohara, 2015), read under RCU and updated by copying the path
 * from the changed node up to the root's child (docs/lpm_trie.md,
 * "lpm_trie/multibit", says why this design and what it was measured
 * against).
 *
 * A node at depth d stands for one 6d-bit prefix and holds:
 *
 *   prefixes  63 bits: which stored prefixes of length 6d + l (l = 0..5)
 *             start with the node's bits; the one of length 6d + l whose
 *             next l bits are v sits at position 2^l - 1 + v
 *   children  64 bits: bit c set if some stored prefix is longer than
 *             6d + 5 and its next 6 bits are c
 *   kids      the child nodes' descriptors, packed in chunk order: child c
 *             is kids[popcount(children below bit c)]
 *   entries   the stored prefixes, packed in position order the same way,
 *             each with its value beside it where values are of 8 bytes
 *             or fewer (struct fslot)
 *
 * except the boxed levels on top (two; three in a map of 2^18 entries or
 * more): the root and the 64^d nodes at each depth d below it, whose
 * descriptors sit alone in a block each and whose children are slots of
 * the map, indexed by the key's first chunks (slots[d]; the deepest
 * level's slots hold a descriptor, a node or a leaf, or NULL).  A full
 * node's kids array is 2 KiB, and an update that copied the root's and a
 * mid's spent most of its time there; a slot is replaced alone
 * (docs/lpm_trie.md, "Cheaper updates", has the figures).  The boxed
 * nodes always exist (a slot table needs its node), empty or not, so a
 * walk never stops above the deepest boxed level for want of a node;
 * prefixes shorter than 6 * boxed bits live in boxed nodes, never in a
 * leaf.  With three levels, lookups read the deepest level's slots from
 * copies (struct slot_copy): one cache line indexed by the key, where the
 * slot and then its box were two misses in a row.
 *
 * A lookup reads one descriptor per 6 bits of the key.  At each node, the
 * positions a key's next 6 bits can match form a fixed mask per chunk (one
 * position per length); and'ed with `prefixes`, its highest bit is the
 * longest match in the node, because longer lengths sit at higher
 * positions.  A key whose own prefix length ends inside the node masks off
 * the longer positions: the kernel's rule that a match is no longer than
 * the key's prefix length costs one and.  The last node with a match
 * gives the answer: its entries array is read once, at the end, and holds
 * the value itself.
 *
 * Invariants (under the writer lock, and in every version readers see):
 *   - a published node is never written again: an update builds new
 *     descriptor arrays for every node from the changed one up to the
 *     first boxed parent, then publishes the copy in that parent's slot
 *     (or a new root) with one release store; an update changes one
 *     slot, never two, so a reader sees each update whole or not at all
 *     (and the slot's copy, if it has one, under its sequence count);
 *   - every node below the boxed levels has a stored prefix in its
 *     subtree (a delete that empties a node removes it from its parent,
 *     up the path to the boxed levels);
 *   - n_entries counts stored prefixes and never exceeds max_entries.
 *
 * IPv4 keys (4 data bytes, values of up to 256 bytes) are compiled as
 * well: full-length lookups, the ones a router makes, read a table built
 * from the trie (core/fib4.h: direct pointing on the first 18 bits, then
 * leaf-pushed nodes of 6 bits whose answers are ids), and every lookup,
 * compiled or not, answers with the value at its entry's id in a value
 * table (maps/base/value_table.h) instead of one carried inline.  The trie
 * stays what updates, lookups of shorter keys and get_next_key read;
 * after each update the writer compiles again every /18 the prefix
 * covers (one for a prefix longer than 18 bits) and publishes each in its
 * direct word.  A lookup then reads the direct word, at most three nodes
 * (one for a /24 or shorter prefix; none where the /18 holds one longer
 * prefix, which its direct word holds) and the value: DIR-24-8's shape
 * (docs/lpm_trie.md, "A compiled IPv4 table", has the figures against
 * rte_fib and what it costs updates).  An entry's value place is its own
 * until a grace period after the entry goes, so a write through a
 * lookup's pointer is never lost to another update there.  A /18 whose
 * block could not be built (no memory) answers "ask the trie".
 *
 * Semantics are the kernel's trie's (conformance_lpm.c): key format,
 * creation checks and errnos (map_check_lpm_attr), flags, -ENOSPC when
 * full, a replace allowed when full, trailing bits stored as given, a
 * prefix length beyond the data's bits (update and delete -EINVAL, lookup
 * -ENOENT, get_next_key the first key).  get_next_key walks this trie in
 * pre-order: a node's own prefixes by position (shorter first, then by
 * value), then its children by chunk; a key not in the trie starts again
 * from the first.
 *
 * Locks: one spin lock for writers (the compile and the value ids
 * too).  Readers take none: they load the root
 * and a slot with acquire and never see a node change; a slot copy's
 * sequence count (taken only by the writer, under the spin lock) tells a
 * reader to read the copy again.  Arrays and entries
 * that updates replace are freed after an RCU grace period, 64 blocks
 * to a callback.
 *
 * Work (map_ops.work, per cpu slot): nodes visited by each op (a
 * compiled lookup counts one), the lock
 * taken by each write and how long it was held (the path copy happens
 * under it), and blocks allocated (every array of the copied path, the
 * slot's or root's block, and the entry).
 */
#include "maps/base/attr.h"
#include "maps/base/cpu.h"
#include "maps/base/lock.h"
#include "maps/lpm_trie/core/fib4.h"
#include "maps/lpm_trie/core/lpm_key.h"
#include "maps/base/value_table.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/work.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define STRIDE 6
#define FANOUT (1u << STRIDE)
/* The nodes at depths 0 to boxed - 1 are boxed: their children sit in
 * slots of the map, each replaced alone, so no update copies their arrays.
 * Two levels always; three in a map of BOXED_3_ENTRIES or more entries,
 * where the third level's 2^18 slots (2 MiB), their copies (16 MiB) and
 * the 4096 boxes above them cost at most 73 bytes an entry
 * (docs/lpm_trie.md, "Cheaper updates", has the figures for each). */
#define BOXED_MIN 2
#define BOXED_MAX 3
#define BOXED_3_ENTRIES (1u << 18)
/* deepest node: a prefix of all 2048 bits sits at depth 2048 / 6 */
#define DEPTH_MAX (8 * MAP_LPM_DATA_MAX / STRIDE + 1)

/*
 * A descriptor: a node, or a leaf (a subtree that holds one prefix).
 * Immutable once published.  A leaf carries its prefix's length, first 8
 * bytes and, if it has no more than 8 bytes, its value: a lookup that ends
 * at a leaf decides whether it covers the key (for prefixes of up to 64
 * bits) and answers without reading the entry, one cache miss fewer.  The
 * value it answers with sits in the kids array of the leaf's parent, which
 * a later update may copy: a value written through a lookup's pointer can
 * be lost to a concurrent update of another prefix.  Values change by
 * update (as in hash/cow and prefix_hash).
 */
#define LEAF_MARK (1ull << 63) /* in a leaf's `prefixes`: no position is 63 */
#define HEAD_BITS 64
#define INLINE_VALUE_MAX 8

struct fnode {
	union {
		uint64_t children;  /* node: bit c, a child for next chunk c */
		uint8_t head[8];    /* leaf: the prefix's first data bytes */
	};
	uint64_t prefixes;          /* node: bit p, an entry at position p;
				       leaf: LEAF_MARK | the prefix's length */
	union {
		struct fnode *kids; /* node: [popcount(children)], in a farray */
		_Atomic(struct fnode *) *slots; /* boxed node: [FANOUT] */
		uint64_t value;     /* leaf: its value, if of 8 bytes or fewer */
	};
	union {
		struct fslot *entries; /* node: [popcount(prefixes)], in a farray */
		struct fentry *leaf;     /* leaf: its one prefix */
	};
};

/* A stored prefix: its length, the data as given, the value (with a
 * compiled table: its id, the value in the map's value table). */
struct fentry {
	struct rcu_head rcu; /* first: map_rcu_free_block frees it */
	uint32_t prefixlen;
	uint32_t id;
	_Alignas(8) uint8_t bytes[]; /* data_size bytes, padding to 8, value */
};

/*
 * A node's stored prefix, as its entries array holds it: the entry and,
 * where values are of 8 bytes or fewer, the value itself, which lookups
 * answer with (the entry's copy is then only the value it was made with).
 * A lookup that ends at a node's prefix reads the entries array and stops
 * there, where it went on to the entry, one miss more: at 1M prefixes that
 * miss was a quarter of a single lookup (docs/lpm_trie.md, "Values beside
 * the entries").  As with a leaf's inline value, the current value lives
 * only where lookups answer: a write through a lookup's pointer is carried
 * along when the array or the leaf is copied, split or folded (struct
 * fslot goes with it everywhere), and lost only to an update that copies
 * the array while the write is under way.
 */
struct fslot {
	struct fentry *e;
	uint64_t value; /* value_size <= INLINE_VALUE_MAX: the value */
};

/*
 * A copy of a slot of the deepest boxed level (with three): a lookup reads
 * the descriptor here, in the cache line its key's chunks index, instead
 * of loading the slot and then the box it points to, two misses in a row.
 * The writer rewrites it after each publish in that slot, under seq (a
 * map_seqlock, lock.h); a reader that sees seq change reads again.
 * box: the published box (NULL: the slot is empty), whose address a leaf's
 * inline value is answered at.
 */
struct slot_copy {
	struct map_seqlock seq;
	_Atomic(struct fnode *) box;
	_Atomic uint64_t word[4]; /* the descriptor's four words */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct fnode) == sizeof(((struct slot_copy *)0)->word),
	       "a slot copy holds a whole descriptor");

/* Every kids or entries array, and the root's single descriptor, lives in
 * one of these, so that it can be freed after a grace period. */
struct farray {
	struct rcu_head rcu;
	_Alignas(16) unsigned char items[];
};

struct lpm_multibit {
	struct map map;
	_Atomic(struct fnode *) root; /* items of a farray of one */
	/* The boxed levels' children (the `slots` of their nodes), each the
	 * items of a farray of one, or NULL.  slots[d] holds the children of
	 * the 64^d boxed nodes at depth d, in key order: the child for the
	 * key's first d + 1 chunks, read as one number i, is slots[d][i].
	 * Above the deepest boxed level a slot always holds a boxed node (one
	 * from create on); below it, a leaf, a node or NULL. */
	_Atomic(struct fnode *) *slots[BOXED_MAX];
	unsigned boxed; /* how many levels are boxed: BOXED_MIN or BOXED_MAX */
	/* With BOXED_MAX levels, slots[BOXED_MAX - 1] again as copies (else
	 * NULL); copies_block: the allocation they are aligned in. */
	struct slot_copy *copies;
	void *copies_block;
	struct map_spinlock lock;
	uint32_t data_size;
	uint32_t max_prefixlen;
	uint32_t value_offset; /* of the value in fentry.bytes */
	size_t n_entries;      /* under lock */
	size_t bytes;          /* arrays and entries now in the trie, under lock */
	struct retired *pending; /* under lock: blocks that published updates
				    replaced, not yet handed to RCU */
	struct map_work_slot *work; /* [ncpus] */
	/* IPv4 keys (compiled): full-length lookups read fib, compiled from
	 * the trie after every update (under lock); values live in `values`
	 * by their entry's id, where every lookup answers. */
	bool compiled;
	struct fib4 fib;
	struct value_table values;
	struct fib4_prefix *scratch; /* under lock: a /18's prefixes */
	size_t scratch_cap;
	struct fib4_scratch build; /* under lock: where its block is built */
};

/* Position masks: path_mask[c] has, for each length l = 0..5, the position
 * a prefix of that length takes if its bits begin chunk c; upto[r] keeps
 * the positions of lengths 0..r. */
static uint64_t path_mask[FANOUT];
static uint64_t upto[STRIDE];

__attribute__((constructor)) static void make_masks(void)
{
	for (unsigned c = 0; c < FANOUT; c++)
		for (unsigned l = 0; l < STRIDE; l++)
			path_mask[c] |= 1ull << ((1u << l) - 1 + (c >> (STRIDE - l)));
	for (unsigned r = 0; r < STRIDE; r++)
		upto[r] = (1ull << ((1u << (r + 1)) - 1)) - 1;
}

/* How many boxed nodes sit at depth d: 64^d. */
static size_t boxed_at(unsigned d)
{
	return (size_t)1 << (STRIDE * d);
}

static struct lpm_multibit *multibit_of(struct map *m)
{
	return (struct lpm_multibit *)m;
}

static struct map_work_slot *work_of(struct lpm_multibit *f)
{
	return &f->work[map_this_cpu()];
}

/* The 6 bits of data from bit off on, most significant first; bits past
 * the data read as 0 (only a final node's shorter lengths look there, and
 * those never look past the key's prefix length). */
static inline unsigned chunk_at(const uint8_t *data, uint32_t size, uint32_t off)
{
	uint32_t i = off / 8;
	if (i >= size)
		return 0;
	unsigned w = (unsigned)data[i] << 8;
	if (i + 1 < size)
		w |= data[i + 1];
	return (w >> (16 - STRIDE - off % 8)) & (FANOUT - 1);
}

/* The depth of the node whose positions hold a prefix of len bits. */
static unsigned depth_of(uint32_t len)
{
	return len / STRIDE;
}

/* The position of a prefix of len bits in its node; chunk: its bits
 * from the node's depth on. */
static unsigned position(uint32_t len, unsigned chunk)
{
	unsigned l = len % STRIDE;
	return (1u << l) - 1 + (chunk >> (STRIDE - l));
}

/* How many set bits of map lie below bit b: an index into a packed array. */
static inline unsigned rank(uint64_t map, unsigned b)
{
	return (unsigned)__builtin_popcountll(map & ((1ull << b) - 1));
}

static inline bool has_child(const struct fnode *n, unsigned c)
{
	return (n->children >> c) & 1;
}

static inline bool is_leaf(const struct fnode *n)
{
	return n->prefixes & LEAF_MARK;
}

static inline uint32_t leaf_len(const struct fnode *n)
{
	return (uint32_t)n->prefixes;
}

static inline const struct fnode *kid(const struct fnode *n, unsigned c)
{
	return &n->kids[rank(n->children, c)];
}

static const struct fnode *load_root(const struct lpm_multibit *f)
{
	return atomic_load_explicit(&f->root, memory_order_acquire);
}

static inline const struct fnode *load_slot(_Atomic(struct fnode *) const *slot)
{
	return atomic_load_explicit(slot, memory_order_acquire);
}

/* The child of the boxed node at depth d on the way to a key whose first
 * d + 1 chunks read i, straight from the map's slots: a lookup asks for it
 * without waiting for the parent's descriptor. */
static inline const struct fnode *boxed_child(const struct lpm_multibit *f,
					      unsigned d, uint64_t i)
{
	return load_slot(&f->slots[d][i]);
}

/*
 * The descriptor in the deepest boxed level's slot i, read from its copy
 * into *copy; *box: where it is published.  NULL for an empty slot.
 */
static inline __attribute__((always_inline)) const struct fnode *
copied_child(const struct lpm_multibit *f, uint64_t i, struct fnode *copy,
	     const struct fnode **box)
{
	const struct slot_copy *s = &f->copies[i];
	uint64_t w[4];
	const struct fnode *b;
	uint32_t seq;
	do {
		seq = map_seq_read_begin(&s->seq);
		b = atomic_load_explicit(&s->box, memory_order_relaxed);
		for (unsigned k = 0; k < 4; k++)
			w[k] = atomic_load_explicit(&s->word[k],
						    memory_order_relaxed);
	} while (map_seq_read_retry(&s->seq, seq));
	*box = b;
	if (!b)
		return NULL;
	memcpy(copy, w, sizeof(*copy));
	return copy;
}

/* Ask for the slot copy a walk of word key x reads (len >= BOXED_MAX *
 * STRIDE bits: shorter keys stop above it), before the levels above. */
static inline void prefetch_copy(const struct lpm_multibit *f, uint64_t x)
{
	__builtin_prefetch(&f->copies[x >> (64 - BOXED_MAX * STRIDE)]);
}

/* The child a lookup at depth d < boxed takes for the key's first d + 1
 * chunks i: from the slot copies where it has them (copy, *box: as
 * copied_child), else the slot itself (*box the same).  boxed: f->boxed,
 * a constant where the lookups are built (one build for each). */
static inline __attribute__((always_inline)) const struct fnode *
lookup_boxed_child(const struct lpm_multibit *f, unsigned d, uint64_t i,
		   struct fnode *copy, const struct fnode **box, unsigned boxed)
{
	if (boxed == BOXED_MAX && d == BOXED_MAX - 1)
		return copied_child(f, i, copy, box);
	return *box = boxed_child(f, d, i);
}

/* Child c of n, a node at depth d, or NULL.  A boxed node's children are
 * in its slots, not in its descriptor. */
static inline const struct fnode *child_of(const struct lpm_multibit *f,
					   const struct fnode *n, unsigned d,
					   unsigned c)
{
	if (d < f->boxed)
		return load_slot(&n->slots[c]);
	return has_child(n, c) ? kid(n, c) : NULL;
}

static uint8_t *value_of(const struct lpm_multibit *f, struct fentry *e)
{
	if (f->compiled)
		return value_table_at(&f->values, e->id);
	return e->bytes + f->value_offset;
}

/* Do the first len bits of a and b agree?  (A loop, not memcmp: a lookup
 * compares an address's few bytes, and a call costs more than that.) */
static inline bool same_bits(const uint8_t *a, const uint8_t *b, uint32_t len)
{
	uint32_t whole = len / 8;
	uint8_t diff = 0;
	for (uint32_t i = 0; i < whole; i++)
		diff |= a[i] ^ b[i];
	if (len % 8)
		diff |= (a[whole] ^ b[whole]) & (uint8_t)(0xff00u >> (len % 8));
	return !diff;
}

/* The value a lookup answers with: the one carried inline (in a leaf or
 * an entries slot) where values are of 8 bytes or fewer, else entry e's. */
static inline void *answer_value(const struct lpm_multibit *f,
				 const uint64_t *inline_value, struct fentry *e)
{
	if (f->compiled) /* the inline word is the entry's id */
		return value_table_at(&f->values, (uint32_t)*inline_value);
	if (f->map.attr.value_size <= INLINE_VALUE_MAX)
		return (void *)inline_value;
	return value_of(f, e);
}

/* ... for a lookup that ends at a node's prefix s */
static inline void *slot_value(const struct lpm_multibit *f,
			       const struct fslot *s)
{
	return answer_value(f, &s->value, s->e);
}

/* ... for a lookup that ends at leaf n */
static inline void *leaf_value(const struct lpm_multibit *f, const struct fnode *n)
{
	return answer_value(f, &n->value, n->leaf);
}

/* Does leaf n's prefix cover a key of len bits and these data? */
static inline bool leaf_covers(const struct fnode *n, uint32_t len,
			       const uint8_t *data)
{
	uint32_t l = leaf_len(n);
	if (l > len)
		return false;
	return same_bits(l <= HEAD_BITS ? n->head : n->leaf->bytes, data, l);
}

/*
 * Keys of up to 8 data bytes (IPv4 and its like) are read as one word, most
 * significant bit first, bits past the data 0: a chunk is then a shift,
 * and a leaf's cover check one xor, where the byte-wise forms branch.
 */
#define WORD_BYTES 8

static inline uint64_t word_of(const uint8_t *data, uint32_t size)
{
	uint64_t x = 0;
	for (uint32_t i = 0; i < WORD_BYTES; i++)
		x = x << 8 | (i < size ? data[i] : 0);
	return x;
}

/* The 6 bits of word x from bit off (< 64) on. */
static inline unsigned word_chunk(uint64_t x, uint32_t off)
{
	return (unsigned)((x << off) >> (64 - STRIDE));
}

static inline bool leaf_covers_word(const struct fnode *n, uint32_t len,
				    uint64_t x)
{
	uint32_t l = leaf_len(n);
	uint64_t head;
	if (l > len)
		return false;
	memcpy(&head, n->head, sizeof(head));
	head = __builtin_bswap64(head); /* the bytes as a big-endian word */
	return l == 0 || !((x ^ head) >> (64 - l));
}

/* --- reading --------------------------------------------------------------- */

/*
 * The value of the longest stored prefix of at most len bits matching
 * data, or NULL.
 * A leaf on the way ends the walk: its prefix is longer than every one
 * above it, and it either covers the key or nothing below does.
 */
static inline __attribute__((always_inline)) void *
longest_match(struct lpm_multibit *f, uint32_t len, const uint8_t *data,
	      bool word, unsigned boxed)
{
	uint64_t x = word ? word_of(data, f->data_size) : 0;
	const struct fnode *n = load_root(f), *best = NULL;
	const struct fnode *pub = n; /* where n is published (n may be a copy) */
	struct fnode copy;
	unsigned best_pos = 0;
	uint64_t visited = 1, chunks = 0; /* the chunks so far, as a number */
	void *found = NULL;
	/* the slot copy the walk reads after the boxed nodes above it */
	if (boxed == BOXED_MAX && word && len >= BOXED_MAX * STRIDE)
		prefetch_copy(f, x);
	for (uint32_t off = 0;; off += STRIDE) {
		uint32_t rem = len - off;
		unsigned c = word ? word_chunk(x, off)
				  : chunk_at(data, f->data_size, off);
		chunks = chunks << STRIDE | c;
		uint64_t match = n->prefixes & path_mask[c];
		if (rem < STRIDE)
			match &= upto[rem];
		if (match) {
			best = n;
			best_pos = 63u - (unsigned)__builtin_clzll(match);
		}
		if (rem < STRIDE)
			break;
		if (off < boxed * STRIDE)
			n = lookup_boxed_child(f, off / STRIDE, chunks, &copy,
					       &pub, boxed);
		else
			pub = n = has_child(n, c) ? kid(n, c) : NULL;
		if (!n)
			break;
		visited++;
		if (is_leaf(n)) {
			if (word ? leaf_covers_word(n, len, x)
				 : leaf_covers(n, len, data))
				found = leaf_value(f, pub);
			break;
		}
	}
	map_work_count(&work_of(f)->nodes_scanned, visited);
	if (!found && best)
		found = slot_value(f, &best->entries[rank(best->prefixes, best_pos)]);
	return found;
}

/*
 * Every step of a lookup counts bits: built for a baseline x86-64, which
 * lacks POPCNT, __builtin_popcountll is a call into libgcc.  The lookup is
 * built twice, and the loader picks the POPCNT build where the cpu has it.
 * Not under ThreadSanitizer: the loader runs the pick (an ifunc resolver)
 * while relocating, before TSan's runtime is up, and TSan instruments the
 * resolver, so every program died at start.
 */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(MAP_UNDER_TSAN)
#if __has_attribute(target_clones)
#define WITH_POPCNT __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef WITH_POPCNT
#define WITH_POPCNT
#endif

/* The trie's lookup (the whole of it where nothing is compiled). */
static inline __attribute__((always_inline)) void *
trie_lookup(struct lpm_multibit *f, uint32_t len, const uint8_t *data)
{
	bool word = f->data_size <= WORD_BYTES;
	if (f->boxed == BOXED_MAX)
		return word ? longest_match(f, len, data, true, BOXED_MAX)
			    : longest_match(f, len, data, false, BOXED_MAX);
	return word ? longest_match(f, len, data, true, BOXED_MIN)
		    : longest_match(f, len, data, false, BOXED_MIN);
}

/* An id the compiled table answers for a /18 it could not compile (no
 * memory): ask the trie.  Ids stay below it (value_table_take). */
#define ASK_THE_TRIE UINT32_MAX
_Static_assert(MAP_BATCH_MAX <= FIB4_BATCH_MAX && MAP_BATCH_MAX <= 256,
	       "a batch fits the compiled lookup and its uint8_t indices");

/* The compiled table's answer id as a lookup's answer; the trie's where
 * the table says to ask it. */
static inline void *answer_of_id(struct lpm_multibit *f, uint32_t id,
				 const uint8_t *data)
{
	if (id == ASK_THE_TRIE)
		return trie_lookup(f, 32, data);
	return id == FIB4_NONE ? NULL : value_table_at(&f->values, id);
}

/* Is a key of len bits one the compiled table answers? */
static inline bool compiled_for(const struct lpm_multibit *f, uint32_t len)
{
	return f->compiled && len == 32;
}

WITH_POPCNT static void *multibit_lookup(struct map *m, const void *key)
{
	struct lpm_multibit *f = multibit_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	if (len > f->max_prefixlen)
		return NULL;
	const uint8_t *data = lpm_data_of(key);
	if (compiled_for(f, len)) {
		map_work_count(&work_of(f)->nodes_scanned, 1);
		return answer_of_id(f, fib4_lookup(&f->fib, lpm_ipv4_address(data)),
				    data);
	}
	return trie_lookup(f, len, data);
}

static int multibit_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, multibit_lookup, key, value);
}

/* --- a batch of lookups --------------------------------------------------------- */

/* One key's walk, a level at a time (longest_match's loop, cut open). */
struct walker {
	uint64_t x;
	uint32_t len, off;
	const struct fnode *n, *best;
	const struct fnode *pub; /* where n is published (n may be copy) */
	struct fnode copy; /* n, where it came from a slot copy */
	unsigned best_pos;
	void *found;
	bool done;
};

/*
 * One level of w's walk: longest_match's loop body, in another order.  The
 * step that finds a descriptor only asks for its line; the walker's next
 * step, after every other walker has taken one, reads it, and checks a
 * leaf there.  Checked at once, as longest_match does, the load of each
 * kids array's line stalled the batch before the next walker's could
 * start, and the prefetch came after it.  The nodes visited (0 or 1).
 */
static inline __attribute__((always_inline)) uint64_t
walker_step(struct lpm_multibit *f, struct walker *w, unsigned boxed)
{
	if (is_leaf(w->n)) {
		if (leaf_covers_word(w->n, w->len, w->x))
			w->found = leaf_value(f, w->pub);
		w->done = true;
		return 0;
	}
	uint32_t rem = w->len - w->off;
	unsigned c = word_chunk(w->x, w->off);
	uint64_t match = w->n->prefixes & path_mask[c];
	if (rem < STRIDE)
		match &= upto[rem];
	if (match) {
		w->best = w->n;
		w->best_pos = 63u - (unsigned)__builtin_clzll(match);
	}
	const struct fnode *next = NULL, *pub = NULL;
	if (rem < STRIDE)
		;
	else if (w->off < boxed * STRIDE)
		next = lookup_boxed_child(f, w->off / STRIDE,
					  w->x >> (64 - w->off - STRIDE),
					  &w->copy, &pub, boxed);
	else if (has_child(w->n, c))
		pub = next = kid(w->n, c);
	if (!next) {
		w->done = true;
		return 0;
	}
	__builtin_prefetch(next);
	w->n = next;
	w->pub = pub;
	w->off += STRIDE;
	return 1;
}

/* The batch's walkers, each at the root (done: a key no walk answers). */
static inline __attribute__((always_inline)) unsigned
start_walks(struct lpm_multibit *f, const uint8_t *k, unsigned n,
	    struct walker *w, unsigned boxed)
{
	const struct fnode *root = load_root(f);
	uint32_t ks = f->map.attr.key_size;
	unsigned active = 0;
	for (unsigned i = 0; i < n; i++, k += ks) {
		struct walker *v = &w[i];
		v->len = lpm_prefixlen_of(k);
		v->off = 0;
		v->n = v->pub = root; /* boxed: never a leaf */
		v->best = NULL;
		v->best_pos = 0;
		v->found = NULL;
		v->done = v->len > f->max_prefixlen;
		v->x = v->done ? 0 : word_of(lpm_data_of(k), f->data_size);
		/* its slot copy, if the walk goes there: asked for now, read
		 * two levels later, so the walks' reads of them overlap */
		if (boxed == BOXED_MAX && !v->done &&
		    v->len >= BOXED_MAX * STRIDE)
			prefetch_copy(f, v->x);
		active += !v->done;
	}
	return active;
}

/* The walks, a level of each in turn, until all are done; the nodes
 * visited. */
static inline __attribute__((always_inline)) uint64_t
run_walks(struct lpm_multibit *f, unsigned n, struct walker *w,
	  unsigned active, unsigned boxed)
{
	uint64_t visited = active;
	while (active)
		for (unsigned i = 0; i < n; i++)
			if (!w[i].done) {
				visited += walker_step(f, &w[i], boxed);
				active -= w[i].done;
			}
	return visited;
}

/*
 * A batch of IPv4 keys: the full-length ones to the compiled table's
 * interleaved lookup, together; any other alone to the trie.
 */
static inline __attribute__((always_inline)) unsigned
compiled_batch(struct lpm_multibit *f, const uint8_t *k, unsigned n,
	       void **values)
{
	uint32_t ks = f->map.attr.key_size;
	uint32_t addr[MAP_BATCH_MAX], ids[MAP_BATCH_MAX];
	uint8_t which[MAP_BATCH_MAX];
	unsigned full = 0, hits = 0;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *key = k + (size_t)i * ks;
		uint32_t len = lpm_prefixlen_of(key);
		if (compiled_for(f, len)) {
			which[full] = (uint8_t)i;
			addr[full++] = lpm_ipv4_address(lpm_data_of(key));
		} else {
			values[i] = len > f->max_prefixlen
					    ? NULL
					    : trie_lookup(f, len, lpm_data_of(key));
			hits += values[i] != NULL;
		}
	}
	fib4_lookup_batch(&f->fib, addr, full, ids);
	map_work_count(&work_of(f)->nodes_scanned, full);
	for (unsigned j = 0; j < full; j++) {
		void *v = answer_of_id(f, ids[j],
				       lpm_data_of(k + (size_t)which[j] * ks));
		values[which[j]] = v;
		hits += v != NULL;
	}
	return hits;
}

/*
 * n walks interleaved, a level of each in turn: one lookup after another
 * waits for each node of its path in turn; here a level's n nodes are
 * fetched together.  Keys of up to 8 data bytes (the walks of longer ones
 * are the single lookup's, one after another).
 */
WITH_POPCNT static unsigned multibit_lookup_batch(struct map *m,
						  const void *keys, unsigned n,
						  void **values)
{
	struct lpm_multibit *f = multibit_of(m);
	const uint8_t *k = keys;
	uint32_t ks = m->attr.key_size;
	struct walker w[MAP_BATCH_MAX];
	unsigned hits = 0;
	uint64_t visited;
	if (f->data_size > WORD_BYTES) {
		for (unsigned i = 0; i < n; i++)
			hits += (values[i] = multibit_lookup(m, k + (size_t)i * ks))
				!= NULL;
		return hits;
	}
	if (f->compiled)
		return compiled_batch(f, k, n, values);
	if (f->boxed == BOXED_MAX)
		visited = run_walks(f, n, w, start_walks(f, k, n, w, BOXED_MAX),
				    BOXED_MAX);
	else
		visited = run_walks(f, n, w, start_walks(f, k, n, w, BOXED_MIN),
				    BOXED_MIN);
	map_work_count(&work_of(f)->nodes_scanned, visited);
	for (unsigned i = 0; i < n; i++) {
		void *v = w[i].found;
		if (!v && w[i].best)
			v = slot_value(f, &w[i].best->entries[rank(
				w[i].best->prefixes, w[i].best_pos)]);
		hits += (values[i] = v) != NULL;
	}
	return hits;
}

/* --- the path to a prefix ------------------------------------------------------ */

/*
 * The way to a prefix of len bits: node[0] the root, node[k] the child of
 * node[k-1] for chunk[k-1], down to node[depth], the deepest node that
 * exists on the way (depth <= target, the depth of the prefix's own node).
 * leaf: the leaf hanging at node[depth]'s chunk[depth], if there is one
 * and depth < target.
 */
struct path {
	const struct fnode *node[DEPTH_MAX + 1];
	unsigned chunk[DEPTH_MAX + 1];
	unsigned depth, target;
	uint32_t len;
	unsigned pos; /* the prefix's position in node[target] */
	const struct fnode *leaf;
};

static void walk_path(struct lpm_multibit *f, const struct fnode *root,
		      uint32_t len, const uint8_t *data, struct path *p)
{
	p->len = len;
	p->target = depth_of(len);
	p->node[0] = root;
	p->depth = 0;
	p->leaf = NULL;
	for (unsigned k = 0; k <= p->target; k++)
		p->chunk[k] = chunk_at(data, f->data_size, k * STRIDE);
	p->pos = position(len, p->chunk[p->target]);
	while (p->depth < p->target) {
		const struct fnode *k = child_of(f, p->node[p->depth], p->depth,
						 p->chunk[p->depth]);
		if (!k)
			break;
		if (is_leaf(k)) {
			p->leaf = k;
			break;
		}
		p->node[++p->depth] = k;
	}
	map_work_count(&work_of(f)->nodes_scanned,
		       p->depth + 1 + (p->leaf != NULL));
}

/* The stored entry of the very prefix p leads to (len bits of data). */
static struct fentry *path_entry(const struct path *p, const uint8_t *data)
{
	if (p->leaf) {
		struct fentry *e = p->leaf->leaf;
		return e->prefixlen == p->len && same_bits(e->bytes, data, p->len)
			       ? e : NULL;
	}
	if (p->depth != p->target)
		return NULL;
	const struct fnode *n = p->node[p->target];
	if (!((n->prefixes >> p->pos) & 1))
		return NULL;
	return n->entries[rank(n->prefixes, p->pos)].e;
}

/* --- writing: copies of the path ---------------------------------------------- */

/* What an update did to a child, for its parent's new kids array. */
enum change { CHANGED, ADDED, REMOVED };

/* Arrays this update replaced (freed after a grace period once the new
 * root is published) and made (freed at once if the update fails). */
struct retire {
	struct farray *old[4 * DEPTH_MAX + 8];
	struct farray *made[4 * DEPTH_MAX + 8];
	unsigned n_old, n_made;
	size_t old_bytes, made_bytes;
};

/* Counts only: the arrays are filled as they are used (zeroing both, 22 KB,
 * cost more than the rest of a small update). */
static void retire_init(struct retire *r)
{
	r->n_old = r->n_made = 0;
	r->old_bytes = r->made_bytes = 0;
}

static struct farray *farray_of(const void *items)
{
	return items ? (struct farray *)((const unsigned char *)items -
					 offsetof(struct farray, items))
		     : NULL;
}

static size_t farray_bytes(size_t n, size_t item)
{
	return sizeof(struct farray) + n * item;
}

/* memcpy of n items; an empty array's pointer is NULL, which memcpy may
 * not be given even for no bytes. */
static void copy_items(void *dst, const void *src, size_t n, size_t item)
{
	if (n)
		memcpy(dst, src, n * item);
}

static void *array_new(struct lpm_multibit *f, struct retire *r, size_t n,
		       size_t item)
{
	if (n == 0)
		return NULL;
	struct farray *a = malloc(farray_bytes(n, item));
	if (!a)
		return NULL;
	map_work_count(&work_of(f)->allocations, 1);
	r->made[r->n_made++] = a;
	r->made_bytes += farray_bytes(n, item);
	return a->items;
}

static void array_retire(struct retire *r, const void *items, size_t n,
			 size_t item)
{
	if (!items)
		return;
	r->old[r->n_old++] = farray_of(items);
	r->old_bytes += farray_bytes(n, item);
}

static unsigned count_of(uint64_t map)
{
	return (unsigned)__builtin_popcountll(map);
}

/* n with the prefix at pos set to e (added if absent), or removed if e is
 * NULL.  Retires n's entries array. */
static int with_entry(struct lpm_multibit *f, struct retire *r,
		      const struct fnode *n, unsigned pos, const struct fslot *e,
		      struct fnode *out)
{
	unsigned count = count_of(n->prefixes);
	unsigned at = rank(n->prefixes, pos);
	bool present = (n->prefixes >> pos) & 1;
	uint64_t prefixes = e ? n->prefixes | 1ull << pos
			      : n->prefixes & ~(1ull << pos);
	unsigned new_count = count_of(prefixes);
	struct fslot *entries = array_new(f, r, new_count, sizeof(*entries));
	if (new_count && !entries)
		return -ENOMEM;
	unsigned tail = at + present; /* first old entry after pos */
	copy_items(entries, n->entries, at, sizeof(*entries));
	if (e)
		entries[at] = *e;
	copy_items(entries + at + (e != NULL), n->entries + tail, count - tail,
		   sizeof(*entries));
	array_retire(r, n->entries, count, sizeof(*entries));
	*out = *n;
	out->prefixes = prefixes;
	out->entries = entries;
	return 0;
}

/* n with child c changed, added or removed as `how` says (child: the new
 * descriptor for CHANGED and ADDED).  Retires n's kids array. */
static int with_child(struct lpm_multibit *f, struct retire *r,
		      const struct fnode *n, unsigned c, enum change how,
		      const struct fnode *child, struct fnode *out)
{
	unsigned count = count_of(n->children);
	unsigned at = rank(n->children, c);
	uint64_t children = how == REMOVED ? n->children & ~(1ull << c)
					   : n->children | 1ull << c;
	unsigned new_count = count_of(children);
	struct fnode *kids = array_new(f, r, new_count, sizeof(*kids));
	if (new_count && !kids)
		return -ENOMEM;
	unsigned tail = at + (how != ADDED); /* first old kid after c */
	copy_items(kids, n->kids, at, sizeof(*kids));
	if (how != REMOVED)
		kids[at] = *child;
	copy_items(kids + at + (how != REMOVED), n->kids + tail, count - tail,
		   sizeof(*kids));
	array_retire(r, n->kids, count, sizeof(*kids));
	*out = *n;
	out->children = children;
	out->kids = kids;
	return 0;
}

/* A new entry as a slot: its value as it was given. */
static struct fslot slot_of(const struct lpm_multibit *f, struct fentry *e)
{
	struct fslot s = { .e = e, .value = 0 };
	if (f->compiled)
		s.value = e->id;
	else if (f->map.attr.value_size <= INLINE_VALUE_MAX)
		memcpy(&s.value, value_of(f, e), f->map.attr.value_size);
	return s;
}

/* Leaf n's prefix as a slot, with the value lookups answer with now. */
static struct fslot slot_of_leaf(const struct fnode *n)
{
	return (struct fslot){ .e = n->leaf, .value = n->value };
}

static struct fnode leaf_of(const struct lpm_multibit *f, struct fslot s)
{
	struct fnode n = { .prefixes = LEAF_MARK | s.e->prefixlen,
			   .value = s.value, .leaf = s.e };
	memcpy(n.head, s.e->bytes, f->data_size < 8 ? f->data_size : 8);
	return n;
}

/*
 * A node below the boxed levels that a delete left with one prefix in its
 * subtree becomes a leaf (its last array retired), and one left with none
 * goes: every node below the boxed levels holds at least two prefixes
 * below it.
 */
static enum change tidy(const struct lpm_multibit *f, struct retire *r,
			struct fnode *n)
{
	if (!n->children && !n->prefixes)
		return REMOVED;
	if (!n->children && count_of(n->prefixes) == 1) {
		struct fslot s = n->entries[0];
		array_retire(r, n->entries, 1, sizeof(*n->entries));
		*n = leaf_of(f, s);
	} else if (!n->prefixes && count_of(n->children) == 1 &&
		   is_leaf(&n->kids[0])) {
		struct fslot s = slot_of_leaf(&n->kids[0]);
		array_retire(r, n->kids, 1, sizeof(*n->kids));
		*n = leaf_of(f, s);
	}
	return CHANGED;
}

/* Lock held: the copy of slot i of the deepest boxed level, now box. */
static void rewrite_copy(struct lpm_multibit *f, size_t i,
			 const struct fnode *box)
{
	struct slot_copy *s = &f->copies[i];
	uint64_t w[4] = { 0 };
	if (box)
		memcpy(w, box, sizeof(w));
	map_seq_lock(&s->seq); /* never contended: f->lock is held */
	atomic_store_explicit(&s->box, (struct fnode *)box,
			      memory_order_relaxed);
	for (unsigned k = 0; k < 4; k++)
		atomic_store_explicit(&s->word[k], w[k], memory_order_relaxed);
	map_seq_unlock(&s->seq);
}

/* Publish fresh in a new box at *slot (a boxed node's child, or the
 * root), or nothing (how == REMOVED); the box it replaces retired. */
static int publish_in(struct lpm_multibit *f, struct retire *r,
		      _Atomic(struct fnode *) *slot, struct fnode fresh,
		      enum change how)
{
	struct fnode *box = NULL;
	if (how != REMOVED) {
		box = array_new(f, r, 1, sizeof(*box));
		if (!box)
			return -ENOMEM;
		*box = fresh;
	}
	array_retire(r, load_slot(slot), 1, sizeof(*box));
	atomic_store_explicit(slot, box, memory_order_release);
	_Atomic(struct fnode *) *deepest = f->slots[BOXED_MAX - 1];
	if (f->copies && slot >= deepest && slot < deepest + boxed_at(BOXED_MAX))
		rewrite_copy(f, (size_t)(slot - deepest), box);
	return 0;
}

/* The slot of node[d]'s child on p (node[d] boxed). */
static _Atomic(struct fnode *) *slot_on(const struct path *p, unsigned d)
{
	return &p->node[d]->slots[p->chunk[d]];
}

/*
 * Copy the path from node[from] up to the first boxed parent, node[from]'s
 * descriptor replaced by fresh (how says what became of it), and publish
 * the copy in that parent's slot (from the root itself: a new root).
 * Parents are tidied on the way up only when `shrink` (a delete): an
 * insert never leaves a node to tidy.  Boxed nodes are never tidied: the
 * root and the mids stay, even empty.
 */
static int publish_path(struct lpm_multibit *f, struct retire *r,
			const struct path *p, unsigned from, struct fnode fresh,
			enum change how, bool shrink)
{
	if (from == 0)
		return publish_in(f, r, &f->root, fresh, CHANGED);
	unsigned k = from;
	for (; k > f->boxed; k--) {
		struct fnode up;
		int err = with_child(f, r, p->node[k - 1], p->chunk[k - 1], how,
				     &fresh, &up);
		if (err)
			return err;
		how = shrink ? tidy(f, r, &up) : CHANGED;
		fresh = up;
	}
	return publish_in(f, r, slot_on(p, k - 1), fresh, how);
}

/* Put s, a prefix of the node at depth d or below, into node *n (a node
 * of depth d, possibly empty): among its prefixes, or as a leaf at its
 * chunk, or into the node that takes the place of a leaf already there. */
static int place(struct lpm_multibit *f, struct retire *r, struct fnode *n,
		 unsigned d, struct fslot s);

/* The node of depth d that holds the prefixes of leaves a and b. */
static int split(struct lpm_multibit *f, struct retire *r, unsigned d,
		 struct fslot a, struct fslot b, struct fnode *out)
{
	struct fnode n = { 0 };
	int err = place(f, r, &n, d, a);
	if (!err)
		err = place(f, r, &n, d, b);
	if (!err)
		*out = n;
	return err;
}

static int place(struct lpm_multibit *f, struct retire *r, struct fnode *n,
		 unsigned d, struct fslot s)
{
	const struct fentry *e = s.e;
	unsigned c = chunk_at(e->bytes, f->data_size, d * STRIDE);
	if (depth_of(e->prefixlen) == d)
		return with_entry(f, r, n, position(e->prefixlen, c), &s, n);
	struct fnode child;
	enum change how = has_child(n, c) ? CHANGED : ADDED;
	if (how == ADDED)
		child = leaf_of(f, s);
	else {
		/* only split() calls place() on a node with children: its
		 * one other prefix is a leaf here */
		int err = split(f, r, d + 1, slot_of_leaf(kid(n, c)), s,
				&child);
		if (err)
			return err;
	}
	return with_child(f, r, n, c, how, &child, n);
}

/* Put e in the trie along p (its prefix absent, or present: replaced). */
static int insert_along(struct lpm_multibit *f, struct retire *r,
			const struct path *p, struct fentry *e, bool present)
{
	struct fnode fresh;
	struct fslot s = slot_of(f, e);
	unsigned d = p->depth;
	unsigned c = p->chunk[d];
	int err;
	if (!p->leaf && d < f->boxed && d < p->target) /* an empty slot: a leaf */
		return publish_in(f, r, slot_on(p, d), leaf_of(f, s), ADDED);
	if (!p->leaf) { /* into node[d]: its prefixes or a new leaf */
		fresh = *p->node[d];
		err = place(f, r, &fresh, d, s);
		return err ? err : publish_path(f, r, p, d, fresh, CHANGED, false);
	}
	struct fnode child;
	if (present)
		child = leaf_of(f, s);
	else if ((err = split(f, r, d + 1, slot_of_leaf(p->leaf), s, &child)))
		return err;
	if (d < f->boxed) /* the leaf was in a slot */
		return publish_in(f, r, slot_on(p, d), child, CHANGED);
	err = with_child(f, r, p->node[d], c, CHANGED, &child, &fresh);
	return err ? err : publish_path(f, r, p, d, fresh, CHANGED, false);
}

/* Take the prefix p leads to (present) out of the trie. */
static int remove_along(struct lpm_multibit *f, struct retire *r,
			const struct path *p)
{
	struct fnode fresh;
	unsigned d = p->depth;
	if (d < f->boxed && p->leaf)
		return publish_in(f, r, slot_on(p, d), (struct fnode){ 0 },
				  REMOVED);
	int err = p->leaf
		? with_child(f, r, p->node[d], p->chunk[d], REMOVED, NULL, &fresh)
		: with_entry(f, r, p->node[d], p->pos, NULL, &fresh);
	if (err)
		return err;
	enum change how = d >= f->boxed ? tidy(f, r, &fresh) : CHANGED;
	return publish_path(f, r, p, d, fresh, how, true);
}

/* Blocks that updates replaced, freed together in one RCU callback once
 * RETIRE_BATCH of them are in: a call_rcu per array, then per update, cost
 * more than the copies (docs/lpm_trie.md, "Cheaper updates"). */
#define RETIRE_BATCH 64
struct retired {
	struct rcu_head rcu;
	unsigned n, n_ids;
	void *blocks[RETIRE_BATCH]; /* malloc'd, an rcu_head first: farrays,
				       fentries, compiled blocks */
	uint32_t ids[RETIRE_BATCH]; /* value ids of entries gone */
	struct value_table *values;
};

static void free_retired(struct rcu_head *head)
{
	struct retired *d = caa_container_of(head, struct retired, rcu);
	for (unsigned i = 0; i < d->n; i++)
		free(d->blocks[i]);
	for (unsigned i = 0; i < d->n_ids; i++)
		value_table_release_later(d->values, d->ids[i]);
	free(d);
}

/* Lock held: f's pending batch, begun if need be; NULL without memory. */
static struct retired *pending_batch(struct lpm_multibit *f)
{
	if (!f->pending && (f->pending = malloc(sizeof(*f->pending)))) {
		f->pending->n = f->pending->n_ids = 0;
		f->pending->values = &f->values;
	}
	return f->pending;
}

/* Lock held: the pending batch to RCU if it is full. */
static void send_if_full(struct lpm_multibit *f)
{
	if (f->pending->n == RETIRE_BATCH || f->pending->n_ids == RETIRE_BATCH) {
		map_rcu_call(&f->pending->rcu, free_retired);
		f->pending = NULL;
	}
}

/* Lock held: block b to f's pending batch, the batch to RCU when full.
 * Without memory for a batch, b goes to RCU alone (which needs none). */
static void retire_block(struct lpm_multibit *f, void *b)
{
	if (!pending_batch(f)) {
		map_rcu_free_block((struct rcu_head *)b);
		return;
	}
	f->pending->blocks[f->pending->n++] = b;
	send_if_full(f);
}

/* Lock held: entry e gone from the trie and the compiled table, freed
 * after a grace period, its value id free again then (without memory
 * for a batch the id is never given again: one place of the table
 * lost). */
static void retire_entry(struct lpm_multibit *f, struct fentry *e)
{
	if (f->compiled && pending_batch(f)) {
		f->pending->ids[f->pending->n_ids++] = e->id;
		send_if_full(f);
	}
	retire_block(f, e);
}

/* Lock held, the update published: what it replaced, and `entry` (an
 * entry it replaced or removed, or NULL), to be freed after a grace
 * period. */
static void retire_replaced(struct lpm_multibit *f, const struct retire *r,
			    struct fentry *entry)
{
	for (unsigned i = 0; i < r->n_old; i++)
		retire_block(f, r->old[i]);
	if (entry)
		retire_entry(f, entry);
}

/* --- the compiled IPv4 table -------------------------------------------------- */

/* Lock held: a prefix to f->scratch (count of them so far); -ENOMEM. */
static int add_compiled(struct lpm_multibit *f, uint32_t addr, uint32_t len,
			uint64_t id, size_t *count)
{
	if (*count == f->scratch_cap) {
		size_t cap = f->scratch_cap ? 2 * f->scratch_cap : 64;
		struct fib4_prefix *p = realloc(f->scratch, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		f->scratch = p;
		f->scratch_cap = cap;
	}
	f->scratch[(*count)++] = (struct fib4_prefix){
		.addr = len ? addr & ~0u << (32 - len) : 0, .len = len,
		.id = (uint32_t)id };
	return 0;
}

/* Leaf n's prefix: its address from the leaf's head. */
static uint32_t leaf_address(const struct fnode *n)
{
	return lpm_ipv4_address(n->head);
}

/*
 * Lock held: every prefix longer than FIB4_DIRECT_BITS in n's subtree (n
 * at depth d, below the boxed levels, its bits from addr on; or a leaf)
 * to f->scratch.  Each prefix's length and address come from where it
 * sits, its id from the word beside its entry: the entries themselves,
 * one allocation each, are never read (a miss each, most of a compile's
 * time when they were).
 */
static int collect_long(struct lpm_multibit *f, const struct fnode *n,
			unsigned d, uint32_t addr, size_t *count)
{
	if (is_leaf(n))
		return leaf_len(n) > FIB4_DIRECT_BITS
			       ? add_compiled(f, leaf_address(n), leaf_len(n),
					      n->value, count)
			       : 0;
	unsigned k = 0;
	for (uint64_t left = n->prefixes; left; left &= left - 1, k++) {
		unsigned pos = (unsigned)__builtin_ctzll(left);
		unsigned l = 31u - (unsigned)__builtin_clz(pos + 1);
		uint32_t len = d * STRIDE + l;
		uint32_t bits = (pos + 1 - (1u << l));
		if (len > FIB4_DIRECT_BITS &&
		    add_compiled(f, addr | (l ? bits << (32 - len) : 0), len,
				 n->entries[k].value, count))
			return -ENOMEM;
	}
	k = 0;
	for (uint64_t left = n->children; left; left &= left - 1, k++) {
		unsigned c = (unsigned)__builtin_ctzll(left);
		if (collect_long(f, &n->kids[k], d + 1,
				 addr | c << (32 - (d + 1) * STRIDE), count))
			return -ENOMEM;
	}
	return 0;
}

_Static_assert(FIB4_DIRECT_BITS % STRIDE == 0,
	       "a /18's prefixes are one subtree of the trie");

/*
 * Lock held: the id of the longest stored prefix of at most 18 bits that
 * covers /18 i (FIB4_NONE if none), and in *below the subtree that holds
 * the prefixes longer than 18 bits inside it (the /18's node, or a leaf
 * whose one prefix may lie inside it), or NULL.
 */
static uint32_t outer_id(const struct lpm_multibit *f, uint32_t i,
			 const struct fnode **below)
{
	uint64_t x = (uint64_t)i << (64 - FIB4_DIRECT_BITS);
	const struct fnode *n = load_root(f);
	uint32_t best = FIB4_NONE;
	*below = NULL;
	for (unsigned d = 0;; d++) {
		uint32_t rem = FIB4_DIRECT_BITS - d * STRIDE;
		unsigned c = word_chunk(x, d * STRIDE);
		uint64_t match = n->prefixes & path_mask[c];
		if (rem < STRIDE)
			match &= upto[rem];
		if (match)
			best = (uint32_t)n->entries[rank(
				n->prefixes, 63u - (unsigned)__builtin_clzll(match))]
				       .value;
		if (rem < STRIDE) {
			*below = n;
			return best;
		}
		const struct fnode *k = child_of(f, n, d, c);
		if (!k)
			return best;
		if (is_leaf(k)) {
			if (leaf_covers_word(k, FIB4_DIRECT_BITS, x))
				best = (uint32_t)k->value;
			else if (leaf_len(k) > FIB4_DIRECT_BITS &&
				 fib4_index(leaf_address(k)) == i)
				*below = k;
			return best;
		}
		n = k;
	}
}

/* Lock held: direct word i compiled again from the trie, the block it
 * replaces retired.  Without memory for its block the word says to ask
 * the trie. */
static void compile_index(struct lpm_multibit *f, uint32_t i)
{
	const struct fnode *below;
	uint32_t outer = outer_id(f, i, &below);
	size_t count = 0;
	uint64_t word = fib4_answer_word(outer);
	if (below && collect_long(f, below, FIB4_DIRECT_BITS / STRIDE,
				  i << (32 - FIB4_DIRECT_BITS), &count))
		word = fib4_answer_word(ASK_THE_TRIE);
	else if (count) {
		word = fib4_compile(&f->build, i, f->scratch, count, outer);
		if (word == FIB4_NO_MEMORY)
			word = fib4_answer_word(ASK_THE_TRIE);
		else if (fib4_block_of(word))
			map_work_count(&work_of(f)->allocations, 1);
	}
	/* no count of the blocks' bytes here: the old block's size was a
	 * miss of its own; fib4_bytes counts them when asked */
	struct fib4_block *old = fib4_block_of(fib4_publish(&f->fib, i, word));
	if (old)
		retire_block(f, old);
}

/* Lock held, a change to the prefix (len, data) published in the trie:
 * every /18 it covers compiled again (one for a prefix longer than 18
 * bits; 2^(18 - len) for a shorter one). */
static void compile_after(struct lpm_multibit *f, uint32_t len,
			  const uint8_t *data)
{
	if (!f->compiled)
		return;
	uint32_t a = lpm_ipv4_address(data);
	if (len > FIB4_DIRECT_BITS) {
		compile_index(f, fib4_index(a));
		return;
	}
	uint32_t first = len ? fib4_index(a & ~0u << (32 - len)) : 0;
	for (uint32_t k = 0; k < 1u << (FIB4_DIRECT_BITS - len); k++)
		compile_index(f, first + k);
}

/* A failed update: free what it made, which no reader has seen. */
static void discard_made(const struct retire *r)
{
	for (unsigned i = 0; i < r->n_made; i++)
		free(r->made[i]);
}

static int check_add(struct lpm_multibit *f, uint64_t flags)
{
	if (flags == MAP_EXIST)
		return -ENOENT;
	if (f->n_entries == f->map.attr.max_entries)
		return -ENOSPC;
	return 0;
}

static size_t entry_bytes(const struct lpm_multibit *f)
{
	/* compiled: the value lives in the value table, not here */
	return sizeof(struct fentry) + f->value_offset +
	       (f->compiled ? 0 : f->map.attr.value_size);
}

static struct fentry *entry_new(struct lpm_multibit *f, const void *key,
				const void *value)
{
	struct fentry *e = malloc(entry_bytes(f));
	if (!e)
		return NULL;
	map_work_count(&work_of(f)->allocations, 1);
	e->prefixlen = lpm_prefixlen_of(key);
	e->id = 0;
	memcpy(e->bytes, lpm_data_of(key), f->data_size); /* trailing bits too */
	if (!f->compiled) /* else: under the lock, value_id */
		memcpy(value_of(f, e), value, f->map.attr.value_size);
	return e;
}

/* Lock held: e's value in a place of the value table of its own, where
 * the map is compiled. */
static int value_id(struct lpm_multibit *f, struct fentry *e, const void *value)
{
	if (!f->compiled)
		return 0;
	e->id = value_table_take(&f->values);
	if (!e->id)
		return -ENOMEM;
	memcpy(value_of(f, e), value, f->map.attr.value_size);
	return 0;
}

/* The update, lock held.  *old: the entry replaced, if any. */
static int update_locked(struct lpm_multibit *f, struct fentry *e, uint64_t flags,
			 struct retire *r, struct fentry **old)
{
	struct path p;
	walk_path(f, load_root(f), e->prefixlen, e->bytes, &p);
	struct fentry *present = path_entry(&p, e->bytes);
	int err;
	if (present && flags == MAP_NOEXIST)
		return -EEXIST;
	if (!present && (err = check_add(f, flags)))
		return err;
	if ((err = insert_along(f, r, &p, e, present != NULL)))
		return err;
	if (present)
		*old = present;
	else
		f->n_entries++;
	return 0;
}

/* Bytes of arrays made less those retired, once an update is published. */
static void account(struct lpm_multibit *f, const struct retire *r, int err)
{
	if (!err)
		f->bytes += r->made_bytes - r->old_bytes;
}

static int multibit_update(struct map *m, const void *key, const void *value,
		       uint64_t flags)
{
	struct lpm_multibit *f = multibit_of(m);
	if (flags > MAP_EXIST || lpm_prefixlen_of(key) > f->max_prefixlen)
		return -EINVAL;
	struct fentry *e = entry_new(f, key, value);
	if (!e)
		return -ENOMEM;

	struct retire r;
	retire_init(&r);
	struct fentry *old = NULL;
	uint64_t taken = map_work_lock(&f->lock, work_of(f));
	int err = value_id(f, e, value);
	if (!err)
		err = update_locked(f, e, flags, &r, &old);
	account(f, &r, err);
	if (!err && !old)
		f->bytes += entry_bytes(f);
	if (!err) {
		compile_after(f, e->prefixlen, e->bytes);
		retire_replaced(f, &r, old);
	} else if (e->id) {
		value_table_put_now(&f->values, e->id);
	}
	map_work_unlock(&f->lock, work_of(f), taken);

	if (err) {
		discard_made(&r);
		free(e); /* never seen by a reader */
	}
	return err;
}

static int multibit_delete(struct map *m, const void *key)
{
	struct lpm_multibit *f = multibit_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	if (len > f->max_prefixlen)
		return -EINVAL;
	struct retire r;
	retire_init(&r);
	struct path p;
	uint64_t taken = map_work_lock(&f->lock, work_of(f));
	walk_path(f, load_root(f), len, lpm_data_of(key), &p);
	struct fentry *gone = path_entry(&p, lpm_data_of(key));
	int err = gone ? remove_along(f, &r, &p) : -ENOENT;
	account(f, &r, err);
	if (!err) {
		f->n_entries--;
		f->bytes -= entry_bytes(f);
		compile_after(f, len, lpm_data_of(key));
		retire_replaced(f, &r, gone);
	} else {
		discard_made(&r);
	}
	map_work_unlock(&f->lock, work_of(f), taken);
	return err;
}

/* --- get_next_key: pre-order --------------------------------------------------- */

/* The first chunk after c (c < 0: from 0) with a child of n, a node at
 * depth d, or -1. */
static int next_chunk(const struct lpm_multibit *f, const struct fnode *n,
		      unsigned d, int c)
{
	if (d < f->boxed) {
		for (unsigned i = (unsigned)(c + 1); i < FANOUT; i++)
			if (load_slot(&n->slots[i]))
				return (int)i;
		return -1;
	}
	uint64_t right = c < 0 ? n->children
		       : c == FANOUT - 1 ? 0
		       : n->children & ~((2ull << c) - 1);
	return right ? __builtin_ctzll(right) : -1;
}

static struct fentry *first_in_children(const struct lpm_multibit *f,
					const struct fnode *n, unsigned d,
					int c);

/* The first entry of n's subtree in pre-order (n a leaf or a node at
 * depth d), or NULL (only a boxed node can be empty). */
static struct fentry *first_in(const struct lpm_multibit *f,
			       const struct fnode *n, unsigned d)
{
	if (is_leaf(n))
		return n->leaf;
	if (n->prefixes)
		return n->entries[0].e;
	return first_in_children(f, n, d, -1);
}

/* The first entry below n's children after chunk c (c < 0: all), or NULL. */
static struct fentry *first_in_children(const struct lpm_multibit *f,
					const struct fnode *n, unsigned d,
					int c)
{
	while ((c = next_chunk(f, n, d, c)) >= 0) {
		struct fentry *e = first_in(f, child_of(f, n, d, (unsigned)c),
					    d + 1);
		if (e)
			return e;
	}
	return NULL;
}

/* The first entry of node[k]'s children after chunk c, then of its
 * ancestors' children after theirs; NULL after the last. */
static struct fentry *first_after_child(const struct lpm_multibit *f,
					const struct path *p, unsigned k,
					unsigned c)
{
	for (;; c = p->chunk[--k]) {
		struct fentry *e = first_in_children(f, p->node[k], k, (int)c);
		if (e || k == 0)
			return e;
	}
}

/* The entry after the one p leads to (present). */
static struct fentry *entry_after(const struct lpm_multibit *f,
				  const struct path *p)
{
	if (p->leaf)
		return first_after_child(f, p, p->depth, p->chunk[p->depth]);
	const struct fnode *n = p->node[p->target];
	uint64_t later = p->pos == 62 ? 0 : n->prefixes & ~((2ull << p->pos) - 1);
	if (later)
		return n->entries[rank(n->prefixes, (unsigned)__builtin_ctzll(later))].e;
	struct fentry *e = first_in_children(f, n, p->target, -1);
	if (e)
		return e;
	return p->target ? first_after_child(f, p, p->target - 1,
					     p->chunk[p->target - 1])
			 : NULL;
}

static int multibit_get_next_key(struct map *m, const void *key, void *next)
{
	struct lpm_multibit *f = multibit_of(m);
	struct fentry *e = NULL;
	struct path p;
	map_rcu_read_lock();
	const struct fnode *root = load_root(f);
	bool from_key = key && lpm_prefixlen_of(key) <= f->max_prefixlen;
	if (from_key)
		walk_path(f, root, lpm_prefixlen_of(key), lpm_data_of(key), &p);
	if (from_key && path_entry(&p, lpm_data_of(key)))
		e = entry_after(f, &p);
	else
		e = first_in(f, root, 0);
	if (e) {
		memcpy(next, &e->prefixlen, MAP_LPM_PREFIX_BYTES);
		memcpy((uint8_t *)next + MAP_LPM_PREFIX_BYTES, e->bytes,
		       f->data_size);
	}
	map_rcu_read_unlock();
	return e ? 0 : -ENOENT;
}

/* --- dump_state: the nodes and leaves, for maplab dump -------------------------- */

static void print_entry(FILE *f, const struct lpm_multibit *t,
			const struct fentry *e)
{
	lpm_print_prefix(f, e->bytes, t->data_size, e->prefixlen);
}

/* The chunk that leads to a child, as its 6 bits. */
static void print_chunk(FILE *f, unsigned c)
{
	for (int b = STRIDE - 1; b >= 0; b--)
		fputc('0' + ((c >> b) & 1), f);
}

/* Has n, a boxed node at depth d, no prefix in its subtree? */
static bool boxed_empty(const struct lpm_multibit *f, const struct fnode *n,
			unsigned d)
{
	if (n->prefixes)
		return false;
	for (unsigned c = 0; c < FANOUT; c++) {
		const struct fnode *k = load_slot(&n->slots[c]);
		if (k && (d + 1 == f->boxed || !boxed_empty(f, k, d + 1)))
			return false;
	}
	return true;
}

/* A boxed node with nothing in its subtree is left out of the dumps and
 * the shape: it is there only to hold slots. */
static const struct fnode *shown_child(const struct lpm_multibit *f,
				       const struct fnode *n, unsigned d,
				       unsigned c)
{
	const struct fnode *k = child_of(f, n, d, c);
	if (k && d + 1 < f->boxed && boxed_empty(f, k, d + 1))
		return NULL;
	return k;
}

/* Text: each node with the bit it starts at and its own prefixes, each
 * child below it after the chunk that leads there; a leaf is its prefix. */
static void dump_text(FILE *f, const struct lpm_multibit *t, const struct fnode *n,
		      unsigned depth, int chunk)
{
	fprintf(f, "%*s", 2 * (int)depth, "");
	if (chunk >= 0) {
		fputc('[', f);
		print_chunk(f, (unsigned)chunk);
		fputs("] ", f);
	}
	if (is_leaf(n)) {
		fputs("leaf ", f);
		print_entry(f, t, n->leaf);
		fputc('\n', f);
		return;
	}
	fprintf(f, "node at bit %u:", depth * STRIDE);
	for (unsigned i = 0; i < count_of(n->prefixes); i++) {
		fputc(' ', f);
		print_entry(f, t, n->entries[i].e);
	}
	fputc('\n', f);
	for (unsigned c = 0; c < FANOUT; c++) {
		const struct fnode *k = shown_child(t, n, depth, c);
		if (k)
			dump_text(f, t, k, depth + 1, (int)c);
	}
}

/* Dot: a box per node listing its own prefixes, a rounded box per leaf,
 * edges labelled with the chunk that leads to the child; numbered in
 * pre-order, so the same trie draws the same text.  Returns n's number. */
static unsigned dump_dot(FILE *f, const struct lpm_multibit *t, const struct fnode *n,
			 unsigned depth, unsigned *next_id)
{
	unsigned id = (*next_id)++;
	fprintf(f, "  n%u [label=\"", id);
	if (is_leaf(n)) {
		print_entry(f, t, n->leaf);
		fputs("\", style=rounded];\n", f);
		return id;
	}
	fprintf(f, "node at bit %u", depth * STRIDE);
	for (unsigned i = 0; i < count_of(n->prefixes); i++) {
		fputs("\\n", f);
		print_entry(f, t, n->entries[i].e);
	}
	fputs("\"];\n", f);
	for (unsigned c = 0; c < FANOUT; c++) {
		const struct fnode *k = shown_child(t, n, depth, c);
		if (!k)
			continue;
		unsigned child = dump_dot(f, t, k, depth + 1, next_id);
		fprintf(f, "  n%u -> n%u [label=\"", id, child);
		print_chunk(f, c);
		fputs("\"];\n", f);
	}
	return id;
}

/* Nodes and leaves below n, n included. */
static void count_shape(const struct lpm_multibit *t, const struct fnode *n,
			unsigned depth, size_t *nodes, size_t *leaves)
{
	if (is_leaf(n)) {
		(*leaves)++;
		return;
	}
	(*nodes)++;
	for (unsigned c = 0; c < FANOUT; c++) {
		const struct fnode *k = shown_child(t, n, depth, c);
		if (k)
			count_shape(t, k, depth + 1, nodes, leaves);
	}
}

static int multibit_dump_state(struct map *m, FILE *f, enum map_dump_format fmt)
{
	struct lpm_multibit *t = multibit_of(m);
	const struct fnode *root = load_root(t);
	size_t nodes = 0, leaves = 0;
	count_shape(t, root, 0, &nodes, &leaves);
	if (fmt == MAP_DUMP_DOT) {
		fprintf(f, "digraph maplab {\n  label=\"lpm_trie/multibit: %zu "
			"prefixes, %zu nodes, %zu leaves\";\n  labelloc=t;\n"
			"  node [shape=box, fontname=\"monospace\"];\n",
			t->n_entries, nodes, leaves);
		unsigned next_id = 0;
		dump_dot(f, t, root, 0, &next_id);
		fputs("}\n", f);
		return 0;
	}
	fprintf(f, "lpm_trie/multibit: %zu prefixes, %zu nodes, %zu leaves; each "
		"child after the 6 bits that lead to it\n", t->n_entries, nodes,
		leaves);
	dump_text(f, t, root, 0, -1);
	return 0;
}

/* --- the map ------------------------------------------------------------------- */

/* An empty boxed node in a block of its own, its children in slots. */
static struct fnode *boxed_new(_Atomic(struct fnode *) *slots)
{
	struct farray *a = calloc(1, farray_bytes(1, sizeof(struct fnode)));
	if (!a)
		return NULL;
	struct fnode *n = (struct fnode *)a->items;
	n->slots = slots;
	return n;
}

/* The levels a map of max_entries boxes: a third only where it costs at
 * most 73 bytes an entry (BOXED_3_ENTRIES). */
static unsigned boxed_levels(uint32_t max_entries)
{
	return max_entries >= BOXED_3_ENTRIES ? BOXED_MAX : BOXED_MIN;
}

/* The deepest boxed level's slot copies, all of empty slots.  calloc and
 * not aligned_alloc: its 16 MiB come as zero pages, not written here. */
static int make_copies(struct lpm_multibit *f)
{
	size_t n = boxed_at(BOXED_MAX);
	f->copies_block = calloc(n + 1, sizeof(struct slot_copy));
	if (!f->copies_block)
		return -ENOMEM;
	uintptr_t at = ((uintptr_t)f->copies_block + 63) & ~(uintptr_t)63;
	f->copies = (struct slot_copy *)at;
	f->bytes += (n + 1) * sizeof(struct slot_copy);
	return 0;
}

/* The root and the boxed nodes below it, all empty, with their slots.
 * On failure the caller frees what was made (free_map). */
static int make_boxed_levels(struct lpm_multibit *f)
{
	for (unsigned d = 0; d < f->boxed; d++) {
		f->slots[d] = calloc(boxed_at(d + 1), sizeof(*f->slots[d]));
		if (!f->slots[d])
			return -ENOMEM;
		f->bytes += boxed_at(d + 1) * sizeof(*f->slots[d]);
	}
	struct fnode *root = boxed_new(f->slots[0]);
	if (!root)
		return -ENOMEM;
	atomic_init(&f->root, root);
	for (unsigned d = 1; d < f->boxed; d++)
		for (size_t i = 0; i < boxed_at(d); i++) {
			struct fnode *n = boxed_new(&f->slots[d][i * FANOUT]);
			if (!n)
				return -ENOMEM;
			atomic_init(&f->slots[d - 1][i], n);
		}
	for (unsigned d = 0; d < f->boxed; d++)
		f->bytes += boxed_at(d) * farray_bytes(1, sizeof(struct fnode));
	return f->boxed == BOXED_MAX ? make_copies(f) : 0;
}

/* Everything below n, a node at depth d (or a leaf), and its arrays;
 * not n's own block. */
static void free_subtree(const struct lpm_multibit *f, const struct fnode *n,
			 unsigned d)
{
	if (is_leaf(n)) {
		free(n->leaf);
		return;
	}
	for (unsigned c = 0; c < FANOUT; c++) {
		const struct fnode *k = child_of(f, n, d, c);
		if (!k)
			continue;
		free_subtree(f, k, d + 1);
		if (d < f->boxed)
			free(farray_of(k)); /* its box */
	}
	for (unsigned i = 0; i < count_of(n->prefixes); i++)
		free(n->entries[i].e);
	if (d >= f->boxed)
		free(farray_of(n->kids));
	free(farray_of(n->entries));
}

/* The trie, its boxes and slots, and f itself; also a create's part
 * (boxes are made from the root down, each into a slot calloc left NULL,
 * so the walk from the root finds every one made). */
static void free_map(struct lpm_multibit *f)
{
	const struct fnode *root = load_root(f);
	if (root) {
		free_subtree(f, root, 0);
		free(farray_of(root));
	}
	for (unsigned d = 0; d < BOXED_MAX; d++)
		free(f->slots[d]);
	free(f->copies_block);
	fib4_destroy(&f->fib);
	value_table_destroy(&f->values);
	free(f->scratch);
	fib4_scratch_free(&f->build);
	free(f->work);
	free(f);
}

/* IPv4 keys with values of up to COMPILED_VALUE_MAX bytes get the
 * compiled table (a chunk of the value table is then at most 1 MiB). */
#define COMPILED_VALUE_MAX 256
/* Value ids made room for at create: max_entries up to this many (a map
 * may be created far larger than it is filled); more as they are taken. */
#define COMPILED_IDS_AT_CREATE (1u << 16)

static int make_compiled(struct lpm_multibit *f)
{
	f->compiled = f->data_size == 4 &&
		      f->map.attr.value_size <= COMPILED_VALUE_MAX;
	if (!f->compiled)
		return 0;
	uint32_t room = f->map.attr.max_entries < COMPILED_IDS_AT_CREATE
				? f->map.attr.max_entries
				: COMPILED_IDS_AT_CREATE;
	if (fib4_init(&f->fib) ||
	    value_table_init(&f->values, f->map.attr.value_size, room))
		return -ENOMEM;
	return 0;
}

static int multibit_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_lpm_attr(attr);
	if (err)
		return err;
	struct lpm_multibit *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->map.attr = *attr;
	f->data_size = attr->key_size - MAP_LPM_PREFIX_BYTES;
	f->max_prefixlen = 8 * f->data_size;
	f->value_offset = (f->data_size + 7) & ~7u;
	f->boxed = boxed_levels(attr->max_entries);
	map_spin_init(&f->lock);
	f->work = map_work_slots_new(attr->ncpus);
	if (!f->work || make_boxed_levels(f) || make_compiled(f)) {
		free_map(f);
		return -ENOMEM;
	}
	*out = &f->map;
	return 0;
}

static void multibit_destroy(struct map *m)
{
	struct lpm_multibit *f = multibit_of(m);
	if (f->pending)
		map_rcu_call(&f->pending->rcu, free_retired);
	map_rcu_barrier(); /* replaced arrays and entries still queued */
	free_map(f);
}

static void multibit_work(const struct map *m, int cpu, struct map_work *w)
{
	const struct lpm_multibit *f = (const struct lpm_multibit *)m;
	map_work_sum(f->work, m->attr.ncpus, cpu, w);
}

static size_t multibit_memory(const struct map *m)
{
	const struct lpm_multibit *f = (const struct lpm_multibit *)m;
	size_t compiled = f->compiled ? fib4_bytes(&f->fib) + f->values.bytes : 0;
	return sizeof(*f) + f->bytes + compiled;
}

const struct map_ops lpm_trie_multibit_ops = {
	.name = "lpm_trie/multibit",
	.description = "maplab's own: a multibit trie of stride 6 with "
		       "bitmap-compressed nodes under two boxed levels (three "
		       "from 2^18 entries), RCU readers, writers copying the "
		       "path below them; IPv4 lookups from a compiled table "
		       "(18 bits direct, leaf-pushed nodes)",
	.type = MAP_TYPE_LPM_TRIE,
	.create = multibit_create,
	.destroy = multibit_destroy,
	.lookup = multibit_lookup,
	.lookup_batch = multibit_lookup_batch,
	.lookup_copy = multibit_lookup_copy,
	.update = multibit_update,
	.delete = multibit_delete,
	.get_next_key = multibit_get_next_key,
	.memory = multibit_memory,
	.work = multibit_work,
	.dump_state = multibit_dump_state,
};
