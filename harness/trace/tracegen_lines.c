/* SPDX-License-Identifier: MIT */
/*
 * tracegen_lines.c: the lines every random trace writes alike, whatever
 * its map type (tracegen_internal.h): the head, value bytes, the `cpu`
 * lines of --cpus, and the check for a failed write.  tracegen.c (hash
 * and LRU keys) and tracegen_lpm.c (an LPM trie's) both build on them.
 */
#include "harness/trace/tracegen_internal.h"
#include "harness/trace/hex.h"
#include "harness/common/parse.h"

#include <errno.h>

const char *const tracegen_update_flags[3] = { "any", "noexist", "exist" };

void tracegen_put_value(FILE *out, struct rng *r, uint8_t *buf, uint32_t size)
{
	for (uint32_t i = 0; i < size; i++)
		buf[i] = (uint8_t)rng_next(r);
	putc(' ', out);
	hex_print(out, buf, size);
}

void tracegen_put_head(FILE *out, const struct tracegen_opts *o,
		       unsigned key_space, const char *extra)
{
	char flags[160];
	fprintf(out, "# maplab tracegen seed=%llu ops=%llu key_space=%u%s",
		(unsigned long long)o->seed, (unsigned long long)o->ops,
		key_space, extra);
	for (unsigned i = 0; i < o->n_cpus; i++)
		fprintf(out, "%s%u", i ? "," : " cpus=", o->cpus[i]);
	putc('\n', out);
	fprintf(out, "map %s key_size=%u value_size=%u max_entries=%u",
		map_type_name(o->attr.type), o->attr.key_size,
		o->attr.value_size, o->attr.max_entries);
	if (o->attr.flags)
		fprintf(out, " flags=%s",
			format_map_flags(o->attr.flags, flags, sizeof(flags)));
	putc('\n', out);
}

/* A run's length: mostly 1 to 4 operations, a long one now and then
 * (tracegen.h says why both). */
static uint64_t run_length(struct rng *r)
{
	unsigned dice = (unsigned)rng_below(r, 10);
	if (dice < 5)
		return 1 + rng_below(r, 4);
	if (dice < 9)
		return 5 + rng_below(r, 60);
	return 65 + rng_below(r, 192);
}

void tracegen_cpus_init(struct tracegen_cpus *c, const struct tracegen_opts *o)
{
	c->o = o;
	/* Its own stream, so cpu lines leave the operations' draws alone. */
	rng_seed(&c->r, rng_mix64(o->seed ^ 0x637075u));
	c->left = 0;
	c->current = -1;
}

void tracegen_put_cpu(FILE *out, struct tracegen_cpus *c)
{
	unsigned n = c->o->n_cpus;
	if (n == 0)
		return;
	if (c->left > 0) {
		c->left--;
		return;
	}
	int next = c->o->cpus[0];
	if (c->current >= 0 && n > 1) {
		/* another cpu of the list, never the one it is on */
		unsigned at = 0;
		while (c->o->cpus[at] != c->current)
			at++;
		next = c->o->cpus[(at + 1 + rng_below(&c->r, n - 1)) % n];
	}
	c->left = run_length(&c->r) - 1;
	if (next == c->current)
		return;
	fprintf(out, "cpu %d\n", next);
	c->current = next;
}

int tracegen_write_error(FILE *out)
{
	/* errno is still the failed write's: nothing since has failed */
	if (!ferror(out))
		return 0;
	return errno > 0 ? -errno : -EIO;
}
