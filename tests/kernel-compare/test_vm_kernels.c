/* SPDX-License-Identifier: MIT */
/*
 * vm_kernels (kernel-compare/vm/vm_kernels.c): which kernel a VM boots.
 * The cache folder's three sources, a path's bzImage check on made-up
 * images and files that are none, a series read from a made-up cache
 * (no network, nothing printed), a cache that is not right, and a series
 * maplab does not know.  Nothing here fetches: set MAPLAB_FETCH_TEST=1 to
 * fetch the three series for real (into MAPLAB_KERNEL_CACHE, or a
 * temporary folder), twice, the second time from the cache alone.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel-compare/vm/vm.h"
#include "tests/common/temp_dir.h"

TEMP_DIR_SUITE(vm_kernels, "maplab-kernels");

/* --- the cache folder ----------------------------------------------------- */

Test(vm_kernels, the_cache_is_maplabs_variable_then_xdgs_then_homes)
{
	char buf[256];
	cr_assert_eq(setenv("MAPLAB_KERNEL_CACHE", "/srv/kernels", 1), 0);
	cr_assert_eq(setenv("XDG_CACHE_HOME", "/xdg", 1), 0);
	cr_assert_eq(setenv("HOME", "/home/u", 1), 0);
	cr_expect_str_eq(vm_cache_dir(buf, sizeof(buf)), "/srv/kernels");
	cr_assert_eq(unsetenv("MAPLAB_KERNEL_CACHE"), 0);
	cr_expect_str_eq(vm_cache_dir(buf, sizeof(buf)), "/xdg/maplab/kernels");
	/* The XDG spec: a relative XDG_CACHE_HOME is ignored; so is "". */
	cr_assert_eq(setenv("XDG_CACHE_HOME", "rel", 1), 0);
	cr_expect_str_eq(vm_cache_dir(buf, sizeof(buf)),
			 "/home/u/.cache/maplab/kernels");
	cr_assert_eq(setenv("MAPLAB_KERNEL_CACHE", "", 1), 0);
	cr_assert_eq(unsetenv("XDG_CACHE_HOME"), 0);
	cr_expect_str_eq(vm_cache_dir(buf, sizeof(buf)),
			 "/home/u/.cache/maplab/kernels");
	cr_assert_eq(unsetenv("HOME"), 0);
	cr_expect_str_eq(vm_cache_dir(buf, sizeof(buf)),
			 "/var/cache/maplab/kernels");
	/* A path that does not fit is NULL, never a cut one. */
	cr_expect_null(vm_cache_dir(buf, 10));
	cr_expect_str_eq(vm_known_kernels(), "5.10, 6.1, 6.12");
}

/* --- made-up kernel images ------------------------------------------------ */

/*
 * A file of len bytes holding a bzImage's setup header (when hdrs): "HdrS"
 * at 0x202, kernel_version (0x20E) = 0x100, so the version string at
 * 0x300.  The rest is filler.
 */
static void make_image(const char *path, size_t len, bool hdrs,
		       const char *version)
{
	unsigned char *b = calloc(1, len);
	cr_assert_not_null(b);
	memset(b, 0xcc, len);
	if (hdrs) {
		cr_assert_geq(len, 0x210);
		memcpy(b + 0x202, "HdrS", 4);
		b[0x20E] = 0x00;
		b[0x20F] = 0x01;
		if (version) {
			cr_assert_leq(0x300 + strlen(version) + 1, len);
			memcpy(b + 0x300, version, strlen(version) + 1);
		}
	}
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(b, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	free(b);
}

static const char debian_version[] = "6.12.118+deb13-cloud-amd64 "
	"(debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian "
	"6.12.118-1 (2026-11-30)";

Test(vm_kernels, a_bzimage_path_gives_its_release_and_series)
{
	char path[128], err[512];
	struct vm_kernel k;
	snprintf(path, sizeof(path), "%s/vmlinuz", dir);
	make_image(path, 0x1000, true, debian_version);
	cr_assert_eq(vm_kernel_resolve(path, false, &k, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_str_eq(k.release, "6.12.118+deb13-cloud-amd64");
	cr_expect_str_eq(k.series, "6.12");
	cr_expect_str_eq(k.path, path);
	cr_expect_str_eq(k.spec, path);

	make_image(path, 0x1000, true, "5.10.0-46-cloud-amd64 (x) #1");
	cr_assert_eq(vm_kernel_resolve(path, false, &k, err, sizeof(err)), 0);
	cr_expect_str_eq(k.release, "5.10.0-46-cloud-amd64");
	cr_expect_str_eq(k.series, "5.10");
}

/* A file here named without a '/' is a path too, unless it is a series
 * maplab knows. */
Test(vm_kernels, a_file_in_this_folder_is_a_path)
{
	char err[512];
	struct vm_kernel k;
	cr_assert_eq(chdir(dir), 0);
	make_image("mykernel", 0x400, true, "6.1.0-57-cloud-amd64");
	cr_assert_eq(vm_kernel_resolve("mykernel", true, &k, err, sizeof(err)),
		     0, "%s", err);
	cr_expect_str_eq(k.path, "mykernel");
	cr_expect_str_eq(k.series, "6.1");
}

static void expect_refused(const char *spec, const char *want)
{
	char err[512] = "";
	struct vm_kernel k;
	cr_expect_eq(vm_kernel_resolve(spec, false, &k, err, sizeof(err)), -1,
		     "%s was taken", spec);
	cr_expect_str_eq(err, want);
}

Test(vm_kernels, what_is_no_kernel_image_is_one_line)
{
	char path[128], want[256];

	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 100; i++)
		fprintf(f, "a text file, line %d\n", i);
	cr_assert_eq(fclose(f), 0);
	snprintf(want, sizeof(want), "%s is not a Linux kernel image (no "
		 "bzImage header)", path);
	expect_refused(path, want);

	/* The header, but the file ends before kernel_version. */
	snprintf(path, sizeof(path), "%s/short", dir);
	make_image(path, 0x20E, false, NULL);
	snprintf(want, sizeof(want), "%s is not a Linux kernel image (no "
		 "bzImage header)", path);
	expect_refused(path, want);

	snprintf(path, sizeof(path), "%s/empty", dir);
	make_image(path, 1, false, NULL);
	snprintf(want, sizeof(want), "%s is not a Linux kernel image (no "
		 "bzImage header)", path);
	expect_refused(path, want);

	/* A header whose version string is not a release. */
	snprintf(path, sizeof(path), "%s/odd", dir);
	make_image(path, 0x400, true, "banana 1.2");
	snprintf(want, sizeof(want), "%s: its version 'banana' is not a "
		 "kernel release (MAJOR.MINOR...)", path);
	expect_refused(path, want);

	snprintf(want, sizeof(want), "%s: Is a directory", dir);
	expect_refused(dir, want);

	snprintf(path, sizeof(path), "%s/missing", dir);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	expect_refused(path, want);

	expect_refused("/dev/null", "/dev/null is not a regular file (a "
		       "kernel image is one)");
}

Test(vm_kernels, an_unknown_series_is_one_line)
{
	cr_assert_eq(chdir(dir), 0);	/* no file named so here */
	expect_refused("5.4", "no kernel '5.4': maplab fetches 5.10, 6.1 and "
		       "6.12; or give the path to a vmlinuz");
	expect_refused("banana", "no kernel 'banana': maplab fetches 5.10, "
		       "6.1 and 6.12; or give the path to a vmlinuz");
	expect_refused("", "no kernel '': maplab fetches 5.10, 6.1 and 6.12; "
		       "or give the path to a vmlinuz");
}

/* --- a series from the cache ---------------------------------------------- */

/* CACHE/<series>/current naming image, an image with version. */
static void make_cached(const char *series, const char *file,
			const char *version)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, series);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/current", dir, series);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\nlinux-image-test 1\n", file);
	cr_assert_eq(fclose(f), 0);
	if (version) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, series, file);
		make_image(path, 0x400, true, version);
	}
}

/* A fetched series is read from the cache alone: no apt (PATH empty),
 * no line on stderr. */
Test(vm_kernels, a_fetched_series_comes_from_the_cache_quietly)
{
	char err[512], want[256];
	struct vm_kernel k;
	cr_redirect_stderr();
	cr_assert_eq(setenv("MAPLAB_KERNEL_CACHE", dir, 1), 0);
	cr_assert_eq(setenv("PATH", "/nonexistent", 1), 0);
	make_cached("6.12", "vmlinuz-6.12.7-test", "6.12.7-test #1");
	cr_assert_eq(vm_kernel_resolve("6.12", false, &k, err, sizeof(err)), 0,
		     "%s", err);
	snprintf(want, sizeof(want), "%s/6.12/vmlinuz-6.12.7-test", dir);
	cr_expect_str_eq(k.path, want);
	cr_expect_str_eq(k.release, "6.12.7-test");
	cr_expect_str_eq(k.series, "6.12");
	cr_expect_str_eq(k.spec, "6.12");
	fflush(stderr);
	cr_expect_stderr_eq_str("");
}

Test(vm_kernels, a_cache_that_is_not_right_says_how_to_fetch_again)
{
	char want[512];
	cr_assert_eq(setenv("MAPLAB_KERNEL_CACHE", dir, 1), 0);
	cr_assert_eq(setenv("PATH", "/nonexistent", 1), 0);

	make_cached("6.12", "vmlinuz-6.12.7-test", NULL);
	snprintf(want, sizeof(want), "kernel 6.12: %s/6.12/vmlinuz-6.12.7-"
		 "test: No such file or directory; rm -rf %s/6.12 to fetch it "
		 "again", dir, dir);
	expect_refused("6.12", want);

	make_cached("6.1", "vmlinuz-6.1.5", NULL);
	char path[256];
	snprintf(path, sizeof(path), "%s/6.1/vmlinuz-6.1.5", dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("not a kernel\n", f);
	cr_assert_eq(fclose(f), 0);
	snprintf(want, sizeof(want), "kernel 6.1: %s is not a Linux kernel "
		 "image (no bzImage header); rm -rf %s/6.1 to fetch it again",
		 path, dir);
	expect_refused("6.1", want);

	/* The image of another series. */
	make_cached("5.10", "vmlinuz-6.1.5", "6.1.5 #1");
	snprintf(want, sizeof(want), "kernel 5.10: %s/5.10/vmlinuz-6.1.5 is "
		 "kernel 6.1.5, not 5.10; rm -rf %s/5.10 to fetch it again",
		 dir, dir);
	expect_refused("5.10", want);
}

Test(vm_kernels, a_current_that_names_no_vmlinuz_is_refused)
{
	char want[512];
	cr_assert_eq(setenv("MAPLAB_KERNEL_CACHE", dir, 1), 0);
	make_cached("6.12", "../../etc/passwd", NULL);
	snprintf(want, sizeof(want), "kernel 6.12: %s/6.12/current names no "
		 "vmlinuz; rm -rf %s/6.12 to fetch it again", dir, dir);
	expect_refused("6.12", want);
}

/* --- fetching for real (MAPLAB_FETCH_TEST=1) ------------------------------ */

/* A suite of its own: a skipped test's fini does not run, and this one
 * makes its folder only when it does not skip. */
Test(vm_kernels_fetch, the_three_series_fetch_once_then_come_from_the_cache,
     .timeout = 600)
{
	const char *series[] = { "5.10", "6.1", "6.12" };
	const char *env = getenv("MAPLAB_FETCH_TEST");
	bool own_cache = !getenv("MAPLAB_KERNEL_CACHE");
	if (!env || strcmp(env, "1") != 0)
		cr_skip_test("fetches from deb.debian.org: "
			     "MAPLAB_FETCH_TEST=1");
	if (own_cache) {
		make_dir();
		cr_assert_eq(setenv("MAPLAB_KERNEL_CACHE", dir, 1), 0);
	}
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 3; i++) {
			char err[4096];
			struct vm_kernel k;
			struct timespec a, b;
			clock_gettime(CLOCK_MONOTONIC, &a);
			int rc = vm_kernel_resolve(series[i], false, &k, err,
						   sizeof(err));
			cr_assert_eq(rc, 0, "%s", err);
			clock_gettime(CLOCK_MONOTONIC, &b);
			double s = (double)(b.tv_sec - a.tv_sec) +
				   (double)(b.tv_nsec - a.tv_nsec) / 1e9;
			cr_log_info("%s: %s (%s), %.1f s", series[i],
				    k.release, k.path, s);
			cr_expect_str_eq(k.series, series[i]);
			if (pass == 1)
				cr_expect_lt(s, 1.0, "%s again took %.1f "
					     "s: not from the cache",
					     series[i], s);
		}
		/* The second pass may not reach apt at all. */
		cr_assert_eq(setenv("PATH", "/nonexistent", 1), 0);
	}
	if (own_cache)
		remove_dir();
}
