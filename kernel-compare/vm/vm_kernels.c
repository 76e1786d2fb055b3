/* SPDX-License-Identifier: MIT */
/*
 * vm_kernels.c: which kernel a VM boots (vm.h: vm_kernel_resolve).
 *
 * A series maplab knows is the newest Debian cloud kernel of the Debian
 * release that ships it, as an up-to-date user of that release runs it:
 * the highest version of the metapackage linux-image-cloud-amd64 in the
 * release and its security suite, whose Depends names the image package.
 * That package is downloaded (never installed) and its boot/vmlinuz-* is
 * kept in the cache:
 *
 *   CACHE/apt/sources.list     maplab's own: the six suites below
 *   CACHE/apt/lists/           apt's package lists (kept: the next
 *                              fetch's update is incremental)
 *   CACHE/apt/cache/           apt's own cache (its binary caches are
 *                              removed after each fetch)
 *   CACHE/apt/lock             held (flock) through a fetch
 *   CACHE/<series>/vmlinuz-<release>
 *   CACHE/<series>/current     "vmlinuz-<release>", then the package and
 *                              its version: the kernel that series boots
 *   CACHE/<series>/fetch.log   what apt and dpkg-deb said at the fetch
 *
 * A series is fetched once: with its `current` there, a resolve reads
 * the cache alone (no network, nothing printed).  `rm -rf CACHE/<series>`
 * makes the next resolve fetch the newest again.  `current` is written
 * last (a rename), so a fetch cut short leaves no current and is redone.
 *
 * apt runs with maplab's own sources list and state folders, every
 * option on its command line: the machine's apt setup (/etc/apt, its
 * lists, dpkg's status) is never read for sources nor written.  apt and
 * dpkg-deb run through posix_spawn (no shell), their output into the
 * log; a failed step is one line naming the series, the step and what
 * apt said.
 *
 * A path is taken as it is, if it is a bzImage: the setup header's "HdrS"
 * at 0x202, and its kernel_version field (0x20E) pointing at the version
 * string (0x200 + its value), whose first word is the release.
 */
#include "kernel-compare/vm/vm.h"

#include "harness/common/outfile.h"
#include "maps/base/map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The series maplab fetches, and the Debian release of each. */
struct known_series {
	const char *series;
	const char *release;
};

static const struct known_series known[] = {
	{ "5.10", "bullseye" },	/* Debian 11 */
	{ "6.1", "bookworm" },	/* Debian 12 */
	{ "6.12", "trixie" },	/* Debian 13 */
};

#define N_KNOWN (sizeof(known) / sizeof(known[0]))
#define DEBIAN_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"
#define META_PACKAGE "linux-image-cloud-amd64"

const char *vm_known_kernels(void)
{
	return "5.10, 6.1, 6.12";
}

/* --- the cache folder ----------------------------------------------------- */

static const char *env_set(const char *name)
{
	const char *v = getenv(name);
	return v && v[0] ? v : NULL;
}

/* NULL where the path does not fit in buf. */
const char *vm_cache_dir(char *buf, size_t len)
{
	const char *v;
	int n;
	if ((v = env_set("MAPLAB_KERNEL_CACHE")))
		n = snprintf(buf, len, "%s", v);
	else if ((v = env_set("XDG_CACHE_HOME")) && v[0] == '/')
		n = snprintf(buf, len, "%s/maplab/kernels", v);	/* the XDG
						spec ignores a relative one */
	else if ((v = env_set("HOME")))
		n = snprintf(buf, len, "%s/.cache/maplab/kernels", v);
	else
		n = snprintf(buf, len, "/var/cache/maplab/kernels");
	return n >= 0 && (size_t)n < len ? buf : NULL;
}

/* mkdir -p: 0, or -errno. */
static int make_path(const char *path)
{
	char p[4096];
	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = c;
		if (!c)
			break;
	}
	struct stat st;
	if (stat(path, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* --- a bzImage ------------------------------------------------------------ */

#define SETUP_HDRS 0x202	/* "HdrS" */
#define SETUP_KERNEL_VERSION 0x20E	/* u16: version string - 0x200 */
#define VERSION_BASE 0x200

/*
 * "6.12.118+deb13-cloud-amd64" -> "6.12": MAJOR.MINOR, each digits.
 * -1 where release does not begin so.
 */
static int series_of(const char *release, char *series, size_t len)
{
	size_t major = strspn(release, "0123456789");
	if (!major || release[major] != '.')
		return -1;
	size_t minor = strspn(release + major + 1, "0123456789");
	if (!minor)
		return -1;
	if (major + 1 + minor >= len)
		return -1;
	memcpy(series, release, major + 1 + minor);
	series[major + 1 + minor] = '\0';
	return 0;
}

/* Up to len bytes, fewer only at the end of the file: at offset off, or
 * from the stream's own position where off is -1 (a pipe).  -1 on error. */
static ssize_t read_up_to(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	while (done < len) {
		char *at = (char *)buf + done;
		ssize_t got = off < 0 ? read(fd, at, len - done)
				      : pread(fd, at, len - done,
					      off + (off_t)done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/*
 * The release and series of the bzImage at path into k.  0, or -1 with
 * one line in err naming path.
 */
static int read_bzimage(const char *path, struct vm_kernel *k, char *err,
			size_t errlen)
{
	unsigned char hdr[SETUP_KERNEL_VERSION + 2];
	char version[256];
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, map_errno_text(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, map_errno_text(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			snprintf(err, errlen, "%s: %s", path,
				 map_errno_text(EISDIR));
		else
			snprintf(err, errlen, "%s is not a regular file (a "
				 "kernel image is one)", path);
		close(fd);
		return -1;
	}
	ssize_t got = read_up_to(fd, hdr, sizeof(hdr), 0);
	ssize_t vgot = -1;
	unsigned voff = 0;
	if (got == (ssize_t)sizeof(hdr) &&
	    memcmp(hdr + SETUP_HDRS, "HdrS", 4) == 0) {
		voff = hdr[SETUP_KERNEL_VERSION] |
		       (unsigned)hdr[SETUP_KERNEL_VERSION + 1] << 8;
		if (voff)
			vgot = read_up_to(fd, version, sizeof(version) - 1,
					  VERSION_BASE + (off_t)voff);
	}
	int read_errno = errno;
	close(fd);
	if (got < 0 || (voff && vgot < 0)) {
		snprintf(err, errlen, "%s: %s", path,
			 map_errno_text(read_errno));
		return -1;
	}
	if (got != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr + SETUP_HDRS, "HdrS", 4) != 0) {
		snprintf(err, errlen, "%s is not a Linux kernel image (no "
			 "bzImage header)", path);
		return -1;
	}
	version[vgot > 0 ? vgot : 0] = '\0';
	size_t rel = strcspn(version, " \t\n");
	if (!voff || rel == 0 || rel >= sizeof(k->release) ||
	    memchr(version, '\0', (size_t)(vgot > 0 ? vgot : 0)) == NULL) {
		snprintf(err, errlen, "%s is a bzImage without a kernel "
			 "version string", path);
		return -1;
	}
	memcpy(k->release, version, rel);
	k->release[rel] = '\0';
	if (series_of(k->release, k->series, sizeof(k->series))) {
		snprintf(err, errlen, "%s: its version '%s' is not a kernel "
			 "release (MAJOR.MINOR...)", path, k->release);
		return -1;
	}
	return 0;
}

/* --- running apt and dpkg-deb --------------------------------------------- */

/* One fetch of a series: where it works, and apt's options. */
struct fetch {
	const struct known_series *s;
	char cache[4096];
	char dir[4096];		/* CACHE/<series> */
	char log[4096 + 16];
	int log_fd;
	off_t step_start;	/* the log's size when this step began */
	char opts[4][4096 + 64];	/* apt's -o values of its folders */
	char *argv[64];
	int argc;
};

static void argv_start(struct fetch *f, const char *program)
{
	f->argc = 0;
	f->argv[f->argc++] = (char *)program;
	f->argv[f->argc] = NULL;
}

static void argv_add(struct fetch *f, const char *arg)
{
	if (f->argc + 1 < (int)(sizeof(f->argv) / sizeof(f->argv[0]))) {
		f->argv[f->argc++] = (char *)arg;
		f->argv[f->argc] = NULL;
	}
}

/* apt-get or apt-cache with maplab's own sources and state. */
static void argv_apt(struct fetch *f, const char *program)
{
	static const char *const fixed[] = {
		"Dir::Etc::SourceParts=/dev/null",
		"Dir::State::status=/dev/null",
		"APT::Architecture=amd64",
		"APT::Architectures=amd64",
		"Acquire::Languages=none",
		"APT::Update::Error-Mode=any",	/* a failed fetch fails */
	};
	argv_start(f, program);
	argv_add(f, "-q");
	for (size_t i = 0; i < sizeof(f->opts) / sizeof(f->opts[0]); i++) {
		argv_add(f, "-o");
		argv_add(f, f->opts[i]);
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		argv_add(f, "-o");
		argv_add(f, fixed[i]);
	}
}

static void set_apt_options(struct fetch *f)
{
	snprintf(f->opts[0], sizeof(f->opts[0]),
		 "Dir::Etc::SourceList=%s/apt/sources.list", f->cache);
	snprintf(f->opts[1], sizeof(f->opts[1]),
		 "Dir::State::Lists=%s/apt/lists", f->cache);
	snprintf(f->opts[2], sizeof(f->opts[2]), "Dir::Cache=%s/apt/cache",
		 f->cache);
	/* Its binary caches, which this machine's apt setup may turn off,
	 * spare each apt-cache call seconds of parsing the lists. */
	snprintf(f->opts[3], sizeof(f->opts[3]),
		 "Dir::Cache::pkgcache=%s/apt/cache/pkgcache.bin", f->cache);
}

/*
 * Starts f->argv in cwd (NULL: here), stdin /dev/null, stdout to out_fd
 * (the log where -1), stderr to the log.  0, or a positive errno.
 */
static int start(struct fetch *f, const char *cwd, int out_fd, pid_t *pid)
{
	posix_spawn_file_actions_t actions;
	int rc;
	dprintf(f->log_fd, "$");
	for (int i = 0; i < f->argc; i++)
		dprintf(f->log_fd, " %s", f->argv[i]);
	dprintf(f->log_fd, "\n");
	f->step_start = lseek(f->log_fd, 0, SEEK_END);
	if ((rc = posix_spawn_file_actions_init(&actions)))
		return rc;
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions,
					 out_fd >= 0 ? out_fd : f->log_fd,
					 STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, f->log_fd, STDERR_FILENO);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&actions, cwd);
	rc = posix_spawnp(pid, f->argv[0], &actions, NULL, f->argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	return rc;
}

/* 0 where the child exited 0; 1 otherwise. */
static int finish(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* All of fd into a malloc'd string (*text), until EOF. */
static int read_all(int fd, char **text)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len + 1 == cap) {
			char *grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			buf = grown;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + len, cap - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;
			free(buf);
			return -err;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/*
 * What this step printed that says why it failed, into buf: apt's first
 * "E: " line (of "Failed to fetch URL  REASON", the reason), else its
 * last line.
 */
static void step_reason(struct fetch *f, char *buf, size_t len)
{
	char text[16384];
	off_t end = lseek(f->log_fd, 0, SEEK_END);
	off_t from = end - f->step_start > (off_t)sizeof(text) - 1 ?
		     end - (off_t)sizeof(text) + 1 : f->step_start;
	ssize_t got = read_up_to(f->log_fd, text, sizeof(text) - 1, from);
	const char *best = NULL;
	size_t best_n = 0;
	text[got > 0 ? got : 0] = '\0';
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");
		size_t skip = strspn(line, " \t");
		if (strncmp(line, "E: ", 3) == 0) {
			best = line + 3;
			best_n = n - 3;
			break;
		}
		if (skip < n) {
			best = line + skip;
			best_n = n - skip;
		}
		line += n + (line[n] == '\n');
	}
	if (!best) {
		snprintf(buf, len, "it printed nothing");
		return;
	}
	/* "Failed to fetch http://...  Could not resolve 'deb.debian.org'":
	 * the reason, after apt's two spaces. */
	const char *gap = memmem(best, best_n, "  ", 2);
	if (strncmp(best, "Failed to fetch ", 16) == 0 && gap) {
		best_n -= (size_t)(gap + 2 - best);
		best = gap + 2;
	}
	snprintf(buf, len, "%.*s", (int)best_n, best);
}

/* One step's failure as the one line: "kernel 6.12: STEP failed: WHY". */
static int step_failed(struct fetch *f, const char *step, int spawn_errno,
		       char *err, size_t errlen)
{
	char why[1024];
	if (spawn_errno == ENOENT)
		snprintf(err, errlen, "kernel %s: %s is not installed (maplab "
			 "fetches Debian's kernels with apt and dpkg; or give "
			 "the path to a vmlinuz)", f->s->series, f->argv[0]);
	else if (spawn_errno)
		snprintf(err, errlen, "kernel %s: %s: %s", f->s->series, step,
			 map_errno_text(spawn_errno));
	else {
		step_reason(f, why, sizeof(why));
		snprintf(err, errlen, "kernel %s: %s failed: %s (log: %s)",
			 f->s->series, step, why, f->log);
	}
	return -1;
}

/* Runs f->argv to its end, stdout to the log (text NULL) or into *text.
 * 0, or -1 with the step's one line in err. */
static int run_step(struct fetch *f, const char *step, const char *cwd,
		    char **text, char *err, size_t errlen)
{
	int pipe_fd[2] = { -1, -1 };
	pid_t pid;
	int rc;
	if (text && pipe2(pipe_fd, O_CLOEXEC))
		return step_failed(f, step, errno, err, errlen);
	rc = start(f, cwd, pipe_fd[1], &pid);
	if (text)
		close(pipe_fd[1]);
	if (rc) {
		if (text)
			close(pipe_fd[0]);
		return step_failed(f, step, rc, err, errlen);
	}
	int read_rc = text ? read_all(pipe_fd[0], text) : 0;
	if (text)
		close(pipe_fd[0]);
	rc = finish(pid);
	if (read_rc && !rc) {
		snprintf(err, errlen, "kernel %s: %s: %s", f->s->series, step,
			 map_errno_text(-read_rc));
		return -1;
	}
	if (rc) {
		if (text && !read_rc) {
			free(*text);
			*text = NULL;
		}
		return step_failed(f, step, 0, err, errlen);
	}
	return 0;
}

/* --- the steps of a fetch ------------------------------------------------- */

/* path whole through an outfile, then renamed into place. */
static int write_whole(const char *path, const char *text, char *err,
		       size_t errlen)
{
	char tmp[4096 + 8];
	struct outfile o;
	int rc;
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	if ((rc = out_open(&o, tmp, OUT_TRUNCATE)) == 0) {
		fputs(text, o.f);
		rc = out_close(&o);
	}
	if (rc) {
		snprintf(err, errlen, "%s: %s", tmp, map_errno_text(-rc));
		return -1;
	}
	if (rename(tmp, path)) {
		snprintf(err, errlen, "%s: %s", path, map_errno_text(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int write_sources(struct fetch *f, char *err, size_t errlen)
{
	char path[4096 + 32], text[4096] = "";
	size_t n = 0;
	for (size_t i = 0; i < N_KNOWN; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
			"deb [signed-by=" DEBIAN_KEYRING "] "
			"http://deb.debian.org/debian %s main\n"
			"deb [signed-by=" DEBIAN_KEYRING "] "
			"http://deb.debian.org/debian-security "
			"%s-security main\n",
			known[i].release, known[i].release);
	snprintf(path, sizeof(path), "%s/apt/sources.list", f->cache);
	if (write_whole(path, text, err, errlen)) {
		char why[4200];
		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "kernel %s: %s", f->s->series, why);
		return -1;
	}
	return 0;
}

/*
 * The metapackage's newest version in the release or its security suite:
 * apt-cache madison lists a package's versions highest first (apt keeps
 * them sorted so), one line each: "PKG | VERSION | URL SUITE/main amd64
 * Packages".
 */
static int newest_meta_version(struct fetch *f, char *version, size_t len,
			       char *err, size_t errlen)
{
	char *text = NULL, suite[64], security[64];
	argv_apt(f, "apt-cache");
	argv_add(f, "madison");
	argv_add(f, META_PACKAGE);
	if (run_step(f, "apt-cache madison", NULL, &text, err, errlen))
		return -1;
	snprintf(suite, sizeof(suite), " %s/", f->s->release);
	snprintf(security, sizeof(security), " %s-security/", f->s->release);
	version[0] = '\0';
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *bar1 = strchr(line, '|');
		char *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
		if (!bar2 || (!strstr(bar2, suite) && !strstr(bar2, security)))
			continue;
		char *v = bar1 + 1 + strspn(bar1 + 1, " ");
		size_t n = strcspn(v, " |");
		if (n && n < len) {
			memcpy(version, v, n);
			version[n] = '\0';
			break;
		}
	}
	free(text);
	if (!version[0]) {
		snprintf(err, errlen, "kernel %s: apt-cache madison found no "
			 META_PACKAGE " in %s or %s-security (log: %s)",
			 f->s->series, f->s->release, f->s->release, f->log);
		return -1;
	}
	return 0;
}

/* The image package the metapackage's version depends on:
 * "Depends: linux-image-6.12.118+deb13-cloud-amd64 (= 6.12.118-1)". */
static int image_package(struct fetch *f, const char *meta_version,
			 char *package, size_t len, char *err, size_t errlen)
{
	char *text = NULL, spec[128];
	snprintf(spec, sizeof(spec), META_PACKAGE "=%s", meta_version);
	argv_apt(f, "apt-cache");
	argv_add(f, "show");
	argv_add(f, spec);
	if (run_step(f, "apt-cache show", NULL, &text, err, errlen))
		return -1;
	package[0] = '\0';
	for (char *line = strtok(text, "\n"); line && !package[0];
	     line = strtok(NULL, "\n")) {
		if (strncmp(line, "Depends:", 8) != 0)
			continue;
		for (char *dep = line + 8; *dep; dep += strcspn(dep, ",")) {
			dep += strspn(dep, ", ");
			size_t n = strcspn(dep, " ,(|");
			if (n < len && strncmp(dep, "linux-image-", 12) == 0) {
				memcpy(package, dep, n);
				package[n] = '\0';
				break;
			}
		}
	}
	free(text);
	if (!package[0]) {
		snprintf(err, errlen, "kernel %s: " META_PACKAGE " %s depends "
			 "on no linux-image package (log: %s)", f->s->series,
			 meta_version, f->log);
		return -1;
	}
	return 0;
}

/* The one .deb apt-get download left in dir, into path. */
static int downloaded_deb(const char *dir, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	path[0] = '\0';
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > 4 && strcmp(e->d_name + n - 4, ".deb") == 0) {
			snprintf(path, len, "%s/%s", dir, e->d_name);
			break;
		}
	}
	closedir(d);
	return path[0] ? 0 : -ENOENT;
}

/* The download folder and what is in it (files only), removed. */
static void remove_download(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

/* --- boot/vmlinuz-* out of the package's tar stream ----------------------- */

/* A tar header's size field: octal, or base-256 (a leading 0x80). */
static uint64_t tar_size(const unsigned char *field)
{
	uint64_t v = 0;
	if (field[0] & 0x80) {
		for (int i = 1; i < 12; i++)
			v = v << 8 | field[i];
		return v;
	}
	for (int i = 0; i < 12 && field[i] >= '0' && field[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(field[i] - '0');
	return v;
}

/* n bytes of fd into out (NULL: dropped).  0, or -1 (short or out's
 * failure: out keeps its errno). */
static int copy_bytes(int fd, uint64_t n, FILE *out)
{
	char buf[65536];
	while (n) {
		size_t want = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		if (read_up_to(fd, buf, want, -1) != (ssize_t)want)
			return -1;
		if (out && fwrite(buf, 1, want, out) != want)
			return -1;
		n -= want;
	}
	return 0;
}

/* A member's name: GNU's long name where one came before it, else the
 * ustar prefix and name. */
static void member_name(const unsigned char *h, const char *long_name,
			char *name, size_t len)
{
	if (long_name[0]) {
		snprintf(name, len, "%s", long_name);
		return;
	}
	if (memcmp(h + 257, "ustar", 5) == 0 && h[345])
		snprintf(name, len, "%.155s/%.100s", (const char *)h + 345,
			 (const char *)h);
	else
		snprintf(name, len, "%.100s", (const char *)h);
}

/*
 * Reads the package's file tree (a tar stream on fd) to its end and
 * writes its boot/vmlinuz-<release> as f->dir/vmlinuz-<release>
 * (outfile: whole or not there); the name into file.  0, or -1 with err.
 */
static int extract_vmlinuz(struct fetch *f, int fd, const char *package,
			   char *file, size_t len, char *err, size_t errlen)
{
	unsigned char h[512];
	char long_name[4096] = "", name[4096 + 160];
	file[0] = '\0';
	for (;;) {
		ssize_t got = read_up_to(fd, h, sizeof(h), -1);
		if (got == 0 || (got == (ssize_t)sizeof(h) && !h[0]))
			break;	/* the end (two zero blocks) */
		if (got != (ssize_t)sizeof(h))
			goto truncated;
		uint64_t size = tar_size(h + 124);
		uint64_t padded = (size + 511) / 512 * 512;
		char type = (char)h[156];
		if (type == 'L') {	/* GNU: the next member's long name */
			if (size >= sizeof(long_name) ||
			    read_up_to(fd, long_name, (size_t)size, -1) !=
			    (ssize_t)size ||
			    copy_bytes(fd, padded - size, NULL))
				goto truncated;
			long_name[size] = '\0';
			continue;
		}
		member_name(h, long_name, name, sizeof(name));
		long_name[0] = '\0';
		const char *base = name + (strncmp(name, "./", 2) == 0 ? 2 : 0);
		if (!file[0] && (type == '0' || type == '\0') &&
		    strncmp(base, "boot/vmlinuz-", 13) == 0 &&
		    !strchr(base + 5, '/') && strlen(base + 5) < len) {
			char path[4096 + 160];
			struct outfile o;
			snprintf(file, len, "%s", base + 5);
			snprintf(path, sizeof(path), "%s/%s", f->dir, file);
			int rc = out_open(&o, path, OUT_TRUNCATE);
			if (rc) {
				snprintf(err, errlen, "kernel %s: %s: %s",
					 f->s->series, path,
					 map_errno_text(-rc));
				return -1;
			}
			if (copy_bytes(fd, size, o.f) && !o.err) {
				out_discard(&o);
				goto truncated;
			}
			if ((rc = out_close(&o))) {
				char why[4400];
				out_error(&o, rc, why, sizeof(why));
				snprintf(err, errlen, "kernel %s: %s",
					 f->s->series, why);
				return -1;
			}
			if (copy_bytes(fd, padded - size, NULL))
				goto truncated;
			continue;
		}
		if (copy_bytes(fd, padded, NULL))
			goto truncated;
	}
	/* The rest read too (tar's padding): dpkg-deb then ends by itself,
	 * and its status says whether the package was whole. */
	char drain[65536];
	while (read_up_to(fd, drain, sizeof(drain), -1) > 0)
		;
	if (!file[0]) {
		snprintf(err, errlen, "kernel %s: %s holds no boot/vmlinuz-*",
			 f->s->series, package);
		return -1;
	}
	return 0;
truncated:
	snprintf(err, errlen, "kernel %s: %s's files end early (log: %s)",
		 f->s->series, package, f->log);
	return -1;
}

/* dpkg-deb --fsys-tarfile DEB, its tar stream read here. */
static int unpack_vmlinuz(struct fetch *f, const char *deb,
			  const char *package, char *file, size_t len,
			  char *err, size_t errlen)
{
	int pipe_fd[2];
	pid_t pid;
	int rc;
	argv_start(f, "dpkg-deb");
	argv_add(f, "--fsys-tarfile");
	argv_add(f, deb);
	if (pipe2(pipe_fd, O_CLOEXEC))
		return step_failed(f, "dpkg-deb", errno, err, errlen);
	rc = start(f, NULL, pipe_fd[1], &pid);
	close(pipe_fd[1]);
	if (rc) {
		close(pipe_fd[0]);
		return step_failed(f, "dpkg-deb", rc, err, errlen);
	}
	rc = extract_vmlinuz(f, pipe_fd[0], package, file, len, err, errlen);
	close(pipe_fd[0]);
	if (finish(pid) && !rc) {
		step_failed(f, "dpkg-deb --fsys-tarfile", 0, err, errlen);
		rc = -1;
	}
	if (rc && file[0]) {
		char path[4096 + 160];
		snprintf(path, sizeof(path), "%s/%s", f->dir, file);
		unlink(path);
	}
	return rc;
}

/* --- fetching a series ---------------------------------------------------- */

/*
 * The newest kernel of f->s: apt-get update, the metapackage's version,
 * its image package, apt-get download, the vmlinuz out of it, then
 * `current`.  0, or -1 with err.
 */
static int fetch_series(struct fetch *f, char *err, size_t errlen)
{
	char version[128], package[256], spec[400], deb[4096 + 300];
	char download[4096 + 16], file[256], current[800], path[4096 + 300];
	struct vm_kernel k = { 0 };

	if (write_sources(f, err, errlen))
		return -1;
	argv_apt(f, "apt-get");
	argv_add(f, "update");
	if (run_step(f, "apt-get update", NULL, NULL, err, errlen))
		return -1;
	if (newest_meta_version(f, version, sizeof(version), err, errlen) ||
	    image_package(f, version, package, sizeof(package), err, errlen))
		return -1;

	snprintf(download, sizeof(download), "%s/download", f->dir);
	remove_download(download);
	int rc = make_path(download);
	if (rc) {
		snprintf(err, errlen, "kernel %s: %s: %s", f->s->series,
			 download, map_errno_text(-rc));
		return -1;
	}
	snprintf(spec, sizeof(spec), "%s=%s", package, version);
	argv_apt(f, "apt-get");
	argv_add(f, "download");
	argv_add(f, spec);
	rc = run_step(f, "apt-get download", download, NULL, err, errlen);
	if (!rc && downloaded_deb(download, deb, sizeof(deb))) {
		snprintf(err, errlen, "kernel %s: apt-get download left no "
			 ".deb in %s (log: %s)", f->s->series, download,
			 f->log);
		rc = -1;
	}
	if (!rc)
		rc = unpack_vmlinuz(f, deb, package, file, sizeof(file), err,
				    errlen);
	remove_download(download);
	if (rc)
		return -1;

	/* What was written must be what the series boots. */
	char why[4400];
	snprintf(path, sizeof(path), "%s/%s", f->dir, file);
	if (read_bzimage(path, &k, why, sizeof(why))) {
		snprintf(err, errlen, "kernel %s: %s", f->s->series, why);
		unlink(path);
		return -1;
	}
	if (strcmp(k.series, f->s->series) != 0) {
		snprintf(err, errlen, "kernel %s: %s %s holds kernel %s, not "
			 "%s", f->s->series, package, version, k.release,
			 f->s->series);
		unlink(path);
		return -1;
	}
	snprintf(current, sizeof(current), "%s\n%s %s\n", file, package,
		 version);
	snprintf(path, sizeof(path), "%s/current", f->dir);
	if (write_whole(path, current, err, errlen))
		return -1;
	dprintf(f->log_fd, "fetched %s %s: %s/%s\n", package, version, f->dir,
		file);
	return 0;
}

/* --- the cache ------------------------------------------------------------ */

/*
 * The series' kernel from the cache into k: 1 where none was fetched (no
 * `current`), 0, or -1 with err (a cache that is not what it says: the
 * file, and how to fetch it again).
 */
static int cached_kernel(const char *dir, const struct known_series *s,
			 struct vm_kernel *k, char *err, size_t errlen)
{
	char current[4096 + 16], name[256];
	snprintf(current, sizeof(current), "%s/current", dir);
	FILE *in = fopen(current, "re");
	if (!in && errno == ENOENT)
		return 1;
	if (!in) {
		snprintf(err, errlen, "kernel %s: %s: %s", s->series, current,
			 map_errno_text(errno));
		return -1;
	}
	char *line = fgets(name, sizeof(name), in);
	fclose(in);
	if (line)
		name[strcspn(name, "\n")] = '\0';
	if (!line || strncmp(name, "vmlinuz-", 8) != 0 || strchr(name, '/')) {
		snprintf(err, errlen, "kernel %s: %s names no vmlinuz; rm -rf "
			 "%s to fetch it again", s->series, current, dir);
		return -1;
	}
	if (snprintf(k->path, sizeof(k->path), "%s/%s", dir, name) >=
	    (int)sizeof(k->path)) {
		snprintf(err, errlen, "kernel %s: %s: %s", s->series, dir,
			 map_errno_text(ENAMETOOLONG));
		return -1;
	}
	char why[4400];
	if (read_bzimage(k->path, k, why, sizeof(why))) {
		snprintf(err, errlen, "kernel %s: %s; rm -rf %s to fetch it "
			 "again", s->series, why, dir);
		return -1;
	}
	if (strcmp(k->series, s->series) != 0) {
		snprintf(err, errlen, "kernel %s: %s is kernel %s, not %s; rm "
			 "-rf %s to fetch it again", s->series, k->path,
			 k->release, s->series, dir);
		return -1;
	}
	return 0;
}

/* The fetch's folders, its log and the lock that makes fetches of one
 * cache take turns.  The lock's descriptor, or -1 with err. */
static int fetch_begin(struct fetch *f, char *err, size_t errlen)
{
	char path[4096 + 32];
	const char *made = NULL;
	int rc = 0, lock_fd;
	static const char *const dirs[] = { "apt/lists/partial", "apt/cache" };
	for (size_t i = 0; i < 2 && !rc; i++) {
		snprintf(path, sizeof(path), "%s/%s", f->cache, dirs[i]);
		made = path;
		rc = make_path(path);
	}
	if (!rc) {
		made = f->dir;
		rc = make_path(f->dir);
	}
	if (rc) {
		snprintf(err, errlen, "kernel %s: %s: %s", f->s->series, made,
			 map_errno_text(-rc));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/apt/lock", f->cache);
	if ((lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 ||
	    flock(lock_fd, LOCK_EX)) {
		snprintf(err, errlen, "kernel %s: %s: %s", f->s->series, path,
			 map_errno_text(errno));
		if (lock_fd >= 0)
			close(lock_fd);
		return -1;
	}
	return lock_fd;
}

static int open_log(struct fetch *f, char *err, size_t errlen)
{
	snprintf(f->log, sizeof(f->log), "%s/fetch.log", f->dir);
	f->log_fd = open(f->log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
			 O_CLOEXEC, 0644);
	if (f->log_fd < 0) {
		snprintf(err, errlen, "kernel %s: %s: %s", f->s->series, f->log,
			 map_errno_text(errno));
		return -1;
	}
	/* pread of the log for a step's reason needs it readable too. */
	close(f->log_fd);
	f->log_fd = open(f->log, O_RDWR | O_APPEND | O_CLOEXEC);
	if (f->log_fd < 0) {
		snprintf(err, errlen, "kernel %s: %s: %s", f->s->series, f->log,
			 map_errno_text(errno));
		return -1;
	}
	return 0;
}

/* With the lock held and the series not in the cache: fetches it, and
 * takes it from the cache into k. */
static int fetch_into_cache(struct fetch *f, bool quiet, struct vm_kernel *k,
			    char *err, size_t errlen)
{
	char path[4096 + 64];
	time_t t0 = time(NULL);
	set_apt_options(f);
	if (open_log(f, err, errlen))
		return -1;
	if (!quiet)
		fprintf(stderr, "maplab: fetching Debian's %s cloud kernel "
			"into %s (once) ...\n", f->s->series, f->cache);
	int rc = fetch_series(f, err, errlen);
	/* apt's binary caches are rebuilt from the lists at need. */
	snprintf(path, sizeof(path), "%s/apt/cache/pkgcache.bin", f->cache);
	unlink(path);
	snprintf(path, sizeof(path), "%s/apt/cache/srcpkgcache.bin", f->cache);
	unlink(path);
	if (!rc)
		rc = cached_kernel(f->dir, f->s, k, err, errlen) ? -1 : 0;
	if (!rc && !quiet)
		fprintf(stderr, "maplab: fetched kernel %s into %s in %.0f s\n",
			k->release, k->path, difftime(time(NULL), t0));
	return rc;
}

static int resolve_series(const struct known_series *s, bool quiet,
			  struct vm_kernel *k, char *err, size_t errlen)
{
	struct fetch *f = calloc(1, sizeof(*f));
	int rc, lock_fd;
	if (!f) {
		snprintf(err, errlen, "kernel %s: %s", s->series,
			 map_errno_text(ENOMEM));
		return -1;
	}
	f->s = s;
	f->log_fd = -1;
	if (!vm_cache_dir(f->cache, sizeof(f->cache)) ||
	    snprintf(f->dir, sizeof(f->dir), "%s/%s", f->cache, s->series) >=
	    (int)sizeof(f->dir)) {
		snprintf(err, errlen, "kernel %s: the kernel cache's path is "
			 "too long (MAPLAB_KERNEL_CACHE names another)",
			 s->series);
		rc = -1;
	} else if ((rc = cached_kernel(f->dir, s, k, err, errlen)) <= 0) {
		/* in the cache, or a cache that is not right */
	} else if (access(DEBIAN_KEYRING, R_OK)) {
		snprintf(err, errlen, "kernel %s: " DEBIAN_KEYRING ": %s (apt "
			 "checks Debian's archive with it: install "
			 "debian-archive-keyring)", s->series,
			 map_errno_text(errno));
		rc = -1;
	} else if ((lock_fd = fetch_begin(f, err, errlen)) < 0) {
		rc = -1;
	} else {
		/* Another maplab may have fetched it while this one waited. */
		if ((rc = cached_kernel(f->dir, s, k, err, errlen)) > 0)
			rc = fetch_into_cache(f, quiet, k, err, errlen);
		if (f->log_fd >= 0)
			close(f->log_fd);
		close(lock_fd);	/* the lock goes with it */
	}
	free(f);
	return rc;
}

/* --- vm_kernel_resolve ---------------------------------------------------- */

static const struct known_series *known_by_name(const char *spec)
{
	for (size_t i = 0; i < N_KNOWN; i++)
		if (strcmp(spec, known[i].series) == 0)
			return &known[i];
	return NULL;
}

static int resolve_path(const char *spec, struct vm_kernel *k, char *err,
			size_t errlen)
{
	if (strlen(spec) >= sizeof(k->path)) {
		snprintf(err, errlen, "%.200s...: %s", spec,
			 map_errno_text(ENAMETOOLONG));
		return -1;
	}
	strcpy(k->path, spec);
	return read_bzimage(k->path, k, err, errlen);
}

/*
 * A spec with a '/' is a path; then a series maplab knows; then a file
 * that exists here (./6.12 is the way to a file named as a series).
 */
int vm_kernel_resolve(const char *spec, bool quiet, struct vm_kernel *k,
		      char *err, size_t errlen)
{
	const struct known_series *s;
	struct stat st;
	*k = (struct vm_kernel){ 0 };
	err[0] = '\0';
	if (!spec)
		spec = "";
	snprintf(k->spec, sizeof(k->spec), "%s", spec);
	if (strchr(spec, '/'))
		return resolve_path(spec, k, err, errlen);
	if ((s = known_by_name(spec)))
		return resolve_series(s, quiet, k, err, errlen);
	if (spec[0] && stat(spec, &st) == 0)
		return resolve_path(spec, k, err, errlen);
	snprintf(err, errlen, "no kernel '%s': maplab fetches 5.10, 6.1 and "
		 "6.12; or give the path to a vmlinuz", spec);
	return -1;
}
