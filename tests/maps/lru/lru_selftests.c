/* SPDX-License-Identifier: MIT */
/*
 * lru_selftests.c: see lru_selftests.h.  Written from the scenarios of the
 * kernel's test_lru_map.c, not copied; the "why" of each is worked out
 * from the kernel's LRU (maps/lru/linux_common.c and linux_percpu.c follow
 * it step by step).  N below is the possible-CPU count; the common LRU's
 * target_free is clamp((max_entries / N) / 2, 1, 128).
 */
#include "tests/maps/lru/lru_selftests.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#define LOCAL_FREE_TARGET 128 /* the kernel test's tgt_free, common */
#define PERCPU_FREE_TARGET 4  /* ... and per-CPU */

/* The LRU map under test and what it should hold. */
struct scenario {
	const struct lru_target *t;
	const char *name;
	struct map *m;
	uint64_t *expect; /* [key]: value + 1; 0: absent */
	uint64_t max_key;
};

bool lru_run_on_cpu(const struct lru_target *t, unsigned cpu)
{
	if (t->pin && map_cpu_pin_id((int)cpu) < 0)
		return false;
	if (cpu == 0)
		map_cpu_release();
	else
		cr_assert_eq(map_cpu_claim((int)cpu), (int)cpu,
			     "cpu slot %u is taken", cpu);
	return true;
}

static unsigned ncpus(void)
{
	return map_possible_cpus();
}

static void begin(struct scenario *s, const struct lru_target *t,
		  const char *name, uint32_t flags, uint32_t max_entries,
		  uint64_t max_key)
{
	struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 8,
			      .value_size = 8, .max_entries = max_entries,
			      .flags = flags };
	s->t = t;
	s->name = name;
	s->max_key = max_key;
	s->expect = calloc(max_key + 1, sizeof(*s->expect));
	cr_assert_not_null(s->expect);
	cr_assert(lru_run_on_cpu(t, 0), "%s: cannot run on cpu 0", name);
	int err = map_create(t->ops, &a, &s->m);
	cr_assert_eq(err, 0, "%s on %s: create: %d", name, t->label, err);
}

static void end(struct scenario *s)
{
	map_destroy(s->m);
	free(s->expect);
	map_cpu_release();
	if (s->t->pin)
		map_cpu_unpin();
}

static int update(struct scenario *s, uint64_t key, uint64_t value,
		  uint64_t flags)
{
	return map_update(s->m, &key, &value, flags);
}

/* An update that must succeed; expected: the key is in the final map. */
static void insert(struct scenario *s, uint64_t key, uint64_t value,
		   bool expected)
{
	int err = update(s, key, value, MAP_NOEXIST);
	cr_assert_eq(err, 0, "%s on %s: insert %llu: %d", s->name, s->t->label,
		     (unsigned long long)key, err);
	if (expected) {
		cr_assert_leq(key, s->max_key);
		s->expect[key] = value + 1;
	}
}

static void insert_range(struct scenario *s, uint64_t from, uint64_t to,
			 bool expected)
{
	for (uint64_t k = from; k <= to; k++)
		insert(s, k, 1234, expected);
}

static int lookup(struct scenario *s, uint64_t key, uint64_t *value)
{
	return map_lookup_copy(s->m, &key, value);
}

static int ref_lookup(struct scenario *s, uint64_t key)
{
	if (s->t->prog_lookup)
		return s->t->prog_lookup(s->m, &key);
	map_rcu_read_lock();
	int err = map_lookup(s->m, &key) ? 0 : -ENOENT;
	map_rcu_read_unlock();
	return err;
}

static void expect_ref_lookup(struct scenario *s, uint64_t key)
{
	cr_assert_eq(ref_lookup(s, key), 0, "%s on %s: key %llu is gone",
		     s->name, s->t->label, (unsigned long long)key);
}

static void expect_err(struct scenario *s, const char *what, int got,
		       int want)
{
	cr_assert_eq(got, want, "%s on %s: %s answered %d, not %d", s->name,
		     s->t->label, what, got, want);
}

/* The kernel test's map_equal: the map holds exactly the expected keys
 * with their values. */
static void expect_contents(struct scenario *s)
{
	uint64_t key, prev, value, found = 0, want = 0;
	int err;
	for (uint64_t k = 0; k <= s->max_key; k++)
		want += s->expect[k] != 0;
	for (err = map_get_next_key(s->m, NULL, &key); !err;
	     prev = key, err = map_get_next_key(s->m, &prev, &key)) {
		cr_assert_leq(key, s->max_key, "%s on %s: unexpected key %llu",
			      s->name, s->t->label, (unsigned long long)key);
		cr_assert(s->expect[key], "%s on %s: key %llu should be gone",
			  s->name, s->t->label, (unsigned long long)key);
		cr_assert_eq(lookup(s, key, &value), 0);
		cr_assert_eq(value + 1, s->expect[key], "%s on %s: key %llu",
			     s->name, s->t->label, (unsigned long long)key);
		found++;
	}
	cr_assert_eq(err, -ENOENT);
	cr_assert_eq(found, want, "%s on %s: %llu keys, expected %llu",
		     s->name, s->t->label, (unsigned long long)found,
		     (unsigned long long)want);
}

/* --- sanity0, 7, 8: which of two keys a third insert evicts --------------- */

enum lookup_kind { NOT_LOOKED_UP, SYSCALL_LOOKUP, PROGRAM_LOOKUP };

/*
 * A map of 2 (common) or 2 per cpu (per-CPU).  Insert 1 and 2, look them
 * up as told, insert 3: the key without a ref bit goes.
 *
 * Common (target_free 1): each insert refills, flushing the previous
 * insert from the pending list; the insert of 3 flushes 2 (ref'd: to the
 * active list, else to the inactive head), the rotation moves a ref'd 1
 * from the inactive list to the active one, and the shrink (the global
 * free list is empty) evicts the inactive tail: the unreferenced key.
 * Per-CPU: the rotation of the inactive list [2, 1] moves the ref'd key
 * to the active list and the shrink evicts the other.
 */
static void two_slots(const struct lru_target *t, const char *name,
		      uint32_t flags, enum lookup_kind first,
		      enum lookup_kind second, bool bad_flags)
{
	struct scenario s;
	uint64_t value;
	begin(&s, t, name, flags,
	      flags & MAP_F_NO_COMMON_LRU ? 2 * ncpus() : 2, 3);

	insert(&s, 1, 1234, first == PROGRAM_LOOKUP);
	expect_err(&s, "noexist on 1", update(&s, 1, 1234, MAP_NOEXIST),
		   -EEXIST);
	if (bad_flags)
		expect_err(&s, "flags -1", update(&s, 1, 1234, (uint64_t)-1),
			   -EINVAL);
	expect_err(&s, "lookup of 2", lookup(&s, 2, &value), -ENOENT);
	expect_err(&s, "exist on 2", update(&s, 2, 1234, MAP_EXIST), -ENOENT);
	insert(&s, 2, 1234, second == PROGRAM_LOOKUP);
	expect_err(&s, "lookup of 3", lookup(&s, 3, &value), -ENOENT);

	const enum lookup_kind kinds[] = { first, second };
	for (uint64_t k = 1; k <= 2; k++) {
		if (kinds[k - 1] == PROGRAM_LOOKUP)
			expect_ref_lookup(&s, k);
		else if (kinds[k - 1] == SYSCALL_LOOKUP)
			expect_err(&s, "syscall lookup", lookup(&s, k, &value), 0);
	}
	insert(&s, 3, 1234, true);
	uint64_t gone = first == PROGRAM_LOOKUP ? 2 : 1;
	expect_err(&s, "lookup of the evicted key", lookup(&s, gone, &value),
		   -ENOENT);
	if (bad_flags) { /* the kernel test's lookup-and-delete of 1 */
		expect_err(&s, "lookup of 1", lookup(&s, 1, &value), 0);
		cr_assert_eq(value, 1234);
		expect_err(&s, "delete of 1", map_delete(s.m, &(uint64_t){ 1 }),
			   0);
		s.expect[1] = 0;
	}
	expect_contents(&s);
	end(&s);
}

void lru_sanity0(const struct lru_target *t, uint32_t flags)
{
	two_slots(t, "sanity0", flags, PROGRAM_LOOKUP, NOT_LOOKED_UP, true);
}

/* A syscall lookup sets no ref bit: 2, looked up by it, goes. */
void lru_sanity7(const struct lru_target *t, uint32_t flags)
{
	two_slots(t, "sanity7", flags, PROGRAM_LOOKUP, SYSCALL_LOOKUP, false);
}

/* ... and so 1 goes when 2 is the one a program looked up. */
void lru_sanity8(const struct lru_target *t, uint32_t flags)
{
	two_slots(t, "sanity8", flags, SYSCALL_LOOKUP, PROGRAM_LOOKUP, false);
}

/* --- sanity1: unreferenced keys are recycled before referenced ones ------- */

/*
 * map_size = 256N + 64, so target_free = 128.  Inserting 256N keys takes
 * 2N refills of 128 from the global free list, which then holds 64; every
 * key but the last 128 (still pending) sits on the inactive list,
 * unreferenced.  Ref 1..64, then insert 256N more: the first refill takes
 * the 64 free nodes and shrinks 64 more, each later one shrinks 128, all
 * from the inactive tail (the oldest), where 1..64 move to the active
 * list instead: exactly 65..256N go, 256N - 64 keys, what the new ones
 * need.
 */
void lru_sanity1(const struct lru_target *t)
{
	const uint64_t batch = LOCAL_FREE_TARGET / 2;
	const uint64_t fill = 2ull * LOCAL_FREE_TARGET * ncpus();
	struct scenario s;
	begin(&s, t, "sanity1", 0, (uint32_t)(fill + batch), 2 * fill);

	insert_range(&s, 1, fill, false);
	for (uint64_t k = 1; k <= batch; k++) {
		expect_ref_lookup(&s, k);
		s.expect[k] = 1234 + 1;
	}
	insert_range(&s, fill + 1, 2 * fill, true);
	expect_contents(&s);
	end(&s);
}

/* --- sanity2: an update evicts before it looks at its key ----------------- */

/*
 * The same map, filled the same way.  An update of key 1 with BPF_EXIST
 * pops a node first: the refill flushes the pending 128, takes the 64
 * free nodes and shrinks the inactive tail for 64 more, 1..64 among them,
 * so the key is gone by the time the update looks for it: -ENOENT.  The
 * popped node goes back to cpu 0's local free list (it was pending).
 * 1..64 are inserted again (value 4321) and ref'd, 64 unreferenced keys
 * follow, then 256N more: the refills flush the ref'd 1..64 to the active
 * list and evict the old keys, then the 64 unreferenced ones.
 */
void lru_sanity2(const struct lru_target *t)
{
	const uint64_t batch = LOCAL_FREE_TARGET / 2;
	const uint64_t fill = 2ull * LOCAL_FREE_TARGET * ncpus();
	struct scenario s;
	uint64_t value;
	begin(&s, t, "sanity2", 0, (uint32_t)(fill + batch),
	      2 * fill + batch);

	insert_range(&s, 1, fill, false);
	expect_err(&s, "exist on 1", update(&s, 1, 1234, MAP_EXIST), -ENOENT);
	for (uint64_t k = 1; k <= batch; k++) {
		expect_err(&s, "lookup of an evicted key",
			   lookup(&s, k, &value), -ENOENT);
		insert(&s, k, 4321, true);
		expect_ref_lookup(&s, k);
	}
	insert_range(&s, fill + 1, fill + batch, false);
	insert_range(&s, fill + batch + 1, 2 * fill + batch, true);
	expect_contents(&s);
	end(&s);
}

/* --- sanity3: the rotations and the scan limit ---------------------------- */

/*
 * map_size 256: target_free = 128 / N, batch = 64 / N.  Fill 256, ref all
 * but the last `batch`, insert `batch` new keys: only the unreferenced
 * ones are replaced.  For N = 2 (target 64, batch 32): the refill of the
 * first new key flushes 193..256 (193..224 ref'd, to the active list),
 * the rotation walks 128 nodes from the hand (left on 129 by the last
 * fill) moving ref'd ones to the active list, and the shrink, wanting 64
 * with nothing free, passes 96 ref'd nodes and evicts the 32 unreferenced
 * 225..256 within its 128-node scan limit.  With the limit equal to
 * target_free it would evict nothing there and force-shrink a ref'd key.
 */
void lru_sanity3(const struct lru_target *t)
{
	const uint64_t map_size = 2 * LOCAL_FREE_TARGET;
	const uint64_t batch = LOCAL_FREE_TARGET / ncpus() / 2;
	struct scenario s;
	begin(&s, t, "sanity3", 0, (uint32_t)map_size, map_size + batch);

	insert_range(&s, 1, map_size, false);
	for (uint64_t k = 1; k <= map_size - batch; k++) {
		expect_ref_lookup(&s, k);
		s.expect[k] = 1234 + 1;
	}
	insert_range(&s, map_size + 1, map_size + batch, true);
	expect_contents(&s);
	end(&s);
}

/* --- sanity4: deletes ----------------------------------------------------- */

/*
 * A map three times what is used (common: 3 x 256N; per-CPU: 12 per cpu),
 * so nothing is evicted: 2 x tgt inserted, the first tgt ref'd, the rest
 * deleted (a second delete fails), 2 x tgt new ones inserted.  Per-CPU:
 * cpu 0's 12 nodes hold 4 + 8 at the end, each pop finding a free one.
 */
void lru_sanity4(const struct lru_target *t, uint32_t flags)
{
	bool percpu = flags & MAP_F_NO_COMMON_LRU;
	uint64_t tgt = percpu ? PERCPU_FREE_TARGET : LOCAL_FREE_TARGET;
	uint64_t size = percpu ? 3 * tgt * ncpus()
			       : 3 * 2 * LOCAL_FREE_TARGET * ncpus();
	struct scenario s;
	begin(&s, t, "sanity4", flags, (uint32_t)size, 4 * tgt);

	insert_range(&s, 1, 2 * tgt, false);
	expect_err(&s, "noexist on 1", update(&s, 1, 1234, MAP_NOEXIST),
		   -EEXIST);
	for (uint64_t k = 1; k <= tgt; k++) {
		expect_ref_lookup(&s, k);
		s.expect[k] = 1234 + 1;
	}
	for (uint64_t k = tgt + 1; k <= 2 * tgt; k++) {
		expect_err(&s, "delete", map_delete(s.m, &k), 0);
		expect_err(&s, "second delete", map_delete(s.m, &k), -ENOENT);
	}
	insert_range(&s, 2 * tgt + 1, 4 * tgt, true);
	expect_contents(&s);
	end(&s);
}

/* --- sanity5: one element, every cpu in turn ------------------------------ */

/*
 * A map of one element.  Key 0 is inserted on cpu 0; then on each cpu c in
 * turn the last key is ref'd, the next one inserted and ref'd, and the
 * last one is gone.  On cpu 0 the refill flushes key 0 (ref'd) to the
 * active list, finds nothing free and nothing unreferenced, and the force
 * shrink evicts it from the active list.  On cpu c > 0 the global lists
 * are empty (the node is pending on cpu c - 1), so the steal takes it from
 * c - 1's pending list, ref'd as it is, in its second pass.
 */
void lru_sanity5(const struct lru_target *t)
{
	struct scenario s;
	uint64_t value, key = 0;
	begin(&s, t, "sanity5", 0, 1, ncpus());

	insert(&s, key, 1234, false);
	for (unsigned cpu = 0; cpu < ncpus(); cpu++) {
		if (!lru_run_on_cpu(t, cpu))
			continue;
		expect_ref_lookup(&s, key);
		insert(&s, key + 1, 1234, false);
		expect_ref_lookup(&s, key + 1);
		expect_err(&s, "lookup of the last key", lookup(&s, key, &value),
			   -ENOENT);
		key++;
	}
	cr_assert_gt(key, 0, "sanity5 on %s: no cpu could be used", t->label);
	lru_run_on_cpu(t, 0);
	s.expect[key] = 1234 + 1;
	expect_contents(&s);
	end(&s);
}

/* --- sanity6: sticky refs on a per-CPU LRU -------------------------------- */

/*
 * 8 elements per cpu.  Insert 1..4; before each insert of 5..8 ref 1..4
 * again; insert 9..12.  The first of those pops moves 1..4 to the active
 * list (the inactive rotation), the later ones rotate the active list
 * (the inactive one is the shorter), which keeps them there, ref'd again
 * each time; the insert of 9 finds cpu 0's free list empty and shrinks
 * the unreferenced 5..8 (4 nodes: the per-CPU target) in one go.
 */
void lru_sanity6(const struct lru_target *t)
{
	const uint64_t tgt = PERCPU_FREE_TARGET;
	struct scenario s;
	begin(&s, t, "sanity6", MAP_F_NO_COMMON_LRU,
	      (uint32_t)(2 * tgt * ncpus()), 3 * tgt);

	insert_range(&s, 1, tgt, true);
	for (uint64_t k = tgt + 1; k <= 2 * tgt; k++) {
		for (uint64_t ref = 1; ref <= tgt; ref++)
			expect_ref_lookup(&s, ref);
		insert(&s, k, 1234, false);
	}
	insert_range(&s, 2 * tgt + 1, 3 * tgt, true);
	expect_contents(&s);
	end(&s);
}
