/* SPDX-License-Identifier: MIT */
/*
 * steps.c: call chains to the steps of a map op (steps.h), and their tally.
 *
 * The rules are one table of name patterns, checked in order for each
 * frame from the leaf to the op's entry; the first pattern that matches
 * names the step.  Order matters where names overlap: the map functions
 * that are the op itself (htab_lru_map_update_elem, trie_update_elem) are
 * named "walk" before the LRU and allocation patterns could claim them by
 * a word in their names.  The kernel names are 6.18's (kernel/bpf/
 * hashtab.c, lpm_trie.c, bpf_lru_list.c, memalloc.c); maplab's are its
 * designs' (maps/).  Patterns are fnmatch(3)'s, matched against the
 * name without a compiler clone's or a symbol version's suffix.
 */
#include "harness/profile/steps.h"
#include "harness/profile/ring.h"

#include <fnmatch.h>
#include <string.h>

static const char *const step_names[PROF_STEP_COUNT][2] = {
	[PROF_STEP_HASH] = { "hash", "hash of the key" },
	[PROF_STEP_WALK] = { "walk", "bucket or trie walk" },
	[PROF_STEP_COMPARE] = { "compare", "key compare" },
	[PROF_STEP_LOCK] = { "lock", "lock (and its timing)" },
	[PROF_STEP_ALLOC] = { "alloc", "allocation and free" },
	[PROF_STEP_COPY] = { "copy", "key and value copy" },
	[PROF_STEP_LRU] = { "lru", "eviction and LRU list work" },
	[PROF_STEP_RECLAIM] = { "reclaim", "reclamation (RCU)" },
	[PROF_STEP_IRQS_OFF] = { "irqs off", "interrupts off: lock + walk + copy" },
	[PROF_STEP_OWN] = { "own code", "the op's own code" },
	[PROF_STEP_PROGRAM] = { "program", "BPF program and call overhead" },
	[PROF_STEP_THUNK] = { "thunks", "return and indirect-branch thunks" },
	[PROF_STEP_HARNESS] = { "harness", "harness (bench loop, key stream)" },
};

const char *prof_step_name(enum prof_step step)
{
	return step < PROF_STEP_COUNT ? step_names[step][0] : "?";
}

const char *prof_step_text(enum prof_step step)
{
	return step < PROF_STEP_COUNT ? step_names[step][1] : "?";
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

struct rule {
	const char *pattern;
	enum prof_step step;
};

/* Checked at every frame first: what runs between the op's code. */
static const struct rule leaf_rules[] = {
	{ "__x86_return_thunk", PROF_STEP_THUNK },
	{ "*return_thunk*", PROF_STEP_THUNK },
	{ "srso_*", PROF_STEP_THUNK },
	{ "__x86_indirect_*thunk*", PROF_STEP_THUNK },
	{ "entry_untrain_ret", PROF_STEP_THUNK },
	{ "retbleed_*", PROF_STEP_THUNK },
	{ "bpf_user_rnd_u32", PROF_STEP_PROGRAM },
	{ "bpf_get_prandom_u32", PROF_STEP_PROGRAM },
	{ "prandom_u32*", PROF_STEP_PROGRAM },
	{ "bpf_loop", PROF_STEP_PROGRAM },
	{ "__bpf_prog_enter*", PROF_STEP_PROGRAM },
	{ "__bpf_prog_exit*", PROF_STEP_PROGRAM },
};

/* Inside the op, in order. */
static const struct rule op_rules[] = {
	/* where interrupts come back on: a cpu-clock sample taken while they
	 * were off lands here (a paravirtualised guest's irq enable is a
	 * call, pvm_irq_enable; on bare metal the sti is inlined into the
	 * function that held the lock: see irqsave_functions) */
	{ "*irq_enable*", PROF_STEP_IRQS_OFF },
	{ "*irq_restore*", PROF_STEP_IRQS_OFF },
	{ "*irqrestore*", PROF_STEP_IRQS_OFF },
	/* the kernel's map functions that are the op itself */
	{ "htab_map_hash", PROF_STEP_HASH },
	{ "*jhash*", PROF_STEP_HASH },
	{ "htab_lock_bucket", PROF_STEP_LOCK },
	{ "htab_unlock_bucket", PROF_STEP_LOCK },
	{ "__htab_map_lookup_elem", PROF_STEP_WALK },
	{ "__htab_lru_map_lookup_elem", PROF_STEP_WALK },
	{ "htab_*map_*_elem", PROF_STEP_WALK },
	{ "lookup_nulls_elem_raw", PROF_STEP_WALK },
	{ "lookup_elem_raw", PROF_STEP_WALK },
	{ "longest_prefix_match", PROF_STEP_COMPARE },
	{ "trie_*_elem", PROF_STEP_WALK },
	/* a lookup, by name, is the search: before the lock and RCU patterns
	 * can claim one that runs under a seqlock or RCU (seqlock_buckets_lookup,
	 * htab_lookup_rcu, cds_lfht_lookup) */
	{ "*lookup*", PROF_STEP_WALK },
	/* hashing */
	{ "xxh*", PROF_STEP_HASH },
	{ "XXH*", PROF_STEP_HASH },
	{ "*_hash_key*", PROF_STEP_HASH },
	{ "hash_of", PROF_STEP_HASH },   /* hash/ck's; not rculfhash_of */
	{ "fastkey_hash*", PROF_STEP_HASH },
	{ "*_hash", PROF_STEP_HASH },
	/* compares */
	{ "memcmp", PROF_STEP_COMPARE },
	{ "__memcmp*", PROF_STEP_COMPARE },
	{ "bcmp", PROF_STEP_COMPARE },
	{ "match_len", PROF_STEP_COMPARE },
	{ "match", PROF_STEP_COMPARE },   /* hash/rculfhash's key callback */
	{ "*_matches", PROF_STEP_COMPARE },
	{ "*key_equal*", PROF_STEP_COMPARE },
	{ "*keys_equal*", PROF_STEP_COMPARE },
	/* locks */
	{ "*spin_lock*", PROF_STEP_LOCK },
	{ "*spin_unlock*", PROF_STEP_LOCK },
	{ "*res_spin_lock*", PROF_STEP_LOCK },
	{ "*queued_spin_lock_slowpath", PROF_STEP_LOCK },
	{ "pthread_mutex_*", PROF_STEP_LOCK },
	{ "pthread_spin_*", PROF_STEP_LOCK },
	{ "pthread_rwlock_*", PROF_STEP_LOCK },
	{ "__lll_lock*", PROF_STEP_LOCK },
	{ "lock_and_time", PROF_STEP_LOCK },
	/* maplab's htab (maps/tables/htab.c): begin takes the bucket's lock,
	 * the first touch of the bucket (its cache miss lands there);
	 * commit copies the key and value in, links the node, unlocks */
	{ "htab_update_begin*", PROF_STEP_LOCK },
	{ "htab_update_commit", PROF_STEP_COPY },
	{ "unlock_and_count", PROF_STEP_LOCK },
	{ "*_lock", PROF_STEP_LOCK },
	{ "*_unlock", PROF_STEP_LOCK },
	{ "*lock_bucket*", PROF_STEP_LOCK },
	{ "*seqlock*", PROF_STEP_LOCK },
	{ "clock_gettime", PROF_STEP_LOCK },
	{ "__clock_gettime*", PROF_STEP_LOCK },
	{ "__vdso_clock_gettime", PROF_STEP_LOCK },
	/* reclamation (before allocation: free_elem_rcu is a deferral) */
	{ "call_rcu*", PROF_STEP_RECLAIM },
	{ "*_rcu", PROF_STEP_RECLAIM },
	{ "*rcu_*", PROF_STEP_RECLAIM },
	{ "urcu_*", PROF_STEP_RECLAIM },
	{ "membarrier", PROF_STEP_RECLAIM },
	{ "*retire*", PROF_STEP_RECLAIM },
	{ "*reclaim*", PROF_STEP_RECLAIM },
	/* LRU lists and eviction (before allocation: pop_free takes a free
	 * element from the LRU's lists, evicting when they are empty) */
	{ "*bpf_lru*", PROF_STEP_LRU },
	{ "*lru_list*", PROF_STEP_LRU },
	{ "*pop_free*", PROF_STEP_LRU },
	{ "*push_free*", PROF_STEP_LRU },
	{ "*evict*", PROF_STEP_LRU },
	{ "*referenced*", PROF_STEP_LRU },
	{ "*_replaced", PROF_STEP_LRU },
	{ "*rotate*", PROF_STEP_LRU },
	{ "*shrink*", PROF_STEP_LRU },
	{ "*_sweep", PROF_STEP_LRU },
	{ "*unlink_node*", PROF_STEP_LRU },
	{ "*_ring*", PROF_STEP_LRU },
	/* allocation */
	{ "unit_alloc", PROF_STEP_ALLOC },
	{ "unit_free", PROF_STEP_ALLOC },
	{ "bpf_mem_*", PROF_STEP_ALLOC },
	{ "alloc_bulk", PROF_STEP_ALLOC },
	{ "free_bulk", PROF_STEP_ALLOC },
	{ "*alloc_htab_elem", PROF_STEP_ALLOC },
	{ "*free_htab_elem", PROF_STEP_ALLOC },
	{ "*freelist*", PROF_STEP_ALLOC },
	{ "*kmalloc*", PROF_STEP_ALLOC },
	{ "kfree*", PROF_STEP_ALLOC },
	{ "kmem_cache_*", PROF_STEP_ALLOC },
	{ "malloc", PROF_STEP_ALLOC },
	{ "free", PROF_STEP_ALLOC },
	{ "calloc", PROF_STEP_ALLOC },
	{ "realloc", PROF_STEP_ALLOC },
	{ "posix_memalign", PROF_STEP_ALLOC },
	{ "aligned_alloc", PROF_STEP_ALLOC },
	{ "je_*", PROF_STEP_ALLOC },
	{ "*elem_pool*", PROF_STEP_ALLOC },
	{ "*_alloc", PROF_STEP_ALLOC },
	{ "*_alloc_*", PROF_STEP_ALLOC },
	{ "alloc_*", PROF_STEP_ALLOC },
	{ "*_free", PROF_STEP_ALLOC },
	{ "free_*", PROF_STEP_ALLOC },
	/* copies */
	{ "memcpy", PROF_STEP_COPY },
	{ "__memcpy*", PROF_STEP_COPY },
	{ "memmove", PROF_STEP_COPY },
	{ "__memmove*", PROF_STEP_COPY },
	{ "memset", PROF_STEP_COPY },
	{ "__memset*", PROF_STEP_COPY },
	{ "*copy_map_value*", PROF_STEP_COPY },
	{ "*copy*", PROF_STEP_COPY },
	{ "*_init_value", PROF_STEP_COPY },
	/* the search */
	{ "*find*", PROF_STEP_WALK },
	{ "*walk*", PROF_STEP_WALK },
	{ "*search*", PROF_STEP_WALK },
	{ "load_child", PROF_STEP_WALK },
	{ "load_root", PROF_STEP_WALK },
	{ "*_locked", PROF_STEP_WALK },
};

/* The kernel's map ops that hold an irqsave lock with the sti inlined: a
 * lump of their samples at one address is the interrupts-off section's
 * (elsewhere a lump is just as likely one slow load: a lookup's cache
 * miss).  A lump in a function the op calls (unit_alloc, bpf_lru_pop_free)
 * stays in that function's step: its interrupts-off time is allocation or
 * LRU work, whatever the section holds. */
static const char *const irqsave_functions[] = {
	"htab_*map_update_elem", "htab_*map_delete_elem", "htab_lru_map_*",
	"trie_update_elem", "trie_delete_elem",
};

/* The bench loop's own functions, and what it calls while timed (the
 * clock of its latency samples, RCU's read side and quiescent states):
 * harness/bench/bench.c, harness/common/team.c. */
static const char *const harness_functions[] = {
	"run_phase*", "lookup_batch", "worker_phase", "worker_main", "team_*", "start_thread",
	"clone*", "clock_gettime", "__clock_gettime*", "__vdso_clock_gettime",
	"clock_now_ns", "hist_add", "*rcu_quiescent*", "*rcu_read_*", "map_rcu_*",
	"*thread_online*", "*thread_offline*",
};

/* Frames that only pass the interrupts-off lump on to their caller. */
static const char *const irq_passers[] = {
	"*irq*", "*spin_unlock*", "*unlock_bucket*", "__raw_callee_save_*",
};

static bool matches_any(const char *const *patterns, size_t n, const char *name);

/* The function an interrupts-off lump at chain[0..] belongs to: the first
 * frame from `from` that does not just re-enable interrupts. */
static int lump_owner(const struct prof_frame *chain, unsigned n, unsigned from)
{
	for (unsigned i = from; i < n; i++)
		if (chain[i].name &&
		    !matches_any(irq_passers, N_OF(irq_passers), chain[i].name))
			return (int)i;
	return (int)from;
}

/* Whole libraries, whatever the function (a stripped one's frames have
 * no names), by the file name of the module. */
static const struct rule module_rules[] = {
	{ "libjemalloc*", PROF_STEP_ALLOC },
	{ "liburcu-cds*", PROF_STEP_WALK },   /* the lock-free hash table */
	{ "librte_hash*", PROF_STEP_WALK },   /* hash/dpdk's rte_hash: its
						 lookup is static, unnamed */
	{ "liburcu*", PROF_STEP_RECLAIM },
};

static int rule_step(const struct rule *rules, size_t n, const char *name);

static int module_step(const struct prof_frame *f)
{
	return prof_addr_is_kernel(f->addr) ? -1
		: rule_step(module_rules, N_OF(module_rules), f->module);
}

/* The name without the suffix of a compiler's clone or a symbol version
 * (longest_prefix_match.isra.0, clock_gettime@@GLIBC_2.17), into buf. */
static const char *bare_name(const char *name, char *buf, size_t len)
{
	size_t n = strcspn(name, ".@");
	if (n >= len)
		n = len - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
	return buf;
}

/* The rules match a name without the suffix of a compiler's clone
 * (longest_prefix_match.isra.0, free_htab_elem.part.0). */
/* The patterns match the bare name, made once per frame and list. */
static bool matches_any(const char *const *patterns, size_t n, const char *name)
{
	char bare[160];
	if (!name)
		return false;
	bare_name(name, bare, sizeof(bare));
	for (size_t i = 0; i < n; i++)
		if (fnmatch(patterns[i], bare, 0) == 0)
			return true;
	return false;
}

static int rule_step(const struct rule *rules, size_t n, const char *name)
{
	char bare[160];
	if (!name)
		return -1;
	bare_name(name, bare, sizeof(bare));
	for (size_t i = 0; i < n; i++)
		if (fnmatch(rules[i].pattern, bare, 0) == 0)
			return (int)rules[i].step;
	return -1;
}


/* The step a rule names for frame f, or -1. */
static int leaf_step(const struct prof_frame *f);

/* A frame's step: the leaf rules, then its name's, then its library's (a
 * named frame of liburcu-cds, cds_lfht_lookup, is a walk by its name; an
 * unnamed one of liburcu-memb is reclamation by its library's). */
static int frame_step(const struct prof_frame *f)
{
	int step = leaf_step(f);
	if (step < 0)
		step = rule_step(op_rules, N_OF(op_rules), f->name);
	if (step < 0)
		step = module_step(f);
	return step;
}

/* A JITed program: bpf_prog_<16 hex digits of tag>_<name> (not the
 * kernel's own bpf_prog_test_run_xdp). */
static bool is_program(const struct prof_frame *f)
{
	if (!f->name || strncmp(f->name, "bpf_prog_", 9) != 0)
		return false;
	const char *tag = f->name + 9;
	for (int i = 0; i < 16; i++)
		if (!((tag[i] >= '0' && tag[i] <= '9') || (tag[i] >= 'a' && tag[i] <= 'f')))
			return false;
	return tag[16] == '_';
}

/* A program frame of name bpf_prog_<tag>_<name>: whether <name> is `want`
 * (a subprogram, bpf_prog_<tag>_step_update, names no program). */
static bool program_is(const struct prof_frame *f, const char *want)
{
	if (!want || !is_program(f))
		return false;
	size_t nl = strlen(f->name), wl = strlen(want);
	return nl > wl && f->name[nl - wl - 1] == '_' &&
	       strcmp(f->name + nl - wl, want) == 0;
}

/* Kernel: the region of a chain, and the op's entry frame. */
static enum prof_region kernel_region(const struct prof_scope *scope,
				      const struct prof_frame *chain,
				      unsigned n, int *entry)
{
	int innermost = -1;
	*entry = -1;
	for (unsigned i = 0; i < n; i++) {
		if (innermost < 0 && is_program(&chain[i]))
			innermost = (int)i;
		if (program_is(&chain[i], scope->baseline) ||
		    program_is(&chain[i], scope->baseline_callback))
			return PROF_REGION_BASELINE;
		if (program_is(&chain[i], scope->program) ||
		    program_is(&chain[i], scope->program_callback)) {
			*entry = innermost - 1;
			if (*entry >= 0 && scope->kernel_op && chain[*entry].name &&
			    !strstr(chain[*entry].name, scope->kernel_op) &&
			    leaf_step(&chain[*entry]) < 0)
				return PROF_REGION_OTHER_OP;
			return PROF_REGION_OP;
		}
	}
	return PROF_REGION_HARNESS;
}

/* User: the region of a chain, and the op's entry frame. */
static enum prof_region user_region(const struct prof_scope *scope,
				    const struct prof_frame *chain, unsigned n,
				    int *entry)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned e = 0; e < scope->n_entries; e++)
			if (chain[i].start && chain[i].start == scope->entries[e].start) {
				*entry = (int)i;
				return scope->entries[e].wanted ? PROF_REGION_OP
								: PROF_REGION_OTHER_OP;
			}
	*entry = -1;
	/* No op function in the chain.  A chain is cut where a frame has no
	 * frame pointer: a library built without (the allocator, liburcu's
	 * call_rcu), or a function sampled in its prologue or epilogue, whose
	 * caller (often the op's entry) the unwinder then skips.  So the
	 * bench loop's are only the chains whose first user frame is one of
	 * its own functions; the rest are the op's. */
	unsigned u = 0;
	while (u + 1 < n && prof_addr_is_kernel(chain[u].addr))
		u++;
	if (n && module_step(&chain[u]) >= 0)
		return PROF_REGION_OP;
	if (!n || !chain[u].name ||
	    matches_any(harness_functions, N_OF(harness_functions), chain[u].name))
		return PROF_REGION_HARNESS;
	return PROF_REGION_OP;
}

/* The first named frame from the leaf, -1 where none. */
static int first_named(const struct prof_frame *chain, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (chain[i].name)
			return (int)i;
	return -1;
}

/* Where a chain's own steps start: on the user side, past the kernel's
 * frames of a page fault or syscall inside the op (their time is the
 * user frame's that caused them: a fault in node_alloc is allocation). */
static int first_own_frame(const struct prof_scope *scope,
			   const struct prof_frame *chain, unsigned n)
{
	unsigned i = 0;
	while (!scope->kernel && i + 1 < n && prof_addr_is_kernel(chain[i].addr))
		i++;
	return (int)i;
}

/* A sample where interrupts came back on (frame i): the section belongs
 * to the first frame past the ones that only re-enable them.  The op's
 * own function: an interrupts-off section; a function it calls (the
 * allocator, the LRU's lists): that function's step. */
static struct prof_verdict irqs_off_verdict(struct prof_verdict v,
					    const struct prof_frame *chain,
					    unsigned n, unsigned i)
{
	int owner = lump_owner(chain, n, i + 1);
	int step = owner < (int)n ? frame_step(&chain[owner]) : -1;
	v.credited = owner < (int)n ? owner : (int)i;
	v.step = owner == v.entry || step < 0 || step == PROF_STEP_WALK ||
		 step == PROF_STEP_IRQS_OFF
		 ? PROF_STEP_IRQS_OFF : (enum prof_step)step;
	return v;
}

/* The step the leaf rules give frame f (a thunk, the program), or -1. */
static int leaf_step(const struct prof_frame *f)
{
	return is_program(f) ? PROF_STEP_PROGRAM
			     : rule_step(leaf_rules, N_OF(leaf_rules), f->name);
}

struct prof_verdict prof_classify(const struct prof_scope *scope,
				  const struct prof_frame *chain, unsigned n)
{
	struct prof_verdict v = { .credited = -1, .entry = -1 };
	v.region = scope->kernel ? kernel_region(scope, chain, n, &v.entry)
				 : user_region(scope, chain, n, &v.entry);
	/* Outside every program (kernel) is the test-run machinery's time,
	 * whatever its leaf: not in the program's ns/op, so in no step of
	 * it either, or the steps would add up to more than the ns/op. */
	bool machinery = scope->kernel && v.region == PROF_REGION_HARNESS;
	if (n && !machinery && leaf_step(&chain[0]) >= 0) {
		v.step = (enum prof_step)leaf_step(&chain[0]);
		v.credited = 0;
		return v;
	}
	if (v.region == PROF_REGION_HARNESS || v.region == PROF_REGION_BASELINE) {
		v.step = v.region == PROF_REGION_BASELINE ? PROF_STEP_PROGRAM
							  : PROF_STEP_HARNESS;
		v.credited = first_named(chain, n);
		return v;
	}
	/* The op (or the other op): leaf to entry.  On the kernel side a
	 * chain with no entry frame is the program's own code; on the user
	 * side it is a library's whose chain was cut (user_region). */
	if (v.entry < 0 && scope->kernel) {
		v.step = PROF_STEP_PROGRAM;
		v.credited = first_named(chain, n);
		return v;
	}
	int first = first_own_frame(scope, chain, n);
	int last = v.entry < 0 ? first : v.entry;
	for (int i = first; i <= last; i++) {
		int step = frame_step(&chain[i]);
		if (step == PROF_STEP_IRQS_OFF)
			return irqs_off_verdict(v, chain, n, (unsigned)i);
		if (step >= 0) {
			v.step = (enum prof_step)step;
			v.credited = i; /* unnamed: listed by its library */
			return v;
		}
	}
	v.step = PROF_STEP_OWN;
	v.credited = first_named(chain, n);
	return v;
}

bool prof_frame_is_program(const struct prof_frame *f)
{
	return is_program(f);
}

bool prof_frame_is_thunk(const struct prof_frame *f)
{
	return rule_step(leaf_rules, N_OF(leaf_rules), f->name) == PROF_STEP_THUNK;
}

bool prof_is_irqsave_op(const char *name)
{
	return matches_any(irqsave_functions, N_OF(irqsave_functions), name);
}
