/* SPDX-License-Identifier: MIT */
/*
 * designs.h: what the test suites that loop over designs share: the
 * registry's designs of one map type (a suite that finds none fails rather
 * than passing having tested nothing), and test doubles built on a real
 * design (for showing that a checker catches what it must).
 */
#ifndef MAPLAB_TEST_DESIGNS_H
#define MAPLAB_TEST_DESIGNS_H

#include <criterion/criterion.h>
#include <stddef.h>

#include "maps/base/map.h"

#define MAX_TEST_DESIGNS 32

/* The designs of `type`, in registry order.  Fails the test when none. */
static inline size_t designs_of_type(uint32_t type,
				     const struct map_ops **out)
{
	size_t n = 0;
	for (size_t i = 0; map_registry[i] && n < MAX_TEST_DESIGNS; i++)
		if (map_registry[i]->type == type)
			out[n++] = map_registry[i];
	cr_assert_gt(n, 0, "map_registry[] holds no %s design",
		     map_type_name(type));
	return n;
}

#endif /* MAPLAB_TEST_DESIGNS_H */
