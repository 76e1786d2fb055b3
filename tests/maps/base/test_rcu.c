/* SPDX-License-Identifier: MIT */
/*
 * map_rcu_call's helper thread (maps/base/rcu.c): liburcu starts its
 * call_rcu thread at the first call, and the thread inherits the cpus of
 * the thread that made it.  A bench worker pinned to one cpu used to make
 * that first call, and the thread then ran every later callback on that
 * cpu, inside whichever side's worker was timed there (docs/bench.md,
 * "The call_rcu thread").  These tests make the first call from a thread
 * pinned to one cpu and check that the threads it started may run on
 * every cpu the process may, in both flavours.  Criterion runs each test
 * in a process of its own, so each makes the process's first call.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>

#include "maps/base/rcu.h"

enum { MOST_TASKS = 256 };

/* The ids of this process's threads, from /proc/self/task; how many. */
static int list_tasks(pid_t *tids, int most)
{
	DIR *d = opendir("/proc/self/task");
	cr_assert_not_null(d, "cannot read /proc/self/task");
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < most)
		if (e->d_name[0] != '.')
			tids[n++] = (pid_t)atoi(e->d_name);
	closedir(d);
	return n;
}

static bool listed(pid_t tid, const pid_t *tids, int n)
{
	for (int i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

static atomic_int callbacks_run;

static void count_callback(struct rcu_head *head)
{
	(void)head;
	atomic_fetch_add(&callbacks_run, 1);
}

static void first_call_from_a_pinned_thread(enum map_rcu_flavor flavor)
{
	cpu_set_t process, one;
	cr_assert_eq(sched_getaffinity(0, sizeof(process), &process), 0);
	if (CPU_COUNT(&process) < 2)
		cr_skip_test("needs two CPUs: on one, every thread has them all");
	int first = 0;
	while (!CPU_ISSET(first, &process))
		first++;

	pid_t before[MOST_TASKS];
	int n_before = list_tasks(before, MOST_TASKS);

	map_rcu_use(flavor);
	map_thread_online();
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	cr_assert_eq(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
	static struct rcu_head head;
	map_rcu_call(&head, count_callback);
	map_rcu_barrier();
	cr_assert_eq(atomic_load(&callbacks_run), 1, "the callback did not run");

	cpu_set_t after_call;
	cr_assert_eq(pthread_getaffinity_np(pthread_self(), sizeof(after_call),
					    &after_call), 0);
	cr_assert(CPU_EQUAL(&after_call, &one),
		  "the caller's own pinning was not restored");

	pid_t after[MOST_TASKS];
	int n_after = list_tasks(after, MOST_TASKS), started = 0;
	for (int i = 0; i < n_after; i++) {
		if (listed(after[i], before, n_before))
			continue;
		cpu_set_t theirs;
		cr_assert_eq(sched_getaffinity(after[i], sizeof(theirs), &theirs),
			     0);
		cr_expect(CPU_EQUAL(&theirs, &process),
			  "thread %d started by map_rcu_call may run on %d "
			  "cpus, the process on %d", (int)after[i],
			  CPU_COUNT(&theirs), CPU_COUNT(&process));
		started++;
	}
	cr_assert_geq(started, 1, "map_rcu_call started no thread");
	map_thread_offline();
}

Test(call_rcu_thread, memb_is_not_pinned_to_the_first_caller, .timeout = 30)
{
	first_call_from_a_pinned_thread(MAP_RCU_MEMB);
}

Test(call_rcu_thread, qsbr_is_not_pinned_to_the_first_caller, .timeout = 30)
{
	first_call_from_a_pinned_thread(MAP_RCU_QSBR);
}
