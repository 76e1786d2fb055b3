/* SPDX-License-Identifier: MIT */
/*
 * rcu.h: maplab's glue over liburcu.
 *
 * Readers never lock: they run between map_rcu_read_lock() and
 * map_rcu_read_unlock() and may follow RCU-published pointers there.
 * Writers publish with rcu_assign_pointer-style release stores and free
 * what readers may still hold with map_rcu_call(), whose callback runs after
 * a grace period.  map_rcu_barrier() waits for every queued callback, so a
 * design's destroy returns only when its memory is really freed.
 *
 * The flavour is urcu-memb (no signals, no quiescent-state announcements).
 * The read side is inlined (_LGPL_SOURCE: liburcu is LGPL-2.1, maplab is
 * MIT, a compatible licence; the LGPL allows inlining small functions).
 *
 * Every thread that touches a map calls map_thread_online() first and
 * map_thread_offline() before it exits.
 */
#ifndef MAPLAB_RCU_H
#define MAPLAB_RCU_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-memb.h>
#include <urcu/pointer.h>

static inline void map_rcu_read_lock(void) { urcu_memb_read_lock(); }
static inline void map_rcu_read_unlock(void) { urcu_memb_read_unlock(); }
static inline void map_rcu_synchronize(void) { urcu_memb_synchronize_rcu(); }
static inline void map_rcu_barrier(void) { urcu_memb_barrier(); }

static inline void map_rcu_call(struct rcu_head *head,
				void (*fn)(struct rcu_head *))
{
	urcu_memb_call_rcu(head, fn);
}

/* Register / unregister the calling thread as an RCU reader. */
void map_thread_online(void);
void map_thread_offline(void);

#endif /* MAPLAB_RCU_H */
