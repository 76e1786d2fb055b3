/* SPDX-License-Identifier: MIT */
#include "rcu.h"

/*
 * Registration nests: the replayer, tests and harness may each call online
 * on the same thread; only the outermost pair registers with liburcu.
 */
static _Thread_local int online_depth;

void map_thread_online(void)
{
	if (online_depth++ == 0)
		urcu_memb_register_thread();
}

void map_thread_offline(void)
{
	if (online_depth > 0 && --online_depth == 0)
		urcu_memb_unregister_thread();
}
