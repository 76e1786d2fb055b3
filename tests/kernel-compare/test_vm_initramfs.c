/* SPDX-License-Identifier: MIT */
/*
 * vm_initramfs (kernel-compare/vm/vm_initramfs.h): the images a VM boots
 * are newc archives the kernel unpacks as meant.  Each image here is read
 * back by a small newc reader of the test's own, written from the format
 * (the kernel's Documentation/driver-api/early-userspace/buffer-format
 * .rst), not from the writer: every header field, the padding, the data.
 * Needs no BPF and no root (the chroot check runs as root, skips
 * otherwise).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel-compare/vm/vm_initramfs.h"
#include "tests/common/temp_dir.h"

TEMP_DIR_SUITE(vm_initramfs, "maplab-initramfs");

/* --- a newc reader -------------------------------------------------------- */

struct newc_entry {
	char name[4096];
	unsigned ino, mode, uid, gid, nlink, mtime, size;
	unsigned devmajor, devminor, rmajor, rminor, check;
	const unsigned char *data;
};

struct newc_image {
	unsigned char *bytes;
	size_t len;
	struct newc_entry *e;
	size_t n;		/* the trailer not counted */
};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	cr_assert_geq(n, 0);
	rewind(f);
	unsigned char *buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static unsigned hex8(const unsigned char *p)
{
	char field[9];
	memcpy(field, p, 8);
	field[8] = '\0';
	for (int i = 0; i < 8; i++)
		cr_assert(field[i] && strchr("0123456789ABCDEFabcdef",
					     field[i]),
			  "header field '%s' is not hex", field);
	return (unsigned)strtoul(field, NULL, 16);
}

/* Every entry up to the trailer; the trailer must end the archive. */
static void read_newc(const char *path, struct newc_image *img)
{
	size_t off = 0, cap = 0;
	*img = (struct newc_image){ 0 };
	img->bytes = slurp(path, &img->len);
	for (;;) {
		cr_assert_leq(off + 110, img->len, "header past the end at %zu",
			      off);
		cr_assert_eq(off % 4, 0, "entry at %zu not 4-aligned", off);
		const unsigned char *h = img->bytes + off;
		cr_assert_eq(memcmp(h, "070701", 6), 0, "no newc magic at %zu",
			     off);
		struct newc_entry e = { 0 };
		unsigned *fields[] = { &e.ino, &e.mode, &e.uid, &e.gid,
				       &e.nlink, &e.mtime, &e.size, &e.devmajor,
				       &e.devminor, &e.rmajor, &e.rminor };
		for (int i = 0; i < 11; i++)
			*fields[i] = hex8(h + 6 + 8 * i);
		unsigned namesize = hex8(h + 6 + 8 * 11);
		e.check = hex8(h + 6 + 8 * 12);
		cr_assert_gt(namesize, 1);
		cr_assert_lt(namesize, sizeof(e.name));
		cr_assert_leq(off + 110 + namesize, img->len);
		cr_assert_eq(h[110 + namesize - 1], '\0', "name not NUL-ended");
		memcpy(e.name, h + 110, namesize);
		cr_assert_eq(strlen(e.name), namesize - 1,
			     "a NUL inside a name");
		size_t data = (off + 110 + namesize + 3) / 4 * 4;
		for (size_t p = off + 110 + namesize; p < data; p++)
			cr_assert_eq(img->bytes[p], 0, "name padding not zero");
		cr_assert_leq(data + e.size, img->len, "%s: data past the end",
			      e.name);
		e.data = img->bytes + data;
		off = (data + e.size + 3) / 4 * 4;
		for (size_t p = data + e.size; p < off && p < img->len; p++)
			cr_assert_eq(img->bytes[p], 0, "data padding not zero");
		if (strcmp(e.name, "TRAILER!!!") == 0) {
			cr_assert_eq(e.size, 0);
			cr_assert_eq(off, img->len, "bytes after the trailer");
			return;
		}
		if (img->n == cap) {
			cap = cap ? cap * 2 : 64;
			img->e = realloc(img->e, cap * sizeof(*img->e));
			cr_assert_not_null(img->e);
		}
		img->e[img->n++] = e;
	}
}

static void free_newc(struct newc_image *img)
{
	free(img->bytes);
	free(img->e);
}

static const struct newc_entry *entry(const struct newc_image *img,
				      const char *name)
{
	for (size_t i = 0; i < img->n; i++)
		if (strcmp(img->e[i].name, name) == 0)
			return &img->e[i];
	return NULL;
}

static const struct newc_entry *must(const struct newc_image *img,
				     const char *name)
{
	const struct newc_entry *e = entry(img, name);
	cr_assert_not_null(e, "no %s in the image", name);
	return e;
}

/* The entry holds exactly the host file's bytes. */
static void same_as_host(const struct newc_image *img, const char *name,
			 const char *host)
{
	const struct newc_entry *e = must(img, name);
	size_t len;
	unsigned char *bytes = slurp(host, &len);
	cr_assert(S_ISREG(e->mode), "%s: mode %o", name, e->mode);
	cr_assert_eq(e->size, len, "%s: %u bytes, %s has %zu", name, e->size,
		     host, len);
	cr_assert_eq(memcmp(e->data, bytes, len), 0, "%s differs from %s",
		     name, host);
	free(bytes);
}

/* --- the program's own view of what it needs ------------------------------ */

/* The ELF's PT_INTERP (its loader), "" for none: read here, not by ldd. */
static void interpreter_of(const char *path, char *out, size_t len)
{
	size_t n;
	unsigned char *b = slurp(path, &n);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
	out[0] = '\0';
	cr_assert_geq(n, sizeof(*eh));
	cr_assert_eq(memcmp(eh->e_ident, ELFMAG, SELFMAG), 0);
	cr_assert_eq(eh->e_ident[EI_CLASS], ELFCLASS64);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)
			(b + eh->e_phoff + (size_t)i * eh->e_phentsize);
		if (ph->p_type == PT_INTERP) {
			snprintf(out, len, "%.*s", (int)ph->p_filesz,
				 (const char *)b + ph->p_offset);
			break;
		}
	}
	free(b);
}

/* --- building images ------------------------------------------------------ */

static const char init_script[] = "#!/bin/busybox sh\necho hello\n";

static void write_host_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* One of each kind of entry, and /bin/true as a program. */
static void build(const char *image, const char *trace)
{
	struct vm_initramfs *ir;
	char err[512];
	cr_assert_eq(vm_initramfs_open(&ir, image, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(vm_initramfs_dir(ir, "/proc"), 0);
	cr_assert_eq(vm_initramfs_dir(ir, "/dev"), 0);
	cr_assert_eq(vm_initramfs_node(ir, "/dev/console", S_IFCHR | 0600, 5,
				       1), 0);
	cr_assert_eq(vm_initramfs_bytes(ir, "/init", init_script,
					strlen(init_script), 0755), 0);
	cr_assert_eq(vm_initramfs_file(ir, "/job/t.trace", trace, 0644), 0);
	/* parents made as needed, several deep */
	cr_assert_eq(vm_initramfs_bytes(ir, "/a/b/c/empty", "", 0, 0600), 0);
	cr_assert_eq(vm_initramfs_dir(ir, "/a/b/d"), 0);
	cr_assert_eq(vm_initramfs_symlink(ir, "/bin/sh", "busybox"), 0);
	cr_assert_eq(vm_initramfs_program(ir, "/bin/true", "/bin/true", err,
					  sizeof(err)), 0, "%s", err);
	cr_assert_eq(vm_initramfs_close(ir, err, sizeof(err)), 0, "%s", err);
}

Test(vm_initramfs, every_entry_reads_back_as_added)
{
	char image[128], trace[128];
	snprintf(image, sizeof(image), "%s/initrd.cpio", dir);
	snprintf(trace, sizeof(trace), "%s/t.trace", dir);
	write_host_file(trace,
			"map hash key_size=4 value_size=4 max_entries=2\n");
	build(image, trace);

	struct newc_image img;
	read_newc(image, &img);

	const struct newc_entry *e = must(&img, "dev");
	cr_expect_eq(e->mode, S_IFDIR | 0755);
	cr_expect_eq(e->nlink, 2, "dev: nlink %u", e->nlink);
	cr_expect_eq(e->size, 0);
	e = must(&img, "dev/console");
	cr_expect_eq(e->mode, S_IFCHR | 0600, "mode %o", e->mode);
	cr_expect(e->rmajor == 5 && e->rminor == 1, "%u:%u", e->rmajor,
		  e->rminor);
	cr_expect_eq(e->size, 0);
	e = must(&img, "init");
	cr_expect_eq(e->mode, S_IFREG | 0755, "mode %o", e->mode);
	cr_expect_eq(e->size, strlen(init_script));
	cr_expect_eq(memcmp(e->data, init_script, e->size), 0);
	same_as_host(&img, "job/t.trace", trace);
	cr_expect_eq(must(&img, "job/t.trace")->mode, S_IFREG | 0644);
	cr_expect_eq(must(&img, "job")->mode, S_IFDIR | 0755);
	e = must(&img, "a/b/c/empty");
	cr_expect_eq(e->mode, S_IFREG | 0600);
	cr_expect_eq(e->size, 0);
	/* a: one subfolder (b); b: two (c, d) */
	cr_expect_eq(must(&img, "a")->nlink, 3);
	cr_expect_eq(must(&img, "a/b")->nlink, 4);
	cr_expect_eq(must(&img, "a/b/c")->nlink, 2);
	cr_expect_eq(must(&img, "a/b/d")->nlink, 2);
	e = must(&img, "bin/sh");
	cr_expect_eq(e->mode, S_IFLNK | 0777, "mode %o", e->mode);
	cr_expect_eq(e->size, strlen("busybox"));
	cr_expect_eq(memcmp(e->data, "busybox", e->size), 0);
	same_as_host(&img, "bin/true", "/bin/true");
	cr_expect_eq(must(&img, "bin/true")->mode, S_IFREG | 0755);

	/* The program's loader, where its ELF header says, and the C
	 * library it needs, as this machine's. */
	char interp[256];
	interpreter_of("/bin/true", interp, sizeof(interp));
	cr_assert(interp[0] == '/', "/bin/true has no PT_INTERP");
	same_as_host(&img, interp + 1, interp);
	bool libc = false;
	for (size_t i = 0; i < img.n; i++) {
		const char *base = strrchr(img.e[i].name, '/');
		if (base && strcmp(base, "/libc.so.6") == 0) {
			char host[4200];
			snprintf(host, sizeof(host), "/%s", img.e[i].name);
			same_as_host(&img, img.e[i].name, host);
			libc = true;
		}
	}
	cr_expect(libc, "no libc.so.6 in the image");

	/* Every entry: owned by root, mtime 0, a unique inode, the parent
	 * before the child, no leading '/'. */
	for (size_t i = 0; i < img.n; i++) {
		e = &img.e[i];
		cr_expect(e->uid == 0 && e->gid == 0 && e->mtime == 0 &&
			  e->check == 0, "%s: uid %u gid %u mtime %u", e->name,
			  e->uid, e->gid, e->mtime);
		cr_expect_neq(e->name[0], '/', "%s", e->name);
		cr_expect_gt(e->ino, 0);
		if (!S_ISDIR(e->mode))
			cr_expect_eq(e->nlink, 1, "%s: nlink %u", e->name,
				     e->nlink);
		for (size_t j = 0; j < i; j++)
			cr_expect_neq(img.e[j].ino, e->ino, "%s and %s share "
				      "an inode", img.e[j].name, e->name);
		char parent[4096];
		snprintf(parent, sizeof(parent), "%s", e->name);
		char *slash = strrchr(parent, '/');
		if (slash) {
			*slash = '\0';
			const struct newc_entry *p = entry(&img, parent);
			cr_expect(p && p < e && S_ISDIR(p->mode), "%s comes "
				  "without its folder %s before it", e->name,
				  parent);
		}
	}
	free_newc(&img);
}

/* What the image holds is enough to run the program: chrooted into the
 * unpacked image, /bin/true runs with nothing else there.  Root only. */
Test(vm_initramfs, the_program_runs_from_the_image_alone)
{
	if (geteuid() != 0)
		cr_skip_test("chroot needs root");
	char image[128], trace[128], root[128];
	snprintf(image, sizeof(image), "%s/initrd.cpio", dir);
	snprintf(trace, sizeof(trace), "%s/t.trace", dir);
	snprintf(root, sizeof(root), "%s/root", dir);
	write_host_file(trace, "");
	build(image, trace);
	struct newc_image img;
	read_newc(image, &img);
	cr_assert_eq(mkdir(root, 0755), 0);
	for (size_t i = 0; i < img.n; i++) {
		const struct newc_entry *e = &img.e[i];
		char path[4300];
		snprintf(path, sizeof(path), "%s/%s", root, e->name);
		if (S_ISDIR(e->mode)) {
			cr_assert_eq(mkdir(path, e->mode & 07777), 0, "%s",
				     path);
		} else if (S_ISREG(e->mode)) {
			FILE *f = fopen(path, "wb");
			cr_assert_not_null(f, "%s", path);
			cr_assert_eq(fwrite(e->data, 1, e->size, f), e->size);
			cr_assert_eq(fclose(f), 0);
			cr_assert_eq(chmod(path, e->mode & 07777), 0);
		}	/* the node and the symlink are not needed */
	}
	free_newc(&img);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (chroot(root) || chdir("/"))
			_exit(100);
		execl("/bin/true", "true", (char *)NULL);
		_exit(101);	/* the loader or a library missing */
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "/bin/true in the image: status %d", status);
}

Test(vm_initramfs, the_same_inputs_give_the_same_bytes)
{
	char a[128], b[128], trace[128];
	snprintf(a, sizeof(a), "%s/a.cpio", dir);
	snprintf(b, sizeof(b), "%s/b.cpio", dir);
	snprintf(trace, sizeof(trace), "%s/t.trace", dir);
	write_host_file(trace, "update 01000000 02000000\n");
	build(a, trace);
	build(b, trace);
	size_t na, nb;
	unsigned char *ba = slurp(a, &na), *bb = slurp(b, &nb);
	cr_assert_eq(na, nb);
	cr_expect_eq(memcmp(ba, bb, na), 0, "two images of the same inputs "
		     "differ");
	free(ba);
	free(bb);
}

/* --- refusals ------------------------------------------------------------- */

Test(vm_initramfs, bad_entries_are_refused_with_their_errno)
{
	char image[128], err[512];
	struct vm_initramfs *ir;
	snprintf(image, sizeof(image), "%s/bad.cpio", dir);
	cr_assert_eq(vm_initramfs_open(&ir, image, err, sizeof(err)), 0);
	cr_expect_eq(vm_initramfs_bytes(ir, "/x", "1", 1, 0644), 0);
	cr_expect_eq(vm_initramfs_bytes(ir, "/x", "2", 1, 0644), -EEXIST);
	cr_expect_eq(vm_initramfs_bytes(ir, "//x", "2", 1, 0644), -EEXIST);
	cr_expect_eq(vm_initramfs_bytes(ir, "/x/y", "2", 1, 0644), -ENOTDIR);
	cr_expect_eq(vm_initramfs_dir(ir, "/x"), -ENOTDIR);
	cr_expect_eq(vm_initramfs_bytes(ir, "/../etc/x", "2", 1, 0644),
		     -EINVAL);
	cr_expect_eq(vm_initramfs_bytes(ir, "/a/./b", "2", 1, 0644), -EINVAL);
	cr_expect_eq(vm_initramfs_bytes(ir, "/", "2", 1, 0644), -EEXIST);
	cr_expect_eq(vm_initramfs_bytes(ir, "/f", "2", 1, S_IFDIR | 0755),
		     -EINVAL);
	cr_expect_eq(vm_initramfs_dir(ir, "/d"), 0);
	cr_expect_eq(vm_initramfs_dir(ir, "/d/"), 0, "a folder again is 0");
	cr_expect_eq(vm_initramfs_node(ir, "/n", S_IFREG | 0600, 1, 3),
		     -EINVAL);
	cr_expect_eq(vm_initramfs_symlink(ir, "/l", ""), -EINVAL);
	cr_expect_eq(vm_initramfs_file(ir, "/h", "/nonexistent/file", 0644),
		     -ENOENT);
	cr_expect_eq(vm_initramfs_file(ir, "/h", dir, 0644), -EISDIR);
	cr_expect_eq(vm_initramfs_file(ir, "/h", "/dev/null", 0644), -EINVAL);
	cr_expect_eq(vm_initramfs_program(ir, "/p", "/nonexistent/prog", err,
					  sizeof(err)), -1);
	cr_expect_str_eq(err, "/nonexistent/prog: No such file or directory");
	cr_expect_eq(vm_initramfs_program(ir, "/x", "/bin/true", err,
					  sizeof(err)), -1);
	cr_expect_str_eq(err, "/x in the initramfs: File exists");
	/* What was refused is not in the image. */
	cr_assert_eq(vm_initramfs_close(ir, err, sizeof(err)), 0, "%s", err);
	struct newc_image img;
	read_newc(image, &img);
	cr_expect_eq(img.n, 2, "%zu entries", img.n);
	cr_expect_eq(must(&img, "x")->data[0], '1');
	must(&img, "d");
	free_newc(&img);
}

Test(vm_initramfs, an_image_in_a_missing_folder_is_one_line)
{
	struct vm_initramfs *ir = (struct vm_initramfs *)&ir;
	char image[128], err[512];
	snprintf(image, sizeof(image), "%s/no/such/initrd.cpio", dir);
	cr_assert_eq(vm_initramfs_open(&ir, image, err, sizeof(err)), -1);
	cr_expect_null(ir);
	char want[640];
	snprintf(want, sizeof(want), "%s: No such file or directory", image);
	cr_expect_str_eq(err, want);
}

/* A full disk (a link to /dev/full): one line naming the image, and no
 * file made; the link itself is the test's. */
Test(vm_initramfs, a_full_disk_is_one_line_and_no_file)
{
	char link[128], trace[128], err[512], want[640];
	struct vm_initramfs *ir;
	snprintf(link, sizeof(link), "%s/initrd.cpio", dir);
	snprintf(trace, sizeof(trace), "%s/t.trace", dir);
	write_host_file(trace, "lookup 01000000\n");
	cr_assert_eq(symlink("/dev/full", link), 0);
	cr_assert_eq(vm_initramfs_open(&ir, link, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(vm_initramfs_file(ir, "/job/t.trace", trace, 0644), 0);
	cr_assert_eq(vm_initramfs_program(ir, "/bin/true", "/bin/true", err,
					  sizeof(err)), 0, "%s", err);
	cr_assert_eq(vm_initramfs_close(ir, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: No space left on device", link);
	cr_expect_str_eq(err, want);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "the link was replaced");
	DIR *d = opendir(dir);
	struct dirent *de;
	cr_assert_not_null(d);
	while ((de = readdir(d)))
		cr_expect(de->d_name[0] == '.' ||
			  strcmp(de->d_name, "initrd.cpio") == 0 ||
			  strcmp(de->d_name, "t.trace") == 0,
			  "%s was left in %s", de->d_name, dir);
	closedir(d);
}

/* A host file that shrank between add and close: one line naming it,
 * and the image removed. */
Test(vm_initramfs, a_host_file_that_shrank_removes_the_image)
{
	char image[128], host[128], err[512], want[640];
	struct vm_initramfs *ir;
	snprintf(image, sizeof(image), "%s/initrd.cpio", dir);
	snprintf(host, sizeof(host), "%s/t.trace", dir);
	write_host_file(host, "0123456789\n");
	cr_assert_eq(vm_initramfs_open(&ir, image, err, sizeof(err)), 0);
	cr_assert_eq(vm_initramfs_file(ir, "/job/t.trace", host, 0644), 0);
	cr_assert_eq(truncate(host, 3), 0);
	cr_assert_eq(vm_initramfs_close(ir, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: shrank while the initramfs was "
		 "written (3 bytes of 11)", host);
	cr_expect_str_eq(err, want);
	cr_expect_eq(access(image, F_OK), -1, "the image was left");
}

Test(vm_initramfs, a_discarded_image_is_removed)
{
	char image[128], err[512];
	struct vm_initramfs *ir;
	snprintf(image, sizeof(image), "%s/initrd.cpio", dir);
	cr_assert_eq(vm_initramfs_open(&ir, image, err, sizeof(err)), 0);
	cr_assert_eq(vm_initramfs_dir(ir, "/dev"), 0);
	cr_assert_eq(access(image, F_OK), 0);
	vm_initramfs_discard(ir);
	cr_expect_eq(access(image, F_OK), -1);
	vm_initramfs_discard(NULL);
}
