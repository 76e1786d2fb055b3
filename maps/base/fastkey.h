/* SPDX-License-Identifier: MIT */
/*
 * fastkey.h: what the designs that are not the kernel's do with keys:
 * hash them with XXH3 (libxxhash, inlined from its header) instead of
 * jhash, and copy and compare them with the usual 4 and 8 bytes known to
 * the compiler, which then emits one move or one compare where a call to
 * memcpy or memcmp would stand.
 */
#ifndef MAPLAB_FASTKEY_H
#define MAPLAB_FASTKEY_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* XXH3, 64 bits cut to 32.  A constant length lets XXH3 inline its
 * short-key path: 4- and 8-byte keys cost a third of the general call. */
static inline uint32_t fastkey_hash(const void *key, uint32_t len,
				    uint32_t seed)
{
	switch (len) {
	case 4:
		return (uint32_t)XXH3_64bits_withSeed(key, 4, seed);
	case 8:
		return (uint32_t)XXH3_64bits_withSeed(key, 8, seed);
	default:
		return (uint32_t)XXH3_64bits_withSeed(key, len, seed);
	}
}

static inline void fastkey_copy(void *dst, const void *src, uint32_t n)
{
	if (n == 4)
		memcpy(dst, src, 4);
	else if (n == 8)
		memcpy(dst, src, 8);
	else
		memcpy(dst, src, n);
}

static inline bool fastkey_equal(const void *a, const void *b, uint32_t n)
{
	if (n == 4)
		return memcmp(a, b, 4) == 0;
	if (n == 8)
		return memcmp(a, b, 8) == 0;
	return memcmp(a, b, n) == 0;
}

#endif /* MAPLAB_FASTKEY_H */
