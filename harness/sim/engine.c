/* SPDX-License-Identifier: MIT */
/*
 * engine.c: sim's replay of a trace through a design's map (sim.h has the
 * per-request loop and why it inserts with MAP_NOEXIST).
 *
 * Workers.  Each worker owns a stream: its requests' key bytes packed in
 * order (pre-encoded, so the timed loop only reads them), their sizes and
 * dense numbers where needed, and counted_from, its first request past
 * the warm-up.  Counters are per worker, each written only by its worker
 * with relaxed stores; the eviction callback runs on the evicting thread
 * and counts into that thread's worker (a thread-local pointer), so the
 * sum over workers of inserts minus evictions is the map's live count.
 * Every SAMPLE_EVERY requests a worker adds that sum to its own samples:
 * the mean over all samples is the effective capacity's numerator.
 *
 * Stray (one thread).  A second pass on a fresh map, untimed, keeps a
 * shadow exact LRU (a list over dense numbers) in step with the map: the
 * victims an insert reports through watch_evictions are checked against
 * the k oldest keys of the shadow (k = how many that insert evicted),
 * then leave it; the requested key goes to the shadow's head.  The shadow
 * holds exactly the map's keys, since every eviction is reported.
 *
 * The kernel.  The same streams go to the kernel engine (kernel_engine.h:
 * kernel-compare registers it where built), stream
 * i pinned to the CPU the team would pin worker i to; its live count is
 * the kernel's own, and its per-request miss flags give the byte misses.
 */
#include "harness/sim/sim.h"
#include "harness/common/clock.h"
#include "harness/common/rng.h"
#include "harness/common/team.h"
#include "harness/sim/kernel_engine.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_EVERY 256
#define NONE UINT32_MAX

/* --- keys ------------------------------------------------------------------------ */

void sim_encode_key(uint64_t id, uint32_t key_size, uint8_t *out)
{
	/* An 8-byte key is the id itself; a shorter one a hash of it (the
	 * low bytes of an id alone would collide on every id that differs
	 * only above them). */
	uint64_t v = key_size >= 8 ? id : rng_mix64(id);
	for (uint32_t i = 0; i < key_size; i++, v >>= 8)
		out[i] = (uint8_t)v;
}

static uint64_t key_value(const void *key, uint32_t key_size)
{
	const uint8_t *b = key;
	uint64_t v = 0;
	for (uint32_t i = key_size; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

static size_t slot_of(const struct sim_input *in, uint64_t v)
{
	return (size_t)(rng_mix64(v) & in->table_mask);
}

uint32_t sim_input_lookup(const struct sim_input *in, const void *key)
{
	uint64_t v = key_value(key, in->key_size);
	for (size_t s = slot_of(in, v);; s = (s + 1) & in->table_mask) {
		if (in->table_val[s] == NONE)
			return NONE;
		if (in->table_key[s] == v)
			return in->table_val[s];
	}
}

/* The dense number of key value v, a new one if v is new (the table has
 * room: at most half full). */
static uint32_t number_key(struct sim_input *in, uint64_t v)
{
	size_t s = slot_of(in, v);
	while (in->table_val[s] != NONE && in->table_key[s] != v)
		s = (s + 1) & in->table_mask;
	if (in->table_val[s] == NONE) {
		in->table_key[s] = v;
		in->table_val[s] = in->distinct++;
	}
	return in->table_val[s];
}

int sim_input_prepare(struct sim_input *in, const struct sim_trace *t,
		      uint32_t key_size, uint64_t warmup, char *err,
		      size_t errlen)
{
	size_t cap = 16;
	memset(in, 0, sizeof(*in));
	while (cap < 2 * t->n)
		cap *= 2;
	in->trace = t;
	in->n = in->len = t->n;
	in->sizes = t->sizes;
	in->has_sizes = t->sizes != NULL;
	in->key_size = key_size;
	in->hashed = key_size < 8;
	in->warmup = warmup;
	in->table_mask = cap - 1;
	in->keys = malloc(t->n * key_size);
	in->dense = malloc(t->n * sizeof(*in->dense));
	in->table_key = malloc(cap * sizeof(*in->table_key));
	in->table_val = malloc(cap * sizeof(*in->table_val));
	if (!in->keys || !in->dense || !in->table_key || !in->table_val) {
		sim_input_free(in);
		snprintf(err, errlen, "out of memory for %zu requests", t->n);
		return -ENOMEM;
	}
	if (t->n >= NONE) {
		sim_input_free(in);
		snprintf(err, errlen, "%zu requests: at most %u", t->n, NONE - 1);
		return -E2BIG;
	}
	memset(in->table_val, 0xff, cap * sizeof(*in->table_val));
	for (size_t i = 0; i < t->n; i++) {
		uint8_t *k = in->keys + i * key_size;
		sim_encode_key(t->ids[i], key_size, k);
		in->dense[i] = number_key(in, key_value(k, key_size));
	}
	return 0;
}

/* A streamed trace's table doubles when half full, so probes stay short
 * and a key's number never changes.  0 or -ENOMEM. */
static int table_grow(struct sim_input *in)
{
	size_t old = in->table_mask + 1, cap = 2 * old;
	uint64_t *keys = in->table_key;
	uint32_t *vals = in->table_val;
	in->table_key = malloc(cap * sizeof(*in->table_key));
	in->table_val = malloc(cap * sizeof(*in->table_val));
	if (!in->table_key || !in->table_val) {
		free(in->table_key);
		free(in->table_val);
		in->table_key = keys;
		in->table_val = vals;
		return -ENOMEM;
	}
	memset(in->table_val, 0xff, cap * sizeof(*in->table_val));
	in->table_mask = cap - 1;
	for (size_t s = 0; s < old; s++) {
		if (vals[s] == NONE)
			continue;
		size_t d = slot_of(in, keys[s]);
		while (in->table_val[d] != NONE)
			d = (d + 1) & in->table_mask;
		in->table_key[d] = keys[s];
		in->table_val[d] = vals[s];
	}
	free(keys);
	free(vals);
	return 0;
}

/* Read the source's next chunk into in (ids encoded as keys, numbered,
 * new keys added).  Its length, 0 at the end, or -errno with err. */
static long read_chunk(struct sim_input *in, char *err, size_t errlen)
{
	struct sim_source *src = in->source;
	long got = src->next(src->ctx, in->chunk_ids,
			     src->has_sizes ? in->chunk_sizes : NULL,
			     in->chunk, err, errlen);
	if (got <= 0)
		return got;
	in->base += in->len;
	in->len = (size_t)got;
	for (size_t i = 0; i < in->len; i++) {
		uint8_t *k = in->keys + i * in->key_size;
		if (2 * ((size_t)in->distinct + 1) > in->table_mask + 1 &&
		    table_grow(in)) {
			snprintf(err, errlen, "out of memory for the table of "
				 "%u distinct keys", in->distinct);
			return -ENOMEM;
		}
		if (in->distinct == NONE - 1) {
			snprintf(err, errlen, "more than %u distinct keys",
				 NONE - 1);
			return -E2BIG;
		}
		sim_encode_key(in->chunk_ids[i], in->key_size, k);
		in->dense[i] = number_key(in, key_value(k, in->key_size));
	}
	return got;
}

/*
 * The first chunk (first) or the next: its length, 0 past the last, or
 * -errno with err.  A trace held whole is one chunk.
 */
static long load_chunk(struct sim_input *in, bool first, char *err,
		       size_t errlen)
{
	if (!in->source)
		return first ? (long)in->n : 0;
	if (first) {
		int rc = in->source->rewind(in->source->ctx, err, errlen);
		if (rc)
			return rc;
		in->base = in->len = 0;
	}
	return read_chunk(in, err, errlen);
}

int sim_input_stream(struct sim_input *in, const struct sim_trace *t,
		     struct sim_source *src, uint32_t key_size,
		     uint64_t warmup, size_t chunk, char *err, size_t errlen)
{
	size_t cap = 1u << 16;
	chunk = chunk ? chunk : SIM_CHUNK_REQUESTS;
	long got;
	memset(in, 0, sizeof(*in));
	in->trace = t;
	in->source = src;
	in->has_sizes = src->has_sizes;
	in->key_size = key_size;
	in->hashed = key_size < 8;
	in->warmup = warmup;
	in->table_mask = cap - 1;
	in->chunk = chunk;
	in->keys = malloc(chunk * key_size);
	in->dense = malloc(chunk * sizeof(*in->dense));
	in->chunk_ids = malloc(chunk * sizeof(*in->chunk_ids));
	in->chunk_sizes = malloc(chunk * sizeof(*in->chunk_sizes));
	in->table_key = malloc(cap * sizeof(*in->table_key));
	in->table_val = malloc(cap * sizeof(*in->table_val));
	if (!in->keys || !in->dense || !in->chunk_ids || !in->chunk_sizes ||
	    !in->table_key || !in->table_val) {
		sim_input_free(in);
		snprintf(err, errlen, "out of memory for a chunk of %zu requests",
			 chunk);
		return -ENOMEM;
	}
	in->sizes = src->has_sizes ? in->chunk_sizes : NULL;
	memset(in->table_val, 0xff, cap * sizeof(*in->table_val));
	/* The first pass: every key numbered, the requests counted. */
	for (got = load_chunk(in, true, err, errlen); got > 0;
	     got = load_chunk(in, false, err, errlen))
		in->n += (size_t)got;
	if (got == 0 && in->n == 0) {
		snprintf(err, errlen, "%s: no requests in the trace (an empty "
			 "file?)", t->name);
		got = -EINVAL;
	}
	if (got < 0) {
		sim_input_free(in);
		return (int)got;
	}
	return 0;
}

void sim_input_free(struct sim_input *in)
{
	free(in->chunk_ids);
	free(in->chunk_sizes);
	free(in->keys);
	free(in->dense);
	free(in->table_key);
	free(in->table_val);
	free(in->next);
	memset(in, 0, sizeof(*in));
}

/* --- streams ------------------------------------------------------------------------ */

struct sim_worker {
	/* the stream */
	uint8_t *keys;
	uint32_t *sizes;   /* NULL: the trace has none */
	uint32_t *dense;   /* stray pass only */
	size_t n, counted_from;
	/* counters: this worker's own, relaxed; over every chunk */
	_Atomic uint64_t inserts, evictions, done;
	uint64_t done_before;        /* requests of the chunks before this */
	uint64_t misses, requests, insert_failures;
	bool counting;               /* past the warm-up */
	uint64_t evictions_at_count; /* evictions when counting began */
	double bytes, byte_misses;
	double live_sum;
	uint64_t live_samples;
	bool owns_stream;
} __attribute__((aligned(64)));

struct sim_shared {
	struct sim_input *in;
	const struct sim_config *c;
	struct map *map;
	struct sim_worker *workers;
	unsigned n_workers;
	uint64_t total;
	bool slot_error;   /* serial cpus: a slot could not be claimed */
	/* stray pass */
	uint32_t *victims;
	uint32_t n_victims, victim_cap;
	bool victim_unknown;
};

static _Thread_local struct sim_worker *current_worker;
static _Thread_local struct sim_shared *current_shared;

static void add_relaxed(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed)
				   + n, memory_order_relaxed);
}

/* watch_evictions' callback: count on the evicting thread's worker; in
 * the stray pass, also keep the victim's number. */
static void on_evict(void *ctx, const void *key)
{
	struct sim_worker *w = current_worker;
	struct sim_shared *s = current_shared;
	(void)ctx;
	if (w)
		add_relaxed(&w->evictions, 1);
	if (s && s->victims) {
		uint32_t d = sim_input_lookup(s->in, key);
		if (d == NONE || s->n_victims == s->victim_cap)
			s->victim_unknown = true;
		else
			s->victims[s->n_victims++] = d;
	}
}

static uint32_t key_hash(const uint8_t *key, uint32_t size)
{
	return (uint32_t)(rng_mix64(key_value(key, size) ^ 0x5851f42d4c957f2dULL)
			  >> 32);
}

/* The worker (or serial cpu) of request `at` of the trace, the chunk's
 * request i. */
static unsigned worker_of(const struct sim_input *in, enum sim_split split,
			  size_t at, size_t i, unsigned n)
{
	if (split == SIM_SPLIT_RR)
		return (unsigned)(at % n);
	return key_hash(in->keys + i * in->key_size, in->key_size) % n;
}

/* The first request of the chunk held that is past the warm-up, as an
 * index into the chunk (len: none is). */
static size_t chunk_counted_from(const struct sim_input *in)
{
	if (in->warmup <= in->base)
		return 0;
	return in->warmup - in->base < in->len ? in->warmup - in->base
					       : in->len;
}

/* Each worker's stream of the chunk held (sim_input); one worker reads
 * the input's arrays directly.  The split goes by the request's index in
 * the whole trace, so chunks do not change it. */
static int make_streams(struct sim_shared *s, bool with_dense)
{
	const struct sim_input *in = s->in;
	unsigned n = s->n_workers;
	uint32_t ks = in->key_size;
	size_t from = chunk_counted_from(in);

	if (n == 1) {
		struct sim_worker *w = &s->workers[0];
		w->keys = in->keys;
		w->sizes = (uint32_t *)in->sizes;
		w->dense = with_dense ? in->dense : NULL;
		w->n = in->len;
		w->counted_from = from;
		return 0;
	}
	for (unsigned k = 0; k < n; k++)
		s->workers[k].n = 0;
	for (size_t i = 0; i < in->len; i++)
		s->workers[worker_of(in, s->c->split, in->base + i, i, n)].n++;
	for (unsigned k = 0; k < n; k++) {
		struct sim_worker *w = &s->workers[k];
		w->owns_stream = true;
		w->keys = malloc((w->n ? w->n : 1) * ks);
		w->sizes = in->sizes ? malloc((w->n ? w->n : 1) *
					      sizeof(uint32_t)) : NULL;
		if (!w->keys || (in->sizes && !w->sizes))
			return -ENOMEM;
		w->n = 0;
		w->counted_from = SIZE_MAX;
	}
	for (size_t i = 0; i < in->len; i++) {
		struct sim_worker *w = &s->workers[worker_of(
			in, s->c->split, in->base + i, i, n)];
		if (i == from)
			for (unsigned k = 0; k < n; k++)
				s->workers[k].counted_from = s->workers[k].n;
		memcpy(w->keys + w->n * ks, in->keys + i * ks, ks);
		if (w->sizes)
			w->sizes[w->n] = in->sizes[i];
		w->n++;
	}
	for (unsigned k = 0; k < n; k++)
		if (s->workers[k].counted_from > s->workers[k].n)
			s->workers[k].counted_from = s->workers[k].n;
	return 0;
}

static void free_streams(struct sim_shared *s)
{
	for (unsigned k = 0; k < s->n_workers; k++) {
		struct sim_worker *w = &s->workers[k];
		if (w->owns_stream) {
			free(w->keys);
			free(w->sizes);
		}
		w->owns_stream = false;
		w->keys = NULL;
		w->sizes = NULL;
		w->done_before += w->n;
	}
}

/* --- the timed pass ------------------------------------------------------------------ */

/* The map's live count now: every worker's inserts minus evictions. */
static double live_now(const struct sim_shared *s)
{
	int64_t live = 0;
	for (unsigned k = 0; k < s->n_workers; k++)
		live += (int64_t)(atomic_load_explicit(&s->workers[k].inserts,
						      memory_order_relaxed) -
				  atomic_load_explicit(&s->workers[k].evictions,
						      memory_order_relaxed));
	return (double)live;
}

/* One request's miss: insert the key, count it. */
static void insert_missed(struct sim_shared *s, struct sim_worker *w,
			  const uint8_t *key)
{
	static const uint64_t value = 1;
	int rc = map_update(s->map, key, &value, MAP_NOEXIST);
	if (rc == 0)
		add_relaxed(&w->inserts, 1);
	else if (rc != -EEXIST) /* EEXIST: another thread's insert won */
		w->insert_failures++;
}

static void count_request(struct sim_worker *w, size_t i, bool hit)
{
	w->requests++;
	w->misses += !hit;
	if (w->sizes) {
		w->bytes += w->sizes[i];
		if (!hit)
			w->byte_misses += w->sizes[i];
	}
}

/* Every SAMPLE_EVERY requests: the live sample, progress, quiescence. */
static void every_so_often(struct sim_shared *s, struct sim_worker *w,
			   size_t done)
{
	if (w->counting) {
		w->live_sum += live_now(s);
		w->live_samples++;
	}
	atomic_store_explicit(&w->done, w->done_before + done,
			      memory_order_relaxed);
	map_rcu_quiescent();
}

/*
 * Serial cpus: run request i as the cpu the split gives it (sim.h).  The
 * slot changes only where the cpu does; slot 0 is the unclaimed default,
 * so no claim is needed to go back to it.  An error sticks in s.
 */
static void move_to_cpu(struct sim_shared *s, size_t i, unsigned *cpu)
{
	unsigned want = worker_of(s->in, s->c->split, s->in->base + i, i,
				  s->c->serial_cpus);
	if (want == *cpu)
		return;
	if (want == 0)
		map_cpu_release();
	else if (map_cpu_claim((int)want) != (int)want)
		s->slot_error = true;
	*cpu = want;
}

/* One request of w's stream: the lookup, and on a miss the insert. */
static inline void replay_request(struct sim_shared *s, struct sim_worker *w,
				  size_t i)
{
	const uint8_t *key = w->keys + i * s->in->key_size;
	if (i == w->counted_from && !w->counting) {
		w->counting = true;
		w->evictions_at_count = atomic_load_explicit(
			&w->evictions, memory_order_relaxed);
	}
	map_rcu_read_lock();
	bool hit = map_lookup(s->map, key) != NULL;
	map_rcu_read_unlock();
	if (!hit)
		insert_missed(s, w, key);
	if (i >= w->counted_from)
		count_request(w, i, hit);
	if ((i & (SAMPLE_EVERY - 1)) == SAMPLE_EVERY - 1)
		every_so_often(s, w, i + 1);
}

/* Two loops, so that the timed one of --threads has no cpu check in it. */
static void replay_stream(struct sim_shared *s, struct sim_worker *w)
{
	current_worker = w;
	if (s->c->serial_cpus) {
		unsigned cpu = map_this_cpu();
		for (size_t i = 0; i < w->n; i++) {
			move_to_cpu(s, i, &cpu);
			replay_request(s, w, i);
		}
		map_cpu_release();
	} else {
		for (size_t i = 0; i < w->n; i++)
			replay_request(s, w, i);
	}
	atomic_store_explicit(&w->done, w->done_before + w->n,
			      memory_order_relaxed);
	current_worker = NULL;
}

static void worker_phase(void *ctx, unsigned worker, unsigned phase,
			 const atomic_bool *stop)
{
	struct sim_shared *s = ctx;
	(void)phase;
	(void)stop; /* a stream ends on its own */
	replay_stream(s, &s->workers[worker]);
}

static double fraction_done(void *ctx)
{
	const struct sim_shared *s = ctx;
	uint64_t done = 0;
	for (unsigned k = 0; k < s->n_workers; k++)
		done += atomic_load_explicit(&s->workers[k].done,
					     memory_order_relaxed);
	return s->total ? (double)done / (double)s->total : 1;
}

static int create_map(const struct sim_input *in, const struct sim_config *c,
		      struct map **m, char *err, size_t errlen)
{
	const struct map_ops *ops = c->policy->design;
	/* A fixed hash seed: a miss ratio must not change from run to run
	 * (lru/s3fifo's ghost remembers 32-bit hashes, whose collisions
	 * depend on the seed). */
	struct map_attr attr = {
		.type = MAP_TYPE_LRU_HASH, .key_size = in->key_size,
		.value_size = 8, .max_entries = c->entries,
		.flags = MAP_F_ZERO_SEED,
		.ncpus = c->ncpus ? c->ncpus
				  : map_cpus_for_threads(c->serial_cpus
							 ? c->serial_cpus
							 : c->threads),
		.model = c->model,
	};
	int rc = map_create(ops, &attr, m);
	if (rc)
		snprintf(err, errlen, "%s refuses key_size=%u value_size=8 "
			 "max_entries=%u: %s", ops->name, attr.key_size,
			 attr.max_entries, map_errno_text(-rc));
	else if (ops->watch_evictions)
		ops->watch_evictions(*m, on_evict, NULL);
	return rc;
}

static void sum_workers(const struct sim_shared *s, struct sim_result *r)
{
	double live_sum = 0;
	uint64_t samples = 0;
	for (unsigned k = 0; k < s->n_workers; k++) {
		const struct sim_worker *w = &s->workers[k];
		r->requests += w->requests;
		r->misses += w->misses;
		r->insert_failures += w->insert_failures;
		if (w->counting)
			r->evictions += atomic_load_explicit(
				&w->evictions, memory_order_relaxed) -
				w->evictions_at_count;
		r->bytes += w->bytes;
		r->byte_misses += w->byte_misses;
		live_sum += w->live_sum;
		samples += w->live_samples;
	}
	r->live_mean = samples ? live_sum / (double)samples : NAN;
}

static int timed_pass(struct sim_shared *s, struct sim_result *r, char *err,
		      size_t errlen)
{
	const struct sim_config *c = s->c;
	struct team team;
	struct team_config tc = {
		.threads = c->threads, .rcu = true, .cpu_slots = true,
		.body = worker_phase, .ctx = s, .progress = c->progress,
		.progress_arg = c->progress_arg, .done_fraction = fraction_done,
	};
	uint64_t ns = 0;
	int rc = create_map(s->in, c, &s->map, err, errlen);
	if (rc)
		return rc;
	rc = team_start(&team, &tc, err, errlen);
	if (!rc) {
		/* Only the replay is timed: reading and splitting a
		 * streamed trace's chunks is not. */
		long got = load_chunk(s->in, true, err, errlen);
		for (; got > 0; got = load_chunk(s->in, false, err, errlen)) {
			if (make_streams(s, false)) {
				snprintf(err, errlen, "out of memory for the "
					 "streams");
				got = -ENOMEM;
				break;
			}
			uint64_t t0 = clock_now_ns();
			team_run_phase(&team, 0, 0);
			ns += clock_now_ns() - t0;
			free_streams(s);
		}
		free_streams(s);
		team_join(&team);
		rc = (int)(got < 0 ? got : 0);
		if (!rc && s->slot_error) {
			snprintf(err, errlen, "serial cpus: a cpu slot was "
				 "held by another thread");
			rc = -EBUSY;
		}
		r->seconds = (double)ns * 1e-9;
		r->mreq_per_s = r->seconds > 0 ? (double)s->total / r->seconds
						 / 1e6 : NAN;
		sum_workers(s, r);
		r->has_evictions = c->policy->design->watch_evictions != NULL;
		if (!r->has_evictions)
			r->live_mean = NAN;
		double per = map_memory_per_entry(s->map);
		r->meta_per_entry = per > 0 ? per - s->in->key_size - 8 : NAN;
	}
	map_destroy(s->map);
	s->map = NULL;
	return rc;
}

/* --- the stray pass ------------------------------------------------------------------ */

struct shadow_lru {
	uint32_t *prev, *next; /* towards the head / towards the tail */
	uint32_t *seen;        /* stamp: among the k oldest of check stamp */
	uint32_t head, tail, stamp;
	bool *in;
};

static int shadow_init(struct shadow_lru *l, uint32_t n)
{
	l->prev = malloc(n * sizeof(*l->prev));
	l->next = malloc(n * sizeof(*l->next));
	l->seen = calloc(n, sizeof(*l->seen));
	l->in = calloc(n, sizeof(*l->in));
	l->head = l->tail = NONE;
	l->stamp = 0;
	return l->prev && l->next && l->seen && l->in ? 0 : -ENOMEM;
}

static void shadow_free(struct shadow_lru *l)
{
	free(l->prev);
	free(l->next);
	free(l->seen);
	free(l->in);
}

static void shadow_unlink(struct shadow_lru *l, uint32_t d)
{
	uint32_t p = l->prev[d], n = l->next[d];
	if (p == NONE) l->head = n; else l->next[p] = n;
	if (n == NONE) l->tail = p; else l->prev[n] = p;
	l->in[d] = false;
}

static void shadow_touch(struct shadow_lru *l, uint32_t d)
{
	if (l->in[d]) {
		if (l->head == d)
			return;
		shadow_unlink(l, d);
	}
	l->prev[d] = NONE;
	l->next[d] = l->head;
	if (l->head != NONE)
		l->prev[l->head] = d;
	l->head = d;
	if (l->tail == NONE)
		l->tail = d;
	l->in[d] = true;
}

/* Of the victims one insert reported: how many were not among the k
 * oldest keys of the shadow; then they leave the shadow. */
static uint64_t shadow_check_victims(struct shadow_lru *l, const uint32_t *v,
				     uint32_t k)
{
	uint64_t out = 0;
	uint32_t d = l->tail;
	l->stamp++;
	for (uint32_t i = 0; i < k && d != NONE; i++, d = l->prev[d])
		l->seen[d] = l->stamp;
	for (uint32_t i = 0; i < k; i++) {
		out += l->seen[v[i]] != l->stamp;
		if (l->in[v[i]])
			shadow_unlink(l, v[i]);
	}
	return out;
}

static int stray_pass(struct sim_shared *s, struct sim_result *r, char *err,
		      size_t errlen)
{
	struct sim_worker *w = &s->workers[0];
	struct shadow_lru l;
	uint64_t out = 0, victims = 0, misses = 0;
	uint32_t ks = s->in->key_size;
	int rc = shadow_init(&l, s->in->distinct ? s->in->distinct : 1);

	s->victim_cap = s->c->entries;
	s->victims = malloc(s->victim_cap * sizeof(*s->victims));
	if (rc || !s->victims) {
		snprintf(err, errlen, "out of memory for the stray pass");
		rc = -ENOMEM;
	}
	if (!rc)
		rc = create_map(s->in, s->c, &s->map, err, errlen);
	long got = rc ? rc : load_chunk(s->in, true, err, errlen);
	if (got > 0)
		current_shared = s;
	for (; got > 0; got = load_chunk(s->in, false, err, errlen)) {
		unsigned cpu = map_this_cpu();
		make_streams(s, true); /* one worker: no allocation */
		for (size_t i = 0; i < w->n; i++) {
			const uint8_t *key = w->keys + i * ks;
			bool counted = i >= w->counted_from;
			if (s->c->serial_cpus)
				move_to_cpu(s, i, &cpu);
			map_rcu_read_lock();
			bool hit = map_lookup(s->map, key) != NULL;
			map_rcu_read_unlock();
			if (!hit) {
				static const uint64_t value = 1;
				s->n_victims = 0;
				map_update(s->map, key, &value, MAP_NOEXIST);
				uint64_t o = shadow_check_victims(&l, s->victims,
								  s->n_victims);
				if (counted) {
					out += o;
					victims += s->n_victims;
					misses++;
				}
			}
			shadow_touch(&l, w->dense[i]);
			if ((i & 1023) == 1023)
				map_rcu_quiescent();
		}
		free_streams(s);
	}
	current_shared = NULL;
	if (s->c->serial_cpus)
		map_cpu_release();
	if (!rc)
		rc = (int)(got < 0 ? got : 0);
	if (s->map) {
		map_destroy(s->map);
		s->map = NULL;
	}
	if (!rc && s->victim_unknown) {
		snprintf(err, errlen, "%s reported a victim that is no trace key",
			 s->c->policy->name);
		rc = -EPROTO;
	}
	r->stray = victims ? (double)out / (double)victims : NAN;
	r->stray_victims = victims;
	r->stray_pass_misses = misses;
	free(s->victims);
	s->victims = NULL;
	shadow_free(&l);
	return rc;
}

/* --- the kernel's LRU hash (ksim) --------------------------------------------------- */

/* Registered by the cli where maplab is built with the kernel side. */
static const struct sim_kernel_engine *kernel_engine;

void sim_set_kernel_engine(const struct sim_kernel_engine *engine)
{
	kernel_engine = engine;
}

bool sim_kernel_available(char *why, size_t whylen)
{
	if (kernel_engine)
		return kernel_engine->available(why, whylen);
	snprintf(why, whylen, "built without the kernel side");
	return false;
}

/* Bytes requested and missed in a stream's counted requests. */
static void count_kernel_bytes(const struct sim_worker *w,
			       const uint8_t *missed, struct sim_result *r)
{
	for (size_t i = w->counted_from; i < w->n; i++) {
		r->bytes += w->sizes[i];
		if (missed[i])
			r->byte_misses += w->sizes[i];
	}
}

/* The kernel's cpus: its machine's (a VM's), or this process's. */
static unsigned kernel_cpu_count(void)
{
	return kernel_engine->machine_cpus ? kernel_engine->machine_cpus()
					   : map_cpu_allowed_count();
}

/* The id of the kernel's i-th cpu. */
static int kernel_cpu_id(unsigned i)
{
	return kernel_engine->machine_cpus ? (int)i : map_cpu_allowed_id(i);
}

/* Serial cpus: each request's CPU, the c-th allowed for cpu slot c, as a
 * team pins worker c.  0, or -EINVAL / -ENOMEM with err. */
static int serial_kernel_cpus(const struct sim_shared *s,
			      struct ksim_stream *st, char *err, size_t errlen)
{
	unsigned n = s->c->serial_cpus;
	size_t total = s->workers[0].n;
	if (n > kernel_cpu_count()) {
		snprintf(err, errlen, "%u cpus: the kernel's side may use %u", n,
			 kernel_cpu_count());
		return -EINVAL;
	}
	uint16_t *cpus = malloc((total ? total : 1) * sizeof(*cpus));
	if (!cpus) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < total; i++)
		cpus[i] = (uint16_t)kernel_cpu_id(
			worker_of(s->in, s->c->split, i, i, n));
	st->cpus = cpus;
	return 0;
}

/*
 * The same streams, through the kernel's map: stream i on the i-th CPU
 * this process may use, as the team pins worker i.  The kernel counts no
 * evictions; with nothing warmed up they are the inserts less the keys
 * left at the end.
 */
static int kernel_pass(struct sim_shared *s, struct sim_result *r, char *err,
		       size_t errlen)
{
	const struct sim_config *c = s->c;
	struct ksim_config kc = { .key_size = s->in->key_size, .value_size = 8,
				  .max_entries = c->entries,
				  .map_flags = c->policy->kernel_flags };
	struct ksim_stream *st = calloc(s->n_workers, sizeof(*st));
	struct ksim_stream_result *sr = calloc(s->n_workers, sizeof(*sr));
	struct ksim_result kr = { .streams = sr };
	uint64_t raced = 0, samples = 0;
	double live_sum = 0;
	int rc = st && sr ? 0 : -ENOMEM;

	if (rc)
		snprintf(err, errlen, "out of memory");
	if (!rc && !kernel_engine) {
		snprintf(err, errlen, "built without the kernel side");
		rc = -EOPNOTSUPP;
	}
	if (!rc && c->serial_cpus)
		rc = serial_kernel_cpus(s, &st[0], err, errlen);
	for (unsigned k = 0; !rc && k < s->n_workers; k++) {
		if (k >= kernel_cpu_count()) {
			snprintf(err, errlen, "%u threads: the kernel's side may "
				 "use %u CPUs", s->n_workers, kernel_cpu_count());
			rc = -EINVAL;
			break;
		}
		st[k] = (struct ksim_stream){ .keys = s->workers[k].keys,
					      .n = s->workers[k].n,
					      .counted_from =
						      s->workers[k].counted_from,
					      .cpu = kernel_cpu_id(k),
					      .cpus = st[k].cpus };
		/* the byte miss ratio needs to know which requests missed */
		if (r->has_bytes &&
		    !(st[k].missed = malloc(st[k].n ? st[k].n : 1))) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	if (!rc)
		rc = kernel_engine->run(&kc, st, s->n_workers, &kr, err, errlen);
	for (unsigned k = 0; !rc && k < s->n_workers; k++) {
		r->requests += sr[k].requests;
		r->misses += sr[k].misses;
		r->insert_failures += sr[k].insert_failures;
		raced += sr[k].raced;
		live_sum += (double)sr[k].live_sum;
		samples += sr[k].live_samples;
	}
	if (!rc) {
		r->seconds = kr.seconds;
		r->mreq_per_s = kr.seconds > 0 ? (double)s->total / kr.seconds
						  / 1e6 : NAN;
		r->live_mean = samples ? live_sum / (double)samples : NAN;
		r->has_evictions = s->in->warmup == 0;
		if (r->has_evictions)
			r->evictions = r->misses - raced - r->insert_failures -
				       kr.live_at_end;
		for (unsigned k = 0; k < s->n_workers && r->has_bytes; k++)
			count_kernel_bytes(&s->workers[k], st[k].missed, r);
	}
	for (unsigned k = 0; st && k < s->n_workers; k++) {
		free(st[k].missed);
		free((void *)st[k].cpus);
	}
	free(st);
	free(sr);
	return rc;
}

/* --- one point ------------------------------------------------------------------------ */

int sim_run(struct sim_input *in, const struct sim_config *c,
	    struct sim_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->live_mean = r->meta_per_entry = r->stray = NAN;
	r->has_bytes = in->has_sizes;
	if (in->source && c->policy->engine != SIM_ENGINE_MAP) {
		snprintf(err, errlen, "%s needs the trace held whole, and this "
			 "one is streamed (%zu requests)", c->policy->name,
			 in->n);
		return -EOPNOTSUPP;
	}
	if (c->serial_cpus && c->threads != 1) {
		snprintf(err, errlen, "serial cpus run on one thread, not %u",
			 c->threads);
		return -EINVAL;
	}
	if (c->policy->engine == SIM_ENGINE_OPT)
		return sim_opt_run(in, c->entries, r, err, errlen);
	struct sim_shared s = { .in = in, .c = c, .n_workers = c->threads,
				.total = in->n };
	int rc = 0;
	s.workers = aligned_alloc(64, c->threads * sizeof(*s.workers));
	if (!s.workers) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(s.workers, 0, c->threads * sizeof(*s.workers));
	if (c->policy->engine == SIM_ENGINE_KERNEL) {
		rc = make_streams(&s, false); /* held whole: one chunk */
		if (rc)
			snprintf(err, errlen, "out of memory for the streams");
		else
			rc = kernel_pass(&s, r, err, errlen);
		free_streams(&s);
	}
	map_thread_online();
	if (!rc && c->policy->engine == SIM_ENGINE_MAP)
		rc = timed_pass(&s, r, err, errlen);
	if (!rc && c->stray && c->threads == 1 &&
	    c->policy->engine == SIM_ENGINE_MAP &&
	    c->policy->design->watch_evictions)
		rc = stray_pass(&s, r, err, errlen);
	map_thread_offline();
	free(s.workers);
	return rc;
}
