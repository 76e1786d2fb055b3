/* SPDX-License-Identifier: MIT */
/*
 * bpf_lru.c: see bpf_lru.h.  Written from the behaviour of the kernel's
 * kernel/bpf/bpf_lru_list.c (6.18): every walk goes in the kernel's
 * direction, stops where the kernel's stops and counts what the kernel's
 * counts, since which key an update evicts depends on all of it.
 */
#include "maps/lru/core/bpf_lru.h"
#include "maps/lru/core/lru_dump.h"

#include <stdarg.h>
#include <stdio.h>

void bpf_lru_list_init(struct bpf_lru_list *l, unsigned nr_scans)
{
	map_spin_init(&l->lock);
	for (int i = 0; i < BPF_LRU_NR_LISTS; i++)
		dlist_init(&l->lists[i]);
	for (int i = 0; i < BPF_LRU_NR_COUNTED; i++)
		l->counts[i] = 0;
	l->next_inactive_rotation = &l->lists[BPF_LRU_INACTIVE];
	l->nr_scans = nr_scans;
}

void bpf_lru_list_add_free(struct bpf_lru_list *l, struct lru_node *n)
{
	bpf_lru_set_type(n, BPF_LRU_FREE);
	lru_node_clear_ref(n);
	dlist_add(&n->link, &l->lists[BPF_LRU_FREE]);
}

static void bpf_lru_list_count_in(struct bpf_lru_list *l, uint8_t type)
{
	if (type < BPF_LRU_NR_COUNTED)
		l->counts[type]++;
}

static void bpf_lru_list_count_out(struct bpf_lru_list *l, uint8_t type)
{
	if (type < BPF_LRU_NR_COUNTED)
		l->counts[type]--;
}

/* n leaves its place: if the hand is on it, the hand steps to the next
 * newer node (or the inactive head). */
static void bpf_lru_list_step_hand_off(struct bpf_lru_list *l,
				       struct lru_node *n)
{
	if (&n->link == l->next_inactive_rotation)
		l->next_inactive_rotation = n->link.prev;
}

void bpf_lru_list_move(struct bpf_lru_list *l, struct lru_node *n,
		       enum bpf_lru_type tgt)
{
	uint8_t type = bpf_lru_type_of(n);
	if (type != tgt) {
		bpf_lru_list_count_out(l, type);
		bpf_lru_list_count_in(l, tgt);
		bpf_lru_set_type(n, tgt);
	}
	lru_node_clear_ref(n);
	bpf_lru_list_step_hand_off(l, n);
	dlist_move(&n->link, &l->lists[tgt]);
}

void bpf_lru_list_move_in(struct bpf_lru_list *l, struct lru_node *n,
			  enum bpf_lru_type tgt)
{
	bpf_lru_list_count_in(l, tgt);
	bpf_lru_set_type(n, tgt);
	lru_node_clear_ref(n);
	dlist_move(&n->link, &l->lists[tgt]);
}

void bpf_lru_list_move_to_free(struct bpf_lru_list *l, struct lru_node *n,
			       struct dlist *free_list, uint8_t free_type)
{
	bpf_lru_list_step_hand_off(l, n);
	bpf_lru_list_count_out(l, bpf_lru_type_of(n));
	bpf_lru_set_type(n, free_type);
	dlist_move(&n->link, free_list);
}

static void bpf_lru_list_count_scanned(struct lru_htab *h, unsigned cpu)
{
	map_work_count(&lru_work(h, cpu)->nodes_scanned, 1);
}

/*
 * From the tail, at most nr_scans nodes, and never past the node that was
 * first when the walk began: a ref'd node goes back to the active head
 * (so the walk must not meet it again), the others to the inactive head.
 */
static void bpf_lru_list_rotate_active(struct lru_htab *h, unsigned cpu,
				       struct bpf_lru_list *l)
{
	struct dlist *active = &l->lists[BPF_LRU_ACTIVE];
	struct dlist *first = active->next, *p, *older;
	unsigned i = 0;

	for (p = active->prev; p != active; p = older) {
		struct lru_node *n = lru_node_of(p);
		older = p->prev;
		bpf_lru_list_count_scanned(h, cpu);
		bpf_lru_list_move(l, n, lru_node_is_ref(n) ? BPF_LRU_ACTIVE
							   : BPF_LRU_INACTIVE);
		if (++i == l->nr_scans || p == first)
			break;
	}
}

/*
 * From the hand toward the head, wrapping past the head to the tail, at
 * most nr_scans nodes, and once round at most (it stops on the node just
 * older than where the hand began): ref'd nodes move to the active head,
 * the others stay where they are for the next shrink.  The hand is left
 * on the next node the walk would have visited.
 */
static void bpf_lru_list_rotate_inactive(struct lru_htab *h, unsigned cpu,
					 struct bpf_lru_list *l)
{
	struct dlist *inactive = &l->lists[BPF_LRU_INACTIVE];
	struct dlist *cur, *last, *next = inactive;
	unsigned i = 0;

	if (dlist_empty(inactive))
		return;
	last = l->next_inactive_rotation->next;
	if (last == inactive)
		last = last->next;
	cur = l->next_inactive_rotation;
	while (i < l->nr_scans) {
		if (cur == inactive) { /* the head: not a node, not counted */
			cur = cur->prev;
			continue;
		}
		struct lru_node *n = lru_node_of(cur);
		next = cur->prev;
		bpf_lru_list_count_scanned(h, cpu);
		if (lru_node_is_ref(n))
			bpf_lru_list_move(l, n, BPF_LRU_ACTIVE);
		if (cur == last)
			break;
		cur = next;
		i++;
	}
	l->next_inactive_rotation = next;
}

void bpf_lru_list_rotate(struct lru_htab *h, unsigned cpu,
			 struct bpf_lru_list *l)
{
	if (l->counts[BPF_LRU_INACTIVE] < l->counts[BPF_LRU_ACTIVE])
		bpf_lru_list_rotate_active(h, cpu, l);
	bpf_lru_list_rotate_inactive(h, cpu, l);
}

/* From the inactive tail, at most nr_scans nodes visited (ref'd ones and
 * ones a concurrent update or delete holds count too). */
static unsigned bpf_lru_list_shrink_inactive(struct lru_htab *h, unsigned cpu,
					     struct bpf_lru_list *l,
					     unsigned want,
					     struct dlist *free_list,
					     uint8_t free_type)
{
	struct dlist *inactive = &l->lists[BPF_LRU_INACTIVE], *p, *newer;
	unsigned evicted = 0, i = 0;

	for (p = inactive->prev; p != inactive; p = newer) {
		struct lru_node *n = lru_node_of(p);
		newer = p->prev;
		bpf_lru_list_count_scanned(h, cpu);
		if (lru_node_is_ref(n)) {
			bpf_lru_list_move(l, n, BPF_LRU_ACTIVE);
		} else if (lru_htab_evict(h, cpu, n)) {
			bpf_lru_list_move_to_free(l, n, free_list, free_type);
			if (++evicted == want)
				break;
		}
		if (++i == l->nr_scans)
			break;
	}
	return evicted;
}

/* The oldest node of inactive (of active when inactive is empty) that
 * can be evicted, whatever its ref bit; no scan limit. */
static unsigned bpf_lru_list_force_shrink(struct lru_htab *h, unsigned cpu,
					  struct bpf_lru_list *l,
					  struct dlist *free_list,
					  uint8_t free_type)
{
	struct dlist *list = &l->lists[BPF_LRU_INACTIVE], *p;
	if (dlist_empty(list))
		list = &l->lists[BPF_LRU_ACTIVE];
	for (p = list->prev; p != list; p = p->prev) {
		struct lru_node *n = lru_node_of(p);
		bpf_lru_list_count_scanned(h, cpu);
		if (lru_htab_evict(h, cpu, n)) {
			bpf_lru_list_move_to_free(l, n, free_list, free_type);
			return 1;
		}
	}
	return 0;
}

unsigned bpf_lru_list_shrink(struct lru_htab *h, unsigned cpu,
			     struct bpf_lru_list *l, unsigned want,
			     struct dlist *free_list, uint8_t free_type)
{
	unsigned evicted = bpf_lru_list_shrink_inactive(h, cpu, l, want,
							free_list, free_type);
	if (evicted)
		return evicted;
	return bpf_lru_list_force_shrink(h, cpu, l, free_list, free_type);
}

/* --- dumps ---------------------------------------------------------------- */

void bpf_lru_dump_begin(FILE *f, enum map_dump_format fmt,
			const char *fmt_title, ...)
{
	char title[160];
	va_list ap;
	va_start(ap, fmt_title);
	vsnprintf(title, sizeof(title), fmt_title, ap);
	va_end(ap);
	lru_dump_begin(f, fmt, title);
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "%s\n", title);
}

void bpf_lru_dump_named(struct lru_htab *h, FILE *f, enum map_dump_format fmt,
			const char *prefix, const char *what,
			const struct dlist *head, const struct dlist *hand)
{
	char name[64], id[64];
	snprintf(name, sizeof(name), "%s%s", prefix, what);
	snprintf(id, sizeof(id), "%s", name);
	for (char *c = id; *c; c++)
		if (*c == ' ')
			*c = '_';
	lru_dump_list(h, f, fmt, id, name, head, hand);
}

void bpf_lru_list_dump(struct lru_htab *h, FILE *f, enum map_dump_format fmt,
		       const char *prefix, const struct bpf_lru_list *l)
{
	bpf_lru_dump_named(h, f, fmt, prefix, "active",
			   &l->lists[BPF_LRU_ACTIVE], NULL);
	bpf_lru_dump_named(h, f, fmt, prefix, "inactive",
			   &l->lists[BPF_LRU_INACTIVE],
			   l->next_inactive_rotation);
	bpf_lru_dump_named(h, f, fmt, prefix, "free",
			   &l->lists[BPF_LRU_FREE], NULL);
}
