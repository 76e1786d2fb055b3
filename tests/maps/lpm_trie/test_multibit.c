/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/multibit against lpm_trie/linux (which replays the kernel byte for
 * byte, tests/kernel-compare/test_kernel_lpm.c): random updates with every flag,
 * deletes, lookups of every prefix length and get_next_key from present
 * and absent keys, on nested prefixes that share their first bits, so
 * leaves split into nodes, nodes fold back into leaves and empty nodes go.
 * Every answer and errno must be linux's, except get_next_key's order,
 * which is the design's own: checked here against the pre-order the design
 * documents, written out independently.  Deleting every prefix must give
 * back every byte the trie took (no node left behind).  The comparison's
 * scaffolding is shared with test_dpdk.c (random_vs_linux.h); what is
 * multibit's own is here: its lengths around 6-bit strides, its order.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "tests/maps/lpm_trie/random_vs_linux.h"

#define STRIDE 6

/* A length that often sits on or beside a 6-bit boundary. */
static uint32_t random_len(uint32_t max)
{
	uint32_t l = (uint32_t)(twin_random() % (max + 1));
	if (twin_random() % 2) {
		l = l / STRIDE * STRIDE + (uint32_t)(twin_random() % 3) - 1;
		if (l > max) /* wrapped below 0, or past the end */
			l = twin_random() % 2 ? 0 : max;
	}
	return l;
}

static unsigned bit_at(const uint8_t *d, uint32_t i)
{
	return (d[i / 8] >> (7 - i % 8)) & 1;
}

/* The next 6 bits from bit off, zero past len. */
static unsigned chunk(const uint8_t *d, uint32_t len, uint32_t off)
{
	unsigned c = 0;
	for (uint32_t i = off; i < off + STRIDE; i++)
		c = c << 1 | (i < len ? bit_at(d, i) : 0);
	return c;
}

/*
 * The documented order, from first principles: compare 6 bits at a time;
 * a prefix that ends within the current 6 bits comes before one that goes
 * on, two that end there go shorter first, then by their bits.
 */
static int preorder_cmp(const uint8_t *a, const uint8_t *b)
{
	uint32_t la = twin_len_of(a), lb = twin_len_of(b);
	for (uint32_t off = 0;; off += STRIDE) {
		bool ends_a = la < off + STRIDE, ends_b = lb < off + STRIDE;
		unsigned ca = chunk(a + 4, la, off), cb = chunk(b + 4, lb, off);
		if (ends_a && ends_b) {
			if (la != lb)
				return la < lb ? -1 : 1;
			return ca < cb ? -1 : ca > cb;
		}
		if (ends_a != ends_b)
			return ends_a ? -1 : 1;
		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
}

/* Its walk in pre-order; one random op in 20 a batch (its interleaved
 * walks). */
static const struct twin_rules multibit = {
	.design = "lpm_trie/multibit",
	.random_len = random_len,
	.walk_cmp = preorder_cmp,
	.batch_percent = 5,
};

static void random_run(uint32_t key_size, uint32_t max_entries, unsigned ops)
{
	twin_random_run(&multibit, key_size, max_entries, ops);
}

static struct twin make_pair(uint32_t key_size, uint32_t max_entries)
{
	return twin_make(&multibit, key_size, max_entries);
}

TestSuite(lpm_fast, .timeout = 120);

Test(lpm_fast, matches_linux_on_one_byte_keys)
{
	random_run(5, 64, 20000);
}

Test(lpm_fast, matches_linux_on_ipv4_keys)
{
	random_run(8, 200, 30000);
}

Test(lpm_fast, matches_linux_on_20_byte_keys)
{
	random_run(20, 200, 20000);
}

Test(lpm_fast, matches_linux_on_260_byte_keys)
{
	random_run(260, 100, 5000);
}

Test(lpm_fast, matches_linux_when_near_full)
{
	random_run(8, 12, 20000);
}

/* From 2^18 entries on, a third level is boxed (multibit.c's
 * boxed_levels): its slots and the copies lookups read of them, the empty
 * boxes above them, and prefixes of 12 to 17 bits in boxes. */
Test(lpm_fast, matches_linux_with_three_boxed_levels)
{
	random_run(5, 1u << 18, 5000);
	random_run(8, 1u << 18, 30000);
	random_run(20, 1u << 18, 20000);
}

/* /0 and full-length keys at once, and nodes that fold back: one path
 * of every length 0..32, deleted shortest first then longest first. */
Test(lpm_fast, nested_path_folds_back)
{
	map_thread_online();
	struct twin p = make_pair(8, 64);
	uint8_t k[8] = { 0, 0, 0, 0, 0xc0, 0xa8, 0x01, 0x2f };
	twin_nested_path(&p, k, 32);
	cr_assert_eq(p.design->ops->memory(p.design), p.empty_bytes);
	twin_free(&p);
	map_thread_offline();
}

/* A lookup whose length ends inside a node sees none of the node's longer
 * prefixes, even where the key's further bits match them. */
Test(lpm_fast, lookup_stops_at_its_own_length)
{
	map_thread_online();
	struct twin p = make_pair(8, 64);
	uint8_t k[8] = { 0, 0, 0, 0, 0xc0, 0xa8, 0x01, 0x2f };
	uint32_t stored[] = { 10, 11, 3 };
	for (unsigned i = 0; i < 3; i++) {
		uint64_t v = stored[i];
		memcpy(k, &stored[i], 4);
		cr_assert_eq(map_update(p.design, k, &v, MAP_ANY), 0);
		cr_assert_eq(map_update(p.linux, k, &v, MAP_ANY), 0);
	}
	for (uint32_t ask = 0; ask <= 32; ask++) {
		memcpy(k, &ask, 4);
		twin_check_lookup(&p, k);
	}
	twin_free(&p);
	map_thread_offline();
}

/* Its work: every write takes the lock once and its hold time counts; a
 * lookup takes none and visits one descriptor per 6 bits it reads. */
Test(lpm_fast, counts_its_work)
{
	map_thread_online();
	struct twin p = make_pair(8, 64);
	uint8_t k[8] = { 0, 0, 0, 0, 10, 0, 0, 1 };
	uint64_t v = 1;
	for (uint32_t len = 0; len <= 32; len += 8) {
		memcpy(k, &len, 4);
		cr_assert_eq(map_update(p.design, k, &v, MAP_ANY), 0);
	}
	cr_assert_eq(map_delete(p.design, k), 0);
	struct map_work w = { 0 };
	p.design->ops->work(p.design, -1, &w);
	cr_assert_eq(w.locks, 6);
	cr_assert_gt(w.lock_ns, 0);
	struct map_work before = w, after = { 0 };
	uint32_t len = 31; /* not full length: the trie's walk */
	memcpy(k, &len, 4);
	cr_assert_eq(map_lookup_copy(p.design, k, &v), 0);
	p.design->ops->work(p.design, -1, &after);
	cr_assert_eq(after.locks, before.locks);
	cr_assert_eq(after.lock_ns, before.lock_ns);
	/* /0, /8, /16 and /24 are left: the root, the nodes at bits 6 and
	 * 12 (they hold /8 and /16), then /24, alone below, as a leaf hung
	 * straight from the node at 12: 4 descriptors, not the 5 a /24 has
	 * on its way with every node kept */
	cr_assert_eq(after.nodes_scanned - before.nodes_scanned, 4);
	/* a full-length IPv4 key is answered by the compiled table: one */
	len = 32;
	memcpy(k, &len, 4);
	before = after;
	after = (struct map_work){ 0 };
	cr_assert_eq(map_lookup_copy(p.design, k, &v), 0);
	p.design->ops->work(p.design, -1, &after);
	cr_assert_eq(after.nodes_scanned - before.nodes_scanned, 1);
	twin_free(&p);
	map_thread_offline();
}
