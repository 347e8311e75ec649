#!/bin/bash
# systemd's notifications (daemon/notify.h), against a fake NOTIFY_SOCKET
# (a datagram listener that logs each message, its lines joined by "|"),
# a daemon on the emulated host with WATCHDOG_USEC=600000 (WatchdogSec=0.6):
#  1. READY=1 with a STATUS= line once the loop runs;
#  2. WATCHDOG=1 from the loop, again and again (every 300 ms), none while
#     the loop is stopped (SIGSTOP), again after SIGCONT; a STATUS= with
#     rates every 10 s (a timer of its own);
#  3. RELOADING=1 with MONOTONIC_USEC=, then READY=1 with STATUS=, around
#     a reload by SIGHUP and by `hotbridge reload`, a refused one too;
#  4. STOPPING=1 at SIGTERM, then exit 0;
#  5. WATCHDOG_PID naming another process: no WATCHDOG=1 (it is not ours),
#     and still a STATUS= with rates within 10 s: it does not wait for
#     pings (the unit's WatchdogSec=60s pings every 30 s).
#   notify.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" "$lpid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid= lpid=

: >"$tmp/feed.log"
hb_emulated_conf "$tmp/hb.conf" <<CONF
[source feed]
type = replay
path = $tmp/feed.log
CONF

listen() { # listen LOG: the fake NOTIFY_SOCKET at $tmp/notify.sock
	rm -f "$tmp/notify.sock"
	python3 - "$tmp/notify.sock" "$1" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        log.write(s.recv(4096).decode().replace("\n", "|") + "\n")
PY
	lpid=$!
	wait_until 5 test -S "$tmp/notify.sock"
}
count() { grep -c -- "$2" "$1" || true; }
cycles() {
	"${hb[@]}" status --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["cycles"])'
}
past() { [ "$(cycles)" -ge "$1" ]; }
more() { [ "$(count "$1" "$2")" -ge "$3" ]; }

listen "$tmp/n.log"
NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=600000 \
	"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/d.err" &
pid=$!
wait_until 10 more "$tmp/n.log" "^READY=1|STATUS=running: 1 source(s), migrator dryrun" 1 &&
	ok "READY=1 with STATUS=: $(grep -m1 "^READY" "$tmp/n.log")" ||
	{ sed 's/^/# /' "$tmp/n.log"; bad "no READY=1 with STATUS="; }

# 2. the watchdog
w=$(count "$tmp/n.log" "^WATCHDOG=1$")
wait_until 10 more "$tmp/n.log" "^WATCHDOG=1$" $((w + 3)) &&
	ok "WATCHDOG=1 again and again ($(count "$tmp/n.log" "^WATCHDOG=1$") so far)" ||
	{ sed 's/^/# /' "$tmp/n.log" | tail; bad "no WATCHDOG=1 pings"; }

# 2b. a loop that stops turning stops the pings (issue 44): SIGSTOP, the
# closest a test comes to a hung loop; none for 2 s, where WatchdogSec=0.6
# wants one every 0.6 s; SIGCONT, and they come again
kill -STOP "$pid"
sleep 0.5
w=$(count "$tmp/n.log" "^WATCHDOG=1$")
sleep 2
[ "$(count "$tmp/n.log" "^WATCHDOG=1$")" -eq "$w" ] &&
	ok "a stopped loop: no WATCHDOG=1 in 2 s (systemd would kill it after 0.6 s)" ||
	{ kill -CONT "$pid"; bad "WATCHDOG=1 while the loop was stopped"; }
kill -CONT "$pid"
wait_until 10 more "$tmp/n.log" "^WATCHDOG=1$" $((w + 2)) &&
	ok "SIGCONT: the pings come again" || bad "no WATCHDOG=1 after SIGCONT"
# 2c. STATUS= every 10 s: what the loop does, per second
wait_until 20 more "$tmp/n.log" "^STATUS=1 source(s): [0-9]* records/s, [0-9.]* pages/s promoted, [0-9.]* demoted; held: rate limit [0-9.]*/s, watermark [0-9.]*/s$" 1 &&
	ok "STATUS= every 10 s: $(grep -m1 "^STATUS=1 source" "$tmp/n.log")" ||
	{ sed 's/^/# /' "$tmp/n.log" | grep -v WATCHDOG; bad "no periodic STATUS= with rates"; }

# 3. reloads: SIGHUP, the control socket, a refused one
kill -HUP "$pid"
wait_until 10 more "$tmp/n.log" "^RELOADING=1|MONOTONIC_USEC=[0-9][0-9]*$" 1 &&
	wait_until 10 more "$tmp/n.log" "^READY=1|STATUS=running: configuration reloaded$" 1 &&
	ok "SIGHUP: RELOADING=1 with MONOTONIC_USEC=, then READY=1" ||
	{ sed 's/^/# /' "$tmp/n.log" | grep -v WATCHDOG; bad "SIGHUP: no RELOADING/READY"; }
"${hb[@]}" reload --socket "$tmp/ctl.sock" >/dev/null
wait_until 10 more "$tmp/n.log" "^RELOADING=1|MONOTONIC_USEC=" 2 &&
	wait_until 10 more "$tmp/n.log" "^READY=1|STATUS=running: configuration reloaded$" 2 &&
	ok "hotbridge reload: RELOADING=1, then READY=1" || bad "reload: no RELOADING/READY"
cp "$tmp/hb.conf" "$tmp/hb.conf.orig"
echo "interval_ms = banana" >>"$tmp/hb.conf"
kill -HUP "$pid"
wait_until 10 more "$tmp/n.log" "^READY=1|STATUS=reload refused, running configuration kept$" 1 &&
	ok "a refused reload: READY=1 again, STATUS= says it was refused" ||
	{ sed 's/^/# /' "$tmp/n.log" | grep -v WATCHDOG; bad "refused reload: no READY=1"; }
cp "$tmp/hb.conf.orig" "$tmp/hb.conf"
# RELOADING=1 before each READY=1 that follows a reload (never READY=1 twice unannounced)
python3 - "$tmp/n.log" <<'PY' && ok "each READY=1 after the first follows a RELOADING=1" || bad "READY=1 without RELOADING=1"
import sys
state = None
for line in open(sys.argv[1]):
    if line.startswith("RELOADING=1"):
        assert state == "ready", line
        state = "reloading"
    elif line.startswith("READY=1"):
        assert state in (None, "reloading"), line
        state = "ready"
assert state == "ready"
PY

# 4. the stop
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] && wait_until 5 more "$tmp/n.log" "^STOPPING=1|STATUS=SIGTERM: finishing the cycle$" 1 &&
	ok "SIGTERM: STOPPING=1, exit 0" ||
	{ sed 's/^/# /' "$tmp/n.log" | grep -v WATCHDOG; bad "SIGTERM: exit $rc, no STOPPING=1?"; }
kill "$lpid"; wait "$lpid" 2>/dev/null || true

# 5. a watchdog for another process
listen "$tmp/n2.log"
NOTIFY_SOCKET=$tmp/notify.sock WATCHDOG_USEC=600000 WATCHDOG_PID=1 \
	"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/d2.err" &
pid=$!
wait_until 10 more "$tmp/n2.log" "^READY=1" 1 || bad "second daemon: no READY=1"
c=$(cycles)
wait_until 10 past $((c + 5)) || bad "second daemon: no cycles"
# no pings here: the STATUS= with rates comes on its own 10 s timer
wait_until 15 more "$tmp/n2.log" "^STATUS=1 source(s): [0-9]* records/s, " 1 &&
	ok "no watchdog pings, still a STATUS= with rates: $(grep -m1 "^STATUS=1 source" "$tmp/n2.log")" ||
	{ sed 's/^/# /' "$tmp/n2.log"; bad "no STATUS= with rates without the watchdog's pings"; }
kill -TERM "$pid"
wait "$pid" || true
pid=
[ "$(count "$tmp/n2.log" "^WATCHDOG=1$")" -eq 0 ] && ok "WATCHDOG_PID=1 (not ours): no WATCHDOG=1" ||
	bad "WATCHDOG=1 sent for another process's watchdog"

hb_reports_ok
echo "1..$n"
