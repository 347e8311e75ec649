#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The folder READMEs stay maps (issue 40): daemon/, devices/, kernel/ and
translate/ each have a README.md of at most 150 lines that names every .c
and .h file of the folder (as its name, or "stem.c/.h" for a pair), and
every file name it gives without a path exists in the folder or tests/.
Reference material goes to the folder's docs/ (CONTRIBUTING.md).
  readme-check.py SOURCE_ROOT
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
MAX_LINES = 150
bad = []
for folder in ("daemon", "devices", "kernel", "translate"):
    readme = os.path.join(root, folder, "README.md")
    text = open(readme, encoding="utf-8").read()
    lines = text.count("\n")
    if lines > MAX_LINES:
        bad.append("%s/README.md: %d lines, more than %d" % (folder, lines, MAX_LINES))
    have = set()
    for d, dirs, names in os.walk(os.path.join(root, folder)):
        dirs[:] = [x for x in dirs if not x.startswith("build")]
        for n in names:
            if n.endswith((".c", ".h")):
                have.add(n)
                stem = n[:-2]
                if not re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", text) and \
                        stem + ".c/.h" not in text:
                    rel = os.path.relpath(os.path.join(d, n), root)
                    bad.append("%s/README.md does not name %s" % (folder, rel))
    tests = set()
    for d, dirs, names in os.walk(os.path.join(root, "tests")):
        tests.update(names)
    for m in re.finditer(r"`([\w.-]+)\.(c|h)(/\.h)?`", text):
        name = m.group(1) + "." + m.group(2)
        if name not in have and name not in tests:
            bad.append("%s/README.md names %s, which is not in %s/ nor tests/" % (folder, name, folder))
    print("# %s/README.md: %d lines, %d .c/.h files" % (folder, lines, len(have)))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
