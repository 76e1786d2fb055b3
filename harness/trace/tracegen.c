/* SPDX-License-Identifier: MIT */
/*
 * tracegen.c: see tracegen.h.  One pass of the seeded generator: each line
 * draws its operation and key number, an update its value bytes and flag.
 */
#include "tracegen.h"
#include "hex.h"
#include "harness/common/parse.h"
#include "harness/common/rng.h"

#include <stdlib.h>
#include <string.h>

/* Operation mix, in percent of lines. */
enum { P_UPDATE = 40, P_LOOKUP = 18, P_PLOOKUP = 8, P_DELETE = 18, P_NEXT = 14 };

/* Key number k's bytes: a scramble of k, so neighbours land far apart. */
static void key_bytes(uint64_t seed, unsigned k, uint8_t *key, uint32_t size)
{
	for (uint32_t off = 0; off < size; off += 8) {
		uint64_t w = rng_mix64(seed ^ ((uint64_t)k << 20) ^ off);
		uint32_t n = size - off < 8 ? size - off : 8;
		memcpy(key + off, &w, n);
	}
}

/* An LPM key is a 4-byte host-order prefix length, then the data: here a
 * full-length prefix of scrambled data (an address). */
#define LPM_PREFIX_BYTES 4

static void put_key(FILE *out, const struct tracegen_opts *o, uint8_t *buf,
		    unsigned k)
{
	uint32_t size = o->attr.key_size;
	if (o->attr.type == MAP_TYPE_LPM_TRIE && size > LPM_PREFIX_BYTES) {
		uint32_t prefixlen = 8 * (size - LPM_PREFIX_BYTES);
		memcpy(buf, &prefixlen, LPM_PREFIX_BYTES);
		key_bytes(o->seed, k, buf + LPM_PREFIX_BYTES,
			  size - LPM_PREFIX_BYTES);
	} else {
		key_bytes(o->seed, k, buf, size);
	}
	putc(' ', out);
	hex_print(out, buf, o->attr.key_size);
}

static void put_value(FILE *out, struct rng *r, uint8_t *buf, uint32_t size)
{
	for (uint32_t i = 0; i < size; i++)
		buf[i] = (uint8_t)rng_next(r);
	putc(' ', out);
	hex_print(out, buf, size);
}

void tracegen_write(FILE *out, const struct tracegen_opts *o)
{
	static const char *const update_flags[] = { "any", "noexist", "exist" };
	uint64_t wide = (uint64_t)o->attr.max_entries * 3 / 2 + 2;
	unsigned space = o->key_space ? o->key_space
				      : wide > UINT32_MAX ? UINT32_MAX : (unsigned)wide;
	uint8_t *key = malloc(o->attr.key_size ? o->attr.key_size : 1);
	uint8_t *value = malloc(o->attr.value_size ? o->attr.value_size : 1);
	struct rng r;
	char flags[160];

	if (!key || !value) {
		free(key);
		free(value);
		return;
	}
	rng_seed(&r, o->seed);
	fprintf(out, "# maplab tracegen seed=%llu ops=%llu key_space=%u\n",
		(unsigned long long)o->seed, (unsigned long long)o->ops, space);
	fprintf(out, "map %s key_size=%u value_size=%u max_entries=%u",
		map_type_name(o->attr.type), o->attr.key_size,
		o->attr.value_size, o->attr.max_entries);
	if (o->attr.flags)
		fprintf(out, " flags=%s",
			format_map_flags(o->attr.flags, flags, sizeof(flags)));
	putc('\n', out);

	for (uint64_t i = 0; i < o->ops; i++) {
		unsigned dice = (unsigned)rng_below(&r, 100);
		unsigned k = (unsigned)rng_below(&r, space);
		if (dice < P_UPDATE) {
			fputs("update", out);
			put_key(out, o, key, k);
			put_value(out, &r, value, o->attr.value_size);
			fprintf(out, " %s\n", update_flags[rng_below(&r, 4) % 3]);
		} else if ((dice -= P_UPDATE) < P_LOOKUP) {
			fputs("lookup", out);
			put_key(out, o, key, k);
			putc('\n', out);
		} else if ((dice -= P_LOOKUP) < P_PLOOKUP) {
			fputs("plookup", out);
			put_key(out, o, key, k);
			putc('\n', out);
		} else if ((dice -= P_PLOOKUP) < P_DELETE) {
			fputs("delete", out);
			put_key(out, o, key, k);
			putc('\n', out);
		} else if ((dice -= P_DELETE) < P_NEXT) {
			fputs("next", out);
			if (rng_below(&r, 8) == 0)
				fputs(" -", out);
			else
				put_key(out, o, key, k);
			putc('\n', out);
		} else {
			fputs("dump\n", out);
		}
	}
	fputs("dump\n", out);
	free(key);
	free(value);
}

char *tracegen_string(const struct tracegen_opts *opts)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	tracegen_write(f, opts);
	fclose(f);
	return text;
}
