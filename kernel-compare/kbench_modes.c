/* SPDX-License-Identifier: MIT */
/*
 * kbench_modes.c: which kernel maps a run's designs stand for (kbench.h).
 * Needs no BPF, so it is built with or without the kernel side: compare
 * pairs each design with its kernel map by it, and the tests check it on
 * any machine.
 */
#include "kernel-compare/kbench.h"

unsigned kbench_modes(const struct map_ops *const *designs,
		      const uint32_t *types, unsigned n,
		      struct kbench_mode *out, unsigned *mode_of)
{
	unsigned n_modes = 0;
	for (unsigned i = 0; i < n; i++) {
		struct kbench_mode mode = {
			.type = designs[i] && designs[i]->type ? designs[i]->type
							      : types[i],
			.flags = designs[i] ? designs[i]->mode_flags : 0,
		};
		unsigned k = 0;
		while (k < n_modes && (out[k].type != mode.type ||
				       out[k].flags != mode.flags))
			k++;
		if (k == n_modes)
			out[n_modes++] = mode;
		if (mode_of)
			mode_of[i] = k;
	}
	return n_modes;
}
