/* SPDX-License-Identifier: MIT */
/*
 * The trace parser: what it accepts, and that every kind of malformed line
 * is refused with its own line number and a message safe for a terminal.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/trace/replay.h"
#include "harness/trace/trace.h"
#include "harness/trace/tracegen.h"
#include "maps/base/cpu.h"
#include "tests/common/memlimit.h"

static int parse(const char *text, struct trace *t, char *err, size_t len)
{
	return trace_parse_string(text, "t", t, err, len);
}

Test(trace, parses_every_operation)
{
	struct trace t;
	char err[256] = "";
	const char *text =
		"# comment\n\n"
		"map hash key_size=2 value_size=1 max_entries=8 flags=zero_seed|no_prealloc\n"
		"update 0aFF 01 noexist   # trailing comment\n"
		"update 0a0b 02\n"
		"lookup 0a0b\nplookup 0a0b\ndelete 0a0b\nnext -\nnext 0a0b\ndump\n";
	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.n, 9);
	cr_expect_eq(t.lines[0].op, TRACE_MAP);
	cr_expect_eq(t.lines[0].lineno, 3);
	cr_expect_eq(t.lines[0].attr.type, MAP_TYPE_HASH);
	cr_expect_eq(t.lines[0].attr.flags, MAP_F_ZERO_SEED | MAP_F_NO_PREALLOC);
	cr_expect_eq(t.lines[1].flags, MAP_NOEXIST);
	cr_expect_eq(t.lines[1].key[1], 0xff);
	cr_expect_eq(t.lines[2].flags, MAP_ANY);
	cr_expect_eq(t.lines[6].op, TRACE_NEXT);
	cr_expect_null(t.lines[6].key);
	cr_expect_not_null(t.lines[7].key);
	cr_expect_eq(t.lines[8].op, TRACE_DUMP);
	trace_free(&t);
}

Test(trace, numeric_flags_reach_the_map)
{
	struct trace t;
	char err[256];
	cr_assert_eq(parse("map lru_hash key_size=4 value_size=4 max_entries=1 "
			   "flags=0x100\n", &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.lines[0].attr.flags, 0x100u);
	cr_expect_eq(t.lines[0].attr.type, MAP_TYPE_LRU_HASH);
	trace_free(&t);
}

/* cpu N: each line carries the cpu it runs as, from the last cpu line
 * before it (cpu 0 before any), and a cpu line may come before the map. */
Test(trace, cpu_lines_set_the_cpu_of_the_lines_after)
{
	struct trace t;
	char err[256] = "";
	int other = map_cpu_allowed_id(map_cpu_allowed_count() - 1);
	char text[256];
	if (!map_cpu_is_allowed(0))
		cr_skip_test("cpu 0 is not allowed here");
	snprintf(text, sizeof(text),
		 "map hash key_size=1 value_size=1 max_entries=2\n"
		 "update 01 01\ncpu %d\nupdate 02 02\ncpu 0\nlookup 01\n",
		 other);
	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.n, 6);
	cr_expect_eq(t.lines[1].cpu, 0);
	cr_expect_eq(t.lines[2].op, TRACE_CPU);
	cr_expect_eq(t.lines[2].cpu, other);
	cr_expect_eq(t.lines[2].lineno, 3);
	cr_expect_eq(t.lines[3].cpu, other);
	cr_expect_eq(t.lines[4].cpu, 0);
	cr_expect_eq(t.lines[5].cpu, 0);

	char *printed;
	size_t len;
	FILE *f = open_memstream(&printed, &len);
	trace_print_line(f, &t, 2);
	fclose(f);
	char want[32];
	snprintf(want, sizeof(want), "cpu %d", other);
	cr_expect_str_eq(printed, want);
	free(printed);
	trace_free(&t);

	cr_assert_eq(parse("cpu 0\nmap hash key_size=1 value_size=1 "
			   "max_entries=2\n", &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.lines[0].op, TRACE_CPU);
	cr_expect_eq(t.lines[1].cpu, 0);
	trace_free(&t);
}

/* A cpu this process may not run on is refused at its line, naming the
 * CPUs it may use, so a replay never starts that could not finish. */
Test(trace, cpu_not_allowed_is_refused_with_its_line)
{
	int not_allowed = 0;
	while (map_cpu_is_allowed(not_allowed))
		not_allowed++;
	char text[128], allowed[128], says[256], err[256] = "";
	snprintf(text, sizeof(text), "map hash key_size=1 value_size=1 "
		 "max_entries=2\n\ncpu %d\nlookup 01\n", not_allowed);
	map_cpu_allowed_text(allowed, sizeof(allowed));
	snprintf(says, sizeof(says), "t:3: cpu %d is not one this process may "
		 "run on (allowed: %s)", not_allowed, allowed);
	struct trace t;
	cr_expect_eq(parse(text, &t, err, sizeof(err)), -1);
	cr_expect_str_eq(err, says);
}

/* Each bad input, the line it is on, and a word the message must hold. */
static const struct {
	const char *text;
	unsigned line;
	const char *says;
} bad[] = {
	{ "lookup 00\n", 1, "before any map" },
	{ "map hash key_size=1 value_size=1 max_entries=1\nfrobnicate 00\n", 2,
	  "unknown operation" },
	{ "map hash key_size=1 value_size=1 max_entries=1\nlookup 0\n", 2, "hex" },
	{ "map hash key_size=1 value_size=1 max_entries=1\nlookup 0g\n", 2, "hex" },
	{ "map hash key_size=1 value_size=1 max_entries=1\nlookup 0000\n", 2,
	  "1 bytes" },
	{ "map hash key_size=1 value_size=2 max_entries=1\n\nupdate 00 00\n", 3,
	  "value" },
	{ "map hash key_size=1 value_size=1 max_entries=1\nupdate 00 00 maybe\n",
	  2, "update flag" },
	{ "map hash key_size=1 value_size=1 max_entries=1\nupdate 00\n", 2,
	  "words" },
	{ "map hash key_size=1 value_size=1 max_entries=1\ndump now\n", 2, "words" },
	{ "map tree key_size=1 value_size=1 max_entries=1\n", 1, "map type" },
	{ "map hash key_size=1 value_size=1\n", 1, "max_entries" },
	{ "map hash key_size=-1 value_size=1 max_entries=1\n", 1, "number" },
	{ "map hash key_size=4294967296 value_size=1 max_entries=1\n", 1, "number" },
	{ "map hash key_size=1 value_size=1 max_entries=1 colour=red\n", 1,
	  "attribute" },
	{ "map hash key_size=1 key_size=1 value_size=1 max_entries=1\n", 1,
	  "twice" },
	{ "map hash key_size=1 value_size=1 max_entries=1 flags=fast\n", 1,
	  "map flag" },
	{ "cpu\n", 1, "2 words" },
	{ "cpu 0 1\n", 1, "2 words" },
	{ "cpu one\n", 1, "decimal cpu number" },
	{ "cpu -1\n", 1, "decimal cpu number" },
	{ "cpu 0x1\n", 1, "decimal cpu number" },
	{ "map hash key_size=1 value_size=1 max_entries=1\ncpu 99999999999\n",
	  2, "decimal cpu number" },
	{ "map hash key_size=1 value_size=1 max_entries=1\ncpu 1000000\n", 2,
	  "not one this process may run on (allowed: " },
};

Test(trace, malformed_lines_name_their_line)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trace t;
		char err[256] = "", where[32];
		cr_expect_eq(parse(bad[i].text, &t, err, sizeof(err)), -1,
			     "case %zu accepted: %s", i, bad[i].text);
		snprintf(where, sizeof(where), "t:%u: ", bad[i].line);
		cr_expect(strncmp(err, where, strlen(where)) == 0,
			  "case %zu: '%s' does not start with '%s'", i, err, where);
		cr_expect(strstr(err, bad[i].says) != NULL,
			  "case %zu: '%s' does not say '%s'", i, err, bad[i].says);
	}
}

/* Parse text, which must fail with a message holding `says`. */
static void expect_refused(const char *text, const char *says)
{
	struct trace t;
	char err[256] = "";
	cr_expect_eq(parse(text, &t, err, sizeof(err)), -1, "accepted: %s",
		     text);
	cr_expect(strstr(err, says) != NULL, "'%s' does not say '%s'", err,
		  says);
	for (const char *c = err; *c; c++)
		cr_expect((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f,
			  "raw byte %#x in '%s'", (unsigned char)*c, err);
}

/* Sizes are decimal, as everywhere in maplab (harness/common/parse.h);
 * flags are read by the one table. */
Test(trace, sizes_must_be_decimal)
{
	static const char *const attrs[] = {
		"key_size=4 value_size=4 max_entries=0x10",
		"key_size=+4 value_size=4 max_entries=1",
		"key_size=4 value_size=4k max_entries=1",
		"key_size=4 value_size=1e3 max_entries=1",
		"key_size= value_size=4 max_entries=1",
	};
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		char text[128];
		snprintf(text, sizeof(text), "map hash %s\n", attrs[i]);
		expect_refused(text, "t:1: ");
		expect_refused(text, "must be a decimal number");
	}
	expect_refused("map hash key_size=4 value_size=4 max_entries=1 "
		       "flags=\n", "unknown map flag");
	expect_refused("map hash key_size=4 value_size=4 max_entries=1 "
		       "flags=rdonly||wronly\n", "unknown map flag");
}

/* Input quoted in a message is escaped, never sent raw to a terminal. */
Test(trace, messages_escape_what_they_quote)
{
	expect_refused("map hash key_size=1 value_size=1 max_entries=1\n"
		       "\x1b[2Jwipe 00\n", "t:2: unknown operation '\\x1b[2Jwipe'");
	expect_refused("map h\x07sh key_size=1 value_size=1 max_entries=1\n",
		       "'h\\x07sh'");
	expect_refused("map hash key_size=1 value_size=1 max_entries=1\n"
		       "lookup \x9b" "31m\n", "t:2: key '\\x9b31m'");
	expect_refused("map hash key_size=1 value_size=1 max_entries=1 "
		       "flags=\x1b]0;x\n", "flag '\\x1b]0;x'");
}

/*
 * The digits a key or value needs are counted in 64 bits: a size of 2^31
 * or more wants 2^32 digits or more ("0 digits" it said, 2 * size in 32
 * bits), and the size is checked before anything of that size is held.
 */
Test(trace, a_huge_size_counts_its_digits_in_full)
{
	expect_refused("map hash key_size=2147483648 value_size=4 "
		       "max_entries=2\nlookup 00\n",
		       "t:2: key '00' is not 2147483648 bytes of hex "
		       "(4294967296 digits)");
	expect_refused("map hash key_size=4 value_size=4294967295 "
		       "max_entries=2\nupdate 00000000 00\n",
		       "t:2: value '00' is not 4294967295 bytes of hex "
		       "(8589934590 digits)");
}

/* A stream of one map line, then a line that never ends: "aaaa...". */
static ssize_t endless_line(void *cookie, char *buf, size_t size)
{
	static const char head[] = "map hash key_size=4 value_size=4 "
				   "max_entries=2\nlookup ";
	size_t *at = cookie, n = 0;
	for (; n < size && *at < sizeof(head) - 1; n++)
		buf[n] = head[(*at)++];
	memset(buf + n, 'a', size - n);
	*at += size - n;
	return (ssize_t)size;
}

/* A trace whose second line never ends; *at counts the bytes read. */
static FILE *endless_trace(size_t *at)
{
	cookie_io_functions_t io = { .read = endless_line };
	FILE *in = fopencookie(at, "r", io);
	cr_assert_not_null(in);
	return in;
}

/*
 * A line is at most TRACE_MAX_LINE bytes (16 MiB): past that it is refused
 * at its line, having read little more than the bound (it was read until
 * memory ran out: "out of memory" at best, and /dev/zero took the machine's
 * memory); within an address space that holds the bound several times
 * over (jemalloc maps its retained extents in growing steps, so the room
 * a 16 MiB buffer takes depends on what the process allocated before: 64
 * MiB was too little once), and far less than an unbounded read wants.
 */
Test(trace, a_line_past_the_bound_is_refused_at_its_line, .timeout = 60)
{
	size_t at = 0;
	FILE *in = endless_trace(&at);
	struct trace t;
	char err[256] = "";
	limit_address_space(256 << 20);
	cr_expect_eq(trace_parse(in, "huge", &t, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "huge:2: the line is longer than 16 MiB, the most "
			 "a trace line may hold");
	cr_expect_lt(at, (size_t)TRACE_MAX_LINE + (1 << 20), "read %zu bytes",
		     at);
	fclose(in);
}

/*
 * A line that cannot be held under the bound is an error at that line,
 * not the end of the trace (getline's ENOMEM looked like end of file: the
 * rest of the trace was dropped, and the replay exited 0).
 */
Test(trace, a_line_that_cannot_be_held_is_out_of_memory, .timeout = 60)
{
	size_t at = 0;
	FILE *in = endless_trace(&at);
	struct trace t;
	char err[256] = "";
	limit_address_space(4 << 20);
	cr_expect_eq(trace_parse(in, "huge", &t, err, sizeof(err)), -1,
		     "a line of %zu bytes was read whole", at);
	cr_expect_str_eq(err, "huge:2: out of memory");
	fclose(in);
}

/* A line of exactly the bound, a comment here, is a line like another. */
Test(trace, a_line_of_the_bound_is_read, .timeout = 60)
{
	static const char head[] = "map hash key_size=4 value_size=4 "
				   "max_entries=2\n";
	static const char tail[] = "\nlookup 01000000\n";
	size_t n = sizeof(head) - 1 + TRACE_MAX_LINE + sizeof(tail) - 1;
	char *text = malloc(n + 1);
	cr_assert_not_null(text);
	memcpy(text, head, sizeof(head) - 1);
	text[sizeof(head) - 1] = '#';
	memset(text + sizeof(head), 'a', TRACE_MAX_LINE - 1);
	memcpy(text + sizeof(head) - 1 + TRACE_MAX_LINE, tail, sizeof(tail));
	struct trace t;
	char err[256] = "";
	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.n, 2);
	cr_expect_eq(t.n == 2 ? t.lines[1].lineno : 0, 3);
	trace_free(&t);
	free(text);
}

/* "010" is ten, not eight: no base prefixes. */
Test(trace, sizes_are_decimal)
{
	struct trace t;
	char err[256];
	cr_assert_eq(parse("map hash key_size=010 value_size=4 "
			   "max_entries=4294967295\n", &t, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(t.lines[0].attr.key_size, 10);
	cr_expect_eq(t.lines[0].attr.max_entries, UINT32_MAX);
	trace_free(&t);
}

/* A NUL ends a C string: everything after it on the line would be
 * silently dropped ("lookup 00" read where "lookup 00\0 junk" stands). */
Test(trace, a_nul_byte_is_refused_with_its_line)
{
	static const char text[] = "map hash key_size=1 value_size=1 "
				   "max_entries=1\nlookup 00\0 junk\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	cr_assert_not_null(f);
	struct trace t;
	char err[256] = "";
	cr_expect_eq(trace_parse(f, "t", &t, err, sizeof(err)), -1);
	fclose(f);
	cr_expect(strstr(err, "t:2: a NUL byte at column 10") != NULL, "%s",
		  err);
}

/* Every flag of maps/base/map.h's table has its name in traces, read
 * and written by the one table. */
Test(trace, every_flag_name_reads_and_prints)
{
	struct trace t;
	char err[256];
	const char *text = "map hash key_size=4 value_size=4 max_entries=4 "
			   "flags=no_prealloc|no_common_lru|numa_node|rdonly|"
			   "wronly|zero_seed|rdonly_prog|wronly_prog|0x20\n";
	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(t.lines[0].attr.flags, 0x1ffu);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	trace_print_line(f, &t, 0);
	fputc('\n', f);
	fclose(f);
	cr_expect_str_eq(out, text);
	free(out);
	trace_free(&t);
}

Test(trace, print_line_round_trips)
{
	struct trace t, again;
	char err[256];
	const char *text = "map hash key_size=2 value_size=2 max_entries=3 "
			   "flags=no_prealloc|zero_seed\nupdate abcd 0102 exist\n"
			   "next -\n";
	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	for (size_t i = 0; i < t.n; i++) {
		trace_print_line(f, &t, i);
		fputc('\n', f);
	}
	fclose(f);
	cr_expect_str_eq(out, text);
	cr_assert_eq(parse(out, &again, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(again.n, t.n);
	free(out);
	trace_free(&t);
	trace_free(&again);
}

/* --- random traces ------------------------------------------------------- */

/* FNV-1a, to pin a generated trace without storing it. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * Hash and LRU traces are what they were before LPM traces had their own
 * pass: the kernel tests replay them, and a finding quotes a seed.  The
 * sums are those of the traces `maplab gentrace` wrote before that change
 * (an LPM trie whose key the kernel refuses still gets them too).
 */
Test(tracegen, hash_and_lru_traces_are_unchanged)
{
	static const struct {
		struct tracegen_opts o;
		uint64_t fnv;
		size_t len;
	} pinned[] = {
		{ { .attr = { .type = MAP_TYPE_HASH, .key_size = 8, .value_size = 8,
			      .max_entries = 10, .flags = MAP_F_ZERO_SEED },
		    .seed = 2, .ops = 500 }, 0xe25e14ef67bbf324ULL, 16542 },
		{ { .attr = { .type = MAP_TYPE_LRU_HASH, .key_size = 13,
			      .value_size = 8, .max_entries = 385,
			      .flags = MAP_F_ZERO_SEED },
		    .seed = 77, .ops = 500 }, 0x19536c0ed89b799aULL, 21307 },
		{ { .attr = { .type = MAP_TYPE_LPM_TRIE, .key_size = 3,
			      .value_size = 8, .max_entries = 64,
			      .flags = MAP_F_NO_PREALLOC },
		    .seed = 1, .ops = 50 }, 0x8b216af853a57099ULL, 1205 },
	};
	for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		char *text = tracegen_string(&pinned[i].o);
		cr_assert_not_null(text);
		cr_expect_eq(strlen(text), pinned[i].len, "trace %zu: %zu bytes",
			     i, strlen(text));
		cr_expect_eq(fnv1a(text), pinned[i].fnv, "trace %zu: %#llx", i,
			     (unsigned long long)fnv1a(text));
		free(text);
	}
}

#define LPM_HDR 4 /* an LPM key's prefix length */

static const uint32_t lpm_key_sizes[] = { 5, 8, 20, 260 };

static uint32_t prefixlen_of(const uint8_t *key)
{
	uint32_t n;
	memcpy(&n, key, LPM_HDR);
	return n;
}

static unsigned data_bit(const uint8_t *key, uint32_t i)
{
	return (key[LPM_HDR + i / 8] >> (7 - i % 8)) & 1;
}

/* How many leading data bits keys a and b share, at most limit. */
static uint32_t shared_bits(const uint8_t *a, const uint8_t *b, uint32_t limit)
{
	uint32_t n = 0;
	while (n < limit && data_bit(a, n) == data_bit(b, n))
		n++;
	return n;
}

static struct tracegen_opts lpm_opts(uint32_t key_size, uint32_t entries,
				     uint64_t seed, uint64_t ops)
{
	return (struct tracegen_opts){
		.attr = { .type = MAP_TYPE_LPM_TRIE, .key_size = key_size,
			  .value_size = 8, .max_entries = entries,
			  .flags = MAP_F_NO_PREALLOC },
		.seed = seed, .ops = ops,
	};
}

static struct trace parse_generated(const struct tracegen_opts *o)
{
	struct trace t;
	char err[256];
	char *text = tracegen_string(o);
	cr_assert_not_null(text);
	cr_assert_eq(trace_parse_string(text, "lpm", &t, err, sizeof(err)), 0,
		     "%s", err);
	free(text);
	return t;
}

/* What an LPM trace's keys look like, read from the trace alone. */
struct lpm_shape {
	size_t full;       /* prefix length: the data's bits */
	size_t shorter;    /* fewer */
	size_t short_half; /* at most half of them */
	size_t beyond;     /* more: a bad key */
	size_t trailing;   /* a set bit past a short prefix */
	size_t flags[3];   /* updates by flag */
	size_t next_first; /* next - */
	size_t retrailed;  /* an updated prefix updated again, other trailing bits */
	size_t nested;     /* two updated prefixes, one extending the other */
	size_t parted;     /* two updated prefixes parting below the root */
};

static void add_shape(struct lpm_shape *s, const struct trace *t)
{
	uint32_t max_len = 8 * (trace_attr_at(t, 0)->key_size - LPM_HDR);
	const uint8_t **updated = calloc(t->n, sizeof(*updated));
	size_t n_updated = 0;
	cr_assert_not_null(updated);

	for (size_t i = 0; i < t->n; i++) {
		const struct trace_line *l = &t->lines[i];
		if (l->op == TRACE_NEXT && !l->key)
			s->next_first++;
		if (l->op == TRACE_UPDATE)
			s->flags[l->flags]++;
		if (!l->key)
			continue;
		uint32_t len = prefixlen_of(l->key);
		if (len > max_len) {
			s->beyond++;
			continue;
		}
		if (len == max_len) {
			s->full++;
		} else {
			s->shorter++;
			s->short_half += len <= max_len / 2;
			for (uint32_t b = len; b < max_len; b++)
				if (data_bit(l->key, b)) {
					s->trailing++;
					break;
				}
		}
		if (l->op == TRACE_UPDATE)
			updated[n_updated++] = l->key;
	}
	for (size_t i = 0; i < n_updated; i++)
		for (size_t j = i + 1; j < n_updated; j++) {
			uint32_t la = prefixlen_of(updated[i]);
			uint32_t lb = prefixlen_of(updated[j]);
			uint32_t low = la < lb ? la : lb;
			uint32_t m = shared_bits(updated[i], updated[j], low);
			if (m < low)
				s->parted += m > 0;
			else if (la != lb)
				s->nested++;
			else
				s->retrailed += memcmp(updated[i], updated[j],
						       LPM_HDR + max_len / 8) != 0;
		}
	free(updated);
}

/*
 * A random LPM trace parses back, and holds what a trie needs to be
 * tested: prefixes of every length (short ones too) with trailing bits set,
 * prefixes that nest and that part below the root, re-inserts with other
 * trailing bits, lengths beyond the data's bits, every update flag, and
 * `next` from no key; it ends with a dump.  For each key size the kernel
 * takes, smallest and largest included, and each seed on its own.
 */
Test(tracegen, lpm_traces_have_every_shape_of_key, .timeout = 60)
{
	for (size_t k = 0; k < sizeof(lpm_key_sizes) / sizeof(lpm_key_sizes[0]); k++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct tracegen_opts o = lpm_opts(lpm_key_sizes[k], 12,
							  seed, 500);
			struct trace t = parse_generated(&o);
			struct lpm_shape s = { 0 };
			add_shape(&s, &t);
			const char *what = "";
			if (!s.full) what = "a full-length prefix";
			else if (!s.shorter) what = "a shorter prefix";
			else if (!s.short_half) what = "a prefix of half the bits or fewer";
			else if (!s.beyond) what = "a prefix length beyond the data";
			else if (!s.trailing) what = "trailing bits";
			else if (!s.flags[MAP_ANY]) what = "update any";
			else if (!s.flags[MAP_NOEXIST]) what = "update noexist";
			else if (!s.flags[MAP_EXIST]) what = "update exist";
			else if (!s.next_first) what = "next -";
			else if (!s.retrailed) what = "a re-insert with other trailing bits";
			else if (!s.nested) what = "nested prefixes";
			else if (!s.parted) what = "prefixes parting below the root";
			cr_expect_str_empty(what, "key_size %u seed %llu: no %s",
					    o.attr.key_size,
					    (unsigned long long)seed, what);
			cr_expect_eq(t.lines[0].op, TRACE_MAP);
			cr_expect_eq(t.lines[0].attr.type, MAP_TYPE_LPM_TRIE);
			cr_expect_eq(t.lines[t.n - 1].op, TRACE_DUMP);
			cr_expect_eq(t.n, 1 + o.ops + 1);
			trace_free(&t);
		}
}

Test(tracegen, lpm_traces_follow_their_seed)
{
	struct tracegen_opts a = lpm_opts(20, 16, 9, 300), b = a;
	b.seed = 10;
	char *one = tracegen_string(&a), *again = tracegen_string(&a);
	char *other = tracegen_string(&b);
	cr_assert(one && again && other);
	cr_expect_str_eq(one, again);
	cr_expect_str_neq(one, other);
	free(one);
	free(again);
	free(other);
}

/*
 * The trie node a key names, among the prefixes the map holds: a real
 * node with no held prefix below it (leaf), one with some (above), an
 * intermediate node (no held prefix, but held ones below it on both
 * sides of its next bit), or none.
 */
enum node_kind { LEAF, ABOVE, INTERMEDIATE, ABSENT, N_NODE_KINDS };

struct held {
	const uint8_t **keys; /* as last inserted */
	size_t n;
};

static long held_find(const struct held *h, const uint8_t *key)
{
	uint32_t len = prefixlen_of(key);
	for (size_t i = 0; i < h->n; i++)
		if (prefixlen_of(h->keys[i]) == len &&
		    shared_bits(h->keys[i], key, len) == len)
			return (long)i;
	return -1;
}

static enum node_kind node_kind(const struct held *h, const uint8_t *key)
{
	uint32_t len = prefixlen_of(key);
	bool below[2] = { false, false };
	for (size_t i = 0; i < h->n; i++)
		if (prefixlen_of(h->keys[i]) > len &&
		    shared_bits(h->keys[i], key, len) == len)
			below[data_bit(h->keys[i], len)] = true;
	if (held_find(h, key) >= 0)
		return below[0] || below[1] ? ABOVE : LEAF;
	return below[0] && below[1] ? INTERMEDIATE : ABSENT;
}

/* What the map answered, by operation and the node its key named. */
struct lpm_cases {
	size_t update[3][N_NODE_KINDS]; /* by flag */
	size_t delete[N_NODE_KINDS];
	size_t next[N_NODE_KINDS];
	size_t next_last;               /* next of a held key: ENOENT */
	size_t enospc, eexist;
	size_t lookup_hit, lookup_miss; /* full-length keys */
	size_t bad_update_einval, bad_delete_einval, bad_lookup_enoent,
	       bad_next_first;
};

/* One result line from *out (advanced past it), without its '\n'. */
static const char *result_line(const char **out, size_t *len)
{
	const char *line = *out, *end = strchr(line, '\n');
	cr_assert_not_null(end, "results end early");
	*len = (size_t)(end - line);
	*out = end + 1;
	return line;
}

static bool is(const char *line, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(line, want, len) == 0;
}

/* Replay t on lpm_trie/linux and sort each answer by the node its key
 * named, following the held prefixes from the answers themselves. */
static void add_cases(struct lpm_cases *c, const struct trace *t)
{
	uint32_t max_len = 8 * (trace_attr_at(t, 0)->key_size - LPM_HDR);
	struct replay_side side = replay_user_side(map_find("lpm_trie/linux"));
	char *out = NULL, err[256] = "";
	size_t outlen;
	FILE *f = open_memstream(&out, &outlen);
	cr_assert_not_null(f);
	cr_assert_eq(replay_run(t, "lpm", &side, f, false, err, sizeof(err)),
		     REPLAY_DONE, "%s", err);
	fclose(f);

	struct held h = { calloc(t->n, sizeof(*h.keys)), 0 };
	cr_assert_not_null(h.keys);
	const char *at = out;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_line *l = &t->lines[i];
		size_t len;
		const char *r = result_line(&at, &len);
		bool ok = len >= 2 && memcmp(r, "ok", 2) == 0;
		if (l->op == TRACE_DUMP) {
			unsigned long n = strtoul(r + 3, NULL, 10);
			cr_expect_eq(n, h.n, "line %u: the map holds %lu, the "
				     "answers say %zu", l->lineno, n, h.n);
			for (unsigned long e = 0; e < n; e++)
				result_line(&at, &len);
			continue;
		}
		if (!l->key)
			continue;
		if (prefixlen_of(l->key) > max_len) {
			c->bad_update_einval += l->op == TRACE_UPDATE && is(r, len, "err EINVAL");
			c->bad_delete_einval += l->op == TRACE_DELETE && is(r, len, "err EINVAL");
			c->bad_lookup_enoent += l->op == TRACE_LOOKUP && is(r, len, "err ENOENT");
			c->bad_next_first += l->op == TRACE_NEXT && ok;
			continue;
		}
		enum node_kind kind = node_kind(&h, l->key);
		long found = held_find(&h, l->key);
		switch (l->op) {
		case TRACE_UPDATE:
			c->update[l->flags][kind]++;
			c->enospc += is(r, len, "err ENOSPC");
			c->eexist += is(r, len, "err EEXIST");
			if (ok && found < 0)
				h.keys[h.n++] = l->key;
			break;
		case TRACE_DELETE:
			c->delete[kind]++;
			if (ok) {
				cr_assert_geq(found, 0, "line %u", l->lineno);
				h.keys[found] = h.keys[--h.n];
			}
			break;
		case TRACE_NEXT:
			c->next[kind]++;
			c->next_last += found >= 0 && is(r, len, "err ENOENT");
			break;
		case TRACE_LOOKUP:
			if (prefixlen_of(l->key) == max_len) {
				c->lookup_hit += ok;
				c->lookup_miss += !ok;
			}
			break;
		default:
			break;
		}
	}
	cr_expect_eq(*at, '\0', "results left over");
	free(h.keys);
	free(out);
}

/*
 * Random LPM traces reach every case of the trie, as lpm_trie/linux
 * answers them (the kernel tests hold it to the kernel's answers): updates
 * with each flag of absent, held and intermediate prefixes, a full map
 * (ENOSPC), deletes and `next` of leaves, of real nodes above others, of
 * intermediate nodes and of absent keys, a walk's end (next of the last
 * key), full-length lookups that hit and miss, and each operation on a key
 * whose prefix length is beyond the data.  Three seeds of each key size
 * together.
 */
Test(tracegen, lpm_traces_reach_every_case, .timeout = 120)
{
	static const char *const kinds[] = { "a leaf", "a node above others",
					     "an intermediate node",
					     "an absent key" };
	for (size_t k = 0; k < sizeof(lpm_key_sizes) / sizeof(lpm_key_sizes[0]); k++) {
		struct lpm_cases c = { 0 };
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct tracegen_opts o = lpm_opts(lpm_key_sizes[k], 12,
							  seed, 800);
			struct trace t = parse_generated(&o);
			add_cases(&c, &t);
			trace_free(&t);
		}
		uint32_t ks = lpm_key_sizes[k];
		for (int kind = 0; kind < N_NODE_KINDS; kind++) {
			cr_expect_gt(c.delete[kind], 0, "key_size %u: no delete of %s",
				     ks, kinds[kind]);
			cr_expect_gt(c.next[kind], 0, "key_size %u: no next of %s",
				     ks, kinds[kind]);
			if (kind == ABOVE)
				continue; /* held: as a leaf, replaced */
			for (int flag = 0; flag < 3; flag++)
				cr_expect_gt(c.update[flag][kind], 0,
					     "key_size %u: no update flag %d of %s",
					     ks, flag, kinds[kind]);
		}
		cr_expect_gt(c.enospc, 0, "key_size %u: never full", ks);
		cr_expect_gt(c.eexist, 0, "key_size %u: no EEXIST", ks);
		cr_expect_gt(c.next_last, 0, "key_size %u: no walk's end", ks);
		cr_expect_gt(c.lookup_hit, 0, "key_size %u", ks);
		cr_expect_gt(c.lookup_miss, 0, "key_size %u", ks);
		cr_expect_gt(c.bad_update_einval, 0, "key_size %u", ks);
		cr_expect_gt(c.bad_delete_einval, 0, "key_size %u", ks);
		cr_expect_gt(c.bad_lookup_enoent, 0, "key_size %u", ks);
		cr_expect_gt(c.bad_next_first, 0, "key_size %u", ks);
	}
}

/* A stream whose every write fails as a full disk's does, counting them. */
static ssize_t full_write(void *cookie, const char *buf, size_t size)
{
	(void)buf, (void)size;
	++*(unsigned *)cookie;
	errno = ENOSPC;
	return -1;
}

/*
 * A trace that cannot be written stops at the first failed write, with
 * that write's errno, for every map type (it went on to the end, ignoring
 * the failures: with --ops 2^40, for ever).
 */
Test(tracegen, stops_at_the_first_failed_write, .timeout = 30)
{
	static const uint32_t types[] = { MAP_TYPE_HASH, MAP_TYPE_LRU_HASH,
					  MAP_TYPE_LPM_TRIE };
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct tracegen_opts o = {
			.attr = { .type = types[i], .key_size = 8, .value_size = 8,
				  .max_entries = 64, .flags = MAP_F_NO_PREALLOC },
			.seed = 1, .ops = 1ULL << 40,
		};
		unsigned writes = 0;
		cookie_io_functions_t io = { .write = full_write };
		FILE *full = fopencookie(&writes, "w", io);
		cr_assert_not_null(full);
		cr_expect_eq(tracegen_write(full, &o), -ENOSPC, "type %u", types[i]);
		cr_expect_eq(writes, 1, "type %u: %u writes tried", types[i],
			     writes);
		fclose(full);
	}
}

/*
 * A trace too large for memory is no trace (NULL), not a trace cut short:
 * glibc's open_memstream stops growing without an error, so the trace
 * replayed was the part that fit, and exited 0.
 */
Test(tracegen, a_string_that_cannot_be_held_is_null, .timeout = 60)
{
	struct tracegen_opts o = {
		.attr = { .type = MAP_TYPE_HASH, .key_size = 64, .value_size = 64,
			  .max_entries = 64 },
		.seed = 1, .ops = 1000000, /* some 200 MB of text */
	};
	limit_address_space(32 << 20);
	char *text = tracegen_string(&o);
	cr_expect_null(text, "%zu bytes of a trace came back",
		       text ? strlen(text) : 0);
	free(text);
}
