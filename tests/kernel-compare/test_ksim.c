/* SPDX-License-Identifier: MIT */
/*
 * ksim: the kernel's LRU hash map as a cache, on traces whose answers are
 * known without the kernel:
 *  - fewer distinct keys than the cache holds: each key misses once, at
 *    its first request (the missed flags say exactly where), and all are
 *    in the map at the end; the live count sampled after each batch is the
 *    distinct keys seen so far;
 *  - warm-up requests are not counted (nor sampled), but their flags are
 *    written;
 *  - a cycle over twice the cache's size makes the kernel evict: more
 *    misses than keys, never more keys than max_entries, in both LRU modes;
 *    a key looked up between every two of the cycle's is never evicted (a
 *    program lookup sets its ref bit); with BPF_F_NO_COMMON_LRU one stream
 *    (one CPU) holds no more than its CPU's share of the elements;
 *  - two streams on two CPUs: disjoint keys add up per stream; shared keys
 *    are inserted once each (every miss beyond the first of a key lost a
 *    race with the other stream);
 *  - a pin that cannot hold and a bad config are errors with a message.
 * Skipped (failed under MAPLAB_REQUIRE_KERNEL=1) without BPF.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel-compare/ksim.h"
#include "maps/base/cpu.h"
#include "tests/kernel-compare/need_kernel.h"

/* Key i of a trace as key_size bytes (little-endian i, then i's bytes
 * again, so every byte of a wide key matters). */
static void put_key(uint8_t *at, uint32_t key_size, uint32_t i)
{
	for (uint32_t b = 0; b < key_size; b++)
		at[b] = (uint8_t)(i >> (8 * (b % 4)));
}

/* A trace of n requests over `distinct` keys (offset by base): a
 * deterministic shuffle, each key at least once. */
static uint8_t *trace(uint32_t key_size, size_t n, uint32_t distinct,
		      uint32_t base, uint32_t *ids)
{
	uint8_t *keys = malloc(n * key_size);
	cr_assert_not_null(keys);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* the first `distinct` requests name each key once */
		uint32_t id = i < distinct ? (uint32_t)i : (uint32_t)(x % distinct);
		ids[i] = base + id;
		put_key(keys + i * key_size, key_size, base + id);
	}
	return keys;
}

/* Whether request i of ids is the first of its key. */
static bool first_seen(const uint32_t *ids, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (ids[j] == ids[i])
			return false;
	return true;
}

/* The kernel's elem count kfunc (bpf_map_sum_elem_count) came in 6.6. */
static bool kernel_counts_elems(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	cr_assert_eq(uname(&u), 0);
	sscanf(u.release, "%d.%d", &major, &minor);
	return major > 6 || (major == 6 && minor >= 6);
}

static struct ksim_config cfg(uint32_t key_size, uint32_t entries,
			      uint32_t flags, uint32_t batch)
{
	return (struct ksim_config){ .key_size = key_size, .value_size = 8,
				     .max_entries = entries, .map_flags = flags,
				     .batch = batch };
}

static void run_ok(const struct ksim_config *c, const struct ksim_stream *s,
		   unsigned n, struct ksim_result *out)
{
	char err[512] = "";
	int rc = ksim_run(c, s, n, out, err, sizeof(err));
	cr_assert_eq(rc, 0, "ksim_run: %d %s", rc, err);
	cr_assert_gt(out->seconds, 0);
	for (unsigned i = 0; i < n; i++) {
		cr_expect_eq(out->streams[i].insert_failures, 0);
		cr_expect_eq(out->streams[i].requests,
			     s[i].n - s[i].counted_from);
	}
}

/* Fewer keys than the cache holds, for a key size: one miss per key, at
 * its first request; all keys live at the end and after each batch. */
static void no_eviction(uint32_t key_size, uint32_t flags)
{
	need_kernel();
	const size_t n = 5000;
	const uint32_t distinct = 300, batch = 64;
	uint32_t *ids = malloc(n * sizeof(*ids));
	uint8_t *missed = malloc(n);
	cr_assert(ids && missed);
	uint8_t *keys = trace(key_size, n, distinct, 7, ids);
	memset(missed, 0xff, n);

	/* with BPF_F_NO_COMMON_LRU the stream's CPU has only its share */
	uint32_t entries = flags & BPF_F_NO_COMMON_LRU
			   ? 1024 * map_possible_cpus() : 1024;
	struct ksim_config c = cfg(key_size, entries, flags, batch);
	struct ksim_stream s = { .keys = keys, .n = n, .cpu = -1,
				 .missed = missed };
	struct ksim_stream_result r;
	struct ksim_result out = { .streams = &r };
	run_ok(&c, &s, 1, &out);

	cr_expect_eq(r.misses, distinct, "%lu misses", r.misses);
	cr_expect_eq(out.live_at_end, distinct);
	cr_expect_eq(r.batches, (n + batch - 1) / batch);
	uint64_t wrong = 0, live_sum = 0, seen = 0;
	for (size_t i = 0; i < n; i++) {
		bool first = first_seen(ids, i);
		wrong += missed[i] != first;
		seen += first;
		if ((i + 1) % batch == 0 || i + 1 == n)
			live_sum += seen; /* sampled after each batch */
	}
	cr_expect_eq(wrong, 0, "%lu requests flagged wrongly", wrong);
	if (kernel_counts_elems()) {
		cr_expect_eq(r.live_samples, r.batches);
		cr_expect_eq(r.live_sum, live_sum, "live sum %lu, expected %lu",
			     r.live_sum, live_sum);
	}
	free(keys);
	free(ids);
	free(missed);
}

Test(ksim, no_eviction_4_byte_keys) { no_eviction(4, 0); }
Test(ksim, no_eviction_8_byte_keys) { no_eviction(8, 0); }
Test(ksim, no_eviction_odd_key_size) { no_eviction(13, 0); }
Test(ksim, no_eviction_per_cpu_lru) { no_eviction(4, BPF_F_NO_COMMON_LRU); }

/* Warm-up requests fill the cache but are not counted (nor sampled); their
 * flags are written. */
Test(ksim, warm_up_is_not_counted)
{
	need_kernel();
	const size_t warm = 1000, n = 3000;
	uint32_t ids[3000];
	uint8_t missed[3000];
	/* warm-up over keys 0..99; then keys 0..149: only 100..149 are new */
	uint8_t *keys = trace(4, n, 150, 0, ids);
	for (size_t i = 0; i < warm; i++) {
		ids[i] = (uint32_t)(i % 100);
		put_key(keys + i * 4, 4, ids[i]);
	}
	struct ksim_config c = cfg(4, 1024, 0, 128);
	struct ksim_stream s = { .keys = keys, .n = n, .counted_from = warm,
				 .cpu = -1, .missed = missed };
	struct ksim_stream_result r;
	struct ksim_result out = { .streams = &r };
	run_ok(&c, &s, 1, &out);

	cr_expect_eq(r.requests, n - warm);
	cr_expect_eq(r.misses, 50, "%lu counted misses", r.misses);
	cr_expect_eq(out.live_at_end, 150);
	unsigned warm_misses = 0;
	for (size_t i = 0; i < warm; i++)
		warm_misses += missed[i];
	cr_expect_eq(warm_misses, 100);
	/* 1000 warm-up requests: 7 full batches of 128 and one of 104, none
	 * sampled; then 2000 counted: 16 batches (15 of 128, one of 80). */
	cr_expect_eq(r.batches, 8 + 16);
	if (kernel_counts_elems())
		cr_expect_eq(r.live_samples, 16);
	free(keys);
}

/*
 * Keys cycling over twice the cache, with a hot key between every two: the
 * kernel must evict, and must keep the hot key, whose program lookups set
 * its ref bit (a lookup that did not mark it would let it age out like the
 * others: they are never looked up again before their eviction).
 */
static void evicting_cycle(uint32_t flags)
{
	need_kernel();
	const uint32_t entries = 1024, distinct = 2 * entries, hot = 1u << 30;
	const size_t n = 8 * (size_t)distinct;
	uint8_t *keys = malloc(n * 4), *missed = malloc(n);
	cr_assert(keys && missed);
	for (size_t i = 0; i < n; i++)
		put_key(keys + i * 4, 4, i % 2 ? hot : (uint32_t)(i / 2 % distinct));
	struct ksim_config c = cfg(4, entries, flags, (uint32_t)n);
	struct ksim_stream s = { .keys = keys, .n = n, .cpu = -1,
				 .missed = missed };
	struct ksim_stream_result r;
	struct ksim_result out = { .streams = &r };
	run_ok(&c, &s, 1, &out);

	cr_expect_geq(out.max_entries, entries);
	cr_expect_gt(r.misses, distinct + 1, "%lu misses over %u keys",
		     r.misses, distinct + 1);
	cr_expect_leq(out.live_at_end, out.max_entries);
	cr_expect_gt(out.live_at_end, 0);
	unsigned hot_misses = 0;
	for (size_t i = 1; i < n; i += 2)
		hot_misses += missed[i];
	cr_expect_eq(hot_misses, 1, "the hot key missed %u times", hot_misses);
	/* One stream is one CPU: with BPF_F_NO_COMMON_LRU it has only its
	 * CPU's share of the elements; the common LRU lends it the rest. */
	unsigned share = out.max_entries / map_possible_cpus();
	if (flags & BPF_F_NO_COMMON_LRU)
		cr_expect_leq(out.live_at_end, share, "%lu live, share %u",
			      out.live_at_end, share);
	else if (map_possible_cpus() > 1)
		cr_expect_gt(out.live_at_end, share, "%lu live, share %u",
			     out.live_at_end, share);
	if (kernel_counts_elems()) {
		cr_expect_eq(r.live_samples, 1); /* one batch */
		cr_expect_eq(r.live_sum, out.live_at_end);
	}
	free(keys);
	free(missed);
}

Test(ksim, evicts_common_lru) { evicting_cycle(0); }
Test(ksim, evicts_per_cpu_lru) { evicting_cycle(BPF_F_NO_COMMON_LRU); }

/* Two CPUs this process may use, or skip. */
static void two_cpus(int cpu[2])
{
	cpu_set_t set;
	int found = 0;
	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int i = 0; i < CPU_SETSIZE && found < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[found++] = i;
	if (found < 2)
		cr_skip_test("one CPU online for this process: no second stream");
}

/* Disjoint keys on two CPUs: each stream's misses are its own keys. */
Test(ksim, two_streams_disjoint_keys)
{
	need_kernel();
	int cpu[2];
	two_cpus(cpu);
	const size_t n = 4000;
	uint32_t *ids = malloc(2 * n * sizeof(*ids));
	cr_assert_not_null(ids);
	uint8_t *k0 = trace(8, n, 200, 0, ids);
	uint8_t *k1 = trace(8, n, 300, 100000, ids + n);
	struct ksim_stream s[2] = {
		{ .keys = k0, .n = n, .counted_from = 0, .cpu = cpu[0] },
		{ .keys = k1, .n = n, .counted_from = 500, .cpu = cpu[1] },
	};
	struct ksim_config c = cfg(8, 4096, 0, 256);
	struct ksim_stream_result r[2];
	struct ksim_result out = { .streams = r };
	run_ok(&c, s, 2, &out);

	/* stream 1's keys all appear in its first 300 requests, in warm-up */
	cr_expect_eq(r[0].misses, 200);
	cr_expect_eq(r[1].misses, 0);
	cr_expect_eq(r[0].raced + r[1].raced, 0);
	cr_expect_eq(out.live_at_end, 500);
	free(k0);
	free(k1);
	free(ids);
}

/* The same keys on two CPUs at once: each key is inserted once, so the
 * misses beyond one per key are the inserts that found it already there. */
Test(ksim, two_streams_shared_keys)
{
	need_kernel();
	int cpu[2];
	two_cpus(cpu);
	const size_t n = 20000;
	const uint32_t distinct = 2000;
	uint32_t *ids = malloc(n * sizeof(*ids));
	cr_assert_not_null(ids);
	uint8_t *keys = trace(4, n, distinct, 0, ids);
	struct ksim_stream s[2] = {
		{ .keys = keys, .n = n, .cpu = cpu[0] },
		{ .keys = keys, .n = n, .cpu = cpu[1] },
	};
	struct ksim_config c = cfg(4, 8192, 0, 32);
	struct ksim_stream_result r[2];
	struct ksim_result out = { .streams = r };
	run_ok(&c, s, 2, &out);

	uint64_t misses = r[0].misses + r[1].misses;
	uint64_t raced = r[0].raced + r[1].raced;
	cr_expect_geq(misses, distinct);
	cr_expect_leq(misses, 2 * distinct);
	cr_expect_eq(misses - raced, distinct, "%lu misses, %lu raced", misses,
		     raced);
	cr_expect_eq(out.live_at_end, distinct);
	free(keys);
	free(ids);
}

/* A cpu this process may not run on: the pin fails, and says so. */
Test(ksim, pin_failure_is_an_error)
{
	need_kernel();
	cpu_set_t set;
	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	int outside = CPU_SETSIZE - 1;
	while (outside >= 0 && CPU_ISSET(outside, &set))
		outside--;
	cr_assert_geq(outside, 0);
	const uint32_t key = 5;
	struct ksim_stream s = { .keys = &key, .n = 1, .cpu = outside };
	struct ksim_config c = cfg(4, 16, 0, 0);
	struct ksim_stream_result r;
	struct ksim_result out = { .streams = &r };
	char err[512] = "";
	cr_expect_lt(ksim_run(&c, &s, 1, &out, err, sizeof(err)), 0);
	cr_expect(strstr(err, "cannot pin"), "%s", err);
}

static void expect_einval(const struct ksim_config *c, const struct ksim_stream *s,
			  const char *says)
{
	struct ksim_stream_result r;
	struct ksim_result out = { .streams = &r };
	char err[512] = "";
	cr_expect_eq(ksim_run(c, s, 1, &out, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, says), "'%s' does not say '%s'", err, says);
}

/* Bad configs are refused before the kernel is asked (no BPF needed). */
Test(ksim, bad_config)
{
	const uint32_t key = 5;
	struct ksim_stream s = { .keys = &key, .n = 1, .cpu = -1 };
	struct ksim_config c = cfg(0, 16, 0, 0);
	expect_einval(&c, &s, "key size 0");
	c = cfg(4, 0, 0, 0);
	expect_einval(&c, &s, "max_entries 0");
	c = cfg(4, 16, 1u << 30, 0);
	expect_einval(&c, &s, "map flags");
	c = cfg(4, 16, 0, KSIM_MAX_BATCH + 1);
	expect_einval(&c, &s, "batch");
	c = cfg(4, 16, 0, 0);
	struct ksim_stream late = s;
	late.counted_from = 2;
	expect_einval(&c, &late, "counted from request 2 of 1");
}

Test(ksim, available)
{
	need_kernel();
	char why[256] = "";
	cr_expect(ksim_available(why, sizeof(why)), "%s", why);
}
