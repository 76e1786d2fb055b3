/* SPDX-License-Identifier: MIT */
/*
 * simfile.h: a trace file as `maplab sim` replays it: read once from its
 * first byte, and held whole where it is short enough, else streamed
 * (read again, a chunk at a time, on each pass over it).
 *
 * sim_file_load opens the file once and reads it through a
 * sim_trace_reader (simtrace.h):
 *
 *   held      the trace ends within hold_requests (and no stream was
 *             asked): t holds its ids (and sizes), in is prepared on them
 *             (sim_input_prepare), and the file is closed.  One pass: a
 *             pipe, a FIFO or /dev/stdin is read as a file is.
 *   streamed  the trace is longer, or stream was asked: in reads it through
 *             f's sim_source, each pass (the first, which numbers its keys
 *             and counts its requests; then sim_run's) from the file's first
 *             byte again, so the file must be a regular one.  A pipe, a FIFO
 *             or a device gives its bytes once: it is refused, with one line
 *             that says it needs a file that can be read twice (-ESPIPE).
 *
 * Opt and the kernel need the trace held (sim.h): a held trace serves
 * every policy.
 *
 * Lifetimes: while streamed, in->source is &f->src and its reader is
 * f's: f lives until in is freed, then sim_file_close.  t is the caller's
 * (its name, its key facts; its ids while held).
 *
 * Memory held: some 48 bytes a request (its id, size, key bytes and
 * number, and its share of the key table), so 16 million take about
 * 800 MB; streamed, one chunk and the table of distinct keys.
 */
#ifndef MAPLAB_SIMFILE_H
#define MAPLAB_SIMFILE_H

#include "harness/sim/sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A file of more requests than this is streamed. */
#define SIM_HOLD_MILLIONS 16
#define SIM_HOLD_REQUESTS ((size_t)SIM_HOLD_MILLIONS << 20)

struct sim_file_opts {
	enum sim_trace_format format;     /* AUTO: from the name */
	const struct sim_csv_params *csv; /* NULL: all detected */
	uint32_t key_size;                /* 1..8, as sim_input_prepare's */
	uint64_t warmup;
	bool stream;                      /* streamed however short */
	size_t hold_requests;             /* 0: SIM_HOLD_REQUESTS */
	size_t chunk;                     /* a streamed chunk; 0: sim.h's */
};

struct sim_file {
	struct sim_trace_reader *r; /* open while the trace is streamed */
	struct sim_trace *t;        /* its key facts, at each pass's end */
	struct sim_source src;      /* in->source while streamed */
};

/*
 * The trace at path into t and in, held or streamed (above).  0, or a
 * negative errno with one line in err that names the file: the reader's
 * (-ENOENT and such from opening, -EINVAL for bad content with its line,
 * -ENOMEM), -EINVAL for a trace with no request, -ESPIPE for a file read
 * once that would have to be streamed.  On error nothing is left open or
 * held (t's name stays).
 */
int sim_file_load(struct sim_file *f, const char *path,
		  const struct sim_file_opts *o, struct sim_trace *t,
		  struct sim_input *in, char *err, size_t errlen);

/* Whether in streams through f (else the trace is held). */
static inline bool sim_file_streamed(const struct sim_file *f)
{
	return f->r != NULL;
}

/* Closes what f holds open; after sim_input_free of its input.  f may be
 * zeroed, or one sim_file_load failed on. */
void sim_file_close(struct sim_file *f);

#endif /* MAPLAB_SIMFILE_H */
