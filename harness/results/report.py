#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""maplab's one plotter: results.jsonl files turned into plots (and, for
compare's records, a markdown report).

usage: report.py RESULTS_DIR [MORE ...]

Reads RESULTS_DIR/results.jsonl and each MORE (a results.jsonl, or a folder
holding one), typically runs of the same suite on other hosts, and merges
them: every host is labelled (its hostname; with the date of the run where
one host ran more than once), its figures set beside the others'.  Both
kinds of maplab record are drawn, whichever the files hold (record.h has
the record; docs/bench.md and docs/sim.md its fields).

Why this is the one plotter, and Python: a plot is drawn from records
already written, so it reads the jsonl every command writes, merges runs
of several hosts and files, which C would do with a JSON parser of its own,
and draws with matplotlib (plotting.py beside it holds the pieces every
figure shares).  The C side writes records (record.h) and runs this file
(`maplab sim --plot`, record_plot: with /usr/bin/python3 where it exists);
nothing in C draws.

Every figure is small multiples, 1200 px wide, two panels across and as
many rows as needed; a panel holds at most 8 series (a workload with more
sides is split, "(1 of 2)", the kernel's BPF sides repeated in each part as
the reference); with several hosts each host gets its own panel of each,
side by side on the same scale.  A series keeps its colour, marker and
line in every figure of the run (the kernel's: greys, open markers,
dashed); one legend, below the panels.  Each figure is written as .png and
.svg; the printed line names compare's PNGs and every sim file.

compare's records ({"record":"result"}): a workload is a mix with its map
(entries, sizes, prefill, key distribution) and, for eviction workloads,
its key range: a suite's LRU workload (keys from a range 4x the map) is a
section of its own.  A side is named by its record's label ("kernel BPF",
"kernel BPF +no_common_lru" for the kernel's map in a design's mode, a
design's name).  Writes into RESULTS_DIR:
  report.md                 the hosts (CPUs, mitigations, virtualisation, the
                            reference probe), then per workload and host the
                            ns/op and Mops/s of every side: medians with their
                            min-max over the repeats, ratios to the kernel in
                            BPF of the side's mode (taken within each
                            repeat), the work per op where it was counted
                            (evictions, list nodes scanned, locks, evictions
                            per refill), flagged figures
  ns_per_op.{png,svg}       ns/op at the fewest threads, a panel per workload
                            (and part, and host): a row per side, named, its
                            median a marker with min-max whiskers; a log
                            scale where the sides span a decade
  ratio.{png,svg}           each side's ns/op over the kernel's in BPF of its
                            mode, taken within each repeat, at the fewest
                            threads, drawn as ns_per_op, a dashed line at 1
  mops_vs_threads.{png,svg} Mops/s against threads (integer ticks, nothing
                            offset), a panel per workload (and part, and
                            host): a line per side through the medians,
                            min-max error bars, each repeat a dot, flagged
                            points ringed red; a log scale where a panel
                            spans 20x

sim's records ({"record":"sim"}), per trace, a record per repeat of a
point (sim --repeat; a later run's records of the same policy, size and
threads replace an earlier run's, all its repeats together; sim's jsonl
for pandas, with no host record, reads too: the host from each row's
host_ columns):
  pareto-<entries>.{png,svg} miss ratio against Mreq/s at the highest thread
                            count, one per size, a point per policy at its
                            medians, bars across from its least to its
                            greatest speed over the repeats (and up and down
                            where its miss ratio varied), named beside it
                            (the kernel's open), opt as a dashed line: the
                            offline bound, whose speed is a heap's; every
                            panel on the same axes; the title says whether
                            speed is one run, and names the policies whose
                            miss ratios are equal at every size
  mrc.{png,svg}             miss ratio against entries (log2 axis, ticked at
                            the sizes), a line per policy at the fewest
                            threads through its medians (the kernel's dashed,
                            open markers), opt dashed black in every panel;
                            policies whose curves are equal at every size are
                            drawn once, the legend naming them all: "lru/global
                            = lru/partitioned at 1 thread"
  with several traces in the files, each trace's names get its own prefix
  (mrc-<trace>.png, pareto-<trace>-<entries>.png).  The printed line names
  every sim plot file written, PNG and SVG.

Plots need matplotlib (python3-matplotlib); without it this says so in one
line on stderr, still writes report.md, and exits 0.  Exit 2: no records,
or a file that is not jsonl.
"""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotting  # noqa: E402  (beside this file)

WARN = "⚠"


# --- reading ---------------------------------------------------------------------

def bad_input(message):
    """One line on stderr, exit status 2."""
    print(f"report.py: {message}", file=sys.stderr)
    raise SystemExit(2)


def results_path(arg):
    return os.path.join(arg, "results.jsonl") if os.path.isdir(arg) else arg


def load(path):
    """The runs in one file: [{host, rows, sims}], a run per host record:
    compare's records in rows, sim's in sims."""
    runs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                bad_input(f"{path}:{n}: not JSON: {e.msg}")
            if rec.get("record") == "host":
                runs.append({"host": rec["host"], "rows": [], "sims": [], "file": path})
            elif rec.get("record") in ("result", "sim"):
                if rec["record"] == "sim" and sim_host(rec) and \
                        (not runs or not same_run(runs[-1]["host"], sim_host(rec))):
                    # sim's jsonl for pandas: no host record, the host in
                    # each row's host_ columns (sim_report.h); a row of
                    # another host or run than the last starts its own.
                    runs.append({"host": sim_host(rec), "rows": [], "sims": [], "file": path})
                if not runs:
                    bad_input(f"{path}:{n}: a {rec['record']} record before any host record")
                runs[-1]["rows" if rec["record"] == "result" else "sims"].append(rec)
    return runs


def sim_host(rec):
    """A host record's fields from a sim row's host_ columns."""
    return {k[len("host_"):]: v for k, v in rec.items() if k.startswith("host_")}


def same_run(host, row_host):
    """Whether a sim row's host_ columns are those of the run's host record
    (one run writes both from one reading of the host)."""
    return all(host.get(k) == v for k, v in row_host.items())


def host_identity(h):
    return (h.get("hostname", ""), h.get("cpu_model", ""), h.get("kernel", ""),
            h.get("nproc"))


def label_hosts(runs):
    """One label per (host, file): the hostname, and the date of the file's
    first run when the same name would stand for more than one of them."""
    groups = {}
    for r in runs:
        groups.setdefault((host_identity(r["host"]), r["file"]), []).append(r)
    names = {}
    for (ident, _), members in groups.items():
        names.setdefault(ident[0] or ident[1] or "host", []).append(members)
    for name, sets in names.items():
        for members in sets:
            label = name if len(sets) == 1 else f"{name}, {members[0]['host'].get('date', '?')}"
            for r in members:
                r["label"] = label
                for row in r["rows"] + r["sims"]:
                    row["_host"] = label
    hosts = {}
    for r in runs:
        hosts.setdefault(r["label"], {"host": r["host"], "probes": []})
        if r["rows"]:
            hosts[r["label"]]["probes"] += r["rows"][0].get("probe_ns_runs") or []
    return hosts


# --- figures -------------------------------------------------------------------------

def fig(r, field):
    """(median, min, max) of a field; records from before the spreads were
    kept give the median for all three."""
    med = r.get(field)
    if med is None:
        return None
    return med, r.get(field + "_min", med), r.get(field + "_max", med)


def spread_text(f, fmt, runs):
    med, lo, hi = f
    return fmt.format(med) + (f" ({fmt.format(lo)}–{fmt.format(hi)})" if runs > 1 else "")


def series_name(r):
    """The record's label; records from before labels: by side and map."""
    if r.get("label"):
        return r["label"]
    if r["side"] == "kernel":
        return "kernel BPF"
    if r["side"].startswith("syscall"):
        return "kernel " + r["side"].replace("-", " ")
    return r["map"]


def ordered(names):
    """The kernel's sides first (in BPF, through the syscall, in batches;
    each mode after the common one), then the designs."""
    def rank(n):
        if n.startswith("kernel BPF"):
            return 0
        if n.startswith("kernel syscall batch"):
            return 2
        return 1 if n.startswith("kernel syscall") else 3
    return sorted(names, key=lambda n: (rank(n), n))


def prefixes_text(r):
    """An LPM workload's prefix set, and its lookups' hit ratio where some
    are meant to miss; "" for other workloads."""
    if not r.get("prefixes"):
        return ""
    hits = r.get("hit_ratio", 100)
    return f", {r['prefixes']} prefixes" + (f", {hits:g} % of lookups meant to hit"
                                            if hits != 100 else "")


def workload_title(r):
    """A workload's heading: its mix, an LPM workload's prefixes, and the key
    range of an eviction workload."""
    title = r["mix"] + prefixes_text(r)
    if not r.get("key_range"):
        return title
    return (f"{title}, keys from {r['key_range']} "
            f"({100 * r['key_range'] / r['entries']:.0f} % of {r['entries']} entries)")


def group(rows):
    """{workload: {host: {series: {threads: row}}}}, in first-seen order; a
    later record of the same point replaces an earlier one."""
    out = {}
    for r in rows:
        r["_workload"] = workload_title(r)
        (out.setdefault(r["_workload"], {}).setdefault(r["_host"], {})
            .setdefault(series_name(r), {}))[r["threads"]] = r
    return out


def median(values):
    v = sorted(values)
    if not v:
        return None
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


# --- the markdown ----------------------------------------------------------------------

def host_table(hosts):
    lines = ["| host | CPU | CPUs online / possible / usable | kernel | virtualised | "
             "mitigations in force | reference probe, ns a step | date |",
             "|---|---|---|---|---|---|---|---|"]
    for label, info in hosts.items():
        h = info["host"]
        virt = {True: "yes", False: "no"}.get(h.get("virtualised"), "cannot tell")
        if h.get("virtualised") and h.get("hypervisor"):
            virt += f" ({h['hypervisor']})"
        mitigations = ", ".join(h.get("mitigations", [])) if "mitigations" in h else "not recorded"
        probes = info["probes"]
        probe = (f"{median(probes):.1f} ({min(probes):.1f}–{max(probes):.1f})"
                 if probes else "not recorded")
        cpus = f"{h.get('nproc', '?')} / {h.get('possible_cpus', '?')} / {h.get('cpus_allowed', '?')}"
        lines.append(f"| {label} | {h.get('cpu_model', '?')} | {cpus} | {h.get('kernel', '?')} | "
                     f"{virt} | {mitigations or 'none'} | {probe} | {h.get('date', '?')} |")
    return "\n".join(lines)


def cell(r, field, fmt):
    if not r:
        return "–"
    runs = r.get("runs", 1)
    text = spread_text(fig(r, field), fmt, runs)
    if field == "ns_per_op" and fig(r, "kernel_ratio"):
        text += "; " + spread_text(fig(r, "kernel_ratio"), "{:.2f}", runs) + "×"
    if r.get("flags"):
        text += " " + WARN
    return text


def md_tables(by_series):
    names = ordered(by_series)
    threads = sorted({t for s in by_series.values() for t in s})
    out = []
    for title, field, fmt in (("ns/op per thread", "ns_per_op", "{:.1f}"),
                              ("Mops/s, all threads", "mops", "{:.2f}")):
        out += [f"| threads | " + " | ".join(f"{n} {title.split(',')[0]}" for n in names) + " |",
                "|---|" + "---|" * len(names)]
        for t in threads:
            out.append(f"| {t} | " + " | ".join(cell(by_series[n].get(t), field, fmt)
                                                 for n in names) + " |")
        out.append("")
    return out


WORK = (("evictions_per_op", "evictions / op"), ("nodes_scanned_per_op", "nodes scanned / op"),
        ("locks_per_op", "locks / op"), ("evictions_per_refill", "evictions / refill"))
# Figures of some designs only (lpm_trie/linux's): a column where a row has them.
WORK_IF_ANY = (("allocations_per_op", "allocations / op"), ("lock_ns_per_op", "lock ns / op"))


def work_table(by_series):
    """The work per op of the sides that counted it: a row per side and
    thread count (the kernel's evictions alone: from its size)."""
    rows = [(n, t, r) for n in ordered(by_series) for t, r in sorted(by_series[n].items())
            if "evictions_per_op" in r]
    if not rows:
        return []
    work = WORK + tuple(w for w in WORK_IF_ANY if any(w[0] in r for _, _, r in rows))
    out = ["Work per op (the timed ops' own; docs/bench.md, *Work per op*):", "",
           "| side | threads | " + " | ".join(title for _, title in work) + " |",
           "|---|---|" + "---|" * len(work)]
    for name, threads, r in rows:
        cells = [spread_text(fig(r, f), "{:.3f}", r.get("runs", 1)) if f in r else "–"
                 for f, _ in work]
        out.append(f"| {name} | {threads} | " + " | ".join(cells) + " |")
    return out + [""]


def modes_line(by_series):
    """With the kernel's map in more than one mode: which kernel side each
    design's ratio is taken against (the one of its map flags)."""
    kernels = {r["map_flags"]: n for n, s in by_series.items() if n.startswith("kernel BPF")
               for r in s.values()}
    if len(kernels) < 2:
        return []
    pairs = [f"{n} to {kernels[r['map_flags']]}" for n, s in by_series.items()
             if not n.startswith("kernel") for r in list(s.values())[:1]
             if r.get("map_flags") in kernels]
    return ["Each design's ratio is to the kernel's map in the design's mode (its mode "
            "flags): " + "; ".join(pairs) + ".", ""]


def map_line(r):
    return (f"Map: {r['entries']} entries, {r['key_size']}-byte keys, {r['value_size']}-byte "
            f"values, {r['prefill']} % prefilled, {r['dist']} keys"
            + (f", every op's key from a range of {r['key_range']}" if r.get("key_range") else "")
            + (f"; {r['prefixes']} prefixes, lookups of full-length addresses, "
               f"{r.get('hit_ratio', 100):g} % of them inside a stored prefix"
               if r.get("prefixes") else "")
            + ".")


def run_probe_line(rows):
    probes = rows[0].get("probe_ns_runs") if rows else None
    if not probes:
        return None
    return f"{median(probes):.1f} ns a step ({min(probes):.1f}–{max(probes):.1f})"


def flag_text(r, host):
    lines = []
    where = f"{r['_host']}, {r['_workload']}, {series_name(r)}, {r['threads']} thread{'s' if r['threads'] != 1 else ''}"
    if "superlinear" in r.get("flags", []):
        med, lo, hi = fig(r, "speedup")
        base = r.get("speedup_over_threads", 1)
        cpus = host.get("cpus_allowed") or host.get("nproc") or 1
        ideal = min(r["threads"], cpus) / min(base, cpus)
        lines.append(f"- {where}: **superlinear**: {med:.2f}× ({lo:.2f}–{hi:.2f}) the Mops/s at "
                     f"{base} thread{'s' if base != 1 else ''}, where {cpus} CPUs can give at most "
                     f"{ideal:.2f}×.")
    if "wide_spread" in r.get("flags", []):
        med, lo, hi = fig(r, "mops")
        ratio = hi / lo if lo > 0 else math.inf
        lines.append(f"- {where}: **wide spread**: Mops/s from {lo:.2f} to {hi:.2f} over "
                     f"{r.get('runs', 1)} repeats ({ratio:.1f}×).")
    if "writes_failed" in r.get("flags", []):
        ok, fail = r.get("ok", {}), r.get("fail", {})
        writes = [op for op in ("update", "insert", "delete") if ok.get(op, 0) + fail.get(op, 0)]
        total = sum(ok.get(op, 0) + fail.get(op, 0) for op in writes)
        failed = sum(fail.get(op, 0) for op in writes)
        share = 100 * failed / total if total else 0
        lines.append(f"- {where}: **writes failed**: {share:.0f} % of the "
                     f"{', '.join(writes)} failed: the figure prices refusals more than the ops asked.")
    if "below_baseline" in r.get("flags", []):
        prog, base = fig(r, "program_ns_per_op")[0], fig(r, "baseline_ns_per_op")[0]
        lines.append(f"- {where}: **below baseline**: the program took {prog:.1f} ns a step and "
                     f"its baseline {base:.1f}: the map call is lost in the loop's own noise.")
    return lines


def markdown(hosts, groups, rows, problem, ratios):
    reps = sorted({r.get("runs", 1) for r in rows})
    md = ["# maplab compare: kernel maps and userspace designs", "",
          "## Hosts", "", host_table(hosts), "",
          f"{'/'.join(map(str, reps))} repeats per point, the sides run in turn within each.",
          "",
          "How to read the tables: each figure is the **median over the repeats, with the least "
          "and greatest in brackets**. The ratio after a side's ns/op (×) is its ns/op over the "
          "kernel's in BPF, taken **within each repeat**, between runs made side by side: on a "
          "noisy machine it is the figure to trust, more than either ns/op alone. "
          f"{WARN} marks a flagged figure, one not to take as it stands (this machine cannot have given it, or its writes mostly failed) "
          "(see *Flagged results* below and docs/bench.md). The reference probe is a fixed "
          "pointer chase timed before each repeat: on one host, a higher probe means a busier "
          "machine.",
          "",
          "- **kernel BPF**: the map calls inside BPF programs run by BPF_PROG_TEST_RUN, with a "
          "baseline program (the same loop without the map call) subtracted "
          "(docs/kernel-compare.md).",
          "- **kernel syscall**: one bpf(2) call per operation, what a userspace consumer pays.",
          "- **+no_common_lru** after a kernel side: the kernel's LRU hash in its per-CPU mode "
          "(BPF_F_NO_COMMON_LRU), beside a design that stands for that mode.",
          "- designs: maplab's userspace designs on the same key streams.",
          "- **work per op**: what a design did to keep room, counted by the design itself: keys "
          "evicted, list nodes scanned, locks taken (bucket locks included), keys evicted per "
          "trip to shared state; for the kernel, its evictions alone (from its size).", ""]
    flagged = []
    for mix, by_host in groups.items():
        first = next(r for by in by_host.values() for s in by.values() for r in s.values())
        md += [f"## {mix}", "", map_line(first), ""]
        for label, by_series in by_host.items():
            mix_rows = [r for s in by_series.values() for r in s.values()]
            if len(by_host) > 1 or len(hosts) > 1:
                md += [f"### {label}", ""]
            probe = run_probe_line(mix_rows)
            if probe:
                md += [f"Reference probe during this workload: {probe}.", ""]
            md += md_tables(by_series) + modes_line(by_series) + work_table(by_series)
            names = ordered(by_series)
            for r in sorted(mix_rows, key=lambda r: (names.index(series_name(r)), r["threads"])):
                flagged += flag_text(r, hosts[label]["host"])
    md += ["## Flagged results", ""]
    if flagged:
        md += flagged + ["",
                         "A flagged figure says the machine changed under the run (a neighbour, a "
                         "stolen vCPU, a kernel thread), not how the map behaves. Rerun with more "
                         "`--repeat`, on a quieter machine; compare the reference probe with a calm "
                         "run's; and quote only ratios measured side by side "
                         "(docs/bench.md, *Flagged results*).", ""]
    else:
        md += ["None: every figure above is one this machine can have given, and its writes mostly succeeded.", ""]
    md += ["## Plots", ""]
    if problem:
        md.append(problem)
    else:
        md += ["![ns per op](ns_per_op.png)", ""]
        if ratios:
            md += ["![ratio to the kernel](ratio.png)", ""]
        md += ["![Mops/s against threads](mops_vs_threads.png)", "",
               "Error bars span the least and greatest of the repeats; a ringed point is flagged. "
               "(SVG versions beside them.)"]
    return "\n".join(md) + "\n"


# --- the plots ---------------------------------------------------------------------------
#
# Drawn with harness/results/plotting.py (small multiples, one style per
# series in every figure, the legend below the panels).  A panel is one
# workload's (or trace's) group of at most PER_PANEL series on one host:
# a workload with more sides is split, the kernel's BPF sides (the
# references) repeated in each part; with several hosts each host has its
# own panel of each group, side by side.

PER_PANEL = 8


def fewest_threads(by_threads):
    return by_threads[min(by_threads)] if by_threads else None


def log_wanted(values, span=10):
    """A log scale where the values span a decade or more."""
    v = [x for x in values if x is not None and x > 0]
    return bool(v) and max(v) / min(v) >= span


def compare_panels(groups):
    """[(workload, host, [series], part, parts)]: every panel of compare's
    figures, in order: per workload its split groups, per group each host
    that ran any of its series."""
    out = []
    for mix, by_host in groups.items():
        names = ordered({n for by in by_host.values() for n in by})
        keep = [n for n in names if n.startswith("kernel BPF")]
        split = plotting.split_series(names, PER_PANEL, keep=keep)
        for part, names_in in enumerate(split, 1):
            for host, by_series in by_host.items():
                if any(n in by_series for n in names_in):
                    out.append((mix, host, names_in, part, len(split)))
    return out


def panel_title(mix, host, part, parts, several, threads=None):
    text = mix + (f" ({part} of {parts})" if parts > 1 else "")
    if threads is not None:
        text += f", {plotting.plural(threads, 'thread')}"
    return plotting.wrap(text) + (f"\n{host}" if several else "")


def figure_host_line(hosts):
    return " | ".join(plotting.host_line(info["host"]) for info in hosts.values())


def same_limits(axes, keys, axis):
    """Panels of one key (a workload's group, drawn for several hosts) on
    the same scale: hosts compared by eye."""
    by = {}
    for ax, k in zip(axes, keys):
        by.setdefault(k, []).append(ax)
    for group_axes in by.values():
        if len(group_axes) < 2 or len({getattr(ax, f"get_{axis}scale")()
                                       for ax in group_axes}) > 1:
            continue
        lims = [getattr(ax, f"get_{axis}lim")() for ax in group_axes]
        lo, hi = min(l[0] for l in lims), max(l[1] for l in lims)
        for ax in group_axes:
            getattr(ax, f"set_{axis}lim")(lo, hi)


def dot_rows(ax, rows, styles, xlabel, reference=None):
    """A dot plot: a row per series (top to bottom), its median as the
    series' marker with min-max whiskers; rows with no figure left empty
    and named "(none)"."""
    names = [n for n, _ in rows]
    values = []
    for y, (name, f) in enumerate(rows):
        if not f:
            continue
        med, lo, hi = f
        values += [lo, hi]
        st = styles.get(name)
        ax.errorbar([med], [y], xerr=[[med - lo], [hi - med]], capsize=4, elinewidth=1.4,
                    color=st["color"], marker=st["marker"], fillstyle=st["fillstyle"],
                    markersize=8, markeredgewidth=1.5, linestyle="none", label=name)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([n if f else f"{n} (none)" for n, f in rows])
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.grid(axis="y", alpha=0.15)
    if reference is not None:
        values.append(reference)
        ax.axvline(reference, color="black", linestyle="--", linewidth=1.2, zorder=1)
    if log_wanted(values):
        plotting.log_scale(ax, "x")
        xlabel += " (log scale)"
    elif values:
        ax.set_xlim(0, max(values) * 1.08)
    ax.set_xlabel(xlabel)


def compare_dot_figure(outdir, base, groups, hosts, styles, field, heading, xlabel,
                       reference=None):
    """ns_per_op or ratio: a dot plot per panel at the fewest threads."""
    several = len(hosts) > 1
    plan = []
    for mix, host, names, part, parts in compare_panels(groups):
        by_series = groups[mix][host]
        rows = []
        for n in names:
            if field == "kernel_ratio" and n.startswith("kernel BPF"):
                continue  # the reference itself: 1 by definition
            r = fewest_threads(by_series.get(n, {}))
            rows.append((n, fig(r, field) if r else None))
        if any(f for _, f in rows):
            threads = min(t for s in by_series.values() for t in s)
            plan.append((mix, host, part, parts, rows, threads))
    if not plan:
        return []
    f, axes = plotting.panels(len(plan), ncols=2)
    for ax, (mix, host, part, parts, rows, threads) in zip(axes, plan):
        dot_rows(ax, rows, styles, xlabel, reference)
        ax.set_title(panel_title(mix, host, part, parts, several, threads))
    if several:
        same_limits(axes, [(p[0], p[2]) for p in plan], "x")
    plotting.title(f, heading, figure_host_line(hosts))
    return plotting.save(f, outdir, base)


def mops_figure(outdir, groups, hosts, styles):
    """Mops/s against threads: a panel per workload group and host."""
    several = len(hosts) > 1
    plan = compare_panels(groups)
    f, axes = plotting.panels(len(plan), ncols=2)
    flagged_any = False
    for ax, (mix, host, names, part, parts) in zip(axes, plan):
        by_series = groups[mix][host]
        threads = sorted({t for n in names for t in by_series.get(n, {})})
        values = []
        for n in names:
            pts = by_series.get(n)
            if not pts:
                continue
            st = styles.get(n)
            ts = sorted(pts)
            figs = [fig(pts[t], "mops") for t in ts]
            plotting.draw(ax, ts, [m for m, _, _ in figs], [lo for _, lo, _ in figs],
                          [hi for _, _, hi in figs], style=st, label=n)
            runs = [pts[t].get("mops_runs") for t in ts]
            plotting.dots(ax, ts, runs, st)
            values += [v for f3 in figs for v in f3] + [v for rs in runs for v in rs or ()]
            flagged = [(t, pts[t]["mops"]) for t in ts if pts[t].get("flags")]
            if flagged:
                flagged_any = True
                ax.scatter([t for t, _ in flagged], [m for _, m in flagged], s=260,
                           facecolors="none", edgecolors="red", linewidths=1.6, zorder=4,
                           label="flagged (report.md says why)")
        plotting.thread_axis(ax, threads)
        if log_wanted(values, 20):
            plotting.log_scale(ax, "y")
            ax.set_ylabel("Mops/s, all threads (log scale)")
        else:
            ax.set_ylim(0, max(values + [0]) * 1.1 or 1)
            ax.set_ylabel("Mops/s, all threads")
        ax.set_title(panel_title(mix, host, part, parts, several))
    if several:
        same_limits(axes, [(p[0], p[3]) for p in plan], "y")
    plotting.legend(f, axes, ncol=4)
    plotting.title(f, "Throughput against threads: the median of the repeats, bars from the "
                   "least to the greatest, each repeat a dot"
                   + ("; ringed: flagged" if flagged_any else ""), figure_host_line(hosts))
    return plotting.save(f, outdir, "mops_vs_threads")


def compare_plots(outdir, groups, hosts):
    """compare's three figures: the PNGs written."""
    styles = plotting.Styles()
    styles.place(names for _, _, names, _, _ in compare_panels(groups))
    pngs = compare_dot_figure(
        outdir, "ns_per_op", groups, hosts, styles, "ns_per_op",
        "Cost of one map operation at the fewest threads: the median of the repeats, "
        "bars from the least to the greatest", "ns per operation, per thread")[:1]
    pngs += compare_dot_figure(
        outdir, "ratio", groups, hosts, styles, "kernel_ratio",
        "ns/op over the kernel's in BPF (dashed: 1), taken within each repeat, at the fewest "
        "threads:\nleft of the line is faster than the kernel",
        "ratio to kernel BPF of the side's mode", reference=1.0)[:1]
    pngs += mops_figure(outdir, groups, hosts, styles)[:1]
    return pngs


# --- sim's plots -------------------------------------------------------------------------

def serial_as_series(rec):
    """A serial-cpus record (sim --cpus N: one thread as N cpus) as a
    series of its own, "POLICY (serial cpus)", at N on the threads axis:
    it neither replaces nor joins the threaded run of its policy."""
    if not rec.get("serial"):
        return rec
    return dict(rec, policy=f"{rec['policy']} (serial cpus)",
                threads=rec.get("cpus", rec["threads"]))


def sim_traces(runs):
    """{trace: {(host, policy, entries, threads): [a record a repeat]}}: a
    later run's records of a point replace an earlier run's, all its
    repeats together."""
    traces = {}
    for r in runs:
        fresh = {}
        for rec in map(serial_as_series, r["sims"]):
            key = (rec["_host"], rec["policy"], rec["entries"], rec["threads"])
            fresh.setdefault(rec["trace"], {}).setdefault(key, []).append(rec)
        for trace, points in fresh.items():
            traces.setdefault(trace, {}).update(points)
    return traces


def over_repeats(reps, field):
    """(median, min, max) of a field over a point's repeats; None where no
    repeat measured it."""
    vals = [r[field] for r in reps if r.get(field) is not None]
    return (median(vals), min(vals), max(vals)) if vals else None


def sim_point(reps):
    """A point's repeats summed up: its names, and its miss ratio and speed
    as (median, min, max)."""
    first = reps[0]
    return {"policy": first["policy"], "entries": first["entries"],
            "threads": first["threads"], "_host": first["_host"],
            "distinct_keys": first.get("distinct_keys"), "runs": len(reps),
            "miss": over_repeats(reps, "miss_ratio"),
            "speed": over_repeats(reps, "mreq_per_s")}


def slug(trace):
    """A trace's name as a piece of a file name."""
    return re.sub(r"[^A-Za-z0-9.=_-]+", "_", os.path.basename(trace)).strip("_") or "trace"


def miss_ratio(pt):
    return pt["miss"][0] if pt.get("miss") else None


def sim_groups(policies):
    """The policies in panels of at most PER_PANEL, the kernel's repeated in
    each as the reference (and opt, a line across every panel, besides)."""
    names = [p for p in dict.fromkeys(policies) if p != "opt"]
    return plotting.split_series(names, PER_PANEL,
                                 keep=[p for p in names if plotting.is_kernel(p)])


def same_curve(a, b):
    """Two miss-ratio curves ({entries: ratio}) equal at every size: the
    same sizes, the same ratios (to rounding: they are counts over the same
    requests)."""
    return a.keys() == b.keys() and all(
        math.isclose(a[k], b[k], rel_tol=1e-9, abs_tol=1e-12) for k in a)


def identical_curves(curves):
    """The names of curves ({name: {entries: ratio}}) in groups whose curves
    are equal at every size, in first-seen order: [[name, same, ...], ...];
    a curve like no other is a group of one.  A plot draws a group once."""
    groups = []
    for name, c in curves.items():
        for g in groups:
            if same_curve(curves[g[0]], c):
                g.append(name)
                break
        else:
            groups.append([name])
    return groups


def same_label(names, threads):
    """A group's legend entry: every name in it, and the thread count the
    curves were equal at (at another they may part)."""
    if len(names) == 1:
        return names[0]
    unit = "cpu" if all(n.endswith("(serial cpus)") for n in names) else "thread"
    return " = ".join(names) + f" at {plotting.plural(threads, unit)}"


def curves_of(points, host, threads, names):
    """{policy: {entries: miss ratio}} of names on host at threads."""
    curves = {}
    for pt in points:
        if pt["policy"] in names and pt["_host"] == host and pt["threads"] == threads \
                and miss_ratio(pt) is not None:
            curves.setdefault(pt["policy"], {})[pt["entries"]] = miss_ratio(pt)
    return curves


def sim_host_line(hosts, recs):
    ran = {h: info for h, info in hosts.items() if any(r["_host"] == h for r in recs)}
    return figure_host_line(ran)


def opt_line(ax, recs):
    opt = [miss_ratio(r) for r in recs if r["policy"] == "opt" and miss_ratio(r) is not None]
    if opt:
        ax.axhline(opt[0], color="black", linestyle=(0, (5, 3)), linewidth=2,
                   label="opt (offline bound)", zorder=1)


def speed_note(points):
    """What the Pareto plot's speed axis is: one run, or a median with its
    spread (and the miss ratio's, where threads made it vary)."""
    runs = max((p["runs"] for p in points), default=1)
    if runs == 1:
        return "speed: one run a point, no spread (--repeat N draws it)"
    varies = any(p["miss"] and p["miss"][1] != p["miss"][2] for p in points)
    return (f"speed: the median of {runs} runs, bars from the least to the greatest"
            + ("; miss ratio likewise" if varies else ""))


def pareto_point(ax, pt, style, label):
    """One policy's point: its median speed and miss ratio, with bars over
    its repeats' range where it ran more than once."""
    speed, miss = pt["speed"] or (0, 0, 0), pt["miss"]
    many = pt["runs"] > 1
    plotting.draw(ax, [speed[0]], [miss[0]], style=dict(style, linestyle="none", markersize=10),
                  label=label, xlo=[speed[1]] if many else None,
                  xhi=[speed[2]] if many else None,
                  lo=[miss[1]] if many and miss[1] != miss[2] else None,
                  hi=[miss[2]] if many and miss[1] != miss[2] else None)


def pareto_figure(outdir, base, trace, entries, points, styles, hosts, same):
    """Miss ratio against Mreq/s at the highest thread count, a panel per
    group of policies and host, every panel on the same axes; `same`: the
    groups of policies whose miss ratios are equal at every size there."""
    threads = max((r["threads"] for r in points if r["policy"] != "opt"), default=1)
    at = [r for r in points if r["policy"] != "opt" and r["threads"] == threads]
    host_names = list(dict.fromkeys(r["_host"] for r in points))
    plan = [(g, h) for g in sim_groups(r["policy"] for r in at) for h in host_names
            if any(r["_host"] == h and r["policy"] in g for r in at)]
    f, axes = plotting.panels(len(plan), ncols=2, panel_height_px=460, sharex=True, sharey=True)
    speeds = [r["speed"][2] for r in at if r["speed"]]
    misses = [v for r in points if r["miss"] for v in r["miss"][1:]] or [0, 1]
    for i, (ax, (names, host)) in enumerate(zip(axes, plan)):
        named = []
        for p in names:
            for r in at:
                if r["policy"] == p and r["_host"] == host and miss_ratio(r) is not None:
                    pareto_point(ax, r, styles.get(p), p)
                    named.append(((r["speed"] or (0,))[0], miss_ratio(r), p))
        opt_line(ax, [r for r in points if r["_host"] == host])
        ax.set_xlim(0, max(speeds + [1]) * 1.08)
        # Speeds from 0 (a distance from the axis reads as a speed); miss
        # ratios over their own range, opt's included, so that a cluster of
        # policies spreads out.
        pad = max(0.02, 0.12 * (max(misses) - min(misses)))
        ax.set_ylim(max(0, min(misses) - pad), min(1, max(misses) + pad))
        ax.set_xlabel(f"million requests per second, {plotting.plural(threads, 'thread')} "
                      "(right: faster)")
        ax.set_ylabel("miss ratio (lower: fewer misses)")
        part = f"policies {i // max(1, len(host_names)) + 1} of {len(plan) // max(1, len(host_names))}" \
            if len(plan) > len(host_names) else ""
        ax.set_title(", ".join(x for x in (part, host if len(host_names) > 1 else "") if x)
                     or "every policy")
        ax.tick_params(labelbottom=True, labelleft=True)
        plotting.label_points(ax, named)
    plotting.legend(f, axes, ncol=4)
    alike = [same_label(g, threads) for g in same if len(g) > 1]
    plotting.title(f, f"Miss ratio against speed: {entries} entries, "
                   f"{plotting.plural(threads, 'thread')}, {trace}\n{speed_note(at)}"
                   + (f"\nthe same miss ratio at every size: {'; '.join(alike)}" if alike else ""),
                   sim_host_line(hosts, points))
    return plotting.save(f, outdir, base)


def mrc_figure(outdir, base, trace, points, styles, hosts):
    """Miss ratio against entries (log2), a line per policy at the fewest
    threads (opt at its one), a panel per group of policies and host;
    policies whose curves are equal at every size drawn once, the legend
    naming them all."""
    threads = min((r["threads"] for r in points if r["policy"] != "opt"), default=1)
    use = [r for r in points if r["policy"] == "opt" or r["threads"] == threads]
    host_names = list(dict.fromkeys(r["_host"] for r in use))
    groups = sim_groups(r["policy"] for r in use) or [[]]
    plan = [(g, h) for g in groups for h in host_names]
    sizes = sorted({r["entries"] for r in use})
    f, axes = plotting.panels(len(plan), ncols=2, sharey=True)
    every = {r["policy"] for r in use} - {"opt"}
    for i, (ax, (names, host)) in enumerate(zip(axes, plan)):
        # Alike over every policy of the host, not the panel's alone: a
        # reference repeated in each panel keeps the one legend entry.
        curves = curves_of(use, host, threads, every)
        for same in identical_curves(curves):
            if not any(n in names for n in same):
                continue
            pts = sorted(curves[same[0]].items())
            # The style of the panel's own member: its colours were chosen
            # against the panel's others (a reference's: open, dashed).
            own = next(n for n in same if n in names)
            plotting.draw(ax, [x for x, _ in pts], [y for _, y in pts],
                          style=styles.get(own), label=same_label(same, threads))
        opt = sorted(curves_of(use, host, 1, ["opt"]).get("opt", {}).items())
        if opt:
            plotting.draw(ax, [x for x, _ in opt], [y for _, y in opt],
                          style={"color": "black", "marker": "*", "linestyle": (0, (5, 3)),
                                 "fillstyle": "full", "markersize": 9},
                          label="opt (offline bound)")
        plotting.size_axis(ax, sizes, "entries (cache size, log scale)")
        ax.set_ylim(bottom=0)
        ax.set_ylabel("miss ratio (lower: fewer misses)")
        part = f"policies {i // len(host_names) + 1} of {len(groups)}" if len(groups) > 1 else ""
        ax.set_title(", ".join(x for x in (part, host if len(host_names) > 1 else "") if x)
                     or "every policy")
        ax.tick_params(labelleft=True)
    distinct = points[0].get("distinct_keys", "?")
    plotting.legend(f, axes, ncol=3)
    plotting.title(f, f"Miss ratio against cache size, {plotting.plural(threads, 'thread')}: "
                   f"{trace}, {distinct} distinct keys", sim_host_line(hosts, points))
    return plotting.save(f, outdir, base)


def sim_plots(outdir, runs, hosts):
    """Every sim plot the records make: every file written, PNG and SVG."""
    traces = sim_traces(runs)
    styles = plotting.Styles()
    styles.place(sim_groups(k[1] for recs in traces.values() for k in recs))
    written = []
    for trace, by_point in traces.items():
        points = [sim_point(reps) for reps in by_point.values()]
        prefix = "" if len(traces) == 1 else slug(trace) + "-"
        top = max((p["threads"] for p in points if p["policy"] != "opt"), default=1)
        same = [g for h in dict.fromkeys(p["_host"] for p in points)
                for g in identical_curves(curves_of(points, h, top,
                                                    {p["policy"] for p in points} - {"opt"}))]
        for entries in sorted({p["entries"] for p in points}):
            at = [p for p in points if p["entries"] == entries]
            if all(p["policy"] == "opt" for p in at):
                continue  # opt alone: no speeds to set it against
            written += pareto_figure(outdir, f"pareto-{prefix}{entries}", trace, entries, at,
                                     styles, hosts, same)
        written += mrc_figure(outdir, f"mrc{'-' + prefix[:-1] if prefix else ''}", trace,
                              points, styles, hosts)
    return written


NO_MATPLOTLIB = "matplotlib is not installed (apt-get install python3-matplotlib): no plots"

def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    outdir = sys.argv[1]
    runs = []
    for arg in [outdir] + sys.argv[2:]:
        path = results_path(arg)
        if not os.path.exists(path):
            print(f"report.py: no {path}", file=sys.stderr)
            return 2
        runs += load(path)
    hosts = label_hosts(runs)
    rows = [row for r in runs for row in r["rows"]]
    sims = [rec for r in runs for rec in r["sims"]]
    if not rows and not sims:
        print(f"report.py: no results in {', '.join(results_path(a) for a in [outdir] + sys.argv[2:])}",
              file=sys.stderr)
        return 2
    report, pngs, problems = None, [], []
    drawing = plotting.have_matplotlib()
    if rows:
        groups = group(rows)
        ratios = any("kernel_ratio" in r for r in rows)
        problem = None if drawing else NO_MATPLOTLIB + "."
        plotting.write_text(os.path.join(outdir, "report.md"),
                            markdown(hosts, groups, rows, problem, ratios))
        report = f"{outdir}/report.md"
        if drawing:
            pngs += compare_plots(outdir, groups, hosts)
    if sims and drawing:
        pngs += sim_plots(outdir, runs, hosts)
    if not drawing:
        problems.append(NO_MATPLOTLIB + ("; report.md written" if report else
                                         f"; the records are in {results_path(outdir)}"))
    said = ([f"report: {report}"] if report else []) + (["plots: " + ", ".join(pngs)] if pngs else [])
    if said:
        print(", ".join(said))
    for problem in problems:
        print(f"report.py: {problem}", file=sys.stderr)
    return 0

if __name__ == "__main__":
    plotting.fail_on_write("report.py", main)
