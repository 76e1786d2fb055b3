/* SPDX-License-Identifier: MIT */
/*
 * fib4.c: building fib4's blocks (fib4.h says what they are).  A block is
 * built in a growing buffer, every place in it an offset (the buffer
 * moves as it grows), then copied into one allocation: the block's
 * nodes and answers lie together, and one free releases them.
 */
#include "maps/lpm_trie/core/fib4.h"

#include "maps/base/area.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const struct fib4_node fib4_done = { .vector = 0, .leafvec = 1 };

#define FANOUT (1u << FIB4_STRIDE)

int fib4_init(struct fib4 *t)
{
	size_t bytes = FIB4_DIRECT_SIZE * sizeof(*t->direct);
	t->direct = map_area_alloc(bytes, 64);
	if (!t->direct)
		return -ENOMEM;
	for (uint32_t i = 0; i < FIB4_DIRECT_SIZE; i++)
		atomic_init(&t->direct[i], fib4_answer_word(FIB4_NONE));
	return 0;
}

void fib4_destroy(struct fib4 *t)
{
	if (!t->direct)
		return;
	for (uint32_t i = 0; i < FIB4_DIRECT_SIZE; i++)
		free(fib4_block_of(fib4_word(t, i)));
	free(t->direct);
	t->direct = NULL;
}

size_t fib4_bytes(const struct fib4 *t)
{
	size_t bytes = FIB4_DIRECT_SIZE * sizeof(*t->direct);
	for (uint32_t i = 0; i < FIB4_DIRECT_SIZE; i++) {
		const struct fib4_block *b = fib4_block_of(fib4_word(t, i));
		bytes += b ? b->bytes : 0;
	}
	return bytes;
}

/* The block being built: items so far (len bytes), every place an
 * offset, in the caller's scratch buffer (kept from build to build: a
 * compile runs on every update). */
struct builder {
	struct fib4_scratch *s;
	size_t len;
	bool failed;
};

/* Room for bytes more (8-aligned): its offset.  On failure the builder
 * is marked and the offset is of a scratch place never written. */
static size_t reserve(struct builder *b, size_t bytes)
{
	size_t at = (b->len + 7) & ~(size_t)7;
	if (at + bytes > b->s->cap) {
		size_t cap = b->s->cap ? 2 * b->s->cap : 256;
		while (cap < at + bytes)
			cap *= 2;
		unsigned char *buf = realloc(b->s->buf, cap);
		if (!buf) {
			b->failed = true;
			return 0;
		}
		b->s->buf = buf;
		b->s->cap = cap;
	}
	b->len = at + bytes;
	return at;
}

/* The 6 bits of addr from bit off on (bits past 32 read as 0). */
static unsigned slot_at(uint32_t addr, unsigned off)
{
	return fib4_slot((uint64_t)addr << 32 << off);
}

static int by_address(const void *a, const void *b)
{
	const struct fib4_prefix *p = a, *q = b;
	if (p->addr != q->addr)
		return p->addr < q->addr ? -1 : 1;
	return (p->len > q->len) - (p->len < q->len);
}

/* Each slot's answer in a node at bit off: outer, then every prefix that
 * ends in the node over the slots it covers, a longer one winning over a
 * shorter (one pass, in any order; selects, not branches, which followed
 * the prefixes). */
static void paint(uint32_t slot[FANOUT], unsigned off,
		  const struct fib4_prefix *ps, size_t n, uint32_t outer)
{
	uint8_t len_at[FANOUT];
	for (unsigned c = 0; c < FANOUT; c++) {
		slot[c] = outer;
		len_at[c] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (ps[i].len > off + FIB4_STRIDE)
			continue;
		unsigned first = slot_at(ps[i].addr, off);
		unsigned span = 1u << (off + FIB4_STRIDE - ps[i].len);
		for (unsigned k = first; k < first + span; k++) {
			bool longer = ps[i].len > len_at[k];
			slot[k] = longer ? ps[i].id : slot[k];
			len_at[k] = longer ? (uint8_t)ps[i].len : len_at[k];
		}
	}
}

/* A lone record at offset `at`: prefix p alone below a slot whose
 * answer is around. */
static void put_lone(struct builder *b, size_t at, const struct fib4_prefix *p,
		     uint32_t around)
{
	struct fib4_node lone = {
		.vector = (uint64_t)p->addr << 32 | p->len,
		.around_id = { around, p->id },
		.kids = 0,
		.leaves = FIB4_LONE,
	};
	memcpy(b->s->buf + at, &lone, sizeof(lone));
}

/*
 * The node at offset `at` for a range of addresses whose first off bits
 * are fixed: ps[0..n), the prefixes longer than off bits inside it (put
 * in address order here if the node has children); outer, the answer
 * where none of them covers.
 */
static void build_node(struct builder *b, size_t at, unsigned off,
		       struct fib4_prefix *ps, size_t n, uint32_t outer)
{
	uint32_t slot[FANOUT], runs[FANOUT + 1];
	paint(slot, off, ps, n, outer);
	uint64_t vector = 0, leafvec = 0;
	for (size_t i = 0; i < n; i++)
		if (ps[i].len > off + FIB4_STRIDE)
			vector |= 1ull << slot_at(ps[i].addr, off);
	/* a run starts where the answer differs from the last slot without
	 * a child: a lookup counts the runs up to its slot.  Without
	 * branches: they follow the prefixes, and mispredicted they were
	 * most of a compile's time. */
	unsigned n_runs = 0, first = 1;
	uint32_t last = 0;
	for (unsigned c = 0; c < FANOUT; c++) {
		unsigned start = (unsigned)(~vector >> c & 1) &
				 ((slot[c] != last) | first);
		runs[n_runs] = slot[c];
		n_runs += start;
		leafvec |= (uint64_t)start << c;
		last = start ? slot[c] : last;
		first &= !start;
	}
	unsigned n_kids = (unsigned)__builtin_popcountll(vector);
	size_t kids = reserve(b, n_kids * sizeof(struct fib4_node));
	size_t leaves = reserve(b, n_runs * sizeof(uint32_t));
	if (b->failed)
		return;
	memcpy(b->s->buf + leaves, runs, n_runs * sizeof(uint32_t));
	struct fib4_node node = { .vector = vector, .leafvec = leafvec,
				  .kids = (uint32_t)kids,
				  .leaves = (uint32_t)leaves };
	memcpy(b->s->buf + at, &node, sizeof(node));
	if (!n_kids)
		return;
	/* in address order, each child's prefixes lie together; those that
	 * end in this node come first at their slot's start */
	qsort(ps, n, sizeof(*ps), by_address);
	size_t i = 0;
	for (unsigned k = 0; k < n_kids; k++) {
		unsigned c = (unsigned)__builtin_ctzll(vector);
		vector &= vector - 1;
		while (slot_at(ps[i].addr, off) != c ||
		       ps[i].len <= off + FIB4_STRIDE)
			i++;
		size_t j = i;
		while (j < n && slot_at(ps[j].addr, off) == c)
			j++;
		if (j - i == 1)
			put_lone(b, kids + k * sizeof(struct fib4_node), &ps[i],
				 slot[c]);
		else
			build_node(b, kids + k * sizeof(struct fib4_node),
				   off + FIB4_STRIDE, ps + i, j - i, slot[c]);
		if (b->failed)
			return;
		i = j;
	}
}

struct fib4_block *fib4_build(struct fib4_scratch *scratch, uint32_t index,
			      struct fib4_prefix *ps, size_t n, uint32_t outer)
{
	(void)index; /* every prefix lies in it: the caller's contract */
	struct builder b = { .s = scratch };
	size_t top = reserve(&b, sizeof(struct fib4_node));
	if (!b.failed)
		build_node(&b, top, FIB4_DIRECT_BITS, ps, n, outer);
	struct fib4_block *block = NULL;
	if (!b.failed) {
		size_t bytes = offsetof(struct fib4_block, items) + b.len;
		bytes = (bytes + 63) & ~(size_t)63;
		block = aligned_alloc(64, bytes);
		if (block) {
			block->bytes = (uint32_t)bytes;
			memcpy(block->items, scratch->buf, b.len);
		}
	}
	return block;
}

uint64_t fib4_compile(struct fib4_scratch *scratch, uint32_t index,
		      struct fib4_prefix *ps, size_t n, uint32_t outer)
{
	if (!n)
		return fib4_answer_word(outer);
	if (n == 1 && fib4_fits_lone_word(ps, outer))
		return fib4_lone_word(ps, outer);
	struct fib4_block *b = fib4_build(scratch, index, ps, n, outer);
	return b ? fib4_block_word(b) : FIB4_NO_MEMORY;
}

void fib4_scratch_free(struct fib4_scratch *s)
{
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
}
