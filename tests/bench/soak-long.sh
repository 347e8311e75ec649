#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/bench/soak-long: the daemon over a long run, as a host lives it.
# `hotbridge run --dry-run` on the emulated host with demotion on
# (soak-demote.conf), for SECONDS (default 3600) at RATE binary records/s
# through a FIFO (soak-feed, default 100 000), while
#   - a reload is asked every minute (`hotbridge reload`);
#   - control clients come and go: each 5 s a status, a stats, a metrics,
#     and one client that connects and hangs up without a word;
#   - a second source replays a text file that a writer appends to
#     (20 lines/s), rotated every 5 minutes (renamed, made anew).
# Each minute: RSS, VmHWM, open fds, and the record -> table p99 of that
# minute (from stats' latency histogram, two readings apart).
# Verdicts, after a warm-up of WARMUP s (default 600; shorter runs scale
# down to a sixth of the run):
#   RSS flat: at the end within 1 MiB of where it was after the warm-up;
#   fds flat: the same number at the end as after the warm-up;
#   latency: record -> table p99 over the last 10 minutes (the last sixth
#     of a shorter run) within 10 % of the first 10 after the warm-up (a
#     quantile is a bucket's bound, 6.25 % wide: a one-bucket move passes);
#   nothing lost: every line the writer appended reached the replay
#     source, and the FIFO's records were all taken.
#   soak-long.sh HOTBRIDGE SOAK_FEED [SECONDS] [RATE]
set -euo pipefail
hb=$1 feed=$2 secs=${3:-3600} rate=${4:-100000}
here=$(cd "$(dirname "$0")" && pwd)
warm=${WARMUP:-600}
[ "$warm" -le $((secs / 6)) ] || warm=$((secs / 6))
span=600
[ "$span" -le $((secs / 6)) ] || span=$((secs / 6 / 60 * 60))
[ "$span" -ge 60 ] || { echo "soak-long: $secs s is too short (at least 360)"; exit 2; }
tmp=$(mktemp -d)
pid= feeder= writer= clients=
trap 'kill $pid $feeder $writer $clients 2>/dev/null || true; rm -rf "$tmp"' EXIT
. "$here/fifo-daemon.sh"
: >"$tmp/rot.replay"
fifo_daemon "$hb" 1000 "log_level = warning
$(cat "$here/soak-demote.conf")
[source rot]
type = replay
path = $tmp/rot.replay
from = start"
[ -S "$tmp/ctl.sock" ] || { echo "soak-long: the daemon did not start"; cat "$tmp/log"; exit 1; }
ctl() { "$hb" "$@" --socket "$tmp/ctl.sock"; }

# the replay file's writer: 20 lines/s, rotated every 300 s
(
	n=0 t0=$(date +%s)
	while :; do
		for _ in $(seq 20); do
			printf 'mem0 dpa=0x%x len=4096 count=3\n' $(( (n % 4096) * 4096 )) >>"$tmp/rot.replay"
			n=$((n + 1))
		done
		echo "$n" >"$tmp/written"
		if [ $(( $(date +%s) - t0 )) -ge 300 ]; then
			mv "$tmp/rot.replay" "$tmp/rot.replay.1"
			: >"$tmp/rot.replay"
			t0=$(date +%s)
		fi
		sleep 1
	done
) &
writer=$!
# clients that come and go
(
	while :; do
		ctl status >/dev/null 2>&1 || true
		ctl stats >/dev/null 2>&1 || true
		ctl metrics >/dev/null 2>&1 || true
		python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.close()" \
			"$tmp/ctl.sock" 2>/dev/null || true
		sleep 5
	done
) &
clients=$!
"$feed" "$tmp/feed" "$rate" "$secs" >"$tmp/feed.out" &
feeder=$!

echo "t_s rss_kib hwm_kib fds records_per_s table_p99_us_of_the_minute placed_pages"
ctl stats >"$tmp/s.0"
prev=$tmp/s.0 t=0
while kill -0 "$feeder" 2>/dev/null; do
	sleep 60
	t=$((t + 60))
	kill -0 "$pid" || { echo "soak-long: the daemon died at $t s"; tail -20 "$tmp/log"; exit 1; }
	ctl reload >/dev/null 2>"$tmp/reload.err" || { echo "soak-long: reload failed at $t s:"; cat "$tmp/reload.err"; }
	ctl stats >"$tmp/s.$t"
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
	hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
	fds=$(ls "/proc/$pid/fd" | wc -l)
	echo "$t $rss $fds" >>"$tmp/samples"
	rec=$(python3 -c 'import json,sys; a,b=(json.load(open(f))["stats"]["records"] for f in sys.argv[1:]); print((b-a)//60)' "$prev" "$tmp/s.$t")
	placed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"].get("placed_pages"))' "$tmp/s.$t")
	echo "$t $rss $hwm $fds $rec $(python3 "$here/latency_window.py" "$prev" "$tmp/s.$t" | cut -d' ' -f1) $placed"
	prev=$tmp/s.$t
done
wait "$feeder" || true
kill "$writer" "$clients" 2>/dev/null || true
wait "$writer" "$clients" 2>/dev/null || true
written=$(cat "$tmp/written")
# drain: the feed's and the file's counts stop moving (the emulated CHMUs never stop)
taken() { ctl sources | python3 -c "import json,sys; print(*(s['records'] for s in json.load(sys.stdin)['sources'] if s['name'] in ('feed', 'rot')))"; }
last=
until [ "$(taken)" = "$last" ]; do last=$(taken); sleep 2; done
ctl sources >"$tmp/sources.json"
ctl stats >"$tmp/s.end"
cat "$tmp/feed.out"
offered=$(sed -n 's/^soak-feed: \([0-9]*\) records.*/\1/p' "$tmp/feed.out")
python3 - "$tmp" "$warm" "$span" "$secs" "$written" "$offered" "$here" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[7])
from latency_window import p99
d, warm, span, secs, written, offered = sys.argv[1], *map(int, sys.argv[2:7])
samples = [tuple(map(int, l.split())) for l in open(d + "/samples")]
def at(t):  # the first minute's sample at or after t
    return next((s for s in samples if s[0] >= t), samples[-1])
def snap(t):  # stats as read then (s.0: at the start)
    return json.load(open("%s/s.%d" % (d, at(t)[0] if t > 0 else 0)))["stats"]
end = samples[-1][0]
w = at(warm)
first, nf = p99(snap(warm), snap(warm + span))
last, nl = p99(snap(end - span), snap(end))
src = {s["name"]: s for s in json.load(open(d + "/sources.json"))["sources"]}
fails = []
print("soak-long: %d s at %d records/s offered; warm-up %d s, windows of %d s" % (end, offered // max(1, secs), warm, span))
print("soak-long: RSS %d KiB after the warm-up, %d KiB at the end (%+d KiB; flat within 1024)"
      % (w[1], samples[-1][1], samples[-1][1] - w[1]))
if abs(samples[-1][1] - w[1]) > 1024:
    fails.append("RSS")
# the table of placed pages grows by doubling (daemon/core/placed.c): a step
# in RSS beside a doubling of it is that table reaching its size
print("soak-long: placed pages %s after the warm-up, %s at the end"
      % (snap(warm).get("placed_pages"), snap(end).get("placed_pages")))
print("soak-long: fds %d after the warm-up, %d at the end" % (w[2], samples[-1][2]))
if samples[-1][2] != w[2]:
    fails.append("fds")
ratio = last / first if first else float("inf") if last else 1.0
print("soak-long: record -> table p99 %.1f ms over %d records in the first window, %.1f ms over %d "
      "in the last (%.3f of the first; within 1.10)" % (first / 1000, nf, last / 1000, nl, ratio))
if ratio > 1.10:
    fails.append("latency")
print("soak-long: replay file: %d lines written, %d records taken, %d bad input (rotated every 300 s)"
      % (written, src["rot"]["records"], src["rot"]["bad_input"]))
if src["rot"]["records"] != written:
    fails.append("rotated replay lost lines")
print("soak-long: FIFO: %d offered, %d taken" % (offered, src["feed"]["records"]))
if src["feed"]["records"] != offered:
    fails.append("FIFO lost records")
print("soak-long: " + ("every verdict holds" if not fails else "FAILED: " + ", ".join(fails)))
sys.exit(1 if fails else 0)
PY
