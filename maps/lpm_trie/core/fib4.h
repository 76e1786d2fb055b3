/* SPDX-License-Identifier: MIT */
/*
 * fib4.h: an IPv4 forwarding table compiled from a trie's prefixes, for
 * the lookups of full 32-bit addresses: direct pointing on the first 18
 * bits, then leaf-pushed multibit nodes of stride 6 whose children and
 * answers are packed and indexed by popcount (the design of Poptrie, Asai
 * and Ohara, SIGCOMM 2015; docs/lpm_trie.md, "A compiled IPv4 table").
 * The answers are ids (1 and up; FIB4_NONE: no prefix covers the
 * address) that the owner maps to its values.
 *
 *   direct[a >> 14]  an answer (id << 1 | 1); a lone word, for a /18
 *                    that holds one longer prefix: the prefix, its id
 *                    and the answer around it (below); or a block: the
 *                    compiled table of one /18, for /18s that hold more
 *   a block's node   vector   bit c: slot c (the next 6 bits) has a child
 *                    leafvec  bit c: slot c starts a run of equal answers
 *                             among the slots without a child
 *                    kids, leaves: where the packed arrays start
 *
 * A child that holds one prefix alone is a lone record, not a chain of
 * nodes down to its length: its prefix, id and the answer pushed down to
 * it, checked with one xor (a /32 alone in its /24 took three nodes).
 *
 * Leaf pushing: every slot without a child holds the answer for all of
 * its addresses (the longest prefix covering it, pushed down from above
 * if none ends in the node), so a lookup stops at the first slot without
 * a child and never backtracks.  A /24 or shorter prefix's address takes
 * the direct word and one node; every block's top node and its answers
 * share the block's first cache line where they fit.
 *
 * Concurrency: the owner builds a block whole, then publishes it in its
 * direct word with one release store (fib4_publish); readers load the
 * word with acquire and never see a block change.  The owner frees a
 * replaced block after an RCU grace period (its rcu_head is first).  One
 * writer at a time: the owner's lock.
 */
#ifndef MAPLAB_LPM_FIB4_H
#define MAPLAB_LPM_FIB4_H

#include "maps/base/rcu.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIB4_DIRECT_BITS 18
#define FIB4_DIRECT_SIZE (1u << FIB4_DIRECT_BITS)
#define FIB4_STRIDE 6
#define FIB4_NONE 0u

struct fib4 {
	_Atomic uint64_t *direct; /* [FIB4_DIRECT_SIZE] */
};

/* A prefix to compile: its address in host order, bits past len zero. */
struct fib4_prefix {
	uint32_t addr;
	uint32_t len;
	uint32_t id;
};

struct fib4_node {
	uint64_t vector;
	union {
		uint64_t leafvec;
		uint32_t around_id[2]; /* a lone record's: [0] the answer
					  around its prefix, [1] its id */
	};
	uint32_t kids, leaves; /* byte offsets into the block's items */
};

/* A lone record: leaves == FIB4_LONE; vector = address << 32 | length,
 * and around_id. */
#define FIB4_LONE UINT32_MAX

static inline bool fib4_is_lone(const struct fib4_node *n)
{
	return n->leaves == FIB4_LONE;
}

/* Where a lone record's answer for addr lies: its id if its prefix
 * covers addr, else the answer around it. */
static inline const uint32_t *fib4_lone_answer(const struct fib4_node *n,
					       uint32_t addr)
{
	uint32_t len = (uint32_t)n->vector;
	uint32_t prefix = (uint32_t)(n->vector >> 32);
	bool covers = !((uint64_t)(addr ^ prefix) >> (32 - len));
	return &n->around_id[covers];
}

struct fib4_block {
	struct rcu_head rcu; /* first: freed after a grace period */
	uint32_t bytes;      /* the whole allocation */
	uint32_t unused;
	_Alignas(8) unsigned char items[]; /* the top node first */
};

/* Every address answered FIB4_NONE; 0 or -ENOMEM. */
int fib4_init(struct fib4 *t);

/* Frees the direct words and every block still published (no reader
 * left). */
void fib4_destroy(struct fib4 *t);

/* The bytes of the direct words and of every block published now (a
 * walk of the direct words: for reports, not for updates). */
size_t fib4_bytes(const struct fib4 *t);

/* The /18 an address falls in: its direct word's index. */
static inline uint32_t fib4_index(uint32_t addr)
{
	return addr >> (32 - FIB4_DIRECT_BITS);
}

/* A direct word that answers id for its whole /18. */
static inline uint64_t fib4_answer_word(uint32_t id)
{
	return (uint64_t)id << 1 | 1;
}

/*
 * A lone word: a /18 that holds one prefix longer than 18 bits answers
 * from its direct word alone, with no block to read.  Most /18s of a
 * table of 64K prefixes hold one if any, and their blocks (a line each,
 * 4 MiB together) kept the table out of this host's cache, where the
 * direct words and the values fit (docs/lpm_trie.md, "A compiled IPv4
 * table").  Where the two ids do not fit 22 bits, a block as before.
 *
 *   bits 0-1    0b10 (an answer word ends in 1, a block's address in 00)
 *   bits 2-15   the prefix's last 14 bits of address (those past the /18)
 *   bits 16-19  its length less 19 (19 to 32)
 *   bits 20-41  its id
 *   bits 42-63  the answer around it (the /18's outer answer)
 */
#define FIB4_LONE_ID_BITS 22
#define FIB4_LONE_ID_MAX ((1u << FIB4_LONE_ID_BITS) - 1)
#define FIB4_LONE_TAG 2u
/* the address bits past the /18, and the shortest prefix a lone word holds */
#define FIB4_LONE_TAIL_MASK ((1u << (32 - FIB4_DIRECT_BITS)) - 1)
#define FIB4_LONE_LEN_MIN (FIB4_DIRECT_BITS + 1)
_Static_assert(32 - FIB4_DIRECT_BITS == 14 && 32 - FIB4_LONE_LEN_MIN < 16,
	       "the lone word's fields: 14 bits of tail, a 4-bit length");

/* Does prefix p (longer than 18 bits), with outer around it, fit a lone
 * word? */
static inline bool fib4_fits_lone_word(const struct fib4_prefix *p,
				       uint32_t outer)
{
	return p->id <= FIB4_LONE_ID_MAX && outer <= FIB4_LONE_ID_MAX;
}

static inline uint64_t fib4_lone_word(const struct fib4_prefix *p,
				      uint32_t outer)
{
	return FIB4_LONE_TAG | (uint64_t)(p->addr & FIB4_LONE_TAIL_MASK) << 2 |
	       (uint64_t)(p->len - FIB4_LONE_LEN_MIN) << 16 |
	       (uint64_t)p->id << 20 |
	       (uint64_t)outer << 42;
}

/* The answer of a word that is not a block's (an answer or a lone
 * word) for addr in its /18.  Selects, not branches: the batch computes
 * it for every word and keeps it where the word was no block. */
static inline uint32_t fib4_word_answer(uint64_t w, uint32_t addr)
{
	uint32_t len = FIB4_LONE_LEN_MIN + (uint32_t)(w >> 16 & 15);
	bool covers = !(((addr ^ (uint32_t)(w >> 2)) & FIB4_LONE_TAIL_MASK) >>
			((32 - len) & 31));
	uint32_t lone = (uint32_t)(w >> (covers ? 20 : 42)) & FIB4_LONE_ID_MAX;
	return w & 1 ? (uint32_t)(w >> 1) : lone;
}

static inline uint64_t fib4_block_word(const struct fib4_block *b)
{
	return (uint64_t)(uintptr_t)b;
}

/* The block a direct word points to, or NULL for an answer or a lone
 * word. */
static inline struct fib4_block *fib4_block_of(uint64_t word)
{
	return word & 3 ? NULL : (struct fib4_block *)(uintptr_t)word;
}

/* Where blocks are built, kept from one build to the next. */
struct fib4_scratch {
	unsigned char *buf;
	size_t cap;
};

/*
 * The compiled table of one /18 (index i): the n prefixes longer than 18
 * bits inside it, in any order (ps is reordered), each address not under
 * any of them answered outer (the id of the longest prefix of 18 bits or
 * fewer covering the /18, or FIB4_NONE).  NULL without memory.
 */
struct fib4_block *fib4_build(struct fib4_scratch *scratch, uint32_t i,
			      struct fib4_prefix *ps, size_t n, uint32_t outer);

/* The direct word for /18 i (fib4_build's arguments): an answer where n
 * is 0, a lone word where one prefix fits one, else a built block's
 * word; FIB4_NO_MEMORY where the block could not be built. */
#define FIB4_NO_MEMORY 0u
uint64_t fib4_compile(struct fib4_scratch *scratch, uint32_t i,
		      struct fib4_prefix *ps, size_t n, uint32_t outer);
void fib4_scratch_free(struct fib4_scratch *s);

/* Writer: direct word i becomes word, with release; the word it
 * replaced (whose block, if any, the caller retires). */
static inline uint64_t fib4_publish(struct fib4 *t, uint32_t i, uint64_t word)
{
	uint64_t old = atomic_load_explicit(&t->direct[i], memory_order_relaxed);
	atomic_store_explicit(&t->direct[i], word, memory_order_release);
	return old;
}

/* Writer (or a reader): direct word i as published. */
static inline uint64_t fib4_word(const struct fib4 *t, uint32_t i)
{
	return atomic_load_explicit(&t->direct[i], memory_order_acquire);
}

/* The slot of the next 6 bits of x (the address, shifted so they
 * lead). */
static inline unsigned fib4_slot(uint64_t x)
{
	return (unsigned)(x >> (64 - FIB4_STRIDE));
}

/* The slots up to c, as a mask (c = 63: every bit; 2 << 63 wraps to 0). */
static inline uint64_t fib4_upto(unsigned c)
{
	return (2ull << c) - 1;
}

static inline const struct fib4_node *fib4_kid(const unsigned char *items,
					       const struct fib4_node *n,
					       uint64_t upto)
{
	return (const struct fib4_node *)(items + n->kids) +
	       (__builtin_popcountll(n->vector & upto) - 1);
}

static inline const uint32_t *fib4_leaf(const unsigned char *items,
					const struct fib4_node *n, uint64_t upto)
{
	return (const uint32_t *)(items + n->leaves) +
	       (__builtin_popcountll(n->leafvec & upto) - 1);
}

/* The answer for a full address: the id of the longest prefix covering
 * it, or FIB4_NONE.  Under the reader's RCU section. */
static inline uint32_t fib4_lookup(const struct fib4 *t, uint32_t addr)
{
	uint64_t w = fib4_word(t, fib4_index(addr));
	const struct fib4_block *b = fib4_block_of(w);
	if (!b)
		return fib4_word_answer(w, addr);
	const struct fib4_node *n = (const struct fib4_node *)b->items;
	uint64_t x = (uint64_t)addr << (32 + FIB4_DIRECT_BITS);
	for (;; x <<= FIB4_STRIDE) {
		if (fib4_is_lone(n))
			return *fib4_lone_answer(n, addr);
		unsigned c = fib4_slot(x);
		if (!(n->vector >> c & 1))
			return *fib4_leaf(b->items, n, fib4_upto(c));
		n = fib4_kid(b->items, n, fib4_upto(c));
	}
}

/* The node every address of a batch stands at once it has its answer:
 * no children, one run of answers. */
extern const struct fib4_node fib4_done;

/*
 * fib4_lookup of n addresses (n <= FIB4_BATCH_MAX), interleaved: each
 * level of every address is asked for before any is read, so a level's
 * misses overlap.  A fixed number of stages with selects, not a walk per
 * address: the branches of a walk (answer or block, child or leaf)
 * follow the addresses, which are random, and each mispredicted one
 * cost about as much as a miss.  Inline, as fib4_lookup, so that it is
 * built with its caller's POPCNT.
 */
#define FIB4_BATCH_MAX 64
#define FIB4_LEVELS ((32 - FIB4_DIRECT_BITS + FIB4_STRIDE - 1) / FIB4_STRIDE)

static inline __attribute__((always_inline)) void
fib4_lookup_batch(const struct fib4 *t, const uint32_t *addr, unsigned n,
		  uint32_t *ids)
{
	const unsigned char *items[FIB4_BATCH_MAX];
	const struct fib4_node *at[FIB4_BATCH_MAX];
	const uint32_t *answer[FIB4_BATCH_MAX];
	uint64_t x[FIB4_BATCH_MAX];
	/* the addresses whose word is a block, the only ones the levels
	 * walk: where most words answer alone, a level's work for every
	 * address was most of a batch's time */
	uint8_t walk[FIB4_BATCH_MAX];
	unsigned m = 0;
	for (unsigned i = 0; i < n; i++)
		__builtin_prefetch(&t->direct[fib4_index(addr[i])]);
	for (unsigned i = 0; i < n; i++) {
		uint64_t w = fib4_word(t, fib4_index(addr[i]));
		const struct fib4_block *b = fib4_block_of(w);
		ids[i] = fib4_word_answer(w, addr[i]); /* if w is no block */
		answer[i] = &ids[i];
		items[i] = b ? b->items : (const unsigned char *)&fib4_done;
		at[i] = b ? (const struct fib4_node *)b->items : &fib4_done;
		x[i] = (uint64_t)addr[i] << (32 + FIB4_DIRECT_BITS);
		__builtin_prefetch(at[i]);
		walk[m] = (uint8_t)i;
		m += b != NULL;
	}
	for (unsigned level = 0; level < FIB4_LEVELS && m; level++) {
		uint64_t deeper = 0;
		for (unsigned k = 0; k < m; k++) {
			unsigned i = walk[k];
			const struct fib4_node *v = at[i];
			unsigned c = fib4_slot(x[i]);
			uint64_t upto = fib4_upto(c);
			bool lone = fib4_is_lone(v);
			uint64_t child = lone ? 0 : v->vector >> c & 1;
			/* offsets, not pointers: only the one selected is
			 * inside its array */
			intptr_t kid = (intptr_t)v->kids +
				       (intptr_t)sizeof(*v) *
					       (__builtin_popcountll(v->vector & upto) - 1);
			intptr_t leaf = (intptr_t)v->leaves +
					4 * (intptr_t)(__builtin_popcountll(v->leafvec & upto) - 1);
			bool answers = v != &fib4_done && !child;
			const uint32_t *here =
				lone ? fib4_lone_answer(v, addr[i])
				     : (const uint32_t *)(items[i] + leaf);
			answer[i] = answers ? here : answer[i];
			at[i] = child ? (const struct fib4_node *)(items[i] + kid)
				      : &fib4_done;
			__builtin_prefetch(items[i] + (child ? kid : leaf));
			x[i] <<= FIB4_STRIDE;
			deeper |= child;
		}
		if (!deeper)
			break;
	}
	for (unsigned k = 0; k < m; k++)
		ids[walk[k]] = *answer[walk[k]];
}

#endif /* MAPLAB_LPM_FIB4_H */
