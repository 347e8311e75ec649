#!/bin/bash
# SPDX-License-Identifier: MIT
# race.sh HOTBRIDGE VMBINDIR [BASE]: hotbridge against the kernel's own
# tiering (issue 41), on Debian's stock kernel BASE (default 7.3), each
# mover in its own guest (tests/vm/run.sh: one cxl-type3 with our CHMU
# model behind a 512 KiB host cache, as the closed loop's; nodes 0 and 1 of
# 512 MiB), one mover at a time, every workload from the same start (its
# pages fresh on the CXL node, DRAM held to its room: hb-vmrace):
#   none       the baseline, nothing moves pages (NUMA balancing off);
#   numab      kernel.numa_balancing = 2 (tiering mode), its defaults;
#   numab-rl   the same, numa_balancing_promote_rate_limit_MBps = RATE;
#   hotbridge  `hotbridge run`, the chmu source, backend auto (damon on
#              Debian's kernels), rate_mbps = RATE.
# Workloads (hb-vm-race.sh, tests/bench/vm-race.c), NAME:SECONDS:ROOM
# (pages DRAM may take), HB_RACE_WORKLOADS another list:
#   loop  the closed loop's moving hot set: 4096 pages, 256 hot, then 256
#         others (half the time each);
#   file  256 hot pages of a 4096-page tmpfs file read with read(2), its
#         page cache on the CXL node;
#   zipf  Zipf (s = 0.99) over 65536 pages (256 MiB), one line an access;
#   big   2048 hot pages of 4096 (every other one), read in turn: a hot set
#         larger than DRAM's room, nothing may move back and forth;
#   scan  256 hot pages read over and over beside one sequential pass over
#         a cold array of 16384 pages (64 MiB) paced to end with the run:
#         the scan must not displace the hot set.
# The host reads the device's chmu-served-reads over QMP (tests/qemu/
# README.md) when each workload starts and ends: the reads that still
# reached CXL memory. Prints one table: for each workload, each mover's
# DRAM-served share of the workload's accesses and that share as a
# fraction of the oracle's (same room, RATE), time to 90 % of each hot set,
# migrations per hot page, cold pages moved (and of those, moved to DRAM),
# pages seen on DRAM and later back on the CXL node (of them hot pages),
# hot pages not on DRAM at the end, scanned pages moved (on DRAM at the end),
# NUMA hint faults, the workload's system seconds and page faults beyond
# the baseline's, the movers' CPU seconds, and the reads the device served
# per access of the workload as a fraction of the baseline's (per access:
# under TCG an access to DRAM is far faster than one to the CXL window, so
# a run's access count depends on its mover and on the host's load), and
# the most of the workload's pages seen on DRAM against the room (every
# mover is held to it: hb-vmrace's floor and filler, hotbridge's
# watermark_mb; a row over it is marked OVER and listed below the table).
# HB_RACE_MOVERS: another list of movers (none first);
# HB_RACE_KEEP=DIR keeps every guest's log and share there, and
#   race.sh --table DIR [BASE]
# prints the table again from such a directory.
# Skips without the kernel or tests/qemu/build's QEMU.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rate=${HB_RACE_RATE:-4}
movers=${HB_RACE_MOVERS:-none numab numab-rl hotbridge}
table() { # DIR BASE
	python3 - "$1" "$2" "$rate" $movers <<'PY'
import re, sys
d, base, rate, movers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
rows, served = {}, {}
for m in movers:
    try:
        log = open("%s/%s/guest.log" % (d, m), errors="replace").read()
    except OSError:
        continue
    for l in log.splitlines():
        l = l.strip()
        if l.startswith("race: "):
            kv = dict(x.split("=", 1) for x in l[6:].split())
            rows[(kv["workload"], m)] = kv
    try:
        for l in open("%s/%s/served.txt" % (d, m)):
            n, r, w = l.split()
            served[(m, n)] = int(r)
    except OSError:
        pass
def dev_reads(w, m):
    a, b = served.get((m, "race-go-" + w)), served.get((m, "race-done-" + w))
    return b - a if a is not None and b is not None and a >= 0 and b >= 0 else None
print("# race on stock %s, TCG, rate limit %s MB/s; share: accesses served from DRAM; "
      "vs oracle: share / the oracle's; CXL reads: the device's served reads per access of "
      "the workload / the baseline's" % (base, rate))
hdr = ("workload", "mover", "share", "vs oracle", "to 90 %", "migr/hot", "cold moved (to DRAM)",
       "bounced (hot)", "hot off DRAM", "scan moved (DRAM)", "hint faults", "sys s (+base)",
       "faults (+base)", "mover CPU s", "CXL reads", "most placed / room")
print("| " + " | ".join(hdr) + " |")
print("|" + "---|" * len(hdr))
order = ["loop", "file", "zipf", "big", "scan"]
for w in sorted({k[0] for k in rows}, key=lambda x: order.index(x) if x in order else 9):
    b = rows.get((w, "none"))
    bdev = dev_reads(w, "none")
    for m in movers:
        r = rows.get((w, m))
        if r is None:
            print("| %s | %s | (no run) |" % (w, m))
            continue
        share, orc = float(r["share"]), float(r["oracle"])
        t90 = ", ".join("never" if float(t) < 0 else "%.1f s" % float(t) for t in r["t90"].split(","))
        sysd = "%.2f" % float(r["sys"])
        fd = r["faults"]
        if b is not None and m != "none":
            sysd += " (%+.2f)" % (float(r["sys"]) - float(b["sys"]))
            fd += " (%+d)" % (int(r["faults"]) - int(b["faults"]))
        dev = dev_reads(w, m)
        devs = "?"
        if dev is not None and bdev and b is not None:
            per, bper = dev / float(r["accesses"]), bdev / float(b["accesses"])
            devs = "%.3f" % (per / bper) if bper > 0 else "?"
        placed = "%s / %s%s" % (r.get("placed_max", "?"), r.get("room_want", "?"),
                                " OVER" if "placed_max" in r and
                                int(r["placed_max"]) > float(r["room_want"]) else "")
        print("| %s | %s | %.3f | %s | %s | %.2f | %s/%s | %s (%s) | %s/%s | %s | %s | %s | %s | %.2f | %s | %s |" % (
            w, m, share, "%.2f" % (share / orc) if orc > 0 else "?", t90,
            int(r["migr"]) / float(r["hot"]), r["cold_moved"], r["cold"] + " (" + r.get("cold_dram", "?") + ")",
            r.get("bounced", "?"), r.get("hot_back", "?"), r.get("hot_off", "?"), r["hot"],
            "%s (%s)" % (r["scan_moved"], r["scan_dram"]) if w == "scan" and "scan_moved" in r else "-",
            r["hint"], sysd, fd, float(r["mover_cpu"]), devs, placed))
for w in sorted({k[0] for k in rows}):
    b = rows.get((w, "none"))
    if b is not None and (float(b["share"]) > 0.01 or int(b["migr"]) > 0):
        print("# %s: the baseline moved pages (share %s, %s migrations): the start was not "
              "the same for every mover" % (w, b["share"], b["migr"]))
print("# room (pages above each mover's stop on node 0 once held) per run: " + ", ".join(
    "%s/%s %s" % (k[0], k[1], v["room"]) for k, v in sorted(rows.items())))
print("# filler pages taken during the run (DRAM freed by others, kswapd) per run: " + ", ".join(
    "%s/%s %s" % (k[0], k[1], v.get("regrabbed", "?")) for k, v in sorted(rows.items())))
over = ["%s/%s %s > %s" % (k[0], k[1], v["placed_max"], v["room_want"])
        for k, v in sorted(rows.items())
        if "placed_max" in v and int(v["placed_max"]) > float(v["room_want"])]
print("# placed more than the room: " + (", ".join(over) if over else "none"))
PY
}
if [ "${1:-}" = --table ]; then
	table "$2" "${3:-7.3}"
	exit 0
fi
hb=$1 bindir=$2 base=${3:-7.3}
workloads=${HB_RACE_WORKLOADS:-loop:40:1024 file:30:1024 zipf:40:8192 big:40:1024 scan:40:512}
for t in cxl ndctl daxctl; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed"; exit 77; }
done
if [ -n "${HB_RACE_KEEP:-}" ]; then
	out=$HB_RACE_KEEP
	mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
start=$(date +%s)
failed=
for mover in $movers; do
	st=$out/$mover
	rm -rf "$st" && mkdir -p "$st/share"
	# the served counts at the guest's marks (race-go-W, race-done-W)
	python3 - "$st" <<'PY' &
import json, os, socket, sys, time
st = sys.argv[1]
sock, seen, f = None, set(), open(st + "/served.txt", "w")
def ask(s, cmd):
    s.sendall((json.dumps(cmd) + "\n").encode())
    buf = b""
    while True:
        buf += s.recv(65536)
        for line in buf.split(b"\n"):
            if line.strip():
                m = json.loads(line)
                if "return" in m or "error" in m:
                    return m
def served(s, what):
    m = ask(s, {"execute": "qom-get", "arguments": {"path": "/machine/peripheral/cxl-pmem0",
                                                     "property": "chmu-served-" + what}})
    return m.get("return", -1)
deadline = time.time() + 3600
while time.time() < deadline and not os.path.exists(st + "/guest.rc"):
    if sock is None and os.path.exists(st + "/qmp.sock"):
        try:
            sock = socket.socket(socket.AF_UNIX)
            sock.connect(st + "/qmp.sock")
            sock.recv(65536)
            ask(sock, {"execute": "qmp_capabilities"})
        except OSError:
            sock = None
    for n in sorted(os.listdir(st + "/share")):
        if n.startswith("race-") and n not in seen and sock is not None:
            seen.add(n)
            try:
                f.write("%s %d %d\n" % (n, served(sock, "reads"), served(sock, "writes")))
            except (OSError, ValueError):
                f.write("%s -1 -1\n" % n)
            f.flush()
    time.sleep(0.1)
PY
	poller=$!
	"$here/../vm/run.sh" --cxl 1 --chmu 1 --chmu-llc 512K --base "$base" --kernel stock \
		--node-mem 512 --timeout 2400 --host-bin cxl --host-bin ndctl --host-bin daxctl \
		--host-bin "$hb" --extra "$here/../e2e/hb-vm-e2e.sh" --extra "$here/hb-vm-race.sh" \
		--bindir "$bindir" --state "$st" --qmp "$st/qmp.sock" \
		hb-vm-race.sh "$mover" "$rate" $workloads >"$st/guest.log" 2>&1
	rc=$?
	echo $rc >"$st/guest.rc"
	wait $poller
	rm -f "$st"/cxl-mem* "$st"/cxl-lsa*
	if [ $rc -eq 77 ]; then
		grep "SKIP" "$st/guest.log"
		exit 77
	fi
	grep -E "^(race:|hb-vmrace:|hb-vm-race:)" "$st/guest.log" | sed 's/^/# /'
	[ $rc -eq 0 ] || { echo "# guest for $mover failed (status $rc):"; tail -30 "$st/guest.log" | sed 's/^/# /'; failed="$failed $mover"; }
done
table "$out" "$base"
echo "# race: $(( $(date +%s) - start )) s wall"
[ -z "$failed" ] || { echo "# the guests of$failed failed: their rows are missing"; exit 1; }
