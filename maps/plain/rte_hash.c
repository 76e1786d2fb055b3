/* SPDX-License-Identifier: MIT */
/*
 * plain/rte_hash (plain.h): a cuckoo hash of max_entries keys with
 * rte_hash's defaults (its hash function, CRC32C on x86, as hash/dpdk's),
 * filled with rte_hash_add_key_data and read with rte_hash_lookup_data and
 * rte_hash_lookup_bulk_data, as a DPDK program reads it: the data pointer
 * it stored, here the key's id.  Extendable buckets
 * (RTE_HASH_EXTRA_FLAGS_EXT_TABLE, as hash/dpdk), so that a full table of
 * max_entries keys fits where cuckoo paths run out; no other flag: the
 * lock-free reader protocol (RW_CONCURRENCY_LF) and the writers' caches
 * (MULTI_WRITER_ADD) that hash/dpdk needs for updates beside lookups are
 * its cost, as are its table of twice the keys (room for deleted slots in
 * their grace period) and its per-key elements.
 */
#include "maps/plain/plain.h"
#include "maps/base/dpdk_eal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>

struct hash_plain {
	struct plain_map p;
	struct rte_hash *h;
	size_t bytes; /* DPDK's heap that the table took */
};

static struct hash_plain *hash_plain_of(struct map *m)
{
	return (struct hash_plain *)m;
}

static uint64_t hash_answer(const struct plain_map *p, const void *key)
{
	const struct hash_plain *t = (const struct hash_plain *)p;
	void *data;
	return rte_hash_lookup_data(t->h, key, &data) >= 0
	       ? (uint64_t)(uintptr_t)data : 0;
}

static int hash_create(const struct map_attr *attr, struct map **out)
{
	static atomic_uint serial; /* rte_hash names are process-wide */
	char name[RTE_HASH_NAMESIZE];
	if (!attr->key_size || !attr->max_entries ||
	    attr->max_entries > RTE_HASH_ENTRIES_MAX) {
		map_refuse("plain/rte_hash takes keys of 1 byte or more and 1 "
			   "to %u entries, not key_size %u and %u entries",
			   RTE_HASH_ENTRIES_MAX, attr->key_size,
			   attr->max_entries);
		return -EINVAL;
	}
	int rc = map_dpdk_start_for("plain/rte_hash");
	if (rc)
		return rc;
	struct hash_plain *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	snprintf(name, sizeof(name), "mlph%u", atomic_fetch_add(&serial, 1));
	struct rte_hash_parameters params = {
		.name = name,
		.entries = attr->max_entries,
		.key_len = attr->key_size,
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	size_t before = map_dpdk_heap_bytes();
	t->h = rte_hash_create(&params);
	t->bytes = map_dpdk_heap_bytes() - before;
	if (!t->h) {
		free(t);
		return -ENOMEM;
	}
	t->p.map.attr = *attr;
	t->p.answer = hash_answer;
	*out = &t->p.map;
	return 0;
}

static void hash_destroy(struct map *m)
{
	struct hash_plain *t = hash_plain_of(m);
	rte_hash_free(t->h);
	free(t);
}

static void *hash_lookup(struct map *m, const void *key)
{
	struct hash_plain *t = hash_plain_of(m);
	return plain_found(&t->p, hash_answer(&t->p, key));
}

static unsigned hash_lookup_batch(struct map *m, const void *keys, unsigned n,
				  void **values)
{
	struct hash_plain *t = hash_plain_of(m);
	const uint8_t *k = keys;
	const void *key[MAP_BATCH_MAX];
	void *data[MAP_BATCH_MAX];
	uint64_t hit_mask = 0;
	for (unsigned i = 0; i < n; i++)
		key[i] = k + (size_t)i * m->attr.key_size;
	int hits = rte_hash_lookup_bulk_data(t->h, key, n, &hit_mask, data);
	for (unsigned i = 0; i < n; i++)
		values[i] = plain_found(&t->p, hit_mask >> i & 1
					       ? (uint64_t)(uintptr_t)data[i] : 0);
	return hits > 0 ? (unsigned)hits : 0;
}

/* The build: key stored with the next id as its data pointer. */
static int hash_update(struct map *m, const void *key, const void *value,
		       uint64_t flags)
{
	struct hash_plain *t = hash_plain_of(m);
	(void)value, (void)flags;
	if (t->p.ids == m->attr.max_entries)
		return -E2BIG;
	int rc = rte_hash_add_key_data(t->h, key,
				       (void *)(uintptr_t)(t->p.ids + 1));
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	t->p.ids++;
	return 0;
}

static size_t hash_memory(const struct map *m)
{
	return ((const struct hash_plain *)m)->bytes;
}

const struct map_ops plain_rte_hash_ops = {
	.name = "plain/rte_hash",
	.description = "DPDK's rte_hash used plainly: the reference beside "
		       "hash/dpdk",
	.type = MAP_TYPE_HASH,
	.create = hash_create,
	.destroy = hash_destroy,
	.lookup = hash_lookup,
	.lookup_batch = hash_lookup_batch,
	.lookup_copy = plain_lookup_copy,
	.update = hash_update,
	.delete = plain_delete,
	.get_next_key = plain_get_next_key,
	.memory = hash_memory,
};
