/* SPDX-License-Identifier: MIT */
/*
 * vm_agent.c: maplab as a VM's init (vm.h).  The kernel runs /init, which
 * is this binary; it finds the job vm_qemu.c left in the initramfs,
 * replays each trace on the kernel's own maps exactly as `maplab replay
 * --map kernel` does on this machine (kmap: bpf(2) for the syscall ops, a
 * BPF program run by BPF_PROG_TEST_RUN for plookup, the thread pinned to
 * each line's cpu), sends each recording out on the second serial port,
 * and powers the VM off.  Nothing here runs outside such a VM: as pid 1
 * of a container, without the job, it returns at once.
 */
#include "kernel-compare/kmap.h"
#include "kernel-compare/ksim.h"
#include "kernel-compare/vm/vm.h"
#include "kernel-compare/vm/vm_protocol.h"
#include "kernel-compare/vm/vm_qemu.h"
#include "kernel-compare/vm/vm_session.h"
#include "kernel-compare/vm/vm_sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <termios.h>
#include <unistd.h>

/* A whole file, NUL-terminated, malloc'd; NULL where it cannot be read. */
static char *read_file(const char *path)
{
	size_t len;
	return vm_slurp(path, &len);
}

/* What an init does before anything else: the file systems libbpf and
 * maplab read (/proc, /sys: the possible cpus), and no memlock limit
 * (5.10 charges a map's memory to RLIMIT_MEMLOCK; 5.11 on, to the cgroup). */
static void set_up_machine(void)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
}

/* The results port, raw: no line discipline between us and the host. */
static int open_port(int mode)
{
	int fd = open(VM_RESULTS_PORT, mode | O_NOCTTY);
	struct termios t;
	if (fd >= 0 && tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* Trace i of the job, replayed on the kernel's maps, into the stream. */
static int replay_one(struct vm_results_writer *w, size_t i,
		      const struct replay_side *side)
{
	char path[64], name[32], *out = NULL;
	size_t len = 0;
	struct replay_end end = { .stop = REPLAY_DONE };
	struct trace t;

	snprintf(path, sizeof(path), VM_JOB_DIR "/trace-%zu", i);
	snprintf(name, sizeof(name), "trace %zu", i);
	char *text = read_file(path);
	FILE *f = open_memstream(&out, &len);
	if (!text || !f) {
		end.stop = REPLAY_FAILED;
		snprintf(end.why, sizeof(end.why), "%s: %s", path,
			 strerror(errno));
	} else if (trace_parse_string(text, name, &t, end.why,
				      sizeof(end.why))) {
		end.stop = REPLAY_FAILED;
	} else {
		replay_record(&t, name, side, f, &end);
		trace_free(&t);
	}
	if (f)
		fclose(f);
	int rc = vm_results_put(w, i, out ? out : "", out ? len : 0, &end);
	free(out);
	free(text);
	return rc;
}

/* A sim request: ksim's run on this VM's kernel, its reply sent back. */
static int answer_ksim(int port, const void *req, size_t len)
{
	struct ksim_config c;
	struct ksim_stream *streams = NULL;
	struct ksim_result r = { 0 };
	unsigned n = 0;
	char err[512] = "";
	void *reply;
	size_t reply_len;
	int rc = vm_sim_decode_request(req, len, &c, &streams, &n);
	if (rc)
		snprintf(err, sizeof(err), "the request is garbled");
	else if (!(r.streams = calloc(n, sizeof(*r.streams))))
		rc = -ENOMEM;
	if (!rc)
		rc = ksim_run(&c, streams, n, &r, err, sizeof(err));
	int wrc = vm_sim_encode_reply(streams, n, &r, rc, err, &reply, &reply_len);
	if (!wrc) {
		wrc = vm_frame_write(port, VM_FRAME_KSIM, reply, reply_len);
		free(reply);
	}
	free(r.streams);
	vm_sim_free_request(streams, n);
	return wrc;
}

/* A session: requests and replies until the host says quit. */
static int run_session(void)
{
	int port = open_port(O_RDWR);
	if (port < 0 || vm_frame_write(port, VM_FRAME_READY, "", 0)) {
		fprintf(stderr, "maplab-vm: %s: %s\n", VM_RESULTS_PORT,
			strerror(errno));
		return -1;
	}
	for (;;) {
		uint32_t kind;
		void *req;
		size_t len;
		int rc = vm_frame_read(port, -1, &kind, &req, &len);
		if (rc) {
			fprintf(stderr, "maplab-vm: the session's port: %s\n",
				strerror(-rc));
			return -1;
		}
		if (kind == VM_FRAME_KSIM)
			rc = answer_ksim(port, req, len);
		free(req);
		if (kind == VM_FRAME_QUIT || rc)
			return rc ? -1 : 0;
	}
}

/* The job, run: 0, or -1 with why on the console. */
static int run_job(void)
{
	char err[256], why[256];
	struct vm_job job;
	struct vm_results_writer *w;
	char *text = read_file(VM_JOB_FILE);
	if (!text || vm_job_parse(text, &job, err, sizeof(err))) {
		fprintf(stderr, "maplab-vm: %s\n", text ? err : "no job");
		free(text);
		return -1;
	}
	free(text);
	if (job.session)
		return run_session();
	int port = open_port(O_WRONLY);
	if (port < 0 || vm_results_open(&w, port)) {
		fprintf(stderr, "maplab-vm: %s: %s\n", VM_RESULTS_PORT,
			strerror(errno));
		return -1;
	}
	if (kmap_available(why, sizeof(why)))
		fprintf(stderr, "maplab-vm: no BPF here: %s\n", why);
	kmap_set_verbose(job.verbose);
	struct replay_side side = replay_fixed_side("kernel", &kmap_ops,
						    kmap_prog_lookup);
	char *flags = read_file(VM_JOB_FLAGS), *next = flags;
	int rc = 0;
	for (size_t i = 0; i < job.n_traces && !rc; i++) {
		side.add_flags = next ? (uint32_t)strtoul(next, &next, 16) : 0;
		rc = replay_one(w, i, &side);
	}
	free(flags);
	if (!rc)
		rc = vm_results_close(w, job.n_traces);
	tcdrain(port);
	close(port);
	return rc ? -1 : 0;
}

int vm_agent_main(void)
{
	if (getpid() != 1 || access(VM_JOB_FILE, R_OK) != 0)
		return -1;
	set_up_machine();
	if (run_job())
		fprintf(stderr, "maplab-vm: the job stopped\n");
	fflush(NULL);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause(); /* pid 1 may not exit: the kernel would panic */
}
