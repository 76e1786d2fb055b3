/* SPDX-License-Identifier: MIT */
/*
 * vm_batch.c: one boot of a kernel for a batch of traces known in advance
 * (vm.h): the image carries every trace, the agent replays them on the
 * kernel's maps and sends the recordings to a file at power-off; the VM
 * runs under a time limit that grows with the traces' lines, and a kernel
 * that panics is booted once more before its panic is the error.
 */
#include "kernel-compare/vm/vm.h"
#include "kernel-compare/vm/vm_protocol.h"
#include "kernel-compare/vm/vm_qemu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Boot and power-off take 5 to 30 s under TCG on a loaded 2-core host
 * (5.10 is the slowest), minutes on a host busy with other VMs; a trace
 * line some tens of microseconds. */
#define VM_BOOT_SECONDS 300
#define VM_LINES_PER_SECOND 2000

static size_t trace_lines(const struct vm_trace *traces, size_t n)
{
	size_t lines = 0;
	for (size_t i = 0; i < n; i++)
		for (const char *p = traces[i].text; (p = strchr(p, '\n')); p++)
			lines++;
	return lines;
}

/* The VM's time limit: boot, then the traces' lines; $MAPLAB_VM_TIMEOUT
 * (seconds) instead where set (a test of a VM that never answers). */
static double time_limit(const struct vm_trace *traces, size_t n)
{
	const char *env = getenv("MAPLAB_VM_TIMEOUT");
	double s = env ? strtod(env, NULL) : 0;
	if (s > 0)
		return s;
	return VM_BOOT_SECONDS +
	       (double)trace_lines(traces, n) / VM_LINES_PER_SECOND;
}

/* A kernel that panicked gets this many boots in all: its traces replay
 * the same in a fresh VM, and a panic under TCG seldom comes twice
 * (vm_console_panicked). */
#define VM_BOOTS_IF_PANICKED 2
#define BOOT_PANICKED (-2)

/* Boot, wait, and read the results back: 0, or -1 with one line
 * (BOOT_PANICKED where the kernel panicked). */
static int boot(struct vm_run *run, const struct vm_files *f,
		struct vm_trace *traces, size_t n, char *err, size_t errlen)
{
	char tail[600], why[256];
	double limit = time_limit(traces, n);
	pid_t pid = vm_qemu_start(run->kernel, run->cpus, f, VM_PORT_FILE, err,
				  errlen);
	if (pid < 0)
		return -1;
	vm_guard_pid(pid);
	int status = vm_qemu_wait(pid, limit, f->console);
	vm_guard_pid(0);
	size_t len, answered;
	char *data = vm_slurp(f->results, &len);
	int rc = vm_results_parse(data, len, run->label, traces, n, &answered,
				  why, sizeof(why));
	free(data);
	if (rc == 0)
		return 0;
	vm_console_tail(f->console, tail, sizeof(tail));
	if (vm_console_panicked(f->console)) {
		snprintf(err, errlen, "%s: the kernel panicked (%zu of %zu "
			 "traces answered); its console's last lines: %s",
			 run->label, answered, n, tail);
		return BOOT_PANICKED;
	}
	if (status == -2)
		snprintf(err, errlen, "%s: the kernel stopped (%zu of %zu traces "
			 "answered); its console's last lines: %s", run->label,
			 answered, n, tail);
	else if (status < 0)
		snprintf(err, errlen, "%s: the VM did not finish within %.0f s "
			 "(%zu of %zu traces answered); its console's last "
			 "lines: %s", run->label, limit, answered, n, tail);
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		vm_console_tail(f->qemu_log, tail, sizeof(tail));
		snprintf(err, errlen, "%s: %s failed: %s", run->label, VM_QEMU,
			 tail);
	} else
		snprintf(err, errlen, "%s: the VM stopped and %s; its "
			 "console's last lines: %s", run->label, why, tail);
	return -1;
}

int vm_replay_kernel_side(struct vm_run *run, struct vm_trace *traces,
			  size_t n, char *err, size_t errlen)
{
	struct vm_files f;
	vm_label(run->kernel, run->cpus, run->label, sizeof(run->label));
	for (size_t i = 0; i < n; i++)
		traces[i].rec = (struct replay_recorded){ .label = run->label };
	struct vm_job job = { .cpus = run->cpus, .verbose = run->verbose,
			      .n_traces = n };
	if (vm_available(err, errlen) || vm_files_make(&f, err, errlen))
		return -1;
	if (!run->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "maplab: booting %s, %s, for %zu trace%s ...\n",
			run->label, vm_accelerator(), n, n == 1 ? "" : "s");
	vm_guard(&f);
	int rc = vm_image_build(&f, &job, traces, n, err, errlen);
	for (unsigned boots = 1; !rc; boots++) {
		rc = boot(run, &f, traces, n, err, errlen);
		if (rc != BOOT_PANICKED || boots == VM_BOOTS_IF_PANICKED)
			break;
		fprintf(stderr, "maplab: %s; booting it once more\n", err);
		vm_traces_free(traces, n); /* what the first boot answered */
		rc = 0;
	}
	vm_unguard();
	vm_files_remove(&f);
	return rc ? -1 : 0;
}

void vm_traces_free(struct vm_trace *traces, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)traces[i].rec.text);
		traces[i].rec.text = NULL;
	}
}
