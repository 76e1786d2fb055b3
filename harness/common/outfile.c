/* SPDX-License-Identifier: MIT */
/*
 * outfile.c: files written whole or not at all (outfile.h).
 */
#include "harness/common/outfile.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int out_open(struct outfile *o, const char *path, enum out_mode mode)
{
	struct stat st;
	*o = (struct outfile){ .mode = mode };
	if (strlen(path) >= sizeof(o->path))
		return -ENAMETOOLONG;
	strcpy(o->path, path);
	if (!(o->f = fopen(path, mode == OUT_APPEND ? "a" : "w")))
		return -errno;
	if (fstat(fileno(o->f), &st) == 0 && S_ISREG(st.st_mode)) {
		o->undo = true;
		o->start = mode == OUT_APPEND ? st.st_size : 0;
	}
	return 0;
}

void out_stdout(struct outfile *o)
{
	*o = (struct outfile){ .f = stdout, .is_stdout = true };
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
	if (!o->err)
		o->err = stream_error(o->f);
	return -o->err;
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

static void finish(struct outfile *o, bool discard)
{
	if (o->is_stdout)
		return;
	if (fclose(o->f) && !o->err)
		o->err = errno ? errno : EIO;
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
