/* SPDX-License-Identifier: MIT */
/*
 * sim_plan.c: what `maplab sim` runs (sim_plan.h): --policy's words (the
 * registry's LRU hash designs without case, opt, the kernel's two, all,
 * and libCacheSim's names as aliases, an unknown word answered with the
 * nearest) and --sizes' (entries, fractions of the distinct keys,
 * cachesim's auto; a size in bytes refused with what a map counts).
 */
#include "cli/sim/sim_plan.h"
#include "cli/cli.h"
#include "harness/common/parse.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* --- sizes ----------------------------------------------------------------------------- */

struct size_list {
	uint32_t *out;
	unsigned n;
	uint32_t distinct;
	int rc;
};

/*
 * --sizes auto (or 0, as cachesim writes it): cachesim's fractions of the
 * working set (set_cache_size in libCacheSim/bin/cachesim/cli_parser.c),
 * here of the distinct keys, rounded as sim's fractions are; sizes under
 * SIM_AUTO_MIN_ENTRIES, and repeats after rounding, are dropped.
 */
static const double sim_auto_fractions[] = { 0.001, 0.003, 0.01, 0.03,
					     0.1, 0.2, 0.4, 0.8 };
#define N_SIM_AUTO_FRACTIONS \
	(sizeof(sim_auto_fractions) / sizeof(sim_auto_fractions[0]))
#define SIM_AUTO_MIN_ENTRIES 10

static bool sizes_are_auto(const char *text)
{
	return strcasecmp(text, "auto") == 0 || strcmp(text, "0") == 0;
}

/* Fractions of distinct into out (at most N_SIM_AUTO_FRACTIONS); a line
 * for the report into note.  0, or EXIT_USAGE when none is left. */
static int auto_sizes(uint32_t distinct, uint32_t *out, unsigned *n,
		      char *note, size_t notelen)
{
	char kept[256] = "", fractions[128] = "", dropped[128] = "";
	size_t lk = 0, lf = 0, ld = 0;
	*n = 0;
	for (size_t i = 0; i < N_SIM_AUTO_FRACTIONS; i++) {
		double f = sim_auto_fractions[i];
		uint32_t e = (uint32_t)(f * distinct + 0.5);
		if (e < SIM_AUTO_MIN_ENTRIES || (*n && out[*n - 1] == e)) {
			ld += snprintf(dropped + ld, sizeof(dropped) - ld, "%s%g",
				       ld ? "," : "", f);
			continue;
		}
		out[(*n)++] = e;
		lk += snprintf(kept + lk, sizeof(kept) - lk, "%s%u",
			       lk ? "," : "", e);
		lf += snprintf(fractions + lf, sizeof(fractions) - lf, "%s%g",
			       lf ? "," : "", f);
	}
	if (*n == 0)
		return cli_error("sim", "--sizes auto: the trace's %u distinct "
				 "keys are too few: every auto size (0.001 to "
				 "0.8 of them) is under %d entries; give "
				 "entries", distinct, SIM_AUTO_MIN_ENTRIES);
	snprintf(note, notelen, "sizes auto: %s entries, cachesim's fractions "
		 "%s of the %u distinct keys%s%s%s", kept, fractions, distinct,
		 ld ? " (" : "", dropped, ld ? " dropped: under 10 entries "
		 "or a repeat)" : "");
	return 0;
}

/* cachesim's sizes are bytes with a unit (100MB, 1GiB, 10KB, 4k): true
 * for a number followed by one of those units, in any case. */
static bool size_has_unit(const char *word)
{
	static const char *const units[] = { "b", "k", "kb", "kib", "m", "mb",
					     "mib", "g", "gb", "gib", "t", "tb",
					     "tib" };
	const char *p = word;
	while (isdigit((unsigned char)*p) || *p == '.')
		p++;
	if (p == word || !*p)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(p, units[i]) == 0)
			return true;
	return false;
}

static int add_size(const char *word, void *ctx)
{
	struct size_list *l = ctx;
	char shown[80];
	uint64_t n;
	double f;
	if (l->n == SIM_MAX_SIZES) {
		l->rc = cli_error("sim", "at most %d sizes", SIM_MAX_SIZES);
		return -1;
	}
	if (size_has_unit(word)) {
		l->rc = cli_error("sim", "--sizes: '%s' is bytes, as cachesim "
				  "counts, but a BPF map counts entries "
				  "(max_entries), whatever their size: give "
				  "entries (10000), fractions of the distinct "
				  "keys (0.01,0.1) or auto",
				  parse_printable(word, shown, sizeof(shown)));
		return -1;
	}
	if (sizes_are_auto(word)) {
		l->rc = cli_error("sim", "--sizes: %s stands alone (cachesim's "
				  "auto sizes), not in a list", strcmp(word, "0")
				  ? "auto" : "0");
		return -1;
	}
	if (strchr(word, '.')) {
		if (parse_decimal(word, 0, 1e9, &f) || f <= 0) {
			l->rc = cli_error("sim", "--sizes: '%s' is not a fraction "
					  "above 0", parse_printable(word, shown,
								     sizeof(shown)));
			return -1;
		}
		double e = f * l->distinct + 0.5;
		n = e < 1 ? 1 : e > (double)(1ULL << 31) ? 1ULL << 31
							  : (uint64_t)e;
	} else if (parse_u64(word, 1, 1ULL << 31, &n)) {
		l->rc = cli_error("sim", "--sizes wants entries (1 to 2^31) or "
				  "fractions like 0.01, got '%s'",
				  parse_printable(word, shown, sizeof(shown)));
		return -1;
	}
	l->out[l->n++] = (uint32_t)n;
	return 0;
}

/* --- policies -------------------------------------------------------------------------- */

/*
 * libCacheSim's names for the policies whose design here is the same
 * policy (cachesim's create_cache, libCacheSim/bin/cachesim/cache_init.h),
 * compared without case, as cachesim does; docs/sim.md, "cachesim's
 * conventions", has this table.  Names with no design of the same policy
 * here (arc, lfu, twoq, lirs, tinylfu, ...) are not aliases: they get the
 * nearest name, as any unknown word does.
 */
static const struct {
	const char *alias, *policy;
} sim_aliases[] = {
	{ "lru", "lru/global" },
	{ "fifo", "lru/fifo" },
	{ "clock", "lru/clock" },
	{ "fifo-reinsertion", "lru/clock" },
	{ "second-chance", "lru/clock" },
	{ "sieve", "lru/sieve" },
	{ "s3fifo", "lru/s3fifo" },
	{ "s3-fifo", "lru/s3fifo" },
	{ "belady", "opt" },
	{ "optimal", "opt" },
};
#define N_SIM_ALIASES (sizeof(sim_aliases) / sizeof(sim_aliases[0]))

/* sim's own words beside the registry's designs. */
static const char *const sim_words[] = { "opt", "kernel",
					 "kernel:no_common_lru", "all" };
#define N_SIM_WORDS (sizeof(sim_words) / sizeof(sim_words[0]))

/* Levenshtein distance between a and b, without case; words are short
 * (parse_list's are under 256 bytes), so one row of 256 will do. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[256], nb = (unsigned)strlen(b);
	if (nb >= 256)
		nb = 255;
	for (unsigned j = 0; j <= nb; j++)
		row[j] = j;
	for (unsigned i = 1; a[i - 1]; i++) {
		unsigned diag = row[0];
		row[0] = i;
		for (unsigned j = 1; j <= nb; j++) {
			unsigned up = row[j];
			unsigned same = tolower((unsigned char)a[i - 1]) ==
					tolower((unsigned char)b[j - 1]);
			unsigned best = diag + !same;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (up + 1 < best)
				best = up + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb];
}

static void consider(const char *word, const char *name, const char **best,
		     unsigned *best_d)
{
	unsigned d = edit_distance(word, name);
	if (d < *best_d) {
		*best = name;
		*best_d = d;
	}
}

/* The name or alias nearest to word, into out: for "did you mean".  An
 * alias comes with its policy: "lru (lru/global)". */
static const char *nearest_policy(const char *word, char *out, size_t len)
{
	const char *best = NULL;
	unsigned best_d = ~0u;
	for (size_t i = 0; map_registry[i]; i++)
		if (map_registry[i]->type == MAP_TYPE_LRU_HASH)
			consider(word, map_registry[i]->name, &best, &best_d);
	for (size_t i = 0; i < N_SIM_WORDS; i++)
		consider(word, sim_words[i], &best, &best_d);
	snprintf(out, len, "%s", best);
	for (size_t i = 0; i < N_SIM_ALIASES; i++) {
		const char *before = best;
		consider(word, sim_aliases[i].alias, &best, &best_d);
		if (best != before)
			snprintf(out, len, "%s (%s)", best,
				 sim_aliases[i].policy);
	}
	return out;
}

/* A registry design by its name, without case (map_find's is exact). */
static const struct map_ops *find_design(const char *name)
{
	for (size_t i = 0; map_registry[i]; i++)
		if (strcasecmp(map_registry[i]->name, name) == 0)
			return map_registry[i];
	return NULL;
}

struct policy_list {
	struct sim_policy *out;
	unsigned n;
	bool kernel_ok;
	char kernel_why[256];
	/* "lru = lru/global, fifo = lru/fifo": each alias used, once. */
	char aliases_used[256];
	int rc;
};

/* Word, if it is an alias, becomes its policy, said once in l's note. */
static const char *resolve_alias(struct policy_list *l, const char *word)
{
	for (size_t i = 0; i < N_SIM_ALIASES; i++) {
		if (strcasecmp(word, sim_aliases[i].alias) != 0)
			continue;
		char said[64];
		snprintf(said, sizeof(said), "%s = %s", sim_aliases[i].alias,
			 sim_aliases[i].policy);
		if (!strstr(l->aliases_used, said)) {
			size_t n = strlen(l->aliases_used);
			snprintf(l->aliases_used + n, sizeof(l->aliases_used) - n,
				 "%s%s", n ? ", " : "", said);
		}
		return sim_aliases[i].policy;
	}
	return word;
}

static int push_policy(struct policy_list *l, const char *name,
		       enum sim_engine e, const struct map_ops *d,
		       uint32_t kflags)
{
	if (l->n == SIM_MAX_POLICIES) {
		l->rc = cli_error("sim", "at most %d policies", SIM_MAX_POLICIES);
		return -1;
	}
	struct sim_policy *p = &l->out[l->n++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->engine = e;
	p->design = d;
	p->kernel_flags = kflags;
	return 0;
}

static int add_policy(const char *word, void *ctx)
{
	struct policy_list *l = ctx;
	char shown[80];
	word = resolve_alias(l, word);
	if (strcasecmp(word, "all") == 0) {
		for (size_t i = 0; map_registry[i]; i++)
			if (map_registry[i]->type == MAP_TYPE_LRU_HASH &&
			    push_policy(l, map_registry[i]->name, SIM_ENGINE_MAP,
					map_registry[i], 0))
				return -1;
		if (push_policy(l, "opt", SIM_ENGINE_OPT, NULL, 0))
			return -1;
		if (!l->kernel_ok) {
			fprintf(stderr, "maplab sim: note: all without the "
				"kernel's LRU: %s\n", l->kernel_why);
			return 0;
		}
		return push_policy(l, "kernel", SIM_ENGINE_KERNEL, NULL, 0) ||
		       push_policy(l, "kernel:no_common_lru", SIM_ENGINE_KERNEL,
				   NULL, MAP_F_NO_COMMON_LRU);
	}
	if (strcasecmp(word, "opt") == 0)
		return push_policy(l, "opt", SIM_ENGINE_OPT, NULL, 0);
	if (strcasecmp(word, "kernel") == 0 ||
	    strcasecmp(word, "kernel:no_common_lru") == 0) {
		const char *name = strchr(word, ':') ? "kernel:no_common_lru"
						     : "kernel";
		if (!l->kernel_ok) {
			l->rc = cli_error("sim", "%s: %s", name, l->kernel_why);
			return -1;
		}
		return push_policy(l, name, SIM_ENGINE_KERNEL, NULL,
				   strchr(word, ':') ? MAP_F_NO_COMMON_LRU : 0);
	}
	const struct map_ops *d = find_design(word);
	if (!d) {
		char near[80];
		l->rc = cli_error("sim", "--policy: '%s' is no policy; did you "
				  "mean %s? (LRU hash designs: maplab list; "
				  "libCacheSim's names: docs/sim.md)",
				  parse_printable(word, shown, sizeof(shown)),
				  nearest_policy(word, near, sizeof(near)));
		return -1;
	}
	if (d->type != MAP_TYPE_LRU_HASH) {
		l->rc = cli_error("sim", "--policy: '%s' is not an LRU hash "
				  "design (maplab list; or opt, kernel, "
				  "kernel:no_common_lru, all)",
				  parse_printable(word, shown, sizeof(shown)));
		return -1;
	}
	return push_policy(l, d->name, SIM_ENGINE_MAP, d, 0);
}

static bool policies_need_kernel(const char *text)
{
	return strcasestr(text, "kernel") || strcasestr(text, "all");
}

/* --- the plan ------------------------------------------------------------------------- */

int sim_plan_policies(struct sim_plan *p, const char *text)
{
	struct policy_list pl = { .out = p->policies };
	char shown[80];
	if (policies_need_kernel(text))
		pl.kernel_ok = sim_kernel_available(pl.kernel_why,
						    sizeof(pl.kernel_why));
	if (parse_list(text, add_policy, &pl))
		return pl.rc ? pl.rc : cli_error("sim", "--policy wants names "
			"separated by commas, got '%s'", parse_printable(
			text, shown, sizeof(shown)));
	p->n_policies = pl.n;
	snprintf(p->aliases_used, sizeof(p->aliases_used), "%s",
		 pl.aliases_used);
	return 0;
}

int sim_plan_sizes(struct sim_plan *p, const char *text, uint32_t distinct)
{
	struct size_list sl = { .out = p->sizes, .distinct = distinct };
	char shown[80];
	int rc;
	p->sizes_note[0] = '\0';
	if (sizes_are_auto(text)) {
		if ((rc = auto_sizes(distinct, p->sizes, &sl.n, p->sizes_note,
				     sizeof(p->sizes_note))))
			return rc;
	} else if (parse_list(text, add_size, &sl)) {
		return sl.rc ? sl.rc : cli_error("sim", "--sizes wants sizes "
			"separated by commas, got '%s'", parse_printable(
			text, shown, sizeof(shown)));
	}
	p->n_sizes = sl.n;
	return 0;
}
