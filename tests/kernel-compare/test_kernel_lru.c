/* SPDX-License-Identifier: MIT */
/*
 * lru/linux_common and lru/linux_percpu against the running kernel's
 * BPF_MAP_TYPE_LRU_HASH, op for op: the kernel is the judge of which key
 * an update evicts.
 *
 *  - Random traces (tracegen: updates with every flag, lookups, program
 *    lookups, deletes, next, dumps; max_entries 1 to 1000, key sizes 4 to
 *    64, value sizes 1 to 64, common and per-CPU, zero_seed so `next`
 *    order compares) replay byte-identically on cpu 0, slot 0, both sides
 *    with the possible-CPU count.  A key space of 3 x max_entries makes
 *    every such trace evict, and the test checks that ours did.
 *  - Random 2-cpu traces (tracegen with cpus 0 and 1: `cpu N` lines at
 *    random points, runs of 1 to 256 operations), 200 seeds in each mode,
 *    replayed through the trace replayer (which pins the kernel's side to
 *    the line's cpu and runs ours as that cpu slot); the test checks that
 *    the common LRU stole from the other cpu and that in per-CPU mode cpu
 *    1 filled its share and evicted, so the traces test what they claim.
 *  - Two cpus: random operations, each on cpu 0 or 1 (pinned, and the
 *    same cpu slot on our side), compared answer by answer and the whole
 *    contents every few operations: stealing, pending nodes freed from
 *    the other cpu, per-CPU shares.
 *  - The kernel's own selftests (tests/maps/lru/lru_selftests.c) on the
 *    kernel's map, confirming the expectations the unit suite holds ours
 *    to, and the unit suite's other scenarios as traces.
 *
 * Needs root and BPF (tests/kernel-compare/need_kernel.h); the two-cpu test also
 * needs cpus 0 and 1 and skips itself, saying so, without them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/common/rng.h"
#include "harness/trace/replay.h"
#include "harness/trace/tracegen.h"
#include "kernel-compare/kmap.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"
#include "tests/kernel-compare/kernel_replay.h"
#include "tests/kernel-compare/need_kernel.h"
#include "tests/maps/lru/lru_selftests.h"

/* --- our side, counting what it evicted ----------------------------------- */

/*
 * Copies of the two designs whose destroy first adds the map's evictions
 * to `evicted`: a replay makes and destroys its maps itself.
 */
static struct map_ops counted[2];
static uint64_t evicted, stolen, evicted_on_cpu1;

static void counted_destroy(struct map *m)
{
	struct map_work all = map_work_of(m, -1);
	evicted += all.evictions;
	stolen += all.steals;
	evicted_on_cpu1 += map_work_of(m, 1).evictions;
	map_find(m->ops->name)->destroy(m);
}

static const struct map_ops *choose_counted(uint32_t type, uint32_t flags,
					    void *ctx)
{
	(void)ctx;
	const struct map_ops *design = map_find_faithful(type, flags);
	for (int i = 0; i < 2; i++)
		if (design && strcmp(counted[i].name, design->name) == 0)
			return &counted[i];
	return design;
}

static void set_up(void)
{
	counted[0] = *map_find("lru/linux_common");
	counted[1] = *map_find("lru/linux_percpu");
	for (int i = 0; i < 2; i++)
		counted[i].destroy = counted_destroy;
}

TestSuite(kernel_lru, .init = set_up, .timeout = 300);

/* --- trace comparison ----------------------------------------------------- */

/* Replay text on both sides; fail at the first difference. */
static void expect_same(const char *text, const char *what)
{
	struct replay_side ours = { .label = "maplab", .choose = choose_counted };
	kernel_expect_same(text, what, &ours, true);
}

/* --- random traces on cpu 0 ----------------------------------------------- */

static void random_traces(uint32_t mode, unsigned key_space_factor)
{
	static const uint32_t entries[] = { 1, 2, 3, 4, 7, 16, 64, 129, 300,
					    1000 };
	static const uint32_t key_sizes[] = { 4, 8, 13, 40, 64 };

	for (size_t e = 0; e < sizeof(entries) / sizeof(*entries); e++)
		for (size_t ks = 0; ks < sizeof(key_sizes) / sizeof(*key_sizes);
		     ks++) {
			uint64_t seed = 1 + e * 17 + ks * 5 + key_space_factor;
			struct tracegen_opts o = {
				.attr = { .type = MAP_TYPE_LRU_HASH,
					  .key_size = key_sizes[ks],
					  .value_size = 1 + (uint32_t)(seed % 64),
					  .max_entries = entries[e],
					  .flags = mode | MAP_F_ZERO_SEED },
				.seed = seed,
				.ops = entries[e] < 100 ? 800 : 8 * entries[e],
				.key_space = key_space_factor * entries[e] + 2,
			};
			char what[160];
			snprintf(what, sizeof(what), "%s entries=%u key_size=%u "
				 "value_size=%u key_space=%u seed=%llu",
				 mode ? "no_common_lru" : "common",
				 entries[e], key_sizes[ks], o.attr.value_size,
				 o.key_space, (unsigned long long)seed);
			char *text = tracegen_string(&o);
			cr_assert_not_null(text);
			evicted = 0;
			expect_same(text, what);
			free(text);
			if (key_space_factor >= 3)
				cr_assert_gt(evicted, 0, "%s: evicted nothing",
					     what);
		}
}

Test(kernel_lru, random_traces_common)
{
	need_kernel();
	random_traces(0, 3);
	random_traces(0, 1);
}

Test(kernel_lru, random_traces_percpu)
{
	need_kernel();
	random_traces(MAP_F_NO_COMMON_LRU, 3);
	random_traces(MAP_F_NO_COMMON_LRU, 1);
}

/* --- random traces on two cpus -------------------------------------------- */

#define TWO_CPU_SEEDS 200

static void skip_without_two_cpus(void)
{
	if (map_possible_cpus() < 2 || !map_cpu_is_allowed(0) ||
	    !map_cpu_is_allowed(1))
		cr_skip_test("needs cpus 0 and 1 (possible and allowed)");
}

static void random_two_cpu_traces(uint32_t mode)
{
	static const uint32_t entries[] = { 1, 2, 3, 4, 5, 8, 16, 33, 64, 129,
					    256, 300 };
	static const uint32_t key_sizes[] = { 4, 13 };
	size_t ne = sizeof(entries) / sizeof(*entries);
	evicted = stolen = evicted_on_cpu1 = 0;
	for (uint64_t seed = 1; seed <= TWO_CPU_SEEDS; seed++) {
		uint32_t e = entries[seed % ne];
		struct tracegen_opts o = {
			.attr = { .type = MAP_TYPE_LRU_HASH,
				  .key_size = key_sizes[seed / ne % 2],
				  .value_size = 1 + (uint32_t)(seed % 16),
				  .max_entries = e,
				  .flags = mode | MAP_F_ZERO_SEED },
			.seed = 1000 + seed,
			.ops = e < 100 ? 600 : 6 * e,
			.key_space = (uint32_t)(1 + seed % 3) * e + 2,
			.n_cpus = 2, .cpus = { 0, 1 },
		};
		char what[160];
		snprintf(what, sizeof(what), "2 cpus %s entries=%u key_size=%u "
			 "key_space=%u seed=%llu", mode ? "no_common_lru" :
			 "common", e, o.attr.key_size, o.key_space,
			 (unsigned long long)o.seed);
		char *text = tracegen_string(&o);
		cr_assert_not_null(text);
		cr_assert_not_null(strstr(text, "\ncpu 1\n"), "%s: no cpu line",
				   what);
		expect_same(text, what);
		free(text);
	}
	cr_assert_gt(evicted, 0, "no trace evicted");
	if (mode)
		cr_assert_gt(evicted_on_cpu1, 0, "per-CPU mode: cpu 1 never "
			     "filled its share and evicted");
	else
		cr_assert_gt(stolen, 0, "common LRU: no trace stole from "
			     "another cpu's local lists");
}

Test(kernel_lru, random_two_cpu_traces_common)
{
	need_kernel();
	skip_without_two_cpus();
	random_two_cpu_traces(0);
}

Test(kernel_lru, random_two_cpu_traces_percpu)
{
	need_kernel();
	skip_without_two_cpus();
	random_two_cpu_traces(MAP_F_NO_COMMON_LRU);
}

/* --- focused traces ------------------------------------------------------- */

/* A trace written a line at a time; key k is 4 bytes, little-endian. */
struct trace_text {
	FILE *f;
	char *text;
	size_t len;
};

static void trace_begin(struct trace_text *tt, uint32_t max_entries,
			uint32_t flags)
{
	tt->text = NULL;
	tt->f = open_memstream(&tt->text, &tt->len);
	cr_assert_not_null(tt->f);
	fprintf(tt->f, "map lru_hash key_size=4 value_size=8 max_entries=%u "
		"flags=zero_seed%s\n", max_entries,
		flags & MAP_F_NO_COMMON_LRU ? "|no_common_lru" : "");
}

/* op (update, plookup, lookup, delete, next) of keys from..to. */
static void trace_ops(struct trace_text *tt, const char *op, uint32_t from,
		      uint32_t to)
{
	for (uint32_t k = from; k <= to; k++) {
		fprintf(tt->f, "%s %02x%02x0000", op, k & 0xff, k >> 8);
		if (strcmp(op, "update") == 0)
			fprintf(tt->f, " %02x00000000000000 any", k & 0xff);
		fputc('\n', tt->f);
	}
}

static void trace_expect_same(struct trace_text *tt, const char *what)
{
	fputs("dump\n", tt->f);
	fclose(tt->f);
	expect_same(tt->text, what);
	free(tt->text);
}

/*
 * The unit suite's scenarios that one cpu can replay, with dumps between
 * the steps: the force shrink of a ref'd key, the ref bit of a replace, a
 * failing update that evicts, the hand's walk over a per-CPU list with
 * program lookups in between, and the scan limit (sanity3's shape).
 */
Test(kernel_lru, focused_traces)
{
	need_kernel();
	struct trace_text tt;
	unsigned n = map_possible_cpus();

	trace_begin(&tt, 10 * n, MAP_F_NO_COMMON_LRU);
	trace_ops(&tt, "update", 1, 10);
	trace_ops(&tt, "plookup", 1, 10);
	trace_ops(&tt, "update", 11, 11);
	trace_expect_same(&tt, "force shrink");

	trace_begin(&tt, 4 * n, MAP_F_NO_COMMON_LRU);
	trace_ops(&tt, "update", 1, 3);
	trace_ops(&tt, "update", 1, 1);
	trace_ops(&tt, "update", 4, 5);
	trace_expect_same(&tt, "a replace sets the ref bit");

	trace_begin(&tt, 2, 0);
	trace_ops(&tt, "update", 1, 2);
	trace_ops(&tt, "plookup", 1, 1);
	fputs("update 01000000 0100000000000000 noexist\ndump\n", tt.f);
	trace_expect_same(&tt, "a failing update evicts");

	trace_begin(&tt, 16 * n, MAP_F_NO_COMMON_LRU);
	for (uint32_t k = 1; k <= 60; k++) {
		trace_ops(&tt, "update", k, k);
		if (k % 3 == 0 && k > 7)
			trace_ops(&tt, "plookup", k - 7, k - 5);
		if (k % 7 == 0)
			trace_ops(&tt, "delete", k - 2, k - 2);
		if (k % 10 == 0)
			fputs("dump\n", tt.f);
	}
	trace_expect_same(&tt, "the hand of a per-CPU list");

	trace_begin(&tt, 256, 0);
	trace_ops(&tt, "update", 1, 256);
	trace_ops(&tt, "plookup", 1, 256 - 64 / n);
	trace_ops(&tt, "update", 257, 400);
	trace_expect_same(&tt, "scan limit");
}

/* BPF_F_NO_COMMON_LRU rounds max_entries up to a multiple of the cpus:
 * the rounded map holds as many keys as the kernel's (dump), with as many
 * buckets (next order). */
Test(kernel_lru, percpu_rounding)
{
	need_kernel();
	for (uint32_t max = 1; max <= 9; max++) {
		struct trace_text tt;
		char what[64];
		trace_begin(&tt, max, MAP_F_NO_COMMON_LRU);
		trace_ops(&tt, "update", 1, 2 * max);
		trace_ops(&tt, "next", 1, 2 * max);
		snprintf(what, sizeof(what), "no_common_lru max_entries=%u", max);
		trace_expect_same(&tt, what);
	}
}

Test(kernel_lru, creation)
{
	need_kernel();
	expect_same("map lru_hash key_size=4 value_size=8 max_entries=4 "
		    "flags=no_common_lru|numa_node\n"
		    "map lru_hash key_size=4 value_size=8 max_entries=4 "
		    "flags=no_prealloc\n"
		    "map lru_hash key_size=4 value_size=8 max_entries=4 "
		    "flags=no_prealloc|no_common_lru\n"
		    "map lru_hash key_size=4 value_size=8 max_entries=0 "
		    "flags=no_common_lru\n"
		    "map lru_hash key_size=4 value_size=8 max_entries=4 "
		    "flags=no_common_lru|numa_node|zero_seed\n",
		    "creation errors");
}

/* --- the kernel's selftests, on the kernel -------------------------------- */

static const struct lru_target kernel_target = {
	.label = "kernel", .ops = &kmap_ops, .prog_lookup = kmap_prog_lookup,
	.pin = true,
};

static void kernel_selftest_setup(void)
{
	need_kernel();
	map_thread_online();
}

Test(kernel_lru, selftests_common)
{
	kernel_selftest_setup();
	lru_sanity0(&kernel_target, 0);
	lru_sanity1(&kernel_target);
	lru_sanity2(&kernel_target);
	lru_sanity3(&kernel_target);
	lru_sanity4(&kernel_target, 0);
	lru_sanity5(&kernel_target);
	lru_sanity7(&kernel_target, 0);
	lru_sanity8(&kernel_target, 0);
	map_thread_offline();
}

Test(kernel_lru, selftests_percpu)
{
	kernel_selftest_setup();
	lru_sanity0(&kernel_target, MAP_F_NO_COMMON_LRU);
	lru_sanity4(&kernel_target, MAP_F_NO_COMMON_LRU);
	lru_sanity6(&kernel_target);
	lru_sanity7(&kernel_target, MAP_F_NO_COMMON_LRU);
	lru_sanity8(&kernel_target, MAP_F_NO_COMMON_LRU);
	map_thread_offline();
}

/* --- two cpus ------------------------------------------------------------- */

/* The same map on both sides, and the buffers one operation needs. */
struct twin {
	struct map *kern, *ours;
	uint32_t key_size, value_size;
	uint8_t *key, *value, *kv, *ov;
	unsigned cpu;
	char what[96];
};

static void twin_on_cpu(struct twin *w, unsigned cpu)
{
	w->cpu = cpu;
	cr_assert_eq(map_cpu_pin_id((int)cpu), (int)cpu);
	if (cpu == 0)
		map_cpu_release();
	else
		cr_assert_eq(map_cpu_claim((int)cpu), (int)cpu);
}

static void twin_key(struct twin *w, uint64_t seed, unsigned k)
{
	for (uint32_t off = 0; off < w->key_size; off += 8) {
		uint64_t bits = rng_mix64(seed ^ ((uint64_t)k << 24) ^ off);
		uint32_t n = w->key_size - off < 8 ? w->key_size - off : 8;
		memcpy(w->key + off, &bits, n);
	}
}

static void expect_same_answer(struct twin *w, const char *op, int kern,
			       int ours, size_t step)
{
	cr_assert_eq(ours, kern, "%s step %zu: %s on cpu %u: kernel %d, "
		     "maplab %d", w->what, step, op, w->cpu, kern, ours);
}

static int ours_prog_lookup(struct map *m, const void *key)
{
	map_rcu_read_lock();
	int err = map_lookup(m, key) ? 0 : -ENOENT;
	map_rcu_read_unlock();
	return err;
}

/* Both walks from the first key, in order, with the same values. */
static void expect_same_contents(struct twin *w, size_t step)
{
	uint8_t *kprev = malloc(w->key_size), *oprev = malloc(w->key_size);
	uint8_t *knext = malloc(w->key_size), *onext = malloc(w->key_size);
	cr_assert(kprev && oprev && knext && onext);
	bool first = true;
	size_t n = 0;
	for (;; first = false, n++) {
		int ke = map_get_next_key(w->kern, first ? NULL : kprev, knext);
		int oe = map_get_next_key(w->ours, first ? NULL : oprev, onext);
		expect_same_answer(w, "next", ke, oe, step);
		if (ke)
			break;
		cr_assert(memcmp(knext, onext, w->key_size) == 0,
			  "%s step %zu: key %zu of the walk differs", w->what,
			  step, n);
		cr_assert_eq(map_lookup_copy(w->kern, knext, w->kv), 0);
		cr_assert_eq(map_lookup_copy(w->ours, onext, w->ov), 0);
		cr_assert(memcmp(w->kv, w->ov, w->value_size) == 0);
		memcpy(kprev, knext, w->key_size);
		memcpy(oprev, onext, w->key_size);
	}
	free(kprev), free(oprev), free(knext), free(onext);
}

static void twin_step(struct twin *w, struct rng *r, unsigned key_space,
		      uint64_t seed, size_t step)
{
	static const uint64_t flags[] = { MAP_ANY, MAP_NOEXIST, MAP_EXIST };
	twin_on_cpu(w, (unsigned)rng_below(r, 2));
	twin_key(w, seed, (unsigned)rng_below(r, key_space));
	unsigned dice = (unsigned)rng_below(r, 100);
	if (dice < 45) {
		for (uint32_t i = 0; i < w->value_size; i++)
			w->value[i] = (uint8_t)rng_next(r);
		uint64_t f = flags[rng_below(r, 3)];
		expect_same_answer(w, "update",
				   map_update(w->kern, w->key, w->value, f),
				   map_update(w->ours, w->key, w->value, f),
				   step);
	} else if (dice < 65) {
		expect_same_answer(w, "program lookup",
				   kmap_prog_lookup(w->kern, w->key),
				   ours_prog_lookup(w->ours, w->key), step);
	} else if (dice < 80) {
		int ke = map_lookup_copy(w->kern, w->key, w->kv);
		int oe = map_lookup_copy(w->ours, w->key, w->ov);
		expect_same_answer(w, "lookup", ke, oe, step);
		cr_assert(ke || memcmp(w->kv, w->ov, w->value_size) == 0,
			  "%s step %zu: values differ", w->what, step);
	} else {
		expect_same_answer(w, "delete", map_delete(w->kern, w->key),
				   map_delete(w->ours, w->key), step);
	}
}

static void two_cpu_run(uint32_t mode, uint32_t max_entries,
			uint32_t key_size, unsigned key_space, uint64_t seed)
{
	struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = key_size,
			      .value_size = 8 + (uint32_t)(seed % 24),
			      .max_entries = max_entries,
			      .flags = mode | MAP_F_ZERO_SEED };
	struct twin w = { .key_size = key_size, .value_size = a.value_size };
	struct rng r;
	snprintf(w.what, sizeof(w.what), "%s max_entries=%u key_size=%u seed=%llu",
		 mode ? "no_common_lru" : "common", max_entries, key_size,
		 (unsigned long long)seed);
	w.key = malloc(key_size);
	w.value = malloc(a.value_size);
	w.kv = malloc(a.value_size);
	w.ov = malloc(a.value_size);
	cr_assert(w.key && w.value && w.kv && w.ov);
	cr_assert_eq(map_create(&kmap_ops, &a, &w.kern), 0, "%s", w.what);
	cr_assert_eq(map_create(map_find_faithful(a.type, a.flags), &a, &w.ours),
		     0, "%s", w.what);
	rng_seed(&r, seed);
	size_t steps = 40 * (size_t)max_entries + 400;
	for (size_t step = 1; step <= steps; step++) {
		twin_step(&w, &r, key_space, seed, step);
		if (step % 25 == 0 || step == steps)
			expect_same_contents(&w, step);
	}
	map_destroy(w.kern);
	map_destroy(w.ours);
	free(w.key), free(w.value), free(w.kv), free(w.ov);
}

static void two_cpus(uint32_t mode)
{
	static const uint32_t entries[] = { 1, 2, 3, 4, 5, 8, 33, 256, 300 };
	need_kernel();
	if (map_possible_cpus() < 2 || map_cpu_pin_id(0) != 0 ||
	    map_cpu_pin_id(1) != 1)
		cr_skip_test("needs cpus 0 and 1 (possible and allowed)");
	map_thread_online();
	for (size_t e = 0; e < sizeof(entries) / sizeof(*entries); e++)
		for (uint64_t seed = 1; seed <= 3; seed++)
			two_cpu_run(mode, entries[e], seed == 2 ? 13 : 4,
				    (unsigned)(entries[e] * (1 + seed)) + 1,
				    seed * 101 + e);
	map_cpu_release();
	map_cpu_unpin();
	map_thread_offline();
}

Test(kernel_lru, two_cpus_common)
{
	two_cpus(0);
}

Test(kernel_lru, two_cpus_percpu)
{
	two_cpus(MAP_F_NO_COMMON_LRU);
}
