#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layering rule of maplab's tree, checked from the #include lines.

usage: check_layers.py ROOT            check the tree at ROOT
       check_layers.py --self-test ROOT  plant faults in a copy; each must fail

Layers point only down:

    maps  <  harness  <  kernel-compare  <  cli

and inside them:

    maps/base  <  maps/tables  <  the families (hash, lru, lpm_trie)  <  maps/registry.c, maps/plain
    harness/common  <  harness/workload  <  trace, stress, bench, sim, profile  <  harness/results
    cli's top files  <  cli/measure, cli/trace, cli/sim  <  cli/explain, cli/reproduce

A file may include its own part and the parts below it, never one above
it, and never a sibling: no family includes another family (a family's
core, lru/core or lpm_trie/core, belongs to its family), and no harness
tool includes another (what two share goes below them).  libbpf (<bpf/...>)
is for kernel-compare alone.  Tests may include what they test and what
lies below it, and maps and harness in any test (key streams and clocks
build without the kernel side), but kernel-compare only in the tests of
kernel-compare and of the cli: only those link libbpf.  The helpers under
tests/ are free to all.

Every #include "..." names its file from the root of the tree
("harness/trace/hex.h", never "hex.h" or "bpf/kbench_shared.h"): a reader
sees at once which part a file leans on, and this check sees it too.  A
generated header (a libbpf skeleton, X.skel.h) is named from the root of
the build tree, where meson writes it beside its sources' folder.

Prints one line per fault (FILE:LINE: what, and why it is a fault) and
exits 1 if there is any; 0 and a one-line summary otherwise.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')

# (prefix, rank, group): a path belongs to the longest prefix that matches.
# Same rank, different group: siblings, which may not include each other.
PARTS = [
    ("maps/base/", 0, "base"),
    ("maps/tables/", 1, "tables"),
    ("maps/hash/", 2, "hash"),
    ("maps/lru/", 2, "lru"),
    ("maps/lpm_trie/", 2, "lpm_trie"),
    ("maps/registry.c", 3, "registry"),
    ("maps/plain/", 3, "plain"),
    ("harness/common/", 10, "common"),
    ("harness/workload/", 11, "workload"),
    ("harness/trace/", 12, "trace"),
    ("harness/stress/", 12, "stress"),
    ("harness/bench/", 12, "bench"),
    ("harness/sim/", 12, "sim"),
    ("harness/profile/", 12, "profile"),
    ("harness/results/", 13, "results"),
    ("kernel-compare/", 20, "kernel-compare"),
    ("cli/", 30, "cli"),
    ("cli/measure/", 31, "cli/measure"),
    ("cli/trace/", 31, "cli/trace"),
    ("cli/sim/", 31, "cli/sim"),
    ("cli/explain/", 32, "cli/explain"),
    ("cli/reproduce/", 32, "cli/reproduce"),
]
LAYER_OF_RANK = [(0, "maps"), (10, "harness"), (20, "kernel-compare"), (30, "cli")]


def part_of(path):
    best = None
    for prefix, rank, group in PARTS:
        if path == prefix or path.startswith(prefix):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, rank, group)
    return best


def layer_name(rank):
    name = None
    for r, n in LAYER_OF_RANK:
        if rank >= r:
            name = n
    return name


def sources(root):
    for top in ("maps", "harness", "kernel-compare", "cli", "tests"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, n), root)


def resolve(root, src, target):
    """The included file as a path from the root, or None (generated, system)."""
    for cand in (target, os.path.normpath(os.path.join(os.path.dirname(src), target))):
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def tested_part(src):
    """For a test under tests/X/..., the part of the tree X it tests."""
    rel = src[len("tests/"):]
    return part_of(rel) or part_of(rel.rsplit("/", 1)[0] + "/")


def named_from_root(root, target):
    """Whether an #include "target" names its file from the root: a file
    of the tree, or a generated skeleton in a folder of the tree."""
    if os.path.isfile(os.path.join(root, target)):
        return True
    return target.endswith(".skel.h") and os.path.isdir(
        os.path.join(root, os.path.dirname(target) or "-"))


def check_one(src, line_no, kind, target, inc, faults, root=None):
    where = f"{src}:{line_no}"
    if kind == '"' and root is not None and not named_from_root(root, target):
        if inc is not None:
            faults.append(f'{where}: includes "{target}": name it from the root, '
                          f'"{inc}" (a path from the root says which part it is)')
            return
        if target.endswith(".skel.h"):
            faults.append(f'{where}: includes "{target}": a generated skeleton is named '
                          'from the root of the build tree ("kernel-compare/X.skel.h")')
            return
    if kind == "<":
        if target.startswith("bpf/") and not (
                src.startswith("kernel-compare/") or src.startswith("tests/kernel-compare/")):
            faults.append(f"{where}: includes <{target}>: libbpf is kernel-compare's "
                          "alone (the layers below build without it)")
        return
    if inc is None or inc.startswith("tests/"):
        return
    to = part_of(inc)
    if src.startswith("tests/"):
        frm = tested_part(src)
        if frm is None or to is None:
            return
        # a test may use what it tests, and the maps and the harness (tools
        # such as key streams and clocks build without the kernel side);
        # kernel-compare only in tests of kernel-compare and above
        limit = max(frm[1], 13)
        if to[1] > limit:
            faults.append(f"{where}: includes {inc} ({layer_name(to[1])}), above "
                          f"the {layer_name(frm[1])} layer that {src} tests")
        return
    frm = part_of(src)
    if frm is None or to is None or frm[2] == to[2]:
        return
    if to[1] > frm[1]:
        faults.append(f"{where}: includes {inc}: {to[2]} ({layer_name(to[1])}) "
                      f"sits above {frm[2]} ({layer_name(frm[1])}); layers point "
                      "only down")
    elif to[1] == frm[1]:
        faults.append(f"{where}: includes {inc}: {frm[2]} and {to[2]} are "
                      "siblings; what they share belongs below both")


def check(root):
    faults, files, includes = [], 0, 0
    for src in sources(root):
        files += 1
        with open(os.path.join(root, src), errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                includes += 1
                kind, target = m.group(1), m.group(2)
                inc = resolve(root, src, target) if kind == '"' else None
                check_one(src, n, kind, target, inc, faults, root)
    return faults, files, includes


def self_test(root):
    """Each planted fault must be found; the untouched copy must pass."""
    plants = [
        ("maps/base/map.c", '#include "harness/bench/bench.h"', "above"),
        ("harness/sim/engine.c", '#include "kernel-compare/ksim.h"', "above"),
        ("maps/hash/linux.c", '#include "maps/lru/core/lru_htab.h"', "siblings"),
        ("harness/trace/replay.c", '#include "harness/bench/bench.h"', "siblings"),
        ("maps/tables/htab.c", '#include <bpf/libbpf.h>', "libbpf"),
        ("tests/maps/base/test_base.c", '#include "kernel-compare/kmap.h"', "above"),
        ("harness/trace/replay.c", '#include "hex.h"', "from the root"),
        ("kernel-compare/kbench_prog.c", '#include "bpf/kbench_shared.h"', "from the root"),
        ("kernel-compare/ksim.c", '#include "ksim.skel.h"', "build tree"),
        ("cli/measure/measure.c", '#include "cli/explain/explain.h"', "above"),
        ("cli/trace/cmd_replay.c", '#include "cli/sim/sim_plan.h"', "siblings"),
    ]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for src in sources(root):
            dst = os.path.join(tmp, src)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(root, src), dst)
        faults, _, _ = check(tmp)
        if faults:
            print("self-test: the untouched copy fails:\n  " + "\n  ".join(faults))
            ok = False
        for path, line, word in plants:
            target = os.path.join(tmp, path)
            original = open(target).read()
            with open(target, "w") as f:
                f.write(line + "\n" + original)
            faults, _, _ = check(tmp)
            found = [x for x in faults if x.startswith(path + ":1:") and word in x]
            print(f"self-test: {line} planted in {path}: "
                  + (f"found ({found[0]})" if found else "NOT FOUND"))
            ok = ok and bool(found)
            with open(target, "w") as f:
                f.write(original)
    return ok


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return 0 if self_test(argv[2]) else 1
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    faults, files, includes = check(argv[1])
    for f in faults:
        print(f)
    if faults:
        print(f"{len(faults)} include(s) break the layering", file=sys.stderr)
        return 1
    print(f"layers: {includes} includes in {files} files, every one points down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
