/* SPDX-License-Identifier: MIT */
/* maplab stress: concurrent random ops on a design, then a contents check. */
#include "cli.h"
#include "stress.h"
#include "../maps/common/rcu.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help_stress(void)
{
	puts("usage: maplab stress [options]\n\n"
	     "Runs random inserts (BPF_NOEXIST), replaces (BPF_EXIST), deletes and\n"
	     "lookups from many threads over one shared key range, then checks\n"
	     "what is left against what the successful operations imply: each key\n"
	     "present iff inserts - deletes = 1, size = initial + inserts - deletes,\n"
	     "a get_next_key walk meets every key once, every value is one a thread\n"
	     "wrote to that key.  Exit 0: all checks passed; 1: one failed.\n\n"
	     "  --map D[,D...]     designs (default: every design)\n"
	     "  --threads N        (8; more than cores is the point)\n"
	     "  --duration S       seconds per design (2)   --ops N  per thread instead\n"
	     "  --entries N        max_entries (1024)\n"
	     "  --key-range N      keys drawn from 0..N-1 (2 x entries)\n"
	     "  --key-size N       (4)      --value-size N  (8; at least 8)\n"
	     "  --prefill P        percent of the key range inserted first (50)\n"
	     "  --flags F|F        map flags\n"
	     "  --seed N           (1)      --rcu memb|qsbr");
}

enum { S_MAP = 256, S_THREADS, S_DURATION, S_OPS, S_ENTRIES, S_RANGE, S_KEY,
       S_VALUE, S_PREFILL, S_FLAGS, S_SEED, S_RCU };

static int parse_stress(int argc, char **argv, struct stress_opts *o,
			const char **maps)
{
	static const struct option opts[] = {
		{ "help", no_argument, 0, 'h' },
		{ "map", required_argument, 0, S_MAP },
		{ "threads", required_argument, 0, S_THREADS },
		{ "duration", required_argument, 0, S_DURATION },
		{ "ops", required_argument, 0, S_OPS },
		{ "entries", required_argument, 0, S_ENTRIES },
		{ "key-range", required_argument, 0, S_RANGE },
		{ "key-size", required_argument, 0, S_KEY },
		{ "value-size", required_argument, 0, S_VALUE },
		{ "prefill", required_argument, 0, S_PREFILL },
		{ "flags", required_argument, 0, S_FLAGS },
		{ "seed", required_argument, 0, S_SEED },
		{ "rcu", required_argument, 0, S_RCU },
		{ 0, 0, 0, 0 },
	};
	uint64_t v;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		const char *name = NULL;
		uint64_t min = 1, max = 0;
		switch (c) {
		case 'h':
			help_stress();
			return 1;
		case S_MAP:
			*maps = optarg;
			continue;
		case S_FLAGS:
			if (cli_parse_map_flags("stress", optarg, &o->attr.flags))
				return EXIT_USAGE;
			continue;
		case S_RCU:
			if (strcmp(optarg, "qsbr") && strcmp(optarg, "memb"))
				return cli_error("stress", "--rcu wants memb or qsbr");
			map_rcu_use(strcmp(optarg, "qsbr") ? MAP_RCU_MEMB
							   : MAP_RCU_QSBR);
			continue;
		case S_DURATION: {
			char *end;
			o->seconds = strtod(optarg, &end);
			if (*end || o->seconds <= 0 || o->seconds > 3600)
				return cli_error("stress", "--duration wants seconds "
						 "from 0 to 3600, got '%s'", optarg);
			o->max_ops = 0;
			continue;
		}
		case S_THREADS: name = "threads"; max = 254; break;
		case S_OPS: name = "ops"; max = 1ULL << 32; break;
		case S_ENTRIES: name = "entries"; max = 1u << 24; break;
		case S_RANGE: name = "key-range"; max = 1u << 26; break;
		case S_KEY: name = "key-size"; max = 4096; break;
		case S_VALUE: name = "value-size"; min = 8; max = 65536; break;
		case S_PREFILL: name = "prefill"; min = 0; max = 100; break;
		case S_SEED: name = "seed"; min = 0; max = UINT64_MAX; break;
		default:
			return cli_error("stress", "unknown option or missing value "
					 "(try --help)");
		}
		if (cli_parse_u64("stress", name, optarg, min, max, &v))
			return EXIT_USAGE;
		switch (c) {
		case S_THREADS: o->threads = (unsigned)v; break;
		case S_OPS: o->max_ops = v; o->seconds = 0; break;
		case S_ENTRIES: o->attr.max_entries = (uint32_t)v; break;
		case S_RANGE: o->key_range = (uint32_t)v; break;
		case S_KEY: o->attr.key_size = (uint32_t)v; break;
		case S_VALUE: o->attr.value_size = (uint32_t)v; break;
		case S_PREFILL: o->prefill_pct = (unsigned)v; break;
		case S_SEED: o->seed = v; break;
		}
	}
	if (optind < argc)
		return cli_error("stress", "unexpected argument '%s'", argv[optind]);
	return 0;
}

static int stress_one(const struct map_ops *ops, struct stress_opts *o)
{
	struct stress_report r;
	o->ops = ops;
	o->attr.type = ops->type;
	int rc = stress_run(o, &r);
	if (rc < 0)
		return cli_error("stress", "%s", r.failure);
	printf("%-16s %s  %u threads, %.2f s, %llu ops (%.2f Mops/s): %llu inserts, "
	       "%llu replaces, %llu deletes, %llu/%llu lookups hit, %llu full; "
	       "%llu keys at the end\n", ops->name, rc ? "FAIL" : "ok  ",
	       o->threads, r.seconds, (unsigned long long)r.ops,
	       r.seconds > 0 ? (double)r.ops / r.seconds / 1e6 : 0,
	       (unsigned long long)r.inserts, (unsigned long long)r.replaces,
	       (unsigned long long)r.deletes, (unsigned long long)r.lookup_hits,
	       (unsigned long long)r.lookups, (unsigned long long)r.full_errors,
	       (unsigned long long)r.found);
	if (rc)
		printf("  %s\n", r.failure);
	return rc ? EXIT_CHECK_FAILED : EXIT_OK;
}

int cmd_stress(int argc, char **argv)
{
	struct stress_opts o = {
		.attr = { .key_size = 4, .value_size = 8, .max_entries = 1024 },
		.threads = 8, .seconds = 2, .prefill_pct = 50, .seed = 1,
	};
	const char *maps = NULL;
	int rc = parse_stress(argc, argv, &o, &maps);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;

	int worst = EXIT_OK;
	if (!maps) {
		for (size_t i = 0; map_registry[i]; i++)
			if ((rc = stress_one(map_registry[i], &o)) > worst)
				worst = rc;
		return worst;
	}
	char *copy = strdup(maps), *save = NULL;
	for (char *name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		const struct map_ops *ops = map_find(name);
		if (!ops) {
			worst = cli_error("stress", "no design '%s' (maplab list "
					  "shows them)", name);
			break;
		}
		if ((rc = stress_one(ops, &o)) > worst)
			worst = rc;
	}
	free(copy);
	return worst;
}
