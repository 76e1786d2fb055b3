/* SPDX-License-Identifier: MIT */
/*
 * lru_htab.c: the LRU hash table that every LRU design but lru/assoc is:
 * preallocated elements in one array, a table that finds them by key
 * (lru_table.h: the kernel's chains or tagged buckets, picked once at
 * create), and the kernel's order of work in an update, driving the
 * design's eviction policy (lru_htab.h draws the element and the order).
 *
 * Invariants:
 *  - exactly n_elems elements (max_entries, after the policy's capacity),
 *    no spares, all on the policy's lists from init on: each element is
 *    in the table under one key, or free, or in flight inside one update
 *    or delete (popped and not yet linked, or unlinked and not yet pushed
 *    back to the policy);
 *  - an element leaves the table only under its bucket's lock: through
 *    update_commit (the replaced one), delete_key, or unlink_node in
 *    lru_htab_evict, which fails on an element that is no longer there;
 *  - an element's hash is stored by the policy's pop_free before the
 *    table links it and before another slot can reach it on the policy's
 *    lists, so an eviction that meets it looks in the right bucket.
 *
 * Locks: the table's bucket locks guard the chains (or buckets) and the
 * choice between insert and replace; the policy's locks guard its lists
 * and each element's place on them; nothing here is locked by this file.
 * Lock order: a policy's lock, then a bucket lock, never the reverse, so
 * pop_free (which may evict) and push_free run with no bucket lock held.
 * Readers take no lock (RCU, or the tagged table's seqlock retries); the
 * ref bit is a racy store.  The work counters are per cpu slot, written
 * only by that slot's thread.
 */
#include "maps/lru/core/lru_htab.h"
#include "maps/base/area.h"
#include "maps/base/attr.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct lru_elem {
	struct lru_node lru;
	struct htab_node node; /* last: key and value follow */
};

static struct lru_elem *lru_htab_elem_of_node(const struct lru_node *n)
{
	return (struct lru_elem *)((char *)n - offsetof(struct lru_elem, lru));
}

static struct lru_elem *lru_htab_elem_of_hnode(const struct htab_node *n)
{
	return (struct lru_elem *)((char *)n - offsetof(struct lru_elem, node));
}

struct lru_node *lru_htab_node(struct lru_htab *h, uint32_t i)
{
	return &((struct lru_elem *)(h->elems + (size_t)i * h->elem_size))->lru;
}

struct htab_node *lru_htab_hnode(struct lru_node *n)
{
	return &lru_htab_elem_of_node(n)->node;
}

const void *lru_node_key(const struct lru_node *n)
{
	return htab_node_key(&lru_htab_elem_of_node(n)->node);
}

bool lru_htab_evict(struct lru_htab *h, unsigned cpu, struct lru_node *n)
{
	struct map_work_slot *w = lru_work(h, cpu);
	map_work_count(&w->locks, 1);
	if (!h->table_ops->unlink_node(&h->table, lru_htab_hnode(n)))
		return false;
	map_work_count(&w->evictions, 1);
	if (h->on_evict)
		h->on_evict(h->on_evict_ctx, lru_node_key(n));
	return true;
}

struct lru_node *lru_hand_sweep(struct lru_htab *h, unsigned cpu,
				struct dlist *head, struct dlist *start,
				uint64_t keys, struct dlist **at)
{
	struct map_work_slot *w = lru_work(h, cpu);
	uint64_t honour_bits = 2 * keys, limit = honour_bits + keys;
	struct dlist *p = start;

	map_work_count(&w->refills, 1);
	for (uint64_t seen = 0; seen < limit && p != head;
	     seen++, p = lru_step_wrapping(head, p)) {
		struct lru_node *n = lru_node_of(p);
		map_work_count(&w->nodes_scanned, 1);
		if (seen < honour_bits && lru_node_is_ref(n)) {
			lru_node_clear_ref(n);
			continue;
		}
		if (lru_htab_evict(h, cpu, n)) {
			*at = p;
			return n;
		}
	}
	*at = p;
	return NULL;
}

void lru_htab_watch_evictions(struct map *m,
			      void (*fn)(void *ctx, const void *key), void *ctx)
{
	struct lru_htab *h = lru_htab_of(m);
	h->on_evict_ctx = ctx;
	h->on_evict = fn;
}

size_t lru_htab_memory(const struct map *m)
{
	const struct lru_htab *h = (const struct lru_htab *)m;
	size_t bytes = sizeof(*h) + h->table_ops->bytes(&h->table) +
		       (size_t)h->n_elems * h->elem_size +
		       (size_t)m->attr.ncpus * sizeof(*h->work);
	if (h->policy->state_bytes)
		bytes += h->policy->state_bytes(h);
	return bytes;
}

/* --- create and destroy -------------------------------------------------------- */

void lru_htab_destroy(struct map *m)
{
	struct lru_htab *h = lru_htab_of(m);
	if (h->policy_state && h->policy->fini)
		h->policy->fini(h);
	free(h->work);
	free(h->elems);
	h->table_ops->destroy(&h->table);
	free(h);
}

static int lru_htab_make_elements(struct lru_htab *h)
{
	const struct map_attr *a = &h->map.attr;
	h->elem_size = htab_elem_size(offsetof(struct lru_elem, node),
				      a->key_size, a->value_size);
	h->n_elems = a->max_entries;
	h->elems = map_area_alloc_array(h->n_elems, h->elem_size, 64);
	h->work = map_area_alloc_array(a->ncpus, sizeof(*h->work), 64);
	if (!h->elems || !h->work)
		return -ENOMEM;
	/* Zeroed, as the kernel's elements are: a free element that never
	 * held a key shows zeroes in a dump, not old heap bytes. */
	memset(h->elems, 0, (size_t)h->n_elems * h->elem_size);
	memset(h->work, 0, a->ncpus * sizeof(*h->work));
	for (uint32_t i = 0; i < h->n_elems; i++) {
		struct lru_node *n = lru_htab_node(h, i);
		n->index = i;
		dlist_init(&n->link);
	}
	return 0;
}

static int lru_htab_make_table(struct lru_htab *h)
{
	return h->table_ops->init(&h->table, &h->map.attr, h->elems,
				  h->elem_size, offsetof(struct lru_elem, node),
				  h->n_elems);
}

int lru_htab_create(const struct lru_policy *policy,
		    const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;
	if ((attr->flags & MAP_F_NO_COMMON_LRU) && !policy->per_cpu_mode)
		return -EINVAL;
	struct lru_htab *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->map.attr = *attr;
	h->policy = policy;
	h->table_ops = policy->tagged_table ? &lru_table_tagged
					    : &lru_table_chains;
	if (policy->capacity) {
		/* The kernel sizes the table after rounding, and checks that
		 * size again (a rounded-up max_entries can be E2BIG). */
		h->map.attr.max_entries = policy->capacity(attr);
		err = map_check_hash_attr(&h->map.attr);
		if (err) {
			free(h);
			return err;
		}
	}
	err = lru_htab_make_elements(h);
	if (!err)
		err = lru_htab_make_table(h);
	if (!err)
		err = policy->init(h);
	if (err) {
		lru_htab_destroy(&h->map);
		return err;
	}
	*out = &h->map;
	return 0;
}

/* --- the operations --------------------------------------------------------------- */

/* RCU read section held.  The element of key, or NULL. */
static struct lru_node *lru_htab_find(struct lru_htab *h, const void *key)
{
	const struct lru_table_ops *t = h->table_ops;
	uint32_t hash = t->hash(&h->table, key);
	struct htab_node *n = t->lookup(&h->table, hash, key);
	return n ? &lru_htab_elem_of_hnode(n)->lru : NULL;
}

void *lru_htab_lookup(struct map *m, const void *key)
{
	struct lru_htab *h = lru_htab_of(m);
	struct lru_node *n = lru_htab_find(h, key);
	if (!n)
		return NULL;
	if (h->policy->referenced)
		h->policy->referenced(h, map_this_cpu(), n);
	else
		lru_node_set_ref(n);
	return htab_node_value(lru_htab_hnode(n), m->attr.key_size);
}

static void *lru_htab_find_value(struct map *m, const void *key)
{
	struct lru_node *n = lru_htab_find(lru_htab_of(m), key);
	return n ? htab_node_value(lru_htab_hnode(n), m->attr.key_size) : NULL;
}

int lru_htab_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, lru_htab_find_value, key, value);
}

int lru_htab_update(struct map *m, const void *key, const void *value,
		    uint64_t flags)
{
	struct lru_htab *h = lru_htab_of(m);
	const struct lru_table_ops *t = h->table_ops;
	unsigned cpu = map_this_cpu();
	union lru_table_update u;
	struct htab_node *old_node;
	int err = map_update_flags_valid(flags);
	if (err)
		return err;

	/* Pop first, with no bucket lock held: it may evict, and evicting
	 * takes bucket locks (lock order: policy, then bucket). */
	uint32_t hash = t->update_hash(&h->table, key);
	if (h->policy->flags_before_pop && flags != MAP_ANY) {
		map_rcu_read_lock();
		bool present = t->lookup(&h->table, hash, key) != NULL;
		map_rcu_read_unlock();
		err = map_update_flags_check(present, flags);
		if (err)
			return err;
	}
	struct lru_node *n = h->policy->pop_free(h, cpu, hash);
	if (!n)
		return -ENOMEM;
	map_work_count(&lru_work(h, cpu)->locks, 1);
	err = t->update_begin(&h->table, key, hash, flags, &u, &old_node);
	if (err) {
		h->policy->push_free(h, cpu, n);
		return err;
	}
	/* A replace marks the new element before it is linked, under the
	 * bucket lock as the kernel does, so no other cpu ever sees it
	 * unmarked (a steal takes unmarked pending elements first). */
	if (old_node && !h->policy->replaced)
		lru_node_set_ref(n);
	t->update_commit(&h->table, &u, lru_htab_hnode(n), key, value,
			 m->attr.value_size);
	if (old_node) {
		struct lru_node *old = &lru_htab_elem_of_hnode(old_node)->lru;
		if (h->policy->replaced)
			h->policy->replaced(h, cpu, n, old);
		h->policy->push_free(h, cpu, old);
	}
	return 0;
}

int lru_htab_delete(struct map *m, const void *key)
{
	struct lru_htab *h = lru_htab_of(m);
	unsigned cpu = map_this_cpu();
	map_work_count(&lru_work(h, cpu)->locks, 1);
	struct htab_node *n = h->table_ops->delete_key(&h->table, key);
	if (!n)
		return -ENOENT;
	h->policy->push_free(h, cpu, &lru_htab_elem_of_hnode(n)->lru);
	return 0;
}

int lru_htab_get_next_key(struct map *m, const void *key, void *next)
{
	struct lru_htab *h = lru_htab_of(m);
	map_rcu_read_lock();
	int err = h->table_ops->next_key_rcu(&h->table, key, next);
	map_rcu_read_unlock();
	return err;
}

void lru_htab_work(const struct map *m, int cpu, struct map_work *w)
{
	const struct lru_htab *h = (const struct lru_htab *)m;
	map_work_sum(h->work, m->attr.ncpus, cpu, w);
}
