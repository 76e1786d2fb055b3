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
and keeps gnuplot's scripts as text beside the data.  The C side writes
records (record.h) and runs this file (`maplab sim --plot`); nothing in C
draws.

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
  ns_per_op.{png,svg}       ns/op per workload at the fewest threads, min-max
                            as error bars
  ratio.{png,svg}           each side's ns/op over the kernel's in BPF, per
                            workload, at the fewest threads, min-max as error bars
  mops_vs_threads.{png,svg} Mops/s against threads, a panel per workload,
                            min-max as error bars, flagged points ringed

sim's records ({"record":"sim"}), per trace (a later record of the same
policy, size and threads replaces an earlier one):
  pareto-<entries>.{png,svg} miss ratio against Mreq/s at the highest thread
                            count, one per size, a point per policy (the
                            kernel's open, designs' filled), opt as a dashed
                            line: the offline bound, whose speed is a heap's
  mrc.{png,svg}             miss ratio against entries (log scale), a line per
                            policy at the fewest threads (the kernel's dashed)
  with several traces in the files, each trace's names get its own prefix
  (mrc-<trace>.png, pareto-<trace>-<entries>.png).
A policy keeps its colour and marker in every sim plot.

Each plot's data (*.dat) and gnuplot script (*-png.gp, *-svg.gp) stay beside
it.  Plots need gnuplot; without it this says so on stderr, keeps the data
files and scripts (and report.md), and exits 0.  Exit 2: no records, or a
file that is not jsonl.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys

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
                if not runs:
                    bad_input(f"{path}:{n}: a {rec['record']} record before any host record")
                runs[-1]["rows" if rec["record"] == "result" else "sims"].append(rec)
    return runs


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

def series_keys(groups):
    """Every (host, series) plotted, kernel first, hosts in order."""
    hosts = list(dict.fromkeys(h for g in groups.values() for h in g))
    names = ordered({n for g in groups.values() for by in g.values() for n in by})
    return [(h, n) for h in hosts for n in names
            if any(n in g.get(h, {}) for g in groups.values())]


def key_title(key, several_hosts):
    host, name = key
    return f"{name} ({host})" if several_hosts else name


def fewest_threads(by_threads):
    return by_threads[min(by_threads)] if by_threads else None


def triple(r, field):
    f = fig(r, field) if r else None
    return " ".join(f"{v:.4g}" for v in f) if f else "NaN NaN NaN"


def write_data(outdir, groups, keys):
    """The .dat files gnuplot reads; returns, per file, which series have a
    value in it (gnuplot refuses to draw a series with none)."""
    mixes, present = list(groups), {}
    with open(os.path.join(outdir, "ns_per_op.dat"), "w") as ns, \
            open(os.path.join(outdir, "ratio.dat"), "w") as ratio:
        for f in (ns, ratio):
            f.write("# workload, then per series: median min max\n")
        for mix in mixes:
            rs = [fewest_threads(groups[mix].get(h, {}).get(n, {})) for h, n in keys]
            ns.write(f'"{mix}" ' + " ".join(triple(r, "ns_per_op") for r in rs) + "\n")
            ratio.write(f'"{mix}" ' + " ".join(triple(r, "kernel_ratio") for r in rs) + "\n")
            for name, field in (("ns_per_op", "ns_per_op"), ("ratio", "kernel_ratio")):
                seen = present.setdefault(name, [False] * len(keys))
                for j, r in enumerate(rs):
                    seen[j] = seen[j] or bool(r and field in r)
    for i, mix in enumerate(mixes):
        seen = present.setdefault(f"mops_{i}", [False] * len(keys))
        with open(os.path.join(outdir, f"mops_{i}.dat"), "w") as f:
            threads = sorted({t for by in groups[mix].values() for s in by.values() for t in s})
            f.write("# threads, then per series: median min max flagged-median\n")
            for t in threads:
                cols = []
                for j, (h, n) in enumerate(keys):
                    r = groups[mix].get(h, {}).get(n, {}).get(t)
                    seen[j] = seen[j] or r is not None
                    cols.append(triple(r, "mops") + " " +
                                (f"{r['mops']:.4g}" if r and r.get("flags") else "NaN"))
                f.write(f"{t} " + " ".join(cols) + "\n")
    return mixes, present


def styles(keys):
    """Per plotted series: its colour (one per side, the same in every plot)
    and its host's fill and dash (solid for the first host)."""
    names = ordered({n for _, n in keys})
    hosts = list(dict.fromkeys(h for h, _ in keys))
    return [{"lc": names.index(n) + 1, "host": hosts.index(h)} for h, n in keys]


def bars(outdir, name, keys, several, present):
    plots = []
    for i, (k, st) in enumerate(zip(keys, styles(keys))):
        if not present[name][i]:
            continue
        fill = "fs solid 0.8" if st["host"] == 0 else f"fs pattern {st['host'] + 3}"
        plots.append(f"'{outdir}/{name}.dat' using {3 * i + 2}:{3 * i + 3}:{3 * i + 4}:xtic(1) "
                     f"{fill} lc {st['lc']} title '{key_title(k, several)}'")
    return "plot " + ", ".join(plots)


def lines(outdir, i, keys, several, present):
    """Mops/s against threads for each series, nudged sideways so that
    error bars at one thread count do not hide each other."""
    plots = []
    for j, (k, st) in enumerate(zip(keys, styles(keys))):
        if not present[f"mops_{i}"][j]:
            continue
        c, dx = 4 * j + 2, 0.04 * (j - (len(keys) - 1) / 2)
        plots.append(f"'{outdir}/mops_{i}.dat' using ($1+{dx:.3f}):{c}:{c + 1}:{c + 2} "
                     f"with yerrorlines lw 2 pt {7 + 2 * st['host']} dt {st['host'] + 1} "
                     f"lc {st['lc']} title '{key_title(k, several)}'")
        plots.append(f"'{outdir}/mops_{i}.dat' using ($1+{dx:.3f}):{c + 3} with points "
                     f"pt 6 ps 3 lw 2 lc rgb 'red' notitle")
    return "plot " + ", ".join(plots)


def gnuplot_script(outdir, mixes, keys, hosts, term, ext, present):
    several = len(hosts) > 1
    h0 = next(iter(hosts.values()))["host"]
    subtitle = ("hosts: " + "; ".join(hosts) if several else
                f"{h0.get('cpu_model', '?')}, {h0.get('nproc', '?')} CPUs, Linux {h0.get('kernel', '?')}")
    common = ["set style data histograms", "set style histogram errorbars gap 1 lw 1",
              "set style fill solid 0.8 border -1", "set bars front",
              "set key outside right top vertical noenhanced", "set grid ytics",
              "set xtics rotate by -15 noenhanced", "set logscale y"]
    s = [f"set terminal {term}", f"set output '{outdir}/ns_per_op.{ext}'",
         f'set title "Cost of one map operation, at the fewest threads (bars: min to max of '
         f'the repeats)\\n{subtitle}" noenhanced',
         "set ylabel 'ns per operation (log scale)'", "set xlabel 'workload (op mix)'",
         *common, "set yrange [1:*]", bars(outdir, "ns_per_op", keys, several, present)]
    if any(present["ratio"]):
        s += ["reset", f"set terminal {term}", f"set output '{outdir}/ratio.{ext}'",
              f'set title "ns/op over the kernel\'s in BPF, taken within each repeat, at the '
              f'fewest threads (bars: min to max)\\n{subtitle}" noenhanced',
              "set ylabel 'ratio to kernel BPF (log scale; below 1: faster)'",
              "set xlabel 'workload (op mix)'", *common,
              "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 front",
              bars(outdir, "ratio", keys, several, present)]
    s += ["reset", f"set terminal {term}", f"set output '{outdir}/mops_vs_threads.{ext}'",
          f'set multiplot layout 1,{len(mixes)} title "Throughput against threads (bars: min to '
          f'max of the repeats; ringed: flagged)\\n{subtitle}" noenhanced']
    for i, mix in enumerate(mixes):
        s += [f"set title '{mix}' noenhanced", "set xlabel 'threads'",
              "set ylabel 'Mops/s, all threads'", "set grid", "set key below noenhanced",
              "set xtics 1", "set yrange [0:*]", "set offsets 0.3, 0.3, 0, 0",
              lines(outdir, i, keys, several, present)]
    s.append("unset multiplot")
    return "\n".join(s) + "\n"


def plot(outdir, mixes, keys, hosts, present):
    if not shutil.which("gnuplot"):
        return "gnuplot is not installed: the data files (*.dat) are here, no plots."
    width = max(1000, 440 * len(mixes))
    height = 560 + (20 * len(keys) if len(hosts) > 1 else 0)  # room for the keys
    for term, ext in ((f"pngcairo size {width},{height} font 'sans,10'", "png"),
                      (f"svg size {width},{height} dynamic font 'sans,10'", "svg")):
        script = gnuplot_script(outdir, mixes, keys, hosts, term, ext, present)
        with open(os.path.join(outdir, f"plots-{ext}.gp"), "w") as f:
            f.write(script)
        res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if res.returncode != 0:
            return f"gnuplot failed: {res.stderr.strip()}"
    return None


# --- sim's plots -------------------------------------------------------------------------

# Colours a reader tells apart (a policy keeps its own in every plot), and
# filled markers for the designs; the kernel's policies get the open marker of
# the same shape and a dashed line, so that a kernel drawn over the design it
# matches still shows.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#9c9c1c", "#17becf", "#393b79", "#b8860b",
           "#637939", "#843c39", "#7b4173", "#006d6d")
FILLED = (7, 5, 9, 11, 13, 15)     # circle, square, triangles, diamond, pentagon
OPEN = (6, 4, 8, 10, 12, 14)       # the same shapes, open


def gp_text(text):
    """text as a gnuplot string, in double quotes: its line breaks kept."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def gp_path(path):
    """A path as a gnuplot string in single quotes (nothing is escaped in
    them but the quote itself, doubled)."""
    return "'" + path.replace("'", "''") + "'"


def plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def host_line(hosts):
    """The machine the speeds are from (several: their labels)."""
    if len(hosts) > 1:
        return "hosts: " + "; ".join(hosts)
    h = next(iter(hosts.values()))["host"]
    return (f"{h.get('cpu_model', '?')}, {plural(h.get('nproc', 0), 'CPU')}, "
            f"Linux {h.get('kernel', '?')}")


class SimStyle:
    """Each series' colour, marker and dash, by its policy's first appearance."""

    def __init__(self, policies):
        self.index = {}
        for p in policies:
            if p != "opt" and p not in self.index:
                self.index[p] = len(self.index)

    def of(self, policy, lines):
        if policy == "opt":
            return "lc rgb 'black' dt 2 lw 2.5 pt 1 ps 1.4" if lines else "lc rgb 'black'"
        i = self.index[policy]
        kernel = policy.startswith("kernel")
        shape = (OPEN if kernel else FILLED)[i % len(FILLED)]
        style = f"lc rgb '{PALETTE[i % len(PALETTE)]}' pt {shape} ps {1.3 if lines else 2.0}"
        if lines:
            style += f" lw 2 dt {2 if kernel else 1}"
        elif kernel:
            style += " lw 2"
        return style


def sim_traces(runs):
    """{trace: {(host, policy, entries, threads): record}}: a later record of
    a point replaces an earlier one."""
    traces = {}
    for r in runs:
        for rec in r["sims"]:
            key = (rec["_host"], rec["policy"], rec["entries"], rec["threads"])
            traces.setdefault(rec["trace"], {})[key] = rec
    return traces


def slug(trace):
    """A trace's name as a piece of a file name."""
    return re.sub(r"[^A-Za-z0-9.=_-]+", "_", os.path.basename(trace)).strip("_") or "trace"


def series_title(host, policy, several_hosts):
    return f"{policy} ({host})" if several_hosts else policy


def sim_script(outdir, base, ext, term, title, xlabel, settings, plots):
    return "\n".join([
        "reset", f"set terminal {term}",
        f"set output {gp_path(os.path.join(outdir, f'{base}.{ext}'))}",
        f"set title {gp_text(title)} noenhanced", f"set xlabel {gp_text(xlabel)} noenhanced",
        "set ylabel 'miss ratio (lower: fewer misses)'", "set grid",
        "set key outside right top vertical Left reverse noenhanced spacing 1.2",
        *settings, "plot " + ", \\\n     ".join(plots), ""])


def write_blocks(path, header, blocks):
    """A .dat file: a block per series (gnuplot's index), two blank lines
    between blocks."""
    with open(path, "w") as f:
        f.write(f"# {header}, a block per series\n")
        for i, (name, points) in enumerate(blocks):
            f.write(("\n\n" if i else "") + f"# {name}\n")
            for x, y in points:
                f.write(f"{x:.6g} {y:.6g}\n")


def miss_ratio(rec):
    r = rec.get("miss_ratio")
    return r if r is not None else math.nan


def pareto_figure(outdir, base, trace, entries, recs, style, hosts, several):
    """The Pareto plot of one size: its .dat and the plot commands."""
    threads = max((r["threads"] for r in recs if r["policy"] != "opt"), default=1)
    blocks, plots = [], []
    for r in recs:
        if r["policy"] == "opt" or r["threads"] != threads:
            continue
        blocks.append((series_title(r["_host"], r["policy"], several),
                       [(r.get("mreq_per_s") or math.nan, miss_ratio(r))]))
        plots.append(f"{gp_path(os.path.join(outdir, base + '.dat'))} index {len(blocks) - 1} "
                     "using 1:2 with points "
                     f"{style.of(r['policy'], False)} title {gp_text(blocks[-1][0])}")
    write_blocks(os.path.join(outdir, f"{base}.dat"),
                 f"mreq_per_s miss_ratio ({plural(threads, 'thread')}, {entries} entries)",
                 blocks)
    # opt across the whole width, with its entry in the key.
    opt = [miss_ratio(r) for r in recs if r["policy"] == "opt"]
    # From 0, both: distances to the axes read as speeds and miss ratios;
    # room at the top and right so that no point sits on the border.
    settings = ["set xrange [0:*]", "set yrange [0:*]",
                "set offsets 0, graph 0.05, graph 0.05, 0"]
    if opt and not math.isnan(opt[0]):
        settings.append(f"set arrow from graph 0, first {opt[0]:.6g} to graph 1, "
                        f"first {opt[0]:.6g} nohead lc rgb 'black' dt 2 lw 2.5")
        plots.append("NaN with lines lc rgb 'black' dt 2 lw 2.5 title 'opt (offline bound)'")
    ran = {h: info for h, info in hosts.items() if any(r["_host"] == h for r in recs)}
    title = (f"Miss ratio against speed: {entries} entries, {plural(threads, 'thread')}\n"
             f"{trace}\non {host_line(ran)}")
    xlabel = f"million requests per second, {plural(threads, 'thread')} (right: faster)"
    return title, xlabel, settings, plots


def mrc_figure(outdir, base, trace, recs, style, hosts, several):
    """The miss-ratio curves: one line per series at the fewest threads."""
    threads = min((r["threads"] for r in recs if r["policy"] != "opt"), default=1)
    series = {}
    for r in recs:
        if r["policy"] == "opt" or r["threads"] == threads:
            series.setdefault((r["_host"], r["policy"]), []).append(r)
    blocks, plots = [], []
    for (host, policy), rs in series.items():
        blocks.append((series_title(host, policy, several),
                       sorted((r["entries"], miss_ratio(r)) for r in rs)))
        plots.append(f"{gp_path(os.path.join(outdir, base + '.dat'))} index {len(blocks) - 1} "
                     "using 1:2 with linespoints "
                     f"{style.of(policy, True)} title {gp_text(blocks[-1][0])}")
    write_blocks(os.path.join(outdir, f"{base}.dat"), "entries miss_ratio", blocks)
    sizes = sorted({r["entries"] for r in recs})
    distinct = recs[0].get("distinct_keys", "?")
    title = (f"Miss ratio against cache size, {plural(threads, 'thread')}\n"
             f"{trace}: {distinct} distinct keys")
    # The sizes' own range, and a margin: no point on the border.
    settings = ["set logscale x", "set autoscale xfix",
                "set offsets graph 0.05, graph 0.05, graph 0.04, graph 0.04"]
    # The sizes as tics where they fit: few, and apart on the log axis.
    if len(sizes) <= 12 and all(b >= 1.25 * a for a, b in zip(sizes, sizes[1:])):
        settings.append("set xtics (" + ", ".join(f"'{n}' {n}" for n in sizes) + ")")
    return title, "entries (cache size, log scale)", settings, plots


def sim_plots(outdir, runs, hosts):
    """Every sim plot the records make: (the PNGs written, a problem or None)."""
    traces = sim_traces(runs)
    several = len({k[0] for recs in traces.values() for k in recs}) > 1
    style = SimStyle([k[1] for recs in traces.values() for k in recs])
    figures = []  # (base, title, xlabel, settings, plots)
    for trace, points in traces.items():
        recs = list(points.values())
        prefix = "" if len(traces) == 1 else slug(trace) + "-"
        for entries in sorted({r["entries"] for r in recs}):
            at = [r for r in recs if r["entries"] == entries]
            if all(r["policy"] == "opt" for r in at):
                continue  # opt alone: no speeds to set it against
            base = f"pareto-{prefix}{entries}"
            figures.append((base, *pareto_figure(outdir, base, trace, entries, at,
                                                 style, hosts, several)))
        base = f"mrc{'-' + prefix[:-1] if prefix else ''}"
        figures.append((base, *mrc_figure(outdir, base, trace, recs, style, hosts, several)))
    # Room on the right for the key's longest title (hosts' labels are long).
    longest = max((len(series_title(*k[:2], several)) for recs in traces.values()
                   for k in recs), default=0)
    size = f"{1000 + 7 * max(0, longest - 22)},620"
    scripts = {}  # base: its two scripts
    for term, ext in ((f"pngcairo size {size} font 'sans,11'", "png"),
                      (f"svg size {size} dynamic font 'sans,11'", "svg")):
        for base, title, xlabel, settings, plots in figures:
            path = os.path.join(outdir, f"{base}-{ext}.gp")
            with open(path, "w") as f:
                f.write(sim_script(outdir, base, ext, term, title, xlabel, settings, plots))
            scripts.setdefault(base, []).append(path)
    if not shutil.which("gnuplot"):
        return [], (f"gnuplot is not installed: no sim plots; their data (*.dat), gnuplot "
                    f"scripts (*.gp) and records (results.jsonl) are in {outdir}")
    pngs, failed = [], []
    for base, paths in scripts.items():  # one gnuplot a figure: a failure stops no other
        res = subprocess.run(["gnuplot", *paths], capture_output=True, text=True)
        if res.returncode == 0:
            pngs.append(os.path.join(outdir, f"{base}.png"))
        else:
            failed.append(f"{base}: {res.stderr.strip()}")
    return pngs, ("gnuplot failed on " + "; ".join(failed)) if failed else None

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
    if rows:
        groups = group(rows)
        keys = series_keys(groups)
        mixes, present = write_data(outdir, groups, keys)
        ratios = any(present["ratio"])
        problem = plot(outdir, mixes, keys, hosts, present)
        with open(os.path.join(outdir, "report.md"), "w") as f:
            f.write(markdown(hosts, groups, rows, problem, ratios))
        report = f"{outdir}/report.md"
        if problem:
            problems.append(problem)
        else:
            pngs += [f"{outdir}/{p}" for p in ["ns_per_op.png"] +
                     (["ratio.png"] if ratios else []) + ["mops_vs_threads.png"]]
    if sims:
        drawn, problem = sim_plots(outdir, runs, hosts)
        pngs += drawn
        if problem:
            problems.append(problem)
    said = ([f"report: {report}"] if report else []) + (["plots: " + ", ".join(pngs)] if pngs else [])
    if said:
        print(", ".join(said))
    for problem in problems:
        print(f"report.py: {problem}", file=sys.stderr)
    return 0

if __name__ == "__main__":
    sys.exit(main())
