/* SPDX-License-Identifier: MIT */
/*
 * The trace parser: what it accepts, and that every kind of malformed line
 * is refused with its own line number and a message safe for a terminal.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/trace/trace.h"
#include "harness/trace/tracegen.h"

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

/* Every flag of maps/common/map.h's table has its name in traces, read
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

/* A random LPM trace's keys are LPM keys: a full-length prefix length in
 * their first four bytes (with scrambled ones the kernel answers EINVAL to
 * every update, and the trace tests nothing). */
Test(tracegen, lpm_keys_start_with_their_prefix_length)
{
	struct tracegen_opts o = {
		.attr = { .type = MAP_TYPE_LPM_TRIE, .key_size = 8,
			  .value_size = 4, .max_entries = 16,
			  .flags = MAP_F_NO_PREALLOC },
		.seed = 3, .ops = 300,
	};
	struct trace t;
	char err[256], *text = tracegen_string(&o);
	cr_assert_not_null(text);
	cr_assert_eq(trace_parse_string(text, "lpm", &t, err, sizeof(err)), 0,
		     "%s", err);
	size_t keys = 0;
	for (size_t i = 0; i < t.n; i++) {
		uint32_t prefixlen;
		if (!t.lines[i].key)
			continue;
		memcpy(&prefixlen, t.lines[i].key, 4);
		cr_expect_eq(prefixlen, 32u, "line %u", t.lines[i].lineno);
		keys++;
	}
	cr_expect_gt(keys, 200u);
	trace_free(&t);
	free(text);
}
