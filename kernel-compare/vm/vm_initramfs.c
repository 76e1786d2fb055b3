/* SPDX-License-Identifier: MIT */
/*
 * vm_initramfs.c: a VM's initramfs, a newc cpio archive (vm_initramfs.h).
 *
 * The newc format, as the kernel's init/initramfs.c reads it: each entry
 * is a 110-byte header of ASCII hex, the entry's name with its NUL, zeros
 * to a multiple of 4 bytes, then the entry's data (a file's bytes, a
 * symlink's target) and zeros to a multiple of 4 again:
 *
 *   "070701" ino mode uid gid nlink mtime filesize devmajor devminor
 *            rdevmajor rdevminor namesize check     (13 x 8 hex digits)
 *   name\0 [pad]  data [pad]
 *   ...
 *   the trailer: an entry named "TRAILER!!!" with no data
 *
 * The kernel creates each entry in the order it meets it and drops a file
 * whose folder does not exist yet, so parents come first: every adder
 * makes them before the entry itself, and close writes the entries in
 * the order they were added.
 *
 * The entries are an array in that order, searched linearly by name: an
 * image holds a few dozen (a program, its libraries, /dev, a job), and
 * the search is nothing beside the boot.
 */
#include "kernel-compare/vm/vm_initramfs.h"

#include "harness/common/outfile.h"
#include "maps/base/map.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum entry_kind { ENTRY_DIR, ENTRY_BYTES, ENTRY_FILE, ENTRY_NODE,
		  ENTRY_SYMLINK };

struct entry {
	char *name;		/* inside the VM, without the leading '/' */
	enum entry_kind kind;
	unsigned mode;		/* type and permission bits */
	unsigned nlink;		/* a dir: 2 + its subdirectories */
	unsigned rmajor, rminor;	/* a node's device */
	char *data;		/* bytes and symlink: the entry's data */
	size_t len;		/* its size (a file's at add time) */
	int fd;			/* a file: its host file, read at close */
	char *host;		/* a file: the host path, for messages */
};

struct vm_initramfs {
	struct outfile out;	/* never copied: stdio writes reach it */
	struct entry *entries;
	size_t n, cap;
};

#define NEWC_MAGIC "070701"
#define NEWC_TRAILER "TRAILER!!!"
#define NAME_MAX_LEN 4096

/* --- names ---------------------------------------------------------------- */

/*
 * path as the archive names it: no leading '/', one '/' between
 * components.  "" for the root.  -EINVAL for "." or ".." (the kernel
 * would follow them out of the folder meant), -ENAMETOOLONG.
 */
static int normalise(const char *path, char *out, size_t len)
{
	size_t o = 0;
	const char *p = path;
	if (!path)
		return -EINVAL;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (o + (o > 0) + n + 1 > len)
			return -ENAMETOOLONG;
		if (o > 0)
			out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
		p += n;
	}
	out[o] = '\0';
	return 0;
}

static struct entry *find(struct vm_initramfs *ir, const char *name)
{
	for (size_t i = 0; i < ir->n; i++)
		if (strcmp(ir->entries[i].name, name) == 0)
			return &ir->entries[i];
	return NULL;
}

/* The entry of name's parent folder, or NULL for one at the top. */
static struct entry *parent_of(struct vm_initramfs *ir, const char *name)
{
	const char *slash = strrchr(name, '/');
	if (!slash)
		return NULL;
	char parent[NAME_MAX_LEN];
	memcpy(parent, name, (size_t)(slash - name));
	parent[slash - name] = '\0';
	return find(ir, parent);
}

/* --- adding entries ------------------------------------------------------- */

/* Appends e (its name already malloc'd); a folder counts in its parent's
 * link count. */
static int append(struct vm_initramfs *ir, struct entry *e)
{
	if (ir->n == ir->cap) {
		size_t cap = ir->cap ? ir->cap * 2 : 32;
		struct entry *grown = realloc(ir->entries,
					      cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		ir->entries = grown;
		ir->cap = cap;
	}
	if (e->kind == ENTRY_DIR) {
		struct entry *parent = parent_of(ir, e->name);
		if (parent)
			parent->nlink++;
	}
	ir->entries[ir->n++] = *e;
	return 0;
}

/* The folder name (normalised) and its missing parents, outermost first. */
static int make_dirs(struct vm_initramfs *ir, const char *name)
{
	char prefix[NAME_MAX_LEN];
	size_t len = strlen(name);
	for (size_t i = 0; i <= len; i++) {
		if (i == 0 || (name[i] != '/' && name[i] != '\0'))
			continue;	/* the root ("") is always there */
		memcpy(prefix, name, i);
		prefix[i] = '\0';
		struct entry *e = find(ir, prefix);
		if (e) {
			if (e->kind != ENTRY_DIR)
				return -ENOTDIR;
			continue;
		}
		struct entry dir = { .kind = ENTRY_DIR, .mode = S_IFDIR | 0755,
				     .nlink = 2, .fd = -1 };
		if (!(dir.name = strdup(prefix)))
			return -ENOMEM;
		int rc = append(ir, &dir);
		if (rc) {
			free(dir.name);
			return rc;
		}
	}
	return 0;
}

/*
 * Normalises path into name, refuses one already there or the root, and
 * makes its parents: what every adder but vm_initramfs_dir does first.
 */
static int prepare(struct vm_initramfs *ir, const char *path, char *name,
		   size_t len)
{
	int rc = normalise(path, name, len);
	if (rc)
		return rc;
	if (!name[0])
		return -EEXIST;	/* the root is always there */
	if (find(ir, name))
		return -EEXIST;
	char *slash = strrchr(name, '/');
	if (slash) {
		*slash = '\0';
		rc = make_dirs(ir, name);
		*slash = '/';
	}
	return rc;
}

/* Adds e under path (prepared), taking its data; e's data is freed on
 * failure. */
static int add(struct vm_initramfs *ir, const char *path, struct entry *e)
{
	char name[NAME_MAX_LEN];
	int rc = prepare(ir, path, name, sizeof(name));
	if (!rc && !(e->name = strdup(name)))
		rc = -ENOMEM;
	if (!rc)
		rc = append(ir, e);
	if (rc) {
		free(e->name);
		free(e->data);
		if (e->fd >= 0)
			close(e->fd);
		free(e->host);
	}
	return rc;
}

int vm_initramfs_dir(struct vm_initramfs *ir, const char *path)
{
	char name[NAME_MAX_LEN];
	int rc = normalise(path, name, sizeof(name));
	return rc ? rc : make_dirs(ir, name);
}

/* mode's permission bits, where its type bits are none or type's. */
static int permissions(unsigned mode, unsigned type, unsigned *out)
{
	if ((mode & S_IFMT) && (mode & S_IFMT) != type)
		return -EINVAL;
	*out = type | (mode & 07777);
	return 0;
}

int vm_initramfs_bytes(struct vm_initramfs *ir, const char *path,
		       const void *data, size_t len, unsigned mode)
{
	struct entry e = { .kind = ENTRY_BYTES, .nlink = 1, .fd = -1,
			   .len = len };
	int rc = permissions(mode, S_IFREG, &e.mode);
	if (rc)
		return rc;
	if (len > UINT32_MAX)
		return -EFBIG;
	if (!(e.data = malloc(len ? len : 1)))
		return -ENOMEM;
	if (len)
		memcpy(e.data, data, len);
	return add(ir, path, &e);
}

int vm_initramfs_file(struct vm_initramfs *ir, const char *path,
		      const char *host_path, unsigned mode)
{
	struct entry e = { .kind = ENTRY_FILE, .nlink = 1, .fd = -1 };
	struct stat st;
	int rc = permissions(mode, S_IFREG, &e.mode);
	if (rc)
		return rc;
	if ((e.fd = open(host_path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(e.fd, &st))
		rc = -errno;
	else if (S_ISDIR(st.st_mode))
		rc = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if ((uint64_t)st.st_size > UINT32_MAX)
		rc = -EFBIG;	/* newc's sizes are 32 bits */
	else if (!(e.host = strdup(host_path)))
		rc = -ENOMEM;
	if (rc) {
		close(e.fd);
		return rc;
	}
	e.len = (size_t)st.st_size;
	return add(ir, path, &e);
}

int vm_initramfs_node(struct vm_initramfs *ir, const char *path,
		      unsigned mode, unsigned major, unsigned minor)
{
	unsigned type = mode & S_IFMT;
	struct entry e = { .kind = ENTRY_NODE, .nlink = 1, .fd = -1,
			   .mode = type | (mode & 07777),
			   .rmajor = major, .rminor = minor };
	if (type != S_IFCHR && type != S_IFBLK && type != S_IFIFO)
		return -EINVAL;
	if (type == S_IFIFO && (major || minor))
		return -EINVAL;
	return add(ir, path, &e);
}

int vm_initramfs_symlink(struct vm_initramfs *ir, const char *path,
			 const char *target)
{
	struct entry e = { .kind = ENTRY_SYMLINK, .nlink = 1, .fd = -1,
			   .mode = S_IFLNK | 0777 };
	if (!target || !target[0])
		return -EINVAL;
	e.len = strlen(target);
	if (e.len >= NAME_MAX_LEN)
		return -ENAMETOOLONG;
	if (!(e.data = strdup(target)))
		return -ENOMEM;
	return add(ir, path, &e);
}

/* --- a program and its libraries ------------------------------------------ */

/* What ldd answered: its output (stdout and stderr) and exit status. */
struct ldd_answer {
	char *text;
	size_t len;
	int status;
};

/* Runs `ldd exe` with posix_spawn, its output into a->text.  0, or a
 * positive errno (ENOENT: no ldd). */
static int run_ldd(const char *exe, struct ldd_answer *a)
{
	char *argv[] = { "ldd", (char *)exe, NULL };
	posix_spawn_file_actions_t actions;
	int pipe_fd[2];
	size_t cap = 4096;
	pid_t pid;
	int rc;

	*a = (struct ldd_answer){ .text = malloc(cap) };
	if (!a->text)
		return ENOMEM;
	if (pipe2(pipe_fd, O_CLOEXEC))
		return errno;
	if ((rc = posix_spawn_file_actions_init(&actions))) {
		close(pipe_fd[0]);
		close(pipe_fd[1]);
		return rc;
	}
	posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], STDERR_FILENO);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	rc = posix_spawnp(&pid, "ldd", &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(pipe_fd[1]);
	if (rc) {
		close(pipe_fd[0]);
		return rc;
	}
	for (;;) {
		if (a->len + 1 == cap) {
			char *grown = realloc(a->text, cap * 2);
			if (!grown)
				break;	/* the rest is drained unread */
			a->text = grown;
			cap *= 2;
		}
		ssize_t got = read(pipe_fd[0], a->text + a->len,
				   cap - 1 - a->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		a->len += (size_t)got;
	}
	a->text[a->len] = '\0';
	char drain[4096];
	while (read(pipe_fd[0], drain, sizeof(drain)) > 0)
		;
	close(pipe_fd[0]);
	while (waitpid(pid, &a->status, 0) < 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

/* "\tlibfoo.so.1 => /lib/x/libfoo.so.1 (0x...)" -> the path into buf;
 * "\t/lib64/ld-linux-x86-64.so.2 (0x...)" -> the loader's path; "" for
 * the vDSO (no file).  -ENOENT: "libfoo.so.1 => not found". */
static int ldd_line_path(const char *line, char *buf, size_t len)
{
	const char *arrow = strstr(line, " => ");
	const char *start = arrow ? arrow + 4 : line;
	while (*start == ' ' || *start == '\t')
		start++;
	buf[0] = '\0';
	if (strncmp(start, "not found", 9) == 0)
		return -ENOENT;
	if (*start != '/')
		return 0;
	const char *end = strstr(start, " (0x");
	size_t n = end ? (size_t)(end - start) : strlen(start);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, start, n);
	buf[n] = '\0';
	return 0;
}

/* A library or the loader at its host path, unless the image has it. */
static int add_library(struct vm_initramfs *ir, const char *host,
		       unsigned mode)
{
	char name[NAME_MAX_LEN];
	int rc = normalise(host, name, sizeof(name));
	if (rc)
		return rc;
	struct entry *e = find(ir, name);
	if (e)
		return e->kind == ENTRY_FILE ? 0 : -EEXIST;
	return vm_initramfs_file(ir, host, host, mode);
}

/* The libraries ldd named, one line of a->text at a time. */
static int add_libraries(struct vm_initramfs *ir, const char *exe,
			 const char *text, char *err, size_t errlen)
{
	char path[NAME_MAX_LEN];
	for (const char *line = text; *line;) {
		size_t n = strcspn(line, "\n");
		char one[NAME_MAX_LEN + 256];
		snprintf(one, sizeof(one), "%.*s", (int)n, line);
		line += n + (line[n] == '\n');
		int rc = ldd_line_path(one, path, sizeof(path));
		if (rc == -ENOENT) {
			char *arrow = strstr(one, " => ");
			char *lib = one + strspn(one, " \t");
			if (arrow)
				*arrow = '\0';
			snprintf(err, errlen, "%s needs %s, which ldd does not "
				 "find", exe, lib);
			return -1;
		}
		if (!rc && path[0])
			rc = add_library(ir, path, 0755);
		if (rc) {
			snprintf(err, errlen, "%s (a library of %s): %s",
				 path[0] ? path : one, exe,
				 map_errno_text(-rc));
			return -1;
		}
	}
	return 0;
}

/* The last line of text that has anything on it, for a message. */
static void last_line(const char *text, char *buf, size_t len)
{
	const char *best = "", *line = text;
	size_t best_n = 0;
	while (*line) {
		size_t n = strcspn(line, "\n");
		size_t skip = strspn(line, " \t");
		if (skip < n) {
			best = line + skip;
			best_n = n - skip;
		}
		line += n + (line[n] == '\n');
	}
	snprintf(buf, len, "%.*s", (int)best_n, best);
}

int vm_initramfs_program(struct vm_initramfs *ir, const char *path,
			 const char *host_exe, char *err, size_t errlen)
{
	struct ldd_answer a;
	int rc = vm_initramfs_file(ir, path, host_exe, 0755);
	if (rc) {
		if (rc == -EEXIST || rc == -ENOTDIR || rc == -EINVAL)
			snprintf(err, errlen, "%s in the initramfs: %s", path,
				 map_errno_text(-rc));
		else
			snprintf(err, errlen, "%s: %s", host_exe,
				 map_errno_text(-rc));
		return -1;
	}
	if ((rc = run_ldd(host_exe, &a))) {
		snprintf(err, errlen, "ldd %s: %s%s", host_exe,
			 map_errno_text(rc), rc == ENOENT ? " (ldd finds the "
			 "libraries the VM's init needs: install libc-bin)" :
			 "");
		free(a.text);
		return -1;
	}
	/* glibc's ldd says so, and exits 1, for a static program. */
	if (strstr(a.text, "not a dynamic executable") ||
	    strstr(a.text, "statically linked")) {
		free(a.text);
		return 0;
	}
	if (!WIFEXITED(a.status) || WEXITSTATUS(a.status) != 0) {
		char line[512];
		last_line(a.text, line, sizeof(line));
		snprintf(err, errlen, "ldd %s failed: %s", host_exe,
			 line[0] ? line : "no output");
		free(a.text);
		return -1;
	}
	rc = add_libraries(ir, host_exe, a.text, err, errlen);
	free(a.text);
	if (rc)
		return -1;
	/* The loader finds each library through the same cache as here. */
	if (access("/etc/ld.so.cache", R_OK) == 0 &&
	    (rc = add_library(ir, "/etc/ld.so.cache", 0644))) {
		snprintf(err, errlen, "/etc/ld.so.cache: %s",
			 map_errno_text(-rc));
		return -1;
	}
	return 0;
}

/* --- writing -------------------------------------------------------------- */

static void pad4(FILE *f, size_t written)
{
	static const char zeros[4];
	if (written % 4)
		fwrite(zeros, 1, 4 - written % 4, f);
}

static void write_header(FILE *f, unsigned ino, const struct entry *e,
			 const char *name, size_t size)
{
	size_t namesize = strlen(name) + 1;
	fprintf(f, NEWC_MAGIC "%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X"
		"%08X%08X", ino, e->mode, 0u, 0u, e->nlink, 0u, (unsigned)size,
		0u, 0u, e->rmajor, e->rminor, (unsigned)namesize, 0u);
	fwrite(name, 1, namesize, f);
	pad4(f, 110 + namesize);
}

/* A file's host bytes, exactly e->len of them.  0, or -1 with err. */
static int copy_host_file(FILE *f, const struct entry *e, char *err,
			  size_t errlen)
{
	char buf[65536];
	size_t done = 0;
	while (done < e->len) {
		size_t want = e->len - done < sizeof(buf) ?
			      e->len - done : sizeof(buf);
		ssize_t got = pread(e->fd, buf, want, (off_t)done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "%s: %s", e->host,
				 map_errno_text(errno));
			return -1;
		}
		if (got == 0) {
			snprintf(err, errlen, "%s: shrank while the initramfs "
				 "was written (%zu bytes of %zu)", e->host,
				 done, e->len);
			return -1;
		}
		if (fwrite(buf, 1, (size_t)got, f) != (size_t)got)
			return 0;	/* the outfile keeps the errno */
		done += (size_t)got;
	}
	return 0;
}

static int write_entry(struct vm_initramfs *ir, unsigned ino,
		       const struct entry *e, char *err, size_t errlen)
{
	FILE *f = ir->out.f;
	bool no_data = e->kind == ENTRY_DIR || e->kind == ENTRY_NODE;
	size_t size = no_data ? 0 : e->len;
	write_header(f, ino, e, e->name, size);
	if (e->kind == ENTRY_FILE) {
		if (copy_host_file(f, e, err, errlen))
			return -1;
	} else if (size) {
		fwrite(e->data, 1, size, f);
	}
	pad4(f, size);
	return 0;
}

static void free_entries(struct vm_initramfs *ir)
{
	for (size_t i = 0; i < ir->n; i++) {
		struct entry *e = &ir->entries[i];
		free(e->name);
		free(e->data);
		free(e->host);
		if (e->fd >= 0)
			close(e->fd);
	}
	free(ir->entries);
	free(ir);
}

int vm_initramfs_open(struct vm_initramfs **ir, const char *path,
		      char *err, size_t errlen)
{
	struct vm_initramfs *img = calloc(1, sizeof(*img));
	int rc;
	*ir = NULL;
	if (!img) {
		snprintf(err, errlen, "%s: %s", path, map_errno_text(ENOMEM));
		return -1;
	}
	if ((rc = out_open(&img->out, path, OUT_TRUNCATE))) {
		snprintf(err, errlen, "%s: %s", path, map_errno_text(-rc));
		free(img);
		return -1;
	}
	*ir = img;
	return 0;
}

int vm_initramfs_close(struct vm_initramfs *ir, char *err, size_t errlen)
{
	static const struct entry trailer = { .nlink = 1 };
	int rc = 0;
	for (size_t i = 0; i < ir->n && !rc; i++) {
		if (write_entry(ir, (unsigned)i + 1, &ir->entries[i], err,
				errlen)) {
			out_discard(&ir->out);
			free_entries(ir);
			return -1;
		}
		/* A full disk stops the writing at the entry that met it. */
		rc = out_flush(&ir->out);
	}
	if (!rc) {
		write_header(ir->out.f, 0, &trailer, NEWC_TRAILER, 0);
		rc = out_close(&ir->out);
	} else {
		out_discard(&ir->out);
	}
	if (rc)
		out_error(&ir->out, rc, err, errlen);
	free_entries(ir);
	return rc ? -1 : 0;
}

void vm_initramfs_discard(struct vm_initramfs *ir)
{
	if (!ir)
		return;
	out_discard(&ir->out);
	free_entries(ir);
}
