/* SPDX-License-Identifier: MIT */
#include "htab_table.h"
#include "attr.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

static uint32_t random_seed(void)
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
	t->seed = zero_seed ? 0 : random_seed();
	t->buckets = malloc(sizeof(*t->buckets) * (size_t)t->n_buckets);
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

struct htab_node *htab_lookup_locked(struct htab_table *t,
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
