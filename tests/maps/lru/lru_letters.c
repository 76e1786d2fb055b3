/* SPDX-License-Identifier: MIT */
/* lru_letters.c: letter-sequence tests of an LRU policy (lru_letters.h). */
#include "tests/maps/lru/lru_letters.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maps/base/rcu.h"

/* One-byte keys, so dumps stay short. */
struct map *lru_make(const char *design, uint32_t max_entries,
			uint32_t ncpus)
{
	struct map_attr a = { .type = MAP_TYPE_LRU_HASH, .key_size = 1,
			      .value_size = 8, .max_entries = max_entries,
			      .ncpus = ncpus };
	struct map *m = NULL;
	const struct map_ops *ops = map_find(design);
	cr_assert_not_null(ops, "no design %s", design);
	cr_assert_eq(map_create(ops, &a, &m), 0, "%s: create", design);
	return m;
}

void lru_insert(struct map *m, uint8_t key)
{
	uint64_t v = key;
	cr_assert_eq(map_update(m, &key, &v, MAP_NOEXIST), 0, "insert %u", key);
}

/* A program's lookup, which marks the key. */
bool lru_use(struct map *m, uint8_t key)
{
	map_rcu_read_lock();
	bool hit = map_lookup(m, &key) != NULL;
	map_rcu_read_unlock();
	return hit;
}

/*
 * Whether key is in the map, found by a get_next_key walk: the one look
 * at the map that no design can count as a use (lookup_copy is tested to
 * be none, and must not be trusted while it is).
 */
bool lru_present(struct map *m, uint8_t key)
{
	uint8_t cur, next;
	for (int err = map_get_next_key(m, NULL, &next); !err;
	     err = map_get_next_key(m, &cur, &next)) {
		if (next == key)
			return true;
		cur = next;
	}
	return false;
}

/* A syscall lookup: true when it found key. */
bool lru_copy_out(struct map *m, uint8_t key)
{
	uint64_t v;
	return map_lookup_copy(m, &key, &v) == 0;
}

/* A cache request; true on a hit. */
bool lru_request(struct map *m, uint8_t key)
{
	if (lru_use(m, key))
		return true;
	lru_insert(m, key);
	return false;
}

/* The key among A..Z present before but not now, or '-'. */
static char gone_since(struct map *m, const bool before[26])
{
	for (int l = 0; l < 26; l++)
		if (before[l] && !lru_present(m, (uint8_t)('A' + l)))
			return (char)('A' + l);
	return '-';
}

const char *lru_replay(struct map *m, const char *seq)
{
	static char out[64];
	size_t i = 0;
	for (; seq[i] && i < sizeof(out) - 1; i++) {
		uint8_t key = (uint8_t)toupper((unsigned char)seq[i]);
		if (islower((unsigned char)seq[i])) {
			cr_assert_eq(map_delete(m, &key), 0, "delete %c", key);
			out[i] = 'x';
			continue;
		}
		bool before[26];
		for (int l = 0; l < 26; l++)
			before[l] = lru_present(m, (uint8_t)('A' + l));
		out[i] = lru_request(m, key) ? '.' : gone_since(m, before);
	}
	out[i] = '\0';
	return out;
}

/* The map's inner state (map_ops.dump_state) as text; the caller frees
 * it. */
char *lru_state_text(struct map *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(m->ops->dump_state(m, f, MAP_DUMP_TEXT), 0);
	fclose(f);
	return buf;
}

/* Drops each "@<digits>" (a key's last use in lru/partitioned's dump). */
static void drop_times(char *text)
{
	char *out = text;
	for (const char *in = text; *in;) {
		if (*in == '@') {
			for (in++; isdigit((unsigned char)*in); in++)
				;
			continue;
		}
		*out++ = *in++;
	}
	*out = '\0';
}

void lru_expect_in_dump(struct map *m, const char *want)
{
	char *text = lru_state_text(m);
	drop_times(text);
	cr_expect(strstr(text, want) != NULL, "want \"%s\" in:\n%s", want, text);
	free(text);
}

void lru_expect_evictions(const char *design, uint32_t capacity,
			  const char *seq, const char *want)
{
	struct map *m = lru_make(design, capacity, 1);
	cr_expect_str_eq(lru_replay(m, seq), want, "%s, requests %s", design,
			 seq);
	map_destroy(m);
}
