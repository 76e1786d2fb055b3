/* SPDX-License-Identifier: MIT */
/*
 * lru_letters.h: one-thread tests of an LRU policy written as letter
 * sequences, shared by the policy test files.
 *
 * Keys are one byte, so dumps stay short.  A request is a program's lookup;
 * a miss inserts the key.  In a sequence an upper-case letter requests that
 * key and a lower-case one deletes its upper-case key.  lru_replay()
 * answers one character per step: '.' a hit, '-' a miss that evicted
 * nothing, the evicted key's letter, or 'x' for a delete.
 */
#ifndef MAPLAB_TESTS_LRU_LETTERS_H
#define MAPLAB_TESTS_LRU_LETTERS_H

#include "maps/base/map.h"

#include <stdbool.h>
#include <stdint.h>

/* A fresh LRU map of `design` with one-byte keys and 8-byte values. */
struct map *lru_make(const char *design, uint32_t max_entries, uint32_t ncpus);
/* Insert key (BPF_NOEXIST); the test fails if the map refuses it. */
void lru_insert(struct map *m, uint8_t key);
/* A program's lookup, which marks the key; true on a hit. */
bool lru_use(struct map *m, uint8_t key);
/* Whether key is in the map, by a get_next_key walk: the one look at the
 * map that no design may count as a use. */
bool lru_present(struct map *m, uint8_t key);
/* A syscall lookup: true when it found key. */
bool lru_copy_out(struct map *m, uint8_t key);
/* A cache request (lookup; insert on a miss); true on a hit. */
bool lru_request(struct map *m, uint8_t key);
/* The answers to a letter sequence (a static buffer: copy to keep it). */
const char *lru_replay(struct map *m, const char *seq);
/* A fresh `design` of capacity `capacity` on one cpu slot must answer
 * `seq` with `want`. */
void lru_expect_evictions(const char *design, uint32_t capacity,
			  const char *seq, const char *want);
/* The map's inner state (map_ops.dump_state) as text; the caller
 * frees it. */
char *lru_state_text(struct map *m);
/* The text dump, each "@<digits>" dropped, must contain want. */
void lru_expect_in_dump(struct map *m, const char *want);

#endif /* MAPLAB_TESTS_LRU_LETTERS_H */
