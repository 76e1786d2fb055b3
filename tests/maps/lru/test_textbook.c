/* SPDX-License-Identifier: MIT */
/*
 * lru/fifo, lru/s3fifo and lru/sampled on one thread, against expectations
 * worked out by hand (docs/lru-textbook.md says where each rule comes
 * from).
 *
 * Sequences of requests are letters, as tests/maps/lru/lru_letters.h says:
 * an upper-case letter is a request (a program lookup; an insert on a
 * miss), a lower-case one deletes that key; the answer is '.' for a hit,
 * '-' for a miss that evicted nothing, else the evicted key.  Dumps show
 * keys in hex ('A' is 41, 'T' is 54).
 *
 * lru/s3fifo is checked at capacity 20, the smallest where libCacheSim's
 * S3FIFO.c caches anything with objects of size 1: small 2, main 18,
 * ghost 18.  Its queues are written newest first, each key with its freq.
 * Beyond the hand-worked cases, a model of S3FIFO.c written here from its
 * rules (with the uncapped freq counter that S3FIFO.c keeps) must evict
 * the same keys in the same order as the map on long skewed streams.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

TestSuite(lru_fifo, .init = set_up, .fini = tear_down, .timeout = 30);
TestSuite(lru_s3fifo, .init = set_up, .fini = tear_down, .timeout = 60);
TestSuite(lru_sampled, .init = set_up, .fini = tear_down, .timeout = 60);
TestSuite(lru_textbook, .init = set_up, .fini = tear_down, .timeout = 60);

static const char *const textbook[] = { "lru/fifo", "lru/s3fifo",
					"lru/sampled" };
#define N_TEXTBOOK (sizeof(textbook) / sizeof(textbook[0]))

/* Replace key's value (MAP_EXIST): the key must be there. */
static void replace(struct map *m, uint8_t key)
{
	uint64_t v = 1000 + key;
	cr_assert_eq(map_update(m, &key, &v, MAP_EXIST), 0, "replace %c", key);
}

/* --- lru/fifo --------------------------------------------------------------------- */

/*
 * Capacity 3, "ABCADE": A B C fill [C B A]; the hit on A changes nothing;
 * D evicts A, the oldest insert [D C B]; E evicts B.  Anything that counts
 * the hit (LRU, CLOCK) evicts B at D.
 */
Test(lru_fifo, a_hit_changes_nothing)
{
	lru_expect_evictions("lru/fifo", 3, "ABCADE", "---.AB");
}

/*
 * The sequence lru/clock's test uses, "ABCADEBDFBG", capacity 3:
 *   A B C [C B A];  A hit;  D: A leaves [D C B];  E: B leaves [E D C];
 *   B: C leaves [B E D];  D hit;  F: D leaves [F B E];  B hit;
 *   G: E leaves [G F B].
 * (Clock answers "---.BCA.E.D".)
 */
Test(lru_fifo, evicts_in_insert_order)
{
	lru_expect_evictions("lru/fifo", 3, "ABCADEBDFBG", "---.ABC.D.E");
}

/*
 * A delete frees an element; the next key takes it without evicting:
 * "ABCbDEF": [C B A], delete B [C A], D fills [D C A], E: A leaves,
 * F: C leaves.
 */
Test(lru_fifo, a_deleted_key_leaves_room)
{
	lru_expect_evictions("lru/fifo", 3, "ABCbDEF", "---x-AC");
}

/*
 * A replace keeps the key's place: capacity 4, A B C, replace A (a free
 * element is left, so the update evicts nothing), D fills the map, and E
 * evicts A, still the oldest insert.  A replace queued as a new insert
 * would have E evict B.
 */
Test(lru_fifo, a_replace_keeps_the_keys_place)
{
	struct map *m = lru_make("lru/fifo", 4, 1);
	cr_expect_str_eq(lru_replay(m, "ABC"), "---");
	replace(m, 'A');
	lru_expect_in_dump(m, "queue (3): 43 42 41\n");
	cr_expect_str_eq(lru_replay(m, "DE"), "-A");
	map_destroy(m);
}

Test(lru_fifo, dump_reads_newest_first)
{
	struct map *m = lru_make("lru/fifo", 4, 1);
	cr_expect_str_eq(lru_replay(m, "ABCA"), "---.");
	lru_expect_in_dump(m, "queue (3): 43 42 41\nfree: 1 elements\n");
	map_destroy(m);
}

/* --- lru/s3fifo -------------------------------------------------------------------- */

/* Twenty keys, A to T, fill a map of capacity 20. */
#define FILL "ABCDEFGHIJKLMNOPQRST"
#define FILLED "--------------------"

/*
 * Until the first eviction a key that finds small full enters main: A and
 * B fill small (2), C..T go to main (18).  Then U evicts small's tail A
 * (into the ghost), V evicts B, W evicts U: small only ever holds the
 * newest two.  S3FIFOv0 (small takes every insert) would evict A, B, C.
 */
Test(lru_s3fifo, main_fills_before_the_first_eviction)
{
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	cr_expect_str_eq(lru_replay(m, FILL), FILLED);
	lru_expect_in_dump(m, "small (2 of 2): 42:0 41:0\n"
			      "main (18 of 18): 54:0 53:0 52:0");
	lru_expect_in_dump(m, "ghost (0 of 18):\nfree: 0 elements; "
			      "evicted yet: no\n");
	cr_expect_str_eq(lru_replay(m, "UVW"), "ABU");
	lru_expect_in_dump(m, "small (2 of 2): 57:0 56:0\n"
			      "main (18 of 18): 54:0");
	lru_expect_in_dump(m, "ghost (3 of 18):");
	lru_expect_in_dump(m, "evicted yet: yes\n");
	map_destroy(m);
}

/*
 * After the first eviction small takes every insert, even over its share:
 * FILL, U (A leaves), delete C (from main), X takes the free element and
 * goes to small, which now holds 3 of 2.
 */
Test(lru_s3fifo, after_the_first_eviction_small_takes_every_insert)
{
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	cr_expect_str_eq(lru_replay(m, FILL "UcX"), FILLED "Ax-");
	lru_expect_in_dump(m, "small (3 of 2): 58:0 55:0 42:0\n"
			      "main (17 of 18): 54:0");
	map_destroy(m);
}

/*
 * A key evicted from small leaves its hash in the ghost; when it comes
 * back it goes straight to main.  FILL, U: A leaves small for the ghost.
 * A again: a miss, but a ghost hit; to make room small's tail B leaves
 * (main holds 18, not more than its share), and A enters main, which now
 * holds 19.  V: main is over its share, so main's tail C (freq 0) leaves.
 * Had A gone to small, V would have evicted U.
 */
Test(lru_s3fifo, a_ghost_hit_enters_main)
{
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	cr_expect_str_eq(lru_replay(m, FILL "UA"), FILLED "AB");
	lru_expect_in_dump(m, "small (1 of 2): 55:0\n"
			      "main (19 of 18): 41:0 54:0");
	lru_expect_in_dump(m, "ghost (1 of 18):"); /* B's; A's was taken */
	cr_expect_str_eq(lru_replay(m, "V"), "C");
	map_destroy(m);
}

/*
 * Promotion from small needs freq >= 2.  One hit on A (freq 1) does not
 * save it: FILL, A, U evicts A.  Two hits (freq 2) do: at U, A moves to
 * main's head with freq 0, and small's next tail, B, leaves.  main then
 * holds 19, so V evicts main's tail C.
 */
Test(lru_s3fifo, two_hits_in_small_promote_to_main)
{
	lru_expect_evictions("lru/s3fifo", 20, FILL "AU", FILLED ".A");
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	cr_expect_str_eq(lru_replay(m, FILL "AA"), FILLED "..");
	lru_expect_in_dump(m, "small (2 of 2): 42:0 41:2\n");
	cr_expect_str_eq(lru_replay(m, "U"), "B");
	lru_expect_in_dump(m, "small (1 of 2): 55:0\n"
			      "main (19 of 18): 41:0 54:0");
	cr_expect_str_eq(lru_replay(m, "V"), "C");
	map_destroy(m);
}

/*
 * main is a CLOCK with a two-bit counter.  FILL; C hit once (freq 1), D
 * twice (2), E five times (capped at 3).  U: A leaves small.  A: a ghost
 * hit, B leaves small, A enters main (19 of 18).  V: main evicts; its
 * tail C (1) goes back to the head with 0, D (2) with 1, E (3) with 2;
 * F (0) leaves.  main then reads E:2 D:1 C:0 A:0 T:0 ...
 * Once more: W evicts small's tail U (main holds 18).  B: a ghost hit, V
 * leaves small, B enters main (19).  X: main's tail G leaves.
 */
Test(lru_s3fifo, main_decrements_and_reinserts)
{
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	cr_expect_str_eq(lru_replay(m, FILL "CDDEEEEE"), FILLED "........");
	lru_expect_in_dump(m, "main (18 of 18): 54:0 53:0 52:0 51:0 50:0 4f:0 "
			      "4e:0 4d:0 4c:0 4b:0 4a:0 49:0 48:0 47:0 46:0 "
			      "45:3 44:2 43:1\n");
	cr_expect_str_eq(lru_replay(m, "UAV"), "ABF");
	lru_expect_in_dump(m, "main (18 of 18): 45:2 44:1 43:0 41:0 54:0");
	cr_expect_str_eq(lru_replay(m, "WBX"), "UVG");
	map_destroy(m);
}

/* A syscall lookup is no hit: FILL, A copied out twice, U evicts A. */
Test(lru_s3fifo, a_syscall_lookup_counts_nothing)
{
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	cr_expect_str_eq(lru_replay(m, FILL), FILLED);
	cr_expect(lru_copy_out(m, 'A') && lru_copy_out(m, 'A'));
	cr_expect_str_eq(lru_replay(m, "U"), "A");
	map_destroy(m);
}

/*
 * A replace takes the old element's place and queue and counts as a hit:
 * FILL (the map is full, so the update first evicts: small's tail A
 * leaves), then B, replaced in small, holds freq 1 and is small's tail.
 */
Test(lru_s3fifo, a_replace_keeps_the_queue_and_counts_a_hit)
{
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	cr_expect_str_eq(lru_replay(m, FILL), FILLED);
	replace(m, 'B');
	cr_expect(!lru_present(m, 'A'));
	lru_expect_in_dump(m, "small (1 of 2): 42:1\n");
	map_destroy(m);
}

/* A fresh map's shares, as S3FIFO_init computes them (double products,
 * truncated), with small at least 1 below capacity 20 (our one change). */
static void expect_sizes(uint32_t capacity, const char *want)
{
	struct map *m = lru_make("lru/s3fifo", capacity, 1);
	lru_expect_in_dump(m, want);
	map_destroy(m);
}

Test(lru_s3fifo, shares_are_rounded_as_libcachesim_does)
{
	expect_sizes(20, "small (0 of 2):\nmain (0 of 18):\nghost (0 of 18):");
	expect_sizes(30, "small (0 of 3):\nmain (0 of 27):\nghost (0 of 27):");
	expect_sizes(64, "small (0 of 6):\nmain (0 of 58):\nghost (0 of 57):");
	expect_sizes(99, "small (0 of 9):\nmain (0 of 90):\nghost (0 of 89):");
	expect_sizes(10, "small (0 of 1):\nmain (0 of 9):\nghost (0 of 9):");
	expect_sizes(3, "small (0 of 1):\nmain (0 of 2):\nghost (0 of 2):");
	expect_sizes(1, "small (0 of 1):\nmain (0 of 0):\nghost (0 of 0):");
}

/* Capacity 1 (small 1, main 0, no ghost): each new key evicts the last. */
Test(lru_s3fifo, capacity_one_keeps_the_newest_key)
{
	lru_expect_evictions("lru/s3fifo", 1, "ABAAC", "-AB.A");
}

/* The ghost holds at most 90% of the capacity: after 200 new keys in a
 * map of 20, 18 hashes. */
Test(lru_s3fifo, the_ghost_is_bounded)
{
	struct map *m = lru_make("lru/s3fifo", 20, 1);
	for (int k = 0; k < 200; k++)
		lru_request(m, (uint8_t)k);
	lru_expect_in_dump(m, "ghost (18 of 18):");
	map_destroy(m);
}

/*
 * A model of S3FIFO.c's rules on keys 0..255, written for this test:
 * queues are arrays, oldest first; freq counts every hit with no cap, as
 * S3FIFO_find does; MIN(freq, 3) - 1 on reinsertion into main.
 */
struct s3_model {
	uint32_t cap, small_cap, main_cap, ghost_cap;
	uint8_t small[256], main[256], ghost[256];
	uint32_t n_small, n_main, n_ghost;
	uint32_t freq[256];
	bool cached[256], has_evicted;
	int victims[4096];
	uint32_t n_victims;
};

static void q_push(uint8_t *q, uint32_t *n, uint8_t key)
{
	q[(*n)++] = key;
}

static uint8_t q_pop(uint8_t *q, uint32_t *n)
{
	uint8_t key = q[0];
	memmove(q, q + 1, --*n);
	return key;
}

static bool q_has(const uint8_t *q, uint32_t n, uint8_t key)
{
	return memchr(q, key, n) != NULL;
}

static bool q_take(uint8_t *q, uint32_t *n, uint8_t key)
{
	for (uint32_t i = 0; i < *n; i++)
		if (q[i] == key) {
			memmove(q + i, q + i + 1, *n - i - 1);
			--*n;
			return true;
		}
	return false;
}

static void model_evict_one(struct s3_model *s)
{
	bool evicted = false;
	s->has_evicted = true;
	if (s->n_main > s->main_cap || s->n_small == 0) {
		while (!evicted) {
			uint8_t k = q_pop(s->main, &s->n_main);
			if (s->freq[k] >= 1) {
				s->freq[k] = (s->freq[k] < 3 ? s->freq[k] : 3) - 1;
				q_push(s->main, &s->n_main, k);
			} else {
				s->cached[k] = false;
				s->victims[s->n_victims++ % 4096] = k;
				evicted = true;
			}
		}
		return;
	}
	while (!evicted && s->n_small) {
		uint8_t k = q_pop(s->small, &s->n_small);
		if (s->freq[k] >= 2) {
			s->freq[k] = 0;
			q_push(s->main, &s->n_main, k);
			continue;
		}
		/* the ghost FIFO's get: a key already there stays put */
		if (s->ghost_cap && !q_has(s->ghost, s->n_ghost, k)) {
			if (s->n_ghost == s->ghost_cap)
				q_pop(s->ghost, &s->n_ghost);
			q_push(s->ghost, &s->n_ghost, k);
		}
		s->cached[k] = false;
		s->victims[s->n_victims++ % 4096] = k;
		evicted = true;
	}
}

static void model_request(struct s3_model *s, uint8_t k)
{
	if (s->cached[k]) {
		s->freq[k]++;
		return;
	}
	bool ghost_hit = q_take(s->ghost, &s->n_ghost, k);
	while (s->n_small + s->n_main >= s->cap)
		model_evict_one(s);
	if (ghost_hit || (!s->has_evicted && s->n_small >= s->small_cap))
		q_push(s->main, &s->n_main, k);
	else
		q_push(s->small, &s->n_small, k);
	s->freq[k] = 0;
	s->cached[k] = true;
}

struct victims {
	int keys[4096];
	uint32_t n;
};

static void note_victim(void *ctx, const void *key)
{
	struct victims *v = ctx;
	v->keys[v->n++ % 4096] = *(const uint8_t *)key;
}

/* A skewed key: the smaller of two uniform draws from 0..n-1. */
static uint8_t skewed_key(uint64_t *x, uint32_t n)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	uint32_t a = (uint32_t)(*x >> 33) % n;
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	uint32_t b = (uint32_t)(*x >> 33) % n;
	return (uint8_t)(a < b ? a : b);
}

static void expect_model_agrees(uint32_t cap, uint32_t n_keys, int requests)
{
	struct s3_model *s = calloc(1, sizeof(*s));
	struct victims *v = calloc(1, sizeof(*v));
	cr_assert(s && v);
	s->cap = cap;
	s->small_cap = (uint32_t)(int64_t)((double)cap * 0.10);
	s->main_cap = cap - s->small_cap;
	s->ghost_cap = (uint32_t)(int64_t)((double)cap * 0.90);
	struct map *m = lru_make("lru/s3fifo", cap, 1);
	m->ops->watch_evictions(m, note_victim, v);
	uint64_t x = cap;
	uint32_t hits = 0, model_hits = 0;
	for (int i = 0; i < requests; i++) {
		uint8_t k = skewed_key(&x, n_keys);
		model_hits += s->cached[k];
		model_request(s, k);
		hits += lru_request(m, k);
		cr_assert_eq(v->n, s->n_victims, "capacity %u, request %d (key "
			     "%u): %u evictions, the model %u", cap, i, k, v->n,
			     s->n_victims);
		if (v->n)
			cr_assert_eq(v->keys[(v->n - 1) % 4096],
				     s->victims[(v->n - 1) % 4096],
				     "capacity %u, request %d: evicted %d, the "
				     "model %d", cap, i, v->keys[(v->n - 1) % 4096],
				     s->victims[(v->n - 1) % 4096]);
	}
	cr_expect_eq(hits, model_hits);
	cr_expect_gt(s->n_victims, (uint32_t)requests / 10, "capacity %u: too "
		     "few evictions to tell anything", cap);
	cr_expect_gt(hits, (uint32_t)requests / 10);
	m->ops->watch_evictions(m, NULL, NULL);
	map_destroy(m);
	free(s);
	free(v);
}

Test(lru_s3fifo, evicts_what_a_model_of_s3fifo_c_evicts)
{
	expect_model_agrees(20, 60, 20000);
	expect_model_agrees(37, 150, 20000);
	expect_model_agrees(100, 250, 20000);
}

/* --- lru/sampled ------------------------------------------------------------------- */

/*
 * With 5 keys or fewer a sample is every key: exact LRU.  Capacity 5,
 * "ABCDEAFCGB": uses A1 B2 C3 D4 E5, A6; F evicts B (the oldest, 2);
 * C8; G evicts D (4); B evicts E (5).  FIFO would evict A at F.
 */
Test(lru_sampled, five_keys_or_fewer_is_exact_lru)
{
	lru_expect_evictions("lru/sampled", 5, "ABCDEAFCGB", "-----.B.DE");
	lru_expect_evictions("lru/fifo", 5, "ABCDEAFCGB", "-----.A.BC");
	lru_expect_evictions("lru/sampled", 2, "ABACB", "--.BA");
}

/* The dump lists keys by last use, newest first (stamps dropped). */
Test(lru_sampled, dump_orders_keys_by_last_use)
{
	struct map *m = lru_make("lru/sampled", 4, 1);
	cr_expect_str_eq(lru_replay(m, "ABCA"), "---.");
	lru_expect_in_dump(m, "live (3): 41 43 42\n");
	cr_expect(lru_copy_out(m, 'B')); /* a syscall lookup is no use */
	lru_expect_in_dump(m, "live (3): 41 43 42\n");
	map_destroy(m);
}

struct use_log {
	uint64_t now, last[256];
	bool live[256];
	uint32_t evictions, not_oldest, among_newest_4;
	int victims[4096];
};

/* At each eviction: how many live keys were used after the victim. */
static void judge_victim(void *ctx, const void *key)
{
	struct use_log *u = ctx;
	uint8_t k = *(const uint8_t *)key;
	uint32_t newer = 0, older = 0;
	for (int i = 0; i < 256; i++) {
		if (!u->live[i] || i == k)
			continue;
		newer += u->last[i] > u->last[k];
		older += u->last[i] < u->last[k];
	}
	u->among_newest_4 += newer < 4;
	u->not_oldest += older > 0;
	u->victims[u->evictions++ % 4096] = k;
	u->live[k] = false;
}

static void run_sampled(struct use_log *u, uint32_t cap, int requests)
{
	struct map *m = lru_make("lru/sampled", cap, 1);
	m->ops->watch_evictions(m, judge_victim, u);
	uint64_t x = 42;
	for (int i = 0; i < requests; i++) {
		uint8_t k = skewed_key(&x, 100);
		lru_request(m, k);
		u->last[k] = ++u->now;
		u->live[k] = true;
	}
	m->ops->watch_evictions(m, NULL, NULL);
	map_destroy(m);
}

/*
 * Capacity 16: the victim is the oldest of 5 keys, so at least 4 live
 * keys were used after it; a sample misses the oldest key often, so some
 * victims are not the oldest (exact LRU would always take it); and with
 * its fixed seed a replay evicts the same keys twice over.
 */
Test(lru_sampled, evicts_the_oldest_of_five_reproducibly)
{
	struct use_log *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	cr_assert(a && b);
	run_sampled(a, 16, 5000);
	run_sampled(b, 16, 5000);
	cr_expect_gt(a->evictions, 500);
	cr_expect_eq(a->among_newest_4, 0, "%u victims among the 4 newest keys",
		     a->among_newest_4);
	cr_expect_gt(a->not_oldest, a->evictions / 10, "%u of %u victims not "
		     "the oldest: that is (nearly) exact LRU", a->not_oldest,
		     a->evictions);
	cr_expect_lt(a->not_oldest, a->evictions, "never the oldest key");
	cr_expect_eq(a->evictions, b->evictions);
	cr_expect(memcmp(a->victims, b->victims, sizeof(a->victims)) == 0,
		  "two replays evicted different keys");
	free(a);
	free(b);
}

/* --- all three --------------------------------------------------------------------- */

static uint32_t count_keys(struct map *m)
{
	uint8_t cur, next;
	uint32_t n = 0;
	for (int err = map_get_next_key(m, NULL, &next); !err;
	     err = map_get_next_key(m, &cur, &next), n++)
		cur = next;
	return n;
}

/* 3 x capacity new keys: every insert succeeds, the map is full and no
 * fuller, and the eviction count is every key that left. */
Test(lru_textbook, each_holds_max_entries)
{
	size_t ran = 0;
	for (size_t d = 0; d < N_TEXTBOOK; d++, ran++)
		for (uint32_t cap = 1; cap <= 40; cap += 13) {
			struct map *m = lru_make(textbook[d], cap, 1);
			for (uint32_t k = 0; k < 3 * cap; k++)
				lru_insert(m, (uint8_t)k);
			cr_expect_eq(count_keys(m), cap, "%s, capacity %u",
				     textbook[d], cap);
			cr_expect_eq(map_work_of(m, -1).evictions, 2 * cap,
				     "%s, capacity %u", textbook[d], cap);
			map_destroy(m);
		}
	cr_assert_eq(ran, 3);
}

Test(lru_textbook, each_refuses_no_common_lru)
{
	size_t ran = 0;
	for (size_t d = 0; d < N_TEXTBOOK; d++, ran++) {
		const struct map_ops *ops = map_find(textbook[d]);
		cr_assert_not_null(ops, "%s is not in the registry", textbook[d]);
		struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
				      .value_size = 8, .max_entries = 16,
				      .flags = MAP_F_NO_COMMON_LRU, .ncpus = 1 };
		struct map *m = NULL;
		cr_expect_eq(map_create(ops, &a, &m), -EINVAL, "%s", textbook[d]);
		cr_expect_null(m, "%s", textbook[d]);
	}
	cr_assert_eq(ran, 3);
}

static char *dump_dot(struct map *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_DOT), 0);
	fclose(f);
	return buf;
}

/* Text and dot dumps show every key (41 42 43 for A B C). */
Test(lru_textbook, each_dumps_text_and_dot)
{
	size_t ran = 0;
	for (size_t d = 0; d < N_TEXTBOOK; d++, ran++) {
		struct map *m = lru_make(textbook[d], 8, 1);
		cr_expect_str_eq(lru_replay(m, "ABC"), "---");
		char *text = lru_state_text(m), *dot = dump_dot(m);
		for (const char *k = "41\0" "42\0" "43\0"; *k; k += 3) {
			cr_expect(strstr(text, k), "%s: %s not in\n%s",
				  textbook[d], k, text);
			cr_expect(strstr(dot, k), "%s: %s not in\n%s",
				  textbook[d], k, dot);
		}
		cr_expect(strncmp(dot, "digraph maplab {\n", 17) == 0, "%s:\n%s",
			  textbook[d], dot);
		cr_expect(strcmp(dot + strlen(dot) - 2, "}\n") == 0, "%s:\n%s",
			  textbook[d], dot);
		free(text);
		free(dot);
		map_destroy(m);
	}
	cr_assert_eq(ran, 3);
}

/* A program lookup takes no lock: the lock count stays put over hits. */
Test(lru_textbook, each_lookup_takes_no_lock)
{
	size_t ran = 0;
	for (size_t d = 0; d < N_TEXTBOOK; d++, ran++) {
		struct map *m = lru_make(textbook[d], 8, 1);
		cr_expect_str_eq(lru_replay(m, "ABC"), "---");
		uint64_t locks = map_work_of(m, -1).locks;
		cr_expect_gt(locks, 0, "%s: inserts took no lock?", textbook[d]);
		for (int i = 0; i < 100; i++)
			cr_expect(lru_use(m, (uint8_t)('A' + i % 3)));
		cr_expect_eq(map_work_of(m, -1).locks, locks, "%s", textbook[d]);
		map_destroy(m);
	}
	cr_assert_eq(ran, 3);
}

/*
 * What each keeps beyond the core's element: FIFO nothing per entry;
 * S3-FIFO its ghost (about 0.9 of an entry of 24 bytes, plus a bucket);
 * sampled a stamp and two indexes (16 bytes).
 */
Test(lru_textbook, state_bytes_are_what_each_policy_adds)
{
	double fifo, s3, sampled;
	struct map *m = lru_make("lru/fifo", 1000, 1);
	fifo = map_memory_per_entry(m);
	map_destroy(m);
	m = lru_make("lru/s3fifo", 1000, 1);
	s3 = map_memory_per_entry(m);
	map_destroy(m);
	m = lru_make("lru/sampled", 1000, 1);
	sampled = map_memory_per_entry(m);
	map_destroy(m);
	cr_expect(s3 - fifo > 0.9 * 24 && s3 - fifo < 0.9 * 24 + 8,
		  "s3fifo %.1f, fifo %.1f bytes an entry", s3, fifo);
	cr_expect(sampled - fifo >= 16 && sampled - fifo < 17,
		  "sampled %.1f, fifo %.1f bytes an entry", sampled, fifo);
}
