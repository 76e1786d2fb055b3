#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""maplab's findings writer: `maplab reproduce`'s records turned into
findings.md, its plots, and each finding's answer on stdout.

usage: findings.py DIR

Reads DIR/results.jsonl, which `maplab reproduce` wrote: a host record, a
{"record":"reproduce"} line (quick or full, what --quick cut), then for
each step of its plan the step's records (compare's "result", sim's "sim",
explain's "explain"), each tagged with "step" (the step's id, e.g.
f1-update-64K) and "finding", and a {"record":"step"} line with the
command that step ran, its exit status and seconds.  cli/reproduce/reproduce_plan.c
lists the steps; this file reads them by id.

Writes DIR/findings.md (each finding: the question, the answer in one
sentence with this run's numbers, a table, the plots, the commands that
re-run it alone, and how far to trust it) and the plots as PNG and SVG
(plotting.py draws them), and prints the answers and the plots' paths.
Every figure is a median over the step's interleaved repeats with its
min-max; a ratio between two sides is taken within each repeat where the
records hold every repeat (ns_per_op_runs), else it is the ratio of the
medians and its range the ratio of the extremes, which is wider.

A finding whose steps did not run (no BPF here, --only) says what is
missing instead of an answer.  Exit 2: no such file, or not reproduce's.
"""
import json
import math
import os
import signal
import statistics
import sys
import textwrap

if __name__ == "__main__":
    # Ctrl-C ends the writer at once, without a traceback (matplotlib's
    # import takes a while): maplab reproduce, which runs it, says what was
    # interrupted and removes what it had written (findings.md, the
    # plots).  reproduce starts it with SIGINT blocked, so that a Ctrl-C
    # during python's own start waits for this line rather than becoming
    # a traceback.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotting  # noqa: E402


def bad_input(message):
    print(f"findings.py: {message}", file=sys.stderr)
    raise SystemExit(2)


# --- the published figures ---------------------------------------------------------
# microsoft/bpf_performance, as published in Alan Jowett's issues of
# 2023-08-25 (ns per program run, CPU 0 / CPU 1 of a 2-thread run; the
# hardware, kernel and Windows build are not stated): eBPF-for-Windows
# issues #2788 (hash), #2789 (LRU), #2790 (LPM), github.com/microsoft/
# ebpf-for-windows/issues/NNNN; docs/findings.md cites them.
PUBLISHED_SOURCE = {
    "hash": "microsoft/ebpf-for-windows#2788",
    "lru": "microsoft/ebpf-for-windows#2789",
    "lpm": "microsoft/ebpf-for-windows#2790",
}
PUBLISHED = {
    # test: (Linux (cpu0, cpu1), Windows (cpu0, cpu1))
    ("hash", "read"): ((38, 38), (120, 119)),
    ("hash", "update"): ((171, 169), (1069, 1075)),
    ("hash", "replace"): ((256, 257), (1737, 1748)),
    ("lru", "read"): ((37, 37), (469, 469)),
    ("lru", "update"): ((536, 536), (1572, 1581)),
    ("lru", "replace"): ((544, 541), (2146, 2155)),
    ("lru", "rolling update"): ((104, 106), (259, 243)),
    ("lpm 1K", "read"): ((128, 128), (503, 487)),
    ("lpm 1K", "update"): ((540, 541), (1136, 1141)),
    ("lpm 1K", "replace"): ((2037, 2041), (1740, 1751)),
    ("lpm 16K", "read"): ((237, 234), (569, 573)),
    ("lpm 16K", "update"): ((1554, 1553), (1189, 1191)),
    ("lpm 16K", "replace"): ((2704, 2703), (1855, 1861)),
    ("lpm 256K", "read"): ((709, 697), (894, 889)),
    ("lpm 256K", "update"): ((2822, 2820), (1547, 1569)),
    ("lpm 256K", "replace"): ((4097, 4093), (2308, 2324)),
    ("lpm 1M", "read"): ((1020, 1033), (1489, 1494)),
    ("lpm 1M", "update"): ((3413, 3408), (1724, 1739)),
    ("lpm 1M", "replace"): ((4774, 4779), (2559, 2591)),
}
SUITE_OPS = {"read": "lookup", "update": "upsert", "replace": "replace",
             "rolling update": "lookup_write"}


# --- reading -----------------------------------------------------------------------

class Run:
    """reproduce's records, by step."""

    def __init__(self, d):
        path = os.path.join(d, "results.jsonl")
        if not os.path.exists(path):
            bad_input(f"{path}: no such file (run maplab reproduce --out {d})")
        self.dir = d
        self.host = {}
        self.meta = None
        self.steps = {}      # id -> the step record
        self.records = {}    # id -> [records]
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    bad_input(f"{path}:{n}: not a JSON line")
                kind = r.get("record")
                if kind == "host":
                    self.host = r.get("host", {})
                elif kind == "reproduce":
                    self.meta = r
                elif kind == "step":
                    self.steps[r["step"]] = r
                elif "step" in r:
                    self.records.setdefault(r["step"], []).append(r)
        if self.meta is None:
            bad_input(f"{path}: not maplab reproduce's records")
        self.quick = bool(self.meta.get("quick"))

    def ran(self, step):
        s = self.steps.get(step)
        return s is not None and s.get("status") == 0

    def of(self, step, **match):
        rs = [r for r in self.records.get(step, [])
              if all(r.get(k) == v for k, v in match.items())]
        return sim_medians(rs) if match.get("record") == "sim" else rs

    def one(self, step, **match):
        rs = self.of(step, **match)
        return rs[0] if rs else None

    def steps_like(self, prefix):
        return [s for s in self.steps if s.startswith(prefix)]

    def commands(self, prefix):
        return [self.steps[s]["command"] for s in self.steps_like(prefix)]


def sim_medians(recs):
    """sim's records, a point each: a point's repeats (sim --repeat: its
    records of one policy, size and thread count) become one record, each
    number the median over them; a point of one run stays as it is."""
    by = {}
    for r in recs:
        by.setdefault((r.get("policy"), r.get("entries"), r.get("threads")), []).append(r)
    out = []
    for reps in by.values():
        one = dict(reps[0])
        for k, v in reps[0].items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                vals = [x[k] for x in reps if isinstance(x.get(k), (int, float))]
                one[k] = statistics.median(vals)
        out.append(one)
    return out


# --- figures -----------------------------------------------------------------------

class Fig:
    """A median with its min and max."""

    def __init__(self, med, lo=None, hi=None):
        self.med = med
        self.lo = med if lo is None else lo
        self.hi = med if hi is None else hi

    def ok(self):
        return self.med is not None and math.isfinite(self.med)

    def __str__(self):
        return num(self.med)

    def spread(self):
        return f"{num(self.lo)}–{num(self.hi)}"


def num(x, digits=3):
    """A figure to `digits` significant digits, as a reader wants it."""
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def times(x):
    return "–" if x is None or not math.isfinite(x) else f"{x:.1f}×" if x < 10 else f"{x:.0f}×"


def val(r, field):
    """r's field as a Fig (median, min, max)."""
    if r is None or r.get(field) is None:
        return Fig(None)
    return Fig(r[field], r.get(field + "_min"), r.get(field + "_max"))


def ratio(a, b, field="ns_per_op"):
    """a's field over b's: within each repeat where both hold every
    repeat's value, else of the medians (range from the extremes)."""
    if a is None or b is None or a.get(field) is None or b.get(field) is None:
        return Fig(None)
    ra, rb = a.get(field + "_runs"), b.get(field + "_runs")
    if ra and rb and len(ra) == len(rb):
        rs = [x / y for x, y in zip(ra, rb) if x is not None and y]
        if rs:
            return Fig(statistics.median(rs), min(rs), max(rs))
    med = a[field] / b[field] if b[field] else None
    lo = a.get(field + "_min", a[field]) / b.get(field + "_max", b[field])
    hi = a.get(field + "_max", a[field]) / max(b.get(field + "_min", b[field]), 1e-9)
    return Fig(med, lo, hi)


def size_label(n):
    """1K is 1024, as max_entries go; decimal thousands (the kernel's LPM
    benchmark's 10,000) read 10K too, as reproduce_plan.c names them."""
    if n % 1048576 == 0:
        return f"{n // 1048576}M"
    if n % 1024 == 0:
        return f"{n // 1024}K"
    if n % 1000 == 0:
        return f"{n // 1000}K"
    return str(n)


def flags_of(records):
    out = []
    for r in records:
        for fl in r.get("flags") or []:
            out.append(f"{r.get('label', r.get('side'))} at {size_label(r.get('entries', 0))}"
                       f", {r.get('threads', 1)} thr: {fl}")
    return out


def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


class Finding:
    def __init__(self, number, title, question):
        self.number, self.title, self.question = number, title, question
        self.answer = None        # one sentence, numbers in it
        self.body = []            # markdown paragraphs and tables
        self.plots = []           # png paths (svg beside)
        self.commands = []
        self.trust = []
        self.missing = None

    def markdown(self, d):
        out = [f"## {self.number}. {self.title}", "", f"**{self.question}**", ""]
        if self.missing:
            out += [f"*Not answered in this run: {self.missing}*", ""]
        if self.answer:
            out += [self.answer, ""]
        out += self.body
        for p in self.plots:
            rel = os.path.relpath(p, d)
            out += [f"![{self.title}]({rel})", ""]
        if self.commands:
            out += ["Re-run it alone (`maplab reproduce --only "
                    f"{self.number} --out DIR`, or these, each):", "", "```"]
            out += self.commands + ["```", ""]
        if self.trust:
            out += ["How far to trust it:", ""] + [f"- {t}" for t in self.trust] + [""]
        return "\n".join(out)


# --- finding 1: trie against hash updates --------------------------------------------

PLATFORMS = [
    # name, trie side, hash side (kernel sides by map type)
    ("kernel, in BPF", ("kernel", "lpm_trie"), ("kernel", "hash")),
    ("Linux's designs: lpm_trie/linux, hash/linux", ("user", "lpm_trie/linux"),
     ("user", "hash/linux")),
    ("Windows' designs: lpm_trie/prefix_hash, hash/cow", ("user", "lpm_trie/prefix_hash"),
     ("user", "hash/cow")),
    ("maplab's: lpm_trie/multibit, hash/seqlock_buckets", ("user", "lpm_trie/multibit"),
     ("user", "hash/seqlock_buckets")),
]


def side_record(run, step, side, name):
    return run.one(step, record="result", side=side, map=name)


def sizes_of(run, prefix):
    sizes = []
    for s in run.steps_like(prefix):
        if run.ran(s):
            for r in run.records.get(s, []):
                if r.get("record") == "result":
                    sizes.append((r["entries"], s))
                    break
    return sorted(sizes)


def top_steps(rec, n=2):
    steps = {k: float(v) for k, v in (rec or {}).get("steps", {}).items()}
    return sorted(steps.items(), key=lambda kv: -kv[1])[:n]


def describe_steps(rec, n=2):
    return ", ".join(f"{ns:.0f} ns {name}" for name, ns in top_steps(rec, n))


def finding_trie_vs_hash(run, styles):
    f = Finding(1, "Trie against hash updates",
                "Do LPM-trie updates beat hash updates, and on which platform's designs?")
    sizes = sizes_of(run, "f1-update-")
    f.commands = run.commands("f1-")
    if not sizes:
        f.missing = "its compare steps did not run (above, in the run's output)"
        return f
    rows, ratios = [], {p[0]: [] for p in PLATFORMS}
    for entries, step in sizes:
        row = [size_label(entries)]
        for name, trie, hsh in PLATFORMS:
            t = side_record(run, step, *trie)
            h = side_record(run, step, *hsh)
            r = ratio(t, h)
            ratios[name].append((entries, r, val(t, "ns_per_op"), val(h, "ns_per_op")))
            row.append(f"{num(val(t, 'ns_per_op').med)} / {num(val(h, 'ns_per_op').med)}"
                       f" = **{times(r.med)}**" if r.ok() else "–")
        rows.append(row)
    f.body.append("ns per update, trie / hash, one thread, the same /32 addresses "
                  "(a trie's key is the prefix length and the address, a hash's the "
                  "address); the ratio in bold:")
    f.body += ["", md_table(["entries"] + [p[0] for p in PLATFORMS], rows), ""]

    mid = min(sizes, key=lambda s: abs(s[0] - 65536))
    at = lambda name: next((x for x in ratios[name] if x[0] == mid[0]), None)  # noqa: E731
    k, lin, win = at(PLATFORMS[0][0]), at(PLATFORMS[1][0]), at(PLATFORMS[2][0])
    parts = []
    if k and k[1].ok():
        span = [x[1].med for x in ratios[PLATFORMS[0][0]] if x[1].ok()]
        parts.append(f"on Linux the kernel's trie update costs {times(k[1].med)} its "
                     f"hash update at {size_label(mid[0])} entries ({num(k[2].med)} against "
                     f"{num(k[3].med)} ns; {times(min(span))} to {times(max(span))} across "
                     f"{', '.join(size_label(s[0]) for s in sizes)})")
    elif lin and lin[1].ok():
        parts.append(f"on Linux's designs: lpm_trie/linux's update costs "
                     f"{times(lin[1].med)} hash/linux's at {size_label(mid[0])}")
    if win and win[1].ok():
        verdict = ("about the same as" if 0.8 <= win[1].med <= 1.25 else
                   "less than" if win[1].med < 1 else "more than")
        parts.append(f"on eBPF for Windows' designs (lpm_trie/prefix_hash, hash/cow) a trie "
                     f"update costs {verdict} a hash "
                     f"update ({num(win[2].med)} against {num(win[3].med)} ns, "
                     f"{times(win[1].med)})")
    beats = [name.split(":")[0] for name, *_ in PLATFORMS
             if any(x[1].ok() and x[1].med < 0.95 for x in ratios[name])]
    lead = ("LPM-trie updates beat hash updates on no platform here" if not beats else
            "LPM-trie updates beat hash updates only on " + ", ".join(beats) +
            " (at some sizes)")
    table = internet_updates(run)
    if table:
        parts.append(table[0])
        f.body += table[1]
    f.answer = lead + ": " + "; ".join(parts) + "."
    why = explain_why(run)
    if why:
        f.body += [why, ""]
    f.body.append("The published suite saw the same split (its 1K tests, ns per program run): "
                  "Linux trie update 540 ns against hash update 171 ns (3.2×); Windows "
                  "1136 against 1069 ns (1.06×), and from 16K entries up Windows' trie "
                  "updates are cheaper than Linux's (section *suite* below).")
    f.body.append("")
    f.plots += plot_trie_vs_hash(run, ratios, sizes, styles)
    f.trust = trust_lines(run, [s for _, s in sizes], "f1-")
    return f


def internet_updates(run):
    """The whole Internet table's updates (f1-internet-update, full run
    only): (a clause for the answer, the body's paragraph and table), or
    None where the step did not run."""
    step = "f1-internet-update"
    if not run.ran(step):
        return None
    rows, cells = [], {}
    for name, trie, hsh in PLATFORMS:
        t, h = side_record(run, step, *trie), side_record(run, step, *hsh)
        r = ratio(t, h)
        cells[name] = (r, val(t, "ns_per_op"), val(h, "ns_per_op"))
        rows.append([name, num(val(t, "ns_per_op").med), num(val(h, "ns_per_op").med),
                     f"**{times(r.med)}**" if r.ok() else "–"])
    body = ["On the whole Internet table (901,899 IPv4 prefixes, most of them shorter than "
            "/32; a hash keys each prefix by its whole LPM key, so both hold the same "
            "prefixes), ns per update, one thread:", "",
            md_table(["platform", "trie", "hash", "trie / hash"], rows), ""]
    # "kernel", "Linux's designs", ...: the platform's name before its maps.
    ok = [(name.split(":")[0].split(",")[0], c) for name, c in cells.items() if c[0].ok()]
    if not ok:
        return None
    clause = ("on the whole Internet table a trie update costs, in hash updates, " +
              ", ".join(f"{times(c[0].med)} ({name})" for name, c in ok))
    return clause, body


def explain_why(run):
    """Why, in a sentence, from the explain steps (sampled shares of the
    unsampled ns/op)."""
    sizes = {r["entries"] for s in ("f1-explain-trie", "f1-explain-hash")
             for r in run.of(s, record="explain")}
    if not sizes:
        return ""
    e = min(sizes, key=lambda n: abs(math.log2(n) - 16))  # the one nearest 64K
    trie = run.one("f1-explain-trie", record="explain", kernel=True, entries=e)
    hk = run.one("f1-explain-hash", record="explain", kernel=True, entries=e)
    cow = run.one("f1-explain-hash", record="explain", map="hash/cow", entries=e)
    pfx = run.one("f1-explain-trie", record="explain", map="lpm_trie/prefix_hash", entries=e)
    out = []
    if trie:
        steps = dict((k, float(v)) for k, v in trie.get("steps", {}).items())
        out.append(f"**Why** (explain, at {size_label(trie['entries'])}): the kernel's trie update "
                   f"spends {steps.get('irqs off', 0):.0f} ns with interrupts off (the walk "
                   f"and the node links, under the trie's spinlock) and "
                   f"{steps.get('alloc', 0):.0f} ns allocating the new node, of "
                   f"{trie['ns_per_op']:.0f} ns")
        if hk:
            out[-1] += f"; its hash update {hk['ns_per_op']:.0f} ns in all ({describe_steps(hk)})"
    if cow:
        steps = dict((k, float(v)) for k, v in cow.get("steps", {}).items())
        cost = steps.get("copy", 0) + steps.get("alloc", 0) + steps.get("reclaim", 0)
        out.append(f"hash/cow copies its bucket on every update: {cost:.0f} ns of its "
                   f"{cow['ns_per_op']:.0f} ns are copy, allocation and reclamation"
                   + (f", while lpm_trie/prefix_hash's update is {describe_steps(pfx)}"
                      if pfx else ""))
    return ("; ".join(out) + ".") if out else ""


def plot_trie_vs_hash(run, ratios, sizes, styles):
    if not plotting.have_matplotlib():
        return []
    xs = [s for s, _ in sizes]
    fig, axes = plotting.panels(2, ncols=2)
    ax = axes[0]
    for name, *_ in PLATFORMS:
        pts = ratios[name]
        plotting.draw(ax, [p[0] for p in pts], [p[1].med for p in pts],
                      [p[1].lo for p in pts], [p[1].hi for p in pts],
                      styles.get(name), name)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("trie update / hash update (ratio)")
    ax.set_yscale("log")
    ax.set_title("trie / hash, per platform (1 = the same cost)")
    plotting.size_axis(ax, xs)
    ax = axes[1]
    for name, *_ in PLATFORMS:
        pts = ratios[name]
        st = styles.get(name)
        plotting.draw(ax, [p[0] for p in pts], [p[2].med for p in pts],
                      [p[2].lo for p in pts], [p[2].hi for p in pts], st, name)
        hst = dict(st, linestyle=":")
        plotting.draw(ax, [p[0] for p in pts], [p[3].med for p in pts],
                      [p[3].lo for p in pts], [p[3].hi for p in pts], hst, None)
    ax.set_yscale("log")
    ax.set_ylabel("ns per update (log)")
    ax.set_title("trie (solid) and hash (dotted) updates")
    plotting.size_axis(ax, xs)
    return finish(run, fig, axes,
                  "Finding 1: LPM-trie updates against hash updates of the same keys",
                  "finding1-trie-vs-hash", ncol=2)


def finish(run, fig, axes, text, base, ncol=4):
    """The figure's legend (below its panels), its title and host line,
    written as base.png and base.svg in the run's folder: the PNG's path."""
    plotting.legend(fig, axes, ncol=ncol)
    plotting.title(fig, text, plotting.host_line(run.host))
    return plotting.save(fig, run.dir, base)[:1]


# --- the trust lines ---------------------------------------------------------------

def trust_lines(run, steps, prefix):
    recs = [r for s in steps for r in run.records.get(s, []) if r.get("record") == "result"]
    out = []
    widths = []
    for r in recs:
        if r.get("ns_per_op") and r.get("ns_per_op_min") is not None:
            widths.append((r["ns_per_op_max"] - r["ns_per_op_min"]) / r["ns_per_op"])
    if widths:
        runs = recs[0].get("runs", 0)
        out.append(f"spread: each figure is the median of {runs} interleaved runs; "
                   f"their min-max spans {100 * statistics.median(widths):.0f} % of the "
                   f"median typically, {100 * max(widths):.0f} % at most")
    fl = flags_of(recs)
    if fl:
        out.append("flagged (docs/bench.md, \"Flagged results\"): " + "; ".join(fl[:6])
                   + (f"; and {len(fl) - 6} more" if len(fl) > 6 else ""))
    else:
        out.append("no figure was flagged")
    failed = [s for s in run.steps_like(prefix) if not run.ran(s)]
    if failed:
        out.append("steps that failed: " + ", ".join(failed))
    out.append("host: " + plotting.host_line(run.host) + ": one machine, one run; ratios "
               "taken side by side hold across runs better than the ns figures do")
    return out


# --- finding 2: the LRUs -------------------------------------------------------------

def lru_label(r):
    return r.get("label") or r.get("map")


def finding_lru(run, styles):
    f = Finding(2, "The price of a global consensus on key age",
                "What does keeping every key's age in one order cost in throughput, and "
                "what does giving it up cost in hit ratio?")
    f.commands = run.commands("f2-")
    thr = [r for r in run.of("f2-throughput", record="result")]
    sims = run.of("f2-miss-zipf", record="sim")
    if not thr:
        f.missing = "its compare step did not run"
        return f
    by = {}
    for r in thr:
        by.setdefault(lru_label(r), {})[r["threads"]] = r
    # The miss ratio at the compare's most threads (a per-CPU LRU holds
    # its whole capacity only when every cpu inserts); opt runs on one.
    top = max((r.get("threads", 1) for r in sims), default=1)
    miss = {r["policy"]: r for r in sims if r.get("threads", 1) == top}
    miss.update({r["policy"]: r for r in sims if r["policy"] == "opt"})
    kmiss = {"kernel BPF": miss.get("kernel"),
             "kernel BPF +no_common_lru": miss.get("kernel:no_common_lru")}
    rows = []
    for name, pts in sorted(by.items(), key=lambda kv: -val(kv[1].get(max(kv[1])), "mops").med):
        one, two = pts.get(1), pts.get(2)
        sp = ratio(two, one, "mops") if one and two else Fig(None)
        m = miss.get(name) or kmiss.get(name)
        rows.append([name, num(val(one, "mops").med), num(val(two, "mops").med),
                     times(sp.med) if sp.ok() else "–",
                     f"{m['miss_ratio']:.4f}" if m else "–"])
    f.body += ["Mops/s of all threads together (a zipf 0.99 stream over keys 4× the map's "
               "65,536 entries; each op a lookup that writes its value on a hit and inserts "
               "on a miss), the speed-up from 1 to 2 threads, and the miss ratio of the same "
               f"policy on a zipf 0.99 trace of the same shape (sim, {top} "
               f"thread{'s' if top > 1 else ''}):", "",
               md_table(["design", "1 thread", "2 threads", "speed-up", "miss ratio"], rows), ""]
    f.answer = lru_answer(by, miss, kmiss)
    hot = run.of("f2-miss-hotset", record="sim")
    if hot:
        f.body += hotset_table(hot)
    f.plots += plot_lru(run, by, miss, kmiss, styles)
    f.trust = trust_lines(run, ["f2-throughput"], "f2-")
    f.trust.append("2 cores: only 1 and 2 threads; how the designs scale beyond 2 cpus is "
                   "not measured here")
    f.trust.append("the miss ratios come from sim's zipf trace of the same shape (alpha, "
                   "key count, cache size), not from the compare run's own key stream")
    return f


def lru_answer(by, miss, kmiss):
    def mops(name, t):
        pts = by.get(name, {})
        return val(pts.get(t), "mops").med if pts.get(t) else None

    def mr(name):
        m = miss.get(name) or kmiss.get(name)
        return m["miss_ratio"] if m else None

    top = max((t for pts in by.values() for t in pts), default=1)
    strict = "lru/global"
    if mops(strict, top) is None or mr(strict) is None:
        return None
    others = [n for n in by if n != strict and mops(n, top) is not None and mr(n) is not None]
    faster = sorted(others, key=lambda n: -mops(n, top))
    close = [n for n in others if mr(n) <= mr(strict) + 0.01]
    best = max(close, key=lambda n: mops(n, top), default=None)
    lost = [n for n in others if mr(n) > mr(strict) + 0.01]
    gain = mops(best, top) / mops(strict, top) if best else None
    lead = ("Keeping one global order costs speed, not hits" if gain and gain > 1.2 else
            "Keeping one global order costs little on this machine")
    out = (f"{lead}: strict LRU under one lock "
           f"(lru/global) runs {num(mops(strict, 1))} Mops/s on 1 thread and "
           f"{num(mops(strict, top))} on {top} (misses {mr(strict):.3f})")
    if best:
        out += (f", while {best}, which gives the order up, runs {num(mops(best, top))} Mops/s "
                f"on {top} threads ({times(mops(best, top) / mops(strict, top))} strict LRU's) "
                f"and misses {mr(best):.3f}")
    if lost:
        lost.sort(key=mr, reverse=True)
        out += ("; more than 1 point more misses than strict LRU: " +
                ", ".join(f"{n} {mr(n):.3f}" for n in lost[:3]) +
                (f" and {len(lost) - 3} more" if len(lost) > 3 else ""))
    if faster and faster[0] != best:
        out += f"; the fastest on {top} threads is {faster[0]} ({num(mops(faster[0], top))} Mops/s)"
    opt = miss.get("opt")
    return out + (f"; Belady's offline optimum misses {opt['miss_ratio']:.3f}" if opt else "") + "."


def hotset_table(hot):
    sizes = sorted({r["entries"] for r in hot})
    pol = sorted({r["policy"] for r in hot})
    rows = []
    for p in pol:
        row = [p]
        for s in sizes:
            r = next((x for x in hot if x["policy"] == p and x["entries"] == s), None)
            row.append(f"{r['miss_ratio']:.4f}" if r else "–")
        rows.append(row)
    return ["Miss ratios on examples/traces/hotset.txt (a shifting hot set; examples/ "
            "holds no trace recorded from a real system):", "",
            md_table(["policy"] + [f"{s} entries" for s in sizes], rows), ""]


def plot_lru(run, by, miss, kmiss, styles):
    if not plotting.have_matplotlib():
        return []
    names = sorted(by)
    kernels = [n for n in names if n.startswith("kernel")]
    groups = plotting.split_series(kernels + [n for n in names if n not in kernels],
                                   per_panel=8, keep=kernels)
    styles.place(groups)
    threads = sorted({t for pts in by.values() for t in pts})
    fig, axes = plotting.panels(len(groups) + 1, ncols=2)
    for ax, group in zip(axes, groups):
        for n in group:
            pts = by[n]
            xs = [t for t in threads if t in pts]
            fs = [val(pts[t], "mops") for t in xs]
            plotting.draw(ax, xs, [x.med for x in fs], [x.lo for x in fs],
                          [x.hi for x in fs], styles.get(n), n)
        plotting.thread_axis(ax, threads)
        ax.set_ylabel("Mops/s, all threads")
        ax.set_ylim(bottom=0)
        ax.set_title(f"speed against threads ({groups.index(group) + 1} of {len(groups)}; "
                     "the kernel's in each)")
    ax = axes[len(groups)]
    top = max(threads)
    labels = []
    for n in names:
        m = miss.get(n) or kmiss.get(n)
        r = by[n].get(top)
        if not m or not r:
            continue
        x = val(r, "mops")
        st = styles.get(n)
        ax.errorbar([x.med], [m["miss_ratio"]], xerr=[[x.med - x.lo], [x.hi - x.med]],
                    linestyle="none", capsize=3, markersize=7,
                    **{k: st[k] for k in ("color", "marker", "fillstyle") if k in st})
        labels.append((x.med, m["miss_ratio"], n.replace("kernel BPF", "kernel")))
    plotting.label_points(ax, labels)
    ax.set_xlabel(f"Mops/s at {top} threads")
    ax.set_ylabel("miss ratio (zipf 0.99, sim)")
    ax.set_title("throughput against miss ratio (down and right is better)")
    return finish(run, fig, axes[:len(groups)],
                  "Finding 2: LRU designs, speed against threads and against miss ratio",
                  "finding2-lru", ncol=4)


# --- finding 3: prealloc -------------------------------------------------------------

def finding_prealloc(run, styles):
    f = Finding(3, "Preallocated against allocate-on-update hash maps",
                "What do BPF_F_NO_PREALLOC hash maps cost per update, and in memory, "
                "against preallocated ones?")
    f.commands = run.commands("f3-")
    sizes = sizes_of(run, "f3-prealloc-")
    if not sizes:
        f.missing = "its compare steps did not run"
        return f
    rows, series = [], {}
    for entries, step in sizes:
        other = step.replace("prealloc", "no_prealloc")
        row = [size_label(entries)]
        for side, name in (("kernel", "hash"), ("user", "hash/linux")):
            a = side_record(run, step, side, name)
            b = side_record(run, other, side, name)
            who = "kernel" if side == "kernel" else name
            series.setdefault(who + " preallocated", []).append((entries, val(a, "ns_per_op")))
            series.setdefault(who + " no_prealloc", []).append((entries, val(b, "ns_per_op")))
            series.setdefault(who + " bytes", []).append(
                (entries, val(a, "bytes_per_entry"), val(b, "bytes_per_entry")))
            r = (val(b, "ns_per_op").med / val(a, "ns_per_op").med
                 if val(a, "ns_per_op").ok() and val(b, "ns_per_op").ok() else None)
            row += [num(val(a, "ns_per_op").med), num(val(b, "ns_per_op").med), times(r),
                    f"{num(val(a, 'bytes_per_entry').med)} / {num(val(b, 'bytes_per_entry').med)}"]
        rows.append(row)
    f.body += ["ns per update (BPF_EXIST, every key present, one thread) and bytes per "
               "entry of the full map, preallocated / BPF_F_NO_PREALLOC:", "",
               md_table(["entries", "kernel prealloc", "kernel no_prealloc", "cost",
                         "kernel B/entry", "hash/linux prealloc", "hash/linux no_prealloc",
                         "cost", "hash/linux B/entry"], rows), ""]
    mid = min(sizes, key=lambda s: abs(s[0] - 65536))[0]

    def at(name):
        return next(x[1] for x in series[name] if x[0] == mid)
    kp, kn = at("kernel preallocated"), at("kernel no_prealloc")
    up, un = at("hash/linux preallocated"), at("hash/linux no_prealloc")
    kb = next(x for x in series["kernel bytes"] if x[0] == mid)
    ub = next(x for x in series["hash/linux bytes"] if x[0] == mid)

    def more(b):
        if not (b[1].ok() and b[2].ok()) or not b[1].med:
            return "–"
        d = 100 * (b[2].med / b[1].med - 1)
        return "the same" if abs(d) < 2 else f"{d:+.0f} %"
    f.answer = (f"Allocating on update makes the kernel's hash update {times(kn.med / kp.med)} "
                f"as costly at {size_label(mid)} entries ({num(kp.med)} → {num(kn.med)} ns: "
                f"bpf_mem_alloc's per-cpu caches instead of the preallocated free list), and "
                f"hash/linux's {times(un.med / up.med)} ({num(up.med)} → {num(un.med)} ns: "
                f"an allocation and an RCU-deferred free per update); the full map's bytes per "
                f"entry: kernel {num(kb[1].med)} → {num(kb[2].med)} ({more(kb)}), hash/linux "
                f"{num(ub[1].med)} → {num(ub[2].med)} ({more(ub)}).")
    f.body.append("hash/linux allocates with jemalloc and frees a replaced element after an "
                  "RCU grace period (call_rcu), where the kernel's bpf_mem_alloc reuses a "
                  "freed element at once (docs/design-notes.md): part of its larger cost is "
                  "that difference, not the allocation alone.")
    f.body.append("")
    f.body.append("A preallocated map holds max_entries elements from its creation, full or "
                  "empty; a BPF_F_NO_PREALLOC map's memory follows its contents. Both maps "
                  "here are full, which is where the two should meet.")
    f.body.append("")
    f.plots += plot_prealloc(run, series, [s for s, _ in sizes], styles)
    f.trust = trust_lines(run, [s for s in run.steps_like("f3-")], "f3-")
    f.trust.append("the two ways run in adjacent steps (a flag is the map's), not interleaved "
                   "within one step: their ratio carries the drift between steps")
    return f


def plot_prealloc(run, series, xs, styles):
    if not plotting.have_matplotlib():
        return []
    fig, axes = plotting.panels(3, ncols=3, panel_height_px=400)
    top = max((p[1].hi for name in series if not name.endswith("bytes")
               for p in series[name] if p[1].ok()), default=1)
    for ax, who in zip(axes, ("kernel", "hash/linux")):
        for way in ("preallocated", "no_prealloc"):
            name = f"{who} {way}"
            pts = series.get(name, [])
            plotting.draw(ax, [p[0] for p in pts], [p[1].med for p in pts],
                          [p[1].lo for p in pts], [p[1].hi for p in pts], styles.get(name),
                          name)
        ax.set_ylabel("ns per update")
        ax.set_ylim(0, top * 1.08)
        ax.set_title(f"{who}: update cost")
        plotting.size_axis(ax, xs)
    for who in ("kernel", "hash/linux"):
        pts = series.get(who + " bytes", [])
        for i, way in ((1, "preallocated"), (2, "no_prealloc")):
            plotting.draw(axes[2], [p[0] for p in pts], [p[i].med for p in pts], None, None,
                          styles.get(f"{who} {way}"), f"{who} {way}")
    axes[2].set_ylabel("bytes per entry (full map)")
    axes[2].set_ylim(bottom=0)
    axes[2].set_title("memory, both")
    plotting.size_axis(axes[2], xs)
    return finish(run, fig, axes,
                  "Finding 3: preallocated against BPF_F_NO_PREALLOC hash maps",
                  "finding3-prealloc", ncol=4)


# --- finding 4: common against per-CPU LRU --------------------------------------------

def finding_percpu(run, styles):
    f = Finding(4, "Common against per-CPU LRU",
                "How much of its max_entries does each kernel LRU really use when the "
                "load is skewed across cpus?")
    f.commands = run.commands("f4-")
    recs = run.of("f4-skew", record="sim")
    if not recs:
        f.missing = "its sim step did not run"
        return f
    pols = [p for p in ("kernel", "kernel:no_common_lru", "lru/linux_common",
                        "lru/linux_percpu") if any(r["policy"] == p for r in recs)]
    sizes = sorted({r["entries"] for r in recs})
    rows = []
    for p in pols:
        for s in sizes:
            row = [p, str(s)]
            for t in (1, 2):
                r = next((x for x in recs if x["policy"] == p and x["entries"] == s
                          and x["threads"] == t), None)
                row += [f"{r['effective_capacity']:.3f}" if r else "–",
                        f"{r['miss_ratio']:.4f}" if r else "–"]
            rows.append(row)
    f.body += ["Effective capacity (mean live entries / max_entries) and miss ratio on a "
               "zipf 0.99 trace: all of it on one cpu (1 thread; the machine's other cpu "
               "inserts nothing) and split evenly over both (2 threads):", "",
               md_table(["policy", "entries", "effcap, 1 cpu", "miss, 1 cpu",
                         "effcap, 2 cpus", "miss, 2 cpus"], rows), ""]

    def get(p, s, t):
        return next((x for x in recs if x["policy"] == p and x["entries"] == s
                     and x["threads"] == t), None)
    s0 = sizes[0]
    pc = get("kernel:no_common_lru", s0, 1) or get("lru/linux_percpu", s0, 1)
    cm = get("kernel", s0, 1) or get("lru/linux_common", s0, 1)
    pc2 = get("kernel:no_common_lru", s0, 2) or get("lru/linux_percpu", s0, 2)
    who = "the kernel's" if get("kernel", s0, 1) else "the faithful designs'"
    if pc and cm:
        f.answer = (f"With every insert on one cpu, {who} per-CPU LRU (BPF_F_NO_COMMON_LRU) "
                    f"uses {pc['effective_capacity']:.2f} of its {s0} entries (each cpu owns "
                    f"1/{run.host.get('possible_cpus', 2)} of them and never steals) and misses "
                    f"{pc['miss_ratio']:.3f} against the common LRU's {cm['miss_ratio']:.3f} "
                    f"at {cm['effective_capacity']:.2f} capacity"
                    + (f"; spread evenly over both cpus it uses {pc2['effective_capacity']:.2f}"
                       if pc2 else "") + ".")
    k1, d1 = get("kernel:no_common_lru", s0, 1), get("lru/linux_percpu", s0, 1)
    if k1 and d1:
        f.body.append(f"The faithful lru/linux_percpu misses {d1['miss_ratio']:.4f} where the "
                      f"kernel's misses {k1['miss_ratio']:.4f} on one cpu (the same requests, "
                      f"the same order).")
        f.body.append("")
    f.plots += plot_percpu(run, recs, pols, sizes, styles)
    f.trust = ["miss counts on one thread are deterministic (one replay, one order); on two "
               "threads they depend on the interleaving, and the kernel's and the designs' "
               "agree within it",
               "on a machine with more possible cpus, the per-CPU LRU's share per cpu "
               "shrinks (max_entries / possible cpus), and the loss on one inserting cpu "
               "grows with it",
               "host: " + plotting.host_line(run.host)]
    return f


def plot_percpu(run, recs, pols, sizes, styles):
    if not plotting.have_matplotlib():
        return []
    fig, axes = plotting.panels(4, ncols=2, panel_height_px=330)
    cells = ((0, "effective_capacity", 1), (1, "effective_capacity", 2),
             (2, "miss_ratio", 1), (3, "miss_ratio", 2))
    for i, field, t in cells:
        ax = axes[i]
        for p in pols:
            pts = [next((x for x in recs if x["policy"] == p and x["entries"] == s
                         and x["threads"] == t), None) for s in sizes]
            plotting.draw(ax, sizes, [r[field] if r else None for r in pts], None, None,
                          styles.get(p), p)
        plotting.size_axis(ax, sizes)
        where = "all of it on 1 cpu" if t == 1 else "split over 2 cpus"
        if field == "effective_capacity":
            ax.set_ylim(0, 1.05)
            ax.set_ylabel("effective capacity")
            ax.set_title(f"capacity used, the load {where}")
        else:
            ax.set_ylabel("miss ratio")
            ax.set_title(f"miss ratio, the load {where}")
    lo = min(x["miss_ratio"] for x in recs)
    hi = max(x["miss_ratio"] for x in recs)
    for ax in axes[2:]:
        ax.set_ylim(lo * 0.95, hi * 1.05)
    return finish(run, fig, axes,
                  "Finding 4: common against per-CPU LRU when one cpu inserts "
                  "(kernel dashed, open markers; designs solid)",
                  "finding4-percpu-lru", ncol=4)


# --- finding 6: the kernels users run ----------------------------------------------------

KERNELS_USERS_RUN = ("5.10", "6.1", "6.12")
LRU_PAIRS = (("common", "lru/linux_common", "kernel"),
             ("per-CPU", "lru/linux_percpu", "kernel:no_common_lru"))


def kernel_steps(run):
    """finding 6's steps that ran, {(kernel, cpus): step}: their ids are
    f6-K-Ncpu (reproduce_plan.c)."""
    out = {}
    for s in run.steps_like("f6-"):
        k, _, n = s[3:].rpartition("-")
        if run.ran(s) and k and n.endswith("cpu") and n[:-3].isdigit():
            out[(k, int(n[:-3]))] = s
    return out


def kernel_agreement(recs):
    """'yes' where every kernel row (the VM's) missed as its design did,
    'NO' where one did not, None where no kernel policy ran."""
    pairs = [(d, k) for _, d, k in LRU_PAIRS]
    seen = False
    for r in recs:
        for d, k in pairs:
            if r["policy"] != k:
                continue
            seen = True
            twin = next((x for x in recs if x["policy"] == d and x["entries"] == r["entries"]),
                        None)
            if not twin or twin["misses"] != r["misses"]:
                return "NO"
    return "yes" if seen else None


def finding_kernels(run, styles):
    f = Finding(6, "The kernels users run",
                "How do the maps you get differ across the kernels users run (Debian's "
                "5.10, 6.1 and 6.12) and their cpu counts: how much of an LRU map's "
                "max_entries does each give when one cpu does the inserting?")
    f.commands = run.commands("f6-")
    steps = kernel_steps(run)
    if not steps:
        f.missing = (f"--quick leaves out {run.meta['left_out']}: run without --quick"
                     if run.meta.get("left_out") else "its sim steps did not run")
        return f
    data = {kc: run.of(s, record="sim") for kc, s in steps.items()}
    sizes = sorted({r["entries"] for rs in data.values() for r in rs})
    cpus = sorted({n for _, n in steps})

    def rec(k, n, design, size):
        return next((r for r in data.get((k, n), []) if r["policy"] == design
                     and r["entries"] == size), None)

    rows = []
    for (k, n) in sorted(steps, key=lambda kc: (KERNELS_USERS_RUN.index(kc[0])
                                                if kc[0] in KERNELS_USERS_RUN else 9, kc[1])):
        row = [k, str(n)]
        for size in sizes:
            for _, design, _ in LRU_PAIRS:
                r = rec(k, n, design, size)
                row.append(f"{r['effective_capacity']:.3f} / {r['miss_ratio']:.4f}"
                           if r else "–")
        agree = kernel_agreement(data[(k, n)])
        row.append(agree or ("no BPF_PROG_TYPE_SYSCALL" if k == "5.10" else "no VM"))
        rows.append(row)
    head = ["kernel", "cpus"] + [f"{name}, {size_label(size)}" for size in sizes
                                 for name, _, _ in LRU_PAIRS] + ["kernel in a VM agrees"]
    f.body += ["Effective capacity (mean live entries / max_entries) / miss ratio of the "
               "faithful designs modelling each kernel on each cpu count, one thread "
               "replaying a zipf 0.99 trace as cpu 0 (the other cpus insert nothing). "
               "The last column: whether the kernel's own two LRUs, run by sim in a VM "
               "booted from that kernel with that many vCPUs, missed exactly as the "
               "designs did (5.10 cannot run sim's BPF_PROG_TYPE_SYSCALL program: "
               "`validate --kernel 5.10` checks its designs op for op instead).", "",
               md_table(head, rows), "",
               "What differs op for op between the kernels (BPF_NOEXIST on a full LRU map, "
               "the refill target, the trie's full-map updates), with each difference's "
               "commit: docs/kernels.md.", "",
               "In the plot, the kernel's own effective capacity (an open circle) is "
               "sampled once per batch of 8192 requests (bpf_map_sum_elem_count, a kfunc "
               "of 6.6 and later: 6.1's VM gives none), the designs' every 256 requests: "
               "where the live count swings with each refill (the common LRU at 256 "
               "entries), the kernel's few samples land a few points off the designs' "
               "mean while the misses are equal, request for request.", ""]
    f.answer = kernels_answer(rec, sizes, cpus)
    failed = [s for s in run.steps_like("f6-") if not run.ran(s)]
    if failed:
        f.trust.append("steps that failed, their rows left out: " + ", ".join(failed))
    if not f.answer:
        f.missing = "too few of its steps ran: " + ", ".join(failed or ["none failed"])
    f.plots += plot_kernels(run, rec, sizes, cpus)
    f.trust[:0] = ["every figure is one replay on one thread in one order: it repeats exactly "
               "(no spread to give), on any host",
               "the designs answer for each kernel through their models (--model), which "
               "`validate --kernel K` checks op for op against K in a VM "
               "(tests/cli/test_cli_vm.sh); the VM is used for behaviour only, never speed",
               "host: " + plotting.host_line(run.host)]
    return f


def kernels_answer(rec, sizes, cpus):
    """The answer from the cpu counts each kernel has records for (a step
    that failed leaves its count out), or None."""
    small, large = sizes[0], sizes[-1]

    def span(kernels, design, size):
        """The records at the fewest and the most cpus with one, and
        those counts."""
        have = [(n, r) for n in cpus for k in kernels
                for r in [rec(k, n, design, size)] if r]
        return (have[0], have[-1]) if have else None
    pc = span(KERNELS_USERS_RUN, "lru/linux_percpu", large)
    old = span(("6.1", "5.10"), "lru/linux_common", small)
    new = span(("6.12",), "lru/linux_common", small)
    if not (pc and old and new):
        return None
    (plo, pclo), (phi, pchi) = pc
    (nlo, newlo), (nhi, newhi) = new
    oldr = old[1][1]
    text = (f"The per-CPU LRU gives the one inserting cpu 1/N of max_entries on every kernel "
            f"({pclo['effective_capacity']:.2f} of {size_label(large)} at {plo} cpus, "
            f"{pchi['effective_capacity']:.2f} at {phi}; miss ratio "
            f"{pclo['miss_ratio']:.2f} to {pchi['miss_ratio']:.2f}); the common LRU of a "
            f"{size_label(small)}-entry map keeps {oldr['effective_capacity']:.2f} of it live "
            f"on 5.10 and 6.1 at any cpu count but {newlo['effective_capacity']:.2f} to "
            f"{newhi['effective_capacity']:.2f} on 6.12 ({nlo} to {nhi} cpus: its refill "
            f"target shrinks with the map), for a miss ratio only "
            f"{oldr['miss_ratio'] - newhi['miss_ratio']:.3f} lower")
    big = [r for k in KERNELS_USERS_RUN for n in cpus
           for r in [rec(k, n, "lru/linux_common", large)] if r]
    caps = {f"{r['effective_capacity']:.3f}" for r in big}
    if len(caps) == 1:
        text += f"; at {size_label(large)} entries the three kernels agree ({caps.pop()})"
    return text + "."


def plot_kernels(run, rec, sizes, cpus):
    """Grouped bars, a group per cpu count and a bar per kernel (the
    design modelling it), so that kernels that agree stand side by side
    rather than hide each other; the kernel's own figure from its VM is an
    open marker on its bar's top, where it agrees."""
    if not plotting.have_matplotlib():
        return []
    fig, axes = plotting.panels(2 * len(sizes), ncols=2, panel_height_px=330)
    colours = version_colours()
    width = 0.8 / len(KERNELS_USERS_RUN)
    panels = [(size, pair) for size in sizes for pair in LRU_PAIRS]
    for ax, (size, (name, design, kernel)) in zip(axes, panels):
        for j, k in enumerate(KERNELS_USERS_RUN):
            xs = [i + (j - (len(KERNELS_USERS_RUN) - 1) / 2) * width for i in range(len(cpus))]
            designs = [rec(k, n, design, size) for n in cpus]
            ax.bar([x for x, r in zip(xs, designs) if r],
                   [r["effective_capacity"] for r in designs if r], width=width * 0.9,
                   color=colours[k], label=f"the design modelling {k}")
            kernels = [(x, rec(k, n, kernel, size)) for x, n in zip(xs, cpus)]
            kernels = [(x, r) for x, r in kernels if r]
            if kernels:
                ax.plot([x for x, _ in kernels], [r["effective_capacity"] for _, r in kernels],
                        linestyle="none", marker="o", markersize=10, fillstyle="none",
                        markeredgewidth=1.8, color="black",
                        label="the kernel itself, in a VM (6.12; 6.1 cannot count its "
                              "entries)")
        ax.set_xticks(range(len(cpus)))
        ax.set_xticklabels([str(n) for n in cpus])
        ax.set_xlabel("cpus (one of them inserts)")
        ax.set_ylim(0, 1.1)
        ax.set_ylabel("effective capacity")
        ax.set_title(f"{name} LRU, max_entries {size_label(size)}")
    return finish(run, fig, axes,
                  "Finding 6: the share of an LRU map in use when one cpu inserts, per "
                  "kernel and cpu count", "finding6-kernels", ncol=2)


def version_colours():
    """A colour per kernel version, from the designs' palette."""
    st = plotting.Styles()
    return {k: st.get(f"model {k}")["color"] for k in KERNELS_USERS_RUN}


# --- finding 7: the LPM trie at scale ------------------------------------------------

# The kernel's LPM benchmark (tools/testing/selftests/bpf/benchs/
# bench_lpm_trie_map.c) as published in the V3 commit message of
# "selftests/bpf: Add LPM trie microbenchmarks" (Matt Fleming, 2025): AMD
# EPYC 9684X, 10,000 dense /32s, one thread; ns per op, free in ms a map.
FLEMING_SOURCE = "the V3 commit message of \"selftests/bpf: Add LPM trie microbenchmarks\""
FLEMING = {"lookup": 134.7, "update": 378.3, "delete": 1405.0, "free": 1.743}
# Jesper Brouer's raw figures of the same benchmark's lookups on the same
# CPU (xdp-project/xdp-project, areas/bench/bench02_lpm-trie-lookup.org):
# ns per lookup by the benchmark's entry count.
BROUER_SOURCE = "xdp-project/xdp-project, areas/bench/bench02_lpm-trie-lookup.org"
BROUER = {1: 36.8, 100: 61.7, 1000: 85.5, 10000: 133, 20000: 157, 50000: 193,
          100000: 263, 250000: 366, 500000: 528, 1000000: 665}

SCALE_SIDES = (("kernel BPF lpm_trie", ("kernel", "lpm_trie")),
               ("lpm_trie/linux", ("user", "lpm_trie/linux")),
               ("lpm_trie/lctrie", ("user", "lpm_trie/lctrie")),
               ("lpm_trie/multibit", ("user", "lpm_trie/multibit")),
               ("lpm_trie/dpdk", ("user", "lpm_trie/dpdk")))
SCALE_WRITES = ("update", "insert", "delete", "free")
BASELINE = "lpm_trie/linux"


def decimal_size(n):
    """Brouer's sizes are decimal: 1000000 is 1M here."""
    return f"{n // 1000000}M" if n % 1000000 == 0 else size_label(n)


def published_lookup(entries):
    """Brouer's figure at a size within 10 % of entries (his sizes are
    decimal), as (ns, his size), or None."""
    near = min(BROUER, key=lambda n: abs(math.log(n / entries)))
    return (BROUER[near], near) if abs(near / entries - 1) <= 0.1 else None


def scale_times(x):
    """A ratio as times() writes it, with two decimals under 1 (0.13×, not
    0.1×): lctrie's ratios to linux are mostly under 1."""
    return f"{x:.2f}×" if x is not None and math.isfinite(x) and x < 1 else times(x)


def scale_fig(r, op):
    """The figure an op is compared by: ns per op or per key, and for a
    free the walk and frees in ms (a design's free_walk_ms, its RCU wait
    set aside: liburcu's call_rcu thread's sleep, the same for every
    design; the kernel's free_ms, bpf_map_free_deferred whole, which waits
    for nothing)."""
    if op != "free":
        return val(r, "ns_per_op")
    return val(r, "free_walk_ms") if r and "free_walk_ms" in r else val(r, "free_ms")


def scale_ratio(a, b, op):
    """a's figure over b's: within each repeat for ns, else of the medians."""
    if op != "free":
        return ratio(a, b)
    fa, fb = scale_fig(a, op), scale_fig(b, op)
    if not (fa.ok() and fb.ok() and fb.med):
        return Fig(None)
    return Fig(fa.med / fb.med, fa.lo / max(fb.hi, 1e-12), fa.hi / max(fb.lo, 1e-12))


def scale_records(run, step):
    """{side name: record} of a step's sides that ran."""
    out = {}
    for name, (side, m) in SCALE_SIDES:
        r = side_record(run, step, side, m)
        if r:
            out[name] = r
    return out


def scale_memory(run, larger):
    """explain's lookups at 1K and at the larger size, per side:
    {name: (ns at 1K, ns at larger, memory ns)}."""
    out = {}
    for name, (side, m) in SCALE_SIDES:
        match = {"kernel": True} if side == "kernel" else {"map": m}
        small = run.one("f7-explain-lookup", record="explain", entries=1024, **match)
        big = run.one("f7-explain-lookup", record="explain", entries=larger, **match)
        if small and big:
            out[name] = (small["ns_per_op"], big["ns_per_op"], memory_cost(big))
    return out


def finding_lpm_scale(run, styles):
    f = Finding(7, "The LPM trie at scale, and what level compression buys",
                "How do the kernel's LPM-trie lookups grow from 1K to 1M prefixes and on the "
                "whole Internet table, how much of that growth is memory, and what does a "
                "level-compressed trie (lpm_trie/lctrie) buy on lookups and on the kernel "
                "LPM benchmark's writes?")
    f.commands = run.commands("f7-")
    dense = [(e, s) for e, s in sizes_of(run, "f7-lookup-") if s != "f7-lookup-internet"]
    if not dense:
        f.missing = "its lookup steps did not run"
        return f
    lookups = {e: scale_records(run, s) for e, s in dense}
    internet = scale_records(run, "f7-lookup-internet") if run.ran("f7-lookup-internet") else {}
    writes = {(op, e): scale_records(run, s) for op in SCALE_WRITES
              for e, s in sizes_of(run, f"f7-{op}-")}
    small, large = dense[0][0], dense[-1][0]
    memory = scale_memory(run, large)
    names = [n for n, _ in SCALE_SIDES if any(n in recs for recs in
                                              list(lookups.values()) + list(writes.values()))]
    f.body += scale_lookup_table(lookups, internet, names)
    f.body += scale_memory_table(memory, small, large)
    f.body += scale_write_table(writes, names)
    f.answer = scale_answer(lookups, internet, writes, memory, small, large)
    if not run.ran("f7-explain-lookup"):
        f.body += ["explain did not run (it needs the kernel side: root and BPF) or failed: "
                   "no split of the growth into memory.", ""]
    missing = [s for s in run.steps_like("f7-") if not run.ran(s)]
    if not writes:
        f.body += ["The kernel LPM benchmark's writes did not run: no update, insert, "
                   "delete or free figures.", ""]
    f.plots += plot_lpm_scale(run, lookups, writes, names, styles)
    f.trust = trust_lines(run, [s for s in run.steps_like("f7-")
                                if s != "f7-explain-lookup"], "f7-")
    if missing:
        f.trust.append("the steps that failed have no rows in the tables, nor points in the "
                       "plot")
    f.trust.append(f"the published figures ({FLEMING_SOURCE}; {BROUER_SOURCE}) come from an "
                   "AMD EPYC 9684X, bare metal, with 1,152 MB of L3 (3D V-Cache): set the "
                   "growth beside this machine's, not the ns")
    return f


def scale_lookup_table(lookups, internet, names):
    rows = []
    for e, recs in sorted(lookups.items()):
        pub = published_lookup(e)
        rows.append([size_label(e) + " /32s"] +
                    [num(val(recs.get(n), "ns_per_op").med) for n in names] +
                    [f"{num(pub[0])} (at {decimal_size(pub[1])})" if pub else "–"])
    if internet:
        rows.append(["Internet table (901,899)"] +
                    [num(val(internet.get(n), "ns_per_op").med) for n in names] + ["–"])
    return ["ns per lookup of a stored key, one thread (the kernel's map call inside BPF, "
            "the baseline program subtracted; the designs' bench loop), beside the kernel's "
            f"published lookups on an EPYC 9684X (Brouer, {BROUER_SOURCE}):", "",
            md_table(["prefixes"] + names + ["published, kernel"], rows), ""]


def scale_memory_table(memory, small, large):
    if not memory:
        return []
    rows = []
    for name, (a, b, mem) in memory.items():
        share = f"{100 * mem / (b - a):.0f} %" if math.isfinite(mem) and b > a else "–"
        rows.append([name, num(a), num(b), num(b - a), num(mem), share])
    return [f"explain on lookups at {size_label(small)} and {size_label(large)} (its "
            "unsampled ns/op), and its size differential at "
            f"{size_label(large)}: the op at {size_label(large)} less the same op on a 1K "
            "map, what the map's size (cache and TLB misses) adds:", "",
            md_table(["side", f"ns at {size_label(small)}", f"ns at {size_label(large)}",
                      "growth", "memory (differential)", "of the growth"], rows), ""]


def scale_write_table(writes, names):
    if not writes:
        return []
    rows = []
    for (op, e), recs in sorted(writes.items(), key=lambda kv: (kv[0][1], SCALE_WRITES.index(
            kv[0][0]))):
        pub = FLEMING.get(op) if e == 10000 else None
        unit = "ms a map (walk)" if op == "free" else "ns a key" if op in ("insert", "delete") \
            else "ns an op"
        r = scale_ratio(recs.get("lpm_trie/lctrie"), recs.get(BASELINE), op)
        rows.append([f"{op} at {size_label(e)}, {unit}",
                     num(pub) if pub else "–"] +
                    [num(scale_fig(recs.get(n), op).med) for n in names] +
                    [scale_times(r.med) if r.ok() else "–"])
    return ["The kernel LPM benchmark's writes (`--lpm-op`, docs/bench.md), one thread: "
            "update (BPF_EXIST on a full map) per op; insert (into an empty map) and delete "
            "(every key of a full map) per key of a whole pass; free in ms a map: the "
            "kernel's bpf_map_free_deferred whole, a design's walk and frees (its RCU wait, "
            "liburcu's call_rcu thread's sleep, set aside). Published: the kernel on an "
            f"EPYC 9684X at 10K ({FLEMING_SOURCE}, Matt Fleming, 2025; no insert figure). "
            "The last column: lpm_trie/lctrie over lpm_trie/linux.", "",
            md_table(["op", "published, kernel"] + names + ["lctrie / linux"], rows), ""]


def scale_answer(lookups, internet, writes, memory, small, large):
    k = "kernel BPF lpm_trie"
    a = val(lookups[small].get(k), "ns_per_op")
    b = val(lookups[large].get(k), "ns_per_op")
    who = "the kernel's trie's"
    if not (a.ok() and b.ok()):
        k, who = BASELINE, "lpm_trie/linux's"
        a, b = val(lookups[small].get(k), "ns_per_op"), val(lookups[large].get(k), "ns_per_op")
    if not (a.ok() and b.ok()):
        return None
    out = (f"From {size_label(small)} to {size_label(large)} /32s {who} lookups grow "
           f"{scale_times(b.med / a.med)} ({num(a.med)} → {num(b.med)} ns")
    pa, pb = published_lookup(small), published_lookup(large)
    if pa and pb and k.startswith("kernel"):
        out += (f"; published on an EPYC 9684X: {scale_times(pb[0] / pa[0])}, "
                f"{num(pa[0])} → {num(pb[0])}")
    out += ")"
    mem = memory.get(k)
    if mem and math.isfinite(mem[2]) and mem[1] > mem[0]:
        growth = mem[1] - mem[0]
        # The differential and the growth come from different runs: a
        # differential a little over the growth is all of it, not more.
        out += (f", and explain's size differential puts all of its {num(growth)} ns "
                f"growth on memory ({num(mem[2])} ns)" if mem[2] >= 0.95 * growth else
                f", and explain's size differential puts {num(mem[2])} ns of its "
                f"{num(growth)} ns growth ({100 * mem[2] / growth:.0f} %) on memory")
    parts = []
    lc = scale_ratio(lookups[large].get("lpm_trie/lctrie"), lookups[large].get(BASELINE),
                     "lookup")
    if lc.ok():
        parts.append(f"{scale_times(lc.med)} per lookup")
    if internet:
        r = scale_ratio(internet.get("lpm_trie/lctrie"), internet.get(BASELINE), "lookup")
        if r.ok():
            parts.append(f"{scale_times(r.med)} on the whole Internet table")
    wsize = max((e for _, e in writes), default=None)
    for op in SCALE_WRITES:
        recs = writes.get((op, wsize), {})
        r = scale_ratio(recs.get("lpm_trie/lctrie"), recs.get(BASELINE), op)
        if r.ok():
            parts.append(f"{scale_times(r.med)} per {op}" + (" (walk and frees)" if op == "free" else ""))
    if parts:
        out += (f"; against lpm_trie/linux, the level-compressed lpm_trie/lctrie costs "
                f"{', '.join(parts[:-1]) + ' and ' + parts[-1] if len(parts) > 1 else parts[0]}"
                f" (lookups at {size_label(large)}"
                + (f", writes at {size_label(wsize)}" if wsize else "") + ")")
    return out + "."


def plot_lpm_scale(run, lookups, writes, names, styles):
    """Lookups against size, the published kernel curve dashed; the writes
    as bars relative to lpm_trie/linux (1 = its cost), a group per op and
    size."""
    if not plotting.have_matplotlib():
        return []
    fig, axes = plotting.panels(2 if writes else 1, ncols=2, panel_height_px=430)
    ax = axes[0]
    sizes = sorted(lookups)
    for n in names:
        fs = [val(lookups[e].get(n), "ns_per_op") for e in sizes]
        plotting.draw(ax, sizes, [x.med for x in fs], [x.lo for x in fs], [x.hi for x in fs],
                      styles.get(n), n)
    pub = [n for n in sorted(BROUER) if sizes[0] * 0.9 <= n <= sizes[-1] * 1.1]
    plotting.draw(ax, pub, [BROUER[n] for n in pub], None, None,
                  {"color": "#888888", "marker": "x", "linestyle": "--"},
                  "published: the kernel's trie, EPYC 9684X (Brouer)")
    plotting.log_scale(ax)
    ax.set_ylabel("ns per lookup (log)")
    ax.set_title("lookups of stored /32s against the map's size")
    plotting.size_axis(ax, sizes, "prefixes stored (/32s 0..N-1)")
    if writes:
        ax = axes[1]
        groups = sorted(writes, key=lambda g: (SCALE_WRITES.index(g[0]), g[1]))
        others = [n for n in names if n != BASELINE]
        width = 0.8 / max(1, len(others))
        marks = []
        for j, n in enumerate(others):
            xs, ys = [], []
            for i, (op, e) in enumerate(groups):
                r = scale_ratio(writes[(op, e)].get(n), writes[(op, e)].get(BASELINE), op)
                if r.ok():
                    xs.append(i + (j - (len(others) - 1) / 2) * width)
                    ys.append(r.med)
            st = styles.get(n)
            ax.bar(xs, ys, width=width * 0.9, color=st["color"], label=n,
                   hatch="//" if plotting.is_kernel(n) else None, edgecolor="white")
            if n == "lpm_trie/lctrie":   # the question's design: its ratios written on
                marks = list(zip(xs, ys))
        for x, y in marks:              # over every bar, so none hides one
            ax.annotate(scale_times(y), (x, y), ha="center", va="bottom", fontsize=8,
                        xytext=(0, 2), textcoords="offset points", zorder=5,
                        bbox={"boxstyle": "round,pad=0.15", "facecolor": "white",
                              "edgecolor": "none", "alpha": 0.85})
        ax.axhline(1.0, color="black", linewidth=1.0, label="lpm_trie/linux (= 1)")
        plotting.log_scale(ax)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([f"{op}\n{size_label(e)}" for op, e in groups])
        ax.set_ylabel("cost / lpm_trie/linux's (log; under 1: cheaper)")
        ax.set_title("writes against lpm_trie/linux's (free: walk and frees)")
    return finish(run, fig, axes, "Finding 7: the LPM trie at scale, and what level "
                  "compression buys", "finding7-lpm-scale", ncol=3)


# --- finding 5: kernel against userspace ----------------------------------------------

def finding_gap(run, styles):
    f = Finding(5, "The kernel-versus-userspace gap",
                "Is the kernel's map code slower than the same algorithm in userspace, "
                "or is it the way in?")
    f.commands = run.commands("f1-")
    sizes = sizes_of(run, "f1-update-")
    if not sizes:
        f.missing = "finding 1's compare steps did not run"
        return f
    rows = []
    pairs = (("hash", ("kernel", "hash"), ("user", "hash/linux")),
             ("trie", ("kernel", "lpm_trie"), ("user", "lpm_trie/linux")))
    series = {}
    for entries, step in sizes:
        row = [size_label(entries)]
        for name, k, d in pairs:
            kr, dr = side_record(run, step, *k), side_record(run, step, *d)
            r = ratio(kr, dr)
            series.setdefault(name, []).append((entries, r))
            row += [f"{num(val(kr, 'ns_per_op').med)} / {num(val(dr, 'ns_per_op').med)}",
                    times(r.med) if r.ok() else "–"]
        rows.append(row)
    f.body += ["ns per update, the kernel's map call (inside BPF, the baseline program "
               "subtracted) / the faithful design's (bench's loop), one thread:", "",
               md_table(["entries", "hash: kernel / hash/linux", "ratio",
                         "trie: kernel / lpm_trie/linux", "ratio"], rows), ""]
    split_rows, sentences = [], []
    # Explained sizes, the one nearest 64K first: the answer speaks of it.
    def near_64k(e):
        return abs(math.log2(e) - 16)
    for name, step in (("hash", "f1-explain-hash"), ("trie", "f1-explain-trie")):
        for e in sorted({r["entries"] for r in run.of(step, record="explain")}, key=near_64k):
            k = run.one(step, record="explain", kernel=True, entries=e)
            d = run.one(step, record="explain", map=f"{name}/linux" if name == "hash"
                        else "lpm_trie/linux", entries=e)
            if not k or not d:
                continue
            ks = {a: float(b) for a, b in k.get("steps", {}).items()}
            ds = {a: float(b) for a, b in d.get("steps", {}).items()}
            call = ks.get("program", 0) + ks.get("thunk", 0)
            harness = ds.get("harness", 0)
            kmem = memory_cost(k)
            dmem = memory_cost(d)
            gap = k["ns_per_op"] - d["ns_per_op"]
            split_rows.append([name, size_label(e), num(k["ns_per_op"]), num(d["ns_per_op"]),
                               num(gap), num(call), num(harness), num(kmem), num(dmem)])
            sentences.append((name, e, k, d, gap, call, kmem, dmem))
    if split_rows:
        f.body += ["Split by explain (sampled shares of the unsampled ns/op; memory by the "
                   "differential run at 1,024 entries): the call is the BPF program's own "
                   "code, the helper call and the retpoline thunks; the design's harness is "
                   "bench's loop; memory is what the map's size adds over a 1K map:", "",
                   md_table(["map", "entries", "kernel ns", "design ns", "gap", "kernel call",
                             "design harness", "kernel memory", "design memory"], split_rows),
                   ""]
    mid = min(sizes, key=lambda s: abs(s[0] - 65536))[0]
    hr = next((r for e, r in series["hash"] if e == mid), Fig(None))
    tr = next((r for e, r in series["trie"] if e == mid), Fig(None))
    ans = (f"At {size_label(mid)} entries the kernel's hash update costs {times(hr.med)} "
           f"hash/linux's and its trie update {times(tr.med)} lpm_trie/linux's, measured "
           f"side by side")
    hs = next((x for x in sentences if x[0] == "hash"), None)
    if hs:
        _, e, k, d, gap, call, kmem, dmem = hs
        harness = float(d.get("steps", {}).get("harness", 0))
        kcode, dcode = k["ns_per_op"] - call, d["ns_per_op"] - harness
        ans += (f"; explain splits the kernel's {k['ns_per_op']:.0f} ns hash update at "
                f"{size_label(e)} into {call:.0f} ns of way in (the BPF program, the helper "
                f"call, the thunks) and {kcode:.0f} ns in the map's code, against "
                f"{dcode:.0f} ns of map code in hash/linux (its {harness:.0f} ns of bench "
                f"loop set aside)")
        if math.isfinite(kmem) and math.isfinite(dmem):
            ans += (f", and the map's size (against a 1K map) adds {kmem:.0f} ns to the "
                    f"kernel's and {dmem:.0f} ns to the design's")
        if dcode > 0:
            r = kcode / dcode
            if 0.75 <= r <= 1.33:
                ans += ": the map code costs about the same on both sides"
            else:
                ans += f"; the kernel's map code costs {times(r)} the design's here"
                if math.isfinite(kmem) and math.isfinite(dmem) and kcode > dcode:
                    small = (kcode - kmem) - (dcode - dmem)
                    ans += (f": {kmem - dmem:.0f} ns of the {kcode - dcode:.0f} ns "
                            f"difference is memory (what the map's size adds) and "
                            f"{small:.0f} ns is the op on a 1K map")
    f.answer = ans + "."
    f.plots += plot_gap(run, series, [s for s, _ in sizes], sentences, styles)
    f.trust = trust_lines(run, [s for _, s in sizes], "f1-")
    f.trust.append("explain's step figures are sampled at 250 Hz (or its --quick's shorter "
                   "runs): a step under 5 % of the samples is within its noise")
    return f


def memory_cost(rec):
    """What the map's size adds over a 1,024-entry map (explain's size
    differential); 0 where it was not run."""
    a, b = rec.get("diff_size_base_ns"), rec.get("diff_size_ns")
    if a is None or b is None:
        return float("nan")
    return a - b


def gap_bars(sentences):
    """Each explained side as (label, way in, memory, the rest): the way in
    is the kernel's program and thunks or the design's bench loop; memory
    what the map's size adds over a 1K map; the rest the op at 1K."""
    bars = []
    for name, e, k, d, _gap, call, kmem, dmem in sentences:
        harness = float(d.get("steps", {}).get("harness", 0))
        for who, rec, way, mem in (("kernel", k, call, kmem), (d["map"], d, harness, dmem)):
            mem = mem if math.isfinite(mem) else 0.0
            rest = max(0.0, rec["ns_per_op"] - way - mem)
            bars.append((f"{who} {name}, {size_label(e)}" if who == "kernel"
                         else f"{who}, {size_label(e)}", way, mem, rest))
    return bars


def plot_gap(run, series, xs, sentences, styles):
    if not plotting.have_matplotlib():
        return []
    bars = gap_bars(sentences)
    fig, axes = plotting.panels(2 if bars else 1, ncols=2, panel_height_px=430)
    ax = axes[0]
    for name, label in (("hash", "hash: the kernel's / hash/linux's"),
                        ("trie", "trie: the kernel's / lpm_trie/linux's")):
        pts = series.get(name, [])
        plotting.draw(ax, [p[0] for p in pts], [p[1].med for p in pts],
                      [p[1].lo for p in pts], [p[1].hi for p in pts], styles.get(label), label)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("kernel ns / design ns (update)")
    ax.set_ylim(bottom=0)
    ax.set_title("the ratio, measured side by side (compare)")
    plotting.size_axis(ax, xs)
    if bars:
        ax = axes[1]
        ys = list(range(len(bars)))[::-1]
        parts = (("the way in: BPF program, call, thunks (kernel); bench loop (design)",
                  "#999999", 1), ("the map's size, over a 1K map", "#E69F00", 2),
                 ("the op's own work at 1K", "#0072B2", 3))
        left = [0.0] * len(bars)
        for label, colour, i in parts:
            widths = [b[i] for b in bars]
            ax.barh(ys, widths, left=left, color=colour, label=label, height=0.6,
                    hatch="//" if i == 1 else None, edgecolor="white")
            left = [x + w for x, w in zip(left, widths)]
        ax.set_yticks(ys)
        ax.set_yticklabels([b[0] for b in bars], fontsize=9)
        ax.set_xlabel("ns per update (explain)")
        ax.set_title("where each side's time goes (explain)")
    return finish(run, fig, axes, "Finding 5: the kernel's map call against the same "
                  "algorithm in userspace", "finding5-kernel-gap", ncol=2)


# --- the suite -------------------------------------------------------------------------

def suite_step(test, op):
    if test == "hash":
        return f"suite-hash-{SUITE_OPS[op]}", ("kernel", "hash", 0)
    if test in ("lru", "lru no_common_lru"):
        if op == "rolling update":
            return "suite-lru-rolling", ("kernel", "lru_hash", 0)
        mode = 2 if test == "lru no_common_lru" else 0
        return f"suite-lru-{SUITE_OPS[op]}", ("kernel", "lru_hash", mode)
    size = test.split()[1]
    return f"suite-lpm-{SUITE_OPS[op]}-{size}", ("kernel", "lpm_trie", None)


def kernel_side(run, step, spec, threads):
    side, m, mode = spec
    for r in run.of(step, record="result", side=side, map=m, threads=threads):
        if mode is None or (r.get("map_flags", 0) & 2) == mode:
            return r
    return None


WINDOWS_DESIGN = {"hash": "hash/cow", "lru": "lru/partitioned", "lpm": "lpm_trie/prefix_hash"}
LINUX_DESIGN = {"hash": "hash/linux", "lru": "lru/linux_common", "lpm": "lpm_trie/linux",
                "lru no_common_lru": "lru/linux_percpu"}


def finding_suite(run, styles):
    f = Finding("suite", "The bpf_performance suite's figures beside this machine's",
                "How do this machine's kernel and designs compare with the suite's "
                "published Linux and Windows figures, test by test?")
    f.number = "suite"
    f.commands = run.commands("suite-")
    tests = ["hash", "lru", "lru no_common_lru"] + [f"lpm {s}" for s in
                                                    ("1K", "16K", "256K", "1M")]
    rows, any_ran = [], False
    for test in tests:
        for op in ("read", "update", "replace", "rolling update"):
            if op == "rolling update" and test != "lru":
                continue
            step, spec = suite_step(test, op)
            pub = PUBLISHED.get((test, op))
            if not run.ran(step) and not pub:
                continue
            k2 = kernel_side(run, step, spec, 2) if run.ran(step) else None
            k1 = kernel_side(run, step, spec, 1) if run.ran(step) else None
            fam = test.split()[0]
            lin = LINUX_DESIGN.get(test, LINUX_DESIGN.get(fam))
            win = WINDOWS_DESIGN.get(fam) if test != "lru no_common_lru" else None
            d_lin = run.one(step, record="result", side="user", map=lin, threads=2)
            d_win = run.one(step, record="result", side="user", map=win, threads=2) if win else None
            any_ran |= k2 is not None or d_lin is not None
            pub_l = f"{pub[0][0]} / {pub[0][1]}" if pub else "not published"
            pub_w = f"{pub[1][0]} / {pub[1][1]}" if pub else "not published"
            if test == "lru no_common_lru":
                pub_l = pub_w = "not published"
            if step not in run.steps:
                rows.append([f"{test} {op}", pub_l, pub_w] +
                            ["not run" + (" (--quick)" if run.quick else "")] + ["–"] * 3)
                continue
            rows.append([f"{test} {op}", pub_l, pub_w,
                         num(val(k2, "program_ns_per_op").med) if k2 else "–",
                         num(val(k1, "ns_per_op").med) if k1 else "–",
                         f"{num(val(d_lin, 'ns_per_op').med)} ({lin})" if d_lin else "–",
                         f"{num(val(d_win, 'ns_per_op').med)} ({win})" if d_win else "–"])
    if not any_ran:
        f.missing = "its compare steps did not run"
    f.body += ["ns per op. **Published**: ns per program run, CPU 0 / CPU 1 of a 2-thread "
               "run, from the issues that published them (hash: "
               f"{PUBLISHED_SOURCE['hash']}, LRU: {PUBLISHED_SOURCE['lru']}, LPM: "
               f"{PUBLISHED_SOURCE['lpm']}; hardware, kernel and Windows build not stated). "
               "**This machine, the suite's way**: the kernel's map inside BPF, ns per "
               "program step with its harness included (the suite's prandom and extra "
               "lookups are the stream and key lookups here), nothing subtracted, 2 threads "
               "at once. **maplab's way**: the map call alone (the baseline program "
               "subtracted), one thread. **Designs**: bench's loop per op, 2 threads.", "",
               md_table(["test", "published Linux", "published Windows",
                         "this machine, the suite's way", "maplab's way (1 thread)",
                         "Linux design", "Windows design"], rows), ""]
    f.body += ["The suite's tests as maplab runs them: hash and LRU maps of 1,024 entries "
               "with 4-byte keys and values, full; read = `--mix lookup=100`, update = "
               "`upsert=100` (BPF_ANY on a present key), replace = `replace=100` (delete, "
               "then insert the same key); rolling update = `lookup_write=100` over a range "
               "of 10 % of 8,192 entries. LPM tries with the suite's prefix-length table "
               "(`--prefixes bpf_performance`), 8-byte keys, BPF_F_NO_PREALLOC. The suite's "
               "LRU_PERCPU_HASH is per-cpu values on the common LRU, not "
               "BPF_F_NO_COMMON_LRU: nothing is published for the per-CPU LRU ('lru "
               "no_common_lru' rows), nor for BPF_F_NO_PREALLOC hash maps (finding 3).", ""]
    f.answer = suite_answer(run, rows) if any_ran else None
    f.trust = ["the published figures come from another machine and another kernel (2023, "
               "a GitHub runner for Linux): set the ratios between tests beside each other, "
               "not the ns",
               "host: " + plotting.host_line(run.host)]
    return f


def suite_answer(run, rows):
    def get(name, col):
        row = next((r for r in rows if r[0] == name), None)
        try:
            return float(row[col].replace(",", "")) if row else None
        except ValueError:
            return None
    h, t = get("hash update", 3), get("lpm 1K update", 3)
    if h and t:
        return (f"On this machine, measured the suite's way, an LPM update at 1K costs "
                f"{times(t / h)} a hash update ({num(t)} against {num(h)} ns per step), "
                f"where the suite published 3.2× for Linux (540 against 171 ns) and 1.06× for "
                f"Windows (1136 against 1069 ns).")
    return None


# --- the report --------------------------------------------------------------------------

def write(run):
    styles = plotting.Styles() if plotting.have_matplotlib() else None
    findings = [finding_trie_vs_hash(run, styles), finding_lru(run, styles),
                finding_prealloc(run, styles), finding_percpu(run, styles),
                finding_gap(run, styles), finding_kernels(run, styles),
                finding_lpm_scale(run, styles), finding_suite(run, styles)]
    ran = {s.get("finding") for s in run.steps.values()}
    findings = [f for f in findings if str(f.number) in ran or
                (f.number == 5 and "1" in ran) or
                (f.number == 6 and run.meta.get("left_out"))]
    md = ["# maplab findings", "",
          f"Measured by `maplab reproduce{' --quick' if run.quick else ''}` on "
          f"{plotting.host_line(run.host)}, {run.host.get('date', '')}.", ""]
    if run.meta.get("cuts"):
        md += [f"What this quick run cut: {run.meta['cuts']}.", ""]
    md += ["Each answer below is written from this run's records "
           "(results.jsonl beside this file); docs/findings.md says how to read them.", ""]
    for f in findings:
        if f.answer:
            md.append(f"- **{f.number}. {f.title}.** {f.answer}")
        else:
            md.append(f"- **{f.number}. {f.title}.** Not answered: {f.missing}.")
    md.append("")
    for f in findings:
        md.append(f.markdown(run.dir))
    if not plotting.have_matplotlib():
        md.append("*No plots: matplotlib is not installed (apt-get install "
                  "python3-matplotlib).*")
    path = plotting.write_text(os.path.join(run.dir, "findings.md"), "\n".join(md) + "\n")
    out = []
    for f in findings:
        text = f"{f.number}. {f.title}: {f.answer or 'not answered: ' + str(f.missing)}"
        out.append(textwrap.fill(text, width=100, subsequent_indent="   ",
                                 break_on_hyphens=False) + "\n")
    plots = [p for f in findings for p in f.plots]
    out.append(f"findings: {path}")
    if plots:
        out.append("plots:\n" + "\n".join("  " + p for p in plots))
    say("\n".join(out) + "\n")


def say(text):
    """text on stdout.  The answers are output too: a stdout that cannot
    take them is a failed write (one line, exit 2), not a traceback."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as e:
        # What is still buffered goes nowhere at exit, not into a second
        # error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise plotting.WriteFailed(f"standard output: {e.strerror or e}") from None


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        raise SystemExit(2 if len(argv) != 2 else 0)
    write(Run(argv[1]))
    return 0


if __name__ == "__main__":
    plotting.fail_on_write("findings.py", lambda: main(sys.argv))
