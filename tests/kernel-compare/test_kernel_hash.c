/* SPDX-License-Identifier: MIT */
/*
 * hash/linux against the running kernel's BPF_MAP_TYPE_HASH, op for op.
 *
 * Random traces (several seeds, map sizes, key sizes, with and without
 * prealloc and zero_seed) are replayed on both sides and their result
 * lines must be byte-identical; with zero_seed that includes the order of
 * get_next_key.  Creation errors are compared the same way, and so are
 * random traces with each access flag (rdonly, wronly, rdonly_prog,
 * wronly_prog: EPERM on the syscall side, plookup untouched).  The kernel's
 * plookup is checked on its own where the syscall and the program differ
 * (a write-only map) and where its program cannot run.  No-prealloc
 * elements one byte under and over what one kmalloc holds are stored and
 * refused (ENOMEM) alike.
 *
 * Needs root and a kernel with BPF.  Without them each test is skipped with
 * the reason; with MAPLAB_REQUIRE_KERNEL=1 (CI) it fails instead, so CI
 * cannot pass without having run them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness/trace/replay.h"
#include "harness/trace/tracegen.h"
#include "kernel-compare/kmap.h"
#include "maps/base/cpu.h"
#include "tests/kernel-compare/kernel_replay.h"
#include "tests/kernel-compare/need_kernel.h"

/* Replay text on hash/linux and on the kernel; fail at the first
 * difference, showing the trace line and both results.  Without zero_seed
 * the sides walk in their own orders: `next` lines are not compared. */
static void expect_same(const char *text, const char *what)
{
	struct replay_side user = replay_user_side(map_find("hash/linux"));
	kernel_expect_same(text, what, &user, false);
}

static void random_traces_of(uint32_t flags, uint64_t seeds)
{
	static const uint32_t key_sizes[] = { 1, 3, 4, 8, 13, 40 };
	static const uint32_t entries[] = { 1, 5, 64, 700 };

	for (size_t ks = 0; ks < sizeof(key_sizes) / sizeof(key_sizes[0]); ks++)
		for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++)
			for (uint64_t seed = 1; seed <= seeds; seed++) {
				struct tracegen_opts o = {
					.attr = { .type = MAP_TYPE_HASH,
						  .key_size = key_sizes[ks],
						  .value_size = 1 + (uint32_t)(seed * 5),
						  .max_entries = entries[e],
						  .flags = flags },
					.seed = seed * 7919 + ks * 31 + e,
					.ops = entries[e] < 64 ? 400 : 3 * entries[e],
				};
				char what[128];
				snprintf(what, sizeof(what),
					 "flags=%#x key_size=%u entries=%u seed=%llu",
					 flags, o.attr.key_size, o.attr.max_entries,
					 (unsigned long long)o.seed);
				char *text = tracegen_string(&o);
				cr_assert_not_null(text);
				expect_same(text, what);
				free(text);
			}
}

static void random_traces(uint32_t flags)
{
	random_traces_of(flags, 3);
}

Test(kernel_hash, random_traces_zero_seed_prealloc, .timeout = 120)
{
	need_kernel();
	random_traces(MAP_F_ZERO_SEED);
}

Test(kernel_hash, random_traces_zero_seed_no_prealloc, .timeout = 120)
{
	need_kernel();
	random_traces(MAP_F_ZERO_SEED | MAP_F_NO_PREALLOC);
}

Test(kernel_hash, random_traces_random_seed, .timeout = 120)
{
	need_kernel();
	random_traces(0);
	random_traces(MAP_F_NO_PREALLOC);
}

Test(kernel_hash, creation_errors)
{
	need_kernel();
	expect_same(
		"map hash key_size=0 value_size=8 max_entries=4\n"
		"map hash key_size=4 value_size=0 max_entries=4\n"
		"map hash key_size=4 value_size=8 max_entries=0\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=no_common_lru\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x100\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x4\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x8\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x18\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x180\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x20\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x400\n"
		"map hash key_size=4 value_size=8 max_entries=4 flags=0x80000\n"
		"map hash key_size=4 value_size=4194252 max_entries=1\n"
		"map hash key_size=4 value_size=4194251 max_entries=1\n"
		"map hash key_size=4194300 value_size=4 max_entries=1\n"
		"map hash key_size=513 value_size=8 max_entries=4\n"
		"map hash key_size=4 value_size=8 max_entries=2147483649\n"
		"map hash key_size=4 value_size=8 max_entries=268435457\n"
		"map hash key_size=4 value_size=8 max_entries=1 flags=zero_seed|no_prealloc\n",
		"creation errors");
}

Test(kernel_hash, the_bundled_example)
{
	need_kernel();
	char *text = kernel_read_example("hash_basics.trace");
	expect_same(text, "examples/hash_basics.trace");
	free(text);
}

/*
 * The access flags: BPF_F_RDONLY and BPF_F_WRONLY limit the syscall side
 * (EPERM), the _PROG forms what a loaded program may do with a value, which
 * a plookup (a presence test) does not touch.  Each must match the kernel
 * byte for byte, prealloc or not.
 */
static const uint32_t access_flags[] = {
	MAP_F_RDONLY, MAP_F_WRONLY, MAP_F_RDONLY_PROG, MAP_F_WRONLY_PROG,
	MAP_F_RDONLY_PROG | MAP_F_WRONLY, MAP_F_WRONLY_PROG | MAP_F_RDONLY,
};

Test(kernel_hash, random_traces_access_flags, .timeout = 240)
{
	need_kernel();
	for (size_t i = 0; i < sizeof(access_flags) / sizeof(access_flags[0]); i++) {
		random_traces_of(MAP_F_ZERO_SEED | access_flags[i], 1);
		random_traces_of(MAP_F_ZERO_SEED | MAP_F_NO_PREALLOC |
				 access_flags[i], 1);
	}
}

/* The trace: a read-only map refuses the syscall's update. */
Test(kernel_hash, rdonly_refuses_updates)
{
	need_kernel();
	expect_same("map hash key_size=4 value_size=8 max_entries=4 "
		    "flags=zero_seed|0x8\n"
		    "update 01000000 0100000000000000\n"
		    "lookup 01000000\nplookup 01000000\ndelete 01000000\n"
		    "next -\ndump\n", "rdonly");
}

/* Replay text on the kernel alone; its result lines into out. */
static enum replay_stop replay_on_kernel(const char *text, char **out,
					 char *err, size_t errlen)
{
	struct trace t;
	size_t len;
	cr_assert_eq(trace_parse_string(text, "t", &t, err, errlen), 0, "%s",
		     err);
	struct replay_side kern = kernel_replay_side();
	FILE *f = open_memstream(out, &len);
	cr_assert_not_null(f);
	enum replay_stop stop = replay_run(&t, "t", &kern, f, false, err,
					   errlen);
	fclose(f);
	trace_free(&t);
	return stop;
}

/* On a write-only map the program finds the key although userspace may
 * not read its value: the kernel's own plookup says ok. */
Test(kernel_hash, plookup_on_a_write_only_map)
{
	need_kernel();
	char *out = NULL, err[512];
	cr_assert_eq(replay_on_kernel("map hash key_size=4 value_size=4 "
				      "max_entries=2 flags=wronly\n"
				      "update 01000000 0a000000\n"
				      "plookup 01000000\nplookup 02000000\n"
				      "lookup 01000000\n", &out, err,
				      sizeof(err)), REPLAY_DONE, "%s", err);
	cr_expect_str_eq(out, "ok\nok\nok\nerr ENOENT\nerr EPERM\n");
	free(out);
}

/*
 * A lookup program that cannot be made (no file descriptor left for its
 * key array) is no answer of the map: the replay stops and says why.
 */
Test(kernel_hash, plookup_that_cannot_run_stops_the_replay)
{
	need_kernel();
	struct rlimit old, tight;
	int lowest_free = dup(0);
	cr_assert_geq(lowest_free, 0);
	close(lowest_free);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &old), 0);
	/* Room for the map's own fd, none for the program's. */
	tight = old;
	tight.rlim_cur = (rlim_t)lowest_free + 1;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &tight), 0);

	char *out = NULL, err[512] = "";
	enum replay_stop stop = replay_on_kernel(
		"map hash key_size=4 value_size=4 max_entries=2\n"
		"update 01000000 0a000000\nplookup 01000000\n", &out, err,
		sizeof(err));
	setrlimit(RLIMIT_NOFILE, &old);
	cr_expect_eq(stop, REPLAY_FAILED, "replay went on: %s", out);
	cr_expect(strstr(err, "t:3: the kernel's lookup program could not "
			      "run: Too many open files") != NULL, "%s", err);
	cr_expect_str_eq(out, "ok\nok\n");
	free(out);
}

/*
 * An element too large for one kmalloc.  With BPF_F_NO_PREALLOC the
 * kernel takes each element from bpf_mem_alloc (kernel/bpf/memalloc.c),
 * which kmallocs struct htab_elem (48 bytes), the key and the value (each
 * rounded up to 8) and an 8-byte free-list link: over KMALLOC_MAX_SIZE
 * (4 MiB) the map is created but every update that needs an element is
 * ENOMEM.  Traces one byte under and one byte over that boundary, for
 * three key sizes (measured: the last value_size stored), must answer the
 * same on both sides, and the sides must meet ENOMEM where they should.
 * Preallocated maps take their elements at create, with no such limit:
 * one byte over still stores.  Each value line is 8 MiB of hex.
 */
static struct map_ops counted_hash;
static unsigned long nomem_answers;

static int counted_hash_update(struct map *m, const void *key,
			       const void *value, uint64_t flags)
{
	int rc = map_find("hash/linux")->update(m, key, value, flags);
	nomem_answers += rc == -ENOMEM;
	return rc;
}

/* Key number i of key_size bytes, as hex. */
static void put_key(FILE *f, uint32_t key_size, unsigned i)
{
	fprintf(f, "%02x", i);
	kernel_put_hex(f, key_size - 1, 0);
}

static void put_update(FILE *f, uint32_t ks, uint32_t vs, unsigned key,
		       unsigned fill, const char *flag)
{
	fputs("update ", f);
	put_key(f, ks, key);
	fputc(' ', f);
	kernel_put_hex(f, vs, fill);
	fprintf(f, " %s\n", flag);
}

static char *big_element_trace(uint32_t ks, uint32_t vs, const char *flags)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	fprintf(f, "map hash key_size=%u value_size=%u max_entries=2 "
		"flags=%s\n", ks, vs, flags);
	put_update(f, ks, vs, 1, 0xa5, "exist");
	put_update(f, ks, vs, 1, 0xa5, "any");
	put_update(f, ks, vs, 1, 0x5a, "any");     /* a replace */
	put_update(f, ks, vs, 1, 0xa5, "noexist");
	put_update(f, ks, vs, 2, 0x3c, "noexist");
	put_update(f, ks, vs, 3, 0xc3, "any");     /* full, if stored */
	fputs("lookup ", f);
	put_key(f, ks, 1);
	fputs("\ndelete ", f);
	put_key(f, ks, 2);
	fputs("\nnext -\ndump\n", f);
	fclose(f);
	return text;
}

static void expect_big_element(uint32_t ks, uint32_t vs, const char *flags,
			       bool nomem)
{
	char what[128];
	snprintf(what, sizeof(what), "key_size=%u value_size=%u flags=%s", ks,
		 vs, flags);
	char *text = big_element_trace(ks, vs, flags);
	struct replay_side user = replay_user_side(&counted_hash);
	unsigned long before = nomem_answers;
	kernel_expect_same(text, what, &user, true);
	free(text);
	/* Over the boundary, every update but the first (exist on an
	 * absent key: ENOENT, its flags come first) is ENOMEM. */
	cr_expect_eq(nomem_answers - before, nomem ? 5 : 0, "%s: %lu ENOMEM",
		     what, nomem_answers - before);
}

Test(kernel_hash, no_prealloc_element_over_kmalloc_max_is_enomem,
     .timeout = 120)
{
	static const struct {
		uint32_t key_size, last_stored;
	} boundary[] = { { 4, 4194240 }, { 9, 4194232 }, { 100, 4194144 } };
	need_kernel();
	counted_hash = *map_find("hash/linux");
	counted_hash.update = counted_hash_update;
	for (size_t b = 0; b < sizeof(boundary) / sizeof(boundary[0]); b++) {
		uint32_t ks = boundary[b].key_size, vs = boundary[b].last_stored;
		expect_big_element(ks, vs, "no_prealloc|zero_seed", false);
		expect_big_element(ks, vs + 1, "no_prealloc|zero_seed", true);
	}
	/* Preallocated: (max_entries + possible cpus) elements at create,
	 * 4 MiB each on both sides; kept to machines of 16 cpus or fewer. */
	if (map_possible_cpus() <= 16)
		expect_big_element(4, 4194241, "zero_seed", false);
}
