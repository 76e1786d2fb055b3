/* SPDX-License-Identifier: MIT */
/*
 * test_flamegraph.c: folded lines parsed (good and bad), and the SVG read
 * back as text: panel widths by ns/op (with the floor for a cheap side),
 * each frame's width its share of its parent's samples, merged counts,
 * colours by annotation, labels, headings, escaping, height by depth, and
 * the errors.  The two-panel picture of tests/harness/profile/data/ is
 * left in the working directory (flamegraph_kernel_vs_user.svg) to look at.
 */
#include <criterion/criterion.h>

#include "harness/profile/flamegraph.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA MAPLAB_SOURCE_ROOT "/tests/harness/profile/data/"
#define WIDTH 1600

/* ---- inputs -------------------------------------------------------- */

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	cr_assert(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	cr_assert(buf);
	cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* A folded file's stacks; they point into *text, which the caller frees. */
static struct fg_stack *load_folded(const char *path, char **text, size_t *n)
{
	struct fg_stack *stacks = NULL;
	char *line, *save = NULL;

	*text = read_all(path);
	*n = 0;
	for (line = strtok_r(*text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		stacks = realloc(stacks, (*n + 1) * sizeof(*stacks));
		cr_assert_eq(fg_parse_line(line, &stacks[*n]), 0, "bad line in %s: %s", path, line);
		(*n)++;
	}
	return stacks;
}

/* The samples of the stacks that hold frame: what its frame must show. */
static unsigned long long samples_through(const struct fg_stack *st, size_t n, const char *frame)
{
	unsigned long long sum = 0;

	for (size_t i = 0; i < n; i++)
		if (strstr(st[i].folded, frame))
			sum += st[i].count;
	return sum;
}

/* The SVG written to path (in the working directory), read back. */
static char *render(const char *path, const char *title, const struct fg_panel *p,
		    unsigned n, unsigned width)
{
	FILE *f = fopen(path, "w");

	cr_assert(f);
	cr_assert_eq(fg_write_svg(f, title, p, n, width), 0);
	cr_assert_eq(fclose(f), 0);
	return read_all(path);
}

/* ---- the SVG read back --------------------------------------------- */

struct frame {
	int panel;
	char title[256];
	char label[128];  /* "" where the frame has none */
	double x, y, w;
	int rgb[3];
	unsigned long long samples;
};

static size_t copy_until(char *dst, size_t cap, const char *src, const char *end_mark)
{
	const char *end = strstr(src, end_mark);
	size_t len;

	cr_assert(end, "no %s after %.40s", end_mark, src);
	len = (size_t)(end - src);
	cr_assert_lt(len, cap);
	memcpy(dst, src, len);
	dst[len] = '\0';
	return len;
}

/* Every frame of svg, in document order, with the panel it is in. */
static struct frame *parse_frames(const char *svg, size_t *n)
{
	static const char mark[] = "<g class=\"frame\"><title>";
	struct frame *frames = NULL;
	const char *p = svg;
	int panel;

	*n = 0;
	while ((p = strstr(p, mark))) {
		struct frame *f;
		const char *q, *end;

		panel = 0;
		for (q = svg; (q = strstr(q, "<g class=\"panel\">")) && q < p; q++)
			panel++;
		frames = realloc(frames, (*n + 1) * sizeof(*frames));
		f = &frames[(*n)++];
		memset(f, 0, sizeof(*f));
		f->panel = panel - 1;
		p += strlen(mark);
		p += copy_until(f->title, sizeof(f->title), p, "</title>") + strlen("</title>");
		cr_assert_eq(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%*f\" "
				    "rx=\"%*f\" fill=\"rgb(%d,%d,%d)\"/>", &f->x, &f->y, &f->w,
				    &f->rgb[0], &f->rgb[1], &f->rgb[2]), 6, "rect: %.80s", p);
		end = strstr(p, "</g>");
		q = strstr(p, "<text");
		if (q && q < end)
			copy_until(f->label, sizeof(f->label), strchr(q, '>') + 1, "</text>");
		q = strstr(f->title, ": ");
		cr_assert(q && sscanf(q, ": %llu samples", &f->samples) == 1, "%s", f->title);
	}
	return frames;
}

/* The first frame of panel whose title starts with prefix. */
static const struct frame *find(const struct frame *fr, size_t n, int panel, const char *prefix)
{
	for (size_t i = 0; i < n; i++)
		if (fr[i].panel == panel && !strncmp(fr[i].title, prefix, strlen(prefix)))
			return &fr[i];
	cr_assert_fail("no frame \"%s\" in panel %d", prefix, panel);
	return NULL;
}

/* The frame one row below f that spans it, or NULL (f is a root). */
static const struct frame *parent_of(const struct frame *fr, size_t n, const struct frame *f)
{
	for (size_t i = 0; i < n; i++)
		if (fr[i].panel == f->panel && fabs(fr[i].y - (f->y + 16)) < 0.01 &&
		    fr[i].x <= f->x + 0.01 && f->x + f->w <= fr[i].x + fr[i].w + 0.01)
			return &fr[i];
	return NULL;
}

static double svg_height(const char *svg)
{
	double h = 0;
	const char *p = strstr(svg, "<svg ");

	cr_assert(p && (p = strstr(p, " height=\"")) && sscanf(p, " height=\"%lf\"", &h) == 1);
	return h;
}

/* ---- the two-panel picture from the data files --------------------- */

struct two {
	char *ktext, *utext, *svg;
	struct fg_stack *kst, *ust;
	size_t nk, nu, nframes;
	struct frame *frames;
};

static void two_render(struct two *t, double kernel_ns, double user_ns)
{
	struct fg_panel panels[2];

	t->kst = load_folded(DATA "folded_kernel.txt", &t->ktext, &t->nk);
	t->ust = load_folded(DATA "folded_user.txt", &t->utext, &t->nu);
	panels[0] = (struct fg_panel){ "kernel lpm_trie update", kernel_ns, t->kst, t->nk };
	panels[1] = (struct fg_panel){ "lpm linux update", user_ns, t->ust, t->nu };
	t->svg = render("flamegraph_kernel_vs_user.svg", "lpm_trie update: kernel vs lpm linux",
			panels, 2, WIDTH);
	t->frames = parse_frames(t->svg, &t->nframes);
}

static void two_free(struct two *t)
{
	free(t->ktext);
	free(t->utext);
	free(t->svg);
	free(t->kst);
	free(t->ust);
	free(t->frames);
}

/* ---- parsing ------------------------------------------------------- */

Test(parse, good_lines)
{
	static const struct { const char *in, *folded; unsigned long long count; } cases[] = {
		{ "a;b;c 12\n", "a;b;c", 12 },
		{ "a;b;c 12\r\n", "a;b;c", 12 },
		{ "a;b;c   7  \n", "a;b;c", 7 },
		{ "a 0", "a", 0 },
		{ "std::map<int, int>::find;memcmp 5\n", "std::map<int, int>::find;memcmp", 5 },
		{ "x\t3", "x", 3 },
		{ "trie_update_elem_[k] 18446744073709551615", "trie_update_elem_[k]",
		  18446744073709551615ull },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];
		struct fg_stack st = { 0 };

		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		cr_assert_eq(fg_parse_line(buf, &st), 0, "%s", cases[i].in);
		cr_expect_str_eq(st.folded, cases[i].folded);
		cr_expect_eq(st.folded, buf, "folded points into the line");
		cr_expect_eq(st.count, cases[i].count, "%s", cases[i].in);
	}
}

Test(parse, bad_lines_are_einval_and_left_as_they_were)
{
	static const char *const cases[] = {
		"a;b;c\n", "a;b;c", "", "\n", "   \n", "12", " 12", "\t12\n",
		"a;b -3", "a;b +3", "a;b 12x", "a;b 1.5", "a;b 0x10", "a;b 99999999999999999999",
		";a 3", "a; 3", "a;;b 3", "; 3",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		struct fg_stack st = { "untouched", 99 };

		snprintf(buf, sizeof(buf), "%s", cases[i]);
		cr_expect_eq(fg_parse_line(buf, &st), -EINVAL, "\"%s\"", cases[i]);
		cr_expect_str_eq(buf, cases[i]);
		cr_expect_str_eq(st.folded, "untouched");
	}
}

/* ---- the picture --------------------------------------------------- */

Test(svg, panel_widths_follow_ns_per_op)
{
	struct two t;
	const struct frame *k, *u;

	two_render(&t, 1500, 500);
	k = find(t.frames, t.nframes, 0, "all of kernel lpm_trie update:");
	u = find(t.frames, t.nframes, 1, "all of lpm linux update:");
	cr_expect(fabs(k->w - 3 * u->w) <= 1.0, "kernel %.2f px, user %.2f px", k->w, u->w);
	/* Side by side, a gap between, inside the picture. */
	cr_expect_gt(u->x, k->x + k->w + 4, "panels touch: %.2f + %.2f vs %.2f", k->x, k->w, u->x);
	cr_expect_lt(u->x - (k->x + k->w), 40);
	cr_expect(k->x >= 0 && u->x + u->w <= WIDTH);
	cr_expect_gt(k->w + u->w, WIDTH * 0.95, "the panels use the width: %.2f", k->w + u->w);
	cr_expect_eq(k->samples, 1021);
	cr_expect_eq(u->samples, 868);
	/* The roots share a baseline. */
	cr_expect(fabs(k->y - u->y) < 0.01);
	two_free(&t);
}

Test(svg, a_frames_width_is_its_share_of_its_parent)
{
	struct two t;
	size_t checked = 0;

	two_render(&t, 1500, 500);
	for (size_t i = 0; i < t.nframes; i++) {
		const struct frame *f = &t.frames[i], *p = parent_of(t.frames, t.nframes, f);
		double want;

		if (!strncmp(f->title, "all of ", 7)) {
			cr_expect_null(p, "a root with a parent: %s", f->title);
			continue;
		}
		cr_assert_not_null(p, "no parent under %s", f->title);
		want = p->w * (double)f->samples / (double)p->samples;
		cr_expect(fabs(f->w - want) < 0.02, "%s: %.2f px, want %.2f of %s", f->title,
			  f->w, want, p->title);
		checked++;
	}
	cr_expect_geq(checked, 25);
	two_free(&t);
}

Test(svg, equal_frames_merge_and_counts_match_the_data)
{
	struct two t;
	static const char *const kernel_frames[] = {
		"trie_update_elem_[k]", "bpf_map_kmalloc_node_[k]", "bpf_test_run_[h]",
		"bpf_prog_3b185187f1855c4c_kb_update_[j]",
	};

	two_render(&t, 1500, 500);
	for (size_t i = 0; i < sizeof(kernel_frames) / sizeof(kernel_frames[0]); i++) {
		char prefix[128];
		size_t frames = 0;

		snprintf(prefix, sizeof(prefix), "%.*s (", (int)(strlen(kernel_frames[i]) - 4),
			 kernel_frames[i]);
		cr_expect_eq(find(t.frames, t.nframes, 0, prefix)->samples,
			     samples_through(t.kst, t.nk, kernel_frames[i]), "%s", prefix);
		for (size_t j = 0; j < t.nframes; j++)
			frames += t.frames[j].panel == 0 && !strncmp(t.frames[j].title, prefix,
								    strlen(prefix));
		cr_expect_eq(frames, 1, "%s drawn %zu times", prefix, frames);
	}
	cr_expect_eq(find(t.frames, t.nframes, 1, "lpm_update (userspace)")->samples,
		     samples_through(t.ust, t.nu, ";lpm_update"));
	two_free(&t);
}

Test(svg, siblings_in_name_order_whatever_the_input_order)
{
	struct fg_stack st[] = { { "main;zeta", 1 }, { "main;alpha", 2 }, { "main;zeta", 3 },
				 { "main;mid", 4 } };
	struct fg_panel p = { "order", 100, st, 4 };
	char *svg = render("flamegraph_order.svg", "order", &p, 1, 800);
	size_t n;
	struct frame *fr = parse_frames(svg, &n);
	const struct frame *a = find(fr, n, 0, "alpha ("), *m = find(fr, n, 0, "mid ("),
			   *z = find(fr, n, 0, "zeta (");

	cr_expect_eq(z->samples, 4);
	cr_expect_lt(a->x, m->x);
	cr_expect_lt(m->x, z->x);
	cr_expect(fabs(a->x + a->w - m->x) < 0.02, "siblings side by side");
	cr_expect(fabs(a->x - find(fr, n, 0, "main (")->x) < 0.02, "first child at the left");
	free(fr);
	free(svg);
}

static bool is_orange(const int *c) { return c[0] >= 200 && c[0] > c[1] && c[1] > c[2] && c[2] < 80; }
static bool is_green(const int *c) { return c[1] > c[0] + 30 && c[1] > c[2] + 30; }
static bool is_magenta(const int *c) { return c[0] >= 180 && c[2] >= 180 && c[1] < 130; }
static bool is_grey(const int *c) { return c[0] == c[1] && c[1] == c[2]; }
static bool is_blue(const int *c) { return c[2] >= 200 && c[2] > c[1] && c[1] > c[0]; }

Test(svg, colours_by_annotation)
{
	static const struct { int panel; const char *prefix; bool (*family)(const int *); } cases[] = {
		{ 0, "trie_update_elem (kernel)", is_orange },
		{ 0, "_raw_spin_lock_irqsave (kernel)", is_orange },
		{ 0, "bpf_prog_3b185187f1855c4c_kb_update (BPF program)", is_green },
		{ 0, "__x86_return_thunk (thunk)", is_magenta },
		{ 0, "__x86_indirect_thunk_rax (thunk)", is_magenta },
		{ 0, "bpf_test_run (harness)", is_grey },
		{ 1, "bench_worker (harness)", is_grey },
		{ 1, "lpm_update (userspace)", is_blue },
		{ 1, "start_thread (userspace)", is_blue },
	};
	struct two t;

	two_render(&t, 1500, 500);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct frame *f = find(t.frames, t.nframes, cases[i].panel, cases[i].prefix);
		cr_expect(cases[i].family(f->rgb), "%s: rgb(%d,%d,%d)", f->title, f->rgb[0],
			  f->rgb[1], f->rgb[2]);
	}
	/* Shades differ by name within a family. */
	const int *a = find(t.frames, t.nframes, 1, "match_len (")->rgb;
	const int *b = find(t.frames, t.nframes, 1, "pthread_mutex_lock (")->rgb;
	cr_expect(a[0] != b[0] || a[1] != b[1] || a[2] != b[2], "two names, one shade");
	two_free(&t);
}

Test(svg, titles_headings_and_tooltips)
{
	struct two t;
	const struct frame *f;

	two_render(&t, 1500, 500);
	cr_expect(strstr(t.svg, "<title>lpm_trie update: kernel vs lpm linux</title>"));
	cr_expect(strstr(t.svg, ">kernel lpm_trie update \xe2\x80\x94 1500 ns/op, 1021 samples<"),
		  "kernel heading");
	cr_expect(strstr(t.svg, ">lpm linux update \xe2\x80\x94 500 ns/op, 868 samples<"),
		  "user heading");
	/* 323+96+57+171+104+12+23+61+34 = 881 of 1021: 86.3%, ~1294 of 1500 ns. */
	f = find(t.frames, t.nframes, 0, "trie_update_elem (kernel)");
	cr_expect_str_eq(f->title, "trie_update_elem (kernel): 881 samples, 86.3% of this side, "
				   "~1294 ns per op");
	f = find(t.frames, t.nframes, 1, "match_len (userspace)");
	cr_expect_str_eq(f->title, "match_len (userspace): 210 samples, 24.2% of this side, "
				   "~121 ns per op");
	for (size_t i = 0; i < t.nframes; i++)
		cr_expect(strstr(t.frames[i].title, " ns per op"), "%s", t.frames[i].title);
	two_free(&t);
}

Test(svg, labels_drop_the_annotation_and_fit)
{
	struct two t;
	size_t labelled = 0, cut = 0;

	two_render(&t, 1500, 500);
	cr_expect_str_eq(find(t.frames, t.nframes, 0, "trie_update_elem (")->label,
			 "trie_update_elem");
	for (size_t i = 0; i < t.nframes; i++) {
		const struct frame *f = &t.frames[i];
		size_t len = strlen(f->label);

		if (!len)
			continue;
		labelled++;
		cr_expect_null(strstr(f->label, "_["), "annotation in label %s", f->label);
		cr_expect_geq(len, 3);
		/* Monospace: 0.6 em a character at 11 px, inside the rect. */
		cr_expect_leq(len * 6.6, f->w, "label %s over %.2f px", f->label, f->w);
		if (len > 2 && !strcmp(f->label + len - 2, ".."))
			cut++;
		else
			cr_expect(!strncmp(f->title, f->label, len) && f->title[len] == ' ',
				  "label %s of %s", f->label, f->title);
	}
	cr_expect_geq(labelled, 15);
	cr_expect_geq(cut, 1, "no label was cut to fit");
	two_free(&t);
}

/* python3's xml.etree must read it: no script, no external reference. */
static void expect_parses_as_xml(const char *path, const char *svg)
{
	char cmd[512];

	cr_expect_null(strstr(svg, "<script"));
	cr_expect_null(strstr(svg, "@import"));
	cr_expect_null(strstr(svg, "href"));
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return;
	snprintf(cmd, sizeof(cmd), "python3 -c 'import sys, xml.etree.ElementTree as E; "
		 "r = E.parse(sys.argv[1]).getroot(); "
		 "sys.exit(r.tag != \"{http://www.w3.org/2000/svg}svg\")' %s", path);
	cr_expect_eq(system(cmd), 0, "%s is not XML that python reads", path);
}

Test(svg, parses_as_xml)
{
	struct two t;

	two_render(&t, 1500, 500);
	expect_parses_as_xml("flamegraph_kernel_vs_user.svg", t.svg);
	two_free(&t);
}

Test(svg, escapes_names_and_titles)
{
	struct fg_stack st[] = {
		{ "main;parse<T>&co;q\"u'o", 5 },
		{ "main;operator<< 3", 2 },  /* as fg_parse_line would leave "a 3 2" */
	};
	struct fg_panel p = { "a<b & \"c\"", 10, st, 2 };
	char *svg = render("flamegraph_escape.svg", "x < y & z", &p, 1, 1200);

	cr_expect(strstr(svg, "<title>x &lt; y &amp; z</title>"));
	cr_expect(strstr(svg, "a&lt;b &amp; &quot;c&quot;"));
	cr_expect(strstr(svg, "<title>parse&lt;T&gt;&amp;co (userspace): 5 samples"));
	cr_expect(strstr(svg, "q&quot;u&apos;o"));
	cr_expect(strstr(svg, "operator&lt;&lt; 3 (userspace)"));
	cr_expect_null(strstr(svg, "<T>"));
	cr_expect_null(strstr(svg, "& "));
	expect_parses_as_xml("flamegraph_escape.svg", svg);
	free(svg);
}

Test(svg, height_follows_the_deepest_stack)
{
	struct fg_stack shallow[] = { { "a;b;c", 1 } }, deep[] = { { "a;b;c", 1 },
								     { "a;b;c;d;e;f", 1 } };
	struct fg_panel p1 = { "shallow", 10, shallow, 1 }, p2[] = {
		{ "shallow", 10, shallow, 1 }, { "deep", 10, deep, 2 } };
	char *s1 = render("flamegraph_shallow.svg", "t", &p1, 1, 800);
	char *s2 = render("flamegraph_deep.svg", "t", p2, 2, 800);
	size_t n1, n2;
	struct frame *f1 = parse_frames(s1, &n1), *f2 = parse_frames(s2, &n2);

	cr_expect(fabs(svg_height(s2) - svg_height(s1) - 3 * 16) < 0.01, "%.0f vs %.0f",
		  svg_height(s2), svg_height(s1));
	/* The shallow panel's root on the deep one's baseline. */
	cr_expect(fabs(find(f2, n2, 0, "all of")->y - find(f2, n2, 1, "all of")->y) < 0.01);
	cr_expect(fabs(find(f2, n2, 1, "f (")->y - find(f2, n2, 1, "all of")->y + 6 * 16) < 0.01);
	free(f1);
	free(f2);
	free(s1);
	free(s2);
}

Test(svg, a_cheap_side_keeps_four_percent)
{
	struct fg_stack st[] = { { "a;b", 10 } };
	struct fg_panel p[] = { { "slow", 10000, st, 1 }, { "fast", 1, st, 1 },
				{ "middle", 5000, st, 1 } };
	char *svg = render("flamegraph_floor.svg", "floor", p, 3, 1000);
	size_t n;
	struct frame *fr = parse_frames(svg, &n);
	double slow = find(fr, n, 0, "all of")->w, fast = find(fr, n, 1, "all of")->w,
	       mid = find(fr, n, 2, "all of")->w, sum = slow + fast + mid;

	cr_expect(fabs(fast / sum - 0.04) < 0.001, "fast: %.2f of %.2f px", fast, sum);
	/* The rest keep their ratio. */
	cr_expect(fabs(slow - 2 * mid) < 1.0, "slow %.2f, middle %.2f", slow, mid);
	cr_expect(strstr(svg, "1.0 ns/op"), "the narrow side still says its ns/op");
	expect_parses_as_xml("flamegraph_floor.svg", svg);
	free(fr);
	free(svg);
}

Test(svg, rectangles_under_a_tenth_of_a_pixel_are_not_drawn)
{
	struct fg_stack st[] = { { "main;big", 10000000 }, { "main;tiny;tinier", 1 } };
	struct fg_panel p = { "narrow", 100, st, 2 };
	char *svg = render("flamegraph_narrow.svg", "narrow", &p, 1, 1000);

	cr_expect(strstr(svg, "big (userspace)"));
	cr_expect_null(strstr(svg, "tiny"));
	cr_expect(strstr(svg, "10000001 samples"), "the heading counts them");
	free(svg);
}

Test(svg, same_input_same_bytes)
{
	struct fg_stack st[] = { { "a;b", 3 }, { "a;c", 1 } };
	struct fg_panel p = { "same", 7, st, 2 };
	char *s1 = render("flamegraph_same1.svg", "same", &p, 1, 0);
	char *s2 = render("flamegraph_same2.svg", "same", &p, 1, 0);

	cr_expect_str_eq(s1, s2);
	cr_expect(strstr(s1, "width=\"1600\""), "0 means the default width");
	free(s1);
	free(s2);
}

/* ---- errors -------------------------------------------------------- */

static int write_to_buffer(const struct fg_panel *p, unsigned n, unsigned width, long *written)
{
	FILE *f = tmpfile();
	int rc;

	cr_assert(f);
	rc = fg_write_svg(f, "t", p, n, width);
	fflush(f);
	*written = ftell(f);
	fclose(f);
	return rc;
}

Test(errors, einval_before_anything_is_written)
{
	struct fg_stack good[] = { { "a;b", 1 } }, zero[] = { { "a;b", 0 } },
			empty[] = { { "", 1 } }, null_frames[] = { { NULL, 1 } },
			hole[] = { { "a;;b", 1 } }, lead[] = { { ";a", 1 } },
			tail[] = { { "a;", 1 } }, overflow[] = { { "a", UINT64_MAX }, { "b", 1 } };
	const struct fg_panel cases[] = {
		{ "zero ns", 0, good, 1 },
		{ "negative ns", -5, good, 1 },
		{ "NaN ns", NAN, good, 1 },
		{ "infinite ns", INFINITY, good, 1 },
		{ "no stacks", 10, good, 0 },
		{ "NULL stacks", 10, NULL, 1 },
		{ "all counts 0", 10, zero, 1 },
		{ "empty stack", 10, empty, 1 },
		{ "NULL stack", 10, null_frames, 1 },
		{ "empty frame", 10, hole, 1 },
		{ "leading ;", 10, lead, 1 },
		{ "trailing ;", 10, tail, 1 },
		{ "samples overflow", 10, overflow, 2 },
	};
	long written;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* A bad panel on the right, after a good one. */
		struct fg_panel two[] = { { "good", 10, good, 1 }, cases[i] };
		cr_expect_eq(write_to_buffer(two, 2, 800, &written), -EINVAL, "%s", cases[i].title);
		cr_expect_eq(written, 0, "%s: %ld bytes written", cases[i].title, written);
	}
	cr_expect_eq(write_to_buffer(cases, 0, 800, &written), -EINVAL, "no panel");
	cr_expect_eq(write_to_buffer(NULL, 1, 800, &written), -EINVAL, "NULL panels");
	struct fg_panel ok = { "ok", 10, good, 1 }, two_good[] = { ok, ok };
	/* 38n + 6 px: margins, gaps and 24 px a panel. */
	cr_expect_eq(write_to_buffer(&ok, 1, 43, &written), -EINVAL, "43 px is too narrow");
	cr_expect_eq(write_to_buffer(&ok, 1, 44, &written), 0, "44 px is enough");
	cr_expect_eq(write_to_buffer(two_good, 2, 81, &written), -EINVAL, "81 px for two");
	cr_expect_eq(write_to_buffer(two_good, 2, 82, &written), 0, "82 px for two");
	cr_expect_eq(fg_write_svg(NULL, "t", &ok, 1, 800), -EINVAL, "no stream");
	cr_expect_eq(write_to_buffer(&ok, 1, 800, &written), 0, "the good panel alone");
	cr_expect_gt(written, 0);
}

/* The write's own errno, not a blanket EIO: "No space left on device" is
 * what a user on a full disk must read. */
Test(errors, the_errno_of_the_write_that_failed)
{
	struct fg_stack st[] = { { "a;b", 1 } };
	struct fg_panel p = { "full", 10, st, 1 };
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		cr_skip_test("no /dev/full");
	cr_expect_eq(fg_write_svg(f, "t", &p, 1, 800), -ENOSPC);
	fclose(f);

	/* a picture larger than stdio's buffer, whose own flushes fail
	 * before the end */
	static struct fg_stack many[2000];
	static char names[2000][32];
	for (unsigned i = 0; i < 2000; i++) {
		snprintf(names[i], sizeof(names[i]), "root;frame_%u;leaf_%u", i, i);
		many[i] = (struct fg_stack){ names[i], 1 };
	}
	struct fg_panel big = { "big", 10, many, 2000 };
	f = fopen("/dev/full", "w");
	cr_assert(f);
	cr_expect_eq(fg_write_svg(f, "t", &big, 1, 100000), -ENOSPC);
	fclose(f);
}
