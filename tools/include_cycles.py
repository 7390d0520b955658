#!/usr/bin/env python3
"""Include cycles among src/'s units (a unit: NAME.h with its NAME.cpp), and the folder graph.

A unit depends on another where its header or its source #includes the other's header. Prints each
cycle of units (strongly connected component of more than one unit), with --folders also the
folder-to-folder edges and the folder cycles; exits 1 where a cycle holds a unit of one of the
FOLDERs (default: any), and with --folder-cycles also where a folder cycle holds one of them.
Usage: tools/include_cycles.py [SRC_DIR [FOLDER...]] [--folders] [--folder-cycles]
Run by ctest over every folder (Tools.NoIncludeCycles) and, for the folders above the renderer,
with --folder-cycles (Tools.NoFolderCyclesAboveTheRenderer).
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def units(src):
    deps = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(root, name)
            unit = os.path.relpath(os.path.splitext(path)[0], src)
            deps.setdefault(unit, set())
            with open(path, encoding="utf-8") as f:
                for header in INCLUDE.findall(f.read()):
                    target = os.path.splitext(header)[0]
                    if target != unit and os.path.exists(os.path.join(src, header)):
                        deps[unit].add(target)
    return deps


def cycles(deps):
    """Tarjan's strongly connected components with more than one unit."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(deps.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return found


def folder(unit):
    return unit.split("/")[0] if "/" in unit else "."


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "src")
    checked = set(args[1:])
    deps = units(src)
    found = cycles(deps)
    failing = [c for c in found if not checked or any(folder(u) in checked for u in c)]
    for component in found:
        print(f"cycle of {len(component)} units: " + " ".join(component) + ("" if component in failing else " (not checked)"))
    edges = sorted({(folder(u), folder(t)) for u, ts in deps.items() for t in ts if folder(u) != folder(t)})
    folder_deps = {}
    for a, b in edges:
        folder_deps.setdefault(a, set()).add(b)
    folder_cycles = cycles(folder_deps)
    failing_folders = [c for c in folder_cycles if "--folder-cycles" in sys.argv and (not checked or checked & set(c))]
    if "--folders" in sys.argv:
        for a, b in edges:
            print(f"{a} -> {b}")
    if "--folders" in sys.argv or "--folder-cycles" in sys.argv:
        for component in folder_cycles:
            print("folder cycle: " + " ".join(component) + ("" if component in failing_folders else " (not checked)"))
    print(f"{len(deps)} units, {len(found)} cycles, {len(failing)} through " + (", ".join(sorted(checked)) or "any folder"))
    return 1 if failing or failing_folders else 0


if __name__ == "__main__":
    sys.exit(main())
