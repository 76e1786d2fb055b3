#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The docs' links and references, checked.

usage: check_docs.py ROOT [BUILD kernel|no-kernel]

Reads README.md and every docs/*.md under ROOT and fails on:
  - a page of docs/ that docs/README.md (the reading path) does not link;
  - a link ([text](target), ![image](target)) to a file that does not exist;
  - a link or a path that leaves the repository: an absolute path, a
    relative one that climbs above ROOT, ../shared/ or /work/ anywhere
    (a reader has the repository, nothing beside it);
  - a path into the tree (maps/..., harness/..., kernel-compare/..., cli/...,
    tests/..., docs/..., examples/...) that names no file or folder, no
    module (maps/tables/htab: htab.h and htab.c) and no meson test
    (maps/lru/linux); braces ({h,c}) and globs (*) are expanded, templates
    (<design>) are skipped;
  - a path build/... that the build at BUILD does not hold (given BUILD;
    build/kernel-compare/... only where the kernel side was built);
  - a reference to an issue ("issue 3", "issue #3", "the issue's goal"): a
    page says what was asked and by whom, not where it was tracked.

First plants one fault of each kind in a copy of a page and checks that
each is found.  Prints FILE:LINE: what is wrong, for each fault, and exits 1
if there is any; 0 and a one-line summary otherwise.
"""
import glob
import os
import re
import shutil
import sys
import tempfile

LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")
OUTSIDE = re.compile(r"\.\./shared\b|/work/")
TREE_TOPS = ("maps", "harness", "kernel-compare", "cli", "tests", "docs", "examples")
TREE_PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./{},*<>+-]*)" %
                       "|".join(re.escape(t) for t in TREE_TOPS))
# build/ mirrors the tree: build/cli/maplab is cli/'s output
BUILD_PATH = re.compile(r"(?<![\w./-])build/((?:%s)/[\w./+-]*)" %
                        "|".join(re.escape(t) for t in TREE_TOPS))
ISSUE = re.compile(r"\bissues?\s*#?\d+\b|\b(?:the|this|that|an|our) issue\b|\bissue's\b",
                   re.IGNORECASE)


def pages(root):
    yield "README.md"
    for p in sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        yield os.path.relpath(p, root)


def expand_braces(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(path[:m.start()] + alt + path[m.end():])
    return out


def test_names(root):
    """The meson tests' names ("maps/lru/linux"): a page may name a test."""
    names = set()
    try:
        text = open(os.path.join(root, "tests", "meson.build")).read()
    except OSError:
        return names
    names.update(re.findall(r"'([\w/-]+)'\s*:\s*\[", text))
    names.update(re.findall(r"test\(\s*'([\w/-]+)'", text))
    return names


def tree_path_exists(root, path, tests=frozenset()):
    """A file or folder; a module named without its suffix (maps/tables/htab
    for htab.h and htab.c); or a test's name."""
    for p in expand_braces(path):
        if "*" in p:
            if not glob.glob(os.path.join(root, p)):
                return False
        elif not any(os.path.exists(os.path.join(root, p + ext))
                     for ext in ("", ".h", ".c")) and p.rstrip("/") not in tests:
            return False
    return True


def check_link(root, page, target):
    """What is wrong with a link's target, or None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
        return None                     # a URL, or an anchor in this page
    path = target.split("#", 1)[0]
    if path.startswith("/"):
        return f"link to {target}: an absolute path, outside the repository"
    full = os.path.normpath(os.path.join(root, os.path.dirname(page), path))
    if os.path.relpath(full, root).startswith(".."):
        return f"link to {target}: outside the repository"
    if not os.path.exists(full):
        return f"link to {target}: no such file"
    return None


def check_page(root, page, faults, build=None, kernel=True):
    with open(os.path.join(root, page), errors="replace") as f:
        lines = f.read().split("\n")
    tests = test_names(root)
    for n, line in enumerate(lines, 1):
        where = f"{page}:{n}"
        targets = [m.group(1) for m in LINK.finditer(line)]
        m = REF_LINK.match(line)
        if m:
            targets.append(m.group(1))
        for t in targets:
            why = check_link(root, page, t)
            if why:
                faults.append(f"{where}: {why}")
        for m in OUTSIDE.finditer(line):
            faults.append(f"{where}: {m.group(0)}...: a path outside the repository "
                          "(cite the public source, or a page of docs/)")
        # links were checked above; a path in prose or code must exist too
        prose = LINK.sub(lambda m: m.group(0).split("](")[0], line)
        for m in TREE_PATH.finditer(prose):
            path = m.group(1).rstrip(".,:;*")
            if "<" in path or ">" in path or "..." in path:
                continue
            if not tree_path_exists(root, path, tests):
                faults.append(f"{where}: {path}: no such file or folder in the tree")
        for m in BUILD_PATH.finditer(prose):
            path = m.group(1).rstrip(".,:;")
            folder = os.path.dirname(path)
            if not os.path.isdir(os.path.join(root, folder)):
                faults.append(f"{where}: build/{path}: no folder {folder}/ in "
                              "the tree for the build to mirror")
            elif (build and (kernel or not path.startswith("kernel-compare/"))
                  and not os.path.exists(os.path.join(build, path))):
                faults.append(f"{where}: build/{path}: the build makes no such file")
        for m in ISSUE.finditer(line):
            faults.append(f"{where}: \"{m.group(0)}\": an issue reference (say what "
                          "the goal was and whose)")


def check_index(root, faults):
    index = "docs/README.md"
    full = os.path.join(root, index)
    if not os.path.exists(full):
        faults.append(f"{index}:1: missing: docs/README.md is the reading path")
        return
    linked = set()
    with open(full, errors="replace") as f:
        for line in f:
            for m in LINK.finditer(line):
                path = m.group(1).split("#", 1)[0]
                linked.add(os.path.normpath(os.path.join("docs", path)))
    for page in pages(root):
        if page.startswith("docs/") and page != index and page not in linked:
            faults.append(f"{page}:1: not linked from {index} (every page is on "
                          "the reading path)")


def check(root, build=None, kernel=True):
    faults = []
    for page in pages(root):
        check_page(root, page, faults, build, kernel)
    check_index(root, faults)
    return faults


def self_test(root):
    """Each planted fault is found in a copy of the docs."""
    plants = [
        ("[x](nowhere.md)", "no such file"),
        ("[x](/etc/passwd)", "absolute path"),
        ("[x](../../outside.md)", "outside the repository"),
        ("see ../shared/research/x.md", "outside the repository"),
        ("see maps/common/htab.h", "no such file or folder"),
        ("as the issue's goal says", "issue reference"),
        ("done in issue 3", "issue reference"),
        ("run build/harness/cli/maplab", "no folder harness/cli/"),
    ]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for page in pages(root):
            os.makedirs(os.path.dirname(os.path.join(tmp, page)) or tmp, exist_ok=True)
            shutil.copy(os.path.join(root, page), os.path.join(tmp, page))
        # the tree the pages name, as empty files, so that paths resolve
        for top in TREE_TOPS:
            for d, _, names in os.walk(os.path.join(root, top)):
                rel = os.path.relpath(d, root)
                os.makedirs(os.path.join(tmp, rel), exist_ok=True)
                for n in names:
                    dst = os.path.join(tmp, rel, n)
                    if not os.path.exists(dst):
                        open(dst, "w").close()
        shutil.copy(os.path.join(root, "tests", "meson.build"),
                    os.path.join(tmp, "tests", "meson.build"))
        before = set(check(tmp))
        target = os.path.join(tmp, "docs", "design.md")
        original = open(target).read()
        for text, word in plants:
            with open(target, "w") as f:
                f.write(text + "\n" + original)
            found = [x for x in set(check(tmp)) - before
                     if x.startswith("docs/design.md:1:") and word in x]
            if not found:
                print(f"self-test: {text!r} planted in docs/design.md: NOT FOUND")
                ok = False
        with open(target, "w") as f:
            f.write(original)
        os.remove(os.path.join(tmp, "docs", "design.md"))
        with open(os.path.join(tmp, "docs", "orphan.md"), "w") as f:
            f.write("# orphan\n")
        if not any(x.startswith("docs/orphan.md:1: not linked") for x in check(tmp)):
            print("self-test: docs/orphan.md, linked from nowhere: NOT FOUND")
            ok = False
    return ok


def main(argv):
    if len(argv) not in (2, 4) or argv[1].startswith("-") or (
            len(argv) == 4 and argv[3] not in ("kernel", "no-kernel")):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = argv[1]
    build = argv[2] if len(argv) == 4 else None
    kernel = len(argv) == 4 and argv[3] == "kernel"
    if not self_test(root):
        print("check_docs: the checker misses a planted fault", file=sys.stderr)
        return 1
    faults = check(root, build, kernel)
    for f in faults:
        print(f)
    if faults:
        print(f"{len(faults)} fault(s) in the docs", file=sys.stderr)
        return 1
    print(f"docs: {len(list(pages(root)))} pages, every link resolves inside the "
          "repository, every page of docs/ is on the reading path")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
