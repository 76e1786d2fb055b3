/* SPDX-License-Identifier: MIT */
/*
 * conformance_lru.c: what every BPF_MAP_TYPE_LRU_HASH design must do.
 *
 * Every test runs on every design in map_registry[] whose type is
 * MAP_TYPE_LRU_HASH, with and without BPF_F_ZERO_SEED (a design's own mode
 * flags, such as lru/linux_percpu's BPF_F_NO_COMMON_LRU, are added by
 * map_create).  The checks every map with keys shares come from
 * conformance.h, run with room enough that nothing is evicted; this file adds
 * what an LRU hash answers as the kernel's does (kernel/bpf/hashtab.c and
 * bpf_lru_list.c, 6.18, read for behaviour; docs/lru.md):
 *
 *  - create checks attributes in the kernel's order with its errno
 *    (BPF_F_NO_PREALLOC is -ENOTSUPP: every LRU element is preallocated;
 *    BPF_F_NUMA_NODE with BPF_F_NO_COMMON_LRU is -EINVAL); a design with
 *    one mode refuses the other mode's flag;
 *  - an insert into a full map evicts instead of failing, the map never
 *    holds more than max_entries keys, and the design's eviction count
 *    accounts for every key that left without a delete;
 *  - a program-style lookup marks its key, so it outlives an unmarked one
 *    at the next eviction; a syscall-style lookup does not (the kernel's
 *    test_lru_map sanity7 and sanity8);
 *  - work is counted on the cpu slot that did it;
 *  - every design can show its inner state (map_ops.dump_state).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/maps/conformance.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

static const uint32_t flag_sets[] = { 0, MAP_F_ZERO_SEED };
static const uint32_t no_flags[] = { 0 };

#define ON_EVERY_LRU(sets, check) ON_EVERY_DESIGN(MAP_TYPE_LRU_HASH, sets, check)

/* A map of exactly max_entries, whatever the design (no room added). */
static struct map *exact_map(const struct vcase *c, uint32_t max_entries)
{
	struct map_attr attr = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
				 .value_size = 8, .max_entries = max_entries,
				 .flags = c->flags };
	struct map *m = NULL;
	int err = map_create(c->ops, &attr, &m);
	cr_assert_eq(err, 0, "%s: create max_entries %u: %d", c->name,
		     max_entries, err);
	return m;
}

/* Entries that give the calling slot `keys` entries of its own: a design
 * whose mode splits the map over the cpus gets that many per cpu. */
static uint32_t entries_for_one_slot(const struct vcase *c, uint32_t keys)
{
	return c->ops->mode_flags & MAP_F_NO_COMMON_LRU
		       ? keys * map_possible_cpus() : keys;
}

/* --- registry ------------------------------------------------------------ */

static void check_design_is_complete(const struct vcase *c)
{
	const struct map_ops *o = c->ops;
	cr_assert(strncmp(o->name, "lru/", 4) == 0,
		  "%s: an LRU design's name starts with lru/", o->name);
	cr_assert(o->create && o->destroy && o->lookup && o->lookup_copy &&
		  o->update && o->delete && o->get_next_key,
		  "%s: an operation is missing", o->name);
	cr_assert(o->work && o->dump_state, "%s: an LRU design counts its work "
		  "and shows its state", o->name);
	cr_assert(!o->faithful || o->models, "%s: faithful to which kernel?",
		  o->name);
}

Test(registry, lru_designs_are_complete, .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(no_flags, check_design_is_complete);
}

/* --- create -------------------------------------------------------------- */

struct attr_case {
	const char *what;
	uint32_t key_size, value_size, max_entries, flags;
	int err;
};

static const struct attr_case bad_attrs[] = {
	{ "NO_PREALLOC", 4, 8, 16, MAP_F_NO_PREALLOC, -ENOTSUPP },
	{ "NO_PREALLOC before zero sizes", 0, 0, 0, MAP_F_NO_PREALLOC,
	  -ENOTSUPP },
	/* the kernel's checks first, then a design's refusal of a mode flag */
	{ "NO_PREALLOC with NO_COMMON_LRU", 4, 8, 16,
	  MAP_F_NO_PREALLOC | MAP_F_NO_COMMON_LRU, -ENOTSUPP },
	{ "unknown flag 1<<20", 4, 8, 16, 1u << 20, -EINVAL },
	{ "unknown flag before NO_PREALLOC", 4, 8, 16,
	  (1u << 20) | MAP_F_NO_PREALLOC, -EINVAL },
	{ "RDONLY and WRONLY", 4, 8, 16, MAP_F_RDONLY | MAP_F_WRONLY, -EINVAL },
	{ "NUMA_NODE with NO_COMMON_LRU", 4, 8, 16,
	  MAP_F_NUMA_NODE | MAP_F_NO_COMMON_LRU, -EINVAL },
	{ "key_size 0", 0, 8, 16, 0, -EINVAL },
	{ "value_size 0", 4, 0, 16, 0, -EINVAL },
	{ "max_entries 0", 4, 8, 0, 0, -EINVAL },
	{ "key 4 + value 4 MiB", 4, 4u << 20, 1, 0, -E2BIG },
	{ "max_entries 2^31 + 1", 4, 8, (1u << 31) + 1, 0, -E2BIG },
};

static void check_create_rejects(const struct vcase *c)
{
	static struct map not_a_map;
	for (size_t k = 0; k < ARRAY_SIZE(bad_attrs); k++) {
		const struct attr_case *a = &bad_attrs[k];
		struct map_attr attr = { .type = MAP_TYPE_LRU_HASH,
					 .key_size = a->key_size,
					 .value_size = a->value_size,
					 .max_entries = a->max_entries,
					 .flags = a->flags | c->flags };
		struct map *m = &not_a_map;
		int err = map_create(c->ops, &attr, &m);
		cr_assert_eq(err, a->err, "%s: create with %s: %d, want %d",
			     c->name, a->what, err, a->err);
		cr_assert_eq(m, &not_a_map, "%s: failed create set *out", c->name);
	}
}

Test(create, bad_attributes_get_the_kernels_errno, .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(flag_sets, check_create_rejects);
}

/* The per-CPU mode's flag: its design takes it; the others have one list
 * (or their own partitions) and refuse it rather than pretend. */
static void check_mode_flag(const struct vcase *c)
{
	struct map_attr attr = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
				 .value_size = 8, .max_entries = 64,
				 .flags = c->flags | MAP_F_NO_COMMON_LRU };
	struct map *m = NULL;
	int err = map_create(c->ops, &attr, &m);
	if (c->ops->mode_flags & MAP_F_NO_COMMON_LRU) {
		cr_assert_eq(err, 0, "%s: its own mode refused: %d", c->name, err);
		cr_expect(m->attr.flags & MAP_F_NO_COMMON_LRU);
		cr_expect_eq(m->attr.max_entries % m->attr.ncpus, 0,
			     "%s: %u entries over %u cpus", c->name,
			     m->attr.max_entries, m->attr.ncpus);
		map_destroy(m);
	} else {
		cr_expect_eq(err, -EINVAL, "%s: BPF_F_NO_COMMON_LRU on a design "
			     "without that mode: %d", c->name, err);
	}
}

Test(create, no_common_lru_is_the_per_cpu_designs_own,
     .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(flag_sets, check_mode_flag);
}

/* --- what every map with keys does (conformance.h), with room ---------------- */

TestSuite(update, .timeout = TEST_TIMEOUT_S);

Test(update, any_inserts_and_replaces)
{
	ON_EVERY_LRU(flag_sets, check_any_inserts_and_replaces);
}

Test(update, noexist_on_a_present_key_is_eexist)
{
	ON_EVERY_LRU(flag_sets, check_noexist);
}

Test(update, exist_on_an_absent_key_is_enoent)
{
	ON_EVERY_LRU(flag_sets, check_exist);
}

Test(update, other_flags_are_einval_and_change_nothing)
{
	ON_EVERY_LRU(flag_sets, check_bad_update_flags);
}

TestSuite(lookup, .timeout = TEST_TIMEOUT_S);

Test(lookup, absent_keys_are_enoent)
{
	ON_EVERY_LRU(flag_sets, check_absent_keys);
}

Test(lookup, delete_then_lookup_is_enoent)
{
	ON_EVERY_LRU(flag_sets, check_delete_then_lookup);
}

Test(lookup, program_lookup_points_at_the_value)
{
	ON_EVERY_LRU(flag_sets, check_program_lookup);
}

Test(lookup, a_batch_gives_each_key_its_lookup)
{
	ON_EVERY_LRU(flag_sets, check_batch_lookup);
}

TestSuite(iteration, .timeout = TEST_TIMEOUT_S);

Test(iteration, empty_map_has_no_first_key)
{
	ON_EVERY_LRU(flag_sets, check_walk_empty);
}

Test(iteration, walk_returns_every_key_once)
{
	ON_EVERY_LRU(flag_sets, check_walk_every_key);
}

Test(iteration, absent_key_restarts_the_walk)
{
	ON_EVERY_LRU(flag_sets, check_walk_restarts);
}

Test(iteration, walk_follows_deletes_and_replaces)
{
	ON_EVERY_LRU(flag_sets, check_walk_after_changes);
}

Test(iteration, delete_first_key_until_empty)
{
	ON_EVERY_LRU(flag_sets, check_drain_by_walk);
}

TestSuite(sizes, .timeout = TEST_TIMEOUT_S);

Test(sizes, keys_and_values_of_1_to_512_bytes)
{
	ON_EVERY_LRU(no_flags, check_sizes);
}

/* --- eviction --------------------------------------------------------------- */

static uint32_t count_keys(struct map *m)
{
	uint32_t key, n = 0;
	int err;
	for (err = map_get_next_key(m, NULL, &key); !err;
	     err = map_get_next_key(m, &key, &key))
		cr_assert_leq(++n, m->attr.max_entries + 1, "the walk loops");
	cr_assert_eq(err, -ENOENT);
	return n;
}

/*
 * 3 x max_entries new keys into a map of max_entries: every insert
 * succeeds, the map never holds more than max_entries, the newest key is
 * there, and the design's eviction count is every key that left.
 */
static void check_full_map_evicts(const struct vcase *c)
{
	const uint32_t max = entries_for_one_slot(c, 64);
	struct map *m = exact_map(c, max);
	uint64_t value = 7;
	uint32_t key;

	for (key = 0; key < 3 * max; key++) {
		int err = map_update(m, &key, &value, MAP_NOEXIST);
		cr_assert_eq(err, 0, "%s: insert %u of %u into a map of %u: %d",
			     c->name, key + 1, 3 * max, max, err);
	}
	uint32_t present = count_keys(m);
	uint64_t newest = 0;
	key = 3 * max - 1;
	cr_expect_eq(map_lookup_copy(m, &key, &newest), 0,
		     "%s: the newest key was evicted", c->name);
	cr_expect(present >= 1 && present <= m->attr.max_entries,
		  "%s: %u keys in a map of %u", c->name, present,
		  m->attr.max_entries);
	cr_expect_eq(map_work_of(m, -1).evictions, 3 * max - present,
		     "%s: %u inserted, %u present: the eviction count says %llu",
		     c->name, 3 * max, present,
		     (unsigned long long)map_work_of(m, -1).evictions);
	map_destroy(m);
}

Test(eviction, an_insert_into_a_full_map_evicts, .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(flag_sets, check_full_map_evicts);
}

static void program_lookup(struct map *m, uint32_t key)
{
	map_rcu_read_lock();
	cr_assert_not_null(map_lookup(m, &key));
	map_rcu_read_unlock();
}

/*
 * The kernel's test_lru_map sanity7 and sanity8, on one slot: a map with
 * room for two keys holds 1 and 2; one is looked up as a program does (it
 * marks the key), the other as the syscall does (it does not); inserting 3
 * evicts the unmarked one.
 */
static void check_marked_key_survives(const struct vcase *c, uint32_t marked,
				      uint32_t unmarked)
{
	struct map *m = exact_map(c, entries_for_one_slot(c, 2));
	uint64_t value = 1, got;
	for (uint32_t key = 1; key <= 2; key++)
		cr_assert_eq(map_update(m, &key, &value, MAP_NOEXIST), 0);
	program_lookup(m, marked);
	cr_assert_eq(map_lookup_copy(m, &unmarked, &got), 0);
	uint32_t three = 3;
	cr_assert_eq(map_update(m, &three, &value, MAP_NOEXIST), 0);
	cr_expect_eq(map_lookup_copy(m, &marked, &got), 0, "%s: key %u, looked "
		     "up as a program does, was evicted", c->name, marked);
	cr_expect_eq(map_lookup_copy(m, &unmarked, &got), -ENOENT, "%s: key %u, "
		     "looked up as the syscall does, outlived the marked one",
		     c->name, unmarked);
	cr_expect_eq(map_lookup_copy(m, &three, &got), 0, "%s", c->name);
	map_destroy(m);
}

static void check_program_lookup_marks(const struct vcase *c)
{
	/* FIFO keeps no mark at all, and S3-FIFO's small queue needs two hits
	 * before a key is spared: sanity7/8 cannot hold for them (their own
	 * tests, test_lru_textbook.c, check what a hit does there). */
	if (c->ops->one_hit_may_not_save)
		return;
	check_marked_key_survives(c, 1, 2); /* sanity7 */
	check_marked_key_survives(c, 2, 1); /* sanity8 */
}

Test(eviction, a_program_lookup_marks_and_a_syscall_lookup_does_not,
     .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(flag_sets, check_program_lookup_marks);
}

/* Work belongs to the slot that did it: here the last slot does it all,
 * and slot 0 (where a design that ignored the slot would count) nothing. */
static void check_work_per_slot(const struct vcase *c)
{
	struct map *m = exact_map(c, entries_for_one_slot(c, 16));
	unsigned last = m->attr.ncpus - 1;
	uint64_t value = 1;
	cr_assert_gt(last, 0, "%s: one cpu slot: nothing to tell apart", c->name);
	use_slot(last);
	for (uint32_t key = 0; key < 200; key++)
		cr_assert_eq(map_update(m, &key, &value, MAP_NOEXIST), 0);
	use_slot(0);
	struct map_work all = map_work_of(m, -1), mine = map_work_of(m, (int)last);
	struct map_work first = map_work_of(m, 0);
	cr_expect_gt(all.evictions, 0, "%s", c->name);
	cr_expect_gt(all.locks, 0, "%s: no lock counted", c->name);
	cr_expect_eq(mine.evictions, all.evictions, "%s", c->name);
	cr_expect_eq(mine.locks, all.locks, "%s", c->name);
	cr_expect_eq(first.locks, 0, "%s: work counted on slot 0, which did "
		     "nothing", c->name);
	map_destroy(m);
}

Test(eviction, work_is_counted_on_the_slot_that_did_it,
     .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(no_flags, check_work_per_slot);
}

/* The eviction watch reports each key that left without a delete, once,
 * and no key that is still there. */
struct watched {
	uint32_t n, keys[512];
};

static void note_eviction(void *ctx, const void *key)
{
	struct watched *w = ctx;
	if (w->n < 512)
		memcpy(&w->keys[w->n], key, sizeof(uint32_t));
	w->n++;
}

static void check_watch_reports_the_victims(const struct vcase *c)
{
	const uint32_t max = entries_for_one_slot(c, 32);
	struct map *m = exact_map(c, max);
	struct watched w = { 0 };
	uint64_t value = 1, got;
	cr_assert_not_null(m->ops->watch_evictions, "%s", c->name);
	m->ops->watch_evictions(m, note_eviction, &w);
	for (uint32_t key = 0; key < 4 * max && key < 512; key++)
		cr_assert_eq(map_update(m, &key, &value, MAP_NOEXIST), 0);
	m->ops->watch_evictions(m, NULL, NULL);
	uint32_t present = count_keys(m), inserted = 4 * max < 512 ? 4 * max : 512;
	cr_expect_eq(w.n, inserted - present, "%s: %u reported, %u inserted, %u "
		     "present", c->name, w.n, inserted, present);
	bool *seen = calloc(inserted, sizeof(bool));
	for (uint32_t i = 0; i < w.n && i < 512; i++) {
		cr_expect(w.keys[i] < inserted && !seen[w.keys[i]], "%s: victim %u "
			  "reported twice, or never inserted", c->name, w.keys[i]);
		if (w.keys[i] < inserted)
			seen[w.keys[i]] = true;
		cr_expect_eq(map_lookup_copy(m, &w.keys[i], &got), -ENOENT,
			     "%s: victim %u is still there", c->name, w.keys[i]);
	}
	free(seen);
	cr_expect_geq(map_memory_per_entry(m), 4 + 8, "%s: %.1f bytes an entry "
		      "cannot hold its key and value", c->name,
		      map_memory_per_entry(m));
	map_destroy(m);
}

Test(eviction, the_watch_reports_every_victim_once, .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(no_flags, check_watch_reports_the_victims);
}

/* --- inner state ----------------------------------------------------------- */

static void check_dump_shows_the_keys(const struct vcase *c)
{
	struct map *m = exact_map(c, entries_for_one_slot(c, 8));
	uint64_t value = 1;
	uint32_t keys[] = { 0x11111111, 0x22222222, 0x33333333 };
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		cr_assert_eq(map_update(m, &keys[i], &value, MAP_NOEXIST), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_TEXT), 0, "%s", c->name);
	fclose(f);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		char hex[9];
		snprintf(hex, sizeof(hex), "%08x", keys[i]); /* bytes alike */
		cr_expect(strstr(text, hex) != NULL, "%s: key %s not in\n%s",
			  c->name, hex, text);
	}
	free(text);
	map_destroy(m);
}

Test(state, dump_shows_every_key, .timeout = TEST_TIMEOUT_S)
{
	ON_EVERY_LRU(no_flags, check_dump_shows_the_keys);
}
