/* SPDX-License-Identifier: MIT */
/*
 * harness/common/outfile.h: a failed write is found at whichever flush
 * meets it, keeps its errno to the end, and leaves no partial file: a new
 * file is removed, an appended one cut back to its size before.
 *
 * A full disk without root: /dev/full answers every write with ENOSPC;
 * a regular file past RLIMIT_FSIZE answers with EFBIG (SIGXFSZ ignored).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/common/outfile.h"

static char dir[] = "/tmp/maplab-outfile-XXXXXX";

static void make_dir(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(outfile, .init = make_dir, .fini = remove_dir);

/* More than stdio buffers, so that some writes meet the disk mid-run. */
static void write_lots(FILE *f)
{
	for (int i = 0; i < 4000; i++)
		fprintf(f, "record %d of a run\n", i);
}

static void limit_file_size(rlim_t bytes)
{
	struct rlimit r = { bytes, bytes };
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &r), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

Test(outfile, a_whole_file_is_kept)
{
	char path[64];
	struct outfile o;
	snprintf(path, sizeof(path), "%s/ok.txt", dir);
	cr_assert_eq(out_open(&o, path, OUT_TRUNCATE), 0);
	write_lots(o.f);
	cr_assert_eq(out_close(&o), 0);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_gt(st.st_size, 60000);
}

/* stdio's own fclose answers 0 here once a flush has failed: the data is
 * gone and nothing says so.  The outfile keeps the flush's ENOSPC. */
Test(outfile, a_full_disk_at_a_flush_is_kept_to_the_close)
{
	struct outfile o;
	cr_assert_eq(out_open(&o, "/dev/full", OUT_TRUNCATE), 0);
	fputs("a line\n", o.f);
	cr_assert_eq(out_flush(&o), -ENOSPC);
	cr_assert_eq(out_flush(&o), -ENOSPC, "the error is sticky");
	cr_assert_eq(out_close(&o), -ENOSPC);
	char msg[256];
	cr_assert_str_eq(out_error(&o, -ENOSPC, msg, sizeof(msg)),
			 "/dev/full: No space left on device");
}

/* A writer that flushes through stdio and does not look (a library, a
 * fprintf that fills the buffer): stdio drops the buffer and keeps only
 * its flag, so the errno must have been kept at the write itself. */
Test(outfile, a_flush_nobody_looked_at_keeps_its_errno)
{
	struct outfile o;
	cr_assert_eq(out_open(&o, "/dev/full", OUT_TRUNCATE), 0);
	fputs("a line\n", o.f);
	fflush(o.f);
	cr_assert_eq(out_close(&o), -ENOSPC, "not EIO, not 0");
}

Test(outfile, a_full_disk_found_only_at_the_close)
{
	struct outfile o;
	cr_assert_eq(out_open(&o, "/dev/full", OUT_TRUNCATE), 0);
	write_lots(o.f);
	cr_assert_eq(out_close(&o), -ENOSPC);
}

Test(outfile, a_new_file_that_failed_is_removed)
{
	char path[64];
	struct outfile o;
	snprintf(path, sizeof(path), "%s/partial.txt", dir);
	limit_file_size(8192);
	cr_assert_eq(out_open(&o, path, OUT_TRUNCATE), 0);
	write_lots(o.f);
	cr_assert_eq(out_close(&o), -EFBIG);
	cr_assert_eq(access(path, F_OK), -1, "the partial file is gone");
	cr_assert_eq(errno, ENOENT);
}

Test(outfile, a_failed_append_leaves_the_earlier_records)
{
	char path[64], back[64] = { 0 };
	struct outfile o;
	snprintf(path, sizeof(path), "%s/results.jsonl", dir);
	write_file(path, "{\"earlier\": 1}\n");
	limit_file_size(8192);
	cr_assert_eq(out_open(&o, path, OUT_APPEND), 0);
	write_lots(o.f);
	cr_assert_eq(out_close(&o), -EFBIG);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	size_t n = fread(back, 1, sizeof(back) - 1, f);
	fclose(f);
	cr_assert_eq(n, strlen("{\"earlier\": 1}\n"));
	cr_assert_str_eq(back, "{\"earlier\": 1}\n");
}

Test(outfile, discard_removes_a_file_that_was_written_well)
{
	char path[64];
	struct outfile o;
	snprintf(path, sizeof(path), "%s/interrupted.txt", dir);
	cr_assert_eq(out_open(&o, path, OUT_TRUNCATE), 0);
	fputs("half a report\n", o.f);
	out_discard(&o);
	cr_assert_eq(access(path, F_OK), -1);
}

Test(outfile, a_folder_that_does_not_exist_fails_at_open)
{
	struct outfile o;
	cr_assert_eq(out_open(&o, "/nonexistent-maplab/x.txt", OUT_TRUNCATE), -ENOENT);
}

Test(outfile, a_device_is_written_and_left_alone)
{
	struct outfile o;
	cr_assert_eq(out_open(&o, "/dev/null", OUT_TRUNCATE), 0);
	write_lots(o.f);
	cr_assert_eq(out_close(&o), 0);
	cr_assert_eq(access("/dev/null", W_OK), 0, "never unlinked");
}

Test(outfile, stream_error_names_the_write_errno)
{
	FILE *f = fopen("/dev/full", "w");
	cr_assert_not_null(f);
	fputs("x", f);
	cr_assert_eq(stream_error(f), ENOSPC);
	fclose(f);
	f = fopen("/dev/null", "w");
	fputs("x", f);
	cr_assert_eq(stream_error(f), 0);
	fclose(f);
}
