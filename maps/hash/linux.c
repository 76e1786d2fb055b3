/* SPDX-License-Identifier: MIT */
/*
 * hash/linux: the Linux kernel's BPF_MAP_TYPE_HASH (kernel/bpf/hashtab.c,
 * 6.18), reimplemented from its documented and observable behaviour.
 *
 * Shape: the hash core of maps/tables/htab.h (buckets, nulls chains,
 * the locked update protocol).  struct hash_linux is the kernel's struct
 * bpf_htab; each element, struct hash_linux_elem, is its struct htab_elem:
 *
 *   [free-list link | rcu_head][htab_node: chain, hash][key][value]
 *
 * Two ways to own elements, as the kernel has:
 *
 *  - preallocated (the default).  max_entries + ncpus elements are
 *    allocated at create.  max_entries sit in a per-cpu free list
 *    (maps/base/pcpu_freelist.h); each cpu slot keeps one spare "extra"
 *    element.  An insert pops the free list (empty: -E2BIG).  A replace
 *    fills the slot's extra element, links it at the chain head, unlinks the
 *    old element and keeps the old one as the slot's new extra.  A delete
 *    pushes the element on the caller's free list.  Elements are reused AT
 *    ONCE, without waiting for readers: a BPF-program-style reader that
 *    holds a value pointer (map_ops.lookup) may see it change under it, or
 *    turn into another key's value, exactly as in the kernel.  Chains end in
 *    nulls markers so a lookup that is derailed by such a reuse restarts.
 *    The memory itself stays valid until destroy.
 *
 *  - BPF_F_NO_PREALLOC.  Each insert or replace allocates a new element
 *    (jemalloc); an atomic count caps live elements at max_entries (-E2BIG
 *    on a new key beyond it; a replace is allowed even when full).  Removed
 *    elements are freed after an RCU grace period (call_rcu), so readers
 *    never see them reused.  (The kernel's bpf_mem_alloc reuses freed
 *    objects at once; maplab waits, which is stricter: docs/design-notes.md.)
 *    An element the kernel's allocator cannot kmalloc (over 4 MiB with its
 *    header and link: maps/base/attr.h) is -ENOMEM on every insert or
 *    replace, as in the kernel, although create accepted the map.
 *
 * Invariants:
 *  - A key is in at most one chain, at most once (inserts check under the
 *    bucket lock).
 *  - bucket.lock guards its chain's links and the choice between insert and
 *    replace.  Only the owner of a cpu slot touches extra_elems[slot].
 *  - Live elements (prealloc) = max_entries - free-list length; extra
 *    elements are never linked.
 *
 * Order, observable through get_next_key: bucket by bucket, each chain
 * newest (last inserted or replaced) first.  With BPF_F_ZERO_SEED that is
 * the kernel's order exactly.
 */
#include "maps/base/attr.h"
#include "maps/base/cpu.h"
#include "maps/base/area.h"
#include "maps/tables/htab.h"
#include "maps/base/map.h"
#include "maps/base/elem_pool.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's struct htab_elem. */
struct hash_linux_elem {
	union {
		struct pcpu_freelist_node free_link; /* prealloc, while free */
		struct rcu_head rcu;                 /* no_prealloc, while dying */
	};
	struct htab_node node; /* last: key and value follow */
};
/* A free-list pop is cast to its element: the link must come first. */
_Static_assert(offsetof(struct hash_linux_elem, free_link) == 0,
	       "pcpu_freelist_node must sit at offset 0 of an element");

/* The kernel's struct bpf_htab. */
struct hash_linux {
	struct map map;
	struct htab_table table;
	size_t elem_size;
	bool prealloc;
	/* no_prealloc: the kernel could kmalloc one element (else -ENOMEM) */
	bool elem_fits;

	/* prealloc: the free list and each slot's extra (elem_pool.h) */
	struct elem_pool pool;

	/* no_prealloc */
	atomic_uint count;
};

static struct hash_linux *hash_linux_of(struct map *m)
{
	return (struct hash_linux *)m;
}

static struct hash_linux_elem *elem_of_node(struct htab_node *n)
{
	return (struct hash_linux_elem *)((char *)n -
					  offsetof(struct hash_linux_elem, node));
}

/* --- element ownership ---------------------------------------------------- */

static int prealloc_init(struct hash_linux *h)
{
	return elem_pool_init(&h->pool, h->map.attr.max_entries,
			      h->map.attr.ncpus, h->elem_size,
			      offsetof(struct hash_linux_elem, free_link));
}

/*
 * An element for a new or replacing entry; bucket lock held.  For a replace
 * (old != NULL) with prealloc it is the slot's extra element, and old
 * becomes the new extra.  NULL sets *err to -E2BIG or -ENOMEM.
 */
static struct hash_linux_elem *alloc_elem(struct hash_linux *h,
					  struct hash_linux_elem *old, int *err)
{
	if (h->prealloc) {
		if (old)
			return elem_pool_swap_extra(&h->pool, map_this_cpu(),
						    old);
		*err = -E2BIG;
		return elem_pool_pop(&h->pool, map_this_cpu());
	}
	if (!old) {
		unsigned n = atomic_fetch_add_explicit(&h->count, 1,
						       memory_order_relaxed);
		if (n >= h->map.attr.max_entries) {
			atomic_fetch_sub_explicit(&h->count, 1,
						  memory_order_relaxed);
			*err = -E2BIG;
			return NULL;
		}
	}
	/* The kernel's bpf_mem_cache_alloc fails for an element over
	 * KMALLOC_MAX_SIZE: after the flags and the E2BIG check, as there. */
	struct hash_linux_elem *e = h->elem_fits ? malloc(h->elem_size) : NULL;
	if (!e && !old)
		atomic_fetch_sub_explicit(&h->count, 1, memory_order_relaxed);
	*err = -ENOMEM;
	return e;
}

static void free_elem_rcu(struct rcu_head *head)
{
	free((char *)head - offsetof(struct hash_linux_elem, rcu));
}

/* An element no longer linked (delete); no lock held. */
static void free_elem(struct hash_linux *h, struct hash_linux_elem *e)
{
	if (h->prealloc) {
		elem_pool_push(&h->pool, map_this_cpu(), e);
		return;
	}
	atomic_fetch_sub_explicit(&h->count, 1, memory_order_relaxed);
	map_rcu_call(&e->rcu, free_elem_rcu);
}

/* A replaced element (no_prealloc only: prealloc kept it as an extra). */
static void retire_replaced(struct hash_linux *h, struct hash_linux_elem *old)
{
	if (!h->prealloc && old)
		map_rcu_call(&old->rcu, free_elem_rcu);
}

/* --- map_ops --------------------------------------------------------------- */

static void hash_linux_free_node(struct htab_node *n, void *arg)
{
	(void)arg;
	free(elem_of_node(n));
}

/* The kernel's htab_map_free. */
static void hash_linux_destroy(struct map *m)
{
	struct hash_linux *h = hash_linux_of(m);

	if (h->table.buckets && !h->prealloc) {
		htab_for_each_node(&h->table, hash_linux_free_node, NULL);
		map_rcu_barrier(); /* the replaced and deleted ones */
	}
	if (h->prealloc)
		elem_pool_destroy(&h->pool);
	htab_table_destroy(&h->table);
	free(h);
}

/* The kernel's htab_map_alloc, after htab_map_alloc_check (attr.c). */
static int hash_linux_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;

	struct hash_linux *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->map.attr = *attr;
	h->prealloc = !(attr->flags & MAP_F_NO_PREALLOC);
	h->elem_size = htab_elem_size(offsetof(struct hash_linux_elem, node),
				      attr->key_size, attr->value_size);
	/* The kernel's element: struct htab_elem, then the key and the value,
	 * each rounded up to 8 (htab_map_alloc); bpf_mem_alloc_init adds its
	 * link to that size. */
	h->elem_fits = map_bpf_mem_alloc_fits(
		MAP_HTAB_ELEM_HEADER + (((uint64_t)attr->key_size + 7) & ~7ULL) +
		(((uint64_t)attr->value_size + 7) & ~7ULL));
	atomic_init(&h->count, 0);

	err = htab_table_init(&h->table, attr->max_entries, attr->key_size,
			      attr->flags & MAP_F_ZERO_SEED);
	if (!err && h->prealloc)
		err = prealloc_init(h);
	if (err) {
		hash_linux_destroy(&h->map);
		return err;
	}
	*out = &h->map;
	return 0;
}

/* The kernel's htab_map_lookup_elem; RCU read section held by the caller. */
static void *hash_linux_lookup(struct map *m, const void *key)
{
	struct hash_linux *h = hash_linux_of(m);
	struct htab_node *n =
		htab_lookup_rcu(&h->table, htab_hash(&h->table, key), key);
	return n ? htab_node_value(n, m->attr.key_size) : NULL;
}

static int hash_linux_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, hash_linux_lookup, key, value);
}

/* The kernel's htab_map_update_elem: alloc_elem is its alloc_htab_elem. */
static int hash_linux_update(struct map *m, const void *key, const void *value,
			     uint64_t flags)
{
	struct hash_linux *h = hash_linux_of(m);
	struct htab_update u;
	int err = map_update_flags_valid(flags);

	if (!err)
		err = htab_update_begin(&h->table, key, flags, &u);
	if (err)
		return err;
	struct hash_linux_elem *old = u.old ? elem_of_node(u.old) : NULL;
	struct hash_linux_elem *e = alloc_elem(h, old, &err);
	if (!e) {
		htab_update_abort(&u);
		return err;
	}
	htab_update_commit(&h->table, &u, &e->node, key, value,
			   m->attr.value_size);
	retire_replaced(h, old);
	return 0;
}

/* The kernel's htab_map_delete_elem: free_elem is its free_htab_elem. */
static int hash_linux_delete(struct map *m, const void *key)
{
	struct hash_linux *h = hash_linux_of(m);
	struct htab_node *n = htab_delete_key(&h->table, key);

	if (!n)
		return -ENOENT;
	free_elem(h, elem_of_node(n));
	return 0;
}

/* The kernel's htab_map_get_next_key. */
static int hash_linux_get_next_key(struct map *m, const void *key, void *next)
{
	map_rcu_read_lock();
	int err = htab_next_key_rcu(&hash_linux_of(m)->table, key, next);
	map_rcu_read_unlock();
	return err;
}

const struct map_ops hash_linux_ops = {
	.name = "hash/linux",
	.description = "kernel-faithful BPF_MAP_TYPE_HASH: per-bucket locks, "
		       "RCU readers, prealloc per-cpu free lists",
	.type = MAP_TYPE_HASH,
	.faithful = 1,
	.models = "5.10 6.1 6.12 6.18",
	.create = hash_linux_create,
	.destroy = hash_linux_destroy,
	.lookup = hash_linux_lookup,
	.lookup_copy = hash_linux_lookup_copy,
	.update = hash_linux_update,
	.delete = hash_linux_delete,
	.get_next_key = hash_linux_get_next_key,
};
