/* SPDX-License-Identifier: MIT */
/*
 * bench_options.c: the workload options of bench, kbench and compare, their
 * defaults and the checks that a workload can run as asked
 * (bench_options.h).
 */
#include "cli/measure/bench_options.h"
#include "cli/cli.h"
#include "harness/common/parse.h"
#include "harness/results/host.h"
#include "harness/workload/keys.h"
#include "maps/base/area.h"
#include "maps/base/rcu.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- the options bench's family alone takes -------------------------------- */

static const struct opt_spec opt_mix = { OPT_MIX, "mix", TAKES_TEXT, 0, 0, 0, 0,
	"op=P,...", "lookup, update (existing keys), insert (new keys), delete,\n"
	"upsert (BPF_ANY), replace (delete, then BPF_ANY), lookup_write\n"
	"(write in place, else insert); percents summing to 100" };
const struct opt_spec opt_dist = { OPT_DIST, "dist", TAKES_TEXT, 0, 0, 0,
	0, "D", "uniform | zipf:S | hotset:P,F (P % of ops on F % of the keys)" };
static const struct opt_spec opt_warmup = { OPT_WARMUP, "warmup", TAKES_SECONDS,
	0, 0, 0, 3600, "S", "untimed seconds before each run" };
const struct opt_spec opt_repeat = { OPT_REPEAT, "repeat", TAKES_NUMBER,
	1, 1000, 0, 0, "N", "runs per point; the median is reported, with min "
	"and max" };
static const struct opt_spec opt_physical = { OPT_PHYSICAL, "physical",
	TAKES_TEXT, 0, 0, 0, 0, "D",
	"two reference sides beside the maps: the harness alone (the noop\n"
	"design through the same loop: its own ns per op) and independent\n"
	"random 8-byte loads over a buffer of design D's footprint (its\n"
	"bytes after the prefill, as B/entry measures them): the memory\n"
	"system's floor for a loop of lookups (docs/bench.md)" };
static const struct opt_spec opt_hugepages = { OPT_HUGEPAGES, "hugepages",
	TAKES_NOTHING, 0, 0, 0, 0, NULL,
	"transparent huge pages for the designs' large areas and the\n"
	"allocator's memory, and DPDK's heap on reserved huge pages\n"
	"(vm.nr_hugepages) where there are any (docs/bench.md, \"Huge\n"
	"pages\"); refused where the kernel has no transparent ones" };
const struct opt_spec opt_prefixes = { OPT_PREFIXES, "prefixes",
	TAKES_TEXT, 0, 0, 0, 0, "S",
	"LPM maps: the stored prefixes: random32, bgp, ipv6,\n"
	"bpf_performance (its suite's table as its lpm.h reads it), dense\n"
	"(the kernel's LPM benchmark's keys), internet (a real routing\n"
	"table) or a FILE of CIDRs" };
const struct opt_spec opt_lpm_op = { OPT_LPM_OP, "lpm-op", TAKES_TEXT, 0, 0,
	0, 0, "OP", "lookup | update | insert | delete | free: the kernel's LPM\n"
	"benchmark's workloads (LPM maps)" };
const struct opt_spec opt_batch = { OPT_BATCH, "batch", TAKES_NUMBER, 1,
	MAP_BATCH_MAX, 0, 0, "N", "lookups N keys at a time (map_lookup_batch)" };
const struct opt_spec opt_hit_ratio = { OPT_HIT_RATIO, "hit-ratio",
	TAKES_TEXT, 0, 0, 0, 0, "P", "LPM maps: percent of the lookups meant to hit" };

const struct cmd_option bench_options[] = {
	{ &opt_map, "designs (maplab list), or noop: the harness alone\n"
		    "(" BENCH_DEFAULT_DESIGN ")" },
	{ &opt_key_size, "key bytes (" STR(WORKLOAD_DEFAULT_KEY_SIZE) "; an LPM "
			 "map's: its --prefixes' keys)" },
	{ &opt_value_size, "value bytes (" STR(WORKLOAD_DEFAULT_VALUE_SIZE) ")" },
	{ &opt_entries, "max_entries (" STR(WORKLOAD_DEFAULT_ENTRIES) ")" },
	{ &opt_prefill, "percent of the entries inserted before timing ("
			STR(WORKLOAD_DEFAULT_PREFILL) ")" },
	{ &opt_key_range, "every op draws its key from 0..N-1 (N or P % of\n"
			  "--entries): a range beyond the entries makes LRU maps\n"
			  "evict (none: lookups and updates on the entries,\n"
			  "inserts and deletes on each thread's own keys)" },
	{ &opt_prefixes, "LPM maps: the prefixes stored: random32 (random /32s),\n"
			 "bgp (IPv4, a public BGP table's prefix lengths),\n"
			 "ipv6 (/48 and /64 heavy), dense (/32s 0, 1, 2...: the\n"
			 "kernel's LPM benchmark's keys), internet (a full\n"
			 "Internet routing table, shipped: 901,899 IPv4\n"
			 "prefixes, or its 160,147 IPv6 ones with --key-size\n"
			 "20; --entries fewer: a sample of the same shape) or\n"
			 "FILE (one CIDR a line, # comments, gzip or not; IPv6\n"
			 "with --key-size 20); 8-byte keys (20 for IPv6);\n"
			 "lookups ask for full-length addresses; a hash map of\n"
			 "the run takes the address alone (random32 and dense\n"
			 "only).  docs/bench.md, \"LPM workloads\" (random32)" },
	{ &opt_hit_ratio, "LPM maps: percent of the lookups that ask for an\n"
			  "address inside a stored prefix; the others ask for\n"
			  "one no prefix covers (100)" },
	{ &opt_mix, "lookup, update (existing keys), insert (new keys), delete,\n"
		    "upsert (update BPF_ANY), replace (delete, then update\n"
		    "BPF_ANY, the same key), lookup_write (lookup; write the\n"
		    "value in place, or insert the key); percents summing to\n"
		    "100 (" WORKLOAD_DEFAULT_MIX ")" },
	{ &opt_dist, "uniform | zipf:S | hotset:P,F (P % of ops on F % of the\n"
		     "keys) (" WORKLOAD_DEFAULT_DIST ")" },
	{ &opt_lpm_op, BENCH_LPM_OP_HELP },
	{ &opt_flags, NULL },
	{ &opt_threads, "worker threads (1 to 254); one result per count ("
			STR(BENCH_DEFAULT_THREADS) ")" },
	{ &opt_duration, "timed seconds per run (" STR(BENCH_DEFAULT_SECONDS) ")" },
	{ &opt_ops, NULL },
	{ &opt_warmup, "untimed seconds before each run ("
		       STR(BENCH_DEFAULT_WARMUP) "); what an op costs\n"
		       "there sets how often ops are timed alone for the\n"
		       "latency columns (their clock reads at most 1 % of a\n"
		       "run; one op in 64 with 0)" },
	{ &opt_repeat, "runs per point; the median is reported, with the min\n"
		       "and max (" STR(BENCH_DEFAULT_REPEAT) ")" },
	{ &opt_seed, "key streams and prefix sets ("
		     STR(WORKLOAD_DEFAULT_SEED) ")" },
	{ &opt_batch, "lookups N keys at a time (1 to " STR(MAP_BATCH_MAX) "):\n"
		      "runs of lookups go to the map in batches\n"
		      "(map_lookup_batch), and ns/op is per key; the\n"
		      "kernel has no batched lookup for programs: its\n"
		      "sides run one at a time (1)" },
	{ &opt_rcu, "liburcu flavour (memb)" },
	{ &opt_format, "table, jsonl or csv (table)" },
	{ &opt_out, NULL },
	{ &opt_save, NULL },
	{ &opt_quiet, NULL },
	{ &opt_physical, NULL },
	{ &opt_hugepages, NULL },
};
const size_t bench_option_count = N_OPTIONS(bench_options);

/* --hugepages: where the kernel gives transparent huge pages at all
 * (its setting "always" or "madvise"), advise them from now on (the
 * allocator's were switched on before main: cli/main.c). */
static int parse_hugepages(struct bench_cli *c)
{
	struct host_record h;
	host_read_thp(&h, host_thp_file());
	if (!h.thp[0] || !strcmp(h.thp, "never"))
		return cli_error(c->cmd, "--hugepages: this kernel gives no "
				 "transparent huge pages (%s: %s)", host_thp_file(),
				 h.thp[0] ? "never" : "not there");
	c->hugepages = true;
	map_hugepages_enable();
	return 0;
}

/* The map type a design's maps have. */
static uint32_t type_of(const struct map_ops *ops)
{
	return ops->type ? ops->type : MAP_TYPE_HASH;
}

/* A --map list; an empty list or name is refused with the given words. */
static int map_list(const char *cmd, const char *text,
		    int (*add)(const char *, void *), void *ctx, const int *rc)
{
	char shown[80];
	if (parse_list(text, add, ctx) == 0)
		return 0;
	return *rc ? *rc : cli_error(cmd, "--map wants design names separated "
				     "by commas, got '%s'",
				     parse_printable(text, shown, sizeof(shown)));
}

struct bench_maps {
	struct bench_cli *c;
	int rc;
};

/* One --map entry of bench, kbench or compare. */
static int add_bench_map(const char *name, void *ctx)
{
	struct bench_maps *l = ctx;
	struct bench_cli *c = l->c;
	const struct map_ops *ops = strcmp(name, "noop") == 0 ? &bench_noop_ops
							      : map_find(name);
	uint32_t type = ops ? type_of(ops) : map_type_from_name(name);
	if (!ops && !(c->kernel_types && type))
		l->rc = opts_no_design(c->cmd, name,
				       c->kernel_types ? "; kernel map types: "
				       "hash, lru_hash, lpm_trie" : "");
	else if (c->n_maps == BENCH_MAX_MAPS)
		l->rc = cli_error(c->cmd, "at most %d designs at once",
				  BENCH_MAX_MAPS);
	if (l->rc)
		return -1;
	c->map_types[c->n_maps] = type;
	c->maps[c->n_maps++] = ops;
	return 0;
}

static int parse_bench_maps(struct bench_cli *c, const char *text)
{
	struct bench_maps l = { c, 0 };
	c->n_maps = 0;
	return map_list(c->cmd, text, add_bench_map, &l, &l.rc);
}

/* --physical D: any design of the registry (of any map type: it lends
 * only its footprint). */
static int parse_physical(struct bench_cli *c, const char *name)
{
	char shown[80];
	c->physical = map_find(name);
	if (c->physical)
		return 0;
	return cli_error(c->cmd, "--physical: no design '%s' (maplab list shows "
			 "them)", parse_printable(name, shown, sizeof(shown)));
}

/* --prefixes' word: a set's name, or a file (a word with a / or a dot,
 * or one that names a file).  0, or EXIT_USAGE after one line. */
static int parse_prefix_set(struct bench_cli *c, const char *text)
{
	char shown[256];
	if (!prefix_set_parse(text, &c->w.prefixes))
		return 0;
	if (strpbrk(text, "/.") || access(text, F_OK) == 0) {
		prefix_set_use_file(text);
		c->w.prefixes = PREFIXES_FILE;
		return 0;
	}
	return cli_error(c->cmd, "--prefixes wants random32, bgp, ipv6, "
			 "bpf_performance, dense, internet or a file, got '%s' "
			 "(no such file)",
			 parse_printable(text, shown, sizeof(shown)));
}

static int apply_bench(void *ctx, enum opt_id id, const struct opt_value *v)
{
	struct bench_cli *c = ctx;
	char err[256];

	switch (id) {
	case OPT_MAP: return parse_bench_maps(c, v->text);
	case OPT_KEY_SIZE:
		c->w.key_size = (uint32_t)v->u;
		c->key_size_given = true;
		return 0;
	case OPT_PREFIXES:
		return parse_prefix_set(c, v->text);
	case OPT_HIT_RATIO:
		return parse_decimal(v->text, 0, 100, &c->hit_ratio)
			? cli_error(c->cmd, "--hit-ratio wants a percent from 0 to "
				    "100, got '%s'", parse_printable(v->text, err,
								     sizeof(err)))
			: 0;
	case OPT_VALUE_SIZE: c->w.value_size = (uint32_t)v->u; return 0;
	case OPT_ENTRIES: c->w.entries = (uint32_t)v->u; return 0;
	case OPT_PREFILL: c->w.prefill_pct = (unsigned)v->u; return 0;
	case OPT_KEY_RANGE:
		c->key_range = (struct opt_count){ v->u, v->percent };
		return 0;
	case OPT_MIX:
		c->mix_given = true;
		return workload_parse_mix(v->text, c->w.mix, err, sizeof(err))
			? cli_error(c->cmd, "%s", err) : 0;
	case OPT_LPM_OP:
		return bench_lpm_op_parse(v->text, &c->lpm_op)
			? cli_error(c->cmd, "--lpm-op wants lookup, update, insert, "
				    "delete or free, got '%s'",
				    parse_printable(v->text, err, sizeof(err)))
			: 0;
	case OPT_DIST:
		return workload_parse_dist(v->text, &c->w, err, sizeof(err))
			? cli_error(c->cmd, "%s", err) : 0;
	case OPT_FLAGS: return cli_apply_flags(c->cmd, v->text, &c->map_flags);
	case OPT_THREADS:
		return opts_thread_list(c->cmd, v->text, c->threads,
					BENCH_MAX_THREAD_COUNTS, &c->n_threads);
	case OPT_DURATION: c->seconds = v->seconds; c->ops = 0; return 0;
	case OPT_OPS: c->ops = v->u; c->seconds = 0; return 0;
	case OPT_WARMUP: c->warmup = v->seconds; return 0;
	case OPT_REPEAT: c->repeat = (unsigned)v->u; return 0;
	case OPT_SEED: c->w.seed = v->u; return 0;
	case OPT_BATCH: c->w.batch = (unsigned)v->u; return 0;
	case OPT_RCU: return cli_apply_rcu(c->cmd, v->text);
	case OPT_FORMAT:
		return report_parse_format(v->text, &c->format)
			? cli_error(c->cmd, "--format wants table, jsonl or csv, "
				    "got '%s'", parse_printable(v->text, err,
								sizeof(err)))
			: 0;
	case OPT_OUT: c->out = v->text; return 0;
	case OPT_SAVE: c->save = v->text; return 0;
	case OPT_QUIET: c->quiet = true; return 0;
	case OPT_VERBOSE: c->verbose = true; return 0;
	case OPT_RUN_OPS: c->run_ops = (unsigned)v->u; return 0;
	case OPT_RUN_REPEAT: c->run_repeat = (unsigned)v->u; return 0;
	case OPT_NO_SYSCALL: c->no_syscall = true; return 0;
	case OPT_PHYSICAL: return parse_physical(c, v->text);
	case OPT_HUGEPAGES: return parse_hugepages(c);
	case OPT_KERNEL: return opts_refuse_vm_kernel(c->cmd);
	default:
		if (c->extra)
			return c->extra->apply(c->extra->ctx, id, v);
		return cli_error(c->cmd, "option not handled here (a bug)");
	}
}

static void set_defaults(struct bench_cli *c)
{
	c->maps[0] = map_find(BENCH_DEFAULT_DESIGN);
	c->map_types[0] = c->maps[0] ? c->maps[0]->type : 0;
	c->n_maps = c->maps[0] ? 1 : 0;
	c->threads[0] = BENCH_DEFAULT_THREADS;
	c->n_threads = 1;
	c->w = workload_default();
	c->hit_ratio = NAN;
	c->seconds = BENCH_DEFAULT_SECONDS;
	c->warmup = BENCH_DEFAULT_WARMUP;
	c->repeat = BENCH_DEFAULT_REPEAT;
	c->format = REPORT_TABLE;
	c->run_ops = BENCH_DEFAULT_RUN_OPS;
	c->run_repeat = BENCH_DEFAULT_RUN_REPEAT;
}

/* Design ops must accept the workload's map of `type` (what --opt names):
 * try one.  0, or EXIT_USAGE after one line. */
static int design_accepts(const struct bench_cli *c, const char *opt,
			  const struct map_ops *ops, uint32_t type)
{
	struct map_attr attr = { .type = type,
				 .key_size = workload_for_type(&c->w, type).key_size,
				 .value_size = c->w.value_size,
				 .max_entries = c->w.entries,
				 .flags = bench_map_flags(type, c->map_flags) };
	struct map *m;
	int err = map_create(ops, &attr, &m);
	if (!err) {
		map_destroy(m);
		return 0;
	}
	char flags[160];
	if (*map_refusal())
		return cli_error(c->cmd, "%s%s", opt, map_refusal());
	return cli_error(c->cmd, "%s%s refuses this map (key_size=%u "
			 "value_size=%u max_entries=%u flags=%s): %s", opt,
			 ops->name, attr.key_size, attr.value_size,
			 attr.max_entries, format_map_flags(attr.flags, flags,
							    sizeof(flags)),
			 map_errno_text(-err));
}

/* Every design of --map serves every thread count of --threads
 * (map_ops.max_threads): 0, or EXIT_USAGE after one line naming the
 * design and its limit.  kbench runs no design (a design there names the
 * kernel's map in its mode): nothing to check. */
static int check_thread_counts(const struct bench_cli *c)
{
	char why[256];
	for (unsigned i = 0; i < c->n_maps && !c->kernel_types; i++)
		for (unsigned t = 0; t < c->n_threads; t++)
			if (bench_threads_fit(c->maps[i], c->threads[t], why,
					      sizeof(why)))
				return cli_error(c->cmd, "%s", why);
	return 0;
}

/* The designs must accept the workload's map and its thread counts: try
 * one before running. */
static int check_designs_accept(struct bench_cli *c)
{
	int rc = check_thread_counts(c);
	if (rc)
		return rc;
	map_thread_online();
	for (unsigned i = 0; i < c->n_maps && !rc; i++)
		if (c->maps[i]) /* else a kernel map type: the kernel judges */
			rc = design_accepts(c, "", c->maps[i], c->map_types[i]);
	if (!rc && c->physical)
		rc = design_accepts(c, "--physical: ", c->physical,
				    type_of(c->physical));
	map_thread_offline();
	return rc;
}

/* --key-range as a number of keys; the prefilled keys are its first. */
static int resolve_key_range(struct bench_cli *c)
{
	uint64_t range, prefilled = workload_prefill_count(&c->w);
	if (!c->key_range.n)
		return 0;
	int rc = opts_count_of(c->cmd, &opt_key_range, c->key_range,
			       c->w.entries, &range);
	if (rc)
		return rc;
	if (range < prefilled)
		return cli_error(c->cmd, "--key-range gives %llu keys, fewer than "
				 "the %llu prefilled, which are the range's first",
				 (unsigned long long)range,
				 (unsigned long long)prefilled);
	c->w.key_range = (uint32_t)range;
	return 0;
}

/* The registry's designs of `type`, as "a, b, c" (as many as fit). */
static void designs_of_type(uint32_t type, char *out, size_t len)
{
	size_t used = 0;
	out[0] = 0;
	for (size_t i = 0; map_registry[i] && used < len; i++)
		if (map_registry[i]->type == type)
			used += (size_t)snprintf(out + used, len - used, "%s%s",
						 used ? ", " : "",
						 map_registry[i]->name);
}

/* Whether some map of the run is an LPM trie. */
static bool some_map_is_lpm(const struct bench_cli *c)
{
	for (unsigned m = 0; m < c->n_maps; m++)
		if (c->map_types[m] == MAP_TYPE_LPM_TRIE)
			return true;
	return false;
}

/* The other maps of a prefix workload run on the addresses alone: only
 * where every prefix is a full-length one (an address), so a hash's
 * exact match and a trie's longest match find the same keys; or on the
 * prefixes whole where no op asks for an address (updates, inserts,
 * deletes: workload_other_maps_take_prefixes).  noop takes the LPM keys.
 * 0, or EXIT_USAGE after one line. */
static int check_other_maps(struct bench_cli *c)
{
	for (unsigned m = 0; m < c->n_maps; m++) {
		if (c->maps[m] == &bench_noop_ops)
			c->map_types[m] = MAP_TYPE_LPM_TRIE;
		if (c->map_types[m] == MAP_TYPE_LPM_TRIE ||
		    prefix_set_full_length(c->w.prefixes) ||
		    workload_other_maps_take_prefixes(&c->w))
			continue;
		return cli_error(c->cmd, "--map: %s is a %s map: it runs an LPM "
				 "workload on its addresses, so only on full-length "
				 "prefixes (--prefixes random32 or dense) or a mix "
				 "without lookups, not %s",
				 c->maps[m] ? c->maps[m]->name
					    : map_type_name(c->map_types[m]),
				 map_type_name(c->map_types[m]),
				 prefix_set_name(c->w.prefixes));
	}
	if (c->physical && type_of(c->physical) != MAP_TYPE_LPM_TRIE &&
	    !prefix_set_full_length(c->w.prefixes))
		return cli_error(c->cmd, "--physical: %s is a %s map: it would "
				 "hold the addresses alone, so only of full-length "
				 "prefixes (--prefixes random32 or dense), not %s",
				 c->physical->name,
				 map_type_name(type_of(c->physical)),
				 prefix_set_name(c->w.prefixes));
	return 0;
}

/* A list set for the key size asked (internet: 8 -> IPv4, 20 -> IPv6), its
 * list read.  0, or EXIT_USAGE after one line. */
static int resolve_listed(struct bench_cli *c)
{
	enum prefix_set *set = &c->w.prefixes;
	char err[512];
	/* internet6 names the IPv6 prefixes: a key size that would switch to
	 * the IPv4 ones contradicts it (internet switches either way) */
	if (c->key_size_given && *set == PREFIXES_INTERNET6 &&
	    c->w.key_size != 4 + 16)
		return cli_error(c->cmd, "--prefixes internet6 makes 20-byte LPM "
				 "keys (a 4-byte prefix length and 16 address "
				 "bytes), not --key-size %u (the table's IPv4 "
				 "prefixes: --prefixes internet)", c->w.key_size);
	if (c->key_size_given && (c->w.key_size == 4 + 4 ||
				  c->w.key_size == 4 + 16))
		*set = prefix_set_family(*set, c->w.key_size - 4);
	if (prefix_set_load(*set, err, sizeof(err)))
		return cli_error(c->cmd, "--prefixes: %s", err);
	return 0;
}

/*
 * --prefixes and --hit-ratio: an LPM map's workload is a prefix set's
 * (random32 for 8-byte keys, or when --key-size is not given), whose keys
 * the set sizes; other key sizes keep full-length keys numbered as a
 * hash's (harness/workload/keys.h).  0, or EXIT_USAGE after one line.
 */
static int resolve_prefixes(struct bench_cli *c)
{
	enum prefix_set *set = &c->w.prefixes;
	bool lpm = some_map_is_lpm(c);
	int rc = 0;

	if (*set && !lpm) {
		char names[256];
		designs_of_type(MAP_TYPE_LPM_TRIE, names, sizeof(names));
		return cli_error(c->cmd, "--prefixes %s: for LPM maps, and --map "
				 "names none (%s%s)", prefix_set_name(*set), names,
				 c->kernel_types ? ", lpm_trie" : "");
	}
	if (lpm && !*set && (!c->key_size_given || c->w.key_size == 8))
		*set = PREFIXES_RANDOM32;
	if (prefix_set_listed(*set) && (rc = resolve_listed(c)))
		return rc;
	if (*set) {
		uint32_t data = prefix_set_data_size(*set);
		if (!c->key_size_given)
			c->w.key_size = 4 + data;
		else if (c->w.key_size != 4 + data)
			return cli_error(c->cmd, "--prefixes %s makes %u-byte LPM "
					 "keys (a 4-byte prefix length and %u address "
					 "bytes), not --key-size %u",
					 prefix_set_name(*set), 4 + data, data,
					 c->w.key_size);
		rc = check_other_maps(c);
	}
	if (rc || isnan(c->hit_ratio))
		return rc;
	if (!*set)
		return cli_error(c->cmd, "--hit-ratio: for the LPM workloads of "
				 "--prefixes only (an LPM map with 8- or 20-byte "
				 "keys)");
	c->w.miss_ppm = (uint32_t)llround((100 - c->hit_ratio) * 10000);
	return 0;
}

/* `keys` distinct keys (`which` says whose) must fit in the workload's
 * keys of map type `type`.  0, or EXIT_USAGE after one line. */
static int keys_fit(const struct bench_cli *c, uint32_t type, uint64_t keys,
		    const char *which)
{
	if (keys <= key_capacity(type, c->w.key_size))
		return 0;
	return cli_error(c->cmd, "%llu distinct keys (%s) do not fit in %u-byte "
			 "%s keys", (unsigned long long)keys, which,
			 c->w.key_size, map_type_name(type));
}

/* A prefix workload's prefixes must be drawable (distinct: not too many
 * of one length); its key numbers must fit a stream op's 32 bits. */
static int check_prefixes_fit(const struct bench_cli *c, uint64_t keys)
{
	struct workload_layout l;
	char err[200];
	workload_layout(&c->w, 1, &l);
	if (prefix_set_fits(c->w.prefixes, l.stored, err, sizeof(err)))
		return cli_error(c->cmd, "--prefixes %s: %s",
				 prefix_set_name(c->w.prefixes), err);
	if (keys > UINT32_MAX)
		return cli_error(c->cmd, "%llu keys (prefixes and the addresses "
				 "lookups ask for) are more than a stream can name",
				 (unsigned long long)keys);
	return 0;
}

/* Every key number the run uses must have its own key bytes. */
static int check_keys_fit(struct bench_cli *c)
{
	unsigned most = 0;
	for (unsigned t = 0; t < c->n_threads; t++)
		most = c->threads[t] > most ? c->threads[t] : most;
	uint64_t keys = workload_key_count(&c->w, most);
	char which[64];
	int rc = 0;
	if (c->w.prefixes)
		return check_prefixes_fit(c, keys);
	if (c->w.key_range)
		snprintf(which, sizeof(which), "the key range");
	else
		snprintf(which, sizeof(which), "entries and each thread's pool "
			 "of %d", WORKLOAD_POOL);
	for (unsigned m = 0; m < c->n_maps && !rc; m++)
		rc = keys_fit(c, c->map_types[m], keys, which);
	if (!rc && c->physical)
		rc = keys_fit(c, type_of(c->physical), keys, which);
	return rc;
}

static void warn(const struct bench_cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct bench_cli *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "maplab %s: warning: ", c->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Whether some map of the run refuses new keys when full (a hash, a
 * trie), rather than evicting (an LRU). */
static bool some_map_refuses_when_full(const struct bench_cli *c)
{
	for (unsigned m = 0; m < c->n_maps; m++)
		if (c->map_types[m] != MAP_TYPE_LRU_HASH)
			return true;
	return false;
}

/* "lookup=45,insert=55": the ops the streams hold, rounded (none left
 * out that is there at all). */
static void format_shares(const double share[OP_COUNT], char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int op = 0; op < OP_COUNT && off < len; op++)
		if (share[op] > 0)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%.0f",
						off ? "," : "", bench_op_names[op],
						share[op]);
}

/*
 * The pool model's streams (workload.h) hold back deletes with nothing to
 * delete and inserts with the whole pool in: refuse a mix that cannot run
 * at all, and say what really runs where it differs from the mix asked.
 */
static int check_pool_mix(struct bench_cli *c)
{
	const unsigned *mix = c->w.mix;
	double share[OP_COUNT];
	char asked[96];

	if (mix[OP_DELETE] && !mix[OP_INSERT])
		return cli_error(c->cmd, "--mix: delete=%u has nothing to delete: a "
				 "worker deletes only keys it inserted itself; give "
				 "insert= a share too, or --key-range", mix[OP_DELETE]);
	if (workload_stream_mix(&c->w, share))
		return cli_error(c->cmd, "out of memory");
	workload_format_mix(mix, asked, sizeof(asked));
	for (int op = 0; op < OP_COUNT; op++)
		if (share[op] < mix[op] - 1.0 || share[op] > mix[op] + 1.0) {
			char held[160];
			format_shares(share, held, sizeof(held));
			warn(c, "the streams hold %s, not %s: each worker deletes "
			     "only keys it inserted, and inserts only while its "
			     "pool of %d keys is not all in the map", held, asked,
			     WORKLOAD_POOL);
			break;
		}
	return 0;
}

/* Inserts that a map which does not evict (a hash, a trie) must refuse:
 * insert's, and in the range model the new keys of upsert and
 * lookup_write (and replace's re-insert of a key that was not there). */
static void warn_inserts_refused(const struct bench_cli *c)
{
	const struct workload *w = &c->w;
	bool range_inserts = w->key_range > w->entries &&
			     (w->mix[OP_UPSERT] || w->mix[OP_REPLACE] ||
			      w->mix[OP_LOOKUP_WRITE]);
	if (!(w->mix[OP_INSERT] || range_inserts) ||
	    !some_map_refuses_when_full(c))
		return;
	if (w->mix[OP_INSERT] && !w->key_range && w->prefill_pct == 100)
		warn(c, "the map is full (--prefill 100) and inserts add new keys: "
		     "every insert will fail (E2BIG; ENOSPC in an LPM trie), and so "
		     "will the deletes of their keys; lower --prefill to leave room");
	else if (w->key_range > w->entries)
		warn(c, "the key range (%u keys) is larger than the map (%u "
		     "entries), and only an LRU map evicts: once the others are "
		     "full, every insert of a key not in them fails (E2BIG; "
		     "upserts, replaces and lookup_writes too)",
		     w->key_range, w->entries);
}

/*
 * A workload that cannot run as asked is refused, or runs with a warning
 * that says what will really run: no silent lookups in place of deletes,
 * no run of failures that looks like a measurement.  The range model
 * makes the mix as asked; its inserts can fill a map that does not evict.
 */
static int check_mix_runs_as_asked(struct bench_cli *c)
{
	const struct workload *w = &c->w;
	int rc = w->key_range ? 0 : check_pool_mix(c);
	if (rc)
		return rc;
	warn_inserts_refused(c);
	if (w->miss_ppm && !w->mix[OP_LOOKUP] && !w->mix[OP_LOOKUP_WRITE])
		warn(c, "--hit-ratio is a share of the lookups, and the mix has "
		     "none");
	/* In the range model, inserts put in keys that updates can find. */
	if (w->mix[OP_UPDATE] && w->prefill_pct == 0 &&
	    !(w->key_range && w->mix[OP_INSERT]))
		warn(c, "no key is prefilled (--prefill 0): every update of an "
		     "existing key will fail (ENOENT)");
	return 0;
}

/* --lpm-op's refusals: a map that is no LPM trie, or `what` given beside
 * an op that sets it. */
static int lpm_op_refuses(const struct bench_cli *c, const char *what,
			  const char *why)
{
	return cli_error(c->cmd, "--lpm-op %s: no %s with it (%s)",
			 bench_lpm_op_name(c->lpm_op), what, why);
}

/*
 * --lpm-op: the kernel's LPM benchmark's workload on LPM maps only.
 * lookup and update become their mix on a full map; insert, delete and
 * free are whole-map phases (harness/bench/phase.h) of one thread, whose
 * mix records what they count (insert=100, delete=100; none for free).
 * Options that would change what the benchmark runs are refused, each in
 * one line.  0, or EXIT_USAGE.
 */
static int resolve_lpm_op(struct bench_cli *c)
{
	enum bench_lpm_op op = c->lpm_op;
	bool phase = bench_lpm_op_is_phase(op);
	if (!op)
		return 0;
	for (unsigned m = 0; m < c->n_maps; m++)
		if (c->map_types[m] != MAP_TYPE_LPM_TRIE || c->maps[m] == &bench_noop_ops) {
			char names[256];
			designs_of_type(MAP_TYPE_LPM_TRIE, names, sizeof(names));
			return cli_error(c->cmd, "--lpm-op %s: %s is no LPM trie: the "
					 "kernel's LPM benchmark runs on LPM maps (%s%s)",
					 bench_lpm_op_name(op),
					 c->maps[m] ? c->maps[m]->name
						    : map_type_name(c->map_types[m]),
					 names, c->kernel_types ? ", lpm_trie" : "");
		}
	if (c->mix_given)
		return lpm_op_refuses(c, "--mix", "the op is the mix");
	if (c->w.prefill_pct != WORKLOAD_DEFAULT_PREFILL)
		return lpm_op_refuses(c, "--prefill", phase
				      ? "each round fills or empties the map itself"
				      : "it runs on a full map");
	if (c->key_range.n)
		return lpm_op_refuses(c, "--key-range", "its ops name the N stored "
				      "prefixes");
	for (unsigned t = 0; t < c->n_threads && phase; t++)
		if (c->threads[t] != 1)
			return cli_error(c->cmd, "--lpm-op %s runs one thread, as the "
					 "kernel's benchmark runs one producer for it: "
					 "not --threads %u", bench_lpm_op_name(op),
					 c->threads[t]);
	if (phase && c->w.dist != DIST_UNIFORM)
		return lpm_op_refuses(c, "--dist", "a pass walks the N prefixes in "
				      "order");
	if (phase && !isnan(c->hit_ratio))
		return lpm_op_refuses(c, "--hit-ratio", "it makes no lookups");
	if (phase && c->w.batch > 1)
		return lpm_op_refuses(c, "--batch", "it makes no lookups");
	if (phase && c->physical)
		return lpm_op_refuses(c, "--physical", "its reference sides run "
				      "lookups");
	memset(c->w.mix, 0, sizeof(c->w.mix));
	if (op != BENCH_LPM_FREE)
		c->w.mix[bench_lpm_op_counted_as(op)] = 100;
	c->w.prefill_pct = op == BENCH_LPM_INSERT ? 0 : 100;
	return 0;
}

int bench_cli_parse(struct bench_cli *c, int argc, char **argv,
		    const struct cmd_option *opts, size_t n_opts,
		    const char *usage, const char *after)
{
	set_defaults(c);
	if (c->extra && c->extra->defaults)
		c->extra->defaults(c, c->extra->ctx);
	int rc = opts_parse(c->cmd, argc, argv, opts, n_opts, apply_bench, c,
			    usage, after);
	if (rc)
		return rc;
	if (c->n_maps == 0)
		return cli_error(c->cmd, BENCH_DEFAULT_DESIGN ", the default "
				 "design, is not built: give --map");
	if (c->extra && c->extra->settle && (rc = c->extra->settle(c, c->extra->ctx)))
		return rc;
	if ((rc = resolve_lpm_op(c)) ||
	    (rc = resolve_prefixes(c)) || (rc = resolve_key_range(c)) ||
	    (rc = check_keys_fit(c)) ||
	    (!bench_lpm_op_is_phase(c->lpm_op) &&
	     (rc = check_mix_runs_as_asked(c))))
		return rc;
	return check_designs_accept(c);
}
