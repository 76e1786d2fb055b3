/* SPDX-License-Identifier: MIT */
/*
 * tally.c: one side's samples, classified (steps.h) and counted (tally.h).
 *
 * The tally keeps, per step, the functions credited and their samples (a
 * short array each: tens of functions, searched linearly), every chain as
 * a folded stack for the flame graph (merged by text: a few hundred
 * distinct stacks), and, for the interrupts-off test, how many samples
 * each kernel leaf address holds.  One owner; no locking.
 */
#include "harness/profile/tally.h"
#include "harness/profile/ring.h"
#include "harness/common/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A kernel leaf address inside the op, and the samples it holds under one
 * step and credited function (tallied for the irqs-off test). */
struct prof_ip_count {
	uint64_t ip, fn_start;
	enum prof_step step;
	unsigned fn;        /* index in the tally's fns[step] */
	const char *name;
	uint64_t samples;
};

/* The index of `name` under `step`, added with 0 samples where new; -1 on
 * ENOMEM. */
static int fn_index(struct prof_tally *t, enum prof_step step,
		    const char *name, const char *module, bool kernel)
{
	const char *key = name ? name : module ? module : "[unknown]";
	for (unsigned i = 0; i < t->n_fns[step]; i++)
		if (strcmp(t->fns[step][i].name, key) == 0)
			return (int)i;
	size_t cap = t->cap_fns[step];
	struct prof_fn *fns = grow_array(t->fns[step], &cap, t->n_fns[step] + 1,
					 sizeof(*fns), 16);
	if (!fns)
		return -1;
	t->fns[step] = fns;
	t->cap_fns[step] = (unsigned)cap;
	char *copy = strdup(key);
	if (!copy)
		return -1;
	t->fns[step][t->n_fns[step]] = (struct prof_fn){ copy, kernel, 0 };
	return (int)t->n_fns[step]++;
}

static int count_ip(struct prof_tally *t, const struct prof_frame *leaf,
		    enum prof_step step, unsigned fn)
{
	for (size_t i = 0; i < t->n_ips; i++)
		if (t->ips[i].ip == leaf->addr && t->ips[i].step == step) {
			t->ips[i].samples++;
			return 0;
		}
	struct prof_ip_count *ips = grow_array(t->ips, &t->cap_ips, t->n_ips + 1,
					       sizeof(*ips), 64);
	if (!ips)
		return -ENOMEM;
	t->ips = ips;
	t->ips[t->n_ips++] = (struct prof_ip_count){
		leaf->addr, leaf->start, step, fn, leaf->name, 1 };
	return 0;
}

/* The annotation of frame i (flamegraph.h), given the verdict. */
static const char *annotation(const struct prof_frame *chain, unsigned i,
			      const struct prof_verdict *v, bool kernel_side)
{
	if (prof_frame_is_thunk(&chain[i]))
		return "_[t]";
	if (prof_frame_is_program(&chain[i]))
		return "_[j]";
	bool outside = v->region == PROF_REGION_HARNESS ||
		       (v->entry >= 0 && (int)i > v->entry) ||
		       (kernel_side && v->entry < 0 && v->region != PROF_REGION_OP);
	if (kernel_side && v->entry < 0 && v->region == PROF_REGION_OP) {
		/* the program's own code: what lies under it is harness */
		for (unsigned j = 0; j < i; j++)
			if (prof_frame_is_program(&chain[j]))
				outside = true;
	}
	if (outside)
		return "_[h]";
	return prof_addr_is_kernel(chain[i].addr) ? "_[k]" : "";
}

/* The chain as one folded line, root first. */
static char *fold(const struct prof_frame *chain, unsigned n,
		  const struct prof_verdict *v, bool kernel_side, bool off_thread)
{
	size_t cap = 64 + (size_t)n * 80, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	if (off_thread)
		len += (size_t)snprintf(s, cap, "off the worker threads (call_rcu)");
	for (unsigned k = n; k-- > 0;) {
		const struct prof_frame *f = &chain[k];
		const char *name = f->name ? f->name : f->module ? f->module : "[unknown]";
		const char *note = off_thread ? (prof_addr_is_kernel(f->addr) ? "_[k]" : "")
					      : annotation(chain, k, v, kernel_side);
		size_t need = strlen(name) + strlen(note) + 2;
		if (len + need >= cap) {
			cap = (len + need) * 2;
			char *bigger = realloc(s, cap);
			if (!bigger) {
				free(s);
				return NULL;
			}
			s = bigger;
		}
		len += (size_t)snprintf(s + len, cap - len, "%s%s%s",
					len ? ";" : "", name, note);
	}
	if (!len)
		snprintf(s, cap, "[no frames]");
	return s;
}

static int add_stack(struct prof_tally *t, char *folded)
{
	for (size_t i = 0; i < t->n_stacks; i++)
		if (strcmp(t->stacks[i].folded, folded) == 0) {
			t->stacks[i].count++;
			free(folded);
			return 0;
		}
	struct fg_stack *stacks = grow_array(t->stacks, &t->cap_stacks,
					     t->n_stacks + 1, sizeof(*stacks), 64);
	if (!stacks) {
		free(folded);
		return -ENOMEM;
	}
	t->stacks = stacks;
	t->stacks[t->n_stacks++] = (struct fg_stack){ folded, 1 };
	return 0;
}

/* Whether the flame graph shows a sample of this region: the side's
 * covered samples and the off-thread ones, not the baseline's nor the
 * other op's, nor (kernel) the machinery outside the programs. */
static bool drawn(const struct prof_tally *t, enum prof_region region)
{
	return region == PROF_REGION_OP ||
	       (region == PROF_REGION_HARNESS && !t->kernel);
}

/* chain with each run of one repeated address cut to one frame, into out:
 * a frame-pointer walk through code built without frame pointers
 * (jemalloc's free_block) can find the same frame again and again. */
static unsigned without_repeats(const struct prof_frame *chain, unsigned n,
				struct prof_frame *out)
{
	unsigned k = 0;
	for (unsigned i = 0; i < n && i < PROF_MAX_FRAMES; i++)
		if (!k || chain[i].addr != out[k - 1].addr)
			out[k++] = chain[i];
	return k;
}

int prof_tally_add(struct prof_tally *t, const struct prof_scope *scope,
		   const struct prof_frame *raw, unsigned raw_n, bool off_thread)
{
	struct prof_frame chain[PROF_MAX_FRAMES];
	unsigned n = without_repeats(raw, raw_n, chain);
	t->kernel = scope->kernel;
	t->samples++;
	if (n <= 2)
		t->shallow++;
	if (off_thread) {
		t->off_thread++;
		char *folded = fold(chain, n, NULL, scope->kernel, true);
		return folded ? add_stack(t, folded) : -ENOMEM;
	}
	struct prof_verdict v = prof_classify(scope, chain, n);
	t->region[v.region]++;
	if (v.region != PROF_REGION_OP && v.region != PROF_REGION_HARNESS)
		return 0;
	t->step[v.step]++;
	const struct prof_frame *who = v.credited >= 0 ? &chain[v.credited] : NULL;
	int fn = fn_index(t, v.step, who ? who->name : NULL,
			  who ? who->module : n ? chain[0].module : NULL,
			  n && prof_addr_is_kernel(who ? who->addr : chain[0].addr));
	if (fn < 0)
		return -ENOMEM;
	t->fns[v.step][fn].samples++;
	if (n && v.region == PROF_REGION_OP && prof_addr_is_kernel(chain[0].addr) &&
	    v.credited == 0 && count_ip(t, &chain[0], v.step, (unsigned)fn))
		return -ENOMEM;
	if (!drawn(t, v.region))
		return 0;
	char *folded = fold(chain, n, &v, scope->kernel, false);
	return folded ? add_stack(t, folded) : -ENOMEM;
}

/* Move the samples of one function's lump address to PROF_STEP_IRQS_OFF. */
static int move_lump(struct prof_tally *t, uint64_t ip)
{
	for (size_t i = 0; i < t->n_ips; i++) {
		struct prof_ip_count *c = &t->ips[i];
		if (c->ip != ip || c->step == PROF_STEP_IRQS_OFF)
			continue;
		int fn = fn_index(t, PROF_STEP_IRQS_OFF, c->name, "[kernel]", true);
		if (fn < 0)
			return -ENOMEM;
		t->step[c->step] -= c->samples;
		t->fns[c->step][c->fn].samples -= c->samples;
		t->step[PROF_STEP_IRQS_OFF] += c->samples;
		t->fns[PROF_STEP_IRQS_OFF][fn].samples += c->samples;
		c->step = PROF_STEP_IRQS_OFF;
	}
	return 0;
}

/* The samples at ip (every step), and in all of fn_start's function. */
static void lump_counts(const struct prof_tally *t, uint64_t fn_start,
			uint64_t ip, uint64_t *at_ip, uint64_t *in_fn)
{
	*at_ip = *in_fn = 0;
	for (size_t i = 0; i < t->n_ips; i++) {
		if (t->ips[i].fn_start != fn_start)
			continue;
		*in_fn += t->ips[i].samples;
		if (t->ips[i].ip == ip)
			*at_ip += t->ips[i].samples;
	}
}

static int find_lumps(struct prof_tally *t)
{
	for (size_t i = 0; i < t->n_ips; i++) {
		uint64_t at_ip, in_fn;
		if (!t->ips[i].fn_start || t->ips[i].step == PROF_STEP_IRQS_OFF ||
		    !prof_is_irqsave_op(t->ips[i].name))
			continue;
		lump_counts(t, t->ips[i].fn_start, t->ips[i].ip, &at_ip, &in_fn);
		if (in_fn >= PROF_IRQS_OFF_MIN_SAMPLES &&
		    (double)at_ip >= PROF_IRQS_OFF_SHARE * (double)in_fn &&
		    move_lump(t, t->ips[i].ip))
			return -ENOMEM;
	}
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct prof_fn *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

int prof_tally_finish(struct prof_tally *t)
{
	if (find_lumps(t))
		return -ENOMEM;
	for (int s = 0; s < PROF_STEP_COUNT; s++)
		if (t->n_fns[s])
			qsort(t->fns[s], t->n_fns[s], sizeof(struct prof_fn), by_samples);
	return 0;
}

uint64_t prof_tally_covered(const struct prof_tally *t)
{
	return t->region[PROF_REGION_OP] + t->region[PROF_REGION_OTHER_OP] +
	       (t->kernel ? 0 : t->region[PROF_REGION_HARNESS]);
}

void prof_tally_free(struct prof_tally *t)
{
	for (int s = 0; s < PROF_STEP_COUNT; s++) {
		for (unsigned i = 0; i < t->n_fns[s]; i++)
			free(t->fns[s][i].name);
		free(t->fns[s]);
	}
	for (size_t i = 0; i < t->n_stacks; i++)
		free((char *)t->stacks[i].folded);
	free(t->stacks);
	free(t->ips);
	memset(t, 0, sizeof(*t));
}
