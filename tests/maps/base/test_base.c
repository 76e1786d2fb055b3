/* SPDX-License-Identifier: MIT */
/*
 * The runtime of maps/base: cpu slots and pinning, big areas, the
 * per-cpu free list, and nulls chains.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "maps/base/area.h"
#include "maps/base/cpu.h"
#include "maps/base/map.h"
#include "maps/base/nulls_list.h"
#include "maps/base/pcpu_freelist.h"
#include "maps/base/rcu.h"

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

/*
 * Workers are pinned within the CPUs the process was given
 * (`taskset -c 1 maplab ...`), never onto others.  The allowed set is read
 * when the process starts, so the test runs itself again, restricted to
 * the last CPU, and the child checks where slot 0 lands.
 */
#define PIN_CHILD_ENV "MAPLAB_TEST_PIN_CHILD"

/* The child's side: it runs before criterion starts, and exits. */
__attribute__((constructor)) static void pin_child(void)
{
	const char *want = getenv(PIN_CHILD_ENV);
	if (!want)
		return;
	int cpu = atoi(want);
	bool ok = map_cpu_allowed_count() == 1 && map_cpu_allowed_id(0) == cpu &&
		  map_cpu_pin(0) == cpu && map_cpu_pin(5) == cpu &&
		  sched_getcpu() == cpu &&
		  map_cpu_pin_id(cpu == 0 ? 1 : 0) == -EINVAL;
	_exit(ok ? 0 : 1);
}

Test(cpu, pins_stay_within_the_allowed_cpus, .timeout = 30)
{
	if (map_cpu_allowed_count() < 2)
		cr_skip_test("needs two CPUs");
	int last = map_cpu_allowed_id(map_cpu_allowed_count() - 1);
	pid_t child = fork();
	if (child == 0) {
		cpu_set_t one;
		char cpu[48];
		CPU_ZERO(&one);
		CPU_SET(last, &one);
		sched_setaffinity(0, sizeof(one), &one);
		snprintf(cpu, sizeof(cpu), PIN_CHILD_ENV "=%d", last);
		/* A clean environment: criterion's own variables would make
		 * the new process act as this one's worker. */
		char *env[] = { cpu, NULL };
		execle("/proc/self/exe", "test_common", (char *)NULL, env);
		_exit(127);
	}
	int status = 0;
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the child restricted to cpu %d failed (status %#x)", last,
		  status);
}

/*
 * A preallocated table larger than the machine's memory is -ENOMEM at
 * create, as the kernel's vmalloc answers; a malloc that "succeeds" under
 * overcommit would get the process killed once the table is filled.
 */
Test(area, a_table_larger_than_memory_is_enomem)
{
	size_t limit = map_area_limit();
	uint64_t entries = (uint64_t)limit / (1u << 20) * 2 + 1;
	if (entries > (1u << 27))
		cr_skip_test("more memory than any map can ask for");
	struct map_attr attr = { .type = MAP_TYPE_HASH, .key_size = 4,
				 .value_size = 1u << 20,
				 .max_entries = (uint32_t)entries };
	struct map *m = NULL;
	map_thread_online();
	int err = map_create(map_find("hash/linux"), &attr, &m);
	cr_expect_eq(err, -ENOMEM, "a %llu MiB map on a %zu MiB machine: %d",
		     (unsigned long long)entries, limit >> 20, err);
	if (!err)
		map_destroy(m);
	map_thread_offline();
	cr_expect_null(map_area_alloc(limit + 1, 8));
}

/* The kB of AnonHugePages in the mapping of /proc/self/smaps that holds
 * p; -1 where none holds it. */
static long anon_huge_kb_at(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool inside = false;
	long kb = -1;
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* --hugepages (area.h): a table's area is whole huge pages, advised, and
 * once touched the kernel backs it with them, where the kernel gives any.
 * Without the switch, an area is as malloc gives it.  (Each test runs in
 * its own process: the switch stays with this one.) */
Test(area, with_hugepages_a_large_area_is_backed_by_huge_pages)
{
	const size_t size = 8 * MAP_HUGE_PAGE;
	cr_expect(!map_hugepages(), "off until switched on");
	map_hugepages_enable();
	cr_assert(map_hugepages());
	uint8_t *p = map_area_alloc(size, 64);
	cr_assert_not_null(p);
	cr_expect_eq((uintptr_t)p % MAP_HUGE_PAGE, 0, "aligned to a huge page");
	memset(p, 1, size);
	char thp[16];
	map_thp_mode(MAP_THP_FILE, thp, sizeof(thp));
	if (!thp[0] || !strcmp(thp, "never")) {
		free(p);
		cr_skip_test("this kernel gives no transparent huge pages (%s)",
			     thp[0] ? thp : "none");
	}
	long kb = anon_huge_kb_at(p);
	cr_expect_gt(kb, 0, "%zu MiB touched, %ld kB of it in huge pages (THP %s)",
		     size >> 20, kb, thp);
	free(p);
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

/*
 * One text for an errno in every message: the kernel's own ENOTSUPP (524),
 * which the C library does not know ("Unknown error 524"), by name with
 * what it means; every other errno as strerror says it.
 */
Test(errno_text, names_the_kernels_own_and_says_the_rest)
{
	cr_expect_str_eq(map_errno_text(ENOTSUPP),
			 "ENOTSUPP (not supported: the kernel's errno 524, "
			 "which it gives an LRU map asked for with "
			 "no_prealloc, among others)");
	cr_expect_str_eq(map_errno_text(EINVAL), strerror(EINVAL));
	cr_expect_str_eq(map_errno_text(ENOMEM), "Cannot allocate memory");
}
