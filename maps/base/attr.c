/* SPDX-License-Identifier: MIT */
#include "maps/base/attr.h"

#include <errno.h>

#define ACCESS_FLAGS \
	(MAP_F_RDONLY | MAP_F_WRONLY | MAP_F_RDONLY_PROG | MAP_F_WRONLY_PROG)
#define HTAB_CREATE_FLAGS                                                 \
	(MAP_F_NO_PREALLOC | MAP_F_NO_COMMON_LRU | MAP_F_NUMA_NODE |      \
	 ACCESS_FLAGS | MAP_F_ZERO_SEED)

/* bpf_map_flags_access_ok() and bpf_get_file_flag(): not both ways. */
static int access_flags_ok(uint32_t flags)
{
	uint32_t prog = MAP_F_RDONLY_PROG | MAP_F_WRONLY_PROG;
	uint32_t sys = MAP_F_RDONLY | MAP_F_WRONLY;
	return (flags & prog) != prog && (flags & sys) != sys;
}

/* The kernel's struct bucket: an hlist_nulls_head and an rqspinlock. */
#define KERNEL_BUCKET_SIZE 16ULL

uint32_t map_roundup_pow2(uint32_t n)
{
	uint32_t p = 1;
	if (n > (1U << 31))
		return 0; /* no such power of two: callers check attr first */
	while (p < n)
		p <<= 1;
	return p;
}

int map_check_hash_attr(const struct map_attr *attr)
{
	int lru = attr->type == MAP_TYPE_LRU_HASH;
	int prealloc = !(attr->flags & MAP_F_NO_PREALLOC);

	if ((attr->flags & ~HTAB_CREATE_FLAGS) || !access_flags_ok(attr->flags))
		return -EINVAL;
	if (!lru && (attr->flags & MAP_F_NO_COMMON_LRU))
		return -EINVAL;
	if (lru && !prealloc)
		return -ENOTSUPP;
	/* A per-CPU LRU cannot be placed on one NUMA node. */
	if ((attr->flags & MAP_F_NUMA_NODE) &&
	    (attr->flags & MAP_F_NO_COMMON_LRU))
		return -EINVAL;
	if (attr->max_entries == 0 || attr->key_size == 0 ||
	    attr->value_size == 0)
		return -EINVAL;
	if ((uint64_t)attr->key_size + attr->value_size >=
	    MAP_KMALLOC_MAX_SIZE - MAP_HTAB_ELEM_HEADER)
		return -E2BIG;
	if (attr->max_entries > (1UL << 31))
		return -E2BIG;
	if (map_roundup_pow2(attr->max_entries) > UINT32_MAX / KERNEL_BUCKET_SIZE)
		return -E2BIG;
	return 0;
}

#define LPM_CREATE_FLAGS (MAP_F_NO_PREALLOC | MAP_F_NUMA_NODE | ACCESS_FLAGS)

int map_check_lpm_attr(const struct map_attr *attr)
{
	if (attr->max_entries == 0 || !(attr->flags & MAP_F_NO_PREALLOC) ||
	    (attr->flags & ~LPM_CREATE_FLAGS) || !access_flags_ok(attr->flags) ||
	    attr->key_size < MAP_LPM_PREFIX_BYTES + MAP_LPM_DATA_MIN ||
	    attr->key_size > MAP_LPM_PREFIX_BYTES + MAP_LPM_DATA_MAX ||
	    attr->value_size < 1 || attr->value_size > MAP_LPM_VALUE_MAX)
		return -EINVAL;
	return 0;
}
