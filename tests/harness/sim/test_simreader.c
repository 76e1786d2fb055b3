/* SPDX-License-Identifier: MIT */
/*
 * test_simreader.c: the chunked trace reader (sim_trace_open/next/close),
 * cachesim's csv parameters, and string keys: XXH64 against its
 * specification's values, and the collision count with a stub hash that
 * makes collisions on purpose.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/sim/simkeys.h"
#include "harness/sim/simtrace.h"
#include "tests/common/memlimit.h"

#define TRACES MAPLAB_SOURCE_ROOT "/examples/traces/"

TestSuite(sim_reader, .timeout = 120);

/* A temporary file's path for name (its contents the caller's). */
static const char *temp_path(const char *name)
{
	static char path[4][256];
	static unsigned k;
	char *p = path[k++ % 4];
	snprintf(p, 256, "/tmp/maplab-test-simreader-%d-%s", (int)getpid(),
		 name);
	return p;
}

static const char *temp_file(const char *name, const char *text)
{
	const char *p = temp_path(name);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* A csv of n requests over string keys with sizes, big enough that lines
 * cross the reader's one-megabyte buffer. */
static const char *big_csv(size_t n)
{
	const char *p = temp_path("big.csv");
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("key,size\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "user:%zu,%zu\n", (i * 7919) % 5003, i % 97 + 1);
	fclose(f);
	return p;
}

/*
 * The file read in chunks of `chunk` gives what sim_trace_read gives
 * whole: ids, sizes, and the key facts.
 */
static void chunks_equal_whole(const char *path, enum sim_trace_format f,
			       const struct sim_csv_params *p, size_t chunk)
{
	struct sim_trace whole;
	struct sim_trace_reader *r;
	char err[512] = "";
	cr_assert_eq(sim_trace_read(path, f, p, &whole, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(sim_trace_open(path, f, p, &r, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(sim_trace_reader_has_sizes(r), whole.sizes != NULL);
	uint64_t *ids = malloc(chunk * sizeof(*ids));
	uint32_t *sizes = malloc(chunk * sizeof(*sizes));
	size_t at = 0;
	ssize_t got;
	while ((got = sim_trace_next(r, ids, sizes, chunk, err,
				     sizeof(err))) > 0) {
		cr_assert_leq(at + (size_t)got, whole.n);
		for (ssize_t i = 0; i < got; i++) {
			cr_assert_eq(ids[i], whole.ids[at + i], "request %zu",
				     at + i);
			cr_assert_eq(sizes[i], whole.sizes ? whole.sizes[at + i]
							   : 1);
		}
		at += (size_t)got;
	}
	cr_assert_eq(got, 0, "%s", err);
	cr_assert_eq(at, whole.n);
	struct sim_trace facts = { 0 };
	sim_trace_reader_keys(r, &facts);
	cr_assert_eq(facts.string_keys, whole.string_keys);
	cr_assert_eq(facts.id_collisions, whole.id_collisions);
	sim_trace_close(r);
	free(ids);
	free(sizes);
	sim_trace_free(&whole);
}

static bool have_zstd_command(void)
{
	return sim_trace_have_zstd() &&
	       system("command -v zstd >/dev/null 2>&1") == 0;
}

/* path compressed beside it as path.zst (the caller unlinks it). */
static const char *zstd_of(const char *path)
{
	static char out[300], cmd[700];
	snprintf(out, sizeof(out), "%s.zst", path);
	snprintf(cmd, sizeof(cmd), "zstd -q -f -o '%s' '%s'", out, path);
	cr_assert_eq(system(cmd), 0);
	return out;
}

Test(sim_reader, chunks_of_seven_read_as_the_whole)
{
	struct sim_csv_params p;
	sim_csv_params_init(&p);
	p.size_col = 2;
	const char *csv = big_csv(200000);
	const char *paths[] = { TRACES "zipf.txt", TRACES "zipf_sizes.oracleGeneral",
				csv };
	const enum sim_trace_format formats[] = { SIM_TRACE_AUTO, SIM_TRACE_AUTO,
						  SIM_TRACE_CSV };
	for (int i = 0; i < 3; i++) {
		const struct sim_csv_params *pp = i == 2 ? &p : NULL;
		chunks_equal_whole(paths[i], formats[i], pp, 7);
		chunks_equal_whole(paths[i], formats[i], pp, 65536);
		if (!have_zstd_command())
			continue;
		/* a copy, so that the .zst lands in /tmp */
		char cmd[700];
		const char *copy = temp_path(i == 0 ? "c.txt" : i == 1 ?
					     "c.oracleGeneral" : "c.csv");
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", paths[i], copy);
		cr_assert_eq(system(cmd), 0);
		const char *z = zstd_of(copy);
		chunks_equal_whole(z, formats[i], pp, 7);
		unlink(z);
		unlink(copy);
	}
	unlink(csv);
}

/* An oracleGeneral file of n records, id i % 100003, size i % 4096 + 1,
 * written a record at a time. */
static const char *oracle_file(const char *name, size_t n)
{
	const char *p = temp_path(name);
	FILE *f = fopen(p, "wb");
	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i++) {
		unsigned char r[24] = { 0 };
		uint64_t id = i % 100003, size = i % 4096 + 1;
		for (int b = 0; b < 8; b++)
			r[4 + b] = (unsigned char)(id >> 8 * b);
		for (int b = 0; b < 4; b++)
			r[12 + b] = (unsigned char)(size >> 8 * b);
		fwrite(r, 1, sizeof(r), f);
	}
	cr_assert_eq(fclose(f), 0);
	return p;
}

/*
 * Streaming: 3 million records (72 MB, 36 MB of ids and sizes read whole)
 * read in chunks under an address-space limit of 24 MB more than the test
 * has: memory does not grow with the trace, plain or .zst.
 */
Test(sim_reader, a_long_trace_streams_in_bounded_memory)
{
	const size_t n = 3000000;
	const char *plain = oracle_file("long.oracleGeneral", n);
	const char *z = have_zstd_command() ? zstd_of(plain) : NULL;
	const char *paths[] = { plain, z };
	limit_address_space(24u << 20);
	for (int k = 0; k < 2 && paths[k]; k++) {
		struct sim_trace_reader *r;
		uint64_t ids[4096], id_sum = 0, want = 0;
		uint32_t sizes[4096];
		char err[512];
		size_t total = 0;
		ssize_t got;
		cr_assert_eq(sim_trace_open(paths[k], SIM_TRACE_AUTO, NULL, &r, err,
					    sizeof(err)), 0, "%s", err);
		while ((got = sim_trace_next(r, ids, sizes, 4096, err,
					     sizeof(err))) > 0)
			for (ssize_t i = 0; i < got; i++, total++) {
				id_sum += ids[i];
				cr_assert_eq(sizes[i], total % 4096 + 1);
			}
		cr_assert_eq(got, 0, "%s", err);
		sim_trace_close(r);
		for (size_t i = 0; i < n; i++)
			want += i % 100003;
		cr_assert_eq(total, n, "%s", paths[k]);
		cr_assert_eq(id_sum, want, "%s", paths[k]);
	}
	if (z)
		unlink(z);
	unlink(plain);
}

Test(sim_reader, string_keys_from_csv)
{
	const char *p = temp_file("tw.csv", "key,size\nuser:1,10\nuser:2,20\n"
				  "user:1,10\n");
	struct sim_csv_params cp;
	sim_csv_params_init(&cp);
	cp.size_col = 2;
	struct sim_trace t;
	char err[512];
	cr_assert_eq(sim_trace_read(p, SIM_TRACE_CSV, &cp, &t, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(t.n, 3);
	cr_assert(t.string_keys);
	cr_assert_eq(t.id_collisions, 0);
	cr_assert_str_eq(t.id_hash, "xxh64");
	cr_assert_eq(t.ids[0], sim_hash64("user:1", 6));
	cr_assert_eq(t.ids[1], sim_hash64("user:2", 6));
	cr_assert_eq(t.ids[2], t.ids[0]);
	cr_assert_eq(t.sizes[1], 20);
	cr_assert(strstr(t.note, "header"), "%s", t.note);
	cr_assert(strstr(t.note, "keys are strings"), "%s", t.note);
	sim_trace_free(&t);

	/* obj-id-is-num=true: the same file refused at its first string */
	cp.id_is_num = 1;
	cr_assert_eq(sim_trace_read(p, SIM_TRACE_CSV, &cp, &t, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, ":2: key 'user:1' is not a number"), "%s", err);
	unlink(p);
}

Test(sim_reader, txt_keys_numbers_or_strings)
{
	const char *p = temp_file("s.txt", "alpha\nbeta\n42\nalpha\n");
	struct sim_trace t;
	char err[512];
	cr_assert_eq(sim_trace_read(p, SIM_TRACE_TXT, NULL, &t, err, sizeof(err)),
		     0, "%s", err);
	cr_assert(t.string_keys);
	cr_assert_eq(t.ids[2], sim_hash64("42", 2)); /* a string here too */
	cr_assert_eq(t.ids[3], t.ids[0]);
	sim_trace_free(&t);
	unlink(p);
	/* numbers first: a later string is refused, with the way out */
	p = temp_file("n.txt", "1\n2\nbanana\n");
	cr_assert_eq(sim_trace_read(p, SIM_TRACE_TXT, NULL, &t, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, ":3: key 'banana' is not a number"), "%s", err);
	cr_assert(strstr(err, "obj-id-is-num=false"), "%s", err);
	unlink(p);
}

/* XXH64, seed 0: the values of xxHash's reference implementation. */
Test(sim_reader, xxh64_matches_the_reference)
{
	cr_assert_eq(sim_hash64("", 0), 0xef46db3751d8e999ULL);
	cr_assert_eq(sim_hash64("a", 1), 0xd24ec4f1a98c6e5bULL);
	cr_assert_eq(sim_hash64("abc", 3), 0x44bc2cf5ad770999ULL);
	cr_assert_eq(sim_hash64("user:123", 8), 0xb22b18af3e8865f3ULL);
	const char *s = "0123456789abcdef0123456789abcdef0123456789";
	cr_assert_eq(sim_hash64(s, strlen(s)), 0xa76190c3acf08a1cULL);
}

/* A hash that collides on purpose: a string's length. */
static uint64_t length_hash(const void *p, size_t len)
{
	(void)p;
	return len;
}

Test(sim_reader, collisions_count_distinct_strings_on_a_held_id)
{
	struct sim_keys k;
	uint64_t id;
	sim_keys_init(&k, length_hash);
	const char *words[] = { "a", "b", "a", "cc", "dd", "b", "ee", "cc" };
	for (size_t i = 0; i < 8; i++) {
		cr_assert_eq(sim_keys_id(&k, words[i], strlen(words[i]), &id), 0);
		cr_assert_eq(id, strlen(words[i]));
	}
	/* b on a's id, dd and ee on cc's; repeats count nothing */
	cr_assert_eq(k.collisions, 3);
	sim_keys_free(&k);

	/* many keys: the table grows and keeps every string */
	sim_keys_init(&k, NULL);
	char buf[32];
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 100000; i++) {
			int n = snprintf(buf, sizeof(buf), "key:%d", i);
			cr_assert_eq(sim_keys_id(&k, buf, (size_t)n, &id), 0);
			cr_assert_eq(id, sim_hash64(buf, (size_t)n));
		}
	cr_assert_eq(k.used, 100000);
	cr_assert_eq(k.collisions, 0);
	sim_keys_free(&k);
}

/* cachesim's -t text, as its parse_reader_params takes it. */
Test(sim_reader, cachesim_params)
{
	struct sim_csv_params p;
	char err[256];
	sim_csv_params_init(&p);
	cr_assert_eq(sim_csv_params_parse("obj-id-col=2,obj-size-col=3,"
					  "delimiter=,,has-header=true,"
					  "obj-id-is-num=0", &p, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert_eq(p.id_col, 2);
	cr_assert_eq(p.size_col, 3);
	cr_assert_eq(p.delimiter, ',');
	cr_assert_eq(p.has_header, 1);
	cr_assert_eq(p.id_is_num, 0);

	const struct {
		const char *text;
		char delim;
	} delims[] = {
		{ "delimiter=\\t", '\t' }, { "delimiter=;", ';' },
		{ "delimiter=\\,", ',' }, { "delimiter=|, obj-id-col=1", '|' },
		{ "obj-id-col=1;delimiter=,", ',' }, /* cachesim's --help form */
		{ "delimiter=,", ',' }, { "delimiter=\t", '\t' },
		{ "obj-id-col=1,delimiter=", ',' }, /* cachesim: empty is ',' */
	};
	for (size_t i = 0; i < sizeof(delims) / sizeof(delims[0]); i++) {
		sim_csv_params_init(&p);
		cr_assert_eq(sim_csv_params_parse(delims[i].text, &p, err,
						  sizeof(err)), 0, "%s: %s",
			     delims[i].text, err);
		cr_assert_eq(p.delimiter, delims[i].delim, "%s", delims[i].text);
	}
	sim_csv_params_init(&p);
	cr_assert_eq(sim_csv_params_parse("OBJ_ID_FIELD=4, header=Yes, "
					  "size_col=5,time-col=1", &p, err,
					  sizeof(err)), 0, "%s", err);
	cr_assert_eq(p.id_col, 4);
	cr_assert_eq(p.size_col, 5);
	cr_assert_eq(p.has_header, 1);
	cr_assert(p.time_col);

	const struct {
		const char *text, *want;
	} bad[] = {
		{ "obj-id-col=0", "column number from 1" },
		{ "obj-id-col=x", "column number from 1" },
		{ "has-header=maybe", "true or false" },
		{ "block-size=512", "'block-size' is not one sim takes (obj-id-col" },
		{ "colour=red", "'colour' is not one sim takes" },
		{ "obj-id-col", "has no value" },
		{ "delimiter=ab", "one character" },
		{ "delimiter=\"", "one character" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sim_csv_params_init(&p);
		cr_assert_eq(sim_csv_params_parse(bad[i].text, &p, err,
						  sizeof(err)), -EINVAL, "%s",
			     bad[i].text);
		cr_assert(strstr(err, bad[i].want), "%s: %s", bad[i].text, err);
	}
}

/* A file of `lines` lines, each of `len` bytes before its newline:
 * line i is "i," then x's (the last without a newline where `last_nl` is
 * false). */
static const char *long_lines(const char *name, size_t len, int lines,
			      bool last_nl)
{
	const char *p = temp_path(name);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < lines; i++) {
		int head = fprintf(f, "%d,", i + 1);
		for (size_t k = (size_t)head; k < len; k++)
			fputc('x', f);
		if (i + 1 < lines || last_nl)
			fputc('\n', f);
	}
	cr_assert_eq(fclose(f), 0);
	return p;
}

/*
 * A txt or csv line holds at most SIM_TRACE_MAX_LINE bytes (1 MiB): a line
 * of exactly that is read (the last one without its newline too); one byte
 * more is refused at its line, with the bound named (the buffer had doubled
 * for a longer line: /dev/zero, with no newline, grew it until memory ran
 * out).
 */
Test(sim_reader, a_line_holds_at_most_a_megabyte)
{
	struct sim_csv_params p;
	struct sim_trace t;
	char err[512] = "";
	sim_csv_params_init(&p);
	p.has_header = 0;
	for (int nl = 0; nl < 2; nl++) {
		const char *ok = long_lines("max.csv", SIM_TRACE_MAX_LINE, 3, nl);
		cr_assert_eq(sim_trace_read(ok, SIM_TRACE_CSV, &p, &t, err,
					    sizeof(err)), 0, "%s", err);
		cr_expect_eq(t.n, 3);
		cr_expect(t.n == 3 && t.ids[0] == 1 && t.ids[2] == 3);
		sim_trace_free(&t);
		unlink(ok);
	}
	const char *p1 = temp_path("over.csv");
	const char *over = long_lines("over.csv", SIM_TRACE_MAX_LINE + 1, 3,
				      true);
	cr_assert_eq(sim_trace_read(over, SIM_TRACE_CSV, &p, &t, err,
				    sizeof(err)), -E2BIG);
	char want[512];
	snprintf(want, sizeof(want), "%s:1: the line is longer than 1 MiB, the "
		 "most a txt or csv trace line may hold (is it a text trace?)",
		 p1);
	cr_expect_str_eq(err, want);
	unlink(over);
}

/* /dev/zero as txt and as csv: refused at line 1 within a few megabytes of
 * address space, not read until memory runs out. */
Test(sim_reader, dev_zero_is_refused_at_once)
{
	static const enum sim_trace_format formats[] = { SIM_TRACE_TXT,
							 SIM_TRACE_CSV };
	struct sim_trace t;
	char err[512] = "";
	limit_address_space(24u << 20);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(sim_trace_read("/dev/zero", formats[i], NULL, &t,
					    err, sizeof(err)), -E2BIG, "%s", err);
		cr_expect(strstr(err, "/dev/zero:1: the line is longer than "
				 "1 MiB"), "%s", err);
	}
}
