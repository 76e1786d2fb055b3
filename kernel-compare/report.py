#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn `maplab compare --save` records into a markdown report and plots.

usage: report.py RESULTS_DIR     (reads RESULTS_DIR/results.jsonl)

Writes into RESULTS_DIR:
  report.md                   the host, then per workload a table of ns/op and
                              Mops/s for the kernel (in BPF, via syscall) and
                              each design, with design/kernel ratios
  ns_per_op.{png,svg}         ns/op per workload at one thread, a bar each side
  mops_vs_threads.{png,svg}   Mops/s against threads, a panel per workload
Plots need gnuplot; without it the report says so and lists the data files.
"""
import json
import os
import shutil
import subprocess
import sys


def load(path):
    host, rows = None, []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("record") == "host":
                host = host or rec["host"]
            elif rec.get("record") == "result":
                rows.append(rec)
    return host, rows


def series_name(r):
    if r["side"] == "kernel":
        return "kernel BPF"
    if r["side"].startswith("syscall"):
        return "kernel " + r["side"].replace("-", " ")
    return r["map"]


def ordered(names):
    rank = {"kernel BPF": 0, "kernel syscall": 1, "kernel syscall batch": 2}
    return sorted(names, key=lambda n: (rank.get(n, 3), n))


def group(rows):
    """{mix: {series: {threads: row}}}, in first-seen mix order."""
    out = {}
    for r in rows:
        out.setdefault(r["mix"], {}).setdefault(series_name(r), {})[r["threads"]] = r
    return out


def md_table(mix, by_series):
    names = ordered(by_series)
    threads = sorted({t for s in by_series.values() for t in s})
    lines = ["| threads | " + " | ".join(f"{n} ns/op" for n in names) + " |",
             "|---|" + "---|" * len(names)]
    for t in threads:
        kernel = by_series.get("kernel BPF", {}).get(t)
        cells = []
        for n in names:
            r = by_series[n].get(t)
            if not r:
                cells.append("–")
            elif kernel and not n.startswith("kernel"):
                cells.append(f"{r['ns_per_op']:.1f} ({r['ns_per_op'] / kernel['ns_per_op']:.2f}×)")
            else:
                cells.append(f"{r['ns_per_op']:.1f}")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    lines += ["", "| threads | " + " | ".join(f"{n} Mops/s" for n in names) + " |",
              "|---|" + "---|" * len(names)]
    for t in threads:
        cells = [f"{by_series[n][t]['mops']:.2f}" if t in by_series[n] else "–" for n in names]
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_data(outdir, groups):
    """One .dat per plot: gnuplot reads columns."""
    mixes = list(groups)
    names = ordered({n for g in groups.values() for n in g})
    with open(os.path.join(outdir, "ns_per_op.dat"), "w") as f:
        f.write("# workload " + " ".join(f'"{n}"' for n in names) + "\n")
        for mix in mixes:
            vals = []
            for n in names:
                r = groups[mix].get(n, {})
                one = r.get(min(r)) if r else None
                vals.append(f"{one['ns_per_op']:.2f}" if one else "NaN")
            f.write(f'"{mix}" ' + " ".join(vals) + "\n")
    for i, mix in enumerate(mixes):
        with open(os.path.join(outdir, f"mops_{i}.dat"), "w") as f:
            threads = sorted({t for s in groups[mix].values() for t in s})
            f.write("# threads " + " ".join(f'"{n}"' for n in names) + "\n")
            for t in threads:
                vals = [f"{groups[mix][n][t]['mops']:.3f}" if t in groups[mix].get(n, {}) else "NaN"
                        for n in names]
                f.write(f"{t} " + " ".join(vals) + "\n")
    return mixes, names


def gnuplot_script(outdir, mixes, names, host, term, ext):
    title_host = f"{host['cpu_model']}, {host['nproc']} CPUs, Linux {host['kernel']}"
    cols = len(names)
    s = [f"set terminal {term}", f"set output '{outdir}/ns_per_op.{ext}'",
         f'set title "Cost of one map operation, 1 thread\\n{{/*0.8 {title_host}}}"',
         "set ylabel 'ns per operation (log scale)'", "set xlabel 'workload (op mix)'",
         "set logscale y", "set style data histograms", "set style histogram clustered gap 1",
         "set style fill solid 0.85 border -1", "set key outside right top vertical",
         "set grid ytics", "set xtics rotate by -15 noenhanced", "set yrange [1:*]"]
    plots = [f"'{outdir}/ns_per_op.dat' using {i + 2}:xtic(1) title '{n}'"
             for i, n in enumerate(names)]
    s.append("plot " + ", ".join(plots))
    s += ["unset logscale y", "unset style", "reset",
          f"set terminal {term}", f"set output '{outdir}/mops_vs_threads.{ext}'",
          f'set multiplot layout 1,{len(mixes)} title "Throughput against threads\\n{{/*0.8 {title_host}}}"']
    for i, mix in enumerate(mixes):
        s += [f"set title '{mix}' noenhanced", "set xlabel 'threads'",
              "set ylabel 'Mops/s, all threads'", "set grid", "set key below",
              "set xtics 1", "set yrange [0:*]",
              "plot " + ", ".join(
                  f"'{outdir}/mops_{i}.dat' using 1:{j + 2} with linespoints lw 2 pt 7 title '{n}'"
                  for j, n in enumerate(names))]
    s.append("unset multiplot")
    return "\n".join(s) + "\n"


def plot(outdir, mixes, names, host):
    if not shutil.which("gnuplot"):
        return "gnuplot is not installed: the data files (*.dat) are here, no plots."
    width = 420 * max(1, len(mixes))
    for term, ext in ((f"pngcairo size {max(900, width)},520 font 'sans,10'", "png"),
                      (f"svg size {max(900, width)},520 dynamic font 'sans,10'", "svg")):
        script = gnuplot_script(outdir, mixes, names, host, term, ext)
        with open(os.path.join(outdir, f"plots-{ext}.gp"), "w") as f:
            f.write(script)
        res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if res.returncode != 0:
            return f"gnuplot failed: {res.stderr.strip()}"
    return None


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    outdir = sys.argv[1]
    host, rows = load(os.path.join(outdir, "results.jsonl"))
    if not rows:
        print(f"report.py: no results in {outdir}/results.jsonl", file=sys.stderr)
        return 2
    groups = group(rows)
    mixes, names = write_data(outdir, groups)
    problem = plot(outdir, mixes, names, host)
    r0 = rows[0]
    md = [f"# maplab compare: kernel maps and userspace designs",
          "",
          f"Host: {host['cpu_model']}, {host['nproc']} CPUs online ({host['possible_cpus']} possible), "
          f"Linux {host['kernel']}, {host['allocator']}, liburcu {host['rcu']}; {host['date']}.",
          f"Map: {r0['entries']} entries, {r0['key_size']}-byte keys, {r0['value_size']}-byte values, "
          f"{r0['prefill']} % prefilled, {r0['dist']} keys. Medians of {r0['runs']} runs per point.",
          "",
          "- **kernel BPF**: the map calls inside BPF programs run by BPF_PROG_TEST_RUN, with a "
          "baseline program (the same loop without the map call) subtracted "
          "(docs/kernel-compare.md).",
          "- **kernel syscall**: one bpf(2) call per operation, what a userspace consumer pays.",
          "- designs: maplab's userspace designs on the same key streams; "
          "(×) is the design's ns/op over the kernel's in BPF.",
          ""]
    for mix, by_series in groups.items():
        md += [f"## {mix}", "", md_table(mix, by_series), ""]
    md += ["## Plots", ""]
    if problem:
        md.append(problem)
    else:
        md += ["![ns per op](ns_per_op.png)", "", "![Mops/s against threads](mops_vs_threads.png)",
               "", "(SVG versions beside them.)"]
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"report: {outdir}/report.md" + ("" if problem else
          f", plots: {outdir}/ns_per_op.png, {outdir}/mops_vs_threads.png"))
    if problem:
        print(problem, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
