/* SPDX-License-Identifier: MIT */
/*
 * tracegen_lpm.c: random traces for an LPM trie (tracegen.h says what they
 * hold).  An LPM key is the kernel's struct bpf_lpm_trie_key_u8: a 4-byte
 * host-order prefix length, then the data, most significant bit first
 * (kernel/bpf/lpm_trie.c, extract_bit).
 *
 * Keys are prefixes of a few base addresses.  Base 0 is random; each later
 * base copies an earlier one, flips one bit (half the time in the last
 * quarter of the bits, else anywhere) and draws the bits after it anew, so
 * the bases share prefixes of every length with their relatives:
 *
 *      base 0   1100 1010 0111 0010 ...
 *      base 1   1100 1010 1001 1101 ...   base 0, bit 8 flipped
 *      base 2   1100 1010 0111 0111 ...   base 0, bit 13 flipped
 *
 * The key space is key_space distinct prefixes (length, data masked to the
 * length) cut from the bases, lengths weighted to the long end as in a
 * routing table: a prefix of base 0 nests in a shorter one of base 2 and
 * diverges from one of base 1, which is how a trie gets real nodes above
 * others and intermediate nodes.
 *
 * The generator keeps a model of the map: the set of prefixes it holds,
 * moved by every update and delete as the kernel (6.13+) answers them.  An
 * update with any or noexist of an absent prefix (an intermediate node's
 * included) inserts it while the map holds fewer than max_entries, else
 * -ENOSPC; noexist on a present one is -EEXIST; exist on an absent one is
 * -ENOENT; otherwise the node is replaced and the count stays.  A delete
 * removes a present prefix.  A key whose prefix length is beyond the data's
 * bits changes nothing.  Trailing bits do not matter to any of this: the
 * kernel compares min(node, key) prefix bits.  With the model, operations
 * can aim at present keys, and at the branch point of two present keys
 * (the common prefix where their paths part: an intermediate node when the
 * map does not hold it, a real node with two children when it does).
 */
#include "harness/trace/tracegen_internal.h"
#include "harness/trace/hex.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A prefix the generator knows: one of the key space, or one an update
 * inserted.  Its masked data is in lpm_gen.known_data. */
struct prefix {
	uint32_t len;
	uint32_t base; /* the base address it was cut from */
	int32_t live;  /* its index in lpm_gen.live; -1: the map lacks it */
};

struct lpm_gen {
	FILE *out;
	struct rng *r;
	uint32_t key_size, data_size, max_len, max_entries;

	unsigned nbase;
	uint8_t *bases;          /* nbase addresses of data_size bytes */

	struct prefix *known;    /* every prefix met, never forgotten */
	uint8_t *known_data;     /* known[i]'s data at i * data_size */
	size_t nknown, known_cap;
	uint32_t *index;         /* open addressing: a known index + 1; 0 empty */
	size_t index_mask;

	uint32_t *space;         /* the key space: known indices */
	unsigned nspace;
	uint32_t *live;          /* the model: known indices the map holds */
	unsigned nlive;
	uint32_t *walk;          /* scratch: live in the kernel's order */

	uint8_t *data;           /* the picked prefix's masked data */
	uint8_t *scratch;        /* random bytes */
	uint8_t *key, *value;    /* the line's */
};

/* --- bits ------------------------------------------------------------------ */

static unsigned bit_at(const uint8_t *d, uint32_t i)
{
	return (d[i / 8] >> (7 - i % 8)) & 1;
}

/* Bits from bit `from` on taken from src (src NULL: zeros); bits before it
 * kept. */
static void set_bits_from(uint8_t *d, const uint8_t *src, uint32_t from,
			  uint32_t size)
{
	for (uint32_t i = from / 8; i < size; i++) {
		uint8_t keep = i * 8 >= from ? 0 : (uint8_t)(0xff << (8 - (from - i * 8)));
		d[i] = (uint8_t)((d[i] & keep) | ((src ? src[i] : 0) & ~keep));
	}
}

/* How many leading bits a and b share, at most limit. */
static uint32_t common_bits(const uint8_t *a, const uint8_t *b, uint32_t limit)
{
	uint32_t n = 0;
	for (uint32_t i = 0; n < limit; i++, n += 8) {
		if (a[i] != b[i]) {
			n += (uint32_t)__builtin_clz((unsigned)(a[i] ^ b[i])) - 24;
			break;
		}
	}
	return n < limit ? n : limit;
}

static void random_bytes(struct lpm_gen *g, uint8_t *d)
{
	for (uint32_t off = 0; off < g->data_size; off += 8) {
		uint64_t w = rng_next(g->r);
		uint32_t n = g->data_size - off < 8 ? g->data_size - off : 8;
		memcpy(d + off, &w, n);
	}
}

/* --- known prefixes -------------------------------------------------------- */

static uint8_t *data_of(const struct lpm_gen *g, size_t k)
{
	return g->known_data + k * g->data_size;
}

static uint64_t prefix_hash(uint32_t len, const uint8_t *d)
{
	uint64_t h = rng_mix64((uint64_t)len + 1);
	uint32_t n = (len + 7) / 8; /* bytes past these are zero */
	for (uint32_t off = 0; off < n; off += 8) {
		uint64_t w = 0;
		memcpy(&w, d + off, n - off < 8 ? n - off : 8);
		h = rng_mix64(h ^ w);
	}
	return h;
}

/* The index slot of (len, d): it holds the prefix, or 0 where it would go. */
static uint32_t *known_slot(const struct lpm_gen *g, uint32_t len,
			    const uint8_t *d)
{
	for (size_t i = prefix_hash(len, d) & g->index_mask;;
	     i = (i + 1) & g->index_mask) {
		uint32_t *slot = &g->index[i];
		if (!*slot || (g->known[*slot - 1].len == len &&
			       !memcmp(data_of(g, *slot - 1), d, g->data_size)))
			return slot;
	}
}

static long known_find(const struct lpm_gen *g, uint32_t len, const uint8_t *d)
{
	uint32_t slot = *known_slot(g, len, d);
	return slot ? (long)slot - 1 : -1;
}

/* Room for one more known prefix (the index at most half full).  0 or -1. */
static int known_reserve(struct lpm_gen *g)
{
	if (g->nknown < g->known_cap)
		return 0;
	size_t cap = g->known_cap ? 2 * g->known_cap : 64;
	struct prefix *known = realloc(g->known, cap * sizeof(*known));
	if (known)
		g->known = known;
	uint8_t *data = realloc(g->known_data, cap * g->data_size);
	if (data)
		g->known_data = data;
	uint32_t *live = realloc(g->live, cap * sizeof(*live));
	if (live)
		g->live = live;
	uint32_t *walk = realloc(g->walk, cap * sizeof(*walk));
	if (walk)
		g->walk = walk;
	uint32_t *index = calloc(2 * cap, sizeof(*index));
	if (!known || !data || !live || !walk || !index) {
		free(index);
		return -1;
	}
	free(g->index);
	g->index = index;
	g->index_mask = 2 * cap - 1;
	g->known_cap = cap;
	for (size_t k = 0; k < g->nknown; k++)
		*known_slot(g, g->known[k].len, data_of(g, k)) = (uint32_t)k + 1;
	return 0;
}

/* Add (len, d), not yet known.  Its index, or -1 out of memory. */
static long known_add(struct lpm_gen *g, uint32_t len, const uint8_t *d,
		      uint32_t base)
{
	if (known_reserve(g))
		return -1;
	size_t k = g->nknown++;
	g->known[k] = (struct prefix){ .len = len, .base = base, .live = -1 };
	memcpy(data_of(g, k), d, g->data_size);
	*known_slot(g, len, d) = (uint32_t)k + 1;
	return (long)k;
}

/* --- the key space --------------------------------------------------------- */

/* A prefix length, weighted as a routing table's: many full-length and
 * long prefixes, fewer short ones, now and then a very short one (/0). */
static uint32_t draw_len(struct lpm_gen *g)
{
	uint32_t m = g->max_len; /* 8 or more */
	unsigned u = (unsigned)rng_below(g->r, 100);
	if (u < 30)
		return m;
	if (u < 75)
		return m - 1 - (uint32_t)rng_below(g->r, m / 4);
	if (u < 95)
		return (uint32_t)rng_below(g->r, m * 3 / 4 + 1);
	return (uint32_t)rng_below(g->r, m / 8 + 1);
}

static void make_bases(struct lpm_gen *g)
{
	uint32_t m = g->max_len;
	random_bytes(g, g->bases);
	for (unsigned i = 1; i < g->nbase; i++) {
		uint8_t *b = g->bases + (size_t)i * g->data_size;
		memcpy(b, g->bases + rng_below(g->r, i) * g->data_size,
		       g->data_size);
		uint32_t flip = rng_below(g->r, 2)
			? m - 1 - (uint32_t)rng_below(g->r, m / 4)
			: (uint32_t)rng_below(g->r, m);
		b[flip / 8] ^= (uint8_t)(0x80 >> (flip % 8));
		random_bytes(g, g->scratch);
		set_bits_from(b, g->scratch, flip + 1, g->data_size);
	}
}

/* Fill the key space with up to `want` distinct prefixes of the bases (a
 * short key has fewer: 511 prefixes of one data byte in all).  0 or -1. */
static int make_space(struct lpm_gen *g, unsigned want)
{
	g->space = malloc((size_t)want * sizeof(*g->space));
	if (!g->space)
		return -1;
	for (uint64_t tries = 0; g->nspace < want && tries < 16 * (uint64_t)want + 64;
	     tries++) {
		uint32_t base = (uint32_t)rng_below(g->r, g->nbase);
		uint32_t len = draw_len(g);
		memcpy(g->data, g->bases + (size_t)base * g->data_size,
		       g->data_size);
		set_bits_from(g->data, NULL, len, g->data_size);
		if (known_find(g, len, g->data) >= 0)
			continue;
		long k = known_add(g, len, g->data, base);
		if (k < 0)
			return -1;
		g->space[g->nspace++] = (uint32_t)k;
	}
	return 0;
}

/* --- the model ------------------------------------------------------------- */

static void live_add(struct lpm_gen *g, size_t k)
{
	g->known[k].live = (int32_t)g->nlive;
	g->live[g->nlive++] = (uint32_t)k;
}

static void live_remove(struct lpm_gen *g, size_t k)
{
	uint32_t pos = (uint32_t)g->known[k].live;
	uint32_t last = g->live[--g->nlive];
	g->live[pos] = last;
	g->known[last].live = (int32_t)pos;
	g->known[k].live = -1;
}

/* --- picking a key --------------------------------------------------------- */

/* The key an operation is about: prefixlen (beyond max_len: a bad one) and
 * the data in lpm_gen.data, masked to len bits. */
struct pick {
	uint32_t prefixlen;
	uint32_t len;
	uint32_t base; /* where trailing bits may come from */
};

enum pick_kind { FROM_SPACE, PRESENT, BRANCH, ADDRESS, STRAY, BAD, N_KINDS };
enum pick_for { FOR_UPDATE, FOR_LOOKUP, FOR_DELETE, FOR_NEXT };

/* In percent, per operation. */
static const unsigned char pick_weights[][N_KINDS] = {
	/*              space present branch address stray bad */
	[FOR_UPDATE] = { 62, 20, 10, 0, 3, 5 },
	[FOR_LOOKUP] = { 25, 20, 8, 37, 5, 5 },
	[FOR_DELETE] = { 45, 20, 15, 0, 15, 5 },
	[FOR_NEXT] = { 20, 45, 15, 0, 15, 5 },
};

static struct pick pick_known(struct lpm_gen *g, size_t k)
{
	const struct prefix *p = &g->known[k];
	memcpy(g->data, data_of(g, k), g->data_size);
	return (struct pick){ .prefixlen = p->len, .len = p->len,
			      .base = p->base };
}

static struct pick pick_from_space(struct lpm_gen *g)
{
	return pick_known(g, g->space[rng_below(g->r, g->nspace)]);
}

static struct pick pick_present(struct lpm_gen *g)
{
	if (!g->nlive)
		return pick_from_space(g);
	return pick_known(g, g->live[rng_below(g->r, g->nlive)]);
}

/* Where the paths of two present keys part, when they do (neither is a
 * prefix of the other): an intermediate node, or a real one the map
 * holds.  Else a present key. */
static struct pick pick_branch(struct lpm_gen *g)
{
	for (int tries = 0; tries < 4 && g->nlive >= 2; tries++) {
		uint32_t a = g->live[rng_below(g->r, g->nlive)];
		uint32_t b = g->live[rng_below(g->r, g->nlive)];
		uint32_t la = g->known[a].len, lb = g->known[b].len;
		uint32_t m = common_bits(data_of(g, a), data_of(g, b),
					 la < lb ? la : lb);
		if (m == la || m == lb)
			continue;
		memcpy(g->data, data_of(g, a), g->data_size);
		set_bits_from(g->data, NULL, m, g->data_size);
		return (struct pick){ .prefixlen = m, .len = m,
				      .base = g->known[a].base };
	}
	return pick_present(g);
}

/* A full-length address inside a base's prefix of a random length: a
 * lookup that matches at any depth, or misses. */
static struct pick pick_address(struct lpm_gen *g)
{
	uint32_t base = (uint32_t)rng_below(g->r, g->nbase);
	uint32_t cut = (uint32_t)rng_below(g->r, g->max_len + 1);
	memcpy(g->data, g->bases + (size_t)base * g->data_size, g->data_size);
	random_bytes(g, g->scratch);
	set_bits_from(g->data, g->scratch, cut, g->data_size);
	return (struct pick){ .prefixlen = g->max_len, .len = g->max_len,
			      .base = base };
}

/* A prefix of random data: absent, most likely, and parting from the
 * others near the root. */
static struct pick pick_stray(struct lpm_gen *g)
{
	uint32_t len = draw_len(g);
	random_bytes(g, g->data);
	set_bits_from(g->data, NULL, len, g->data_size);
	return (struct pick){ .prefixlen = len, .len = len,
			      .base = (uint32_t)rng_below(g->r, g->nbase) };
}

/* A key of the key space with a prefix length beyond the data's bits. */
static struct pick pick_bad(struct lpm_gen *g)
{
	struct pick p = pick_from_space(g);
	switch (rng_below(g->r, 3)) {
	case 0: p.prefixlen = g->max_len + 1; break;
	case 1: p.prefixlen = g->max_len + 2 + (uint32_t)rng_below(g->r, 64); break;
	default: p.prefixlen = UINT32_MAX; break;
	}
	return p;
}

static struct pick pick_for(struct lpm_gen *g, enum pick_for op)
{
	static struct pick (*const pickers[N_KINDS])(struct lpm_gen *) = {
		pick_from_space, pick_present, pick_branch, pick_address,
		pick_stray, pick_bad,
	};
	unsigned dice = (unsigned)rng_below(g->r, 100);
	enum pick_kind kind = 0;
	while (kind < BAD && dice >= pick_weights[op][kind])
		dice -= pick_weights[op][kind++];
	return pickers[kind](g);
}

/* " <key>": the pick's prefix length and data, the bits past its length
 * zero, the base address's, or random (the kernel stores them as given). */
static void put_key(struct lpm_gen *g, const struct pick *p)
{
	uint8_t *d = g->key + TRACEGEN_LPM_PREFIX_BYTES;
	memcpy(g->key, &p->prefixlen, TRACEGEN_LPM_PREFIX_BYTES);
	memcpy(d, g->data, g->data_size);
	switch (rng_below(g->r, 4)) {
	case 0:
		break;
	case 1:
		set_bits_from(d, g->bases + (size_t)p->base * g->data_size,
			      p->len, g->data_size);
		break;
	default:
		random_bytes(g, g->scratch);
		set_bits_from(d, g->scratch, p->len, g->data_size);
		break;
	}
	putc(' ', g->out);
	hex_print(g->out, g->key, g->key_size);
}

/* --- operations ------------------------------------------------------------ */

/* The model after an update or a delete of p.  0, or -1 out of memory. */
static int model_update(struct lpm_gen *g, const struct pick *p, unsigned flag)
{
	if (p->prefixlen > g->max_len)
		return 0; /* EINVAL */
	long k = known_find(g, p->len, g->data);
	bool present = k >= 0 && g->known[k].live >= 0;
	if (present || flag == 2 /* exist */ || g->nlive >= g->max_entries)
		return 0; /* replaced, EEXIST, ENOENT, ENOSPC */
	if (k < 0 && (k = known_add(g, p->len, g->data, p->base)) < 0)
		return -1;
	live_add(g, (size_t)k);
	return 0;
}

static void model_delete(struct lpm_gen *g, const struct pick *p)
{
	if (p->prefixlen > g->max_len)
		return; /* EINVAL */
	long k = known_find(g, p->len, g->data);
	if (k >= 0 && g->known[k].live >= 0)
		live_remove(g, (size_t)k);
}

/* The kernel's get_next_key order (trie_get_next_key): post-order, so a
 * prefix comes after every prefix that extends it, and where two part,
 * the one with bit 0 there first. */
static int postorder_cmp(const void *x, const void *y, void *ctx)
{
	const struct lpm_gen *g = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint32_t la = g->known[a].len, lb = g->known[b].len;
	const uint8_t *da = data_of(g, a), *db = data_of(g, b);
	uint32_t m = common_bits(da, db, la < lb ? la : lb);
	if (m < la && m < lb)
		return (int)bit_at(da, m) - (int)bit_at(db, m);
	return la > lb ? -1 : la < lb;
}

/* `next -`, then `next` of each key the map holds in the kernel's order
 * (the last answers ENOENT), as a dump of the map by get_next_key does: at
 * most `room` lines.  The lines written. */
static uint64_t put_walk(struct lpm_gen *g, uint64_t room)
{
	uint64_t lines = 0;
	memcpy(g->walk, g->live, g->nlive * sizeof(*g->walk));
	qsort_r(g->walk, g->nlive, sizeof(*g->walk), postorder_cmp, g);
	fputs("next -\n", g->out);
	for (lines = 1; lines < room && lines <= g->nlive; lines++) {
		struct pick p = pick_known(g, g->walk[lines - 1]);
		fputs("next", g->out);
		put_key(g, &p);
		putc('\n', g->out);
	}
	return lines;
}

/* 0, -ENOMEM (the model), or a failed write's errno (tracegen.h). */
static int put_ops(struct lpm_gen *g, const struct tracegen_opts *o)
{
	struct tracegen_cpus cpus;
	struct pick p;
	int rc = 0;
	tracegen_cpus_init(&cpus, o);
	for (uint64_t i = 0; i < o->ops && !(rc = tracegen_write_error(g->out));
	     i++) {
		tracegen_put_cpu(g->out, &cpus);
		unsigned dice = (unsigned)rng_below(g->r, 100);
		if (i == o->ops / 2) {
			/* A walk halfway, when the map is full. */
			i += put_walk(g, o->ops - i) - 1;
		} else if (dice < P_UPDATE) {
			unsigned flag = (unsigned)rng_below(g->r, 3);
			p = pick_for(g, FOR_UPDATE);
			fputs("update", g->out);
			put_key(g, &p);
			tracegen_put_value(g->out, g->r, g->value,
					   o->attr.value_size);
			fprintf(g->out, " %s\n", tracegen_update_flags[flag]);
			if (model_update(g, &p, flag))
				return -ENOMEM;
		} else if ((dice -= P_UPDATE) < P_LOOKUP + P_PLOOKUP) {
			p = pick_for(g, FOR_LOOKUP);
			fputs(dice < P_LOOKUP ? "lookup" : "plookup", g->out);
			put_key(g, &p);
			putc('\n', g->out);
		} else if ((dice -= P_LOOKUP + P_PLOOKUP) < P_DELETE) {
			p = pick_for(g, FOR_DELETE);
			fputs("delete", g->out);
			put_key(g, &p);
			putc('\n', g->out);
			model_delete(g, &p);
		} else if ((dice -= P_DELETE) < P_NEXT) {
			unsigned start = (unsigned)rng_below(g->r, 24);
			if (start == 0) { /* now and then, a walk */
				i += put_walk(g, o->ops - i) - 1;
				continue;
			}
			if (start <= 3) {
				fputs("next -\n", g->out);
				continue;
			}
			p = pick_for(g, FOR_NEXT);
			fputs("next", g->out);
			put_key(g, &p);
			putc('\n', g->out);
		} else {
			fputs("dump\n", g->out);
		}
	}
	if (rc)
		return rc;
	fputs("dump\n", g->out);
	return tracegen_write_error(g->out);
}

static void lpm_gen_free(struct lpm_gen *g)
{
	free(g->bases);
	free(g->known);
	free(g->known_data);
	free(g->index);
	free(g->space);
	free(g->live);
	free(g->walk);
	free(g->data);
	free(g->scratch);
	free(g->key);
	free(g->value);
}

int tracegen_lpm_write(FILE *out, const struct tracegen_opts *o, struct rng *r,
		       unsigned key_space)
{
	struct lpm_gen g = {
		.out = out, .r = r, .key_size = o->attr.key_size,
		.data_size = o->attr.key_size - TRACEGEN_LPM_PREFIX_BYTES,
		.max_entries = o->attr.max_entries,
	};
	g.max_len = 8 * g.data_size;
	/* More prefixes than ops would never be used. */
	uint64_t want = key_space < 2 * o->ops + 16 ? key_space : 2 * o->ops + 16;
	/* A base gives some 8 prefixes of the long lengths, fewer when the
	 * data is short (the last quarter of 8 bits is 3 lengths). */
	uint32_t per_base = g.max_len / 4 + 1 < 8 ? g.max_len / 4 + 1 : 8;
	g.nbase = (unsigned)(2 + want / per_base);
	g.bases = malloc((size_t)g.nbase * g.data_size);
	g.data = malloc(g.data_size);
	g.scratch = malloc(g.data_size);
	g.key = malloc(g.key_size);
	g.value = malloc(o->attr.value_size ? o->attr.value_size : 1);
	int rc = -ENOMEM;
	if (g.bases && g.data && g.scratch && g.key && g.value &&
	    known_reserve(&g) == 0) {
		make_bases(&g);
		rc = make_space(&g, (unsigned)want) ? -ENOMEM : 0;
	}
	if (rc == 0) {
		char extra[32];
		snprintf(extra, sizeof(extra), " bases=%u", g.nbase);
		tracegen_put_head(out, o, g.nspace, extra);
		rc = put_ops(&g, o);
	}
	lpm_gen_free(&g);
	return rc;
}
