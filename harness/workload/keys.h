/* SPDX-License-Identifier: MIT */
/*
 * keys.h: key number n as the bytes of a key, per map type.  Workloads,
 * the stress checker and the tests number their keys 0, 1, 2...; this is
 * the one place that turns a number into what a map of each type takes.
 *
 *   hash, lru_hash   [ n, little-endian, first min(4, key_size) bytes ][ bytes scrambled from n ]
 *   lpm_trie         [ prefixlen = 8 * (key_size - 4), host order ][ scrambled ][ n, big-endian, last 4 ]
 *
 * An LPM key's first four bytes are a prefix length (the kernel's struct
 * bpf_lpm_trie_key_u8), not part of a counter: here every key is a full
 * length prefix, an address, with n in its low-order bytes (so
 * neighbouring numbers are neighbouring addresses, as in a real table).
 * Bytes past the counter are scrambled from n, so keys longer than a word
 * differ throughout, as real keys do.
 */
#ifndef MAPLAB_KEYS_H
#define MAPLAB_KEYS_H

#include <stdint.h>

/* Distinct numbers that fit in a key of this type and size (the counter
 * bytes: at most 4), or 0 when no key of this size can be made (an LPM
 * key needs at least one data byte). */
uint64_t key_capacity(uint32_t type, uint32_t key_size);

/* The key of number n (n < key_capacity). */
void key_encode(uint32_t type, uint64_t n, uint8_t *key, uint32_t key_size);

/* The number key_encode put into key, or UINT64_MAX when key is not one
 * key_encode makes (wrong prefix length, wrong scrambled bytes). */
uint64_t key_decode(uint32_t type, const uint8_t *key, uint32_t key_size);

#endif /* MAPLAB_KEYS_H */
