/* SPDX-License-Identifier: MIT */
/*
 * trace_cmd.c: what replay, validate, gentrace and dump share
 * (trace_cmd.h): their options, reading a trace or generating one, and
 * the side --map names.
 */
#include "cli/trace/trace_cmd.h"
#include "cli/cli.h"
#include "harness/common/parse.h"
#include "kernel-compare/kmap.h"
#include "kernel-compare/vm/vm.h"
#include "maps/base/cpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct opt_spec opt_random = { OPT_RANDOM, "random", TAKES_NOTHING, 0, 0,
	0, 0, NULL, "a random trace instead (the options below shape it)" };
const struct opt_spec opt_echo = { OPT_ECHO, "echo", TAKES_NOTHING, 0, 0, 0, 0,
	NULL, "print each trace line, as a comment, above its results" };
const struct opt_spec opt_max_diffs = { OPT_MAX_DIFFS, "max-diffs",
	TAKES_NUMBER, 1, 1000000, 0, 0, "N", "differences to show" };

const struct opt_spec opt_cpus = { OPT_CPUS, "cpus", TAKES_TEXT, 0, 0, 0, 0,
	"N|LIST", "the cpus a random trace moves between" };
const struct opt_spec opt_seeds = { OPT_SEEDS, "seeds", TAKES_TEXT, 0, 0, 0, 0,
	"A-B", "a random trace for each seed from A to B" };

/* --seeds A-B (or one seed, A): a random trace each. */
static int apply_seeds(struct trace_cmd *c, const char *text)
{
	char a[32], shown[64];
	const char *dash = strchr(text, '-');
	size_t n = dash ? (size_t)(dash - text) : strlen(text);
	snprintf(a, sizeof(a), "%.*s", (int)(n < sizeof(a) ? n : sizeof(a) - 1),
		 text);
	if (parse_u64(a, 0, UINT64_MAX, &c->seed_first) ||
	    parse_u64(dash ? dash + 1 : a, c->seed_first, UINT64_MAX,
		      &c->seed_last) ||
	    c->seed_last - c->seed_first >= TRACE_MAX_SEEDS)
		return cli_error(c->cmd, "--seeds wants a seed or a range A-B "
				 "of at most %d seeds, got '%s'", TRACE_MAX_SEEDS,
				 parse_printable(text, shown, sizeof(shown)));
	c->seeds_given = c->random = true;
	return 0;
}

struct cpu_list {
	struct tracegen_opts *gen;
	const char *cmd;
	int rc;
};

/* One cpu id of --cpus into the list, once. */
static int add_cpu(struct cpu_list *l, uint64_t cpu)
{
	struct tracegen_opts *g = l->gen;
	for (unsigned i = 0; i < g->n_cpus; i++)
		if (g->cpus[i] == cpu)
			return 0;
	if (g->n_cpus == TRACEGEN_MAX_CPUS) {
		l->rc = cli_error(l->cmd, "--cpus: at most %d cpus",
				  TRACEGEN_MAX_CPUS);
		return -1;
	}
	g->cpus[g->n_cpus++] = (uint16_t)cpu;
	return 0;
}

/* A word of a --cpus list: an id, or a range "A-B". */
static int add_cpu_word(const char *word, void *ctx)
{
	struct cpu_list *l = ctx;
	char a[32], shown[64];
	const char *dash = strchr(word, '-');
	uint64_t lo, hi;
	size_t n = dash ? (size_t)(dash - word) : strlen(word);
	if (n >= sizeof(a))
		n = sizeof(a) - 1;
	memcpy(a, word, n);
	a[n] = '\0';
	if (parse_u64(a, 0, MAP_MAX_CPUS - 1, &lo) ||
	    parse_u64(dash ? dash + 1 : a, lo, MAP_MAX_CPUS - 1, &hi)) {
		l->rc = cli_error(l->cmd, "--cpus: '%s' is not a cpu id (0 to "
				  "%d) or a range of them (0-3)",
				  parse_printable(word, shown, sizeof(shown)),
				  MAP_MAX_CPUS - 1);
		return -1;
	}
	for (uint64_t c = lo; c <= hi; c++)
		if (add_cpu(l, c))
			return -1;
	return 0;
}

/* --cpus N (cpus 0 to N-1) or a list (with a comma or a dash). */
static int apply_cpus(struct trace_cmd *c, const char *text)
{
	struct cpu_list l = { .gen = &c->gen, .cmd = c->cmd };
	char shown[64];
	uint64_t n;
	c->gen.n_cpus = 0;
	if (!strpbrk(text, ",-")) {
		if (parse_u64(text, 1, TRACEGEN_MAX_CPUS, &n))
			return cli_error(c->cmd, "--cpus wants a count (1 to %d) "
					 "or a list of cpus (0,1 or 0-3), got "
					 "'%s'", TRACEGEN_MAX_CPUS,
					 parse_printable(text, shown,
							 sizeof(shown)));
		for (uint64_t i = 0; i < n; i++)
			add_cpu(&l, i);
		return 0;
	}
	if (parse_list(text, add_cpu_word, &l))
		return l.rc ? l.rc : cli_error(c->cmd, "--cpus wants cpus "
			"separated by commas, got '%s'",
			parse_printable(text, shown, sizeof(shown)));
	return 0;
}

/* Replay and validate run the trace here: each cpu must be one this
 * process may run on, as a `cpu N` line's must; with --kernel, one of the
 * VM's.  gentrace writes a trace that may be for another machine. */
static int check_cpus_allowed(const struct trace_cmd *c)
{
	char allowed[128];
	if (strcmp(c->cmd, "gentrace") == 0)
		return 0;
	for (unsigned i = 0; i < c->gen.n_cpus; i++) {
		if (c->kernel && c->gen.cpus[i] >= c->vm_cpus)
			return cli_error(c->cmd, "--cpus: cpu %u is past the "
					 "VM's %u vCPUs (--vm-cpus)",
					 c->gen.cpus[i], c->vm_cpus);
		if (c->kernel || map_cpu_is_allowed(c->gen.cpus[i]))
			continue;
		map_cpu_allowed_text(allowed, sizeof(allowed));
		return cli_error(c->cmd, "--cpus: cpu %u is not one this process "
				 "may run on (allowed: %s)", c->gen.cpus[i],
				 allowed);
	}
	return 0;
}

static int apply_trace_option(void *ctx, enum opt_id id,
			      const struct opt_value *v)
{
	struct trace_cmd *c = ctx;
	struct map_attr *a = &c->gen.attr;

	switch (id) {
	case OPT_MAP: c->map = v->text; return 0;
	case OPT_TRACE: c->file = v->text; return 0;
	case OPT_RANDOM: c->random = true; return 0;
	case OPT_ECHO: c->echo = true; return 0;
	case OPT_VERBOSE: c->verbose = true; return 0;
	case OPT_MAX_DIFFS: c->max_diffs = (unsigned)v->u; return 0;
	case OPT_TYPE: return opts_map_type(c->cmd, v->text, &a->type);
	case OPT_ENTRIES: a->max_entries = (uint32_t)v->u; return 0;
	case OPT_KEY_SIZE:
		a->key_size = (uint32_t)v->u;
		c->key_size_given = true;
		return 0;
	case OPT_VALUE_SIZE: a->value_size = (uint32_t)v->u; return 0;
	case OPT_FLAGS:
		c->flags_given = true;
		return cli_apply_flags(c->cmd, v->text, &a->flags);
	case OPT_OPS: c->gen.ops = v->u; return 0;
	case OPT_SEED: c->gen.seed = v->u; return 0;
	case OPT_CPUS: return apply_cpus(c, v->text);
	case OPT_SEEDS: return apply_seeds(c, v->text);
	case OPT_KERNEL: c->kernel = v->text; return 0;
	case OPT_VM_CPUS: c->vm_cpus = (unsigned)v->u; return 0;
	case OPT_MODEL: return opts_model(c->cmd, v->text, &c->model);
	default: return cli_error(c->cmd, "option not handled here (a bug)");
	}
}

/* 0 to go on, 1 for --help given, EXIT_USAGE for bad usage. */
int trace_cmd_parse(struct trace_cmd *c, int argc, char **argv,
		    const struct cmd_option *opts, size_t n, const char *usage)
{
	struct map_attr def = { .type = MAP_TYPE_HASH,
				.key_size = TRACE_DEFAULT_KEY_SIZE,
				.value_size = TRACE_DEFAULT_VALUE_SIZE,
				.max_entries = TRACE_DEFAULT_ENTRIES,
				.flags = MAP_F_ZERO_SEED };
	c->gen.attr = def;
	c->gen.ops = TRACE_DEFAULT_OPS;
	c->gen.seed = TRACE_DEFAULT_SEED;
	c->max_diffs = TRACE_DEFAULT_MAX_DIFFS;
	unsigned here = map_cpu_allowed_count();
	c->vm_cpus = here < VM_MAX_CPUS ? here : VM_MAX_CPUS;
	int rc = opts_parse(c->cmd, argc, argv, opts, n, apply_trace_option, c,
			    usage, NULL);
	/* An LPM trie takes a prefix length before its data, and must be
	 * made with BPF_F_NO_PREALLOC: defaults it can be made with. */
	if (rc == 0 && c->gen.attr.type == MAP_TYPE_LPM_TRIE) {
		if (!c->key_size_given)
			c->gen.attr.key_size = TRACE_DEFAULT_LPM_KEY_SIZE;
		if (!c->flags_given)
			c->gen.attr.flags = MAP_F_NO_PREALLOC;
	}
	return rc ? rc : check_cpus_allowed(c);
}

const char *cli_trace_name(const char *file, char *buf, size_t len)
{
	if (!file)
		snprintf(buf, len, "random");
	else if (strcmp(file, "-") == 0)
		snprintf(buf, len, "stdin");
	else
		parse_printable(file, buf, len);
	return buf;
}

int cli_read_trace(const char *cmd, const char *file, struct trace *t)
{
	char err[512], name[CLI_TRACE_NAME_LEN];
	int rc;
	cli_trace_name(file, name, sizeof(name));
	if (strcmp(file, "-") == 0) {
		rc = trace_parse(stdin, name, t, err, sizeof(err));
	} else {
		FILE *f = fopen(file, "r");
		if (!f)
			return cli_error(cmd, "cannot open %s: %s", name,
					 map_errno_text(errno));
		rc = trace_parse(f, name, t, err, sizeof(err));
		fclose(f);
	}
	return rc ? cli_error(cmd, "%s", err) : 0;
}

/*
 * A --random trace is generated whole as text, then parsed whole, before
 * the replay starts (as a file is: a malformed line stops it before any
 * result).  Per operation it holds at most an update's text ("update KEY
 * VALUE noexist\n", two digits a byte) and its parsed line (struct
 * trace_line, the key and value, two allocations' overhead); an LPM
 * trace's model of its prefixes stays below another key and value.
 * 0, or EXIT_USAGE after one line where that would pass
 * TRACE_RANDOM_MEMORY.
 */
int trace_cmd_random_fits(const struct trace_cmd *c)
{
	const struct map_attr *a = &c->gen.attr;
	uint64_t kv = (uint64_t)a->key_size + a->value_size;
	uint64_t per_op = 2 * kv + 16 + sizeof(struct trace_line) + kv + 32 + kv;
	uint64_t most = TRACE_RANDOM_MEMORY / per_op;
	if (c->gen.ops <= most)
		return 0;
	double gib = (double)c->gen.ops * (double)per_op / (1ULL << 30);
	return cli_error(c->cmd, "--random holds the whole trace in memory: "
			 "%llu operations of %u-byte keys and %u-byte values "
			 "would take about %.*f GiB, more than %llu GiB: --ops "
			 "%llu at most here (or several --seed runs)",
			 (unsigned long long)c->gen.ops, a->key_size,
			 a->value_size, gib < 10 ? 2 : 0, gib,
			 (unsigned long long)(TRACE_RANDOM_MEMORY >> 30),
			 (unsigned long long)most);
}

/* Parse --trace FILE, or generate with --random.  0 or EXIT_USAGE. */
int trace_cmd_load(struct trace_cmd *c, struct trace *t)
{
	char err[512];

	if (!c->file == !c->random)
		return cli_error(c->cmd, "give exactly one of --trace FILE and "
				 "--random (try --help)");
	if (!c->random)
		return cli_read_trace(c->cmd, c->file, t);
	int rc = trace_cmd_random_fits(c);
	if (rc)
		return rc;
	char *text = tracegen_string(&c->gen);
	if (!text)
		return cli_error(c->cmd, "out of memory");
	rc = trace_parse_string(text, "random", t, err, sizeof(err));
	free(text);
	return rc ? cli_error(c->cmd, "%s", err) : 0;
}

struct replay_side trace_cmd_kernel_side(void)
{
	return replay_fixed_side("kernel", &kmap_ops, kmap_prog_lookup);
}

int trace_cmd_kernel_ready(const struct trace_cmd *c)
{
	char why[256];
	if (kmap_available(why, sizeof(why)) != 0) {
		fprintf(stderr, "maplab %s: the kernel side is not available "
			"here: %s\n", c->cmd, why);
		return EXIT_USAGE;
	}
	kmap_set_verbose(c->verbose);
	return 0;
}

int trace_cmd_pick_side(struct trace_cmd *c, bool allow_kernel,
			struct replay_side *side)
{
	if (c->map && strcmp(c->map, "kernel") == 0) {
		if (!allow_kernel)
			return cli_error(c->cmd, "--map names the design to "
				"compare with the kernel, not `kernel`");
		*side = trace_cmd_kernel_side();
		return trace_cmd_kernel_ready(c);
	}
	const struct map_ops *design = NULL;
	if (c->map && !(design = map_find(c->map)))
		return opts_no_design(c->cmd, c->map, "");
	*side = replay_user_side(design);
	side->model = c->model;
	return 0;
}
