/* SPDX-License-Identifier: MIT */
/* kbench_runner.c: see kbench_runner.h. */
#include "kernel-compare/kbench_runner.h"
#include "harness/common/parse.h"
#include "maps/base/cpu.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One worker per CPU: the team pins worker i to the (i mod n)-th allowed
 * CPU, so more workers than allowed CPUs would share one (and, on the
 * kernel side, one CPU's record). */
static int check_threads(const struct kbench_config *c, char *err,
			 size_t errlen)
{
	unsigned cpus = map_cpu_allowed_count();
	if (c->b.threads == 0) {
		snprintf(err, errlen, "no threads to run");
		return -EINVAL;
	}
	if (c->b.threads <= cpus)
		return 0;
	snprintf(err, errlen, "one worker per CPU: this process may use %u "
		 "CPU%s, not %u", cpus, cpus == 1 ? "" : "s", c->b.threads);
	return -EOPNOTSUPP;
}

void kb_runner_free(struct kb_runner *k)
{
	for (unsigned t = 0; k->streams && t < k->c->b.threads; t++)
		workload_stream_free(&k->streams[t]);
	free(k->streams);
	free(k->keys);
	free(k->done);
	if (k->target_fd >= 0)
		close(k->target_fd);
	k->streams = NULL;
	k->keys = NULL;
	k->done = NULL;
	k->target_fd = -1;
}

int kb_runner_prepare(struct kb_runner *k, const struct kbench_config *c,
		    char *err, size_t errlen)
{
	*k = (struct kb_runner){ .own = *c, .target_fd = -1 };
	/* The key bytes of the kernel map's type (an LPM key starts with its
	 * prefix length), whatever type the caller's workload names: the very
	 * table bench makes for a design of that type, addresses included;
	 * and the flags the type requires (an LPM trie's BPF_F_NO_PREALLOC). */
	k->own.b.w = workload_for_type(&c->b.w, c->map_type);
	k->own.b.map_flags = bench_map_flags(c->map_type, c->b.map_flags);
	k->c = c = &k->own;
	int rc = check_threads(c, err, errlen);
	if (rc)
		return rc;
	if (c->b.seconds <= 0)
		k->quota = team_share(c->b.ops, c->b.threads);
	char why[256] = "out of memory";
	k->keys = workload_make_keys(&c->b.w, c->b.threads, why, sizeof(why));
	k->streams = calloc(c->b.threads, sizeof(*k->streams));
	k->done = aligned_alloc(64, c->b.threads * sizeof(*k->done));
	struct key_sampler *s = workload_sampler_new(&c->b.w);
	rc = k->keys && k->streams && k->done && s ? 0 : -ENOMEM;
	for (unsigned t = 0; t < c->b.threads && !rc; t++)
		atomic_init(&k->done[t].ops, 0);
	/* bench's streams, as long as bench's: the same work on both sides
	 * (workload.h: a shorter loop of a range stops evicting). */
	size_t len = workload_stream_len(&c->b.w);
	k->stream_slot = len + WORKLOAD_POOL;
	for (unsigned t = 0; t < c->b.threads && !rc; t++)
		rc = workload_make_stream(&c->b.w, s, t, len, &k->streams[t]);
	workload_sampler_free(s);
	if (rc) {
		snprintf(err, errlen, "%s", k->keys ? "out of memory building key "
			 "streams" : why);
		kb_runner_free(k);
	}
	return rc;
}

int kb_runner_prepare_pass(struct kb_runner *k, const struct kbench_config *c,
			   enum bench_op op, char *err, size_t errlen)
{
	*k = (struct kb_runner){ .own = *c, .target_fd = -1 };
	k->own.b.w = workload_for_type(&c->b.w, c->map_type);
	k->own.b.map_flags = bench_map_flags(c->map_type, c->b.map_flags);
	k->c = c = &k->own;
	const uint32_t n = c->b.w.entries;
	char why[256] = "out of memory";
	k->keys = workload_make_keys(&c->b.w, 1, why, sizeof(why));
	k->streams = calloc(1, sizeof(*k->streams));
	k->done = aligned_alloc(64, sizeof(*k->done));
	if (k->streams)
		k->streams[0].ops = calloc(n, sizeof(struct stream_op));
	if (!k->keys || !k->streams || !k->done || !k->streams[0].ops) {
		snprintf(err, errlen, "%s", k->keys ? "out of memory building "
			 "the pass's stream" : why);
		kb_runner_free(k);
		return -ENOMEM;
	}
	atomic_init(&k->done[0].ops, 0);
	for (uint32_t i = 0; i < n; i++)
		k->streams[0].ops[i] = (struct stream_op){ .key = i, .op = op };
	k->streams[0].len = n;
	k->stream_slot = n;
	return 0;
}

/* The same prefill as the userspace bench: keys 0..P-1, same values. */
static int prefill(struct kb_runner *k, char *err, size_t errlen)
{
	const struct workload *w = &k->c->b.w;
	uint64_t n = workload_prefill_count(w);
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
			 map_errno_text(-rc));
	return rc;
}

/*
 * The kernel's own count of map fd's bytes: the memlock line of its
 * fdinfo (since Linux 6.4 the map's memory usage, map_mem_usage: its
 * buckets, elements, per-CPU parts; before, an estimate from its sizes).
 */
struct bench_memory kb_runner_kernel_memory(int fd, uint32_t max_entries)
{
	struct bench_memory mem = { .from = BENCH_MEMORY_NONE, .bytes = NAN,
				    .bytes_per_entry = NAN, .design_bytes = NAN,
				    .allocator_bytes = NAN };
	char path[64], line[256];
	unsigned long long bytes;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &bytes) == 1) {
			mem.from = BENCH_MEMORY_KERNEL;
			mem.bytes = (double)bytes;
			mem.bytes_per_entry = mem.bytes / max_entries;
			break;
		}
	if (f)
		fclose(f);
	return mem;
}

int kb_runner_create_target(struct kb_runner *k, char *err, size_t errlen)
{
	const struct kbench_config *c = k->c;
	const struct workload *w = &c->b.w;
	const uint32_t flags = c->b.map_flags;
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = flags);

	k->target_fd = bpf_map_create((enum bpf_map_type)c->map_type, "maplab",
				      w->key_size, w->value_size, w->entries, &o);
	if (k->target_fd < 0) {
		int rc = k->target_fd;
		char names[128];
		snprintf(err, errlen, "the kernel refuses a %s map with key_size=%u "
			 "value_size=%u max_entries=%u flags=%s: %s",
			 map_type_name(c->map_type), w->key_size, w->value_size,
			 w->entries, format_map_flags(flags, names, sizeof(names)),
			 map_errno_text(-rc));
		return rc;
	}
	int rc = prefill(k, err, errlen);
	if (!rc)
		k->memory = kb_runner_kernel_memory(k->target_fd, w->entries);
	return rc;
}

/* What the team's callbacks see: the engine's plan and the work. */
struct team_ctx {
	const struct kb_runner *k;
	const struct kb_team_plan *plan;
};

static void run_phase(void *ctx, unsigned worker, unsigned phase,
		      const atomic_bool *stop)
{
	const struct team_ctx *tc = ctx;
	tc->plan->body(tc->plan->ctx, worker, phase, stop);
}

/* Progress when counting ops: the fraction of the quotas done. */
static double fraction_done(void *ctx)
{
	const struct kb_runner *k = ((const struct team_ctx *)ctx)->k;
	uint64_t ops = 0;
	for (unsigned t = 0; t < k->c->b.threads; t++)
		ops += atomic_load_explicit(&k->done[t].ops,
					    memory_order_relaxed);
	return (double)ops / ((double)k->quota * k->c->b.threads);
}

/* The keys a get_next_key walk meets, into *n.  0 or -errno. */
static int count_keys_walk(int fd, uint32_t key_size, uint64_t *n)
{
	uint8_t *key = malloc(key_size), *next = malloc(key_size);
	int rc = key && next ? 0 : -ENOMEM;
	*n = 0;
	for (void *prev = NULL; !rc; prev = key) {
		rc = bpf_map_get_next_key(fd, prev, next);
		if (!rc) {
			memcpy(key, next, key_size);
			++*n;
		}
	}
	free(key);
	free(next);
	return rc == -ENOENT ? 0 : rc;
}

/*
 * The keys in the map, into *n: LOOKUP_BATCH walks of up to 1024 keys (or
 * 1 MiB of values) a call; a get_next_key walk where a bucket holds more
 * keys than a call takes (-ENOSPC).  0 or -errno.
 */
static int count_keys(const struct kb_runner *k, uint64_t *n)
{
	const struct workload *w = &k->c->b.w;
	uint32_t chunk = (1u << 20) / w->value_size;
	chunk = chunk > 1024 ? 1024 : chunk ? chunk : 1;
	uint8_t *keys = malloc((size_t)chunk * w->key_size);
	uint8_t *values = malloc((size_t)chunk * w->value_size);
	uint8_t *cursor = malloc(w->key_size);
	int rc = keys && values && cursor ? 0 : -ENOMEM;
	*n = 0;
	for (bool first = true; !rc; first = false) {
		uint32_t count = chunk;
		rc = bpf_map_lookup_batch(k->target_fd, first ? NULL : cursor,
					  cursor, keys, values, &count, NULL);
		if (!rc || rc == -ENOENT)
			*n += count;
	}
	free(keys);
	free(values);
	free(cursor);
	if (rc == -ENOSPC)
		return count_keys_walk(k->target_fd, w->key_size, n);
	return rc == -ENOENT ? 0 : rc;
}

/* Count into *n around the timed phase (where asked): 0, or -errno. */
static int count_for_evictions(struct kb_runner *k, const struct kb_team_plan *plan,
			       uint64_t *n, char *err, size_t errlen)
{
	if (!plan->evictions || k->c->map_type != MAP_TYPE_LRU_HASH)
		return 0;
	int rc = count_keys(k, n);
	if (rc)
		snprintf(err, errlen, "counting the keys of the kernel map: %s",
			 map_errno_text(-rc));
	return rc;
}

/* Whether the counts say how many keys the ops put in: not where an op
 * may or may not add one (an upsert, a replace of a key not there, a
 * lookup_write's insert: each counts as one ok or fail either way). */
static bool additions_known(const struct bench_result *r)
{
	for (int op = OP_UPSERT; op < OP_COUNT; op++)
		if (r->ok[op] || r->fail[op])
			return false;
	return true;
}

void kb_runner_evictions(const struct kb_runner *k, struct bench_result *r)
{
	int64_t kept = (int64_t)k->keys_after - (int64_t)k->keys_before;
	int64_t added = (int64_t)r->ok[OP_INSERT] - (int64_t)r->ok[OP_DELETE];
	if (!k->keys_counted || !additions_known(r) || added < kept)
		return; /* not counted (or not a count to trust) */
	r->has_evictions = true;
	r->work.evictions = (uint64_t)(added - kept);
}

int kb_runner_run_team(struct kb_runner *k, const struct kb_team_plan *plan,
		     char *err, size_t errlen)
{
	const struct bench_config *b = &k->c->b;
	struct team_ctx ctx = { k, plan };
	struct team_config tc = {
		.threads = b->threads, .body = run_phase, .ctx = &ctx,
		.progress = b->progress, .progress_arg = b->progress_arg,
		.done_fraction = b->seconds > 0 ? NULL : fraction_done,
	};
	struct team team;
	int rc = team_start(&team, &tc, err, errlen);
	if (rc)
		return rc;
	if (plan->pinned)
		rc = plan->pinned(plan->ctx, &team, err, errlen);
	if (!rc && plan->warmup && b->warmup > 0)
		team_run_phase(&team, KB_PHASE_WARMUP, b->warmup);
	/* The workers wait at the gate while the keys are counted. */
	if (!rc)
		rc = count_for_evictions(k, plan, &k->keys_before, err, errlen);
	if (!rc) {
		bench_observe_timed(b->observer, &team, true);
		team_run_phase(&team, KB_PHASE_TIMED, b->seconds);
		bench_observe_timed(b->observer, &team, false);
	}
	if (!rc)
		rc = count_for_evictions(k, plan, &k->keys_after, err, errlen);
	k->keys_counted = !rc && plan->evictions &&
			  k->c->map_type == MAP_TYPE_LRU_HASH;
	team_join(&team);
	return rc;
}
