/* SPDX-License-Identifier: MIT */
/* maplab stress: concurrent random ops on designs, then a contents check. */
#include "cli/cli.h"
#include "cli/options.h"
#include "harness/bench/bench.h"
#include "harness/common/outfile.h"
#include "harness/stress/stress.h"

#include <stdbool.h>

#include <stdio.h>
#include <string.h>

static const char usage_stress[] =
	"usage: maplab stress [options]\n\n"
	"Runs random inserts (BPF_NOEXIST), replaces (BPF_EXIST), deletes and\n"
	"lookups from many threads over one shared key range, then checks what\n"
	"is left against what the successful operations imply: each key present\n"
	"iff its inserts - deletes = 1 (an LRU map may have evicted it), every\n"
	"value the latest write the history allows (a lost update fails), a\n"
	"get_next_key walk meets every key once.  Exit 0: all checks passed;\n"
	"1: one failed (the line says which); 2: bad usage.\n";

/* stress's defaults: help shows them, cmd_stress starts from them. */
#define STRESS_THREADS 8
#define STRESS_SECONDS 2
#define STRESS_ENTRIES 1024
#define STRESS_KEY_SIZE 4
#define STRESS_LPM_KEY_SIZE 8
#define STRESS_VALUE_SIZE 8
#define STRESS_PREFILL 50
#define STRESS_SEED 1

static const struct cmd_option stress_options[] = {
	{ &opt_map, "designs (default: every design, or every one of --type)" },
	{ &opt_type, "map type whose designs to run (default: all types)" },
	{ &opt_threads, "worker threads; a run per count (" STR(STRESS_THREADS)
			": more than cores is\nthe point)" },
	{ &opt_duration, "seconds per run (" STR(STRESS_SECONDS) ")" },
	{ &opt_ops, NULL },
	{ &opt_entries, "max_entries (" STR(STRESS_ENTRIES) ")" },
	{ &opt_key_range, "keys drawn from 0..N-1, N or P % of --entries\n"
			  "(" STR(STRESS_DEFAULT_RANGE_PCT) "%)" },
	{ &opt_key_size, "key bytes (" STR(STRESS_KEY_SIZE) "; "
			 STR(STRESS_LPM_KEY_SIZE) " for lpm_trie: a /32 address)" },
	{ &opt_value_size, "value bytes (" STR(STRESS_VALUE_SIZE)
			   "; at least 8)" },
	{ &opt_prefill, "percent of the key range inserted first ("
			STR(STRESS_PREFILL) ")" },
	{ &opt_flags, NULL },
	{ &opt_seed, "(" STR(STRESS_SEED) ")" },
	{ &opt_rcu, "liburcu flavour (memb)" },
};

struct stress_cmd {
	struct stress_opts o;
	const struct map_ops *designs[64];
	unsigned n_designs;
	unsigned threads[16], n_threads;
	uint32_t type;      /* --type, or 0 */
	bool key_size_given;
	struct opt_count key_range; /* --key-range N or P% of --entries */
};

static int apply_stress(void *ctx, enum opt_id id, const struct opt_value *v)
{
	struct stress_cmd *c = ctx;
	struct stress_opts *o = &c->o;
	switch (id) {
	case OPT_MAP:
		return opts_design_list("stress", v->text, c->designs, 64,
					&c->n_designs);
	case OPT_TYPE: return opts_map_type("stress", v->text, &c->type);
	case OPT_THREADS:
		return opts_thread_list("stress", v->text, c->threads, 16,
					&c->n_threads);
	case OPT_DURATION: o->seconds = v->seconds; o->max_ops = 0; return 0;
	case OPT_OPS: o->max_ops = v->u; o->seconds = 0; return 0;
	case OPT_ENTRIES: o->attr.max_entries = (uint32_t)v->u; return 0;
	case OPT_KEY_RANGE:
		c->key_range = (struct opt_count){ v->u, v->percent };
		return 0;
	case OPT_KEY_SIZE:
		o->attr.key_size = (uint32_t)v->u;
		c->key_size_given = true;
		return 0;
	case OPT_VALUE_SIZE: o->attr.value_size = (uint32_t)v->u; return 0;
	case OPT_PREFILL: o->prefill_pct = (unsigned)v->u; return 0;
	case OPT_FLAGS: return cli_apply_flags("stress", v->text, &o->attr.flags);
	case OPT_SEED: o->seed = v->u; return 0;
	case OPT_RCU: return cli_apply_rcu("stress", v->text);
	default: return cli_error("stress", "option not handled here (a bug)");
	}
}

/* Every design of the registry, or of one type. */
static void default_designs(struct stress_cmd *c)
{
	for (size_t i = 0; map_registry[i] && c->n_designs < 64; i++)
		if (!c->type || map_registry[i]->type == c->type)
			c->designs[c->n_designs++] = map_registry[i];
}

/* Every design takes every thread count asked for (map_ops.max_threads),
 * checked before any run: 0, or EXIT_USAGE after one line. */
static int check_thread_counts(const struct stress_cmd *c)
{
	char why[256];
	for (unsigned i = 0; i < c->n_designs; i++)
		for (unsigned t = 0; t < c->n_threads; t++)
			if (bench_threads_fit(c->designs[i], c->threads[t], why,
					      sizeof(why)))
				return cli_error("stress", "%s", why);
	return 0;
}

static int stress_one(const struct map_ops *ops, struct stress_cmd *c,
		      unsigned threads)
{
	struct stress_opts o = c->o;
	struct stress_report r;
	o.ops = ops;
	o.threads = threads;
	o.attr.type = ops->type;
	o.attr.flags = bench_map_flags(ops->type, o.attr.flags);
	if (!c->key_size_given && ops->type == MAP_TYPE_LPM_TRIE)
		o.attr.key_size = STRESS_LPM_KEY_SIZE;
	int rc = stress_run(&o, &r);
	if (rc < 0)
		return cli_error("stress", "%s: %s", ops->name, r.failure);
	printf("%-16s %s  %u threads, %.2f s, %llu ops (%.2f Mops/s): %llu inserts, "
	       "%llu replaces, %llu deletes, %llu/%llu lookups hit, %llu full; "
	       "%llu keys at the end", ops->name, rc ? "FAIL" : "ok  ",
	       threads, r.seconds, (unsigned long long)r.ops,
	       r.seconds > 0 ? (double)r.ops / r.seconds / 1e6 : 0,
	       (unsigned long long)r.inserts, (unsigned long long)r.replaces,
	       (unsigned long long)r.deletes, (unsigned long long)r.lookup_hits,
	       (unsigned long long)r.lookups, (unsigned long long)r.full_errors,
	       (unsigned long long)r.found);
	if (r.evictions)
		printf(", %llu evicted", (unsigned long long)r.evictions);
	putchar('\n');
	if (rc)
		printf("  %s\n", r.failure);
	return rc ? EXIT_CHECK_FAILED : EXIT_OK;
}

int cmd_stress(int argc, char **argv)
{
	struct stress_cmd c = {
		.o = { .attr = { .key_size = STRESS_KEY_SIZE,
				 .value_size = STRESS_VALUE_SIZE,
				 .max_entries = STRESS_ENTRIES },
		       .seconds = STRESS_SECONDS, .prefill_pct = STRESS_PREFILL,
		       .seed = STRESS_SEED },
		.threads = { STRESS_THREADS }, .n_threads = 1,
	};
	int rc = opts_parse("stress", argc, argv, stress_options,
			    N_OPTIONS(stress_options),
			    apply_stress, &c, usage_stress, NULL);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;
	uint64_t range = 0;
	if (c.key_range.n && (rc = opts_count_of("stress", &opt_key_range,
						 c.key_range,
						 c.o.attr.max_entries, &range)))
		return rc;
	c.o.key_range = (uint32_t)range;
	if (c.n_designs == 0)
		default_designs(&c);
	for (unsigned i = 0; i < c.n_designs; i++)
		if (c.type && c.designs[i]->type != c.type)
			return cli_error("stress", "%s is a %s design, not %s",
					 c.designs[i]->name,
					 map_type_name(c.designs[i]->type),
					 map_type_name(c.type));
	if ((rc = check_thread_counts(&c)))
		return rc;
	/* A line per run, each flushed: a write that fails stops the runs
	 * there, with one line naming stdout. */
	struct outfile out;
	out_stdout(&out);
	int worst = EXIT_OK;
	for (unsigned i = 0; i < c.n_designs && worst != EXIT_USAGE; i++)
		for (unsigned t = 0; t < c.n_threads && worst != EXIT_USAGE; t++) {
			if ((rc = stress_one(c.designs[i], &c, c.threads[t])) > worst)
				worst = rc;
			int werr = out_flush(&out);
			if (werr)
				return opts_write_failed("stress", &out, werr);
		}
	return worst;
}
