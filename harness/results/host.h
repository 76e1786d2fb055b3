/* SPDX-License-Identifier: MIT */
/*
 * host.h: what machine a figure came from (docs/design.md's host record), and
 * what on it sets the figures: how many CPUs the kernel could bring up (it
 * sizes the kernel's per-CPU LRU batches), which CPUs this run may use, the
 * CPU vulnerability mitigations in force (each one taxes kernel entry, and
 * so every syscall and BPF_PROG_TEST_RUN) and whether the machine is a
 * virtual one (a vCPU can be descheduled by the host at any moment).
 * Written once per run: as the first jsonl record, by record.h's writer,
 * and as the line at a table's foot.
 */
#ifndef MAPLAB_HOST_H
#define MAPLAB_HOST_H

#include "harness/results/record.h"

#include <stdio.h>

#define HOST_MAX_VULNERABILITIES 32

/* One file of /sys/devices/system/cpu/vulnerabilities: its name and line. */
struct host_vulnerability {
	char name[48];    /* "spectre_v2" */
	char status[224]; /* "Mitigation: Retpolines; STIBP: disabled; ..." */
};

struct host_record {
	char kernel[128];    /* uname -r */
	char cpu_model[128]; /* /proc/cpuinfo "model name" */
	char hostname[64];
	char date[32];       /* UTC, ISO 8601 */
	long nproc;          /* online CPUs */
	unsigned possible_cpus;
	unsigned cpus_allowed; /* in this process's affinity mask */
	int virtualised;       /* 1 yes, 0 no, -1 cannot tell */
	char hypervisor[32];   /* "kvm", "xen", ...; "" when not known */
	struct host_vulnerability vulns[HOST_MAX_VULNERABILITIES]; /* by name */
	unsigned n_vulns;
	/* Transparent huge pages for anonymous memory, the kernel's setting
	 * (/sys/kernel/mm/transparent_hugepage/enabled): "always", "madvise"
	 * (only where a program asks: neither jemalloc nor DPDK's --no-huge
	 * heap asks by default), "never"; "" where the kernel has none. */
	char thp[16];
	const char *allocator; /* "jemalloc" or "libc" */
	const char *rcu;       /* "memb" or "qsbr" */
	const char *version;
};

void host_record_read(struct host_record *h);

/*
 * Read every file of `dir` (the kernel's vulnerabilities directory) into
 * h->vulns, sorted by name; at most HOST_MAX_VULNERABILITIES.  A missing
 * directory (an old kernel, another architecture) leaves none.
 */
void host_read_vulnerabilities(struct host_record *h, const char *dir);

/* The setting of the transparent huge pages file `path` (the word in
 * brackets of "always [madvise] never") into h->thp; "" where it cannot
 * be read or names none. */
void host_read_thp(struct host_record *h, const char *path);

/* The file host_record_read reads it from: the kernel's, or
 * $MAPLAB_THP_FILE where set (a test of a kernel without huge pages). */
const char *host_thp_file(void);

/* "meltdown, spectre_v2": the names whose status begins "Mitigation",
 * or "none". */
void host_mitigations(const struct host_record *h, char *buf, size_t len);

/* The hypervisor's name from its 12-byte CPUID signature (leaf
 * 0x40000000): "kvm", "hyperv", ...; NULL for a signature not known. */
const char *host_hypervisor_name(const char signature[12]);

/*
 * h as a record of kind "host" (record.h), every field in group "host":
 * its jsonl line is {"record":"host","host":{"kernel":"...",...}}.  The
 * record points into h: h must outlive its writing.  record_free it.
 */
void host_record_build(const struct host_record *h, struct record *out);

/* One line for a table's foot: kernel, CPUs, mitigations, virtualisation,
 * allocator, RCU flavour, huge pages; with a newline, wrapped to the terminal's
 * columns (wrap.h). */
void host_record_line(FILE *f, const struct host_record *h);

#endif /* MAPLAB_HOST_H */
