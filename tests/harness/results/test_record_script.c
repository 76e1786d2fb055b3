/* SPDX-License-Identifier: MIT */
/*
 * test_record_script.c: how maplab finds the Python scripts that came with
 * it (record.h, record_find_script_from): beside its executable in the
 * build tree, then where `meson install` put them, then the source tree;
 * and, where none is there, one line naming every folder it looked in.
 * A made-up tree under /tmp: an executable's folder (never run, only its
 * path matters), an install's share/maplab, a source folder.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/results/record.h"

TestSuite(record_script, .timeout = 30);

static char root[PATH_MAX];

/* root/rel made (with its parents), and root/rel/name written where name
 * is not NULL. */
static void make(const char *rel, const char *name)
{
	char path[PATH_MAX * 2], cmd[PATH_MAX * 3];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	cr_assert_eq(system(cmd), 0);
	if (!name)
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", root, rel, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("print('stub')\n", f);
	cr_assert_eq(fclose(f), 0);
}

static void fresh_root(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(root, sizeof(root), "/tmp/maplab-test-record-script-%d",
		 (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
	make("prefix/bin", NULL);
	make("src", NULL);
}

static void remove_root(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

/* record_find_script_from for an executable at root/prefix/bin/maplab,
 * the install at ../share/maplab from it, the source at root/src. */
static int find(const char *name, char *path, char *err)
{
	char exe[PATH_MAX + 32], src[PATH_MAX + 8];
	snprintf(exe, sizeof(exe), "%s/prefix/bin/maplab", root);
	snprintf(src, sizeof(src), "%s/src", root);
	return record_find_script_from(exe, "../share/maplab", src, name, path,
				       PATH_MAX, err, 1024);
}

static void expect_found(const char *rel)
{
	char path[PATH_MAX], err[1024] = "", want[PATH_MAX * 2];
	snprintf(want, sizeof(want), "%s/%s/report.py", root, rel);
	cr_assert_eq(find("report.py", path, err), 0, "%s", err);
	cr_expect_str_eq(path, want);
}

/* Nothing anywhere: -ENOENT, and the one line names the three folders. */
Test(record_script, none_names_every_place_looked, .init = fresh_root,
     .fini = remove_root)
{
	char path[PATH_MAX], err[1024] = "", want[PATH_MAX * 4];
	cr_assert_eq(find("report.py", path, err), -ENOENT);
	snprintf(want, sizeof(want), "report.py is not in "
		 "%s/prefix/bin/../harness/results, "
		 "%s/prefix/bin/../share/maplab nor %s/src: run maplab from "
		 "its build tree, or install it with meson install", root, root,
		 root);
	cr_expect_str_eq(err, want);
	cr_expect_null(strchr(err, '\n'));
}

/* The source tree is the last resort... */
Test(record_script, the_source_tree_last, .init = fresh_root,
     .fini = remove_root)
{
	make("src", "report.py");
	expect_found("src");
}

/* ...an install beside the executable comes before it (a deployed maplab
 * runs the scripts installed with it, not a tree that may have moved on)... */
Test(record_script, the_install_before_the_source_tree, .init = fresh_root,
     .fini = remove_root)
{
	make("src", "report.py");
	make("prefix/share/maplab", "report.py");
	expect_found("prefix/share/maplab");
}

/* ...and the build tree's copies come first. */
Test(record_script, the_build_tree_first, .init = fresh_root,
     .fini = remove_root)
{
	make("src", "report.py");
	make("prefix/share/maplab", "report.py");
	make("prefix/harness/results", "report.py");
	expect_found("prefix/harness/results");
}

/* Each script is looked for by its own name. */
Test(record_script, each_script_by_its_name, .init = fresh_root,
     .fini = remove_root)
{
	char path[PATH_MAX], err[1024] = "";
	make("prefix/share/maplab", "report.py");
	cr_expect_eq(find("findings.py", path, err), -ENOENT);
	cr_expect(strstr(err, "findings.py is not in ") == err, "%s", err);
}

/* An absolute install folder (bindir or datadir outside the prefix) is
 * taken as it is; with no executable, only the source tree is looked in. */
Test(record_script, absolute_install_and_no_executable, .init = fresh_root,
     .fini = remove_root)
{
	char path[PATH_MAX], err[1024] = "", exe[PATH_MAX + 32],
	     data[PATH_MAX + 32], src[PATH_MAX + 8], want[PATH_MAX * 2];
	make("elsewhere", "report.py");
	snprintf(exe, sizeof(exe), "%s/prefix/bin/maplab", root);
	snprintf(data, sizeof(data), "%s/elsewhere", root);
	snprintf(src, sizeof(src), "%s/src", root);
	cr_assert_eq(record_find_script_from(exe, data, src, "report.py", path,
					     sizeof(path), err, sizeof(err)), 0,
		     "%s", err);
	snprintf(want, sizeof(want), "%s/elsewhere/report.py", root);
	cr_expect_str_eq(path, want);
	cr_assert_eq(record_find_script_from(NULL, data, src, "report.py", path,
					     sizeof(path), err, sizeof(err)),
		     -ENOENT);
	snprintf(want, sizeof(want), "report.py is not in %s/src: run maplab "
		 "from its build tree, or install it with meson install", root);
	cr_expect_str_eq(err, want);
}

/* The running maplab's own: this test's executable sits in the build's
 * tests/, as maplab in its cli/, so the scripts found are the copies the
 * build made in its harness/results (harness/results/meson.build), not the
 * source tree's. */
Test(record_script, the_build_copies_the_scripts)
{
	char exe[PATH_MAX], copy[PATH_MAX * 2], want[PATH_MAX];
	char path[PATH_MAX], err[1024] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	cr_assert_gt(n, 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	for (const char *const *s = (const char *const[]){ "report.py",
		     "plotting.py", "findings.py", NULL }; *s; s++) {
		snprintf(copy, sizeof(copy), "%s/../harness/results/%s", exe, *s);
		cr_assert_not_null(realpath(copy, want), "no %s", copy);
		cr_assert_eq(record_find_script(*s, path, sizeof(path), err,
						sizeof(err)), 0, "%s", err);
		cr_expect_str_eq(path, want);
	}
}
