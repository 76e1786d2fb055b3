/* SPDX-License-Identifier: MIT */
/*
 * dpdk_eal.c: EAL started once, lazily, inside a program that is not a
 * DPDK application (dpdk_eal.h says what a caller gets).
 *
 * The arguments, and why each:
 *   --no-huge        no hugepages needed: memory comes from anonymous
 *                    4 KiB pages (the tables' lookups pay more TLB misses
 *                    than in a hugepage deployment; docs/hash.md)
 *   -m 3072          with --no-huge EAL's default is 64 MB, and everything
 *                    rte_hash, rte_fib and rte_ring allocate comes from
 *                    it: 3 GiB holds an IPv4 rte_fib of 2^20 prefixes
 *                    (1.1 GiB) beside other tables.  Address space only:
 *                    pages are touched as the heap hands them out
 *   --no-shconf --no-pci --no-telemetry
 *                    no shared config files, no device scan, no telemetry
 *                    socket or thread: nothing outside the process
 * and under --hugepages (maps/base/area.h), where huge pages are reserved
 * (vm.nr_hugepages), instead of --no-huge, -m and --no-shconf:
 *   --in-memory      the heap on those pages, through memfds (no hugetlbfs
 *                    mount needed), grown as the tables ask, no files:
 *                    DPDK as a router runs it.  (--no-huge's heap is a
 *                    memfd too, shared memory, which transparent huge
 *                    pages do not reach here: docs/bench.md.)
 *   -l <cpu>         the main lcore on a CPU the caller may run on (the
 *                    first of its affinity set: -l 0 fails under a cpuset
 *                    without CPU 0)
 *   --log-level=error
 *                    quiet; and EAL's log goes to a memory stream while it
 *                    starts, never to stderr: a start that fails is one
 *                    line of maplab's, with EAL's first line in it
 * Once EAL is up, DPDK logs only its critical lines (a panic) on stderr:
 * a call that fails (a table the heap cannot hold) says why through its
 * errno, which the design turns into maplab's one line, and DPDK's own
 * "HASH: memory allocation failed" would be a second.
 *
 * The start is under pthread_once: the first caller's thread starts EAL,
 * the others wait for it and read the same answer.
 */
#include "maps/base/dpdk_eal.h"
#include "maps/base/area.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#define EAL_MEMORY_MB "3072"

static pthread_once_t eal_once = PTHREAD_ONCE_INIT;
static int eal_err;              /* written once, under eal_once */
static char eal_why[256];        /* the same */
static pthread_key_t lcore_key;  /* set in threads we registered: its
				    destructor gives the lcore id back */

static void give_back_lcore(void *unused)
{
	(void)unused;
	rte_thread_unregister();
}

/* The first CPU the calling thread may run on, for -l. */
static int first_allowed_cpu(const cpu_set_t *set)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set))
			return cpu;
	return 0;
}

/* Whether EAL starts on reserved huge pages: --hugepages (area.h), and
 * some reserved (vm.nr_hugepages). */
static bool on_hugepages(void)
{
	return map_hugepages() && map_hugetlb_free_pages() > 0;
}

/*
 * rte_eal_init with EAL's log captured in log_text (caller frees), none of
 * it on stderr.  A failed start also writes its "EAL: FATAL:" line with
 * fprintf(stderr), past the log stream: stderr is the capture while EAL
 * starts (glibc lets a program assign it).  A line another thread printed
 * in that moment would land there too; EAL starts in the first DPDK
 * map's create, before maplab starts the threads that use the map.
 */
static int eal_init_captured(int cpu, char **log_text)
{
	size_t log_len = 0;
	FILE *log = open_memstream(log_text, &log_len);
	FILE *real_stderr = stderr;
	if (log) {
		rte_openlog_stream(log);
		stderr = log;
	}
	char lcore[16];
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	char *small[] = { "maplab", "--no-huge", "--no-shconf", "--no-pci",
			  "--no-telemetry", "-m", EAL_MEMORY_MB, "-l", lcore,
			  "--log-level=error", NULL };
	char *huge[] = { "maplab", "--in-memory", "--no-pci", "--no-telemetry",
			 "-l", lcore, "--log-level=error", NULL };
	bool on_huge = on_hugepages();
	char **argv = on_huge ? huge : small;
	int argc = on_huge ? (int)(sizeof(huge) / sizeof(huge[0])) - 1
			   : (int)(sizeof(small) / sizeof(small[0])) - 1;
	int rc = rte_eal_init(argc, argv);
	int err = rc < 0 ? rte_errno : 0;
	stderr = real_stderr;
	/* From here on only DPDK's critical lines reach stderr (the top of
	 * the file says why). */
	rte_log_set_global_level(RTE_LOG_CRIT);
	rte_openlog_stream(stderr);
	if (log)
		fclose(log);
	return rc < 0 ? -(err ? err : EINVAL) : 0;
}

/* The first line of EAL's log, without its newline, in line (len). */
static void first_line(const char *text, char *line, size_t len)
{
	size_t n = text ? strcspn(text, "\n") : 0;
	snprintf(line, len, "%.*s", (int)n, text ? text : "");
}

static void eal_start_once(void)
{
	cpu_set_t mine;
	CPU_ZERO(&mine);
	bool have_affinity = sched_getaffinity(0, sizeof(mine), &mine) == 0;
	char *log_text = NULL;
	eal_err = eal_init_captured(have_affinity ? first_allowed_cpu(&mine) : 0,
				    &log_text);
	if (eal_err) {
		char said[160];
		first_line(log_text, said, sizeof(said));
		snprintf(eal_why, sizeof(eal_why),
			 "DPDK's EAL did not start: %s%s%s%s", strerror(-eal_err),
			 *said ? " (" : "", said, *said ? ")" : "");
	} else if (pthread_key_create(&lcore_key, give_back_lcore) != 0) {
		eal_err = -EAGAIN;
		snprintf(eal_why, sizeof(eal_why),
			 "no thread-specific key left for DPDK's lcores");
	}
	free(log_text);
	/* rte_eal_init pinned this thread to the main lcore's CPU. */
	if (have_affinity)
		sched_setaffinity(0, sizeof(mine), &mine);
}

int map_dpdk_start(char *why, size_t len)
{
	pthread_once(&eal_once, eal_start_once);
	if (eal_err && why && len)
		snprintf(why, len, "%s", eal_why);
	return eal_err;
}

int map_dpdk_start_for(const char *design)
{
	char why[sizeof(eal_why)];
	int err = map_dpdk_start(why, sizeof(why));
	if (err && err != -ENOMEM) {
		fprintf(stderr, "%s: %s\n", design, why);
		return -EOPNOTSUPP;
	}
	return err;
}

int map_dpdk_register_thread(void)
{
	if (rte_lcore_id() != LCORE_ID_ANY)
		return 0;
	if (rte_thread_register() != 0)
		return -EBUSY;
	/* Any non-NULL value: the destructor runs when the thread exits. */
	pthread_setspecific(lcore_key, &lcore_key);
	return 0;
}

size_t map_dpdk_heap_bytes(void)
{
	size_t bytes = 0;
	for (unsigned i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			bytes += st.heap_allocsz_bytes;
	}
	return bytes;
}
