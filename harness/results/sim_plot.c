/* SPDX-License-Identifier: MIT */
/*
 * plot.c: sim's figures through gnuplot.  The data go to .dat files and
 * the drawing to a .gp script per figure, both kept in the directory, so
 * a figure can be redrawn (or drawn elsewhere) when gnuplot is missing.
 *
 *   pareto-<entries>.{dat,gp,png,svg}  miss ratio against Mreq/s at the
 *                                      highest thread count, a point per
 *                                      policy (opt: a dashed line)
 *   mrc.{dat,gp,png,svg}               miss ratio against entries, a line
 *                                      per policy, at the fewest threads
 */
#include "harness/results/sim_report.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

static double miss_ratio(const struct sim_row *w)
{
	return w->r.requests ? (double)w->r.misses / (double)w->r.requests : NAN;
}

static unsigned thread_extreme(const struct sim_report *rep, bool highest)
{
	unsigned t = rep->rows[0].threads;
	for (unsigned i = 1; i < rep->n; i++)
		if (highest ? rep->rows[i].threads > t : rep->rows[i].threads < t)
			t = rep->rows[i].threads;
	return t;
}

/* Whether row i is the first of its policy in the report. */
static bool first_of_policy(const struct sim_report *rep, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (strcmp(rep->rows[j].policy, rep->rows[i].policy) == 0)
			return false;
	return true;
}

static FILE *open_in(const char *dir, const char *name, char *path,
		     size_t len)
{
	if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(path, "w");
}

/* 0, or 1 when gnuplot is missing or fails. */
static int run_gnuplot(const char *script)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };
	pid_t pid;
	int status;
	if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0)
		return 1;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return 1;
	return 0;
}

static void script_head(FILE *g, const char *term, const char *out,
			const char *title, const char *xlabel)
{
	fprintf(g, "set terminal %s size 900,600 font 'sans,10'\n"
		"set output '%s'\nset title \"%s\" noenhanced\n"
		"set xlabel '%s'\nset ylabel 'miss ratio'\nset grid\n"
		"set key outside right noenhanced\n", term, out, title, xlabel);
}

/* One figure: its .dat written by the caller; the .gp for both terms. */
static int draw(const char *dir, const char *base, const char *title,
		const char *xlabel, const char *plot, char *note, size_t len)
{
	static const char *const terms[][2] = { { "pngcairo", "png" },
						{ "svg dynamic", "svg" } };
	char gp[4096], out[4096];
	int rc = 0;
	for (int t = 0; t < 2; t++) {
		char name[256];
		snprintf(name, sizeof(name), "%s-%s.gp", base, terms[t][1]);
		FILE *g = open_in(dir, name, gp, sizeof(gp));
		if (!g) {
			snprintf(note, len, "cannot write %s: %s", gp,
				 strerror(errno));
			return -errno;
		}
		snprintf(out, sizeof(out), "%s/%s.%s", dir, base, terms[t][1]);
		script_head(g, terms[t][0], out, title, xlabel);
		fputs(plot, g);
		fclose(g);
		if (!rc && run_gnuplot(gp)) {
			snprintf(note, len, "gnuplot is missing or failed (%s): the "
				 "data files and scripts are in %s", gp, dir);
			rc = 1;
		}
	}
	return rc;
}

/*
 * One block per policy (so each gets its own point type and a key entry:
 * labels beside points overlap where two policies agree, as a design and
 * the kernel's map do).  opt is no map, and its speed is its heap's: it is
 * drawn as a dashed line, the bound every policy sits above.
 */
/*
 * A figure's data file DIR/name (its path in path) and its gnuplot plot
 * text in memory (*plot, once *p is closed).  0, or -errno with a note.
 */
static int start_figure(const char *dir, const char *name, char *path,
			size_t path_len, FILE **d, FILE **p, char **plot,
			size_t *plen, char *note, size_t len)
{
	*d = open_in(dir, name, path, path_len);
	if (!*d) {
		int err = errno;
		snprintf(note, len, "cannot write %s: %s", path, strerror(err));
		return -err;
	}
	if (!(*p = open_memstream(plot, plen))) {
		fclose(*d);
		return -ENOMEM;
	}
	return 0;
}

static int pareto(const char *dir, const struct sim_report *rep,
		  uint32_t entries, unsigned threads, char *note, size_t len)
{
	char base[64], name[80], path[4096], title[512];
	char *plot = NULL;
	size_t plen = 0;
	unsigned block = 0;
	double opt = NAN;
	FILE *d, *p;
	snprintf(base, sizeof(base), "pareto-%u", entries);
	snprintf(name, sizeof(name), "%s.dat", base);
	int err = start_figure(dir, name, path, sizeof(path), &d, &p, &plot,
			       &plen, note, len);
	if (err)
		return err;
	fprintf(d, "# mreq_per_s miss_ratio, a block per policy (%u threads, "
		"%u entries)\n", threads, entries);
	fprintf(p, "set xlabel 'million requests per second (%u thread%s)'\n"
		"set yrange [0:*]\nplot ", threads, threads == 1 ? "" : "s");
	for (unsigned i = 0; i < rep->n; i++) {
		const struct sim_row *w = &rep->rows[i];
		if (w->entries != entries)
			continue;
		if (!strcmp(w->policy, "opt")) {
			opt = miss_ratio(w);
			continue;
		}
		if (w->threads != threads)
			continue;
		fprintf(d, "%s# %s\n%.6g %.6g\n", block ? "\n\n" : "",
			w->policy, w->r.mreq_per_s, miss_ratio(w));
		fprintf(p, "%s'%s' index %u using 1:2 with points pt %u ps 1.6 "
			"title '%s'", block ? ", " : "", path, block,
			block % 12 + 1, w->policy);
		block++;
	}
	if (!isnan(opt))
		fprintf(p, "%s%.6g with lines dt 2 lc 'black' title 'opt "
			"(offline bound)'", block ? ", " : "", opt);
	fputc('\n', p);
	fclose(p);
	fclose(d);
	snprintf(title, sizeof(title), "%s: %u entries, %u thread%s: miss ratio "
		 "against speed", rep->in->trace->name, entries, threads,
		 threads == 1 ? "" : "s");
	int rc = block || !isnan(opt)
			 ? draw(dir, base, title, "Mreq/s", plot, note, len) : 0;
	free(plot);
	return rc;
}

static int mrc(const char *dir, const struct sim_report *rep,
	       unsigned threads, char *note, size_t len)
{
	char path[4096], title[512];
	char *plot = NULL;
	size_t plen = 0;
	unsigned block = 0;
	FILE *d, *p;
	int err = start_figure(dir, "mrc.dat", path, sizeof(path), &d, &p,
			       &plot, &plen, note, len);
	if (err)
		return err;
	fputs("set logscale x\nplot ", p);
	for (unsigned i = 0; i < rep->n; i++) {
		if (!first_of_policy(rep, i))
			continue;
		const char *pol = rep->rows[i].policy;
		fprintf(d, "%s# %s\n", block ? "\n\n" : "", pol);
		for (unsigned j = i; j < rep->n; j++) {
			const struct sim_row *w = &rep->rows[j];
			if (strcmp(w->policy, pol) || (w->threads != threads &&
						       strcmp(pol, "opt")))
				continue;
			fprintf(d, "%u %.6g\n", w->entries, miss_ratio(w));
		}
		fprintf(p, "%s'%s' index %u using 1:2 with linespoints pt %u "
			"title '%s'", block ? ", " : "", path, block,
			block % 12 + 1, pol);
		block++;
	}
	fputc('\n', p);
	fclose(p);
	fclose(d);
	snprintf(title, sizeof(title), "%s: miss ratio against cache size "
		 "(%u distinct keys, %u thread%s)", rep->in->trace->name,
		 rep->in->distinct, threads, threads == 1 ? "" : "s");
	int rc = draw(dir, "mrc", title, "entries (cache size)", plot, note,
		      len);
	free(plot);
	return rc;
}

int sim_plot(const char *dir, const struct sim_report *rep, char *note,
	     size_t notelen)
{
	int rc = 0, r;
	note[0] = '\0';
	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(note, notelen, "cannot create %s: %s", dir,
			 strerror(errno));
		return -errno;
	}
	if (rep->n == 0)
		return 0;
	unsigned hi = thread_extreme(rep, true), lo = thread_extreme(rep, false);
	for (unsigned i = 0; i < rep->n && rc >= 0; i++) {
		bool first = true;
		for (unsigned j = 0; j < i; j++)
			if (rep->rows[j].entries == rep->rows[i].entries)
				first = false;
		if (first && (r = pareto(dir, rep, rep->rows[i].entries, hi, note,
					 notelen)))
			rc = r < 0 ? r : 1;
	}
	if (rc >= 0 && (r = mrc(dir, rep, lo, note, notelen)))
		rc = r;
	return rc;
}
