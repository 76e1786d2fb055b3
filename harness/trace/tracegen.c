/* SPDX-License-Identifier: MIT */
/*
 * tracegen.c: see tracegen.h.  One pass of the seeded generator: each line
 * draws its operation and key number, an update its value bytes and flag.
 * An LPM trie's traces (key_size over 4) have their own keys and their own
 * pass, in tracegen_lpm.c.
 */
#include "harness/trace/tracegen.h"
#include "harness/trace/tracegen_internal.h"
#include "harness/trace/hex.h"
#include "harness/trace/membuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Key number k's bytes: a scramble of k, so neighbours land far apart. */
static void key_bytes(uint64_t seed, unsigned k, uint8_t *key, uint32_t size)
{
	for (uint32_t off = 0; off < size; off += 8) {
		uint64_t w = rng_mix64(seed ^ ((uint64_t)k << 20) ^ off);
		uint32_t n = size - off < 8 ? size - off : 8;
		memcpy(key + off, &w, n);
	}
}

/* Key number k, as a hash or LRU map's key (an LPM trie's whose key size
 * the kernel refuses too: its map is never made, so any bytes do). */
static void put_key(FILE *out, const struct tracegen_opts *o, uint8_t *buf,
		    unsigned k)
{
	key_bytes(o->seed, k, buf, o->attr.key_size);
	putc(' ', out);
	hex_print(out, buf, o->attr.key_size);
}

int tracegen_write(FILE *out, const struct tracegen_opts *o)
{
	bool lpm = o->attr.type == MAP_TYPE_LPM_TRIE &&
		   o->attr.key_size > TRACEGEN_LPM_PREFIX_BYTES &&
		   o->attr.key_size <= TRACEGEN_LPM_PREFIX_BYTES + TRACEGEN_LPM_DATA_MAX;
	/* An LPM trace's deletes aim at branch points and stray keys as well
	 * as at the key space: twice max_entries keeps its map as full. */
	uint64_t wide = (uint64_t)o->attr.max_entries * (lpm ? 4 : 3) / 2 + 2;
	unsigned space = o->key_space ? o->key_space
				      : wide > UINT32_MAX ? UINT32_MAX : (unsigned)wide;
	struct rng r;

	rng_seed(&r, o->seed);
	if (lpm)
		return tracegen_lpm_write(out, o, &r, space);

	uint8_t *key = malloc(o->attr.key_size ? o->attr.key_size : 1);
	uint8_t *value = malloc(o->attr.value_size ? o->attr.value_size : 1);
	if (!key || !value) {
		free(key);
		free(value);
		return -ENOMEM;
	}
	tracegen_put_head(out, o, space, "");

	struct tracegen_cpus cpus;
	tracegen_cpus_init(&cpus, o);
	int rc = 0;
	for (uint64_t i = 0; i < o->ops && !(rc = tracegen_write_error(out));
	     i++) {
		tracegen_put_cpu(out, &cpus);
		unsigned dice = (unsigned)rng_below(&r, 100);
		unsigned k = (unsigned)rng_below(&r, space);
		if (dice < P_UPDATE) {
			fputs("update", out);
			put_key(out, o, key, k);
			tracegen_put_value(out, &r, value, o->attr.value_size);
			fprintf(out, " %s\n",
				tracegen_update_flags[rng_below(&r, 4) % 3]);
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
	if (!rc) {
		fputs("dump\n", out);
		rc = tracegen_write_error(out);
	}
	free(key);
	free(value);
	return rc;
}

char *tracegen_string(const struct tracegen_opts *opts)
{
	struct membuf b;
	FILE *f = membuf_open(&b);
	if (!f)
		return NULL;
	int rc = tracegen_write(f, opts);
	if (!rc)
		rc = fputc('\0', f) == EOF || fflush(f) ? -ENOMEM : 0;
	if (fclose(f) != 0 || rc != 0) {
		free(b.text);
		return NULL;
	}
	return b.text;
}
