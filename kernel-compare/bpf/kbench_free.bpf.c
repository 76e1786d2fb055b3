// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * kbench_free.bpf.c: the time the kernel takes to free a map, as the
 * kernel's own LPM benchmark measures it (its lpm-trie-free: fentry and
 * fexit programs on bpf_map_free_deferred, the work item that frees a map
 * once its last reference is gone).  kernel-compare/kbench_phase.c creates
 * an LPM map with a name of this process's own, fills it, closes its only
 * fd, and waits for `frees` to move.
 *
 *   close(fd) ─► bpf_map_put: refcount 0 ─► queue_work(bpf_map_free_deferred)
 *                                          a kworker, later:
 *                                          fentry: our map?  start := now
 *                                          map->ops->map_free (trie_free), ...
 *                                          fexit:  the same work item?
 *                                                  total_ns += now - start;
 *                                                  frees++
 *
 * Where fentry and fexit cannot be loaded, the workqueue's tracepoints
 * around the same call time it instead (below): kbench_phase.c tries the
 * first pair, then the second, and says which timed the run.
 *
 * Which map: the work item is the map's own (struct bpf_map's `work`, so
 * container_of gives the map); its name must be want_name, which userspace
 * sets before load to a name no other process's map has ("maplab_f" and
 * its pid: the map's id is already released when the free runs, as the
 * kernel's benchmark notes).  The map's type is checked too.
 *
 * No vmlinux.h: the two fields read are declared in a local struct whose
 * accesses libbpf relocates against the running kernel's BTF (CO-RE,
 * preserve_access_index), so a kernel that moves them still works; the
 * work item's place in the map is a relocated offset as well.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define NAME_LEN 16 /* BPF_OBJ_NAME_LEN */

/* The kernel's struct work_struct, never read: only its place matters. */
struct work_struct___kbench {
	long data;
};

/* The fields of the kernel's struct bpf_map read here ("___kbench" is
 * dropped when libbpf matches the kernel's type by name). */
struct bpf_map___kbench {
	enum bpf_map_type map_type;
	char name[NAME_LEN];
	struct work_struct___kbench work;
} __attribute__((preserve_access_index));

/* Set by userspace before load. */
const volatile char want_name[NAME_LEN] = "";

/* Read by userspace (the skeleton's mmapped .bss). */
__u64 total_ns; /* every matching free's time, summed */
__u64 frees;    /* matching frees seen; moves after total_ns */
__u64 start_ns; /* the free under way (0: none) */
__u64 start_work; /* its work item: the fexit's match (another map's free
		     may end meanwhile; the map is gone by then, so its
		     name cannot be read again) */

static __always_inline int is_ours(void *work)
{
	struct bpf_map___kbench *map =
		(void *)work - bpf_core_field_offset(struct bpf_map___kbench, work);
	char name[NAME_LEN];

	if (BPF_CORE_READ(map, map_type) != BPF_MAP_TYPE_LPM_TRIE)
		return 0;
	if (BPF_CORE_READ_STR_INTO(&name, map, name) <= 0)
		return 0;
	for (int i = 0; i < NAME_LEN; i++) {
		if (name[i] != want_name[i])
			return 0;
		if (!name[i])
			break;
	}
	return 1;
}

static __always_inline void enter(__u64 work)
{
	if (is_ours((void *)work)) {
		start_work = work;
		start_ns = bpf_ktime_get_ns();
	}
}

static __always_inline void leave(__u64 work)
{
	__u64 start = start_ns;

	if (!start || work != start_work)
		return;
	start_ns = 0;
	__sync_fetch_and_add(&total_ns, bpf_ktime_get_ns() - start);
	__sync_fetch_and_add(&frees, 1);
}

/* The kernel's benchmark's way: the function itself. */
SEC("fentry/bpf_map_free_deferred")
int kb_free_enter(__u64 *ctx)
{
	enter(ctx[0]);
	return 0;
}

SEC("fexit/bpf_map_free_deferred")
int kb_free_exit(__u64 *ctx)
{
	leave(ctx[0]);
	return 0;
}

/*
 * Where the kernel refuses tracing programs (fentry needs BPF trampolines,
 * and a BPF LSM policy may forbid them: this lab's VM answers EPERM), the
 * workqueue's own tracepoints around the very same call: process_one_work
 * fires workqueue_execute_start(work) just before it calls work->func
 * (bpf_map_free_deferred, for our map's work item) and
 * workqueue_execute_end(work, func) just after.  Raw tracepoints: their
 * first argument is the work item.
 */
SEC("raw_tp/workqueue_execute_start")
int kb_wq_start(__u64 *ctx)
{
	enter(ctx[0]);
	return 0;
}

SEC("raw_tp/workqueue_execute_end")
int kb_wq_end(__u64 *ctx)
{
	leave(ctx[0]);
	return 0;
}
