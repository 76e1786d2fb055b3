/* SPDX-License-Identifier: MIT */
/*
 * explain_sample.h: one sampled run of one side of `maplab explain`, and its
 * samples tallied into the steps of the op (harness/profile/steps.h).
 *
 * The run is bench's (a design) or kbench's (the kernel's map inside BPF),
 * with an observer (bench.h) that starts the sampler on every thread of the
 * process but the main one (the workers, and liburcu's call_rcu thread,
 * whose work is off the measured thread) when the timed phase begins and
 * stops it when it ends, while the workers wait at the gate.  /proc/kallsyms
 * is read then too, while kbench's programs are still loaded, so that their
 * JITed code has names.  Symbols of this process are read after the run.
 * The run's own ns/op is not used: sampling perturbs it (explain takes
 * ns/op from unsampled runs).
 */
#ifndef MAPLAB_EXPLAIN_SAMPLE_H
#define MAPLAB_EXPLAIN_SAMPLE_H

#include "harness/bench/bench.h"
#include "harness/common/outfile.h"
#include "harness/profile/tally.h"
#include "kernel-compare/kbench.h"

#include <stdio.h>

struct explain_sampled {
	struct prof_tally tally;
	uint64_t lost;          /* samples the kernel dropped */
	unsigned threads;       /* threads sampled, workers included */
	bool jit_names;         /* the BPF programs had names in kallsyms */
	double ns_per_op;       /* the sampled run's own (the kernel's: its
				   program per step): against the unsampled
				   runs', what sampling costs */
	/* One line where something went wrong in the sampler (the run itself
	 * succeeded): the tally then holds what was gathered. */
	char problem[200];
};

/* What the sampled side asks about. */
struct explain_target {
	enum bench_op op;       /* the op asked about */
	const char *program;    /* kernel: the workload program (kb_update) */
	const char *program_callback; /* kernel: its bpf_loop callback
				   (step_update) */
	const char *kernel_op;  /* kernel: the map function's word ("update")
				   that tells a pair's ops apart; NULL: every
				   sample under the program is the op's */
	struct outfile *chains; /* NULL, or where every sample's symbolised
				   chain is written (explain_write_chain),
				   flushed after each: writing stops at the
				   first failure, which stays in it */
	const char *side;       /* its label there */
};

/*
 * One sample's chain as a line of text, leaf first:
 *   SIDE<TAB>worker|other<TAB>ADDR START MODULE NAME<TAB>ADDR START ...
 * (hex addresses; "-" for an unknown module or name; spaces as "_"): what the step
 * grouping read, so that it can be read again (tests/harness/profile keeps
 * a recording).
 */
void explain_write_chain(FILE *f, const char *side, bool worker,
			 const struct prof_frame *chain, unsigned n);

/* Sample bench's run of b (b->design set).  0, or -errno with a reason. */
int explain_sample_user(const struct bench_config *b,
			const struct explain_target *t, unsigned hz,
			struct explain_sampled *out, char *err, size_t errlen);

/* Sample kbench's run of kc (inside BPF).  0, or -errno with a reason. */
int explain_sample_kernel(const struct kbench_config *kc,
			  const struct explain_target *t, unsigned hz,
			  struct explain_sampled *out, char *err, size_t errlen);

void explain_sampled_free(struct explain_sampled *s);

#endif /* MAPLAB_EXPLAIN_SAMPLE_H */
