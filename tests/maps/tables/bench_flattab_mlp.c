/* SPDX-License-Identifier: MIT */
/*
 * flattab_mlp: where a hash/seqlock_buckets lookup's time goes, from the memory
 * system's floor up, one piece added at a time (docs/hash.md, "How far
 * from the physical limit").  A benchmark program, not a test:
 *
 *   build/tests/bench_flattab_mlp [ENTRIES ...]     (default: 65536 1048576)
 *
 * For a flat table (maps/tables/flattab.h) of ENTRIES 4-byte keys with
 * 8-byte values, each loop below reads its inputs from one array in
 * order (so no loop waits for its input) and does 4M ops; each figure is
 * the median ns per op of 5 runs:
 *
 *   load        one random 8-byte load from the table's bytes
 *   mul+load    a multiplicative hash of the key, a load of its bucket
 *   xxh3+load   XXH3 of the key (flattab_hash), a load of its bucket
 *   lookup      flattab_lookup, and a read of the value
 *   map_lookup  the same through hash/seqlock_buckets's map_ops (the indirect call
 *               bench's loop makes)
 *
 * and the same in the shape of a batch (hash/seqlock_buckets's lookup_batch):
 * BATCH keys hashed and their buckets asked for, then each read:
 *
 *   mul batch     the multiplicative hash, then a load of each bucket
 *   xxh3 batch    XXH3 inline (flattab_hash_inline), then a load of each
 *   lookup batch  XXH3 inline, then flattab_lookup and a read of each value
 *   map batch     map_lookup_batch through hash/seqlock_buckets's map_ops
 *
 * No op's address depends on an earlier op's load, so an out-of-order
 * core overlaps their misses, as many as fit in its window of in-flight
 * instructions: the more instructions an op takes, the fewer of its
 * misses overlap.  The steps between the lines show what each piece of
 * a lookup costs in that currency.
 */
#include "maps/tables/flattab.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "harness/common/clock.h"
#include "harness/common/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPS (1u << 22)
#define RUNS 5
#define BATCH 32

enum loop {
	LOAD, MUL_LOAD, XXH3_LOAD, LOOKUP, MAP_LOOKUP,
	MUL_BATCH, XXH3_BATCH, LOOKUP_BATCH, MAP_BATCH, N_LOOPS
};
static const char *const loop_names[N_LOOPS] = {
	"load", "mul+load", "xxh3+load", "lookup", "map_lookup",
	"mul batch", "xxh3 batch", "lookup batch", "map batch",
};

struct setup {
	struct flattab *t;  /* a flat table, for the first four loops */
	struct map *m;      /* a hash/seqlock_buckets map of the same keys (flat too) */
	uint32_t *keys;     /* OPS keys, uniform over the entries */
	uint64_t *words;    /* OPS word indices, uniform over the table */
	unsigned bucket_shift; /* 32 - log2(buckets) */
};

/* key's bucket, by the multiplicative hash or by the table's XXH3. */
static uint32_t bucket_of(const struct setup *s, bool xxh3,
			  const uint32_t *key)
{
	return xxh3 ? flattab_hash_inline(s->t, key) & s->t->mask
		    : (*key * 0x9e3779b1u) >> s->bucket_shift;
}

/* The batch loops: each BATCH keys hashed, their buckets asked for, then
 * each bucket read (or looked up in, or handed to the map whole). */
static uint64_t run_batch(const struct setup *s, enum loop l)
{
	const uint8_t *base = s->t->buckets;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < OPS; i += BATCH) {
		const uint32_t *keys = &s->keys[i];
		uint32_t b[BATCH];
		if (l == MAP_BATCH) {
			void *values[BATCH];
			map_lookup_batch(s->m, keys, BATCH, values);
			for (unsigned j = 0; j < BATCH; j++)
				sum += *(const uint64_t *)values[j];
			continue;
		}
		for (unsigned j = 0; j < BATCH; j++) {
			b[j] = bucket_of(s, l != MUL_BATCH, &keys[j]);
			__builtin_prefetch(base + ((size_t)b[j] << 6));
		}
		for (unsigned j = 0; j < BATCH; j++)
			sum += l == LOOKUP_BATCH
				? *flattab_lookup(s->t, b[j], &keys[j])
				: *(const uint64_t *)(base +
						      ((size_t)b[j] << 6));
	}
	return sum;
}

static uint64_t run_loop(const struct setup *s, enum loop l)
{
	if (l >= MUL_BATCH)
		return run_batch(s, l);
	const uint8_t *base = s->t->buckets;
	uint64_t sum = 0;
	for (uint32_t i = 0; i < OPS; i++) {
		uint32_t k = s->keys[i];
		switch (l) {
		case LOAD:
			sum += ((const uint64_t *)base)[s->words[i]];
			break;
		case MUL_LOAD:
			sum += *(const uint64_t *)(base +
				((size_t)bucket_of(s, false, &k) << 6));
			break;
		case XXH3_LOAD:
			sum += *(const uint64_t *)(base +
				((size_t)(flattab_hash(s->t, &k) & s->t->mask)
				 << 6));
			break;
		case LOOKUP:
			sum += *flattab_lookup(s->t, flattab_hash(s->t, &k), &k);
			break;
		default:
			sum += *(const uint64_t *)map_lookup(s->m, &k);
			break;
		}
	}
	return sum;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_ns(const struct setup *s, enum loop l, uint64_t *sink)
{
	double ns[RUNS];
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = clock_now_ns();
		*sink += run_loop(s, l);
		ns[r] = (double)(clock_now_ns() - t0) / OPS;
	}
	qsort(ns, RUNS, sizeof(ns[0]), compare_doubles);
	return ns[RUNS / 2];
}

/* The hash/seqlock_buckets map, filled, and the input arrays: 0 or -1. */
static int set_up(struct setup *s, uint32_t entries)
{
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = entries };
	if (map_create(map_find("hash/seqlock_buckets"), &a, &s->m))
		return -1;
	for (uint32_t k = 0; k < entries; k++) {
		uint64_t v = k;
		if (map_update(s->m, &k, &v, MAP_NOEXIST))
			return -1;
	}
	s->keys = malloc(sizeof(*s->keys) * OPS);
	s->words = malloc(sizeof(*s->words) * OPS);
	return s->keys && s->words ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint32_t defaults[] = { 65536, 1048576 };
	int n = argc > 1 ? argc - 1 : 2;
	uint64_t sink = 0;

	map_rcu_use(MAP_RCU_MEMB);
	map_thread_online();
	printf("%10s", "entries");
	for (int l = 0; l < N_LOOPS; l++)
		printf(" %12s", loop_names[l]);
	printf("   (ns per op, median of %d runs of %u ops)\n", RUNS, OPS);
	for (int i = 0; i < n; i++) {
		uint32_t entries = argc > 1 ? (uint32_t)strtoul(argv[i + 1], NULL, 0)
					    : defaults[i];
		struct flattab t;
		struct setup s = { .t = &t };
		struct rng rng;
		if (!entries || flattab_init(&t, entries, 4, false) ||
		    set_up(&s, entries)) {
			fprintf(stderr, "flattab_mlp: cannot build %u entries\n",
				entries);
			return 1;
		}
		s.t = &t;
		for (uint32_t k = 0; k < entries; k++)
			flattab_update(&t, flattab_hash(&t, &k), &k, k, MAP_NOEXIST);
		s.bucket_shift = 32 - (unsigned)__builtin_ctz(t.mask + 1);
		rng_seed(&rng, 1);
		for (uint32_t j = 0; j < OPS; j++) {
			s.keys[j] = (uint32_t)rng_below(&rng, entries);
			s.words[j] = rng_below(&rng, flattab_bytes(&t) / 8);
		}
		printf("%10u", entries);
		map_rcu_read_lock();
		for (int l = 0; l < N_LOOPS; l++)
			printf(" %12.1f", median_ns(&s, (enum loop)l, &sink));
		map_rcu_read_unlock();
		printf("\n");
		map_destroy(s.m);
		flattab_destroy(&t);
		free(s.keys);
		free(s.words);
	}
	map_thread_offline();
	return sink == 42; /* never: keeps every load */
}
