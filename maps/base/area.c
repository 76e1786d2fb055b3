/* SPDX-License-Identifier: MIT */
#include "maps/base/area.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

static atomic_bool hugepages;

void map_hugepages_enable(void)
{
	atomic_store(&hugepages, true);
}

bool map_hugepages(void)
{
	return atomic_load_explicit(&hugepages, memory_order_relaxed);
}

void map_thp_mode(const char *path, char *word, size_t len)
{
	char line[128] = "";
	FILE *f = fopen(path, "r");
	word[0] = '\0';
	if (!f)
		return;
	if (fgets(line, sizeof(line), f)) {
		char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
		if (close && close - open - 1 < (long)len)
			snprintf(word, len, "%.*s", (int)(close - open - 1), open + 1);
	}
	fclose(f);
}

void map_hugepages_advise(void *p, size_t len)
{
	if (p && len && map_hugepages())
		(void)madvise(p, len, MADV_HUGEPAGE);
}

unsigned long map_hugetlb_free_pages(void)
{
	char line[128];
	unsigned long free_pages = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %lu", &free_pages) == 1)
			break;
	if (f)
		fclose(f);
	return free_pages;
}

void *map_area_alloc(size_t size, size_t align)
{
	if (size == 0 || size > map_area_limit())
		return NULL;
	bool huge = map_hugepages() && size >= MAP_HUGE_PAGE;
	if (huge && align < MAP_HUGE_PAGE)
		align = MAP_HUGE_PAGE; /* whole huge pages, none shared */
	size_t rounded = (size + align - 1) & ~(align - 1);
	void *p = aligned_alloc(align, rounded);
	if (huge)
		map_hugepages_advise(p, rounded);
	return p;
}

void *map_area_alloc_array(size_t n, size_t size, size_t align)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return map_area_alloc(n * size, align);
}
