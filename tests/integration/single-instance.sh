#!/bin/bash
# One daemon per control socket (emulated host, dry run, a replay feed
# socket):
#  1. a second `hotbridge run` exits 1 naming the first one's PID and
#     <control_socket>.lock; the first still answers `status` and still
#     reads its feed afterwards (its sockets were neither stolen nor
#     unlinked);
#  2. `run --once` (which takes no lock) cannot steal the live feed socket;
#  3. after the first is killed -9, its stale sockets are replaced by the
#     next run, which serves both; at SIGTERM it removes its own sockets;
#  4. a control socket path taken by a file, a symbolic link or another
#     listener: run exits 1 naming it (it needs its control socket).
#   single-instance.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

hb_emulated_conf "$tmp/hb.conf" <<CONF
[policy]
threshold = 1000000
[source feed]
type = replay
socket = $tmp/feed.sock
CONF

feed() { # feed LINE: one replay text record, then hang up
	python3 - "$tmp/feed.sock" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode()); s.close()
PY
}
records() {
	"${hb[@]}" stats --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["records"])'
}
records_eq() { [ "$(records)" = "$1" ]; }
start() { # start LOG: a daemon in the background, up when both sockets answer
	"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$1" &
	pid=$!
	wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null
}

start "$tmp/first.err"
first=$pid
records_eq 0 && ok "first daemon (pid $first) answers status" || bad "first daemon"

# 1. the second one
rc=0
timeout $((10 * slow)) "${hb[@]}" run --dry-run --config "$tmp/hb.conf" >"$tmp/second.out" \
	2>"$tmp/second.err" || rc=$?
head -3 "$tmp/second.err" | sed "s/^/# second: /"
[ "$rc" -eq 1 ] && ok "a second run exits 1" || bad "a second run exited $rc"
grep -qx "hotbridge run: another hotbridge (pid $first) holds $tmp/ctl.sock.lock" "$tmp/second.err" &&
	ok "it names the running daemon's PID and the lock file" || bad "no PID in its error"
test -S "$tmp/ctl.sock" && test -S "$tmp/feed.sock" && ok "both sockets still there" ||
	bad "a socket was removed"
"${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null && ok "the first still answers status" ||
	bad "the first went deaf"
feed "hpa=0x390000000 len=4096 count=5"
wait_until 10 records_eq 1 && ok "the first still reads its feed" || bad "feed lost: records $(records)"

# 2. --once takes no lock, but its feed socket must not replace a live one
rc=0
timeout $((30 * slow)) "${hb[@]}" run --once --dry-run --config "$tmp/hb.conf" >/dev/null \
	2>"$tmp/once.err" || rc=$?
grep -q "feed.sock: another process listens on it" "$tmp/once.err" &&
	ok "run --once refuses the live feed socket (exit $rc)" ||
	{ sed 's/^/# /' "$tmp/once.err"; bad "run --once and the live feed socket"; }
feed "hpa=0x390001000 len=4096 count=5"
wait_until 10 records_eq 2 && ok "the first still reads its feed after run --once" ||
	bad "feed lost after --once: records $(records)"

# 3. a dead daemon's stale sockets
kill -KILL "$first"
wait "$first" 2>/dev/null || true
pid=
test -S "$tmp/ctl.sock" && test -S "$tmp/feed.sock" && ok "killed -9: its sockets stay behind" ||
	bad "no stale sockets to test with"
rc=0
"${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null 2>"$tmp/dead.err" || rc=$?
sed 's/^/# /' "$tmp/dead.err"
[ "$rc" -eq 1 ] && grep -q "nothing listens on it: the daemon is not running" "$tmp/dead.err" &&
	ok "status against the dead daemon's socket: the daemon is not running" || bad "status, dead daemon: exit $rc"
start "$tmp/third.err"
[ "$pid" != "$first" ] && kill -0 "$pid" && records_eq 0 &&
	ok "the next run replaces the stale control socket and answers status" ||
	{ sed 's/^/# /' "$tmp/third.err"; bad "the next run after kill -9"; }
feed "hpa=0x390000000 len=4096 count=5"
wait_until 10 records_eq 1 && ok "and reads the replaced feed socket" || bad "feed after kill -9"
[ "$(cat "$tmp/ctl.sock.lock")" = "$pid" ] && ok "the lock file holds its PID" ||
	bad "lock file: $(cat "$tmp/ctl.sock.lock")"
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit 0" || bad "exit status $?"
pid=
test ! -e "$tmp/ctl.sock" && test ! -e "$tmp/feed.sock" && ok "its own sockets removed at exit" ||
	bad "sockets left at exit"

# 4. the control socket's path taken by something else (newuser r5 E21): run
# exits 1 naming it, as for an empty control_socket (it needs its socket)
taken() { # taken WHAT: run against $tmp/ctl.sock as it is now
	local rc=0
	timeout 20 "${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/taken.err" || rc=$?
	sed 's/^/# /' "$tmp/taken.err"
	[ "$rc" -eq 1 ] && grep -q "control socket: $tmp/ctl.sock.*$2.*: run needs its control socket" "$tmp/taken.err" &&
		ok "control socket path taken by $1: run exits 1, naming it" || bad "control socket taken by $1: exit $rc"
}
echo hi >"$tmp/ctl.sock"
taken "a regular file" "not a socket (a regular file)"
rm "$tmp/ctl.sock"
ln -s "$tmp/elsewhere" "$tmp/ctl.sock"
taken "a symbolic link" "not a socket (a symbolic link)"
rm "$tmp/ctl.sock"
python3 - "$tmp/ctl.sock" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); time.sleep(30)
PY
lpid=$!
wait_until 5 test -S "$tmp/ctl.sock"
taken "another listener" "another process listens on it"
kill "$lpid"; wait "$lpid" 2>/dev/null || true
hb_reports_ok
echo "1..$n"
