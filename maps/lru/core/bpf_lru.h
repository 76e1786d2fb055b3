/* SPDX-License-Identifier: MIT */
/*
 * bpf_lru.h: the kernel's LRU list (kernel/bpf/bpf_lru_list.c, 6.18), the
 * part that its two modes share: one `struct bpf_lru_list` of active,
 * inactive and free nodes, the moves between them, the rotations and the
 * shrink.  lru/linux_common has one such list for the whole map (plus
 * per-cpu local lists of its own); lru/linux_percpu has one per cpu.
 *
 *   active:   head -> newest ........... oldest
 *               rotate_active (only when the inactive list is the shorter):
 *               from the tail, ref'd nodes back to the active head, the
 *               others to the inactive head
 *   inactive: head -> newest ... [hand] ... oldest
 *               rotate_inactive: from the hand toward the head, wrapping
 *               past it to the tail; ref'd nodes to the active head, the
 *               others stay.  shrink: from the tail; ref'd nodes to the
 *               active head, the others evicted onto a free list
 *   free:     head -> ...                 (popped from the head)
 *
 * Every move puts the node at the head of its new list (the kernel's
 * list_move) and clears its ref bit, except a move onto a free list by a
 * shrink (an evicted node) or a refill (a node off the global free list
 * to a cpu's local one): the kernel's __bpf_lru_node_move_to_free leaves
 * the bit, and the pop clears it.  The hand (the kernel's next_inactive_rotation)
 * always points at a node of the inactive list or at its head: a move of
 * the node under it steps it to that node's predecessor (the next newer
 * node).
 *
 * Everything here runs with the list's lock held; an eviction takes a
 * bucket lock under it (lru_htab_evict: lock order list, then bucket).
 * Node types change only under the lock of the list the node is on (or
 * leaves), but lru/linux_common's push-free reads a node's type before it
 * knows which lock to take, so types are read and written with relaxed
 * atomics (the kernel's READ_ONCE).
 */
#ifndef MAPLAB_BPF_LRU_H
#define MAPLAB_BPF_LRU_H

#include "maps/base/lock.h"
#include "maps/lru/core/lru_htab.h"

/* lru_node.type: where a node is (the kernel's enum bpf_lru_list_type). */
enum bpf_lru_type {
	BPF_LRU_ACTIVE,        /* a bpf_lru_list's lists[] ... */
	BPF_LRU_INACTIVE,
	BPF_LRU_FREE,
	BPF_LRU_LOCAL_FREE,    /* a cpu's local lists (lru/linux_common) */
	BPF_LRU_LOCAL_PENDING,
};

enum {
	BPF_LRU_NR_LISTS = BPF_LRU_FREE + 1,
	BPF_LRU_NR_COUNTED = BPF_LRU_FREE, /* active and inactive are counted */
};

struct bpf_lru_list {
	struct map_spinlock lock;
	struct dlist lists[BPF_LRU_NR_LISTS];         /* by enum bpf_lru_type */
	uint32_t counts[BPF_LRU_NR_COUNTED];
	struct dlist *next_inactive_rotation;          /* the hand */
	unsigned nr_scans;   /* most nodes one rotation or shrink visits */
} __attribute__((aligned(64)));

static inline uint8_t bpf_lru_type_of(const struct lru_node *n)
{
	return __atomic_load_n(&n->type, __ATOMIC_RELAXED);
}

static inline void bpf_lru_set_type(struct lru_node *n, uint8_t type)
{
	__atomic_store_n(&n->type, type, __ATOMIC_RELAXED);
}

/* Empty lists, the hand at the inactive head. */
void bpf_lru_list_init(struct bpf_lru_list *l, unsigned nr_scans);

/* n, an element never used, at the head of l's free list (the kernel's
 * populate). */
void bpf_lru_list_add_free(struct bpf_lru_list *l, struct lru_node *n);

/* n (on one of l's lists) to the head of l's list tgt, ref cleared: the
 * kernel's __bpf_lru_node_move. */
void bpf_lru_list_move(struct bpf_lru_list *l, struct lru_node *n,
		       enum bpf_lru_type tgt);

/* n, from a cpu's local list, to the head of l's active or inactive list,
 * ref cleared: the kernel's __bpf_lru_node_move_in. */
void bpf_lru_list_move_in(struct bpf_lru_list *l, struct lru_node *n,
			  enum bpf_lru_type tgt);

/* n, off one of l's lists (active or inactive by a shrink, free by a
 * refill), to the head of free_list as type free_type, ref left as it is:
 * the kernel's __bpf_lru_node_move_to_free. */
void bpf_lru_list_move_to_free(struct bpf_lru_list *l, struct lru_node *n,
			       struct dlist *free_list, uint8_t free_type);

/*
 * Rotate the active list if the inactive one is the shorter, then always
 * the inactive one, from its hand (the kernel's __bpf_lru_list_rotate).
 * Counts every node visited on slot cpu.
 */
void bpf_lru_list_rotate(struct lru_htab *h, unsigned cpu,
			 struct bpf_lru_list *l);

/*
 * Evict up to `want` unreferenced nodes from the inactive tail (at most
 * nr_scans visited, ref'd ones moved to active) onto free_list as
 * free_type; if that evicted none, evict exactly one ignoring ref bits,
 * the oldest of inactive (of active if inactive is empty) whose eviction
 * succeeds (the kernel's __bpf_lru_list_shrink).  Returns how many were
 * evicted.
 */
unsigned bpf_lru_list_shrink(struct lru_htab *h, unsigned cpu,
			     struct bpf_lru_list *l, unsigned want,
			     struct dlist *free_list, uint8_t free_type);

/* A dump's opening (lru_dump_begin) with its title, which a text dump
 * also prints as its first line. */
void bpf_lru_dump_begin(FILE *f, enum map_dump_format fmt,
			const char *fmt_title, ...)
	__attribute__((format(printf, 3, 4)));

/* Dump l's active, inactive (with the hand) and free lists; `prefix`
 * starts each list's dot id and name ("" or "cpu1 "). */
void bpf_lru_list_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt,
		       const char *prefix, const struct bpf_lru_list *l);

/*
 * Dump one list whose dot id and name are "<prefix><what>" (spaces in
 * the id become '_').
 */
void bpf_lru_dump_named(struct lru_htab *h, FILE *f, enum map_dump_format fmt,
			const char *prefix, const char *what,
			const struct dlist *head, const struct dlist *hand);

#endif /* MAPLAB_BPF_LRU_H */
