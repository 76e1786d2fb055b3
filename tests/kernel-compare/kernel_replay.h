/* SPDX-License-Identifier: MIT */
/*
 * kernel_replay.h: what the kernel suites share to hold a design to the
 * kernel's map, trace by trace: a comparison that fails at the first
 * difference, showing the trace line and both sides' answers, and the
 * bundled example traces.
 */
#ifndef MAPLAB_TEST_KERNEL_REPLAY_H
#define MAPLAB_TEST_KERNEL_REPLAY_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/trace/replay.h"
#include "kernel-compare/kmap.h"

/* The kernel's side: its own map through libbpf, a program's lookup for
 * plookup. */
static inline struct replay_side kernel_replay_side(void)
{
	return replay_fixed_side("kernel", &kmap_ops, kmap_prog_lookup);
}

/* A replay_difference_fn.  ctx: a stream over the failure message, which
 * keeps the first difference only. */
static inline void kernel_note_first(void *ctx, const struct trace *t,
				     size_t i, const struct replay_answer *kern,
				     const struct replay_answer *ours)
{
	FILE *f = ctx;
	if (ftell(f) > 0)
		return;
	fprintf(f, "line %u (", t->lines[i].lineno);
	trace_print_line(f, t, i);
	fprintf(f, "):\n  %s: %.*s  %s: %.*s", kern->side, (int)kern->len,
		kern->text, ours->side, (int)ours->len, ours->text);
}

/*
 * Replay text on the kernel and on `ours`, in lock step; fail at the first
 * difference.  every_next: no `next` line may be left uncompared (a hash
 * map without zero_seed leaves them so).
 */
static inline void kernel_expect_same(const char *text, const char *what,
				      const struct replay_side *ours,
				      bool every_next)
{
	struct trace t;
	char err[512];
	cr_assert_eq(trace_parse_string(text, what, &t, err, sizeof(err)), 0,
		     "%s", err);
	struct replay_side kern = kernel_replay_side();
	char first[2048] = "";
	FILE *f = fmemopen(first, sizeof(first), "w");
	cr_assert_not_null(f);
	struct replay_comparison cmp;
	replay_compare(&t, what, &kern, ours, kernel_note_first, f, &cmp);
	fclose(f);
	cr_assert_eq(cmp.differences, 0, "%s: %zu lines differ, first at %s",
		     what, cmp.differences, first);
	cr_assert_eq(cmp.stop, REPLAY_DONE, "%s: %s", what, cmp.why);
	cr_assert_eq(cmp.lines, t.n);
	if (every_next)
		cr_assert_eq(cmp.unordered, 0, "%s: next lines left uncompared",
			     what);
	trace_free(&t);
}

/* A bundled example trace, examples/NAME, as one malloc'ed string. */
static inline char *kernel_read_example(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/examples/%s", MAPLAB_SOURCE_ROOT, name);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	char *text = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	cr_assert_gt(n, 0, "%s is empty", path);
	return text;
}

/* n bytes, each b, as a trace's hex, onto f: values of megabytes
 * without a buffer of their own. */
static inline void kernel_put_hex(FILE *f, size_t n, unsigned b)
{
	static const char digits[] = "0123456789abcdef";
	char chunk[4096];
	for (size_t i = 0; i < sizeof(chunk); i += 2) {
		chunk[i] = digits[(b >> 4) & 0xf];
		chunk[i + 1] = digits[b & 0xf];
	}
	for (size_t left = 2 * n; left > 0;) {
		size_t k = left < sizeof(chunk) ? left : sizeof(chunk);
		fwrite(chunk, 1, k, f);
		left -= k;
	}
}

#endif /* MAPLAB_TEST_KERNEL_REPLAY_H */
