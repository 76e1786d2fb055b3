/* SPDX-License-Identifier: MIT */
/*
 * simgen.c: generated cache traces (the specs simtrace.h lists).  Every
 * generator is deterministic for its parameters (seed included), so a
 * generated trace is as reproducible as a file.
 *
 *   zipf    rank r (0-based) drawn with probability ~ 1/(r+1)^alpha over
 *           `keys` keys; the id is the rank
 *   loop    0, 1, ..., keys-1, 0, 1, ...: a loop larger than a cache is
 *           LRU's worst case (every request misses)
 *   scan    start, start+1, ...: every request a new key (pollution)
 *   hotset  share % of the requests on a hot set of `hot` keys, the rest
 *           uniform over `keys`; every `shift` requests the hot set moves
 *           to the next `hot` keys (wrapping), so a cache must follow it
 *   mix     parts joined by '+', each drawn in turn with probability
 *           proportional to its requests left (a fixed seed, 1), part i's
 *           ids offset by i << 48 so parts share no key (and no sizes)
 * Every generator but mix takes size=S: object sizes 1..S, each id's
 * fixed (a hash of the id), for the byte miss ratio.
 */
#include "harness/sim/simtrace.h"
#include "harness/common/parse.h"
#include "harness/common/rng.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REQUESTS (1ULL << 32)
#define MAX_KEYS (1ULL << 32)
#define MAX_PARTS 8

struct gen_params {
	const char *kind;
	double alpha;
	uint64_t keys, requests, seed, start, hot, share, shift;
	uint64_t size; /* object sizes 1..size, fixed per id; 0: none */
};

struct param_ctx {
	struct gen_params *p;
	char *err;
	size_t errlen;
};

static int set_param(const char *word, void *ctx)
{
	struct param_ctx *c = ctx;
	struct gen_params *p = c->p;
	char shown[80];
	const char *eq = strchr(word, '=');
	size_t n = eq ? (size_t)(eq - word) : 0;
	const char *v = eq ? eq + 1 : "";
	int bad = !eq;

#define IS(name) (n == strlen(name) && strncmp(word, name, n) == 0)
	if (bad)
		;
	else if (IS("alpha"))
		bad = parse_decimal(v, 0, 10, &p->alpha);
	else if (IS("keys"))
		bad = parse_u64(v, 1, MAX_KEYS, &p->keys);
	else if (IS("requests"))
		bad = parse_u64(v, 1, MAX_REQUESTS, &p->requests);
	else if (IS("seed"))
		bad = parse_u64(v, 0, UINT64_MAX, &p->seed);
	else if (IS("start"))
		bad = parse_u64(v, 0, 1ULL << 47, &p->start);
	else if (IS("hot"))
		bad = parse_u64(v, 1, MAX_KEYS, &p->hot);
	else if (IS("share"))
		bad = parse_u64(v, 0, 100, &p->share);
	else if (IS("shift"))
		bad = parse_u64(v, 1, MAX_REQUESTS, &p->shift);
	else if (IS("size"))
		bad = parse_u64(v, 1, UINT32_MAX, &p->size);
	else
		bad = 2;
#undef IS
	if (bad == 2) {
		char name[80];
		snprintf(name, sizeof(name), "%.*s", (int)n, word);
		snprintf(c->err, c->errlen, "%s: no parameter '%s' (docs/sim.md "
			 "lists each generator's)", p->kind,
			 parse_printable(name, shown, sizeof(shown)));
	}
	else if (bad)
		snprintf(c->err, c->errlen, "%s: bad parameter '%s' (name=number)",
			 p->kind, parse_printable(word, shown, sizeof(shown)));
	return bad ? -1 : 0;
}

static int parse_params(const char *kind, const char *text,
			struct gen_params *p, char *err, size_t errlen)
{
	struct param_ctx c = { p, err, errlen };
	*p = (struct gen_params){ .kind = kind, .alpha = 0.99, .keys = 10000,
				  .requests = 100000, .seed = 1, .hot = 100,
				  .share = 90, .shift = 10000 };
	err[0] = '\0';
	if (*text && parse_list(text, set_param, &c)) {
		char shown[80];
		if (!err[0])
			snprintf(err, errlen, "%s: empty parameter in '%s'", kind,
				 parse_printable(text, shown, sizeof(shown)));
		return -EINVAL;
	}
	if (!strcmp(kind, "hotset") && p->hot > p->keys) {
		snprintf(err, errlen, "hotset: hot=%llu is more than keys=%llu",
			 (unsigned long long)p->hot, (unsigned long long)p->keys);
		return -EINVAL;
	}
	return 0;
}

/* --- the generators: fill ids[0..p->requests) ------------------------------- */

static int gen_zipf(const struct gen_params *p, uint64_t *ids)
{
	double *cdf = malloc(p->keys * sizeof(*cdf));
	double sum = 0, acc = 0;
	struct rng r;
	if (!cdf)
		return -ENOMEM;
	for (uint64_t k = 0; k < p->keys; k++)
		sum += pow((double)(k + 1), -p->alpha);
	for (uint64_t k = 0; k < p->keys; k++) {
		acc += pow((double)(k + 1), -p->alpha) / sum;
		cdf[k] = acc;
	}
	rng_seed(&r, p->seed);
	for (uint64_t i = 0; i < p->requests; i++) {
		double u = (double)(rng_next(&r) >> 11) * 0x1p-53;
		uint64_t lo = 0, hi = p->keys - 1;
		while (lo < hi) { /* the first rank whose cdf reaches u */
			uint64_t mid = lo + (hi - lo) / 2;
			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		ids[i] = lo;
	}
	free(cdf);
	return 0;
}

static int gen_loop(const struct gen_params *p, uint64_t *ids)
{
	for (uint64_t i = 0; i < p->requests; i++)
		ids[i] = i % p->keys;
	return 0;
}

static int gen_scan(const struct gen_params *p, uint64_t *ids)
{
	for (uint64_t i = 0; i < p->requests; i++)
		ids[i] = p->start + i;
	return 0;
}

static int gen_hotset(const struct gen_params *p, uint64_t *ids)
{
	struct rng r;
	rng_seed(&r, p->seed);
	for (uint64_t i = 0; i < p->requests; i++) {
		uint64_t base = (i / p->shift) * p->hot;
		if (rng_below(&r, 100) < p->share)
			ids[i] = (base + rng_below(&r, p->hot)) % p->keys;
		else
			ids[i] = rng_below(&r, p->keys);
	}
	return 0;
}

/* Object sizes, where asked: 1..size, a function of the id alone. */
static int gen_sizes(const struct gen_params *p, const uint64_t *ids,
		     uint32_t **sizes)
{
	if (!p->size || !sizes)
		return 0;
	*sizes = malloc(p->requests * sizeof(**sizes));
	if (!*sizes)
		return -ENOMEM;
	for (uint64_t i = 0; i < p->requests; i++)
		(*sizes)[i] = (uint32_t)(1 + rng_mix64(ids[i] ^ 0xa5a5) % p->size);
	return 0;
}

static int gen_one(const char *spec, uint64_t **ids, uint32_t **sizes,
		   uint64_t *n, char *err, size_t errlen)
{
	static const struct {
		const char *kind;
		int (*fn)(const struct gen_params *, uint64_t *);
	} kinds[] = {
		{ "zipf", gen_zipf }, { "loop", gen_loop },
		{ "scan", gen_scan }, { "hotset", gen_hotset },
	};
	char shown[80];
	size_t klen = strcspn(spec, ":");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct gen_params p;
		if (strlen(kinds[k].kind) != klen ||
		    strncmp(spec, kinds[k].kind, klen))
			continue;
		int rc = parse_params(kinds[k].kind,
				      spec[klen] ? spec + klen + 1 : "", &p, err,
				      errlen);
		if (rc)
			return rc;
		*ids = malloc(p.requests * sizeof(**ids));
		if (!*ids || kinds[k].fn(&p, *ids) || gen_sizes(&p, *ids, sizes)) {
			free(*ids);
			*ids = NULL;
			snprintf(err, errlen, "%s: out of memory", kinds[k].kind);
			return -ENOMEM;
		}
		*n = p.requests;
		return 0;
	}
	char kind[80];
	snprintf(kind, sizeof(kind), "%.*s", (int)klen, spec);
	snprintf(err, errlen, "no trace generator '%s' (zipf, loop, scan, "
		 "hotset, mix)", parse_printable(kind, shown, sizeof(shown)));
	return -EINVAL;
}

/* mix: the parts, then a random interleaving by requests left. */
static int gen_mix(const char *text, struct sim_trace *t, char *err,
		   size_t errlen)
{
	uint64_t *part[MAX_PARTS] = { 0 }, len[MAX_PARTS] = { 0 },
		 at[MAX_PARTS] = { 0 }, total = 0;
	unsigned n = 0;
	int rc = 0;
	char buf[1024];
	struct rng r;

	snprintf(buf, sizeof(buf), "%s", text);
	for (char *save = NULL, *s = strtok_r(buf, "+", &save); s && !rc;
	     s = strtok_r(NULL, "+", &save)) {
		if (n == MAX_PARTS) {
			snprintf(err, errlen, "mix: at most %d parts", MAX_PARTS);
			rc = -EINVAL;
			break;
		}
		rc = gen_one(s, &part[n], NULL, &len[n], err, errlen);
		total += len[n++];
	}
	if (!rc && n == 0) {
		snprintf(err, errlen, "mix: no parts (mix:PART+PART...)");
		rc = -EINVAL;
	}
	if (!rc && !(t->ids = malloc(total * sizeof(*t->ids)))) {
		snprintf(err, errlen, "mix: out of memory");
		rc = -ENOMEM;
	}
	rng_seed(&r, 1);
	for (uint64_t i = 0; !rc && i < total; i++) {
		uint64_t pick = rng_below(&r, total - i);
		unsigned k = 0;
		while (pick >= len[k] - at[k]) {
			pick -= len[k] - at[k];
			k++;
		}
		t->ids[i] = part[k][at[k]++] + ((uint64_t)k << 48);
	}
	if (!rc)
		t->n = total;
	for (unsigned k = 0; k < n; k++)
		free(part[k]);
	return rc;
}

bool sim_trace_is_generator(const char *spec)
{
	static const char *const kinds[] = { "zipf:", "loop:", "scan:",
					     "hotset:", "mix:" };
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (strncmp(spec, kinds[k], strlen(kinds[k])) == 0)
			return true;
	return false;
}

int sim_trace_generate(const char *spec, struct sim_trace *t, char *err,
		       size_t errlen)
{
	uint64_t n = 0;
	int rc;
	memset(t, 0, sizeof(*t));
	parse_printable(spec, t->name, sizeof(t->name));
	if (strncmp(spec, "mix:", 4) == 0)
		rc = gen_mix(spec + 4, t, err, errlen);
	else if ((rc = gen_one(spec, &t->ids, &t->sizes, &n, err, errlen)) == 0)
		t->n = n;
	if (rc)
		sim_trace_free(t);
	return rc;
}
