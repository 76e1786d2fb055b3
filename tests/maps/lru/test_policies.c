/* SPDX-License-Identifier: MIT */
/*
 * lru/clock and lru/partitioned on one thread, against expectations worked
 * out by hand.
 *
 * lru/clock must evict exactly what libCacheSim's Clock (one bit) evicts.
 * Sequences of requests are letters, as tests/maps/lru/lru_letters.h says.
 * Clock's queue is written head (newest) first, a referenced key with a 1.
 *
 * lru/partitioned must follow eBPF for Windows' rules: P = min(ncpus, 8),
 * the cpu picks the partition, hot_limit = max(max_entries / P / 10, 1),
 * a hot list over its limit is spliced onto the cold list with a new
 * generation, and the reaper compares the partitions' oldest cold keys.
 * Its dump shows each partition's lists newest first, keys in hex (key 'A'
 * is 41, key 41 is 29), each with its last use in microseconds, which the
 * checks below leave out.  Last uses are read from a clock that advances
 * once a tick (4 ms here); where the order of two uses matters, the test
 * waits for the next tick between them.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maps/base/cpu.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "tests/maps/lru/lru_letters.h"

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_cpu_release();
	map_thread_offline();
}

TestSuite(lru_clock, .init = set_up, .fini = tear_down, .timeout = 30);
TestSuite(lru_partitioned, .init = set_up, .fini = tear_down, .timeout = 30);
TestSuite(lru_policies, .init = set_up, .fini = tear_down, .timeout = 30);

/* Waits until lru/partitioned's clock (CLOCK_MONOTONIC_COARSE) has moved
 * on, so that a use from now on is later than every use before. */
static void next_tick(void)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &start);
	do {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	} while (now.tv_sec == start.tv_sec && now.tv_nsec == start.tv_nsec);
}

/* --- lru/clock ------------------------------------------------------------------ */

/* A request string on a fresh lru/clock of capacity 3. */
static void expect_clock_evictions(const char *seq, const char *want)
{
	lru_expect_evictions("lru/clock", 3, seq, want);
}

/*
 * Capacity 3, "ABCADEBDFBG".  Clock's queue, head first:
 *   A B C  misses         [C B A]
 *   A      hit            [C B A1]
 *   D      A1: cleared, to the head [A C B]; B leaves       [D A C]
 *   E      C leaves                                          [E D A]
 *   B      A leaves                                          [B E D]
 *   D      hit                                               [B E D1]
 *   F      D1 cleared [D B E]; E leaves                      [F D B]
 *   B      hit                                               [F D B1]
 *   G      B1 cleared [B F D]; D leaves                      [G B F]
 * FIFO (a hit marks nothing) has D evict A.
 */
Test(lru_clock, evicts_what_libcachesims_clock_evicts)
{
	expect_clock_evictions("ABCADEBDFBG", "---.BCA.E.D");
}

/*
 * One bit, not a counter: "ABCAADEF".  A is hit twice but holds one bit.
 *   D: A cleared [A C B], B leaves [D A C];  E: C leaves [E D A];
 *   F: A (cleared at D) leaves.
 * Clock with n_bit_counter=2 keeps A through F (freq 2 -> 1 -> 0) and
 * evicts D there.
 */
Test(lru_clock, a_hit_sets_one_bit_however_often)
{
	expect_clock_evictions("ABCAADEF", "---..BCA");
}

/*
 * Every key referenced: "ABCABCD".  D's eviction clears A, B and C and
 * comes round to A, which leaves: one pass, four nodes visited.  A sweep
 * that gave up after one turn (or took the last key it cleared) differs.
 */
Test(lru_clock, with_every_bit_set_the_hand_turns_once)
{
	struct map *m = lru_make("lru/clock", 3, 1);
	cr_expect_str_eq(lru_replay(m, "ABCABCD"), "---...A");
	struct map_work w = map_work_of(m, -1);
	cr_expect_eq(w.evictions, 1);
	cr_expect_eq(w.refills, 1);
	cr_expect_eq(w.nodes_scanned, 4);
	map_destroy(m);
}

/*
 * After "ABCAD" the hand rests on C: the ring reads D A C newest first,
 * the hand's key last.  E then evicts C at once, visiting one node.  A
 * hand that went back each time to the oldest insert still there (A,
 * cleared by D's sweep) would evict A.
 */
Test(lru_clock, the_hand_keeps_its_place_between_evictions)
{
	struct map *m = lru_make("lru/clock", 3, 1);
	cr_expect_str_eq(lru_replay(m, "ABCAD"), "---.B");
	lru_expect_in_dump(m, "ring (3): 44 41 [hand]43\n");
	uint64_t scanned = map_work_of(m, -1).nodes_scanned;
	cr_expect_str_eq(lru_replay(m, "E"), "C");
	cr_expect_eq(map_work_of(m, -1).nodes_scanned - scanned, 1);
	map_destroy(m);
}

/*
 * A key that gets a free element goes just behind the hand, as Clock's
 * insert goes to the head: "ABCADaEFG".
 *   after D [D A C]; delete A [D C]; E fills the free element [E D C];
 *   F: C leaves [F E D];  G: D leaves.
 * An insert at the ring's sentinel instead (a fixed "head" that the hand
 * has moved away from) puts E just ahead of C, and G evicts E.
 */
Test(lru_clock, an_insert_goes_just_behind_the_hand)
{
	expect_clock_evictions("ABCADaEFG", "---.Bx-CD");
}

/*
 * Deleting the key under the hand moves the hand on: "ABCADcEFG".
 *   after D [D A C], hand on C; delete C [D A]; E [E D A];
 *   F: A leaves;  G: D leaves.
 * A hand moved the other way (to D, the newest) would evict D at F.
 */
Test(lru_clock, a_delete_under_the_hand_moves_it_on)
{
	expect_clock_evictions("ABCADcEFG", "---.Bx-AD");
}

/* A syscall lookup is no hit: after "ABC" and a lookup_copy of A, D
 * evicts A.  A lookup_copy that set the bit would have D evict B. */
Test(lru_clock, a_syscall_lookup_sets_no_bit)
{
	struct map *m = lru_make("lru/clock", 3, 1);
	cr_expect_str_eq(lru_replay(m, "ABC"), "---");
	cr_expect(lru_copy_out(m, 'A'));
	cr_expect_str_eq(lru_replay(m, "D"), "A");
	map_destroy(m);
}

/*
 * A replace is a hit in place: "AB", then A replaced (the map has room,
 * so nothing is evicted), then "CDEF".
 *   [B A1]; C [C B A1]; D: A cleared [A C B], B leaves [D A C];
 *   E: C leaves [E D A];  F: A leaves.
 * The new element left just behind the hand, as a new key is, is [A1 B]:
 * then F evicts D.  Left unmarked in place, D evicts A.
 */
Test(lru_clock, a_replace_keeps_the_place_and_sets_the_bit)
{
	struct map *m = lru_make("lru/clock", 3, 1);
	cr_expect_str_eq(lru_replay(m, "AB"), "--");
	uint8_t key = 'A';
	uint64_t v = 7;
	cr_assert_eq(map_update(m, &key, &v, MAP_ANY), 0);
	cr_expect_str_eq(lru_replay(m, "CDEF"), "-BCA");
	map_destroy(m);
}

/* --- lru/partitioned ------------------------------------------------------------- */

/* P = min(ncpus, 8), and a key is used in partition slot % P. */
Test(lru_partitioned, the_cpu_picks_the_partition)
{
	struct map *m = lru_make("lru/partitioned", 64, 3);
	lru_expect_in_dump(m, "3 partitions");
	map_destroy(m);

	m = lru_make("lru/partitioned", 64, 12);
	lru_expect_in_dump(m, "8 partitions");
	cr_assert_eq(map_cpu_claim(10), 10);
	lru_insert(m, 1);
	lru_expect_in_dump(m, "partition 2: generation 1, hot 1, cold 0");
	lru_expect_in_dump(m, "partition 0: generation 1, hot 0, cold 0");
	map_destroy(m);
}

/*
 * max_entries 80 over 2 partitions: hot_limit = 80 / 2 / 10 = 4.  Keys
 * 1..4 inserted on slot 0 are hot in partition 0; the fifth makes five,
 * over the limit, and the hot list becomes the cold list's tail in
 * generation 2.  A limit of max_entries / 10 (8), or a splice on reaching
 * the limit rather than passing it, differs.
 */
Test(lru_partitioned, a_full_hot_list_is_spliced_onto_the_cold_list)
{
	struct map *m = lru_make("lru/partitioned", 80, 2);
	for (uint8_t k = 1; k <= 4; k++)
		lru_insert(m, k);
	lru_expect_in_dump(m, "partition 0: generation 1, hot 4, cold 0");
	lru_expect_in_dump(m, "  hot: 04 03 02 01\n");
	lru_insert(m, 5);
	lru_expect_in_dump(m, "partition 0: generation 2, hot 0, cold 5");
	lru_expect_in_dump(m, "  cold: 05 04 03 02 01\n");
	map_destroy(m);
}

/* max_entries 40 on one partition: hot_limit 4.  Filling 1..40 splices
 * every fifth insert: generation 9, all 40 cold, 1 the oldest. */
static struct map *full_single_partition_map(void)
{
	struct map *m = lru_make("lru/partitioned", 40, 1);
	for (uint8_t k = 1; k <= 40; k++)
		lru_insert(m, k);
	lru_expect_in_dump(m, "partition 0: generation 9, hot 0, cold 40");
	return m;
}

/*
 * Then 1 and 2 are used (hot again) and 41 is inserted.
 * Windows's failed first try makes the hot list three keys, within the
 * limit, so nothing is spliced; the reaper takes the cold head, 3; 41
 * joins 1 and 2 on the hot list.  A reaper that took hot keys (or one list
 * in insertion order) evicts 1.
 */
Test(lru_partitioned, hot_keys_are_never_candidates)
{
	struct map *m = full_single_partition_map();
	cr_assert(lru_use(m, 1) && lru_use(m, 2));
	lru_insert(m, 41);
	cr_expect(!lru_present(m, 3));
	cr_expect(lru_present(m, 1) && lru_present(m, 2));
	lru_expect_in_dump(m, "partition 0: generation 9, hot 3, cold 37");
	lru_expect_in_dump(m, "  hot: 29 02 01\n");
	map_destroy(m);
}

/*
 * An insert into a full map counts twice toward the hot limit, as in
 * Windows, whose first try puts the key on the hot list before the table
 * refuses it.  After the fill, 1..4 are used (hot again) and 41 is
 * inserted: the failed try makes five hot keys, over the limit, so 1..4
 * are spliced onto the cold tail (generation 10); the reaper takes the
 * cold head, 5; 41 is hot alone.  Without the failed try, 41
 * joins the four, which splices all five: hot 0, cold 40.
 */
Test(lru_partitioned, an_insert_into_a_full_map_counts_twice_toward_the_limit)
{
	struct map *m = full_single_partition_map();
	for (uint8_t k = 1; k <= 4; k++)
		cr_assert(lru_use(m, k));
	lru_insert(m, 41);
	cr_expect(!lru_present(m, 5));
	lru_expect_in_dump(m, "partition 0: generation 10, hot 1, cold 39");
	lru_expect_in_dump(m, "  hot: 29\n");
	map_destroy(m);
}

/* A syscall lookup is no use: after lookup_copy of 1, the reaper still
 * takes 1, the oldest.  A lookup_copy that marked would move 1 to the hot
 * list, and 2 would go. */
Test(lru_partitioned, a_syscall_lookup_is_no_use)
{
	struct map *m = full_single_partition_map();
	cr_expect(lru_copy_out(m, 1));
	lru_insert(m, 41);
	cr_expect(!lru_present(m, 1));
	cr_expect(lru_present(m, 2));
	map_destroy(m);
}

/*
 * Two partitions, max_entries 8: hot_limit 1, so every second key used in
 * a partition splices its hot list.  Slot 0 inserts 1..4, then slot 1
 * inserts 5..8, at times t1 <= ... <= t8 (a tie when a tick has not
 * passed): cold0 = 1 2 3 4, cold1 = 5 6 7 8, oldest first.  A tick later
 * slot 1 uses 1, at u > t8: 1 is hot in partition 1 and its link in
 * partition 0 is stale.
 *
 * Slot 1 inserts 9: its failed first try splices partition 1 (1 goes
 * cold there, generation 4).  The reaper's pass: partition 0's head is 1,
 * whose newest use (u) is not partition 0's (t1): stale, dropped, and the
 * pass moves on without looking at 2; partition 1's head is 5, whose
 * newest use is its own: the only candidate, so 5 goes, though 2 is no
 * younger.  Then slot 0 inserts 10: heads 2 (t2) and 6 (t6 >= t2, a tie
 * going to partition 0): 2 goes.
 *
 * A reaper that looked on past a stale head evicts 2 first; one that
 * ignored staleness and compared each partition's own time evicts 1 (used
 * last of all); one that compared newest uses but kept the stale link
 * evicts 5, then 6 rather than 2 (1 stays at partition 0's head).
 */
Test(lru_partitioned, the_reaper_compares_the_partitions_oldest_cold_keys)
{
	struct map *m = lru_make("lru/partitioned", 8, 2);
	for (uint8_t k = 1; k <= 4; k++)
		lru_insert(m, k);
	cr_assert_eq(map_cpu_claim(1), 1);
	for (uint8_t k = 5; k <= 8; k++)
		lru_insert(m, k);
	lru_expect_in_dump(m, "  cold: 04 03 02 01\n");
	lru_expect_in_dump(m, "  cold: 08 07 06 05\n");
	next_tick();
	cr_assert(lru_use(m, 1));
	lru_insert(m, 9);
	cr_expect(!lru_present(m, 5), "5 should have gone");
	cr_expect(lru_present(m, 1) && lru_present(m, 2));
	lru_expect_in_dump(m, "partition 0: generation 3, hot 0, cold 3");
	cr_assert_eq(map_cpu_claim(0), 0);
	lru_insert(m, 10);
	cr_expect(!lru_present(m, 2), "2 should have gone");
	cr_expect(lru_present(m, 1) && lru_present(m, 6));
	map_destroy(m);
}

/*
 * A replace makes a new entry, used in the replacing cpu's partition; the
 * old one leaves every partition.  Key 1 inserted on slot 0 and replaced
 * on slot 1 is on partition 1's hot list only.  A replace that kept the
 * old entry's history leaves 1 hot in partition 0.
 */
Test(lru_partitioned, a_replace_is_a_new_entry_in_the_cpus_partition)
{
	struct map *m = lru_make("lru/partitioned", 80, 2);
	lru_insert(m, 1);
	cr_assert_eq(map_cpu_claim(1), 1);
	uint8_t key = 1;
	uint64_t v = 2;
	cr_assert_eq(map_update(m, &key, &v, MAP_EXIST), 0);
	lru_expect_in_dump(m, "partition 0: generation 1, hot 0, cold 0");
	lru_expect_in_dump(m, "partition 1: generation 1, hot 1, cold 0");
	map_destroy(m);
}

/* A delete locks every partition in turn: with 3 partitions, the bucket
 * lock and three more.  A delete that only visited its own cpu's
 * partition would leave the key's links in the others. */
Test(lru_partitioned, a_delete_locks_every_partition)
{
	struct map *m = lru_make("lru/partitioned", 64, 3);
	lru_insert(m, 1);
	uint64_t locks = map_work_of(m, 0).locks;
	uint8_t key = 1;
	cr_assert_eq(map_delete(m, &key), 0);
	cr_expect_eq(map_work_of(m, 0).locks - locks, 1 + 3);
	map_destroy(m);
}

/* --- both ------------------------------------------------------------------------------ */

/*
 * Neither evicts before the map is full (.evicts_early = 0): all
 * max_entries keys fit.  For lru/partitioned, inserted from one cpu, that
 * takes the other partition's free elements: one that reaped once its own
 * partition's free list ran dry would evict.
 */
static void holds_max_entries(const char *design)
{
	struct map *m = lru_make(design, 8, 2);
	cr_expect_eq(m->ops->evicts_early, 0);
	for (uint8_t k = 1; k <= 8; k++)
		lru_insert(m, k);
	for (uint8_t k = 1; k <= 8; k++)
		cr_expect(lru_present(m, k), "%s: key %u", design, k);
	cr_expect_eq(map_work_of(m, -1).evictions, 0, "%s", design);
	map_destroy(m);
}

Test(lru_policies, clock_holds_max_entries)
{
	holds_max_entries("lru/clock");
}

Test(lru_policies, partitioned_holds_max_entries)
{
	holds_max_entries("lru/partitioned");
}

/* No per-CPU mode: BPF_F_NO_COMMON_LRU is -EINVAL, as for lru/global. */
static void refuses_no_common_lru(const char *design)
{
	struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = 64,
			      .flags = MAP_F_NO_COMMON_LRU };
	struct map *m = NULL;
	cr_expect_eq(map_create(map_find(design), &a, &m), -EINVAL, "%s",
		     design);
	cr_expect_null(m);
}

Test(lru_policies, clock_refuses_no_common_lru)
{
	refuses_no_common_lru("lru/clock");
}

Test(lru_policies, partitioned_refuses_no_common_lru)
{
	refuses_no_common_lru("lru/partitioned");
}

/* The dot dump is one digraph with a node per key. */
static void dumps_dot(const char *design)
{
	struct map *m = lru_make(design, 8, 2);
	lru_insert(m, 0xab);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_DOT), 0);
	fclose(f);
	cr_expect(strncmp(buf, "digraph", 7) == 0, "%s:\n%s", design, buf);
	cr_expect(strstr(buf, "label=\"ab") != NULL, "%s: key ab not drawn:\n%s",
		  design, buf);
	cr_expect(len >= 2 && strcmp(buf + len - 2, "}\n") == 0, "%s", design);
	free(buf);
	map_destroy(m);
}

Test(lru_policies, clock_dumps_dot)
{
	dumps_dot("lru/clock");
}

Test(lru_policies, partitioned_dumps_dot)
{
	dumps_dot("lru/partitioned");
}
