/* SPDX-License-Identifier: MIT */
/*
 * kernel-compare/vm/vm_protocol.h: a job read back as it was written, and
 * the results stream of a VM: every recording back whole, dumps and stops
 * included; a stream cut short gives back the whole frames before the cut
 * and says how many; a stream that is not maplab's is refused.  And
 * kernel-compare/vm/vm_session.h's frames: one whose bytes come in bursts
 * further apart than the read's timeout is still read whole (a slow VM
 * must not make the next read start inside a frame), and a wait that
 * sees no frame begin leaves the stream as it was.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel-compare/vm/vm_protocol.h"
#include "kernel-compare/vm/vm_session.h"

#include <pthread.h>
#include <sys/socket.h>
#include <time.h>

Test(vm_job, reads_back_as_written)
{
	struct vm_job job = { .cpus = 8, .verbose = true, .n_traces = 1200,
			      .session = true }, back;
	char text[256], err[128];
	cr_assert_gt(vm_job_format(&job, text, sizeof(text)), 0);
	cr_assert_eq(vm_job_parse(text, &back, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(back.cpus, 8);
	cr_expect(back.verbose);
	cr_expect_eq(back.n_traces, 1200);
	cr_expect(back.session);
	cr_expect_eq(vm_job_parse("maplab-vm-job 2\ncpus 1\n", &back, err,
				  sizeof(err)), -1);
	cr_expect_str_eq(err, "/job/job is not a job of this maplab");
}

/* The stream the agent would write for three traces: a plain one, one
 * with a dump's records, one stopped at a trace error. */
static char *stream(size_t *len)
{
	FILE *f = tmpfile();
	cr_assert_not_null(f);
	struct vm_results_writer *w;
	cr_assert_eq(vm_results_open(&w, fileno(f)), 0);
	struct replay_end done = { .stop = REPLAY_DONE };
	struct replay_end stopped = { .stop = REPLAY_TRACE_ERROR, .line = 1,
				      .map_err = -EINVAL };
	snprintf(stopped.why, sizeof(stopped.why),
		 "t:2: operation on the map of line 1, which could not be "
		 "created (EINVAL on kernel)");
	const char *dump = "ok\nok 2\n  01 11\n  02 22\n";
	cr_assert_eq(vm_results_put(w, 0, "ok\nerr ENOENT\n", 14, &done), 0);
	cr_assert_eq(vm_results_put(w, 1, dump, strlen(dump), &done), 0);
	cr_assert_eq(vm_results_put(w, 2, "err EINVAL\n", 11, &stopped), 0);
	cr_assert_eq(vm_results_close(w, 3), 0);
	fflush(f);
	long size = ftell(f);
	char *data = malloc((size_t)size);
	rewind(f);
	cr_assert_eq(fread(data, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return data;
}

Test(vm_results, every_recording_comes_back_whole)
{
	size_t len, answered;
	char *data = stream(&len), err[256];
	struct vm_trace t[3] = { 0 };
	cr_assert_eq(vm_results_parse(data, len, "kernel x (VM)", t, 3,
				      &answered, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(answered, 3);
	cr_expect_str_eq(t[0].rec.text, "ok\nerr ENOENT\n");
	cr_expect_str_eq(t[1].rec.text, "ok\nok 2\n  01 11\n  02 22\n");
	cr_expect_str_eq(t[1].rec.label, "kernel x (VM)");
	cr_expect_eq(t[2].rec.end.stop, REPLAY_TRACE_ERROR);
	cr_expect_eq(t[2].rec.end.line, 1);
	cr_expect_eq(t[2].rec.end.map_err, -EINVAL);
	cr_expect(strstr(t[2].rec.end.why, "could not be created") != NULL);
	vm_traces_free(t, 3);
	free(data);
}

/* A VM that died mid-way, at any byte: never a success, and the traces
 * that came back are whole and right; cuts late enough bring back some. */
Test(vm_results, a_stream_cut_short_keeps_the_whole_frames_before_it)
{
	const char *want[3] = { "ok\nerr ENOENT\n",
				"ok\nok 2\n  01 11\n  02 22\n", "err EINVAL\n" };
	size_t len, answered, most = 0;
	char *data = stream(&len), err[256];
	for (size_t cut = 0; cut < len; cut++) {
		struct vm_trace t[3] = { 0 };
		cr_assert_eq(vm_results_parse(data, cut, "k", t, 3, &answered,
					      err, sizeof(err)), -1,
			     "a stream cut at %zu of %zu taken whole", cut, len);
		cr_assert_leq(answered, 3);
		for (size_t i = 0; i < answered; i++)
			cr_assert_str_eq(t[i].rec.text, want[i], "cut %zu", cut);
		most = answered > most ? answered : most;
		vm_traces_free(t, 3);
	}
	cr_expect_eq(most, 3, "a cut in the end line still brings all three");
	/* asked for more traces than were sent */
	struct vm_trace four[4] = { 0 };
	cr_expect_eq(vm_results_parse(data, len, "k", four, 4, &answered, err,
				      sizeof(err)), -1);
	cr_expect_str_eq(err, "the results stop after 3 of 4 traces");
	vm_traces_free(four, 4);
	free(data);
}

Test(vm_results, a_stream_that_is_not_maplabs_is_refused)
{
	size_t answered;
	char err[256];
	struct vm_trace t[1] = { 0 };
	cr_expect_eq(vm_results_parse("hello", 5, "k", t, 1, &answered, err,
				      sizeof(err)), -1);
	cr_expect_eq(answered, 0);
	cr_expect_eq(vm_results_parse("", 0, "k", t, 1, &answered, err,
				      sizeof(err)), -1);
	cr_expect_str_eq(err, "no results came back");
}

/* --- frames --------------------------------------------------------------- */

struct slow_writer {
	int fd;
	const unsigned char *bytes;
	size_t len, cut; /* the first cut bytes, a pause, then the rest */
};

static void *write_in_two_bursts(void *arg)
{
	struct slow_writer *w = arg;
	struct timespec pause = { 0, 700 * 1000 * 1000 };
	cr_assert_eq(write(w->fd, w->bytes, w->cut), (ssize_t)w->cut);
	nanosleep(&pause, NULL);
	cr_assert_eq(write(w->fd, w->bytes + w->cut, w->len - w->cut),
		     (ssize_t)(w->len - w->cut));
	return NULL;
}

/* One frame's bytes, as vm_frame_write sends them. */
static size_t frame_bytes(uint32_t kind, const char *text, unsigned char *buf,
			  size_t cap)
{
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(vm_frame_write(sv[0], kind, text, strlen(text) + 1), 0);
	close(sv[0]);
	size_t n = 0;
	ssize_t r;
	while ((r = read(sv[1], buf + n, cap - n)) > 0)
		n += (size_t)r;
	close(sv[1]);
	return n;
}

static void expect_frame(int fd, int timeout_ms, uint32_t kind, const char *text)
{
	uint32_t got;
	void *payload = NULL;
	size_t len = 0;
	int rc = vm_frame_read(fd, timeout_ms, &got, &payload, &len);
	cr_assert_eq(rc, 0, "vm_frame_read: %s", strerror(-rc));
	cr_expect_eq(got, kind);
	cr_expect_eq(len, strlen(text) + 1);
	cr_expect_str_eq(payload, text);
	free(payload);
}

Test(vm_frame, a_frame_sent_in_bursts_slower_than_the_timeout_is_read_whole)
{
	unsigned char buf[4096];
	const char *text = "a frame whose bytes come 0.7 s apart";
	size_t len = frame_bytes(7, text, buf, sizeof(buf));
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* Cut inside the header and inside the payload: both must hold. */
	size_t cuts[] = { 5, len - 3 };
	for (unsigned i = 0; i < 2; i++) {
		struct slow_writer w = { sv[0], buf, len, cuts[i] };
		pthread_t t;
		pthread_create(&t, NULL, write_in_two_bursts, &w);
		expect_frame(sv[1], 200, 7, text);
		pthread_join(t, NULL);
	}
	close(sv[0]);
	close(sv[1]);
}

Test(vm_frame, a_wait_that_sees_no_frame_begin_leaves_the_stream_as_it_was)
{
	unsigned char buf[4096];
	const char *text = "after a wait";
	size_t len = frame_bytes(3, text, buf, sizeof(buf));
	int sv[2];
	uint32_t kind;
	void *payload = NULL;
	size_t n;
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_expect_eq(vm_frame_read(sv[1], 50, &kind, &payload, &n), -ETIMEDOUT);
	cr_assert_eq(write(sv[0], buf, len), (ssize_t)len);
	expect_frame(sv[1], 50, 3, text);
	close(sv[0]);
	cr_expect_eq(vm_frame_read(sv[1], 50, &kind, &payload, &n), -EPIPE);
	close(sv[1]);
}
