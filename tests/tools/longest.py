#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per folder of C sources: how many .c/.h files, the longest file and the
longest function (issue 27's "longest file and longest function before and
after"). Functions and their extents come from Universal Ctags
(`ctags --kinds-C=f --fields=+ne`: each function's first and last line);
a file's length is its line count.

usage: longest.py [ROOT]   (ROOT: the source tree, default the one this script is in)
Folders named build*, hidden ones and tests/data (fixtures) are skipped. A folder's own files
only: daemon/ and daemon/cmd/ are two rows.
"""
import os
import subprocess
import sys


def c_files(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("build", "."))
                         and os.path.relpath(os.path.join(top, d), root) != "tests/data")
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(top, f), root)


def functions(root, paths):
    """(path, name, lines) of every C function ctags finds."""
    out = subprocess.run(["ctags", "-f", "-", "--languages=C", "--langmap=C:.c.h",
                          "--kinds-C=f", "--fields=+ne", "--sort=no"] + paths,
                         cwd=root, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        cols = line.split("\t")
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" in fields and "end" in fields:
            yield cols[1], cols[0], int(fields["end"]) - int(fields["line"]) + 1


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    paths = list(c_files(root))
    folders = {}
    for p in paths:
        with open(os.path.join(root, p), "rb") as f:
            n = f.read().count(b"\n")
        d = folders.setdefault(os.path.dirname(p) or ".", {"files": 0, "file": ("", 0),
                                                             "func": ("", 0)})
        d["files"] += 1
        if n > d["file"][1]:
            d["file"] = (os.path.basename(p), n)
    for p, name, n in functions(root, paths):
        d = folders[os.path.dirname(p) or "."]
        if n > d["func"][1]:
            d["func"] = ("%s:%s()" % (os.path.basename(p), name), n)
    print("%-28s %5s  %-24s %5s  %-44s %5s" % ("folder", "files", "longest file", "lines",
                                               "longest function", "lines"))
    for k in sorted(folders):
        d = folders[k]
        print("%-28s %5d  %-24s %5d  %-44s %5d" % (k, d["files"], d["file"][0], d["file"][1],
                                                   d["func"][0] or "-", d["func"][1]))


if __name__ == "__main__":
    main()
