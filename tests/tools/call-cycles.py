#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No call cycle between the tree's files (issue 27), measured from the
objects' symbols: each member of the given static libraries is a node,
and a member that references (nm: U) a function or object another member
defines (T, D, B, R) calls into it. A strongly connected set of two or
more members is a cycle; each is named with the symbols that close it,
and the exit status is 1.
  call-cycles.py LIB.a... [-v]
A symbol defined in two members (the same source built into two
libraries) is an error: the graph would then be a guess.
"""
import os
import subprocess
import sys

libs = [a for a in sys.argv[1:] if a != "-v"]
verbose = "-v" in sys.argv
if not libs:
    sys.exit("usage: call-cycles.py LIB.a... [-v]")

defs, refs, errors = {}, {}, []
for lib in libs:
    out = subprocess.run(["nm", lib], check=True, capture_output=True, text=True).stdout
    member = None
    for line in out.splitlines():
        if line.endswith(":") and " " not in line:
            member = "%s(%s)" % (os.path.basename(lib), os.path.basename(line[:-1]))
            refs.setdefault(member, set())
            continue
        parts = line.split()
        if member is None or not parts:
            continue
        if len(parts) == 2 and parts[0] == "U":
            refs[member].add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            if parts[2] in defs and defs[parts[2]] != member:
                errors.append("%s defined in %s and %s" % (parts[2], defs[parts[2]], member))
            defs[parts[2]] = member
if errors:
    sys.exit("call-cycles: " + "; ".join(errors))

graph = {m: {} for m in refs}
for m, rs in refs.items():
    for r in rs:
        d = defs.get(r)
        if d and d != m:
            graph[m].setdefault(d, []).append(r)
edges = sum(len(v) for v in graph.values())

# Tarjan's strongly connected components, iteratively
index, low, stack, on, sccs, n = {}, {}, [], set(), [], 0
for root in sorted(graph):
    if root in index:
        continue
    work = [(root, iter(sorted(graph[root])))]
    index[root] = low[root] = n
    n += 1
    stack.append(root)
    on.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = n
                n += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(graph[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc))

if verbose or sccs:
    print("%d objects, %d calling pairs" % (len(graph), edges))
for scc in sccs:
    print("call cycle between %s:" % ", ".join(scc))
    for a in scc:
        for b in sorted(graph[a]):
            if b in scc:
                print("  %s -> %s (%s)" % (a, b, ", ".join(sorted(graph[a][b]))))
sys.exit(1 if sccs else 0)
