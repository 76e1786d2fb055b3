/* SPDX-License-Identifier: MIT */
/*
 * vm_session.c: a VM kept up for requests and replies (vm_session.h).
 */
#include "kernel-compare/vm/vm_session.h"
#include "kernel-compare/vm/vm_qemu.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* A boot takes 5 to 30 s under TCG, minutes on a host busy with other
 * VMs; a request, what its work takes. */
#define SESSION_BOOT_SECONDS 300
#define SESSION_CALL_SECONDS 600
#define SESSION_QUIT_SECONDS 10

struct vm_session {
	struct vm_files files;
	pid_t pid;
	int fd;              /* the agent's port */
	char label[4400];
};

/* --- frames ------------------------------------------------------------------ */

struct frame_head {
	uint32_t magic, kind, raw_len, packed_len;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int vm_frame_write(int fd, uint32_t kind, const void *payload, size_t len)
{
	if (len > VM_FRAME_MAX)
		return -E2BIG;
	uLongf packed_len = compressBound((uLong)len);
	unsigned char *packed = malloc(packed_len ? packed_len : 1);
	if (!packed)
		return -ENOMEM;
	if (compress2(packed, &packed_len, payload, (uLong)len, 1) != Z_OK) {
		free(packed);
		return -EIO;
	}
	struct frame_head h = { VM_FRAME_MAGIC, kind, (uint32_t)len,
				(uint32_t)packed_len };
	int rc = write_all(fd, &h, sizeof(h));
	if (!rc)
		rc = write_all(fd, packed, packed_len);
	free(packed);
	return rc;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* len bytes from fd by the deadline (< 0: none): 0 or -errno. */
static int read_all(int fd, void *buf, size_t len, double deadline)
{
	char *p = buf;
	while (len) {
		if (deadline >= 0) {
			double left = deadline - now_s();
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			if (left <= 0)
				return -ETIMEDOUT;
			int r = poll(&pfd, 1, (int)(left * 1000) + 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return -errno;
			if (r == 0)
				return -ETIMEDOUT;
		}
		ssize_t n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The rest of a frame once its first byte has come: a frame is never left
 * half read, or the next read would start inside it.  A VM under TCG on a
 * busy host sends a frame's bytes in bursts seconds apart; a frame whose
 * rest takes longer than this, its VM is taken as hung.
 */
#define FRAME_REST_SECONDS 120

int vm_frame_read(int fd, int timeout_ms, uint32_t *kind, void **payload,
		  size_t *len)
{
	double deadline = timeout_ms < 0 ? -1 : now_s() + timeout_ms / 1000.0;
	struct frame_head h;
	/* timeout_ms bounds the wait for a frame to start, not its length. */
	int rc = read_all(fd, &h, 1, deadline);
	if (rc)
		return rc;
	if (deadline >= 0)
		deadline = now_s() + FRAME_REST_SECONDS;
	rc = read_all(fd, (char *)&h + 1, sizeof(h) - 1, deadline);
	if (rc)
		return rc == -ETIMEDOUT ? -EIO : rc;
	if (h.magic != VM_FRAME_MAGIC || h.raw_len > VM_FRAME_MAX ||
	    h.packed_len > compressBound(VM_FRAME_MAX))
		return -EPROTO;
	unsigned char *packed = malloc(h.packed_len ? h.packed_len : 1);
	unsigned char *raw = malloc(h.raw_len ? h.raw_len : 1);
	if (!packed || !raw) {
		free(packed);
		free(raw);
		return -ENOMEM;
	}
	rc = read_all(fd, packed, h.packed_len, deadline);
	if (rc == -ETIMEDOUT)
		rc = -EIO; /* cut off: not a frame that may still start */
	uLongf raw_len = h.raw_len;
	if (!rc && (uncompress(raw, &raw_len, packed, h.packed_len) != Z_OK ||
		    raw_len != h.raw_len))
		rc = -EPROTO;
	free(packed);
	if (rc) {
		free(raw);
		return rc;
	}
	*kind = h.kind;
	*payload = raw;
	*len = h.raw_len;
	return 0;
}

/* --- the session --------------------------------------------------------------- */

/* What went wrong, with what the console said last: -1. */
static int failed(struct vm_session *s, const char *what, char *err,
		  size_t errlen)
{
	char tail[600];
	vm_console_tail(s->files.console, tail, sizeof(tail));
	snprintf(err, errlen, "%s: %s; its console's last lines: %s", s->label,
		 what, tail);
	return -1;
}

/* Whether QEMU has gone (reaped then) or its kernel halted. */
static bool vm_gone(struct vm_session *s)
{
	int status;
	if (s->pid > 0 && waitpid(s->pid, &status, WNOHANG) == s->pid) {
		s->pid = 0;
		return true;
	}
	return vm_console_stuck(s->files.console);
}

/* The next frame within seconds, the VM watched every half second: 0, or
 * -1 with one line in err (the VM killed then). */
static int await_frame(struct vm_session *s, double seconds, uint32_t *kind,
		       void **payload, size_t *len, char *err, size_t errlen)
{
	double deadline = now_s() + seconds;
	for (;;) {
		int rc = vm_frame_read(s->fd, 500, kind, payload, len);
		if (rc == 0)
			return 0;
		if (rc != -ETIMEDOUT || vm_gone(s) || now_s() > deadline) {
			bool late = rc == -ETIMEDOUT && now_s() > deadline;
			char what[128];
			if (late)
				snprintf(what, sizeof(what), "the VM did not "
					 "answer within %.0f s", seconds);
			else
				snprintf(what, sizeof(what), "the VM stopped "
					 "answering (%s)", rc == -ETIMEDOUT
					 ? "it halted or exited" : strerror(-rc));
			failed(s, what, err, errlen);
			if (s->pid > 0)
				vm_qemu_kill(s->pid);
			s->pid = 0;
			return -1;
		}
	}
}

/* Connect to QEMU's socket, which it makes as it starts: 0 or -1. */
static int connect_port(struct vm_session *s, char *err, size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", s->files.results);
	for (double until = now_s() + 30; now_s() < until;) {
		s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s->fd >= 0 &&
		    connect(s->fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return 0;
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		if (vm_gone(s)) {
			char tail[600];
			vm_console_tail(s->files.qemu_log, tail, sizeof(tail));
			snprintf(err, errlen, "%s: %s failed: %s", s->label,
				 VM_QEMU, tail);
			return -1;
		}
		struct timespec tick = { 0, 20 * 1000 * 1000 };
		nanosleep(&tick, NULL);
	}
	return failed(s, "QEMU did not open its port", err, errlen);
}

/* Let the VM go (QEMU killed, the port closed), its files kept. */
static void drop_vm(struct vm_session *s)
{
	if (s->pid > 0)
		vm_qemu_kill(s->pid);
	s->pid = 0;
	vm_guard_pid(0);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

#define BOOT_PANICKED (-2)

/* Start QEMU on the session's image and wait for the agent's hello: 0, or
 * -1 with one line in err (BOOT_PANICKED where the kernel panicked); the
 * VM dropped then. */
static int boot(struct vm_session *s, const struct vm_kernel *k,
		unsigned cpus, char *err, size_t errlen)
{
	uint32_t kind;
	void *hello = NULL;
	size_t len;
	s->pid = vm_qemu_start(k, cpus, &s->files, VM_PORT_SOCKET, err, errlen);
	if (s->pid < 0) {
		s->pid = 0;
		return -1;
	}
	vm_guard_pid(s->pid);
	int rc = connect_port(s, err, errlen) ||
		 await_frame(s, SESSION_BOOT_SECONDS, &kind, &hello, &len, err,
			     errlen) ? -1 : 0;
	free(hello);
	if (!rc && kind != VM_FRAME_READY)
		rc = failed(s, "the agent did not say it was ready", err, errlen);
	if (rc)
		drop_vm(s);
	if (rc && vm_console_panicked(s->files.console)) {
		failed(s, "the kernel panicked while it booted", err, errlen);
		rc = BOOT_PANICKED;
	}
	return rc;
}

/* A kernel that panics while it boots gets this many boots in all
 * (vm_console_panicked). */
#define SESSION_BOOTS_IF_PANICKED 2

int vm_session_start(const struct vm_kernel *k, unsigned cpus, bool quiet,
		     struct vm_session **out, char *err, size_t errlen)
{
	struct vm_session *s = calloc(1, sizeof(*s));
	struct vm_job job = { .cpus = cpus, .session = true };
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->fd = -1;
	vm_label(k, cpus, s->label, sizeof(s->label));
	if (vm_available(err, errlen) || vm_files_make(&s->files, err, errlen)) {
		free(s);
		return -1;
	}
	if (!quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "maplab: booting %s, %s ...\n", s->label,
			vm_accelerator());
	vm_guard(&s->files);
	int rc = vm_image_build(&s->files, &job, NULL, 0, err, errlen);
	for (unsigned boots = 1; !rc; boots++) {
		rc = boot(s, k, cpus, err, errlen);
		if (rc != BOOT_PANICKED || boots == SESSION_BOOTS_IF_PANICKED)
			break;
		fprintf(stderr, "maplab: %s; booting it once more\n", err);
		rc = 0;
	}
	if (rc) {
		vm_session_stop(s);
		return -1;
	}
	*out = s;
	return 0;
}

const char *vm_session_label(const struct vm_session *s)
{
	return s->label;
}

int vm_session_call(struct vm_session *s, uint32_t kind, const void *req,
		    size_t len, void **reply, size_t *reply_len, char *err,
		    size_t errlen)
{
	uint32_t got;
	if (s->pid <= 0)
		return failed(s, "the VM is gone", err, errlen);
	int rc = vm_frame_write(s->fd, kind, req, len);
	if (rc) {
		char what[128];
		snprintf(what, sizeof(what), "the request could not be sent (%s)",
			 strerror(-rc));
		return failed(s, what, err, errlen);
	}
	if (await_frame(s, SESSION_CALL_SECONDS, &got, reply, reply_len, err,
			errlen))
		return -1;
	if (got != kind) {
		free(*reply);
		return failed(s, "the agent answered another request", err,
			      errlen);
	}
	return 0;
}

void vm_session_stop(struct vm_session *s)
{
	if (!s)
		return;
	if (s->fd >= 0 && s->pid > 0 &&
	    vm_frame_write(s->fd, VM_FRAME_QUIT, "", 0) == 0) {
		int status;
		double until = now_s() + SESSION_QUIT_SECONDS;
		while (now_s() < until &&
		       waitpid(s->pid, &status, WNOHANG) != s->pid) {
			struct timespec tick = { 0, 20 * 1000 * 1000 };
			nanosleep(&tick, NULL);
		}
		if (now_s() >= until)
			vm_qemu_kill(s->pid);
		s->pid = 0;
	}
	if (s->pid > 0)
		vm_qemu_kill(s->pid);
	if (s->fd >= 0)
		close(s->fd);
	vm_unguard();
	vm_files_remove(&s->files);
	free(s);
}
