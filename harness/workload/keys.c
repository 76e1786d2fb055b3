/* SPDX-License-Identifier: MIT */
#include "harness/workload/keys.h"
#include "harness/common/rng.h"
#include "maps/base/map.h"

#include <stdbool.h>
#include <string.h>

#define LPM_PREFIX_BYTES 4

static uint32_t counter_bytes(uint32_t data_bytes)
{
	return data_bytes < 4 ? data_bytes : 4;
}

uint64_t key_capacity(uint32_t type, uint32_t key_size)
{
	uint32_t data = key_size;
	if (type == MAP_TYPE_LPM_TRIE) {
		if (key_size <= LPM_PREFIX_BYTES)
			return 0;
		data = key_size - LPM_PREFIX_BYTES;
	}
	return 1ULL << (8 * counter_bytes(data));
}

static uint8_t scramble(uint64_t n, uint32_t i)
{
	return (uint8_t)(rng_mix64(n * 8 + i / 8) >> (8 * (i % 8)));
}

/* The data bytes of a key: data[0..len), with the counter at `at`. */
static void encode_data(uint64_t n, uint8_t *data, uint32_t len, bool big_end)
{
	uint32_t c = counter_bytes(len);
	uint32_t at = big_end ? len - c : 0;
	for (uint32_t i = 0; i < len; i++)
		data[i] = scramble(n, i);
	for (uint32_t i = 0; i < c; i++)
		data[at + (big_end ? c - 1 - i : i)] = (uint8_t)(n >> (8 * i));
}

/* The counter, or UINT64_MAX when a scrambled byte is not n's. */
static uint64_t decode_data(const uint8_t *data, uint32_t len, bool big_end)
{
	uint32_t c = counter_bytes(len);
	uint32_t at = big_end ? len - c : 0;
	uint64_t n = 0;
	for (uint32_t i = 0; i < c; i++)
		n |= (uint64_t)data[at + (big_end ? c - 1 - i : i)] << (8 * i);
	for (uint32_t i = 0; i < len; i++)
		if ((i < at || i >= at + c) && data[i] != scramble(n, i))
			return UINT64_MAX;
	return n;
}

void key_encode(uint32_t type, uint64_t n, uint8_t *key, uint32_t key_size)
{
	if (type != MAP_TYPE_LPM_TRIE) {
		encode_data(n, key, key_size, false);
		return;
	}
	uint32_t prefixlen = 8 * (key_size - LPM_PREFIX_BYTES);
	memcpy(key, &prefixlen, LPM_PREFIX_BYTES);
	encode_data(n, key + LPM_PREFIX_BYTES, key_size - LPM_PREFIX_BYTES, true);
}

uint64_t key_decode(uint32_t type, const uint8_t *key, uint32_t key_size)
{
	if (type != MAP_TYPE_LPM_TRIE)
		return decode_data(key, key_size, false);
	uint32_t prefixlen;
	memcpy(&prefixlen, key, LPM_PREFIX_BYTES);
	if (key_size <= LPM_PREFIX_BYTES ||
	    prefixlen != 8 * (key_size - LPM_PREFIX_BYTES))
		return UINT64_MAX;
	return decode_data(key + LPM_PREFIX_BYTES, key_size - LPM_PREFIX_BYTES,
			   true);
}
