/* SPDX-License-Identifier: MIT */
/*
 * registry.c: every design maplab knows, by name.
 *
 * To add a design: write maps/<family>/<design>.c ending in a
 * `const struct map_ops <family>_<design>_ops`, declare it below, add it to
 * map_registry[], and add the file to maps/meson.build.  The conformance
 * suite then runs on it without further changes.
 */
#include "maps/base/map.h"
#include "maps/base/unavailable.h"

#include <string.h>

extern const struct map_ops hash_linux_ops;
extern const struct map_ops hash_rculfhash_ops;
extern const struct map_ops hash_seqlock_buckets_ops;
extern const struct map_ops hash_cow_ops;
extern const struct map_ops hash_ck_ops;
#if MAPLAB_HAVE_DPDK
extern const struct map_ops hash_dpdk_ops;
#endif
extern const struct map_ops lru_linux_common_ops;
extern const struct map_ops lru_linux_percpu_ops;
extern const struct map_ops lru_global_ops;
extern const struct map_ops lru_clock_ops;
extern const struct map_ops lru_partitioned_ops;
extern const struct map_ops lru_fifo_ops, lru_s3fifo_ops, lru_sampled_ops;
extern const struct map_ops lru_sieve_ops;
extern const struct map_ops lru_sieve_percpu_ops;
extern const struct map_ops lru_assoc_ops;
extern const struct map_ops lpm_trie_linux_ops;
extern const struct map_ops lpm_trie_prefix_hash_ops;
extern const struct map_ops lpm_trie_multibit_ops;
extern const struct map_ops lpm_trie_lctrie_ops;
#if MAPLAB_HAVE_DPDK
extern const struct map_ops lpm_trie_dpdk_ops;
#endif

const struct map_ops *const map_registry[] = {
	&hash_linux_ops,
	&hash_rculfhash_ops,
	&hash_seqlock_buckets_ops,
	&hash_cow_ops,
	&hash_ck_ops,
#if MAPLAB_HAVE_DPDK
	&hash_dpdk_ops,
#endif
	&lru_linux_common_ops,
	&lru_linux_percpu_ops,
	&lru_global_ops,
	&lru_clock_ops,
	&lru_partitioned_ops,
	&lru_fifo_ops, &lru_s3fifo_ops, &lru_sampled_ops,
	&lru_sieve_ops,
	&lru_sieve_percpu_ops,
	&lru_assoc_ops,
	&lpm_trie_linux_ops,
	&lpm_trie_prefix_hash_ops,
	&lpm_trie_multibit_ops,
	&lpm_trie_lctrie_ops,
#if MAPLAB_HAVE_DPDK
	&lpm_trie_dpdk_ops,
#endif
	NULL,
};

/* Designs whose library this build lacks (meson found no such dependency). */
const struct map_unavailable map_unavailable[] = {
#if !MAPLAB_HAVE_DPDK
	{ "hash/dpdk", MAP_TYPE_HASH,
	  "built without DPDK; install libdpdk-dev, meson setup -Ddpdk=enabled" },
	{ "lpm_trie/dpdk", MAP_TYPE_LPM_TRIE,
	  "built without DPDK; install libdpdk-dev, meson setup -Ddpdk=enabled" },
#endif
	{ NULL, 0, NULL },
};

const char *map_unavailable_why(const char *name)
{
	for (size_t i = 0; map_unavailable[i].name; i++)
		if (strcmp(map_unavailable[i].name, name) == 0)
			return map_unavailable[i].why;
	return NULL;
}

const struct map_ops *map_find(const char *name)
{
	for (size_t i = 0; map_registry[i]; i++)
		if (strcmp(map_registry[i]->name, name) == 0)
			return map_registry[i];
	return NULL;
}

/*
 * A type may have several faithful designs, one per mode of the kernel's
 * map (the LRU hash: common, or per-CPU with BPF_F_NO_COMMON_LRU): the one
 * whose mode flags the map asks for, the most specific first.
 */
const struct map_ops *map_find_faithful(uint32_t type, uint32_t flags)
{
	const struct map_ops *best = NULL;
	for (size_t i = 0; map_registry[i]; i++) {
		const struct map_ops *o = map_registry[i];
		if (o->type != type || !o->faithful ||
		    (o->mode_flags & ~flags) != 0)
			continue;
		if (!best || __builtin_popcount(o->mode_flags) >
				     __builtin_popcount(best->mode_flags))
			best = o;
	}
	return best;
}
