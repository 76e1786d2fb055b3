/* SPDX-License-Identifier: MIT */
/*
 * jhash.h: Bob Jenkins' lookup3 hash (2006, public domain), in the form the
 * Linux kernel uses for BPF hash maps (include/linux/jhash.h):
 *
 *   a = b = c = 0xdeadbeef + length + initval
 *   while more than 12 bytes remain: add 12 bytes into a, b, c; mix
 *   add the last 1..12 bytes (little-endian words); final; return c
 *   (0 bytes: return c unmixed)
 *
 * The kernel hashes a key with jhash2() on 32-bit words when key_size is a
 * multiple of 4 and with jhash() on bytes otherwise; on a little-endian
 * machine both give the same value, so map_jhash() below is the one
 * function for both.  With BPF_F_ZERO_SEED the seed (initval) is 0 and a
 * maplab map puts every key in the same bucket as the kernel does.
 */
#ifndef MAPLAB_JHASH_H
#define MAPLAB_JHASH_H

#include <stdint.h>
#include <string.h>

#define MAP_JHASH_INITVAL 0xdeadbeefU

static inline uint32_t map_rol32(uint32_t w, unsigned s)
{
	return (w << s) | (w >> (32 - s));
}

#define MAP_JHASH_MIX(a, b, c)                                   \
	do {                                                     \
		a -= c; a ^= map_rol32(c, 4);  c += b;           \
		b -= a; b ^= map_rol32(a, 6);  a += c;           \
		c -= b; c ^= map_rol32(b, 8);  b += a;           \
		a -= c; a ^= map_rol32(c, 16); c += b;           \
		b -= a; b ^= map_rol32(a, 19); a += c;           \
		c -= b; c ^= map_rol32(b, 4);  b += a;           \
	} while (0)

#define MAP_JHASH_FINAL(a, b, c)                                 \
	do {                                                     \
		c ^= b; c -= map_rol32(b, 14);                   \
		a ^= c; a -= map_rol32(c, 11);                   \
		b ^= a; b -= map_rol32(a, 25);                   \
		c ^= b; c -= map_rol32(b, 16);                   \
		a ^= c; a -= map_rol32(c, 4);                    \
		b ^= a; b -= map_rol32(a, 14);                   \
		c ^= b; c -= map_rol32(b, 24);                   \
	} while (0)

/* Little-endian load of n (1..4) bytes, zero-extended. */
static inline uint32_t map_jhash_load(const uint8_t *p, unsigned n)
{
	uint32_t w = 0;
	for (unsigned i = 0; i < n; i++)
		w |= (uint32_t)p[i] << (8 * i);
	return w;
}

static inline uint32_t map_jhash(const void *key, uint32_t length,
				 uint32_t initval)
{
	const uint8_t *k = key;
	uint32_t a, b, c;

	a = b = c = MAP_JHASH_INITVAL + length + initval;
	while (length > 12) {
		uint32_t w[3];
		memcpy(w, k, 12); /* little-endian host: words = bytes */
		a += w[0];
		b += w[1];
		c += w[2];
		MAP_JHASH_MIX(a, b, c);
		length -= 12;
		k += 12;
	}
	if (length == 0)
		return c;
	a += map_jhash_load(k, length < 4 ? length : 4);
	if (length > 4)
		b += map_jhash_load(k + 4, length < 8 ? length - 4 : 4);
	if (length > 8)
		c += map_jhash_load(k + 8, length - 8);
	MAP_JHASH_FINAL(a, b, c);
	return c;
}

#endif /* MAPLAB_JHASH_H */
