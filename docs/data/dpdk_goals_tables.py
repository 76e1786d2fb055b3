#!/usr/bin/env python3
"""Markdown tables from docs/data/dpdk_goals.sh's records (docs/hash.md,
"Against rte_hash", and docs/lpm_trie.md, "Against rte_fib").

usage: docs/data/dpdk_goals_tables.py [RECORDS.jsonl]
Each cell: the median ns/op over the repeats (min-max below it in the
records); ratios are of medians.
"""
import json
import sys


def load(path):
    runs, cur = [], None
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == "host":
            host = r["host"]
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
    return host, runs


def size(n):
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"


def ns(r):
    if r is None:
        return "-"
    v, lo, hi = r["ns_per_op"], r["ns_per_op_min"], r["ns_per_op_max"]
    f = (lambda x: f"{x:.1f}") if v < 100 else (lambda x: f"{x:.0f}")
    return f"{f(v)} ({f(lo)}-{f(hi)})"


def ratio(a, b):
    return f"{a['ns_per_op'] / b['ns_per_op']:.2f}x" if a and b else "-"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("--:" for _ in head) + "|"]
    out += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(out)


def main():
    host, runs = load(sys.argv[1] if len(sys.argv) > 1
                      else "docs/data/dpdk_goals/records.jsonl")
    print(f"host: {host['cpu_model']}, {host['nproc']} cpus, kernel "
          f"{host['kernel']}, {host.get('hypervisor', '')}, {host['date']}\n")
    hl, hu, ll, lu = [], [], [], []
    for run in runs:
        mix, pf, n, b, t = run["key"]
        s = run["sides"]
        k = s.get("kernel")
        if pf is None and mix == "lookup=100":
            own, dp, ld = s.get("hash/seqlock_buckets"), s.get("hash/dpdk"), s.get("loads")
            hl.append([size(n), b, ns(k), ns(own), ns(dp), ns(s.get("noop")),
                       ns(ld), ratio(own, ld), ratio(own, dp)])
        elif pf is None:
            own, dp = s.get("hash/seqlock_buckets"), s.get("hash/dpdk")
            hu.append([mix, size(n), t, ns(k), ns(own), ns(dp),
                       f"{own['mops']:.1f}", f"{dp['mops']:.1f}", ratio(own, dp)])
        elif mix == "lookup=100":
            own, dp, ld = s.get("lpm_trie/multibit"), s.get("lpm_trie/dpdk"), s.get("loads")
            ll.append([pf, size(n), b, ns(k), ns(own), ns(dp), ns(ld),
                       ratio(own, k), ratio(own, dp),
                       f"{own['bytes_per_entry']:.0f} / {dp['bytes_per_entry']:.0f}"])
        else:
            li, own, dp = s.get("lpm_trie/linux"), s.get("lpm_trie/multibit"), s.get("lpm_trie/dpdk")
            lu.append([pf, size(n), ns(k), ns(li), ns(own), ns(dp),
                       ratio(own, li), ratio(own, dp)])
    print(table(["entries", "batch", "kernel BPF (single)", "hash/seqlock_buckets",
                 "hash/dpdk", "harness alone", "random loads", "seqlock / loads",
                 "seqlock / dpdk"], hl), "\n")
    print(table(["mix", "entries", "threads", "kernel BPF", "hash/seqlock_buckets",
                 "hash/dpdk", "seqlock Mops/s", "dpdk Mops/s", "seqlock / dpdk"], hu), "\n")
    print(table(["prefixes", "entries", "batch", "kernel BPF (single)",
                 "lpm_trie/multibit", "lpm_trie/dpdk", "random loads",
                 "multibit / kernel", "multibit / dpdk", "B/prefix multibit / dpdk"], ll), "\n")
    print(table(["prefixes", "entries", "kernel BPF", "lpm_trie/linux",
                 "lpm_trie/multibit", "lpm_trie/dpdk", "multibit / linux",
                 "multibit / dpdk"], lu))


if __name__ == "__main__":
    main()
