/* SPDX-License-Identifier: MIT */
/*
 * sampler.c: one perf_event_open(2) cpu-clock event per sampled thread,
 * each with its own mmapped ring, drained by the owner (sampler.h).
 *
 * The ring is one metadata page (struct perf_event_mmap_page) and a power
 * of two of data pages.  The kernel writes records at data_head and never
 * past data_tail; we are the only reader and the only writer of data_tail.
 * Draining is the usual perf protocol:
 *
 *   head = load_acquire(data_head)     pairs with the kernel's store of
 *                                      data_head after the record bytes
 *   copy [tail, head) out, unwrapped   a record may straddle the end
 *   store_release(data_tail, head)     pairs with the kernel's read of
 *                                      data_tail before it overwrites
 *
 * Invariants: every event in a live prof_sampler is open, mapped and owned
 * by it; `scratch` is as large as one ring's data area, so a whole ring
 * always fits when copied out.
 */
#include "harness/profile/sampler.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Data bytes per ring: ~2 s of deep chains at 1 kHz between drains. */
#define RING_DATA_BYTES (2u << 20)

struct prof_event {
	int fd;
	pid_t tid;
	struct perf_event_mmap_page *meta;  /* the mapping starts here */
	size_t map_len;
};

struct prof_sampler {
	unsigned n;
	size_t data_len;          /* bytes of data in each ring, a power of 2 */
	unsigned char *scratch;   /* data_len bytes: one ring copied out */
	struct prof_event ev[];
};

static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* The attributes every event gets; hz is checked by the caller. */
static void fill_attr(struct perf_event_attr *a, unsigned hz)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 1000000000ull / hz;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a->sample_max_stack = PROF_MAX_FRAMES;
	a->disabled = 1;
	/* An inherited per-task event cannot be mmapped: one event per tid. */
	a->inherit = 0;
	a->exclude_kernel = 0;
	a->exclude_hv = 1;
}

static int perf_open(struct perf_event_attr *a, pid_t tid)
{
	return (int)syscall(SYS_perf_event_open, a, tid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* kernel.perf_event_paranoid, or -100 where it cannot be read. */
static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -100;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -100;
		fclose(f);
	}
	return v;
}

/* The reason for a failed open that only permissions explain. */
static void say_permission(char *why, size_t whylen)
{
	int level = read_paranoid();

	if (level == -100)
		say(why, whylen, "sampling kernel call chains needs root or "
		    "CAP_PERFMON (kernel.perf_event_paranoid unreadable)");
	else
		say(why, whylen, "sampling kernel call chains needs root or "
		    "CAP_PERFMON (kernel.perf_event_paranoid is %d)", level);
}

int prof_sampler_check(char *why, size_t whylen)
{
	struct perf_event_attr a;
	int fd, err;

	fill_attr(&a, PROF_DEFAULT_HZ);
	fd = perf_open(&a, (pid_t)syscall(SYS_gettid));
	if (fd >= 0) {
		close(fd);
		say(why, whylen, "ok");
		return 0;
	}
	err = errno;
	if (err == EACCES || err == EPERM) {
		say_permission(why, whylen);
		return -err;
	}
	if (err == ENOENT || err == ENOSYS) {
		say(why, whylen, "this kernel has no perf_event_open or no "
		    "software cpu-clock event (%s)", strerror(err));
		return -ENOENT;
	}
	say(why, whylen, "perf_event_open for a cpu-clock sampler failed: %s",
	    strerror(err));
	return -err;
}

/* Undo the events [0, n) in reverse order, then the sampler itself. */
static void release(struct prof_sampler *p, unsigned n)
{
	while (n-- > 0) {
		munmap(p->ev[n].meta, p->ev[n].map_len);
		close(p->ev[n].fd);
	}
	free(p->scratch);
	free(p);
}

/* Open and map the (disabled) event of one thread into ev. */
static int open_event(struct prof_event *ev, pid_t tid, unsigned hz,
		      size_t data_len, char *err, size_t errlen)
{
	struct perf_event_attr a;
	long page = sysconf(_SC_PAGESIZE);
	void *m;
	int e;

	fill_attr(&a, hz);
	ev->tid = tid;
	ev->fd = perf_open(&a, tid);
	if (ev->fd < 0) {
		e = errno;
		if (e == EACCES || e == EPERM) {
			char why[160];

			say_permission(why, sizeof(why));
			say(err, errlen, "thread %d: %s", (int)tid, why);
		} else {
			say(err, errlen, "perf_event_open on thread %d: %s",
			    (int)tid, strerror(e));
		}
		return -e;
	}
	ev->map_len = (size_t)page + data_len;
	m = mmap(NULL, ev->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ev->fd, 0);
	if (m == MAP_FAILED) {
		e = errno;
		say(err, errlen, "mmap of the sample ring of thread %d (%zu KiB): %s",
		    (int)tid, ev->map_len >> 10, strerror(e));
		close(ev->fd);
		return -e;
	}
	ev->meta = m;
	return 0;
}

int prof_sampler_start(struct prof_sampler **out, const pid_t *tids,
		       unsigned n, unsigned hz, char *err, size_t errlen)
{
	struct prof_sampler *p;
	long page = sysconf(_SC_PAGESIZE);
	size_t data_len = (size_t)page;
	unsigned i;
	int e;

	*out = NULL;
	if (hz == 0 || hz > 1000000000u) {
		say(err, errlen, "sampling rate %u Hz is not in 1..1e9", hz);
		return -EINVAL;
	}
	/* The kernel wants 2^k data pages. */
	while (data_len < RING_DATA_BYTES)
		data_len *= 2;
	p = calloc(1, sizeof(*p) + (size_t)n * sizeof(p->ev[0]));
	if (!p || !(p->scratch = malloc(data_len))) {
		free(p);
		say(err, errlen, "out of memory for a sampler of %u threads", n);
		return -ENOMEM;
	}
	p->data_len = data_len;
	for (i = 0; i < n; i++) {
		e = open_event(&p->ev[i], tids[i], hz, data_len, err, errlen);
		if (e)
			goto fail;
	}
	/* Enable only once all are open, so that the threads' samples start
	 * together and a failure above leaves nothing sampled. */
	for (i = 0; i < n; i++) {
		if (ioctl(p->ev[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			e = -errno;
			say(err, errlen, "enabling the sampler of thread %d: %s",
			    (int)p->ev[i].tid, strerror(-e));
			i = n;
			goto fail;
		}
	}
	p->n = n;
	*out = p;
	return 0;
fail:
	release(p, i);
	return e;
}

/* Copy ring bytes [tail, head) out of the data area into dst, unwrapped. */
static void copy_out(unsigned char *dst, const unsigned char *data,
		     size_t data_len, uint64_t tail, uint64_t head)
{
	size_t len = (size_t)(head - tail);
	size_t at = (size_t)(tail & (data_len - 1));
	size_t first = len < data_len - at ? len : data_len - at;

	memcpy(dst, data + at, first);
	memcpy(dst + first, data, len - first);
}

/* Move the records of one ring into set.  The tail is advanced even where
 * parsing fails: a malformed ring would fail the same way next time. */
static int drain_one(struct prof_sampler *p, struct prof_event *ev,
		     struct prof_sample_set *set)
{
	struct perf_event_mmap_page *meta = ev->meta;
	const unsigned char *data = (const unsigned char *)meta +
				    (meta->data_offset ? meta->data_offset
						       : (size_t)sysconf(_SC_PAGESIZE));
	uint64_t head, tail;
	int err;

	/* Pairs with the kernel's release of data_head after the records. */
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	/* Only we write data_tail. */
	tail = meta->data_tail;
	if (head == tail)
		return 0;
	if (head - tail > p->data_len)
		err = -EINVAL;  /* the kernel never runs past the tail */
	else {
		copy_out(p->scratch, data, p->data_len, tail, head);
		err = prof_ring_parse(p->scratch, (size_t)(head - tail), set);
	}
	/* Pairs with the kernel's read of data_tail: our reads of the
	 * records above are done before it may overwrite them. */
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	return err;
}

int prof_sampler_drain(struct prof_sampler *p, struct prof_sample_set *set)
{
	int first_err = 0;

	for (unsigned i = 0; i < p->n; i++) {
		int err = drain_one(p, &p->ev[i], set);

		if (err && !first_err)
			first_err = err;
	}
	return first_err;
}

int prof_sampler_stop(struct prof_sampler *p, struct prof_sample_set *set)
{
	for (unsigned i = 0; i < p->n; i++)
		ioctl(p->ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	return prof_sampler_drain(p, set);
}

void prof_sampler_free(struct prof_sampler *p)
{
	if (p)
		release(p, p->n);
}
