/* SPDX-License-Identifier: MIT */
/*
 * unavailable.h: the designs this build of maplab lacks, and why
 * (hash/dpdk in a build without DPDK).  They are not in map_registry[]:
 * map_find() does not find them and no suite runs them; `maplab list`
 * shows them as unavailable, and a command that names one says why.
 * Defined in maps/registry.c beside map_registry[].
 */
#ifndef MAPLAB_UNAVAILABLE_H
#define MAPLAB_UNAVAILABLE_H

#include <stdint.h>

struct map_unavailable {
	const char *name; /* "hash/dpdk" */
	uint32_t type;    /* enum map_type */
	const char *why;  /* "built without DPDK" */
};

/* Every design this build lacks, ended by one whose name is NULL. */
extern const struct map_unavailable map_unavailable[];

/* Why the design called name is not in this build, or NULL. */
const char *map_unavailable_why(const char *name);

#endif /* MAPLAB_UNAVAILABLE_H */
