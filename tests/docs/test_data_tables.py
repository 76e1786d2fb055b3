#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/data's table printers on records made up here, whose tables are
known.  dpdk_goals_tables.py: a goal whose rows are all within its limit
is met, one row past it makes the goal not met and names that row, a goal
with no rows in the records says so; the ratios against DPDK are against
its plain tables' rows.  lpm_sweep_tables.py: a compare of
two thread counts gives a row each, with every side's figure in it, and
the tries-against-hashes compare stands apart from the tries' rows of the
same workload.  Records that are not records exit 2, for both.

usage: test_data_tables.py SOURCE_ROOT"""
import json
import os
import subprocess
import sys
import tempfile

DATA = os.path.join(sys.argv[1], "docs", "data")
GOALS, SWEEP = "dpdk_goals_tables.py", "lpm_sweep_tables.py"
failed = []  # (what was expected, what the script said)


def check(name, ok, said):
    if not ok:
        failed.append((name, said))


def result(side, m, mix, entries, ns, prefixes=None, batch=1, threads=1,
           mops=None):
    r = {"record": "result", "side": side, "map": m, "mix": mix,
         "entries": entries, "threads": threads, "ns_per_op": ns,
         "ns_per_op_min": ns, "ns_per_op_max": ns,
         "mops": mops if mops is not None else threads * 1000 / ns,
         "bytes_per_entry": 100.0}
    if prefixes:
        r["prefixes"] = prefixes
    if batch > 1:
        r["batch"] = batch
    return r


HOST = {"record": "host", "host": {"kernel": "k", "cpu_model": "cpu",
                                   "nproc": 2, "date": "d"}}


def hash_records(loads_1m, adapter=20.0):
    """Every hash goal met (hash/seqlock_buckets 10 ns, plain rte_hash 20,
    hash/dpdk `adapter`), but the batch against random loads at 1M is
    own / loads_1m."""
    out = []
    for n in (1 << 10, 64 << 10, 1 << 20):
        for b in (1, 32):
            loads = loads_1m if (n, b) == (1 << 20, 32) else 10.0
            out += [result("kernel", "hash", "lookup=100", n, 50.0, batch=b),
                    result("user", "hash/seqlock_buckets", "lookup=100", n, 10.0, batch=b),
                    result("user", "hash/dpdk", "lookup=100", n, adapter, batch=b),
                    result("plain", "plain/rte_hash", "lookup=100", n, 20.0, batch=b),
                    result("harness", "noop", "lookup=100", n, 2.0, batch=b),
                    result("loads", "hash/seqlock_buckets", "lookup=100", n, loads, batch=b)]
    for n in (64 << 10, 1 << 20):
        out += [result("kernel", "hash", "insert=50,delete=50", n, 40.0),
                result("user", "hash/seqlock_buckets", "insert=50,delete=50", n, 20.0),
                result("user", "hash/dpdk", "insert=50,delete=50", n, 80.0)]
    return out


INTERNET = 901899


def lpm_records(internet_batch):
    """Every LPM goal met (lpm_trie/multibit 100 ns, plain rte_fib 120,
    lpm_trie/dpdk 150), but multibit's batch on the whole Internet table is
    internet_batch."""
    out = []
    rows = [(pf, n) for pf in ("bgp", "random32")
            for n in (1 << 10, 64 << 10, 1 << 20)] + [("internet", INTERNET)]
    for pf, n in rows:
        for b in (1, 32):
            own = internet_batch if (pf, b) == ("internet", 32) else 100.0
            out += [result("kernel", "lpm_trie", "lookup=100", n, 2000.0, pf, b),
                    result("user", "lpm_trie/multibit", "lookup=100", n, own, pf, b),
                    result("user", "lpm_trie/dpdk", "lookup=100", n, 150.0, pf, b),
                    result("plain", "plain/rte_fib", "lookup=100", n, 120.0, pf, b),
                    result("loads", "lpm_trie/multibit", "lookup=100", n, 10.0, pf, b)]
    for pf in ("bgp", "random32"):
        for n in (64 << 10, 1 << 20):
            mix = "insert=50,delete=50"
            out += [result("kernel", "lpm_trie", mix, n, 500.0, pf),
                    result("user", "lpm_trie/linux", mix, n, 300.0, pf),
                    result("user", "lpm_trie/multibit", mix, n, 120.0, pf),
                    result("user", "lpm_trie/dpdk", mix, n, 400.0, pf)]
    return out


def run(records, raw=None, script=GOALS):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write(raw if raw is not None else
                "".join(json.dumps(r) + "\n" for r in [HOST] + records))
        path = f.name
    try:
        p = subprocess.run([sys.executable, os.path.join(DATA, script), path],
                           capture_output=True,
                           text=True, timeout=60)
    finally:
        os.unlink(path)
    return p


def goal_line(out, words):
    lines = [l for l in out.splitlines() if words in l and l.startswith("  ")]
    return lines[0] if len(lines) == 1 else f"{len(lines)} lines name {words!r}"


# everything within its limits
p = run(hash_records(10.0) + lpm_records(100.0))
check("all met: exit 0", p.returncode == 0, p.stderr)
verdicts = [l.split()[0] for l in p.stdout.splitlines()
            if l.startswith("  ") and ": " in l]
check("all met: eight goals, each met", verdicts == ["met"] * 8, p.stdout)
check("all met: the plain tables' columns in the tables",
      "| rte_fib (plain) |" in p.stdout and "| rte_hash (plain) |" in p.stdout,
      p.stdout)

# one row past a limit in each family
p = run(hash_records(5.0) + lpm_records(130.0))
line = goal_line(p.stdout, "at 1M within 1.5x of random loads")
check("hash batch at 1M against loads 2.00x: not met, the row named",
      line.startswith("  NOT MET") and line.endswith("1M x32 2.00x (past the limit)"),
      line)
line = goal_line(p.stdout, "lpm: batched lookups at most 1.0x plain rte_fib's")
check("lpm batch on the Internet table 1.08x plain rte_fib's: not met",
      line.startswith("  NOT MET") and "internet 901,899 x32 1.08x (past the limit)" in line
      and "bgp 64K x32 0.83x," in line and "1K" not in line, line)
line = goal_line(p.stdout, "lpm: updates at most 0.5x")
check("a goal untouched by those rows stays met", line.startswith("  met"), line)

# an adapter past its limit over the plain table
p = run(hash_records(10.0, adapter=30.0))
line = goal_line(p.stdout, "hash/dpdk lookups at most 1.2x")
check("hash/dpdk at 1.50x plain rte_hash's: not met",
      line.startswith("  NOT MET") and "64K 1.50x (past the limit)" in line, line)

# the hash rows alone (ONLY=hash): the LPM goals have none
p = run(hash_records(10.0))
lpm = [l for l in p.stdout.splitlines()
       if l.startswith("  ") and (" lpm: " in l or "lpm_trie/dpdk" in l)]
check("hash rows alone: four LPM goals without rows",
      len(lpm) == 4 and all(l.startswith("  no rows") for l in lpm), "\n".join(lpm))

# the LPM sweep: two compares, each starting with its host record; the
# first of two thread counts (records in side order, then thread count),
# the second the tries against the hashes on the same workload
UPD = "update=100"
sweep = [HOST]
for side, m, base in (("kernel", "lpm_trie", 400.0), ("user", "lpm_trie/linux", 300.0),
                      ("user", "lpm_trie/prefix_hash", 200.0),
                      ("user", "lpm_trie/multibit", 100.0)):
    sweep += [result(side, m, UPD, 1 << 16, base, "random32", threads=t)
              for t in (1, 2)]
    sweep[-1]["ns_per_op"] = base * 3  # 2 threads: three times 1 thread's
sweep.append(HOST)
for side, m in (("kernel", "lpm_trie"), ("kernel", "hash"), ("user", "lpm_trie/linux"),
                ("user", "lpm_trie/prefix_hash"), ("user", "lpm_trie/multibit"),
                ("user", "hash/linux"), ("user", "hash/cow")):
    sweep.append(result(side, m, UPD, 1 << 16,
                        50.0 if m.split("/")[0] == "hash" else 500.0, "random32"))
p = run(sweep, script=SWEEP)
rows = [l for l in p.stdout.splitlines() if l.startswith(f"| {UPD} ")]
check("sweep: exit 0", p.returncode == 0, p.stderr)
check("sweep: one row a thread count, every side's figure in it",
      rows == [f"| {UPD} | random32 | 64K | 1 | 400 (400-400) | 300 (300-300) | "
               "200 (200-200) | 100 (100-100) | 100 |",
               f"| {UPD} | random32 | 64K | 2 | 1200 (400-400) | 900 (300-300) | "
               "600 (200-200) | 300 (100-100) | 100 |"], "\n".join(rows))
tail = p.stdout.split("tries against hashes:")[-1].splitlines()
check("sweep: the tries against the hashes, the kernel's trie and hash apart",
      len(tail) >= 4 and tail[3] == "| 500 (500-500) | 50.0 (50.0-50.0) | 500 (500-500) | "
      "500 (500-500) | 500 (500-500) | 50.0 (50.0-50.0) | 50.0 (50.0-50.0) |",
      "\n".join(tail))

# not records
for script, what in ((GOALS, "dpdk_goals.sh"), (SWEEP, "lpm_sweep.sh")):
    p = run(None, raw="{not json\n", script=script)
    check(f"{script}: bad records exit 2 with the file named",
          p.returncode == 2 and f"not {what}'s records" in p.stderr, p.stderr)

for name, said in failed:
    print(f"FAIL: {name}\n    the script said: {said}")
print(f"{len(failed)} failed" if failed else "ok")
sys.exit(1 if failed else 0)
