/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/lctrie: a level-compressed trie after the kernel's IPv4 routing
 * table (net/ipv4/fib_trie.c; Nilsson and Karlsson, "IP-address lookup
 * using LC-tries", IEEE JSAC 17(6), 1999), holding BPF LPM-trie entries
 * under the kernel's constraints: what level compression would buy a
 * BPF_MAP_TYPE_LPM_TRIE (docs/lpm_trie.md, "lpm_trie/lctrie").
 *
 * Keys.  The data (1 to 16 bytes) is read as one 128-bit number, its first
 * byte on top: an IPv4 address fills bits 96..127, an IPv6 address all
 * 128, and every line below serves both.  Bit positions count from the
 * least significant bit, as fib_trie's `pos` does; a prefix of length L
 * is its address masked to the top L bits, and leaves the bottom
 * 128 - L bits out: its suffix length (fib_trie's slen).
 *
 * The trie.  An internal node ("tnode") at position pos with `bits` bits
 * has 2^bits children; child i holds the keys whose bits [pos, pos+bits)
 * read i.  Its key holds the bits all of them share above pos + bits
 * (path compression: a tnode's bits need not follow its parent's at once)
 * and zeros below.  A leaf is one masked address; the prefixes that mask
 * to it (10.0.0.0/8 and 10.0.0.0/16 both mask to 10.0.0.0) form a chain,
 * longest first, and the leaf IS the chain's first element: a child
 * pointer leads straight to a prefix, its value beside it.
 *
 *              tnode 10.0.0.0/6  pos 24 bits 2       (IPv4 numbering)
 *           [00] /     [01] |       [10] \      [11] NULL
 *   leaf 0.0.0.0/0     leaf 4.0.0.0/6   tnode 10.0.0.0/15 pos 15 bits 2
 *                                        /   ...
 *                        leaf 10.0.0.0/24 -> 10.0.0.0/16 -> 10.0.0.0/8
 *
 * (the dumps print positions from the address's last bit, pos - min_pos
 * here, as fib_trie numbers an IPv4 key.)
 *
 * Invariants (under the writer lock, and in every version readers see):
 *   - a tnode's children lie below it: child.pos + child.bits <= pos, and
 *     their keys share the tnode's bits above pos + bits;
 *   - slen of a leaf (its chain's first element) is the longest suffix of
 *     its chain; slen of a tnode is at least pos and at least every
 *     child's.  A stale slen may be too large (lookups then look further
 *     than needed), never too small: an insert raises it along the path
 *     before it publishes, a delete lowers it after it unpublishes;
 *   - empty_children and full_children count a tnode's NULL children and
 *     its "full" ones (tnodes right below it, with no skipped bit): the
 *     figures fib_trie's resize decides by; writer only;
 *   - a tnode, once published, keeps its key, pos and bits; inflate and
 *     halve build a new one and publish it whole in the parent's slot;
 *   - n_entries counts prefixes and never exceeds max_entries.
 *
 * Lookup (longest_match), with no lock and no parent pointer: descend by
 * the address's bits, keeping on the stack each tnode (and the child
 * index taken) whose slen says a prefix below may leave some of its index
 * bits out (slen > pos: fib_trie's rule for recording pn and cindex).  A
 * leaf whose chain does not cover the address, a NULL child, or a tnode
 * whose skipped bits differ from the address sends it back: to the deepest
 * recorded index with a bit set, which loses its lowest set bit, and down
 * from that child by child index 0 only (a prefix that leaves out the bit
 * just cleared leaves out every bit below it); a tnode is skipped there
 * when its slen is shorter than the bits that prefix must leave out, or
 * its key differs from the address at or above its own lowest set bit
 * (fib_trie's prefix_mismatch).  The first covering prefix met is the
 * longest.  A match is also no longer than the key's own prefix length.
 *
 * Resizing after each change, as fib_trie's resize does, with its figures
 * (inflate_threshold 50, halve_threshold 25, and 30 and 15 at the root;
 * inflate counts full children twice and needs pos above the key's last
 * bit; halve needs bits > 1; a tnode of fewer than 2 children collapses;
 * at most 10 inflates or halves per node per call).  A tnode has at most
 * MAX_NODE_BITS bits: its block must fit one kmalloc, the largest object
 * the kernel can allocate without sleeping.
 *
 * Deviations from fib_trie, and why:
 *   - BPF semantics: an entry is one exact prefix with a value (no
 *     aliases, tos or priorities); -ENOSPC at max_entries (a replace still
 *     goes in), BPF_NOEXIST and BPF_EXIST, trailing bits stored as given;
 *   - no parent pointers: a lookup backtracks from a stack of at most
 *     129 (tnode, index) pairs, the writer walks down with a path; nodes
 *     move between parents in inflate and halve without any write to them,
 *     so children are shared, unchanged, by the old node and the new one;
 *   - the leaf is the first prefix of its chain (fib_trie's leaf holds a
 *     list of aliases): one block fewer on a lookup's way;
 *   - allocation: the kernel's BPF map updates run with a spin lock held
 *     and may not sleep.  An update allocates what it needs (one prefix
 *     element, one binary tnode for a split) before it takes the lock and
 *     frees what it did not use.  Inflate and halve, which run under the
 *     lock after the change, allocate there with a call that does not
 *     sleep (the kernel's lpm_trie.c allocates its intermediate node under
 *     its lock with bpf_mem_alloc); where that fails, the node stays as it
 *     is, which is still a correct trie.  fib_trie runs under RTNL, may
 *     sleep, and uses vmalloc for big nodes: we cap node size instead.
 *
 * get_next_key: leaves in address order (child index order), each leaf's
 * prefixes longest first; that is, by the masked address, then by length,
 * longer first.  A key not in the trie, or a prefix length past the
 * data's bits, starts from the first.
 *
 * Locks: one spin lock for writers (map_work_lock: lock_ns counted).
 * Readers take none: every pointer (child slots, a chain's next) is
 * published with a release store after the block it names is complete;
 * slen is an atomic byte a writer may change under readers.  A block
 * leaves the trie before it is freed, after a grace period; a value
 * pointer a lookup returned names its element until the reader's RCU
 * section ends: a replace publishes a new element and retires the old one.
 *
 * Costs.  A lookup reads a tnode's key line and one child slot per level,
 * then the leaf: about 3 or 4 blocks at a million prefixes, where the
 * binary trie reads one per bit that tells them apart.  An update walks
 * the same path under the lock; inflate and halve copy a node's slots
 * (up to 2^MAX_NODE_BITS) now and then.
 *
 * Work (map_ops.work, per cpu slot): blocks visited by each op (tnodes and
 * leaves), the lock taken by each write and its hold time, blocks
 * allocated (elements and tnodes, before and under the lock).
 */
#include "maps/base/attr.h"
#include "maps/base/cpu.h"
#include "maps/base/lock.h"
#include "maps/lpm_trie/core/lpm_key.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"
#include "maps/base/work.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 bits128;

#define KEY_BITS 128
#define DATA_MAX 16 /* bytes: an IPv6 address; KEY_BITS of them */
/* tnodes on one path: each takes one bit at least */
#define MAX_DEPTH (KEY_BITS + 1)

/* fib_trie's figures (net/ipv4/fib_trie.c: halve_threshold,
 * inflate_threshold, their _root forms, MAX_WORK). */
#define INFLATE_THRESHOLD 50
#define HALVE_THRESHOLD 25
#define INFLATE_THRESHOLD_ROOT 30
#define HALVE_THRESHOLD_ROOT 15
#define MAX_RESIZE_WORK 10

/*
 * The most bits a tnode may have: its block (a 48-byte header and 8 bytes
 * a child) must fit one kmalloc (KMALLOC_MAX_SIZE, 4 MiB, with
 * bpf_mem_alloc's 8-byte link), the largest object the kernel allocates
 * without sleeping: 2^18 children are 2 MiB, 2^19 would be 4 MiB and the
 * header more.  fib_trie takes any size, from vmalloc, which sleeps.  An
 * inflate to 2^18 also copies 2 MiB of slots under the lock, once.
 */
#define MAX_NODE_BITS 18

/*
 * A tnode or a leaf (a stored prefix: the first of its chain is the
 * trie's leaf).  40 bytes of header, then the tnode's children or the
 * leaf's value and key bytes.
 */
struct lct_node {
	struct rcu_head rcu; /* first: map_rcu_free_block frees the block */
	bits128 key;         /* tnode: bits above pos + bits; leaf: the
				masked address */
	uint8_t pos;         /* tnode: its lowest index bit; leaf: 0 */
	uint8_t bits;        /* tnode: 1..MAX_NODE_BITS; 0: a leaf */
	_Atomic uint8_t slen; /* longest suffix below (leaf: in its chain) */
	uint8_t unused;
	union {
		uint32_t prefixlen;      /* leaf */
		uint32_t empty_children; /* tnode, writer only */
	};
	union {
		_Atomic(struct lct_node *) next; /* leaf: next prefix, shorter */
		uint32_t full_children;          /* tnode, writer only */
	};
	/* tnode: 1 << bits children; leaf: the value (value_size, to 8
	 * bytes), then the key's data bytes as the update gave them */
	_Atomic(struct lct_node *) child[];
};

_Static_assert(offsetof(struct lct_node, child) == 48,
	       "the header is 48 bytes: the value starts a 16-aligned block");

struct lpm_lctrie {
	struct map map;
	_Atomic(struct lct_node *) root;
	struct map_spinlock lock;
	uint32_t data_size;
	uint32_t max_prefixlen;
	uint8_t min_pos;      /* the key's last bit: KEY_BITS - 8 * data_size */
	size_t value_space;   /* value_size, rounded up to 8 */
	size_t leaf_size;     /* header, value, key data */
	bool leaf_fits;       /* one element fits a kmalloc (else -ENOMEM) */
	size_t n_entries;     /* prefixes, under lock */
	_Atomic size_t bytes; /* blocks in the trie; written under lock */
	struct map_work_slot *work; /* [ncpus] */
};

static struct lpm_lctrie *lctrie_of(struct map *m)
{
	return (struct lpm_lctrie *)m;
}

static struct map_work_slot *work_of(struct lpm_lctrie *t)
{
	return &t->work[map_this_cpu()];
}

/* --- bits ------------------------------------------------------------------ */

/* The positions from p up (none for p = 128: no shift by 128). */
static inline bits128 bits_from(unsigned p)
{
	return p >= KEY_BITS ? 0 : ~(bits128)0 << p;
}

/* The top len bits: a prefix of len bits keeps them. */
static inline bits128 prefix_mask(uint32_t len)
{
	return bits_from(KEY_BITS - len);
}

/* The position of x's highest set bit; x != 0. */
static inline unsigned highest_bit(bits128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);
	return hi ? 127u - (unsigned)__builtin_clzll(hi)
		  : 63u - (unsigned)__builtin_clzll((uint64_t)x);
}

static inline uint64_t big_endian_64(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* The data bytes as one number, the first byte on top; one load and a
 * byte swap for an IPv4 address, two for IPv6. */
static inline bits128 load_address(const uint8_t *data, uint32_t size)
{
	if (size == 4) {
		uint32_t w;
		memcpy(&w, data, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w = __builtin_bswap32(w);
#endif
		return (bits128)w << 96;
	}
	if (size == DATA_MAX)
		return (bits128)big_endian_64(data) << 64 |
		       big_endian_64(data + 8);
	uint8_t full[DATA_MAX] = { 0 };
	memcpy(full, data, size);
	return (bits128)big_endian_64(full) << 64 | big_endian_64(full + 8);
}

/* The data bytes of an address (for the dumps). */
static void store_address(bits128 a, uint8_t *data, uint32_t size)
{
	for (uint32_t i = 0; i < size; i++)
		data[i] = (uint8_t)(a >> (KEY_BITS - 8 - 8 * i));
}

/* --- nodes ------------------------------------------------------------------- */

static inline bool is_leaf(const struct lct_node *n)
{
	return n->bits == 0;
}

static inline size_t child_count(const struct lct_node *n)
{
	return (size_t)1 << n->bits;
}

static inline uint8_t slen_of(struct lct_node *n)
{
	return atomic_load_explicit(&n->slen, memory_order_relaxed);
}

static inline void set_slen(struct lct_node *n, unsigned slen)
{
	atomic_store_explicit(&n->slen, (uint8_t)slen, memory_order_relaxed);
}

static inline struct lct_node *load_child(struct lct_node *n, size_t i)
{
	return atomic_load_explicit(&n->child[i], memory_order_acquire);
}

static inline struct lct_node *load_next(struct lct_node *l)
{
	return atomic_load_explicit(&l->next, memory_order_acquire);
}

static inline struct lct_node *load_root(struct lpm_lctrie *t)
{
	return atomic_load_explicit(&t->root, memory_order_acquire);
}

static inline void *leaf_value(struct lct_node *l)
{
	return (unsigned char *)l + offsetof(struct lct_node, child);
}

static inline uint8_t *leaf_data(const struct lpm_lctrie *t, struct lct_node *l)
{
	return (uint8_t *)leaf_value(l) + t->value_space;
}

static inline unsigned suffix_of(uint32_t prefixlen)
{
	return KEY_BITS - prefixlen;
}

static size_t tnode_size(unsigned bits)
{
	return offsetof(struct lct_node, child) +
	       (sizeof(struct lct_node *) << bits);
}

/* Blocks in the trie: changed under the lock only, read by memory(). */
static void account(struct lpm_lctrie *t, size_t add, size_t sub)
{
	size_t now = atomic_load_explicit(&t->bytes, memory_order_relaxed);
	atomic_store_explicit(&t->bytes, now + add - sub, memory_order_relaxed);
}

/* --- reading ----------------------------------------------------------------- */

/*
 * The longest prefix of l's chain that covers addr and is no longer than
 * len, or NULL.  The chain goes longest first: the first that covers is
 * the longest.
 */
static inline struct lct_node *match_in_chain(struct lct_node *l, bits128 addr,
					      uint32_t len)
{
	bits128 diff = addr ^ l->key; /* every element has the leaf's key */
	for (; l; l = load_next(l))
		if (l->prefixlen <= len && !(diff & prefix_mask(l->prefixlen)))
			return l;
	return NULL;
}

/*
 * Below n, the prefixes that leave out at least the bits under `need`
 * (suffix >= need): every one of them has zeros in all the index bits
 * below, so only child 0 at each tnode leads to them, and all of them
 * share one address, so one leaf.  n was counted by the caller.
 */
static struct lct_node *zero_path_match(struct lct_node *n, bits128 addr,
					uint32_t len, unsigned need,
					uint64_t *visited)
{
	for (;;) {
		if (slen_of(n) < need)
			return NULL; /* no prefix below leaves that much out */
		if (is_leaf(n))
			return match_in_chain(n, addr, len);
		/* fib_trie's prefix_mismatch: a prefix below has n's lowest
		 * set key bit inside it, and so every bit above it */
		if ((addr ^ n->key) & (n->key | -n->key))
			return NULL;
		if (!(n = load_child(n, 0)))
			return NULL;
		++*visited;
	}
}

/* A tnode on the way down with the index taken there: where a lookup
 * comes back to. */
struct lct_trail {
	struct lct_node *node;
	unsigned long idx;
};

/* The longest stored prefix that covers addr, no longer than len. */
static struct lct_node *longest_match(struct lpm_lctrie *t, bits128 addr,
				      uint32_t len, uint64_t *visited)
{
	struct lct_trail trail[MAX_DEPTH];
	unsigned depth = 0;
	struct lct_node *n = load_root(t), *found;

	while (n) {
		++*visited;
		if (is_leaf(n)) {
			if ((found = match_in_chain(n, addr, len)))
				return found;
			break;
		}
		bits128 diff = (addr ^ n->key) >> n->pos;
		if (diff >> n->bits) {
			/* the skipped bits differ: only prefixes that leave
			 * out the highest differing bit can cover addr */
			unsigned need = highest_bit(addr ^ n->key) + 1;
			if ((found = zero_path_match(n, addr, len, need, visited)))
				return found;
			break;
		}
		unsigned long idx = (unsigned long)diff;
		if (idx && slen_of(n) > n->pos)
			trail[depth++] = (struct lct_trail){ n, idx };
		n = load_child(n, idx);
	}
	/* Back up: the deepest recorded index loses its lowest set bit; a
	 * prefix found there leaves that bit out, so it is shorter than any
	 * below, and longer than any found by clearing a higher bit. */
	while (depth) {
		struct lct_trail *top = &trail[depth - 1];
		unsigned need = top->node->pos +
				(unsigned)__builtin_ctzl(top->idx) + 1;
		if (slen_of(top->node) < need) {
			depth--; /* nothing below leaves this much out */
			continue;
		}
		top->idx &= top->idx - 1;
		struct lct_node *c = load_child(top->node, top->idx);
		if (!top->idx)
			depth--;
		if (!c)
			continue;
		++*visited;
		if ((found = zero_path_match(c, addr, len, need, visited)))
			return found;
	}
	return NULL;
}

static void *lctrie_lookup(struct map *m, const void *key)
{
	struct lpm_lctrie *t = lctrie_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	uint64_t visited = 0;

	if (len > t->max_prefixlen)
		return NULL;
	bits128 addr = load_address(lpm_data_of(key), t->data_size);
	struct lct_node *found = longest_match(t, addr, len, &visited);
	map_work_count(&work_of(t)->nodes_scanned, visited);
	return found ? leaf_value(found) : NULL;
}

static int lctrie_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, lctrie_lookup, key, value);
}

/* --- the writer's walk --------------------------------------------------------- */

/* The tnodes from the root down to a key's slot, with the index taken at
 * each.  The slot of node[k] is node[k-1]->child[idx[k-1]] (the root's
 * for k = 0). */
struct lct_path {
	struct lct_node *node[MAX_DEPTH];
	unsigned long idx[MAX_DEPTH];
	unsigned depth;
};

static struct lct_node *parent_at(const struct lct_path *p, unsigned depth)
{
	return depth ? p->node[depth - 1] : NULL;
}

static unsigned long index_at(const struct lct_path *p, unsigned depth)
{
	return depth ? p->idx[depth - 1] : 0;
}

static struct lct_node *child_locked(struct lct_node *n, size_t i)
{
	return atomic_load_explicit(&n->child[i], memory_order_relaxed);
}

static struct lct_node *next_locked(struct lct_node *l)
{
	return atomic_load_explicit(&l->next, memory_order_relaxed);
}

/*
 * Down towards key: every tnode key lies under goes on the path.  Returns
 * what sits in the slot below the last: NULL, a leaf, or a tnode whose
 * skipped bits key does not share.  Lock held.
 */
static struct lct_node *descend(struct lpm_lctrie *t, bits128 key,
				struct lct_path *p)
{
	struct lct_node *n = atomic_load_explicit(&t->root, memory_order_relaxed);
	uint64_t visited = 0;

	p->depth = 0;
	while (n) {
		visited++;
		if (is_leaf(n))
			break;
		bits128 diff = (key ^ n->key) >> n->pos;
		if (diff >> n->bits)
			break;
		p->node[p->depth] = n;
		p->idx[p->depth++] = (unsigned long)diff;
		n = child_locked(n, (size_t)diff);
	}
	map_work_count(&work_of(t)->nodes_scanned, visited);
	return n;
}

/* Is c a tnode right below n, no bit skipped between them? */
static bool is_full_child(const struct lct_node *n, const struct lct_node *c)
{
	return c && !is_leaf(c) && c->pos + c->bits == n->pos;
}

/*
 * Child i of tnode n becomes c: the counts follow, n's slen rises to c's,
 * and c is published (release: c is complete before a reader sees it).
 */
static void put_child(struct lct_node *n, size_t i, struct lct_node *c)
{
	struct lct_node *old = child_locked(n, i);
	if (!old && c)
		n->empty_children--;
	else if (old && !c)
		n->empty_children++;
	n->full_children = n->full_children + is_full_child(n, c) -
			   is_full_child(n, old);
	if (c && slen_of(c) > slen_of(n))
		set_slen(n, slen_of(c));
	atomic_store_explicit(&n->child[i], c, memory_order_release);
}

/* The slot below parent at index i (the root for no parent) gets c. */
static void put_in_slot(struct lpm_lctrie *t, struct lct_node *parent,
			unsigned long i, struct lct_node *c)
{
	if (parent)
		put_child(parent, i, c);
	else
		atomic_store_explicit(&t->root, c, memory_order_release);
}

/* A prefix of suffix slen goes in below the path: every tnode on it
 * leaves out that much at least, before a reader can meet the prefix. */
static void raise_path(const struct lct_path *p, unsigned slen)
{
	for (unsigned k = p->depth; k-- > 0;) {
		if (slen_of(p->node[k]) >= slen)
			break;
		set_slen(p->node[k], slen);
	}
}

/*
 * n's slen from its children (fib_trie's update_suffix): child i > 0
 * holds only keys with bit pos + ctz(i) set, so none of its prefixes
 * leaves out more than pos + ctz(i) bits; with `best` found, only
 * multiples of 2^(best - pos + 1) can beat it.
 */
static unsigned recompute_slen(struct lct_node *n)
{
	unsigned best = n->pos;
	size_t size = child_count(n);
	struct lct_node *c = child_locked(n, 0);

	if (c && slen_of(c) > best)
		best = slen_of(c);
	for (size_t i = 0;;) {
		unsigned shift = best - n->pos + 1;
		if (shift >= n->bits)
			break; /* only child 0 could beat it */
		size_t stride = (size_t)1 << shift;
		i = (i / stride + 1) * stride;
		if (i >= size)
			break;
		if ((c = child_locked(n, i)) && slen_of(c) > best)
			best = slen_of(c);
	}
	set_slen(n, best);
	return best;
}

/* A suffix of length `was` left the slot below the path (fib_trie's
 * node_pull_suffix): each tnode whose slen it was is counted again, up
 * to one that keeps its slen. */
static void lower_path(const struct lct_path *p, unsigned was)
{
	for (unsigned k = p->depth; k-- > 0;) {
		unsigned cur = slen_of(p->node[k]);
		if (cur > was)
			break; /* it came from another child */
		if (recompute_slen(p->node[k]) == cur)
			break;
		was = cur;
	}
}

/* --- allocation -------------------------------------------------------------- */

/* An empty tnode (never seen by a reader yet); key keeps its bits above
 * pos + bits. */
static void tnode_init(struct lct_node *n, bits128 key, unsigned pos,
		       unsigned bits)
{
	n->key = key & bits_from(pos + bits);
	n->pos = (uint8_t)pos;
	n->bits = (uint8_t)bits;
	atomic_init(&n->slen, (uint8_t)pos);
	n->unused = 0;
	n->empty_children = 1u << bits;
	n->full_children = 0;
	for (size_t i = 0; i < child_count(n); i++)
		atomic_init(&n->child[i], NULL);
}

static struct lct_node *tnode_new(struct lpm_lctrie *t, bits128 key,
				  unsigned pos, unsigned bits)
{
	struct lct_node *n = malloc(tnode_size(bits));
	if (!n)
		return NULL;
	map_work_count(&work_of(t)->allocations, 1);
	tnode_init(n, key, pos, bits);
	return n;
}

/* A stored prefix, key bytes as given (trailing bits too); alone in its
 * chain so far. */
static struct lct_node *leaf_new(struct lpm_lctrie *t, const void *key,
				 const void *value)
{
	/* the kernel's allocator fails for an element over its largest
	 * kmalloc: every update, as lpm_trie/linux does */
	struct lct_node *l = t->leaf_fits ? malloc(t->leaf_size) : NULL;
	if (!l)
		return NULL;
	map_work_count(&work_of(t)->allocations, 1);
	uint32_t len = lpm_prefixlen_of(key);
	const uint8_t *data = lpm_data_of(key);
	l->key = load_address(data, t->data_size) & prefix_mask(len);
	l->pos = 0;
	l->bits = 0;
	atomic_init(&l->slen, (uint8_t)suffix_of(len));
	l->unused = 0;
	l->prefixlen = len;
	atomic_init(&l->next, NULL);
	memcpy(leaf_value(l), value, t->map.attr.value_size);
	memcpy(leaf_data(t, l), data, t->data_size);
	return l;
}

/* A tnode leaves the trie (already unpublished): freed after a grace
 * period.  Lock held. */
static void retire_tnode(struct lpm_lctrie *t, struct lct_node *n)
{
	account(t, 0, tnode_size(n->bits));
	map_rcu_free_block(&n->rcu);
}

/* --- resize: fib_trie's inflate, halve and collapse ------------------------ */

static bool should_inflate(const struct lpm_lctrie *t, const struct lct_node *n,
			   bool root)
{
	unsigned long size = child_count(n);
	unsigned long used = size - n->empty_children + n->full_children;
	unsigned long threshold =
		size * (root ? INFLATE_THRESHOLD_ROOT : INFLATE_THRESHOLD);
	/* full children count twice: inflating doubles them too */
	return used > 1 && n->pos > t->min_pos && n->bits < MAX_NODE_BITS &&
	       50 * used >= threshold;
}

static bool should_halve(const struct lct_node *n, bool root)
{
	unsigned long size = child_count(n);
	unsigned long used = size - n->empty_children;
	unsigned long threshold =
		size * (root ? HALVE_THRESHOLD_ROOT : HALVE_THRESHOLD);
	return used > 1 && n->bits > 1 && 100 * used < threshold;
}

static bool should_collapse(const struct lct_node *n)
{
	return child_count(n) - n->empty_children < 2;
}

/* The index of a node with key `key` below tnode n. */
static size_t index_in(const struct lct_node *n, bits128 key)
{
	return (size_t)((key >> n->pos) & (child_count(n) - 1));
}

/* Undo an inflate that ran out of memory after `upto` of old's children:
 * the halves it made so far, then big.  Nothing was published. */
static void inflate_undo(struct lct_node *old, struct lct_node *big,
			 size_t upto)
{
	for (size_t j = 0; j < upto; j++) {
		struct lct_node *c = child_locked(old, j);
		if (is_full_child(old, c) && c->bits > 1) {
			free(child_locked(big, 2 * j));
			free(child_locked(big, 2 * j + 1));
		}
	}
	free(big);
}

/*
 * n with one bit more, one position lower: a new tnode whose children are
 * n's (shared, unchanged), except n's full children, whose slots are
 * split between two new tnodes of one bit fewer (or, with one bit, give
 * their two children straight).  NULL without memory: n stays.
 */
static struct lct_node *inflate(struct lpm_lctrie *t, struct lct_node *n)
{
	struct lct_node *big = tnode_new(t, n->key, n->pos - 1u, n->bits + 1u);
	size_t made = 0;
	if (!big)
		return NULL;
	bits128 upper = (bits128)1 << (n->pos - 1u);
	for (size_t j = 0; j < child_count(n); j++) {
		struct lct_node *c = child_locked(n, j);
		if (!c)
			continue;
		if (!is_full_child(n, c)) {
			put_child(big, index_in(big, c->key), c);
			continue;
		}
		if (c->bits == 1) {
			put_child(big, 2 * j, child_locked(c, 0));
			put_child(big, 2 * j + 1, child_locked(c, 1));
			continue;
		}
		struct lct_node *low = tnode_new(t, c->key, c->pos, c->bits - 1u);
		struct lct_node *high =
			tnode_new(t, c->key | upper, c->pos, c->bits - 1u);
		if (!low || !high) {
			free(low);
			free(high);
			inflate_undo(n, big, j);
			return NULL;
		}
		size_t half = child_count(low);
		for (size_t k = 0; k < half; k++) {
			put_child(low, k, child_locked(c, k));
			put_child(high, k, child_locked(c, half + k));
		}
		put_child(big, 2 * j, low);
		put_child(big, 2 * j + 1, high);
		made += 2 * tnode_size(low->bits);
	}
	account(t, tnode_size(big->bits) + made, 0);
	return big;
}

/* After an inflate is published: n, and the full children it split. */
static void retire_inflated(struct lpm_lctrie *t, struct lct_node *n)
{
	for (size_t j = 0; j < child_count(n); j++) {
		struct lct_node *c = child_locked(n, j);
		if (is_full_child(n, c))
			retire_tnode(t, c);
	}
	retire_tnode(t, n);
}

/* Undo a halve that ran out of memory after `upto` pairs. */
static void halve_undo(struct lct_node *old, struct lct_node *small,
		       size_t upto)
{
	for (size_t j = 0; j < upto; j++)
		if (child_locked(old, 2 * j) && child_locked(old, 2 * j + 1))
			free(child_locked(small, j));
	free(small);
}

/*
 * n with one bit fewer, one position higher: children 2j and 2j+1 share
 * slot j, under a new one-bit tnode where both are there.  NULL without
 * memory: n stays.
 */
static struct lct_node *halve(struct lpm_lctrie *t, struct lct_node *n)
{
	struct lct_node *small = tnode_new(t, n->key, n->pos + 1u, n->bits - 1u);
	size_t made = 0;
	if (!small)
		return NULL;
	for (size_t j = 0; j < child_count(small); j++) {
		struct lct_node *c0 = child_locked(n, 2 * j);
		struct lct_node *c1 = child_locked(n, 2 * j + 1);
		if (!c0 || !c1) {
			if (c0 || c1)
				put_child(small, j, c0 ? c0 : c1);
			continue;
		}
		struct lct_node *pair = tnode_new(t, c0->key, n->pos, 1);
		if (!pair) {
			halve_undo(n, small, j);
			return NULL;
		}
		put_child(pair, 0, c0);
		put_child(pair, 1, c1);
		put_child(small, j, pair);
		made += tnode_size(1);
	}
	account(t, tnode_size(small->bits) + made, 0);
	return small;
}

static void resize(struct lpm_lctrie *t, struct lct_node *parent,
		   unsigned long i);

/* A new tnode took old's place: old goes, and the new one's full
 * children are resized in turn (fib_trie's replace). */
static void settle_children(struct lpm_lctrie *t, struct lct_node *n)
{
	for (size_t j = child_count(n); j-- > 0;)
		if (is_full_child(n, child_locked(n, j)))
			resize(t, n, j);
}

/* The one child of n (or none) takes its place. */
static void collapse(struct lpm_lctrie *t, struct lct_node *parent,
		     unsigned long i, struct lct_node *n)
{
	struct lct_node *only = NULL;
	for (size_t j = child_count(n); !only && j-- > 0;)
		only = child_locked(n, j);
	put_in_slot(t, parent, i, only);
	retire_tnode(t, n);
}

/*
 * fib_trie's resize of the tnode in parent's slot i (the root's for no
 * parent): inflate while it should (at most MAX_RESIZE_WORK times), or
 * else halve while it should, then collapse it if fewer than two children
 * are left.  Lock held; allocates without sleeping.
 */
static void resize(struct lpm_lctrie *t, struct lct_node *parent,
		   unsigned long i)
{
	struct lct_node *n = parent ? child_locked(parent, i)
				    : atomic_load_explicit(&t->root,
							   memory_order_relaxed);
	bool root = !parent;
	int work = MAX_RESIZE_WORK;

	if (!n || is_leaf(n))
		return;
	while (work && should_inflate(t, n, root)) {
		struct lct_node *big = inflate(t, n);
		if (!big)
			break; /* left as it is: still a correct trie */
		put_in_slot(t, parent, i, big);
		retire_inflated(t, n);
		settle_children(t, big);
		n = big;
		work--;
	}
	if (work != MAX_RESIZE_WORK)
		return;
	while (work && should_halve(n, root)) {
		struct lct_node *small = halve(t, n);
		if (!small)
			break;
		put_in_slot(t, parent, i, small);
		retire_tnode(t, n);
		settle_children(t, small);
		n = small;
		work--;
	}
	if (should_collapse(n))
		collapse(t, parent, i, n);
}

/* Resize every tnode of the path above depth `from`, the deepest first
 * (fib_trie's trie_rebalance). */
static void rebalance(struct lpm_lctrie *t, const struct lct_path *p,
		      unsigned from)
{
	for (unsigned k = from; k-- > 0;)
		resize(t, parent_at(p, k), index_at(p, k));
}

/* --- update -------------------------------------------------------------------- */

/* A new prefix may go in: the flags allow an insert and there is room.
 * Lock held; counts it. */
static int check_add(struct lpm_lctrie *t, uint64_t flags)
{
	if (flags == MAP_EXIST)
		return -ENOENT;
	if (t->n_entries == t->map.attr.max_entries)
		return -ENOSPC;
	t->n_entries++;
	account(t, t->leaf_size, 0);
	return 0;
}

/* fresh's address has its leaf, head, in the slot below the path: fresh
 * replaces its prefix there (*old: the element it replaces) or joins the
 * chain, in length order. */
static int update_in_chain(struct lpm_lctrie *t, const struct lct_path *p,
			   struct lct_node *head, struct lct_node *fresh,
			   uint64_t flags, struct lct_node **old)
{
	struct lct_node *parent = parent_at(p, p->depth), *prev = NULL, *e;
	unsigned long i = index_at(p, p->depth);
	int err;

	for (e = head; e && e->prefixlen > fresh->prefixlen; e = next_locked(e))
		prev = e;
	if (e && e->prefixlen == fresh->prefixlen) {
		if (flags == MAP_NOEXIST)
			return -EEXIST;
		atomic_init(&fresh->next, next_locked(e));
		if (!prev) {
			atomic_init(&fresh->slen, slen_of(e));
			put_in_slot(t, parent, i, fresh);
		} else {
			atomic_store_explicit(&prev->next, fresh,
					      memory_order_release);
		}
		*old = e;
		return 0;
	}
	if ((err = check_add(t, flags)))
		return err;
	atomic_init(&fresh->next, e);
	if (!prev) { /* the longest: the new head, the chain's slen kept */
		atomic_init(&fresh->slen, slen_of(head));
		put_in_slot(t, parent, i, fresh);
		return 0;
	}
	if (!e) { /* the shortest: the chain leaves more out */
		set_slen(head, slen_of(fresh));
		raise_path(p, slen_of(fresh));
	}
	atomic_store_explicit(&prev->next, fresh, memory_order_release);
	return 0;
}

/* The update cases, lock held.  split: a binary tnode made beforehand,
 * *split_used when it went in; *old: a replaced element to retire. */
static int update_locked(struct lpm_lctrie *t, struct lct_node *fresh,
			 struct lct_node *split, uint64_t flags,
			 bool *split_used, struct lct_node **old)
{
	struct lct_path p;
	struct lct_node *n = descend(t, fresh->key, &p);
	struct lct_node *parent = parent_at(&p, p.depth);
	unsigned long i = index_at(&p, p.depth);
	int err;

	if (n && is_leaf(n) && n->key == fresh->key)
		return update_in_chain(t, &p, n, fresh, flags, old);
	if ((err = check_add(t, flags)))
		return err;
	raise_path(&p, slen_of(fresh));
	if (!n) { /* an empty slot */
		put_in_slot(t, parent, i, fresh);
		rebalance(t, &p, p.depth);
		return 0;
	}
	/* another address's leaf, or a tnode whose skipped bits differ:
	 * a one-bit tnode where the two part takes both */
	unsigned at = highest_bit(fresh->key ^ n->key);
	unsigned side = (unsigned)(fresh->key >> at) & 1;
	tnode_init(split, fresh->key, at, 1);
	put_child(split, side, fresh);
	put_child(split, !side, n);
	account(t, tnode_size(1), 0);
	*split_used = true;
	put_in_slot(t, parent, i, split);
	resize(t, parent, i);
	rebalance(t, &p, p.depth);
	return 0;
}

static int lctrie_update(struct map *m, const void *key, const void *value,
			 uint64_t flags)
{
	struct lpm_lctrie *t = lctrie_of(m);
	struct lct_node *old = NULL;
	bool split_used = false;

	if (map_update_flags_valid(flags) ||
	    lpm_prefixlen_of(key) > t->max_prefixlen)
		return -EINVAL;
	/* what the update may need, before the lock: no allocation that
	 * might sleep under it */
	struct lct_node *fresh = leaf_new(t, key, value);
	if (!fresh)
		return -ENOMEM;
	struct lct_node *split = malloc(tnode_size(1));
	if (!split) {
		free(fresh);
		return -ENOMEM;
	}
	map_work_count(&work_of(t)->allocations, 1);

	uint64_t taken = map_work_lock(&t->lock, work_of(t));
	int err = update_locked(t, fresh, split, flags, &split_used, &old);
	map_work_unlock(&t->lock, work_of(t), taken);

	if (err)
		free(fresh); /* never seen by a reader */
	if (!split_used)
		free(split);
	if (old)
		map_rcu_free_block(&old->rcu);
	return err;
}

/* --- delete -------------------------------------------------------------------- */

/* The delete cases, lock held.  *gone: the element that left. */
static int delete_locked(struct lpm_lctrie *t, bits128 key, uint32_t len,
			 struct lct_node **gone)
{
	struct lct_path p;
	struct lct_node *head = descend(t, key, &p), *prev = NULL, *e;
	struct lct_node *parent = parent_at(&p, p.depth);
	unsigned long i = index_at(&p, p.depth);

	if (!head || !is_leaf(head) || head->key != key)
		return -ENOENT;
	for (e = head; e && e->prefixlen > len; e = next_locked(e))
		prev = e;
	if (!e || e->prefixlen != len)
		return -ENOENT;
	t->n_entries--;
	account(t, 0, t->leaf_size);
	*gone = e;
	struct lct_node *after = next_locked(e);
	if (prev) {
		atomic_store_explicit(&prev->next, after, memory_order_release);
		if (!after) { /* the shortest went: less is left out */
			unsigned was = slen_of(head);
			set_slen(head, suffix_of(prev->prefixlen));
			lower_path(&p, was);
		}
		return 0;
	}
	if (after) { /* the next takes the head's place, and its slen */
		set_slen(after, slen_of(e));
		put_in_slot(t, parent, i, after);
		return 0;
	}
	put_in_slot(t, parent, i, NULL); /* the leaf goes */
	lower_path(&p, slen_of(e));
	rebalance(t, &p, p.depth);
	return 0;
}

static int lctrie_delete(struct map *m, const void *key)
{
	struct lpm_lctrie *t = lctrie_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	struct lct_node *gone = NULL;

	if (len > t->max_prefixlen)
		return -EINVAL;
	bits128 masked = load_address(lpm_data_of(key), t->data_size) &
			 prefix_mask(len);
	uint64_t taken = map_work_lock(&t->lock, work_of(t));
	int err = delete_locked(t, masked, len, &gone);
	map_work_unlock(&t->lock, work_of(t), taken);
	if (gone)
		map_rcu_free_block(&gone->rcu);
	return err;
}

/* --- get_next_key ---------------------------------------------------------------- */

/* The first leaf of n's subtree in address order, or NULL. */
static struct lct_node *first_leaf(struct lct_node *n)
{
	if (!n || is_leaf(n))
		return n;
	for (size_t j = 0; j < child_count(n); j++) {
		struct lct_node *f = first_leaf(load_child(n, j));
		if (f)
			return f;
	}
	return NULL;
}

/*
 * The element after (key, len) in address order, longest first within an
 * address: *next (NULL after the last).  -ENOENT when (key, len) is not
 * stored.
 */
static int element_after(struct lct_node *root, bits128 key, uint32_t len,
			 struct lct_node **next)
{
	struct lct_trail path[MAX_DEPTH];
	unsigned depth = 0;
	struct lct_node *n = root, *e;

	while (n && !is_leaf(n)) {
		bits128 diff = (key ^ n->key) >> n->pos;
		if (diff >> n->bits)
			return -ENOENT;
		path[depth++] = (struct lct_trail){ n, (unsigned long)diff };
		n = load_child(n, (size_t)diff);
	}
	if (!n || n->key != key)
		return -ENOENT;
	for (e = n; e && e->prefixlen > len; e = load_next(e))
		;
	if (!e || e->prefixlen != len)
		return -ENOENT;
	if ((*next = load_next(e)))
		return 0;
	while (depth--) {
		struct lct_node *up = path[depth].node;
		for (size_t j = path[depth].idx + 1; j < child_count(up); j++)
			if ((*next = first_leaf(load_child(up, j))))
				return 0;
	}
	return 0;
}

static int lctrie_get_next_key(struct map *m, const void *key, void *next)
{
	struct lpm_lctrie *t = lctrie_of(m);
	struct lct_node *found = NULL;
	int err = 0;

	map_rcu_read_lock();
	struct lct_node *root = load_root(t);
	uint32_t len = key ? lpm_prefixlen_of(key) : 0;
	if (key && len <= t->max_prefixlen) {
		bits128 masked = load_address(lpm_data_of(key), t->data_size) &
				 prefix_mask(len);
		if (element_after(root, masked, len, &found))
			found = first_leaf(root); /* not stored: the first */
	} else {
		found = first_leaf(root);
	}
	if (found) {
		memcpy(next, &found->prefixlen, MAP_LPM_PREFIX_BYTES);
		memcpy((uint8_t *)next + MAP_LPM_PREFIX_BYTES,
		       leaf_data(t, found), t->data_size);
	} else {
		err = -ENOENT;
	}
	map_rcu_read_unlock();
	return err;
}

/* --- dump_state: the tnodes with pos and bits, the leaves' prefixes -------------- */

struct dump_counts {
	size_t tnodes, leaves;
};

static void count_nodes(struct lct_node *n, struct dump_counts *c)
{
	if (!n)
		return;
	if (is_leaf(n)) {
		c->leaves++;
		return;
	}
	c->tnodes++;
	for (size_t j = 0; j < child_count(n); j++)
		count_nodes(load_child(n, j), c);
}

/* A tnode as "10.0.0.0/6 pos 24 bits 2": the bits its keys share, then
 * its index bits, positions counted from the address's last bit. */
static void print_tnode(FILE *f, const struct lpm_lctrie *t,
			const struct lct_node *n, const char *newline)
{
	uint8_t data[DATA_MAX];
	store_address(n->key, data, t->data_size);
	lpm_print_prefix(f, data, t->data_size,
			 KEY_BITS - (unsigned)n->pos - n->bits);
	fprintf(f, "%spos %u bits %u", newline, (unsigned)(n->pos - t->min_pos),
		(unsigned)n->bits);
}

/* A leaf's chain, longest first, each prefix with its bytes as given. */
static void print_chain(FILE *f, const struct lpm_lctrie *t,
			struct lct_node *l, const char *between)
{
	for (bool first = true; l; l = load_next(l), first = false) {
		if (!first)
			fputs(between, f);
		lpm_print_prefix(f, leaf_data(t, l), t->data_size, l->prefixlen);
	}
}

/* The index bits that lead to child i of n, most significant first. */
static void print_index(FILE *f, const struct lct_node *n, size_t i)
{
	for (unsigned b = n->bits; b-- > 0;)
		fputc('0' + (int)((i >> b) & 1), f);
}

static void dump_text(FILE *f, const struct lpm_lctrie *t, struct lct_node *n,
		      unsigned depth, const struct lct_node *parent, size_t i)
{
	fprintf(f, "%*s", 2 * (int)depth, "");
	if (parent) {
		fputc('[', f);
		print_index(f, parent, i);
		fputs("] ", f);
	}
	if (is_leaf(n)) {
		fputs("leaf ", f);
		print_chain(f, t, n, " ");
		fputc('\n', f);
		return;
	}
	fputs("tnode ", f);
	print_tnode(f, t, n, " ");
	fprintf(f, " slen %u\n", (unsigned)(slen_of(n) - t->min_pos));
	for (size_t j = 0; j < child_count(n); j++) {
		struct lct_node *c = load_child(n, j);
		if (c)
			dump_text(f, t, c, depth + 1, n, j);
	}
}

/* Dot: a box per tnode, a rounded box per leaf listing its chain, edges
 * labelled with the index bits; numbered in pre-order, so the same trie
 * draws the same text.  Returns n's number. */
static unsigned dump_dot(FILE *f, const struct lpm_lctrie *t,
			 struct lct_node *n, unsigned *next_id)
{
	unsigned id = (*next_id)++;
	fprintf(f, "  n%u [label=\"", id);
	if (is_leaf(n)) {
		print_chain(f, t, n, "\\n");
		fputs("\", style=rounded];\n", f);
		return id;
	}
	print_tnode(f, t, n, "\\n");
	fputs("\"];\n", f);
	for (size_t j = 0; j < child_count(n); j++) {
		struct lct_node *c = load_child(n, j);
		if (!c)
			continue;
		unsigned child = dump_dot(f, t, c, next_id);
		fprintf(f, "  n%u -> n%u [label=\"", id, child);
		print_index(f, n, j);
		fputs("\"];\n", f);
	}
	return id;
}

static int lctrie_dump_state(struct map *m, FILE *f, enum map_dump_format fmt)
{
	struct lpm_lctrie *t = lctrie_of(m);
	struct lct_node *root = load_root(t);
	struct dump_counts c = { 0, 0 };
	count_nodes(root, &c);
	if (fmt == MAP_DUMP_DOT) {
		fprintf(f, "digraph maplab {\n  label=\"lpm_trie/lctrie: %zu "
			"prefixes, %zu tnodes, %zu leaves\";\n  labelloc=t;\n"
			"  node [shape=box, fontname=\"monospace\"];\n",
			t->n_entries, c.tnodes, c.leaves);
		unsigned next_id = 0;
		if (root)
			dump_dot(f, t, root, &next_id);
		fputs("}\n", f);
		return 0;
	}
	fprintf(f, "lpm_trie/lctrie: %zu prefixes, %zu tnodes, %zu leaves; "
		"pos counts from the address's last bit, each child after "
		"its index bits, a leaf's prefixes longest first\n",
		t->n_entries, c.tnodes, c.leaves);
	if (root)
		dump_text(f, t, root, 0, NULL, 0);
	return 0;
}

/* --- create, destroy, memory ------------------------------------------------------ */

static int lctrie_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_lpm_attr(attr);
	if (err)
		return err;
	if (attr->key_size > MAP_LPM_PREFIX_BYTES + DATA_MAX) {
		map_refuse("lpm_trie/lctrie takes key_size %u at most (%u "
			   "data bytes, an IPv6 address), not %u: keys are "
			   "held as 128-bit numbers",
			   MAP_LPM_PREFIX_BYTES + DATA_MAX, DATA_MAX,
			   attr->key_size);
		return -EINVAL;
	}
	struct lpm_lctrie *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->map.attr = *attr;
	t->data_size = attr->key_size - MAP_LPM_PREFIX_BYTES;
	t->max_prefixlen = 8 * t->data_size;
	t->min_pos = (uint8_t)(KEY_BITS - t->max_prefixlen);
	t->value_space = (attr->value_size + 7u) & ~(size_t)7;
	t->leaf_size = offsetof(struct lct_node, child) + t->value_space +
		       t->data_size;
	t->leaf_fits = map_bpf_mem_alloc_fits(t->leaf_size);
	atomic_init(&t->root, NULL);
	atomic_init(&t->bytes, 0);
	map_spin_init(&t->lock);
	t->work = map_work_slots_new(attr->ncpus);
	if (!t->work) {
		free(t);
		return -ENOMEM;
	}
	*out = &t->map;
	return 0;
}

/* How many children ahead the free asks for: enough misses in flight to
 * cover one's latency, few enough for the core's miss buffers. */
#define FREE_AHEAD 8

/*
 * The free reads every block once, to find what lies below it, and at a
 * million prefixes each read is a miss.  A tnode's children are all known
 * before the first is read, so the walk asks for each FREE_AHEAD children
 * before it gets there: the misses overlap instead of coming one after
 * another (lpm_trie/linux's binary nodes name two children, and those the
 * walk cannot see far ahead of).
 */
static void free_subtree(struct lct_node *n)
{
	if (!n)
		return;
	if (is_leaf(n)) {
		while (n) {
			struct lct_node *next = next_locked(n);
			free(n);
			n = next;
		}
		return;
	}
	size_t count = child_count(n);
	for (size_t j = 0; j < count && j < FREE_AHEAD; j++)
		__builtin_prefetch(child_locked(n, j));
	for (size_t j = 0; j < count; j++) {
		if (j + FREE_AHEAD < count)
			__builtin_prefetch(child_locked(n, j + FREE_AHEAD));
		free_subtree(child_locked(n, j));
	}
	free(n);
}

static void lctrie_destroy(struct map *m)
{
	struct lpm_lctrie *t = lctrie_of(m);
	map_rcu_barrier(); /* replaced and deleted blocks still queued */
	free_subtree(atomic_load_explicit(&t->root, memory_order_relaxed));
	free(t->work);
	free(t);
}

static void lctrie_work(const struct map *m, int cpu, struct map_work *w)
{
	const struct lpm_lctrie *t = (const struct lpm_lctrie *)m;
	map_work_sum(t->work, m->attr.ncpus, cpu, w);
}

static size_t lctrie_memory(const struct map *m)
{
	struct lpm_lctrie *t = (struct lpm_lctrie *)m;
	return sizeof(*t) + atomic_load_explicit(&t->bytes, memory_order_relaxed);
}

const struct map_ops lpm_trie_lctrie_ops = {
	.name = "lpm_trie/lctrie",
	.description = "level-compressed trie after the kernel's fib_trie: "
		       "nodes that inflate and halve, RCU readers that "
		       "backtrack, one writer lock; key_size up to 20 (IPv6)",
	.type = MAP_TYPE_LPM_TRIE,
	.create = lctrie_create,
	.destroy = lctrie_destroy,
	.lookup = lctrie_lookup,
	.lookup_copy = lctrie_lookup_copy,
	.update = lctrie_update,
	.delete = lctrie_delete,
	.get_next_key = lctrie_get_next_key,
	.memory = lctrie_memory,
	.work = lctrie_work,
	.dump_state = lctrie_dump_state,
};
