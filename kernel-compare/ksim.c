/* SPDX-License-Identifier: MIT */
/*
 * ksim.c: see ksim.h.  The kernel's LRU hash map as a cache policy.
 *
 *   main thread                                stream thread s, pinned to
 *   check the config; size and load             its cpu (when >= 0)
 *   bpf/ksim.bpf.c (the cache map, the keys
 *   window of `batch` slots per stream, the
 *   missed flags); mmap keys and missed
 *   spawn one thread per stream ─────────────►  pin; wait at the gate
 *   open the gate when all wait there
 *                                               until its n requests are done:
 *                                                 copy the next batch's keys
 *                                                 into its window (mmap)
 *                                                 BPF_PROG_TEST_RUN(ksim_batch)
 *                                                 add up its counts; copy out
 *                                                 its missed flags
 *   join; walk the map (get_next_key) ◄──────
 *
 * No batch straddles counted_from, so each batch is all warm-up or all
 * counted, and a batch's counts (and its live sample) go to the counted
 * result or nowhere.  Each thread writes only its own window and its own
 * result; the windows are disjoint slots of one array, so the threads
 * share nothing but the cache map, which is the point.  The gate's mutex
 * guards the gate (ready, open, cancelled) only; a thread's result and
 * times are its own until the main thread joins it and reads them.
 */
#include "kernel-compare/ksim.h"
#include "kernel-compare/bpf/ksim_shared.h"
#include "kernel-compare/ksim.skel.h"
#include "kernel-compare/kmap.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct ksim_run_state;

/* One stream's thread: what it was given, what it found. */
struct ksim_thread {
	struct ksim_run_state *st;
	const struct ksim_stream *s;
	unsigned slot;                  /* its window: keys [slot*batch, +batch) */
	pthread_t tid;
	int err;                        /* 0, or the first -errno */
	char why[160];                  /* and what it was */
	struct timespec start, end;
	struct ksim_stream_result r;
};

struct ksim_run_state {
	const struct ksim_config *c;
	uint32_t batch;
	struct ksim *skel;
	int prog_fd;
	uint8_t *keys_mem;              /* the keys array's mmap */
	size_t keys_len;
	uint8_t *missed_mem;            /* the missed array's mmap, or NULL */
	size_t missed_len;
	size_t key_stride;              /* an array element: key_size rounded
					   up to 8 */
	/* The start gate: the threads, pinned, wait until all are there. */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	unsigned ready;                 /* threads at the gate */
	bool open, cancelled;
	struct ksim_thread *threads;
};

/* --- checks ------------------------------------------------------------------ */

static int check_config(const struct ksim_config *c,
			const struct ksim_stream *streams, unsigned n_streams,
			const struct ksim_result *out, char *err, size_t errlen)
{
	if (c->key_size < 1 || c->key_size > KSIM_MAX_KEY_SIZE)
		snprintf(err, errlen, "key size %u: must be 1 to %u bytes",
			 c->key_size, KSIM_MAX_KEY_SIZE);
	else if (c->value_size < 1 || c->value_size > KSIM_MAX_VALUE_SIZE)
		snprintf(err, errlen, "value size %u: must be 1 to %u bytes",
			 c->value_size, KSIM_MAX_VALUE_SIZE);
	else if (c->max_entries == 0)
		snprintf(err, errlen, "max_entries 0: a cache needs room for "
			 "at least one key");
	else if (c->map_flags != 0 && c->map_flags != BPF_F_NO_COMMON_LRU)
		snprintf(err, errlen, "map flags %#x: only 0 or "
			 "BPF_F_NO_COMMON_LRU (%#x)", c->map_flags,
			 BPF_F_NO_COMMON_LRU);
	else if (c->batch > KSIM_MAX_BATCH)
		snprintf(err, errlen, "batch %u: at most %u requests per run",
			 c->batch, KSIM_MAX_BATCH);
	else if (n_streams == 0 || !streams)
		snprintf(err, errlen, "no streams to run");
	else if (!out || !out->streams)
		snprintf(err, errlen, "no room for the streams' results");
	else
		goto streams;
	return -EINVAL;
streams:
	for (unsigned i = 0; i < n_streams; i++) {
		const struct ksim_stream *s = &streams[i];
		if (s->n && !s->keys)
			snprintf(err, errlen, "stream %u: %zu requests but no "
				 "keys", i, s->n);
		else if (s->counted_from > s->n)
			snprintf(err, errlen, "stream %u: counted from request "
				 "%zu of %zu", i, s->counted_from, s->n);
		else if (s->cpu < -1 || s->cpu >= CPU_SETSIZE)
			snprintf(err, errlen, "stream %u: cpu %d", i, s->cpu);
		else
			continue;
		return -EINVAL;
	}
	return 0;
}

/* --- loading ------------------------------------------------------------------ */

static bool any_wants_missed(const struct ksim_stream *streams, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (streams[i].missed)
			return true;
	return false;
}

/* The map sizes, set before load.  0 or -errno. */
static int configure(struct ksim_run_state *st, unsigned n_streams,
		     bool missed)
{
	const struct ksim_config *c = st->c;
	struct ksim *skel = st->skel;
	uint32_t slots = n_streams * st->batch;
	int bad = 0;

	bad |= bpf_map__set_key_size(skel->maps.cache, c->key_size);
	bad |= bpf_map__set_value_size(skel->maps.cache, c->value_size);
	bad |= bpf_map__set_max_entries(skel->maps.cache, c->max_entries);
	bad |= bpf_map__set_map_flags(skel->maps.cache, c->map_flags);
	bad |= bpf_map__set_value_size(skel->maps.keys, c->key_size);
	bad |= bpf_map__set_max_entries(skel->maps.keys, slots);
	bad |= bpf_map__set_max_entries(skel->maps.missed, missed ? slots : 1);
	bad |= bpf_map__set_value_size(skel->maps.value, c->value_size);
	return bad ? -EINVAL : 0;
}

/* libbpf's messages, the verifier's log among them, when verbose. */
static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

/* Open, size and load the object, libbpf silent unless verbose.  0, or
 * -errno with a reason: -EPERM without BPF rights, -ENOMEM, else
 * -EOPNOTSUPP (the kernel refused the map or the program; verbose prints
 * why). */
static int load(struct ksim_run_state *st, unsigned n_streams, bool missed,
		char *err, size_t errlen)
{
	libbpf_print_fn_t before = libbpf_set_print(st->c->verbose ? print_libbpf
								 : NULL);
	int rc = 0;

	st->skel = ksim__open();
	if (!st->skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the ksim BPF object: %s",
			 map_errno_text(-rc));
	} else if ((rc = configure(st, n_streams, missed))) {
		snprintf(err, errlen, "cannot size the ksim BPF object: %s",
			 map_errno_text(-rc));
	} else if ((rc = ksim__load(st->skel))) {
		snprintf(err, errlen, "the kernel refused the LRU hash map "
			 "(key %u, value %u, %u entries, flags %#x) or the ksim "
			 "program: %s%s", st->c->key_size, st->c->value_size,
			 st->c->max_entries, st->c->map_flags,
			 map_errno_text(-rc),
			 st->c->verbose || rc == -EPERM ? "" : " (verbose "
			 "prints the kernel's log)");
		if (rc != -EPERM && rc != -ENOMEM)
			rc = -EOPNOTSUPP;
	}
	libbpf_set_print(before);
	return rc;
}

/* A mmapable array's pages: max_entries elements of elem bytes. */
static void *map_array(struct bpf_map *map, size_t elem, size_t *len)
{
	*len = (size_t)bpf_map__max_entries(map) * elem;
	void *mem = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 bpf_map__fd(map), 0);
	return mem == MAP_FAILED ? NULL : mem;
}

static int map_arrays(struct ksim_run_state *st, bool missed, char *err,
		      size_t errlen)
{
	st->keys_mem = map_array(st->skel->maps.keys, st->key_stride,
				 &st->keys_len);
	if (st->keys_mem && missed)
		st->missed_mem = map_array(st->skel->maps.missed, 8,
					   &st->missed_len);
	if (st->keys_mem && (!missed || st->missed_mem))
		return 0;
	int rc = -errno;
	snprintf(err, errlen, "cannot mmap the ksim arrays: %s",
		 map_errno_text(-rc));
	return rc;
}

/* --- a stream's thread ------------------------------------------------------- */

static int pin_to(int cpu, char *why, size_t len)
{
	cpu_set_t set;
	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc)
		snprintf(why, len, "cannot pin to cpu %d: %s", cpu,
			 map_errno_text(rc));
	return -rc;
}

/* The batch starting at request pos: at most `batch` requests, and none
 * across counted_from. */
static size_t batch_end(const struct ksim_stream *s, size_t pos, size_t batch)
{
	size_t end = s->n - pos > batch ? pos + batch : s->n;
	if (pos < s->counted_from && end > s->counted_from)
		end = s->counted_from;
	if (s->cpus) /* and none across a change of cpu */
		for (size_t i = pos + 1; i < end; i++)
			if (s->cpus[i] != s->cpus[pos])
				return i;
	return end;
}

static void copy_keys_in(const struct ksim_run_state *st,
			 const struct ksim_thread *t, size_t pos, size_t count)
{
	const uint8_t *src = (const uint8_t *)t->s->keys + pos * st->c->key_size;
	uint8_t *dst = st->keys_mem + (size_t)t->slot * st->batch * st->key_stride;

	if (st->key_stride == st->c->key_size) {
		memcpy(dst, src, count * st->key_stride);
		return;
	}
	for (size_t i = 0; i < count; i++)
		memcpy(dst + i * st->key_stride, src + i * st->c->key_size,
		       st->c->key_size);
}

/* The missed flags of a batch: one byte at the head of each 8-byte element. */
static void copy_missed_out(const struct ksim_run_state *st,
			    const struct ksim_thread *t, size_t pos,
			    size_t count)
{
	const uint8_t *src = st->missed_mem + (size_t)t->slot * st->batch * 8;
	for (size_t i = 0; i < count; i++)
		t->s->missed[pos + i] = src[i * 8];
}

/* Run one batch.  0, or -errno with the reason in t->why. */
static int run_batch(const struct ksim_run_state *st, struct ksim_thread *t,
		     struct ksim_batch *b)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = b,
		    .ctx_size_in = sizeof(*b));
	int rc = bpf_prog_test_run_opts(st->prog_fd, &o);
	if (rc) {
		snprintf(t->why, sizeof(t->why), "BPF_PROG_TEST_RUN: %s",
			 map_errno_text(-rc));
		return rc;
	}
	if (o.retval == KSIM_RUN_WRONG_CPU) {
		snprintf(t->why, sizeof(t->why), "the program ran on a cpu "
			 "other than %d: the pin did not hold", b->cpu);
		return -EIO;
	}
	if (o.retval != KSIM_RUN_OK || b->done != b->count) {
		snprintf(t->why, sizeof(t->why), "the program stopped after "
			 "%u of %u requests (%u)", b->done, b->count, o.retval);
		return -EIO;
	}
	return 0;
}

static void count_batch(struct ksim_stream_result *r,
			const struct ksim_batch *b)
{
	r->requests += b->count;
	r->misses += b->misses;
	r->raced += b->raced;
	r->insert_failures += b->insert_failures;
	if (b->live >= 0) {
		r->live_sum += (uint64_t)b->live;
		r->live_samples++;
	}
}

static void replay_stream(const struct ksim_run_state *st,
			  struct ksim_thread *t)
{
	const struct ksim_stream *s = t->s;
	size_t pos = 0;
	int cpu = s->cpu;

	while (!t->err && pos < s->n) {
		size_t end = batch_end(s, pos, st->batch);
		bool counted = pos >= s->counted_from;
		if (s->cpus && s->cpus[pos] != cpu) {
			cpu = s->cpus[pos];
			if ((t->err = pin_to(cpu, t->why, sizeof(t->why))))
				break;
		}
		struct ksim_batch b = {
			.first = t->slot * st->batch,
			.count = (unsigned)(end - pos),
			.cpu = cpu,
			.want_missed = s->missed != NULL,
			.sample_live = counted,
		};
		copy_keys_in(st, t, pos, end - pos);
		t->err = run_batch(st, t, &b);
		if (t->err)
			break;
		t->r.batches++;
		if (s->missed)
			copy_missed_out(st, t, pos, end - pos);
		if (counted)
			count_batch(&t->r, &b);
		pos = end;
	}
}

/* Wait at the gate until the main thread opens it (every stream's thread
 * is pinned and waiting) or cancels the run.  Whether to run. */
static bool wait_at_gate(struct ksim_run_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->ready++;
	pthread_cond_broadcast(&st->changed);
	while (!st->open && !st->cancelled)
		pthread_cond_wait(&st->changed, &st->lock);
	bool run = st->open;
	pthread_mutex_unlock(&st->lock);
	return run;
}

static void *stream_thread(void *arg)
{
	struct ksim_thread *t = arg;

	t->err = pin_to(t->s->cpu, t->why, sizeof(t->why));
	if (!wait_at_gate(t->st) && !t->err)
		t->err = -ECANCELED;
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	if (!t->err)
		replay_stream(t->st, t);
	clock_gettime(CLOCK_MONOTONIC, &t->end);
	return NULL;
}

/* --- the run ------------------------------------------------------------------ */

static double seconds_between(const struct timespec *a,
			      const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* Spawn the streams' threads; when all wait at the gate, open it (or, if
 * one could not be spawned, cancel); join them.  0 or -errno. */
static int run_threads(struct ksim_run_state *st, unsigned n_streams,
		       char *err, size_t errlen)
{
	unsigned spawned = 0;
	int rc = 0;

	for (; spawned < n_streams; spawned++) {
		struct ksim_thread *t = &st->threads[spawned];
		rc = pthread_create(&t->tid, NULL, stream_thread, t);
		if (rc) {
			snprintf(err, errlen, "cannot start stream %u's thread: "
				 "%s", spawned, map_errno_text(rc));
			break;
		}
	}
	pthread_mutex_lock(&st->lock);
	while (!rc && st->ready < spawned)
		pthread_cond_wait(&st->changed, &st->lock);
	if (rc)
		st->cancelled = true;
	else
		st->open = true;
	pthread_cond_broadcast(&st->changed);
	pthread_mutex_unlock(&st->lock);
	for (unsigned i = 0; i < spawned; i++)
		pthread_join(st->threads[i].tid, NULL);
	return -rc;
}

/* The first stream's error, if any, into err. */
static int stream_error(const struct ksim_run_state *st, unsigned n_streams,
			char *err, size_t errlen)
{
	for (unsigned i = 0; i < n_streams; i++) {
		const struct ksim_thread *t = &st->threads[i];
		if (t->err) {
			snprintf(err, errlen, "stream %u (cpu %d): %s", i,
				 t->s->cpu, t->why);
			return t->err;
		}
	}
	return 0;
}

/* The keys left in the cache: a get_next_key walk from no key. */
static int count_live(const struct ksim_run_state *st, uint64_t *live,
		      char *err, size_t errlen)
{
	int fd = bpf_map__fd(st->skel->maps.cache);
	uint8_t key[KSIM_MAX_KEY_SIZE], next[KSIM_MAX_KEY_SIZE];
	const void *prev = NULL;
	int rc;

	*live = 0;
	while ((rc = bpf_map_get_next_key(fd, prev, next)) == 0) {
		(*live)++;
		memcpy(key, next, st->c->key_size);
		prev = key;
	}
	if (rc == -ENOENT)
		return 0;
	snprintf(err, errlen, "walking the cache map: %s", map_errno_text(-rc));
	return rc;
}

static void collect(const struct ksim_run_state *st, unsigned n_streams,
		    struct ksim_result *out)
{
	const struct timespec *first = &st->threads[0].start;
	const struct timespec *last = &st->threads[0].end;

	for (unsigned i = 0; i < n_streams; i++) {
		const struct ksim_thread *t = &st->threads[i];
		out->streams[i] = t->r;
		if (seconds_between(&t->start, first) > 0)
			first = &t->start;
		if (seconds_between(last, &t->end) > 0)
			last = &t->end;
	}
	out->seconds = seconds_between(first, last);
	out->max_entries = bpf_map__max_entries(st->skel->maps.cache);
}

static void release(struct ksim_run_state *st)
{
	if (st->keys_mem)
		munmap(st->keys_mem, st->keys_len);
	if (st->missed_mem)
		munmap(st->missed_mem, st->missed_len);
	ksim__destroy(st->skel);
	free(st->threads);
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->changed);
}

int ksim_run(const struct ksim_config *c, const struct ksim_stream *streams,
	     unsigned n_streams, struct ksim_result *out, char *err,
	     size_t errlen)
{
	struct ksim_run_state st = {
		.c = c,
		.batch = c && c->batch ? c->batch : KSIM_DEFAULT_BATCH,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.changed = PTHREAD_COND_INITIALIZER,
	};
	int rc;

	if (!c) {
		snprintf(err, errlen, "no config");
		return -EINVAL;
	}
	if ((rc = check_config(c, streams, n_streams, out, err, errlen)))
		return rc;
	if ((uint64_t)n_streams * st.batch > UINT32_MAX / 8) {
		snprintf(err, errlen, "%u streams of %u-request batches: too "
			 "many slots for one array", n_streams, st.batch);
		return -EINVAL;
	}
	struct ksim_stream_result *results = out->streams;
	memset(out, 0, sizeof(*out));
	out->streams = results;
	memset(results, 0, n_streams * sizeof(*results));

	bool missed = any_wants_missed(streams, n_streams);
	st.key_stride = (c->key_size + 7u) & ~(size_t)7u;
	st.threads = calloc(n_streams, sizeof(*st.threads));
	if (!st.threads) {
		snprintf(err, errlen, "out of memory for %u streams", n_streams);
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n_streams; i++)
		st.threads[i] = (struct ksim_thread){ .st = &st,
						      .s = &streams[i],
						      .slot = i };
	if ((rc = load(&st, n_streams, missed, err, errlen)) ||
	    (rc = map_arrays(&st, missed, err, errlen)))
		goto out;
	st.prog_fd = bpf_program__fd(st.skel->progs.ksim_batch);
	if ((rc = run_threads(&st, n_streams, err, errlen)) ||
	    (rc = stream_error(&st, n_streams, err, errlen)) ||
	    (rc = count_live(&st, &out->live_at_end, err, errlen)))
		goto out;
	collect(&st, n_streams, out);
out:
	release(&st);
	return rc;
}

bool ksim_available(char *why, size_t whylen)
{
	if (kmap_available(why, whylen))
		return false;
	const uint32_t key = 1;
	struct ksim_stream s = { .keys = &key, .n = 1, .cpu = -1 };
	struct ksim_stream_result r;
	struct ksim_result out = { .streams = &r };
	struct ksim_config c = { .key_size = 4, .value_size = 8,
				 .max_entries = 2 };
	char err[256];
	int rc = ksim_run(&c, &s, 1, &out, err, sizeof(err));
	if (rc)
		snprintf(why, whylen, "%s", err);
	else if (r.misses != 1)
		snprintf(why, whylen, "the ksim program ran but counted %llu "
			 "misses for one new key", (unsigned long long)r.misses);
	return rc == 0 && r.misses == 1;
}

const struct sim_kernel_engine ksim_engine = {
	.run = ksim_run,
	.available = ksim_available,
};
