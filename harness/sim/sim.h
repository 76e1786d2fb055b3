/* SPDX-License-Identifier: MIT */
/*
 * sim.h: `maplab sim`'s engine: a cache trace replayed through a map
 * design's own map.h operations, each request a program-style lookup and
 * a miss an insert, so the miss ratio is that of the code bench times.
 * Beside the designs: Belady's offline optimum (opt.c) and the kernel's
 * own LRU hash (ksim, kernel-compare).
 *
 *   sim_input_prepare   ids -> key bytes (8-byte ids, or hashed down to
 *                       key_size), a dense number per distinct key, the
 *                       key -> number table the stray check needs
 *   sim_run             one (policy, entries, threads) point:
 *                         split the requests into per-worker streams
 *                         (rr: request i to worker i % N; hash: by key
 *                         hash, so one key's requests stay on one cpu),
 *                         create the map, run the team (pinned workers),
 *                         count; on one thread, a second, untimed pass
 *                         measures stray against a shadow exact LRU
 *
 * Per request (the timed loop; nothing else is in it):
 *   map_rcu_read_lock; hit = map_lookup(key) != NULL; map_rcu_read_unlock
 *   miss: map_update(key, value, MAP_NOEXIST)
 * MAP_NOEXIST (not MAP_ANY) so that a key another thread inserted since
 * the lookup is not counted as a second insert: the live count (inserts
 * minus evictions, from map_ops.watch_evictions) stays exact.
 */
#ifndef MAPLAB_SIM_H
#define MAPLAB_SIM_H

#include "simtrace.h"
#include "maps/base/map.h"

#include <stdbool.h>
#include <stdint.h>

/* The trace as the maps see it. */
struct sim_input {
	const struct sim_trace *trace;
	uint32_t key_size;   /* 1..8 */
	bool hashed;         /* key_size < 8: ids hashed down (collisions) */
	uint8_t *keys;       /* n * key_size bytes, request order */
	uint32_t *dense;     /* n: the key's number, 0..distinct-1 */
	uint32_t distinct;   /* distinct keys (after hashing) */
	uint64_t warmup;     /* the first warmup requests are not counted */
	/* key value (key bytes as a little-endian number) -> dense number */
	uint64_t *table_key;
	uint32_t *table_val;
	size_t table_mask;
	int64_t *next;       /* next use per request (opt), built on demand */
};

#define SIM_MAX_KEY_SIZE 8

/* 0, or -ENOMEM / -E2BIG (more than 2^32-1 distinct keys) with err. */
int sim_input_prepare(struct sim_input *in, const struct sim_trace *t,
		      uint32_t key_size, uint64_t warmup, char *err,
		      size_t errlen);
void sim_input_free(struct sim_input *in);

/* The dense number of a key's bytes, or UINT32_MAX. */
uint32_t sim_input_lookup(const struct sim_input *in, const void *key);

/* A key's bytes as the maps see it (for tests and ksim). */
void sim_encode_key(uint64_t id, uint32_t key_size, uint8_t *out);

enum sim_split { SIM_SPLIT_RR, SIM_SPLIT_HASH };

enum sim_engine {
	SIM_ENGINE_MAP,    /* a registry design */
	SIM_ENGINE_OPT,    /* Belady */
	SIM_ENGINE_KERNEL, /* the kernel's LRU hash through ksim */
};

struct sim_policy {
	char name[64];       /* as reported: a design's name, "opt", "kernel" */
	enum sim_engine engine;
	const struct map_ops *design; /* SIM_ENGINE_MAP */
	uint32_t kernel_flags;        /* SIM_ENGINE_KERNEL: 0 or NO_COMMON_LRU */
};

struct sim_config {
	const struct sim_policy *policy;
	uint32_t entries;
	unsigned threads;
	enum sim_split split;
	bool stray;          /* one thread, designs: the untimed stray pass */
	unsigned ncpus;      /* the map's cpu slots; 0: the possible CPUs
				(at least threads), as bench's maps */
	void (*progress)(double done, void *arg);
	void *progress_arg;
};

struct sim_result {
	uint64_t requests;        /* counted (after the warm-up) */
	uint64_t misses;
	uint64_t evictions;       /* during the counted requests; NAN-less:
				     has_evictions says whether known */
	bool has_evictions;
	uint64_t insert_failures; /* a miss whose insert the map refused */
	double bytes, byte_misses;/* object sizes summed (trace with sizes) */
	bool has_bytes;
	double seconds;           /* every request, warm-up included */
	double mreq_per_s;        /* every request / seconds, in millions */
	double live_mean;         /* mean live entries (NAN: not known) */
	double meta_per_entry;    /* bytes per entry beyond key and value (NAN) */
	double stray;             /* share of victims outside the k oldest (NAN) */
	uint64_t stray_victims;
	uint64_t stray_pass_misses; /* the stray pass's misses (a check) */
};

/* Run one point.  0, or a negative errno with one line in err. */
int sim_run(struct sim_input *in, const struct sim_config *c,
	    struct sim_result *r, char *err, size_t errlen);

/* --- Belady (opt.c) ----------------------------------------------------------- */

/*
 * Belady's MIN on in's requests with `entries` slots: on a miss with every
 * slot taken, evict the key whose next use is farthest (a key never used
 * again first).  Needs in->next (built here if NULL).  0, or -ENOMEM with
 * what could not be allocated in err.
 */
int sim_opt_run(struct sim_input *in, uint32_t entries, struct sim_result *r,
		char *err, size_t errlen);

/* --- the kernel (ksim), when built and allowed -------------------------------- */

/* Whether the kernel's LRU hash can run here; why not in why. */
bool sim_kernel_available(char *why, size_t whylen);

#endif /* MAPLAB_SIM_H */
