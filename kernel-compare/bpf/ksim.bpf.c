// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * ksim.bpf.c: a cache in the kernel's LRU hash map, fed with requests.
 *
 * One run (BPF_PROG_TEST_RUN of a BPF_PROG_TYPE_SYSCALL program, whose
 * context is a struct ksim_batch) takes `count` requests from the keys
 * array, from index `first` on (userspace has just written them there,
 * through the array's mmap), and through bpf_loop, for each:
 *
 *   if (!bpf_map_lookup_elem(&cache, key))          hit: the ref bit is set
 *           miss; bpf_map_update_elem(&cache, key, &value, BPF_NOEXIST)
 *   missed[first + i] = miss                         (when asked)
 *
 * then, when asked, the map's element count, by the kfunc
 * bpf_map_sum_elem_count (the hash map's per-CPU counter, which the LRU
 * hash keeps too); on a kernel without the kfunc, live stays -1.
 *
 * Why BPF_NOEXIST: see kernel-compare/ksim.h.  The sizes and flags of the
 * maps below are placeholders: userspace sets them before load.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "kernel-compare/bpf/ksim_shared.h"

#define EEXIST 17

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* libbpf matches a kfunc's prototype with the kernel's by kind: the
 * argument must point to a struct, not to a forward declaration. */
struct bpf_map {
	int unused;
};
extern long long bpf_map_sum_elem_count(const struct bpf_map *map) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(key_size, 4);
	__uint(value_size, 8);
	__uint(max_entries, 1);
} cache SEC(".maps");

/* The requests' keys: a window of `batch` slots per stream. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 4); /* = the cache's key_size */
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
} keys SEC(".maps");

/* Per request of the windows: 1 if it missed. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 1);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
} missed SEC(".maps");

/* The value every insert writes (zeros). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, 4);
	__uint(value_size, 8); /* = the cache's value_size */
	__uint(max_entries, 1);
} value SEC(".maps");

/* bpf_loop's callback context must live on the stack: the batch's fields
 * are copied here and back. */
struct loop_ctx {
	void *value;
	__u32 first, want_missed;
	__u32 done, misses, raced, insert_failures;
	int insert_error;
};

static long request(__u32 i, void *data)
{
	struct loop_ctx *c = data;
	__u32 idx = c->first + i;
	void *key = bpf_map_lookup_elem(&keys, &idx);
	__u8 miss = 0;

	if (!key)
		return 1;
	if (!bpf_map_lookup_elem(&cache, key)) {
		long rc = bpf_map_update_elem(&cache, key, c->value, BPF_NOEXIST);
		miss = 1;
		c->misses++;
		if (rc == -EEXIST) {
			c->raced++;
		} else if (rc) {
			c->insert_failures++;
			c->insert_error = (int)rc;
		}
	}
	if (c->want_missed) {
		__u8 *flag = bpf_map_lookup_elem(&missed, &idx);
		if (!flag)
			return 1;
		*flag = miss;
	}
	c->done++;
	return 0;
}

SEC("syscall")
int ksim_batch(struct ksim_batch *b)
{
	struct loop_ctx c = { 0 };
	__u32 zero = 0;

	if (b->cpu >= 0 && bpf_get_smp_processor_id() != (__u32)b->cpu)
		return KSIM_RUN_WRONG_CPU;
	c.value = bpf_map_lookup_elem(&value, &zero);
	if (!c.value)
		return KSIM_RUN_NO_KEY;
	c.first = b->first;
	c.want_missed = b->want_missed;
	bpf_loop(b->count, request, &c, 0);
	b->done = c.done;
	b->misses = c.misses;
	b->raced = c.raced;
	b->insert_failures = c.insert_failures;
	b->insert_error = c.insert_error;
	b->live = -1;
	if (b->sample_live && bpf_map_sum_elem_count != 0)
		b->live = bpf_map_sum_elem_count((const struct bpf_map *)&cache);
	return c.done == b->count ? KSIM_RUN_OK : KSIM_RUN_NO_KEY;
}
