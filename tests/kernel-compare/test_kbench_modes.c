/* SPDX-License-Identifier: MIT */
/*
 * kbench_modes (kernel-compare/kbench_modes.c): which kernel maps a run's
 * designs stand for.  Needs no BPF: built and run with or without the
 * kernel side.
 */
#include <criterion/criterion.h>

#include "harness/bench/bench.h"
#include "kernel-compare/kbench.h"

/* --- the kernel maps a comparison needs --------------------------------------- */

/*
 * One kernel side per distinct (type, mode flags): a design with
 * BPF_F_NO_COMMON_LRU stands for the kernel's LRU hash in that mode, and
 * a kernel type named outright for its map without mode flags.
 */
Test(kbench_modes, each_kernel_mode_among_the_designs_once)
{
	const struct map_ops common = { .name = "t/common",
					.type = MAP_TYPE_LRU_HASH };
	const struct map_ops percpu = { .name = "t/percpu",
					.type = MAP_TYPE_LRU_HASH,
					.mode_flags = MAP_F_NO_COMMON_LRU };
	const struct map_ops other = { .name = "t/other",
				       .type = MAP_TYPE_LRU_HASH };
	const struct map_ops *designs[] = { &common, &percpu, &other, NULL };
	const uint32_t types[] = { MAP_TYPE_LRU_HASH, MAP_TYPE_LRU_HASH,
				   MAP_TYPE_LRU_HASH, MAP_TYPE_LRU_HASH };
	struct kbench_mode modes[4];
	unsigned mode_of[4];
	unsigned n = kbench_modes(designs, types, 4, modes, mode_of);
	cr_assert_eq(n, 2, "%u kernel maps", n);
	cr_expect(modes[0].type == MAP_TYPE_LRU_HASH && modes[0].flags == 0);
	cr_expect(modes[1].type == MAP_TYPE_LRU_HASH &&
		  modes[1].flags == MAP_F_NO_COMMON_LRU);
	cr_expect(mode_of[0] == 0 && mode_of[1] == 1 && mode_of[2] == 0 &&
		  mode_of[3] == 0, "%u %u %u %u", mode_of[0], mode_of[1],
		  mode_of[2], mode_of[3]);
	/* The noop design (type 0) stands for the type it was given. */
	const struct map_ops *noop[] = { &bench_noop_ops };
	const uint32_t hash[] = { MAP_TYPE_HASH };
	cr_expect_eq(kbench_modes(noop, hash, 1, modes, NULL), 1);
	cr_expect_eq(modes[0].type, MAP_TYPE_HASH);
}
