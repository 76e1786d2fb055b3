/* SPDX-License-Identifier: MIT */
/*
 * The hash core of maps/tables/htab.h, below any design: the nulls
 * restart of a derailed lookup, unlinking one exact node, and what the
 * locked update protocol leaves behind (the new node heads the chain, the
 * old one keeps its link for readers still on it, flags are checked, a
 * failed begin unlocks).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "maps/tables/htab.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"

/* A node with a 4-byte key and an 8-byte value, as a design lays it out. */
struct elem {
	struct htab_node node;
	uint32_t key;
	uint32_t pad;
	uint64_t value;
};

static struct htab_table table; /* 4 buckets, zero seed */

static void set_up(void)
{
	map_thread_online();
	cr_assert_eq(htab_table_init(&table, 4, sizeof(uint32_t), 1), 0);
}

static void tear_down(void)
{
	htab_table_destroy(&table);
	map_thread_offline();
}

/* A key of the given bucket (found by trying: the hash is jhash). */
static uint32_t key_in_bucket(uint32_t bucket, uint32_t after)
{
	for (uint32_t k = after + 1;; k++)
		if ((htab_hash(&table, &k) & (table.n_buckets - 1)) == bucket)
			return k;
}

static void insert(struct elem *e, uint32_t key, uint64_t value)
{
	struct htab_update u;
	cr_assert_eq(htab_update_begin(&table, &key, MAP_ANY, &u), 0);
	htab_update_commit(&table, &u, &e->node, &key, &value, sizeof(value));
}

TestSuite(htab, .init = set_up, .fini = tear_down, .timeout = 30);

struct reader {
	uint32_t key;
	atomic_bool started, returned;
	struct htab_node *found;
};

static void *look_up(void *arg)
{
	struct reader *r = arg;
	map_thread_online();
	map_rcu_read_lock();
	atomic_store(&r->started, true);
	r->found = htab_lookup_rcu(&table, htab_hash(&table, &r->key), &r->key);
	atomic_store(&r->returned, true);
	map_rcu_read_unlock();
	map_thread_offline();
	return NULL;
}

/*
 * The state a reader meets when the node it stands on is reused for a key
 * of another bucket (the kernel's preallocated hash does that at once):
 * bucket 0's chain runs into bucket 1's and ends on bucket 1's marker.  A
 * lookup that took that end for "absent" would miss a key that is there;
 * it must walk again until the chain is whole.
 */
Test(htab, a_derailed_lookup_walks_again)
{
	uint32_t k0 = key_in_bucket(0, 0), k1 = key_in_bucket(1, 0);
	struct elem wanted = { .key = 0 }, stray = { .key = 0 };
	insert(&stray, k1, 1);                  /* bucket 1: stray -> NULLS(1) */
	wanted.node.hash = htab_hash(&table, &k0);
	wanted.key = k0;
	/* bucket 0 derailed: first -> stray -> NULLS(1); k0 not reachable */
	atomic_store(&table.buckets[0].head.first, &stray.node.chain);

	struct reader r = { .key = k0 };
	pthread_t t;
	pthread_create(&t, NULL, look_up, &r);
	while (!atomic_load(&r.started))
		sched_yield();
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	/* A lookup that gives up on the derailed walk returns within
	 * microseconds of starting it; one that walks again is still at it. */
	cr_expect_not(atomic_load(&r.returned), "the lookup gave up on a "
		      "derailed walk (it returned while the chain was derailed)");
	/* The writer finishes: bucket 0 is whole again and holds k0. */
	atomic_store(&wanted.node.chain.next, nulls_marker(0));
	atomic_store(&table.buckets[0].head.first, &wanted.node.chain);
	pthread_join(t, NULL);
	cr_expect_eq(r.found, &wanted.node, "the lookup gave up on a derailed "
		     "walk instead of walking again");
	nulls_init_head(&table.buckets[0].head, 0);
}

Test(htab, a_walk_that_ends_on_its_own_marker_is_a_miss)
{
	uint32_t k0 = key_in_bucket(0, 0), other = key_in_bucket(0, k0);
	struct elem e = { .key = 0 };
	insert(&e, k0, 7);
	map_rcu_read_lock();
	cr_expect_eq(htab_lookup_rcu(&table, htab_hash(&table, &k0), &k0), &e.node);
	cr_expect_null(htab_lookup_rcu(&table, htab_hash(&table, &other), &other));
	map_rcu_read_unlock();
}

Test(htab, unlink_node_removes_only_a_node_still_linked)
{
	uint32_t a = key_in_bucket(2, 0), b = key_in_bucket(2, a);
	struct elem ea = { .key = 0 }, eb = { .key = 0 };
	insert(&ea, a, 1);
	insert(&eb, b, 2);                       /* bucket 2: eb -> ea */
	cr_expect(htab_unlink_node(&table, &ea.node));
	cr_expect_not(htab_unlink_node(&table, &ea.node),
		      "a node unlinked before is not unlinked again");
	map_rcu_read_lock();
	cr_expect_eq(htab_lookup_rcu(&table, htab_hash(&table, &b), &b), &eb.node,
		     "the other node of the chain stays");
	cr_expect_null(htab_lookup_rcu(&table, htab_hash(&table, &a), &a));
	map_rcu_read_unlock();
	/* A node whose key another update replaced is gone too. */
	struct elem eb2 = { .key = 0 };
	insert(&eb2, b, 3);
	cr_expect_not(htab_unlink_node(&table, &eb.node));
	cr_expect(htab_unlink_node(&table, &eb2.node));
}

Test(htab, a_replace_heads_the_chain_and_leaves_the_old_node_walkable)
{
	uint32_t k = key_in_bucket(3, 0);
	uint64_t v = 9;
	struct elem old = { .key = 0 }, fresh = { .key = 0 };
	struct htab_update u;
	insert(&old, k, 1);
	cr_assert_eq(htab_update_begin(&table, &k, MAP_EXIST, &u), 0);
	cr_expect_eq(u.old, &old.node);
	htab_update_commit(&table, &u, &fresh.node, &k, &v, sizeof(v));
	cr_expect_eq(nulls_first_rcu(&table.buckets[3].head), &fresh.node.chain);
	cr_expect_eq(nulls_next_rcu(&old.node.chain), nulls_marker(3),
		     "the old node keeps its link, so a reader on it walks on");
	cr_expect_eq(fresh.value, 9u);
	cr_expect_eq(htab_update_begin(&table, &k, MAP_NOEXIST, &u), -EEXIST);
	uint32_t absent = key_in_bucket(3, k);
	cr_expect_eq(htab_update_begin(&table, &absent, MAP_EXIST, &u), -ENOENT);
	/* A failed begin leaves the bucket unlocked: the next one can lock. */
	cr_expect_eq(htab_update_begin(&table, &k, MAP_ANY, &u), 0);
	htab_update_abort(&u);
	cr_expect_eq(htab_delete_key(&table, &k), &fresh.node);
	cr_expect_null(htab_delete_key(&table, &k));
}
