/* SPDX-License-Identifier: MIT */
/*
 * trace_batch.h: the traces one run of validate or replay works through:
 * --trace FILE (or - for stdin), --trace DIR (every *.trace in it, in
 * name order), --random (one, --seed's) or --random --seeds A-B (one a
 * seed).  Each is kept as text (what a virtual machine's kernel side is
 * sent) and parsed for the machine its kernel side runs on: this one, or
 * --kernel's VM of --vm-cpus cpus.  A batch is parsed whole before any
 * replay starts, so a malformed line of any trace stops the run first.
 */
#ifndef MAPLAB_TRACE_BATCH_H
#define MAPLAB_TRACE_BATCH_H

#include "cli/cli.h"
#include "cli/trace/trace_cmd.h"
#include "kernel-compare/vm/vm.h"

#include <stddef.h>
#include <stdint.h>

struct trace_item {
	char name[CLI_TRACE_NAME_LEN]; /* in messages: the file, or
					  "random seed N" */
	char *text;                    /* NUL-terminated, its len bytes
					  NUL-free once parsed */
	size_t len;
	struct trace t;
};

struct trace_batch {
	struct trace_item *items;
	size_t n;
};

/* The traces the options name: 0, or EXIT_USAGE after one line. */
int trace_batch_load(struct trace_cmd *c, struct trace_batch *b);
void trace_batch_free(struct trace_batch *b);

/*
 * --kernel's virtual machine: the kernel resolved (a series fetched into
 * the cache the first time), booted once, and every trace of b replayed
 * on its maps once for each of the n_flags creation flag sets (the
 * compared designs' mode flags): (*recs)[f * b->n + i] is trace i with
 * flags[f].  run is filled (its label names the VM).  0, or EXIT_USAGE
 * after one line (what was asked, and what was seen).
 */
int trace_batch_in_vm(const struct trace_cmd *c, const struct trace_batch *b,
		      const uint32_t *flags, size_t n_flags,
		      struct vm_kernel *kernel, struct vm_run *run,
		      struct vm_trace **recs);

#endif /* MAPLAB_TRACE_BATCH_H */
