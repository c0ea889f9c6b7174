#!/usr/bin/env python3
"""docs/architecture.md is kept true: the arrows it lists are exactly the target_link_libraries
edges between the project's targets (as CMake recorded them in BUILD/architecture_edges.txt), and
each target's sources include only headers of its own folders or of targets it links directly.
Usage: architecture_check.py SOURCE_DIR BUILD_DIR"""
import os
import re
import sys


def block(text, name):
    match = re.search(r"```" + name + r"\n(.*?)```", text, re.S)
    if not match:
        sys.exit(f"architecture check: docs/architecture.md has no ```{name} block")
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


def arrows(lines):
    edges = set()
    targets = set()
    for line in lines:
        source, _, rest = line.partition("->")
        source = source.strip()
        targets.add(source)
        for dep in rest.split():
            edges.add((source, dep))
    return targets, edges


def main():
    source_dir, build_dir = sys.argv[1], sys.argv[2]
    doc = open(os.path.join(source_dir, "docs/architecture.md")).read()
    doc_targets, doc_edges = arrows(block(doc, "arrows"))
    built = open(os.path.join(build_dir, "architecture_edges.txt")).read().splitlines()
    cmake_targets, cmake_edges = arrows(built)
    problems = []
    for t in sorted(cmake_targets - doc_targets):
        problems.append(f"target {t} is not in docs/architecture.md")
    for t in sorted(doc_targets - cmake_targets):
        problems.append(f"docs/architecture.md lists {t}, which CMake does not define")
    for a, b in sorted(cmake_edges - doc_edges):
        problems.append(f"CMake links {a} -> {b}, which docs/architecture.md does not list")
    for a, b in sorted(doc_edges - cmake_edges):
        problems.append(f"docs/architecture.md lists {a} -> {b}, which CMake does not link")

    # Which target owns a path: the longest listed folder or file that contains it.
    owners = {}
    for line in block(doc, "folders"):
        target, _, paths = line.partition(":")
        for path in paths.split():
            owners[path.rstrip("/")] = target.strip()

    def owner(path):
        best = None
        for prefix, target in owners.items():
            if path == prefix or path.startswith(prefix + "/"):
                if best is None or len(prefix) > len(best[0]):
                    best = (prefix, target)
        return best[1] if best else None

    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for prefix, target in sorted(owners.items()):
        full = os.path.join(source_dir, prefix)
        files = [full] if os.path.isfile(full) else [
            os.path.join(root, name) for root, _, names in os.walk(full) for name in names]
        for path in sorted(files):
            relative = os.path.relpath(path, source_dir)
            if not relative.endswith((".cpp", ".hpp", ".h", ".c")) or owner(relative) != target:
                continue
            for number, line in enumerate(open(path, errors="replace"), 1):
                found = include.match(line)
                if not found or "/" not in found.group(1):
                    continue
                header = found.group(1)
                if not os.path.exists(os.path.join(source_dir, header)):
                    continue  # generated, or relative to the including file
                used = owner(header)
                if used is None:
                    problems.append(f"{relative}:{number} includes {header}, in no listed folder")
                elif used != target and (target, used) not in cmake_edges:
                    problems.append(f"{relative}:{number} ({target}) includes {header} "
                                    f"({used}), which {target} does not link")
    if problems:
        print("architecture check: docs/architecture.md and the build disagree:")
        print("\n".join("  " + p for p in problems))
        return 1
    print(f"architecture check: {len(cmake_edges)} arrows between {len(cmake_targets)} targets "
          "agree with docs/architecture.md, and every include follows one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
