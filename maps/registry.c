/* SPDX-License-Identifier: MIT */
/*
 * registry.c: every design maplab knows, by name.
 *
 * To add a design: write maps/<family>/<design>.c ending in a
 * `const struct map_ops <family>_<design>_ops`, declare it below, add it to
 * map_registry[], and add the file to maps/meson.build.  The conformance
 * suite then runs on it without further changes.
 */
#include "common/map.h"

#include <string.h>

extern const struct map_ops hash_linux_ops;
extern const struct map_ops hash_rculfhash_ops;

const struct map_ops *const map_registry[] = {
	&hash_linux_ops,
	&hash_rculfhash_ops,
	NULL,
};

const struct map_ops *map_find(const char *name)
{
	for (size_t i = 0; map_registry[i]; i++)
		if (strcmp(map_registry[i]->name, name) == 0)
			return map_registry[i];
	return NULL;
}

const struct map_ops *map_find_faithful(uint32_t type, uint32_t flags)
{
	(void)flags; /* lru/linux_percpu will answer NO_COMMON_LRU here */
	for (size_t i = 0; map_registry[i]; i++)
		if (map_registry[i]->type == type && map_registry[i]->faithful)
			return map_registry[i];
	return NULL;
}
