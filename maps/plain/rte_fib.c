/* SPDX-License-Identifier: MIT */
/*
 * plain/rte_fib (plain.h): the DIR-24-8 FIB lpm_trie/dpdk builds for IPv4
 * keys (the same configuration: maps/lpm_trie/dpdk_fib.h), filled with
 * rte_fib_add and read with rte_fib_lookup_bulk, as a DPDK router reads
 * it: host-order addresses in, next hops out.  None of the adapter's
 * work: no lock (readers alone), no value place behind the next hop, no
 * prefix-length rule (every lookup is of a full address), no top prefixes
 * kept apart (22.11's add may send every address to a prefix whose range
 * ends at 255.255.255.255 when more specific prefixes cover that end:
 * docs/lpm_trie.md; the tests check the answers against the adapter's).
 */
#include "maps/plain/plain.h"
#include "maps/base/attr.h"
#include "maps/base/dpdk_eal.h"
#include "maps/lpm_trie/core/lpm_key.h"
#include "maps/lpm_trie/dpdk_fib.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V4_KEY_SIZE (MAP_LPM_PREFIX_BYTES + 4)
#define V4_MAX_ENTRIES (1u << 20) /* lpm_trie/dpdk's cap for IPv4 */

struct fib_plain {
	struct plain_map p;
	struct rte_fib *fib;
	size_t bytes; /* DPDK's heap that the FIB took */
};

static struct fib_plain *fib_plain_of(struct map *m)
{
	return (struct fib_plain *)m;
}

static uint64_t fib_answer(const struct plain_map *p, const void *key)
{
	const struct fib_plain *t = (const struct fib_plain *)p;
	uint32_t addr = lpm_dpdk_v4_address(key);
	uint64_t nh = LPM_DPDK_NO_ROUTE;
	rte_fib_lookup_bulk(t->fib, &addr, &nh, 1);
	return nh;
}

static int fib_create(const struct map_attr *attr, struct map **out)
{
	static atomic_uint serial; /* rte_fib names are process-wide */
	char name[32];
	if (attr->key_size != V4_KEY_SIZE) {
		map_refuse("plain/rte_fib takes IPv4 keys (key_size %u), not "
			   "key_size %u", V4_KEY_SIZE, attr->key_size);
		return -EINVAL;
	}
	if (!attr->max_entries || attr->max_entries > V4_MAX_ENTRIES) {
		map_refuse("plain/rte_fib takes 1 to %u prefixes, as "
			   "lpm_trie/dpdk, not %u", V4_MAX_ENTRIES,
			   attr->max_entries);
		return -E2BIG;
	}
	int rc = map_dpdk_start_for("plain/rte_fib");
	if (rc)
		return rc;
	struct fib_plain *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	struct rte_fib_conf conf = lpm_dpdk_v4_conf(attr->max_entries);
	snprintf(name, sizeof(name), "mlpf%u", atomic_fetch_add(&serial, 1));
	size_t before = map_dpdk_heap_bytes();
	t->fib = rte_fib_create(name, SOCKET_ID_ANY, &conf);
	t->bytes = map_dpdk_heap_bytes() - before;
	if (!t->fib) {
		free(t);
		return -ENOMEM;
	}
	t->p.map.attr = *attr;
	t->p.answer = fib_answer;
	*out = &t->p.map;
	return 0;
}

static void fib_destroy(struct map *m)
{
	struct fib_plain *t = fib_plain_of(m);
	rte_fib_free(t->fib);
	free(t);
}

static void *fib_lookup(struct map *m, const void *key)
{
	struct fib_plain *t = fib_plain_of(m);
	return plain_found(&t->p, fib_answer(&t->p, key));
}

static unsigned fib_lookup_batch(struct map *m, const void *keys, unsigned n,
				 void **values)
{
	struct fib_plain *t = fib_plain_of(m);
	const uint8_t *k = keys;
	uint32_t addr[MAP_BATCH_MAX];
	uint64_t nh[MAP_BATCH_MAX];
	unsigned hits = 0;
	for (unsigned i = 0; i < n; i++)
		addr[i] = lpm_dpdk_v4_address(k + (size_t)i * V4_KEY_SIZE);
	rte_fib_lookup_bulk(t->fib, addr, nh, (int)n);
	for (unsigned i = 0; i < n; i++) {
		values[i] = plain_found(&t->p, nh[i]);
		hits += nh[i] != LPM_DPDK_NO_ROUTE;
	}
	return hits;
}

/* The build: key's prefix gets the next id as its next hop. */
static int fib_update(struct map *m, const void *key, const void *value,
		      uint64_t flags)
{
	struct fib_plain *t = fib_plain_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	uint32_t addr = lpm_dpdk_v4_address(key);
	(void)value, (void)flags;
	if (len > 32)
		return -EINVAL;
	if (t->p.ids == m->attr.max_entries)
		return -ENOSPC;
	addr &= len ? ~0u << (32 - len) : 0;
	int rc = rte_fib_add(t->fib, addr, (uint8_t)len, t->p.ids + 1);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	t->p.ids++;
	return 0;
}

static size_t fib_memory(const struct map *m)
{
	return ((const struct fib_plain *)m)->bytes;
}

const struct map_ops plain_rte_fib_ops = {
	.name = "plain/rte_fib",
	.description = "DPDK's rte_fib (DIR-24-8) used plainly: the reference "
		       "beside lpm_trie/dpdk",
	.type = MAP_TYPE_LPM_TRIE,
	.create = fib_create,
	.destroy = fib_destroy,
	.lookup = fib_lookup,
	.lookup_batch = fib_lookup_batch,
	.lookup_copy = plain_lookup_copy,
	.update = fib_update,
	.delete = plain_delete,
	.get_next_key = plain_get_next_key,
	.memory = fib_memory,
};
