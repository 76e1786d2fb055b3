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
#include "sim.h"
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

/* The dense number of key value v, a new one if v is new. */
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

void sim_input_free(struct sim_input *in)
{
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
	/* counters: this worker's own, relaxed */
	_Atomic uint64_t inserts, evictions, done;
	uint64_t misses, requests, insert_failures;
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

static unsigned worker_of(const struct sim_input *in, enum sim_split split,
			  size_t i, unsigned n)
{
	if (split == SIM_SPLIT_RR)
		return (unsigned)(i % n);
	return key_hash(in->keys + i * in->key_size, in->key_size) % n;
}

/* Each worker's stream; one worker reads the input's arrays directly. */
static int make_streams(struct sim_shared *s, bool with_dense)
{
	const struct sim_input *in = s->in;
	const struct sim_trace *t = in->trace;
	unsigned n = s->n_workers;
	uint32_t ks = in->key_size;

	if (n == 1) {
		struct sim_worker *w = &s->workers[0];
		w->keys = in->keys;
		w->sizes = t->sizes;
		w->dense = with_dense ? in->dense : NULL;
		w->n = t->n;
		w->counted_from = in->warmup < t->n ? in->warmup : t->n;
		return 0;
	}
	for (size_t i = 0; i < t->n; i++)
		s->workers[worker_of(in, s->c->split, i, n)].n++;
	for (unsigned k = 0; k < n; k++) {
		struct sim_worker *w = &s->workers[k];
		w->owns_stream = true;
		w->keys = malloc((w->n ? w->n : 1) * ks);
		w->sizes = t->sizes ? malloc((w->n ? w->n : 1) * sizeof(uint32_t))
				    : NULL;
		if (!w->keys || (t->sizes && !w->sizes))
			return -ENOMEM;
		w->n = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct sim_worker *w =
			&s->workers[worker_of(in, s->c->split, i, n)];
		if (i == in->warmup)
			for (unsigned k = 0; k < n; k++)
				s->workers[k].counted_from = s->workers[k].n;
		memcpy(w->keys + w->n * ks, in->keys + i * ks, ks);
		if (w->sizes)
			w->sizes[w->n] = t->sizes[i];
		w->n++;
	}
	if (in->warmup >= t->n)
		for (unsigned k = 0; k < n; k++)
			s->workers[k].counted_from = s->workers[k].n;
	return 0;
}

static void free_streams(struct sim_shared *s)
{
	for (unsigned k = 0; k < s->n_workers; k++)
		if (s->workers[k].owns_stream) {
			free(s->workers[k].keys);
			free(s->workers[k].sizes);
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
	if (done > w->counted_from) {
		w->live_sum += live_now(s);
		w->live_samples++;
	}
	atomic_store_explicit(&w->done, done, memory_order_relaxed);
	map_rcu_quiescent();
}

static void replay_stream(struct sim_shared *s, struct sim_worker *w)
{
	struct map *m = s->map;
	uint32_t ks = s->in->key_size;

	current_worker = w;
	for (size_t i = 0; i < w->n; i++) {
		const uint8_t *key = w->keys + i * ks;
		if (i == w->counted_from)
			w->evictions_at_count = atomic_load_explicit(
				&w->evictions, memory_order_relaxed);
		map_rcu_read_lock();
		bool hit = map_lookup(m, key) != NULL;
		map_rcu_read_unlock();
		if (!hit)
			insert_missed(s, w, key);
		if (i >= w->counted_from)
			count_request(w, i, hit);
		if ((i & (SAMPLE_EVERY - 1)) == SAMPLE_EVERY - 1)
			every_so_often(s, w, i + 1);
	}
	if (w->n == w->counted_from)
		w->evictions_at_count = atomic_load_explicit(
			&w->evictions, memory_order_relaxed);
	atomic_store_explicit(&w->done, w->n, memory_order_relaxed);
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
		.ncpus = c->ncpus ? c->ncpus : map_cpus_for_threads(c->threads),
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
		r->evictions += atomic_load_explicit(&w->evictions,
						     memory_order_relaxed) -
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
	int rc = create_map(s->in, c, &s->map, err, errlen);
	if (rc)
		return rc;
	rc = team_start(&team, &tc, err, errlen);
	if (!rc) {
		uint64_t t0 = clock_now_ns();
		team_run_phase(&team, 0, 0);
		uint64_t t1 = clock_now_ns();
		team_join(&team);
		r->seconds = (double)(t1 - t0) * 1e-9;
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
	if (!rc) {
		current_shared = s;
		for (size_t i = 0; i < w->n; i++) {
			const uint8_t *key = w->keys + i * ks;
			bool counted = i >= w->counted_from;
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
		current_shared = NULL;
		map_destroy(s->map);
		s->map = NULL;
		if (s->victim_unknown) {
			snprintf(err, errlen, "%s reported a victim that is no "
				 "trace key", s->c->policy->name);
			rc = -EPROTO;
		}
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
	for (unsigned k = 0; !rc && k < s->n_workers; k++) {
		if (k >= map_cpu_allowed_count()) {
			snprintf(err, errlen, "%u threads: this process may use "
				 "%u CPUs", s->n_workers, map_cpu_allowed_count());
			rc = -EINVAL;
			break;
		}
		st[k] = (struct ksim_stream){ .keys = s->workers[k].keys,
					      .n = s->workers[k].n,
					      .counted_from =
						      s->workers[k].counted_from,
					      .cpu = map_cpu_allowed_id(k) };
		/* the byte miss ratio needs to know which requests missed */
		if (r->has_bytes &&
		    !(st[k].missed = malloc(st[k].n ? st[k].n : 1))) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
	}
	if (!rc && !kernel_engine) {
		snprintf(err, errlen, "built without the kernel side");
		rc = -EOPNOTSUPP;
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
	for (unsigned k = 0; st && k < s->n_workers; k++)
		free(st[k].missed);
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
	r->has_bytes = in->trace->sizes != NULL;
	if (c->policy->engine == SIM_ENGINE_OPT)
		return sim_opt_run(in, c->entries, r, err, errlen);
	struct sim_shared s = { .in = in, .c = c, .n_workers = c->threads,
				.total = in->trace->n };
	int rc;
	s.workers = aligned_alloc(64, c->threads * sizeof(*s.workers));
	if (!s.workers) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(s.workers, 0, c->threads * sizeof(*s.workers));
	rc = make_streams(&s, c->stray && c->threads == 1);
	if (rc)
		snprintf(err, errlen, "out of memory for the streams");
	if (!rc && c->policy->engine == SIM_ENGINE_KERNEL)
		rc = kernel_pass(&s, r, err, errlen);
	map_thread_online();
	if (!rc && c->policy->engine == SIM_ENGINE_MAP)
		rc = timed_pass(&s, r, err, errlen);
	if (!rc && c->stray && c->threads == 1 &&
	    c->policy->engine == SIM_ENGINE_MAP &&
	    c->policy->design->watch_evictions)
		rc = stray_pass(&s, r, err, errlen);
	map_thread_offline();
	free_streams(&s);
	free(s.workers);
	return rc;
}
