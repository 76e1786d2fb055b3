/* SPDX-License-Identifier: MIT */
/*
 * trace_batch.c: the traces of a run, read or generated, and their kernel
 * side in a virtual machine (trace_batch.h).
 */
#include "cli/trace/trace_batch.h"
#include "harness/common/grow.h"
#include "harness/common/parse.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * A whole stream as text, malloc'd (*len bytes and a NUL), or NULL on a
 * read error (errno set).  It stops reading once a line runs past
 * TRACE_MAX_LINE: the parser then refuses that line, as it would reading
 * the stream itself (/dev/zero is not read until memory runs out).
 */
static char *read_all(FILE *f, size_t *len)
{
	char *text = NULL, buf[1 << 16];
	size_t n, line = 0;
	FILE *out = open_memstream(&text, len);
	if (!out)
		return NULL;
	while (line <= TRACE_MAX_LINE && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		const char *nl = memrchr(buf, '\n', n);
		line = nl ? (size_t)(buf + n - nl - 1) : line + n;
		fwrite(buf, 1, n, out);
	}
	int failed = ferror(f);
	fclose(out);
	if (failed) {
		free(text);
		errno = EIO;
		return NULL;
	}
	return text;
}

static struct trace_item *add_item(struct trace_batch *b, size_t *cap)
{
	struct trace_item *items = grow_array(b->items, cap, b->n + 1,
					      sizeof(*items), 16);
	if (!items)
		return NULL;
	b->items = items;
	struct trace_item *it = &b->items[b->n++];
	memset(it, 0, sizeof(*it));
	return it;
}

/* The item's text parsed for the run's machine: 0 or EXIT_USAGE. */
static int parse_item(const struct trace_cmd *c, struct trace_item *it)
{
	char err[512];
	if (it->text && it->len == 0) /* fmemopen takes no empty buffer */
		return 0;
	FILE *f = it->text ? fmemopen(it->text, it->len, "r") : NULL;
	if (!f)
		return cli_error(c->cmd, "%s: out of memory", it->name);
	/* the text's own length: a NUL in it is the parser's to refuse */
	int rc = trace_parse_for(f, it->name, trace_cmd_machine_cpus(c),
				 &it->t, err, sizeof(err));
	fclose(f);
	return rc ? cli_error(c->cmd, "%s", err) : 0;
}

static int load_file(const struct trace_cmd *c, const char *path,
		     struct trace_batch *b, size_t *cap)
{
	struct trace_item *it = add_item(b, cap);
	if (!it)
		return cli_error(c->cmd, "out of memory");
	cli_trace_name(path, it->name, sizeof(it->name));
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!f)
		return cli_error(c->cmd, "cannot open %s: %s", it->name,
				 map_errno_text(errno));
	it->text = read_all(f, &it->len);
	int failed = !it->text ? errno : 0;
	if (f != stdin)
		fclose(f);
	if (failed)
		return cli_error(c->cmd, "%s: %s", it->name,
				 map_errno_text(failed));
	return parse_item(c, it);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.trace in dir, in name order. */
static int load_dir(const struct trace_cmd *c, const char *dir,
		    struct trace_batch *b, size_t *cap)
{
	char shown[CLI_TRACE_NAME_LEN], path[4096];
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	if (!d)
		return cli_error(c->cmd, "cannot open %s: %s",
				 cli_trace_name(dir, shown, sizeof(shown)),
				 map_errno_text(errno));
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 7 || strcmp(e->d_name + len - 6, ".trace") != 0)
			continue;
		char **grown = realloc(names, (n + 1) * sizeof(*names));
		if (!grown || !(grown[n] = strdup(e->d_name))) {
			names = grown ? grown : names;
			rc = cli_error(c->cmd, "out of memory");
			break;
		}
		names = grown;
		n++;
	}
	closedir(d);
	if (!rc && n == 0)
		rc = cli_error(c->cmd, "%s holds no .trace file",
			       cli_trace_name(dir, shown, sizeof(shown)));
	if (!rc)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n && !rc; i++) {
		size_t len = strlen(dir);
		snprintf(path, sizeof(path), "%s%s%s", dir,
			 len && dir[len - 1] == '/' ? "" : "/", names[i]);
		rc = load_file(c, path, b, cap);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* One random trace a seed: --seeds A-B, or --seed's one. */
static int load_random(struct trace_cmd *c, struct trace_batch *b,
		       size_t *cap)
{
	uint64_t first = c->seeds_given ? c->seed_first : c->gen.seed;
	uint64_t last = c->seeds_given ? c->seed_last : c->gen.seed;
	int rc = trace_cmd_random_fits(c);
	for (uint64_t s = first; !rc && s <= last; s++) {
		struct trace_item *it = add_item(b, cap);
		if (!it)
			return cli_error(c->cmd, "out of memory");
		c->gen.seed = s;
		snprintf(it->name, sizeof(it->name), c->seeds_given
			 ? "random seed %llu" : "random", (unsigned long long)s);
		it->text = tracegen_string(&c->gen);
		it->len = it->text ? strlen(it->text) : 0;
		rc = parse_item(c, it);
		if (s == UINT64_MAX)
			break;
	}
	return rc;
}

int trace_batch_load(struct trace_cmd *c, struct trace_batch *b)
{
	size_t cap = 0;
	struct stat st;
	int rc;
	memset(b, 0, sizeof(*b));
	if (!c->file == !c->random)
		return cli_error(c->cmd, "give exactly one of --trace FILE and "
				 "--random (try --help)");
	if (c->random)
		rc = load_random(c, b, &cap);
	else if (strcmp(c->file, "-") != 0 && stat(c->file, &st) == 0 &&
		 S_ISDIR(st.st_mode))
		rc = load_dir(c, c->file, b, &cap);
	else
		rc = load_file(c, c->file, b, &cap);
	if (rc)
		trace_batch_free(b);
	return rc;
}

void trace_batch_free(struct trace_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->items[i].text);
		trace_free(&b->items[i].t);
	}
	free(b->items);
	memset(b, 0, sizeof(*b));
}

int trace_batch_in_vm(const struct trace_cmd *c, const struct trace_batch *b,
		      const uint32_t *flags, size_t n_flags,
		      struct vm_kernel *kernel, struct vm_run *run,
		      struct vm_trace **recs)
{
	char err[1024];
	if (vm_available(err, sizeof(err)) ||
	    vm_kernel_resolve(c->kernel, false, kernel, err, sizeof(err)))
		return cli_error(c->cmd, "%s", err);
	struct vm_trace *t = calloc(n_flags * b->n, sizeof(*t));
	if (!t)
		return cli_error(c->cmd, "out of memory");
	for (size_t f = 0; f < n_flags; f++)
		for (size_t i = 0; i < b->n; i++) {
			struct vm_trace *one = &t[f * b->n + i];
			one->name = b->items[i].name;
			one->text = b->items[i].text;
			one->add_flags = flags[f];
		}
	*run = (struct vm_run){ .kernel = kernel, .cpus = c->vm_cpus,
				.verbose = c->verbose };
	if (vm_replay_kernel_side(run, t, n_flags * b->n, err, sizeof(err))) {
		vm_traces_free(t, n_flags * b->n);
		free(t);
		return cli_error(c->cmd, "%s", err);
	}
	*recs = t;
	return 0;
}
