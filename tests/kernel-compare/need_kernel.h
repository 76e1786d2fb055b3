/* SPDX-License-Identifier: MIT */
/*
 * need_kernel.h: the kernel suites' gate.  Without root or BPF a test is
 * skipped with the reason; with MAPLAB_REQUIRE_KERNEL=1 (CI) it fails
 * instead, so CI cannot pass without having run the kernel tests.
 */
#ifndef MAPLAB_TEST_NEED_KERNEL_H
#define MAPLAB_TEST_NEED_KERNEL_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "kernel-compare/kmap.h"

static inline void need_kernel(void)
{
	char why[256];
	if (kmap_available(why, sizeof(why)) == 0)
		return;
	const char *require = getenv("MAPLAB_REQUIRE_KERNEL");
	if (require && strcmp(require, "1") == 0)
		cr_assert_fail("kernel side required but unavailable: %s", why);
	cr_skip_test("kernel side unavailable: %s", why);
}

#endif /* MAPLAB_TEST_NEED_KERNEL_H */
