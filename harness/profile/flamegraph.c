/* SPDX-License-Identifier: MIT */
/*
 * flamegraph.c: folded stacks parsed, merged into one tree per panel and
 * drawn as side-by-side flame graphs in one SVG (flamegraph.h has the
 * format and the contract).  Written from the format's description; no
 * code of Brendan Gregg's flamegraph.pl is used.
 *
 * The picture, top to bottom:
 *
 *   title, and a line saying what the widths mean
 *   +-- kernel ... 1466 ns/op --------+  +-- design 489 ns/op -+
 *   |        [leaf] [leaf]            |  |  [leaf]             |
 *   |   [frame          ] [frame]     |  |  [frame      ]      |
 *   |   [all                        ] |  |  [all             ] |
 *   +---------------------------------+  +---------------------+
 *   legend: one swatch per kind of frame
 *
 * Invariants of the drawing:
 *  - Panels: each is as wide as its share of the sum of ns/op, of the
 *    width left once margins and gaps are taken (panel_shares), except
 *    that none is narrower than MIN_SHARE of it, so a very cheap side
 *    still shows; its heading always gives its ns/op and samples, so a
 *    widened panel cannot mislead.
 *  - Frames: a panel's samples merge into a tree, a frame per node,
 *    siblings in byte order of their names (annotation included) so that
 *    equal stacks merge and the picture does not depend on input order.
 *    A node's width is its count's share of the panel's samples: its
 *    children, side by side from its left edge, never overhang it.
 *  - Every panel's root ("all") sits on the same baseline, the deepest
 *    stack of any panel sets the height.
 *  - A rectangle under MIN_RECT_PX is not drawn, nor its children (each
 *    narrower): its samples still count in its parent's width and in the
 *    heading.  This is what keeps the file small for a profile of many
 *    distinct stacks.
 *  - Every string from the caller is XML-escaped; bytes that XML cannot
 *    hold (control characters, broken UTF-8) are written as '?'.
 */
#include "harness/profile/flamegraph.h"
#include "harness/common/grow.h"
#include "harness/common/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_WIDTH 1600
#define MARGIN 10.0        /* left and right of the panels */
#define GAP 14.0           /* between two panels */
#define MIN_SHARE 0.04     /* the narrowest panel, of the panels' width */
#define MIN_PANEL_PX 24.0  /* below this a panel says nothing: -EINVAL */
#define ROW 16.0           /* one frame's row; its rectangle is ROW - 1 */
#define MIN_RECT_PX 0.1
#define LABEL_FONT 11.0
#define HEAD_FONT 12.0
/* Monospace advance is 0.6 em in DejaVu Sans Mono and Liberation Mono;
 * a little more keeps a label inside its rectangle in other fonts. */
#define CHAR_EM 0.62
#define LABEL_PAD 3.0      /* between a rectangle's edge and its label */

#define TITLE_Y 24.0
#define NOTE_Y 42.0
#define PANEL_TOP 52.0     /* the panel's background starts here */
#define HEAD_LINE 16.0     /* a heading's line: one or two, as the widest needs */
#define HEAD_TO_FRAMES 10.0  /* from the heading's last baseline to the frames */
#define LEGEND_GAP 28.0    /* from the panels' bottom to the legend's text */

/* The kinds of frame, by annotation; the order of the legend. */
enum fg_kind { KIND_KERNEL, KIND_BPF, KIND_THUNK, KIND_HARNESS, KIND_USER, KIND_ROOT };

static const char *const kind_names[] = {
	[KIND_KERNEL] = "kernel", [KIND_BPF] = "BPF program", [KIND_THUNK] = "thunk",
	[KIND_HARNESS] = "harness", [KIND_USER] = "userspace", [KIND_ROOT] = "all",
};

/* ---- parsing ------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A frame list with no empty frame: "a;b" is one, "", ";a", "a;;b" and
 * "a;" are not (an empty frame would draw as a nameless rectangle). */
static bool frames_valid(const char *s, size_t len)
{
	if (len == 0 || s[0] == ';' || s[len - 1] == ';')
		return false;
	for (size_t i = 1; i < len; i++)
		if (s[i] == ';' && s[i - 1] == ';')
			return false;
	return true;
}

/* Decimal digits only: no sign, no space, no hex, no overflow. */
static int parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int fg_parse_line(char *line, struct fg_stack *out)
{
	size_t end = strlen(line), space, frames_end;
	uint64_t count;

	while (end > 0 && is_blank(line[end - 1]))
		end--;
	/* The count follows the last space: a frame may hold spaces. */
	for (space = end; space > 0 && line[space - 1] != ' ' && line[space - 1] != '\t';)
		space--;
	if (space == 0 || parse_count(line + space, end - space, &count))
		return -EINVAL;
	frames_end = space;
	while (frames_end > 0 && is_blank(line[frames_end - 1]))
		frames_end--;
	if (!frames_valid(line, frames_end))
		return -EINVAL;
	/* Only now is line cut: a rejected line is left as it was. */
	line[frames_end] = '\0';
	out->folded = line;
	out->count = count;
	return 0;
}

/* ---- the tree of one panel ----------------------------------------- */

struct fg_node {
	const char *name;  /* into the caller's folded string: not owned */
	size_t len;        /* annotation included */
	uint64_t count;
	struct fg_node **kids;  /* sorted by name: byte order, then length */
	size_t n_kids, cap_kids;
};

static void node_free(struct fg_node *n)
{
	for (size_t i = 0; i < n->n_kids; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
}

static int name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : (alen > blen) - (alen < blen);
}

/* The child named name, made in its sorted place if new; NULL: no memory. */
static struct fg_node *child_get(struct fg_node *parent, const char *name, size_t len)
{
	size_t lo = 0, hi = parent->n_kids;
	struct fg_node *kid;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = name_cmp(parent->kids[mid]->name, parent->kids[mid]->len, name, len);
		if (c == 0)
			return parent->kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct fg_node **kids = grow_array(parent->kids, &parent->cap_kids,
					   parent->n_kids + 1, sizeof(*kids), 4);
	if (!kids)
		return NULL;
	parent->kids = kids;
	kid = calloc(1, sizeof(*kid));
	if (!kid)
		return NULL;
	kid->name = name;
	kid->len = len;
	memmove(parent->kids + lo + 1, parent->kids + lo,
		(parent->n_kids - lo) * sizeof(*parent->kids));
	parent->kids[lo] = kid;
	parent->n_kids++;
	return kid;
}

/* One stack into the tree under root; *depth grows to its frame count. */
static int tree_add(struct fg_node *root, const struct fg_stack *st, size_t *depth)
{
	const char *s = st->folded;
	struct fg_node *node = root;
	size_t frames = 0;

	if (!s || !frames_valid(s, strlen(s)))
		return -EINVAL;
	if (root->count + st->count < root->count)
		return -EINVAL;  /* the panel's samples overflow */
	root->count += st->count;
	for (;;) {
		size_t len = strcspn(s, ";");
		node = child_get(node, s, len);
		if (!node)
			return -ENOMEM;
		node->count += st->count;
		frames++;
		if (s[len] == '\0')
			break;
		s += len + 1;
	}
	if (frames > *depth)
		*depth = frames;
	return 0;
}

/* ---- the layout of the panels -------------------------------------- */

/*
 * Each panel's share of the panels' width: its ns/op's share of the sum,
 * except that none is below MIN_SHARE (or 1/n, where n panels cannot all
 * have MIN_SHARE).  Raising one panel to the floor takes from the rest in
 * proportion, which may push another below it: repeat until none is
 * (at most n rounds, each fixes one more panel at the floor).
 */
static void panel_shares(const struct fg_panel *panels, unsigned n, double *share)
{
	double floor_share = MIN_SHARE * n > 1.0 ? 1.0 / n : MIN_SHARE;
	bool *fixed = calloc(n, sizeof(*fixed));
	bool changed = true;

	while (changed) {
		double free_share = 1.0, free_ns = 0.0;
		changed = false;
		for (unsigned i = 0; i < n; i++) {
			if (fixed && fixed[i])
				free_share -= floor_share;
			else
				free_ns += panels[i].ns_per_op;
		}
		for (unsigned i = 0; i < n; i++) {
			if (fixed && fixed[i]) {
				share[i] = floor_share;
				continue;
			}
			share[i] = free_share * panels[i].ns_per_op / free_ns;
			if (share[i] < floor_share && fixed) {
				fixed[i] = true;
				changed = true;
			}
		}
	}
	/* Without memory for the flags, the proportional shares stand. */
	free(fixed);
}

/* ---- writing ------------------------------------------------------- */

/* How long the UTF-8 sequence at s is, or 0 where it is broken. */
static size_t utf8_seq(const unsigned char *s, size_t left)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
		 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3 : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;

	if (n == 0 || n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Characters (code points; a broken byte counts one) in s[0..len). */
static size_t text_chars(const char *s, size_t len)
{
	size_t chars = 0;

	for (size_t i = 0; i < len; chars++) {
		size_t n = utf8_seq((const unsigned char *)s + i, len - i);
		i += n ? n : 1;
	}
	return chars;
}

/* s[0..len) as XML character data or an attribute value; at most
 * max_chars characters of it (the bytes they take are returned). */
static size_t put_escaped_n(FILE *out, const char *s, size_t len, size_t max_chars)
{
	size_t i = 0;

	for (size_t chars = 0; i < len && chars < max_chars; chars++) {
		unsigned char c = (unsigned char)s[i];
		size_t n = utf8_seq((const unsigned char *)s + i, len - i);
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (n == 0 || (c < 0x20 && c != '\t'))
				fputc('?', out);
			else
				fwrite(s + i, 1, n, out);
		}
		i += n ? n : 1;
	}
	return i;
}

static void put_escaped(FILE *out, const char *s, size_t len)
{
	put_escaped_n(out, s, len, SIZE_MAX);
}

/*
 * Whether s can show in max_chars characters: whole, or cut to at least
 * two of its own and "..": one letter and two dots tell the reader
 * nothing ("_.." for __x86_return_thunk).
 */
static bool fits(const char *s, size_t len, size_t max_chars)
{
	return text_chars(s, len) <= max_chars || max_chars >= 4;
}

/* s, escaped, in at most max_chars characters (fits() must hold): cut to
 * max_chars - 2 and ".." where longer. */
static void put_fitted(FILE *out, const char *s, size_t len, size_t max_chars)
{
	if (text_chars(s, len) <= max_chars) {
		put_escaped(out, s, len);
		return;
	}
	put_escaped_n(out, s, len, max_chars - 2);
	fputs("..", out);
}

static size_t chars_that_fit(double px, double font)
{
	double n = floor(px / (font * CHAR_EM));
	return n > 0 ? (size_t)n : 0;
}

/* The kind of a frame, and its length without the annotation. */
static enum fg_kind frame_kind(const char *name, size_t len, size_t *bare_len)
{
	*bare_len = len;
	if (len < 4 || name[len - 4] != '_' || name[len - 3] != '[' || name[len - 1] != ']')
		return KIND_USER;
	*bare_len = len - 4;
	switch (name[len - 2]) {
	case 'k': return KIND_KERNEL;
	case 'j': return KIND_BPF;
	case 't': return KIND_THUNK;
	case 'h': return KIND_HARNESS;
	default:
		*bare_len = len;  /* not one of ours: part of the name */
		return KIND_USER;
	}
}

/* FNV-1a: a name's shade is the same in every picture. */
static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/*
 * The fill of a frame: its kind picks the family, two bytes of the
 * name's hash the shade within it, so that neighbours differ.  Each
 * family keeps its order of channels whatever the shade (kernel r > g > b,
 * BPF g highest, thunk r and b high and g low, harness r = g = b, user
 * b > g > r), so no shade of one kind passes for another.
 */
static void frame_fill(enum fg_kind kind, const char *name, size_t len, int rgb[3])
{
	uint32_t h = name_hash(name, len);
	double a = (h & 0xff) / 255.0, b = ((h >> 8) & 0xff) / 255.0;

	switch (kind) {
	case KIND_KERNEL:
		rgb[0] = 225 + (int)(30 * a); rgb[1] = 100 + (int)(65 * b); rgb[2] = 30 + (int)(30 * a);
		break;
	case KIND_BPF:
		rgb[0] = 70 + (int)(60 * b); rgb[1] = 180 + (int)(45 * a); rgb[2] = 70 + (int)(40 * b);
		break;
	case KIND_THUNK:
		rgb[0] = 210 + (int)(40 * a); rgb[1] = 60 + (int)(50 * b); rgb[2] = 215 + (int)(40 * a);
		break;
	case KIND_HARNESS:
		rgb[0] = rgb[1] = rgb[2] = 165 + (int)(45 * a);
		break;
	case KIND_USER:
		rgb[0] = 70 + (int)(50 * b); rgb[1] = 150 + (int)(45 * a); rgb[2] = 215 + (int)(40 * a);
		break;
	case KIND_ROOT:
		rgb[0] = 222; rgb[1] = 220; rgb[2] = 200;
		break;
	}
}

/* ns to print: whole ns from 10 up, a decimal or two below. */
static void put_ns(FILE *out, double ns)
{
	fprintf(out, ns >= 10 ? "%.0f" : ns >= 1 ? "%.1f" : "%.2f", ns);
}

/* What one panel's frames are drawn with. */
struct fg_draw {
	FILE *out;
	const struct fg_panel *panel;
	uint64_t total;   /* the panel's samples */
	double baseline;  /* the top of the root's row */
};

static void draw_tooltip(const struct fg_draw *d, const struct fg_node *node,
			 enum fg_kind kind, size_t bare_len)
{
	FILE *out = d->out;
	double share = (double)node->count / (double)d->total;

	fputs("<title>", out);
	if (kind == KIND_ROOT) {
		fputs("all of ", out);
		put_escaped(out, d->panel->title ? d->panel->title : "", 
			    d->panel->title ? strlen(d->panel->title) : 0);
	} else {
		put_escaped(out, node->name, bare_len);
		fprintf(out, " (%s)", kind_names[kind]);
	}
	fprintf(out, ": %" PRIu64 " samples, %.1f%% of this side, ~", node->count, 100 * share);
	put_ns(out, share * d->panel->ns_per_op);
	fputs(" ns per op</title>", out);
}

/* A node at x, w px wide, in row depth (0: the root), then its children. */
static void draw_node(const struct fg_draw *d, const struct fg_node *node, bool is_root,
		      double x, double w, size_t depth)
{
	FILE *out = d->out;
	double y = d->baseline - (double)depth * ROW;
	size_t bare_len = 0;
	enum fg_kind kind = is_root ? KIND_ROOT : frame_kind(node->name, node->len, &bare_len);
	const char *label = is_root ? "all" : node->name;
	size_t label_len = is_root ? 3 : bare_len;
	size_t fit = chars_that_fit(w - 2 * LABEL_PAD, LABEL_FONT);
	int rgb[3];
	uint64_t before = 0;

	if (w < MIN_RECT_PX)
		return;
	frame_fill(kind, label, label_len, rgb);
	fputs("<g class=\"frame\">", out);
	draw_tooltip(d, node, kind, bare_len);
	fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		"rx=\"1.5\" fill=\"rgb(%d,%d,%d)\"/>", x, y, w, ROW - 1, rgb[0], rgb[1], rgb[2]);
	if (fits(label, label_len, fit)) {
		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + LABEL_PAD, y + ROW - 4.5);
		put_fitted(out, label, label_len, fit);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
	/* Children from the parent's left edge, each placed by the samples
	 * before it (not by summing rounded widths, which would drift). */
	for (size_t i = 0; i < node->n_kids; i++) {
		const struct fg_node *kid = node->kids[i];
		double kx = x + w * (double)before / (double)node->count;
		draw_node(d, kid, false, kx, w * (double)kid->count / (double)node->count, depth + 1);
		before += kid->count;
	}
}

/* A panel's heading, as text, and whether it takes one line or two. */
struct fg_heading {
	const char *title;
	char ns[32];        /* "1466" */
	char figures[96];   /* "1466 ns/op, 1021 samples" */
	size_t fit;         /* characters the panel's width holds */
	bool one_line;
};

static void heading_of(const struct fg_panel *p, uint64_t total, double w,
		       struct fg_heading *h)
{
	h->title = p->title ? p->title : "";
	snprintf(h->ns, sizeof(h->ns), p->ns_per_op >= 10 ? "%.0f" : p->ns_per_op >= 1 ?
		 "%.1f" : "%.2f", p->ns_per_op);
	snprintf(h->figures, sizeof(h->figures), "%s ns/op, %" PRIu64 " samples", h->ns, total);
	h->fit = chars_that_fit(w - 2 * LABEL_PAD, HEAD_FONT);
	h->one_line = text_chars(h->title, strlen(h->title)) + 3 + strlen(h->figures) <= h->fit;
}

/*
 * The heading: "title — 1466 ns/op, 1021 samples" on one line where it
 * fits; else the title (cut to fit) over the figures.  The figures give
 * up the samples, then "/op", but a number is never cut: in a panel too
 * narrow even for "1.0 ns" it runs into the gap rather than mislead.
 * The tooltip holds it all.
 */
static void draw_heading(FILE *out, const struct fg_heading *h, double x, const double *y)
{
	char figures[96];

	fputs("<g class=\"heading\"><title>", out);
	put_escaped(out, h->title, strlen(h->title));
	fprintf(out, " \xe2\x80\x94 %s</title>", h->figures);
	fprintf(out, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"%.0f\" font-weight=\"bold\">",
		x + LABEL_PAD, h->one_line ? y[1] : y[0], HEAD_FONT);
	if (h->one_line) {
		put_escaped(out, h->title, strlen(h->title));
		fprintf(out, " \xe2\x80\x94 %s</text></g>\n", h->figures);
		return;
	}
	if (fits(h->title, strlen(h->title), h->fit))
		put_fitted(out, h->title, strlen(h->title), h->fit);
	snprintf(figures, sizeof(figures), "%s", h->figures);
	if (strlen(figures) > h->fit)
		snprintf(figures, sizeof(figures), "%s ns/op", h->ns);
	if (strlen(figures) > h->fit)
		snprintf(figures, sizeof(figures), "%s ns", h->ns);
	fprintf(out, "</text><text x=\"%.2f\" y=\"%.1f\" font-size=\"%.0f\">%s</text></g>\n",
		x + LABEL_PAD, y[1], HEAD_FONT, figures);
}

static void draw_legend(FILE *out, double y)
{
	double x = MARGIN;

	fprintf(out, "<g class=\"legend\" font-size=\"%.0f\">", LABEL_FONT + 1);
	for (int k = KIND_KERNEL; k <= KIND_USER; k++) {
		static const char *const annotations[] = { "_[k]", "_[j]", "_[t]", "_[h]", "" };
		const char *name = kind_names[k];
		int rgb[3];

		/* The swatch is the shade of the kind's own name. */
		frame_fill((enum fg_kind)k, name, strlen(name), rgb);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" rx=\"1.5\" "
			"fill=\"rgb(%d,%d,%d)\"/>", x, y - 11, rgb[0], rgb[1], rgb[2]);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%s%s%s%s</text>", x + 19, y, name,
			*annotations[k] ? " (" : "", annotations[k], *annotations[k] ? ")" : "");
		x += 19 + (double)(strlen(name) + 7) * (LABEL_FONT + 1) * CHAR_EM + 18;
	}
	fputs("</g>\n", out);
}

/* Everything about the picture but the panels' own contents. */
static void draw_frame_of_picture(FILE *out, const char *title, unsigned width,
				  double height)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" "
		"height=\"%.0f\" viewBox=\"0 0 %u %.0f\" font-family=\"monospace\" "
		"font-size=\"%.0f\">\n<title>", width, height, width, height, LABEL_FONT);
	put_escaped(out, title, strlen(title));
	fprintf(out, "</title>\n<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
		width, height);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"17\" font-weight=\"bold\" "
		"text-anchor=\"middle\">", width / 2.0, TITLE_Y);
	put_escaped_n(out, title, strlen(title), chars_that_fit(width - 2 * MARGIN, 17));
	fprintf(out, "</text>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#555555\" "
		"text-anchor=\"middle\">A side's width is its share of the time per op "
		"(at least %.0f%% of the width); a frame's width is its share of its side's "
		"samples. Hover for figures.</text>\n", width / 2.0, NOTE_Y, 100 * MIN_SHARE);
}

static int check_panels(const struct fg_panel *panels, unsigned n, unsigned width)
{
	if (!panels || n == 0)
		return -EINVAL;
	if (width < 2 * MARGIN + (n - 1) * GAP + n * MIN_PANEL_PX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		double ns = panels[i].ns_per_op;
		if (!(ns > 0) || !isfinite(ns) || panels[i].n_stacks == 0 || !panels[i].stacks)
			return -EINVAL;
	}
	return 0;
}

/* The trees of all panels; the deepest stack's frame count in *depth. */
static int build_trees(const struct fg_panel *panels, unsigned n, struct fg_node *roots,
		       size_t *depth)
{
	for (unsigned i = 0; i < n; i++) {
		for (size_t s = 0; s < panels[i].n_stacks; s++) {
			int rc = tree_add(&roots[i], &panels[i].stacks[s], depth);
			if (rc)
				return rc;
		}
		if (roots[i].count == 0)
			return -EINVAL;  /* every stack counted 0 */
	}
	return 0;
}

/* Where the panels' parts go, top to bottom. */
struct fg_layout {
	double head_y[2];   /* baselines of a heading's two lines */
	double baseline;    /* the top of the roots' row */
	double bottom;      /* the panels' bottom edge */
	double height;
};

static void draw_panels(FILE *out, const struct fg_panel *panels, unsigned n,
			const struct fg_node *roots, const struct fg_heading *heads,
			const double *x, const double *w, const struct fg_layout *lay)
{
	for (unsigned i = 0; i < n; i++) {
		struct fg_draw d = { out, &panels[i], roots[i].count, lay->baseline };

		fprintf(out, "<g class=\"panel\">\n<rect class=\"panel-bg\" x=\"%.2f\" y=\"%.1f\" "
			"width=\"%.2f\" height=\"%.1f\" fill=\"#f3f3ef\" stroke=\"#c8c8c0\"/>\n",
			x[i], PANEL_TOP, w[i], lay->bottom - PANEL_TOP);
		draw_heading(out, &heads[i], x[i], lay->head_y);
		draw_node(&d, &roots[i], true, x[i], w[i], 0);
		fputs("</g>\n", out);
	}
}

/* Each panel's x and width: its share (panel_shares) of the width left
 * by the margins and gaps. */
static void place_panels(const struct fg_panel *panels, unsigned n, unsigned width,
			 double *x, double *w)
{
	double span = width - 2 * MARGIN - (n - 1) * GAP, cursor = MARGIN;

	panel_shares(panels, n, w);
	for (unsigned i = 0; i < n; i++) {
		w[i] *= span;
		x[i] = cursor;
		cursor += w[i] + GAP;
	}
}

/* The headings' text, and the heights: one heading line where every
 * heading fits on one, so the panels line up whatever their widths. */
static void lay_out(const struct fg_panel *panels, unsigned n, const struct fg_node *roots,
		    const double *w, size_t depth, struct fg_heading *heads,
		    struct fg_layout *lay)
{
	bool two_lines = false;

	for (unsigned i = 0; i < n; i++) {
		heading_of(&panels[i], roots[i].count, w[i], &heads[i]);
		two_lines |= !heads[i].one_line;
	}
	lay->head_y[0] = PANEL_TOP + HEAD_LINE;
	lay->head_y[1] = lay->head_y[0] + (two_lines ? HEAD_LINE : 0);
	/* depth rows of frames above the root's */
	lay->baseline = lay->head_y[1] + HEAD_TO_FRAMES + (double)depth * ROW;
	lay->bottom = lay->baseline + ROW + 6;
	lay->height = lay->bottom + LEGEND_GAP + 12;
}

/* text's len bytes to out, flushed: 0, or -errno of the write that failed.
 * One fwrite of the whole picture: stdio's own flushes inside a stream of
 * small writes would leave only their error flag (EIO), not their errno
 * ("No space left on device"). */
static int write_whole(FILE *out, const char *text, size_t len)
{
	errno = 0;
	if (fwrite(text, 1, len, out) != len)
		return errno ? -errno : -EIO;
	return -stream_error(out);
}

int fg_write_svg(FILE *out, const char *title, const struct fg_panel *panels,
		 unsigned n, unsigned width_px)
{
	unsigned width = width_px ? width_px : DEFAULT_WIDTH;
	struct fg_node *roots = NULL;
	struct fg_heading *heads = NULL;
	double *x = NULL, *w = NULL;
	struct fg_layout lay;
	size_t depth = 0, len = 0;
	char *text = NULL;
	FILE *svg = NULL;
	int rc = check_panels(panels, n, width);

	if (rc)
		return rc;
	if (!out)
		return -EINVAL;
	roots = calloc(n, sizeof(*roots));
	heads = calloc(n, sizeof(*heads));
	x = calloc(n, sizeof(*x));
	w = calloc(n, sizeof(*w));
	rc = roots && heads && x && w ? build_trees(panels, n, roots, &depth) : -ENOMEM;
	if (!rc && !(svg = open_memstream(&text, &len)))
		rc = -ENOMEM;
	if (rc)
		goto done;
	/* drawn in memory, then written at once (write_whole) */
	place_panels(panels, n, width, x, w);
	lay_out(panels, n, roots, w, depth, heads, &lay);
	draw_frame_of_picture(svg, title ? title : "", width, lay.height);
	draw_panels(svg, panels, n, roots, heads, x, w, &lay);
	draw_legend(svg, lay.height - 12);
	fputs("</svg>\n", svg);
	bool whole = !ferror(svg);   /* a memory stream fails for want of memory */
	rc = fclose(svg) == 0 && whole ? write_whole(out, text, len) : -ENOMEM;
done:
	free(text);
	for (unsigned i = 0; roots && i < n; i++)
		node_free(&roots[i]);
	free(roots);
	free(heads);
	free(x);
	free(w);
	return rc;
}
