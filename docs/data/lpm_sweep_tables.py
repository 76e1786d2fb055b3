#!/usr/bin/env python3
"""Markdown tables from docs/data/lpm_sweep.sh's records (docs/lpm_trie.md,
"Figures"): one table for each mix and prefix set, a row for each size and
thread count, then the tries against the hashes.

usage: docs/data/lpm_sweep_tables.py [RECORDS.jsonl]   (default
docs/data/lpm_sweep.jsonl)
Each cell: the median ns/op per thread over the repeats, with min-max.
"""
import json

from dpdk_goals_tables import figure, ns, records, size, table

TRIES = ["lpm_trie/linux", "lpm_trie/prefix_hash", "lpm_trie/multibit"]
HASHES = ["hash/linux", "hash/cow"]


def side_name(r):
    """The kernel's sides by their map type (the tries-against-hashes
    compare has a kernel trie and a kernel hash), the designs by name."""
    return f"kernel {r['map']}" if r["side"] == "kernel" else r["map"]


def load(path):
    """Hosts, and the compares' rows in order: each its key and its sides.
    Every compare starts with a host record; one with --threads 1,2 gives
    a row for each thread count, its sides' records in side order."""
    hosts, rows = [], {}
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == "host":
            hosts.append(r["host"])
        if r.get("record") != "result" or r["side"] == "syscall":
            continue
        key = (r["mix"], r.get("prefixes"), r["entries"], r["threads"])
        row = rows.setdefault((len(hosts), key), {"key": key, "sides": {}})
        row["sides"][side_name(r)] = r
    return hosts, list(rows.values())


def tries_rows(runs):
    """(mix, prefixes) -> rows of the tries' compares, in order."""
    groups = {}
    for run in runs:
        s = run["sides"]
        if any(h in s for h in HASHES):
            continue
        mix, pf, n, t = run["key"]
        own = s.get("lpm_trie/multibit")
        groups.setdefault((mix, pf), []).append(
            [mix, pf, size(n), t, ns(s.get("kernel lpm_trie"))]
            + [ns(s.get(m)) for m in TRIES]
            + [figure(own, "bytes_per_entry", ".0f")])
    return groups


def main():
    runs = records(__doc__, "docs/data/lpm_sweep.jsonl", "lpm_sweep", load)
    head = ["mix", "prefixes", "entries", "threads", "kernel BPF"] + TRIES + \
           ["multibit B/prefix"]
    for rows in tries_rows(runs).values():
        print(table(head, rows) + "\n")
    for run in runs:
        s = run["sides"]
        if any(h in s for h in HASHES):
            mix, pf, n, t = run["key"]
            print(f"tries against hashes: {mix}, {pf}, {size(n)} entries, {t} thread(s)")
            names = ["kernel lpm_trie", "kernel hash"] + TRIES + HASHES
            print(table(names, [[ns(s.get(m)) for m in names]]) + "\n")


if __name__ == "__main__":
    main()
