# SPDX-License-Identifier: MIT
"""The pieces every maplab figure is drawn with (matplotlib, Agg: no display).

report.py draws compare's and sim's records with them; any other script
beside it (findings.py) may too.  What they promise a reader:

- Small multiples: a figure is a grid of panels, two across, each about
  380 px high, the whole 1200 px wide (12 in at 100 dpi), rows added as
  the panels need; at most about 8 series in a panel (split_series), the
  references (the kernel) repeated in each.
- A series keeps one style in every figure of a run (Styles, by first
  appearance): a colour, a marker and a line, so that two series differ in
  shape as well as in colour (a grey print tells them apart).  The kernel's
  sides are the references: black and greys, open markers, dashed lines.
- One legend per figure, below the panels, never over data.
- Axes named with their units; thread counts as integer ticks at their own
  values (nothing nudged sideways: overlapping points differ by marker);
  sizes on a log2 axis.
- The spread is drawn: min-max error bars, or each run as a dot.

save() writes base.png (1200 px wide) and base.svg (text kept as text, no
date in it: the same figure gives the same file).

Every file a script writes goes through written(): a file is whole or not
there.  A failed write (a full disk, a folder that is not writable)
removes what was written and raises WriteFailed, which the script's main
turns into one line on stderr and exit status 2 (fail_on_write).
"""
import math
import os
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import (FixedLocator, FixedFormatter, FuncFormatter, LogLocator,
                                   NullFormatter, NullLocator)
    matplotlib.rcParams.update({
        "svg.fonttype": "none",        # text as text: searchable, and small
        "svg.hashsalt": "maplab",      # ids the same from run to run
        "font.size": 10,
        "axes.titlesize": 10.5,
        "axes.grid": True,
        "grid.alpha": 0.35,
        "legend.fontsize": 9.5,
    })
    _HAVE = True
except ImportError:                    # report.py says so, and writes report.md
    _HAVE = False

DPI = 100
WIDTH_PX = 1200


class WriteFailed(Exception):
    """A file that could not be written whole: str() is "PATH: reason"."""


def remove_partial(path):
    """A regular file left half written is removed; a device (/dev/full,
    /dev/stdout) or a FIFO is never touched."""
    if os.path.isfile(path) and not os.path.islink(path):
        try:
            os.remove(path)
        except OSError:
            pass


def written(path, write):
    """Calls write(path), which writes the file at path; on an OSError the
    partial file is removed and WriteFailed raised.  Returns path."""
    try:
        write(path)
    except OSError as e:
        remove_partial(path)
        raise WriteFailed(f"{path}: {e.strerror or e}") from None
    return path


def write_text(path, text):
    """text to the file at path, whole or not at all (written())."""
    def write(p):
        with open(p, "w") as f:
            f.write(text)
    return written(path, write)


def fail_on_write(script, main):
    """Runs main() and exits with what it returns; a WriteFailed is one
    line on stderr ("script: PATH: reason") and exit status 2."""
    try:
        rc = main()
    except WriteFailed as e:
        print(f"{script}: {e}", file=sys.stderr)
        rc = 2
    sys.exit(rc)


# Designs: nine colours apart from each other and from the kernel's greys
# (tab10's, less its grey), and ten filled markers: nine and ten share no
# factor, so a colour and marker pair does not come back before the 90th
# series, and any 8 consecutive series differ in both.
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#bcbd22", "#17becf")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
# The kernel's sides: black and greys, open markers (a design drawn under
# one still shows through it), dashed lines of three kinds.
KERNEL_COLOURS = ("#000000", "#6e6e6e", "#a0a0a0")
KERNEL_MARKERS = ("o", "s", "^", "D", "v")
KERNEL_DASHES = ("--", (0, (6, 2, 1, 2)), (0, (1.5, 1.5)))


def have_matplotlib() -> bool:
    return _HAVE


def is_kernel(name):
    return str(name).startswith("kernel")


class Styles:
    """A stable style per series name, in first-seen order: designs and
    kernel sides each count their own.  place() may choose the styles of a
    figure's panels first, so that no two series in a panel share a colour
    or a marker."""

    def __init__(self, names=()):
        self._styles = {}
        self._index = {}          # name: (kernel?, index)
        for n in names:
            self.get(n)

    @staticmethod
    def _style(kernel, i):
        if kernel:
            return {"color": KERNEL_COLOURS[i % len(KERNEL_COLOURS)],
                    "marker": KERNEL_MARKERS[i % len(KERNEL_MARKERS)],
                    "linestyle": KERNEL_DASHES[i % len(KERNEL_DASHES)],
                    "fillstyle": "none"}
        return {"color": COLOURS[i % len(COLOURS)], "marker": MARKERS[i % len(MARKERS)],
                "linestyle": "-", "fillstyle": "full"}

    def _take(self, name, avoid=()):
        """The first free index whose colour and marker no name in avoid
        has (the first free one if every index clashes)."""
        kernel = is_kernel(name)
        used = {i for k, i in self._index.values() if k == kernel}
        taken = [self._styles[a] for a in avoid if a in self._styles]
        first = None
        for i in range(4 * len(COLOURS) * len(MARKERS)):
            if i in used:
                continue
            st = self._style(kernel, i)
            if first is None:
                first = i
            if all(st["color"] != t["color"] and st["marker"] != t["marker"] for t in taken):
                first = i
                break
        self._index[name] = (kernel, first)
        self._styles[name] = self._style(kernel, first)

    def place(self, groups):
        """Styles for every new name in groups (lists of names drawn in one
        panel), each unlike the others of its panel where the palette
        allows."""
        for g in groups:
            for n in g:
                if n not in self._styles:
                    self._take(n, avoid=[m for m in g if m != n])

    def get(self, name) -> dict:
        if name not in self._styles:
            self._take(name)
        return dict(self._styles[name])

    def names(self):
        return list(self._styles)


def panels(n, ncols=2, width_px=WIDTH_PX, panel_height_px=380, sharey=False, sharex=False):
    """-> (fig, [ax...]) n axes on a grid of ceil(n/ncols) rows, unused axes
    hidden.  One panel alone takes the whole width."""
    n = max(1, n)
    ncols = max(1, min(ncols, n))
    rows = math.ceil(n / ncols)
    fig, grid = plt.subplots(rows, ncols, squeeze=False, sharex=sharex, sharey=sharey,
                             figsize=(width_px / DPI, rows * panel_height_px / DPI), dpi=DPI)
    axes = [ax for row in grid for ax in row]
    for ax in axes[n:]:
        ax.set_visible(False)
    fig._maplab = {"legend_rows": 0, "title_lines": 0}
    return fig, axes[:n]


def split_series(names, per_panel=8, keep=()) -> list:
    """names grouped into panels of <= per_panel (in their order, groups of
    near-equal size); names in `keep` that are among names are repeated at
    the head of every group."""
    names = list(dict.fromkeys(names))
    kept = [n for n in names if n in set(keep)]
    rest = [n for n in names if n not in set(keep)]
    if not rest:
        return [kept] if kept else []
    room = max(1, per_panel - len(kept))
    groups = math.ceil(len(rest) / room)
    size = math.ceil(len(rest) / groups)
    return [kept + rest[i:i + size] for i in range(0, len(rest), size)]


def _line_kw(style):
    style = style or {}
    kw = {k: style[k] for k in ("color", "marker", "linestyle", "markerfacecolor", "fillstyle")
          if k in style}
    kw.setdefault("linewidth", style.get("linewidth", 1.8))
    kw.setdefault("markersize", style.get("markersize", 7))
    kw["markeredgewidth"] = 1.5
    if style.get("fillstyle") == "none":
        kw["zorder"] = 4        # a reference's open marker over the design it matches
    return kw


def _bars(values, lo, hi):
    """errorbar's [below, above] for values from their lo and hi (a None
    bound: no bar on that side)."""
    return [[v - (lo[i] if lo[i] is not None else v) for i, v in values],
            [(hi[i] if hi[i] is not None else v) - v for i, v in values]]


def draw(ax, xs, ys, lo=None, hi=None, style=None, label=None, xlo=None, xhi=None):
    """A line with markers through (xs, ys), min-max error bars when lo and
    hi are given (across, on x, when xlo and xhi are: a scatter of speeds);
    a None value (in ys, lo or hi) is skipped."""
    pts = [(i, x, y) for i, (x, y) in enumerate(zip(xs, ys)) if x is not None and y is not None]
    if not pts:
        return None
    x = [p[1] for p in pts]
    y = [p[2] for p in pts]
    kw = _line_kw(style)
    yerr = _bars([(i, y_) for i, _, y_ in pts], lo, hi) if lo is not None and hi is not None \
        else None
    xerr = _bars([(i, x_) for i, x_, _ in pts], xlo, xhi) if xlo is not None and xhi is not None \
        else None
    if yerr or xerr:
        return ax.errorbar(x, y, xerr=xerr, yerr=yerr, capsize=4, elinewidth=1.2,
                           label=label, **kw)
    return ax.plot(x, y, label=label, **kw)


def dots(ax, xs, runs, style):
    """Every run as a small dot at its x (runs: a list of lists, one per x;
    None or an empty list where there were none)."""
    style = style or {}
    px, py = [], []
    for x, rs in zip(xs, runs):
        for v in rs or ():
            if v is not None:
                px.append(x)
                py.append(v)
    if px:
        ax.scatter(px, py, s=14, color=style.get("color", "black"), alpha=0.55,
                   linewidths=0, zorder=3)


def label_points(ax, points):
    """Names each point (x, y, text) beside it, in the first of eight places
    around it where the name covers no other name and no point (placed by
    save(), once the panels have their final size): a scatter read without
    the legend.  Where every place is taken, the first."""
    ax._maplab_labels = list(points)


def _place_labels(ax, points, fontsize=8):
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData.transform
    marks = []
    for x, y, _ in points:
        px, py = to_px((x, y))
        marks.append((px - 7, py - 7, px + 7, py + 7))
    taken = []
    gap = 8
    places = ((gap, -gap, "left", "top"), (gap, gap, "left", "bottom"),
              (-gap, gap, "right", "bottom"), (-gap, -gap, "right", "top"),
              (gap, 0, "left", "center"), (-gap, 0, "right", "center"),
              (0, gap + 2, "center", "bottom"), (0, -gap - 2, "center", "top"))

    def clash(b, boxes):
        return any(b.x0 < x1 and b.x1 > x0 and b.y0 < y1 and b.y1 > y0
                   for x0, y0, x1, y1 in boxes)

    axbox = ax.get_window_extent(renderer)
    for x, y, text in points:
        first = None
        for dx, dy, ha, va in places:
            t = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                            ha=ha, va=va, fontsize=fontsize, color="#222222")
            b = t.get_window_extent(renderer)
            inside = axbox.x0 <= b.x0 and b.x1 <= axbox.x1 and axbox.y0 <= b.y0 and b.y1 <= axbox.y1
            if inside and not clash(b, taken) and not clash(b, marks):
                if first is not None:
                    first[0].remove()
                first = (t, b)
                break
            if first is None:
                first = (t, b)
            else:
                t.remove()
        taken.append(tuple(first[1].extents))


def thread_axis(ax, threads):
    """Integer ticks at exactly these thread counts, no offsets."""
    threads = sorted(set(int(t) for t in threads))
    ax.xaxis.set_major_locator(FixedLocator(threads))
    ax.xaxis.set_major_formatter(FixedFormatter([str(t) for t in threads]))
    ax.xaxis.set_minor_locator(NullLocator())
    if threads:
        pad = max(0.25, 0.08 * (threads[-1] - threads[0]))
        ax.set_xlim(threads[0] - pad, threads[-1] + pad)
    ax.set_xlabel("threads")


def number_text(v, _pos=None):
    """A tick's number as a reader writes it: 0.5, 20, 1000, 2e+05."""
    if v == 0:
        return "0"
    if 1e-3 <= abs(v) < 1e5:
        return f"{v:.4g}"
    return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")


def log_scale(ax, axis="y"):
    """A log10 axis ticked at 1, 2 and 5 of each decade, in plain numbers
    (20, 50, 100), not powers of ten."""
    getattr(ax, f"set_{axis}scale")("log")
    a = ax.yaxis if axis == "y" else ax.xaxis
    a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    a.set_major_formatter(FuncFormatter(number_text))
    a.set_minor_formatter(NullFormatter())


def wrap(text, width=50):
    """A panel's title broken at commas or spaces into lines of at most
    width characters (a panel's axes, about 450 px beside their labels, hold about 55 at 10.5 pt)."""
    import textwrap
    return "\n".join("\n".join(textwrap.wrap(line, width, break_on_hyphens=False)) or line
                     for line in str(text).split("\n"))


def size_text(n):
    """1K, 16K, 1M for powers-of-two multiples; the number itself else."""
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return str(n)


def size_axis(ax, sizes, label="max_entries"):
    """A log2 axis, ticks at the sizes given (labelled 1K, 16K, 1M where
    they are such multiples), a margin either side."""
    sizes = sorted(set(int(s) for s in sizes if s))
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_major_formatter(FixedFormatter([size_text(s) for s in sizes]))
    ax.xaxis.set_minor_locator(NullLocator())
    if sizes:
        span = max(1.0, math.log2(sizes[-1] / sizes[0]))
        ax.set_xlim(sizes[0] / 2 ** (0.06 * span), sizes[-1] * 2 ** (0.06 * span))
    ax.set_xlabel(label)


def legend(fig, axes, ncol=4):
    """One legend for the figure, below the panels (save() makes room for
    it), each label once."""
    handles, labels = {}, []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l and not l.startswith("_") and l not in handles:
                handles[l] = h
                labels.append(l)
    if not labels:
        return None
    ncol = max(1, min(ncol, len(labels)))
    rows = math.ceil(len(labels) / ncol)
    # matplotlib fills a legend column by column: reorder so that it reads
    # across, row by row, in the order the series were drawn.
    order = [r * ncol + c for c in range(ncol) for r in range(rows) if r * ncol + c < len(labels)]
    labels = [labels[i] for i in order]
    leg = fig.legend([handles[l] for l in labels], labels, loc="lower center",
                     bbox_to_anchor=(0.5, 0.0), ncol=ncol, frameon=False,
                     handlelength=3.2, columnspacing=1.6)
    getattr(fig, "_maplab", {})["legend_rows"] = rows
    return leg


def title(fig, text, host_line):
    """The figure's title (its lines), and a smaller host line under it."""
    lines = str(text).count("\n") + 1
    fig.suptitle(text, y=1.0, va="top", fontsize=12, fontweight="bold")
    fig._maplab_title = (lines, host_line)
    getattr(fig, "_maplab", {})["title_lines"] = lines + (1 if host_line else 0)


def plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def host_line(host_record: dict) -> str:
    """cpu model, cpus, kernel (and virtualisation where recorded): the
    machine whose speeds a figure shows."""
    h = host_record.get("host", host_record) if isinstance(host_record, dict) else {}
    text = (f"{h.get('cpu_model', '?')}, {plural(h.get('nproc', 0) or 0, 'CPU')}, "
            f"Linux {h.get('kernel', '?')}")
    if h.get("virtualised"):
        text += f", virtual machine{' (' + h['hypervisor'] + ')' if h.get('hypervisor') else ''}"
    if h.get("hostname"):
        text = f"{h['hostname']}: {text}"
    return text


def _layout(fig):
    """Grow the figure by the title's and the legend's heights and lay the
    panels out between them."""
    info = getattr(fig, "_maplab", {"legend_rows": 0, "title_lines": 0})
    w, h = fig.get_size_inches()
    top_in = 0.1 + 0.21 * info["title_lines"] if info["title_lines"] else 0.1
    bottom_in = (0.2 + 0.24 * info["legend_rows"]) if info["legend_rows"] else 0.0
    fig.set_size_inches(w, h + top_in + bottom_in)
    H = h + top_in + bottom_in
    if getattr(fig, "_maplab_title", None):
        lines, line = fig._maplab_title
        fig._suptitle.set_y(1 - 0.06 / H)
        if line:
            fig.text(0.5, 1 - (0.1 + 0.21 * lines) / H, line, ha="center", va="top",
                     fontsize=9.5, color="#333333")
    fig.tight_layout(rect=(0, bottom_in / H, 1, 1 - top_in / H), h_pad=1.2, w_pad=1.5)


def save(fig, outdir, base) -> list:
    """Writes outdir/base.png (1200 px wide at 100 dpi) and base.svg, closes
    fig; returns the two paths."""
    _layout(fig)
    for ax in fig.axes:
        if getattr(ax, "_maplab_labels", None):
            _place_labels(ax, ax._maplab_labels)
    png = os.path.join(outdir, base + ".png")
    svg = os.path.join(outdir, base + ".svg")
    try:
        written(png, lambda p: fig.savefig(p, dpi=DPI, metadata={"Software": None}))
        written(svg, lambda p: fig.savefig(p, metadata={"Date": None, "Creator": None}))
    except WriteFailed:
        remove_partial(png)
        raise
    finally:
        plt.close(fig)
    return [png, svg]
