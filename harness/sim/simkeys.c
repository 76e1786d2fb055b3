/* SPDX-License-Identifier: MIT */
/*
 * simkeys.c: XXH64 and the table of string keys that counts collisions
 * (simkeys.h says why).
 *
 * XXH64, after Yann Collet's specification (xxhash.com, "xxHash fast
 * digest algorithm", XXH64): four lanes over 32-byte stripes, then 8-, 4-
 * and 1-byte tails, then an avalanche.  test_sim.c checks it against the
 * specification's values.
 */
#include "harness/sim/simkeys.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static uint64_t rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

/* Little-endian reads, whatever the host's order. */
static uint64_t read64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t read32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t lane_round(uint64_t acc, uint64_t input)
{
	acc += input * P2;
	return rotl(acc, 31) * P1;
}

static uint64_t merge_round(uint64_t h, uint64_t lane)
{
	h ^= lane_round(0, lane);
	return h * P1 + P4;
}

/* The four lanes over the whole 32-byte stripes, folded into one. */
static uint64_t stripes(const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	uint64_t v[4] = { P1 + P2, P2, 0, 0 - P1 };
	for (; end - p >= 32; p += 32)
		for (int i = 0; i < 4; i++)
			v[i] = lane_round(v[i], read64(p + 8 * i));
	*pp = p;
	uint64_t h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) +
		     rotl(v[3], 18);
	for (int i = 0; i < 4; i++)
		h = merge_round(h, v[i]);
	return h;
}

uint64_t sim_hash64(const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + len;
	uint64_t h = len >= 32 ? stripes(&p, end) : P5;
	h += len;
	for (; end - p >= 8; p += 8)
		h = rotl(h ^ lane_round(0, read64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		h = rotl(h ^ (uint64_t)read32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ h >> 32;
}

/* --- the table ------------------------------------------------------------- */

struct sim_key_slot {
	uint64_t id;
	char *text;   /* NULL: empty */
	size_t len;
};

void sim_keys_init(struct sim_keys *k, sim_key_hash hash)
{
	memset(k, 0, sizeof(*k));
	k->hash = hash ? hash : sim_hash64;
}

static size_t slot_of(const struct sim_keys *k, uint64_t id)
{
	/* Fibonacci hashing: a stub hash's small ids still spread out. */
	return (size_t)(id * 0x9e3779b97f4a7c15ULL >> 17) & (k->cap - 1);
}

static int grow(struct sim_keys *k)
{
	size_t cap = k->cap ? k->cap * 2 : 1024;
	struct sim_key_slot *old = k->slots;
	size_t old_cap = k->cap;
	struct sim_key_slot *s = calloc(cap, sizeof(*s));
	if (!s)
		return -ENOMEM;
	k->slots = s;
	k->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].text)
			continue;
		size_t j = slot_of(k, old[i].id);
		while (s[j].text)
			j = (j + 1) & (cap - 1);
		s[j] = old[i];
	}
	free(old);
	return 0;
}

/*
 * Slots holding one id sit in one probe run, so a walk from the id's slot
 * to the first empty one meets every string with that id: either this
 * string (seen before), or only others (a collision), or none.
 */
int sim_keys_id(struct sim_keys *k, const char *s, size_t len, uint64_t *id)
{
	if (2 * (k->used + 1) > k->cap && grow(k))
		return -ENOMEM;
	uint64_t h = k->hash(s, len);
	size_t j = slot_of(k, h);
	bool held = false;
	for (; k->slots[j].text; j = (j + 1) & (k->cap - 1)) {
		struct sim_key_slot *e = &k->slots[j];
		if (e->id != h)
			continue;
		if (e->len == len && memcmp(e->text, s, len) == 0) {
			*id = h;
			return 0;
		}
		held = true;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	k->slots[j] = (struct sim_key_slot){ h, copy, len };
	k->used++;
	if (held)
		k->collisions++;
	*id = h;
	return 0;
}

void sim_keys_free(struct sim_keys *k)
{
	for (size_t i = 0; i < k->cap; i++)
		free(k->slots[i].text);
	free(k->slots);
	k->slots = NULL;
	k->cap = k->used = 0;
}
