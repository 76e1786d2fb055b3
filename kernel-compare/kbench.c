/* SPDX-License-Identifier: MIT */
/*
 * kbench.c: see kbench.h.
 *
 *   main thread                           worker t (pinned to CPU t)
 *   load bpf/kbench.bpf.o with the map's  ──
 *   type and sizes; fill the keys and
 *   stream arrays (mmap); prefill the map
 *   barrier ────────────────────────────► warm-up: test_run(program) until told
 *   barrier ────────────────────────────► rounds: test_run(program, repeat R)
 *   sleep --duration, then stop                   test_run(baseline, repeat R)
 *   join; counts from the per-CPU records         (the kernel reports each run's
 *                                                   mean time)
 */
#include "kbench.h"
#include "kmap.h"
#include "bpf/kbench.h"
#include "kbench.skel.h"
#include "maps/common/cpu.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define STREAM_LEN (1u << 16) /* per worker; the BPF array holds them all */
/* A worker's room in the stream array: its stream plus the deletes that
 * close it (at most one pool, harness/workload.h). */
#define STREAM_SLOT (STREAM_LEN + WORKLOAD_POOL)

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint32_t kbench_map_type(const char *name)
{
	uint32_t type = map_type_from_name(name);
	if (type)
		return type;
	const struct map_ops *ops = map_find(name);
	return ops ? ops->type : 0;
}

/* --- what both sides need: keys, streams, a prefilled map ---------------- */

struct kb_work {
	const struct kbench_config *c;
	uint8_t *keys;          /* workload_make_keys */
	struct stream *streams; /* one per worker */
	int target_fd;
	pthread_barrier_t ready, go;
	atomic_bool stop_warmup, stop;
};

static int check_threads(const struct kbench_config *c, char *err,
			 size_t errlen)
{
	long nproc = sysconf(_SC_NPROCESSORS_ONLN);
	if (c->b.threads > (unsigned)nproc || c->b.threads > KB_MAX_CPUS) {
		snprintf(err, errlen, "the kernel side runs one worker per CPU: "
			 "at most %ld threads here, not %u", nproc, c->b.threads);
		return -EINVAL;
	}
	return 0;
}

static void free_work(struct kb_work *k)
{
	for (unsigned t = 0; k->streams && t < k->c->b.threads; t++)
		workload_stream_free(&k->streams[t]);
	free(k->streams);
	free(k->keys);
	k->streams = NULL;
	k->keys = NULL;
}

static int make_work(struct kb_work *k, const struct kbench_config *c,
		     char *err, size_t errlen)
{
	memset(k, 0, sizeof(*k));
	k->c = c;
	k->target_fd = -1;
	k->keys = workload_make_keys(&c->b.w, c->b.threads);
	k->streams = calloc(c->b.threads, sizeof(*k->streams));
	struct key_sampler *s = workload_sampler_new(&c->b.w);
	int rc = k->keys && k->streams && s ? 0 : -ENOMEM;
	for (unsigned t = 0; t < c->b.threads && !rc; t++)
		rc = workload_make_stream(&c->b.w, s, t, STREAM_LEN,
					  &k->streams[t]);
	workload_sampler_free(s);
	if (rc) {
		snprintf(err, errlen, "out of memory building key streams");
		free_work(k);
	}
	return rc;
}


/* The same prefill as the userspace bench: keys 0..P-1, same values. */
static int prefill(struct kb_work *k, char *err, size_t errlen)
{
	const struct workload *w = &k->c->b.w;
	uint64_t n = (uint64_t)w->entries * w->prefill_pct / 100;
	uint8_t *value = calloc(1, w->value_size);
	int rc = value ? 0 : -ENOMEM;

	for (uint64_t i = 0; i < n && !rc; i++) {
		workload_fill_value(value, w->value_size, i);
		rc = bpf_map_update_elem(k->target_fd, k->keys + i * w->key_size,
					 value, BPF_NOEXIST);
	}
	free(value);
	if (rc)
		snprintf(err, errlen, "prefilling the kernel map: %s",
			 strerror(-rc));
	return rc;
}

/* Start the workers, run warm-up and the timed phase, join. */
static void run_workers(struct kb_work *k, void *(*fn)(void *), void *args,
			size_t arg_size, uint64_t *elapsed_ns)
{
	const struct bench_config *b = &k->c->b;
	pthread_t th[KB_MAX_CPUS];

	pthread_barrier_init(&k->ready, NULL, b->threads + 1);
	pthread_barrier_init(&k->go, NULL, b->threads + 1);
	for (unsigned t = 0; t < b->threads; t++)
		if (pthread_create(&th[t], NULL, fn, (char *)args + t * arg_size)) {
			fprintf(stderr, "maplab: cannot start thread %u\n", t);
			abort(); /* the barriers would wait for it forever */
		}
	pthread_barrier_wait(&k->ready);
	if (b->warmup > 0) {
		struct timespec ts = { (time_t)b->warmup,
				       (long)((b->warmup - (time_t)b->warmup) * 1e9) };
		nanosleep(&ts, NULL);
	}
	atomic_store(&k->stop_warmup, true);
	pthread_barrier_wait(&k->go);
	uint64_t t0 = now_ns();
	if (b->seconds > 0) {
		uint64_t end = t0 + (uint64_t)(b->seconds * 1e9);
		while (now_ns() < end) {
			if (b->progress)
				b->progress((double)(now_ns() - t0) /
						    (b->seconds * 1e9),
					    b->progress_arg);
			struct timespec ts = { 0, 50000000 };
			nanosleep(&ts, NULL);
		}
		atomic_store(&k->stop, true);
	}
	for (unsigned t = 0; t < b->threads; t++)
		pthread_join(th[t], NULL);
	*elapsed_ns = now_ns() - t0;
	pthread_barrier_destroy(&k->ready);
	pthread_barrier_destroy(&k->go);
}

/* --- side "kernel" --------------------------------------------------------- */

struct kb_worker {
	struct kb_work *k;
	struct kbench *skel;
	int prog_fd, base_fd, cpus_fd;
	unsigned cpu;
	uint64_t quota;                 /* map calls, when counting ops */
	double prog_ns, base_ns;        /* sums of per-run means */
	unsigned rounds;
	struct kb_cpu before, after;    /* counts around the timed phase */
	int err;
};

static int test_run(int fd, unsigned repeat, double *mean_ns)
{
	uint8_t packet[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = packet,
		    .data_size_in = sizeof(packet), .repeat = (int)repeat);
	int rc = bpf_prog_test_run_opts(fd, &o);
	if (rc)
		return rc;
	if (o.retval != XDP_PASS)
		return -EFAULT; /* the program found no stream for this CPU */
	*mean_ns = o.duration;
	return 0;
}

static void *kernel_worker(void *arg)
{
	struct kb_worker *w = arg;
	struct kb_work *k = w->k;
	const struct kbench_config *c = k->c;
	double ns;

	map_cpu_pin(w->cpu);
	pthread_barrier_wait(&k->ready);
	while (!w->err && !atomic_load(&k->stop_warmup))
		w->err = test_run(w->prog_fd, 1, &ns);
	pthread_barrier_wait(&k->go);
	w->err = w->err ? w->err
			: bpf_map_lookup_elem(w->cpus_fd, &w->cpu, &w->before);
	uint64_t per_round = (uint64_t)c->run_repeat * c->ops_per_run;
	while (!w->err && (w->quota ? w->rounds * per_round < w->quota
				    : !atomic_load(&k->stop))) {
		double p, b;
		w->err = test_run(w->prog_fd, c->run_repeat, &p);
		if (!w->err)
			w->err = test_run(w->base_fd, c->run_repeat, &b);
		if (!w->err) {
			w->prog_ns += p;
			w->base_ns += b;
			w->rounds++;
		}
	}
	if (!w->err)
		w->err = bpf_map_lookup_elem(w->cpus_fd, &w->cpu, &w->after);
	return NULL;
}

/* The program for the stream: one op kind throughout, or the mix. */
static struct bpf_program *pick_program(struct kbench *skel,
					const struct kb_work *k)
{
	int kind = -1;
	for (unsigned t = 0; t < k->c->b.threads; t++)
		for (size_t i = 0; i < k->streams[t].len; i++) {
			int op = (int)k->streams[t].ops[i].op;
			if (kind == -1)
				kind = op;
			else if (kind != op)
				return skel->progs.kb_mix;
		}
	switch (kind) {
	case OP_LOOKUP: return skel->progs.kb_lookup;
	case OP_UPDATE: return skel->progs.kb_update;
	case OP_INSERT: return skel->progs.kb_insert;
	case OP_DELETE: return skel->progs.kb_delete;
	default: return skel->progs.kb_mix;
	}
}

static int configure(struct kbench *skel, const struct kb_work *k)
{
	const struct kbench_config *c = k->c;
	const struct workload *w = &c->b.w;
	int rc = 0;

	rc |= bpf_map__set_type(skel->maps.target, (enum bpf_map_type)c->map_type);
	rc |= bpf_map__set_key_size(skel->maps.target, w->key_size);
	rc |= bpf_map__set_value_size(skel->maps.target, w->value_size);
	rc |= bpf_map__set_max_entries(skel->maps.target, w->entries);
	rc |= bpf_map__set_map_flags(skel->maps.target, c->b.map_flags);
	rc |= bpf_map__set_value_size(skel->maps.keys, w->key_size);
	rc |= bpf_map__set_max_entries(skel->maps.keys,
		(uint32_t)workload_key_count(w, c->b.threads));
	rc |= bpf_map__set_max_entries(skel->maps.stream,
				       c->b.threads * STREAM_SLOT);
	rc |= bpf_map__set_value_size(skel->maps.scratch, w->value_size);
	skel->rodata->ops_per_run = c->ops_per_run;
	return rc;
}

/* Copy keys and streams into the mmap'ed BPF arrays. */
static int fill_arrays(struct kbench *skel, const struct kb_work *k)
{
	const struct kbench_config *c = k->c;
	const struct workload *w = &c->b.w;
	uint64_t nkeys = workload_key_count(w, c->b.threads);
	size_t stride = (w->key_size + 7u) & ~7u; /* mmapable arrays: 8-aligned */
	size_t keys_len = nkeys * stride;
	size_t nstream = bpf_map__max_entries(skel->maps.stream);
	size_t stream_len = nstream * sizeof(struct kb_op);

	uint8_t *kmem = mmap(NULL, keys_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			     bpf_map__fd(skel->maps.keys), 0);
	if (kmem == MAP_FAILED)
		return -errno;
	for (uint64_t i = 0; i < nkeys; i++)
		memcpy(kmem + i * stride, k->keys + i * w->key_size, w->key_size);
	munmap(kmem, keys_len);

	struct kb_op *smem = mmap(NULL, stream_len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, bpf_map__fd(skel->maps.stream), 0);
	if (smem == MAP_FAILED)
		return -errno;
	for (unsigned t = 0; t < c->b.threads; t++) {
		const struct stream *s = &k->streams[t];
		for (size_t i = 0; i < s->len; i++) {
			smem[t * STREAM_SLOT + i].key = s->ops[i].key;
			smem[t * STREAM_SLOT + i].op = s->ops[i].op;
		}
		struct kb_cpu cpu = { .base = t * STREAM_SLOT,
				      .len = (unsigned)s->len };
		int rc = bpf_map_update_elem(bpf_map__fd(skel->maps.cpus), &t, &cpu,
					     BPF_ANY);
		if (rc) {
			munmap(smem, stream_len);
			return rc;
		}
	}
	munmap(smem, stream_len);
	return 0;
}

static void collect_kernel(const struct kbench_config *c, struct kb_worker *ws,
			   uint64_t elapsed, struct kbench_result *out)
{
	struct bench_result *r = &out->r;
	double ns_sum = 0, prog_sum = 0, base_sum = 0;

	for (unsigned t = 0; t < c->b.threads; t++) {
		struct kb_worker *w = &ws[t];
		double steps = (double)w->rounds * c->ops_per_run;
		double per_op = steps ? (w->prog_ns - w->base_ns) / steps : 0;
		for (int op = 0; op < OP_COUNT; op++) {
			r->ok[op] += w->after.ok[op] - w->before.ok[op];
			r->fail[op] += w->after.fail[op] - w->before.fail[op];
		}
		ns_sum += per_op;
		prog_sum += steps ? w->prog_ns / steps : 0;
		base_sum += steps ? w->base_ns / steps : 0;
		if (per_op > 0)
			r->mops += 1e3 / per_op;
		out->rounds += w->rounds;
	}
	for (int op = 0; op < OP_COUNT; op++)
		r->ops += r->ok[op] + r->fail[op];
	r->ns_per_op = ns_sum / c->b.threads;
	r->seconds = (double)elapsed / 1e9;
	out->program_ns_per_op = prog_sum / c->b.threads;
	out->baseline_ns_per_op = base_sum / c->b.threads;
}

int kbench_run(const struct kbench_config *c, struct kbench_result *out,
	       char *err, size_t errlen)
{
	struct kb_work k;
	struct kbench *skel = NULL;
	struct kb_worker *ws = NULL;
	uint64_t elapsed;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = check_threads(c, err, errlen)) ||
	    (rc = make_work(&k, c, err, errlen)))
		return rc;
	skel = kbench__open();
	if (!skel || configure(skel, &k)) {
		rc = -EINVAL;
		snprintf(err, errlen, "cannot open the kbench BPF object");
		goto out;
	}
	rc = kbench__load(skel);
	if (rc) {
		snprintf(err, errlen, "the kernel refused the kbench program or its "
			 "%s map (key_size=%u value_size=%u max_entries=%u "
			 "flags=%#x): %s", map_type_name(c->map_type),
			 c->b.w.key_size, c->b.w.value_size, c->b.w.entries,
			 c->b.map_flags, strerror(-rc));
		goto out;
	}
	k.target_fd = bpf_map__fd(skel->maps.target);
	if ((rc = fill_arrays(skel, &k))) {
		snprintf(err, errlen, "filling the stream arrays: %s",
			 strerror(-rc));
		goto out;
	}
	if ((rc = prefill(&k, err, errlen)))
		goto out;

	ws = calloc(c->b.threads, sizeof(*ws));
	if (!ws) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	int prog_fd = bpf_program__fd(pick_program(skel, &k));
	for (unsigned t = 0; t < c->b.threads; t++)
		ws[t] = (struct kb_worker){
			.k = &k, .skel = skel, .prog_fd = prog_fd,
			.base_fd = bpf_program__fd(skel->progs.kb_baseline),
			.cpus_fd = bpf_map__fd(skel->maps.cpus), .cpu = t,
			.quota = c->b.seconds > 0 ? 0 : c->b.ops / c->b.threads + 1,
		};
	run_workers(&k, kernel_worker, ws, sizeof(*ws), &elapsed);
	for (unsigned t = 0; t < c->b.threads && !rc; t++)
		if (ws[t].err) {
			rc = ws[t].err;
			snprintf(err, errlen, "BPF_PROG_TEST_RUN on CPU %u: %s", t,
				 strerror(-rc));
		}
	if (!rc)
		collect_kernel(c, ws, elapsed, out);
out:
	free(ws);
	kbench__destroy(skel);
	free_work(&k);
	return rc;
}

/* --- side "syscall" ---------------------------------------------------------- */

struct sc_worker {
	struct kb_work *k;
	enum syscall_mode mode;
	unsigned tid;
	uint64_t quota;
	uint64_t ops, ok[OP_COUNT], fail[OP_COUNT];
	uint64_t t_start, t_end;
	struct histogram latency;
};

static int syscall_op(int fd, int op, const void *key, void *value)
{
	switch (op) {
	case OP_LOOKUP:
		return bpf_map_lookup_elem(fd, key, value);
	case OP_UPDATE:
		return bpf_map_update_elem(fd, key, value, BPF_EXIST);
	case OP_INSERT:
		return bpf_map_update_elem(fd, key, value, BPF_NOEXIST);
	default:
		return bpf_map_delete_elem(fd, key);
	}
}

static void single_calls(struct sc_worker *w, atomic_bool *stop, bool timed,
			 size_t *pos, uint8_t *value)
{
	const struct workload *wl = &w->k->c->b.w;
	const struct stream *s = &w->k->streams[w->tid];
	uint64_t n = 0;

	while (timed ? (w->quota ? n < w->quota : !atomic_load(stop))
		     : !atomic_load(stop)) {
		const struct stream_op *op = &s->ops[*pos];
		const uint8_t *key = w->k->keys + (size_t)op->key * wl->key_size;
		*pos = (*pos + 1) % s->len;
		uint64_t t0 = timed && n % BENCH_SAMPLE_EVERY == 0 ? now_ns() : 0;
		int rc = syscall_op(w->k->target_fd, (int)op->op, key, value);
		if (t0)
			hist_add(&w->latency, now_ns() - t0);
		if (timed)
			(rc ? w->fail : w->ok)[op->op]++;
		n++;
	}
	if (timed)
		w->ops = n;
}

/* One batch call; returns elements handled, or -errno. */
static long batch_call(struct sc_worker *w, void *keys, void *values,
		       void *cursor, bool *first, size_t *pos)
{
	const struct kbench_config *c = w->k->c;
	const struct workload *wl = &c->b.w;
	uint32_t count = 256;
	int rc;

	if (wl->mix[OP_LOOKUP] == 100) {
		LIBBPF_OPTS(bpf_map_batch_opts, o);
		rc = bpf_map_lookup_batch(w->k->target_fd, *first ? NULL : cursor,
					  cursor, keys, values, &count, &o);
		*first = rc == -ENOENT; /* walked the whole map: start again */
		if (rc && rc != -ENOENT)
			return rc;
		return count;
	}
	const struct stream *s = &w->k->streams[w->tid];
	for (uint32_t i = 0; i < count; i++) {
		memcpy((uint8_t *)keys + i * wl->key_size,
		       w->k->keys + (size_t)s->ops[*pos].key * wl->key_size,
		       wl->key_size);
		*pos = (*pos + 1) % s->len;
	}
	LIBBPF_OPTS(bpf_map_batch_opts, o, .elem_flags = BPF_ANY);
	rc = bpf_map_update_batch(w->k->target_fd, keys, values, &count, &o);
	return rc ? (long)rc : (long)count;
}

static void batch_calls(struct sc_worker *w, atomic_bool *stop, bool timed)
{
	const struct workload *wl = &w->k->c->b.w;
	void *keys = calloc(256, wl->key_size), *values = calloc(256, wl->value_size);
	void *cursor = calloc(1, wl->key_size + 8);
	bool first = true;
	size_t pos = 0;

	while (keys && values && cursor && !atomic_load(stop) &&
	       (!timed || !w->quota || w->ops < w->quota)) {
		uint64_t t0 = now_ns();
		long n = batch_call(w, keys, values, cursor, &first, &pos);
		if (n < 0)
			break;
		if (timed && n > 0) {
			hist_add(&w->latency, (now_ns() - t0) / (uint64_t)n);
			w->ops += (uint64_t)n;
			w->ok[wl->mix[OP_LOOKUP] == 100 ? OP_LOOKUP : OP_UPDATE] +=
				(uint64_t)n;
		}
	}
	free(keys);
	free(values);
	free(cursor);
}

static void *syscall_worker(void *arg)
{
	struct sc_worker *w = arg;
	struct kb_work *k = w->k;
	uint8_t *value = calloc(1, k->c->b.w.value_size + 8);
	size_t pos = 0;

	map_cpu_pin(w->tid);
	workload_fill_value(value, k->c->b.w.value_size, w->tid + 1);
	pthread_barrier_wait(&k->ready);
	if (w->mode == SYSCALL_SINGLE)
		single_calls(w, &k->stop_warmup, false, &pos, value);
	pthread_barrier_wait(&k->go);
	w->t_start = now_ns();
	if (w->mode == SYSCALL_SINGLE)
		single_calls(w, &k->stop, true, &pos, value);
	else
		batch_calls(w, &k->stop, true);
	w->t_end = now_ns();
	free(value);
	return NULL;
}

int kbench_syscall_run(const struct kbench_config *c, enum syscall_mode mode,
		       struct bench_result *r, char *err, size_t errlen)
{
	const struct workload *wl = &c->b.w;
	struct kb_work k;
	uint64_t elapsed;
	int rc;

	memset(r, 0, sizeof(*r));
	if (mode == SYSCALL_BATCH && wl->mix[OP_LOOKUP] != 100 &&
	    wl->mix[OP_UPDATE] != 100) {
		snprintf(err, errlen, "batch syscalls are measured for lookup=100 "
			 "and update=100 workloads only");
		return -EOPNOTSUPP;
	}
	if ((rc = check_threads(c, err, errlen)) ||
	    (rc = make_work(&k, c, err, errlen)))
		return rc;
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = c->b.map_flags);
	k.target_fd = bpf_map_create((enum bpf_map_type)c->map_type, "maplab",
				     wl->key_size, wl->value_size, wl->entries, &o);
	if (k.target_fd < 0) {
		rc = k.target_fd;
		snprintf(err, errlen, "creating the kernel %s map: %s",
			 map_type_name(c->map_type), strerror(-rc));
		goto out;
	}
	if ((rc = prefill(&k, err, errlen)))
		goto out;
	struct sc_worker *ws = calloc(c->b.threads, sizeof(*ws));
	if (!ws) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned t = 0; t < c->b.threads; t++)
		ws[t] = (struct sc_worker){ .k = &k, .mode = mode, .tid = t,
			.quota = c->b.seconds > 0 ? 0 : c->b.ops / c->b.threads + 1 };
	run_workers(&k, syscall_worker, ws, sizeof(*ws), &elapsed);
	uint64_t first = UINT64_MAX, last = 0;
	for (unsigned t = 0; t < c->b.threads; t++) {
		for (int op = 0; op < OP_COUNT; op++) {
			r->ok[op] += ws[t].ok[op];
			r->fail[op] += ws[t].fail[op];
		}
		r->ops += ws[t].ops;
		hist_merge(&r->latency, &ws[t].latency);
		first = ws[t].t_start < first ? ws[t].t_start : first;
		last = ws[t].t_end > last ? ws[t].t_end : last;
	}
	r->seconds = (double)(last - first) / 1e9;
	r->mops = r->seconds > 0 ? (double)r->ops / r->seconds / 1e6 : 0;
	r->ns_per_op = r->ops ? r->seconds * 1e9 * c->b.threads / (double)r->ops
			      : 0;
	free(ws);
out:
	if (k.target_fd >= 0)
		close(k.target_fd);
	free_work(&k);
	return rc;
}
