/* SPDX-License-Identifier: MIT */
/*
 * rcu.h: maplab's glue over liburcu.
 *
 * Readers never lock: they run between map_rcu_read_lock() and
 * map_rcu_read_unlock() and may follow RCU-published pointers there.
 * Writers publish with release stores and free what readers may still hold
 * with map_rcu_call(), whose callback runs after a grace period.
 * map_rcu_barrier() waits for every queued callback, so a design's destroy
 * returns only when its memory is really freed.
 *
 * Two liburcu flavours, chosen once per process before any thread
 * registers (map_rcu_use()):
 *  - urcu-memb (default): a read section costs two thread-local stores and
 *    compiler barriers; threads need announce nothing.
 *  - urcu-qsbr: read sections are free, as near to the kernel's as
 *    userspace gets; in exchange every registered thread must announce a
 *    quiescent state now and then (map_rcu_quiescent(), outside any read
 *    section) and must not block while online.  The bench harness does it
 *    every few hundred operations, as a BPF program "announces" one each
 *    time it returns.
 * The read side is inlined (_LGPL_SOURCE: liburcu is LGPL-2.1, which allows
 * inlining its small functions into code under a compatible licence such
 * as maplab's MIT).
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
#include <urcu/urcu-qsbr.h>
#include <urcu/pointer.h>

enum map_rcu_flavor {
	MAP_RCU_MEMB,
	MAP_RCU_QSBR,
};

extern enum map_rcu_flavor map_rcu_flavor;

/* Choose the flavour: before any thread calls map_thread_online(). */
void map_rcu_use(enum map_rcu_flavor flavor);
/* "memb" / "qsbr" */
const char *map_rcu_flavor_name(void);

static inline void map_rcu_read_lock(void)
{
	if (map_rcu_flavor == MAP_RCU_QSBR)
		urcu_qsbr_read_lock();
	else
		urcu_memb_read_lock();
}

static inline void map_rcu_read_unlock(void)
{
	if (map_rcu_flavor == MAP_RCU_QSBR)
		urcu_qsbr_read_unlock();
	else
		urcu_memb_read_unlock();
}

/* QSBR: this thread holds no RCU pointer now.  memb: nothing to do. */
static inline void map_rcu_quiescent(void)
{
	if (map_rcu_flavor == MAP_RCU_QSBR)
		urcu_qsbr_quiescent_state();
}

/* Run fn(head) after a grace period (on liburcu's call_rcu thread). */
void map_rcu_call(struct rcu_head *head, void (*fn)(struct rcu_head *));

/* free() a malloc'd block whose first member is head, after a grace
 * period. */
void map_rcu_free_block(struct rcu_head *head);

/* Wait for every queued callback.  Not inside a read section.  Under QSBR
 * the caller is taken offline while it waits. */
void map_rcu_barrier(void);

/*
 * Run fn(arg) with the calling thread offline under QSBR (memb: just run
 * it), for calls that wait on work which itself waits for grace periods
 * (cds_lfht_destroy waits for resizes that call synchronize_rcu).
 */
void map_rcu_offline_call(void (*fn)(void *arg), void *arg);

/* liburcu's descriptor of the flavour in use (for cds_lfht_new_flavor). */
const struct rcu_flavor_struct *map_rcu_flavor_struct(void);

struct map;

/*
 * The syscall-style lookup of a design whose program-style lookup has no
 * side effect: find(m, key) inside an RCU read section, then copy
 * value_size bytes out.  0 or -ENOENT.  (An LRU design must pass a find
 * that does not mark the reference.)
 */
int map_copy_value_rcu(struct map *m,
		       void *(*find)(struct map *m, const void *key),
		       const void *key, void *value);

/* Register / unregister the calling thread as an RCU reader (nests). */
void map_thread_online(void);
void map_thread_offline(void);

#endif /* MAPLAB_RCU_H */
