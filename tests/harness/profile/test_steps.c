/* SPDX-License-Identifier: MIT */
/*
 * test_steps.c: the steps of a map op from sampled call chains
 * (harness/profile/steps.h): hand-made chains for each rule, a recording of
 * real chains (data/chains-lpm_trie-update.txt, data/README.md), and a
 * program with known costs run through the whole path explain takes
 * (sampler, symbols, steps).
 */
#include "harness/profile/sampler.h"
#include "harness/profile/tally.h"
#include "harness/profile/symbols.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KBASE 0xffffffff81000000ull
#define PROG_UPDATE "bpf_prog_380f27380159e06e_kb_update"
#define STEP_UPDATE "bpf_prog_49cdfe65fb074052_step_update"

static struct prof_frame kf(const char *name, uint64_t off)
{
	return (struct prof_frame){ name, "[kernel]", KBASE + off,
				    KBASE + (off & ~0xfffull) };
}

static struct prof_frame pf(const char *name, uint64_t off)
{
	return (struct prof_frame){ name, "[bpf]", 0xffffffffc0000000ull + off,
				    0xffffffffc0000000ull + (off & ~0xfffull) };
}

static struct prof_frame uf(const char *name, const char *module, uint64_t start,
			    uint64_t off)
{
	return (struct prof_frame){ name, module, start + off, name ? start : 0 };
}

static const struct prof_scope kernel_update = {
	.kernel = true, .program = "kb_update", .baseline = "kb_baseline",
	.program_callback = "step_update", .baseline_callback = "step_baseline",
	.kernel_op = "update",
};

/* The frames a kernel op runs under: the program, the test run. */
#define UNDER_PROGRAM pf(STEP_UPDATE, 0x1100), pf(PROG_UPDATE, 0x2100), \
	kf("bpf_test_run", 0x900100), kf("bpf_prog_test_run_xdp", 0x901100)

#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

Test(steps, kernel_map_function_under_the_program)
{
	struct prof_frame c[] = { kf("htab_map_hash", 0x1010),
				  kf("htab_map_update_elem", 0x2040), UNDER_PROGRAM };
	struct prof_verdict v = prof_classify(&kernel_update, c, N(c));
	cr_expect_eq(v.region, PROF_REGION_OP);
	cr_expect_eq(v.step, PROF_STEP_HASH);
	cr_expect_eq(v.credited, 0);
	cr_expect_eq(v.entry, 1, "the entry is the frame the program calls");
}

Test(steps, interrupts_off_belongs_to_the_op_function)
{
	struct prof_frame c[] = { kf("pvm_irq_enable", 0x3008),
				  kf("__raw_callee_save_pvm_irq_enable", 0x3100),
				  kf("_raw_spin_unlock_irqrestore", 0x3200),
				  kf("trie_update_elem", 0x4080), UNDER_PROGRAM };
	struct prof_verdict v = prof_classify(&kernel_update, c, N(c));
	cr_expect_eq(v.step, PROF_STEP_IRQS_OFF);
	cr_expect_eq(v.credited, 3, "credited to trie_update_elem, not to %s",
		     v.credited >= 0 ? c[v.credited].name : "none");
}

Test(steps, interrupts_off_in_the_allocator_is_allocation)
{
	struct prof_frame c[] = { kf("pvm_irq_enable", 0x3008),
				  kf("__raw_callee_save_pvm_irq_enable", 0x3100),
				  kf("unit_alloc", 0x5040),
				  kf("bpf_mem_cache_alloc", 0x5140),
				  kf("trie_update_elem", 0x4080), UNDER_PROGRAM };
	struct prof_verdict v = prof_classify(&kernel_update, c, N(c));
	cr_expect_eq(v.step, PROF_STEP_ALLOC);
	cr_expect_str_eq(c[v.credited].name, "unit_alloc");
}

Test(steps, the_programs_own_code_and_thunks)
{
	struct prof_frame own[] = { UNDER_PROGRAM };
	struct prof_verdict v = prof_classify(&kernel_update, own, N(own));
	cr_expect_eq(v.region, PROF_REGION_OP);
	cr_expect_eq(v.step, PROF_STEP_PROGRAM);

	struct prof_frame thunk[] = { kf("__x86_return_thunk", 0x6000),
				      kf("htab_map_update_elem", 0x2040), UNDER_PROGRAM };
	cr_expect_eq(prof_classify(&kernel_update, thunk, N(thunk)).step,
		     PROF_STEP_THUNK);
	struct prof_frame srso[] = { kf("srso_alias_return_thunk", 0x6100),
				     kf("htab_map_update_elem", 0x2040), UNDER_PROGRAM };
	cr_expect_eq(prof_classify(&kernel_update, srso, N(srso)).step,
		     PROF_STEP_THUNK);
}

Test(steps, baseline_outside_and_other_op)
{
	struct prof_frame base[] = { pf("bpf_prog_0c1498184dd23ea5_step_baseline", 0x7000),
				     pf("bpf_prog_1111111111111111_kb_baseline", 0x7100),
				     kf("bpf_test_run", 0x900100) };
	cr_expect_eq(prof_classify(&kernel_update, base, N(base)).region,
		     PROF_REGION_BASELINE);

	/* bpf_prog_test_run_xdp is the kernel's, not a JITed program */
	struct prof_frame outside[] = { kf("smp_call_function_many_cond", 0x8000),
					kf("text_poke_bp_batch", 0x8100),
					kf("bpf_prog_test_run_xdp", 0x901100) };
	struct prof_verdict v = prof_classify(&kernel_update, outside, N(outside));
	cr_expect_eq(v.region, PROF_REGION_HARNESS);
	cr_expect_eq(v.step, PROF_STEP_HARNESS);

	struct prof_frame del[] = { kf("htab_map_delete_elem", 0x2440), UNDER_PROGRAM };
	cr_expect_eq(prof_classify(&kernel_update, del, N(del)).region,
		     PROF_REGION_OTHER_OP);
}

Test(steps, compiler_clones_and_versioned_names)
{
	struct prof_frame c[] = { kf("longest_prefix_match.isra.0", 0x9000),
				  kf("trie_update_elem", 0x4080), UNDER_PROGRAM };
	cr_expect_eq(prof_classify(&kernel_update, c, N(c)).step, PROF_STEP_COMPARE);
}

/* --- the user side ---------------------------------------------------------------- */

#define UPDATE_START 0x555500002000ull
static const struct prof_entry user_entries[] = {
	{ UPDATE_START, true }, { 0x555500003000ull, false } };
static const struct prof_scope user_update = {
	.entries = user_entries, .n_entries = 2 };

#define LOOP uf("run_phase", "maplab", 0x555500009000ull, 0x40), \
	uf("worker_phase", "maplab", 0x55550000a000ull, 0x20), \
	uf("start_thread", "libc.so.6", 0x7f0000001000ull, 0x80)

Test(steps, user_chain_through_the_entry)
{
	struct prof_frame c[] = { uf("__memcmp_evex_movbe", "libc.so.6", 0x7f0000002000ull, 8),
				  uf("lookup_locked", "maplab", 0x555500001000ull, 0x30),
				  uf("lpm_update", "maplab", UPDATE_START, 0x10), LOOP };
	struct prof_verdict v = prof_classify(&user_update, c, N(c));
	cr_expect_eq(v.region, PROF_REGION_OP);
	cr_expect_eq(v.entry, 2);
	cr_expect_eq(v.step, PROF_STEP_COMPARE);

	struct prof_frame del[] = { uf("lpm_delete", "maplab", 0x555500003000ull, 0x10), LOOP };
	cr_expect_eq(prof_classify(&user_update, del, N(del)).region,
		     PROF_REGION_OTHER_OP);
}

Test(steps, user_harness_and_cut_chains)
{
	struct prof_frame clock[] = { uf("clock_gettime@@GLIBC_2.17", "libc.so.6",
					 0x7f0000003000ull, 4), LOOP };
	cr_expect_eq(prof_classify(&user_update, clock, N(clock)).region,
		     PROF_REGION_HARNESS);

	/* map_jhash sampled in its prologue: its caller, the entry, skipped */
	struct prof_frame cut[] = { uf("map_jhash", "maplab", 0x555500004000ull, 1), LOOP };
	struct prof_verdict v = prof_classify(&user_update, cut, N(cut));
	cr_expect_eq(v.region, PROF_REGION_OP);
	cr_expect_eq(v.step, PROF_STEP_HASH);

	/* a library without frame pointers: its module says what it is */
	struct prof_frame je[] = { uf(NULL, "libjemalloc.so.2", 0, 0x7f1000001234ull),
				   uf(NULL, "libjemalloc.so.2", 0, 0x7f1000002234ull) };
	v = prof_classify(&user_update, je, N(je));
	cr_expect_eq(v.region, PROF_REGION_OP);
	cr_expect_eq(v.step, PROF_STEP_ALLOC);
}

Test(steps, names_before_libraries_and_lookups_before_locks)
{
	/* liburcu-cds's hash table: its lookup is a walk by its name; an
	 * unnamed frame of liburcu-memb is reclamation, listed by library */
	struct prof_frame lfht[] = { uf("cds_lfht_lookup", "liburcu-cds.so.8", 0x7f2000001000ull, 0x40),
				     uf("lpm_update", "maplab", UPDATE_START, 0x10), LOOP };
	struct prof_verdict v = prof_classify(&user_update, lfht, N(lfht));
	cr_expect_eq(v.step, PROF_STEP_WALK);
	struct prof_frame memb[] = { uf(NULL, "liburcu-memb.so.8", 0, 0x7f3000001234ull),
				     uf("lpm_update", "maplab", UPDATE_START, 0x10), LOOP };
	v = prof_classify(&user_update, memb, N(memb));
	cr_expect_eq(v.step, PROF_STEP_RECLAIM);
	cr_expect_eq(v.credited, 0, "credited to the library's frame, not to %s",
		     v.credited >= 0 && memb[v.credited].name ? memb[v.credited].name : "-");
	/* a seqlock reader's lookup is the search, not the lock */
	struct prof_frame seq[] = { uf("seqlock_lookup", "maplab", 0x555500006000ull, 0x30),
				    uf("lpm_update", "maplab", UPDATE_START, 0x10), LOOP };
	cr_expect_eq(prof_classify(&user_update, seq, N(seq)).step, PROF_STEP_WALK);
	struct prof_frame fh[] = { uf("flattab_hash", "maplab", 0x555500007000ull, 0x8),
				   uf("lpm_update", "maplab", UPDATE_START, 0x10), LOOP };
	cr_expect_eq(prof_classify(&user_update, fh, N(fh)).step, PROF_STEP_HASH);
}

Test(steps, a_page_fault_is_the_user_frame_that_caused_it)
{
	struct prof_frame c[] = { kf("clear_page_erms", 0xa000),
				  kf("pvm_irq_enable", 0x3008),
				  kf("exc_page_fault", 0xa100),
				  uf("node_alloc", "maplab", 0x555500005000ull, 0x44),
				  uf("lpm_update", "maplab", UPDATE_START, 0x10), LOOP };
	struct prof_verdict v = prof_classify(&user_update, c, N(c));
	cr_expect_eq(v.step, PROF_STEP_ALLOC);
	cr_expect_str_eq(c[v.credited].name, "node_alloc");
}

/* --- the tally ----------------------------------------------------------------------- */

static void add_n(struct prof_tally *t, const struct prof_scope *scope,
		  const struct prof_frame *c, unsigned n, unsigned times, bool off)
{
	for (unsigned i = 0; i < times; i++)
		cr_assert_eq(prof_tally_add(t, scope, c, n, off), 0);
}

Test(steps, tally_shares_and_folded_stacks)
{
	struct prof_tally t = { 0 };
	struct prof_frame hash[] = { kf("htab_map_hash", 0x1010),
				     kf("htab_map_update_elem", 0x2040), UNDER_PROGRAM };
	struct prof_frame own[] = { UNDER_PROGRAM };
	struct prof_frame outside[] = { kf("smp_call_function_many_cond", 0x8000),
					kf("bpf_prog_test_run_xdp", 0x901100) };
	add_n(&t, &kernel_update, hash, N(hash), 30, false);
	add_n(&t, &kernel_update, own, N(own), 10, false);
	add_n(&t, &kernel_update, outside, N(outside), 5, false);
	cr_assert_eq(prof_tally_finish(&t), 0);

	cr_expect_eq(prof_tally_covered(&t), 40, "the program's samples, not "
		     "the machinery's outside it");
	cr_expect_eq(t.step[PROF_STEP_HASH], 30);
	cr_expect_eq(t.step[PROF_STEP_PROGRAM], 10);
	cr_expect_eq(t.step[PROF_STEP_HARNESS], 5, "listed, not covered");
	cr_expect_eq(t.n_stacks, 2, "outside the program is not drawn");
	bool seen = false;
	for (size_t i = 0; i < t.n_stacks; i++)
		if (t.stacks[i].count == 30) {
			seen = true;
			cr_expect(strstr(t.stacks[i].folded,
					 "bpf_prog_test_run_xdp_[h];bpf_test_run_[h];"
					 PROG_UPDATE "_[j];" STEP_UPDATE "_[j];"
					 "htab_map_update_elem_[k];htab_map_hash_[k]"),
				  "%s", t.stacks[i].folded);
		}
	cr_expect(seen);
	prof_tally_free(&t);
}

/* The samples a side's steps hold: every step's, but the kernel's harness
 * (outside the program, not in its ns/op). */
static uint64_t in_steps(const struct prof_tally *t)
{
	uint64_t sum = 0;
	for (int st = 0; st < PROF_STEP_COUNT; st++)
		if (!(t->kernel && st == PROF_STEP_HARNESS))
			sum += t->step[st];
	return sum;
}

/* explain's steps add up to the side's ns/op: the steps hold exactly the
 * covered samples of the op asked (the other op's are counted apart).  On
 * the kernel side the test-run machinery's samples are harness whatever
 * their leaf (a thunk or trampoline there is not the program's), and a
 * chain cut at a bpf_loop callback's first instruction (the program's
 * frame skipped: the callback has not set up its own yet) is the
 * callback's program's: the workload's in its ns/op, the baseline's not. */
Test(steps, the_steps_hold_exactly_the_covered_samples)
{
	struct prof_tally t = { 0 };
	struct prof_frame hash[] = { kf("htab_map_hash", 0x1010),
				     kf("htab_map_update_elem", 0x2040), UNDER_PROGRAM };
	struct prof_frame own[] = { UNDER_PROGRAM };
	struct prof_frame del[] = { kf("htab_map_delete_elem", 0x2440), UNDER_PROGRAM };
	struct prof_frame outside[] = { kf("smp_call_function_many_cond", 0x8000),
					kf("bpf_prog_test_run_xdp", 0x901100) };
	struct prof_frame thunk_outside[] = { kf("__x86_return_thunk", 0x6000),
					      kf("bpf_test_run", 0x900100),
					      kf("bpf_prog_test_run_xdp", 0x901100) };
	struct prof_frame cut_step[] = { pf(STEP_UPDATE, 0x1100),
					 kf("bpf_test_run", 0x900100),
					 kf("bpf_prog_test_run_xdp", 0x901100) };
	struct prof_frame cut_baseline[] = {
		pf("bpf_prog_0c1498184dd23ea5_step_baseline", 0x7000),
		kf("bpf_test_run", 0x900100), kf("bpf_prog_test_run_xdp", 0x901100) };
	add_n(&t, &kernel_update, hash, N(hash), 30, false);
	add_n(&t, &kernel_update, own, N(own), 10, false);
	add_n(&t, &kernel_update, del, N(del), 6, false);
	add_n(&t, &kernel_update, outside, N(outside), 5, false);
	add_n(&t, &kernel_update, thunk_outside, N(thunk_outside), 3, false);
	add_n(&t, &kernel_update, cut_step, N(cut_step), 4, false);
	add_n(&t, &kernel_update, cut_baseline, N(cut_baseline), 2, false);
	cr_assert_eq(prof_tally_finish(&t), 0);

	cr_expect_eq(prof_tally_covered(&t), 30 + 10 + 6 + 4);
	cr_expect_eq(in_steps(&t) + t.region[PROF_REGION_OTHER_OP],
		     prof_tally_covered(&t), "steps %llu + other op %llu, covered %llu",
		     (unsigned long long)in_steps(&t),
		     (unsigned long long)t.region[PROF_REGION_OTHER_OP],
		     (unsigned long long)prof_tally_covered(&t));
	cr_expect_eq(t.step[PROF_STEP_THUNK], 0, "a thunk outside the program "
		     "is the machinery's");
	cr_expect_eq(t.step[PROF_STEP_PROGRAM], 10 + 4, "the cut callback is "
		     "the program's own code");
	cr_expect_eq(t.step[PROF_STEP_HARNESS], 5 + 3);
	cr_expect_eq(t.region[PROF_REGION_HARNESS], 5 + 3);
	cr_expect_eq(t.region[PROF_REGION_BASELINE], 2);
	prof_tally_free(&t);

	/* the user side: the bench loop is in its ns/op, a thunk there too */
	struct prof_tally u = { 0 };
	struct prof_frame entry_hash[] = {
		uf("map_jhash", "maplab", 0x555500004000ull, 0x20),
		uf("lpm_update", "maplab", UPDATE_START, 0x10), LOOP };
	struct prof_frame entry_delete[] = {
		uf("lpm_delete", "maplab", 0x555500003000ull, 0x10), LOOP };
	struct prof_frame loop[] = { LOOP };
	struct prof_frame loop_thunk[] = { kf("__x86_return_thunk", 0x6000), LOOP };
	add_n(&u, &user_update, entry_hash, N(entry_hash), 20, false);
	add_n(&u, &user_update, entry_delete, N(entry_delete), 7, false);
	add_n(&u, &user_update, loop, N(loop), 4, false);
	add_n(&u, &user_update, loop_thunk, N(loop_thunk), 1, false);
	cr_assert_eq(prof_tally_finish(&u), 0);
	cr_expect_eq(prof_tally_covered(&u), 20 + 7 + 4 + 1);
	cr_expect_eq(in_steps(&u) + u.region[PROF_REGION_OTHER_OP],
		     prof_tally_covered(&u));
	prof_tally_free(&u);
}

Test(steps, a_lump_at_one_address_of_a_map_op_is_interrupts_off)
{
	struct prof_tally t = { 0 };
	struct prof_frame at_sti[] = { kf("htab_map_update_elem", 0x2077), UNDER_PROGRAM };
	struct prof_frame elsewhere[] = { kf("htab_map_update_elem", 0x2010), UNDER_PROGRAM };
	struct prof_frame miss[] = { kf("__htab_map_lookup_elem", 0xb077), UNDER_PROGRAM };
	struct prof_scope any = kernel_update;
	any.kernel_op = NULL;
	add_n(&t, &any, at_sti, N(at_sti), 30, false);
	add_n(&t, &any, elsewhere, N(elsewhere), 5, false);
	/* a lookup's one slow load is no interrupts-off section */
	add_n(&t, &any, miss, N(miss), 40, false);
	cr_assert_eq(prof_tally_finish(&t), 0);
	cr_expect_eq(t.step[PROF_STEP_IRQS_OFF], 30);
	cr_expect_eq(t.step[PROF_STEP_WALK], 45);
	prof_tally_free(&t);
}

/* --- a recording of real chains ------------------------------------------------------ */

struct recording {
	char *text;
	struct prof_frame frames[4096][12];
	unsigned n_frames[4096];
	char *side[4096];
	bool worker[4096];
	unsigned n;
};

static void read_recording(struct recording *r, const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s", path);
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	rewind(f);
	r->text = malloc((size_t)len + 1);
	cr_assert(fread(r->text, 1, (size_t)len, f) == (size_t)len);
	r->text[len] = '\0';
	fclose(f);
	char *save_line;
	for (char *line = strtok_r(r->text, "\n", &save_line); line && r->n < 4096;
	     line = strtok_r(NULL, "\n", &save_line)) {
		char *save, *field = strtok_r(line, "\t", &save);
		r->side[r->n] = field;
		r->worker[r->n] = strcmp(strtok_r(NULL, "\t", &save), "worker") == 0;
		unsigned k = 0;
		while ((field = strtok_r(NULL, "\t", &save)) && k < 12) {
			char module[128], name[256];
			unsigned long long addr, start;
			cr_assert_eq(sscanf(field, "%llx %llx %127s %255s", &addr, &start,
					    module, name), 4, "%s", field);
			/* the names live in the line itself */
			char *m = strstr(field, " ") + 1;
			m = strstr(m, " ") + 1;
			char *nm = strstr(m, " ");
			*nm++ = '\0';
			r->frames[r->n][k++] = (struct prof_frame){
				strcmp(nm, "-") ? nm : NULL, strcmp(m, "-") ? m : NULL,
				addr, start };
		}
		r->n_frames[r->n++] = k;
	}
}

static double share(const struct prof_tally *t, enum prof_step s)
{
	return (double)t->step[s] / (double)prof_tally_covered(t);
}

static uint64_t fn_samples(const struct prof_tally *t, enum prof_step s,
			   const char *name)
{
	for (unsigned i = 0; i < t->n_fns[s]; i++)
		if (strncmp(t->fns[s][i].name, name, strlen(name)) == 0)
			return t->fns[s][i].samples;
	return 0;
}

Test(steps, recorded_lpm_trie_update)
{
	static struct recording r;
	read_recording(&r, MAPLAB_SOURCE_ROOT
		       "/tests/harness/profile/data/chains-lpm_trie-update.txt");
	cr_assert_gt(r.n, 150);

	/* the design's entry: lpm_update, wherever this recording had it */
	struct prof_entry entry = { 0, true };
	for (unsigned i = 0; i < r.n && !entry.start; i++)
		for (unsigned k = 0; k < r.n_frames[i]; k++)
			if (r.frames[i][k].name &&
			    strcmp(r.frames[i][k].name, "lpm_update") == 0)
				entry.start = r.frames[i][k].start;
	cr_assert(entry.start);
	struct prof_scope user = { .entries = &entry, .n_entries = 1 };

	struct prof_tally kt = { 0 }, ut = { 0 };
	for (unsigned i = 0; i < r.n; i++) {
		bool kernel = strncmp(r.side[i], "kernel", 6) == 0;
		cr_assert_eq(prof_tally_add(kernel ? &kt : &ut,
					    kernel ? &kernel_update : &user,
					    r.frames[i], r.n_frames[i], !r.worker[i]), 0);
	}
	cr_assert_eq(prof_tally_finish(&kt), 0);
	cr_assert_eq(prof_tally_finish(&ut), 0);

	for (int st = 0; st < PROF_STEP_COUNT; st++)
		cr_log_info("recorded %-10s kernel %3llu (%s)  user %3llu (%s)",
			    prof_step_name((enum prof_step)st),
			    (unsigned long long)kt.step[st],
			    kt.n_fns[st] ? kt.fns[st][0].name : "-",
			    (unsigned long long)ut.step[st],
			    ut.n_fns[st] ? ut.fns[st][0].name : "-");
	/* the kernel at 64K: trie_update_elem with interrupts off, then
	 * the allocator (profiling.md: 68.8% and 30.0% on another host;
	 * at 4K the allocator leads, the walk being short) */
	double irqs = share(&kt, PROF_STEP_IRQS_OFF), alloc = share(&kt, PROF_STEP_ALLOC);
	cr_expect_gt(irqs, 0.4, "irqs off %.2f", irqs);
	cr_expect_gt(alloc, 0.1, "alloc %.2f", alloc);
	cr_expect_gt(irqs + alloc, 0.85, "irqs off + alloc %.2f", irqs + alloc);
	cr_expect_gt(fn_samples(&kt, PROF_STEP_IRQS_OFF, "trie_update_elem"),
		     kt.step[PROF_STEP_IRQS_OFF] * 9 / 10);
	cr_expect_gt(fn_samples(&kt, PROF_STEP_ALLOC, "unit_alloc"),
		     kt.step[PROF_STEP_ALLOC] * 9 / 10);
	cr_expect_eq(kt.off_thread, 0);
	/* the design: match_len first, its timed lock, and the call_rcu
	 * thread beside it (profiling.md: match_len 80.8%) */
	cr_expect_gt(share(&ut, PROF_STEP_COMPARE), 0.5, "compare %.2f",
		     share(&ut, PROF_STEP_COMPARE));
	cr_expect_gt(fn_samples(&ut, PROF_STEP_COMPARE, "match_len"),
		     ut.step[PROF_STEP_COMPARE] * 9 / 10);
	cr_expect_gt(ut.step[PROF_STEP_LOCK], 0);
	cr_expect_eq(ut.step[PROF_STEP_IRQS_OFF], 0);
	cr_expect_gt(ut.off_thread, 0);
	cr_expect_lt(share(&ut, PROF_STEP_HARNESS), 0.15);
	prof_tally_free(&kt);
	prof_tally_free(&ut);
	free(r.text);
}

/* --- a program with known costs, through sampler, symbols and steps ------------------ */

static volatile uint64_t sink;
static uint64_t iters_per_unit;

static void __attribute__((noinline)) spin(uint64_t n)
{
	uint64_t x = sink;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

/* Named for the rules: a hash step (*jhash*), a compare step
 * (*keys_equal*), called from an op entry, in the ratio 1 : 2. */
void __attribute__((noinline)) calib_jhash(void);
void __attribute__((noinline)) calib_keys_equal(void);
void __attribute__((noinline)) calib_update(void);

void calib_jhash(void)
{
	uint64_t x = sink;
	for (uint64_t i = 0; i < iters_per_unit; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

void calib_keys_equal(void)
{
	uint64_t x = sink;
	for (uint64_t i = 0; i < 2 * iters_per_unit; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

void calib_update(void)
{
	calib_jhash();
	calib_keys_equal();
}

struct worker {
	_Atomic pid_t tid;
	atomic_bool go, stop;
};

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	atomic_store(&w->tid, gettid());
	while (!atomic_load(&w->go))
		;
	while (!atomic_load(&w->stop))
		calib_update();
	return NULL;
}

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

Test(steps, known_costs_give_their_shares, .timeout = 60)
{
	char why[256], err[256];
	if (prof_sampler_check(why, sizeof(why)))
		cr_skip_test("cannot sample here: %s", why);
	/* a unit of about 200 us */
	double t0 = thread_cpu_s();
	spin(2000000);
	iters_per_unit = (uint64_t)(2000000 * 200e-6 / (thread_cpu_s() - t0));

	struct worker w = { 0 };
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, run_worker, &w), 0);
	while (!atomic_load(&w.tid))
		;
	pid_t tid = atomic_load(&w.tid);
	struct prof_sampler *s;
	cr_assert_eq(prof_sampler_start(&s, &tid, 1, 1000, err, sizeof(err)), 0, "%s", err);
	/* cpu-clock samples count the worker's CPU time, not the wall's: on a
	 * busy machine (the sanitizer suites run side by side) the worker may
	 * get half a cpu, so it runs until it has had 1.5 s of CPU (at most
	 * 20 s of wall), and the samples are checked against what it had. */
	clockid_t worker_clock;
	cr_assert_eq(pthread_getcpuclockid(th, &worker_clock), 0);
	atomic_store(&w.go, true);
	struct timespec pause = { 0, 100000000 }, now;
	double worker_s = 0;
	for (int i = 0; i < 200 && worker_s < 1.5; i++) {
		nanosleep(&pause, NULL);
		clock_gettime(worker_clock, &now);
		worker_s = (double)now.tv_sec + now.tv_nsec / 1e9;
	}
	atomic_store(&w.stop, true);
	struct prof_sample_set set = { 0 };
	cr_assert_eq(prof_sampler_stop(s, &set), 0);
	pthread_join(th, NULL);
	prof_sampler_free(s);

	struct prof_symbols *sym = prof_symbols_new();
	cr_assert_eq(prof_symbols_add_self(sym), 0);
	struct prof_entry entry = { (uint64_t)(uintptr_t)calib_update, true };
	struct prof_scope scope = { .entries = &entry, .n_entries = 1 };
	struct prof_tally t = { 0 };
	struct prof_frame chain[PROF_MAX_FRAMES];
	for (size_t i = 0; i < set.n; i++) {
		const uint64_t *fr = prof_sample_frames(&set, i);
		for (unsigned k = 0; k < set.samples[i].n_frames; k++) {
			struct prof_symbol y;
			prof_symbolize(sym, fr[k], &y);
			chain[k] = (struct prof_frame){ y.name, y.module, fr[k], y.start };
		}
		cr_assert_eq(prof_tally_add(&t, &scope, chain,
					    set.samples[i].n_frames, false), 0);
	}
	cr_assert_eq(prof_tally_finish(&t), 0);
	uint64_t hash = t.step[PROF_STEP_HASH], cmp = t.step[PROF_STEP_COMPARE];
	cr_log_info("known costs: %zu samples, hash %llu, compare %llu, other %llu",
		    set.n, (unsigned long long)hash, (unsigned long long)cmp,
		    (unsigned long long)(t.samples - hash - cmp));
	/* 1000 Hz of the worker's CPU time, less what the sampler may lose
	 * to a descheduled worker (a sample is taken on the clock's tick). */
	cr_assert_gt((double)set.n, 0.6 * 1000 * worker_s,
		     "about %.0f samples expected (%.2f s of the worker's CPU), got %zu",
		     1000 * worker_s, worker_s, set.n);
	/* the two steps hold (nearly) every sample, in the ratio 1 : 2 */
	cr_expect_gt((double)(hash + cmp), 0.9 * (double)t.samples);
	double ratio = (double)hash / (double)(hash + cmp);
	cr_expect(ratio > 1.0 / 3 - 0.06 && ratio < 1.0 / 3 + 0.06,
		  "hash's share of hash + compare is %.3f, 0.333 +- 0.06 expected", ratio);
	prof_tally_free(&t);
	prof_set_free(&set);
	prof_symbols_free(sym);
}
