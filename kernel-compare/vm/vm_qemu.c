/* SPDX-License-Identifier: MIT */
/*
 * vm_qemu.c: one boot of a kernel in QEMU with a batch of traces (vm.h).
 *
 * The image is this binary as /init with its libraries, the device nodes
 * the agent writes to, and the job (vm_protocol.h); the VM runs under a
 * time limit that grows with the traces' lines, its console and results
 * going to files in a temporary folder.  QEMU is started with
 * PR_SET_PDEATHSIG, so that a maplab killed any way takes its VM along;
 * on the time limit it is killed and waited for.  Accelerator: KVM where
 * the machine has hardware virtualisation (kvm_intel or kvm_amd loaded
 * and /dev/kvm usable), TCG otherwise (software: behaviour only).
 */
#include "kernel-compare/vm/vm.h"
#include "kernel-compare/vm/vm_initramfs.h"
#include "kernel-compare/vm/vm_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QEMU "qemu-system-x86_64"
#define VM_MEMORY "1024"
/* Boot and power-off take 5 to 30 s under TCG on a loaded 2-core host
 * (5.10 is the slowest); each trace line some microseconds. */
#define VM_BOOT_SECONDS 120
#define VM_LINES_PER_SECOND 2000
#define VM_QEMU_ARGS 32 /* qemu_args writes 26 */

/* --- finding QEMU ------------------------------------------------------------ */

/* QEMU's path on PATH into buf: 0, or -1. */
static int find_qemu(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s", path && *path ? path
			: "/usr/local/bin:/usr/bin:/bin");
	for (char *save, *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/%s", d, QEMU);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

int vm_available(char *why, size_t len)
{
	char qemu[4096];
	if (find_qemu(qemu, sizeof(qemu)) == 0)
		return 0;
	snprintf(why, len, "%s is not installed (apt-get install "
		 "--no-install-recommends qemu-system-x86)", QEMU);
	return -1;
}

/* Hardware KVM: a vendor module loaded and /dev/kvm ours to use (a
 * paravirtual kvm_pvm, as on the lab's VMs, cannot boot these kernels). */
static bool have_kvm(void)
{
	return (access("/sys/module/kvm_intel", F_OK) == 0 ||
		access("/sys/module/kvm_amd", F_OK) == 0) &&
	       access("/dev/kvm", R_OK | W_OK) == 0;
}

/* --- the image ----------------------------------------------------------- */

/* This binary, as the kernel will run it: /proc/self/exe's target. */
static int own_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static int add_job(struct vm_initramfs *ir, const struct vm_run *run,
		   const struct vm_trace *traces, size_t n)
{
	char job_text[256], path[64];
	struct vm_job job = { .cpus = run->cpus, .verbose = run->verbose,
			      .n_traces = n };
	int len = vm_job_format(&job, job_text, sizeof(job_text));
	int rc = len < 0 ? -EOVERFLOW
			 : vm_initramfs_bytes(ir, VM_JOB_FILE, job_text,
					      (size_t)len, 0644);
	char *flags = malloc(n * 12 + 1);
	size_t at = 0;
	for (size_t i = 0; flags && i < n; i++)
		at += (size_t)sprintf(flags + at, "%x\n",
				      (unsigned)traces[i].add_flags);
	if (!rc)
		rc = flags ? vm_initramfs_bytes(ir, VM_JOB_FLAGS, flags, at, 0644)
			   : -ENOMEM;
	free(flags);
	for (size_t i = 0; i < n && !rc; i++) {
		snprintf(path, sizeof(path), VM_JOB_DIR "/trace-%zu", i);
		rc = vm_initramfs_bytes(ir, path, traces[i].text,
					strlen(traces[i].text), 0644);
	}
	return rc;
}

/* The image at path: this binary as /init, the nodes, the job. */
static int build_image(const char *path, const struct vm_run *run,
		       const struct vm_trace *traces, size_t n, char *err,
		       size_t errlen)
{
	struct vm_initramfs *ir;
	char exe[4096];
	if (own_path(exe, sizeof(exe))) {
		snprintf(err, errlen, "cannot find this maplab binary: %s",
			 strerror(errno));
		return -1;
	}
	if (vm_initramfs_open(&ir, path, err, errlen))
		return -1;
	int rc = vm_initramfs_program(ir, "/init", exe, err, errlen);
	const char *dirs[] = { "/proc", "/sys", "/tmp", "/dev" };
	for (size_t i = 0; i < 4 && !rc; i++)
		rc = vm_initramfs_dir(ir, dirs[i]);
	if (!rc)
		rc = vm_initramfs_node(ir, "/dev/console", S_IFCHR | 0600, 5, 1);
	if (!rc)
		rc = vm_initramfs_node(ir, "/dev/null", S_IFCHR | 0666, 1, 3);
	if (!rc)
		rc = vm_initramfs_node(ir, VM_RESULTS_PORT, S_IFCHR | 0600, 4, 65);
	if (!rc)
		rc = add_job(ir, run, traces, n);
	if (rc) {
		if (rc < 0)
			snprintf(err, errlen, "the VM's image %s: %s", path,
				 strerror(-rc));
		vm_initramfs_discard(ir);
		return -1;
	}
	return vm_initramfs_close(ir, err, errlen);
}

/* --- the boot ------------------------------------------------------------ */

struct vm_files {
	char dir[64];         /* the temporary folder */
	char image[96], console[96], results[96], qemu_log[96];
};

static int make_files(struct vm_files *f, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(f->dir, sizeof(f->dir), "%s/maplab-vm-XXXXXX",
		 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(f->dir)) {
		snprintf(err, errlen, "a temporary folder for the VM: %s",
			 strerror(errno));
		return -1;
	}
	snprintf(f->image, sizeof(f->image), "%s/initramfs", f->dir);
	snprintf(f->console, sizeof(f->console), "%s/console", f->dir);
	snprintf(f->results, sizeof(f->results), "%s/results", f->dir);
	snprintf(f->qemu_log, sizeof(f->qemu_log), "%s/qemu.log", f->dir);
	return 0;
}

static void remove_files(const struct vm_files *f)
{
	unlink(f->image);
	unlink(f->console);
	unlink(f->results);
	unlink(f->qemu_log);
	rmdir(f->dir);
}

/* QEMU's command line into argv (strings in store). */
static void qemu_args(const struct vm_run *run, const struct vm_files *f,
		      const char *qemu, char store[][4200], char **argv)
{
	unsigned n = 0;
	bool kvm = have_kvm();
#define ARG(...) (snprintf(store[n], sizeof(store[0]), __VA_ARGS__), \
		  argv[n] = store[n], n++)
	ARG("%s", qemu);
	ARG("-nodefaults");
	ARG("-no-user-config");
	ARG("-accel");
	ARG("%s", kvm ? "kvm" : "tcg");
	ARG("-cpu");
	ARG("%s", kvm ? "host" : "max");
	ARG("-m");
	ARG(VM_MEMORY);
	ARG("-smp");
	ARG("%u", run->cpus);
	ARG("-kernel");
	ARG("%s", run->kernel->path);
	ARG("-initrd");
	ARG("%s", f->image);
	ARG("-append");
	/* earlyprintk: a kernel that cannot even decompress says so there
	 * ("ZSTD-compressed data is corrupt -- System halted") */
	ARG("console=ttyS0 earlyprintk=serial,ttyS0,115200 quiet loglevel=1 "
	    "panic=-1 oops=panic");
	ARG("-display");
	ARG("none");
	ARG("-monitor");
	ARG("none");
	ARG("-serial");
	ARG("file:%s", f->console);
	ARG("-serial");
	ARG("file:%s", f->results);
	ARG("-no-reboot");
#undef ARG
	argv[n] = NULL;
}

/* Start QEMU: its pid, or -1.  It dies with this process. */
static pid_t start_qemu(char **argv, const char *log)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) /* the parent died before the prctl */
		_exit(127);
	int in = open("/dev/null", O_RDONLY);
	int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(out, 2) < 0)
		_exit(127);
	execv(argv[0], argv);
	_exit(127);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether the console says the VM will never finish: a kernel halted (a
 * corrupt image's decompressor) or panicked without rebooting. */
static bool console_says_stuck(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	/* the last bytes are where such a line is */
	if (fseek(f, -(long)sizeof(buf) + 1, SEEK_END) != 0)
		rewind(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	return strstr(buf, "System halted") || strstr(buf, "end Kernel panic");
}

static void kill_and_reap(pid_t pid)
{
	int status;
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Wait for pid until seconds pass: its wait status; -1 when it was
 * killed for taking too long, -2 when its console said it was stuck (it
 * is waited for either way). */
static int wait_limited(pid_t pid, double seconds, const char *console)
{
	double deadline = now_s() + seconds;
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	unsigned ticks = 0;
	int status;
	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			return status;
		if (got < 0 && errno != EINTR)
			return -1;
		if (now_s() > deadline) {
			kill_and_reap(pid);
			return -1;
		}
		if (++ticks % 25 == 0 && console_says_stuck(console)) {
			kill_and_reap(pid);
			return -2;
		}
		nanosleep(&tick, NULL);
	}
}

/* A whole file, malloc'd (*len bytes, NUL after them); NULL if none. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	*len = 0;
	if (!f)
		return NULL;
	FILE *out = open_memstream(&buf, len);
	char chunk[1 << 16];
	size_t n;
	while (out && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, out);
	if (out)
		fclose(out);
	fclose(f);
	return buf;
}

/*
 * The last few lines of a console log, printable and joined by " | ":
 * what a user needs to see why a VM did not answer.  Escape sequences
 * (the firmware's) and carriage returns are dropped.
 */
static void console_tail(const char *path, char *buf, size_t len)
{
	size_t n;
	char *text = slurp(path, &n);
	buf[0] = '\0';
	if (!text || !n) {
		snprintf(buf, len, "(the console is empty)");
		free(text);
		return;
	}
	char *clean = malloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; clean && i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == 0x1b) { /* ESC [ ... letter */
			while (i + 1 < n && !((text[i + 1] >= 'a' && text[i + 1] <= 'z') ||
					      (text[i + 1] >= 'A' && text[i + 1] <= 'Z')))
				i++;
			i++;
			continue;
		}
		if (c == '\n' || (c >= 0x20 && c < 0x7f))
			clean[k++] = (char)c;
	}
	if (clean) {
		clean[k] = '\0';
		const char *lines[4] = { 0 };
		unsigned seen = 0;
		for (char *save, *l = strtok_r(clean, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save))
			if (strspn(l, " ") < strlen(l))
				lines[seen++ % 4] = l;
		for (unsigned i = seen > 4 ? seen - 4 : 0; i < seen; i++) {
			size_t at = strlen(buf);
			snprintf(buf + at, len - at, "%s%s", at ? " | " : "",
				 lines[i % 4]);
		}
	}
	free(clean);
	free(text);
}

/* --- stopping: a VM never outlives its run ------------------------------- */

/* The VM running now and its files: what a SIGINT or SIGTERM must take
 * down before this process dies of it (PR_SET_PDEATHSIG would kill QEMU,
 * but not remove the files). */
static struct {
	volatile pid_t pid;
	const struct vm_files *files;
	struct sigaction old[2];
} running;

static const int stop_signals[2] = { SIGINT, SIGTERM };

static void remove_files(const struct vm_files *f);

static void on_stop(int sig)
{
	if (running.pid > 0)
		kill(running.pid, SIGKILL);
	if (running.files)
		remove_files(running.files);
	for (unsigned i = 0; i < 2; i++)
		sigaction(stop_signals[i], &running.old[i], NULL);
	raise(sig);
}

/* A signal ignored when the run began (nohup, a script's background
 * job) stays ignored, as whoever started us asked. */
static void catch_stops(const struct vm_files *f)
{
	struct sigaction sa = { .sa_handler = on_stop };
	running.files = f;
	for (unsigned i = 0; i < 2; i++) {
		sigaction(stop_signals[i], NULL, &running.old[i]);
		if (running.old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

static void release_stops(void)
{
	for (unsigned i = 0; i < 2; i++)
		sigaction(stop_signals[i], &running.old[i], NULL);
	running.files = NULL;
}

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

/* Boot, wait, and read the results back: 0, or -1 with one line. */
static int boot(struct vm_run *run, const struct vm_files *f,
		struct vm_trace *traces, size_t n, char *err, size_t errlen)
{
	char qemu[4096], store[VM_QEMU_ARGS][4200], *argv[VM_QEMU_ARGS + 1],
	     tail[600], why[256];
	if (find_qemu(qemu, sizeof(qemu)))
		return vm_available(err, errlen);
	qemu_args(run, f, qemu, store, argv);
	double limit = time_limit(traces, n);
	pid_t pid = start_qemu(argv, f->qemu_log);
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", QEMU,
			 strerror(errno));
		return -1;
	}
	running.pid = pid;
	int status = wait_limited(pid, limit, f->console);
	running.pid = 0;
	size_t len, answered;
	char *data = slurp(f->results, &len);
	int rc = vm_results_parse(data, len, run->label, traces, n, &answered,
				  why, sizeof(why));
	free(data);
	if (rc == 0)
		return 0;
	console_tail(f->console, tail, sizeof(tail));
	if (status == -2)
		snprintf(err, errlen, "%s: the kernel stopped (%zu of %zu traces "
			 "answered); its console's last lines: %s", run->label,
			 answered, n, tail);
	else if (status < 0)
		snprintf(err, errlen, "%s: the VM did not finish within %.0f s "
			 "(%zu of %zu traces answered); its console's last "
			 "lines: %s", run->label, limit, answered, n, tail);
	else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		console_tail(f->qemu_log, tail, sizeof(tail));
		snprintf(err, errlen, "%s: %s failed: %s", run->label, QEMU,
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
	/* a path names the file too: "which kernel" is both */
	bool path = strchr(run->kernel->spec, '/') != NULL;
	snprintf(run->label, sizeof(run->label), "kernel %s%s%s (VM, %u cpu%s)",
		 run->kernel->release, path ? " from " : "",
		 path ? run->kernel->spec : "", run->cpus,
		 run->cpus == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		traces[i].rec = (struct replay_recorded){ .label = run->label };
	if (vm_available(err, errlen) || make_files(&f, err, errlen))
		return -1;
	if (!run->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "maplab: booting %s, %s, for %zu trace%s ...\n",
			run->label, have_kvm() ? "KVM" : "TCG", n,
			n == 1 ? "" : "s");
	catch_stops(&f);
	int rc = build_image(f.image, run, traces, n, err, errlen);
	if (!rc)
		rc = boot(run, &f, traces, n, err, errlen);
	release_stops();
	remove_files(&f);
	return rc;
}

void vm_traces_free(struct vm_trace *traces, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)traces[i].rec.text);
		traces[i].rec.text = NULL;
	}
}
