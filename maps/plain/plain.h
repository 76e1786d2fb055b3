/* SPDX-License-Identifier: MIT */
/*
 * plain.h: DPDK's tables used plainly, as a DPDK program uses them: the
 * reference rows that bench and compare print beside the adapters
 * hash/dpdk and lpm_trie/dpdk.
 *
 * An adapter gives a DPDK table BPF map semantics (map.h): a value that
 * outlives its replacement for a reader in its RCU section, a lookup by
 * any prefix length, the FIB's lock that 22.11's missing RCU forces, room
 * for deleted slots in their grace period.  Each of those costs time, and
 * a ratio taken against the adapter credits that cost to whichever design
 * is divided by it.  A plain table holds the same keys and answers the
 * same lookups with the table's own calls and nothing else:
 *
 *   plain/rte_fib   (beside lpm_trie/dpdk, IPv4 keys): the DIR-24-8 FIB
 *                   the adapter creates (maps/lpm_trie/dpdk_fib.h), each
 *                   prefix added with rte_fib_add and the next hop id; a
 *                   lookup converts the key's address to host order (a
 *                   4-byte load and a byte swap, as a router converts a
 *                   packet's) and calls rte_fib_lookup_bulk, one address
 *                   or a batch;
 *   plain/rte_hash  (beside hash/dpdk): max_entries keys with rte_hash's
 *                   defaults (its CRC32C hash on x86, as the adapter's),
 *                   extendable buckets, each key's data pointer the id; a
 *                   lookup is rte_hash_lookup_data, a batch
 *                   rte_hash_lookup_bulk_data.
 *
 * They reach the harness as map_ops, so that bench runs them through the
 * very loop it runs a design through (the same keys, streams, batches and
 * clock), but they are references, not designs, and not in the registry:
 * update only stores a key (the next id: 1, 2, ...; the build), delete and
 * get_next_key are -EOPNOTSUPP, and a lookup's pointer says found or not
 * (it points at one byte of the map: the id is not behind it, as nothing
 * is behind a next hop).  plain_answer gives the id itself.  Readers need
 * no lock and no RCU: nothing changes once the table is built.  Without
 * DPDK in the build there are none (plain_for answers NULL).
 */
#ifndef MAPLAB_PLAIN_H
#define MAPLAB_PLAIN_H

#include "maps/base/map.h"

#include <stdint.h>

/* What every plain map starts with. */
struct plain_map {
	struct map map;
	/* the id key's lookup answers (0: no match) */
	uint64_t (*answer)(const struct plain_map *p, const void *key);
	uint32_t ids;   /* ids given so far */
	uint8_t found;  /* what a lookup that matched points at */
};

/* The plain table that stands beside design `adapter` (its registry
 * name), or NULL: none for it, or none in this build. */
const struct map_ops *plain_for(const char *adapter);

/* Whether ops is a plain table's. */
bool plain_is(const struct map_ops *ops);

/* The id m (a plain table's map) answers key with: the next hop or data
 * pointer DPDK returns, which is the id update gave the matching key
 * (the first key stored is 1); 0 where nothing matches. */
uint64_t plain_answer(struct map *m, const void *key);

/* --- for the plain tables' own files ------------------------------------- */

/* What a lookup that got id returns (map.h: a pointer or NULL). */
static inline void *plain_found(struct plain_map *p, uint64_t id)
{
	return id ? &p->found : NULL;
}

/* A plain map's map.h calls that a reference does not make: -EOPNOTSUPP. */
int plain_lookup_copy(struct map *m, const void *key, void *value);
int plain_delete(struct map *m, const void *key);
int plain_get_next_key(struct map *m, const void *key, void *next);

#endif /* MAPLAB_PLAIN_H */
