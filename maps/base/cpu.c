/* SPDX-License-Identifier: MIT */
/*
 * cpu.c: the slot table behind cpu.h.  One bit per slot, claimed with an
 * atomic fetch-or so two threads can never both own a slot.
 */
#include "maps/base/cpu.h"
#include "maps/base/map.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

_Thread_local int map_cpu_slot_of_thread;
static _Thread_local int slot_claimed = -1;

/* A thread that exits holding a slot gives it back (pthread key destructor). */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void release_at_exit(void *unused)
{
	(void)unused;
	map_cpu_release();
}

static void make_exit_key(void)
{
	pthread_key_create(&exit_key, release_at_exit);
}

#define WORD_BITS 64
static _Atomic uint64_t slot_bits[MAP_MAX_CPUS / WORD_BITS];

static int try_take(int slot)
{
	uint64_t bit = 1ULL << (slot % WORD_BITS);
	uint64_t old = atomic_fetch_or_explicit(&slot_bits[slot / WORD_BITS],
						bit, memory_order_acq_rel);
	return (old & bit) ? -EBUSY : slot;
}

int map_cpu_claim(int slot)
{
	if (slot >= MAP_MAX_CPUS)
		return -EINVAL;
	map_cpu_release();
	int got = -EBUSY;
	if (slot >= 0) {
		got = try_take(slot);
	} else {
		for (int s = 0; s < MAP_MAX_CPUS && got < 0; s++)
			got = try_take(s);
	}
	if (got < 0)
		return got;
	slot_claimed = got;
	map_cpu_slot_of_thread = got;
	pthread_once(&exit_key_once, make_exit_key);
	pthread_setspecific(exit_key, (void *)1);
	return got;
}

void map_cpu_release(void)
{
	if (slot_claimed < 0)
		return;
	uint64_t bit = 1ULL << (slot_claimed % WORD_BITS);
	atomic_fetch_and_explicit(&slot_bits[slot_claimed / WORD_BITS], ~bit,
				  memory_order_release);
	slot_claimed = -1;
	map_cpu_slot_of_thread = 0;
}

/* Parses the kernel's cpu list format ("0-3,5,7-8"): count = last + 1. */
unsigned map_possible_cpus(void)
{
	static unsigned cached;
	if (cached)
		return cached;
	unsigned n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	if (f) {
		unsigned a, b;
		char sep;
		while (fscanf(f, "%u", &a) == 1) {
			b = a;
			if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
				if (fscanf(f, "%u", &b) != 1)
					break;
				if (fscanf(f, "%c", &sep) != 1)
					sep = 0;
			}
			if (b + 1 > n)
				n = b + 1;
			if (sep != ',')
				break;
		}
		fclose(f);
	}
	if (n == 0) {
		long c = sysconf(_SC_NPROCESSORS_CONF);
		n = c > 0 ? (unsigned)c : 1;
	}
	cached = n;
	return n;
}

/* The process's CPUs, read before any thread of ours pins itself (and
 * before other constructors, which may already want them). */
static cpu_set_t allowed_set;
static int allowed_ids[CPU_SETSIZE];
static unsigned allowed_count;

__attribute__((constructor(101))) static void read_allowed_cpus(void)
{
	CPU_ZERO(&allowed_set);
	if (sched_getaffinity(0, sizeof(allowed_set), &allowed_set) != 0)
		CPU_SET(0, &allowed_set);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed_set))
			allowed_ids[allowed_count++] = cpu;
}

unsigned map_cpu_allowed_count(void)
{
	return allowed_count;
}

int map_cpu_allowed_id(unsigned i)
{
	return i < allowed_count ? allowed_ids[i] : -1;
}

bool map_cpu_is_allowed(int cpu)
{
	return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed_set);
}

void map_cpu_allowed_text(char *buf, size_t len)
{
	size_t off = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < allowed_count && off < len;) {
		unsigned j = i; /* allowed_ids[i..j] are consecutive */
		while (j + 1 < allowed_count &&
		       allowed_ids[j + 1] == allowed_ids[j] + 1)
			j++;
		int n = j == i ? snprintf(buf + off, len - off, "%s%d",
					  i ? "," : "", allowed_ids[i])
			       : snprintf(buf + off, len - off, "%s%d-%d",
					  i ? "," : "", allowed_ids[i],
					  allowed_ids[j]);
		if (n < 0)
			break;
		off += (size_t)n;
		i = j + 1;
	}
}

static int pin_to_set(const cpu_set_t *set)
{
	return -pthread_setaffinity_np(pthread_self(), sizeof(*set), set);
}

int map_cpu_pin_id(int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed_set))
		return -EINVAL;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	int err = pin_to_set(&set);
	return err ? err : cpu;
}

int map_cpu_pin(unsigned slot)
{
	return map_cpu_pin_id(allowed_ids[slot % allowed_count]);
}

int map_cpu_unpin(void)
{
	return pin_to_set(&allowed_set);
}
