/* SPDX-License-Identifier: MIT */
/*
 * kernel_engine.h: how `maplab sim` runs the kernel's own LRU hash map as
 * a policy, without knowing how.  The harness sits below kernel-compare, so
 * it declares what it needs here and kernel-compare (ksim.c) supplies it:
 * the cli registers kernel-compare's engine at start (sim_set_kernel_engine)
 * when maplab is built with the kernel side.  With none registered, the
 * kernel policy is "not available: built without the kernel side".
 *
 * The engine replays one or more streams of object ids (cache requests)
 * through a real BPF_MAP_TYPE_LRU_HASH, each request as a BPF program would
 * make it: a lookup that marks a hit referenced, and on a miss an insert
 * with BPF_NOEXIST (kernel-compare/ksim.h says why NOEXIST, and how the
 * requests reach the kernel).
 */
#ifndef MAPLAB_SIM_KERNEL_ENGINE_H
#define MAPLAB_SIM_KERNEL_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksim_stream {
	const void *keys;     /* n keys, key_size bytes each, packed */
	size_t n;
	size_t counted_from;  /* requests [0, counted_from) warm the cache,
				 not counted */
	int cpu;              /* the cpu this stream's thread is pinned to
				 (-1: not pinned) */
	uint8_t *missed;      /* optional (NULL): per request (all n, warm-up
				 included), 1 if it missed, else 0 */
	/* Added for sim's serial cpus: */
	const uint16_t *cpus; /* optional (NULL: all on `cpu`): per request,
				 the CPU it runs on; the thread re-pins where
				 it changes (a batch never spans two) */
};

struct ksim_config {
	uint32_t key_size;    /* 1..KSIM_MAX_KEY_SIZE */
	uint32_t value_size;  /* 8 (1..KSIM_MAX_VALUE_SIZE; the value is zeros) */
	uint32_t max_entries;
	uint32_t map_flags;   /* 0 or BPF_F_NO_COMMON_LRU */
	/* Added after the sim helper's API: */
	uint32_t batch;       /* requests per BPF_PROG_TEST_RUN; 0: the
				 default, KSIM_DEFAULT_BATCH; at most
				 KSIM_MAX_BATCH */
	bool verbose;         /* libbpf's messages and the verifier's log on
				 stderr (else silent) */
};

struct ksim_stream_result {
	uint64_t requests, misses;        /* counted requests only */
	uint64_t insert_failures;         /* an insert the map refused (never
					     expected) */
	/* Added after the sim helper's API: */
	uint64_t live_sum, live_samples;  /* the map's live element count
					     (the kernel's own, by the kfunc
					     bpf_map_sum_elem_count) sampled
					     after each batch that holds
					     counted requests; live_samples
					     is 0 where the kernel lacks the
					     kfunc */
	uint64_t raced;                   /* misses whose insert found the key
					     already inserted by another
					     stream (counted requests) */
	uint64_t batches;                 /* BPF_PROG_TEST_RUN calls */
};

struct ksim_result {
	double seconds;                    /* wall time from the start barrier
					      to the last stream's end */
	uint64_t live_at_end;              /* keys in the map at the end (a
					      get_next_key walk) */
	struct ksim_stream_result *streams; /* caller's array of n_streams */
	/* Added after the sim helper's API: */
	uint32_t max_entries;              /* what the kernel made of it
					      (NO_COMMON_LRU rounds it up to
					      a multiple of the possible
					      CPUs) */
};

#define KSIM_MAX_KEY_SIZE 256u
#define KSIM_MAX_VALUE_SIZE 256u
#define KSIM_DEFAULT_BATCH 8192u
#define KSIM_MAX_BATCH (1u << 20)

struct sim_kernel_engine {
	/*
	 * 0, or a negative errno with a message in err: -EINVAL for a bad
	 * config or stream (key_size 0, max_entries 0, no streams,
	 * counted_from > n...), -EPERM without BPF rights, -EOPNOTSUPP when
	 * the kernel cannot run it (no LRU hash map, the program refused),
	 * -ENOMEM, or the errno of a failed pin or BPF_PROG_TEST_RUN.
	 * out->streams must have room for n_streams results; the rest of
	 * *out is written.
	 */
	int (*run)(const struct ksim_config *c, const struct ksim_stream *streams,
		   unsigned n_streams, struct ksim_result *out, char *err,
		   size_t errlen);
	/* Whether this process can run it at all (BPF allowed, the program
	 * loads); false with a one-line reason in why. */
	bool (*available)(char *why, size_t whylen);
	/*
	 * Optional.  The cpus of the machine the engine's kernel runs on,
	 * numbered 0 to the count - 1 (a virtual machine's: kernel-compare/
	 * vm/vm_sim.h).  NULL: this machine, whose streams go on the CPUs this
	 * process may use, as the team pins its workers.
	 */
	unsigned (*machine_cpus)(void);
};

/* The engine sim's kernel policy uses from now on (NULL: none). */
void sim_set_kernel_engine(const struct sim_kernel_engine *engine);

#endif /* MAPLAB_SIM_KERNEL_ENGINE_H */
