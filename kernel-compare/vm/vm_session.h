/* SPDX-License-Identifier: MIT */
/*
 * vm_session.h: a virtual machine kept up for a conversation, where a
 * batch of traces cannot be known before the run (vm.h boots one for a
 * batch known in advance).  `maplab sim --policy kernel --kernel K` is
 * one: sim asks the kernel's LRU hash for one point after another, and
 * each point must come back before the next is asked; a boot a point
 * would cost seconds each.
 *
 * The second serial port is a socket here (QEMU's chardev, which waits
 * for us before the VM starts), carrying frames both ways:
 *
 *   "MLVM" kind(u32) raw_len(u32) packed_len(u32), then packed_len bytes:
 *   the payload deflated (zlib), raw_len bytes once inflated
 *
 * The agent (vm_agent.c, a job of mode "session") says VM_FRAME_READY
 * once it can run a request, answers each VM_FRAME_KSIM with one
 * VM_FRAME_KSIM reply, and powers off at VM_FRAME_QUIT.  Both sides are
 * this binary, so a payload carries structs as they are.
 *
 * Every wait has a time limit; a VM that stops answering is killed, and
 * the error says what its console said last.  A kernel that panics while
 * it boots is booted once more (a line on stderr says so); one that
 * panics later is the error, as the points it answered are gone with it.  vm_session_stop always
 * leaves no VM and no temporary folder behind.
 */
#ifndef MAPLAB_VM_SESSION_H
#define MAPLAB_VM_SESSION_H

#include "kernel-compare/vm/vm.h"

#include <stddef.h>
#include <stdint.h>

enum vm_frame_kind {
	VM_FRAME_READY = 1,  /* agent -> host: the session can take requests */
	VM_FRAME_KSIM = 2,   /* a ksim run (vm_sim.c), and its reply */
	VM_FRAME_QUIT = 3,   /* host -> agent: power off */
};

/* The frame header's magic, and the largest payload either side sends. */
#define VM_FRAME_MAGIC 0x4d564c4du /* "MLVM" */
#define VM_FRAME_MAX (512u << 20)

struct vm_session;

/* Boot kernel k with cpus vCPUs, the agent in session mode, and wait for
 * it to say it is ready.  0, or -1 with one line in err (the console's
 * last lines where the VM did not come up). */
int vm_session_start(const struct vm_kernel *k, unsigned cpus, bool quiet,
		     struct vm_session **out, char *err, size_t errlen);

/* "kernel 6.12.118+deb13-cloud-amd64 (VM, 2 cpus)" */
const char *vm_session_label(const struct vm_session *s);

/* One request and its reply: *reply malloc'd (*reply_len bytes).  0, or
 * -1 with one line in err (the VM stopped answering: it is then gone). */
int vm_session_call(struct vm_session *s, uint32_t kind, const void *req,
		    size_t len, void **reply, size_t *reply_len, char *err,
		    size_t errlen);

/* Quit, wait for the VM a little, kill it if need be, remove its folder. */
void vm_session_stop(struct vm_session *s);

/* --- the frames, as both sides read and write them ------------------------ */

/* A frame to fd: 0 or -errno. */
int vm_frame_write(int fd, uint32_t kind, const void *payload, size_t len);

/* A frame from fd, waiting at most timeout_ms (-1: for ever) for it to
 * start; once started it is read whole (its rest within two minutes, or
 * -EIO: cut off).  0 and *payload malloc'd; -ETIMEDOUT (no frame began:
 * call again), -EPIPE (the other side went), -EPROTO (not a frame), -EIO,
 * or another -errno. */
int vm_frame_read(int fd, int timeout_ms, uint32_t *kind, void **payload,
		  size_t *len);

#endif /* MAPLAB_VM_SESSION_H */
