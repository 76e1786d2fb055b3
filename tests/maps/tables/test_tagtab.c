/* SPDX-License-Identifier: MIT */
/*
 * The tagged table of maps/tables/tagtab.h, below any design.  A table of
 * max_entries 4 has one bucket, so every key shares it: the first 8 take
 * the slots and the rest overflow.  What must hold: every key is found
 * wherever it sits; a delete from a slot pulls the overflow's first key
 * into it; unlink removes only a node still linked; a replace keeps the
 * key's place; get_next_key visits every key once; and readers racing a
 * writer that moves keys between slots and overflow never miss a key that
 * stays in the table, nor see one that never was.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/tables/tagtab.h"

struct elem {
	struct htab_node node;
	uint32_t key;
	uint32_t pad;
	uint64_t value;
};

#define N_ELEMS 40

static struct tagtab table;
static struct elem *elems;

static void set_up(void)
{
	map_thread_online();
	elems = calloc(N_ELEMS, sizeof(*elems));
	cr_assert_not_null(elems);
	cr_assert_eq(tagtab_init(&table, 4, sizeof(uint32_t), 1,
				 (uint8_t *)elems, sizeof(*elems),
				 offsetof(struct elem, node), N_ELEMS), 0);
	cr_assert_eq(table.n_buckets, 1, "max_entries 4: one bucket");
}

static void tear_down(void)
{
	tagtab_destroy(&table);
	free(elems);
	map_thread_offline();
}

TestSuite(tagtab, .init = set_up, .fini = tear_down, .timeout = 60);

static int put(struct elem *e, uint32_t key, uint64_t value, uint64_t flags)
{
	struct tagtab_update u;
	int err = tagtab_update_begin(&table, &key, tagtab_hash(&table, &key),
				      flags, &u);
	if (err)
		return err;
	tagtab_update_commit(&table, &u, &e->node, &key, &value, sizeof(value));
	return 0;
}

static struct elem *find(uint32_t key)
{
	map_rcu_read_lock();
	struct htab_node *n = tagtab_lookup(&table, tagtab_hash(&table, &key), &key);
	map_rcu_read_unlock();
	return n ? (struct elem *)n : NULL;
}

static unsigned overflow_length(void)
{
	unsigned len = 0;
	struct htab_node *n = atomic_load(&table.buckets[0].overflow);
	while (n) {
		len++;
		struct nulls_node *p = atomic_load(&n->chain.next);
		n = p ? htab_node_of(p) : NULL;
	}
	return len;
}

static unsigned used_slots(void)
{
	unsigned used = 0;
	for (int s = 0; s < TAGTAB_SLOTS; s++)
		used += atomic_load(&table.buckets[0].tag[s]) != 0;
	return used;
}

/* The overflow is not empty only while every slot is used. */
static void expect_overflow_only_when_full(void)
{
	cr_expect(overflow_length() == 0 || used_slots() == TAGTAB_SLOTS,
		  "%u keys overflow with %u of %u slots used", overflow_length(),
		  used_slots(), TAGTAB_SLOTS);
}

static int slot_holding(const struct elem *e)
{
	for (int s = 0; s < TAGTAB_SLOTS; s++)
		if (atomic_load(&table.buckets[0].tag[s]) &&
		    atomic_load(&table.buckets[0].index[s]) == e->node.index)
			return s;
	return -1;
}

static void fill(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(put(&elems[i], 100 + i, i, MAP_NOEXIST), 0);
}

Test(tagtab, keys_beyond_eight_overflow_and_are_all_found)
{
	fill(20);
	cr_assert_eq(used_slots(), 8);
	cr_assert_eq(overflow_length(), 12);
	for (unsigned i = 0; i < 20; i++) {
		struct elem *e = find(100 + i);
		cr_assert_eq(e, &elems[i], "key %u", 100 + i);
		cr_assert_eq(e->value, i);
	}
	cr_assert_null(find(99));
	cr_assert_null(find(120));
}

Test(tagtab, a_delete_from_a_slot_pulls_the_overflow_in)
{
	fill(10);
	uint32_t key = 100; /* the first key took a slot */
	cr_assert_eq(tagtab_delete_key(&table, &key), &elems[0].node);
	cr_assert_eq(used_slots(), 8, "an overflow key moved into the slot");
	cr_assert_eq(overflow_length(), 1);
	cr_assert_null(find(100));
	for (unsigned i = 1; i < 10; i++)
		cr_assert_eq(find(100 + i), &elems[i], "key %u", 100 + i);
	cr_assert_null(tagtab_delete_key(&table, &key), "deleted twice");
	/* empty the overflow, then the slots: the invariant holds throughout */
	for (uint32_t k = 101; k < 110; k++) {
		cr_assert_not_null(tagtab_delete_key(&table, &k));
		expect_overflow_only_when_full();
	}
	cr_expect_eq(used_slots() + overflow_length(), 0);
}

Test(tagtab, unlink_removes_only_a_node_still_linked)
{
	fill(12);
	cr_assert(tagtab_unlink_node(&table, &elems[11].node), "in the overflow");
	cr_assert(tagtab_unlink_node(&table, &elems[3].node), "in a slot");
	cr_assert_not(tagtab_unlink_node(&table, &elems[3].node));
	cr_assert_not(tagtab_unlink_node(&table, &elems[30].node), "never linked");
	cr_assert_null(find(111));
	cr_assert_null(find(103));
	cr_assert_eq(used_slots() + overflow_length(), 10);
	expect_overflow_only_when_full();
	for (unsigned i = 0; i < 11; i++)
		if (i != 3)
			cr_assert_eq(find(100 + i), &elems[i], "key %u", 100 + i);
}

Test(tagtab, a_replace_keeps_the_place_and_checks_flags)
{
	fill(10);
	int slot = slot_holding(&elems[2]);
	cr_assert_geq(slot, 0, "key 102 took a slot");
	cr_assert_eq(put(&elems[20], 102, 7, MAP_NOEXIST), -EEXIST);
	cr_assert_eq(put(&elems[20], 555, 7, MAP_EXIST), -ENOENT);
	cr_assert_eq(put(&elems[20], 102, 7, MAP_EXIST), 0, "a slot's key");
	cr_assert_eq(put(&elems[21], 109, 8, MAP_ANY), 0, "an overflow key");
	cr_assert_eq(find(102), &elems[20]);
	cr_assert_eq(find(102)->value, 7);
	cr_expect_eq(slot_holding(&elems[20]), slot, "the replace moved the key");
	cr_expect_eq(slot_holding(&elems[21]), -1, "key 109 stays in the overflow");
	cr_assert_eq(find(109), &elems[21]);
	cr_assert_eq(used_slots(), 8);
	cr_assert_eq(overflow_length(), 2);
	cr_assert_not(tagtab_unlink_node(&table, &elems[2].node),
		      "the replaced node left the table");
}

Test(tagtab, get_next_key_visits_every_key_once)
{
	fill(20);
	uint32_t key = 0, next;
	const void *prev = NULL;
	unsigned seen[20] = { 0 }, n = 0;
	map_rcu_read_lock();
	while (tagtab_next_key_rcu(&table, prev, &next) == 0) {
		cr_assert(next >= 100 && next < 120, "key %u", next);
		seen[next - 100]++;
		key = next;
		prev = &key;
		cr_assert(++n <= 20, "more keys than the table holds");
	}
	uint32_t absent = 7, first;
	cr_assert_eq(tagtab_next_key_rcu(&table, NULL, &first), 0);
	cr_assert_eq(tagtab_next_key_rcu(&table, &absent, &next), 0);
	cr_expect_eq(next, first, "an absent key restarts at the first key");
	map_rcu_read_unlock();
	for (unsigned i = 0; i < 20; i++)
		cr_assert_eq(seen[i], 1, "key %u seen %u times", 100 + i, seen[i]);
}

/*
 * Keys 100..109 stay in the table while one writer replaces each of them
 * (its element swapped for a spare copy: in a slot, or in the overflow)
 * and deletes and re-inserts keys 200..203, which were inserted first: the
 * first deletes pull stayers from the overflow into the slots.  Readers
 * must find every stayer every time (a replace swaps one index under the
 * seqlock, so unlike a chain's, it never hides the key), and never a key
 * of neither set.
 */
static atomic_bool stop;

static void *churn(void *arg)
{
	(void)arg;
	map_thread_online();
	for (unsigned round = 1; !atomic_load(&stop); round++) {
		for (uint32_t i = 0; i < 4; i++) {
			uint32_t key = 200 + i;
			struct elem *e = &elems[20 + i];
			if (round & 1)
				cr_assert_eq(tagtab_delete_key(&table, &key),
					     &e->node);
			else
				cr_assert_eq(put(e, key, round, MAP_NOEXIST), 0);
		}
		for (uint32_t i = 0; i < 10; i++)
			cr_assert_eq(put(&elems[(round & 1) * 10 + i], 100 + i,
					 round, MAP_EXIST), 0);
		map_rcu_quiescent();
	}
	map_thread_offline();
	return NULL;
}

Test(tagtab, readers_racing_a_writer_miss_no_key_that_stays)
{
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(put(&elems[20 + i], 200 + i, 0, MAP_NOEXIST), 0);
	for (unsigned i = 0; i < 10; i++)
		cr_assert_eq(put(&elems[10 + i], 100 + i, 0, MAP_NOEXIST), 0);
	cr_assert_eq(overflow_length(), 6);
	pthread_t writer;
	cr_assert_eq(pthread_create(&writer, NULL, churn, NULL), 0);
	unsigned long misses = 0, bogus = 0;
	for (unsigned r = 0; r < 3000000; r++) {
		uint32_t key = 100 + r % 10;
		struct elem *e = find(key);
		misses += !e || e->key != key;
		uint32_t other = 300 + r % 10;
		bogus += find(other) != NULL;
	}
	atomic_store(&stop, true);
	pthread_join(writer, NULL);
	cr_assert_eq(misses, 0, "a key that stayed was missed %lu times", misses);
	cr_assert_eq(bogus, 0);
	cr_assert_eq(used_slots(), 8, "the overflow's keys moved into slots");
}

/* Many buckets: the walk crosses them, and unlink finds each node's own. */
Test(tagtab, get_next_key_and_unlink_across_buckets)
{
	struct tagtab big;
	cr_assert_eq(tagtab_init(&big, 64, sizeof(uint32_t), 0, (uint8_t *)elems,
				 sizeof(*elems), offsetof(struct elem, node),
				 N_ELEMS), 0);
	cr_assert_eq(big.n_buckets, 16);
	for (uint32_t i = 0; i < N_ELEMS; i++) {
		uint32_t key = 1000 + i;
		uint64_t v = i;
		struct tagtab_update u;
		cr_assert_eq(tagtab_update_begin(&big, &key, tagtab_hash(&big, &key),
						 MAP_NOEXIST, &u), 0);
		tagtab_update_commit(&big, &u, &elems[i].node, &key, &v, sizeof(v));
	}
	unsigned seen[N_ELEMS] = { 0 }, n = 0;
	uint32_t key, next;
	map_rcu_read_lock();
	for (int err = tagtab_next_key_rcu(&big, NULL, &next); !err;
	     err = tagtab_next_key_rcu(&big, &key, &next)) {
		cr_assert(next >= 1000 && next < 1000 + N_ELEMS, "key %u", next);
		seen[next - 1000]++;
		key = next;
		cr_assert(++n <= N_ELEMS);
	}
	map_rcu_read_unlock();
	for (unsigned i = 0; i < N_ELEMS; i++)
		cr_expect_eq(seen[i], 1, "key %u seen %u times", 1000 + i, seen[i]);
	for (unsigned i = 0; i < N_ELEMS; i += 2)
		cr_assert(tagtab_unlink_node(&big, &elems[i].node), "node %u", i);
	for (unsigned i = 0; i < N_ELEMS; i++) {
		uint32_t k = 1000 + i;
		map_rcu_read_lock();
		struct htab_node *found = tagtab_lookup(&big, tagtab_hash(&big, &k), &k);
		map_rcu_read_unlock();
		cr_expect_eq(found, i % 2 ? &elems[i].node : NULL, "key %u", k);
	}
	tagtab_destroy(&big);
}
