/* SPDX-License-Identifier: MIT */
/*
 * lru_htab.h: an LRU hash map is the hash core plus an eviction policy.
 * This is the core's half, shared by every design under maps/lru/ but
 * lru/assoc: the elements, the table (lru_table.h: the kernel's chains, or
 * tagged buckets), the map_ops, and the kernel's order of work in update.
 * A policy (one file per design) decides only which element a new key
 * gets, and which key leaves to free one.
 *
 *   element: [lru_node: policy's links, cpu, type, ref][htab_node][key][value]
 *
 *   update(key, value, flags)                  (the kernel's htab_lru_map_update_elem)
 *     [policy->flags_before_pop: flags refuse what a lookup finds: return]
 *     n = policy->pop_free(cpu, hash)          no lock held; may evict other keys
 *                                              (lru_htab_evict), may fail: -ENOMEM
 *     table update_begin: bucket lock, look up, check flags
 *       flags refuse: unlock, policy->push_free(n)   a failing update can still
 *                                                    have evicted (pop came first)
 *     table update_commit: n at the head, old unlinked, unlock
 *     old? policy->replaced(n, old) (the kernel sets n's ref bit),
 *          policy->push_free(old)
 *   lookup (program):  find, policy->referenced (the kernel sets the ref bit)
 *   lookup_copy (syscall): find, no mark
 *   delete: unlink under the bucket lock, policy->push_free
 *
 * Every element is preallocated: exactly max_entries, no spares (the
 * kernel's LRU has none), handed to the policy by policy->init.  Elements
 * are reused at once, as in hash/linux: a program-style reader may see a
 * value change under it, and a lookup derailed by a reuse walks again (the
 * nulls chains of htab.h; the tagged table's seqlock retry).
 *
 * Lock order: a policy's locks, then a bucket lock (lru_htab_evict takes
 * it), never the reverse: the core calls pop_free and push_free with no
 * bucket lock held.  The reference bit is written without a lock (a racy
 * store, as the kernel's bpf_lru_node_set_ref): a lost mark only costs a
 * key its second chance.
 *
 * Work counters (map_ops.work) are per cpu slot, written only by the
 * slot's own thread with relaxed stores, read with relaxed loads.
 */
#ifndef MAPLAB_LRU_HTAB_H
#define MAPLAB_LRU_HTAB_H

#include "maps/base/dlist.h"
#include "maps/base/lock.h"
#include "maps/base/map.h"
#include "maps/base/work.h"
#include "maps/lru/core/lru_table.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A policy's view of one element. */
struct lru_node {
	struct dlist link;    /* on one of the policy's lists, under its lock */
	uint32_t index;       /* the element's number, 0..n_elems-1: a policy
				 keeps per-element state in arrays by it */
	uint16_t cpu;         /* the slot it belongs to or waits on */
	uint8_t type;         /* which of the policy's lists it is on */
	_Atomic uint8_t ref;  /* reference bit (or small count): set by lookups
				 without a lock */
};

struct lru_htab;

struct lru_policy {
	/*
	 * Take the freshly made elements (all free, lru_htab_node(h, i) for i
	 * < h->n_elems) into the policy's state at h->policy_state.  0 or
	 * -ENOMEM.
	 */
	int (*init)(struct lru_htab *h);
	void (*fini)(struct lru_htab *h);

	/*
	 * An element for a new key of hash `hash`, on cpu slot `cpu`: from the
	 * free ones, or by evicting keys (lru_htab_evict).  The policy stores
	 * the hash (lru_node_set_hash) under its lock before the element can
	 * be seen by another slot, as the kernel does, so an eviction that
	 * races with this update looks in the right bucket.  NULL when none
	 * can be had (the update answers -ENOMEM, as the kernel's).  No bucket
	 * lock held.
	 */
	struct lru_node *(*pop_free)(struct lru_htab *h, unsigned cpu,
				     uint32_t hash);

	/* n left the table (a delete, a replace's old element, a failed
	 * update's new one): take it back.  No bucket lock held. */
	void (*push_free)(struct lru_htab *h, unsigned cpu, struct lru_node *n);

	/* Optional: a program lookup found n (default: set its ref bit).  In
	 * an RCU read section; no lock held. */
	void (*referenced)(struct lru_htab *h, unsigned cpu, struct lru_node *n);

	/* Optional: n replaced old for the same key (default: set n's ref
	 * bit, as the kernel's update does). */
	void (*replaced)(struct lru_htab *h, unsigned cpu, struct lru_node *n,
			 struct lru_node *old);

	/* Optional: the max_entries the map really has (the kernel's per-CPU
	 * LRU rounds up to a multiple of the cpus). */
	uint32_t (*capacity)(const struct map_attr *a);

	/* Optional: the inner state (map_ops.dump_state), drawn with
	 * lru_dump.h. */
	int (*dump)(struct lru_htab *h, FILE *f, enum map_dump_format fmt);

	/* Optional: bytes of the policy's own state beyond its lru_nodes
	 * (lists' heads, per-cpu lists, partitions, ghost queues). */
	size_t (*state_bytes)(const struct lru_htab *h);

	/* The policy is the kernel's per-CPU LRU mode (BPF_F_NO_COMMON_LRU);
	 * every other policy refuses that flag with -EINVAL, after the
	 * kernel's own attribute checks (docs/design-notes.md). */
	bool per_cpu_mode;

	/* The table: lru_table_tagged (tagtab.h's cache-line buckets with
	 * tags) instead of lru_table_chains (htab's chains, the kernel's).
	 * For designs that are not the kernel's: it halves the lines an op
	 * reads (docs/lru-sieve-percpu.md). */
	bool tagged_table;

	/* Check the flags against a lock-free lookup before pop_free: an
	 * insert (BPF_NOEXIST) of a key already there, or a BPF_EXIST
	 * update of an absent one, fails without evicting anything.  The
	 * kernel pops first, so its failed updates may still evict (and the
	 * faithful designs must copy that); the check is repeated under the
	 * bucket lock either way. */
	bool flags_before_pop;
};


struct lru_htab {
	struct map map;
	/* the table and its ops: lru_table_tagged if policy->tagged_table,
	 * else lru_table_chains; set at create, read-only after */
	const struct lru_table_ops *table_ops;
	union lru_table table;
	const struct lru_policy *policy;
	/* map_ops.watch_evictions: set while nothing else uses the map */
	void (*on_evict)(void *ctx, const void *key);
	void *on_evict_ctx;
	void *policy_state;          /* the policy's, made by policy->init */
	uint8_t *elems;              /* n_elems elements of elem_size bytes */
	size_t elem_size;
	uint32_t n_elems;
	struct map_work_slot *work;  /* [ncpus] */
};

/* --- what map_ops of an LRU design point at ---------------------------------- */

int lru_htab_create(const struct lru_policy *policy,
		    const struct map_attr *attr, struct map **out);
void lru_htab_destroy(struct map *m);
void *lru_htab_lookup(struct map *m, const void *key);
int lru_htab_lookup_copy(struct map *m, const void *key, void *value);
int lru_htab_update(struct map *m, const void *key, const void *value,
		    uint64_t flags);
int lru_htab_delete(struct map *m, const void *key);
int lru_htab_get_next_key(struct map *m, const void *key, void *next);
void lru_htab_work(const struct map *m, int cpu, struct map_work *w);
/* the policy's dump (lru_dump.c) */
int lru_htab_dump_state(struct map *m, FILE *f, enum map_dump_format fmt);
void lru_htab_watch_evictions(struct map *m,
			      void (*fn)(void *ctx, const void *key), void *ctx);
size_t lru_htab_memory(const struct map *m);

/* Everything but name, description, create and the flags, in one place. */
#define LRU_HTAB_MAP_OPS                                  \
	.type = MAP_TYPE_LRU_HASH,                        \
	.destroy = lru_htab_destroy,                      \
	.lookup = lru_htab_lookup,                        \
	.lookup_copy = lru_htab_lookup_copy,              \
	.update = lru_htab_update,                        \
	.delete = lru_htab_delete,                        \
	.get_next_key = lru_htab_get_next_key,            \
	.work = lru_htab_work,                            \
	.dump_state = lru_htab_dump_state,                \
	.watch_evictions = lru_htab_watch_evictions,      \
	.memory = lru_htab_memory

/* --- what a policy may call ---------------------------------------------------- */

static inline struct lru_htab *lru_htab_of(struct map *m)
{
	return (struct lru_htab *)m;
}

/*
 * The hand of CLOCK and SIEVE, on a list whose sentinel is head (policy's
 * lock held): from start, stepping towards the head's end (p->prev,
 * wrapping over the sentinel to the tail), clear the reference bit of each
 * referenced key, and evict the first unreferenced key still in the table
 * (lru_htab_evict).  A bit is honoured for two passes over `keys` at most,
 * then ignored, so a sweep ends even while lookups keep setting bits.
 * Returns the victim, with *at its place on the list (it is still linked),
 * or NULL with *at where the hand stopped (NULL only when every key is
 * mid-update elsewhere; never on one thread).
 */
struct lru_node *lru_hand_sweep(struct lru_htab *h, unsigned cpu,
				struct dlist *head, struct dlist *start,
				uint64_t keys, struct dlist **at);

/* p's neighbour towards the head, wrapping from the head to the tail. */
static inline struct dlist *lru_step_wrapping(struct dlist *head,
					      struct dlist *p)
{
	return p->prev == head ? head->prev : p->prev;
}

struct lru_node *lru_htab_node(struct lru_htab *h, uint32_t i);

/* The table's node of an element, and its key bytes (for dumps). */
struct htab_node *lru_htab_hnode(struct lru_node *n);
const void *lru_node_key(const struct lru_node *n);

static inline void lru_node_set_hash(struct lru_node *n, uint32_t hash)
{
	lru_htab_hnode(n)->hash = hash;
}

/*
 * The kernel's del_from_htab: unlink n's element from the table if it is
 * still there (under its bucket lock), counting an eviction on `cpu`.
 * False when a concurrent update or delete unlinked it first.  The
 * policy's own lock may be held (lock order: policy, then bucket).
 */
bool lru_htab_evict(struct lru_htab *h, unsigned cpu, struct lru_node *n);

/* The ref bit, as the kernel's bpf_lru_node_set_ref / _is_ref. */
static inline void lru_node_set_ref(struct lru_node *n)
{
	if (!atomic_load_explicit(&n->ref, memory_order_relaxed))
		atomic_store_explicit(&n->ref, 1, memory_order_relaxed);
}

static inline bool lru_node_is_ref(const struct lru_node *n)
{
	return atomic_load_explicit(&n->ref, memory_order_relaxed) != 0;
}

static inline void lru_node_clear_ref(struct lru_node *n)
{
	atomic_store_explicit(&n->ref, 0, memory_order_relaxed);
}


static inline struct map_work_slot *lru_work(struct lru_htab *h, unsigned cpu)
{
	return &h->work[cpu];
}

/* Take a policy's lock, counted on slot cpu. */
static inline void lru_lock(struct lru_htab *h, unsigned cpu,
			    struct map_spinlock *lock)
{
	map_spin_lock(lock);
	map_work_count(&lru_work(h, cpu)->locks, 1);
}

/* The node on a policy's list at p. */
static inline struct lru_node *lru_node_of(struct dlist *p)
{
	return dlist_entry(p, struct lru_node, link);
}

#endif /* MAPLAB_LRU_HTAB_H */
