/* SPDX-License-Identifier: MIT */
/*
 * vm_protocol.c: the job and the results stream (vm_protocol.h).
 */
#include "kernel-compare/vm/vm_protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define JOB_MAGIC "maplab-vm-job 1\n"
#define RESULTS_MAGIC "maplab-vm-results 1\n"

/* --- the job ---------------------------------------------------------------- */

int vm_job_format(const struct vm_job *job, char *buf, size_t len)
{
	int n = snprintf(buf, len, JOB_MAGIC "cpus %u\nverbose %d\ntraces "
			 "%zu\nsession %d\n", job->cpus, job->verbose,
			 job->n_traces, job->session);
	return n >= 0 && (size_t)n < len ? n : -1;
}

int vm_job_parse(const char *text, struct vm_job *job, char *err,
		 size_t errlen)
{
	int verbose, session;
	if (strncmp(text, JOB_MAGIC, strlen(JOB_MAGIC)) != 0 ||
	    sscanf(text + strlen(JOB_MAGIC), "cpus %u\nverbose %d\ntraces "
		   "%zu\nsession %d\n", &job->cpus, &verbose, &job->n_traces,
		   &session) != 4) {
		snprintf(err, errlen, "%s is not a job of this maplab",
			 VM_JOB_FILE);
		return -1;
	}
	job->verbose = verbose != 0;
	job->session = session != 0;
	return 0;
}

/* --- the results, written ------------------------------------------------- */

struct vm_results_writer {
	int fd;
	z_stream z;
	unsigned char out[1 << 16];
};

/* Deflate len bytes (flush: Z_NO_FLUSH, Z_SYNC_FLUSH or Z_FINISH) and
 * write what comes out: 0 or -errno. */
static int deflate_out(struct vm_results_writer *w, const void *data,
		       size_t len, int flush)
{
	w->z.next_in = (Bytef *)data;
	w->z.avail_in = (uInt)len;
	do {
		w->z.next_out = w->out;
		w->z.avail_out = sizeof(w->out);
		if (deflate(&w->z, flush) == Z_STREAM_ERROR)
			return -EIO;
		size_t have = sizeof(w->out) - w->z.avail_out;
		for (size_t done = 0; done < have;) {
			ssize_t n = write(w->fd, w->out + done, have - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			done += (size_t)n;
		}
	} while (w->z.avail_out == 0 || w->z.avail_in > 0);
	return 0;
}

int vm_results_open(struct vm_results_writer **out, int fd)
{
	struct vm_results_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	if (deflateInit(&w->z, Z_BEST_SPEED) != Z_OK) {
		free(w);
		return -ENOMEM;
	}
	*out = w;
	return deflate_out(w, RESULTS_MAGIC, strlen(RESULTS_MAGIC), Z_NO_FLUSH);
}

int vm_results_put(struct vm_results_writer *w, size_t i, const char *text,
		   size_t len, const struct replay_end *end)
{
	char head[160];
	size_t why_len = end->stop ? strlen(end->why) : 0;
	int n = snprintf(head, sizeof(head), "trace %zu %d %zu %d %zu %zu\n", i,
			 (int)end->stop, end->line, end->map_err, len, why_len);
	int rc = deflate_out(w, head, (size_t)n, Z_NO_FLUSH);
	if (!rc)
		rc = deflate_out(w, text, len, Z_NO_FLUSH);
	/* a sync flush a trace: a VM that dies later loses no whole frame */
	if (!rc)
		rc = deflate_out(w, end->why, why_len, Z_SYNC_FLUSH);
	return rc;
}

int vm_results_close(struct vm_results_writer *w, size_t n)
{
	char tail[64];
	int len = snprintf(tail, sizeof(tail), "end %zu\n", n);
	int rc = deflate_out(w, tail, (size_t)len, Z_FINISH);
	deflateEnd(&w->z);
	free(w);
	return rc;
}

/* --- the results, read ---------------------------------------------------- */

/* Inflate what there is of the stream (a cut one included): the bytes,
 * malloc'd, NUL-terminated, into *out and *outlen, and *whole: whether
 * the stream ended, its checksum right; -1 where nothing is. */
static int inflate_all(const void *data, size_t len, char **out,
		       size_t *outlen, bool *whole)
{
	z_stream z = { .next_in = (Bytef *)data, .avail_in = (uInt)len };
	size_t cap = 4 * len + 4096, have = 0;
	char *buf = malloc(cap);
	if (!buf || inflateInit(&z) != Z_OK) {
		free(buf);
		return -1;
	}
	int zrc;
	do {
		if (cap - have < 4096) {
			char *grown = realloc(buf, cap * 2);
			if (!grown)
				break;
			buf = grown;
			cap *= 2;
		}
		z.next_out = (Bytef *)buf + have;
		z.avail_out = (uInt)(cap - have - 1);
		zrc = inflate(&z, Z_NO_FLUSH);
		have = cap - 1 - z.avail_out;
	} while (zrc == Z_OK && (z.avail_in > 0 || z.avail_out == 0));
	*whole = zrc == Z_STREAM_END;
	inflateEnd(&z);
	buf[have] = '\0';
	*out = buf;
	*outlen = have;
	return 0;
}

/* One frame at *p (of the bytes up to end) into traces[want]: 1 read, 0
 * not there whole (cut short), -1 not a frame for trace `want`. */
static int read_frame(const char **p, const char *end, size_t want,
		      const char *label, struct vm_trace *t)
{
	size_t i, line, len, why_len;
	int stop, map_err, used = 0;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	if (!nl || strncmp(*p, "end ", 4) == 0) /* cut, or no more frames */
		return 0;
	if (sscanf(*p, "trace %zu %d %zu %d %zu %zu\n%n", &i, &stop, &line,
		   &map_err, &len, &why_len, &used) != 6 || used == 0)
		return -1;
	if (i != want || stop < REPLAY_DONE || stop > REPLAY_FAILED ||
	    why_len >= sizeof(t->rec.end.why))
		return -1;
	const char *body = *p + used;
	if ((size_t)(end - body) < len + why_len)
		return 0;
	char *text = malloc(len + 1);
	if (!text)
		return -1;
	memcpy(text, body, len);
	text[len] = '\0';
	t->rec = (struct replay_recorded){ .label = label, .text = text,
					   .len = len };
	t->rec.end = (struct replay_end){ .stop = (enum replay_stop)stop,
					  .line = line, .map_err = map_err };
	memcpy(t->rec.end.why, body + len, why_len);
	t->rec.end.why[why_len] = '\0';
	*p = body + len + why_len;
	return 1;
}

int vm_results_parse(const void *data, size_t len, const char *label,
		     struct vm_trace *traces, size_t n, size_t *answered,
		     char *err, size_t errlen)
{
	char *text;
	size_t have;
	bool whole;
	*answered = 0;
	if (!len || inflate_all(data, len, &text, &have, &whole)) {
		snprintf(err, errlen, "no results came back");
		return -1;
	}
	const char *p = text, *end = text + have;
	int rc = -1;
	if (strncmp(p, RESULTS_MAGIC, strlen(RESULTS_MAGIC)) != 0) {
		snprintf(err, errlen, "%s", have ? "the results are not maplab's"
						 : "no results came back");
		goto out;
	}
	p += strlen(RESULTS_MAGIC);
	for (int got = 1; *answered < n && got == 1;) {
		got = read_frame(&p, end, *answered, label, &traces[*answered]);
		if (got < 0) {
			snprintf(err, errlen, "the results of trace %zu are "
				 "garbled", *answered);
			goto out;
		}
		*answered += (size_t)got;
	}
	size_t told;
	if (*answered < n || sscanf(p, "end %zu\n", &told) != 1 || told != n) {
		snprintf(err, errlen, "the results stop after %zu of %zu traces",
			 *answered, n);
		goto out;
	}
	if (!whole) {
		snprintf(err, errlen, "the results end without their checksum");
		goto out;
	}
	rc = 0;
out:
	free(text);
	return rc;
}
