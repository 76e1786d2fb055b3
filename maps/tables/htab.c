/* SPDX-License-Identifier: MIT */
/*
 * htab.c: see htab.h.  Every function that changes a chain holds
 * that chain's bucket lock; the walks of htab_lookup_rcu and
 * htab_next_key_rcu hold none and rely on RCU and the nulls markers.
 */
#include "maps/tables/htab.h"
#include "maps/base/area.h"
#include "maps/base/attr.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

uint32_t htab_random_seed(void)
{
	uint32_t seed;
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint32_t)(uintptr_t)&seed ^ 0x9e3779b9u;
	return seed;
}

int htab_table_init(struct htab_table *t, uint32_t max_entries,
		    uint32_t key_size, int zero_seed)
{
	t->n_buckets = map_roundup_pow2(max_entries);
	t->key_size = key_size;
	t->seed = zero_seed ? 0 : htab_random_seed();
	t->buckets = map_area_alloc_array(t->n_buckets, sizeof(*t->buckets), 64);
	if (!t->buckets)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n_buckets; i++) {
		nulls_init_head(&t->buckets[i].head, i);
		map_spin_init(&t->buckets[i].lock);
	}
	return 0;
}

void htab_table_destroy(struct htab_table *t)
{
	free(t->buckets);
	t->buckets = NULL;
}

static int node_matches(struct htab_node *n, uint32_t hash, const void *key,
			uint32_t key_size)
{
	return n->hash == hash && memcmp(htab_node_key(n), key, key_size) == 0;
}

struct htab_node *htab_lookup_rcu(struct htab_table *t, uint32_t hash,
				  const void *key)
{
	uint32_t index = hash & (t->n_buckets - 1);
	struct htab_bucket *b = &t->buckets[index];
	struct nulls_node *p;

again:
	for (p = nulls_first_rcu(&b->head); !nulls_is_marker(p);
	     p = nulls_next_rcu(p)) {
		struct htab_node *n = htab_node_of(p);
		if (node_matches(n, hash, key, t->key_size))
			return n;
	}
	/* Ended on another chain: a node we stood on was reused. */
	if (nulls_marker_value(p) != index)
		goto again;
	return NULL;
}

/* The bucket's lock held.  The node holding key, or NULL. */
static struct htab_node *lookup_locked(struct htab_table *t,
				       struct htab_bucket *b, uint32_t hash,
				       const void *key)
{
	for (struct nulls_node *p = nulls_first_rcu(&b->head);
	     !nulls_is_marker(p); p = nulls_next_rcu(p)) {
		struct htab_node *n = htab_node_of(p);
		if (node_matches(n, hash, key, t->key_size))
			return n;
	}
	return NULL;
}

int htab_update_begin(struct htab_table *t, const void *key, uint64_t flags,
		      struct htab_update *u)
{
	return htab_update_begin_hashed(t, key, htab_hash(t, key), flags, u);
}

int htab_update_begin_hashed(struct htab_table *t, const void *key,
			     uint32_t hash, uint64_t flags,
			     struct htab_update *u)
{
	u->hash = hash;
	u->bucket = htab_bucket_of(t, u->hash);
	map_spin_lock(&u->bucket->lock);
	u->old = lookup_locked(t, u->bucket, u->hash, key);
	int err = map_update_flags_check(u->old != NULL, flags);
	if (err)
		map_spin_unlock(&u->bucket->lock);
	return err;
}

void htab_update_commit(struct htab_table *t, struct htab_update *u,
			struct htab_node *n, const void *key,
			const void *value, uint32_t value_size)
{
	if (n->hash != u->hash)
		n->hash = u->hash;
	memcpy(htab_node_key(n), key, t->key_size);
	memcpy(htab_node_value(n, t->key_size), value, value_size);
	nulls_add_head_rcu(&n->chain, &u->bucket->head);
	if (u->old)
		nulls_del_rcu(&u->old->chain);
	map_spin_unlock(&u->bucket->lock);
}

void htab_update_abort(struct htab_update *u)
{
	map_spin_unlock(&u->bucket->lock);
}

struct htab_node *htab_delete_key(struct htab_table *t, const void *key)
{
	uint32_t hash = htab_hash(t, key);
	struct htab_bucket *b = htab_bucket_of(t, hash);

	map_spin_lock(&b->lock);
	struct htab_node *n = lookup_locked(t, b, hash, key);
	if (n)
		nulls_del_rcu(&n->chain);
	map_spin_unlock(&b->lock);
	return n;
}

bool htab_unlink_node(struct htab_table *t, struct htab_node *n)
{
	struct htab_bucket *b = htab_bucket_of(t, n->hash);
	bool found = false;

	map_spin_lock(&b->lock);
	for (struct nulls_node *p = nulls_first_rcu(&b->head);
	     !nulls_is_marker(p); p = nulls_next_rcu(p))
		if (p == &n->chain) {
			nulls_del_rcu(p);
			found = true;
			break;
		}
	map_spin_unlock(&b->lock);
	return found;
}

int htab_next_key_rcu(struct htab_table *t, const void *key, void *next)
{
	uint32_t i = 0;

	if (key) {
		uint32_t hash = htab_hash(t, key);
		struct htab_node *n = htab_lookup_rcu(t, hash, key);
		if (n) {
			struct nulls_node *p = nulls_next_rcu(&n->chain);
			if (!nulls_is_marker(p)) {
				memcpy(next, htab_node_key(htab_node_of(p)),
				       t->key_size);
				return 0;
			}
			i = (hash & (t->n_buckets - 1)) + 1;
		}
	}
	for (; i < t->n_buckets; i++) {
		struct nulls_node *p = nulls_first_rcu(&t->buckets[i].head);
		if (!nulls_is_marker(p)) {
			memcpy(next, htab_node_key(htab_node_of(p)), t->key_size);
			return 0;
		}
	}
	return -ENOENT;
}

void htab_for_each_node(struct htab_table *t,
			void (*fn)(struct htab_node *n, void *arg), void *arg)
{
	for (uint32_t i = 0; i < t->n_buckets; i++) {
		struct nulls_node *p = nulls_first_rcu(&t->buckets[i].head);
		while (!nulls_is_marker(p)) {
			struct nulls_node *next = nulls_next_rcu(p);
			fn(htab_node_of(p), arg);
			p = next;
		}
	}
}
