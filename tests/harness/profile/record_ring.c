/* SPDX-License-Identifier: MIT */
/*
 * record_ring.c: records the ring file that tests/harness/profile/test_ring.c
 * parses (data/ring-x86_64.bin), and the facts about it that the test
 * checks (data/ring-x86_64.txt).  Built, not run by the suites:
 *
 *   build/tests/record_ring tests/harness/profile/data/ring-x86_64
 *
 * (as root: kernel call chains need it while perf_event_paranoid > 1).
 *
 * One thread alternates between spin_user (arithmetic, no calls) and
 * spin_syscall (getppid in a loop, so that some samples land in the
 * kernel) for RECORD_MS of wall time, sampled at RECORD_HZ by a cpu-clock
 * event set up as sampler.c sets its own.  The ring's bytes from tail to
 * head are written out unchanged: whole records, as a drain copies them.
 *
 * The facts are read from fixed offsets of each record (header, ip, pid,
 * tid), never from the call chain, so that they check the parser rather
 * than repeat it.  This file is built with frame pointers, and spin_user
 * keeps a stack slot so that it has a frame too, so that a sample in
 * spin_user has its caller, record_thread, as its second frame.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RECORD_HZ 4000
#define RECORD_MS 50
#define RING_PAGES 64  /* data pages; 256 KiB holds the whole run */

/* Each function in a section of its own: the linker's __start_ and __stop_
 * symbols give its exact address range whatever order -O2 lays them in. */
#define IN_SECTION(name) __attribute__((noinline, used, section(name)))

extern const char __start_maplab_rec_user[], __stop_maplab_rec_user[];
extern const char __start_maplab_rec_sys[], __stop_maplab_rec_sys[];
extern const char __start_maplab_rec_thread[], __stop_maplab_rec_thread[];

static atomic_int go, stop;
static atomic_int worker_tid;

IN_SECTION("maplab_rec_user") uint64_t spin_user(uint64_t x, unsigned iters);
IN_SECTION("maplab_rec_user") uint64_t spin_user(uint64_t x, unsigned iters)
{
	/* A stack slot makes gcc give this leaf a frame, which
	 * -fno-omit-frame-pointer alone does not (gcc 12). */
	volatile uint64_t slot = x;

	for (unsigned i = 0; i < iters; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x + slot;
}

IN_SECTION("maplab_rec_sys") long spin_syscall(unsigned calls);
IN_SECTION("maplab_rec_sys") long spin_syscall(unsigned calls)
{
	long sum = 0;

	for (unsigned i = 0; i < calls; i++)
		sum += syscall(SYS_getppid);
	return sum;
}

IN_SECTION("maplab_rec_thread") void *record_thread(void *arg);
IN_SECTION("maplab_rec_thread") void *record_thread(void *arg)
{
	uint64_t x = 1;
	long s = 0;

	atomic_store(&worker_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&go))
		;
	while (!atomic_load(&stop)) {
		x = spin_user(x, 200000);
		s += spin_syscall(100);
	}
	*(uint64_t *)arg = x + (uint64_t)s;
	return NULL;
}

static int in(uint64_t a, const char *lo, const char *hi)
{
	return a >= (uintptr_t)lo && a < (uintptr_t)hi;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Count what the file holds from fixed offsets only, and write the facts. */
static int write_facts(FILE *f, const unsigned char *d, size_t len, int tid)
{
	unsigned long samples = 0, lost_records = 0, lost = 0, other = 0;
	unsigned long kernel_ip = 0, user_spin = 0, sys_spin = 0, wrong_tid = 0;
	size_t off = 0;

	while (off + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, d + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			return -1;
		if (h.type == PERF_RECORD_SAMPLE) {
			uint64_t ip = u64_at(d + off + 8);
			uint32_t t;

			memcpy(&t, d + off + 20, 4);
			samples++;
			wrong_tid += t != (uint32_t)tid;
			kernel_ip += ip >> 63;
			user_spin += in(ip, __start_maplab_rec_user, __stop_maplab_rec_user);
			sys_spin += in(ip, __start_maplab_rec_sys, __stop_maplab_rec_sys);
		} else if (h.type == PERF_RECORD_LOST) {
			lost_records++;
			lost += u64_at(d + off + 16);
		} else {
			other++;
		}
		off += h.size;
	}
	fprintf(f, "pid %d\ntid %d\nbytes %zu\nsamples %lu\nlost %lu\n"
		"lost_records %lu\nother %lu\nkernel_ip_samples %lu\n"
		"user_spin_samples %lu\nsys_spin_samples %lu\nwrong_tid %lu\n",
		(int)getpid(), tid, len, samples, lost, lost_records, other,
		kernel_ip, user_spin, sys_spin, wrong_tid);
	fprintf(f, "spin_user %#lx %#lx\nspin_syscall %#lx %#lx\n"
		"record_thread %#lx %#lx\n",
		(unsigned long)(uintptr_t)__start_maplab_rec_user,
		(unsigned long)(uintptr_t)__stop_maplab_rec_user,
		(unsigned long)(uintptr_t)__start_maplab_rec_sys,
		(unsigned long)(uintptr_t)__stop_maplab_rec_sys,
		(unsigned long)(uintptr_t)__start_maplab_rec_thread,
		(unsigned long)(uintptr_t)__stop_maplab_rec_thread);
	return 0;
}

static int write_file(const char *base, const char *ext, const void *d,
		      size_t len, int tid)
{
	char path[4096];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "%s%s", base, ext);
	f = fopen(path, ext[1] == 'b' ? "wb" : "w");
	if (!f) {
		fprintf(stderr, "record_ring: %s: %s\n", path, strerror(errno));
		return -1;
	}
	bad = ext[1] == 'b' ? fwrite(d, 1, len, f) != len
			    : write_facts(f, d, len, tid) != 0;
	bad |= fclose(f) != 0;
	if (bad)
		fprintf(stderr, "record_ring: writing %s failed\n", path);
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct perf_event_mmap_page *meta;
	struct timespec nap = { 0, RECORD_MS * 1000000L };
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len;
	unsigned char *data, *out;
	pthread_t t;
	uint64_t sink, head, tail;
	int fd, tid;

	if (argc != 2) {
		fprintf(stderr, "usage: record_ring OUT_BASE (writes OUT_BASE.bin, OUT_BASE.txt)\n");
		return 2;
	}
	if (pthread_create(&t, NULL, record_thread, &sink) != 0)
		return 1;
	while (!(tid = atomic_load(&worker_tid)))
		;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000000ull / RECORD_HZ;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 64;
	a.disabled = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
	if (fd < 0) {
		fprintf(stderr, "record_ring: perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	meta = mmap(NULL, page * (1 + RING_PAGES), PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED) {
		fprintf(stderr, "record_ring: mmap: %s\n", strerror(errno));
		return 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	atomic_store(&go, 1);
	nanosleep(&nap, NULL);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	len = (size_t)(head - tail);
	if (len > page * RING_PAGES) {
		fprintf(stderr, "record_ring: ring overran\n");
		return 1;
	}
	/* A fresh ring starts at offset 0, so the bytes are contiguous unless
	 * the run filled it; copy through the wrap all the same. */
	data = (unsigned char *)meta + page;
	out = malloc(len ? len : 1);
	if (!out)
		return 1;
	for (size_t i = 0; i < len; i++)
		out[i] = data[(tail + i) & (page * RING_PAGES - 1)];
	if (write_file(argv[1], ".bin", out, len, tid) ||
	    write_file(argv[1], ".txt", out, len, tid))
		return 1;
	printf("record_ring: %zu bytes from thread %d\n", len, tid);
	free(out);
	munmap(meta, page * (1 + RING_PAGES));
	close(fd);
	return 0;
}
