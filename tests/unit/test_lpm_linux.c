/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/linux's own shape, beyond the semantics conformance_lpm checks
 * on every LPM design: the kernel's post-order for get_next_key (the
 * example at the top of kernel/bpf/lpm_trie.c), and the nodes each update
 * and delete case leaves, counted through map_ops.memory (a node is
 * node_size bytes, intermediate or real): an intermediate node appears
 * where two prefixes part, goes with its leaf, and a real node with two
 * children that is deleted stays as one; and the work each op counts
 * (map_ops.work: nodes visited, locks, nodes allocated).
 * tests/kernel/test_kernel_lpm.c
 * replays random traces against the kernel itself.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "maps/common/map.h"
#include "maps/common/rcu.h"

struct v4key {
	uint32_t prefixlen;
	uint8_t addr[4];
};

static struct map *m;
static size_t empty_bytes;

static void set_up(void)
{
	map_thread_online();
	struct map_attr a = { .type = MAP_TYPE_LPM_TRIE, .key_size = 8,
			      .value_size = 4, .max_entries = 16,
			      .flags = MAP_F_NO_PREALLOC };
	cr_assert_eq(map_create(map_find("lpm_trie/linux"), &a, &m), 0);
	empty_bytes = m->ops->memory(m);
}

static void tear_down(void)
{
	map_destroy(m);
	map_thread_offline();
}

TestSuite(lpm_linux, .init = set_up, .fini = tear_down, .timeout = 60);

static struct v4key key(uint32_t prefixlen, uint8_t a, uint8_t b, uint8_t c,
			uint8_t d)
{
	return (struct v4key){ prefixlen, { a, b, c, d } };
}

static void put(struct v4key k, uint32_t value)
{
	cr_assert_eq(map_update(m, &k, &value, MAP_ANY), 0, "/%u", k.prefixlen);
}

/* Nodes in the trie, intermediate ones included: each costs node_size. */
static size_t nodes(size_t node_size)
{
	return (m->ops->memory(m) - empty_bytes) / node_size;
}

/* The kernel's example: 192.168.0.0/16, .0.0/24, .128.0/24, .1.0/24. */
static void build_the_example(void)
{
	put(key(16, 192, 168, 0, 0), 1);
	put(key(24, 192, 168, 0, 0), 2);
	put(key(24, 192, 168, 128, 0), 3);
	put(key(24, 192, 168, 1, 0), 5);
}

Test(lpm_linux, get_next_key_walks_in_post_order)
{
	build_the_example();
	static const struct { uint32_t len; uint8_t third; } order[] = {
		{ 24, 0 }, { 24, 1 }, { 24, 128 }, { 16, 0 },
	};
	struct v4key k, next;
	cr_assert_eq(map_get_next_key(m, NULL, &next), 0);
	for (size_t i = 0; i < 4; i++) {
		cr_expect(next.prefixlen == order[i].len &&
			  next.addr[2] == order[i].third,
			  "key %zu: /%u third byte %u, want /%u %u", i,
			  next.prefixlen, next.addr[2], order[i].len,
			  order[i].third);
		k = next;
		int err = map_get_next_key(m, &k, &next);
		cr_assert_eq(err, i < 3 ? 0 : -ENOENT);
	}
	/* a key not in the trie, even one its fork stands for, starts over */
	k = key(23, 192, 168, 0, 0);
	cr_assert_eq(map_get_next_key(m, &k, &next), 0);
	cr_expect(next.prefixlen == 24 && next.addr[2] == 0, "from the first");
}

Test(lpm_linux, forks_come_and_go_with_their_keys)
{
	put(key(16, 192, 168, 0, 0), 1);
	size_t node_size = m->ops->memory(m) - empty_bytes;
	put(key(24, 192, 168, 0, 0), 2);
	put(key(24, 192, 168, 128, 0), 3);
	cr_expect_eq(nodes(node_size), 3, "children of the /16: no fork");
	put(key(24, 192, 168, 1, 0), 5);
	cr_expect_eq(nodes(node_size), 5, "a fork at /23 for .0 and .1");
	put(key(23, 192, 168, 0, 0), 6);
	cr_expect_eq(nodes(node_size), 5, "the /23 fork became a key");

	struct v4key gone = key(23, 192, 168, 0, 0);
	cr_assert_eq(map_delete(m, &gone), 0);
	cr_expect_eq(nodes(node_size), 5, "two children: it stays, a fork again");
	gone = key(24, 192, 168, 1, 0);
	cr_assert_eq(map_delete(m, &gone), 0);
	cr_expect_eq(nodes(node_size), 3, "a leaf under a fork takes the fork");
	gone = key(16, 192, 168, 0, 0);
	cr_assert_eq(map_delete(m, &gone), 0);
	cr_expect_eq(nodes(node_size), 3, "the /16 with two children: a fork");
	uint32_t v;
	struct v4key addr = key(32, 192, 168, 5, 5);
	cr_expect_eq(map_lookup_copy(m, &addr, &v), -ENOENT,
		     "a fork answers no lookup");
	addr = key(32, 192, 168, 128, 5);
	cr_assert_eq(map_lookup_copy(m, &addr, &v), 0);
	cr_expect_eq(v, 3);
	gone = key(24, 192, 168, 0, 0);
	cr_assert_eq(map_delete(m, &gone), 0);
	cr_expect_eq(nodes(node_size), 1, "the last leaf under a fork");
	gone = key(24, 192, 168, 128, 0);
	cr_assert_eq(map_delete(m, &gone), 0);
	cr_expect_eq(nodes(node_size), 0);
	struct v4key next;
	cr_expect_eq(map_get_next_key(m, NULL, &next), -ENOENT);
}

Test(lpm_linux, a_shorter_key_goes_above_a_longer_one)
{
	put(key(24, 10, 1, 2, 0), 24);
	put(key(8, 10, 0, 0, 0), 8);
	struct v4key next;
	cr_assert_eq(map_get_next_key(m, NULL, &next), 0);
	cr_expect_eq(next.prefixlen, 24, "the /24 below the /8 comes first");
	struct v4key k = next;
	cr_assert_eq(map_get_next_key(m, &k, &next), 0);
	cr_expect_eq(next.prefixlen, 8);
}

/* The work of one op: the counters before and after it. */
static struct map_work work_of_op(void (*op)(void))
{
	struct map_work before = map_work_of(m, -1);
	op();
	struct map_work after = map_work_of(m, -1);
	return (struct map_work){
		.nodes_scanned = after.nodes_scanned - before.nodes_scanned,
		.locks = after.locks - before.locks,
		.allocations = after.allocations - before.allocations,
		.lock_ns = after.lock_ns - before.lock_ns,
	};
}

static void lookup_deep(void)
{
	struct v4key addr = key(32, 192, 168, 1, 9);
	map_rcu_read_lock();
	cr_assert_not_null(map_lookup(m, &addr));
	map_rcu_read_unlock();
}

static void insert_forking(void)
{
	put(key(24, 192, 168, 129, 0), 9); /* parts from .128.0/24 at bit 23 */
}

static void delete_leaf_under_fork(void)
{
	struct v4key gone = key(24, 192, 168, 1, 0);
	cr_assert_eq(map_delete(m, &gone), 0);
}

Test(lpm_linux, each_op_counts_the_kernels_work)
{
	build_the_example();
	struct map_work w = work_of_op(lookup_deep);
	cr_expect_eq(w.nodes_scanned, 3, "/16, the fork, .1.0/24: %llu",
		     (unsigned long long)w.nodes_scanned);
	cr_expect_eq(w.locks, 0, "a lookup takes no lock");
	cr_expect_eq(w.allocations, 0);
	cr_expect_eq(w.lock_ns, 0, "a lookup holds no lock");
	w = work_of_op(insert_forking);
	cr_expect_eq(w.nodes_scanned, 2, "/16, then .128.0/24 where the paths "
		     "part: %llu", (unsigned long long)w.nodes_scanned);
	cr_expect_eq(w.locks, 1);
	cr_expect_eq(w.allocations, 2, "the key's node and the fork");
	w = work_of_op(delete_leaf_under_fork);
	cr_expect_eq(w.nodes_scanned, 3);
	cr_expect_eq(w.locks, 1);
	cr_expect_eq(w.allocations, 0, "a delete allocates nothing");
}

/* Writes that hold the lock: a key inserted, replaced and deleted, 256
 * times over (the map holds 16), so that even a coarse clock sees time
 * pass. */
static void write_many(void)
{
	for (unsigned i = 0; i < 256; i++) {
		struct v4key k = key(24, 10, 0, (uint8_t)i, 0);
		put(k, i);
		put(k, i + 1);
		cr_assert_eq(map_delete(m, &k), 0);
	}
}

static void lookup_many(void)
{
	for (unsigned i = 0; i < 256; i++)
		lookup_deep();
}

/* The hold time is counted for writes only; its size is the machine's, so
 * only that some was counted is checked. */
Test(lpm_linux, writes_count_the_time_they_hold_the_lock)
{
	build_the_example();
	struct map_work w = work_of_op(write_many);
	cr_expect_eq(w.locks, 3 * 256);
	cr_expect_gt(w.lock_ns, 0, "768 writes held the lock for no time");
	w = work_of_op(lookup_many);
	cr_expect_eq(w.locks, 0);
	cr_expect_eq(w.lock_ns, 0, "lookups hold no lock: %llu ns",
		     (unsigned long long)w.lock_ns);
}
