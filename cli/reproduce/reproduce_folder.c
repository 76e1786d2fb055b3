/* SPDX-License-Identifier: MIT */
/*
 * reproduce_folder.c: the folder a run writes (reproduce.h, "The
 * folder"; docs/findings.md, "The folder"): made or taken before any
 * step, refused where it holds another run's files, and cleared of what
 * an interrupted step or findings.py left.  Only the names a run writes
 * (is_run_file) are ever removed.
 */
#include "cli/cli.h"
#include "cli/reproduce/reproduce.h"
#include "harness/common/parse.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && !strcmp(s + n - t, tail);
}

/* The names a run writes into its folder (docs/findings.md's table), and
 * the marker of an unfinished one. */
static bool is_run_file(const char *name)
{
	return !strcmp(name, "results.jsonl") || !strcmp(name, "findings.md") ||
	       !strcmp(name, "raw") || !strncmp(name, "INCOMPLETE", 10) ||
	       !strncmp(name, "explain-", 8) ||
	       (!strncmp(name, "finding", 7) &&
		(ends_with(name, ".png") || ends_with(name, ".svg")));
}

/*
 * A folder that holds another run's files is refused, not written over:
 * its findings.md replaced, its plots and raw files left beside the new
 * ones, would make one folder of two runs.  Moving them aside instead
 * would keep two runs in one place, under names the user did not choose;
 * a refusal costs one command and leaves the earlier run where its
 * reader expects it (docs/findings.md).  The first of results.jsonl,
 * findings.md, INCOMPLETE is named where there, else any run file.
 */
static int refuse_earlier_run(const char *dir, const char *shown)
{
	static const char *const first[] = { "results.jsonl", "findings.md",
					     "INCOMPLETE" };
	char path[4096], name[256] = "";
	struct stat st;
	for (unsigned i = 0; i < 3 && !name[0]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, first[i]);
		if (!lstat(path, &st))
			snprintf(name, sizeof(name), "%s", first[i]);
	}
	DIR *d = name[0] ? NULL : opendir(dir);
	if (!name[0] && !d)
		return cli_error("reproduce", "--out %s: %s", shown, strerror(errno));
	for (struct dirent *e; d && !name[0] && (e = readdir(d));)
		if (is_run_file(e->d_name))
			snprintf(name, sizeof(name), "%s", e->d_name);
	if (d)
		closedir(d);
	if (!name[0])
		return 0;
	char shown_name[256];
	return cli_error("reproduce", "--out %s holds another run (%s/%s): choose "
			 "another folder, or remove that run's files first", shown,
			 shown, parse_printable(name, shown_name, sizeof(shown_name)));
}

/* DIR and DIR/raw, made if need be; a DIR that cannot take files, or
 * holds another run, fails here, before any run.  *made: DIR was made. */
int repro_make_dirs(const char *dir, bool *made)
{
	char path[4096], shown[512];
	int rc;
	parse_printable(dir, shown, sizeof(shown));
	*made = !mkdir(dir, 0777);
	if (!*made && errno != EEXIST)
		return cli_error("reproduce", "--out %s: %s", shown, strerror(errno));
	if ((rc = refuse_earlier_run(dir, shown)))
		return rc;
	snprintf(path, sizeof(path), "%s/raw", dir);
	if (mkdir(path, 0777) || access(path, W_OK)) {
		rc = cli_error("reproduce", "--out %s: %s", shown, strerror(errno));
		if (*made)
			rmdir(dir);
		return rc;
	}
	return 0;
}

/* The folder as make_dirs found it, where a run stopped before its first
 * step: only what this run made, and only if empty. */
void repro_unmake_dirs(const char *dir, bool made)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/INCOMPLETE", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/raw", dir);
	rmdir(path);
	if (made)
		rmdir(dir);
}

/* Every file in dir, then dir: an explain step's folder, which holds its
 * report and flame graphs and nothing deeper. */
static void remove_flat_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

void repro_step_paths(const char *dir, const struct repro_step *s, char *raw,
		       char *xdir, size_t len)
{
	snprintf(raw, len, "%s/raw/%s.jsonl", dir, s->id);
	snprintf(xdir, len, "%s/explain-%s", dir, s->id);
}

/* What an interrupted step left (its raw file, empty or cut short; an
 * explain step's folder) is not a result: removed. */
void repro_remove_step_output(const char *dir, const struct repro_step *s)
{
	char raw[4096], xdir[4096];
	repro_step_paths(dir, s, raw, xdir, sizeof(raw));
	unlink(raw);
	if (s->explain)
		remove_flat_dir(xdir);
}

/* findings.py's output, where it was interrupted: findings.md and the
 * plots (finding<N>-*.png, .svg).  They are this run's: the folder held
 * no other run's (refuse_earlier_run). */
void repro_remove_findings_output(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (!strcmp(e->d_name, "findings.md") ||
		    (!strncmp(e->d_name, "finding", 7) &&
		     (ends_with(e->d_name, ".png") || ends_with(e->d_name, ".svg"))))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}
