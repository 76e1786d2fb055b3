/* SPDX-License-Identifier: MIT */
/*
 * test_symbols.c: kernel addresses against a recorded kallsyms excerpt,
 * user addresses against this test program and libc, and the live
 * /proc/kallsyms where it can be read.
 *
 * data/kallsyms.txt holds real lines of a 6.18 x86-64 kernel's
 * /proc/kallsyms, cut around the functions explain reads (htab, lpm trie,
 * bpf_lru, memcpy, the return thunks), with a data run (__start_rodata,
 * __init_begin) and the module lines the kernel had ([bpf],
 * [__builtin__ftrace]); its last line, bpf_prog_6deef7357e7b4530_kb_update
 * in [bpf], is written by hand in the format the kernel uses for a JITed
 * program (none was loaded when it was recorded).  data/kallsyms_zero.txt
 * is the same kernel's first lines as a user who is not root sees them.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/profile/symbols.h"

#define DATA MAPLAB_SOURCE_ROOT "/tests/harness/profile/data/"

static struct prof_symbols *syms;

static void load_excerpt(void)
{
	syms = prof_symbols_new();
	cr_assert_not_null(syms);
	cr_assert_eq(prof_symbols_add_kallsyms(syms, DATA "kallsyms.txt"), 0);
}

static void teardown(void)
{
	prof_symbols_free(syms);
	syms = NULL;
}

/* addr symbolises to name at start in module. */
static void expect_sym(uint64_t addr, const char *name, uint64_t start,
		       const char *module)
{
	struct prof_symbol out;

	cr_assert(prof_symbolize(syms, addr, &out), "%#llx: no symbol",
		  (unsigned long long)addr);
	cr_assert_str_eq(out.name, name, "%#llx", (unsigned long long)addr);
	cr_assert_eq(out.start, start, "%#llx: start %#llx",
		     (unsigned long long)addr, (unsigned long long)out.start);
	cr_assert_not_null(out.module);
	cr_assert_str_eq(out.module, module);
}

static void expect_none(uint64_t addr)
{
	struct prof_symbol out;

	cr_assert_not(prof_symbolize(syms, addr, &out), "%#llx: %s",
		      (unsigned long long)addr, out.name ? out.name : "?");
	cr_assert_null(out.name);
	cr_assert_eq(out.start, 0);
}

TestSuite(kallsyms, .init = load_excerpt, .fini = teardown);

Test(kallsyms, inside_a_function)
{
	/* htab_map_update_elem at ...536b80; the next symbol at ...536ed0 */
	expect_sym(0xffffffff81536b80 + 0x123, "htab_map_update_elem",
		   0xffffffff81536b80, "[kernel]");
	expect_sym(0xffffffff8153d1f0 + 0x40, "trie_update_elem",
		   0xffffffff8153d1f0, "[kernel]");
	expect_sym(0xffffffff8155bb90 + 8, "unit_alloc", 0xffffffff8155bb90,
		   "[kernel]");
	expect_sym(0xffffffff8153cbe0 + 0x10, "longest_prefix_match.isra.0",
		   0xffffffff8153cbe0, "[kernel]");
}

Test(kallsyms, first_byte_and_byte_before_the_next)
{
	/* htab_map_hash ...532d70, __pfx_bpf_obj_memcpy at ...533000 */
	expect_sym(0xffffffff81532d70, "htab_map_hash", 0xffffffff81532d70,
		   "[kernel]");
	expect_sym(0xffffffff81532fff, "htab_map_hash", 0xffffffff81532d70,
		   "[kernel]");
	expect_sym(0xffffffff81533000, "__pfx_bpf_obj_memcpy",
		   0xffffffff81533000, "[kernel]");
	/* memcpy (T, with aliases __memcpy and __pi_memcpy) ...243860, and
	 * __pfx_memcpy_orig 16 bytes on */
	expect_sym(0xffffffff82243860, "memcpy", 0xffffffff82243860, "[kernel]");
	expect_sym(0xffffffff8224386f, "memcpy", 0xffffffff82243860, "[kernel]");
	expect_sym(0xffffffff82243870, "__pfx_memcpy_orig", 0xffffffff82243870,
		   "[kernel]");
}

Test(kallsyms, return_thunks)
{
	expect_sym(0xffffffff82252de0 + 5, "srso_return_thunk",
		   0xffffffff82252de0, "[kernel]");
	expect_sym(0xffffffff82252f60, "its_return_thunk", 0xffffffff82252f60,
		   "[kernel]");
	/* __pi___x86_return_thunk comes first in the file, at the same
	 * address: the alias loses. */
	expect_sym(0xffffffff82252f70, "__x86_return_thunk",
		   0xffffffff82252f70, "[kernel]");
}

Test(kallsyms, aliases)
{
	/* t common_interrupt_return, T swapgs_restore_regs_and_return_to_
	 * usermode, T __irqentry_text_end: global, then fewer underscores. */
	expect_sym(0xffffffff81000f70 + 1,
		   "swapgs_restore_regs_and_return_to_usermode",
		   0xffffffff81000f70, "[kernel]");
	/* T _sinittext and B __init_begin: the data symbol never names. */
	expect_sym(0xffffffff83576000, "_sinittext", 0xffffffff83576000,
		   "[kernel]");
}

Test(kallsyms, data_symbols_are_skipped)
{
	struct prof_symbol out;

	/* D __start_rodata ends _etext's extent and names nothing; R runs
	 * of the ORC tables likewise. */
	expect_sym(0xffffffff82400000 - 1, "_etext", 0xffffffff82259b00,
		   "[kernel]");
	expect_none(0xffffffff82400000);
	expect_none(0xffffffff82400000 + 0x1000);
	expect_none(0xffffffff83575fff);
	cr_assert_not(prof_symbolize(syms, 0xffffffff82400000, &out));
	cr_assert_str_eq(out.module, "[kernel]");
}

Test(kallsyms, modules)
{
	expect_sym(0xffffffffc0029a40 + 0x2c,
		   "bpf_prog_6deef7357e7b4530_kb_update", 0xffffffffc0029a40,
		   "[bpf]");
	expect_sym(0xffffffffc0027300, "bpf_dispatcher_xdp",
		   0xffffffffc0027300, "[bpf]");
	expect_sym(0xffffffffc0201000 + 0x10, "ftrace_trampoline",
		   0xffffffffc0201000, "[__builtin__ftrace]");
}

Test(kallsyms, outside_every_symbol)
{
	struct prof_symbol out;

	/* below the first symbol (_stext at ffffffff81000000) */
	expect_none(0xffffffff80ffffff);
	cr_assert_not(prof_symbolize(syms, 0xffffffff80ffffff, &out));
	cr_assert_null(out.module);
	/* the last symbol holds 4 KiB, and no more */
	expect_sym(0xffffffffc0201fff, "ftrace_trampoline", 0xffffffffc0201000,
		   "[__builtin__ftrace]");
	expect_none(0xffffffffc0202000);
	/* a user address with no user table loaded */
	expect_none(0x401000);
}

Test(kallsyms_files, only_zero_addresses)
{
	struct prof_symbols *s = prof_symbols_new();
	struct prof_symbol out;

	cr_assert_eq(prof_symbols_add_kallsyms(s, DATA "kallsyms_zero.txt"),
		     -ENODATA);
	cr_assert_not(prof_symbolize(s, 0xffffffff81000000, &out));
	prof_symbols_free(s);
}

Test(kallsyms_files, missing)
{
	struct prof_symbols *s = prof_symbols_new();

	cr_assert_eq(prof_symbols_add_kallsyms(s, DATA "kallsyms_absent.txt"),
		     -ENOENT);
	prof_symbols_free(s);
}

Test(kallsyms_files, a_failed_file_keeps_the_table)
{
	syms = prof_symbols_new();
	cr_assert_eq(prof_symbols_add_kallsyms(syms, DATA "kallsyms.txt"), 0);
	cr_assert_eq(prof_symbols_add_kallsyms(syms, DATA "kallsyms_zero.txt"),
		     -ENODATA);
	expect_sym(0xffffffff8153b5d0 + 1, "bpf_lru_pop_free",
		   0xffffffff8153b5d0, "[kernel]");
	teardown();
}

/* ---- this process ------------------------------------------------------ */

/* Not static and not inlined, so that it has a symbol of its own. */
__attribute__((noinline)) int symbols_test_target(int x);
__attribute__((noinline)) int symbols_test_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

static const char *exe_name(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	const char *slash;

	cr_assert_gt(n, 0);
	path[n] = '\0';
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static void load_self(void)
{
	syms = prof_symbols_new();
	cr_assert_not_null(syms);
	cr_assert_eq(prof_symbols_add_self(syms), 0);
}

TestSuite(self, .init = load_self, .fini = teardown);

Test(self, a_function_of_this_program)
{
	uint64_t fn = (uint64_t)(uintptr_t)&symbols_test_target;

	cr_assert_eq(symbols_test_target(2), 7);
	expect_sym(fn + 3, "symbols_test_target", fn, exe_name());
	expect_sym(fn, "symbols_test_target", fn, exe_name());
}

Test(self, a_libc_function)
{
	pid_t (*volatile fn)(void) = getpid;
	struct prof_symbol out;

	cr_assert(prof_symbolize(syms, (uint64_t)(uintptr_t)fn + 1, &out));
	cr_assert_not_null(strstr(out.name, "getpid"), "%s", out.name);
	cr_assert_eq(out.start, (uint64_t)(uintptr_t)fn);
	cr_assert_eq(strncmp(out.module, "libc", 4), 0, "%s", out.module);
}

Test(self, no_mapping)
{
	struct prof_symbol out;

	expect_none(0x10);
	cr_assert_not(prof_symbolize(syms, 0x10, &out));
	cr_assert_null(out.module);
}

Test(self, kernel_addresses_need_kallsyms)
{
	expect_none(0xffffffff81000000);
}

/* ---- the live kernel --------------------------------------------------- */

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The address /proc/kallsyms gives for name, or 0. */
static uint64_t live_address_of(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	unsigned long long addr;
	uint64_t found = 0;

	cr_assert_not_null(f);
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    strcmp(sym, name) == 0)
			found = addr;
	fclose(f);
	return found;
}

Test(live, proc_kallsyms)
{
	struct timespec t0;
	struct prof_symbol out;
	uint64_t addr;
	int r;

	if (geteuid() != 0)
		cr_skip_test("not root: /proc/kallsyms shows zero addresses");
	syms = prof_symbols_new();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = prof_symbols_add_kallsyms(syms, "/proc/kallsyms");
	double took = seconds_since(&t0);

	if (r == -ENODATA) {
		teardown();
		cr_skip_test("/proc/kallsyms hides its addresses (kptr_restrict)");
	}
	cr_assert_eq(r, 0, "%s", strerror(-r));
	cr_log_info("/proc/kallsyms loaded in %.1f ms", took * 1e3);
	cr_assert(prof_jit_kallsyms() == 0 || prof_jit_kallsyms() == 1);

	/* schedule is a global text symbol on every kernel, with no alias */
	addr = live_address_of("schedule");
	cr_assert_neq(addr, 0);
	cr_assert(prof_symbolize(syms, addr + 1, &out));
	cr_assert_str_eq(out.name, "schedule");
	cr_assert_eq(out.start, addr);
	cr_assert_str_eq(out.module, "[kernel]");
	teardown();
}
