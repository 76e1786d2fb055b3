/* SPDX-License-Identifier: MIT */
/*
 * reproduce_plan.c: what `maplab reproduce` runs, finding by finding
 * (reproduce.h).  Each experiment is a maplab command; the full plan
 * measures every size with bench's 5 interleaved repeats, the quick one
 * cuts sizes, timed phases and repeats (struct repro_plan's cuts says
 * which, in words, for findings.md).
 *
 * The experiments, and why each holds the sides it does (a ratio is only
 * taken between sides of one step, which ran interleaved):
 *
 *   1  trie vs hash updates: one compare per size with the kernel's trie
 *      and hash (inside BPF) and the trie and hash designs of each
 *      platform on the same /32 addresses, and (full run only) one on the
 *      whole Internet table's prefixes; explain on the kernel's and the
 *      designs' trie and hash updates, for the why
 *   2  the LRUs: one compare of every LRU design and the kernel's two LRU
 *      modes on a zipf 0.99 stream over a range 4x the map (lookups that
 *      insert on a miss, as a cache does), 1 and 2 threads; sim of every
 *      LRU design on the same distribution and on examples/traces, 1 and
 *      2 threads (a per-CPU LRU's capacity depends on how many cpus
 *      insert), for miss ratios
 *   3  prealloc against BPF_F_NO_PREALLOC: compare of hash/linux and the
 *      kernel's hash, each way, per size (the two ways are adjacent
 *      steps: a flag is the map's, so they cannot share a step)
 *   4  common against per-CPU LRU: sim of the kernel's two LRUs and the
 *      faithful designs with all the load on one cpu (1 thread) and
 *      spread evenly (2 threads)
 *   6  the kernels users run: finding 4's question (the load on one cpu)
 *      per kernel (5.10, 6.1, 6.12) and cpu count (2, 4, 8), a sim each
 *      with --kernel K --vm-cpus N: the faithful designs model K on N
 *      cpus, and on 6.1 and 6.12 the kernel's own LRUs run beside them
 *      in a VM booted from K, whose misses must equal the designs'
 *      (5.10 cannot run ksim's BPF_PROG_TYPE_SYSCALL program: the
 *      designs alone answer there, validated against 5.10 op for op by
 *      `validate --kernel 5.10`, docs/kernels.md).  Left out of --quick:
 *      six VM boots under TCG take minutes.
 *   7  the LPM trie at scale: one compare per size of the kernel's trie
 *      and the trie designs on lookups of the kernel LPM benchmark's
 *      keys, and (full run only) of the Internet table; explain's size
 *      differential on lookups; one compare per write op of that
 *      benchmark (--lpm-op) and size
 *
 * Without the kernel side here (not root, no BPF, built without it) the
 * compare steps run their designs alone (compare's own rule), and the
 * steps that need the kernel (explain; sim's kernel policies) are left
 * out, as are finding 6's kernel policies without QEMU: findings.md then
 * says what is missing.
 *   5  kernel against userspace, same algorithm: finding 1's compare and
 *      explain runs, read again (no steps of its own)
 *   suite  the bpf_performance tests the suite's way: 1024 entries, 4-byte
 *      keys and values for hash and LRU; the LPM tests with the suite's
 *      prefix table and 8-byte keys, BPF_F_NO_PREALLOC; 1 and 2 threads
 */
#include "cli/reproduce/reproduce.h"
#include "maps/base/map.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sizes of findings 1 and 3, and the suite's LPM sizes. */
static const unsigned full_sizes[] = { 1024, 16384, 65536, 262144, 1048576 };
static const unsigned quick_sizes[] = { 1024, 65536 };
static const unsigned suite_lpm_full[] = { 1024, 16384, 262144, 1048576 };
static const unsigned suite_lpm_quick[] = { 1024, 16384 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Timed seconds, warm-up seconds and repeats of a compare step. */
struct pace {
	const char *duration, *warmup, *repeat;
	unsigned repeats;
	double seconds; /* duration + warm-up, as a number */
};

static const struct pace full_pace = { "0.5", "0.2", "5", 5, 0.7 };
static const struct pace quick_pace = { "0.3", "0.1", "2", 2, 0.4 };

/* 1K is 1024, as max_entries go; a size of decimal thousands (the
 * kernel's LPM benchmark's 10,000) is "10K" too: no plan holds both. */
static void size_name(unsigned n, char *buf, size_t len)
{
	if (n % 1048576 == 0)
		snprintf(buf, len, "%uM", n / 1048576);
	else if (n % 1024 == 0)
		snprintf(buf, len, "%uK", n / 1024);
	else if (n % 1000 == 0)
		snprintf(buf, len, "%uK", n / 1000);
	else
		snprintf(buf, len, "%u", n);
}

static struct repro_step *new_step(struct repro_plan *p,
				   enum repro_finding f, const char *id_fmt,
				   ...) __attribute__((format(printf, 3, 4)));

static struct repro_step *new_step(struct repro_plan *p, enum repro_finding f,
				   const char *id_fmt, ...)
{
	if (p->n_steps == REPRO_MAX_STEPS)
		return NULL;
	struct repro_step *s = &p->steps[p->n_steps++];
	memset(s, 0, sizeof(*s));
	s->finding = f;
	va_list ap;
	va_start(ap, id_fmt);
	vsnprintf(s->id, sizeof(s->id), id_fmt, ap);
	va_end(ap);
	return s;
}

/* Append the words of a space-separated line (none holds a space). */
static int add_words(struct repro_step *s, const char *line)
{
	char *copy = strdup(line), *save = NULL;
	if (!copy)
		return -1;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (s->argc + 1 >= REPRO_MAX_ARGS || !(s->argv[s->argc] = strdup(w))) {
			free(copy);
			return -1;
		}
		s->argc++;
	}
	free(copy);
	return 0;
}

static int add_fmt(struct repro_step *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_fmt(struct repro_step *s, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= sizeof(line) ? -1 : add_words(s, line);
}

/* A compare step's timing options and its estimate: sides x thread
 * counts x repeats x (duration + warm-up), and the set-up of each side
 * (its map, keys and prefill), measured here at about 10 s per million
 * entries (30 for the suite's LPM prefixes, whose sets take longest to
 * draw). */
#define SETUP_S_PER_M 10.0
#define SETUP_S_PER_M_SUITE_LPM 30.0

static int add_pace_setup(struct repro_step *s, const struct pace *pc,
			  unsigned sides, unsigned threads, unsigned entries,
			  double setup_per_m)
{
	s->estimate_s = sides * threads * pc->repeats * pc->seconds +
			sides * (0.3 + setup_per_m * entries / 1e6) + 0.5;
	return add_fmt(s, "--duration %s --warmup %s --repeat %s --quiet",
		       pc->duration, pc->warmup, pc->repeat);
}

static int add_pace(struct repro_step *s, const struct pace *pc,
		    unsigned sides, unsigned threads, unsigned entries)
{
	return add_pace_setup(s, pc, sides, threads, entries, SETUP_S_PER_M);
}

/* Finding 1 (and 5): the kernel's trie and hash in BPF, and the trie and
 * hash designs of the kernel, of eBPF for Windows and of maplab, on
 * updates of the same /32 addresses. */
static const char trie_vs_hash_maps[] =
	"lpm_trie/linux,hash/linux,lpm_trie/prefix_hash,hash/cow,"
	"lpm_trie/multibit,hash/seqlock_buckets";
#define TRIE_VS_HASH_SIDES 8 /* 6 designs, the kernel's trie and hash */

/* The whole Internet routing table (--prefixes internet): its IPv4
 * prefixes. */
#define INTERNET_PREFIXES 901899

/* The real table's updates, full run only (each of the 8 sides loads
 * 901,899 prefixes: the set-up is most of the step, so one short timed
 * run each, 2 repeats; about 4 s a side, measured here).  A hash beside a
 * trie on a prefix set with shorter prefixes is fine where the mix has no
 * lookups: it keys each prefix by its whole LPM key (docs/bench.md,
 * "Tries against hashes"). */
static const struct pace internet_update_pace = { "0.3", "0", "2", 2, 0.3 };
#define SETUP_S_PER_M_INTERNET_UPDATE 4.0

static int plan_internet_update(struct repro_plan *p)
{
	struct repro_step *s = new_step(p, FINDING_TRIE_VS_HASH,
					"f1-internet-update");
	if (!s)
		return -1;
	snprintf(s->what, sizeof(s->what),
		 "trie and hash updates of the whole Internet table");
	return add_fmt(s, "compare --map %s --prefixes internet --mix update=100 "
		       "--entries %u --threads 1 --no-syscall", trie_vs_hash_maps,
		       INTERNET_PREFIXES) ||
	       add_pace_setup(s, &internet_update_pace, TRIE_VS_HASH_SIDES, 1,
			      INTERNET_PREFIXES, SETUP_S_PER_M_INTERNET_UPDATE);
}

static int plan_trie_vs_hash(struct repro_plan *p, const unsigned *sizes,
			     unsigned n, const struct pace *pc)
{
	for (unsigned i = 0; i < n; i++) {
		char sz[16];
		size_name(sizes[i], sz, sizeof(sz));
		struct repro_step *s = new_step(p, FINDING_TRIE_VS_HASH,
						"f1-update-%s", sz);
		if (!s)
			return -1;
		snprintf(s->what, sizeof(s->what),
			 "trie and hash updates at %s: kernel, 6 designs", sz);
		if (add_fmt(s, "compare --map %s --prefixes random32 --mix update=100 "
			       "--entries %u --threads 1 --no-syscall",
			    trie_vs_hash_maps, sizes[i]) ||
		    add_pace(s, pc, TRIE_VS_HASH_SIDES, 1, sizes[i]))
			return -1;
	}
	return p->quick ? 0 : plan_internet_update(p);
}

/* Finding 1's why and finding 5's split: explain on the tries' updates
 * and the hashes' (one run each, read by both findings). */
static int plan_explain(struct repro_plan *p, bool quick)
{
	/* explain takes one map type: the hashes' keys are 4-byte keys, as
	 * the /32 addresses are in finding 1's compare. */
	static const char *const pairs[][3] = {
		{ "trie", "lpm_trie/linux,lpm_trie/prefix_hash", " --prefixes random32" },
		{ "hash", "hash/linux,hash/cow", "" },
	};
	for (unsigned i = 0; i < N(pairs); i++) {
		struct repro_step *s = new_step(p, FINDING_TRIE_VS_HASH,
						"f1-explain-%s", pairs[i][0]);
		if (!s)
			return -1;
		snprintf(s->what, sizeof(s->what),
			 "explain: where a %s update's time goes", pairs[i][0]);
		s->explain = true;
		/* The answer speaks of 64K (findings.py, explain_why); 1K
		 * beside it for the full run.  Not 1M: its maps took a third
		 * of these steps' time, which finding 7 needed to keep the
		 * full run within 30 minutes. */
		if (add_fmt(s, "explain --map %s --op update%s --sizes %s --quiet "
			       "--sample-seconds 1", pairs[i][1], pairs[i][2],
			    quick ? "64K" : "1K,64K") ||
		    (quick && add_words(s, "--duration 0.3 --repeat 2")))
			return -1;
		s->estimate_s = quick ? 16 : 45;
	}
	return 0;
}

/* Finding 2: throughput of every LRU, and their miss ratios. */
static const char lru_designs[] =
	"lru/linux_common,lru/linux_percpu,lru/global,lru/clock,lru/fifo,"
	"lru/s3fifo,lru/sampled,lru/sieve,lru/sieve_percpu,lru/assoc,"
	"lru/partitioned";
#define LRU_DESIGNS 11
#define LRU_ENTRIES 65536

static int plan_lru(struct repro_plan *p, bool quick, const struct pace *pc,
		    const char *examples)
{
	struct repro_step *s = new_step(p, FINDING_LRU_CONSENSUS, "f2-throughput");
	if (!s)
		return -1;
	snprintf(s->what, sizeof(s->what),
		 "every LRU, 1 and 2 threads, a zipf 0.99 stream that evicts");
	if (add_fmt(s, "compare --map %s --entries %u --key-range 400%% "
		       "--dist zipf:0.99 --mix lookup_write=100 --threads 1,2 "
		       "--no-syscall", lru_designs, LRU_ENTRIES) ||
	    add_pace(s, pc, LRU_DESIGNS + 2, 2, LRU_ENTRIES))
		return -1;

	s = new_step(p, FINDING_LRU_CONSENSUS, "f2-miss-zipf");
	if (!s)
		return -1;
	snprintf(s->what, sizeof(s->what),
		 "miss ratios of every LRU on zipf 0.99 over 4x the cache");
	if (add_fmt(s, "sim --trace zipf:alpha=0.99,keys=%u,requests=%u,seed=1 "
		       "--policy all --sizes %u --threads 1,2 --no-stray --quiet",
		    4 * LRU_ENTRIES, quick ? 1000000u : 4000000u, LRU_ENTRIES))
		return -1;
	s->estimate_s = quick ? 14 : 50;

	s = new_step(p, FINDING_LRU_CONSENSUS, "f2-miss-hotset");
	if (!s)
		return -1;
	snprintf(s->what, sizeof(s->what),
		 "miss ratios of every LRU on examples/traces/hotset.txt");
	if (add_fmt(s, "sim --trace %s/traces/hotset.txt --policy all "
		       "--sizes 0.05,0.2 --threads 1,2 --quiet", examples))
		return -1;
	s->estimate_s = 3;
	return 0;
}

/* Finding 3: hash/linux and the kernel's hash, preallocated and not. */
static int plan_prealloc(struct repro_plan *p, const unsigned *sizes,
			 unsigned n, const struct pace *pc)
{
	for (unsigned i = 0; i < n; i++) {
		char sz[16];
		size_name(sizes[i], sz, sizeof(sz));
		for (int np = 0; np < 2; np++) {
			struct repro_step *s = new_step(p, FINDING_PREALLOC,
				"f3-%s-%s", np ? "no_prealloc" : "prealloc", sz);
			if (!s)
				return -1;
			snprintf(s->what, sizeof(s->what),
				 "hash updates at %s entries, %s", sz,
				 np ? "BPF_F_NO_PREALLOC" : "preallocated");
			if (add_fmt(s, "compare --map hash/linux --mix update=100 "
				       "--entries %u --threads 1 --no-syscall%s",
				    sizes[i], np ? " --flags no_prealloc" : "") ||
			    add_pace(s, pc, 2, 1, sizes[i]))
				return -1;
		}
	}
	return 0;
}

/* Finding 4: the kernel's two LRUs and the faithful designs, the load on
 * one cpu and then on both. */
static int plan_percpu(struct repro_plan *p, bool quick, bool kernel)
{
	struct repro_step *s = new_step(p, FINDING_PERCPU_LRU, "f4-skew");
	if (!s)
		return -1;
	snprintf(s->what, sizeof(s->what),
		 "common and per-CPU LRU, the load on one cpu, then two");
	if (add_fmt(s, "sim --trace zipf:alpha=0.99,keys=200000,requests=%u,seed=1 "
		       "--policy lru/linux_common,lru/linux_percpu%s --sizes 4096,16384 "
		       "--threads 1,2 --split rr --no-stray --quiet",
		    quick ? 1000000u : 2000000u,
		    kernel ? ",kernel,kernel:no_common_lru" : ""))
		return -1;
	s->estimate_s = quick ? 10 : 20;
	return 0;
}

/*
 * Finding 6: finding 4's effective capacity, the load on one cpu, per
 * kernel and cpu count.  Two sizes: 4096 (finding 4's) and 256, where
 * max_entries / cpus / 2 is under 128 at every cpu count here, so 6.12's
 * refill target (clamped to it) differs from 5.10's and 6.1's (always
 * 128); at 4096 it is 128 up to 16 cpus, and the kernels answer alike
 * (docs/kernels.md).  60,000 requests, the first 12,000 a warm-up (the
 * map's filling is not its capacity; 12,000 requests hold more distinct
 * keys than 4096): a TCG VM replays the kernel's requests slowly (a boot
 * takes 5 s, the kernel's 4 x 60,000 requests 15 to 50 s, more with more
 * vCPUs, measured on 2 cores), and every step replays the same trace, so
 * that the kernels are compared on one.
 */
static const char *const kernels_users_run[] = { "5.10", "6.1", "6.12" };
static const unsigned kernels_cpus[] = { 2, 4, 8 };
static const double kernels_vm_s[] = { 20, 25, 30 }; /* by kernels_cpus */

static int plan_kernels(struct repro_plan *p, bool kernel, bool vm)
{
	for (unsigned k = 0; k < N(kernels_users_run); k++)
		for (unsigned c = 0; c < N(kernels_cpus); c++) {
			const char *K = kernels_users_run[k];
			unsigned n = kernels_cpus[c];
			/* ksim's program type came in 5.14: not on 5.10. */
			bool in_vm = kernel && vm && strcmp(K, "5.10") != 0;
			struct repro_step *s = new_step(p, FINDING_KERNELS,
							"f6-%s-%ucpu", K, n);
			if (!s)
				return -1;
			snprintf(s->what, sizeof(s->what),
				 "LRU capacity on kernel %s, %u cpus, the load on "
				 "one%s", K, n, in_vm ? ", the kernel's in a VM" : "");
			if (add_fmt(s, "sim --trace zipf:alpha=0.99,keys=200000,"
				       "requests=60000,seed=1 --policy lru/linux_common,"
				       "lru/linux_percpu%s --sizes 256,4096 --threads 1 "
				       "--warmup-requests 12000 --kernel %s --vm-cpus %u "
				       "--no-stray --quiet",
				    in_vm ? ",kernel,kernel:no_common_lru" : "", K, n))
				return -1;
			s->estimate_s = in_vm ? kernels_vm_s[c] : 1;
		}
	return 0;
}

/*
 * Finding 7: the LPM trie at scale.  Lookups of the kernel's LPM
 * benchmark's keys (--prefixes dense: /32s 0..N-1) per size, and of the
 * whole Internet table (full run only: 901,899 prefixes take seconds to
 * load into each side), on the kernel's trie and the trie designs: the
 * kernel-faithful binary trie, the level-compressed one (after
 * fib_trie), maplab's multibit trie and, where this build has DPDK,
 * rte_fib.  explain's size differential on the binary and the
 * level-compressed tries (how much of the growth is memory).  The
 * benchmark's writes (update, insert, delete, free) at its own 10K and at
 * 1M.  Three repeats, not five: every side builds its map anew in each
 * step, and at 1M the set-up, not the timed runs, is most of the time.
 */
static const unsigned scale_full[] = { 1024, 16384, 262144, 1048576 };
static const unsigned scale_quick[] = { 1024, 65536 };
static const unsigned scale_writes_full[] = { 10000, 1048576 };
static const unsigned scale_writes_quick[] = { 10000 };
static const struct pace scale_full_pace = { "0.3", "0.1", "3", 3, 0.4 };
/* A side's set-up on the dense /32s (their keys are counted, not drawn),
 * measured here; the Internet table's takes SETUP_S_PER_M. */
#define SETUP_S_PER_M_DENSE 5.0

/* The trie designs at entries prefixes, with lpm_trie/dpdk where this
 * build has it (maplab list marks it unavailable otherwise) and the map
 * is at most DPDK_MAX_ENTRIES: rte_fib and its RIB take about 40 s here
 * to build a map of 1M /32s and free it (bench --lpm-op free, one
 * round), and a step builds one per repeat, which would put the full run
 * past its 30 minutes; and their count. */
#define DPDK_MAX_ENTRIES 262144

static unsigned scale_designs(char *buf, size_t len, unsigned entries)
{
	bool dpdk = entries <= DPDK_MAX_ENTRIES && map_find("lpm_trie/dpdk") != NULL;
	snprintf(buf, len, "lpm_trie/linux,lpm_trie/lctrie,lpm_trie/multibit%s",
		 dpdk ? ",lpm_trie/dpdk" : "");
	return dpdk ? 4 : 3;
}

/* insert, delete and free are whole-map rounds (docs/bench.md, "The
 * kernel's LPM benchmark"), each filling or emptying the map untimed and
 * waiting for an RCU barrier first: rounds until --duration would be
 * dozens of cheap passes at 10K, each with that overhead, and warm-up
 * rounds before them; so a fixed count of rounds a repeat instead
 * (--ops: that many passes of the prefixes, or frees), and no warm-up
 * (each round starts from a map built for it): 10 at 10K, one at 1M,
 * where a round takes seconds a side.  ROUND_S_PER_M: a round of 1M
 * prefixes, its fill and its pass; ROUND_OVERHEAD_S: a round's barrier
 * and set-up at any size; both measured here. */
#define ROUND_S_PER_M 1.0
#define ROUND_OVERHEAD_S 0.01

static bool is_phase(const char *op)
{
	return !strcmp(op, "insert") || !strcmp(op, "delete") || !strcmp(op, "free");
}

static int add_rounds(struct repro_step *s, unsigned sides, unsigned entries,
		      unsigned repeats)
{
	unsigned rounds = entries >= 1048576 ? 1 : 10;
	double round_s = ROUND_OVERHEAD_S + ROUND_S_PER_M * entries / 1e6;
	s->estimate_s = sides * (0.3 + SETUP_S_PER_M_DENSE * entries / 1e6 +
				 repeats * rounds * round_s) + 0.5;
	return add_fmt(s, "--ops %u --warmup 0 --repeat %u --quiet", rounds * entries,
		       repeats);
}

/* One compare of the designs and the kernel's trie: lookups of prefixes
 * at entries, or the LPM benchmark's op (lpm_op, with --lpm-op). */
static int add_scale_step(struct repro_plan *p, const struct pace *pc,
			  const char *op, const char *prefixes, unsigned entries,
			  bool lpm_op)
{
	char sz[16], designs[128];
	unsigned sides = scale_designs(designs, sizeof(designs), entries) + 1;
	bool internet = !strcmp(prefixes, "internet");
	size_name(entries, sz, sizeof(sz));
	struct repro_step *s = new_step(p, FINDING_LPM_SCALE, "f7-%s-%s", op,
					internet ? "internet" : sz);
	if (!s)
		return -1;
	if (internet)
		snprintf(s->what, sizeof(s->what),
			 "LPM lookups in the whole Internet table: kernel, %u tries",
			 sides - 1);
	else
		snprintf(s->what, sizeof(s->what), "LPM %s%s at %s /32s: kernel, %u tries",
			 op, lpm_op ? "" : "s", sz, sides - 1);
	if (add_fmt(s, "compare --map %s --prefixes %s --entries %u %s%s "
		    "--threads 1 --no-syscall", designs, prefixes, entries,
		    lpm_op ? "--lpm-op " : "--mix lookup=100", lpm_op ? op : ""))
		return -1;
	return is_phase(op) ? add_rounds(s, sides, entries, pc->repeats)
			    : add_pace_setup(s, pc, sides, 1, entries,
					     internet ? SETUP_S_PER_M : SETUP_S_PER_M_DENSE);
}

/* explain's size differential on lookups: the op at the larger size
 * against a 1K map is what the map's size (memory) adds. */
static int plan_scale_explain(struct repro_plan *p, bool quick)
{
	struct repro_step *s = new_step(p, FINDING_LPM_SCALE, "f7-explain-lookup");
	if (!s)
		return -1;
	snprintf(s->what, sizeof(s->what),
		 "explain: how much of a lookup's growth is memory");
	s->explain = true;
	if (add_fmt(s, "explain --map lpm_trie/linux,lpm_trie/lctrie --op lookup "
		       "--prefixes dense --sizes 1K,%s --quiet", quick ? "64K" : "1M") ||
	    add_words(s, quick ? "--duration 0.3 --repeat 2 --sample-seconds 1"
			       : "--duration 0.3 --repeat 3 --sample-seconds 1"))
		return -1;
	s->estimate_s = quick ? 16 : 40;
	return 0;
}

static const char *const scale_writes[] = { "update", "insert", "delete", "free" };

static int plan_lpm_scale(struct repro_plan *p, bool quick, bool kernel)
{
	const struct pace *pc = quick ? &quick_pace : &scale_full_pace;
	const unsigned *sizes = quick ? scale_quick : scale_full;
	unsigned n = quick ? N(scale_quick) : N(scale_full);
	for (unsigned i = 0; i < n; i++)
		if (add_scale_step(p, pc, "lookup", "dense", sizes[i], false))
			return -1;
	if (!quick && add_scale_step(p, pc, "lookup", "internet", INTERNET_PREFIXES,
				     false))
		return -1;
	if (kernel && plan_scale_explain(p, quick))
		return -1;
	const unsigned *writes = quick ? scale_writes_quick : scale_writes_full;
	unsigned nw = quick ? N(scale_writes_quick) : N(scale_writes_full);
	for (unsigned i = 0; i < nw; i++)
		for (unsigned o = 0; o < N(scale_writes); o++)
			if (add_scale_step(p, pc, scale_writes[o], "dense", writes[i], true))
				return -1;
	return 0;
}

/* The suite's tests: hash and LRU at 1024 entries, 4-byte keys and
 * values; read = lookup, update = upsert (BPF_ANY on a present key),
 * replace = delete then re-insert; rolling update = lookup_write in a
 * range of 10% of 8192 entries; LPM at its sizes with its prefix table. */
static int plan_suite(struct repro_plan *p, bool quick, const struct pace *pc)
{
	static const char *const ops[] = { "lookup", "upsert", "replace" };
	static const struct {
		const char *id, *maps;
		unsigned sides;
	} small[] = {
		{ "hash", "hash/linux,hash/cow", 3 },
		{ "lru", "lru/linux_common,lru/linux_percpu,lru/partitioned", 5 },
	};
	for (unsigned m = 0; m < N(small); m++)
		for (unsigned o = 0; o < N(ops); o++) {
			struct repro_step *s = new_step(p, FINDING_PUBLISHED,
				"suite-%s-%s", small[m].id, ops[o]);
			if (!s)
				return -1;
			snprintf(s->what, sizeof(s->what), "the suite's %s %s",
				 small[m].id, ops[o]);
			if (add_fmt(s, "compare --map %s --entries 1024 --key-size 4 "
				       "--value-size 4 --mix %s=100 --threads 1,2 "
				       "--no-syscall", small[m].maps, ops[o]) ||
			    add_pace(s, pc, small[m].sides, 2, 1024))
				return -1;
		}
	struct repro_step *s = new_step(p, FINDING_PUBLISHED, "suite-lru-rolling");
	if (!s)
		return -1;
	snprintf(s->what, sizeof(s->what), "the suite's LRU rolling update");
	if (add_words(s, "compare --map lru/linux_common,lru/partitioned "
			 "--entries 8192 --key-size 4 --value-size 4 --prefill 10 --key-range 10% "
			 "--mix lookup_write=100 --threads 1,2 --no-syscall") ||
	    add_pace(s, pc, 3, 2, 8192))
		return -1;

	/* At 1M, three repeats, not five: each side builds its map of 1M
	 * prefixes anew for every repeat and thread count (about 6 s for the
	 * three sides, measured here, against 2.1 s of timed runs). */
	static const struct pace suite_lpm_1m_pace = { "0.5", "0.2", "3", 3, 0.7 };
	const unsigned *sizes = quick ? suite_lpm_quick : suite_lpm_full;
	unsigned n = quick ? N(suite_lpm_quick) : N(suite_lpm_full);
	static const char *const lpm_ops[] = { "lookup", "upsert", "replace" };
	for (unsigned i = 0; i < n; i++)
		for (unsigned o = 0; o < N(lpm_ops); o++) {
			char sz[16];
			const struct pace *lpc = sizes[i] >= 1048576
						 ? &suite_lpm_1m_pace : pc;
			size_name(sizes[i], sz, sizeof(sz));
			s = new_step(p, FINDING_PUBLISHED, "suite-lpm-%s-%s",
				     lpm_ops[o], sz);
			if (!s)
				return -1;
			snprintf(s->what, sizeof(s->what), "the suite's LPM %s at %s",
				 lpm_ops[o], sz);
			if (add_fmt(s, "compare --map lpm_trie/linux,lpm_trie/prefix_hash "
				       "--prefixes bpf_performance --flags no_prealloc "
				       "--entries %u --mix %s=100 --threads 1,2 "
				       "--no-syscall", sizes[i], lpm_ops[o]) ||
			    add_pace_setup(s, lpc, 3, 2, sizes[i],
					   SETUP_S_PER_M_SUITE_LPM))
				return -1;
		}
	return 0;
}

int repro_plan_build(struct repro_plan *p, bool quick,
		     const bool only[FINDING_LAST + 1], const char *examples,
		     bool kernel, bool vm)
{
	bool any = false, want[FINDING_LAST + 1];
	for (int f = 1; f <= FINDING_LAST; f++)
		any |= only[f];
	for (int f = 1; f <= FINDING_LAST; f++)
		want[f] = !any || only[f];

	memset(p, 0, sizeof(*p));
	p->quick = quick;
	const unsigned *sizes = quick ? quick_sizes : full_sizes;
	unsigned n = quick ? N(quick_sizes) : N(full_sizes);
	const struct pace *pc = quick ? &quick_pace : &full_pace;
	if (quick)
		snprintf(p->cuts, sizeof(p->cuts),
			 "--quick: sizes 1K and 64K only (the full run: 1K, 16K, 64K, "
			 "256K, 1M, and finding 1's updates of the whole Internet table; "
			 "the suite's LPM tests at 1K and 16K of its four), "
			 "0.3 s timed phases and 2 repeats (full: 0.5 s, 5), explain at "
			 "64K with 1 s sampled runs (full: 1K, 64K and 1M, 2 s), "
			 "shorter sim traces%s%s", want[FINDING_KERNELS]
			 ? "; finding 6 left out (" REPRO_KERNELS_WHY ")" : "",
			 want[FINDING_LPM_SCALE]
			 ? "; finding 7's lookups at 1K and 64K (full: 1K, 16K, 256K, 1M "
			   "and the whole Internet table), its writes at 10K (full: 10K "
			   "and 1M)" : "");
	if (quick && want[FINDING_KERNELS])
		snprintf(p->left_out, sizeof(p->left_out), "finding 6 (%s)",
			 REPRO_KERNELS_WHY);

	/* Finding 5 reads finding 1's steps. */
	bool trie = want[FINDING_TRIE_VS_HASH] || want[FINDING_KERNEL_GAP];
	if ((trie && (plan_trie_vs_hash(p, sizes, n, pc) ||
		      (kernel && plan_explain(p, quick)))) ||
	    (want[FINDING_LRU_CONSENSUS] && plan_lru(p, quick, pc, examples)) ||
	    (want[FINDING_PREALLOC] && plan_prealloc(p, sizes, n, pc)) ||
	    (want[FINDING_PERCPU_LRU] && plan_percpu(p, quick, kernel)) ||
	    (want[FINDING_KERNELS] && !quick && plan_kernels(p, kernel, vm)) ||
	    (want[FINDING_LPM_SCALE] && plan_lpm_scale(p, quick, kernel)) ||
	    (want[FINDING_PUBLISHED] && plan_suite(p, quick, pc))) {
		repro_plan_free(p);
		return -1;
	}
	return 0;
}

void repro_plan_free(struct repro_plan *p)
{
	for (unsigned i = 0; i < p->n_steps; i++)
		for (unsigned a = 0; a < p->steps[i].argc; a++)
			free(p->steps[i].argv[a]);
	p->n_steps = 0;
}

void repro_step_command(const struct repro_step *s, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "maplab");
	for (unsigned a = 0; a < s->argc && used < len; a++)
		used += (size_t)snprintf(buf + used, len - used, " %s", s->argv[a]);
}

static const char *const finding_names[FINDING_LAST + 1] = {
	[FINDING_TRIE_VS_HASH] = "1", [FINDING_LRU_CONSENSUS] = "2",
	[FINDING_PREALLOC] = "3", [FINDING_PERCPU_LRU] = "4",
	[FINDING_KERNEL_GAP] = "5", [FINDING_KERNELS] = "6",
	[FINDING_LPM_SCALE] = "7", [FINDING_PUBLISHED] = "suite",
};

int repro_parse_finding(const char *text, enum repro_finding *out)
{
	for (int f = 1; f <= FINDING_LAST; f++)
		if (!strcmp(text, finding_names[f])) {
			*out = (enum repro_finding)f;
			return 0;
		}
	return -1;
}

const char *repro_finding_name(enum repro_finding f)
{
	return f >= 1 && f <= FINDING_LAST ? finding_names[f] : "?";
}
