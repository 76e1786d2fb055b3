/* SPDX-License-Identifier: MIT */
#include "bench_cli.h"
#include "cli.h"
#include "../maps/common/rcu.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char bench_cli_options_help[] =
	"workload:\n"
	"  --map D[,D...]       designs (maplab list), or noop: the harness alone\n"
	"  --key-size N         bytes (4)           --value-size N  bytes (8)\n"
	"  --entries N          max_entries (65536)\n"
	"  --prefill P          percent of entries inserted before timing (100)\n"
	"  --mix op=P,...       lookup, update (existing keys), insert (new keys),\n"
	"                       delete; percents summing to 100 (lookup=100)\n"
	"  --dist D             uniform | zipf:S | hotset:P,F (P %% of ops on F %% of\n"
	"                       the keys) (uniform)\n"
	"  --flags F|F          map flags: no_prealloc, zero_seed, ...\n"
	"  --threads N[,N...]   worker threads; one result per count (1)\n"
	"  --duration S         timed seconds per run (1), or\n"
	"  --ops N              total ops per run\n"
	"  --warmup S           untimed seconds before each run (0.2)\n"
	"  --repeat N           runs per point; the median is reported (1)\n"
	"  --seed N             key streams (1)\n"
	"  --rcu memb|qsbr      liburcu flavour (memb)\n"
	"output:\n"
	"  --format table|jsonl|csv   (table)\n"
	"  --out FILE           write results there instead of stdout\n"
	"  --quiet              no progress line\n";

enum { O_MAP = 256, O_KEY, O_VALUE, O_ENTRIES, O_PREFILL, O_MIX, O_DIST,
       O_FLAGS, O_THREADS, O_DURATION, O_OPS, O_WARMUP, O_REPEAT, O_SEED,
       O_RCU, O_FORMAT, O_OUT, O_QUIET };

static const struct option options[] = {
	{ "help", no_argument, 0, 'h' },
	{ "map", required_argument, 0, O_MAP },
	{ "key-size", required_argument, 0, O_KEY },
	{ "value-size", required_argument, 0, O_VALUE },
	{ "entries", required_argument, 0, O_ENTRIES },
	{ "prefill", required_argument, 0, O_PREFILL },
	{ "mix", required_argument, 0, O_MIX },
	{ "dist", required_argument, 0, O_DIST },
	{ "flags", required_argument, 0, O_FLAGS },
	{ "threads", required_argument, 0, O_THREADS },
	{ "duration", required_argument, 0, O_DURATION },
	{ "ops", required_argument, 0, O_OPS },
	{ "warmup", required_argument, 0, O_WARMUP },
	{ "repeat", required_argument, 0, O_REPEAT },
	{ "seed", required_argument, 0, O_SEED },
	{ "rcu", required_argument, 0, O_RCU },
	{ "format", required_argument, 0, O_FORMAT },
	{ "out", required_argument, 0, O_OUT },
	{ "quiet", no_argument, 0, O_QUIET },
	{ 0, 0, 0, 0 },
};

static int parse_maps(struct bench_cli *c, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	int rc = 0;
	c->n_maps = 0;
	for (char *name = strtok_r(copy, ",", &save); name && !rc;
	     name = strtok_r(NULL, ",", &save)) {
		const struct map_ops *ops = strcmp(name, "noop") == 0
			? &bench_noop_ops : map_find(name);
		uint32_t type = ops ? (ops->type ? ops->type : MAP_TYPE_HASH)
				    : map_type_from_name(name);
		if (!ops && !(c->kernel_types && type))
			rc = cli_error(c->cmd, "no design '%s' (maplab list shows "
				       "them%s)", name, c->kernel_types ?
				       "; kernel map types: hash, lru_hash, "
				       "lpm_trie" : "");
		else if (c->n_maps == BENCH_MAX_MAPS)
			rc = cli_error(c->cmd, "at most %d designs at once",
				       BENCH_MAX_MAPS);
		else {
			c->map_types[c->n_maps] = type;
			c->maps[c->n_maps++] = ops;
		}
	}
	free(copy);
	if (!rc && c->n_maps == 0)
		rc = cli_error(c->cmd, "--map wants at least one design");
	return rc;
}

static int parse_threads(struct bench_cli *c, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	int rc = 0;
	c->n_threads = 0;
	for (char *t = strtok_r(copy, ",", &save); t && !rc;
	     t = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (cli_parse_u64(c->cmd, "threads", t, 1, 254, &v))
			rc = EXIT_USAGE;
		else if (c->n_threads == BENCH_MAX_THREAD_COUNTS)
			rc = cli_error(c->cmd, "at most %d thread counts",
				       BENCH_MAX_THREAD_COUNTS);
		else
			c->threads[c->n_threads++] = (unsigned)v;
	}
	free(copy);
	if (!rc && c->n_threads == 0)
		rc = cli_error(c->cmd, "--threads wants a list such as 1,2,4");
	return rc;
}

static int parse_seconds(const char *cmd, const char *opt, const char *text,
			 double min, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (*text == '\0' || *end || errno || v < min || v > 3600)
		return cli_error(cmd, "--%s wants seconds from %g to 3600, got "
				 "'%s'", opt, min, text);
	*out = v;
	return 0;
}

static int parse_one(struct bench_cli *c, int opt, const char *arg)
{
	char err[256];
	uint64_t v;

	switch (opt) {
	case O_MAP:
		return parse_maps(c, arg);
	case O_KEY:
		if (cli_parse_u64(c->cmd, "key-size", arg, 1, 1u << 20, &v))
			return EXIT_USAGE;
		c->w.key_size = (uint32_t)v;
		return 0;
	case O_VALUE:
		if (cli_parse_u64(c->cmd, "value-size", arg, 1, 1u << 20, &v))
			return EXIT_USAGE;
		c->w.value_size = (uint32_t)v;
		return 0;
	case O_ENTRIES:
		if (cli_parse_u64(c->cmd, "entries", arg, 1, 1u << 27, &v))
			return EXIT_USAGE;
		c->w.entries = (uint32_t)v;
		return 0;
	case O_PREFILL:
		if (cli_parse_u64(c->cmd, "prefill", arg, 0, 100, &v))
			return EXIT_USAGE;
		c->w.prefill_pct = (unsigned)v;
		return 0;
	case O_MIX:
		if (workload_parse_mix(arg, c->w.mix, err, sizeof(err)))
			return cli_error(c->cmd, "%s", err);
		return 0;
	case O_DIST:
		if (workload_parse_dist(arg, &c->w, err, sizeof(err)))
			return cli_error(c->cmd, "%s", err);
		return 0;
	case O_FLAGS:
		return cli_parse_map_flags(c->cmd, arg, &c->map_flags) ? EXIT_USAGE
								       : 0;
	case O_THREADS:
		return parse_threads(c, arg);
	case O_DURATION:
		c->ops = 0;
		return parse_seconds(c->cmd, "duration", arg, 0.01, &c->seconds);
	case O_OPS:
		c->seconds = 0;
		if (cli_parse_u64(c->cmd, "ops", arg, 1, 1ULL << 40, &c->ops))
			return EXIT_USAGE;
		return 0;
	case O_WARMUP:
		return parse_seconds(c->cmd, "warmup", arg, 0, &c->warmup);
	case O_REPEAT:
		if (cli_parse_u64(c->cmd, "repeat", arg, 1, 1000, &v))
			return EXIT_USAGE;
		c->repeat = (unsigned)v;
		return 0;
	case O_SEED:
		return cli_parse_u64(c->cmd, "seed", arg, 0, UINT64_MAX,
				     &c->w.seed) ? EXIT_USAGE : 0;
	case O_RCU:
		if (strcmp(arg, "memb") == 0)
			map_rcu_use(MAP_RCU_MEMB);
		else if (strcmp(arg, "qsbr") == 0)
			map_rcu_use(MAP_RCU_QSBR);
		else
			return cli_error(c->cmd, "--rcu wants memb or qsbr, got "
					 "'%s'", arg);
		return 0;
	case O_FORMAT:
		if (report_parse_format(arg, &c->format))
			return cli_error(c->cmd, "--format wants table, jsonl or "
					 "csv, got '%s'", arg);
		return 0;
	case O_OUT:
		c->out = arg;
		return 0;
	case O_QUIET:
		c->quiet = true;
		return 0;
	}
	return cli_error(c->cmd, "unknown option or missing value (try --help)");
}

static void set_defaults(struct bench_cli *c)
{
	c->maps[0] = map_find("hash/linux");
	c->map_types[0] = MAP_TYPE_HASH;
	c->n_maps = 1;
	c->threads[0] = 1;
	c->n_threads = 1;
	c->w.key_size = 4;
	c->w.value_size = 8;
	c->w.entries = 65536;
	c->w.prefill_pct = 100;
	c->w.mix[OP_LOOKUP] = 100;
	c->w.dist = DIST_UNIFORM;
	c->w.seed = 1;
	c->seconds = 1;
	c->warmup = 0.2;
	c->repeat = 1;
	c->format = REPORT_TABLE;
}

/* The design must accept the workload's map: try one before running. */
static int check_designs_accept(struct bench_cli *c)
{
	struct map_attr attr = { .key_size = c->w.key_size,
				 .value_size = c->w.value_size,
				 .max_entries = c->w.entries,
				 .flags = c->map_flags };
	int rc = 0;
	map_thread_online();
	for (unsigned i = 0; i < c->n_maps && !rc; i++) {
		struct map *m;
		if (!c->maps[i])
			continue; /* a kernel map type: the kernel will judge */
		attr.type = c->maps[i]->type ? c->maps[i]->type : MAP_TYPE_HASH;
		int err = map_create(c->maps[i], &attr, &m);
		if (err)
			rc = cli_error(c->cmd, "%s refuses this map (key_size=%u "
				       "value_size=%u max_entries=%u flags=%#x): %s",
				       c->maps[i]->name, attr.key_size,
				       attr.value_size, attr.max_entries,
				       attr.flags, strerror(-err));
		else
			map_destroy(m);
	}
	map_thread_offline();
	return rc;
}

int bench_cli_parse(struct bench_cli *c, int argc, char **argv,
		    void (*help)(void))
{
	int opt, rc;
	set_defaults(c);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (opt == 'h') {
			help();
			return 1;
		}
		if (opt == '?')
			return cli_error(c->cmd, "unknown option or missing value "
					 "(try --help)");
		if ((rc = parse_one(c, opt, optarg)))
			return rc;
	}
	if (optind < argc)
		return cli_error(c->cmd, "unexpected argument '%s' (try --help)",
				 argv[optind]);
	if (!c->map_types[0])
		return cli_error(c->cmd, "no default design built");
	uint64_t keys = workload_key_count(&c->w, c->threads[c->n_threads - 1]);
	for (unsigned t = 0; t < c->n_threads; t++)
		if (workload_key_count(&c->w, c->threads[t]) > keys)
			keys = workload_key_count(&c->w, c->threads[t]);
	if (c->w.key_size < 4 && keys > (1ULL << (8 * c->w.key_size)))
		return cli_error(c->cmd, "%llu distinct keys (entries and each "
				 "thread's pool of %d) do not fit in %u-byte keys",
				 (unsigned long long)keys, WORKLOAD_POOL,
				 c->w.key_size);
	return check_designs_accept(c);
}
