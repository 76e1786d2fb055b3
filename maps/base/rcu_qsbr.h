/* SPDX-License-Identifier: MIT */
/*
 * rcu_qsbr.h: the urcu-qsbr calls that cannot sit beside urcu-memb's in
 * one translation unit (liburcu's call-rcu.h is written for one flavour per
 * file), so rcu_qsbr.c wraps them.  Internal to rcu.c.
 */
#ifndef MAPLAB_RCU_QSBR_H
#define MAPLAB_RCU_QSBR_H

struct rcu_head;
struct rcu_flavor_struct;

void map_rcu_qsbr_call(struct rcu_head *head, void (*fn)(struct rcu_head *));
void map_rcu_qsbr_barrier(void);
/* Start the flavour's default call_rcu thread, if it is not running. */
void map_rcu_qsbr_start_call_rcu(void);
const struct rcu_flavor_struct *map_rcu_qsbr_flavor(void);

#endif /* MAPLAB_RCU_QSBR_H */
