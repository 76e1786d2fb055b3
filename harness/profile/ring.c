/* SPDX-License-Identifier: MIT */
/*
 * ring.c: parsing the records perf_event_open(2) writes into its ring, and
 * the sample set they are gathered into (ring.h has the record layout).
 *
 * Invariants of a prof_sample_set:
 *   - n <= cap and n_frames <= cap_frames; both arrays grow by doubling.
 *   - sample i's frames are frames[first_frame .. first_frame + n_frames),
 *     leaf first, with no context markers and at most PROF_MAX_FRAMES.
 *   - a sample is appended whole or not at all: a failed append (ENOMEM)
 *     or a malformed record leaves the set as it was before that record.
 *
 * The parser trusts nothing in the data: every size is checked against the
 * bytes there are before it is read, and fields are read with memcpy since
 * a record copied out of a ring need not be 8-byte aligned in the caller's
 * buffer.
 */
#include "harness/profile/ring.h"
#include "harness/common/grow.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

/* ips[] entries at or above this are context markers (PERF_CONTEXT_*),
 * not addresses. */
#define PROF_CONTEXT_FIRST ((uint64_t)PERF_CONTEXT_MAX)

/* The fixed part of a sample record with IP | TID | CALLCHAIN. */
#define SAMPLE_FIXED (sizeof(struct perf_event_header) + 8 + 8 + 8)
/* A LOST record: header, u64 id, u64 lost. */
#define LOST_SIZE (sizeof(struct perf_event_header) + 8 + 8)

static uint64_t load_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t load_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Make room for one more sample and `more` frames; 0 or -ENOMEM, the set
 * untouched on failure. */
static int reserve(struct prof_sample_set *set, size_t more)
{
	struct prof_sample *s = grow_array(set->samples, &set->cap, set->n + 1,
					   sizeof(*s), 256);
	if (!s)
		return -ENOMEM;
	set->samples = s;
	uint64_t *f = grow_array(set->frames, &set->cap_frames,
				 set->n_frames + more, sizeof(*f), 1024);
	if (!f)
		return -ENOMEM;
	set->frames = f;
	return 0;
}

int prof_set_add(struct prof_sample_set *set, uint32_t pid, uint32_t tid,
		 uint64_t ip, const uint64_t *frames, uint32_t n)
{
	struct prof_sample *s;
	int err;

	if (n > PROF_MAX_FRAMES)
		n = PROF_MAX_FRAMES;
	err = reserve(set, n);
	if (err)
		return err;
	s = &set->samples[set->n++];
	s->pid = pid;
	s->tid = tid;
	s->ip = ip;
	s->n_frames = n;
	s->first_frame = set->n_frames;
	if (n)
		memcpy(set->frames + set->n_frames, frames, n * sizeof(*frames));
	set->n_frames += n;
	return 0;
}

void prof_set_free(struct prof_sample_set *set)
{
	free(set->samples);
	free(set->frames);
	memset(set, 0, sizeof(*set));
}

/*
 * One PERF_RECORD_SAMPLE of `size` bytes at rec.  The chain's markers are
 * dropped; the kernel already writes it leaf first (kernel part, then the
 * user part).  A sample whose chain holds no address keeps ip as its one
 * frame, so that every sample has a leaf.
 */
static int parse_sample(const unsigned char *rec, size_t size,
			struct prof_sample_set *set)
{
	uint64_t frames[PROF_MAX_FRAMES];
	const unsigned char *ips;
	uint64_t ip, nr;
	uint32_t pid, tid, n = 0;

	if (size < SAMPLE_FIXED)
		return -EINVAL;
	ip = load_u64(rec + 8);
	pid = load_u32(rec + 16);
	tid = load_u32(rec + 20);
	nr = load_u64(rec + 24);
	/* Compare counts, not byte ends: a hostile nr must not overflow. */
	if (nr > (size - SAMPLE_FIXED) / 8)
		return -EINVAL;
	ips = rec + SAMPLE_FIXED;
	for (uint64_t i = 0; i < nr && n < PROF_MAX_FRAMES; i++) {
		uint64_t a = load_u64(ips + 8 * i);

		if (a < PROF_CONTEXT_FIRST)
			frames[n++] = a;
	}
	if (n == 0)
		frames[n++] = ip;
	return prof_set_add(set, pid, tid, ip, frames, n);
}

int prof_ring_parse(const void *data, size_t len, struct prof_sample_set *set)
{
	const unsigned char *p = data;
	size_t off = 0;

	while (off < len) {
		struct perf_event_header h;
		int err = 0;

		if (len - off < sizeof(h))
			return -EINVAL;
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			return -EINVAL;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			err = parse_sample(p + off, h.size, set);
			break;
		case PERF_RECORD_LOST:
			if (h.size < LOST_SIZE)
				return -EINVAL;
			set->lost += load_u64(p + off + 16);
			break;
		default:
			set->other++;
			break;
		}
		if (err)
			return err;
		off += h.size;
	}
	return 0;
}
