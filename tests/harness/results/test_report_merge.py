#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""harness/results/report.py merges results.jsonl files of several hosts.

usage: test_report_merge.py SOURCE_ROOT

Writes hand-made records for two hosts (a 2-CPU VM and a 16-CPU machine)
and a second run of the first host, runs report.py on them, and checks
that each host is labelled, that the figures keep their spreads and
ratios, and that the flags and the data for the plots are there.
"""
import json
import os
import shutil
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

        # The plots' data: three columns (median, min, max) per host and side.
        dat = open(os.path.join(small, "ns_per_op.dat")).read().splitlines()
        row = dat[1].split()
        check(f"ns_per_op.dat: 1 + 5 series (host, side) x 3 columns, got {len(row)}",
              len(row) == 1 + 5 * 3)
        if shutil.which("gnuplot"):
            for png in ("ns_per_op.png", "ratio.png", "mops_vs_threads.png"):
                check(f"{png} drawn", os.path.getsize(os.path.join(small, png)) > 0)
    finally:
        shutil.rmtree(tmp)
    for f in failures:
        print(f"FAIL: {f}")
    print(f"test_report_merge: {'%d failed' % len(failures) if failures else 'all passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
