/* SPDX-License-Identifier: MIT */
/*
 * nulls_list.h: RCU-safe singly-walked chains that end in a "nulls" marker,
 * after the kernel's hlist_nulls (Documentation/RCU/rculist_nulls.rst).
 *
 *   head -> [elem] -> [elem] -> [elem] -> NULLS(7)
 *                                          ^ odd value: (7 << 1) | 1
 *
 * A chain ends not in NULL but in an odd pointer-sized value that encodes
 * which chain this is (the bucket index).  Why: a design that reuses an
 * element at once, without waiting for a grace period (the kernel's
 * preallocated hash), can move an element from chain A to chain B while a
 * reader stands on it.  The reader then finishes its walk on chain B.  It
 * sees the end marker of B, not A, knows its walk was derailed, and starts
 * again.  Elements are never returned to the allocator while readers may
 * run, so the derailed walk reads valid (if changing) memory.
 *
 * Writers hold the chain's lock.  Readers hold an RCU read section and load
 * links with acquire order, pairing with the release store that publishes
 * a new element (nulls_add_head_rcu).  nulls_del_rcu leaves the removed
 * node's next link intact, so a reader standing on it walks on.
 */
#ifndef MAPLAB_NULLS_LIST_H
#define MAPLAB_NULLS_LIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nulls_node {
	_Atomic(struct nulls_node *) next;
	_Atomic(struct nulls_node *) *pprev; /* writers only, under the lock */
};

struct nulls_head {
	_Atomic(struct nulls_node *) first;
};

static inline struct nulls_node *nulls_marker(uintptr_t value)
{
	return (struct nulls_node *)((value << 1) | 1);
}

static inline bool nulls_is_marker(const struct nulls_node *p)
{
	return ((uintptr_t)p & 1) != 0;
}

static inline uintptr_t nulls_marker_value(const struct nulls_node *p)
{
	return (uintptr_t)p >> 1;
}

static inline void nulls_init_head(struct nulls_head *h, uintptr_t value)
{
	atomic_init(&h->first, nulls_marker(value));
}

/* Reader side: first link and next link (acquire: pairs with add_head). */
static inline struct nulls_node *nulls_first_rcu(struct nulls_head *h)
{
	return atomic_load_explicit(&h->first, memory_order_acquire);
}

static inline struct nulls_node *nulls_next_rcu(struct nulls_node *n)
{
	return atomic_load_explicit(&n->next, memory_order_acquire);
}

/* Writer side, chain lock held: link n in front of the chain. */
static inline void nulls_add_head_rcu(struct nulls_node *n,
				      struct nulls_head *h)
{
	struct nulls_node *first =
		atomic_load_explicit(&h->first, memory_order_relaxed);

	atomic_store_explicit(&n->next, first, memory_order_relaxed);
	n->pprev = &h->first;
	if (!nulls_is_marker(first))
		first->pprev = &n->next;
	/* Release: a reader that sees n also sees n's key, value and next. */
	atomic_store_explicit(&h->first, n, memory_order_release);
}

/* Writer side, chain lock held: unlink n; n->next stays for readers. */
static inline void nulls_del_rcu(struct nulls_node *n)
{
	struct nulls_node *next =
		atomic_load_explicit(&n->next, memory_order_relaxed);

	atomic_store_explicit(n->pprev, next, memory_order_release);
	if (!nulls_is_marker(next))
		next->pprev = n->pprev;
	n->pprev = NULL;
}

#endif /* MAPLAB_NULLS_LIST_H */
