/* SPDX-License-Identifier: MIT */
/*
 * ksim_shared.h: what the cache-simulation program (ksim.bpf.c) and its
 * driver (kernel-compare/ksim.c) share: the context of one run, passed in
 * and read back through BPF_PROG_TEST_RUN's ctx_in (a BPF_PROG_TYPE_SYSCALL
 * program may read and write its context, and the kernel copies it back).
 */
#ifndef MAPLAB_KSIM_SHARED_H
#define MAPLAB_KSIM_SHARED_H

/* What a run returns (the test run's retval). */
#define KSIM_RUN_OK 0
#define KSIM_RUN_WRONG_CPU 1   /* not on the cpu the batch was meant for */
#define KSIM_RUN_NO_KEY 2      /* a request outside the keys array */

struct ksim_batch {
	/* in */
	unsigned int first;        /* index in `keys` of the batch's first key */
	unsigned int count;        /* requests in the batch */
	int cpu;                   /* the cpu it must run on; -1: any */
	unsigned int want_missed;  /* write each request's flag to `missed` */
	unsigned int sample_live;  /* sample the map's element count after */
	/* out */
	unsigned int done;         /* requests handled */
	unsigned int misses;
	unsigned int raced;        /* inserts that found the key (-EEXIST) */
	unsigned int insert_failures; /* any other refused insert */
	int insert_error;          /* the last such refusal's errno (< 0) */
	long long live;            /* the element count after; -1: not sampled */
};

#endif /* MAPLAB_KSIM_SHARED_H */
