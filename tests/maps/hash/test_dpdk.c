/* SPDX-License-Identifier: MIT */
/*
 * hash/dpdk's own edges, beyond the BPF semantics conformance_hash checks
 * (maps/hash/dpdk.c says why each is so):
 *  - E2BIG at exactly max_entries, from the adapter's own count, though
 *    rte_hash's key store holds far more;
 *  - a key store full of deleted keys in their grace period: -ENOMEM for
 *    a caller inside a read section (it cannot wait), never rte_hash's
 *    ENOSPC; outside one the insert waits and succeeds;
 *  - deleted key slots come back after a grace period: many times more
 *    inserts than the key store has slots all succeed;
 *  - two writer threads (each registered with EAL on its first update)
 *    share the count exactly, and a reader sees a whole old or new value;
 *  - the thread whose create started EAL keeps its CPU affinity;
 *  - a map DPDK's heap cannot hold (EAL without room for its heap, or a
 *    table larger than the heap) is -ENOMEM, with nothing of DPDK's own
 *    on stderr: the caller says it in one line.
 * Built only with DPDK.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "tests/maps/replace_check.h"

/* maps/hash/dpdk.c's SPARE_SLOTS: the deleted keys a map of few entries
 * has room for while they wait for their grace period. */
#define SPARE 262144u

static struct map *make(uint32_t max_entries, uint32_t value_size)
{
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = 4,
			      .value_size = value_size,
			      .max_entries = max_entries };
	struct map *m = NULL;
	const struct map_ops *ops = map_find("hash/dpdk");
	cr_assert_not_null(ops, "hash/dpdk is not in the registry");
	cr_assert_eq(map_create(ops, &a, &m), 0);
	return m;
}

static void set_up(void)
{
	map_thread_online();
}

static void tear_down(void)
{
	map_thread_offline();
}

TestSuite(hash_dpdk, .init = set_up, .fini = tear_down, .timeout = 120);

Test(hash_dpdk, e2big_at_exactly_max_entries)
{
	struct map *m = make(1000, 8);
	uint64_t v = 1;
	for (uint32_t k = 0; k < 1000; k++)
		cr_assert_eq(map_update(m, &k, &v, MAP_ANY), 0, "key %u", k);
	uint32_t k = 1000;
	cr_expect_eq(map_update(m, &k, &v, MAP_ANY), -E2BIG);
	cr_expect_eq(map_update(m, &k, &v, MAP_NOEXIST), -E2BIG);
	uint32_t old = 5;
	v = 2;
	cr_expect_eq(map_update(m, &old, &v, MAP_ANY), 0,
		     "a replace in a full map");
	cr_assert_eq(map_delete(m, &old), 0);
	cr_expect_eq(map_update(m, &k, &v, MAP_NOEXIST), 0,
		     "a delete made no room");
	cr_expect_eq(map_update(m, &old, &v, MAP_NOEXIST), -E2BIG);
	map_destroy(m);
}

/* Insert and delete key 1 until an insert fails; the number of rounds. */
static uint32_t churn_until_refused(struct map *m, uint32_t limit, int *err)
{
	uint32_t key = 1, round;
	uint64_t v = 3;
	*err = 0;
	for (round = 0; round < limit && !*err; round++) {
		*err = map_update(m, &key, &v, MAP_NOEXIST);
		if (!*err)
			cr_assert_eq(map_delete(m, &key), 0);
	}
	return round;
}

Test(hash_dpdk, full_key_store_is_enomem_in_a_read_section)
{
	struct map *m = make(16, 8);
	/* A read section holds every grace period back: deleted key slots
	 * pile up until the key store (16 + SPARE spare + lcore caches'
	 * 127 * 63) is full. */
	map_rcu_read_lock();
	int err;
	uint32_t rounds = churn_until_refused(m, 4 * SPARE, &err);
	map_rcu_read_unlock();
	cr_expect_eq(err, -ENOMEM, "after %u inserts: %d, not -ENOMEM", rounds,
		     err);
	cr_expect_gt(rounds, SPARE, "refused after only %u inserts", rounds);
	/* Outside a read section the insert waits for the grace period. */
	uint32_t key = 1;
	uint64_t v = 4, got = 0;
	cr_expect_eq(map_update(m, &key, &v, MAP_NOEXIST), 0);
	cr_expect_eq(map_lookup_copy(m, &key, &got), 0);
	cr_expect_eq(got, 4);
	map_destroy(m);
}

Test(hash_dpdk, deleted_slots_come_back_after_a_grace_period)
{
	struct map *m = make(16, 8);
	int err;
	/* Three times the key store's slots, one key at a time. */
	uint32_t rounds = churn_until_refused(m, 3 * (16 + SPARE + 127 * 63),
					      &err);
	cr_expect_eq(err, 0, "insert %u: %d", rounds, err);
	/* And one key deleted then put back after a grace period. */
	uint32_t key = 9;
	uint64_t v = 5, got = 0;
	cr_assert_eq(map_update(m, &key, &v, MAP_NOEXIST), 0);
	cr_assert_eq(map_delete(m, &key), 0);
	map_rcu_barrier();
	cr_expect_eq(map_lookup_copy(m, &key, &got), -ENOENT);
	v = 6;
	cr_expect_eq(map_update(m, &key, &v, MAP_NOEXIST), 0);
	cr_expect_eq(map_lookup_copy(m, &key, &got), 0);
	cr_expect_eq(got, 6);
	map_destroy(m);
}

/*
 * A replace moves the key to a new value id: a reader's pointer to the old
 * value still reads it for the rest of its read section, and the old id
 * comes back after the grace period, so replaces that outlast many grace
 * periods do not grow the map.
 */
Test(hash_dpdk, replaced_values_stay_for_the_reader_and_come_back)
{
	struct map *m = make(64, 8);
	uint32_t key = 3;
	uint64_t v;
	expect_replace_keeps_old_value(m, &key, &key);
	map_rcu_barrier();
	size_t before = m->ops->memory(m);
	for (unsigned i = 0; i < 100000; i++) {
		if (i % 1000 == 0)
			map_rcu_barrier();
		v = i;
		cr_assert_eq(map_update(m, &key, &v, MAP_EXIST), 0);
	}
	cr_expect_eq(m->ops->memory(m), before, "replaced ids did not come "
		     "back");
	map_destroy(m);
}

/* --- two writers ------------------------------------------------------------ */

#define WRITER_KEYS 6000
#define SHARED_MAX 8000

struct writer {
	struct map *m;
	uint32_t first;
	uint32_t inserted, refused;
	int other_err;
};

static void *insert_range(void *arg)
{
	struct writer *w = arg;
	map_thread_online();
	uint64_t v = 0;
	for (uint32_t k = w->first; k < w->first + WRITER_KEYS; k++) {
		v = k;
		int err = map_update(w->m, &k, &v, MAP_NOEXIST);
		if (err == 0)
			w->inserted++;
		else if (err == -E2BIG)
			w->refused++;
		else
			w->other_err = err;
	}
	map_thread_offline();
	return NULL;
}

Test(hash_dpdk, two_writers_share_max_entries_exactly)
{
	struct map *m = make(SHARED_MAX, 8);
	struct writer w[2] = { { m, 0, 0, 0, 0 }, { m, WRITER_KEYS, 0, 0, 0 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, insert_range, &w[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++)
		cr_expect_eq(w[i].other_err, 0, "writer %d: %d", i,
			     w[i].other_err);
	cr_expect_eq(w[0].inserted + w[1].inserted, SHARED_MAX);
	cr_expect_eq(w[0].refused + w[1].refused, 2 * WRITER_KEYS - SHARED_MAX);
	uint32_t found = 0, k;
	uint64_t got;
	for (k = 0; k < 2 * WRITER_KEYS; k++)
		if (map_lookup_copy(m, &k, &got) == 0) {
			cr_expect_eq(got, k, "key %u", k);
			found++;
		}
	cr_expect_eq(found, SHARED_MAX);
	map_destroy(m);
}

#define VALUE_BYTES 256

struct same_key {
	struct map *m;
	uint8_t fill;
	atomic_bool *stop;
	int err;
};

/* Overwrite key 7 with values whose bytes are all `fill`, then fill + 2... */
static void *overwrite(void *arg)
{
	struct same_key *s = arg;
	map_thread_online();
	uint8_t v[VALUE_BYTES];
	uint32_t key = 7;
	for (unsigned gen = 0; !atomic_load(s->stop) && !s->err; gen++) {
		memset(v, (uint8_t)(s->fill + 2 * gen), sizeof(v));
		s->err = map_update(s->m, &key, v, MAP_EXIST);
		map_rcu_quiescent();
	}
	map_thread_offline();
	return NULL;
}

Test(hash_dpdk, a_reader_sees_a_whole_value_under_two_writers)
{
	struct map *m = make(64, VALUE_BYTES);
	uint32_t key = 7;
	uint8_t v[VALUE_BYTES] = { 0 };
	cr_assert_eq(map_update(m, &key, v, MAP_NOEXIST), 0);
	atomic_bool stop = false;
	struct same_key s[2] = { { m, 0, &stop, 0 }, { m, 1, &stop, 0 } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, overwrite, &s[i]), 0);
	unsigned torn = 0;
	for (int i = 0; i < 200000 && !torn; i++) {
		map_rcu_read_lock();
		const uint8_t *p = map_lookup(m, &key);
		cr_assert_not_null(p);
		for (unsigned b = 1; b < VALUE_BYTES; b++)
			torn += p[b] != p[0];
		map_rcu_read_unlock();
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	cr_expect_eq(torn, 0, "a reader saw a value mixed of two updates");
	cr_expect_eq(s[0].err + s[1].err, 0, "an overwrite failed");
	map_destroy(m);
}

Test(hash_dpdk, the_thread_that_starts_eal_keeps_its_affinity)
{
	cpu_set_t before, after;
	cr_assert_eq(sched_getaffinity(0, sizeof(before), &before), 0);
	if (CPU_COUNT(&before) < 2)
		cr_skip_test("one CPU allowed here: EAL's pinning would not "
			     "show");
	/* Criterion runs each test in a process of its own: this create is
	 * the one that starts EAL, which pins its caller to one CPU. */
	struct map *m = make(16, 8);
	cr_assert_eq(sched_getaffinity(0, sizeof(after), &after), 0);
	cr_expect(CPU_EQUAL(&before, &after),
		  "%d CPUs allowed before EAL started, %d after",
		  CPU_COUNT(&before), CPU_COUNT(&after));
	map_destroy(m);
}

/* map_create of hash/dpdk with what it wrote on stderr (fd 2, DPDK's log
 * included) in said. */
static int create_heard(const struct map_attr *a, struct map **m, char *said,
			size_t len)
{
	FILE *heard = tmpfile();
	cr_assert_not_null(heard);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	cr_assert_geq(saved, 0);
	cr_assert_geq(dup2(fileno(heard), STDERR_FILENO), 0);
	int err = map_create(map_find("hash/dpdk"), a, m);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(heard);
	size_t n = fread(said, 1, len - 1, heard);
	said[n] = '\0';
	fclose(heard);
	return err;
}

/* create answers -ENOMEM, makes no map and writes nothing on stderr. */
static void expect_enomem_quietly(const struct map_attr *a)
{
	struct map *m = NULL;
	char said[2048];
	int err = create_heard(a, &m, said, sizeof(said));
	cr_expect_eq(err, -ENOMEM, "create: %d (%s), not -ENOMEM", err,
		     strerror(-err));
	cr_expect_null(m);
	cr_expect_str_empty(said, "create wrote on stderr:\n%s", said);
}

/* This process's address space now, in bytes (/proc/self/statm). */
static uint64_t address_space_bytes(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%lu", &pages), 1);
	fclose(f);
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* EAL reserves its whole heap (3 GiB of address space: dpdk_eal.c) as it
 * starts.  With 1 GiB of address space left to this process, the first
 * create finds no room for it: a map this machine cannot hold, -ENOMEM as
 * map.h says, and none of EAL's lines on stderr. */
Test(hash_dpdk, eal_without_room_for_its_heap_is_enomem_quietly)
{
#ifdef UNDER_ASAN
	cr_skip_test("AddressSanitizer's allocator needs address space of "
		     "its own");
#endif
	struct rlimit lim;
	cr_assert_eq(getrlimit(RLIMIT_AS, &lim), 0);
	lim.rlim_cur = address_space_bytes() + (1ull << 30);
	if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < lim.rlim_cur)
		lim.rlim_cur = lim.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = 4,
			      .value_size = 8, .max_entries = 16 };
	expect_enomem_quietly(&a);
}

/* A started EAL, and a table larger than its 3 GiB heap: 1M keys of
 * 4096 bytes are a key store of some 5 GiB (with the spare slots).
 * -ENOMEM, and nothing of rte_hash's own on stderr. */
Test(hash_dpdk, a_table_larger_than_the_heap_is_enomem_quietly)
{
	struct map_attr a = { .type = MAP_TYPE_HASH, .key_size = 4096,
			      .value_size = 8, .max_entries = 1u << 20 };
	expect_enomem_quietly(&a);
	/* The heap is whole after the refusal: a small map still fits. */
	map_destroy(make(16, 8));
}
