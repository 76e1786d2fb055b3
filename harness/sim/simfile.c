/* SPDX-License-Identifier: MIT */
/*
 * simfile.c: a trace file read once, then held or streamed (simfile.h).
 *
 * The file is opened once.  Its requests are gathered (sim_trace_gather)
 * up to one more than the hold limit: a trace that ends first is held,
 * having been read exactly once, whatever the file is.  One that does not
 * end there is streamed: its reader is sought back to the start
 * (sim_trace_rewind) for the pass that numbers its keys, and for every
 * pass after; only a regular file can be, so anything else is refused
 * before any pass begins.
 */
#include "harness/sim/simfile.h"
#include "harness/common/parse.h"

#include <errno.h>
#include <string.h>

/* The sim_source a streamed trace is read through (sim.h). */
static int file_rewind(void *ctx, char *err, size_t errlen)
{
	struct sim_file *f = ctx;
	return sim_trace_rewind(f->r, err, errlen);
}

static long file_next(void *ctx, uint64_t *ids, uint32_t *sizes, size_t max,
		      char *err, size_t errlen)
{
	struct sim_file *f = ctx;
	ssize_t got = sim_trace_next(f->r, ids, sizes, max, err, errlen);
	if (got == 0)
		sim_trace_reader_keys(f->r, f->t);
	return (long)got;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The requests gathered in t, held: in prepared on them, the file closed.
 * 0 or -errno with err. */
static int hold(struct sim_file *f, const char *shown,
		const struct sim_file_opts *o, struct sim_trace *t,
		struct sim_input *in, char *err, size_t errlen)
{
	sim_trace_reader_keys(f->r, t);
	sim_trace_close(f->r);
	f->r = NULL;
	if (t->n == 0) {
		snprintf(err, errlen, "%s: no requests in the trace (an empty "
			 "file?)", shown);
		return -EINVAL;
	}
	return sim_input_prepare(in, t, o->key_size, o->warmup, err, errlen);
}

/* Why a file read once cannot be streamed, in one line. */
static int refuse_once(const struct sim_file *f, const char *shown,
		       const struct sim_file_opts *o, size_t hold_requests,
		       char *err, size_t errlen)
{
	char why[96];
	if (o->stream)
		snprintf(why, sizeof(why), "streaming was asked for");
	else
		snprintf(why, sizeof(why), "it has more than %zu requests, too "
			 "many to hold", hold_requests);
	snprintf(err, errlen, "%s is %s, which can be read only once: %s, and "
		 "a streamed trace is read again on each pass, so it needs a "
		 "file that can be read twice (save the trace to a file)",
		 shown, sim_trace_reader_once(f->r), why);
	return -ESPIPE;
}

/* The trace streamed through f's source: the first pass numbers its keys
 * and counts its requests.  0 or -errno with err. */
static int stream(struct sim_file *f, const struct sim_file_opts *o,
		  struct sim_trace *t, struct sim_input *in, char *err,
		  size_t errlen)
{
	f->src = (struct sim_source){ .rewind = file_rewind,
				      .next = file_next, .ctx = f,
				      .has_sizes = sim_trace_reader_has_sizes(
					      f->r) };
	int rc = sim_input_stream(in, t, &f->src, o->key_size, o->warmup,
				  o->chunk, err, errlen);
	if (rc == 0)
		t->n = in->n;
	return rc;
}

int sim_file_load(struct sim_file *f, const char *path,
		  const struct sim_file_opts *o, struct sim_trace *t,
		  struct sim_input *in, char *err, size_t errlen)
{
	size_t hold_requests = o->hold_requests ? o->hold_requests
						: SIM_HOLD_REQUESTS;
	char shown[256];
	bool whole = false;
	int rc;

	memset(f, 0, sizeof(*f));
	memset(t, 0, sizeof(*t));
	f->t = t;
	parse_printable(path, shown, sizeof(shown));
	parse_printable(base_name(path), t->name, sizeof(t->name));
	if ((rc = sim_trace_open(path, o->format, o->csv, &f->r, err, errlen)))
		return rc;
	if (!o->stream) {
		rc = sim_trace_gather(f->r, t, hold_requests, &whole, err,
				      errlen);
		if (!rc && whole)
			rc = hold(f, shown, o, t, in, err, errlen);
		if (rc || whole)
			goto out;
		/* Too long to hold: streamed instead, from the start. */
		sim_trace_free(t);
	}
	if (sim_trace_reader_once(f->r))
		rc = refuse_once(f, shown, o, hold_requests, err, errlen);
	else
		rc = stream(f, o, t, in, err, errlen);
out:
	if (rc) {
		sim_file_close(f);
		sim_trace_free(t);
	}
	return rc;
}

void sim_file_close(struct sim_file *f)
{
	sim_trace_close(f->r);
	f->r = NULL;
}
