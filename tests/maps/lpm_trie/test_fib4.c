/* SPDX-License-Identifier: MIT */
/*
 * fib4, the compiled IPv4 table (maps/lpm_trie/core/fib4.h), against the
 * definition of a longest-prefix match: every answer, one address at a
 * time and in batches of 1 to 64, is the id of the longest of the listed
 * prefixes covering the address, found by scanning them all.  The
 * prefixes nest on purpose, around the table's levels (18, 24 and 30
 * bits), so that blocks get children and grandchildren, answers pushed
 * down three levels, and runs of equal answers broken by children.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maps/lpm_trie/core/fib4.h"

static uint64_t state;

static uint32_t next_random(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (uint32_t)(state >> 16);
}

static uint32_t masked(uint32_t addr, uint32_t len)
{
	return len ? addr & ~0u << (32 - len) : 0;
}

/* The definition: the id of the longest prefix covering addr, or none. */
static uint32_t reference(const struct fib4_prefix *ps, size_t n, uint32_t addr)
{
	uint32_t best = FIB4_NONE, best_len = 0;
	for (size_t i = 0; i < n; i++)
		if (masked(addr, ps[i].len) == ps[i].addr &&
		    (best == FIB4_NONE || ps[i].len > best_len)) {
			best = ps[i].id;
			best_len = ps[i].len;
		}
	return best;
}

static int by_length(const void *a, const void *b)
{
	const struct fib4_prefix *p = a, *q = b;
	return (p->len > q->len) - (p->len < q->len);
}

/*
 * A whole table from a list, as its owner would compile it: prefixes of
 * 18 bits or fewer painted into the direct words (shorter first), then a
 * block for each /18 that holds longer ones, its outer answer the word
 * painted there.  The blocks it built.
 */
static size_t compile_counting(struct fib4 *t, const struct fib4_prefix *list,
			       size_t n, size_t *lone)
{
	struct fib4_prefix *ps = malloc(n * sizeof(*ps) + 1);
	cr_assert(ps);
	memcpy(ps, list, n * sizeof(*ps));
	qsort(ps, n, sizeof(*ps), by_length);
	size_t i = 0, blocks = 0;
	struct fib4_scratch scratch = { 0 };
	for (; i < n && ps[i].len <= FIB4_DIRECT_BITS; i++) {
		uint32_t first = fib4_index(ps[i].addr);
		uint32_t span = 1u << (FIB4_DIRECT_BITS - ps[i].len);
		for (uint32_t k = 0; k < span; k++)
			fib4_publish(t, first + k, fib4_answer_word(ps[i].id));
	}
	/* the longer ones, grouped by /18 */
	for (size_t j = i; j < n; j++)
		for (size_t k = j + 1; k < n; k++)
			if (fib4_index(ps[k].addr) < fib4_index(ps[j].addr)) {
				struct fib4_prefix s = ps[j];
				ps[j] = ps[k];
				ps[k] = s;
			}
	while (i < n) {
		uint32_t index = fib4_index(ps[i].addr);
		size_t j = i;
		while (j < n && fib4_index(ps[j].addr) == index)
			j++;
		uint64_t word = fib4_word(t, index);
		cr_assert(word & 1, "an answer word before the /18's own");
		word = fib4_compile(&scratch, index, ps + i, j - i,
				    (uint32_t)(word >> 1));
		cr_assert_neq(word, FIB4_NO_MEMORY);
		fib4_publish(t, index, word);
		blocks += fib4_block_of(word) != NULL;
		*lone += !fib4_block_of(word);
		i = j;
	}
	free(ps);
	fib4_scratch_free(&scratch);
	return blocks;
}

static size_t compile(struct fib4 *t, const struct fib4_prefix *list, size_t n)
{
	size_t lone = 0;
	return compile_counting(t, list, n, &lone);
}

/* Every address of addr's /18 answered as the definition says, alone
 * and in batches of 64. */
static void check_whole_18(const struct fib4 *t, const struct fib4_prefix *ps,
			   size_t n, uint32_t addr)
{
	uint32_t base = addr & ~0x3fffu, batch[FIB4_BATCH_MAX], got[FIB4_BATCH_MAX];
	for (uint32_t a = base; a < base + (1u << 14); a += FIB4_BATCH_MAX) {
		for (unsigned i = 0; i < FIB4_BATCH_MAX; i++)
			batch[i] = a + i;
		fib4_lookup_batch(t, batch, FIB4_BATCH_MAX, got);
		for (unsigned i = 0; i < FIB4_BATCH_MAX; i++) {
			uint32_t want = reference(ps, n, a + i);
			cr_assert_eq(fib4_lookup(t, a + i), want, "%08x", a + i);
			cr_assert_eq(got[i], want, "%08x in a batch", a + i);
		}
	}
}

/* n distinct prefixes nested under a few bases, lengths 0 to 32 and
 * mostly around the levels. */
static size_t make_prefixes(struct fib4_prefix *ps, size_t n)
{
	static const uint32_t lens[] = { 0, 8, 12, 17, 18, 19, 20, 23, 24, 24, 25,
					 28, 29, 30, 30, 31, 32, 32 };
	uint32_t bases[6];
	for (unsigned b = 0; b < 6; b++)
		bases[b] = next_random();
	size_t have = 0;
	while (have < n) {
		uint32_t len = lens[next_random() % (sizeof(lens) / sizeof(lens[0]))];
		/* near a base: its first 16 bits, the rest random */
		uint32_t addr = (bases[next_random() % 6] & 0xffff0000u) |
				(next_random() & 0xffffu);
		if (next_random() % 8 == 0)
			addr = next_random(); /* now and then anywhere */
		addr = masked(addr, len);
		bool dup = false;
		for (size_t i = 0; i < have; i++)
			dup |= ps[i].addr == addr && ps[i].len == len;
		if (dup)
			continue;
		ps[have] = (struct fib4_prefix){ addr, len, (uint32_t)have + 1 };
		have++;
	}
	return have;
}

/* An address near the prefixes: one's, with random bits past a random
 * length (or anywhere). */
static uint32_t probe(const struct fib4_prefix *ps, size_t n)
{
	if (next_random() % 16 == 0)
		return next_random();
	const struct fib4_prefix *p = &ps[next_random() % n];
	uint32_t keep = next_random() % 33;
	uint32_t host = keep == 32 ? 0 : ~0u >> keep;
	return masked(p->addr, keep) | (next_random() & host) | p->addr;
}

static void check_table(size_t n_prefixes, uint64_t seed)
{
	state = seed;
	struct fib4_prefix *ps = malloc(n_prefixes * sizeof(*ps));
	cr_assert(ps);
	size_t n = make_prefixes(ps, n_prefixes);
	struct fib4 t;
	cr_assert_eq(fib4_init(&t), 0);
	size_t blocks = compile(&t, ps, n);
	cr_assert_gt(blocks, 0, "the prefixes made no block");
	uint32_t addr[FIB4_BATCH_MAX], got[FIB4_BATCH_MAX];
	for (unsigned round = 0; round < 400; round++) {
		unsigned k = 1 + round % FIB4_BATCH_MAX;
		for (unsigned i = 0; i < k; i++)
			addr[i] = probe(ps, n);
		fib4_lookup_batch(&t, addr, k, got);
		for (unsigned i = 0; i < k; i++) {
			uint32_t want = reference(ps, n, addr[i]);
			cr_assert_eq(fib4_lookup(&t, addr[i]), want,
				     "seed %llu: %08x alone: %u, want %u",
				     (unsigned long long)seed, addr[i],
				     fib4_lookup(&t, addr[i]), want);
			cr_assert_eq(got[i], want,
				     "seed %llu: %08x at %u of a batch of %u: %u, want %u",
				     (unsigned long long)seed, addr[i], i, k,
				     got[i], want);
		}
	}
	fib4_destroy(&t);
	free(ps);
}

Test(fib4, answers_as_the_longest_match)
{
	for (uint64_t seed = 1; seed <= 12; seed++)
		check_table(40 + 30 * seed, seed * 0x9e3779b97f4a7c15ull);
}

/* Every level used: a /18 with a /24 child, a /30 grandchild and a /32
 * below that, each address of the /18 answered as the definition says. */
Test(fib4, three_levels_every_address)
{
	const uint32_t base = 0x0a0b0000u; /* 10.11.0.0/18 */
	struct fib4_prefix ps[] = {
		{ 0x0a000000u, 8, 1 },
		{ base | 0x0100u, 24, 2 },
		{ base | 0x0104u, 30, 3 },
		{ base | 0x0105u, 32, 4 },
		{ base | 0x3e00u, 23, 5 },
		{ base | 0x3ffeu, 31, 6 },
	};
	size_t n = sizeof(ps) / sizeof(ps[0]);
	struct fib4 t;
	cr_assert_eq(fib4_init(&t), 0);
	cr_assert_eq(compile(&t, ps, n), 1);
	for (uint32_t a = base; a < base + (1u << 14); a++)
		cr_assert_eq(fib4_lookup(&t, a), reference(ps, n, a), "%08x", a);
	cr_assert_eq(fib4_lookup(&t, 0x0a0c0000u), 1, "outside the block: the /8");
	cr_assert_eq(fib4_lookup(&t, 0x0b000000u), FIB4_NONE, "no prefix");
	fib4_destroy(&t);
}

/* The block of p's /18 holding p alone, outer around it. */
static struct fib4_block *block_of_one(struct fib4_prefix p, uint32_t outer)
{
	struct fib4_scratch scratch = { 0 };
	struct fib4_block *b = fib4_build(&scratch, fib4_index(p.addr), &p, 1, outer);
	cr_assert(b);
	fib4_scratch_free(&scratch);
	return b;
}

/* A block whose prefixes all end in its top node keeps one answer per
 * run: a /24 alone in its /18 is three runs (outer, the /24, outer). */
Test(fib4, runs_of_equal_answers_share_a_leaf)
{
	struct fib4_prefix p = { 0xc0a80500u, 24, 7 }; /* 192.168.5.0/24 */
	struct fib4_block *b = block_of_one(p, 3);
	const struct fib4_node *top = (const struct fib4_node *)b->items;
	cr_assert_eq(top->vector, 0);
	cr_assert_eq(__builtin_popcountll(top->leafvec), 3);
	const uint32_t *leaves = (const uint32_t *)(b->items + top->leaves);
	cr_assert_eq(leaves[0], 3);
	cr_assert_eq(leaves[1], 7);
	cr_assert_eq(leaves[2], 3);
	cr_assert_leq(b->bytes, 64, "node and answers in one line: %u bytes",
		      b->bytes);
	free(b);
}

/* A /18 that holds one prefix longer than 18 bits is answered from its
 * direct word, no block: every length from 19 to 32, at the /18's first
 * and last addresses and inside, under an /8 and under nothing. */
Test(fib4, a_lone_prefix_is_its_direct_word)
{
	static const uint32_t tails[] = { 0x0000u, 0x3fffu, 0x2a55u };
	for (uint32_t len = 19; len <= 32; len++)
		for (unsigned t = 0; t < 3; t++)
			for (unsigned under = 0; under < 2; under++) {
				uint32_t addr = (0x0a0b0000u | tails[t]) &
						~0u << (32 - len);
				struct fib4_prefix ps[] = {
					{ addr, len, 3000000 + len },
					{ 0x0a000000u, 8, 7 },
				};
				size_t n = 1 + under, lone = 0;
				struct fib4 f;
				cr_assert_eq(fib4_init(&f), 0);
				cr_assert_eq(compile_counting(&f, ps, n, &lone), 0,
					     "/%u: a block", len);
				cr_assert_eq(lone, 1);
				check_whole_18(&f, ps, n, addr);
				fib4_destroy(&f);
			}
}

/* Ids a lone word cannot hold (22 bits) take a block, and answer the
 * same. */
Test(fib4, ids_past_a_lone_words_bits_take_a_block)
{
	const uint32_t big = FIB4_LONE_ID_MAX + 1;
	for (unsigned which = 0; which < 2; which++) {
		struct fib4_prefix ps[] = {
			{ 0x0a0b0500u, 24, which ? 9 : big },
			{ 0x0a000000u, 8, which ? big : 7 },
		};
		size_t lone = 0;
		struct fib4 f;
		cr_assert_eq(fib4_init(&f), 0);
		cr_assert_eq(compile_counting(&f, ps, 2, &lone), 1, "a block");
		cr_assert_eq(lone, 0);
		check_whole_18(&f, ps, 2, ps[0].addr);
		fib4_destroy(&f);
	}
}

/* A prefix alone below a slot is one lone record, not a chain of nodes
 * down to its length: a /32 alone in its /18 is the top node and one
 * record, which answers its own address and pushes the outer answer
 * everywhere else below its slot. */
Test(fib4, a_lone_prefix_is_one_record)
{
	struct fib4_prefix p = { 0xc0a80537u, 32, 9 }; /* 192.168.5.55/32 */
	struct fib4_block *b = block_of_one(p, 4);
	const struct fib4_node *top = (const struct fib4_node *)b->items;
	cr_assert_eq(__builtin_popcountll(top->vector), 1);
	const struct fib4_node *kid = (const struct fib4_node *)(b->items + top->kids);
	cr_assert(fib4_is_lone(kid));
	cr_assert_eq(*fib4_lone_answer(kid, p.addr), 9);
	cr_assert_eq(*fib4_lone_answer(kid, p.addr ^ 1), 4);
	cr_assert_eq(*fib4_lone_answer(kid, p.addr ^ 0x80), 4);
	struct fib4 t;
	cr_assert_eq(fib4_init(&t), 0);
	fib4_publish(&t, fib4_index(p.addr), fib4_block_word(b));
	uint32_t addr[3] = { p.addr, p.addr ^ 1, p.addr ^ 0x3f00 }, ids[3];
	fib4_lookup_batch(&t, addr, 3, ids);
	for (unsigned i = 0; i < 3; i++) {
		cr_assert_eq(fib4_lookup(&t, addr[i]), i ? 4 : 9, "%08x", addr[i]);
		cr_assert_eq(ids[i], i ? 4 : 9, "%08x in a batch", addr[i]);
	}
	fib4_destroy(&t);
}
