/* SPDX-License-Identifier: MIT */
#include "maps/base/area.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

size_t map_area_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t limit = pages > 0 && page > 0 ? (size_t)pages * (size_t)page
					     : SIZE_MAX;
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
	    as.rlim_cur < limit)
		limit = as.rlim_cur;
	return limit;
}

void *map_area_alloc(size_t size, size_t align)
{
	if (size == 0 || size > map_area_limit())
		return NULL;
	size_t rounded = (size + align - 1) & ~(align - 1);
	return aligned_alloc(align, rounded);
}

void *map_area_alloc_array(size_t n, size_t size, size_t align)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return map_area_alloc(n * size, align);
}
