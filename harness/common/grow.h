/* SPDX-License-Identifier: MIT */
/*
 * grow.h: room in a growable array, the one way the harness grows one.
 *
 *   struct item *v = grow_array(t->v, &t->cap, t->n + 1, sizeof(*v), 64);
 *   if (!v)
 *       return -ENOMEM;      (t->v and t->cap untouched)
 *   t->v = v;
 *
 * The capacity doubles from `first` until `need` fits, so n appends cost
 * O(n) copies in all.
 */
#ifndef MAPLAB_GROW_H
#define MAPLAB_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* v with room for `need` items of `size` bytes: v itself where *cap holds
 * them, else v reallocated and *cap raised; NULL (v and *cap untouched)
 * when out of memory or the size overflows. */
static inline void *grow_array(void *v, size_t *cap, size_t need, size_t size,
			       size_t first)
{
	if (need <= *cap)
		return v;
	size_t n = *cap ? *cap : first;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		return NULL;
	void *p = realloc(v, n * size);
	if (p)
		*cap = n;
	return p;
}

#endif /* MAPLAB_GROW_H */
