/* SPDX-License-Identifier: MIT */
#include "maps/base/rcu.h"

#include <stdlib.h>
#include "maps/base/map.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include "maps/base/rcu_qsbr.h"

enum map_rcu_flavor map_rcu_flavor = MAP_RCU_MEMB;

/*
 * Registration nests: the replayer, tests and harness may each call online
 * on the same thread; only the outermost pair registers with liburcu.
 */
static _Thread_local int online_depth;

void map_rcu_use(enum map_rcu_flavor flavor)
{
	map_rcu_flavor = flavor;
}

const char *map_rcu_flavor_name(void)
{
	return map_rcu_flavor == MAP_RCU_QSBR ? "qsbr" : "memb";
}

extern const struct rcu_flavor_struct urcu_memb_flavor;

const struct rcu_flavor_struct *map_rcu_flavor_struct(void)
{
	return map_rcu_flavor == MAP_RCU_QSBR ? map_rcu_qsbr_flavor()
					      : &urcu_memb_flavor;
}

void map_thread_online(void)
{
	if (online_depth++ > 0)
		return;
	if (map_rcu_flavor == MAP_RCU_QSBR)
		urcu_qsbr_register_thread();
	else
		urcu_memb_register_thread();
}

void map_thread_offline(void)
{
	if (online_depth == 0 || --online_depth > 0)
		return;
	if (map_rcu_flavor == MAP_RCU_QSBR)
		urcu_qsbr_unregister_thread();
	else
		urcu_memb_unregister_thread();
}

/* A QSBR thread that waits for readers must not count as one. */
static void qsbr_wait(void (*wait)(void))
{
	int online = online_depth > 0;
	if (online)
		urcu_qsbr_thread_offline();
	wait();
	if (online)
		urcu_qsbr_thread_online();
}

/* The cpus the process may run on, read at start, before the harness pins
 * any thread. */
static cpu_set_t process_cpus;
static bool process_cpus_known;

__attribute__((constructor)) static void read_process_cpus(void)
{
	process_cpus_known =
		sched_getaffinity(0, sizeof(process_cpus), &process_cpus) == 0;
}

static pthread_once_t call_rcu_started = PTHREAD_ONCE_INIT;

/*
 * liburcu starts its call_rcu thread at the first call_rcu, and the thread
 * inherits the cpus of the thread that made the call.  Made by a bench
 * worker pinned to cpu 0, it stayed on cpu 0 for the rest of the process,
 * taking every later side's callbacks out of that side's worker's time: in
 * one compare, lpm_trie/multibit's updates cost 851 ns after
 * lpm_trie/linux's side had started the thread, and 265 ns before it
 * (docs/bench.md, "The call_rcu thread").  So it starts here, with the
 * caller widened to the process's cpus for the moment it takes.
 */
static void start_call_rcu_thread(void)
{
	cpu_set_t mine;
	bool widen = process_cpus_known &&
		     pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) == 0;
	if (widen)
		pthread_setaffinity_np(pthread_self(), sizeof(process_cpus),
				       &process_cpus);
	if (map_rcu_flavor == MAP_RCU_QSBR)
		map_rcu_qsbr_start_call_rcu();
	else
		(void)urcu_memb_get_default_call_rcu_data();
	if (widen)
		pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
}

void map_rcu_call(struct rcu_head *head, void (*fn)(struct rcu_head *))
{
	pthread_once(&call_rcu_started, start_call_rcu_thread);
	if (map_rcu_flavor == MAP_RCU_QSBR)
		map_rcu_qsbr_call(head, fn);
	else
		urcu_memb_call_rcu(head, fn);
}

void map_rcu_barrier(void)
{
	if (map_rcu_flavor == MAP_RCU_QSBR)
		qsbr_wait(map_rcu_qsbr_barrier);
	else
		urcu_memb_barrier();
}

int map_copy_value_rcu(struct map *m,
		       void *(*find)(struct map *m, const void *key),
		       const void *key, void *value)
{
	int err = -ENOENT;

	map_rcu_read_lock();
	void *v = find(m, key);
	if (v) {
		memcpy(value, v, m->attr.value_size);
		err = 0;
	}
	map_rcu_read_unlock();
	return err;
}

void map_rcu_offline_call(void (*fn)(void *arg), void *arg)
{
	int offline = map_rcu_flavor == MAP_RCU_QSBR && online_depth > 0;
	if (offline)
		urcu_qsbr_thread_offline();
	fn(arg);
	if (offline)
		urcu_qsbr_thread_online();
}

static void free_block(struct rcu_head *head)
{
	free(head);
}

void map_rcu_free_block(struct rcu_head *head)
{
	map_rcu_call(head, free_block);
}
