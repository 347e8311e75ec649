#!/bin/bash
# SPDX-License-Identifier: MIT
# tiering.sh HOTBRIDGE VMBINDIR [BASE]: the head-to-head on one workload.
# The closed loop's guest (tests/e2e/run.sh chmu: 4096 pages on the CXL
# node, hot set A then B of 256 each, 20 s apiece, our CHMU model in QEMU's
# cxl-type3) on Debian's stock kernel (default 7.3), moved by
#   (a) hotbridge: the chmu source, backend auto (DAMON migrate_hot), 4 MB/s;
#   (b) DAMON's own tiering, no hotbridge: a paddr kdamond over the CXL node
#       with DAMOS migrate_hot to node 0, intervals auto-tuned, 4 MB/s, the
#       mtier sample's node_mem_used_bp goal (hb-vm-chmu.sh).
# Prints time to 90 % coverage of each set, pages migrated per hot page
# (pgmigrate_success), cold pages moved and the mover's CPU seconds, side by
# side. Both run in this one invocation, back to back. Skips without the
# kernel (kernel/build --base 7.3 --stock) or tests/qemu/build's QEMU.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hb=$1 bindir=$2 base=${3:-7.3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for mover in hotbridge damon; do
	HB_E2E_STATE=$out/$mover "$here/../e2e/run.sh" chmu 1 4096 "$hb" "$bindir" auto stock "$base" \
		"$mover" >"$out/$mover.tap" 2>&1
	echo "$?" >"$out/$mover.rc"
	if grep -q "^1..0 # SKIP" "$out/$mover.tap"; then
		grep "^1..0 # SKIP" "$out/$mover.tap"
		exit 0
	fi
done
python3 - "$out" "$base" <<'PY'
import re, sys
d, base = sys.argv[1], sys.argv[2]
rows = []
for mover in ("hotbridge", "damon"):
    log = open("%s/%s/guest.log" % (d, mover), errors="replace").read()
    tap = open("%s/%s.tap" % (d, mover), errors="replace").read()
    m = re.search(r"time to 90 %: A (-?[\d.]+) s, B (-?[\d.]+) s", log)
    a, b = (float(m.group(1)), float(m.group(2))) if m else (None, None)
    mig = re.search(r"migrated (\d+) pages in all .* ([\d.]+) per hot page", log)
    cold = re.search(r"cold pages at its frame \((\d+) moved\)", log)
    ends = re.search(r"at the phase ends (\d+)/(\d+) and (\d+)/(\d+) on DRAM", log)
    cpu = re.search(r"CPU: (?:hotbridge|kdamond) \d+ ([\d.?]+) s", log)
    rows.append((mover, a, b, ends.group(1) + "/" + ends.group(2) if ends else "?",
                 ends.group(3) + "/" + ends.group(4) if ends else "?",
                 mig.group(2) if mig else "?", cold.group(1) if cold else "?",
                 cpu.group(1) if cpu else "?", open("%s/%s.rc" % (d, mover)).read().strip()))
    for l in log.splitlines():
        if "DAMOS tried" in l or "DAMON tiering" in l or "DAMON's view" in l:
            print("# " + l.lstrip("# "))
fmt = lambda v: "never" if v is None or v < 0 else "%.1f s" % v
print("# head-to-head on stock %s, one workload (256 hot of 4096 pages, hot set moved at 20 s), TCG" % base)
print("# %-10s %12s %12s %9s %9s %14s %11s %8s" % ("mover", "A to 90 %", "B to 90 %", "A at 20s",
      "B at 20s", "migr./hot pg", "cold moved", "CPU s"))
for r in rows:
    print("# %-10s %12s %12s %9s %9s %14s %11s %8s" % (r[0], fmt(r[1]), fmt(r[2]), r[3], r[4], r[5],
          r[6], r[7]))
h, dm = rows
if h[1] is not None and dm[1] is not None and h[1] > 0 and dm[1] > 0:
    print("# ratio damon / hotbridge, time to 90 %%: A %.2f, B %.2f" % (dm[1] / h[1], dm[2] / h[2]
          if h[2] and dm[2] and h[2] > 0 and dm[2] > 0 else float("nan")))
PY
