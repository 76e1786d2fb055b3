/* SPDX-License-Identifier: MIT */
/*
 * lpm_key.h: the LPM key as every LPM design reads it: the kernel's struct
 * bpf_lpm_trie_key_u8, a 4-byte prefix length in host order, then the
 * data, most significant bit first.  The caller's bytes need not be
 * aligned, so the length is copied out, never cast.
 */
#ifndef MAPLAB_LPM_KEY_H
#define MAPLAB_LPM_KEY_H

#include "maps/base/attr.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline uint32_t lpm_prefixlen_of(const void *key)
{
	uint32_t len;
	memcpy(&len, key, sizeof(len));
	return len;
}

static inline const uint8_t *lpm_data_of(const void *key)
{
	return (const uint8_t *)key + MAP_LPM_PREFIX_BYTES;
}

/* An IPv4 key's address (its 4 data bytes, most significant first) as a
 * host-order word: one load and a byte swap. */
static inline uint32_t lpm_ipv4_address(const uint8_t *data)
{
	uint32_t be;
	memcpy(&be, data, sizeof(be));
	return __builtin_bswap32(be);
}

/* A prefix as dumps print it: dotted quad for 4 data bytes, groups of
 * four hex digits for 16, plain hex otherwise; then /prefixlen. */
void lpm_print_prefix(FILE *f, const uint8_t *data, uint32_t data_size,
		      uint32_t prefixlen);

#endif /* MAPLAB_LPM_KEY_H */
