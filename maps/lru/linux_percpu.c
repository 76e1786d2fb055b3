/* SPDX-License-Identifier: MIT */
/*
 * lru/linux_percpu: the kernel's BPF_MAP_TYPE_LRU_HASH with
 * BPF_F_NO_COMMON_LRU (the per-CPU LRU of kernel/bpf/bpf_lru_list.c,
 * 6.18): each cpu owns max_entries / ncpus elements on a list of its own
 * (bpf_lru.h: active | inactive [hand] | free), and a key inserted on cpu
 * c takes one of c's elements and can only be evicted by c's inserts.
 *
 * max_entries is rounded up to a multiple of ncpus (down, if rounding up
 * would overflow 32 bits), so each cpu's share is equal; the elements are
 * dealt out cpu by cpu in index order, each added at the head of its free
 * list.
 *
 * pop_free on cpu c, under c's lock: rotate c's lists (scan limit 4); if
 * c's free list is empty, shrink c's inactive list into it (up to 4
 * nodes, a force shrink of one if that evicted none); the first free node
 * goes straight to the head of c's inactive list, ref bit clear.  There is
 * no pending stage and no stealing: a cpu whose share is full evicts its
 * own keys though other shares have room.  push_free returns a node to its
 * owner's free list, whichever cpu frees it.
 *
 * Lock order: a cpu's list lock, then a bucket lock (lru_htab_evict).  A
 * node's cpu is set once, at create.
 */
#include "maps/base/area.h"
#include "maps/lru/core/bpf_lru.h"
#include "maps/lru/core/lru_dump.h"

#include <errno.h>
#include <stdlib.h>

#define PERCPU_FREE_TARGET 4 /* the kernel's PERCPU_FREE_TARGET */
#define PERCPU_NR_SCANS 4    /* the kernel's PERCPU_NR_SCANS */

struct linux_percpu_lru {
	unsigned ncpus;
	struct bpf_lru_list lists[]; /* [ncpus] */
};

static struct linux_percpu_lru *linux_percpu_state(struct lru_htab *h)
{
	return h->policy_state;
}

/* The kernel's htab_map_alloc for BPF_F_NO_COMMON_LRU, in its 32-bit
 * arithmetic. */
static uint32_t linux_percpu_capacity(const struct map_attr *a)
{
	uint32_t up = (a->max_entries + (a->ncpus - 1)) / a->ncpus * a->ncpus;
	if (up < a->max_entries)
		return a->max_entries / a->ncpus * a->ncpus;
	return up;
}

/* The kernel's bpf_percpu_lru_populate. */
static int linux_percpu_init(struct lru_htab *h)
{
	unsigned ncpus = h->map.attr.ncpus;
	struct linux_percpu_lru *p = map_area_alloc(sizeof(*p) + ncpus *
						    sizeof(p->lists[0]), 64);
	if (!p)
		return -ENOMEM;
	p->ncpus = ncpus;
	uint32_t share = h->n_elems / ncpus;
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		struct bpf_lru_list *l = &p->lists[cpu];
		bpf_lru_list_init(l, PERCPU_NR_SCANS);
		for (uint32_t i = cpu * share; i < (cpu + 1) * share; i++) {
			struct lru_node *n = lru_htab_node(h, i);
			n->cpu = (uint16_t)cpu;
			bpf_lru_list_add_free(l, n);
		}
	}
	h->policy_state = p;
	return 0;
}

static void linux_percpu_fini(struct lru_htab *h)
{
	free(linux_percpu_state(h));
}

/* The kernel's bpf_percpu_lru_pop_free. */
static struct lru_node *linux_percpu_pop_free(struct lru_htab *h, unsigned cpu,
					      uint32_t hash)
{
	struct bpf_lru_list *l = &linux_percpu_state(h)->lists[cpu];
	struct dlist *free_list = &l->lists[BPF_LRU_FREE];
	struct lru_node *n = NULL;

	lru_lock(h, cpu, &l->lock);
	bpf_lru_list_rotate(h, cpu, l);
	if (dlist_empty(free_list)) {
		map_work_count(&lru_work(h, cpu)->refills, 1);
		bpf_lru_list_shrink(h, cpu, l, PERCPU_FREE_TARGET, free_list,
				    BPF_LRU_FREE);
	}
	if (!dlist_empty(free_list)) {
		n = lru_node_of(free_list->next);
		lru_node_set_hash(n, hash);
		bpf_lru_list_move(l, n, BPF_LRU_INACTIVE);
	}
	map_spin_unlock(&l->lock);
	return n;
}

static void linux_percpu_push_free(struct lru_htab *h, unsigned cpu,
				   struct lru_node *n)
{
	struct bpf_lru_list *owner = &linux_percpu_state(h)->lists[n->cpu];
	lru_lock(h, cpu, &owner->lock);
	bpf_lru_list_move(owner, n, BPF_LRU_FREE);
	map_spin_unlock(&owner->lock);
}

static int linux_percpu_dump(struct lru_htab *h, FILE *f,
			     enum map_dump_format fmt)
{
	struct linux_percpu_lru *p = linux_percpu_state(h);
	char prefix[32];
	bpf_lru_dump_begin(f, fmt, "lru/linux_percpu: %u cpus x %u elements, "
			   "scan limit %u, newest first", p->ncpus,
			   h->n_elems / p->ncpus, PERCPU_NR_SCANS);
	for (unsigned cpu = 0; cpu < p->ncpus; cpu++) {
		snprintf(prefix, sizeof(prefix), "cpu%u ", cpu);
		bpf_lru_list_dump(h, f, fmt, prefix, &p->lists[cpu]);
	}
	lru_dump_end(f, fmt);
	return 0;
}

static const struct lru_policy linux_percpu_policy = {
	.init = linux_percpu_init,
	.fini = linux_percpu_fini,
	.pop_free = linux_percpu_pop_free,
	.push_free = linux_percpu_push_free,
	.capacity = linux_percpu_capacity,
	.dump = linux_percpu_dump,
	.per_cpu_mode = true,
};

static int linux_percpu_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&linux_percpu_policy, attr, out);
}

const struct map_ops lru_linux_percpu_ops = {
	.name = "lru/linux_percpu",
	.description = "kernel-faithful BPF_MAP_TYPE_LRU_HASH with "
		       "BPF_F_NO_COMMON_LRU: a list per cpu, each cpu its "
		       "share of the elements, no stealing",
	LRU_HTAB_MAP_OPS,
	.faithful = 1,
	.evicts_early = 1,
	.models = "5.10 6.1 6.12 6.18",
	.mode_flags = MAP_F_NO_COMMON_LRU,
	.create = linux_percpu_create,
};
