/* SPDX-License-Identifier: MIT */
/*
 * ring.h: samples as perf_event_open(2) writes them, and the set they are
 * gathered into.
 *
 * The sampler (sampler.h) asks for sample_type IP | TID | CALLCHAIN, so a
 * PERF_RECORD_SAMPLE record is
 *
 *   struct perf_event_header;  u64 ip;  u32 pid, tid;  u64 nr;  u64 ips[nr];
 *
 * where ips[] holds context markers (PERF_CONTEXT_KERNEL, _USER, ...: the
 * values above (u64)-4096) between the addresses.  prof_ring_parse keeps
 * the addresses, leaf first, and drops the markers; a kernel address is one
 * with the top bit set (x86-64's split), so the markers are not needed to
 * tell the two apart.  PERF_RECORD_LOST records add their count to `lost`;
 * every other record type is counted in `other` and skipped.
 *
 * The set keeps frames in one array, each sample an offset into it, so
 * that growing it never invalidates a sample.  Not thread-safe: one owner.
 */
#ifndef MAPLAB_PROFILE_RING_H
#define MAPLAB_PROFILE_RING_H

#include <stddef.h>
#include <stdint.h>

/* Frames kept per sample (the sampler asks the kernel for this many). */
#define PROF_MAX_FRAMES 64

struct prof_sample {
	uint32_t pid, tid;
	uint64_t ip;         /* the sampled instruction */
	uint32_t n_frames;   /* frames, leaf first; frames[0] is ip where the
				kernel gave a chain, and a sample whose
				chain holds no address keeps ip as its one
				frame, so n_frames >= 1 after parsing */
	size_t first_frame;  /* index of frames[0] in the set's frame store */
};

struct prof_sample_set {
	struct prof_sample *samples;
	size_t n, cap;
	uint64_t *frames;
	size_t n_frames, cap_frames;
	uint64_t lost;   /* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t other;  /* records of other types, skipped */
};

/* The frames of sample i (leaf first), set->samples[i].n_frames of them. */
static inline const uint64_t *prof_sample_frames(const struct prof_sample_set *set,
						 size_t i)
{
	return set->frames + set->samples[i].first_frame;
}

/* A kernel address (x86-64: the upper half). */
static inline int prof_addr_is_kernel(uint64_t addr)
{
	return (addr >> 63) != 0;
}

/*
 * Append the records in data[0..len) (whole records, one after another, as
 * copied out of a ring) to set.  0; -EINVAL where a record's size is
 * shorter than its header or runs past len, or a sample's callchain runs
 * past its record (set keeps the records before it); -ENOMEM.
 */
int prof_ring_parse(const void *data, size_t len, struct prof_sample_set *set);

/* Append one sample (frames leaf first, n at most PROF_MAX_FRAMES more are
 * dropped).  0 or -ENOMEM.  For the parser and for tests. */
int prof_set_add(struct prof_sample_set *set, uint32_t pid, uint32_t tid,
		 uint64_t ip, const uint64_t *frames, uint32_t n);

void prof_set_free(struct prof_sample_set *set);

#endif /* MAPLAB_PROFILE_RING_H */
