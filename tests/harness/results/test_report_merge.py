#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""harness/results/report.py merges results.jsonl files of several hosts.

usage: test_report_merge.py SOURCE_ROOT

Writes hand-made records for two hosts (a 2-CPU VM and a 16-CPU machine)
and a second run of the first host, runs report.py on them, and checks
that each host is labelled, that the figures keep their spreads and
ratios, and that the flags are there.  Then the plots (where this python
has matplotlib): a PNG 1200 px wide and an SVG for each, no gnuplot
leftovers, panels of at most 8 series for a workload of 24 sides; without
matplotlib (hidden from report.py), one line and report.md still written;
exit 2 on no records and on a file that is not jsonl.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile


def host(name, nproc, date):
    return {"record": "host", "host": {
        "kernel": "6.18.0", "cpu_model": "Test CPU", "hostname": name, "nproc": nproc,
        "possible_cpus": nproc, "cpus_allowed": nproc, "virtualised": nproc == 2,
        "hypervisor": "kvm" if nproc == 2 else "", "mitigations": ["spectre_v2"],
        "vulnerabilities": {"spectre_v2": "Mitigation: Retpolines"},
        "allocator": "jemalloc", "rcu": "memb", "maplab": "0.1.0", "date": date}}


def result(side, mapname, threads, ns, mops, flags=(), ratio=None, speedup=None, legacy=False):
    """ns and mops: (median, min, max); legacy: a record from before the
    spreads (no _min and _max, one run)."""
    r = {"record": "result", "side": side, "map": mapname, "mix": "lookup=100",
         "dist": "uniform", "threads": threads, "entries": 65536, "key_size": 4,
         "value_size": 8, "prefill": 90, "map_flags": 0, "runs": 1 if legacy else 3,
         "ns_per_op": ns[0], "mops": mops[0], "flags": list(flags),
         "probe_ns_runs": [20.0, 21.0, 40.0]}
    if not legacy:
        r.update(ns_per_op_min=ns[1], ns_per_op_max=ns[2], mops_min=mops[1], mops_max=mops[2])
    if ratio:
        r.update(kernel_ratio=ratio[0], kernel_ratio_min=ratio[1], kernel_ratio_max=ratio[2])
    if speedup:
        r.update(speedup=speedup[0], speedup_min=speedup[1], speedup_max=speedup[2],
                 speedup_over_threads=1)
    return r


def write(path, records):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


failures = []


def check(name, ok):
    if not ok:
        failures.append(name)


def png_size(path):
    """(width, height) from a PNG's IHDR."""
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else (0, 0)


def report_py(root):
    return os.path.join(root, "harness", "results", "report.py")


def check_plots(root, tmp, small, stdout):
    sys.path.insert(0, os.path.join(root, "harness", "results"))
    import plotting
    import report
    names = ("ns_per_op", "ratio", "mops_vs_threads")
    check("no gnuplot leftovers (.dat, .gp)",
          not [f for f in os.listdir(small) if f.endswith((".dat", ".gp"))])
    if plotting.have_matplotlib():
        for n in names:
            png, svg = (os.path.join(small, f"{n}.{e}") for e in ("png", "svg"))
            width = png_size(png)[0] if os.path.exists(png) else 0
            check(f"{n}.png about 1200 px wide (got {width})", 1150 <= width <= 1250)
            check(f"{n}.svg written, its axes named as text",
                  os.path.exists(svg) and "threads" in open(svg).read()
                  if n == "mops_vs_threads" else os.path.exists(svg))
            check(f"{n}.png's path in the line printed", f"{small}/{n}.png" in stdout)
        # 24 sides of one workload: panels of at most 8, the kernel's BPF
        # side in each; every side somewhere; a style of its own per side.
        rows = [dict(result("kernel", "hash", t, (50.0, 40.0, 60.0), (20.0, 18.0, 22.0)),
                     label="kernel BPF", _host="vm") for t in (1, 2)]
        rows += [dict(result("user", f"hash/d{i:02}", t, (50.0, 40.0, 60.0), (20.0, 18.0, 22.0)),
                      label=f"hash/d{i:02}", _host="vm") for i in range(23) for t in (1, 2)]
        plan = report.compare_panels(report.group(rows))
        check(f"24 series: 4 panels (got {len(plan)})", len(plan) == 4)
        check("at most 8 series a panel", all(len(p[2]) <= 8 for p in plan))
        check("the kernel in every panel", all("kernel BPF" in p[2] for p in plan))
        check("every series drawn", {n for p in plan for n in p[2]} ==
              {"kernel BPF"} | {f"hash/d{i:02}" for i in range(23)})
        styles = plotting.Styles()
        styles.place(p[2] for p in plan)
        for p in plan:
            st = [styles.get(n) for n in p[2]]
            check(f"one colour and marker per series in a panel ({p[2][1]}...)",
                  len({s["color"] for s in st}) == len(st) and
                  len({s["marker"] for s in st}) == len(st))
        pairs = {(s["color"], s["marker"]) for s in map(styles.get, styles.names())}
        check("a colour and marker pair per series", len(pairs) == 24)
        check("the kernel dashed and open", styles.get("kernel BPF")["linestyle"] != "-" and
              styles.get("kernel BPF")["fillstyle"] == "none")
        check("a thread axis without offsets", thread_axis_exact(plotting))
    # Without matplotlib: one line, report.md written, exit 0.
    hide = os.path.join(tmp, "nompl", "matplotlib")
    os.makedirs(hide)
    with open(os.path.join(hide, "__init__.py"), "w") as f:
        f.write("raise ImportError('hidden by the test')\n")
    os.remove(os.path.join(small, "report.md"))
    run = subprocess.run([sys.executable, report_py(root), small], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.path.dirname(hide)))
    check(f"without matplotlib: exit 0 (got {run.returncode})", run.returncode == 0)
    check(f"without matplotlib: says so in one line (got {run.stderr!r})",
          run.stderr == "report.py: matplotlib is not installed (apt-get install "
          "python3-matplotlib): no plots; report.md written\n")
    check("without matplotlib: report.md written", os.path.exists(os.path.join(small, "report.md")))
    # Exit 2: no records; not jsonl.
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    open(os.path.join(empty, "results.jsonl"), "w").close()
    run = subprocess.run([sys.executable, report_py(root), empty], capture_output=True, text=True)
    check(f"no records: exit 2 (got {run.returncode})", run.returncode == 2)
    with open(os.path.join(empty, "results.jsonl"), "w") as f:
        f.write("threads,mops\n1,2.0\n")
    run = subprocess.run([sys.executable, report_py(root), empty], capture_output=True, text=True)
    check(f"not jsonl: exit 2 (got {run.returncode})", run.returncode == 2 and
          "not JSON" in run.stderr)


def thread_axis_exact(plotting):
    fig, axes = plotting.panels(1)
    plotting.thread_axis(axes[0], [1, 2, 4, 8])
    ticks = list(axes[0].get_xticks())
    plotting.plt.close(fig)
    return ticks == [1, 2, 4, 8] and axes[0].get_xlabel() == "threads"


def main():
    root = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="maplab-report-")
    try:
        small = os.path.join(tmp, "small")
        write(os.path.join(small, "results.jsonl"), [
            host("vm", 2, "2026-01-01T00:00:00Z"),
            result("kernel", "hash", 1, (80.0, 60.0, 120.0), (12.5, 8.3, 16.7)),
            result("kernel", "hash", 2, (40.0, 35.0, 50.0), (50.0, 40.0, 57.1),
                   flags=["superlinear"], speedup=(3.5, 3.1, 4.4)),
            result("user", "hash/linux", 1, (160.0, 100.0, 400.0), (6.25, 2.5, 10.0),
                   flags=["wide_spread"], ratio=(2.0, 1.5, 4.0)),
            result("user", "hash/linux", 2, (90.0, 80.0, 95.0), (22.2, 21.0, 25.0),
                   ratio=(2.25, 2.0, 2.4), speedup=(1.9, 1.5, 2.1)),
        ])
        big = os.path.join(tmp, "big.jsonl")
        write(big, [
            host("big", 16, "2026-01-02T00:00:00Z"),
            result("kernel", "hash", 1, (30.0, 30.0, 30.0), (33.3, 33.3, 33.3), legacy=True),
            result("user", "hash/linux", 1, (45.0, 44.0, 47.0), (22.2, 21.3, 22.7),
                   ratio=(1.5, 1.45, 1.6)),
            result("user", "hash/linux", 8, (60.0, 58.0, 63.0), (133.3, 127.0, 137.9),
                   ratio=(1.4, 1.3, 1.5), speedup=(6.0, 5.7, 6.3)),
        ])
        again = os.path.join(tmp, "again", "results.jsonl")
        failing = result("user", "hash/linux", 2, (150.0, 140.0, 170.0), (13.4, 11.8, 14.2),
                         flags=["writes_failed"])
        failing.update(ok={"lookup": 0, "update": 0, "insert": 45, "delete": 45},
                       fail={"lookup": 0, "update": 0, "insert": 55, "delete": 55})
        write(again, [
            host("vm", 2, "2026-01-03T00:00:00Z"),
            result("user", "hash/linux", 1, (150.0, 140.0, 170.0), (6.7, 5.9, 7.1)),
            failing,
        ])

        run = subprocess.run([sys.executable, os.path.join(root, "harness", "results", "report.py"),
                              small, big, os.path.dirname(again)],
                             capture_output=True, text=True)
        check(f"report.py exits 0 (got {run.returncode}: {run.stderr.strip()})",
              run.returncode == 0)
        md = open(os.path.join(small, "report.md")).read()

        # Each host labelled, the one that ran twice by the date of each run.
        for label in ("vm, 2026-01-01T00:00:00Z", "vm, 2026-01-03T00:00:00Z", "big"):
            check(f"host row for {label}", f"| {label} | Test CPU |" in md)
            check(f"section for {label}", f"### {label}\n" in md)
        check("CPUs of the big host", "| 16 / 16 / 16 |" in md)
        check("virtualisation", "yes (kvm)" in md and "| no |" in md)
        check("mitigations", "| spectre_v2 |" in md)
        check("probe of the host", "21.0 (20.0–40.0)" in md)

        # Figures keep their spread, ratios theirs, flags their mark.
        check("ns/op spread", "80.0 (60.0–120.0)" in md)
        check("ratio spread", "160.0 (100.0–400.0); 2.00 (1.50–4.00)× ⚠" in md)
        check("Mops/s spread", "22.20 (21.00–25.00)" in md)
        check("legacy record: the median alone", "| 30.0 |" in md)
        check("big host's 8 threads", "| 8 | – | 60.0 (58.0–63.0); 1.40 (1.30–1.50)× |" in md)

        # The flagged results say what and where; the unflagged are not there.
        check("superlinear note",
              "- vm, 2026-01-01T00:00:00Z, lookup=100, kernel BPF, 2 threads: **superlinear**: "
              "3.50× (3.10–4.40) the Mops/s at 1 thread, where 2 CPUs can give at most 2.00×." in md)
        check("wide spread note",
              "hash/linux, 1 thread: **wide spread**: Mops/s from 2.50 to 10.00 over 3 repeats "
              "(4.0×)." in md)
        check("writes failed note",
              "- vm, 2026-01-03T00:00:00Z, lookup=100, hash/linux, 2 threads: **writes failed**: "
              "55 % of the insert, delete failed: the figure prices refusals more than the ops "
              "asked." in md)
        check("nothing flagged on the big host", "- big," not in md)

        check_plots(root, tmp, small, run.stdout)
    finally:
        shutil.rmtree(tmp)
    for f in failures:
        print(f"FAIL: {f}")
    print(f"test_report_merge: {'%d failed' % len(failures) if failures else 'all passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
