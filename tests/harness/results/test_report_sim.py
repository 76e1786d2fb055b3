#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""harness/results/report.py on sim's records: the pieces that decide
what a plot hides (curves equal at every size drawn once, named together;
a point's repeats kept together; sim's hostless jsonl read), then, where
this python has matplotlib, the plots themselves: the merged legend entry,
the Pareto plot's spread said in its title, and every file's path printed.

usage: test_report_sim.py SOURCE_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "harness", "results"))
import report  # noqa: E402
import plotting  # noqa: E402

failures = []


def check(what, holds, detail=""):
    if not holds:
        failures.append(what + (f"\n    {detail}" if detail else ""))


# Equal at every size: grouped, in first-seen order.  One size apart (the
# last miss of c), or one size short (d), is another curve.
curves = {"a": {10: 0.5, 20: 0.3}, "b": {10: 0.5, 20: 0.3},
          "c": {10: 0.5, 20: 0.3001}, "d": {10: 0.5}, "e": {10: 0.5, 20: 0.3}}
groups = report.identical_curves(curves)
check("a, b and e drawn once; c and d apart", groups == [["a", "b", "e"], ["c"], ["d"]],
      groups)
check("no curve alike another: a group each",
      report.identical_curves({"x": {1: 0.1}, "y": {1: 0.2}}) == [["x"], ["y"]])
check("the legend names every member, and the threads",
      report.same_label(["lru/global", "lru/partitioned"], 1)
      == "lru/global = lru/partitioned at 1 thread",
      report.same_label(["lru/global", "lru/partitioned"], 1))
check("serial cpus equal at a cpu count, so said",
      report.same_label(["lru/linux_percpu (serial cpus)", "kernel:no_common_lru (serial cpus)"], 2)
      == "lru/linux_percpu (serial cpus) = kernel:no_common_lru (serial cpus) at 2 cpus")
check("a group of one: its name alone", report.same_label(["lru/clock"], 2) == "lru/clock")


def sim(policy, entries, misses, speed, repeat, repeats, threads=1, host="vm"):
    return {"record": "sim", "trace": "t.txt", "distinct_keys": 100, "policy": policy,
            "entries": entries, "threads": threads, "requests": 1000, "misses": misses,
            "miss_ratio": misses / 1000, "mreq_per_s": speed, "repeat": repeat,
            "repeats": repeats, "host_hostname": host, "host_cpu_model": "Test CPU",
            "host_kernel": "6.18.0", "host_nproc": 2, "host_date": "2026-01-01T00:00:00Z"}


# Serial cpus (sim --cpus 2) are a series of their own at 2 on the threads
# axis: they replace neither the threaded point nor the 1-cpu one.
one = dict(sim("lru/linux_percpu", 10, 500, 5, 0, 1), cpus=1, serial=True, _host="vm")
two = dict(sim("lru/linux_percpu", 10, 400, 5, 0, 1), cpus=2, serial=True, _host="vm")
threaded = dict(sim("lru/linux_percpu", 10, 450, 5, 0, 1), cpus=1, serial=False, _host="vm")
points = report.sim_traces([{"sims": [threaded, one, two]}])["t.txt"]
check("serial cpus: a series of their own, at their cpus",
      sorted((k[1], k[3]) for k in points) == [("lru/linux_percpu", 1),
                                               ("lru/linux_percpu (serial cpus)", 1),
                                               ("lru/linux_percpu (serial cpus)", 2)],
      sorted(points))
check("serial cpus: the record itself left alone", two["policy"] == "lru/linux_percpu"
      and two["threads"] == 1)

# A point's repeats stay together; a later run's point replaces all of an
# earlier run's repeats, not repeat by repeat.
first = [sim("lru/clock", 10, 500, s, r, 3) for r, s in enumerate((1, 2, 3))]
later = [sim("lru/clock", 10, 400, 9, 0, 1)]
runs = [{"sims": first}, {"sims": later}]
for r in first + later:
    r["_host"] = "vm"
traces = report.sim_traces(runs)
reps = traces["t.txt"][("vm", "lru/clock", 10, 1)]
check("the later run's one repeat replaces the earlier three", reps == later, reps)
pt = report.sim_point(first)
check("a point: median and range of speed over its repeats", pt["speed"] == (2, 1, 3),
      pt["speed"])
check("a point: its repeats counted", pt["runs"] == 3)

# The records: lru/global and lru/partitioned alike at both sizes, lru/clock
# not; three repeats each, speeds apart; no host record (sim's pandas jsonl).
recs = []
for r, (g, p, c) in enumerate(((5.0, 6.0, 7.0), (4.0, 6.5, 8.0), (5.5, 5.0, 7.5))):
    for entries, miss in ((10, 600), (20, 400)):
        recs += [sim("lru/global", entries, miss, g, r, 3),
                 sim("lru/partitioned", entries, miss, p, r, 3),
                 sim("lru/clock", entries, miss - 50, c, r, 3)]

with tempfile.TemporaryDirectory(prefix="maplab-report-sim-") as tmp:
    with open(os.path.join(tmp, "results.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in recs)
    loaded = report.load(os.path.join(tmp, "results.jsonl"))
    check("a hostless jsonl: one run, its host from the rows",
          len(loaded) == 1 and loaded[0]["host"].get("hostname") == "vm"
          and len(loaded[0]["sims"]) == len(recs), [len(r["sims"]) for r in loaded])
    # The lab's log (its host record) with another host's hostless rows
    # after it: two runs, each row with its own host.
    log = os.path.join(tmp, "mixed.jsonl")
    with open(log, "w") as f:
        f.write(json.dumps({"record": "host", "host": {
            "hostname": "vm", "cpu_model": "Test CPU", "kernel": "6.18.0", "nproc": 2,
            "date": "2026-01-01T00:00:00Z"}}) + "\n")
        f.writelines(json.dumps(r) + "\n" for r in recs[:3])
        f.writelines(json.dumps(sim("lru/clock", 10, 500, 1.0, 0, 1, host="other")) + "\n"
                     for _ in range(2))
    mixed = report.load(log)
    check("a log, then another host's rows: two runs",
          [(r["host"].get("hostname"), len(r["sims"])) for r in mixed] == [("vm", 3), ("other", 2)],
          [(r["host"].get("hostname"), len(r["sims"])) for r in mixed])
    if plotting.have_matplotlib():
        run = subprocess.run([sys.executable, os.path.join(root, "harness", "results",
                                                           "report.py"), tmp],
                             capture_output=True, text=True)
        check(f"report.py exits 0 (got {run.returncode}: {run.stderr.strip()})",
              run.returncode == 0)
        for name in ("mrc.png", "mrc.svg", "pareto-10.png", "pareto-10.svg",
                     "pareto-20.png", "pareto-20.svg"):
            path = os.path.join(tmp, name)
            check(f"{name} written", os.path.exists(path) and os.path.getsize(path) > 0)
            check(f"{name}'s path printed", path in run.stdout, run.stdout)
        read = lambda n: open(os.path.join(tmp, n)).read() if os.path.exists(  # noqa: E731
            os.path.join(tmp, n)) else ""
        mrc, pareto = read("mrc.svg"), read("pareto-10.svg")
        check("mrc: the alike curves named together",
              "lru/global = lru/partitioned at 1 thread" in mrc)
        check("mrc: lru/partitioned has no entry of its own", ">lru/partitioned<" not in mrc)
        check("mrc: lru/clock its own line", ">lru/clock<" in mrc)
        check("pareto: the spread said", "the median of 3 runs, bars from the least to the "
              "greatest" in pareto)
        check("pareto: the alike policies named",
              "the same miss ratio at every size: lru/global = lru/partitioned at 1 thread"
              in pareto)
        check("pareto: each point still its own (speeds differ)",
              ">lru/partitioned<" in pareto and ">lru/global<" in pareto)

print("".join(f"FAIL: {f}\n" for f in failures) +
      f"test_report_sim: {len(failures)} failed" if failures else "test_report_sim: all passed")
sys.exit(1 if failures else 0)
