/* SPDX-License-Identifier: MIT */
/*
 * temp_dir.h: a test suite's own folder under /tmp, made before each test
 * and removed with all it holds after it.  Removed without rm: some tests
 * empty PATH, to show that nothing is run.
 *
 * Use: TEMP_DIR_SUITE(name, "maplab-name") declares `dir` (the folder's
 * path) and the criterion TestSuite whose init and fini make and remove it.
 */
#ifndef MAPLAB_TEST_TEMP_DIR_H
#define MAPLAB_TEST_TEMP_DIR_H

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int temp_dir_remove_one(const char *path, const struct stat *st,
				      int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

#define TEMP_DIR_SUITE(suite, prefix)                                        \
	static char dir[] = "/tmp/" prefix "-XXXXXX";                        \
	static void make_dir(void)                                           \
	{                                                                    \
		cr_assert_not_null(mkdtemp(dir));                            \
	}                                                                    \
	static void remove_dir(void)                                         \
	{                                                                    \
		cr_assert_eq(nftw(dir, temp_dir_remove_one, 16,              \
				  FTW_DEPTH | FTW_PHYS), 0, "%s: %s", dir,   \
			     strerror(errno));                               \
	}                                                                    \
	TestSuite(suite, .init = make_dir, .fini = remove_dir)

#endif
