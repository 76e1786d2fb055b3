/* SPDX-License-Identifier: MIT */
/*
 * The flat table of maps/tables/flattab.h, below hash/seqlock_buckets.  Keys are
 * chosen by their home bucket (the seed is 0, so the test can compute it),
 * to pile more keys on one home than a bucket has slots and to make the
 * probe wrap past the last bucket.  What must hold: every key is found
 * wherever it lives; a probe goes on through a bucket that a delete has
 * emptied while a key beyond still passed through it; an update finds a
 * key living past its home before it would insert a duplicate into a
 * freed slot; every overflow count is back to 0 when the table is empty;
 * a full table refuses a new key with -E2BIG and still replaces;
 * get_next_key visits every key once; and a reader racing writers that
 * insert and delete around it never misses a key that stays.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "maps/tables/flattab.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#define MAX_ENTRIES 64 /* 4 slots a bucket: 32 buckets */

static struct flattab t;

static void set_up(void)
{
	map_thread_online();
	cr_assert_eq(flattab_init(&t, MAX_ENTRIES, sizeof(uint32_t), true), 0);
	cr_assert_eq(t.slots, 4, "4-byte keys: 4 slots a bucket");
	cr_assert_eq(t.mask + 1, 32, "64 keys, 2 slots each: 32 buckets");
}

static void tear_down(void)
{
	flattab_destroy(&t);
	map_thread_offline();
}

TestSuite(flattab, .init = set_up, .fini = tear_down, .timeout = 60);

static uint32_t home_of(uint32_t key)
{
	return flattab_hash(&t, &key) & t.mask;
}

/* The first n keys from `from` on whose home is bucket `home`. */
static void keys_with_home(uint32_t home, uint32_t from, uint32_t *keys,
			   unsigned n)
{
	for (uint32_t k = from; n; k++)
		if (home_of(k) == home) {
			*keys++ = k;
			n--;
		}
}

static int put(uint32_t key, uint64_t value, uint64_t flags)
{
	return flattab_update(&t, flattab_hash(&t, &key), &key, value, flags);
}

static int del(uint32_t key)
{
	return flattab_delete(&t, flattab_hash(&t, &key), &key);
}

static int get(uint32_t key, uint64_t *value)
{
	return flattab_lookup_word(&t, flattab_hash(&t, &key), &key, value);
}

static uint32_t overflow_of(uint32_t bucket)
{
	struct flattab_head *h =
		(struct flattab_head *)(t.buckets + (size_t)bucket * 64);
	return atomic_load(&h->overflow);
}

static unsigned keys_in(uint32_t bucket)
{
	struct flattab_head *h =
		(struct flattab_head *)(t.buckets + (size_t)bucket * 64);
	return (unsigned)__builtin_popcount(atomic_load(&h->used));
}

static unsigned keys_walked(void)
{
	uint32_t key, next;
	unsigned n = 0;
	for (int err = flattab_next_key(&t, NULL, &next); !err;
	     err = flattab_next_key(&t, &key, &next)) {
		key = next;
		n++;
		cr_assert_leq(n, MAX_ENTRIES, "the walk does not end");
	}
	return n;
}

static void expect_all_overflow_zero(void)
{
	for (uint32_t b = 0; b <= t.mask; b++)
		cr_expect_eq(overflow_of(b), 0, "bucket %u: overflow %u", b,
			     overflow_of(b));
}

Test(flattab, which_sizes_fit)
{
	cr_expect(flattab_fits(4, 8));
	cr_expect(flattab_fits(8, 8));
	cr_expect(flattab_fits(1, 1));
	cr_expect_not(flattab_fits(9, 8), "a 9-byte key goes to the elements");
	cr_expect_not(flattab_fits(4, 9), "a 9-byte value goes to the elements");
	cr_expect_not(flattab_fits(0, 8));
}

Test(flattab, keys_past_their_home_are_found_and_counted)
{
	uint32_t keys[10];
	uint64_t v;
	keys_with_home(5, 0, keys, 10);
	for (unsigned i = 0; i < 10; i++)
		cr_assert_eq(put(keys[i], 100 + i, MAP_NOEXIST), 0);
	cr_expect_eq(keys_in(5), 4);
	cr_expect_eq(keys_in(6), 4);
	cr_expect_eq(keys_in(7), 2);
	cr_expect_eq(overflow_of(5), 6, "6 keys passed their home");
	cr_expect_eq(overflow_of(6), 2);
	cr_expect_eq(overflow_of(7), 0);
	for (unsigned i = 0; i < 10; i++) {
		cr_assert_eq(get(keys[i], &v), 0, "key %u", keys[i]);
		cr_expect_eq(v, 100 + i);
	}
	/* empty bucket 6: the probe for the keys in 7 must go on through it */
	for (unsigned i = 4; i < 8; i++)
		cr_assert_eq(del(keys[i]), 0);
	cr_expect_eq(keys_in(6), 0);
	cr_expect_eq(overflow_of(6), 2, "the keys in 7 still passed 6");
	for (unsigned i = 8; i < 10; i++)
		cr_expect_eq(get(keys[i], &v), 0, "key %u beyond an empty bucket",
			     keys[i]);
	for (unsigned i = 4; i < 8; i++)
		cr_expect_eq(get(keys[i], &v), -ENOENT);
	for (unsigned i = 0; i < 10; i++)
		if (i < 4 || i >= 8)
			cr_assert_eq(del(keys[i]), 0);
	expect_all_overflow_zero();
	cr_expect_eq(keys_walked(), 0);
	cr_expect_eq(atomic_load(&t.count), 0);
}

Test(flattab, an_update_finds_its_key_before_a_freed_slot)
{
	uint32_t keys[5];
	uint64_t v;
	keys_with_home(9, 0, keys, 5);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_eq(put(keys[i], i, MAP_NOEXIST), 0);
	cr_assert_eq(keys_in(10), 1, "the fifth key lives in the next bucket");
	cr_assert_eq(del(keys[0]), 0); /* a free slot at home now */
	cr_expect_eq(put(keys[4], 42, MAP_NOEXIST), -EEXIST);
	cr_expect_eq(put(keys[4], 43, MAP_ANY), 0);
	cr_expect_eq(keys_in(9), 3, "no duplicate took the freed slot");
	cr_expect_eq(keys_in(10), 1);
	cr_expect_eq(get(keys[4], &v), 0);
	cr_expect_eq(v, 43);
	cr_expect_eq(keys_walked(), 4);
	/* a new key of that home takes the freed slot, at home */
	uint32_t more;
	keys_with_home(9, keys[4] + 1, &more, 1);
	cr_expect_eq(put(more, 7, MAP_EXIST), -ENOENT);
	cr_expect_eq(put(more, 7, MAP_NOEXIST), 0);
	cr_expect_eq(keys_in(9), 4);
	cr_expect_eq(overflow_of(9), 1, "only the fifth key passed home");
}

Test(flattab, the_probe_wraps_past_the_last_bucket)
{
	uint32_t keys[6];
	uint64_t v;
	keys_with_home(t.mask, 0, keys, 6);
	for (unsigned i = 0; i < 6; i++)
		cr_assert_eq(put(keys[i], i, MAP_NOEXIST), 0);
	cr_expect_eq(keys_in(t.mask), 4);
	cr_expect_eq(keys_in(0), 2, "the probe went on at bucket 0");
	cr_expect_eq(overflow_of(t.mask), 2);
	for (unsigned i = 0; i < 6; i++)
		cr_expect_eq(get(keys[i], &v), 0, "key %u", keys[i]);
	cr_expect_eq(keys_walked(), 6);
	for (unsigned i = 0; i < 6; i++)
		cr_assert_eq(del(keys[i]), 0);
	expect_all_overflow_zero();
}

Test(flattab, a_full_table_replaces_and_refuses_new_keys)
{
	uint64_t v;
	for (uint32_t k = 0; k < MAX_ENTRIES; k++)
		cr_assert_eq(put(k * 7919, k, MAP_NOEXIST), 0, "key %u", k);
	uint32_t extra = 1;
	cr_expect_eq(put(extra, 0, MAP_ANY), -E2BIG);
	for (uint32_t k = 0; k < MAX_ENTRIES; k++)
		cr_expect_eq(put(k * 7919, k + 1, MAP_EXIST), 0);
	for (uint32_t k = 0; k < MAX_ENTRIES; k++) {
		cr_assert_eq(get(k * 7919, &v), 0);
		cr_expect_eq(v, k + 1);
	}
	cr_expect_eq(keys_walked(), MAX_ENTRIES);
	cr_assert_eq(del(0), 0);
	cr_expect_eq(put(extra, 0, MAP_NOEXIST), 0, "room again after a delete");
	for (uint32_t k = 1; k < MAX_ENTRIES; k++)
		cr_assert_eq(del(k * 7919), 0);
	cr_assert_eq(del(extra), 0);
	cr_expect_eq(del(extra), -ENOENT);
	expect_all_overflow_zero();
}

/* --- readers against writers ------------------------------------------------ */

/*
 * Keys that stay fill the last bucket and bucket 0 (all homed on the last
 * bucket).  Three writers churn keys whose homes are the last bucket,
 * bucket 0 and bucket 1: each churned key lives past its full home, the
 * last one's across the wrap (where a writer only tries the lock of the
 * bucket it reads or fills, and a busy one sends the op back to the
 * start).  Meanwhile the test's thread reads the keys that stay, and
 * halfway inserts one key and deletes another: the first must be found
 * from then on, the second never again.
 */
#define RACE_WRITERS 3
#define RACE_CHURN 4
#define RACE_STAYING 3
#define RACE_READS 300000
static uint32_t churn[RACE_WRITERS][RACE_CHURN];
static atomic_bool race_over;
static atomic_int race_bad_errors; /* the writers': criterion asserts only
				      on the test's own thread */

static void *churn_writer(void *arg)
{
	const uint32_t *keys = arg;
	map_thread_online();
	for (unsigned round = 0; !atomic_load(&race_over); round++) {
		uint32_t k = keys[round % RACE_CHURN];
		int err = put(k, round, MAP_NOEXIST);
		if (err && err != -EEXIST)
			atomic_fetch_add(&race_bad_errors, 1);
		if (round % 3 && (err = del(k)) && err != -ENOENT)
			atomic_fetch_add(&race_bad_errors, 1);
	}
	map_thread_offline();
	return NULL;
}

Test(flattab, readers_never_miss_a_key_that_stays)
{
	enum { RESIDENTS = 4 }; /* fill the last bucket */
	uint32_t last[RESIDENTS + RACE_STAYING + 2 + RACE_CHURN];
	keys_with_home(t.mask, 0, last, sizeof(last) / sizeof(last[0]));
	const uint32_t *residents = last, *staying = last + RESIDENTS;
	uint32_t doomed = last[RESIDENTS + RACE_STAYING];
	uint32_t late = last[RESIDENTS + RACE_STAYING + 1];
	memcpy(churn[0], last + RESIDENTS + RACE_STAYING + 2, sizeof(churn[0]));
	keys_with_home(0, 0, churn[1], RACE_CHURN);
	keys_with_home(1, 0, churn[2], RACE_CHURN);

	for (unsigned i = 0; i < RESIDENTS; i++)
		cr_assert_eq(put(residents[i], 2000 + i, MAP_NOEXIST), 0);
	for (unsigned i = 0; i < RACE_STAYING; i++)
		cr_assert_eq(put(staying[i], 1000 + i, MAP_NOEXIST), 0);
	cr_assert_eq(put(doomed, 7, MAP_NOEXIST), 0);
	cr_assert_eq(keys_in(t.mask), RESIDENTS);
	cr_assert_eq(keys_in(0), RACE_STAYING + 1, "they live past the wrap");

	pthread_t writers[RACE_WRITERS];
	atomic_store(&race_over, false);
	atomic_store(&race_bad_errors, 0);
	for (unsigned w = 0; w < RACE_WRITERS; w++)
		cr_assert_eq(pthread_create(&writers[w], NULL, churn_writer,
					    churn[w]), 0);
	uint64_t v;
	for (unsigned i = 0; i < RACE_READS; i++) {
		unsigned s = i % RACE_STAYING;
		cr_assert_eq(get(staying[s], &v), 0, "staying key %u missed",
			     staying[s]);
		cr_assert_eq(v, 1000 + s);
		if (i == RACE_READS / 2) {
			cr_assert_eq(put(late, 9, MAP_NOEXIST), 0);
			cr_assert_eq(del(doomed), 0);
		}
		if (i > RACE_READS / 2) {
			cr_assert_eq(get(late, &v), 0, "a key in since %u missed",
				     RACE_READS / 2);
			cr_assert_eq(get(doomed, &v), -ENOENT,
				     "a deleted key came back");
		}
	}
	atomic_store(&race_over, true);
	for (unsigned w = 0; w < RACE_WRITERS; w++)
		pthread_join(writers[w], NULL);
	cr_expect_eq(atomic_load(&race_bad_errors), 0,
		     "a writer got an errno other than EEXIST or ENOENT");

	unsigned left = 0;
	for (unsigned w = 0; w < RACE_WRITERS; w++)
		for (unsigned i = 0; i < RACE_CHURN; i++)
			left += del(churn[w][i]) == 0;
	cr_expect_eq(keys_walked(), RESIDENTS + RACE_STAYING + 1,
		     "residents, staying keys and late");
	for (unsigned i = 0; i < RESIDENTS; i++)
		cr_assert_eq(del(residents[i]), 0);
	for (unsigned i = 0; i < RACE_STAYING; i++)
		cr_assert_eq(del(staying[i]), 0);
	cr_assert_eq(del(late), 0);
	cr_expect_eq(atomic_load(&t.count), 0, "count after %u churned keys "
		     "were left", left);
	expect_all_overflow_zero();
}

/* The general compare (any key size but 4): 8-byte keys, 3 slots. */
Test(flattab, eight_byte_keys_take_three_slots_and_probe_on)
{
	struct flattab t8;
	cr_assert_eq(flattab_init(&t8, 16, 8, true), 0);
	cr_assert_eq(t8.slots, 3);
	uint64_t keys[8], v;
	unsigned n = 0;
	for (uint64_t k = 0; n < 8; k++)
		if ((flattab_hash(&t8, &k) & t8.mask) == 2)
			keys[n++] = k;
	for (unsigned i = 0; i < 8; i++)
		cr_assert_eq(flattab_update(&t8, flattab_hash(&t8, &keys[i]),
					    &keys[i], i, MAP_NOEXIST), 0);
	for (unsigned i = 0; i < 8; i++) {
		cr_assert_eq(flattab_lookup_word(&t8, flattab_hash(&t8, &keys[i]),
						 &keys[i], &v), 0);
		cr_expect_eq(v, i);
	}
	uint64_t absent = keys[7] + 1;
	cr_expect_eq(flattab_lookup_word(&t8, flattab_hash(&t8, &absent),
					 &absent, &v), -ENOENT);
	flattab_destroy(&t8);
}
