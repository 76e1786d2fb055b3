/* SPDX-License-Identifier: MIT */
/*
 * workload.h: what a benchmark asks of a map, and the precomputed streams
 * of operations each worker replays, so that choosing keys costs nothing
 * while the clock runs.
 *
 * Keys are numbered, and the first prefill % of entries (keys 0, 1, ...)
 * are inserted before timing.  Two models choose the keys of the ops:
 *
 * The pool model (no key range).  0..entries-1 are the map's keys: lookups
 * and updates (and upserts, replaces, lookup_writes) draw from all of them
 * (so prefill < 100 gives lookup misses).  Each worker also owns a private pool of fresh keys above
 * entries: its inserts take the next pool key and its deletes remove the
 * oldest key it inserted, so insert + delete pairs keep the map's size
 * steady, and every stream ends with as many deletes as inserts, so it can
 * be replayed in a loop.  Nothing is evicted unless inserts find the map
 * full.
 *
 * The range model (key_range > 0): every op, of every worker, draws its
 * key from 0..key_range-1 by the distribution.  With a range larger than
 * max_entries the map cannot hold every key, so an LRU map keeps evicting:
 * an insert of an absent key evicts when the map is full, an insert of a
 * present one is EEXIST, an update of a key evicted meanwhile is ENOENT,
 * and a lookup misses as often as its key was evicted.  Streams need no
 * closing deletes: they loop as they are.
 *
 *   op            map call                          counts as ok when
 *   lookup        lookup (program-style, in RCU)    the key is found
 *   update        update(key, value, BPF_EXIST)     the key was there and is
 *                                                   replaced
 *   insert        update(key, value, BPF_NOEXIST)   a new key went in
 *   delete        delete(key)                       a key went out
 *   upsert        update(key, value, BPF_ANY)       the update returned 0 (the
 *                                                   key replaced, or put in)
 *   replace       delete(key), then                 both calls returned 0 (the
 *                 update(key, value, BPF_ANY)       key was there, and is back)
 *   lookup_write  lookup (program-style); found:    found and written, or put
 *                 write the value's first           in (a failed insert fails)
 *                 min(4, value_size) bytes in
 *                 place; absent: update(key, value,
 *                 BPF_NOEXIST)
 *
 * upsert, replace and lookup_write are microsoft/bpf_performance's
 * "update", "replace" and rolling_lru tests (docs/bench.md).  Their keys
 * are drawn as update's (lookup_write's as lookup's), from the map's keys
 * or the range, never from a worker's pool: a pool's 64 keys stay in the
 * cache and would make a replace look cheaper than the suite's.  A
 * replace always makes both calls, so a replace of an absent key (the
 * range model) puts the key in and still fails.
 *
 * A prefix workload (prefixes != PREFIXES_NONE: an LPM trie's, or a hash's
 * on the same addresses) takes its keys from a prefix table
 * (harness/workload/prefixes.h) rather than from keys.h: the entries are
 * prefixes of the set, a pool's keys are further prefixes of it, and a
 * lookup asks for a full-length address, one inside the key drawn (a
 * hit), or with probability miss_ppm / 10^6 one that no prefix covers (a
 * miss).  Updates, inserts and deletes name prefixes.  The key table
 * holds every key a stream names, addresses included, in sections
 * (struct workload_layout), so a stream op is a key number for every
 * side alike, the kernel's BPF programs included:
 *
 *   0 .. stored-1        the entries (the range), prefixes; prefilled first
 *   hit_base + k         the address a lookup of entry k asks for (none in
 *                        a set of full-length prefixes: entry k itself)
 *   miss_base + j        addresses no prefix covers (misses of them)
 *   pool_base + t*64 + i worker t's pool (the pool model)
 *
 * Without a prefix set there are no address sections: pool_base = stored.
 */
#ifndef MAPLAB_WORKLOAD_H
#define MAPLAB_WORKLOAD_H

#include "harness/workload/prefixes.h"

#include <stddef.h>
#include <stdint.h>

/* The numbers are kbench's too (kernel-compare/bpf/kbench_shared.h): append only. */
enum bench_op {
	OP_LOOKUP,
	OP_UPDATE,
	OP_INSERT,
	OP_DELETE,
	OP_UPSERT,
	OP_REPLACE,
	OP_LOOKUP_WRITE,
	OP_COUNT
};

/* The bytes of a value lookup_write writes in place (the suite's int). */
#define LOOKUP_WRITE_BYTES 4

extern const char *const bench_op_names[OP_COUNT];

enum key_dist { DIST_UNIFORM, DIST_ZIPF, DIST_HOTSET };

struct workload {
	uint32_t type;           /* map type: how key numbers become key bytes
				    (harness/workload/keys.h) */
	uint32_t key_size, value_size, entries;
	uint32_t key_range;      /* the range model's keys: 0..key_range-1;
				    0: the pool model */
	unsigned prefill_pct;
	unsigned mix[OP_COUNT];  /* percent, summing to 100 */
	enum key_dist dist;
	double zipf_s;           /* DIST_ZIPF: exponent */
	unsigned hot_pct, hot_keys_pct; /* DIST_HOTSET: hot_pct % of ops go to
					   hot_keys_pct % of the keys */
	uint64_t seed;
	enum prefix_set prefixes; /* a prefix workload (above), or NONE */
	uint32_t miss_ppm;        /* prefix workloads: lookups meant to miss,
				     per million (0: every lookup hits) */
	unsigned batch;           /* runs of lookups go to the map this many
				     at a time (map_lookup_batch), each key
				     an op; 0 or 1: one at a time */
};

/*
 * The default workload, written once: bench, kbench and compare start from
 * it and their --help shows these figures.  A lookup-only run over a full
 * map of 64K 4-byte keys with 8-byte values, keys drawn uniformly.
 */
#define WORKLOAD_DEFAULT_KEY_SIZE 4
#define WORKLOAD_DEFAULT_VALUE_SIZE 8
#define WORKLOAD_DEFAULT_ENTRIES 65536
#define WORKLOAD_DEFAULT_PREFILL 100
#define WORKLOAD_DEFAULT_MIX "lookup=100"
#define WORKLOAD_DEFAULT_DIST "uniform"
#define WORKLOAD_DEFAULT_SEED 1
struct workload workload_default(void);

/* The key table's sections (above). */
struct workload_layout {
	uint64_t stored;    /* keys 0..stored-1: entries, or the range */
	uint64_t hit_base;  /* lookup of entry k: key hit_base + k */
	uint64_t miss_base, misses;
	uint64_t pool_base; /* worker t's pool: pool_base + t * WORKLOAD_POOL */
	uint64_t total;     /* keys in the table */
};

/* The sections of w's key table for a run of this many threads (only
 * pool's end and total depend on it). */
void workload_layout(const struct workload *w, unsigned threads,
		     struct workload_layout *out);

/* Worker pools a prefix table makes room for, whatever the thread count,
 * so its addresses (and its misses) are the same at every count: bench's
 * most threads. */
#define WORKLOAD_MAX_POOLS 254

/* w as a map of `type` takes it: its keys are that type's, and in a
 * prefix workload a map that is not an LPM trie takes the address bytes
 * alone (key_size = the set's data bytes; an LPM trie's is 4 more), or,
 * where workload_other_maps_take_prefixes, the LPM key whole. */
struct workload workload_for_type(const struct workload *w, uint32_t type);

/* Whether a prefix workload's maps that are not LPM tries (a hash beside
 * the tries) take each prefix's whole LPM key, its length and address:
 * where prefixes are not all full-length and no op asks for an address
 * (no lookup, no lookup_write), so a hash stores the same prefixes a
 * trie does, each an exact key (10.0.0.0/8 and 10.0.0.0/16 two keys). */
bool workload_other_maps_take_prefixes(const struct workload *w);

/* One precomputed step: which op, on which key number. */
struct stream_op {
	uint32_t key;
	uint32_t op;
};

struct stream {
	struct stream_op *ops;
	size_t len;
};

/* Keys worker pools hold (each). */
#define WORKLOAD_POOL 64

/* Ops in a worker's stream (bench's and kbench's alike), before the pool
 * model's closing deletes: WORKLOAD_STREAM_MIN, long enough not to repeat
 * in cache-friendly ways and short enough to build quickly; in the range
 * model at least 4 times the range, up to WORKLOAD_STREAM_MAX.  A stream
 * loops, and a loop that met fewer distinct keys than the map holds would
 * stop evicting once they were all in: 4 passes' worth of draws meet
 * about 98 % of a uniform range. */
#define WORKLOAD_STREAM_MIN (1u << 18)
#define WORKLOAD_STREAM_MAX (1u << 22)
size_t workload_stream_len(const struct workload *w);

/*
 * Parse "lookup=90,update=10" (names: bench_op_names, lookup, update,
 * insert, delete, upsert, replace, lookup_write; any left out are 0; they
 * must sum to 100).  0, or -1 with a message in err.
 */
int workload_parse_mix(const char *text, unsigned mix[OP_COUNT], char *err,
		       size_t len);
/* Parse "uniform", "zipf:0.99", "hotset:90,10". */
int workload_parse_dist(const char *text, struct workload *w, char *err,
			size_t len);
/* The mix and dist back as text, for records. */
void workload_format_mix(const unsigned mix[OP_COUNT], char *buf, size_t len);
void workload_format_dist(const struct workload *w, char *buf, size_t len);

/* A prefix workload's lookups meant to hit, in percent (--hit-ratio). */
static inline double workload_hit_ratio(const struct workload *w)
{
	return 100 - w->miss_ppm / 1e4;
}

/* Keys inserted before timing: prefill % of entries. */
uint64_t workload_prefill_count(const struct workload *w);

/* Number of keys in the table of a run with this many threads: the range
 * (and the prefilled keys, if more), or entries and every worker's pool;
 * and a prefix workload's addresses (above). */
uint64_t workload_key_count(const struct workload *w, unsigned threads);

/* The key table: key number k's bytes at keys + k * key_size, for a map
 * of w->type.  NULL with a reason in err (out of memory; no room for a
 * prefix set's distinct prefixes or misses). */
uint8_t *workload_make_keys(const struct workload *w, unsigned threads,
			    char *err, size_t errlen);

/*
 * Worker tid's stream of len ops (and, in the pool model, up to
 * WORKLOAD_POOL deletes that close the loop).  The sampler for lookup and update
 * keys is built once per workload (zipf needs a table) and shared.
 */
struct key_sampler;
struct key_sampler *workload_sampler_new(const struct workload *w);
void workload_sampler_free(struct key_sampler *s);
int workload_make_stream(const struct workload *w,
			 const struct key_sampler *s, unsigned tid,
			 size_t len, struct stream *out);
void workload_stream_free(struct stream *s);

/*
 * The share of each op (percent) in the streams this workload really
 * makes, which is not always the asked mix in the pool model: a worker
 * deletes only keys it inserted, and holds inserts back while its whole
 * pool is in the map.  (The range model makes the mix as asked.)  0, or
 * -ENOMEM.
 */
int workload_stream_mix(const struct workload *w, double share[OP_COUNT]);

/* A value's bytes for worker tid's n-th write (cheap, never all zero). */
void workload_fill_value(uint8_t *v, uint32_t size, uint64_t n);

#endif /* MAPLAB_WORKLOAD_H */
