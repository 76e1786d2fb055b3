/* SPDX-License-Identifier: MIT */
/*
 * vm_protocol.h: what the host and the VM's agent say to each other
 * (vm.h draws the whole).
 *
 * The job, host to VM, is files in the initramfs:
 *
 *   /job/job         "maplab-vm-job 1\n", then "cpus N\n", "verbose 0|1\n",
 *                    "traces N\n", "session 0|1\n" (1: no traces; requests
 *                    come over the port: vm_session.h)
 *   /job/flags       N lines: trace I's creation flags added to its map
 *                    lines (hex)
 *   /job/trace-I     trace I, as text (format v1), I from 0
 *
 * The results, VM to host, go out on the second serial port, deflated
 * (zlib: a serial port moves some 300 KB a second under TCG, and result
 * lines shrink tenfold), as one stream of frames:
 *
 *   "maplab-vm-results 1\n"
 *   per trace, in order:  "trace I STOP LINE MAP_ERR TEXT_LEN WHY_LEN\n",
 *                         then TEXT_LEN bytes of result lines and
 *                         WHY_LEN bytes of the stop's message
 *   "end N\n"            N traces, the stream complete
 *
 * A stream cut short (a VM that crashed, or ran out of time) still gives
 * back every whole frame before the cut: the host says how many traces
 * were answered, and which one was not.
 */
#ifndef MAPLAB_VM_PROTOCOL_H
#define MAPLAB_VM_PROTOCOL_H

#include "harness/trace/replay.h"
#include "kernel-compare/vm/vm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VM_JOB_DIR "/job"
#define VM_JOB_FILE "/job/job"
#define VM_RESULTS_PORT "/dev/ttyS1"

#define VM_JOB_FLAGS "/job/flags"

struct vm_job {
	unsigned cpus;
	bool verbose;
	size_t n_traces;
	bool session;
};

/* The job file's text into buf (NUL-terminated): its length, or -1 if
 * it does not fit. */
int vm_job_format(const struct vm_job *job, char *buf, size_t len);

/* The job file's text back: 0, or -1 with why in err. */
int vm_job_parse(const char *text, struct vm_job *job, char *err,
		 size_t errlen);

/* The results stream, as the agent writes it to a file descriptor. */
struct vm_results_writer;

int vm_results_open(struct vm_results_writer **w, int fd);
/* Trace i's recording: its result lines and its end.  0 or -errno. */
int vm_results_put(struct vm_results_writer *w, size_t i, const char *text,
		   size_t len, const struct replay_end *end);
/* "end N", the stream finished and flushed: 0 or -errno. */
int vm_results_close(struct vm_results_writer *w, size_t n);

/*
 * The stream as the host received it (deflated, len bytes): each whole
 * frame into traces[i].rec (text malloc'd, label `label`).  *answered:
 * how many traces came back, in order from 0.  0 when every one did and
 * the stream ended; -1 with one line in err otherwise (a stream cut
 * short, or not maplab's).
 */
int vm_results_parse(const void *data, size_t len, const char *label,
		     struct vm_trace *traces, size_t n, size_t *answered,
		     char *err, size_t errlen);

#endif /* MAPLAB_VM_PROTOCOL_H */
