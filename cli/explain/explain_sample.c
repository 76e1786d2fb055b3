/* SPDX-License-Identifier: MIT */
/*
 * explain_sample.c: a sampled run of one side (explain_sample.h).
 *
 * The observer's state lives on the caller's stack for the run; the sampler
 * is started and stopped from the main thread while the workers wait, so no
 * lock guards it.
 */
#include "cli/explain/explain_sample.h"
#include "harness/profile/sampler.h"
#include "harness/profile/symbols.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 256

struct observer_state {
	unsigned hz;
	pid_t workers[MAX_THREADS];
	unsigned n_workers;
	pid_t tids[MAX_THREADS];
	unsigned n_tids;
	struct prof_sampler *sampler;
	struct prof_sample_set set;
	struct prof_symbols *symbols;
	char problem[200];
};

/* Every thread of this process but the calling (main) one. */
static unsigned other_threads(pid_t *out, unsigned room)
{
	DIR *d = opendir("/proc/self/task");
	unsigned n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) && n < room;) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid > 0 && tid != gettid())
			out[n++] = tid;
	}
	closedir(d);
	return n;
}

static void on_timed_begin(void *arg, const pid_t *workers, unsigned n)
{
	struct observer_state *o = arg;
	o->n_workers = n < MAX_THREADS ? n : MAX_THREADS;
	memcpy(o->workers, workers, o->n_workers * sizeof(*workers));
	o->n_tids = other_threads(o->tids, MAX_THREADS);
	if (prof_sampler_start(&o->sampler, o->tids, o->n_tids, o->hz,
			       o->problem, sizeof(o->problem)))
		o->sampler = NULL;
}

static void on_timed_end(void *arg)
{
	struct observer_state *o = arg;
	if (!o->sampler)
		return;
	if (prof_sampler_stop(o->sampler, &o->set))
		snprintf(o->problem, sizeof(o->problem),
			 "the sample rings could not be read in full");
	/* now, while the programs are loaded: their JITed code's names */
	o->symbols = prof_symbols_new();
	if (!o->symbols || prof_symbols_add_kallsyms(o->symbols, "/proc/kallsyms"))
		snprintf(o->problem, sizeof(o->problem),
			 "/proc/kallsyms could not be read: kernel frames have no names");
}

static bool is_worker(const struct observer_state *o, pid_t tid)
{
	for (unsigned i = 0; i < o->n_workers; i++)
		if (o->workers[i] == tid)
			return true;
	return false;
}

/* The design's op functions, and which of them the op asked about runs. */
static unsigned user_entries(const struct map_ops *ops, enum bench_op op,
			     struct prof_entry *out)
{
	struct { void *fn; bool wanted; } fns[] = {
		{ (void *)ops->lookup, op == OP_LOOKUP || op == OP_LOOKUP_WRITE },
		{ (void *)ops->lookup_copy, op == OP_LOOKUP },
		{ (void *)ops->update, op == OP_UPDATE || op == OP_INSERT ||
				       op == OP_UPSERT || op == OP_REPLACE ||
				       op == OP_LOOKUP_WRITE },
		{ (void *)ops->delete, op == OP_DELETE || op == OP_REPLACE },
	};
	unsigned n = 0;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (fns[i].fn)
			out[n++] = (struct prof_entry){ (uint64_t)(uintptr_t)fns[i].fn,
							fns[i].wanted };
	return n;
}

/* s with spaces and tabs as '_' (libdw names the vDSO "[vdso: PID]"). */
static void put_word(FILE *f, const char *s)
{
	if (!s || !*s)
		s = "-";
	for (; *s; s++)
		fputc(*s == ' ' || *s == '\t' || *s == '\n' ? '_' : *s, f);
}

void explain_write_chain(FILE *f, const char *side, bool worker,
			 const struct prof_frame *chain, unsigned n)
{
	put_word(f, side);
	fprintf(f, "\t%s", worker ? "worker" : "other");
	for (unsigned k = 0; k < n; k++) {
		fprintf(f, "\t%llx %llx ", (unsigned long long)chain[k].addr,
			(unsigned long long)chain[k].start);
		put_word(f, chain[k].module);
		fputc(' ', f);
		put_word(f, chain[k].name);
	}
	fputc('\n', f);
}

/* Symbolise every sample and tally it. */
static int tally_samples(struct observer_state *o, const struct prof_scope *scope,
			 const struct explain_target *t, struct explain_sampled *out)
{
	struct prof_frame chain[PROF_MAX_FRAMES];
	bool write_chains = t->chains != NULL;
	for (size_t i = 0; i < o->set.n; i++) {
		const struct prof_sample *s = &o->set.samples[i];
		const uint64_t *frames = prof_sample_frames(&o->set, i);
		unsigned n = s->n_frames;
		for (unsigned k = 0; k < n; k++) {
			struct prof_symbol sym;
			prof_symbolize(o->symbols, frames[k], &sym);
			chain[k] = (struct prof_frame){ sym.name, sym.module,
							frames[k], sym.start };
		}
		bool worker = is_worker(o, (pid_t)s->tid);
		if (write_chains) {
			/* flushed a line at a time: a write that fails does
			 * so in out_flush, which keeps its errno; one that
			 * stdio made on its own would leave only EIO */
			explain_write_chain(t->chains->f, t->side, worker, chain, n);
			write_chains = out_flush(t->chains) == 0;
		}
		if (prof_tally_add(&out->tally, scope, chain, n, !worker))
			return -ENOMEM;
	}
	return prof_tally_finish(&out->tally);
}

static void finish_observer(struct observer_state *o, struct explain_sampled *out)
{
	out->lost = o->set.lost;
	out->threads = o->n_tids;
	snprintf(out->problem, sizeof(out->problem), "%s", o->problem);
	prof_sampler_free(o->sampler);
	prof_set_free(&o->set);
	prof_symbols_free(o->symbols);
}

/* Whether a file whose code this process runs was replaced on disk since
 * (a rebuild while it ran): libdw reads the file by its path, so its
 * symbols would not be the running code's.  Only executable mappings
 * count: DPDK's EAL maps its heap from files it deleted at once, and
 * those hold no code. */
static bool mapped_file_replaced(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool replaced = false;
	if (!f)
		return false;
	while (!replaced && fgets(line, sizeof(line), f)) {
		char perms[8] = "";
		if (sscanf(line, "%*s %7s", perms) == 1 && strchr(perms, 'x'))
			replaced = strstr(line, " (deleted)\n") != NULL;
	}
	fclose(f);
	return replaced;
}

/* After the run: the user symbols, then the tally. */
static int analyse(struct observer_state *o, const struct prof_scope *scope,
		   const struct explain_target *t, struct explain_sampled *out,
		   char *err, size_t errlen)
{
	if (!o->sampler) {
		snprintf(err, errlen, "the sampler did not start: %s", o->problem);
		return -EPERM;
	}
	if (!o->symbols || prof_symbols_add_self(o->symbols))
		snprintf(o->problem, sizeof(o->problem),
			 "this process's symbols could not be read: user frames have no names");
	else if (mapped_file_replaced())
		snprintf(o->problem, sizeof(o->problem),
			 "a file this process runs was replaced on disk while it ran "
			 "(a rebuild?): user frames may be misnamed; run again");
	out->tally.kernel = scope->kernel;
	int rc = tally_samples(o, scope, t, out);
	if (rc)
		snprintf(err, errlen, "out of memory tallying the samples");
	return rc;
}

int explain_sample_user(const struct bench_config *b,
			const struct explain_target *t, unsigned hz,
			struct explain_sampled *out, char *err, size_t errlen)
{
	struct observer_state o = { .hz = hz };
	struct bench_observer obs = { on_timed_begin, on_timed_end, &o };
	struct bench_config own = *b;
	struct bench_result r = { 0 };
	struct prof_entry entries[8];
	struct prof_scope scope = {
		.kernel = false, .entries = entries,
		.n_entries = user_entries(b->design, t->op, entries),
	};

	memset(out, 0, sizeof(*out));
	own.observer = &obs;
	int rc = bench_run(&own, &r, err, errlen);
	if (!rc)
		rc = analyse(&o, &scope, t, out, err, errlen);
	out->ns_per_op = r.ns_per_op;
	finish_observer(&o, out);
	return rc;
}

int explain_sample_kernel(const struct kbench_config *kc,
			  const struct explain_target *t, unsigned hz,
			  struct explain_sampled *out, char *err, size_t errlen)
{
	struct observer_state o = { .hz = hz };
	struct bench_observer obs = { on_timed_begin, on_timed_end, &o };
	struct kbench_config own = *kc;
	struct kbench_result r = { 0 };
	struct prof_scope scope = {
		.kernel = true, .program = t->program, .baseline = "kb_baseline",
		.program_callback = t->program_callback,
		.baseline_callback = "step_baseline", .kernel_op = t->kernel_op,
	};

	memset(out, 0, sizeof(*out));
	own.b.observer = &obs;
	int rc = kbench_run(&own, &r, err, errlen);
	if (!rc)
		rc = analyse(&o, &scope, t, out, err, errlen);
	out->ns_per_op = r.program_ns_per_op;
	out->jit_names = !rc && out->tally.region[PROF_REGION_OP] > 0;
	finish_observer(&o, out);
	return rc;
}

void explain_sampled_free(struct explain_sampled *s)
{
	prof_tally_free(&s->tally);
}
