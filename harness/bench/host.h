/* SPDX-License-Identifier: MIT */
/* host.h: what machine a figure came from (DESIGN.md's host record). */
#ifndef MAPLAB_HOST_H
#define MAPLAB_HOST_H

#include <stdio.h>

struct host_record {
	char kernel[128];    /* uname -r */
	char cpu_model[128]; /* /proc/cpuinfo "model name" */
	char hostname[64];
	char date[32];       /* UTC, ISO 8601 */
	long nproc;          /* online CPUs */
	unsigned possible_cpus;
	const char *allocator; /* "jemalloc" or "libc" */
	const char *rcu;       /* "memb" or "qsbr" */
	const char *version;
};

void host_record_read(struct host_record *h);

/* {"kernel":"...",...} with no newline. */
void host_record_json(FILE *f, const struct host_record *h);

/* JSON string escaping for the few strings we print. */
void json_string(FILE *f, const char *s);

#endif /* MAPLAB_HOST_H */
