/* SPDX-License-Identifier: MIT */
/*
 * Every LPM design under contention with nested prefixes: where
 * harness/stress/stress.c writes full-length keys only (lpm_hot_keys,
 * lpm_full_trie, lpm_wide_keys in test_stress.c), here writers insert,
 * replace and delete prefixes of every length 0..32 of a few hundred IPv4
 * addresses that share prefixes of every length with one another, while
 * readers look the addresses up at every key length.
 *
 * Every value names its prefix: (length, prefix bits, a check tag), the
 * same bytes whoever writes it.  So, while the threads run:
 *   - any answer of any lookup is a prefix that covers the address, no
 *     longer than the key's length, with its own value;
 *   - some prefixes are pinned (in from the start, never written): a lookup
 *     must find one of them at least, where one covers the address;
 *   - each prefix has one writer (its owner), which knows whether it is in:
 *     every update and delete must answer what that says (EEXIST, ENOENT or
 *     0), and a lookup of its own present prefix must find exactly it;
 *   - walks (get_next_key) under changes meet only keys of the universe.
 * After the run: every lookup, at every length, answers the longest present
 * prefix, and a walk meets every present key once, with the trailing bits
 * its last write gave.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/rng.h"
#include "harness/common/team.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"
#include "tests/common/designs.h"

#define ADDRS 256
#define LENS 33 /* prefix lengths 0..32 */
#define WRITERS 4
#define READERS 4
#define THREADS (WRITERS + READERS)
#define SECONDS 0.5
#define NO_FLOOR 0xff
#define QUIESCE_EVERY 64

struct v4key {
	uint32_t prefixlen;
	uint8_t addr[4]; /* network order */
};

struct counts {
	uint64_t ops, inserts, replaces, deletes, lookups, hits;
	uint64_t floor_checks, own_hits, walk_keys;
};

struct nested {
	struct map *map;
	uint32_t addr[ADDRS];       /* host order */
	uint64_t *ids;              /* sorted: length << 32 | prefix bits */
	size_t n_ids;
	uint16_t id_of[ADDRS][LENS];
	uint8_t pin[ADDRS][LENS];   /* longest pinned prefix <= length */
	bool *pinned;               /* per id */
	bool *live;                 /* per id: written by its owner only */
	uint32_t *written;          /* per id: the data its last write gave */
	struct counts counts[THREADS];
	atomic_bool failed;
	char failure[512];
};

static uint32_t mask_of(uint32_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

static uint64_t id_word(uint32_t len, uint32_t addr)
{
	return (uint64_t)len << 32 | (addr & mask_of(len));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The universe's number of (len, prefix), or -1. */
static long find_id(const struct nested *t, uint32_t len, uint32_t addr)
{
	uint64_t w = id_word(len, addr);
	const uint64_t *hit = bsearch(&w, t->ids, t->n_ids, sizeof(w), cmp_u64);
	return hit ? hit - t->ids : -1;
}

/* The value of a prefix: its length, its bits, and a tag of both. */
static uint64_t value_of(uint32_t len, uint32_t prefix)
{
	uint64_t w = id_word(len, prefix);
	return (uint64_t)len << 56 | (uint64_t)(prefix & mask_of(len)) << 24 |
	       (rng_mix64(w) & 0xffffff);
}

static struct v4key key_of(uint32_t len, uint32_t addr)
{
	struct v4key k = { len, { (uint8_t)(addr >> 24), (uint8_t)(addr >> 16),
				  (uint8_t)(addr >> 8), (uint8_t)addr } };
	return k;
}

static uint32_t addr_of(const struct v4key *k)
{
	return (uint32_t)k->addr[0] << 24 | (uint32_t)k->addr[1] << 16 |
	       (uint32_t)k->addr[2] << 8 | k->addr[3];
}

/* addr with random bits past len: they must not matter. */
static uint32_t random_tail(struct rng *r, uint32_t addr, uint32_t len)
{
	return (addr & mask_of(len)) | ((uint32_t)rng_next(r) & ~mask_of(len));
}

static void fail(struct nested *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct nested *t, const char *fmt, ...)
{
	if (atomic_exchange(&t->failed, true))
		return; /* the first failure is the one reported */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->failure, sizeof(t->failure), fmt, ap);
	va_end(ap);
}

/*
 * A lookup of addr at length asked answered value: the value of a prefix
 * that covers addr, no longer than asked.  Returns that prefix's length,
 * or -1 after failing the run.
 */
static int check_answer(struct nested *t, uint64_t value, uint32_t addr,
			uint32_t asked, const char *who)
{
	uint32_t len = (uint32_t)(value >> 56);
	uint32_t prefix = (uint32_t)(value >> 24);
	if (len > 32 || value != value_of(len, prefix)) {
		fail(t, "%s: lookup of %08x/%u read %016llx, which no writer "
		     "wrote", who, addr, asked, (unsigned long long)value);
		return -1;
	}
	if (len > asked || (addr & mask_of(len)) != prefix) {
		fail(t, "%s: lookup of %08x/%u answered %08x/%u", who, addr,
		     asked, prefix, len);
		return -1;
	}
	return (int)len;
}

/* A lookup, program-style or syscall-style: 0 (and *value) or -ENOENT. */
static int look_up(struct nested *t, const struct v4key *k, bool program,
		   uint64_t *value)
{
	if (!program)
		return map_lookup_copy(t->map, k, value);
	map_rcu_read_lock();
	const void *v = map_lookup(t->map, k);
	if (v)
		memcpy(value, v, sizeof(*value));
	map_rcu_read_unlock();
	return v ? 0 : -ENOENT;
}

/* --- writers ------------------------------------------------------------------ */

static void expect_err(struct nested *t, int err, int want, const char *op,
		       const struct v4key *k)
{
	if (err != want)
		fail(t, "%s of %08x/%u (its writer's alone): %d, want %d", op,
		     addr_of(k), k->prefixlen, err, want);
}

static void writer_op(struct nested *t, unsigned w, struct rng *r)
{
	struct counts *c = &t->counts[w];
	uint32_t i = (uint32_t)rng_below(r, ADDRS);
	uint32_t len = (uint32_t)rng_below(r, LENS);
	uint16_t id = t->id_of[i][len];
	if (t->pinned[id] || id % WRITERS != w)
		return; /* another's, or never written */
	uint32_t data = random_tail(r, t->addr[i], len);
	struct v4key k = key_of(len, data);
	uint64_t value = value_of(len, data);
	unsigned dice = (unsigned)rng_below(r, 100);
	bool live = t->live[id];
	int err;

	c->ops++;
	if (dice < 30) {
		err = map_update(t->map, &k, &value, MAP_NOEXIST);
		expect_err(t, err, live ? -EEXIST : 0, "an insert", &k);
		c->inserts += !err;
	} else if (dice < 45) {
		err = map_update(t->map, &k, &value, MAP_EXIST);
		expect_err(t, err, live ? 0 : -ENOENT, "a replace", &k);
		c->replaces += !err;
	} else if (dice < 55) {
		err = map_update(t->map, &k, &value, MAP_ANY);
		expect_err(t, err, 0, "an update", &k);
		c->inserts += !err && !live;
		c->replaces += !err && live;
	} else if (dice < 85) {
		err = map_delete(t->map, &k);
		expect_err(t, err, live ? 0 : -ENOENT, "a delete", &k);
		if (!err) {
			c->deletes++;
			t->live[id] = false;
		}
		return;
	} else {
		/* its own prefix: exactly it when in, something shorter
		 * (or nothing) when out */
		uint64_t got = 0;
		err = look_up(t, &k, dice & 1, &got);
		c->lookups++;
		if (!err) {
			int found = check_answer(t, got, data, len, "a writer");
			if (found >= 0 && live != (found == (int)len))
				fail(t, "a writer: lookup of %08x/%u answered "
				     "/%d, while the prefix is %s", data, len,
				     found, live ? "in" : "out");
		} else if (live) {
			fail(t, "a writer: lookup of %08x/%u, which is in, "
			     "missed", data, len);
		}
		c->own_hits += !err && live;
		return;
	}
	if (!err) {
		t->live[id] = true;
		t->written[id] = data;
	}
}

/* --- readers ------------------------------------------------------------------ */

static void reader_lookup(struct nested *t, unsigned w, struct rng *r)
{
	struct counts *c = &t->counts[w];
	uint32_t i = (uint32_t)rng_below(r, ADDRS);
	uint32_t asked = (uint32_t)rng_below(r, LENS);
	uint32_t addr = t->addr[i];
	struct v4key k = key_of(asked, random_tail(r, addr, asked));
	uint64_t got = 0;
	int err = look_up(t, &k, rng_next(r) & 1, &got);
	uint8_t pin = t->pin[i][asked];

	c->ops++;
	c->lookups++;
	if (err) {
		if (pin != NO_FLOOR)
			fail(t, "a reader: lookup of %08x/%u missed, while "
			     "%08x/%u is pinned", addr, asked,
			     addr & mask_of(pin), pin);
		return;
	}
	c->hits++;
	int found = check_answer(t, got, addr, asked, "a reader");
	if (found >= 0 && pin != NO_FLOOR) {
		c->floor_checks++;
		if (found < pin)
			fail(t, "a reader: lookup of %08x/%u answered /%d, "
			     "while %08x/%u is pinned", addr, asked, found,
			     addr & mask_of(pin), pin);
	}
}

/* A walk while writers change the map: it may miss or repeat keys, but
 * meets only keys of the universe, and ends. */
static void reader_walk(struct nested *t, unsigned w)
{
	struct counts *c = &t->counts[w];
	struct v4key k, next;
	int err = map_get_next_key(t->map, NULL, &next);
	for (size_t steps = 0; err == 0 && steps < 2 * t->n_ids; steps++) {
		if (next.prefixlen > 32 ||
		    find_id(t, next.prefixlen, addr_of(&next)) < 0) {
			fail(t, "a walk met %08x/%u, which no writer wrote",
			     addr_of(&next), next.prefixlen);
			return;
		}
		c->walk_keys++;
		k = next;
		err = map_get_next_key(t->map, &k, &next);
	}
	if (err && err != -ENOENT)
		fail(t, "get_next_key during a walk: %d", err);
}

static void body(void *ctx, unsigned worker, unsigned phase,
		 const atomic_bool *stop)
{
	struct nested *t = ctx;
	struct rng r;
	(void)phase;
	rng_seed(&r, 0x6e57ed * 1000003u + worker);
	for (uint64_t n = 1; !atomic_load_explicit(stop, memory_order_relaxed) &&
			     !atomic_load_explicit(&t->failed,
						   memory_order_relaxed);
	     n++) {
		if (worker < WRITERS)
			writer_op(t, worker, &r);
		else if (n % 4096 == 0)
			reader_walk(t, worker);
		else
			reader_lookup(t, worker, &r);
		if (n % QUIESCE_EVERY == 0)
			map_rcu_quiescent();
	}
}

/* --- the universe, the prefill, the final checks ------------------------------- */

/* Addresses that share prefixes of every length: each is an earlier one
 * with a random tail from a random bit on (that bit flipped). */
static void make_universe(struct nested *t)
{
	struct rng r;
	rng_seed(&r, 0xadd7);
	t->addr[0] = (uint32_t)rng_next(&r);
	for (uint32_t i = 1; i < ADDRS; i++) {
		uint32_t from = t->addr[rng_below(&r, i)];
		uint32_t bit = (uint32_t)rng_below(&r, 32);
		uint32_t keep = mask_of(bit);
		uint32_t flip = 0x80000000u >> bit;
		t->addr[i] = (from & keep) | (~from & flip) |
			     ((uint32_t)rng_next(&r) & ~keep & ~flip);
	}
	t->ids = malloc(sizeof(*t->ids) * ADDRS * LENS);
	cr_assert_not_null(t->ids);
	for (uint32_t i = 0; i < ADDRS; i++)
		for (uint32_t len = 0; len < LENS; len++)
			t->ids[i * LENS + len] = id_word(len, t->addr[i]);
	qsort(t->ids, ADDRS * LENS, sizeof(*t->ids), cmp_u64);
	t->n_ids = 0;
	for (size_t j = 0; j < ADDRS * LENS; j++)
		if (!t->n_ids || t->ids[j] != t->ids[t->n_ids - 1])
			t->ids[t->n_ids++] = t->ids[j];
	cr_assert_lt(t->n_ids, 1u << 16);
	for (uint32_t i = 0; i < ADDRS; i++)
		for (uint32_t len = 0; len < LENS; len++)
			t->id_of[i][len] = (uint16_t)find_id(t, len, t->addr[i]);
	t->pinned = calloc(t->n_ids, sizeof(*t->pinned));
	t->live = calloc(t->n_ids, sizeof(*t->live));
	t->written = calloc(t->n_ids, sizeof(*t->written));
	cr_assert(t->pinned && t->live && t->written);
	/* half the addresses pin one prefix of 4..32 bits (never /0: it
	 * churns with the rest) */
	for (uint32_t i = 0; i < ADDRS; i += 2)
		t->pinned[t->id_of[i][4 + rng_below(&r, 29)]] = true;
	for (uint32_t i = 0; i < ADDRS; i++) {
		uint8_t pin = NO_FLOOR;
		for (uint32_t len = 0; len < LENS; len++) {
			if (t->pinned[t->id_of[i][len]])
				pin = (uint8_t)len;
			t->pin[i][len] = pin;
		}
	}
}

static void prefill(struct nested *t)
{
	struct rng r;
	rng_seed(&r, 0xf111);
	for (uint32_t i = 0; i < ADDRS; i++)
		for (uint32_t len = 0; len < LENS; len++) {
			uint16_t id = t->id_of[i][len];
			if (t->live[id] || (!t->pinned[id] && rng_below(&r, 2)))
				continue;
			uint32_t data = random_tail(&r, t->addr[i], len);
			struct v4key k = key_of(len, data);
			uint64_t value = value_of(len, data);
			cr_assert_eq(map_update(t->map, &k, &value, MAP_NOEXIST),
				     0, "prefill %08x/%u", data, len);
			t->live[id] = true;
			t->written[id] = data;
		}
}

/* Every address at every length answers its longest present prefix; a
 * walk meets every present key once, as last written. */
static void check_final(struct nested *t, const char *name)
{
	for (uint32_t i = 0; i < ADDRS; i++)
		for (uint32_t asked = 0; asked < LENS; asked++) {
			int want = -1;
			for (uint32_t len = 0; len <= asked; len++)
				if (t->live[t->id_of[i][len]])
					want = (int)len;
			struct v4key k = key_of(asked, t->addr[i]);
			uint64_t got = 0;
			int err = map_lookup_copy(t->map, &k, &got);
			if (want < 0) {
				cr_assert_eq(err, -ENOENT, "%s: after the run, "
					     "%08x/%u found /%u, want none",
					     name, t->addr[i], asked,
					     (unsigned)(got >> 56));
				continue;
			}
			cr_assert_eq(err, 0, "%s: after the run, %08x/%u "
				     "missed, want /%d", name, t->addr[i],
				     asked, want);
			cr_assert_eq(got, value_of((uint32_t)want, t->addr[i]),
				     "%s: after the run, %08x/%u found /%u, "
				     "want /%d", name, t->addr[i], asked,
				     (unsigned)(got >> 56), want);
		}
	size_t present = 0, met = 0;
	for (size_t id = 0; id < t->n_ids; id++)
		present += t->live[id];
	bool *seen = calloc(t->n_ids, sizeof(*seen));
	cr_assert_not_null(seen);
	struct v4key k, next;
	int err = map_get_next_key(t->map, NULL, &next);
	for (; err == 0; err = map_get_next_key(t->map, &k, &next)) {
		cr_assert_lt(met, present, "%s: the walk goes on past %zu keys",
			     name, present);
		long id = next.prefixlen <= 32
				  ? find_id(t, next.prefixlen, addr_of(&next))
				  : -1;
		cr_assert(id >= 0 && t->live[id], "%s: the walk met %08x/%u, "
			  "which is not in", name, addr_of(&next),
			  next.prefixlen);
		cr_assert(!seen[id], "%s: the walk met %08x/%u twice", name,
			  addr_of(&next), next.prefixlen);
		cr_assert_eq(addr_of(&next), t->written[id], "%s: the walk "
			     "gave %08x/%u, last written as %08x", name,
			     addr_of(&next), next.prefixlen, t->written[id]);
		seen[id] = true;
		met++;
		k = next;
	}
	cr_assert_eq(err, -ENOENT, "%s: the walk ended with %d", name, err);
	cr_assert_eq(met, present, "%s: the walk met %zu keys of %zu", name,
		     met, present);
	free(seen);
}

/* max_entries: 0 for the prefixes' count and some room. */
static void run_design(const struct map_ops *ops, uint32_t max_entries)
{
	struct nested *t = calloc(1, sizeof(*t));
	cr_assert_not_null(t);
	make_universe(t);
	struct map_attr attr = {
		.type = MAP_TYPE_LPM_TRIE, .key_size = sizeof(struct v4key),
		.value_size = sizeof(uint64_t),
		.max_entries = max_entries ? max_entries
					   : (uint32_t)t->n_ids + 64, /* never full */
		.flags = MAP_F_NO_PREALLOC,
		.ncpus = map_cpus_for_threads(THREADS),
	};
	map_thread_online();
	cr_assert_eq(map_create(ops, &attr, &t->map), 0, "%s", ops->name);
	prefill(t);

	struct team team;
	struct team_config tc = { .threads = THREADS, .rcu = true,
				  .cpu_slots = true, .body = body, .ctx = t };
	char err[200];
	cr_assert_eq(team_start(&team, &tc, err, sizeof(err)), 0, "%s", err);
	team_run_phase(&team, 0, SECONDS);
	team_join(&team);
	cr_assert(!atomic_load(&t->failed), "%s: %s", ops->name, t->failure);

	struct counts sum = { 0 };
	for (unsigned w = 0; w < THREADS; w++) {
		const struct counts *c = &t->counts[w];
		sum.ops += c->ops;
		sum.inserts += c->inserts;
		sum.replaces += c->replaces;
		sum.deletes += c->deletes;
		sum.lookups += c->lookups;
		sum.hits += c->hits;
		sum.floor_checks += c->floor_checks;
		sum.own_hits += c->own_hits;
		sum.walk_keys += c->walk_keys;
	}
	cr_log_info("%s: %zu prefixes, %llu ops: %llu inserts %llu replaces "
		    "%llu deletes, %llu lookups (%llu hits, %llu above a "
		    "pinned prefix, %llu of a writer's own), %llu keys walked",
		    ops->name, t->n_ids, (unsigned long long)sum.ops,
		    (unsigned long long)sum.inserts,
		    (unsigned long long)sum.replaces,
		    (unsigned long long)sum.deletes,
		    (unsigned long long)sum.lookups,
		    (unsigned long long)sum.hits,
		    (unsigned long long)sum.floor_checks,
		    (unsigned long long)sum.own_hits,
		    (unsigned long long)sum.walk_keys);
	cr_expect(sum.inserts && sum.replaces && sum.deletes && sum.hits &&
		  sum.floor_checks && sum.own_hits && sum.walk_keys,
		  "%s: some check never ran", ops->name);
	check_final(t, ops->name);

	map_destroy(t->map);
	map_thread_offline();
	free(t->ids);
	free(t->pinned);
	free(t->live);
	free(t->written);
	free(t);
}

Test(stress, lpm_nested_prefixes, .timeout = 120)
{
	const struct map_ops *designs[MAX_TEST_DESIGNS];
	size_t n = designs_of_type(MAP_TYPE_LPM_TRIE, designs);
	for (size_t i = 0; i < n; i++)
		run_design(designs[i], 0);
}

/* Made for 2^18 prefixes, lpm_trie/multibit boxes a third level and its
 * lookups read copies of that level's slots (multibit.c's slot_copy). */
Test(stress, lpm_nested_prefixes_in_a_large_multibit, .timeout = 120)
{
	const struct map_ops *ops = map_find("lpm_trie/multibit");
	cr_assert_not_null(ops);
	run_design(ops, 1u << 18);
}
