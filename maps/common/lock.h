/* SPDX-License-Identifier: MIT */
/*
 * lock.h: the spin lock that stands for the kernel's raw/rq spinlocks.
 *
 * The kernel holds these locks with preemption (and IRQs) off, so a holder
 * never sleeps.  A userspace holder can be descheduled, and with more
 * threads than cores a pure spin burns the waiter's whole time slice.  So
 * the lock spins briefly with a pause, then yields the core to let the
 * holder run.  Test-and-test-and-set: waiters spin on a plain load and only
 * try the atomic exchange when the lock looks free, so a waiting core does
 * not steal the cache line from the holder.
 *
 * Ordering: lock is an acquire, unlock a release; everything written under
 * the lock is visible to the next holder.
 */
#ifndef MAPLAB_LOCK_H
#define MAPLAB_LOCK_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

struct map_spinlock {
	atomic_bool held;
};

static inline void map_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static inline void map_spin_init(struct map_spinlock *l)
{
	atomic_init(&l->held, false);
}

static inline bool map_spin_trylock(struct map_spinlock *l)
{
	return !atomic_load_explicit(&l->held, memory_order_relaxed) &&
	       !atomic_exchange_explicit(&l->held, true, memory_order_acquire);
}

static inline void map_spin_lock(struct map_spinlock *l)
{
	unsigned spins = 0;
	while (!map_spin_trylock(l)) {
		if (++spins < 128)
			map_cpu_relax();
		else
			sched_yield();
	}
}

static inline void map_spin_unlock(struct map_spinlock *l)
{
	atomic_store_explicit(&l->held, false, memory_order_release);
}

#endif /* MAPLAB_LOCK_H */
