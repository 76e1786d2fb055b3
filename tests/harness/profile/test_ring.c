/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c: prof_ring_parse on a ring recorded from a real run on this
 * kind of host, and on hand-built records that are malformed or unusual.
 *
 * data/ring-x86_64.bin is the ring of one thread alternating between an
 * arithmetic loop (spin_user) and getppid() calls, sampled at 4 kHz for
 * 50 ms with kernel call chains; data/ring-x86_64.txt holds what its
 * recorder (record_ring.c, whose comment says how to run it) read from
 * each record's fixed fields and the address ranges of its functions.
 * The recorder never reads the call chains, so the checks on them here
 * are the parser's alone.
 */
#include "harness/profile/ring.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_DATA MAPLAB_SOURCE_ROOT "/tests/harness/profile/data/ring-x86_64"

struct range {
	uint64_t lo, hi;
};

/* What the recorder wrote about its ring (record_ring.c, write_facts). */
struct facts {
	unsigned long pid, tid, bytes, samples, lost, other;
	unsigned long kernel_ip_samples, user_spin_samples;
	struct range spin_user, record_thread;
};

static int in_range(uint64_t a, struct range r)
{
	return a >= r.lo && a < r.hi;
}

static void read_facts(struct facts *f)
{
	FILE *in = fopen(RING_DATA ".txt", "r");
	char line[256], key[64], v1[32], v2[32];
	int got = 0;

	cr_assert(in, "cannot open %s.txt", RING_DATA);
	memset(f, 0, sizeof(*f));
	while (fgets(line, sizeof(line), in)) {
		int n = sscanf(line, "%63s %31s %31s", key, v1, v2);
		/* Base 0: the counts are decimal, the addresses 0x... */
		unsigned long a = n >= 2 ? strtoul(v1, NULL, 0) : 0;
		unsigned long b = n >= 3 ? strtoul(v2, NULL, 0) : 0;

#define FACT(name) if (n == 2 && !strcmp(key, #name)) f->name = a, got++
		FACT(pid); FACT(tid); FACT(bytes); FACT(samples); FACT(lost);
		FACT(other); FACT(kernel_ip_samples); FACT(user_spin_samples);
#undef FACT
#define RANGE(name) if (n == 3 && !strcmp(key, #name)) \
		f->name = (struct range){ a, b }, got++
		RANGE(spin_user); RANGE(record_thread);
#undef RANGE
	}
	fclose(in);
	cr_assert_eq(got, 10, "%s.txt lacks facts (%d of 10)", RING_DATA, got);
}

/* The recorded ring, parsed; the caller frees set and *data. */
static void parse_recorded(struct facts *f, struct prof_sample_set *set)
{
	FILE *in = fopen(RING_DATA ".bin", "rb");
	unsigned char *data;
	size_t len;

	read_facts(f);
	cr_assert(in, "cannot open %s.bin", RING_DATA);
	data = malloc(f->bytes + 1);
	cr_assert(data);
	len = fread(data, 1, f->bytes + 1, in);
	fclose(in);
	cr_assert_eq(len, f->bytes, "file holds %zu bytes, facts say %lu", len,
		     f->bytes);
	memset(set, 0, sizeof(*set));
	cr_assert_eq(prof_ring_parse(data, len, set), 0);
	free(data);
}

Test(ring, recorded_counts_and_tids)
{
	struct prof_sample_set set;
	struct facts f;

	parse_recorded(&f, &set);
	cr_expect_eq(set.n, f.samples, "%zu samples, the recorder saw %lu",
		     set.n, f.samples);
	cr_expect_geq(set.n, 100, "a 50 ms run at 4 kHz gave %zu", set.n);
	cr_expect_eq(set.lost, f.lost);
	cr_expect_eq(set.other, f.other);
	for (size_t i = 0; i < set.n; i++) {
		cr_expect_eq(set.samples[i].pid, f.pid, "sample %zu", i);
		cr_expect_eq(set.samples[i].tid, f.tid, "sample %zu", i);
	}
	prof_set_free(&set);
	cr_expect_eq(set.n, 0);
	cr_expect_null(set.samples);
}

/* Markers gone, the leaf first, the kernel part before the user part, and
 * frame offsets that tile the store. */
Test(ring, recorded_frames_leaf_first_without_markers)
{
	struct prof_sample_set set;
	struct facts f;
	size_t next = 0;

	parse_recorded(&f, &set);
	for (size_t i = 0; i < set.n; i++) {
		const struct prof_sample *s = &set.samples[i];
		const uint64_t *fr = prof_sample_frames(&set, i);
		int user_seen = 0;

		cr_assert_eq(s->first_frame, next, "sample %zu", i);
		next += s->n_frames;
		cr_assert(s->n_frames >= 1 && s->n_frames <= PROF_MAX_FRAMES);
		cr_expect_eq(fr[0], s->ip, "sample %zu: leaf %#lx, ip %#lx", i,
			     (unsigned long)fr[0], (unsigned long)s->ip);
		for (uint32_t k = 0; k < s->n_frames; k++) {
			cr_expect_lt(fr[k], (uint64_t)PERF_CONTEXT_MAX,
				     "sample %zu frame %u is a marker", i, k);
			if (!prof_addr_is_kernel(fr[k]))
				user_seen = 1;
			else
				cr_expect(!user_seen, "sample %zu: kernel frame %u "
					  "after a user frame", i, k);
		}
	}
	cr_expect_eq(next, set.n_frames);
	prof_set_free(&set);
}

/* A sample in spin_user has its caller next (the recorder keeps frame
 * pointers); a sample in the kernel (getppid) has kernel frames, then the
 * user frames that made the call, which reach record_thread. */
Test(ring, recorded_kernel_user_split)
{
	struct prof_sample_set set;
	struct facts f;
	unsigned long kernel = 0, spin = 0, spin_caller = 0;

	parse_recorded(&f, &set);
	for (size_t i = 0; i < set.n; i++) {
		const struct prof_sample *s = &set.samples[i];
		const uint64_t *fr = prof_sample_frames(&set, i);

		if (prof_addr_is_kernel(s->ip)) {
			uint32_t k = 0;
			int reaches_thread = 0;

			kernel++;
			while (k < s->n_frames && prof_addr_is_kernel(fr[k]))
				k++;
			cr_expect_lt(k, s->n_frames, "kernel sample %zu has no "
				     "user part", i);
			for (; k < s->n_frames; k++)
				reaches_thread |= in_range(fr[k], f.record_thread);
			cr_expect(reaches_thread, "kernel sample %zu never "
				  "reaches record_thread", i);
		} else if (in_range(s->ip, f.spin_user)) {
			spin++;
			spin_caller += s->n_frames >= 2 &&
				       in_range(fr[1], f.record_thread);
		}
	}
	cr_expect_eq(kernel, f.kernel_ip_samples);
	cr_expect_geq(kernel, 1, "the recording has no kernel sample");
	cr_expect_eq(spin, f.user_spin_samples);
	cr_expect_geq(spin, 1);
	/* A sample before spin_user's frame is pushed misses its caller. */
	cr_expect_geq(spin_caller * 10, spin * 9, "%lu of %lu spin_user samples "
		      "have record_thread second", spin_caller, spin);
	prof_set_free(&set);
}

/* Hand-built records. */

struct buf {
	unsigned char b[4096];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	cr_assert_leq(b->len + n, sizeof(b->b));
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_header(struct buf *b, uint32_t type, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = size };

	put(b, &h, sizeof(h));
}

/* A sample record: ip, pid, tid, and the chain as given (markers too);
 * size_override != 0 writes that size instead of the true one. */
static void put_sample(struct buf *b, uint64_t ip, uint32_t pid, uint32_t tid,
		       const uint64_t *ips, uint64_t nr, uint64_t nr_written,
		       uint16_t size_override)
{
	uint16_t size = (uint16_t)(8 + 8 + 8 + 8 + 8 * nr_written);
	uint32_t ids[2] = { pid, tid };

	put_header(b, PERF_RECORD_SAMPLE, size_override ? size_override : size);
	put_u64(b, ip);
	put(b, ids, sizeof(ids));
	put_u64(b, nr);
	for (uint64_t i = 0; i < nr_written; i++)
		put_u64(b, ips[i]);
}

static void put_lost(struct buf *b, uint64_t id, uint64_t lost)
{
	put_header(b, PERF_RECORD_LOST, 24);
	put_u64(b, id);
	put_u64(b, lost);
}

static const uint64_t kchain[] = {
	PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, 0xffffffff81000020ull,
	PERF_CONTEXT_USER, 0x401000ull, 0x402000ull,
};

Test(ring, hand_sample_drops_markers)
{
	struct buf b = { .len = 0 };
	struct prof_sample_set set = { 0 };
	const uint64_t want[] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
				  0x401000ull, 0x402000ull };

	put_sample(&b, kchain[1], 7, 8, kchain, 6, 6, 0);
	cr_assert_eq(prof_ring_parse(b.b, b.len, &set), 0);
	cr_assert_eq(set.n, 1);
	cr_expect_eq(set.samples[0].pid, 7);
	cr_expect_eq(set.samples[0].tid, 8);
	cr_assert_eq(set.samples[0].n_frames, 4);
	cr_expect_arr_eq(prof_sample_frames(&set, 0), want, sizeof(want));
	prof_set_free(&set);
}

Test(ring, hand_lost_and_other)
{
	struct buf b = { .len = 0 };
	struct prof_sample_set set = { 0 };

	put_lost(&b, 1, 5);
	put_sample(&b, 0x401000, 1, 2, kchain + 3, 3, 3, 0);
	put_lost(&b, 1, 7);
	put_header(&b, 0x7777, 16);  /* unknown type with a body */
	put_u64(&b, 0xdeadbeef);
	put_header(&b, PERF_RECORD_MMAP, 8);
	cr_assert_eq(prof_ring_parse(b.b, b.len, &set), 0);
	cr_expect_eq(set.lost, 12);
	cr_expect_eq(set.other, 2);
	cr_expect_eq(set.n, 1);
	/* A second parse appends to the same set. */
	cr_assert_eq(prof_ring_parse(b.b, b.len, &set), 0);
	cr_expect_eq(set.lost, 24);
	cr_expect_eq(set.n, 2);
	prof_set_free(&set);
}

Test(ring, hand_truncated_record_keeps_earlier)
{
	struct buf b = { .len = 0 };
	struct prof_sample_set set = { 0 };

	put_sample(&b, 0x401000, 1, 2, kchain + 3, 3, 3, 0);
	put_lost(&b, 1, 3);
	put_sample(&b, 0x402000, 1, 2, kchain + 3, 3, 3, 0);
	/* The second sample cut short: its size runs past the data. */
	cr_assert_eq(prof_ring_parse(b.b, b.len - 8, &set), -EINVAL);
	cr_expect_eq(set.n, 1);
	cr_expect_eq(set.samples[0].ip, 0x401000);
	cr_expect_eq(set.lost, 3);
	prof_set_free(&set);

	/* Cut inside a header. */
	cr_assert_eq(prof_ring_parse(b.b, 40 + 24 + 4, &set), -EINVAL);
	cr_expect_eq(set.n, 1);
	prof_set_free(&set);
}

Test(ring, hand_bad_sizes)
{
	struct buf b = { .len = 0 };
	struct prof_sample_set set = { 0 };

	put_header(&b, PERF_RECORD_SAMPLE, 4);  /* shorter than its header */
	cr_expect_eq(prof_ring_parse(b.b, b.len, &set), -EINVAL);
	b.len = 0;
	put_header(&b, PERF_RECORD_LOST, 16);   /* no room for lost */
	put_u64(&b, 1);
	cr_expect_eq(prof_ring_parse(b.b, b.len, &set), -EINVAL);
	b.len = 0;
	put_header(&b, PERF_RECORD_SAMPLE, 16); /* no room for pid, nr */
	put_u64(&b, 0x401000);
	cr_expect_eq(prof_ring_parse(b.b, b.len, &set), -EINVAL);
	cr_expect_eq(set.n, 0);
	cr_expect_eq(set.lost, 0);
	prof_set_free(&set);
}

Test(ring, hand_callchain_past_record)
{
	struct buf b = { .len = 0 };
	struct prof_sample_set set = { 0 };

	put_sample(&b, 0x401000, 1, 2, kchain + 3, 3, 3, 0);
	/* nr says 4 but the record holds 3 entries (the next record's bytes
	 * follow, so only the record's size can tell). */
	put_sample(&b, 0x401000, 1, 2, kchain + 3, 4, 3, 0);
	put_lost(&b, 1, 1);
	cr_assert_eq(prof_ring_parse(b.b, b.len, &set), -EINVAL);
	cr_expect_eq(set.n, 1);
	cr_expect_eq(set.lost, 0);
	prof_set_free(&set);

	/* An nr so large that nr * 8 wraps around. */
	b.len = 0;
	put_sample(&b, 0x401000, 1, 2, kchain + 3, 1ull << 61, 3, 0);
	cr_expect_eq(prof_ring_parse(b.b, b.len, &set), -EINVAL);
	cr_expect_eq(set.n, 0);
	prof_set_free(&set);
}

/* A chain of markers alone keeps ip as its leaf; a long one is capped. */
Test(ring, hand_empty_and_long_chains)
{
	struct buf b = { .len = 0 };
	struct prof_sample_set set = { 0 };
	uint64_t marks[] = { PERF_CONTEXT_USER };
	uint64_t chain[PROF_MAX_FRAMES + 20];

	for (size_t i = 0; i < PROF_MAX_FRAMES + 20; i++)
		chain[i] = 0x400000 + i;
	put_sample(&b, 0x401234, 1, 2, marks, 1, 1, 0);
	put_sample(&b, 0x400000, 1, 2, chain, PROF_MAX_FRAMES + 20,
		   PROF_MAX_FRAMES + 20, 0);
	cr_assert_eq(prof_ring_parse(b.b, b.len, &set), 0);
	cr_assert_eq(set.n, 2);
	cr_expect_eq(set.samples[0].n_frames, 1);
	cr_expect_eq(prof_sample_frames(&set, 0)[0], 0x401234);
	cr_expect_eq(set.samples[1].n_frames, PROF_MAX_FRAMES);
	cr_expect_eq(prof_sample_frames(&set, 1)[PROF_MAX_FRAMES - 1],
		     0x400000 + PROF_MAX_FRAMES - 1);
	prof_set_free(&set);
}

/* Growing the store keeps every earlier sample's frames. */
Test(ring, set_add_grows)
{
	struct prof_sample_set set = { 0 };
	uint64_t fr[3];

	for (uint32_t i = 0; i < 5000; i++) {
		fr[0] = i, fr[1] = i + 1, fr[2] = i + 2;
		cr_assert_eq(prof_set_add(&set, 1, i, fr[0], fr, 1 + i % 3), 0);
	}
	cr_assert_eq(set.n, 5000);
	for (uint32_t i = 0; i < 5000; i++) {
		const uint64_t *f = prof_sample_frames(&set, i);

		cr_assert_eq(set.samples[i].tid, i);
		cr_assert_eq(set.samples[i].n_frames, 1 + i % 3);
		for (uint32_t k = 0; k < 1 + i % 3; k++)
			cr_assert_eq(f[k], i + k);
	}
	prof_set_free(&set);
}
