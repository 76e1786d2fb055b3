/* SPDX-License-Identifier: MIT */
/*
 * vm_qemu.c: one QEMU process, its image, its folder and its time limit
 * (vm_qemu.h).
 */
#include "kernel-compare/vm/vm_qemu.h"
#include "kernel-compare/vm/vm_initramfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VM_MEMORY "1024"
#define VM_QEMU_ARGS 32 /* qemu_args writes 28 at most */

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
		snprintf(buf, len, "%s/%s", d, VM_QEMU);
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
		 "--no-install-recommends qemu-system-x86)", VM_QEMU);
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

const char *vm_accelerator(void)
{
	return have_kvm() ? "KVM" : "TCG";
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

static int add_job(struct vm_initramfs *ir, const struct vm_job *job,
		   const struct vm_trace *traces, size_t n)
{
	char job_text[256], path[64];
	int len = vm_job_format(job, job_text, sizeof(job_text));
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

int vm_image_build(const struct vm_files *f, const struct vm_job *job,
		   const struct vm_trace *traces, size_t n, char *err,
		   size_t errlen)
{
	const char *path = f->image;
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
		rc = add_job(ir, job, traces, n);
	if (rc) {
		if (rc < 0)
			snprintf(err, errlen, "the VM's image %s: %s", path,
				 strerror(-rc));
		vm_initramfs_discard(ir);
		return -1;
	}
	return vm_initramfs_close(ir, err, errlen);
}

/* --- the folder ------------------------------------------------------------ */

int vm_files_make(struct vm_files *f, char *err, size_t errlen)
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

void vm_files_remove(const struct vm_files *f)
{
	unlink(f->image);
	unlink(f->console);
	unlink(f->results);
	unlink(f->qemu_log);
	rmdir(f->dir);
}

/* --- the process --------------------------------------------------------- */

/* QEMU's command line into argv (strings in store). */
static void qemu_args(const struct vm_kernel *k, unsigned cpus,
		      const struct vm_files *f, enum vm_port port,
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
	ARG("%u", cpus);
	ARG("-kernel");
	ARG("%s", k->path);
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
	if (port == VM_PORT_SOCKET) {
		ARG("-chardev");
		ARG("socket,id=port,path=%s,server=on,wait=on", f->results);
		ARG("-serial");
		ARG("chardev:port");
	} else {
		ARG("-serial");
		ARG("file:%s", f->results);
	}
	ARG("-no-reboot");
#undef ARG
	argv[n] = NULL;
}

/* Start QEMU: its pid, or -1.  It dies with this process. */
static pid_t fork_qemu(char **argv, const char *log)
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

pid_t vm_qemu_start(const struct vm_kernel *k, unsigned cpus,
		    const struct vm_files *f, enum vm_port port, char *err,
		    size_t errlen)
{
	char qemu[4096], store[VM_QEMU_ARGS][4200], *argv[VM_QEMU_ARGS + 1];
	if (find_qemu(qemu, sizeof(qemu))) {
		vm_available(err, errlen);
		return -1;
	}
	qemu_args(k, cpus, f, port, qemu, store, argv);
	pid_t pid = fork_qemu(argv, f->qemu_log);
	if (pid < 0)
		snprintf(err, errlen, "cannot start %s: %s", VM_QEMU,
			 strerror(errno));
	return pid;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether the console says the VM will never finish: a kernel halted (a
 * corrupt image's decompressor) or panicked without rebooting. */
bool vm_console_stuck(const char *path)
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

/* Whether the console says its kernel panicked anywhere in it: with
 * panic=-1 and -no-reboot QEMU then exits, so the panic's lines need not
 * be the last. */
bool vm_console_panicked(const char *path)
{
	size_t n;
	char *text = vm_slurp(path, &n);
	bool panicked = text && memmem(text, n, "Kernel panic", 12) != NULL;
	free(text);
	return panicked;
}

void vm_qemu_kill(pid_t pid)
{
	int status;
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Wait for pid until seconds pass: its wait status; -1 when it was
 * killed for taking too long, -2 when its console said it was stuck (it
 * is waited for either way). */
int vm_qemu_wait(pid_t pid, double seconds, const char *console)
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
			vm_qemu_kill(pid);
			return -1;
		}
		if (++ticks % 25 == 0 && vm_console_stuck(console)) {
			vm_qemu_kill(pid);
			return -2;
		}
		nanosleep(&tick, NULL);
	}
}

/* A whole file, malloc'd (*len bytes, NUL after them); NULL if none. */
char *vm_slurp(const char *path, size_t *len)
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
void vm_console_tail(const char *path, char *buf, size_t len)
{
	size_t n;
	char *text = vm_slurp(path, &n);
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

const char *vm_label(const struct vm_kernel *k, unsigned cpus, char *buf,
		     size_t len)
{
	/* a path names the file too: "which kernel" is both */
	bool path = strchr(k->spec, '/') != NULL;
	snprintf(buf, len, "kernel %s%s%s (VM, %u cpu%s)", k->release,
		 path ? " from " : "", path ? k->spec : "", cpus,
		 cpus == 1 ? "" : "s");
	return buf;
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

static void on_stop(int sig)
{
	if (running.pid > 0)
		kill(running.pid, SIGKILL);
	if (running.files)
		vm_files_remove(running.files);
	for (unsigned i = 0; i < 2; i++)
		sigaction(stop_signals[i], &running.old[i], NULL);
	raise(sig);
}

/* A signal ignored when the run began (nohup, a script's background
 * job) stays ignored, as whoever started us asked. */
void vm_guard(const struct vm_files *f)
{
	struct sigaction sa = { .sa_handler = on_stop };
	running.files = f;
	for (unsigned i = 0; i < 2; i++) {
		sigaction(stop_signals[i], NULL, &running.old[i]);
		if (running.old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
}

void vm_guard_pid(pid_t pid)
{
	running.pid = pid;
}

void vm_unguard(void)
{
	running.pid = 0;
	for (unsigned i = 0; i < 2; i++)
		sigaction(stop_signals[i], &running.old[i], NULL);
	running.files = NULL;
}
