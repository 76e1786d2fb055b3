/* SPDX-License-Identifier: MIT */
/*
 * area.h: allocations of whole tables (bucket arrays, preallocated
 * elements, a benchmark's key table), refused when the machine cannot hold
 * them.
 *
 * The kernel builds such tables with vmalloc, which cannot hand out more
 * than the machine's memory: a map too large for it is -ENOMEM at create.
 * A userspace malloc of the same size may "succeed" (jemalloc maps it
 * MAP_NORESERVE under the kernel's overcommit) and the process is then
 * OOM-killed when the table is filled.  So maplab asks first: an area
 * larger than physical memory, or than what RLIMIT_AS leaves, is -ENOMEM,
 * as in the kernel.
 */
#ifndef MAPLAB_AREA_H
#define MAPLAB_AREA_H

#include <stddef.h>

#include <stdbool.h>

/* An x86-64 transparent huge page. */
#define MAP_HUGE_PAGE ((size_t)2 << 20)

/*
 * --hugepages: from now on every area of at least MAP_HUGE_PAGE bytes is
 * aligned to a huge page and advised MADV_HUGEPAGE.  Under the kernel's
 * "madvise" setting nothing gets huge pages without such advice; under
 * "always" the advice changes nothing.  Off by default; once on, on for
 * the process.  (The allocator's own memory is the command line's to
 * switch: cli/main.c.  DPDK's heap is DPDK's own: reserved huge pages
 * where there are any, dpdk_eal.c.)
 */
void map_hugepages_enable(void);
bool map_hugepages(void);

/* Advise [p, p + len) MADV_HUGEPAGE where map_hugepages(); errors are
 * ignored: the advice is a wish, never a failure. */
void map_hugepages_advise(void *p, size_t len);

/* Where the kernel says its transparent huge page mode. */
#define MAP_THP_FILE "/sys/kernel/mm/transparent_hugepage/enabled"

/* The mode read from path, the bracketed word of "always [madvise]
 * never", into word (len bytes); "" where the file cannot be read (a
 * kernel without THP) or the word does not fit. */
void map_thp_mode(const char *path, char *word, size_t len);

/* Huge pages reserved and free now (/proc/meminfo's HugePages_Free: what
 * vm.nr_hugepages set aside); 0 where none or unknown.  DPDK's heap takes
 * them under --hugepages (dpdk_eal.c). */
unsigned long map_hugetlb_free_pages(void);

/* The largest area one allocation may take here, in bytes. */
size_t map_area_limit(void);

/* size bytes aligned to align (a power of two, >= sizeof(void *)), or
 * NULL when size is 0, exceeds map_area_limit(), or malloc fails. */
void *map_area_alloc(size_t size, size_t align);

/* n * size bytes, checked for overflow as well: NULL as above. */
void *map_area_alloc_array(size_t n, size_t size, size_t align);

#endif /* MAPLAB_AREA_H */
