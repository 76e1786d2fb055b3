/* SPDX-License-Identifier: MIT */
/*
 * The shared pieces of maps/common: cpu slots, the per-cpu free list, and
 * nulls chains.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>

#include "maps/common/cpu.h"
#include "maps/common/map.h"
#include "maps/common/nulls_list.h"
#include "maps/common/pcpu_freelist.h"

static void *claim_slot_3(void *arg)
{
	*(int *)arg = map_cpu_claim(3);
	return NULL;
}

Test(cpu, a_slot_has_one_owner)
{
	cr_assert_eq(map_cpu_claim(3), 3);
	cr_expect_eq(map_this_cpu(), 3u);
	int other = 0;
	pthread_t t;
	pthread_create(&t, NULL, claim_slot_3, &other);
	pthread_join(t, NULL);
	cr_expect_eq(other, -EBUSY);
	map_cpu_release();
	cr_expect_eq(map_this_cpu(), 0u);
	pthread_create(&t, NULL, claim_slot_3, &other);
	pthread_join(t, NULL);
	cr_expect_eq(other, 3);
	/* That thread exited holding slot 3; its exit gave it back. */
	cr_expect_eq(map_cpu_claim(3), 3);
	map_cpu_release();
	cr_expect_eq(map_cpu_claim(MAP_MAX_CPUS), -EINVAL);
}

Test(cpu, possible_cpus_is_sane)
{
	unsigned n = map_possible_cpus();
	cr_expect(n >= 1 && n <= MAP_MAX_CPUS, "%u", n);
}

struct item {
	struct pcpu_freelist_node node;
	int id;
};

Test(pcpu_freelist, pops_own_slot_first_then_steals)
{
	struct pcpu_freelist fl;
	struct item items[10];
	cr_assert_eq(pcpu_freelist_init(&fl, 3), 0);
	pcpu_freelist_populate(&fl, items, sizeof(items[0]),
			       offsetof(struct item, node), 10);
	/* 10 over 3 slots: 4, 3, 3, in order. */
	struct item *first = (struct item *)pcpu_freelist_pop(&fl, 1);
	cr_expect(first >= &items[4] && first < &items[7], "slot 1 pops its own");
	int got = 1;
	while (pcpu_freelist_pop(&fl, 1))
		got++;
	cr_expect_eq(got, 10, "slot 1 drains every slot");
	cr_expect_null(pcpu_freelist_pop(&fl, 0));
	pcpu_freelist_push(&fl, 2, &items[0].node);
	cr_expect_eq((void *)pcpu_freelist_pop(&fl, 0), (void *)&items[0]);
	pcpu_freelist_destroy(&fl);
}

Test(nulls_list, add_delete_and_the_end_marker)
{
	struct nulls_head h;
	struct nulls_node a, b, c;
	nulls_init_head(&h, 42);
	cr_expect(nulls_is_marker(nulls_first_rcu(&h)));
	cr_expect_eq(nulls_marker_value(nulls_first_rcu(&h)), 42u);
	nulls_add_head_rcu(&a, &h);
	nulls_add_head_rcu(&b, &h);
	nulls_add_head_rcu(&c, &h); /* c b a */
	cr_expect_eq(nulls_first_rcu(&h), &c);
	nulls_del_rcu(&b);
	cr_expect_eq(nulls_next_rcu(&c), &a);
	cr_expect_eq(nulls_next_rcu(&b), &a, "a removed node keeps its link");
	nulls_del_rcu(&c);
	nulls_del_rcu(&a);
	cr_expect(nulls_is_marker(nulls_first_rcu(&h)));
	cr_expect_eq(nulls_marker_value(nulls_first_rcu(&h)), 42u);
}
