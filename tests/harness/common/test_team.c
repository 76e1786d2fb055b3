/* SPDX-License-Identifier: MIT */
/*
 * The thread team of harness/common/team.h: every worker runs every phase
 * once, a timed phase stops them, a slot another thread holds fails the
 * start, and a worker that waits at the gate does not hold up RCU.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "harness/common/team.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#define WORKERS 3

struct tally {
	atomic_uint runs[WORKERS][2];
	atomic_uint stopped;
};

static void count_phase(void *ctx, unsigned worker, unsigned phase,
			const atomic_bool *stop)
{
	struct tally *t = ctx;
	atomic_fetch_add(&t->runs[worker][phase], 1);
	if (phase == 1) { /* timed: run until told */
		while (!atomic_load(stop))
			sched_yield();
		atomic_fetch_add(&t->stopped, 1);
	}
}

Test(team, every_worker_runs_every_phase_once, .timeout = 30)
{
	struct tally tally = { 0 };
	struct team team;
	struct team_config cfg = { .threads = WORKERS, .cpu_slots = true,
				   .body = count_phase, .ctx = &tally };
	char err[128];
	cr_assert_eq(team_start(&team, &cfg, err, sizeof(err)), 0, "%s", err);
	team_run_phase(&team, 0, 0);   /* the bodies return on their own */
	team_run_phase(&team, 1, 0.05); /* stopped by the team */
	for (unsigned w = 0; w < WORKERS; w++) {
		cr_expect_eq(atomic_load(&tally.runs[w][0]), 1u, "worker %u", w);
		cr_expect_eq(atomic_load(&tally.runs[w][1]), 1u, "worker %u", w);
		cr_expect_eq(team_cpu_of(&team, w),
			     map_cpu_allowed_id(w % map_cpu_allowed_count()));
	}
	cr_expect_eq(atomic_load(&tally.stopped), (unsigned)WORKERS);
	team_join(&team);
}

Test(team, a_taken_slot_fails_the_start, .timeout = 30)
{
	struct tally tally = { 0 };
	struct team team;
	struct team_config cfg = { .threads = WORKERS, .cpu_slots = true,
				   .body = count_phase, .ctx = &tally };
	char err[128] = "";
	cr_assert_eq(map_cpu_claim(2), 2);
	cr_expect_eq(team_start(&team, &cfg, err, sizeof(err)), -EBUSY);
	cr_expect(strstr(err, "worker 2 needs cpu slot 2") != NULL, "%s", err);
	map_cpu_release();
	cr_expect_eq(atomic_load(&tally.runs[0][0]), 0u, "a phase ran anyway");
}

static void rcu_cb(struct rcu_head *head)
{
	(void)head;
}

/*
 * Under QSBR, worker 0's phase ends at once while worker 1's waits for a
 * grace period (rcu_barrier waits for a callback).  A grace period needs
 * every online thread to pass a quiescent state: if worker 0 waited at the
 * gate online, worker 1 would wait forever.
 */
static void one_waits_for_a_grace_period(void *ctx, unsigned worker,
					 unsigned phase, const atomic_bool *stop)
{
	static struct rcu_head head;
	(void)ctx, (void)phase, (void)stop;
	if (worker == 1) {
		map_rcu_call(&head, rcu_cb);
		map_rcu_barrier();
	}
}

Test(team, a_worker_at_the_gate_does_not_hold_up_qsbr, .timeout = 20)
{
	map_rcu_use(MAP_RCU_QSBR);
	struct team team;
	struct team_config cfg = { .threads = 2, .rcu = true,
				   .body = one_waits_for_a_grace_period };
	char err[128];
	cr_assert_eq(team_start(&team, &cfg, err, sizeof(err)), 0, "%s", err);
	team_run_phase(&team, 0, 0);
	team_join(&team);
}
