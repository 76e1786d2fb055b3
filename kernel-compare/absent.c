/* SPDX-License-Identifier: MIT */
/*
 * absent.c: the kernel side of a maplab built without it (meson setup
 * -Dkernel=disabled: no libbpf, clang or bpftool needed).
 *
 * The cli calls kernel-compare through kbench.h, kmap.h, ksim.h and vm.h alone;
 * in such a build those calls land here, and every one answers the same
 * thing: "built without the kernel side", with -EOPNOTSUPP.  The commands
 * that need the kernel (kbench, compare, validate, replay --map kernel,
 * sim --policy kernel) ask kmap_available or the sim engine first, so they
 * print that reason and exit 2 before they try anything.  kbench_modes
 * (kbench_modes.c) needs no BPF and is built in both configurations.
 */
#include "kernel-compare/kbench.h"
#include "kernel-compare/kmap.h"
#include "kernel-compare/ksim.h"
#include "kernel-compare/vm/vm.h"
#include "kernel-compare/vm/vm_sim.h"

#include <errno.h>
#include <stdio.h>

#define WHY "built without the kernel side (meson setup -Dkernel=enabled)"

static int absent(char *why, size_t len)
{
	if (why && len)
		snprintf(why, len, WHY);
	return -EOPNOTSUPP;
}

int kmap_available(char *why, size_t len)
{
	return absent(why, len);
}

static int absent_create(const struct map_attr *attr, struct map **out)
{
	(void)attr;
	(void)out;
	return -EOPNOTSUPP;
}

/* Never reached: kmap_available answers first.  A map_ops whose create
 * refuses, so nothing can hold a map of it. */
const struct map_ops kmap_ops = {
	.name = "kernel",
	.description = WHY,
	.create = absent_create,
};

int kmap_prog_lookup(struct map *map, const void *key)
{
	(void)map;
	(void)key;
	return -EOPNOTSUPP;
}

void kmap_set_verbose(bool on)
{
	(void)on;
}

int kbench_run(const struct kbench_config *c, struct kbench_result *r,
	       char *err, size_t errlen)
{
	(void)c;
	(void)r;
	return absent(err, errlen);
}

int kbench_syscall_run(const struct kbench_config *c, enum syscall_mode mode,
		       struct bench_result *r, char *err, size_t errlen)
{
	(void)c;
	(void)mode;
	(void)r;
	return absent(err, errlen);
}

int ksim_run(const struct ksim_config *c, const struct ksim_stream *streams,
	     unsigned n_streams, struct ksim_result *out, char *err,
	     size_t errlen)
{
	(void)c;
	(void)streams;
	(void)n_streams;
	(void)out;
	return absent(err, errlen);
}

bool ksim_available(char *why, size_t whylen)
{
	absent(why, whylen);
	return false;
}

const struct sim_kernel_engine ksim_engine = {
	.run = ksim_run,
	.available = ksim_available,
};

/* --- the kernel side in a virtual machine (vm.h) --------------------------- */

const char *vm_known_kernels(void)
{
	return "none (" WHY ")";
}

const char *vm_cache_dir(char *buf, size_t len)
{
	snprintf(buf, len, "-");
	return buf;
}

int vm_available(char *why, size_t len)
{
	absent(why, len);
	return -1;
}

int vm_kernel_resolve(const char *spec, bool quiet, struct vm_kernel *k,
		      char *err, size_t errlen)
{
	(void)spec, (void)quiet, (void)k;
	absent(err, errlen);
	return -1;
}

int vm_replay_kernel_side(struct vm_run *run, struct vm_trace *traces,
			  size_t n, char *err, size_t errlen)
{
	(void)run, (void)traces, (void)n;
	absent(err, errlen);
	return -1;
}

void vm_traces_free(struct vm_trace *traces, size_t n)
{
	(void)traces, (void)n;
}

int vm_agent_main(void)
{
	return -1;
}

static int absent_run(const struct ksim_config *c,
		      const struct ksim_stream *streams, unsigned n,
		      struct ksim_result *out, char *err, size_t errlen)
{
	(void)c, (void)streams, (void)n, (void)out;
	return absent(err, errlen);
}

static bool absent_available(char *why, size_t whylen)
{
	absent(why, whylen);
	return false;
}

const struct sim_kernel_engine vm_sim_engine = {
	.run = absent_run,
	.available = absent_available,
};

int vm_sim_open(const struct vm_kernel *k, unsigned cpus, bool quiet,
		char *err, size_t errlen)
{
	(void)k, (void)cpus, (void)quiet;
	absent(err, errlen);
	return -1;
}

const char *vm_sim_label(void)
{
	return "";
}

void vm_sim_close(void)
{
}
