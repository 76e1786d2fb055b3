/* SPDX-License-Identifier: MIT */
/*
 * progress.h: one self-overwriting line on stderr for long runs, only when
 * stderr is a terminal (nothing at all when piped or in CI logs).
 */
#ifndef MAPLAB_PROGRESS_H
#define MAPLAB_PROGRESS_H

#include <stdbool.h>

struct progress {
	bool on;
	char label[96];
};

/* on = stderr is a terminal and not quiet. */
void progress_init(struct progress *p, bool quiet);
void progress_label(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A bench_config progress callback: arg is the struct progress. */
void progress_update(double done, void *arg);
void progress_clear(struct progress *p);

#endif /* MAPLAB_PROGRESS_H */
