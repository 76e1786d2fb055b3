/* SPDX-License-Identifier: MIT */
/*
 * dlist.h: circular doubly-linked lists with a sentinel head, the shape of
 * the kernel's list_head, which the LRU designs need (the kernel's own LRU
 * is written in terms of list_add, list_move and walks from the tail, and a
 * faithful copy must make the same moves in the same order).
 *
 *   head <-> first <-> ... <-> last <-> head      (empty: head <-> head)
 *
 * "Add" puts a node at the head (the newest end); "tail" is the oldest.
 * No locking here: whoever owns a list holds its lock.
 */
#ifndef MAPLAB_DLIST_H
#define MAPLAB_DLIST_H

#include <stdbool.h>
#include <stddef.h>

struct dlist {
	struct dlist *prev, *next;
};

static inline void dlist_init(struct dlist *head)
{
	head->prev = head->next = head;
}

static inline bool dlist_empty(const struct dlist *head)
{
	return head->next == head;
}

static inline void dlist_link_between(struct dlist *n, struct dlist *prev,
				      struct dlist *next)
{
	n->prev = prev;
	n->next = next;
	prev->next = n;
	next->prev = n;
}

/* n at the head (newest end) of the list. */
static inline void dlist_add(struct dlist *n, struct dlist *head)
{
	dlist_link_between(n, head, head->next);
}

/* n at the tail (oldest end) of the list. */
static inline void dlist_add_tail(struct dlist *n, struct dlist *head)
{
	dlist_link_between(n, head->prev, head);
}

/* n just before `at` (between at->prev and at). */
static inline void dlist_add_before(struct dlist *n, struct dlist *at)
{
	dlist_link_between(n, at->prev, at);
}

static inline void dlist_del(struct dlist *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

/* Off its list and onto the head of `head` (the kernel's list_move). */
static inline void dlist_move(struct dlist *n, struct dlist *head)
{
	dlist_del(n);
	dlist_add(n, head);
}

static inline void dlist_move_tail(struct dlist *n, struct dlist *head)
{
	dlist_del(n);
	dlist_add_tail(n, head);
}

static inline struct dlist *dlist_first(const struct dlist *head)
{
	return dlist_empty(head) ? NULL : head->next;
}

static inline struct dlist *dlist_last(const struct dlist *head)
{
	return dlist_empty(head) ? NULL : head->prev;
}

#define dlist_entry(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif /* MAPLAB_DLIST_H */
