/* SPDX-License-Identifier: MIT */
/*
 * trace_cmd.h: what the trace commands share.  replay, validate and
 * gentrace take the same options to shape a random trace (TRACE_GEN_OPTIONS,
 * with the defaults below), and replay and validate read a trace file or
 * generate one the same way; dump reads trace files too.
 */
#ifndef MAPLAB_TRACE_CMD_H
#define MAPLAB_TRACE_CMD_H

#include "cli/options.h"
#include "harness/trace/replay.h"
#include "harness/trace/trace.h"
#include "harness/trace/tracegen.h"

#include <stdbool.h>

/* A random trace's defaults: a small hash map that fills (keys 1.5 times
 * max_entries), 1000 operations.  An LPM trie's keys are /32 addresses. */
#define TRACE_DEFAULT_KEY_SIZE 4
#define TRACE_DEFAULT_LPM_KEY_SIZE 8
#define TRACE_DEFAULT_VALUE_SIZE 8
#define TRACE_DEFAULT_ENTRIES 64
#define TRACE_DEFAULT_OPS 1000
#define TRACE_DEFAULT_SEED 1
#define TRACE_DEFAULT_MAX_DIFFS 5

/* What a --random trace of replay and validate may take in memory, held
 * whole before the replay starts: --ops beyond it is refused (gentrace
 * writes as it goes, and takes any --ops). */
#define TRACE_RANDOM_MEMORY (1ULL << 30)

/* The most traces one --seeds range asks for. */
#define TRACE_MAX_SEEDS 100000

/* Options of replay, validate and gentrace. */
struct trace_cmd {
	const char *cmd;
	const char *map;       /* --map */
	const char *file;      /* --trace */
	bool random;           /* --random: a generated trace */
	bool echo;             /* --echo (replay) */
	bool verbose;          /* --verbose: the verifier's log on a refusal */
	unsigned max_diffs;    /* --max-diffs (validate) */
	bool key_size_given, flags_given;
	struct tracegen_opts gen;
	/* --seeds A-B: a random trace for each seed (validate) */
	bool seeds_given;
	uint64_t seed_first, seed_last;
	/* --kernel K: the kernel's side in a VM of vm_cpus vCPUs */
	const char *kernel;
	unsigned vm_cpus;
	/* --model V: the faithful designs behave as kernel V (0: newest) */
	uint32_t model;
};

extern const struct opt_spec opt_random, opt_echo, opt_max_diffs, opt_cpus,
	opt_seeds;

/* The options of a kernel in a virtual machine (replay, validate). */
#define TRACE_VM_OPTIONS                                                     \
	{ &opt_kernel, "the kernel's side in a VM booted from kernel K: 5.10,\n" \
		       "6.1 or 6.12 (Debian's, fetched once into\n"           \
		       "$MAPLAB_KERNEL_CACHE, else ~/.cache/maplab/kernels),\n" \
		       "or a vmlinuz path; behaviour only (docs/kernels.md)" }, \
	{ &opt_vm_cpus, "the VM's vCPUs (1 to 8; this machine's count, at\n"  \
			"most 8)" }

#define TRACE_MODEL_HELP \
	"the kernel version the faithful designs behave as\n" \
	"(maplab list: their kernels modelled; default: the\n" \
	"newest)"

/* The cpus a trace's cpu lines name: the VM's with --kernel, else 0
 * (this process's: trace_parse_for). */
static inline unsigned trace_cmd_machine_cpus(const struct trace_cmd *c)
{
	return c->kernel ? c->vm_cpus : 0;
}

/* The options that shape a random trace (--random, gentrace). */
#define TRACE_GEN_OPTIONS                                                    \
	{ &opt_type, "map type: hash, lru_hash or lpm_trie (hash)" },       \
	{ &opt_entries, "max_entries (" STR(TRACE_DEFAULT_ENTRIES) ")" },    \
	{ &opt_key_size, "key bytes (" STR(TRACE_DEFAULT_KEY_SIZE) "; "      \
			 STR(TRACE_DEFAULT_LPM_KEY_SIZE) " for lpm_trie: a /32 " \
			 "address)" },                                       \
	{ &opt_value_size, "value bytes (" STR(TRACE_DEFAULT_VALUE_SIZE) ")" }, \
	{ &opt_flags, "map flags (zero_seed; no_prealloc for lpm_trie):\n"    \
		      "no_prealloc, no_common_lru,\n"                        \
		      "zero_seed, rdonly, wronly, rdonly_prog, wronly_prog,\n" \
		      "numa_node, or a number (0x... allowed)" },            \
	{ &opt_ops, "operation lines (" STR(TRACE_DEFAULT_OPS) ")" },        \
	{ &opt_seed, "(" STR(TRACE_DEFAULT_SEED) ")" },                      \
	{ &opt_cpus, "move between cpus 0 to N-1, or the cpus of a list\n"   \
		     "(0,2 or 0-3: a list has a comma or a dash), at random\n" \
		     "points (`cpu N` lines; none: all on cpu 0)" }

#define TRACE_VERBOSE_HELP \
	"show the verifier's log if it refuses the kernel's lookup program"

/* Parse a trace command's argv with opts: the defaults above, then argv.
 * 0 to go on, 1 for --help given, EXIT_USAGE for bad usage. */
int trace_cmd_parse(struct trace_cmd *c, int argc, char **argv,
		    const struct cmd_option *opts, size_t n, const char *usage);

/* Whether a --random trace of c's options fits TRACE_RANDOM_MEMORY: 0,
 * or EXIT_USAGE after one line (how many --ops would). */
int trace_cmd_random_fits(const struct trace_cmd *c);

/* The trace of --trace FILE, or generated with --random: exactly one of
 * the two.  0, or EXIT_USAGE after one line. */
int trace_cmd_load(struct trace_cmd *c, struct trace *t);

/* The kernel's own maps as a replay side, and whether this process may use
 * them (0, or EXIT_USAGE after one line that says why not). */
struct replay_side trace_cmd_kernel_side(void);
int trace_cmd_kernel_ready(const struct trace_cmd *c);

/* The side --map asks for: a design, the faithful ones (no --map), or
 * `kernel` where allow_kernel.  0, or EXIT_USAGE after one line. */
int trace_cmd_pick_side(struct trace_cmd *c, bool allow_kernel,
			struct replay_side *side);

#endif /* MAPLAB_TRACE_CMD_H */
