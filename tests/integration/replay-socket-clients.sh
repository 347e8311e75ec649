#!/bin/bash
# A replay feed socket at its 64-client limit (newuser r5 E15: 64 idle
# connections locked every producer out for good, and a refused producer's
# first send() succeeded while its line was dropped):
#  1. 70 connections that send nothing, then a producer: all its lines
#     arrive (the ones idle longest were closed to make room), and the log
#     says so;
#  2. a client closed so while holding part of a line has that part
#     counted as bad input, not dropped silently.
#   replay-socket-clients.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the feed socket's peer check)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
hb_emulated_conf "$tmp/hb.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
"${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
wait_until 10 test -S "$tmp/feed.sock"
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null

stat_of() { # FIELD
	"${hb[@]}" stats --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"][sys.argv[1]])' "$1"
}
python3 - "$tmp/feed.sock" "$tmp/ctl.sock" <<'PY' >"$tmp/out" 2>&1 &
import socket, sys, time
P = sys.argv[1]
# the first holds part of a line; the other 69 send nothing
first = socket.socket(socket.AF_UNIX); first.connect(P)
first.sendall(b"mem0 dpa=0x7000 len=4")
time.sleep(0.5)
idle = []
for i in range(69):
    s = socket.socket(socket.AF_UNIX); s.connect(P); idle.append(s)
time.sleep(0.5)
s = socket.socket(socket.AF_UNIX); s.connect(P)
for i in range(10):
    s.sendall(b"mem0 dpa=0x%x len=4096 count=2\n" % (0x900000 + i * 4096))
    time.sleep(0.05)
s.close()
time.sleep(3)
print("done")
PY
py=$!
records_are() { [ "$(stat_of records)" = "$1" ]; }
wait_until 10 records_are 10 && ok "70 idle connections, then a producer: its 10 lines all arrive" ||
	{ sed 's/^/# /' "$tmp/log"; bad "records $(stat_of records)"; }
grep -q "feed: 64 clients already: closed the one idle longest" "$tmp/log" &&
	ok "the log names the client closed for the newcomer" || { sed 's/^/# /' "$tmp/log"; bad "no eviction logged"; }
bad_is() { [ "$(stat_of bad_input)" = "$1" ]; }
wait_until 5 bad_is 1 && ok "the part of a line the first (idlest) client held is counted bad" ||
	bad "bad_input $(stat_of bad_input)"
wait "$py"
kill "$pid"
wait "$pid" || true
pid=
hb_reports_ok
echo "1..$n"
