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

/* The largest area one allocation may take here, in bytes. */
size_t map_area_limit(void);

/* size bytes aligned to align (a power of two, >= sizeof(void *)), or
 * NULL when size is 0, exceeds map_area_limit(), or malloc fails. */
void *map_area_alloc(size_t size, size_t align);

/* n * size bytes, checked for overflow as well: NULL as above. */
void *map_area_alloc_array(size_t n, size_t size, size_t align);

#endif /* MAPLAB_AREA_H */
