/* SPDX-License-Identifier: MIT */
/*
 * opt.c: Belady's MIN (Belady, "A study of replacement algorithms for a
 * virtual-storage computer", IBM Systems Journal 5(2), 1966), the offline
 * optimum for unit-size objects: on a miss with every slot taken, evict
 * the cached key whose next request is farthest away; a key never
 * requested again is farthest of all.  libCacheSim's Belady does the same
 * from oracleGeneral's next-access field; here the next uses come from
 * the trace itself (sim_trace_next_use), whatever its format.
 *
 * The cache is a binary max-heap of (next use, dense key) with each key's
 * heap position, so a hit (the key's next use moves later: sift up) and
 * an eviction (pop the root) cost O(log entries).  Not a map design: it
 * runs on the main thread, and its rate is the heap's, not a map's.
 */
#include "harness/sim/sim.h"
#include "harness/common/clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NEVER INT64_MAX
#define ABSENT UINT32_MAX

struct opt_heap {
	int64_t *due;   /* [slot]: the next use of the key there */
	uint32_t *key;  /* [slot]: its dense number */
	uint32_t *pos;  /* [dense]: its slot, or ABSENT */
	uint32_t n;
};

static void heap_swap(struct opt_heap *h, uint32_t a, uint32_t b)
{
	int64_t d = h->due[a];
	uint32_t k = h->key[a];
	h->due[a] = h->due[b];
	h->key[a] = h->key[b];
	h->due[b] = d;
	h->key[b] = k;
	h->pos[h->key[a]] = a;
	h->pos[h->key[b]] = b;
}

static void sift_up(struct opt_heap *h, uint32_t i)
{
	while (i > 0 && h->due[(i - 1) / 2] < h->due[i]) {
		heap_swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct opt_heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, big = i;
		if (l < h->n && h->due[l] > h->due[big])
			big = l;
		if (r < h->n && h->due[r] > h->due[big])
			big = r;
		if (big == i)
			return;
		heap_swap(h, i, big);
		i = big;
	}
}

static void evict_farthest(struct opt_heap *h)
{
	h->pos[h->key[0]] = ABSENT;
	h->n--;
	if (h->n) {
		h->due[0] = h->due[h->n];
		h->key[0] = h->key[h->n];
		h->pos[h->key[0]] = 0;
		sift_down(h, 0);
	}
}

static void insert_key(struct opt_heap *h, uint32_t d, int64_t due)
{
	uint32_t i = h->n++;
	h->due[i] = due;
	h->key[i] = d;
	h->pos[d] = i;
	sift_up(h, i);
}

/* next[] holds request indices; map them to the due times the heap
 * orders by (-1, never again, is the largest). */
static int64_t due_of(int64_t next)
{
	return next < 0 ? NEVER : next;
}

int sim_opt_run(struct sim_input *in, uint32_t entries, struct sim_result *r,
		char *err, size_t errlen)
{
	const struct sim_trace *t = in->trace;
	struct opt_heap h = { 0 };
	uint64_t evictions = 0;
	int rc = 0;
	/* The cache never holds more keys than there are: a slot per key
	 * at most, whatever entries asks for. */
	uint32_t slots = entries < in->distinct ? entries : in->distinct;

	if (!in->next) {
		/* Next uses of the keys the maps see (after any hashing). */
		uint64_t *dense = malloc((t->n ? t->n : 1) * sizeof(*dense));
		in->next = malloc((t->n ? t->n : 1) * sizeof(*in->next));
		if (!dense || !in->next)
			rc = -ENOMEM;
		for (size_t i = 0; !rc && i < t->n; i++)
			dense[i] = in->dense[i];
		if (!rc)
			rc = sim_trace_next_use(dense, t->n, in->next);
		free(dense);
		if (rc) {
			free(in->next);
			in->next = NULL;
			snprintf(err, errlen, "opt: out of memory for the "
				 "next uses of %zu requests", t->n);
			return rc;
		}
	}
	h.due = malloc((slots ? slots : 1) * sizeof(*h.due));
	h.key = malloc((slots ? slots : 1) * sizeof(*h.key));
	h.pos = malloc((in->distinct ? in->distinct : 1) * sizeof(*h.pos));
	if (!h.due || !h.key || !h.pos) {
		unsigned long long bytes = (unsigned long long)slots *
			(sizeof(*h.due) + sizeof(*h.key)) +
			(unsigned long long)in->distinct * sizeof(*h.pos);
		snprintf(err, errlen, "opt: out of memory for its heap (%u "
			 "keys, %llu bytes)", slots, bytes);
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t d = 0; d < in->distinct; d++)
		h.pos[d] = ABSENT;

	uint64_t t0 = clock_now_ns();
	for (size_t i = 0; i < t->n; i++) {
		uint32_t d = in->dense[i];
		bool counted = i >= in->warmup, hit = h.pos[d] != ABSENT;
		int64_t due = due_of(in->next[i]);
		if (hit) {
			h.due[h.pos[d]] = due; /* later than before */
			sift_up(&h, h.pos[d]);
		} else {
			if (h.n == entries) {
				evict_farthest(&h);
				evictions += counted;
			}
			insert_key(&h, d, due);
		}
		if (counted) {
			r->requests++;
			r->misses += !hit;
			if (t->sizes) {
				r->bytes += t->sizes[i];
				if (!hit)
					r->byte_misses += t->sizes[i];
			}
		}
	}
	r->seconds = (double)(clock_now_ns() - t0) * 1e-9;
	r->mreq_per_s = r->seconds > 0 ? (double)t->n / r->seconds / 1e6 : NAN;
	r->evictions = evictions;
	r->has_evictions = true;
out:
	free(h.due);
	free(h.key);
	free(h.pos);
	return rc;
}
