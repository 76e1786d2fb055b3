/* SPDX-License-Identifier: MIT */
/*
 * attr.h: the kernel's attribute checks at map creation, shared by every
 * design of a map type so they all answer a bad attribute the same way.
 */
#ifndef MAPLAB_ATTR_H
#define MAPLAB_ATTR_H

#include "maps/base/map.h"

/*
 * The kernel's KMALLOC_MAX_SIZE on x86-64 (4 MiB) and sizeof(struct
 * htab_elem) in 6.18 (48 bytes): a hash map whose key_size + value_size
 * reaches their difference is -E2BIG, because one element could not be
 * kmalloc'ed (htab_map_alloc_check).
 */
#define MAP_KMALLOC_MAX_SIZE (1UL << 22)
#define MAP_HTAB_ELEM_HEADER 48

/*
 * bpf_mem_alloc (kernel/bpf/memalloc.c), which serves the elements of a
 * BPF_F_NO_PREALLOC hash and every node of an LPM trie, puts an 8-byte
 * free-list link (struct llist_node) before each object and kmallocs the
 * sum.  kmalloc serves at most KMALLOC_MAX_SIZE (a larger request is an
 * order above MAX_PAGE_ORDER, refused), so where the sum is larger the map
 * is created but each allocation fails: the kernel answers the update
 * that needs it -ENOMEM.  Whether an object of object_size bytes fits.
 */
#define MAP_BPF_MEM_ALLOC_LINK 8
static inline int map_bpf_mem_alloc_fits(uint64_t object_size)
{
	return object_size + MAP_BPF_MEM_ALLOC_LINK <= MAP_KMALLOC_MAX_SIZE;
}

/*
 * htab_map_alloc_check + the size checks of htab_map_alloc, in the
 * kernel's order: unknown flag, or both RDONLY and WRONLY (or both _PROG
 * forms) -> EINVAL; NO_COMMON_LRU on a non-LRU map ->
 * EINVAL; LRU with NO_PREALLOC -> ENOTSUPP; NUMA_NODE with NO_COMMON_LRU
 * -> EINVAL; a zero size -> EINVAL;
 * key + value too large -> E2BIG; max_entries > 2^31 or a bucket array
 * over 4 GiB -> E2BIG.  0 if attr is acceptable.
 */
int map_check_hash_attr(const struct map_attr *attr);

/*
 * The LPM trie's limits (kernel/bpf/lpm_trie.c): 1 to 256 data bytes
 * after the 4-byte prefix length, and a value as large as one kmalloc'ed
 * node can hold beside the largest key (the kernel's node header is two
 * child pointers, the prefix length and the flags: 24 bytes).
 */
#define MAP_LPM_PREFIX_BYTES 4
#define MAP_LPM_DATA_MIN 1
#define MAP_LPM_DATA_MAX 256
#define MAP_LPM_NODE_HEADER 24
#define MAP_LPM_VALUE_MAX \
	(MAP_KMALLOC_MAX_SIZE - MAP_LPM_DATA_MAX - MAP_LPM_NODE_HEADER)

/*
 * trie_alloc's check, in one condition as the kernel has it: max_entries
 * 0, BPF_F_NO_PREALLOC missing (it is required), a flag other than
 * NO_PREALLOC, NUMA_NODE and the access flags (or both ways of an access
 * flag), key_size outside [5, 260], value_size outside [1,
 * MAP_LPM_VALUE_MAX]: -EINVAL.  0 if attr is acceptable.
 */
int map_check_lpm_attr(const struct map_attr *attr);

/* The smallest power of two >= n (n <= 2^31). */
uint32_t map_roundup_pow2(uint32_t n);

#endif /* MAPLAB_ATTR_H */
