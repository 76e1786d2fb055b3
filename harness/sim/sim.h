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
 * Serial cpus (sim_config.serial_cpus): --threads N's split without its
 * threads: one thread replays the requests in order and moves to each
 * request's cpu slot before it (a slot claim when the cpu changes), and
 * ksim re-pins its thread where the cpu changes.  The per-cpu structures
 * of the kernel's LRU see the same cpus as with N threads, but in an
 * order fixed by the trace, so the design's and the kernel's miss counts
 * can be compared exactly.
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

#include "harness/sim/simtrace.h"
#include "maps/base/map.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * A trace read as it is replayed, not held whole (simfile.h streams a
 * file too long to hold): each pass over it reads it again from the start.
 */
struct sim_source {
	/* Back to the first request.  0, or -errno with one line in err. */
	int (*rewind)(void *ctx, char *err, size_t errlen);
	/* The next requests, at most max: their ids, and their sizes where
	 * sizes is not NULL.  How many; 0 at the end; or -errno with err. */
	long (*next)(void *ctx, uint64_t *ids, uint32_t *sizes, size_t max,
		     char *err, size_t errlen);
	void *ctx;
	bool has_sizes;
};

/* Requests a streamed trace is read and replayed by. */
#define SIM_CHUNK_REQUESTS (1u << 20)

/*
 * The trace as the maps see it.  keys, dense and sizes hold the requests
 * [base, base + len): the whole trace when it is held (base 0, len n), or
 * one chunk of a streamed one at a time, the engine reading the next as
 * it goes.  The key table (every distinct key) is whole either way: its
 * memory grows with the keys, not the requests.
 */
struct sim_input {
	const struct sim_trace *trace; /* its name; ids and sizes when held */
	size_t n;            /* requests in the trace */
	bool has_sizes;      /* the trace gives object sizes */
	uint32_t key_size;   /* 1..8 */
	bool hashed;         /* key_size < 8: ids hashed down (collisions) */
	size_t base, len;    /* the requests held now */
	uint8_t *keys;       /* len * key_size bytes, request order */
	uint32_t *dense;     /* len: the key's number, 0..distinct-1 */
	const uint32_t *sizes; /* len object sizes, or NULL */
	uint32_t distinct;   /* distinct keys (after hashing) */
	struct sim_source *source; /* NULL: held whole */
	size_t chunk;        /* a streamed trace's chunk, in requests */
	uint64_t *chunk_ids; /* a streamed trace's read buffers */
	uint32_t *chunk_sizes;
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

/*
 * The same for a streamed trace: one pass over src numbers its distinct
 * keys and counts its requests (t, the caller's, names it: its ids stay
 * NULL).  Memory: the key table and one chunk of `chunk` requests (0:
 * SIM_CHUNK_REQUESTS).  0, or -errno with err
 * (the source's own, -ENOMEM, -E2BIG).  Opt and the kernel need a trace
 * held whole: sim_run refuses them here (-EOPNOTSUPP).
 */
int sim_input_stream(struct sim_input *in, const struct sim_trace *t,
		     struct sim_source *src, uint32_t key_size,
		     uint64_t warmup, size_t chunk, char *err, size_t errlen);
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
	uint32_t model;      /* a faithful design's kernel version
				(map_attr.model; 0: its newest) */
	unsigned serial_cpus;/* 0: off.  N: the deterministic multi-cpu mode:
				one thread (threads must be 1) replays every
				request in order, request i as the cpu the
				split gives it among N (slot c of the map; the
				kernel's side pinned to the c-th allowed CPU),
				so the result depends on the trace alone */
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
