#!/usr/bin/env python3
"""Markdown tables from docs/data/dpdk_goals.sh's records (docs/hash.md,
"Against rte_hash", and docs/lpm_trie.md, "Against rte_fib"), then each
speed goal of those sections with its verdict.

usage: docs/data/dpdk_goals_tables.py [RECORDS.jsonl]
Each cell: the median ns/op over the repeats (min-max below it in the
records); ratios are of medians.  A goal is met when every row it speaks
of is within its limit; a goal with none of its rows in the records says
so (dpdk_goals.sh with ONLY=hash or ONLY=lpm runs half of them).
"""
import json
import signal
import sys


def load(path):
    runs, cur, hosts = [], None, []
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == "host":
            hosts.append(r["host"])
            continue
        if r.get("record") != "result":
            continue
        key = (r["mix"], r.get("prefixes"), r["entries"], r.get("batch", 1),
               r["threads"])
        if cur is None or cur["key"] != key:
            cur = {"key": key, "sides": {}}
            runs.append(cur)
        name = r["map"] if r["side"] in ("user", "harness") else r["side"]
        cur["sides"][name] = r
    return hosts, runs


def size(n):
    if n >= 1 << 20:
        return f"{n >> 20}M"
    return f"{n >> 10}K" if n % 1024 == 0 else f"{n:,}"


def ns(r):
    if r is None:
        return "-"
    v, lo, hi = r["ns_per_op"], r["ns_per_op_min"], r["ns_per_op_max"]
    f = (lambda x: f"{x:.1f}") if v < 100 else (lambda x: f"{x:.0f}")
    return f"{f(v)} ({f(lo)}-{f(hi)})"


def figure(r, name, spec):
    """r's figure name, formatted, or - where the side did not run."""
    return format(r[name], spec) if r else "-"


def ratio(a, b):
    return f"{a['ns_per_op'] / b['ns_per_op']:.2f}x" if a and b else "-"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("--:" for _ in head) + "|"]
    out += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(out)


def is_lookup(run, lpm, batched):
    mix, pf, _, b, _ = run["key"]
    return (pf is not None) == lpm and mix == "lookup=100" and (b > 1) == batched


def is_mix(run, lpm, mix, threads):
    return ((run["key"][1] is not None) == lpm and run["key"][0] == mix
            and run["key"][4] == threads)


def large(run):
    return run["key"][2] >= 64 << 10


def of(a_side, b_side, name="ns_per_op"):
    """The figures a goal compares: name of a_side and of b_side in a run."""
    def value(run, side):
        r = run["sides"].get(side)
        return r and r[name]
    return lambda run: (value(run, a_side), value(run, b_side))


OWN_HASH, DPDK_HASH = "hash/seqlock_buckets", "hash/dpdk"
OWN_LPM, DPDK_LPM = "lpm_trie/multibit", "lpm_trie/dpdk"
PLAIN = "plain"  # the plain DPDK table's side (maps/plain/plain.h)
UPDATES = "insert=50,delete=50"


def sized(*sizes):
    return lambda run: run["key"][2] in sizes or run["key"][1] == "internet"


# (the goal, the rows it speaks of, the two figures it compares, the limit
# on their ratio, and whether the ratio must be at most or at least it):
# every ratio against DPDK is against its plain table, used as a DPDK
# program uses it, in the same run (docs/bench.md, "Plain DPDK tables");
# docs/hash.md and docs/lpm_trie.md, "The goals"
GOALS = [
    ("hash: single lookup at most 0.6x plain rte_hash's, 1K, 64K and 1M",
     lambda r: is_lookup(r, False, False), of(OWN_HASH, PLAIN), 0.6, "<="),
    ("hash: batched lookup at most 0.5x plain rte_hash's bulk lookup",
     lambda r: is_lookup(r, False, True), of(OWN_HASH, PLAIN), 0.5, "<="),
    ("hash: batched lookup at 1M within 1.5x of random loads",
     lambda r: is_lookup(r, False, True) and sized(1 << 20)(r),
     of(OWN_HASH, "loads"), 1.5, "<="),
    ("adapter: hash/dpdk lookups at most 1.2x plain rte_hash's",
     lambda r: is_lookup(r, False, False) or is_lookup(r, False, True),
     of(DPDK_HASH, PLAIN), 1.2, "<="),
    ("adapter: lpm_trie/dpdk lookups at most 1.5x plain rte_fib's",
     lambda r: is_lookup(r, True, False) or is_lookup(r, True, True),
     of(DPDK_LPM, PLAIN), 1.5, "<="),
    ("lpm: single lookups at most 1.0x plain rte_fib's, 64K, 1M, internet",
     lambda r: is_lookup(r, True, False) and sized(64 << 10, 1 << 20)(r),
     of(OWN_LPM, PLAIN), 1.0, "<="),
    ("lpm: batched lookups at most 1.0x plain rte_fib's, 64K, 1M, internet",
     lambda r: is_lookup(r, True, True) and sized(64 << 10, 1 << 20)(r),
     of(OWN_LPM, PLAIN), 1.0, "<="),
    ("lpm: updates at most 0.5x lpm_trie/linux's",
     lambda r: is_mix(r, True, UPDATES, 1), of(OWN_LPM, "lpm_trie/linux"),
     0.5, "<="),
]


def row_name(run):
    pf, n, b = run["key"][1], run["key"][2], run["key"][3]
    name = f"{pf} {size(n)}" if pf else size(n)
    return f"{name} x{b}" if b > 1 else name


def verdict(goal, runs):
    """(verdict, the rows' ratios in words) for one goal."""
    name, rows, figures, limit, sense = goal
    ratios = []
    for run in filter(rows, runs):
        a, b = figures(run)
        if a is None or b is None:
            continue
        ratios.append((row_name(run), a / b))
    if not ratios:
        return "no rows", "no row of these records has both of its sides"
    within = [r <= limit if sense == "<=" else r >= limit for _, r in ratios]
    words = ", ".join(f"{row} {r:.2f}x" + ("" if ok else " (past the limit)")
                      for (row, r), ok in zip(ratios, within))
    return ("met" if all(within) else "NOT MET"), words


def print_goals(runs):
    print("goals: each row's ratio of medians against the goal's limit")
    for goal in GOALS:
        result, words = verdict(goal, runs)
        print(f"  {result:8} {goal[0]} (ratio {goal[4]} {goal[3]:g}x): {words}")


def records(doc, default, script, load):
    """What both table printers do first: --help, the records at argv[1]
    (or default) read by load, or exit 2 naming the file; then a host line
    for each machine in them, with its first and last record's time (a
    host record comes before every compare).  load's result."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    if len(sys.argv) > 2 or sys.argv[1:] in (["-h"], ["--help"]):
        print(doc.strip(), file=sys.stderr if len(sys.argv) > 2 else sys.stdout)
        sys.exit(2 if len(sys.argv) > 2 else 0)
    path = sys.argv[1] if len(sys.argv) > 1 else default
    try:
        hosts, runs = load(path)
    except (OSError, ValueError, KeyError) as e:
        print(f"{script}_tables.py: {path}: not {script}.sh's records "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        sys.exit(2)
    machines = {}
    for h in hosts:
        m = (f"{h['cpu_model']}, {h['nproc']} cpus, kernel {h['kernel']}, "
             f"{h.get('hypervisor', '')}")
        machines.setdefault(m, []).append(h["date"])
    for m, dates in machines.items():
        print(f"host: {m}, {min(dates)} to {max(dates)}")
    print()
    return runs


def main():
    runs = records(__doc__, "docs/data/dpdk_goals/records.jsonl", "dpdk_goals", load)
    hl, hu, ll, lu = [], [], [], []
    for run in runs:
        mix, pf, n, b, t = run["key"]
        s = run["sides"]
        k, pl = s.get("kernel"), s.get(PLAIN)
        if pf is None and mix == "lookup=100":
            own, dp, ld = s.get(OWN_HASH), s.get(DPDK_HASH), s.get("loads")
            hl.append([size(n), b, ns(k), ns(own), ns(pl), ns(dp),
                       ns(s.get("noop")), ns(ld), ratio(own, ld),
                       ratio(own, pl), ratio(dp, pl)])
        elif pf is None:
            own, dp = s.get(OWN_HASH), s.get(DPDK_HASH)
            hu.append([mix, size(n), t, ns(k), ns(own), ns(dp),
                       figure(own, "mops", ".1f"), figure(dp, "mops", ".1f"),
                       ratio(own, dp)])
        elif mix == "lookup=100":
            own, dp, ld = s.get(OWN_LPM), s.get(DPDK_LPM), s.get("loads")
            ll.append([pf, size(n), b, ns(k), ns(own), ns(pl), ns(dp), ns(ld),
                       ratio(own, k), ratio(own, pl), ratio(dp, pl),
                       figure(own, "bytes_per_entry", ".0f") + " / "
                       + figure(pl, "bytes_per_entry", ".0f") + " / "
                       + figure(dp, "bytes_per_entry", ".0f")])
        else:
            li, own, dp = s.get("lpm_trie/linux"), s.get(OWN_LPM), s.get(DPDK_LPM)
            lu.append([pf, size(n), ns(k), ns(li), ns(own), ns(dp),
                       ratio(own, li), ratio(own, dp)])
    print(table(["entries", "batch", "kernel BPF (single)", "hash/seqlock_buckets",
                 "rte_hash (plain)", "hash/dpdk", "harness alone", "random loads",
                 "seqlock / loads", "seqlock / plain", "adapter / plain"], hl) + "\n")
    print(table(["mix", "entries", "threads", "kernel BPF", "hash/seqlock_buckets",
                 "hash/dpdk", "seqlock Mops/s", "dpdk Mops/s", "seqlock / dpdk"], hu) + "\n")
    print(table(["prefixes", "entries", "batch", "kernel BPF (single)",
                 "lpm_trie/multibit", "rte_fib (plain)", "lpm_trie/dpdk",
                 "random loads", "multibit / kernel", "multibit / plain",
                 "adapter / plain", "B/prefix multibit / plain / adapter"], ll) + "\n")
    print(table(["prefixes", "entries", "kernel BPF", "lpm_trie/linux",
                 "lpm_trie/multibit", "lpm_trie/dpdk", "multibit / linux",
                 "multibit / dpdk"], lu) + "\n")
    print_goals(runs)


if __name__ == "__main__":
    main()
