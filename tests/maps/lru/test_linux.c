/* SPDX-License-Identifier: MIT */
/*
 * lru/linux_common and lru/linux_percpu, the kernel's LRU: its own
 * selftests (tests/maps/lru/lru_selftests.c: the kernel suite runs the same
 * scenarios on the kernel's map), then what those do not pin down, each
 * expectation worked out by hand from the kernel's algorithm: target_free,
 * the scan limit and what a refill visits, the rotation hand, the force
 * shrink, stealing and its persistent round robin, where a freed node goes,
 * the per-CPU shares, and the dumps.
 *
 * Maps here are made with an explicit ncpus, so the expectations hold on
 * any machine; the selftests use the possible-CPU count, as the kernel's.
 * Keys are 4-byte numbers (k prints as its little-endian hex, 01000000),
 * values 8 bytes; every operation runs on the cpu slot it names.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/cpu.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "tests/maps/lru/lru_selftests.h"

static const struct map_ops *common_ops, *percpu_ops;
static struct lru_target common_target, percpu_target;

static void set_up(void)
{
	map_thread_online();
	common_ops = map_find("lru/linux_common");
	percpu_ops = map_find("lru/linux_percpu");
	cr_assert_not_null(common_ops);
	cr_assert_not_null(percpu_ops);
	common_target = (struct lru_target){ .label = "lru/linux_common",
					    .ops = common_ops };
	percpu_target = (struct lru_target){ .label = "lru/linux_percpu",
					    .ops = percpu_ops };
}

static void tear_down(void)
{
	map_cpu_release();
	map_thread_offline();
}

TestSuite(lru_selftests, .init = set_up, .fini = tear_down, .timeout = 60);
TestSuite(lru_linux, .init = set_up, .fini = tear_down, .timeout = 60);

/* --- the kernel's selftests ----------------------------------------------- */

Test(lru_selftests, sanity0_7_8_common)
{
	lru_sanity0(&common_target, 0);
	lru_sanity7(&common_target, 0);
	lru_sanity8(&common_target, 0);
}

Test(lru_selftests, sanity0_7_8_percpu)
{
	lru_sanity0(&percpu_target, MAP_F_NO_COMMON_LRU);
	lru_sanity7(&percpu_target, MAP_F_NO_COMMON_LRU);
	lru_sanity8(&percpu_target, MAP_F_NO_COMMON_LRU);
}

Test(lru_selftests, sanity1_unreferenced_go_first)
{
	lru_sanity1(&common_target);
}

Test(lru_selftests, sanity2_the_pop_evicts_before_the_key_is_checked)
{
	lru_sanity2(&common_target);
}

Test(lru_selftests, sanity3_rotation_and_scan_limit)
{
	lru_sanity3(&common_target);
}

Test(lru_selftests, sanity4_deletes)
{
	lru_sanity4(&common_target, 0);
	lru_sanity4(&percpu_target, MAP_F_NO_COMMON_LRU);
}

Test(lru_selftests, sanity5_one_element_every_cpu)
{
	lru_sanity5(&common_target);
}

Test(lru_selftests, sanity6_sticky_refs_percpu)
{
	lru_sanity6(&percpu_target);
}

/* --- helpers -------------------------------------------------------------- */

static struct map *make(const struct map_ops *ops, uint32_t max_entries,
			uint32_t ncpus)
{
	struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = max_entries,
			      .ncpus = ncpus };
	struct map *m;
	int err = map_create(ops, &a, &m);
	cr_assert_eq(err, 0, "%s max_entries %u ncpus %u: %d", ops->name,
		     max_entries, ncpus, err);
	return m;
}

static void on_slot(unsigned slot)
{
	if (slot == 0)
		map_cpu_release();
	else
		cr_assert_eq(map_cpu_claim((int)slot), (int)slot);
}

static int update_on(struct map *m, unsigned slot, uint32_t key,
		     uint64_t flags)
{
	uint64_t value = key;
	on_slot(slot);
	return map_update(m, &key, &value, flags);
}

static void put(struct map *m, unsigned slot, uint32_t key)
{
	int err = update_on(m, slot, key, MAP_ANY);
	cr_assert_eq(err, 0, "update of %u on slot %u: %d", key, slot, err);
}

static void put_range(struct map *m, unsigned slot, uint32_t from, uint32_t to)
{
	for (uint32_t k = from; k <= to; k++)
		put(m, slot, k);
}

/* A program's lookup: sets the ref bit. */
static void ref(struct map *m, uint32_t key)
{
	map_rcu_read_lock();
	void *v = map_lookup(m, &key);
	map_rcu_read_unlock();
	cr_assert_not_null(v, "key %u is gone", key);
}

static void ref_range(struct map *m, uint32_t from, uint32_t to)
{
	for (uint32_t k = from; k <= to; k++)
		ref(m, k);
}

static bool present(struct map *m, uint32_t key)
{
	uint64_t value;
	return map_lookup_copy(m, &key, &value) == 0;
}

static void del(struct map *m, unsigned slot, uint32_t key)
{
	on_slot(slot);
	cr_assert_eq(map_delete(m, &key), 0, "delete of %u", key);
}

/* Exactly the keys of want[] (n of them) are in m. */
static void expect_keys(struct map *m, const uint32_t *want, size_t n)
{
	size_t found = 0;
	uint32_t key, prev;
	for (int err = map_get_next_key(m, NULL, &key); !err;
	     prev = key, err = map_get_next_key(m, &prev, &key))
		found++;
	for (size_t i = 0; i < n; i++)
		cr_expect(present(m, want[i]), "key %u is gone", want[i]);
	cr_assert_eq(found, n, "%zu keys in the map, expected %zu", found, n);
}

static char *dump(struct map *m, enum map_dump_format fmt)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(m->ops->dump_state(m, f, fmt), 0);
	fclose(f);
	return text;
}

/* The dump's line that starts with `start` (a list's name), as a copy. */
static char *dump_line(struct map *m, const char *start)
{
	char *text = dump(m, MAP_DUMP_TEXT), *line = NULL;
	size_t n = strlen(start);
	for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1
							     : NULL)
		if (strncmp(p, start, n) == 0) {
			line = strndup(p, strcspn(p, "\n"));
			break;
		}
	free(text);
	cr_assert_not_null(line, "no dump line starts with '%s'", start);
	return line;
}

static void expect_line(struct map *m, const char *start, const char *want)
{
	char *line = dump_line(m, start);
	cr_expect_str_eq(line, want);
	free(line);
}

/* For lists of never-used nodes, whose key bytes are whatever the
 * element area held: only the name and the count. */
static void expect_line_starts(struct map *m, const char *start,
			       const char *want)
{
	char *line = dump_line(m, start);
	cr_expect(strncmp(line, want, strlen(want)) == 0, "'%s', expected "
		  "'%s...'", line, want);
	free(line);
}

static struct map_work work_of(struct map *m, int slot)
{
	return map_work_of(m, slot);
}

/* --- the common LRU ------------------------------------------------------- */

/*
 * target_free = clamp((max_entries / ncpus) / 2, 1, 128): the first insert
 * on slot 0 refills its local free list with target_free nodes and takes
 * one.  Fails with the pre-2025 fixed target of 128 (200 / 2 cpus), with
 * the machine's cpu count instead of the map's (4 cpus), or without the
 * clamp to 1 (3 entries, 2 cpus: a target of 0 would refill nothing).
 */
Test(lru_linux, target_free_is_clamped_half_share)
{
	static const struct { uint32_t max, ncpus, target; } cases[] = {
		{ 1000, 2, 128 }, { 200, 2, 50 }, { 1000, 4, 125 },
		{ 100000, 1, 128 }, { 3, 2, 1 }, { 1, 2, 1 }, { 7, 3, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct map *m = make(common_ops, cases[i].max, cases[i].ncpus);
		char want[64];
		put(m, 0, 1);
		cr_log_info("max_entries %u, ncpus %u", cases[i].max,
			    cases[i].ncpus);
		snprintf(want, sizeof(want), "cpu0 local free (%u):",
			 cases[i].target - 1);
		expect_line_starts(m, "cpu0 local free", want);
		snprintf(want, sizeof(want), "free (%u):",
			 cases[i].max - cases[i].target);
		expect_line_starts(m, "free (", want);
		map_destroy(m);
	}
}

/*
 * sanity3's map on 2 cpus (target 64), counted: the refill of the first new
 * key flushes the 64 pending keys, the inactive rotation visits 128 nodes
 * (the scan limit, not the target), the shrink 128 more (96 ref'd, moved
 * to the active list, then 32 evicted): 320 nodes scanned, 32 evictions,
 * one refill, and locks: the local and global list locks, 32 bucket locks
 * to evict, the update's own bucket lock.  A scan limit of target_free
 * would evict nothing in 64 ref'd nodes and force-shrink a ref'd one; a
 * shrink that did not count its ref'd nodes would evict 64.
 */
Test(lru_linux, refill_counts_and_scan_limit_128)
{
	struct map *m = make(common_ops, 256, 2);
	put_range(m, 0, 1, 256);
	ref_range(m, 1, 224);
	struct map_work before = work_of(m, 0);
	put(m, 0, 257);
	struct map_work after = work_of(m, 0);
	cr_expect_eq(after.refills - before.refills, 1);
	cr_expect_eq(after.nodes_scanned - before.nodes_scanned, 320);
	cr_expect_eq(after.evictions - before.evictions, 32);
	cr_expect_eq(after.locks - before.locks, 35);
	for (uint32_t k = 225; k <= 256; k++)
		cr_expect(!present(m, k), "key %u survived", k);
	cr_expect(present(m, 1) && present(m, 224) && present(m, 257));
	map_destroy(m);
}

/* The first insert: local lock, global lock (a refill), bucket lock; the
 * second comes from the local free list: no refill, two locks. */
Test(lru_linux, locks_and_refills_of_one_insert)
{
	struct map *m = make(common_ops, 64, 2);
	put(m, 0, 1);
	struct map_work w = work_of(m, 0);
	cr_expect_eq(w.locks, 3);
	cr_expect_eq(w.refills, 1);
	cr_expect_eq(w.nodes_scanned, 0);
	put(m, 0, 2);
	w = work_of(m, 0);
	cr_expect_eq(w.locks, 5);
	cr_expect_eq(w.refills, 1);
	cr_expect_eq(work_of(m, 1).locks, 0);
	map_destroy(m);
}

/*
 * Target 1 (2 entries, 2 cpus).  After 1 and 2 and a program lookup of 1,
 * a BPF_NOEXIST update of 1 pops first: the refill flushes 2 to the
 * inactive list, the rotation moves the ref'd 1 to the active list, the
 * shrink evicts 2.  Then the update finds 1 and fails -EEXIST: a failed
 * update evicted a key.  Fails if flags are checked before the pop.
 */
Test(lru_linux, a_failing_update_evicts)
{
	struct map *m = make(common_ops, 2, 2);
	put(m, 0, 1);
	put(m, 0, 2);
	ref(m, 1);
	cr_assert_eq(update_on(m, 0, 1, MAP_NOEXIST), -EEXIST);
	expect_keys(m, (uint32_t[]){ 1 }, 1);
	map_destroy(m);
}

/*
 * A node still pending goes back to its owner's local free list, whichever
 * cpu frees it; a node on the global lists to the global free list's
 * head.  Target 2 (8 entries, 2 cpus): slot 0 inserts 1 and 2 (both
 * pending on cpu 0), slot 1 deletes 1; slot 0's next insert reuses that
 * node without a refill.  Fails if push-free sends every node to the
 * global free list, or to the freeing cpu's list.
 */
Test(lru_linux, push_free_goes_to_the_owner)
{
	struct map *m = make(common_ops, 8, 2);
	put_range(m, 0, 1, 2);
	del(m, 1, 1);
	expect_line(m, "cpu0 local free", "cpu0 local free (1): 01000000");
	expect_line(m, "cpu0 pending", "cpu0 pending (1): 02000000");
	expect_line(m, "cpu1 local free", "cpu1 local free (0):");
	put(m, 0, 3);
	cr_expect_eq(work_of(m, 0).refills, 1);
	/* 4's refill: 2 and 3 flushed, inactive newest first: 3 2. */
	put(m, 0, 4);
	expect_line(m, "inactive", "inactive (2): [hand] 03000000 02000000");
	del(m, 1, 2);
	char *line = dump_line(m, "free (");
	cr_expect(strncmp(line, "free (5): 02000000 ", 19) == 0, "%s", line);
	free(line);
	map_destroy(m);
}

/*
 * Stealing, 3 cpus, 2 entries (target 1).  Slots 1 and 2 each take one
 * node (pending); slot 0's refill then finds the global lists empty and
 * steals from cpu 1 (its next_steal starts at itself, cpu 0, which has
 * nothing), leaving next_steal at 2.  Slot 1 then steals 2's node, slot 2
 * steals slot 0's.  Slot 0's next steal starts at cpu 2, its persistent
 * next_steal, and takes 5 there, not 4 at cpu 1.  Fails if next_steal is
 * not kept, or is left on the victim instead of the cpu after it.
 */
Test(lru_linux, steal_round_robin_from_next_steal)
{
	struct map *m = make(common_ops, 2, 3);
	put(m, 1, 1);
	put(m, 2, 2);
	put(m, 0, 3);
	expect_keys(m, (uint32_t[]){ 2, 3 }, 2);
	expect_line(m, "cpu0:", "cpu0: next_steal 2");
	put(m, 1, 4);
	expect_keys(m, (uint32_t[]){ 3, 4 }, 2);
	put(m, 2, 5);
	expect_keys(m, (uint32_t[]){ 4, 5 }, 2);
	put(m, 0, 6);
	expect_keys(m, (uint32_t[]){ 4, 6 }, 2);
	expect_line(m, "cpu0:", "cpu0: next_steal 0");
	expect_line(m, "cpu0 pending", "cpu0 pending (1): 06000000");
	map_destroy(m);
}

/* --- the per-CPU LRU ------------------------------------------------------ */

/*
 * 2 cpus x 8 (scan limit 4).  Each pop rotates the inactive list from the
 * hand, 4 nodes, wrapping past the head (not counted); with 5 nodes the
 * hand first leaves the head.  After 1..8 it is on 7; the pop of 9
 * visits 7, 8, 1, 2 (hand on 3), finds the free list empty and shrinks
 * 1..4, stepping the hand off 3 and 4 to 5.  A delete of 5 steps it to 6.
 * Fails if the hand restarts at the head each time, if the head counts as
 * a visit, or if a removed node keeps the hand.
 */
Test(lru_linux, the_rotation_hand)
{
	struct map *m = make(percpu_ops, 16, 2);
	put_range(m, 0, 1, 8);
	expect_line(m, "cpu0 inactive", "cpu0 inactive (8): 08000000 "
		    "[hand]07000000 06000000 05000000 04000000 03000000 "
		    "02000000 01000000");
	put(m, 0, 9);
	expect_line(m, "cpu0 inactive", "cpu0 inactive (5): 09000000 "
		    "08000000 07000000 06000000 [hand]05000000");
	expect_line(m, "cpu0 free", "cpu0 free (3): 03000000 02000000 "
		    "01000000");
	del(m, 0, 5);
	expect_line(m, "cpu0 inactive", "cpu0 inactive (4): 09000000 "
		    "08000000 07000000 [hand]06000000");
	map_destroy(m);
}

/*
 * 2 cpus x 10.  After 1..10 the hand is on 7; all ten are ref'd.  The pop
 * of 11 rotates 7..10 to the active list, the shrink moves 1..4 (its 4
 * scans) there too and evicts none, so the force shrink evicts the
 * inactive tail, 5, ref'd as it is.  Fails if the force shrink honours
 * the ref bit (-ENOMEM), takes the active list's tail (7) or the head
 * (6), or if the shrink has no scan limit (it would empty the inactive
 * list and force-evict 7).
 */
Test(lru_linux, force_shrink_ignores_the_ref_bit)
{
	struct map *m = make(percpu_ops, 20, 2);
	put_range(m, 0, 1, 10);
	ref_range(m, 1, 10);
	put(m, 0, 11);
	expect_keys(m, (uint32_t[]){ 1, 2, 3, 4, 6, 7, 8, 9, 10, 11 }, 10);
	expect_line(m, "cpu0 inactive", "cpu0 inactive (2): [hand] 0b000000 "
		    "06000000*");
	map_destroy(m);
}

/* max_entries rounded up to a multiple of ncpus, each cpu an equal share. */
Test(lru_linux, percpu_capacity_rounds_up)
{
	static const struct { uint32_t max, ncpus, want; } cases[] = {
		{ 3, 2, 4 }, { 4, 2, 4 }, { 7, 3, 9 }, { 1, 4, 4 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct map *m = make(percpu_ops, cases[i].max, cases[i].ncpus);
		cr_expect_eq(m->attr.max_entries, cases[i].want,
			     "%u on %u cpus", cases[i].max, cases[i].ncpus);
		char want[32];
		snprintf(want, sizeof(want), "cpu%u free (%u):",
			 cases[i].ncpus - 1, cases[i].want / cases[i].ncpus);
		expect_line_starts(m, want, want);
		map_destroy(m);
	}
}

/*
 * 2 cpus x 4.  An update of an existing key (1) gives the new node a ref
 * bit (the old one goes to the free list): the next pop's rotation moves
 * it to the active list, and the shrink for 5 evicts 2, 3 and 4 only.
 * Without the ref 1 would go too.
 */
Test(lru_linux, a_replace_sets_the_ref_bit)
{
	struct map *m = make(percpu_ops, 8, 2);
	put_range(m, 0, 1, 3);
	put(m, 0, 1);
	expect_line(m, "cpu0 inactive", "cpu0 inactive (3): [hand] 01000000* "
		    "03000000 02000000");
	expect_line(m, "cpu0 free", "cpu0 free (1): 01000000");
	put(m, 0, 4);
	put(m, 0, 5);
	expect_keys(m, (uint32_t[]){ 1, 5 }, 2);
	map_destroy(m);
}

/*
 * 2 cpus x 2: a cpu whose share is full evicts its own keys (up to 4 at a
 * shrink: both) though cpu 1's share is free, and a node freed on another
 * cpu goes back to its owner.  Fails with stealing, or with push-free to
 * the freeing cpu's list.
 */
Test(lru_linux, shares_no_stealing_owner_gets_it_back)
{
	struct map *m = make(percpu_ops, 4, 2);
	put_range(m, 0, 1, 3);
	expect_keys(m, (uint32_t[]){ 3 }, 1);
	expect_line(m, "cpu0 free", "cpu0 free (1): 01000000");
	del(m, 1, 3);
	expect_line(m, "cpu0 free", "cpu0 free (2): 03000000 01000000");
	expect_line_starts(m, "cpu1 free", "cpu1 free (2):");
	map_destroy(m);
}

/* --- modes, flags, dumps -------------------------------------------------- */

Test(lru_linux, modes)
{
	struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = 8,
			      .flags = MAP_F_NO_COMMON_LRU };
	struct map *m;
	cr_expect_eq(map_create(common_ops, &a, &m), -EINVAL);
	cr_expect_eq(map_find_faithful(MAP_TYPE_LRU_HASH, MAP_F_NO_COMMON_LRU),
		     percpu_ops);
	cr_expect_eq(map_find_faithful(MAP_TYPE_LRU_HASH, MAP_F_ZERO_SEED),
		     common_ops);
	cr_expect(common_ops->faithful && percpu_ops->faithful);
	cr_expect(common_ops->evicts_early && percpu_ops->evicts_early);
	cr_expect_str_eq(common_ops->models, "5.10 6.1 6.12 6.18");
	cr_expect_str_eq(percpu_ops->models, "5.10 6.1 6.12 6.18");
	/* The per-CPU design is that flag: a map of it always has it. */
	a.flags = 0;
	cr_assert_eq(map_create(percpu_ops, &a, &m), 0);
	cr_expect(m->attr.flags & MAP_F_NO_COMMON_LRU);
	map_destroy(m);
}

/* Every list of each design, as text and as a Graphviz digraph. */
Test(lru_linux, dumps_name_every_list)
{
	struct map *c = make(common_ops, 8, 2), *p = make(percpu_ops, 8, 2);
	put(c, 0, 1);
	ref(c, 1);
	put(p, 1, 1);
	char *text = dump(c, MAP_DUMP_TEXT);
	static const char *const common_lines[] = {
		"lru/linux_common: target_free 2, scan limit 128",
		"\nactive (0):", "\ninactive (0): [hand]", "\nfree (6):",
		"\ncpu0: next_steal 0", "\ncpu0 local free (1):",
		"\ncpu0 pending (1): 01000000*", "\ncpu1 local free (0):",
		"\ncpu1 pending (0):",
	};
	for (size_t i = 0; i < sizeof(common_lines) / sizeof(*common_lines); i++)
		cr_expect(strstr(text, common_lines[i]), "no '%s' in\n%s",
			  common_lines[i], text);
	free(text);
	text = dump(p, MAP_DUMP_TEXT);
	cr_expect(strstr(text, "\ncpu1 inactive (1): [hand] 01000000\n"), "%s",
		  text);
	cr_expect(strstr(text, "\ncpu0 free (4):"), "%s", text);
	free(text);
	text = dump(c, MAP_DUMP_DOT);
	cr_expect(strncmp(text, "digraph maplab {", 16) == 0, "%s", text);
	cr_expect(strstr(text, "subgraph cluster_cpu1_pending {"), "%s", text);
	cr_expect(strstr(text, "subgraph cluster_inactive {"), "%s", text);
	cr_expect(strstr(text, "head [hand]"), "%s", text);
	cr_expect_str_eq(text + strlen(text) - 2, "}\n");
	free(text);
	map_destroy(c);
	map_destroy(p);
}
