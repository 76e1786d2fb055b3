/* SPDX-License-Identifier: MIT */
/*
 * vm.h: the kernel side of a replay inside a virtual machine booted from
 * another kernel than this machine's (docs/kernels.md).
 *
 * The users of maplab run the kernels of their distributions (Debian 11's
 * 5.10, 12's 6.1, 13's 6.12) on machines of their cpu count, and the maps
 * do not behave alike on all of them.  maplab checks its kernel-faithful
 * designs against those kernels by booting one in QEMU (KVM where the
 * machine has hardware virtualisation, TCG otherwise: behaviour, never
 * speed) with this very maplab binary as the VM's init:
 *
 *   host                                    VM (N vCPUs, kernel K)
 *   ----                                    ---------------------
 *   traces -> initramfs: maplab, its  --->  maplab as pid 1 (vm_agent_main):
 *             libraries, /job/trace-N          each trace replayed on K's
 *                                             own maps (kmap), its results
 *   transcripts  <--- the second serial  <--  recorded (replay_record),
 *   (zlib) compared here with the designs     deflated, then power off
 *   (replay_compare_recorded)
 *
 * One boot serves a whole batch of traces; a boot takes seconds.  The
 * first serial port is the VM's console, kept for the message when a VM
 * does not come up (its last lines); the second carries the results, so
 * nothing the kernel prints can fall into them.  Every VM runs under a
 * time limit and dies with this process (PR_SET_PDEATHSIG): none is ever
 * left running.
 *
 * Kernels are fetched once, with apt through a sources list and state
 * folders of maplab's own (the machine's apt setup is never touched),
 * into a cache folder outside the repository (vm_cache_dir), and are
 * never installed.
 */
#ifndef MAPLAB_VM_H
#define MAPLAB_VM_H

#include "harness/trace/replay.h"

#include <stdbool.h>
#include <stddef.h>

#define VM_MAX_CPUS 8

/* A kernel a VM boots. */
struct vm_kernel {
	char spec[64];       /* as the user named it: "6.12", or the path */
	char path[4096];     /* its vmlinuz (a bzImage) */
	char release[128];   /* from the image: "6.12.118+deb13-cloud-amd64" */
	char series[16];     /* "6.12" (the model a faithful design takes) */
};

/* The series maplab knows how to fetch, for --help: "5.10, 6.1, 6.12". */
const char *vm_known_kernels(void);

/*
 * The cache kernels are fetched into: $MAPLAB_KERNEL_CACHE, else
 * $XDG_CACHE_HOME/maplab/kernels, else $HOME/.cache/maplab/kernels.
 */
const char *vm_cache_dir(char *buf, size_t len);

/*
 * --kernel SPEC into *k: a series maplab knows (vm_known_kernels: the
 * newest Debian cloud kernel of that series, fetched into the cache the
 * first time; quiet: no progress lines on stderr), or a path to a
 * vmlinuz, which must be a bzImage.  0, or -1 with one line in err (what
 * was asked, and why it cannot be had).
 */
int vm_kernel_resolve(const char *spec, bool quiet, struct vm_kernel *k,
		      char *err, size_t errlen);

/*
 * Whether a VM can run here: qemu-system-x86_64 on PATH.  0, or -1 with
 * one line in why (what to install).
 */
int vm_available(char *why, size_t len);

/* One trace for the VM's kernel side, and what came back. */
struct vm_trace {
	const char *name;             /* shown in messages */
	const char *text;             /* the trace (format v1) */
	uint32_t add_flags;           /* creation flags added to its map
					 lines (replay_side.add_flags: the
					 compared design's mode flags) */
	struct replay_recorded rec;   /* out: the kernel's recording; its
					 label is the run's, its text
					 malloc'd (vm_traces_free) */
};

struct vm_run {
	const struct vm_kernel *kernel;
	unsigned cpus;                /* vCPUs, 1 to VM_MAX_CPUS */
	bool verbose;                 /* the verifier's log, as --verbose */
	bool quiet;                   /* no progress line on stderr */
	char label[4400];             /* out: "kernel 6.12.118+deb13-cloud-
					 amd64 (VM, 2 cpus)" */
};

/*
 * Boot run->kernel once with run->cpus vCPUs, replay every trace on its
 * own maps (each as `maplab replay --map kernel` would, on cpu 0 or its
 * cpu lines' cpus), record the results into traces[i].rec, power off.  A
 * kernel that panics is booted once more, with a line on stderr saying
 * so (vm_console_panicked).  0, or -1 with one line in err: which kernel,
 * and what was seen (a VM that did not come up, hung or crashed: the last
 * lines of its console).  Never leaves a VM running.
 */
int vm_replay_kernel_side(struct vm_run *run, struct vm_trace *traces,
			  size_t n, char *err, size_t errlen);

void vm_traces_free(struct vm_trace *traces, size_t n);

/*
 * maplab as a VM's init (pid 1, with the job vm_replay_kernel_side put in
 * its initramfs): replays the job's traces on the kernel's maps, writes
 * the recordings to the second serial port, and powers the VM off.
 * Returns only where this process is not such an init (the job is not
 * there): -1.
 */
int vm_agent_main(void);

#endif /* MAPLAB_VM_H */
