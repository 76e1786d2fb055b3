/* SPDX-License-Identifier: MIT */
/*
 * dpdk_eal.h: DPDK's environment (EAL) started inside maplab, for the
 * designs that are adapters over DPDK's tables (hash/dpdk).  Built only
 * with DPDK (meson -Ddpdk=auto finds libdpdk; MAPLAB_HAVE_DPDK).
 *
 * Every rte_*_create allocates from DPDK's own memory, so EAL must run
 * first, once per process.  map_dpdk_start() starts it on the first call,
 * from any thread, without hugepages, devices, shared config or telemetry
 * (docs/hash.md, "hash/dpdk"), and then gives the calling thread back the
 * CPU affinity it had: rte_eal_init pins its caller to the main lcore, and
 * maplab pins its own threads.
 *
 * Lcores.  DPDK indexes per-thread state (rte_hash's free-slot caches with
 * RTE_HASH_EXTRA_FLAGS_MULTI_WRITER_ADD) by rte_lcore_id(), which is
 * LCORE_ID_ANY in a thread EAL does not know.  A design registers each
 * thread that needs an id (its writers) with map_dpdk_register_thread(),
 * lazily: the call is one thread-local load once done.  The thread gives
 * its id back when it exits.  At most RTE_MAX_LCORE (128 in Debian's
 * build) threads hold one at once, the one that started EAL included.
 */
#ifndef MAPLAB_DPDK_EAL_H
#define MAPLAB_DPDK_EAL_H

#include <stddef.h>

/*
 * Start EAL once (later calls return the first one's answer).  0, or a
 * negative errno with the reason in why (len bytes, one line, EAL's first
 * line in it).  Nothing of EAL's reaches stderr.
 */
int map_dpdk_start(char *why, size_t len);

/*
 * map_dpdk_start for a design's create: 0; -ENOMEM, saying nothing, when
 * EAL found no room for its heap (a map this machine cannot hold: the
 * caller says so in its one line, map.h); otherwise -EOPNOTSUPP after one
 * line on stderr, "<design>: DPDK's EAL did not start: <why>".
 */
int map_dpdk_start_for(const char *design);

/*
 * Give the calling thread an lcore id if it has none (EAL must have
 * started).  0, or -EBUSY when RTE_MAX_LCORE threads hold one already.
 */
int map_dpdk_register_thread(void);

/*
 * Bytes allocated from EAL's heap now, every socket's (rte_malloc's own
 * headers included): read before and after a create, the table's size.
 */
size_t map_dpdk_heap_bytes(void);

#endif /* MAPLAB_DPDK_EAL_H */
