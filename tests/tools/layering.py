#!/usr/bin/env python3
"""The layering check (CTest "tools: layering").

docs/architecture.md's layer table is the truth about which folder may use which. This
reads it and fails, naming file, line and rule, when
  - an #include "<folder>/..." in a folder of the table names a folder that is neither the
    file's own nor one it depends on, directly or through others;
  - a library's neuronsim_* link dependencies in CMakeLists.txt differ from the folders the
    table says it depends on directly (the build graph and the document are one graph);
  - the table has a cycle, names a folder that does not exist, or misses a folder that
    holds C++ sources.
tests/, bench/, fuzz/ and examples/embed/ use the model from outside and may include
anything. Usage: layering.py [REPO_ROOT]
"""
import os
import re
import subprocess
import sys

# Folders that are users of the model, not layers of it.
OUTSIDE = {"tests", "bench", "fuzz", "examples/embed", "cmake", "docs", "scripts", "build"}
CPP = (".cpp", ".hpp", ".h", ".cc")


def read_table(root, problems):
    """{folder: set of direct dependencies} from the table headed 'folder | holds |
    depends on'. Cells name folders with a trailing slash ("isa/"); other words in the
    dependency cell (nlohmann_json, SystemC) are outside libraries and ignored."""
    path = os.path.join(root, "docs", "architecture.md")
    table, in_table = {}, False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[0] == "folder" and cells[2] == "depends on":
                in_table = True
                continue
            if not in_table:
                continue
            if not line.startswith("|"):
                break
            if set(cells[0]) <= {"-", " "}:
                continue
            folder = cells[0].strip("`").rstrip("/")
            deps = set()
            for word in re.split(r"[,;]\s*", cells[2]):
                word = word.strip().strip("`")
                if word.endswith("/"):
                    deps.add(word.rstrip("/"))
            if folder in table:
                problems.append(f"{path}:{n}: {folder}/ is listed twice")
            table[folder] = deps
    if not table:
        problems.append(f"{path}: no layer table (a row 'folder | holds | depends on')")
    return table


def closure(table):
    """{folder: every folder it may use}, and the cycles found."""
    done, cycles = {}, []

    def visit(folder, stack):
        if folder in done:
            return done[folder]
        if folder in stack:
            cycles.append(" -> ".join(stack[stack.index(folder):] + [folder]))
            return set()
        reach = set()
        for d in table.get(folder, ()):
            reach |= {d} | visit(d, stack + [folder])
        done[folder] = reach
        return reach

    for folder in table:
        visit(folder, [])
    return done, cycles


def folder_of(rel, table):
    """The longest table folder that `rel` lies in ("python/core/x.cpp" -> "python/core")."""
    best = None
    for folder in table:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def outside(rel):
    return any(rel == o or rel.startswith(o + "/") for o in OUTSIDE)


def public_header_uses(root, table, header, seen=None):
    """The folders a public header <neuronsim/x.hpp> uses, through the public headers it
    includes too. A public header is implemented by a layer (neuronsim/hbm.hpp by
    memory/), so a folder may include it when it may use all that the header does."""
    seen = set() if seen is None else seen
    if header in seen:
        return set()
    seen.add(header)
    path = os.path.join(root, "include", header)
    uses = set()
    if not os.path.isfile(path):
        return uses
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m or "/" not in m.group(1):
            continue
        if m.group(1).startswith("neuronsim/"):
            uses |= public_header_uses(root, table, m.group(1), seen)
        elif folder_of(m.group(1), table):
            uses.add(folder_of(m.group(1), table))
    return uses


def source_files(root):
    """The C++ files of the tree: git's list where the tree is a checkout (build trees and
    other untracked files are not the project's), else every file outside build*/ and out/."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode("utf-8", "replace")
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            rel_dir = os.path.relpath(dirpath, root)
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "build")) and d != "out"]
            files += [os.path.normpath(os.path.join(rel_dir, n)) for n in filenames]
    return sorted(f for f in files if f.endswith(CPP) and not outside(f) and
                  os.path.isfile(os.path.join(root, f)))


def check_includes(root, table, reach, problems):
    tops = {f.split("/")[0] for f in table}
    for rel in source_files(root):
        own = folder_of(rel, table)
        if own is None:
            problems.append(f"{rel}: C++ source in a folder the layer table does not list")
            continue
        allowed = {own} | reach[own]
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m or "/" not in m.group(1):
                    continue
                target = m.group(1)
                if target.startswith("neuronsim/"):  # the public API
                    if not os.path.isfile(os.path.join(root, "include", target)):
                        problems.append(f"{rel}:{n}: includes {target}, no public header")
                        continue
                    beyond = sorted(public_header_uses(root, table, target) - allowed)
                    if beyond:
                        problems.append(f"{rel}:{n}: {own}/ includes {target}, which uses "
                                        + ", ".join(b + "/" for b in beyond) +
                                        f", and {own}/ does not depend on them "
                                        "(docs/architecture.md)")
                    continue
                used = folder_of(target, table)
                if used is None:
                    if target.split("/")[0] in tops:
                        problems.append(f"{rel}:{n}: includes {target}, in no folder of "
                                        "the layer table")
                    continue
                if used not in allowed:
                    problems.append(f"{rel}:{n}: {own}/ includes {target}, but {own}/ does "
                                    f"not depend on {used}/ (docs/architecture.md)")


def check_cmake(root, table, problems):
    """neuronsim_library(neuronsim_<name> <dir> deps...) against the table's direct deps."""
    path = os.path.join(root, "CMakeLists.txt")
    text = open(path, encoding="utf-8").read()
    names = {}
    for m in re.finditer(r"neuronsim_library\(\s*(neuronsim_\w+)\s+([^\s)]+)", text):
        names[m.group(1)] = m.group(2)
    for m in re.finditer(r"neuronsim_library\(([^)]*)\)", text):
        words = m.group(1).split()
        lib, folder, deps = words[0], words[1], words[2:]
        line = text.count("\n", 0, m.start()) + 1
        if folder not in table:
            problems.append(f"CMakeLists.txt:{line}: library {lib} ({folder}/) is not in the "
                            "layer table")
            continue
        linked = {names[d] for d in deps if d in names}
        unknown = [d for d in deps if d.startswith("neuronsim_") and d not in names]
        for d in unknown:
            problems.append(f"CMakeLists.txt:{line}: {lib} links {d}, which is no library")
        if linked != table[folder]:
            extra = sorted(linked - table[folder])
            missing = sorted(table[folder] - linked)
            what = []
            if extra:
                what.append("links " + ", ".join(f + "/" for f in extra) + " the table does "
                            "not list")
            if missing:
                what.append("does not link " + ", ".join(f + "/" for f in missing) +
                            " the table lists")
            problems.append(f"CMakeLists.txt:{line}: {lib} " + "; ".join(what))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    problems = []
    table = read_table(root, problems)
    for folder, deps in table.items():
        for d in sorted(deps | {folder}):
            if not os.path.isdir(os.path.join(root, d)):
                problems.append(f"docs/architecture.md: the layer table names {d}/, which does "
                                "not exist")
        for d in sorted(deps - set(table)):
            problems.append(f"docs/architecture.md: {folder}/ depends on {d}/, which has no "
                            "row of its own")
    reach, cycles = closure(table)
    for c in cycles:
        problems.append(f"docs/architecture.md: the layer table has a cycle: {c}")
    if not cycles and table:
        check_includes(root, table, reach, problems)
        check_cmake(root, table, problems)
    for p in problems:
        print(p)
    if problems:
        print(f"layering: {len(problems)} problem(s)")
        return 1
    print(f"layering: {len(table)} folders, every #include and library link follows the table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
