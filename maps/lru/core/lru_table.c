/* SPDX-License-Identifier: MIT */
/*
 * lru_table.c: the two tables of lru_table.h, each a thin layer over its
 * engine (maps/tables/htab.c, tagtab.c), which owns the buckets, their
 * locks and the contracts; nothing here keeps state of its own.
 */
#include "maps/lru/core/lru_table.h"

/* --- the chains: htab.h, the kernel's table ------------------------------- */

static int lru_table_chains_init(union lru_table *t,
				 const struct map_attr *attr, uint8_t *elems,
				 size_t elem_size, size_t node_offset,
				 uint32_t n_elems)
{
	(void)elems, (void)elem_size, (void)node_offset, (void)n_elems;
	return htab_table_init(&t->chains, attr->max_entries, attr->key_size,
			       attr->flags & MAP_F_ZERO_SEED);
}

static void lru_table_chains_destroy(union lru_table *t)
{
	htab_table_destroy(&t->chains);
}

static size_t lru_table_chains_bytes(const union lru_table *t)
{
	return (size_t)t->chains.n_buckets * sizeof(*t->chains.buckets);
}

static uint32_t lru_table_chains_hash(const union lru_table *t,
				      const void *key)
{
	return htab_hash(&t->chains, key);
}

static struct htab_node *lru_table_chains_lookup(union lru_table *t,
						 uint32_t hash, const void *key)
{
	return htab_lookup_rcu(&t->chains, hash, key);
}

static int lru_table_chains_update_begin(union lru_table *t, const void *key,
					 uint32_t hash, uint64_t flags,
					 union lru_table_update *u,
					 struct htab_node **old)
{
	int err = htab_update_begin_hashed(&t->chains, key, hash, flags,
					   &u->chains);
	*old = u->chains.old;
	return err;
}

static void lru_table_chains_update_commit(union lru_table *t,
					   union lru_table_update *u,
					   struct htab_node *n, const void *key,
					   const void *value,
					   uint32_t value_size)
{
	htab_update_commit(&t->chains, &u->chains, n, key, value, value_size);
}

static struct htab_node *lru_table_chains_delete_key(union lru_table *t,
						     const void *key)
{
	return htab_delete_key(&t->chains, key);
}

static bool lru_table_chains_unlink_node(union lru_table *t,
					 struct htab_node *n)
{
	return htab_unlink_node(&t->chains, n);
}

static int lru_table_chains_next_key_rcu(union lru_table *t, const void *key,
					 void *next)
{
	return htab_next_key_rcu(&t->chains, key, next);
}

const struct lru_table_ops lru_table_chains = {
	.name = "chains",
	.init = lru_table_chains_init,
	.destroy = lru_table_chains_destroy,
	.bytes = lru_table_chains_bytes,
	.hash = lru_table_chains_hash,
	.update_hash = lru_table_chains_hash,
	.lookup = lru_table_chains_lookup,
	.update_begin = lru_table_chains_update_begin,
	.update_commit = lru_table_chains_update_commit,
	.delete_key = lru_table_chains_delete_key,
	.unlink_node = lru_table_chains_unlink_node,
	.next_key_rcu = lru_table_chains_next_key_rcu,
};

/* --- the tagged buckets: tagtab.h ----------------------------------------- */

static int lru_table_tagged_init(union lru_table *t,
				 const struct map_attr *attr, uint8_t *elems,
				 size_t elem_size, size_t node_offset,
				 uint32_t n_elems)
{
	return tagtab_init(&t->tagged, attr->max_entries, attr->key_size,
			   attr->flags & MAP_F_ZERO_SEED, elems, elem_size,
			   node_offset, n_elems);
}

static void lru_table_tagged_destroy(union lru_table *t)
{
	tagtab_destroy(&t->tagged);
}

static size_t lru_table_tagged_bytes(const union lru_table *t)
{
	return tagtab_bytes(&t->tagged);
}

static uint32_t lru_table_tagged_hash(const union lru_table *t,
				      const void *key)
{
	return tagtab_hash(&t->tagged, key);
}

static uint32_t lru_table_tagged_update_hash(const union lru_table *t,
					     const void *key)
{
	uint32_t hash = tagtab_hash(&t->tagged, key);
	tagtab_prefetch_for_write(&t->tagged, hash);
	return hash;
}

static struct htab_node *lru_table_tagged_lookup(union lru_table *t,
						 uint32_t hash, const void *key)
{
	return tagtab_lookup(&t->tagged, hash, key);
}

static int lru_table_tagged_update_begin(union lru_table *t, const void *key,
					 uint32_t hash, uint64_t flags,
					 union lru_table_update *u,
					 struct htab_node **old)
{
	int err = tagtab_update_begin(&t->tagged, key, hash, flags,
				      &u->tagged);
	*old = u->tagged.old;
	return err;
}

static void lru_table_tagged_update_commit(union lru_table *t,
					   union lru_table_update *u,
					   struct htab_node *n, const void *key,
					   const void *value,
					   uint32_t value_size)
{
	tagtab_update_commit(&t->tagged, &u->tagged, n, key, value,
			     value_size);
}

static struct htab_node *lru_table_tagged_delete_key(union lru_table *t,
						     const void *key)
{
	return tagtab_delete_key(&t->tagged, key);
}

static bool lru_table_tagged_unlink_node(union lru_table *t,
					 struct htab_node *n)
{
	return tagtab_unlink_node(&t->tagged, n);
}

static int lru_table_tagged_next_key_rcu(union lru_table *t, const void *key,
					 void *next)
{
	return tagtab_next_key_rcu(&t->tagged, key, next);
}

const struct lru_table_ops lru_table_tagged = {
	.name = "tagged",
	.init = lru_table_tagged_init,
	.destroy = lru_table_tagged_destroy,
	.bytes = lru_table_tagged_bytes,
	.hash = lru_table_tagged_hash,
	.update_hash = lru_table_tagged_update_hash,
	.lookup = lru_table_tagged_lookup,
	.update_begin = lru_table_tagged_update_begin,
	.update_commit = lru_table_tagged_update_commit,
	.delete_key = lru_table_tagged_delete_key,
	.unlink_node = lru_table_tagged_unlink_node,
	.next_key_rcu = lru_table_tagged_next_key_rcu,
};
