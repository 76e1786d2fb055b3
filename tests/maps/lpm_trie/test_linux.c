/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/linux's own shape, beyond the semantics conformance_lpm checks
 * on every LPM design: the kernel's post-order for get_next_key (the
 * example at the top of kernel/bpf/lpm_trie.c), and the nodes each update
 * and delete case leaves, counted through map_ops.memory (a node is
 * node_size bytes, intermediate or real): an intermediate node appears
 * where two prefixes part, goes with its leaf, and a real node with two
 * children that is deleted stays as one, while one with a single child
 * gives its place to that child (map_ops.dump_state shows where each node
 * hangs); a delete of a fork's prefix, or of one between nodes, finds
 * nothing and changes nothing; and the work each op counts
 * (map_ops.work: nodes visited, locks, nodes allocated).
 * tests/kernel-compare/test_kernel_lpm.c
 * replays random traces against the kernel itself.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

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

/* The trie as map_ops.dump_state draws it (text), for the caller to free. */
static char *dump(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_TEXT), 0);
	fclose(f);
	return text;
}

#define DUMP_HEAD "lpm_trie/linux: %s; each child after the bit that leads to it\n"

static void expect_dump(const char *counts, const char *tree, const char *what)
{
	char want[1024];
	snprintf(want, sizeof(want), DUMP_HEAD "%s", counts, tree);
	char *got = dump();
	cr_expect_str_eq(got, want, "%s: the dump is\n%swant\n%s", what, got,
			 want);
	free(got);
}

static void delete_ok(struct v4key k)
{
	cr_assert_eq(map_delete(m, &k), 0, "delete /%u", k.prefixlen);
}

/* The value a full-length lookup of a.b.c.d finds, 0 when none. */
static uint32_t route(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct v4key k = key(32, a, b, c, d);
	uint32_t v = 0;
	return map_lookup_copy(m, &k, &v) ? 0 : v;
}

/* The keys get_next_key gives, from the first, as "/len a.b.c.d ...". */
static void expect_walk(const char *want)
{
	char got[512] = "";
	size_t at = 0;
	struct v4key k, next;
	int err = map_get_next_key(m, NULL, &next);
	for (int i = 0; err == 0 && i < 16; i++) {
		at += (size_t)snprintf(got + at, sizeof(got) - at,
				       "%s%u.%u.%u.%u/%u", i ? " " : "",
				       next.addr[0], next.addr[1], next.addr[2],
				       next.addr[3], next.prefixlen);
		k = next;
		err = map_get_next_key(m, &k, &next);
	}
	cr_expect_eq(err, -ENOENT);
	cr_expect_str_eq(got, want);
}

Test(lpm_linux, a_real_node_with_one_child_gives_way_to_it)
{
	put(key(8, 10, 0, 0, 0), 8);
	size_t node_size = m->ops->memory(m) - empty_bytes;
	put(key(16, 10, 1, 0, 0), 16);    /* [0] of the /8: bit 8 of 10.1 */
	put(key(24, 10, 1, 2, 0), 24);    /* [0] of the /16 */
	put(key(9, 10, 128, 0, 0), 9);    /* [1] of the /8 */
	put(key(10, 10, 192, 0, 0), 10);  /* [1] of the /9 */
	expect_dump("5 prefixes, 0 intermediate (im)",
		    "10.0.0.0/8\n"
		    "  [0] 10.1.0.0/16\n"
		    "    [0] 10.1.2.0/24\n"
		    "  [1] 10.128.0.0/9\n"
		    "    [1] 10.192.0.0/10\n", "a chain each side");
	cr_expect_eq(nodes(node_size), 5);

	delete_ok(key(16, 10, 1, 0, 0)); /* its child on the [0] side */
	expect_dump("4 prefixes, 0 intermediate (im)",
		    "10.0.0.0/8\n"
		    "  [0] 10.1.2.0/24\n"
		    "  [1] 10.128.0.0/9\n"
		    "    [1] 10.192.0.0/10\n", "the /24 took the /16's place");
	cr_expect_eq(nodes(node_size), 4, "no fork: the node went");
	cr_expect_eq(route(10, 1, 2, 9), 24);
	cr_expect_eq(route(10, 1, 3, 9), 8, "the /16 no longer answers");

	delete_ok(key(9, 10, 128, 0, 0)); /* its child on the [1] side */
	expect_dump("3 prefixes, 0 intermediate (im)",
		    "10.0.0.0/8\n"
		    "  [0] 10.1.2.0/24\n"
		    "  [1] 10.192.0.0/10\n", "the /10 took the /9's place");
	cr_expect_eq(nodes(node_size), 3);
	cr_expect_eq(route(10, 192, 0, 1), 10);
	cr_expect_eq(route(10, 128, 0, 1), 8);

	/* the root with one child: the child becomes the root */
	delete_ok(key(10, 10, 192, 0, 0));
	delete_ok(key(8, 10, 0, 0, 0));
	expect_dump("1 prefixes, 0 intermediate (im)", "10.1.2.0/24\n",
		    "the /24 is the root");
	cr_expect_eq(nodes(node_size), 1);
	cr_expect_eq(route(10, 1, 2, 9), 24);
	cr_expect_eq(route(10, 1, 3, 9), 0);
	expect_walk("10.1.2.0/24");
}

Test(lpm_linux, the_child_that_takes_the_place_may_be_a_fork)
{
	put(key(8, 10, 0, 0, 0), 8);
	size_t node_size = m->ops->memory(m) - empty_bytes;
	put(key(16, 10, 1, 0, 0), 16);
	put(key(24, 10, 1, 1, 0), 1);
	put(key(24, 10, 1, 2, 0), 2); /* parts from .1 at bit 22 */
	expect_dump("4 prefixes, 1 intermediate (im)",
		    "10.0.0.0/8\n"
		    "  [0] 10.1.0.0/16\n"
		    "    [0] (im) 10.1.1.0/22\n"
		    "      [0] 10.1.1.0/24\n"
		    "      [1] 10.1.2.0/24\n", "a fork below the /16");
	delete_ok(key(16, 10, 1, 0, 0));
	expect_dump("3 prefixes, 1 intermediate (im)",
		    "10.0.0.0/8\n"
		    "  [0] (im) 10.1.1.0/22\n"
		    "    [0] 10.1.1.0/24\n"
		    "    [1] 10.1.2.0/24\n", "the fork took the /16's place");
	cr_expect_eq(nodes(node_size), 4);
	cr_expect_eq(route(10, 1, 1, 1), 1);
	cr_expect_eq(route(10, 1, 2, 1), 2);
	cr_expect_eq(route(10, 1, 3, 1), 8, "the fork answers nothing");
	expect_walk("10.1.1.0/24 10.1.2.0/24 10.0.0.0/8");
}

Test(lpm_linux, one_child_under_a_fork_keeps_the_fork)
{
	put(key(24, 192, 168, 0, 0), 0);
	size_t node_size = m->ops->memory(m) - empty_bytes;
	put(key(24, 192, 168, 1, 0), 1);     /* a fork at /23 */
	put(key(25, 192, 168, 1, 128), 128); /* [1] of .1.0/24 */
	expect_dump("3 prefixes, 1 intermediate (im)",
		    "(im) 192.168.0.0/23\n"
		    "  [0] 192.168.0.0/24\n"
		    "  [1] 192.168.1.0/24\n"
		    "    [1] 192.168.1.128/25\n", "a chain under a fork");
	cr_expect_eq(nodes(node_size), 4);
	/* its parent is a fork but it has a child: only it goes (the kernel
	 * takes the fork with a leaf, never with a node that has a child) */
	delete_ok(key(24, 192, 168, 1, 0));
	expect_dump("2 prefixes, 1 intermediate (im)",
		    "(im) 192.168.0.0/23\n"
		    "  [0] 192.168.0.0/24\n"
		    "  [1] 192.168.1.128/25\n", "the /25 under the fork");
	cr_expect_eq(nodes(node_size), 3);
	cr_expect_eq(route(192, 168, 1, 200), 128);
	cr_expect_eq(route(192, 168, 1, 1), 0);
	cr_expect_eq(route(192, 168, 0, 1), 0);
	expect_walk("192.168.0.0/24 192.168.1.128/25");
	/* now a leaf under the fork: the fork goes with it */
	delete_ok(key(25, 192, 168, 1, 128));
	expect_dump("1 prefixes, 0 intermediate (im)", "192.168.0.0/24\n",
		    "the sibling went up");
	cr_expect_eq(nodes(node_size), 1);
}

/* A delete that must find nothing: -ENOENT, and the trie as it was. */
static void expect_no_such_key(struct v4key k, const char *what)
{
	char *before = dump();
	size_t bytes = m->ops->memory(m);
	cr_expect_eq(map_delete(m, &k), -ENOENT, "delete %s", what);
	char *after = dump();
	cr_expect_str_eq(after, before, "delete %s changed the trie", what);
	cr_expect_eq(m->ops->memory(m), bytes, "delete %s", what);
	free(before);
	free(after);
}

Test(lpm_linux, a_fork_or_a_prefix_between_nodes_is_not_deleted)
{
	put(key(16, 192, 168, 0, 0), 16);
	put(key(24, 192, 168, 0, 0), 0);
	put(key(24, 192, 168, 1, 0), 1);
	put(key(25, 192, 168, 1, 128), 128);
	expect_dump("4 prefixes, 1 intermediate (im)",
		    "192.168.0.0/16\n"
		    "  [0] (im) 192.168.0.0/23\n"
		    "    [0] 192.168.0.0/24\n"
		    "    [1] 192.168.1.0/24\n"
		    "      [1] 192.168.1.128/25\n", "the start");
	expect_no_such_key(key(23, 192, 168, 0, 0), "the fork's prefix");
	expect_no_such_key(key(23, 192, 168, 1, 77),
			   "the fork's prefix with other trailing bits");
	expect_no_such_key(key(20, 192, 168, 0, 0),
			   "a prefix on the path, between the /16 and the fork");
	expect_no_such_key(key(25, 192, 168, 1, 0),
			   "the absent sibling of the /25");
	expect_no_such_key(key(26, 192, 168, 1, 128), "below the /25");
	expect_no_such_key(key(8, 192, 0, 0, 0), "above the root");
	expect_no_such_key(key(16, 192, 169, 0, 0), "beside the root");

	/* a real node with two children, deleted, is a fork: deleting it
	 * again finds nothing */
	delete_ok(key(24, 192, 168, 1, 0)); /* one child: it goes */
	/* the /25's sibling: a fork, with the data of the node that was
	 * there (the kernel copies it from that node) */
	put(key(25, 192, 168, 1, 0), 2);
	delete_ok(key(16, 192, 168, 0, 0)); /* one child: the fork goes up */
	put(key(23, 192, 168, 0, 0), 23);   /* the fork becomes a key */
	expect_dump("4 prefixes, 1 intermediate (im)",
		    "192.168.0.0/23\n"
		    "  [0] 192.168.0.0/24\n"
		    "  [1] (im) 192.168.1.128/24\n"
		    "    [0] 192.168.1.0/25\n"
		    "    [1] 192.168.1.128/25\n", "two forks, one a key");
	delete_ok(key(23, 192, 168, 0, 0));
	expect_dump("3 prefixes, 2 intermediate (im)",
		    "(im) 192.168.0.0/23\n"
		    "  [0] 192.168.0.0/24\n"
		    "  [1] (im) 192.168.1.128/24\n"
		    "    [0] 192.168.1.0/25\n"
		    "    [1] 192.168.1.128/25\n", "the /23 a fork again");
	expect_no_such_key(key(23, 192, 168, 0, 0), "a deleted key kept as a fork");
	expect_no_such_key(key(24, 192, 168, 1, 0), "the fork of the /25s");
	cr_expect_eq(route(192, 168, 0, 9), 0);
	cr_expect_eq(route(192, 168, 1, 9), 2);
	cr_expect_eq(route(192, 168, 1, 200), 128);
}

/*
 * A node too large for one kmalloc.  The kernel takes every node, real or
 * intermediate, from bpf_mem_alloc, which kmallocs the node (a 24-byte
 * header, the key's data, the value) plus its 8-byte free-list link.
 * Past KMALLOC_MAX_SIZE (4 MiB) that cannot succeed: create accepts the
 * trie, but every update is -ENOMEM, even with BPF_EXIST, since the node
 * is allocated before the trie is searched.  Only data of more than 248
 * bytes can get there (create caps the value at 4 MiB - 256 - 24).  The
 * figures were measured on the running kernel (6.18, x86-64) by bisecting
 * value_size at which the first insert fails, for each key size;
 * tests/kernel-compare/test_kernel_lpm.c replays the same boundary on
 * both sides.
 */
static void big_set_up(void)
{
	map_thread_online();
}

static void big_tear_down(void)
{
	map_thread_offline();
}

TestSuite(lpm_linux_kmalloc, .init = big_set_up, .fini = big_tear_down,
	  .timeout = 60);

/* The largest value_size whose first insert the kernel stores, by key
 * size; one byte more and it answers ENOMEM (measured). */
static const struct {
	uint32_t key_size, last_stored;
} node_boundary[] = {
	{ 253, 4194023 }, { 254, 4194022 }, { 256, 4194020 },
	{ 257, 4194019 }, { 259, 4194017 }, { 260, 4194016 },
};

static struct map *make_big(uint32_t key_size, uint32_t value_size)
{
	struct map_attr a = { .type = MAP_TYPE_LPM_TRIE, .key_size = key_size,
			      .value_size = value_size, .max_entries = 3,
			      .flags = MAP_F_NO_PREALLOC, .ncpus = 1 };
	struct map *big = NULL;
	cr_assert_eq(map_create(map_find("lpm_trie/linux"), &a, &big), 0,
		     "key_size %u value_size %u", key_size, value_size);
	return big;
}

/* An LPM key of key_size bytes: prefixlen, then data starting a, b. */
static void big_key(uint8_t *k, uint32_t key_size, uint32_t prefixlen,
		    uint8_t a, uint8_t b)
{
	memset(k, 0, key_size);
	memcpy(k, &prefixlen, 4);
	k[4] = a;
	k[5] = b;
}

Test(lpm_linux_kmalloc, node_over_kmalloc_max_is_enomem)
{
	uint8_t *value = malloc(4u << 20), *got = malloc(4u << 20);
	cr_assert(value && got);
	uint8_t k[260], next[260];

	for (size_t b = 0; b < sizeof(node_boundary) / sizeof(node_boundary[0]);
	     b++) {
		uint32_t ks = node_boundary[b].key_size;
		uint32_t vs = node_boundary[b].last_stored;

		/* One byte under: a leaf, its replace, a fork (an
		 * intermediate node of the same size), a lookup. */
		struct map *big = make_big(ks, vs);
		memset(value, 0x11, vs);
		big_key(k, ks, 16, 10, 1);
		cr_expect_eq(map_update(big, k, value, MAP_ANY), 0,
			     "key_size %u value_size %u stores", ks, vs);
		cr_expect_eq(map_update(big, k, value, MAP_EXIST), 0,
			     "key_size %u value_size %u replaces", ks, vs);
		big_key(k, ks, 16, 10, 2);
		value[vs - 1] = 0x22;
		cr_expect_eq(map_update(big, k, value, MAP_NOEXIST), 0,
			     "key_size %u value_size %u forks", ks, vs);
		big_key(k, ks, 8 * (ks - 4), 10, 2);
		cr_expect_eq(map_lookup_copy(big, k, got), 0);
		cr_expect(memcmp(got, value, vs) == 0, "the longest match");
		map_destroy(big);

		/* One byte over: created, but no update gets a node. */
		vs++;
		big = make_big(ks, vs);
		memset(value, 0x11, vs);
		big_key(k, ks, 16, 10, 1);
		cr_expect_eq(map_update(big, k, value, MAP_ANY), -ENOMEM,
			     "key_size %u value_size %u", ks, vs);
		cr_expect_eq(map_update(big, k, value, MAP_NOEXIST), -ENOMEM);
		cr_expect_eq(map_update(big, k, value, MAP_EXIST), -ENOMEM,
			     "the node comes before the search");
		cr_expect_eq(map_update(big, k, value, MAP_EXIST + 1), -EINVAL);
		big_key(k, ks, 8 * (ks - 4) + 1, 10, 1);
		cr_expect_eq(map_update(big, k, value, MAP_ANY), -EINVAL,
			     "a prefix beyond the data is checked first");
		big_key(k, ks, 16, 10, 1);
		cr_expect_eq(map_delete(big, k), -ENOENT);
		cr_expect_eq(map_lookup_copy(big, k, got), -ENOENT);
		cr_expect_eq(map_get_next_key(big, NULL, next), -ENOENT,
			     "the trie stays empty");
		map_destroy(big);
	}
	free(value);
	free(got);
}

/* Shorter keys cannot get there: the largest value create accepts still
 * fits one kmalloc beside 248 bytes of data. */
Test(lpm_linux_kmalloc, the_largest_value_fits_with_248_data_bytes)
{
	uint32_t ks = 252, vs = 4194024;
	uint8_t *value = malloc(vs);
	cr_assert_not_null(value);
	memset(value, 0x33, vs);
	struct map *big = make_big(ks, vs);
	uint8_t k[260];
	big_key(k, ks, 32, 10, 1);
	cr_expect_eq(map_update(big, k, value, MAP_ANY), 0);
	map_destroy(big);
	free(value);
}
