/* SPDX-License-Identifier: MIT */
/*
 * hash/rculfhash: BPF hash-map semantics over liburcu's lock-free,
 * auto-resizing hash table (cds_lfht; Desnoyers, Triplett, Walpole,
 * "Resizable, scalable, concurrent hash tables via relativistic
 * programming", USENIX ATC 2011, and liburcu's rculfhash.c).
 *
 * It is the lab's well-known userspace reference: every figure for a BPF
 * design can be read against it.  Not kernel-faithful.
 *
 *   cds_lfht: one split-ordered linked list of all nodes, sorted by
 *   bit-reversed hash, with "dummy" bucket nodes pointing into it:
 *
 *   bucket[0] ─► d0 ─► n ─► n ─► d2 ─► n ─► d1 ─► n ─► d3 ─► n ─► end
 *
 *   Resizing adds or removes dummy nodes; no node ever moves.
 *
 * Semantics on top, and how each is kept:
 *  - Every cds_lfht call runs inside an RCU read section (its contract).
 *  - BPF_NOEXIST: cds_lfht_add_unique refuses a duplicate atomically.
 *  - BPF_EXIST and the replace half of BPF_ANY: cds_lfht_replace swaps a
 *    new node for the one a lookup found; if that one was removed in
 *    between (-ENOENT), the update starts again, so it acts as if it ran
 *    after the delete.
 *  - max_entries: an atomic count of live nodes, raised before an insert
 *    and lowered if the insert loses; a new key beyond it is -E2BIG.
 *  - Elements are allocated on every insert and replace (as with
 *    BPF_F_NO_PREALLOC; the flag is accepted and changes nothing) and
 *    freed after a grace period: a reader never sees a node reused.
 *  - get_next_key walks the table in its split order; a missing key
 *    restarts from the first, as the kernel's hash does.
 * No locks: every update is a compare-and-swap in cds_lfht.
 */
#include "maps/base/attr.h"
#include "maps/base/jhash.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <urcu/rculfhash.h>

struct rculfhash_elem {
	struct cds_lfht_node node;
	struct rcu_head rcu;
	uint8_t data[]; /* key, padded to 8, then value */
};

struct rculfhash {
	struct map map;
	struct cds_lfht *table;
	uint32_t seed;
	uint32_t key_padded;
	atomic_uint count;
};

static struct rculfhash *rculfhash_of(struct map *m)
{
	return (struct rculfhash *)m;
}

static void *elem_value(struct rculfhash *h, struct rculfhash_elem *e)
{
	return e->data + h->key_padded;
}

static struct rculfhash_elem *elem_of(struct cds_lfht_node *n)
{
	return n ? caa_container_of(n, struct rculfhash_elem, node) : NULL;
}

struct match_key {
	const void *key;
	uint32_t size;
};

static int match(struct cds_lfht_node *node, const void *arg)
{
	const struct match_key *k = arg;
	return memcmp(elem_of(node)->data, k->key, k->size) == 0;
}

static struct rculfhash_elem *new_elem(struct rculfhash *h, const void *key,
				       const void *value)
{
	struct rculfhash_elem *e = malloc(sizeof(*e) + h->key_padded +
				     h->map.attr.value_size);
	if (!e)
		return NULL;
	cds_lfht_node_init(&e->node);
	memcpy(e->data, key, h->map.attr.key_size);
	memcpy(elem_value(h, e), value, h->map.attr.value_size);
	return e;
}

static void free_elem_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct rculfhash_elem, rcu));
}

static void retire(struct rculfhash_elem *e)
{
	map_rcu_call(&e->rcu, free_elem_rcu);
}

/* --- map_ops --------------------------------------------------------------- */

static int rculfhash_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;
	struct rculfhash *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->map.attr = *attr;
	h->key_padded = (attr->key_size + 7u) & ~7u;
	if (!(attr->flags & MAP_F_ZERO_SEED) &&
	    getrandom(&h->seed, sizeof(h->seed), 0) != sizeof(h->seed))
		h->seed = 0x9e3779b9u;
	atomic_init(&h->count, 0);
	/* Start at up to 1/4 of max_entries buckets, let it grow to one per
	 * entry (a load factor of 1, as the BPF map's). */
	unsigned long max_buckets = map_roundup_pow2(attr->max_entries);
	unsigned long init = max_buckets / 4 ? max_buckets / 4 : 1;
	h->table = cds_lfht_new_flavor(init, 1, max_buckets < 2 ? 2 : max_buckets,
				       CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
				       map_rcu_flavor_struct(), NULL);
	if (!h->table) {
		free(h);
		return -ENOMEM;
	}
	*out = &h->map;
	return 0;
}

static void destroy_table(void *table)
{
	cds_lfht_destroy(table, NULL);
}

static void rculfhash_destroy(struct map *m)
{
	struct rculfhash *h = rculfhash_of(m);
	struct cds_lfht_iter iter;
	struct cds_lfht_node *n;

	map_rcu_read_lock();
	cds_lfht_for_each(h->table, &iter, n)
		if (cds_lfht_del(h->table, n) == 0)
			retire(elem_of(n));
	map_rcu_read_unlock();
	map_rcu_barrier(); /* the frees above, and resizes in flight */
	/* Under QSBR this thread must be offline: destroy waits for resize
	 * work that waits for a grace period. */
	map_rcu_offline_call(destroy_table, h->table);
	free(h);
}

static uint32_t hash_key(struct rculfhash *h, const void *key)
{
	return map_jhash(key, h->map.attr.key_size, h->seed);
}

static struct rculfhash_elem *find(struct rculfhash *h, const void *key,
				   struct cds_lfht_iter *iter)
{
	struct match_key k = { key, h->map.attr.key_size };
	cds_lfht_lookup(h->table, hash_key(h, key), match, &k, iter);
	return elem_of(cds_lfht_iter_get_node(iter));
}

static void *rculfhash_lookup(struct map *m, const void *key)
{
	struct rculfhash *h = rculfhash_of(m);
	struct cds_lfht_iter iter;
	struct rculfhash_elem *e = find(h, key, &iter);
	return e ? elem_value(h, e) : NULL;
}

static int rculfhash_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, rculfhash_lookup, key, value);
}

/* Replace the node iter points at.  0, or -EAGAIN if it vanished. */
static int replace(struct rculfhash *h, struct cds_lfht_iter *iter,
		   struct rculfhash_elem *old, const void *key,
		   const void *value)
{
	struct rculfhash_elem *e = new_elem(h, key, value);
	if (!e)
		return -ENOMEM;
	struct match_key k = { key, h->map.attr.key_size };
	if (cds_lfht_replace(h->table, iter, hash_key(h, key), match, &k,
			     &e->node)) {
		free(e); /* never published */
		return -EAGAIN;
	}
	retire(old);
	return 0;
}

/* Insert a key believed absent.  0, -E2BIG, -ENOMEM, or -EAGAIN if another
 * thread inserted it first. */
static int insert(struct rculfhash *h, const void *key, const void *value)
{
	if (atomic_fetch_add(&h->count, 1) >= h->map.attr.max_entries) {
		atomic_fetch_sub(&h->count, 1);
		return -E2BIG;
	}
	struct rculfhash_elem *e = new_elem(h, key, value);
	if (!e) {
		atomic_fetch_sub(&h->count, 1);
		return -ENOMEM;
	}
	struct match_key k = { key, h->map.attr.key_size };
	struct cds_lfht_node *won = cds_lfht_add_unique(
		h->table, hash_key(h, key), match, &k, &e->node);
	if (won == &e->node)
		return 0;
	atomic_fetch_sub(&h->count, 1);
	free(e);
	return -EAGAIN;
}

static int rculfhash_update(struct map *m, const void *key, const void *value,
			    uint64_t flags)
{
	struct rculfhash *h = rculfhash_of(m);
	struct cds_lfht_iter iter;
	int err;

	if ((err = map_update_flags_valid(flags)))
		return err;
	map_rcu_read_lock();
	do {
		struct rculfhash_elem *old = find(h, key, &iter);
		if ((err = map_update_flags_check(old != NULL, flags)))
			break;
		if (old)
			err = replace(h, &iter, old, key, value);
		else
			err = insert(h, key, value);
	} while (err == -EAGAIN); /* lost a race: look again */
	map_rcu_read_unlock();
	return err;
}

static int rculfhash_delete(struct map *m, const void *key)
{
	struct rculfhash *h = rculfhash_of(m);
	struct cds_lfht_iter iter;
	int err = -ENOENT;

	map_rcu_read_lock();
	struct rculfhash_elem *e = find(h, key, &iter);
	if (e && cds_lfht_del(h->table, &e->node) == 0) {
		atomic_fetch_sub(&h->count, 1);
		retire(e);
		err = 0;
	}
	map_rcu_read_unlock();
	return err;
}

static int rculfhash_get_next_key(struct map *m, const void *key, void *next)
{
	struct rculfhash *h = rculfhash_of(m);
	struct cds_lfht_iter iter;
	int err = -ENOENT;

	map_rcu_read_lock();
	if (!key || !find(h, key, &iter))
		cds_lfht_first(h->table, &iter);
	else
		cds_lfht_next(h->table, &iter);
	struct rculfhash_elem *e = elem_of(cds_lfht_iter_get_node(&iter));
	if (e) {
		memcpy(next, e->data, m->attr.key_size);
		err = 0;
	}
	map_rcu_read_unlock();
	return err;
}

const struct map_ops hash_rculfhash_ops = {
	.name = "hash/rculfhash",
	.description = "baseline: BPF hash semantics over liburcu's lock-free "
		       "resizable table (cds_lfht)",
	.type = MAP_TYPE_HASH,
	.faithful = 0,
	.create = rculfhash_create,
	.destroy = rculfhash_destroy,
	.lookup = rculfhash_lookup,
	.lookup_copy = rculfhash_lookup_copy,
	.update = rculfhash_update,
	.delete = rculfhash_delete,
	.get_next_key = rculfhash_get_next_key,
};
