/* SPDX-License-Identifier: MIT */
/*
 * lru/linux_common: the kernel's default BPF_MAP_TYPE_LRU_HASH (the common
 * LRU of kernel/bpf/bpf_lru_list.c, 6.18), reproduced so that the same
 * operations on the same cpus evict the same keys.
 *
 *   global list (one lock):  active | inactive [hand] | free   (bpf_lru.h)
 *                              ^ flush: pending nodes, ref'd to active
 *   cpu c's local lists (c's lock):
 *     local free:  nodes reserved for c's next inserts, popped from the head
 *     pending:     c's recent inserts, not yet on the global list
 *
 * pop_free on cpu c (an update's new element):
 *   1. c's local free list has a node: it is the one.
 *   2. Else refill, under the global lock: flush c's pending nodes onto the
 *      global list (oldest first; ref'd to active, others to inactive),
 *      rotate, move up to target_free nodes from the global free list to
 *      c's local free list and, for any shortfall, shrink the inactive
 *      list into it (a force shrink of one node if that evicted none).
 *   3. The node goes to the head of c's pending list, ref bit clear.
 *   4. If the global list gave nothing, steal: round-robin over the cpus
 *      from c's next_steal, the first that has a local free node, or a
 *      pending node that can be evicted (unreferenced ones first).
 * push_free (a delete, a replaced or refused element): a node still
 *   pending goes to its owner cpu's local free list, any other to the
 *   global free list.
 *
 * target_free = clamp((max_entries / ncpus) / 2, 1, 128), the scan limit
 * 128 whatever the target; ncpus is the map's cpu count (attr.ncpus), the
 * kernel's possible CPUs.
 *
 * Kernel versions (map_attr.model; docs/kernels.md): 6.12 and 6.18 as
 * above.  5.10 and 6.1 refill towards a fixed target of 128 nodes
 * (LOCAL_FREE_TARGET), whatever the map's size: the clamp came with
 * "bpf: Adjust free target to avoid global starvation of LRU map"
 * (upstream d4adf1c9ee77, 6.16; Debian's 6.12 since 6.12.41, not its 6.1
 * or 5.10).  With 128, a small map's first refill takes every free node
 * to one cpu and shrinks the inactive list by the rest, so an update on a
 * full map evicts far more (16 entries, 24 inserts on one cpu: 8 keys
 * left, against 16).
 *
 * Lock order: a local lock, then the global lock, then a bucket lock
 * (lru_htab_evict).  A refill holds c's local lock throughout; a steal
 * holds one victim's local lock at a time and c's own only afterwards.
 * next_steal is touched only by its own slot's thread.  A node's cpu is
 * written when it becomes pending, before the update publishes it under a
 * bucket lock, so whoever frees it (having unlinked it under that bucket
 * lock) reads it without a lock; its type can change under it (a flush),
 * so push_free checks the type again under the owner's lock.
 */
#include "maps/base/area.h"
#include "maps/lru/core/bpf_lru.h"
#include "maps/lru/core/lru_dump.h"

#include <errno.h>
#include <stdlib.h>

#define LOCAL_FREE_TARGET 128 /* the kernel's LOCAL_FREE_TARGET */
#define LOCAL_NR_SCANS 128    /* the kernel's LOCAL_NR_SCANS */

struct local_list {
	struct map_spinlock lock;
	struct dlist free, pending;
	unsigned next_steal; /* the cpu a steal tries first */
} __attribute__((aligned(64)));

struct linux_common_lru {
	struct bpf_lru_list global;
	unsigned target_free;
	unsigned ncpus;
	struct local_list local[]; /* [ncpus] */
};

static struct linux_common_lru *linux_common_state(struct lru_htab *h)
{
	return h->policy_state;
}

static unsigned linux_common_clamp_target(uint32_t per_cpu_half)
{
	if (per_cpu_half < 1)
		return 1;
	return per_cpu_half > LOCAL_FREE_TARGET ? LOCAL_FREE_TARGET
						: per_cpu_half;
}

/* Every element on the global free list, in index order, each added at
 * the head (the kernel's bpf_common_lru_populate). */
static int linux_common_init(struct lru_htab *h)
{
	unsigned ncpus = h->map.attr.ncpus;
	struct linux_common_lru *c = map_area_alloc(sizeof(*c) + ncpus *
						    sizeof(c->local[0]), 64);
	if (!c)
		return -ENOMEM;
	bpf_lru_list_init(&c->global, LOCAL_NR_SCANS);
	c->ncpus = ncpus;
	c->target_free = h->map.attr.model < MAP_MODEL(6, 12)
		? LOCAL_FREE_TARGET
		: linux_common_clamp_target(h->n_elems / ncpus / 2);
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		struct local_list *loc = &c->local[cpu];
		map_spin_init(&loc->lock);
		dlist_init(&loc->free);
		dlist_init(&loc->pending);
		loc->next_steal = cpu;
	}
	for (uint32_t i = 0; i < h->n_elems; i++)
		bpf_lru_list_add_free(&c->global, lru_htab_node(h, i));
	h->policy_state = c;
	return 0;
}

static void linux_common_fini(struct lru_htab *h)
{
	free(linux_common_state(h));
}

/* --- the local lists (their lock held) ------------------------------------ */

static struct lru_node *linux_common_local_pop_free(struct local_list *loc)
{
	struct dlist *p = dlist_first(&loc->free);
	if (!p)
		return NULL;
	dlist_del(p);
	return lru_node_of(p);
}

static void linux_common_local_add_pending(struct local_list *loc, unsigned cpu,
					   struct lru_node *n, uint32_t hash)
{
	lru_node_set_hash(n, hash);
	n->cpu = (uint16_t)cpu;
	bpf_lru_set_type(n, BPF_LRU_LOCAL_PENDING);
	lru_node_clear_ref(n);
	dlist_add(&n->link, &loc->pending);
}

/*
 * A victim's pending node for a thief: from the tail, the first one that
 * can be evicted, unreferenced ones first, then any (the kernel's
 * __local_list_pop_pending).
 */
static struct lru_node *
linux_common_local_pop_pending(struct lru_htab *h, unsigned cpu,
			       struct local_list *victim)
{
	for (int ignore_ref = 0; ignore_ref < 2; ignore_ref++)
		for (struct dlist *p = victim->pending.prev;
		     p != &victim->pending; p = p->prev) {
			struct lru_node *n = lru_node_of(p);
			map_work_count(&lru_work(h, cpu)->nodes_scanned, 1);
			if ((ignore_ref || !lru_node_is_ref(n)) &&
			    lru_htab_evict(h, cpu, n)) {
				dlist_del(p);
				return n;
			}
		}
	return NULL;
}

/* --- refill: c's local lock held ------------------------------------------ */

/* c's pending nodes onto the global list, oldest first. */
static void linux_common_flush_pending(struct lru_htab *h, unsigned cpu,
				       struct bpf_lru_list *l,
				       struct local_list *loc)
{
	struct dlist *p, *newer;
	for (p = loc->pending.prev; p != &loc->pending; p = newer) {
		struct lru_node *n = lru_node_of(p);
		newer = p->prev;
		map_work_count(&lru_work(h, cpu)->nodes_scanned, 1);
		bpf_lru_list_move_in(l, n, lru_node_is_ref(n)
					   ? BPF_LRU_ACTIVE : BPF_LRU_INACTIVE);
	}
}

/* The kernel's bpf_lru_list_pop_free_to_local. */
static void linux_common_refill_local(struct lru_htab *h, unsigned cpu,
				      struct local_list *loc)
{
	struct linux_common_lru *c = linux_common_state(h);
	struct bpf_lru_list *l = &c->global;
	struct dlist *global_free = &l->lists[BPF_LRU_FREE], *p, *older;
	unsigned nfree = 0;

	lru_lock(h, cpu, &l->lock);
	map_work_count(&lru_work(h, cpu)->refills, 1);
	linux_common_flush_pending(h, cpu, l, loc);
	bpf_lru_list_rotate(h, cpu, l);
	for (p = global_free->next; p != global_free; p = older) {
		older = p->next;
		bpf_lru_list_move_to_free(l, lru_node_of(p), &loc->free,
					  BPF_LRU_LOCAL_FREE);
		if (++nfree == c->target_free)
			break;
	}
	if (nfree < c->target_free)
		bpf_lru_list_shrink(h, cpu, l, c->target_free - nfree,
				    &loc->free, BPF_LRU_LOCAL_FREE);
	map_spin_unlock(&l->lock);
}

/* --- the policy ----------------------------------------------------------- */

/* Round-robin over every cpu's local lists from next_steal, which then
 * names the cpu after the last one tried. */
static struct lru_node *linux_common_steal(struct lru_htab *h, unsigned cpu,
					   struct local_list *loc)
{
	struct linux_common_lru *c = linux_common_state(h);
	unsigned first = loc->next_steal, victim = first;
	struct lru_node *n;

	do {
		struct local_list *v = &c->local[victim];
		lru_lock(h, cpu, &v->lock);
		n = linux_common_local_pop_free(v);
		if (!n)
			n = linux_common_local_pop_pending(h, cpu, v);
		map_spin_unlock(&v->lock);
		victim = victim + 1 == c->ncpus ? 0 : victim + 1;
	} while (!n && victim != first);
	loc->next_steal = victim;
	if (n)
		map_work_count(&lru_work(h, cpu)->steals, 1);
	return n;
}

static struct lru_node *linux_common_pop_free(struct lru_htab *h, unsigned cpu,
					      uint32_t hash)
{
	struct local_list *loc = &linux_common_state(h)->local[cpu];
	struct lru_node *n;

	lru_lock(h, cpu, &loc->lock);
	n = linux_common_local_pop_free(loc);
	if (!n) {
		linux_common_refill_local(h, cpu, loc);
		n = linux_common_local_pop_free(loc);
	}
	if (n)
		linux_common_local_add_pending(loc, cpu, n, hash);
	map_spin_unlock(&loc->lock);
	if (n)
		return n;

	n = linux_common_steal(h, cpu, loc);
	if (n) {
		lru_lock(h, cpu, &loc->lock);
		linux_common_local_add_pending(loc, cpu, n, hash);
		map_spin_unlock(&loc->lock);
	}
	return n;
}

static void linux_common_push_free(struct lru_htab *h, unsigned cpu,
				   struct lru_node *n)
{
	struct linux_common_lru *c = linux_common_state(h);

	if (bpf_lru_type_of(n) == BPF_LRU_LOCAL_PENDING) {
		struct local_list *owner = &c->local[n->cpu];
		lru_lock(h, cpu, &owner->lock);
		/* Still pending: its owner has not flushed it meanwhile. */
		if (bpf_lru_type_of(n) == BPF_LRU_LOCAL_PENDING) {
			bpf_lru_set_type(n, BPF_LRU_LOCAL_FREE);
			lru_node_clear_ref(n);
			dlist_move(&n->link, &owner->free);
			map_spin_unlock(&owner->lock);
			return;
		}
		map_spin_unlock(&owner->lock);
	}
	lru_lock(h, cpu, &c->global.lock);
	bpf_lru_list_move(&c->global, n, BPF_LRU_FREE);
	map_spin_unlock(&c->global.lock);
}

static int linux_common_dump(struct lru_htab *h, FILE *f,
			     enum map_dump_format fmt)
{
	struct linux_common_lru *c = linux_common_state(h);
	char prefix[32];
	bpf_lru_dump_begin(f, fmt, "lru/linux_common: target_free %u, scan "
			   "limit %u, newest first", c->target_free,
			   c->global.nr_scans);
	bpf_lru_list_dump(h, f, fmt, "", &c->global);
	for (unsigned cpu = 0; cpu < c->ncpus; cpu++) {
		struct local_list *loc = &c->local[cpu];
		snprintf(prefix, sizeof(prefix), "cpu%u ", cpu);
		if (fmt == MAP_DUMP_TEXT)
			fprintf(f, "cpu%u: next_steal %u\n", cpu,
				loc->next_steal);
		bpf_lru_dump_named(h, f, fmt, prefix, "local free", &loc->free,
				   NULL);
		bpf_lru_dump_named(h, f, fmt, prefix, "pending", &loc->pending,
				   NULL);
	}
	lru_dump_end(f, fmt);
	return 0;
}

static const struct lru_policy linux_common_policy = {
	.init = linux_common_init,
	.fini = linux_common_fini,
	.pop_free = linux_common_pop_free,
	.push_free = linux_common_push_free,
	.dump = linux_common_dump,
};

static int linux_common_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&linux_common_policy, attr, out);
}

const struct map_ops lru_linux_common_ops = {
	.name = "lru/linux_common",
	.description = "kernel-faithful BPF_MAP_TYPE_LRU_HASH: global active/"
		       "inactive/free lists, per-cpu local free and pending "
		       "lists, batch refills, stealing",
	LRU_HTAB_MAP_OPS,
	.faithful = 1,
	.evicts_early = 1,
	.models = "5.10 6.1 6.12 6.18",
	.create = linux_common_create,
};
