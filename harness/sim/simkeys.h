/* SPDX-License-Identifier: MIT */
/*
 * simkeys.h: string keys made 8-byte ids, as sim's traces need them.
 *
 * Cache traces such as Twitter's and Meta's name objects by strings
 * ("user:123").  sim replays 8-byte ids, so each string is hashed to 64
 * bits with xxHash's XXH64 (seed 0), written here from its specification
 * so that every build, with or without libxxhash, gives the same ids.
 * Two different strings can hash to one id; the table below keeps the
 * first string seen for each id and counts each later distinct string
 * that lands on an id some other string holds: the report's collisions.
 * Its memory grows with the distinct strings, not with the requests.
 */
#ifndef MAPLAB_SIMKEYS_H
#define MAPLAB_SIMKEYS_H

#include <stddef.h>
#include <stdint.h>

/* The hash's name, for the report. */
#define SIM_KEYS_HASH "xxh64"

/* XXH64 of len bytes at p, seed 0. */
uint64_t sim_hash64(const void *p, size_t len);

typedef uint64_t (*sim_key_hash)(const void *p, size_t len);

struct sim_key_slot;

struct sim_keys {
	sim_key_hash hash;          /* sim_hash64; a test may give its own */
	struct sim_key_slot *slots; /* open addressing, linear probes */
	size_t cap, used;
	uint64_t collisions;        /* distinct strings on an id held by another */
};

/* An empty table hashing with hash (NULL: sim_hash64).  Nothing to
 * allocate until the first key. */
void sim_keys_init(struct sim_keys *k, sim_key_hash hash);

/* The id of the string s[0..len): its hash; a string not seen before whose
 * hash another string holds counts one collision.  0, or -ENOMEM. */
int sim_keys_id(struct sim_keys *k, const char *s, size_t len, uint64_t *id);

void sim_keys_free(struct sim_keys *k);

#endif /* MAPLAB_SIMKEYS_H */
