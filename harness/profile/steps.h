/* SPDX-License-Identifier: MIT */
/*
 * steps.h: what a sampled call chain was doing, in the steps of a map op.
 *
 * A chain (leaf first, symbolised) is first placed in a region by where the
 * op starts on its side:
 *
 *   kernel side   the op is what a BPF program calls: the frames leafward
 *                 of the innermost bpf_prog_* frame.  A chain under the
 *                 workload program (its name ends in scope->program) is the
 *                 op's, or the program's own (its code, helpers such as
 *                 bpf_user_rnd_u32, bpf_loop); one under the baseline
 *                 program is the baseline's; one under no program is the
 *                 test-run machinery's (BPF_PROG_TEST_RUN, the XDP
 *                 dispatcher, the syscall): harness, whatever its leaf
 *                 (a thunk there is the machinery's, not the program's:
 *                 explain's kernel steps hold only what the program's
 *                 ns/op covers, so that they add up to it).
 *   user side     the op starts at a frame inside one of the design's op
 *                 functions (scope->entries: map_ops members).  A chain
 *                 with none is the bench loop's (harness) when its first
 *                 user frame is one of the loop's own functions; else the
 *                 op's, its chain cut by a frame without a frame pointer
 *                 (a library built without, a function sampled in its
 *                 prologue: the unwinder then skips its caller).
 *
 * Inside the op, the step is that of the first frame, leaf to entry, that a
 * rule names (steps.c's table: kernel and maplab names, and whole libraries
 * by module: jemalloc's frames are allocation, liburcu's reclamation); a
 * chain no rule names is the op's own code, credited to its leaf.  Thunk
 * and BPF-program rules apply at the leaf first, in every region but the
 * kernel side's harness (above).  On the user side the kernel's frames at
 * the leaf (a page fault, a syscall) are passed over: their time is the
 * user frame's that caused them.
 *
 * Samples cannot land while interrupts are off: an irqsave section's time
 * lands where interrupts come back on.  In a paravirtualised guest that is
 * a function (pvm_irq_enable): its samples belong to the first frame above
 * that does more than re-enable interrupts, and are PROF_STEP_IRQS_OFF
 * when that is the op's own function (trie_update_elem), else that
 * function's step (unit_alloc: allocation).  On bare metal the sti is
 * inlined: prof_tally_finish (tally.h) moves a lump (one address holding most of
 * the samples of one of the kernel's map ops) to PROF_STEP_IRQS_OFF.
 * Only differential runs can split such a section.
 */
#ifndef MAPLAB_PROFILE_STEPS_H
#define MAPLAB_PROFILE_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum prof_step {
	PROF_STEP_HASH,
	PROF_STEP_WALK,      /* bucket or trie walk: the op's search */
	PROF_STEP_COMPARE,   /* key compare (memcmp, prefix match) */
	PROF_STEP_LOCK,
	PROF_STEP_ALLOC,     /* allocation and free of elements */
	PROF_STEP_COPY,      /* key and value copies, zeroing */
	PROF_STEP_LRU,       /* eviction and LRU list work */
	PROF_STEP_RECLAIM,   /* RCU: deferred frees, grace periods */
	PROF_STEP_IRQS_OFF,  /* a kernel section run with interrupts off */
	PROF_STEP_OWN,       /* the op's own code, no finer step named */
	PROF_STEP_PROGRAM,   /* the BPF program, its helpers, the call */
	PROF_STEP_THUNK,     /* return and indirect-branch thunks */
	PROF_STEP_HARNESS,   /* the bench loop, the key stream */
	PROF_STEP_COUNT
};

/* "hash", "walk", ...: short, for tables ("irqs off"). */
const char *prof_step_name(enum prof_step step);
/* One line: "bucket or trie walk", "interrupts off: lock + walk + copy". */
const char *prof_step_text(enum prof_step step);

enum prof_region {
	PROF_REGION_OP,        /* inside the op, or the workload program */
	PROF_REGION_HARNESS,   /* the bench loop (user); test-run machinery
				  outside any program (kernel) */
	PROF_REGION_BASELINE,  /* under the kernel's baseline program */
	PROF_REGION_OTHER_OP,  /* an op the scope does not ask about (the
				  deletes of an insert/delete pair) */
	PROF_REGION_COUNT
};

struct prof_frame {
	const char *name;    /* NULL: unknown */
	const char *module;  /* NULL: unknown */
	uint64_t addr;
	uint64_t start;      /* the function's first address, 0: unknown */
};

/* A user design's op function, and whether the scope asks about it. */
struct prof_entry {
	uint64_t start;
	bool wanted;
};

struct prof_scope {
	bool kernel;
	/* kernel: the programs' names, as in bpf_prog_<tag>_<name>, and the
	 * bpf_loop callback each runs per op (step_update, step_baseline;
	 * NULL: none).  A sample at a callback's first instructions, before
	 * it has set up its frame, has a chain without its program's frame
	 * (the callback's own frame, then bpf_test_run): the callback alone
	 * says whose it is. */
	const char *program, *baseline;
	const char *program_callback, *baseline_callback;
	/* kernel: the op asked about, as a word of the map function the
	 * program calls ("update", "delete", "lookup"); NULL: every op */
	const char *kernel_op;
	/* user: the design's op functions */
	const struct prof_entry *entries;
	unsigned n_entries;
};

struct prof_verdict {
	enum prof_region region;
	enum prof_step step;
	int credited;  /* the frame (leaf-first index) listed under the
			  step, -1 where none has a name */
	int entry;     /* the frame where the op starts, -1 where none */
};

struct prof_verdict prof_classify(const struct prof_scope *scope,
				  const struct prof_frame *chain, unsigned n);

/* A JITed BPF program's frame: bpf_prog_<16 hex digits of tag>_<name>. */
bool prof_frame_is_program(const struct prof_frame *f);

/* A return or indirect-branch thunk's frame. */
bool prof_frame_is_thunk(const struct prof_frame *f);

/* One of the kernel's map ops that hold an irqsave lock with the sti
 * inlined (htab_map_update_elem, trie_update_elem, ...). */
bool prof_is_irqsave_op(const char *name);

#endif /* MAPLAB_PROFILE_STEPS_H */
