/* SPDX-License-Identifier: MIT */
/*
 * lru_selftests.h: the kernel's own LRU tests (its
 * tools/testing/selftests/bpf/test_lru_map.c, sanity0..8 with the 2025
 * sizes) as scenarios that run on any LRU map: a maplab design (the unit
 * suite) or the kernel's map through kmap_ops (the kernel suite, which so
 * confirms every expectation here on the running kernel).
 *
 * Adapted to one thread: every scenario runs on cpu 0 but sanity5, which
 * visits every cpu in turn as the kernel's forks do.  ncpus is the
 * possible-CPU count, as the kernel's nr_cpus.  Keys and values are 8-byte
 * numbers; "ref lookup" is a program's lookup (it sets the ref bit), a
 * plain lookup is the syscall's (it never does).  Each expectation says
 * why the kernel's LRU gives it.
 */
#ifndef MAPLAB_TEST_LRU_SELFTESTS_H
#define MAPLAB_TEST_LRU_SELFTESTS_H

#include <stdbool.h>
#include <stdint.h>

#include "maps/base/map.h"

/* What a scenario runs on. */
struct lru_target {
	const char *label;
	const struct map_ops *ops; /* makes the map: a design, or kmap_ops */
	/* A program's lookup: 0 or -ENOENT (NULL: map_lookup in an RCU read
	 * section, as a BPF program's). */
	int (*prog_lookup)(struct map *m, const void *key);
	/* Pin the thread to the cpu as well as claiming its slot (the
	 * kernel's map follows the cpu the syscall runs on). */
	bool pin;
};

/* Run the calling thread as cpu `cpu` of t: false when it may not run
 * there (the kernel's test skips such a cpu too). */
bool lru_run_on_cpu(const struct lru_target *t, unsigned cpu);

/* flags: 0 or MAP_F_NO_COMMON_LRU (sanity1, 2, 3 and 5 are common-only,
 * sanity6 per-CPU only, as in the kernel's test). */
void lru_sanity0(const struct lru_target *t, uint32_t flags);
void lru_sanity1(const struct lru_target *t);
void lru_sanity2(const struct lru_target *t);
void lru_sanity3(const struct lru_target *t);
void lru_sanity4(const struct lru_target *t, uint32_t flags);
void lru_sanity5(const struct lru_target *t);
void lru_sanity6(const struct lru_target *t);
void lru_sanity7(const struct lru_target *t, uint32_t flags);
void lru_sanity8(const struct lru_target *t, uint32_t flags);

#endif /* MAPLAB_TEST_LRU_SELFTESTS_H */
