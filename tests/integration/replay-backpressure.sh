#!/bin/bash
# A burst of 4 times the ingestion backlog at once into each replay
# transport (a followed file, a FIFO, a socket) of a running daemon with
# [daemon] backlog = 65536: the sources stop reading while the backlog is
# full and go on as it drains (newuser r4 D1), so every line is a record,
# none is torn (bad_input 0) or dropped as backlog_full, and
# records = translated + dropped + backlog holds.
#   replay-backpressure.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
backlog=65536
lines=$((4 * backlog))
mkfifo "$tmp/fifo"
: >"$tmp/feed.txt"
hb_emulated_conf "$tmp/hb.conf" "dry_run = true" "backlog = $backlog" <<CONF
[policy]
threshold = 1000000
[source file]
type = replay
path = $tmp/feed.txt
[source fifo]
type = replay
path = $tmp/fifo
[source sock]
type = replay
socket = $tmp/feed.sock
CONF
python3 - "$lines" >"$tmp/burst.txt" <<'PY'
import sys
n = int(sys.argv[1])
sys.stdout.write("".join("mem%d dpa=%#x len=4096 count=3\n" % (i % 2, (i // 2) * 4096 % 0x20000000)
                         for i in range(n)))
PY
"${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
wait_until 10 test -S "$tmp/feed.sock"
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null

stat_of() {
	"${hb[@]}" stats --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; s=json.load(sys.stdin)["stats"]; print(eval(sys.argv[1]))' "$1"
}
source_of() { # SOURCE FIELD
	"${hb[@]}" sources --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print([s[sys.argv[2]] for s in json.load(sys.stdin)["sources"] if s["name"] == sys.argv[1]][0])' "$1" "$2"
}
is() { [ "$(stat_of "$1")" = "$2" ]; }
# records, bad input, backlog_full drops, what waits, and whether
# records = translated + dropped + backlog
counts='(s["records"], s["bad_input"], s["dropped"]["backlog_full"], s["backlog"], s["records"] == s["translated"] + s["records_dropped"] + s["backlog"])'

total=0
burst() { # NAME: wait for its lines, then check the counts
	local name=$1 got
	total=$((total + lines))
	wait_until 60 is "$counts" "($total, 0, 0, 0, True)" || true
	got=$(stat_of "$counts")
	[ "$got" = "($total, 0, 0, 0, True)" ] &&
		[ "$(source_of "$name" records)" = "$lines" ] &&
		ok "$name: $lines lines (4 x the backlog) at once: all $lines records, none torn or dropped, records = translated + dropped + backlog (waited in the backlog so far: $(stat_of 's["deferred"]'))" ||
		{ sed 's/^/# /' "$tmp/log" | tail -20; bad "$name: records, bad_input, backlog_full, backlog, identity: $got, want ($total, 0, 0, 0, True); its records $(source_of "$name" records)"; }
}

cat "$tmp/burst.txt" >>"$tmp/feed.txt"
burst file
cat "$tmp/burst.txt" >"$tmp/fifo"
burst fifo
python3 - "$tmp/feed.sock" "$tmp/burst.txt" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(open(sys.argv[2], "rb").read())
s.close()
PY
burst sock
! grep -q "backlog is full" "$tmp/log" && ok "no 'backlog is full' warning: nothing was dropped" ||
	bad "$(grep -m1 "backlog is full" "$tmp/log")"

kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=
hb_reports_ok
echo "1..$n"
