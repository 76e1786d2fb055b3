/* SPDX-License-Identifier: MIT */
/*
 * map.h: the one way into every maplab map design.
 *
 * A design (maps/<family>/<design>.c) fills a `struct map_ops` and is listed
 * in maps/registry.c.  The harness, the trace replayer, the tests and
 * kernel-compare speak only to this interface; nothing outside a design's own
 * file reaches into its structures.
 *
 * The semantics are those of the Linux kernel's BPF maps: the same attribute
 * checks, the same flags with the same values, the same negative errno for
 * the same call.  A design that is "kernel-faithful" also reproduces what a
 * user can observe of the kernel's internal order (get_next_key order, which
 * key an LRU evicts).
 *
 * Threads.  Every thread that calls into a map must first register with RCU
 * (map_thread_online(), maps/base/rcu.h) and should claim a cpu slot
 * (map_cpu_claim(), maps/base/cpu.h).  Per-CPU structures inside a design
 * are indexed by that slot, never by sched_getcpu(), so a thread that the
 * scheduler migrates cannot corrupt them.  A map created with attr.ncpus = N
 * may only be used by threads whose slot is below N; two threads never hold
 * the same slot at once.
 */
#ifndef MAPLAB_MAP_H
#define MAPLAB_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Map types: the kernel's enum bpf_map_type values. */
enum map_type {
	MAP_TYPE_HASH = 1,      /* BPF_MAP_TYPE_HASH */
	MAP_TYPE_LRU_HASH = 9,  /* BPF_MAP_TYPE_LRU_HASH */
	MAP_TYPE_LPM_TRIE = 11, /* BPF_MAP_TYPE_LPM_TRIE */
};

/* Update flags: the kernel's values (include/uapi/linux/bpf.h). */
#define MAP_ANY     0ULL /* BPF_ANY: create or replace */
#define MAP_NOEXIST 1ULL /* BPF_NOEXIST: create only; -EEXIST if present */
#define MAP_EXIST   2ULL /* BPF_EXIST: replace only; -ENOENT if absent */
#define MAP_F_LOCK  4ULL /* BPF_F_LOCK: needs a bpf_spin_lock in the value;
                            no maplab map has one, so it is -EINVAL */

/* Creation flags: the kernel's values. */
#define MAP_F_NO_PREALLOC   (1U << 0)  /* BPF_F_NO_PREALLOC */
#define MAP_F_NO_COMMON_LRU (1U << 1)  /* BPF_F_NO_COMMON_LRU */
#define MAP_F_NUMA_NODE     (1U << 2)  /* BPF_F_NUMA_NODE (node 0: no effect) */
#define MAP_F_RDONLY        (1U << 3)  /* BPF_F_RDONLY: syscall side read-only */
#define MAP_F_WRONLY        (1U << 4)  /* BPF_F_WRONLY: syscall side write-only */
#define MAP_F_ZERO_SEED     (1U << 6)  /* BPF_F_ZERO_SEED */
#define MAP_F_RDONLY_PROG   (1U << 7)  /* BPF_F_RDONLY_PROG */
#define MAP_F_WRONLY_PROG   (1U << 8)  /* BPF_F_WRONLY_PROG */
/*
 * The access flags limit who may call what, which is not a property of a
 * map design: designs accept and check them at create, as the kernel does,
 * and the syscall layer below (map_sys_*) enforces BPF_F_RDONLY and
 * BPF_F_WRONLY as the kernel's bpf(2) does.  The _PROG forms act when a
 * program is loaded (the verifier refuses a program that writes a
 * RDONLY_PROG map or reads a WRONLY_PROG map's value); a lookup that only
 * tests for presence, as a trace's plookup does, is allowed on both.
 */

/* Every creation flag above with its name: "no_prealloc", "zero_seed"... */
struct map_flag_name {
	uint32_t bit;
	const char *name;
};
extern const struct map_flag_name map_flag_names[];
extern const unsigned map_flag_name_count;

/* The kernel-internal errno that userspace sees as 524 (LRU + NO_PREALLOC). */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

/* Largest cpu count a map may be created for. */
#define MAP_MAX_CPUS 1024

struct map_attr {
	uint32_t type;        /* enum map_type */
	uint32_t key_size;    /* bytes; LPM: 4-byte prefixlen + data */
	uint32_t value_size;  /* bytes */
	uint32_t max_entries;
	uint32_t flags;       /* MAP_F_* */
	uint32_t ncpus;       /* cpu slots the map serves; 0 = possible CPUs */
	uint32_t model;       /* the kernel version a faithful design behaves
				 as (MAP_MODEL(6, 1)): one of its models; 0,
				 the newest.  Other designs ignore it. */
};

/* A kernel version as map_attr.model: MAP_MODEL(6, 12). */
#define MAP_MODEL(major, minor) ((uint32_t)(major) << 8 | (uint32_t)(minor))

/* "6.12" into *model: 0, or -EINVAL. */
int map_model_parse(const char *text, uint32_t *model);

/* model as "6.12" into buf; returns buf. */
const char *map_model_text(uint32_t model, char *buf, size_t len);

struct map_ops;

/*
 * The work a design did: what explains its cost, beside the time (the LRU
 * designs: keeping room; lpm_trie/linux: walking and changing the trie).
 * Counted per cpu slot by the slot's own thread (maps/base/work.h).
 */
struct map_work {
	uint64_t evictions;     /* keys removed from the table to make room */
	uint64_t refills;       /* trips to shared state for free elements
				   (the kernel: a local list refilled from the
				   global lists; others: an eviction pass) */
	uint64_t nodes_scanned; /* list nodes visited by rotations, shrinks,
				   hands, samples; trie nodes visited */
	uint64_t locks;         /* locks taken, bucket locks included */
	uint64_t steals;        /* free elements taken from another cpu's
				   local lists (the kernel's common LRU) */
	uint64_t allocations;   /* blocks allocated (trie nodes) */
	uint64_t lock_ns;       /* ns a lock was held, from taking it to
				   releasing it, summed (designs that time
				   their locks: lpm_trie/linux's writer lock;
				   0 in the others) */
};

/* What map_ops.dump_state writes. */
enum map_dump_format {
	MAP_DUMP_TEXT, /* lists in order, one a line, each key with its state */
	MAP_DUMP_DOT,  /* a Graphviz digraph of the same */
};

/*
 * The part of every map that the interface can see.  A design embeds it as
 * the first member of its own structure and recovers its structure with
 * container_of-style casts inside its file only.
 */
struct map {
	const struct map_ops *ops;
	struct map_attr attr; /* as checked and normalised by create */
};

struct map_ops {
	const char *name;        /* "<family>/<design>", e.g. "hash/linux" */
	const char *description; /* one line for `maplab list` */
	uint32_t type;           /* enum map_type it implements; 0: any (the
				    kernel adapter of kernel-compare) */
	unsigned faithful : 1;   /* reproduces the kernel op for op */
	/*
	 * May evict before max_entries keys are in: the kernel's common LRU
	 * frees in batches, its per-CPU LRU gives each cpu its share.  Tests
	 * that need room for n keys give such a design more than n.
	 */
	unsigned evicts_early : 1;
	/*
	 * Evicts when the key's set is full (lru/assoc: 8 ways a set), so
	 * room for n keys means far more than n entries: a few sets get
	 * more than their share.  Implies evicts_early.
	 */
	unsigned evicts_by_set : 1;
	/*
	 * One program lookup need not save a key from the next eviction
	 * (lru/fifo ignores hits; lru/s3fifo's small queue needs two): the
	 * kernel's "a marked key outlives an unmarked one" does not apply.
	 */
	unsigned one_hit_may_not_save : 1;
	/*
	 * Creation flags this design stands for, added to every map it makes
	 * (lru/linux_percpu: BPF_F_NO_COMMON_LRU).  The kernel side of a
	 * comparison creates its map with them too.
	 */
	uint32_t mode_flags;
	/*
	 * The kernel versions whose behaviour a faithful design reproduces,
	 * oldest first, space-separated ("5.10 6.1 6.12 6.18"): the models
	 * map_attr.model may name.  Where they differ, the design's file says
	 * how, with the kernel commit (docs/kernels.md has the table).
	 */
	const char *models;
	/*
	 * Optional (0: no limit).  The most threads that may use the
	 * design's maps at once besides the thread that creates them
	 * (hash/dpdk: each writer holds one of DPDK's RTE_MAX_LCORE lcore
	 * ids, and the thread that started DPDK, the creating one in
	 * maplab's commands, holds another).  A caller that would start more
	 * threads than this (bench, stress) refuses before it starts any:
	 * past the limit the design answers -EBUSY, which no BPF map does.
	 * max_threads_why says what sets the limit, in a few words for that
	 * refusal's message (NULL: nothing to add).
	 */
	unsigned max_threads;
	const char *max_threads_why;

	/*
	 * Check attr exactly as the kernel does for this map type and build
	 * the map.  Returns 0 and sets *out, or a negative errno (-EINVAL,
	 * -E2BIG, -ENOTSUPP, -ENOMEM) and leaves *out untouched.  The caller
	 * must be an RCU-registered thread.
	 */
	int (*create)(const struct map_attr *attr, struct map **out);

	/*
	 * Free the map and everything in it.  No other thread may use the map
	 * any more; waits for the RCU callbacks the map queued (rcu_barrier),
	 * so all its memory is returned when destroy returns.
	 */
	void (*destroy)(struct map *map);

	/*
	 * Lookup as a BPF program does it: returns a pointer to the value
	 * inside the map, or NULL.  The caller must hold an RCU read section
	 * (map_rcu_read_lock) and may use the pointer only inside it.  A
	 * design that reuses elements at once (the kernel's preallocated
	 * hash) may let the value change under the reader, exactly as the
	 * kernel does; its header comment says so.  LRU designs mark the key
	 * referenced.
	 */
	void *(*lookup)(struct map *map, const void *key);

	/*
	 * Optional (NULL: map_lookup_batch loops over lookup).  n program
	 * lookups at once: keys holds n keys of key_size bytes, packed;
	 * values[i] gets key i's value pointer or NULL.  The contract is
	 * lookup's, for each key: the caller holds one RCU read section over
	 * the whole batch and uses the pointers only inside it; each key's
	 * answer is one a lookup of it could have given at some moment of the
	 * call.  Returns the number of hits.  A design implements it where it
	 * can overlap the keys' cache misses (hash every key and prefetch its
	 * bucket, then compare), which one lookup after another cannot.  n is
	 * 1 to MAP_BATCH_MAX.
	 */
	unsigned (*lookup_batch)(struct map *map, const void *keys, unsigned n,
				 void **values);

	/*
	 * Lookup as the bpf(2) syscall does it: copies value_size bytes into
	 * value.  Never marks an LRU reference.  0 or -ENOENT.  Takes its own
	 * RCU read section.
	 */
	int (*lookup_copy)(struct map *map, const void *key, void *value);

	/*
	 * Insert or replace.  flags is MAP_ANY, MAP_NOEXIST or MAP_EXIST;
	 * anything else is -EINVAL.  Errors as the kernel's: -EEXIST, -ENOENT,
	 * -E2BIG (hash full), -ENOSPC (trie full), -ENOMEM.  Safe against
	 * concurrent callers; takes its own RCU read section where needed.
	 */
	int (*update)(struct map *map, const void *key, const void *value,
		      uint64_t flags);

	/* Remove key.  0 or -ENOENT (LPM: -EINVAL for a bad prefix length). */
	int (*delete)(struct map *map, const void *key);

	/*
	 * The key after key in the design's iteration order (key == NULL: the
	 * first).  Copies it into next.  0, or -ENOENT after the last key.  A
	 * key that is not in the map restarts from the first key, as the
	 * kernel's hash does.  Concurrent updates may make a walk miss or
	 * repeat keys, never crash.
	 */
	int (*get_next_key)(struct map *map, const void *key, void *next);

	/*
	 * Optional (NULL: the design keeps no such count).  Add the work cpu
	 * slot `cpu` did (cpu < 0: every slot) to *w.  Exact once no thread
	 * uses the map; while threads run, each slot's counts are read
	 * without a lock and may lag.
	 */
	void (*work)(const struct map *map, int cpu, struct map_work *w);

	/*
	 * Optional.  Write the design's inner state (its lists in order, each
	 * key with its reference bit, hands, partitions) as text or as a
	 * Graphviz digraph.  No other thread may use the map.  0 or -errno.
	 */
	int (*dump_state)(struct map *map, FILE *f, enum map_dump_format fmt);

	/*
	 * Optional (designs that evict).  Call fn(ctx, key) for every key the
	 * map evicts from now on (fn NULL: stop), on the evicting thread,
	 * possibly with the design's locks held: fn must be quick and must
	 * not call into the map.  For observers such as `maplab sim`'s
	 * comparison of victims with an exact LRU.
	 */
	void (*watch_evictions)(struct map *map,
				void (*fn)(void *ctx, const void *key),
				void *ctx);

	/*
	 * Optional.  The bytes the map holds now: its table, its elements
	 * (preallocated ones included) and its policy's state.  Per entry,
	 * that is the memory an entry costs (map_memory_per_entry).
	 */
	size_t (*memory)(const struct map *map);
};

/* --- Registry (maps/registry.c) ------------------------------------------ */

/* Whether ops is faithful to kernel version model (one of its models). */
bool map_models(const struct map_ops *ops, uint32_t model);

/* The newest version ops models (0: none). */
uint32_t map_newest_model(const struct map_ops *ops);

/* Every design, in listing order, NULL-terminated. */
extern const struct map_ops *const map_registry[];

/* The design called name, or NULL. */
const struct map_ops *map_find(const char *name);

/*
 * The kernel-faithful design for a map type and creation flags (for the
 * trace replayer: "hash" -> hash/linux), or NULL where none is built yet.
 */
const struct map_ops *map_find_faithful(uint32_t type, uint32_t flags);

/* "hash", "lru_hash", "lpm_trie", or NULL. */
const char *map_type_name(uint32_t type);
/* The type for a name above, or 0. */
uint32_t map_type_from_name(const char *name);

/* --- Convenience calls: these only dispatch through map->ops ------------- */

/* Create a map of design ops.  attr->ncpus == 0 means possible CPUs.
 * Where the design refuses the map for a reason of its own (a key size it
 * cannot hold), map_refusal() says why afterwards. */
int map_create(const struct map_ops *ops, const struct map_attr *attr,
	       struct map **out);

/* A design's create, refusing a map it cannot hold: records why (one
 * phrase, the design's name first, printf-style), for the caller to print
 * in its own one line rather than the design on stderr. */
void map_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The reason the last map_create on this thread failed, as map_refuse
 * gave it; "" where the design gave none (or create succeeded). */
const char *map_refusal(void);

static inline void map_destroy(struct map *m) { m->ops->destroy(m); }
static inline void *map_lookup(struct map *m, const void *key)
{
	return m->ops->lookup(m, key);
}

/* The most keys one map_lookup_batch takes (DPDK's bulk lookups take at
 * most 64 too). */
#define MAP_BATCH_MAX 64

/* n lookups at once (map_ops.lookup_batch): the design's own batch, or
 * one lookup after another. */
static inline unsigned map_lookup_batch(struct map *m, const void *keys,
					unsigned n, void **values)
{
	if (m->ops->lookup_batch)
		return m->ops->lookup_batch(m, keys, n, values);
	const uint8_t *k = keys;
	unsigned hits = 0;
	for (unsigned i = 0; i < n; i++, k += m->attr.key_size)
		hits += (values[i] = m->ops->lookup(m, k)) != NULL;
	return hits;
}
static inline int map_lookup_copy(struct map *m, const void *key, void *value)
{
	return m->ops->lookup_copy(m, key, value);
}
static inline int map_update(struct map *m, const void *key,
			     const void *value, uint64_t flags)
{
	return m->ops->update(m, key, value, flags);
}
static inline int map_delete(struct map *m, const void *key)
{
	return m->ops->delete(m, key);
}
static inline int map_get_next_key(struct map *m, const void *key, void *next)
{
	return m->ops->get_next_key(m, key, next);
}

/* Bytes a map holds per max_entries entry, 0 for a design that cannot say. */
static inline double map_memory_per_entry(const struct map *m)
{
	return m->ops->memory && m->attr.max_entries
		       ? (double)m->ops->memory(m) / m->attr.max_entries : 0;
}

/* The work of slot cpu (cpu < 0: all), zeroes for a design without. */
static inline struct map_work map_work_of(const struct map *m, int cpu)
{
	struct map_work w = { 0 };
	if (m->ops->work)
		m->ops->work(m, cpu, &w);
	return w;
}

/* --- The syscall layer ------------------------------------------------------
 *
 * What a userspace program calling bpf(2) on the map's fd gets: the
 * operation, after the permission check of the kernel's syscall.c.  A map
 * created with BPF_F_RDONLY is read-only from userspace (update and delete
 * are -EPERM), one with BPF_F_WRONLY write-only (lookup and get_next_key
 * are -EPERM); the check comes before any other (update's flag check
 * included), as in the kernel.  The trace replayer's lookup, update,
 * delete and next go through these.
 */
int map_sys_lookup(struct map *m, const void *key, void *value);
int map_sys_update(struct map *m, const void *key, const void *value,
		   uint64_t flags);
int map_sys_delete(struct map *m, const void *key);
int map_sys_get_next_key(struct map *m, const void *key, void *next);

/* --- Errors ---------------------------------------------------------------- */

/*
 * Symbolic name of a positive errno as traces print it ("EINVAL",
 * "ENOTSUPP"), or NULL for one without a name here.
 */
const char *map_errno_name(int err);
/* The positive errno for a name above, or 0. */
int map_errno_from_name(const char *name);

/*
 * A positive errno as every maplab message says it: strerror's text, but
 * the kernel's own errnos that the C library cannot name ("Unknown error
 * 524") by name, with what they mean: "ENOTSUPP (not supported: ...)".
 * The one way to print an errno in a message (a trace's result lines use
 * map_errno_name).  The text is static, or strerror's.
 */
const char *map_errno_text(int err);

#endif /* MAPLAB_MAP_H */
