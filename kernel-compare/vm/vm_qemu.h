/* SPDX-License-Identifier: MIT */
/*
 * vm_qemu.h: one QEMU process and what it needs, for the two ways maplab
 * talks to a VM (inside kernel-compare/vm only): a batch known in advance
 * (vm_batch.c: the results come back in a file at power-off) and a
 * session (vm_session.c: requests and replies over a socket).
 *
 *   vm_files      a temporary folder: the image, the console's log,
 *                 QEMU's own log, the results file or socket
 *   vm_image      this binary as /init with its libraries, the device
 *                 nodes the agent uses, and the job (vm_protocol.h)
 *   vm_qemu_*     start QEMU (KVM where the machine has hardware
 *                 virtualisation, TCG otherwise), wait under a time limit,
 *                 kill; a halted kernel is seen on the console at once
 *   vm_guard      until vm_unguard, a SIGINT or SIGTERM kills the VM and
 *                 removes its folder before this process dies of it
 *
 * QEMU runs with PR_SET_PDEATHSIG: a maplab killed any way (SIGKILL
 * included) takes its VM along.
 */
#ifndef MAPLAB_VM_QEMU_H
#define MAPLAB_VM_QEMU_H

#include "kernel-compare/vm/vm.h"
#include "kernel-compare/vm/vm_protocol.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define VM_QEMU "qemu-system-x86_64"

struct vm_files {
	char dir[64];         /* the temporary folder */
	char image[96], console[96], results[96], qemu_log[96];
};

/* The folder, under $TMPDIR (else /tmp): 0, or -1 with one line. */
int vm_files_make(struct vm_files *f, char *err, size_t errlen);
void vm_files_remove(const struct vm_files *f);

/* The image at f->image: 0, or -1 with one line (no file left). */
int vm_image_build(const struct vm_files *f, const struct vm_job *job,
		   const struct vm_trace *traces, size_t n, char *err,
		   size_t errlen);

/* How the agent's port (the second serial port) reaches us. */
enum vm_port {
	VM_PORT_FILE,    /* written to f->results, read at the end */
	VM_PORT_SOCKET,  /* f->results is a socket QEMU listens on, and
			    waits for us on before the VM starts */
};

/* QEMU for k with cpus vCPUs: its pid, or -1 with one line in err. */
pid_t vm_qemu_start(const struct vm_kernel *k, unsigned cpus,
		    const struct vm_files *f, enum vm_port port, char *err,
		    size_t errlen);

/* Wait for pid at most seconds: its wait status; -1, killed for taking
 * too long; -2, killed because its console said it halted (waited for
 * either way). */
int vm_qemu_wait(pid_t pid, double seconds, const char *console);

/* Whether the console says the VM will never finish (halted, panicked). */
bool vm_console_stuck(const char *console);

/* Whether the console says its kernel panicked.  Under TCG a stock
 * kernel panics now and then on its own (seen: 6.12 with 8 vCPUs, "Fatal
 * exception in interrupt" while booting, once in dozens of boots; the
 * same boot then passes), so a caller boots such a VM once more. */
bool vm_console_panicked(const char *console);

void vm_qemu_kill(pid_t pid);

/* The console's last lines, printable, joined by " | ". */
void vm_console_tail(const char *path, char *buf, size_t len);

/* "kernel RELEASE[ from PATH] (VM, N cpus)" into buf; returns buf. */
const char *vm_label(const struct vm_kernel *k, unsigned cpus, char *buf,
		     size_t len);

/* "KVM" or "TCG": what a VM here runs on. */
const char *vm_accelerator(void);

/* The stop signals, while a VM runs (pid 0: not started yet). */
void vm_guard(const struct vm_files *f);
void vm_guard_pid(pid_t pid);
void vm_unguard(void);

/* A whole file, malloc'd (*len bytes, NUL after them); NULL if none. */
char *vm_slurp(const char *path, size_t *len);

#endif /* MAPLAB_VM_QEMU_H */
