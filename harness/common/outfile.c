/* SPDX-License-Identifier: MIT */
/*
 * outfile.c: files written whole or not at all (outfile.h).
 *
 * The stream is stdio's, over a cookie whose write and close are ours:
 * a failed write(2) leaves its errno in the outfile before stdio sees the
 * failure.  stdio itself keeps only a flag, and once a flush has failed
 * and its buffer was dropped, nothing says why (or, at fclose, that
 * anything failed at all).
 */
#include "harness/common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void keep_error(struct outfile *o, int err)
{
	if (!o->err)
		o->err = err ? err : EIO;
}

/* stdio's write: all of buf, or -1 with the errno kept.  A short write
 * is retried, as a full disk answers short before it answers ENOSPC. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
	struct outfile *o = cookie;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(o->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			keep_error(o, n < 0 ? errno : ENOSPC);
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

static int cookie_close(void *cookie)
{
	struct outfile *o = cookie;
	if (close(o->fd)) {
		keep_error(o, errno);
		return -1;
	}
	return 0;
}

/* The file as it was before this outfile wrote: gone, or cut back. */
static void undo(struct outfile *o)
{
	if (!o->undo)
		return;
	if (o->mode == OUT_APPEND) {
		if (truncate(o->path, o->start)) {
			/* nothing more to do: the caller reports o->err */
		}
	} else {
		unlink(o->path);
	}
}

int out_open(struct outfile *o, const char *path, enum out_mode mode)
{
	struct stat st;
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC |
		    (mode == OUT_APPEND ? O_APPEND : O_TRUNC);
	*o = (struct outfile){ .mode = mode, .fd = -1 };
	if (strlen(path) >= sizeof(o->path))
		return -ENAMETOOLONG;
	strcpy(o->path, path);
	if ((o->fd = open(path, flags, 0666)) < 0)
		return -errno;
	if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		o->undo = true;
		o->start = mode == OUT_APPEND ? st.st_size : 0;
	}
	cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };
	if (!(o->f = fopencookie(o, mode == OUT_APPEND ? "a" : "w", io))) {
		int err = errno;
		close(o->fd);
		undo(o);
		return -err;
	}
	return 0;
}

void out_stdout(struct outfile *o)
{
	*o = (struct outfile){ .f = stdout, .is_stdout = true, .fd = -1 };
}

int stream_error(FILE *f)
{
	errno = 0;
	if (fflush(f))
		return errno ? errno : EIO;
	return ferror(f) ? EIO : 0;
}

int out_flush(struct outfile *o)
{
	int err = stream_error(o->f);
	if (err)
		keep_error(o, err);
	return -o->err;
}

static void finish(struct outfile *o, bool discard)
{
	if (o->is_stdout)
		return;
	if (fclose(o->f))
		keep_error(o, errno);
	if (o->err || discard)
		undo(o);
	o->f = NULL;
}

int out_close(struct outfile *o)
{
	out_flush(o);
	errno = 0;
	finish(o, false);
	return -o->err;
}

void out_discard(struct outfile *o)
{
	finish(o, true);
}

const char *out_error(const struct outfile *o, int rc, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s", o->is_stdout ? "standard output" : o->path,
		 strerror(rc < 0 ? -rc : rc));
	return buf;
}
