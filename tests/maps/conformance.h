/* SPDX-License-Identifier: MIT */
/*
 * conformance.h: what every family's conformance suite shares (after
 * Concurrency Kit's regressions/<structure>/validate programs): running a
 * check on every design of one map type, numbered keys and values, checked
 * operations, and the checks that hold for every BPF map with keys
 * (updates and their flags, lookups, deletes, iteration, key and value
 * sizes).  A family's suite (conformance_<family>.c) adds what is its
 * own: creation errors, what a full map does, the kernel's iteration
 * order.  Keys and values know the map type (an LPM key starts with its
 * prefix length), so the same checks serve every family.
 *
 * Every check takes a `struct vcase`: one design, one set of creation
 * flags.  run_on_designs() calls a check on every design of a type in
 * map_registry[], once per flag set, and fails when there is no such
 * design: a suite that tests nothing must not pass.
 */
#ifndef MAPLAB_TEST_CONFORMANCE_H
#define MAPLAB_TEST_CONFORMANCE_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/base/map.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A design that loops forever fails its test instead of hanging the run. */
#define TEST_TIMEOUT_S 60

/* Largest key or value data of the size tests; guard bytes after one. */
#define MAX_KV 512
#define GUARD 8
#define CANARY 0xEE

/* One design with one set of creation flags, and its name for messages. */
struct vcase {
	const struct map_ops *ops;
	uint32_t type;
	uint32_t flags;
	int full_err;   /* an insert into a full map: -E2BIG (hash),
			   -ENOSPC (trie), 0 (an LRU evicts instead) */
	char name[96];
};

typedef void (*case_check)(const struct vcase *c);

/* Every design of `type`, once per flag set.  Fails when none ran. */
void run_on_designs(uint32_t type, const uint32_t *flag_sets, size_t n_sets,
		    case_check check);
#define ON_EVERY_DESIGN(type, flag_sets, check) \
	run_on_designs(type, flag_sets, ARRAY_SIZE(flag_sets), check)

/* A case for design ops with flags (for checks that vary the flags). */
void describe(struct vcase *c, const struct map_ops *ops, uint32_t type,
	      uint32_t flags);

/* Create a map of the case's design with room for max_entries keys (more
 * entries for a design that evicts early); asserts it worked. */
struct map *new_map_ncpus(const struct vcase *c, uint32_t key_size,
			  uint32_t value_size, uint32_t max_entries,
			  uint32_t ncpus);
struct map *new_map(const struct vcase *c, uint32_t key_size,
		    uint32_t value_size, uint32_t max_entries);

/* Run the calling thread as cpu slot `slot` (0: no claimed slot). */
void use_slot(unsigned slot);
/* The highest slot a map created with ncpus = 0 serves. */
unsigned last_slot(void);

/*
 * The keys and values one check uses, numbered 0..n-1.  An LPM map's key
 * starts with a 4-byte prefix length (all the data bits); the data follows.
 *
 * per_set == 0: 4 data bytes holding the number (host order).
 * per_set > 0: data of key_size bytes, all equal to base except:
 *   key 2x   has base's LAST byte xor x,         x < per_set
 *   key 2x+1 has base's FIRST byte xor (0x80|x), x < per_set
 * so keys differ in one byte only; keys n and n+1 are absent ones of each
 * kind.  (With one data byte both kinds are that byte; bit 7 tells them
 * apart.)
 */
struct space {
	uint32_t header;   /* 4 for an LPM key's prefix length, else 0 */
	uint32_t key_size; /* header + data */
	uint32_t value_size;
	uint32_t n;
	uint32_t per_set;
	uint8_t base[MAX_KV];
};

struct space int_space(const struct vcase *c, uint32_t value_size, uint32_t n);
struct space byte_space(const struct vcase *c, uint32_t data_size,
			uint32_t value_size, uint32_t per_set);
void make_key(const struct space *sp, uint32_t i, uint8_t *key);
/* The number of key in sp, or -1 if it is none of keys 0..n-1. */
long key_number(const struct space *sp, const uint8_t *key);
/* Value generation gen of key i: its first 4 bytes differ between keys. */
void make_value(uint32_t value_size, uint32_t i, uint32_t gen,
		uint8_t *value);

/* --- operations, checked: each asserts, naming the case and the key ------ */

int put(struct map *m, const struct space *sp, uint32_t i, uint32_t gen,
	uint64_t flags);
void expect_put(const struct vcase *c, struct map *m, const struct space *sp,
		uint32_t i, uint32_t gen, uint64_t flags, int want);
void expect_delete(const struct vcase *c, struct map *m,
		   const struct space *sp, uint32_t i, int want);
/* Key i holds value generation gen, seen by both lookups. */
void expect_entry(const struct vcase *c, struct map *m,
		  const struct space *sp, uint32_t i, uint32_t gen);
/* Key i is absent: both lookups say so, and lookup_copy writes nothing. */
void expect_absent(const struct vcase *c, struct map *m,
		   const struct space *sp, uint32_t i);
/* get_next_key from NULL meets each key i with live[i] once, nothing else. */
void expect_walk(const struct vcase *c, struct map *m, const struct space *sp,
		 const bool *live);
bool *new_live(uint32_t n);
size_t first_difference(const uint8_t *a, const uint8_t *b, size_t n);

/* --- the shared checks ------------------------------------------------------ */

void check_any_inserts_and_replaces(const struct vcase *c);
void check_noexist(const struct vcase *c);
void check_exist(const struct vcase *c);
void check_bad_update_flags(const struct vcase *c);
void check_absent_keys(const struct vcase *c);
void check_delete_then_lookup(const struct vcase *c);
void check_program_lookup(const struct vcase *c);
/* A write through a lookup's pointer survives inserts and deletes of
 * other keys (64 of them, in a map of 64). */
void check_write_survives_other_updates(const struct vcase *c);
/* map_lookup_batch of present and absent keys, at several batch sizes,
 * gives each key what map_lookup gives it, and counts the hits. */
void check_batch_lookup(const struct vcase *c);
void check_walk_empty(const struct vcase *c);
void check_walk_every_key(const struct vcase *c);
void check_walk_after_changes(const struct vcase *c);
void check_drain_by_walk(const struct vcase *c);
/* Hash semantics of get_next_key: a key not in the map restarts the walk
 * at the first key (hash and LRU hash; a trie has its own order). */
void check_walk_restarts(const struct vcase *c);
/* Data of 1..512 bytes (an LPM key's up to 256) and values of 1..512. */
void check_sizes(const struct vcase *c);

#endif /* MAPLAB_TEST_CONFORMANCE_H */
