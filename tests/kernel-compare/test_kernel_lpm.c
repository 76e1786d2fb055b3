/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/linux against the running kernel's BPF_MAP_TYPE_LPM_TRIE, op
 * for op.
 *
 *  - Random traces (tracegen's LPM traces: prefixes of related addresses
 *    that nest and part, trailing bits, prefix lengths beyond the data,
 *    every update flag, deletes and `next` of held, intermediate and
 *    absent keys, walks, dumps) for key sizes 5, 8, 20 and 260, value
 *    sizes 1, 8 and 300, max_entries 1 to 40, three seeds each: every
 *    result line byte-identical, `next` order included (a trie's order
 *    needs no seed).  Maps of 12 entries or fewer must meet -ENOSPC, and
 *    the test checks that they did.
 *  - The same with the flags a trie also takes (numa_node, the access
 *    flags: EPERM on the syscall side).
 *  - Creation errors: BPF_F_NO_PREALLOC missing, key and value sizes out
 *    of range, max_entries 0, flags the trie refuses.
 *  - examples/lpm_basics.trace, the kernel's own example and more.
 *  - Nodes one byte under and over what one kmalloc holds: stored, and
 *    ENOMEM on every update.
 *
 * Needs root and a kernel with BPF (need_kernel.h): skipped with the
 * reason without them, failed with MAPLAB_REQUIRE_KERNEL=1.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/trace/tracegen.h"
#include "tests/kernel-compare/kernel_replay.h"
#include "tests/kernel-compare/need_kernel.h"

/* --- our side, counting the updates refused for a full map ---------------- */

static struct map_ops counted;
static unsigned long full_refusals, nomem_answers;

static int counted_update(struct map *m, const void *key, const void *value,
			  uint64_t flags)
{
	int rc = map_find("lpm_trie/linux")->update(m, key, value, flags);
	full_refusals += rc == -ENOSPC;
	nomem_answers += rc == -ENOMEM;
	return rc;
}

static const struct map_ops *choose_counted(uint32_t type, uint32_t flags,
					    void *ctx)
{
	(void)ctx;
	return type == MAP_TYPE_LPM_TRIE ? &counted
					 : map_find_faithful(type, flags);
}

static void set_up(void)
{
	const struct map_ops *design = map_find("lpm_trie/linux");
	cr_assert_not_null(design);
	cr_assert_eq(map_find_faithful(MAP_TYPE_LPM_TRIE, MAP_F_NO_PREALLOC),
		     design, "lpm_trie/linux is not the faithful design");
	counted = *design;
	counted.update = counted_update;
}

TestSuite(kernel_lpm, .init = set_up, .timeout = 300);

/* Replay text on lpm_trie/linux and on the kernel; fail at the first
 * difference.  Every line compared, `next` included. */
static void expect_same(const char *text, const char *what)
{
	struct replay_side ours = { .label = "lpm_trie/linux",
				    .choose = choose_counted };
	kernel_expect_same(text, what, &ours, true);
}

/* --- random traces ---------------------------------------------------------- */

static void random_traces(uint32_t flags, uint64_t seeds)
{
	static const uint32_t key_sizes[] = { 5, 8, 20, 260 };
	static const uint32_t value_sizes[] = { 1, 8, 300 };
	static const uint32_t entries[] = { 1, 4, 12, 40 };

	for (size_t ks = 0; ks < sizeof(key_sizes) / sizeof(key_sizes[0]); ks++)
		for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++)
			for (uint64_t seed = 1; seed <= seeds; seed++)
				for (size_t vs = 0; vs < 3; vs++) {
					struct tracegen_opts o = {
						.attr = { .type = MAP_TYPE_LPM_TRIE,
							  .key_size = key_sizes[ks],
							  .value_size = value_sizes[vs],
							  .max_entries = entries[e],
							  .flags = MAP_F_NO_PREALLOC | flags },
						.seed = seed * 7919 + ks * 31 + e * 7 + vs,
						.ops = 300 + 30 * entries[e],
					};
					char what[160];
					snprintf(what, sizeof(what),
						 "flags=%#x key_size=%u value_size=%u "
						 "entries=%u seed=%llu", o.attr.flags,
						 o.attr.key_size, o.attr.value_size,
						 o.attr.max_entries,
						 (unsigned long long)o.seed);
					char *text = tracegen_string(&o);
					cr_assert_not_null(text);
					unsigned long before = full_refusals;
					expect_same(text, what);
					free(text);
					if (entries[e] <= 12 && !(flags & MAP_F_RDONLY))
						cr_expect_gt(full_refusals, before,
							     "%s: never full", what);
				}
}

Test(kernel_lpm, random_traces, .timeout = 600)
{
	need_kernel();
	random_traces(0, 3);
}

/* The flags a trie takes beside no_prealloc: numa_node (node 0), and the
 * access flags, which refuse the syscall's reads or writes (EPERM). */
Test(kernel_lpm, random_traces_with_flags, .timeout = 600)
{
	static const uint32_t flags[] = {
		MAP_F_NUMA_NODE, MAP_F_RDONLY, MAP_F_WRONLY,
		MAP_F_RDONLY_PROG, MAP_F_WRONLY_PROG,
	};
	need_kernel();
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		random_traces(flags[i], 1);
}

/* trie_alloc's checks: each map line is refused (or not) as the kernel
 * does.  The largest value is KMALLOC_MAX_SIZE less the largest data and
 * the kernel's 24-byte node header. */
Test(kernel_lpm, creation_errors)
{
	need_kernel();
	expect_same(
		"map lpm_trie key_size=8 value_size=4 max_entries=4\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=zero_seed\n"
		"map lpm_trie key_size=0 value_size=4 max_entries=4 flags=no_prealloc\n"
		"map lpm_trie key_size=4 value_size=4 max_entries=4 flags=no_prealloc\n"
		"map lpm_trie key_size=5 value_size=4 max_entries=4 flags=no_prealloc\n"
		"map lpm_trie key_size=260 value_size=4 max_entries=4 flags=no_prealloc\n"
		"map lpm_trie key_size=261 value_size=4 max_entries=4 flags=no_prealloc\n"
		"map lpm_trie key_size=8 value_size=0 max_entries=4 flags=no_prealloc\n"
		"map lpm_trie key_size=8 value_size=1 max_entries=4 flags=no_prealloc\n"
		"map lpm_trie key_size=8 value_size=4194024 max_entries=1 flags=no_prealloc\n"
		"map lpm_trie key_size=8 value_size=4194025 max_entries=1 flags=no_prealloc\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=0 flags=no_prealloc\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4294967295 flags=no_prealloc\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=no_prealloc|zero_seed\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=no_prealloc|no_common_lru\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=no_prealloc|numa_node\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=no_prealloc|rdonly|wronly\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=no_prealloc|rdonly_prog|wronly_prog\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=0x401\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=0x801\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=0x1001\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=0x80001\n"
		"map lpm_trie key_size=8 value_size=4 max_entries=4 flags=no_prealloc\n",
		"creation errors");
}

Test(kernel_lpm, the_bundled_example)
{
	need_kernel();
	char *text = kernel_read_example("lpm_basics.trace");
	unsigned long before = full_refusals;
	expect_same(text, "examples/lpm_basics.trace");
	cr_expect_eq(full_refusals, before + 1, "the example fills its map once");
	free(text);
}

/*
 * A node too large for one kmalloc.  The kernel takes every node, real or
 * intermediate, from bpf_mem_alloc (kernel/bpf/memalloc.c), which
 * kmallocs the node (24-byte header, the key's data, the value) and an
 * 8-byte free-list link: over KMALLOC_MAX_SIZE (4 MiB) the trie is created
 * but every update is ENOMEM, BPF_EXIST included (the node is allocated
 * before the trie is searched).  Only data of more than 248 bytes gets
 * there.  Traces one byte under and one byte over the boundary, for three
 * key sizes (measured: the last value_size stored), must answer the same
 * on both sides, and meet ENOMEM where they should.  Each value line is
 * 8 MiB of hex.
 */
static void put_lpm_key(FILE *f, uint32_t key_size, uint32_t prefixlen,
			unsigned a, unsigned b)
{
	fprintf(f, "%02x%02x%02x%02x%02x%02x", prefixlen & 0xff,
		(prefixlen >> 8) & 0xff, (prefixlen >> 16) & 0xff,
		prefixlen >> 24, a, b);
	kernel_put_hex(f, key_size - 6, 0);
}

static void put_lpm_update(FILE *f, uint32_t ks, uint32_t vs,
			   uint32_t prefixlen, unsigned b, unsigned fill,
			   const char *flag)
{
	fputs("update ", f);
	put_lpm_key(f, ks, prefixlen, 10, b);
	fputc(' ', f);
	kernel_put_hex(f, vs, fill);
	fprintf(f, " %s\n", flag);
}

static char *big_node_trace(uint32_t ks, uint32_t vs)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	fprintf(f, "map lpm_trie key_size=%u value_size=%u max_entries=2 "
		"flags=no_prealloc\n", ks, vs);
	put_lpm_update(f, ks, vs, 16, 1, 0xa5, "exist");
	put_lpm_update(f, ks, vs, 16, 1, 0xa5, "any");
	put_lpm_update(f, ks, vs, 16, 1, 0x5a, "any");     /* a replace */
	put_lpm_update(f, ks, vs, 16, 2, 0x3c, "noexist"); /* a fork */
	put_lpm_update(f, ks, vs, 8, 0, 0xc3, "any");      /* full, if stored */
	put_lpm_update(f, ks, vs, 8 * (ks - 4) + 1, 1, 0xc3, "any"); /* EINVAL */
	fputs("lookup ", f);
	put_lpm_key(f, ks, 8 * (ks - 4), 10, 1);
	fputs("\ndelete ", f);
	put_lpm_key(f, ks, 16, 10, 2);
	fputs("\nnext -\ndump\n", f);
	fclose(f);
	return text;
}

Test(kernel_lpm, node_over_kmalloc_max_is_enomem, .timeout = 120)
{
	static const struct {
		uint32_t key_size, last_stored;
	} boundary[] = { { 253, 4194023 }, { 256, 4194020 }, { 260, 4194016 } };
	need_kernel();
	for (size_t b = 0; b < sizeof(boundary) / sizeof(boundary[0]); b++)
		for (uint32_t over = 0; over <= 1; over++) {
			uint32_t ks = boundary[b].key_size;
			uint32_t vs = boundary[b].last_stored + over;
			char what[96];
			snprintf(what, sizeof(what), "key_size=%u value_size=%u",
				 ks, vs);
			char *text = big_node_trace(ks, vs);
			unsigned long before = nomem_answers;
			expect_same(text, what);
			free(text);
			/* over: each update with a prefix the data holds */
			cr_expect_eq(nomem_answers - before, over ? 5 : 0,
				     "%s: %lu ENOMEM", what,
				     nomem_answers - before);
		}
}
