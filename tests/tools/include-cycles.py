#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every #include "..." of the tree's C files as a graph: fails naming a
cycle if one exists (issue 13: no include cycle between files).

A name is looked up as the compiler would with our include paths: beside
the including file first, then as a path below any source folder (the
meson include_directories: "util/util.h" is daemon/util/util.h). Names no
source file has (config.h, generated) are left out; a name two files could
mean is an error, since the graph would then be a guess.
  include-cycles.py SOURCE_ROOT [-v]
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
verbose = "-v" in sys.argv
skip = {".git", "build", "data"}  # tests/data: fixtures, never compiled
files = []
for d, dirs, names in os.walk(root):
    dirs[:] = [x for x in dirs if x not in skip and not x.startswith("build")]
    files += [os.path.relpath(os.path.join(d, n), root) for n in names if n.endswith((".c", ".h"))]
files.sort()
by_suffix = {}
for f in files:
    parts = f.split("/")
    for i in range(len(parts)):
        by_suffix.setdefault("/".join(parts[i:]), []).append(f)

inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
graph, errors, edges = {}, [], 0
for f in files:
    text = open(os.path.join(root, f), errors="replace").read()
    graph[f] = []
    for name in inc.findall(text):
        here = os.path.normpath(os.path.join(os.path.dirname(f), name))
        if here in graph or os.path.exists(os.path.join(root, here)):
            target = here
        else:
            cands = by_suffix.get(name, [])
            if not cands:
                continue
            if len(cands) > 1:
                errors.append(f'{f}: "{name}" could be {", ".join(cands)}')
                continue
            target = cands[0]
        graph[f].append(target)
        edges += 1

# depth-first search, colouring: a grey node met again closes a cycle
WHITE, GREY, BLACK = 0, 1, 2
colour = {f: WHITE for f in graph}
cycles = []

def visit(f, path):
    colour[f] = GREY
    path.append(f)
    for g in graph.get(f, []):
        if colour.get(g, BLACK) == GREY:
            cycles.append(path[path.index(g):] + [g])
        elif colour.get(g) == WHITE:
            visit(g, path)
    path.pop()
    colour[f] = BLACK

sys.setrecursionlimit(10000)
for f in files:
    if colour[f] == WHITE:
        visit(f, [])
for e in errors:
    print(f"include-cycles: ambiguous: {e}")
for c in cycles:
    print("include-cycles: cycle: " + " -> ".join(c))
if verbose or not (errors or cycles):
    print(f"include-cycles: {len(files)} files, {edges} quoted includes resolved, "
          f"{len(cycles)} cycles")
sys.exit(1 if errors or cycles else 0)
