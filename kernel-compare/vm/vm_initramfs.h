/* SPDX-License-Identifier: MIT */
/*
 * vm_initramfs.h: the initramfs a maplab VM boots (vm.h): a cpio archive
 * in the kernel's "newc" format, uncompressed, that the kernel unpacks
 * into its rootfs before it runs /init.
 *
 * Uncompressed because the kernel takes it as it is: under TCG (no
 * hardware virtualisation) a compressed image costs seconds of emulated
 * decompression at every boot, and the image is written, booted once and
 * removed.
 *
 * The archive is the same bytes for the same calls in the same order:
 * every entry's owner is root (0/0) and its mtime 0, inode numbers count
 * from 1 in the order entries were added, and a directory's link count is
 * 2 plus its subdirectories, as a real tree's.  Entries are kept in
 * memory (a file as an open descriptor of its host file) and written at
 * vm_initramfs_close, parents before children, in the order they were
 * added; so a directory's link count is known when it is written.
 *
 * Paths are those inside the VM: "/dev/console" (a leading '/' is
 * optional; "//" counts as one '/'; "." and ".." are refused).  Every
 * adder makes the missing parents of its path as directories (0755), and
 * the adders answer 0 or -errno:
 *   -EEXIST   the path is already in the image (vm_initramfs_dir of a
 *             directory already there is 0: parents are made as needed);
 *   -ENOTDIR  a parent is in the image as something else than a folder;
 *   -EINVAL   an empty path, a "." or ".." in it, a mode of another type;
 *   -ENOMEM;  and vm_initramfs_file's host file's own errno.
 *
 * Usage:
 *   struct vm_initramfs *ir;
 *   if (vm_initramfs_open(&ir, path, err, sizeof(err)))  -> one line
 *   vm_initramfs_node(ir, "/dev/console", S_IFCHR | 0600, 5, 1);
 *   vm_initramfs_program(ir, "/init", "/proc/self/exe", err, ...);
 *   if (vm_initramfs_close(ir, err, sizeof(err)))         -> one line
 *
 * Not thread-safe: one caller per image.
 */
#ifndef MAPLAB_VM_INITRAMFS_H
#define MAPLAB_VM_INITRAMFS_H

#include <stddef.h>

struct vm_initramfs;

/*
 * Starts the image at path (a new file, through harness/common/outfile.h:
 * whole or not there).  0, or -1 with one line in err ("PATH: reason")
 * and nothing made.
 */
int vm_initramfs_open(struct vm_initramfs **ir, const char *path,
		      char *err, size_t errlen);

/* A directory, mode 0755. */
int vm_initramfs_dir(struct vm_initramfs *ir, const char *path);

/* A regular file of len bytes from data (copied), mode's permission
 * bits (0644; S_IFREG may be given). */
int vm_initramfs_bytes(struct vm_initramfs *ir, const char *path,
		       const void *data, size_t len, unsigned mode);

/*
 * A regular file holding the bytes of host_path (symlinks followed),
 * with mode's permission bits.  The host file is opened now (its open's
 * errno is the answer; a folder is -EISDIR, another non-regular file
 * -EINVAL, one of 4 GiB or more -EFBIG) and read at close, where one
 * that shrank in between is an error naming it.
 */
int vm_initramfs_file(struct vm_initramfs *ir, const char *path,
		      const char *host_path, unsigned mode);

/* A device node: mode is S_IFCHR or S_IFBLK with permission bits (a
 * FIFO, S_IFIFO, takes no numbers), major and minor its device. */
int vm_initramfs_node(struct vm_initramfs *ir, const char *path,
		      unsigned mode, unsigned major, unsigned minor);

/* A symbolic link to target (kept as given, relative or absolute). */
int vm_initramfs_symlink(struct vm_initramfs *ir, const char *path,
			 const char *target);

/*
 * host_exe at path (0755), and everything the dynamic loader needs to
 * run it in a VM with nothing else in the image: each shared library at
 * the path ldd (run with posix_spawn) found it at on this machine, the
 * loader itself at the program's interpreter path
 * (/lib64/ld-linux-x86-64.so.2), and this machine's /etc/ld.so.cache, so
 * the VM's loader finds every library where this machine's found it (a
 * library found through the cache, in /usr/local/lib, say, included).
 * A library already in the image at that path is not added twice, so two
 * programs may share theirs.  A static program is added alone.
 * Libraries a program dlopen()s are not seen.
 * 0, or -1 with one line in err: the program or a library that cannot be
 * read, one ldd does not find ("PROGRAM needs libfoo.so.1, which ldd
 * does not find"), or ldd missing or failing.
 */
int vm_initramfs_program(struct vm_initramfs *ir, const char *path,
			 const char *host_exe, char *err, size_t errlen);

/*
 * Writes every entry and the trailer ("TRAILER!!!"), closes the file and
 * checks it: 0, the image whole; or -1 with one line in err ("PATH: No
 * space left on device", or the host file that could not be read) and
 * the file removed.  ir is freed either way.
 */
int vm_initramfs_close(struct vm_initramfs *ir, char *err, size_t errlen);

/* Frees ir and removes its file, whatever was added (NULL: nothing). */
void vm_initramfs_discard(struct vm_initramfs *ir);

#endif /* MAPLAB_VM_INITRAMFS_H */
