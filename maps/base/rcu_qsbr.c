/* SPDX-License-Identifier: MIT */
/* rcu_qsbr.c: see rcu_qsbr.h.  Includes only the QSBR flavour. */
#define _LGPL_SOURCE
#include <urcu/urcu-qsbr.h>

#include "maps/base/rcu_qsbr.h"

void map_rcu_qsbr_call(struct rcu_head *head, void (*fn)(struct rcu_head *))
{
	urcu_qsbr_call_rcu(head, fn);
}

void map_rcu_qsbr_start_call_rcu(void)
{
	(void)urcu_qsbr_get_default_call_rcu_data();
}

void map_rcu_qsbr_barrier(void)
{
	urcu_qsbr_barrier();
}

extern const struct rcu_flavor_struct urcu_qsbr_flavor;

const struct rcu_flavor_struct *map_rcu_qsbr_flavor(void)
{
	return &urcu_qsbr_flavor;
}
