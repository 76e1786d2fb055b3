/* SPDX-License-Identifier: MIT */
/* bench.c: one benchmark run (bench.h), and the no-op design that prices
 * the harness. */
#include "harness/bench/bench.h"
#include "harness/bench/memstat.h"
#include "harness/bench/phase.h"
#include "harness/common/clock.h"
#include "harness/common/team.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bench_worker {
	struct bench_shared *shared;
	unsigned tid;
	struct stream stream;
	size_t pos;              /* where in the stream: kept across phases,
				     so no key is inserted twice */
	uint8_t *value;
	uint8_t *stream_keys;     /* --batch: op i's key at i * key_size, so a
				     batch's keys lie side by side, as a burst
				     of packets' would */
	uint64_t writes;
	uint64_t quota;           /* ops to do when counting ops */
	_Atomic uint64_t done;    /* ops so far (read by progress) */
	uint64_t warmup_ns;       /* how long its warm-up took */
	uint64_t ok[OP_COUNT], fail[OP_COUNT];
	struct histogram latency;
	uint64_t t_start, t_end;  /* ns */
} __attribute__((aligned(64)));

struct bench_shared {
	const struct bench_config *c;
	struct map *map;
	const uint8_t *keys;
	struct key_sampler *sampler;
	struct bench_worker *workers;
	uint32_t sample_every;    /* a power of two (bench_sample_every) */
};

enum { PHASE_WARMUP, PHASE_TIMED };

/* A value's new bytes for the worker's next write. */
static inline const uint8_t *next_value(struct bench_worker *w)
{
	w->value[0] = (uint8_t)++w->writes;
	return w->value;
}

/* lookup_write: a program's lookup, then a write into the value where it
 * points, zeroing its first LOOKUP_WRITE_BYTES bytes as the suite's
 * rolling_lru writes 0 into its int (and kbench's program does); an
 * absent key is put in. */
static inline bool lookup_write(struct bench_worker *w, struct map *m,
				const uint8_t *key)
{
	uint8_t *v = map_lookup(m, key);
	if (!v)
		return map_update(m, key, next_value(w), MAP_NOEXIST) == 0;
	uint32_t n = w->shared->c->w.value_size;
	memset(v, 0, n < LOOKUP_WRITE_BYTES ? n : LOOKUP_WRITE_BYTES);
	return true;
}

/* One op (workload.h's table); true if it succeeded. */
static inline bool do_op(struct bench_worker *w, struct map *m,
			 const struct stream_op *op, const uint8_t *key)
{
	switch (op->op) {
	case OP_LOOKUP: {
		const volatile uint8_t *v = map_lookup(m, key);
		if (!v)
			return false;
		(void)v[0]; /* touch the value, as a program would */
		return true;
	}
	case OP_UPDATE:
		return map_update(m, key, next_value(w), MAP_EXIST) == 0;
	case OP_INSERT:
		return map_update(m, key, next_value(w), MAP_NOEXIST) == 0;
	case OP_DELETE:
		return map_delete(m, key) == 0;
	case OP_UPSERT:
		return map_update(m, key, next_value(w), MAP_ANY) == 0;
	case OP_REPLACE: {
		/* both calls, always: the op's cost is two map calls */
		bool deleted = map_delete(m, key) == 0;
		return (map_update(m, key, next_value(w), MAP_ANY) == 0) && deleted;
	}
	default:
		return lookup_write(w, m, key);
	}
}

/* The end of a round of BENCH_BATCH ops (their read section ended, a
 * quiescent state, the count for progress): whether the phase is over. */
static bool round_done(struct bench_worker *w, uint64_t *n,
		       const atomic_bool *stop, uint64_t quota)
{
	map_rcu_read_unlock();
	map_rcu_quiescent();
	*n += BENCH_BATCH;
	atomic_store_explicit(&w->done, *n, memory_order_relaxed);
	return quota ? *n >= quota
		     : atomic_load_explicit(stop, memory_order_relaxed);
}

/* What a phase's loop reads on every op, held in locals for the phase
 * (so the compiler keeps them in registers: the op's stores to the
 * worker's counts cannot change them). */
struct phase_loop {
	struct map *m;
	const uint8_t *keys;
	const struct stream_op *ops;
	size_t len;
	uint32_t key_size;
	uint32_t every; /* sample_every, a power of two */
};

static struct phase_loop phase_loop_of(const struct bench_worker *w)
{
	const struct bench_shared *s = w->shared;
	return (struct phase_loop){ .m = s->map, .keys = s->keys,
				    .ops = w->stream.ops, .len = w->stream.len,
				    .key_size = s->c->w.key_size,
				    .every = s->sample_every };
}

/*
 * The op at *pos, alone (*pos moves past it): the key BENCH_KEY_AHEAD ops
 * on is prefetched, then the op runs; when `timed` it is counted, and
 * timed alone where it is the first of its sample_every (index: its
 * number in the phase).  Both loops run every op but a batch's lookups
 * through here, so a batch changes the lookups alone.
 */
static inline __attribute__((always_inline)) void
one_op(struct bench_worker *w, const struct phase_loop *l, bool timed,
       uint64_t index, size_t *pos)
{
	const struct stream_op *op = &l->ops[*pos];
	const uint8_t *key = l->keys + (size_t)op->key * l->key_size;
	size_t ahead = *pos + BENCH_KEY_AHEAD;
	__builtin_prefetch(l->keys + (size_t)l->ops[ahead < l->len ? ahead
			   : ahead - l->len].key * l->key_size);
	if (++*pos == l->len)
		*pos = 0;
	if (timed && (index & (l->every - 1)) == 0) {
		uint64_t t0 = clock_now_ns();
		bool ok = do_op(w, l->m, op, key);
		hist_add(&w->latency, clock_now_ns() - t0);
		(ok ? w->ok : w->fail)[op->op]++;
	} else if (timed) {
		(do_op(w, l->m, op, key) ? w->ok : w->fail)[op->op]++;
	} else {
		do_op(w, l->m, op, key);
	}
}

/*
 * Replay the stream until told to stop (or the quota is met).  Counts and
 * samples only when `timed`.
 */
static void run_phase(struct bench_worker *w, bool timed,
		      const atomic_bool *stop, uint64_t quota)
{
	const struct phase_loop l = phase_loop_of(w);
	size_t pos = w->pos;
	uint64_t n = 0;

	for (;;) {
		map_rcu_read_lock();
		for (unsigned i = 0; i < BENCH_BATCH; i++)
			one_op(w, &l, timed, n + i, &pos);
		if (round_done(w, &n, stop, quota))
			break;
	}
	w->pos = pos;
}

/* Whether ops index .. index + k - 1 hold the first op of a sample_every
 * (every a power of two): the batch that holds it is the sample. */
static inline bool holds_a_sample(uint64_t index, unsigned k, uint32_t every)
{
	uint64_t into = index & (every - 1);
	return into == 0 || into + k > every;
}

/*
 * The lookups at *pos, at most `most` and no other op, and none past the
 * stream's end, as one map_lookup_batch (each value touched, as a program
 * would); *pos moves past them.  When `timed`, counted (each key an op)
 * and, where they hold the first op of a sample_every, timed together:
 * one sample, their ns per key.  The number of keys looked up.  The keys
 * go to the map where they lie in stream_keys: a harness that gathered
 * them from the key table would pay a miss of its own per key at 1M keys
 * (the table is 4 MB), as much as the map's (docs/bench.md, "Batched
 * lookups").
 */
static unsigned lookup_batch(struct bench_worker *w, const struct phase_loop *l,
			     bool timed, uint64_t index, size_t *pos,
			     unsigned most)
{
	const size_t first = *pos;
	void *values[MAP_BATCH_MAX];
	unsigned n = 0;
	if (most > l->len - first)
		most = (unsigned)(l->len - first);
	while (n < most && l->ops[first + n].op == OP_LOOKUP)
		n++;
	*pos = first + n == l->len ? 0 : first + n;
	bool sample = timed && holds_a_sample(index, n, l->every);
	uint64_t t0 = sample ? clock_now_ns() : 0;
	unsigned hits = map_lookup_batch(l->m, w->stream_keys + first * l->key_size,
					 n, values);
	for (unsigned i = 0; i < n; i++)
		if (values[i])
			(void)*(const volatile uint8_t *)values[i];
	if (sample)
		hist_add(&w->latency, (clock_now_ns() - t0) / n);
	if (timed) {
		w->ok[OP_LOOKUP] += hits;
		w->fail[OP_LOOKUP] += n - hits;
	}
	return n;
}

/*
 * run_phase with --batch: each run of consecutive lookups in the stream
 * goes to the map up to w.batch keys at a time, each key counted as an op
 * (so ns/op is per key); every other op runs alone between them, as
 * run_phase runs it (one_op: its key prefetched, timed alone when it is
 * the first of its sample_every).  A batch that holds the first op of a
 * sample_every is one sample: its ns per key.  Only a workload with
 * lookups runs here (worker_phase).
 */
static void run_phase_batched(struct bench_worker *w, bool timed,
			      const atomic_bool *stop, uint64_t quota)
{
	const struct phase_loop l = phase_loop_of(w);
	const unsigned batch = w->shared->c->w.batch;
	size_t pos = w->pos;
	uint64_t n = 0;

	for (;;) {
		map_rcu_read_lock();
		for (unsigned i = 0; i < BENCH_BATCH;) {
			if (l.ops[pos].op != OP_LOOKUP) {
				one_op(w, &l, timed, n + i, &pos);
				i++;
				continue;
			}
			unsigned most = BENCH_BATCH - i < batch ? BENCH_BATCH - i
								: batch;
			i += lookup_batch(w, &l, timed, n + i, &pos, most);
		}
		if (round_done(w, &n, stop, quota))
			break;
	}
	w->pos = pos;
}

/* Whether c's runs go through run_phase_batched: a batch of more than one
 * key, and lookups to batch (a batch changes lookups only: without them
 * the run is run_phase's in every respect). */
static bool runs_batched(const struct bench_config *c)
{
	return c->w.batch > 1 && c->w.mix[OP_LOOKUP] > 0;
}

/* The team's body: warm up untimed, or run the timed phase. */
static void worker_phase(void *ctx, unsigned tid, unsigned phase,
			 const atomic_bool *stop)
{
	struct bench_worker *w = &((struct bench_shared *)ctx)->workers[tid];

	void (*run)(struct bench_worker *, bool, const atomic_bool *, uint64_t) =
		runs_batched(w->shared->c) ? run_phase_batched : run_phase;
	if (phase == PHASE_WARMUP) {
		uint64_t t0 = clock_now_ns();
		run(w, false, stop, 0);
		w->warmup_ns = clock_now_ns() - t0;
		return;
	}
	w->t_start = clock_now_ns();
	run(w, true, stop, w->quota);
	w->t_end = clock_now_ns();
}

/* Insert the first prefill % of keys 0..entries-1.  0, or the errno of
 * the first insert the map refused (a correct map has room for them). */
static int prefill(struct bench_shared *s, uint64_t *done, char *err,
		   size_t errlen)
{
	const struct workload *w = &s->c->w;
	uint64_t n = workload_prefill_count(w);
	uint8_t *value = calloc(1, w->value_size);
	int rc = value ? 0 : -ENOMEM;

	*done = 0;
	for (uint64_t k = 0; !rc && k < n; k++) {
		workload_fill_value(value, w->value_size, k);
		rc = map_update(s->map, s->keys + k * w->key_size, value,
				MAP_NOEXIST);
		*done += rc == 0;
	}
	free(value);
	if (rc)
		snprintf(err, errlen, "prefill: %s refused key %llu of %llu: %s",
			 s->c->design->name, (unsigned long long)*done + 1,
			 (unsigned long long)n, map_errno_text(-rc));
	return rc;
}

static double fraction_done(void *ctx)
{
	struct bench_shared *s = ctx;
	uint64_t done = 0;
	for (unsigned t = 0; t < s->c->threads; t++)
		done += atomic_load_explicit(&s->workers[t].done,
					     memory_order_relaxed);
	return (double)done / (double)s->c->ops;
}

void bench_result_add(struct bench_result *r, const uint64_t ok[OP_COUNT],
		      const uint64_t fail[OP_COUNT],
		      const struct histogram *latency, uint64_t t_start,
		      uint64_t t_end)
{
	for (int op = 0; op < OP_COUNT; op++) {
		r->ok[op] += ok[op];
		r->fail[op] += fail[op];
		r->ops += ok[op] + fail[op];
	}
	if (latency)
		hist_merge(&r->latency, latency);
	if (!r->t_first || t_start < r->t_first)
		r->t_first = t_start;
	if (t_end > r->t_last)
		r->t_last = t_end;
}

void bench_result_finish(struct bench_result *r, unsigned threads)
{
	r->seconds = (double)(r->t_last - r->t_first) / 1e9;
	r->mops = r->seconds > 0 ? (double)r->ops / r->seconds / 1e6 : 0;
	r->ns_per_op = r->ops ? r->seconds * 1e9 * threads / (double)r->ops : 0;
}

static void collect(struct bench_shared *s, struct bench_result *r)
{
	for (unsigned t = 0; t < s->c->threads; t++) {
		struct bench_worker *w = &s->workers[t];
		bench_result_add(r, w->ok, w->fail, &w->latency, w->t_start,
				 w->t_end);
	}
	bench_result_finish(r, s->c->threads);
}

/* --batch: w's keys in the order of its stream (bench_worker.stream_keys);
 * 0 or -ENOMEM. */
static int lay_out_stream_keys(const struct bench_shared *s,
			       struct bench_worker *w)
{
	const uint32_t key_size = s->c->w.key_size;
	w->stream_keys = malloc(w->stream.len * key_size);
	if (!w->stream_keys)
		return -ENOMEM;
	for (size_t i = 0; i < w->stream.len; i++)
		memcpy(w->stream_keys + i * key_size,
		       s->keys + (size_t)w->stream.ops[i].key * key_size,
		       key_size);
	return 0;
}

static int setup_workers(struct bench_shared *s, char *err, size_t errlen)
{
	const struct bench_config *c = s->c;
	size_t len = workload_stream_len(&c->w);

	s->workers = aligned_alloc(64, sizeof(*s->workers) * c->threads);
	if (!s->workers)
		goto nomem;
	memset(s->workers, 0, sizeof(*s->workers) * c->threads);
	for (unsigned t = 0; t < c->threads; t++) {
		struct bench_worker *w = &s->workers[t];
		w->shared = s;
		w->tid = t;
		w->quota = bench_worker_quota(c, BENCH_BATCH);
		w->value = calloc(1, c->w.value_size);
		if (!w->value || workload_make_stream(&c->w, s->sampler, t, len,
						      &w->stream))
			goto nomem;
		if (runs_batched(c) && lay_out_stream_keys(s, w))
			goto nomem;
		workload_fill_value(w->value, c->w.value_size, t + 1);
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory preparing %u workers", c->threads);
	return -ENOMEM;
}

static void free_workers(struct bench_shared *s)
{
	for (unsigned t = 0; s->workers && t < s->c->threads; t++) {
		workload_stream_free(&s->workers[t].stream);
		free(s->workers[t].value);
		free(s->workers[t].stream_keys);
	}
	free(s->workers);
}

/* The keys of every op (the prefill's too): 0 or -ENOMEM with a reason. */
static int make_keys(struct bench_shared *s, char *err, size_t errlen)
{
	const struct bench_config *c = s->c;
	s->keys = workload_make_keys(&c->w, c->threads, err, errlen);
	return s->keys ? 0 : -ENOMEM;
}

/* Keys, sampler and streams: what the run allocates besides the map, all
 * of it before the map's memory is first read (bench.h). */
static int prepare(struct bench_shared *s, char *err, size_t errlen)
{
	int rc = make_keys(s, err, errlen);
	if (rc)
		return rc;
	s->sampler = workload_sampler_new(&s->c->w);
	if (!s->sampler) {
		snprintf(err, errlen, "out of memory for the key sampler");
		return -ENOMEM;
	}
	return setup_workers(s, err, errlen);
}

const char *bench_memory_from_name(enum bench_memory_from from)
{
	static const char *const names[] = {
		[BENCH_MEMORY_DESIGN] = "design",
		[BENCH_MEMORY_ALLOCATOR] = "allocator",
		[BENCH_MEMORY_KERNEL] = "kernel",
	};
	return from > BENCH_MEMORY_NONE && from <= BENCH_MEMORY_KERNEL
		       ? names[from] : NULL;
}

/*
 * m's memory after its prefill: the design's count, and the allocator's
 * bytes now less `before` (NULL: no reading was taken then).  The RCU
 * barrier first: what the prefill retired is freed, not pending.
 */
struct bench_memory bench_memory_of(struct map *m, const size_t *before)
{
	struct bench_memory mem = { .from = BENCH_MEMORY_NONE, .bytes = NAN,
				    .bytes_per_entry = NAN, .design_bytes = NAN,
				    .allocator_bytes = NAN };
	size_t after;

	if (m->ops->memory)
		mem.design_bytes = (double)m->ops->memory(m);
	map_rcu_barrier();
	/* Less than before: something else freed meanwhile; no figure
	 * rather than a wrong one. */
	if (before && memstat_allocated(&after) && after >= *before)
		mem.allocator_bytes = (double)(after - *before);
	if (!isnan(mem.design_bytes)) {
		mem.from = BENCH_MEMORY_DESIGN;
		mem.bytes = mem.design_bytes;
	} else if (!isnan(mem.allocator_bytes)) {
		mem.from = BENCH_MEMORY_ALLOCATOR;
		mem.bytes = mem.allocator_bytes;
	}
	mem.bytes_per_entry = mem.bytes / m->attr.max_entries;
	return mem;
}

/* The map of c: the design's type unless the workload names one. */
struct map_attr bench_map_attr(const struct bench_config *c)
{
	return (struct map_attr){
		.type = c->design->type ? c->design->type : MAP_TYPE_HASH,
		.key_size = c->w.key_size, .value_size = c->w.value_size,
		.max_entries = c->w.entries, .flags = c->map_flags,
		.ncpus = map_cpus_for_threads(c->threads),
	};
}

/* Create s->map, prefill it, and measure its memory into *mem (the
 * allocator read just before map_create).  0, or -errno with a reason. */
static int build_map(struct bench_shared *s, uint64_t *prefilled,
		     struct bench_memory *mem, char *err, size_t errlen)
{
	const struct bench_config *c = s->c;
	struct map_attr attr = bench_map_attr(c);
	size_t before;
	bool counted = memstat_allocated(&before);
	int rc = map_create(c->design, &attr, &s->map);

	if (rc) {
		snprintf(err, errlen, "%s refuses key_size=%u value_size=%u "
			 "max_entries=%u: %s", c->design->name, attr.key_size,
			 attr.value_size, attr.max_entries,
			 map_errno_text(-rc));
		return rc;
	}
	rc = prefill(s, prefilled, err, errlen);
	if (!rc)
		*mem = bench_memory_of(s->map, counted ? &before : NULL);
	return rc;
}

/* The caller's config with the keys' type filled in: the design's type's
 * (an LPM key starts with a prefix length) unless the caller chose one;
 * and the flags that type requires (bench_map_flags). */
struct bench_config bench_config_typed(const struct bench_config *c)
{
	struct bench_config own = *c;
	own.w = workload_for_type(&c->w, c->w.type ? c->w.type
						      : bench_map_attr(c).type);
	own.map_flags = bench_map_flags(own.w.type, c->map_flags);
	return own;
}

int bench_design_accepts(const struct bench_config *config)
{
	struct bench_config own = bench_config_typed(config);
	struct map_attr attr = bench_map_attr(&own);
	struct map *m;
	int rc = map_create(own.design, &attr, &m);
	if (!rc)
		map_destroy(m);
	return rc;
}

/* after - before, member by member. */
static struct map_work work_since(struct map_work before,
				  struct map_work after)
{
	return (struct map_work){
		.evictions = after.evictions - before.evictions,
		.refills = after.refills - before.refills,
		.nodes_scanned = after.nodes_scanned - before.nodes_scanned,
		.locks = after.locks - before.locks,
		.steals = after.steals - before.steals,
		.allocations = after.allocations - before.allocations,
		.lock_ns = after.lock_ns - before.lock_ns,
	};
}

void bench_observe_timed(const struct bench_observer *o,
			 const struct team *team, bool begin)
{
	if (!o)
		return;
	if (!begin) {
		o->timed_end(o->arg);
		return;
	}
	pid_t tids[team->cfg.threads];
	for (unsigned i = 0; i < team->cfg.threads; i++)
		tids[i] = team_tid_of(team, i);
	o->timed_begin(o->arg, tids, team->cfg.threads);
}

uint32_t bench_sample_every(double op_ns, double clock_ns)
{
	if (!(op_ns > 0) || !(clock_ns > 0))
		return BENCH_SAMPLE_EVERY;
	uint32_t n = 1;
	while (n < BENCH_SAMPLE_EVERY_MAX && 2 * clock_ns > 0.01 * n * op_ns)
		n *= 2;
	return n;
}

/* One clock read's cost, ns: the mean of a run of reads. */
static double clock_read_ns(void)
{
	enum { READS = 256 };
	uint64_t t0 = clock_now_ns(), last = t0;
	for (unsigned i = 0; i < READS; i++)
		last = clock_now_ns();
	return (double)(last - t0) / READS;
}

/* The timed phase's sampling, from what the warm-up's ops cost (the
 * workers wait at the gate: their counts and times are final). */
static uint32_t sample_every_after_warmup(const struct bench_shared *s)
{
	uint64_t ops = 0, ns = 0;
	for (unsigned t = 0; t < s->c->threads; t++) {
		ops += atomic_load_explicit(&s->workers[t].done,
					    memory_order_relaxed);
		ns += s->workers[t].warmup_ns;
	}
	return bench_sample_every(ops ? (double)ns / (double)ops : 0,
				  clock_read_ns());
}

static void run_team(struct bench_shared *s, struct bench_result *r,
		     struct team *team)
{
	const struct bench_config *c = s->c;
	s->sample_every = BENCH_SAMPLE_EVERY;
	if (c->warmup > 0) {
		team_run_phase(team, PHASE_WARMUP, c->warmup);
		s->sample_every = sample_every_after_warmup(s);
	}
	/* The workers wait at the gate: the counts are exact (bench.h). */
	struct map_work before = map_work_of(s->map, -1);
	bench_observe_timed(c->observer, team, true);
	team_run_phase(team, PHASE_TIMED, c->seconds);
	bench_observe_timed(c->observer, team, false);
	team_join(team);
	collect(s, r);
	r->has_work = s->map->ops->work != NULL;
	r->has_evictions = r->has_work;
	r->work = work_since(before, map_work_of(s->map, -1));
	r->sample_every = s->sample_every;
}

int bench_threads_fit(const struct map_ops *design, unsigned threads,
		      char *err, size_t errlen)
{
	if (!design || !design->max_threads || threads <= design->max_threads)
		return 0;
	snprintf(err, errlen, "%s serves at most %u threads at once, not %u%s%s",
		 design->name, design->max_threads, threads,
		 design->max_threads_why ? ": " : "",
		 design->max_threads_why ? design->max_threads_why : "");
	return -EUSERS;
}

int bench_stream_run(const struct bench_config *config,
		     struct bench_result *r, char *err, size_t errlen)
{
	struct bench_config own = bench_config_typed(config);
	struct bench_shared s = { .c = &own };
	struct team team;
	struct team_config tc = {
		.threads = own.threads, .rcu = true, .cpu_slots = true,
		.body = worker_phase, .ctx = &s, .progress = own.progress,
		.progress_arg = own.progress_arg,
		.done_fraction = own.seconds > 0 ? NULL : fraction_done,
	};

	memset(r, 0, sizeof(*r));
	int rc = bench_threads_fit(own.design, own.threads, err, errlen);
	if (rc)
		return rc;
	map_thread_online();
	rc = prepare(&s, err, errlen);
	if (!rc)
		rc = build_map(&s, &r->prefilled, &r->memory, err, errlen);
	if (!rc)
		rc = team_start(&team, &tc, err, errlen);
	if (!rc)
		run_team(&s, r, &team);
	free_workers(&s);
	workload_sampler_free(s.sampler);
	free((void *)s.keys);
	if (s.map)
		map_destroy(s.map);
	map_thread_offline();
	return rc;
}

int bench_footprint(const struct bench_config *config,
		    struct bench_memory *out, char *err, size_t errlen)
{
	struct bench_config own = bench_config_typed(config);
	struct bench_shared s = { .c = &own };
	uint64_t prefilled;

	map_thread_online();
	int rc = make_keys(&s, err, errlen);
	if (!rc)
		rc = build_map(&s, &prefilled, out, err, errlen);
	if (s.map)
		map_destroy(s.map);
	free((void *)s.keys);
	map_thread_offline();
	return rc;
}

/* --- the no-op design ------------------------------------------------------ */

struct noop_map {
	struct map map;
	uint64_t value[8];
};

static int noop_create(const struct map_attr *attr, struct map **out)
{
	struct noop_map *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->map.attr = *attr;
	*out = &m->map;
	return 0;
}

static void noop_destroy(struct map *m)
{
	free(m);
}

static void *noop_lookup(struct map *m, const void *key)
{
	(void)*(const volatile uint8_t *)key; /* a design reads its key */
	return ((struct noop_map *)m)->value;
}

/* A batch of noop lookups: one call, each key read, as a batched design
 * reads its keys; without it map.h's loop would charge the harness an
 * indirect call a key that a batched design does not pay. */
static unsigned noop_lookup_batch(struct map *m, const void *keys, unsigned n,
				  void **values)
{
	const uint8_t *k = keys;
	for (unsigned i = 0; i < n; i++, k += m->attr.key_size)
		values[i] = noop_lookup(m, k);
	return n;
}

static int noop_lookup_copy(struct map *m, const void *key, void *value)
{
	(void)m, (void)key, (void)value;
	return 0;
}

static int noop_update(struct map *m, const void *key, const void *value,
		       uint64_t flags)
{
	(void)m, (void)key, (void)value, (void)flags;
	return 0;
}

static int noop_delete(struct map *m, const void *key)
{
	(void)m, (void)key;
	return 0;
}

static int noop_get_next_key(struct map *m, const void *key, void *next)
{
	(void)m, (void)key, (void)next;
	return -ENOENT;
}

const struct map_ops bench_noop_ops = {
	.name = "noop",
	.description = "does nothing: the harness's own cost per op",
	.type = 0,
	.create = noop_create,
	.destroy = noop_destroy,
	.lookup = noop_lookup,
	.lookup_batch = noop_lookup_batch,
	.lookup_copy = noop_lookup_copy,
	.update = noop_update,
	.delete = noop_delete,
	.get_next_key = noop_get_next_key,
};
