/* SPDX-License-Identifier: MIT */
/*
 * The list sets and dense (harness/workload/prefix_list.h, prefixes.h):
 *  - the shipped table reads as the 901,899 IPv4 and 160,147 IPv6
 *    prefixes of its source, with its length counts (/24: 537,698);
 *  - a sample of N keeps the list's shape (each length's share, as
 *    prefix_set_counts gives it), holds list prefixes only, all distinct;
 *  - hits are covered, and spread over the covered space by its size (two
 *    prefixes covering 2/3 and 1/3 of it get about 2/3 and 1/3 of the
 *    hits), misses covered by none;
 *  - dense is 0, 1, 2, ... as the host's u32, /32s, in order;
 *  - a file's bad lines are refused with FILE:LINE, for each kind of fault;
 *    gzip and plain files read alike.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "harness/workload/prefix_list.h"
#include "harness/workload/prefixes.h"
#include "tests/common/temp_dir.h"

TEMP_DIR_SUITE(prefix_list, "maplab-prefix-list");

static struct prefix_table make(enum prefix_set set, uint64_t n,
				uint64_t extra, uint64_t hits, uint64_t misses)
{
	struct prefix_spec spec = { .set = set, .exact = n, .prefixes = n + extra,
				    .hits = hits, .misses = misses, .seed = 7 };
	struct prefix_table t;
	char err[512];
	cr_assert_eq(prefix_table_make(&spec, &t, err, sizeof(err)), 0, "%s", err);
	return t;
}

static void load(enum prefix_set s)
{
	char err[512];
	cr_assert_eq(prefix_set_load(s, err, sizeof(err)), 0, "%s", err);
}

Test(prefix_list, the_shipped_table_is_its_sources)
{
	load(PREFIXES_INTERNET);
	load(PREFIXES_INTERNET6);
	cr_assert_eq(prefix_set_listed_count(PREFIXES_INTERNET), 901899);
	cr_assert_eq(prefix_set_listed_count(PREFIXES_INTERNET6), 160147);
	/* gaissmai/iprbench's counts (../shared/research/lpm_2025.md) */
	cr_assert_eq(prefix_set_weight(PREFIXES_INTERNET, 24), 537698);
	cr_assert_eq(prefix_set_weight(PREFIXES_INTERNET, 8), 16);
	cr_assert_eq(prefix_set_weight(PREFIXES_INTERNET, 32), 886);
	cr_assert_eq(prefix_set_weight(PREFIXES_INTERNET6, 48), 75488);
	cr_assert_eq(prefix_set_total_weight(PREFIXES_INTERNET), 901899);
}

/* Whether (len, data) is one of the list's: a linear scan of a file
 * read again, independent of the table's index. */
static bool in_list(const struct prefix_list *l, unsigned len,
		    const uint8_t *data)
{
	for (uint64_t i = 0; i < l->n; i++)
		if (l->len[i] == len &&
		    memcmp(l->data + i * l->data_size, data, l->data_size) == 0)
			return true;
	return false;
}

static void path_of_internet(char *buf, size_t len)
{
	prefix_data_path(PREFIX_INTERNET_FILE, buf, len);
}

Test(prefix_list, a_sample_keeps_the_lists_shape, .timeout = 120)
{
	const uint64_t n = 2000;
	uint64_t want[PREFIX_MAX_LEN + 1], got[PREFIX_MAX_LEN + 1] = { 0 };
	struct prefix_list l;
	char path[4096], err[512];

	load(PREFIXES_INTERNET);
	path_of_internet(path, sizeof(path));
	cr_assert_eq(prefix_list_read(path, 4, &l, err, sizeof(err)), 0, "%s", err);
	struct prefix_table t = make(PREFIXES_INTERNET, n, 0, 0, 0);
	prefix_set_counts(PREFIXES_INTERNET, n, want);
	for (uint64_t i = 0; i < n; i++) {
		got[t.len[i]]++;
		cr_assert(in_list(&l, t.len[i], t.data + 4 * i),
			  "prefix %llu is not in the table",
			  (unsigned long long)i);
		for (uint64_t j = 0; j < i; j++)
			cr_assert(t.len[j] != t.len[i] ||
				  memcmp(t.data + 4 * j, t.data + 4 * i, 4),
				  "prefixes %llu and %llu are equal",
				  (unsigned long long)j, (unsigned long long)i);
	}
	for (unsigned len = 0; len <= 32; len++)
		cr_assert_eq(got[len], want[len], "/%u: %llu, not %llu", len,
			     (unsigned long long)got[len],
			     (unsigned long long)want[len]);
	cr_assert_gt(want[24], n / 2, "the table is mostly /24s");
	prefix_table_free(&t);
	prefix_list_free(&l);
}

Test(prefix_list, the_whole_table_is_every_prefix_once, .timeout = 120)
{
	const uint64_t n = 901899;
	struct prefix_table t = make(PREFIXES_INTERNET, n, 64, 0, 0);
	uint64_t by_len[33] = { 0 };
	for (uint64_t i = 0; i < n; i++)
		by_len[t.len[i]]++;
	for (unsigned len = 0; len <= 32; len++)
		cr_assert_eq(by_len[len], prefix_set_weight(PREFIXES_INTERNET, len));
	/* the order is shuffled: the file's is sorted by address */
	unsigned ascending = 0;
	for (uint64_t i = 1; i < 1000; i++)
		ascending += memcmp(t.data + 4 * (i - 1), t.data + 4 * i, 4) < 0;
	cr_assert_lt(ascending, 700, "%u of 999 in ascending order", ascending);
	prefix_table_free(&t);
}

static char *write_file(const char *name, const char *text)
{
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Two IPv4 prefixes: 10.0.0.0/9 covers twice what 10.128.0.0/10 does. */
Test(prefix_list, hits_spread_over_the_covered_space_by_its_size)
{
	char *path = write_file("two.txt", "10.0.0.0/9\n10.128.0.0/10\n");
	prefix_set_use_file(path);
	load(PREFIXES_FILE);
	const uint64_t hits = 30000;
	struct prefix_table t = make(PREFIXES_FILE, 2, 0, hits, 1000);
	uint64_t in_9 = 0;
	for (uint64_t k = 0; k < hits; k++) {
		const uint8_t *a = t.hit + 4 * k;
		cr_assert(prefix_table_covers(&t, a));
		cr_assert_eq(a[0], 10);
		cr_assert(a[1] < 0xc0, "10.%u... is outside both", a[1]);
		in_9 += a[1] < 0x80;
	}
	/* 2/3 expected: 20000, sd about 82; 19500..20500 is 6 sd */
	cr_assert(in_9 > 19500 && in_9 < 20500, "%llu of %llu in the /9",
		  (unsigned long long)in_9, (unsigned long long)hits);
	for (uint64_t j = 0; j < 1000; j++)
		cr_assert(!prefix_table_covers(&t, t.miss + 4 * j));
	prefix_table_free(&t);
	free(path);
}

Test(prefix_list, dense_is_the_kernels_benchmark_keys)
{
	struct prefix_table t = make(PREFIXES_DENSE, 1000, 64, 0, 100);
	cr_assert(prefix_set_full_length(PREFIXES_DENSE));
	for (uint32_t i = 0; i < 1064; i++) {
		uint32_t v;
		memcpy(&v, t.data + 4 * i, 4);
		cr_assert_eq(v, i, "prefix %u holds %u", i, v);
		cr_assert_eq(t.len[i], 32);
	}
	for (uint64_t j = 0; j < 100; j++)
		cr_assert(!prefix_table_covers(&t, t.miss + 4 * j));
	prefix_table_free(&t);
}

/* The message prefix_list_read gives for text, which must start with
 * "PATH:LINE: " when line > 0. */
static int read_text(const char *text, uint32_t data_size, unsigned line,
		     const char *says)
{
	char err[512], want[4200];
	struct prefix_list l;
	char *path = write_file("list.txt", text);
	int rc = prefix_list_read(path, data_size, &l, err, sizeof(err));
	if (rc == 0) {
		prefix_list_free(&l);
	} else {
		snprintf(want, sizeof(want), "%s:%u: ", path, line);
		if (line)
			cr_assert(strncmp(err, want, strlen(want)) == 0,
				  "'%s' does not start with '%s'", err, want);
		cr_assert(strstr(err, says), "'%s' does not say '%s'", err, says);
	}
	free(path);
	return rc;
}

Test(prefix_list, bad_lines_are_named_by_file_and_line)
{
	cr_assert_eq(read_text("# c\n10.0.0.0/8\nfoo\n", 4, 3, "not a CIDR"),
		     -EINVAL);
	cr_assert_eq(read_text("10.0.0.0/8\n\n300.0.0.0/8\n", 4, 3,
			       "no IPv4 or IPv6 address"), -EINVAL);
	cr_assert_eq(read_text("10.0.0.0/33\n", 4, 1, "0 to 32"), -EINVAL);
	cr_assert_eq(read_text("2001::/129\n", 16, 1, "0 to 128"), -EINVAL);
	cr_assert_eq(read_text("10.0.0.0/8x\n", 4, 1, "0 to 32"), -EINVAL);
	cr_assert_eq(read_text("10.1.0.1/16\n", 4, 1, "(10.1.0.0/16?)"), -EINVAL);
	cr_assert_eq(read_text("10.0.0.0/8\n 10.0.0.0/8 # again\n", 4, 2,
			       "listed twice (first on line 1)"), -EINVAL);
	cr_assert_eq(read_text("2001::/16\n", 4, 0, "no IPv4 prefix (1 IPv6 one"),
		     -ENODATA);
	cr_assert_eq(read_text("# nothing\n", 16, 0, "no IPv6 prefix"), -ENODATA);
	/* both families: each read keeps its own */
	cr_assert_eq(read_text("2001::/16\n10.0.0.0/8\n", 16, 0, ""), 0);
}

Test(prefix_list, a_missing_file_is_its_errno)
{
	struct prefix_list l;
	char err[512];
	cr_assert_eq(prefix_list_read("/nonexistent/x.txt", 4, &l, err,
				      sizeof(err)), -ENOENT);
	cr_assert_str_eq(err, "/nonexistent/x.txt: No such file or directory");
}

Test(prefix_list, gzip_and_plain_read_alike)
{
	char gz[4200], err[512];
	struct prefix_list a, b;
	const char *text = "192.0.2.0/24\n10.0.0.0/8\n2001:db8::/32\n0.0.0.0/0\n";
	char *plain = write_file("plain.txt", text);
	snprintf(gz, sizeof(gz), "%s/packed.txt.gz", dir);
	gzFile f = gzopen(gz, "wb");
	cr_assert_not_null(f);
	gzputs(f, text);
	gzclose(f);
	cr_assert_eq(prefix_list_read(plain, 4, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(prefix_list_read(gz, 4, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(a.n, 3);
	cr_assert_eq(a.other, 1);
	cr_assert_eq(b.n, a.n);
	cr_assert_eq(memcmp(a.len, b.len, a.n), 0);
	cr_assert_eq(memcmp(a.data, b.data, 4 * a.n), 0);
	cr_assert_eq(a.len[2], 0, "0.0.0.0/0 is a prefix of length 0");
	prefix_list_free(&a);
	prefix_list_free(&b);
	free(plain);
}

Test(prefix_list, more_entries_than_the_table_holds_are_refused)
{
	char err[512];
	load(PREFIXES_INTERNET);
	cr_assert_eq(prefix_set_fits(PREFIXES_INTERNET, 901899, err, sizeof(err)), 0);
	cr_assert_neq(prefix_set_fits(PREFIXES_INTERNET, 901900, err, sizeof(err)), 0);
	cr_assert(strstr(err, "holds 901899 IPv4 prefixes"), "%s", err);
}
