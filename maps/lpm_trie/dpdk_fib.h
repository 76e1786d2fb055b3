/* SPDX-License-Identifier: MIT */
/*
 * dpdk_fib.h: the DIR-24-8 FIB that lpm_trie/dpdk builds for IPv4, written
 * once so that the plain rte_fib beside it (maps/plain/rte_fib.c) is the
 * same table.  Needs DPDK's headers (built with MAPLAB_HAVE_DPDK only).
 */
#ifndef MAPLAB_LPM_DPDK_FIB_H
#define MAPLAB_LPM_DPDK_FIB_H

#include "maps/lpm_trie/core/lpm_key.h"

#include <rte_fib.h>
#include <rte_memory.h>

#include <stdint.h>
#include <string.h>

/* The FIB's default next hop: no prefix matched. */
#define LPM_DPDK_NO_ROUTE 0u

/* Next hops are at most 2^(8 * nh_sz - 1) - 1 (one bit of each entry
 * marks "extended to a tbl8 group").  lpm_trie/dpdk's next hops are ids,
 * which run past max_entries while replaced and deleted prefixes' ids
 * wait out a grace period, by as many as a grace period's updates: so
 * 4-byte entries whatever max_entries, in DIR-24-8 and in rte_fib6's TRIE
 * alike (2-byte ones ran out of ids under replaces on a busy 2-core
 * machine: docs/lpm_trie.md). */
#define LPM_DPDK_NH_MAX ((1u << 31) - 1)

/* num_tbl8 = max_entries: a prefix longer than /24 needs at most the one
 * group of its /24; next hops 1 to max_entries. */
static inline struct rte_fib_conf lpm_dpdk_v4_conf(uint32_t max_entries)
{
	return (struct rte_fib_conf){
		.type = RTE_FIB_DIR24_8,
		.default_nh = LPM_DPDK_NO_ROUTE,
		.max_routes = (int)max_entries,
		.dir24_8 = { .nh_sz = RTE_FIB_DIR24_8_4B,
			     .num_tbl8 = max_entries },
	};
}

/* An IPv4 LPM key's address (after its 4-byte prefix length) in host
 * order, as rte_fib takes it: one load and a byte swap. */
static inline uint32_t lpm_dpdk_v4_address(const void *key)
{
	return lpm_ipv4_address(lpm_data_of(key));
}

#endif /* MAPLAB_LPM_DPDK_FIB_H */
