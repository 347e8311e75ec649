#!/bin/bash
# A daemon stopped while a replay line is half read (a FIFO's writer, a
# socket client and a followed file each in the middle of one) does not
# count that line as bad input: the daemon cut it by stopping, not the
# producer, and nothing is logged after the exit summary (newuser r4 D25:
# "missing len=, skipped" came after "exiting after ...").
#   replay-stop-cuts-no-line.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; exec 3>&- 4>&- || true; rm -rf "$tmp"' EXIT
pid=
mkfifo "$tmp/fifo"
: >"$tmp/feed.txt"
# a long interval: stopped after the first poll (which reads the file) and
# before the second, a FIFO's half line is not yet taken for a dead writer's
printf '[daemon]\ninterval_ms = 4000\ndry_run = true\ncontrol_socket = %s\n[topology]\nemulated = true\n' "$tmp/ctl.sock" >"$tmp/hb.conf"
printf '[source fifo]\ntype = replay\npath = %s\n[source sock]\ntype = replay\nsocket = %s\n[source file]\ntype = replay\npath = %s\n' \
	"$tmp/fifo" "$tmp/feed.sock" "$tmp/feed.txt" >>"$tmp/hb.conf"
chmod 0644 "$tmp/hb.conf"
"${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
wait_until 10 test -S "$tmp/feed.sock"
exec 3<>"$tmp/fifo"
printf 'mem0 dpa=0x1000 len=4096 count=2\nmem0 dpa=0x2000 len=40' >&3
printf 'mem0 dpa=0x3000 len=4096 count=2\nmem0 dpa=0x4000 len=40' >>"$tmp/feed.txt"
python3 - "$tmp/feed.sock" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"mem0 dpa=0x5000 len=4096 count=2\nmem0 dpa=0x6000 len=40")
time.sleep(30)
PY
client=$!
# the three whole lines are in before the stop (the file's at its first poll)
records() { "${hb[@]}" stats --socket "$tmp/ctl.sock" 2>/dev/null | grep -q '"records": 3'; }
wait_until 30 records || { sed 's/^/# /' "$tmp/log"; bad "the 3 whole lines did not arrive"; }
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=
kill "$client" 2>/dev/null || true
last=$(tail -n 1 "$tmp/log")
case "$last" in
*"exiting after"*", 0 bad input,"*) ok "the exit summary is the last line, with 0 bad input: ${last:0:160}" ;;
*) sed 's/^/# /' "$tmp/log"; bad "the log ends with: $last" ;;
esac
! grep -q "skipped" "$tmp/log" && ok "no half line counted bad" || bad "$(grep -m1 skipped "$tmp/log")"
hb_reports_ok
echo "1..$n"
