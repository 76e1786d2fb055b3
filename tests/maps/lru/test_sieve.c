/* SPDX-License-Identifier: MIT */
/*
 * lru/sieve and lru/sieve_percpu on one thread.
 *
 * lru/sieve must evict exactly what libCacheSim's Sieve.c (commit
 * 11c93a3513bac3693cbc5b056623923f30ec0c3e) evicts.  Sequences of requests
 * are letters, as tests/maps/lru/lru_letters.h says; the expectations are
 * worked out by hand from Sieve.c's rules: a miss inserts at the head
 * unvisited, a hit sets the visited bit, an eviction starts at the hand
 * (the tail when the hand is NULL), clears visited bits stepping towards
 * the head (from the head, on to the tail), evicts the first unvisited
 * key and leaves the hand on its neighbour towards the head (NULL when it
 * was the head); a delete under the hand moves the hand the same way.
 * Queues are written head (newest) first, a visited key with a *, the
 * hand as ^.
 *
 * lru/sieve_percpu is SIEVE with a ring per cpu slot: on one slot it is lru/sieve,
 * so the same sequences hold for it (its replace differs, but not in what
 * the replace test sees); its rings share their free elements and a small
 * ring takes its victims from the largest.  lru/assoc is SIEVE in each set
 * of 8 ways: a map of 8 entries or fewer is one set, so the sequences
 * hold for it too.
 * Both must miss no more than 1.02 x exact LRU (lru/global) on a zipf 0.99
 * stream.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/workload/workload.h"
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

TestSuite(lru_sieve, .init = set_up, .fini = tear_down, .timeout = 60);
TestSuite(lru_sieve_percpu, .init = set_up, .fini = tear_down, .timeout = 60);
TestSuite(lru_assoc, .init = set_up, .fini = tear_down, .timeout = 60);

static const char *const sieves[] = { "lru/sieve", "lru/sieve_percpu", "lru/assoc" };
#define N_SIEVES (sizeof(sieves) / sizeof(sieves[0]))

/* --- letter sequences (lru/sieve_percpu on one slot: one ring) ----------------------- */

/*
 * The hand keeps its place.  Capacity 3, "ABCADB":
 *   A B C  misses                     C B A        hand NULL
 *   A      hit                        C B A*
 *   D      from the tail: A* cleared, B unvisited leaves; the hand stays
 *          on B's neighbour towards the head, C      D ^C A
 *   B      from C (not from the tail, where A now has no bit): C leaves,
 *          the hand on D                            B ^D A
 * LRU would evict B then C too; a hand that restarted at the tail would
 * evict A for the second miss.
 */
Test(lru_sieve, the_hand_keeps_its_place_between_evictions)
{
	for (size_t i = 0; i < N_SIEVES; i++)
		lru_expect_evictions(sieves[i], 3, "ABCADB", "---.BC");
}

/*
 * The hand wraps from the head to the tail.  Capacity 3, "ABCABCDECF":
 *   A B C  misses; A B C hits          C* B* A*      hand NULL
 *   D      from the tail: A*, B*, C* (the head) cleared, wrap to the
 *          tail: A unvisited leaves, the hand on B   D C ^B
 *   E      B leaves, the hand on C                   E D ^C
 *   C      hit                                       E D ^C*
 *   F      C* cleared, D leaves, the hand on E       F ^E C
 */
Test(lru_sieve, the_hand_wraps_from_the_head_to_the_tail)
{
	for (size_t i = 0; i < N_SIEVES; i++)
		lru_expect_evictions(sieves[i], 3, "ABCABCDECF", "---...AB.D");
}

/*
 * Evicting the head leaves the hand NULL: the next eviction starts at the
 * tail.  Capacity 3, "ABCBCDEF":
 *   A B C, B C hits                    C* B* A       hand NULL
 *   D      A leaves, the hand on B                   D C* ^B*
 *   E      B*, C* cleared, D (the head) leaves: hand NULL    E C B
 *   F      from the tail: B leaves                   F E C
 */
Test(lru_sieve, evicting_the_head_sends_the_hand_to_the_tail)
{
	for (size_t i = 0; i < N_SIEVES; i++)
		lru_expect_evictions(sieves[i], 3, "ABCBCDEF", "---..ADB");
}

/*
 * A delete under the hand moves the hand towards the head.  Capacity 4,
 * "ABCDAEcFG":
 *   A B C D, A hit                     D C B A*      hand NULL
 *   E      A* cleared, B leaves, hand on C           E D ^C A
 *   c      delete C under the hand: the hand on D    E ^D A
 *   F      a free element: no eviction               F E ^D A
 *   G      D leaves (not A, the tail), hand on E     G F ^E A
 */
Test(lru_sieve, a_delete_under_the_hand_moves_it_towards_the_head)
{
	for (size_t i = 0; i < N_SIEVES; i++)
		lru_expect_evictions(sieves[i], 4, "ABCDAEcFG", "----.Bx-D");
}

/*
 * A full set of 8 (lru/assoc's whole set) wraps like any queue.  Capacity
 * 8, "ABCDEFGH", hits on all but C, then "IJ":
 *   I      from the tail: A*, B* cleared, C leaves, the hand on D*
 *   J      D* to H* cleared, I (unvisited, the head) leaves: hand NULL
 */
Test(lru_sieve, eight_keys_wrap_and_the_head_can_leave)
{
	for (size_t i = 0; i < N_SIEVES; i++)
		lru_expect_evictions(sieves[i], 8, "ABCDEFGHABDEFGHIJK",
				     "--------.......CIA");
}

/* Keys in the dumps are hex: 'A' is 41. */
Test(lru_sieve, dump_shows_the_queue_newest_first_and_the_hand)
{
	struct map *m = lru_make("lru/sieve", 3, 1);
	lru_replay(m, "ABCA");
	/* hand NULL: drawn on the tail, where it starts */
	lru_expect_in_dump(m, "queue (3): 43 42 [hand]41*");
	lru_replay(m, "D");
	lru_expect_in_dump(m, "queue (3): 44 [hand]43 41\n");
	lru_expect_in_dump(m, "queue free: 0 elements");

	char *dot = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&dot, &len);
	cr_assert_not_null(f);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_DOT), 0);
	fclose(f);
	cr_expect(strncmp(dot, "digraph", 7) == 0, "%s", dot);
	cr_expect(strstr(dot, "[label=\"43\", penwidth=3") != NULL,
		  "hand not drawn on 43:\n%s", dot);
	cr_expect(strstr(dot, "[label=\"44\", penwidth=3") == NULL, "%s", dot);
	free(dot);
	map_destroy(m);
}

/*
 * A replace is a hit: the new element stands where the old one stood,
 * visited.  Capacity 4, "ABC" (one element free), then B replaced by
 * BPF_EXIST (the free element: nothing evicted):
 *   C B* A                 one free          hand NULL
 *   D      the free one                      D C B* A
 *   E      A (the tail) leaves, hand on B*   E D C ^B*
 *   F      B* cleared, C leaves, hand on D   F E ^D B
 *   G      D leaves, hand on E               G F ^E B
 * B outlives C and D, inserted before and after it; had the replace put B
 * at the head unvisited, it would have left at G.
 */
Test(lru_sieve, a_replace_is_a_hit_in_place)
{
	for (size_t i = 0; i < N_SIEVES; i++) {
		struct map *m = lru_make(sieves[i], 4, 1);
		lru_replay(m, "ABC");
		uint8_t key = 'B';
		uint64_t v = 9;
		cr_assert_eq(map_update(m, &key, &v, MAP_EXIST), 0);
		cr_expect_eq(map_work_of(m, -1).evictions, 0, "%s", sieves[i]);
		cr_expect_str_eq(lru_replay(m, "DEFG"), "-ACD", "%s",
				 sieves[i]);
		cr_expect(lru_present(m, 'B'), "%s: the replaced key left",
			  sieves[i]);
		map_destroy(m);
	}
}

/* Holds max_entries: that many keys go in without an eviction. */
Test(lru_sieve, holds_max_entries)
{
	struct map *m = lru_make("lru/sieve", 26, 1);
	char seq[27];
	for (int i = 0; i < 26; i++)
		seq[i] = (char)('A' + i);
	seq[26] = '\0';
	cr_expect_str_eq(lru_replay(m, seq), "--------------------------");
	cr_expect_eq(map_work_of(m, -1).evictions, 0);
	map_destroy(m);
}

Test(lru_sieve, refuses_no_common_lru)
{
	for (size_t i = 0; i < N_SIEVES; i++) {
		struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
				      .value_size = 8, .max_entries = 1024,
				      .flags = MAP_F_NO_COMMON_LRU };
		struct map *m = NULL;
		cr_expect_eq(map_create(map_find(sieves[i]), &a, &m), -EINVAL,
			     "%s", sieves[i]);
		cr_expect_null(m);
	}
}

/* --- lru/sieve_percpu's rings -------------------------------------------------------- */

static struct map *make_map(const char *design, uint32_t max_entries)
{
	struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = max_entries,
			      .flags = MAP_F_ZERO_SEED, .ncpus = 8 };
	struct map *m = NULL;
	cr_assert_eq(map_create(map_find(design), &a, &m), 0, "%s", design);
	return m;
}

static uint32_t count_keys(struct map *m)
{
	uint32_t cur, next, n = 0;
	for (int err = map_get_next_key(m, NULL, &next); !err;
	     err = map_get_next_key(m, &cur, &next)) {
		n++;
		cur = next;
	}
	return n;
}

static bool has_key(struct map *m, uint32_t key)
{
	uint64_t v;
	return map_lookup_copy(m, &key, &v) == 0;
}

/*
 * 1003 entries on 8 slots: each ring starts with 125 or 126 free
 * elements.  One thread (slot 0) takes its own, then the other rings'
 * free ones before it evicts anything: 1003 keys go in without an
 * eviction, and ring 0 then holds them all.  2006 more (no hits: SIEVE is
 * then FIFO) evict 0..2005 and leave 2006..3008.
 */
Test(lru_sieve_percpu, one_slot_gets_every_element_before_evicting)
{
	struct map *m = make_map("lru/sieve_percpu", 1003);
	uint64_t v = 1;
	uint32_t k = 0;
	for (; k < 1003; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	cr_expect_eq(map_work_of(m, -1).evictions, 0);
	for (; k < 3 * 1003; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	cr_expect_eq(count_keys(m), 1003);
	cr_expect_eq(map_work_of(m, -1).evictions, 2 * 1003);
	cr_expect(!has_key(m, 2005) && has_key(m, 2006) && has_key(m, 3008));
	char *text = lru_state_text(m);
	cr_expect(strstr(text, "rings: 8, free: 0, a ring below 62 keys") &&
		  strstr(text, "ring 0 (1003):") && strstr(text, "ring 1 (0):"),
		  "%s", text);
	free(text);

	/*
	 * Slot 1's ring is empty, below half its fair share (1003 / 8 / 2 =
	 * 62): its inserts take ring 0's SIEVE victims, the oldest keys
	 * 2006..2015, and keep them in ring 1.
	 */
	cr_assert_eq(map_cpu_claim(1), 1);
	for (k = 5000; k < 5010; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	cr_expect_eq(map_work_of(m, 1).evictions, 10);
	cr_expect(!has_key(m, 2015) && has_key(m, 2016) && has_key(m, 5000) &&
		  has_key(m, 5009));
	text = lru_state_text(m);
	cr_expect(strstr(text, "ring 0 (993):") && strstr(text, "ring 1 (10):"),
		  "%s", text);
	free(text);

	/* A delete frees the element in the ring that holds the key, ring
	 * 0's for key 3000, whoever deletes it; slot 1 then takes it. */
	k = 3000;
	cr_assert_eq(map_delete(m, &k), 0);
	k = 6000;
	cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	cr_expect_eq(map_work_of(m, 1).evictions, 10, "a free element was left");
	text = lru_state_text(m);
	cr_expect(strstr(text, "ring 0 (992):") && strstr(text, "ring 1 (11):"),
		  "%s", text);
	free(text);
	map_cpu_release();
	map_destroy(m);
}

/* --- miss ratio on zipf 0.99 ------------------------------------------------- */

enum { ZIPF_KEYS = 100000, ZIPF_REQUESTS = 200000, ZIPF_CACHE = 10000 };

/* The zipf 0.99 key stream of the harness's generator, seed 42. */
static struct stream zipf_stream(void)
{
	struct workload w = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
			      .value_size = 8, .entries = ZIPF_CACHE,
			      .key_range = ZIPF_KEYS, .dist = DIST_ZIPF,
			      .zipf_s = 0.99, .seed = 42 };
	w.mix[OP_LOOKUP] = 100;
	struct key_sampler *s = workload_sampler_new(&w);
	cr_assert_not_null(s);
	struct stream st;
	cr_assert_eq(workload_make_stream(&w, s, 0, ZIPF_REQUESTS, &st), 0);
	workload_sampler_free(s);
	cr_assert_geq(st.len, ZIPF_REQUESTS);
	return st;
}

/* Requests (a program's lookup; an insert on a miss): the miss ratio. */
static double miss_ratio(const char *design, const struct stream *st)
{
	struct map *m = make_map(design, ZIPF_CACHE);
	uint64_t misses = 0, v = 1;
	for (size_t i = 0; i < ZIPF_REQUESTS; i++) {
		uint32_t key = st->ops[i].key;
		map_rcu_read_lock();
		bool hit = map_lookup(m, &key) != NULL;
		map_rcu_read_unlock();
		if (!hit) {
			misses++;
			cr_assert_eq(map_update(m, &key, &v, MAP_NOEXIST), 0);
		}
	}
	map_destroy(m);
	return (double)misses / ZIPF_REQUESTS;
}

Test(lru_sieve_percpu, zipf_miss_ratio_within_2_percent_of_exact_lru)
{
	struct stream st = zipf_stream();
	double lru = miss_ratio("lru/global", &st);
	double sieve = miss_ratio("lru/sieve", &st);
	double fast = miss_ratio("lru/sieve_percpu", &st);
	double assoc = miss_ratio("lru/assoc", &st);
	cr_log_info("zipf 0.99, %d keys, %d requests, cache %d: miss ratio "
		    "lru/global %.4f lru/sieve %.4f lru/sieve_percpu %.4f lru/assoc %.4f",
		    ZIPF_KEYS, ZIPF_REQUESTS, ZIPF_CACHE, lru, sieve, fast, assoc);
	/* the stream must evict, or every design ties */
	cr_assert_gt(lru, 0.1, "lru/global misses %.4f", lru);
	cr_expect_leq(sieve, 1.02 * lru, "lru/sieve %.4f, exact LRU %.4f",
		      sieve, lru);
	cr_expect_leq(fast, 1.02 * lru, "lru/sieve_percpu %.4f, exact LRU %.4f", fast,
		      lru);
	cr_expect_leq(assoc, 1.02 * lru, "lru/assoc %.4f, exact LRU %.4f",
		      assoc, lru);
	workload_stream_free(&st);
}

/*
 * lru/sieve_percpu checks the flags before it evicts: in a full map, an insert of
 * a key that is there, or an update of one that is not, fails and costs
 * no key.  The kernel pops first, so lru/linux_common's failed insert of a
 * present key can evict (checked here too, so that the two stay apart on
 * purpose).
 */
Test(lru_sieve_percpu, a_failed_update_evicts_nothing)
{
	struct map *m = make_map("lru/sieve_percpu", 64);
	uint64_t v = 1;
	for (uint32_t k = 0; k < 64; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	uint64_t before = map_work_of(m, -1).evictions;
	for (uint32_t k = 0; k < 64; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), -EEXIST);
	uint32_t absent = 1000;
	cr_assert_eq(map_update(m, &absent, &v, MAP_EXIST), -ENOENT);
	cr_expect_eq(map_work_of(m, -1).evictions, before);
	cr_expect_eq(count_keys(m), 64);
	map_destroy(m);

	m = make_map("lru/linux_common", 1024);
	for (uint32_t k = 0; k < 1024; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	/* Newest first: each pop evicts from the oldest end, so the newest
	 * keys are still there when their insert fails.  (Count only the
	 * evictions of failed inserts: the oldest keys go and come back.) */
	uint64_t failed = 0, evicted_by_failures = 0;
	for (uint32_t k = 1024; k-- > 0;) {
		before = map_work_of(m, -1).evictions;
		if (map_update(m, &k, &v, MAP_NOEXIST) == -EEXIST) {
			failed++;
			evicted_by_failures += map_work_of(m, -1).evictions - before;
		}
	}
	cr_assert_gt(failed, 0);
	cr_expect_gt(evicted_by_failures, 0,
		     "the kernel's order: pop (and evict), then fail");
	map_destroy(m);
}

/*
 * lru/assoc: a key's set is its world.  In a map of 32 entries (4 sets of
 * 8), the first eviction comes when one set takes its ninth key, while
 * other sets still have room; from then on the map evicts exactly one key
 * per new key, the victim from the newcomer's set (the dump shows no set
 * above 8), and it ends with every set full.
 */
static void note_victim(void *ctx, const void *key)
{
	(void)key;
	(*(unsigned *)ctx)++;
}

Test(lru_assoc, a_full_set_evicts_while_the_map_has_room)
{
	struct map *m = make_map("lru/assoc", 32);
	unsigned victims = 0;
	m->ops->watch_evictions(m, note_victim, &victims);
	uint64_t v = 1;
	uint32_t k = 0;
	while (victims == 0) {
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
		k++;
		cr_assert_lt(k, 1000, "no eviction after 1000 keys");
	}
	cr_expect_lt(count_keys(m), 32, "the first eviction came with %u keys "
		     "in, and the map had room for 32", count_keys(m));
	for (; k < 1000; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	cr_expect_eq(count_keys(m), 32, "every set full at the end");
	cr_expect_eq(victims, 1000 - 32);
	char *text = lru_state_text(m);
	cr_expect(strstr(text, "4 sets of 8 ways") != NULL, "%s", text);
	for (unsigned set = 0; set < 4; set++) {
		char want[32];
		snprintf(want, sizeof(want), "set %u (8):", set);
		cr_expect(strstr(text, want) != NULL, "%s not in\n%s", want, text);
	}
	free(text);
	m->ops->watch_evictions(m, NULL, NULL);
	map_destroy(m);
}

/* Up to 7 fewer than max_entries: whole sets of 8 (fewer ways below 8). */
Test(lru_assoc, holds_whole_sets)
{
	struct map *m = make_map("lru/assoc", 1003);
	uint64_t v = 1;
	for (uint32_t k = 0; k < 20000; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
	cr_expect_eq(count_keys(m), 1000, "125 sets of 8");
	map_destroy(m);
	static const struct { uint32_t max, holds; } sizes[] = {
		{ 1, 1 }, { 5, 5 }, { 8, 8 }, { 12, 8 }, { 15, 8 }, { 16, 16 },
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		m = make_map("lru/assoc", sizes[i].max);
		for (uint32_t k = 0; k < 200; k++)
			cr_assert_eq(map_update(m, &k, &v, MAP_NOEXIST), 0);
		cr_expect_eq(count_keys(m), sizes[i].holds,
			     "max_entries %u holds %u", sizes[i].max,
			     count_keys(m));
		map_destroy(m);
	}
}
