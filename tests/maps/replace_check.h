/* SPDX-License-Identifier: MIT */
/*
 * replace_check.h: a check for designs that keep map.h's contract across
 * a replace (a value pointer names its key's value for the reader's RCU
 * section, and is never written over in it): the DPDK adapters, whose
 * values live by id.  Not every design keeps it: the kernel's
 * preallocated hash may reuse a replaced element at once.
 */
#ifndef MAPLAB_TESTS_REPLACE_CHECK_H
#define MAPLAB_TESTS_REPLACE_CHECK_H

#include <criterion/criterion.h>
#include <stdint.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"

/* update_key's value set to 111, then, inside one read section, to 222:
 * the pointer a lookup of lookup_key gave before the replace still reads
 * 111, and a lookup after it reads 222 at another place.  8-byte
 * values. */
static inline void expect_replace_keeps_old_value(struct map *m,
						  const void *update_key,
						  const void *lookup_key)
{
	uint64_t v = 111;
	cr_assert_eq(map_update(m, update_key, &v, MAP_ANY), 0);
	map_rcu_read_lock();
	const uint64_t *old = map_lookup(m, lookup_key);
	cr_assert_not_null(old);
	v = 222;
	cr_assert_eq(map_update(m, update_key, &v, MAP_EXIST), 0);
	const uint64_t *now = map_lookup(m, lookup_key);
	cr_assert_not_null(now);
	cr_expect_eq(*now, 222);
	cr_expect_eq(*old, 111, "the old value was written over in the "
		     "reader's section");
	cr_expect_neq(now, old);
	map_rcu_read_unlock();
}

#endif /* MAPLAB_TESTS_REPLACE_CHECK_H */
