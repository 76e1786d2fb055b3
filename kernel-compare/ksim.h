/* SPDX-License-Identifier: MIT */
/*
 * ksim.h: the kernel's own LRU hash map as a cache simulator policy.
 *
 * ksim_run replays one or more streams of object ids (cache requests)
 * through a real BPF_MAP_TYPE_LRU_HASH, each request as a BPF program
 * would make it (bpf/ksim.bpf.c):
 *
 *   v = bpf_map_lookup_elem(map, key);    a hit marks the key referenced
 *   if (!v)                               a miss ...
 *       bpf_map_update_elem(map, key, &value, BPF_NOEXIST);  ... inserts it
 *
 * BPF_NOEXIST, not BPF_ANY: when two streams miss on the same key at once,
 * the second insert finds the first's element and leaves it (-EEXIST, the
 * request still counts as a miss) instead of replacing it with a new
 * element, which would free the first and move the key in the LRU lists:
 * a cache inserts what is absent.  With one stream the two are the same
 * (the lookup just missed, so the key is absent).
 *
 * Requests go to the kernel in batches: each BPF_PROG_TEST_RUN runs the
 * program over `batch` requests whose keys userspace has just copied into
 * the stream's window of an mmap'ed array (docs/kernel-compare.md, "The
 * kernel as a cache", gives the per-batch overhead and why not ctx_in).
 * Each stream runs on a thread of its own, pinned to its cpu, and the
 * threads start together (a gate opened once all are pinned), so with two
 * streams on two CPUs the kernel's per-CPU LRU lists (and, with
 * BPF_F_NO_COMMON_LRU, its per-CPU lists and shares of the elements) see
 * two CPUs as in production.  The program checks the CPU it runs
 * on: a pin that did not hold is an error, never a figure.
 */
#ifndef MAPLAB_KSIM_H
#define MAPLAB_KSIM_H

#include "harness/sim/kernel_engine.h"

/* The engine's run: struct sim_kernel_engine says what it returns. */
int ksim_run(const struct ksim_config *c, const struct ksim_stream *streams,
	     unsigned n_streams, struct ksim_result *out, char *err,
	     size_t errlen);

/* Whether this process can run ksim at all (BPF allowed, program loads);
 * for skips.  false with a one-line reason in why. */
bool ksim_available(char *why, size_t whylen);

/* ksim_run and ksim_available, for sim_set_kernel_engine. */
extern const struct sim_kernel_engine ksim_engine;

#endif /* MAPLAB_KSIM_H */
