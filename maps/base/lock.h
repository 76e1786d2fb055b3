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
#include <stdint.h>

/*
 * MAP_UNDER_TSAN: built with ThreadSanitizer (gcc says __SANITIZE_THREAD__,
 * clang __has_feature(thread_sanitizer)).  TSan does not model a standalone
 * fence (gcc refuses one: -Wtsan), so the seqlock below orders its reads
 * another way there; docs/sanitizers.md.
 */
#if defined(__SANITIZE_THREAD__)
#define MAP_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MAP_UNDER_TSAN 1
#endif
#endif

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

/* Load p's line for writing: a writer that will take a lock there soon,
 * and reads it first, then gets it in one transfer instead of two (a read
 * for sharing, then a second request to own it). */
static inline void map_prefetch_for_write(const void *p)
{
#if defined(__x86_64__)
	/* GCC emits prefetchw only with -mprfchw; every x86-64 that maplab
	 * runs on has it (AMD since K8, Intel since Broadwell) */
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* One step of a wait: a pause, or after 128 of them, a yield. */
static inline void map_wait_a_little(unsigned *spins)
{
	if (++*spins < 128)
		map_cpu_relax();
	else
		sched_yield();
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
	while (!map_spin_trylock(l))
		map_wait_a_little(&spins);
}

static inline void map_spin_unlock(struct map_spinlock *l)
{
	atomic_store_explicit(&l->held, false, memory_order_release);
}

/*
 * map_seqlock: a writers' spin lock and a readers' sequence count in one
 * word, for tables whose readers must not write shared memory (a reader
 * that took a lock, or bumped a count, would pull the line away from
 * every other reader).  Even: no writer; odd: a writer holds it.
 *
 *   writer:  map_seq_lock(l)  (even -> odd, acquire)
 *            ... stores with relaxed atomics ...
 *            map_seq_unlock(l) (odd -> even, release)
 *   reader:  s = map_seq_read_begin(l)   (waits while odd)
 *            ... loads with relaxed atomics, into locals ...
 *            if (map_seq_read_retry(l, s)) start again
 *
 * What a reader loaded between begin and a retry that says "no" is a
 * snapshot of one moment.  Waiting spins, then yields, for the reason
 * map_spinlock does.
 *
 * Ordering, in C11's terms (the kernel's seqcount in its comments):
 *   - begin's acquire load reads the count s that the last writer's unlock
 *     (a release store) wrote: that writer's stores, and its predecessors',
 *     happen before the reader's loads, which see them or later ones;
 *   - a reader's load that reads a store of a writer W whose section began
 *     after s must make the retry say "yes".  W's release fence after its
 *     CAS made the count odd (map_seq_lock_fence) and the reader's acquire
 *     fence before its second load of the count (map_seq_read_retry)
 *     synchronize through that load (C11 7.17.4: fence to fence), so W's
 *     odd count happens before the second load, which reads it or a later
 *     count, never s (the kernel's smp_wmb() in write_seqcount_begin and
 *     smp_rmb() in read_seqcount_retry).
 * Under ThreadSanitizer there are no fences: see map_seq_read_retry.
 */
struct map_seqlock {
	_Atomic uint32_t seq;
};

static inline void map_seq_init(struct map_seqlock *l)
{
	atomic_init(&l->seq, 0);
}

/* Just after the CAS that made the count odd, before any store of the
 * section: the odd count before those stores.  Without it a weakly
 * ordered cpu may show a reader our stores and the old, even count (the
 * kernel's smp_wmb() in write_seqcount_begin; x86's cmpxchg is one
 * already).  Pairs with the acquire fence in map_seq_read_retry.  Under
 * TSan none: the readers' retry pairs with the CAS itself (see there). */
static inline void map_seq_lock_fence(void)
{
#ifndef MAP_UNDER_TSAN
	atomic_thread_fence(memory_order_release);
#endif
}

static inline void map_seq_lock(struct map_seqlock *l)
{
	unsigned spins = 0;
	for (;;) {
		uint32_t s = atomic_load_explicit(&l->seq, memory_order_relaxed);
		if (!(s & 1) &&
		    atomic_compare_exchange_weak_explicit(&l->seq, &s, s + 1,
							  memory_order_acquire,
							  memory_order_relaxed)) {
			map_seq_lock_fence();
			return;
		}
		map_wait_a_little(&spins);
	}
}

/* The lock if it is free now: true when taken (as map_seq_lock). */
static inline bool map_seq_trylock(struct map_seqlock *l)
{
	uint32_t s = atomic_load_explicit(&l->seq, memory_order_relaxed);
	if ((s & 1) ||
	    !atomic_compare_exchange_strong_explicit(&l->seq, &s, s + 1,
						     memory_order_acquire,
						     memory_order_relaxed))
		return false;
	map_seq_lock_fence();
	return true;
}

static inline void map_seq_unlock(struct map_seqlock *l)
{
	uint32_t s = atomic_load_explicit(&l->seq, memory_order_relaxed);
	atomic_store_explicit(&l->seq, s + 1, memory_order_release);
}

static inline uint32_t map_seq_read_begin(const struct map_seqlock *l)
{
	unsigned spins = 0;
	uint32_t s;
	while ((s = atomic_load_explicit(&l->seq, memory_order_acquire)) & 1)
		map_wait_a_little(&spins);
	return s;
}

/* map_seq_read_begin for a reader that must not wait (it holds a lock
 * the writer may want): false while a writer holds it. */
static inline bool map_seq_read_try_begin(const struct map_seqlock *l,
					  uint32_t *s)
{
	*s = atomic_load_explicit(&l->seq, memory_order_acquire);
	return !(*s & 1);
}

/*
 * true when a writer came between begin and now: the loads are void.
 *
 * The acquire fence keeps the pass's loads before the second load of the
 * count and pairs with the writer's release fence (map_seq_lock_fence).
 *
 * Under ThreadSanitizer the second read is a read-don't-modify-write
 * instead, a fetch_add of 0 with release order, and the writer has no
 * fence (Boehm, "Can seqlocks get along with programming language memory
 * models?", MSPC 2012).  Being a read-modify-write, it has a place in the
 * count's modification order beside the CAS that locks a writer W whose
 * section began after s:
 *   - after it: it reads W's odd count or a later one, never s: retry;
 *   - before it: its release pairs with W's acquire CAS (directly, as
 *     other readers' fetch_adds in between continue its release sequence,
 *     or through writers that locked and unlocked in between), so every
 *     load of the pass happens before W's stores and cannot have read one.
 * (A fetch_add of 0 never loses a writer's store: it writes back what it
 * read, at its own place in that order.)
 * Same guarantee, in operations TSan models; but every reader writes the
 * count's line, which is why the normal build keeps the fences.  TSan then
 * also sees a pass that ended before a writer began as ordered before that
 * writer, and reports only passes that overlapped one (tests/sanitizers/
 * tsan.supp says why those are not races).
 */
static inline bool map_seq_read_retry(const struct map_seqlock *l, uint32_t s)
{
#ifndef MAP_UNDER_TSAN
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&l->seq, memory_order_relaxed) != s;
#else
	struct map_seqlock *count = (struct map_seqlock *)l; /* never const */
	return atomic_fetch_add_explicit(&count->seq, 0,
					 memory_order_release) != s;
#endif
}

#endif /* MAPLAB_LOCK_H */
