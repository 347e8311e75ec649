#!/bin/bash
# What a replay path= feed trusts of its path (issue 44):
#  D6. a feed is never read through a symbolic link: check-config and run
#      refuse a path= that is one, and a file rotated into a link (by
#      whoever may write the directory) is not followed (logged once), so
#      a root-only file's content never reaches the log; a feed in a
#      directory others may write is warned about by check-config and run.
#  D4. one daemon per state: a second daemon with its own control socket
#      but the first one's pause_state, metrics textfile or replay state
#      file exits 1 naming the holder's pid and the file; the first goes on.
#  D5. a FIFO removed and made anew under the daemon is noticed at the next
#      poll (logged) and read: a writer to the new one is not left blocked.
#  D8. from = saved, the file rotated while the daemon was down: the old
#      file found as PATH.1 (saved device and inode) has its unread tail read
#      first; not found, the log says what was left behind.
#  D7. bad input is logged at most 4 times a cycle per source, whatever the
#      number of socket clients or FIFO writes, the rest summed up in one
#      line ("... and N more bad-input reports this cycle").
#   replay-feed-files.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
line() { printf 'mem0 dpa=%#x len=4096 count=3\n' $(($1 * 4096)); }
start() { # CONF
	"${hb[@]}" run --config "$1" 2>>"$tmp/log" &
	pid=$!
	wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null
}
stop() {
	kill -TERM "$pid"
	wait "$pid" || bad "exit status $?"
	pid=
}
source_of() { # SOURCE FIELD
	"${hb[@]}" sources --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print([s[sys.argv[2]] for s in json.load(sys.stdin)["sources"] if s["name"] == sys.argv[1]][0])' "$1" "$2"
}
records_are() { [ "$(source_of f records) $(source_of f bad_input)" = "$1 $2" ]; }

# ---- D6: links and directories others may write
mkdir -m 1777 "$tmp/pub"
printf 'root:$6$SECRETHASHxyz:19000:0:99999:7:::\n' >"$tmp/secret"
chmod 0600 "$tmp/secret"
for i in 1 2; do line "$i"; done >"$tmp/pub/feed.txt"
hb_emulated_conf "$tmp/pub.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source f]
type = replay
path = $tmp/pub/feed.txt
from = start
CONF
"${hb[@]}" check-config --config "$tmp/pub.conf" >/dev/null 2>"$tmp/cc" || bad "check-config refused: $(cat "$tmp/cc")"
grep -q "its directory $tmp/pub is world-writable" "$tmp/cc" &&
	ok "check-config warns of a feed in a world-writable directory" ||
	{ sed 's/^/# /' "$tmp/cc"; bad "no warning of the world-writable directory"; }
start "$tmp/pub.conf"
wait_until 10 records_are 2 0 || { sed 's/^/# /' "$tmp/log"; bad "not 2 records"; }
grep -q "its directory $tmp/pub is world-writable" "$tmp/log" &&
	ok "run warns of it too" || { sed 's/^/# /' "$tmp/log"; bad "run did not warn"; }
# rotated by "another user" into a link to a root-only file
mv "$tmp/pub/feed.txt" "$tmp/pub/feed.txt.1"
ln -s "$tmp/secret" "$tmp/pub/feed.txt"
wait_until 10 grep -q "feed.txt is a symbolic link now: not following it" "$tmp/log" &&
	ok "a feed rotated into a symbolic link is not followed (logged)" ||
	{ sed 's/^/# /' "$tmp/log"; bad "no word of the link"; }
sleep 1
! grep -q SECRET "$tmp/log" && records_are 2 0 &&
	ok "the link's target is never read: no bad input, nothing of it in the log" ||
	{ sed 's/^/# /' "$tmp/log"; bad "the target was read: $(source_of f records) records, $(source_of f bad_input) bad"; }
[ "$(grep -c 'is a symbolic link now' "$tmp/log")" -eq 1 ] && ok "said once" || bad "said more than once"
# a real file again: followed as a rotation
rm "$tmp/pub/feed.txt"
line 3 >"$tmp/pub/feed.txt"
wait_until 10 records_are 3 0 && ok "a file in its place again is read from its start" ||
	{ sed 's/^/# /' "$tmp/log"; bad "$(source_of f records) records, want 3"; }
stop
# the configured path a link: refused at start (check-config and run)
rm "$tmp/pub/feed.txt"
ln -s "$tmp/secret" "$tmp/pub/feed.txt"
if "${hb[@]}" check-config --config "$tmp/pub.conf" >/dev/null 2>"$tmp/cc"; then
	bad "check-config took a path= that is a symbolic link"
fi
grep -q "is a symbolic link; refusing to follow it" "$tmp/cc" && ! grep -q SECRET "$tmp/cc" &&
	ok "check-config refuses a path= that is a symbolic link" ||
	{ sed 's/^/# /' "$tmp/cc"; bad "not refused in those words"; }
if "${hb[@]}" run --once --config "$tmp/pub.conf" >/dev/null 2>"$tmp/once"; then
	bad "run --once took a path= that is a symbolic link"
fi
! grep -q SECRET "$tmp/once" && ok "so does run" || bad "run read the link's target"
rm -rf "$tmp/pub"

# ---- D4: one daemon per state file
for i in 1 2; do line "$i"; done >"$tmp/saved.txt"
hb_emulated_conf "$tmp/st.conf" "dry_run = true" "metrics_textfile = $tmp/hb.prom" <<CONF
[policy]
threshold = 1000000
[source f]
type = replay
path = $tmp/saved.txt
from = saved
state = $tmp/saved.offset
CONF
start "$tmp/st.conf"
first=$pid
second() { # NAME --set...: a second daemon on its own control socket; its exit status
	local name=$1 rc=0
	shift
	timeout $((10 * slow)) "${hb[@]}" run --config "$tmp/st.conf" \
		--set "daemon.control_socket=$tmp/ctl-$name.sock" "$@" >/dev/null 2>"$tmp/$name.err" || rc=$?
	return $rc
}
# pause_state's default is one path per host: a second daemon that finds it
# held starts (it runs until timeout stops it: 124), says so, and keeps its
# pause only until it stops
rc=0
timeout -s INT $((3 * slow)) "${hb[@]}" run --config "$tmp/st.conf" --set "daemon.control_socket=$tmp/ctl-pause.sock" \
	"--set=daemon.metrics_textfile=$tmp/hb3.prom" "--set=source.f.state=$tmp/saved3.offset" \
	>/dev/null 2>"$tmp/pause.err" || rc=$?
[ "$rc" -eq 124 ] && grep -q "warning: another hotbridge (pid $first) holds $tmp/paused.lock: this daemon keeps its pause only until it stops (daemon.pause_state set aside)" "$tmp/pause.err" &&
	ok "a second daemon on the same pause_state starts, naming pid $first, and sets the file aside" ||
	{ sed 's/^/# /' "$tmp/pause.err"; bad "second daemon on pause_state: exit $rc"; }
rc=0
second prom "--set=daemon.pause_state=$tmp/paused2" || rc=$?
[ "$rc" -eq 1 ] && grep -q "(pid $first) holds $tmp/hb.prom.lock: it uses the same daemon.metrics_textfile" "$tmp/prom.err" &&
	ok "so is one on the same metrics textfile" ||
	{ sed 's/^/# /' "$tmp/prom.err"; bad "second daemon: exit $rc"; }
rc=0
second state "--set=daemon.pause_state=$tmp/paused2" "--set=daemon.metrics_textfile=$tmp/hb2.prom" || rc=$?
[ "$rc" -eq 1 ] && grep -q "(pid $first) holds $tmp/saved.offset.lock: it uses the same \[source f\] state" "$tmp/state.err" &&
	ok "so is one on the same replay state file" ||
	{ sed 's/^/# /' "$tmp/state.err"; bad "second daemon: exit $rc"; }
line 3 >>"$tmp/saved.txt"
wait_until 10 records_are 1 0 && grep -q "hotbridge_up 1" "$tmp/hb.prom" &&
	ok "the first goes on: reads its feed, its textfile says up" ||
	{ sed 's/^/# /' "$tmp/log"; bad "first daemon: $(source_of f records) records"; }
stop

# ---- D5: a FIFO made anew
mkfifo -m 0600 "$tmp/feed.fifo"
hb_emulated_conf "$tmp/fifo.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source f]
type = replay
path = $tmp/feed.fifo
CONF
start "$tmp/fifo.conf"
line 1 >"$tmp/feed.fifo"
wait_until 10 records_are 1 0 || { sed 's/^/# /' "$tmp/log"; bad "FIFO: not 1 record"; }
rm "$tmp/feed.fifo"
mkfifo -m 0600 "$tmp/feed.fifo"
wait_until 10 grep -q "feed.fifo is another FIFO now (made anew)" "$tmp/log" &&
	ok "a FIFO made anew under the daemon is noticed (logged)" ||
	{ sed 's/^/# /' "$tmp/log"; bad "no word of the new FIFO"; }
rc=0
timeout 5 sh -c "printf 'mem0 dpa=0x888000 len=4096 count=8\\n' >'$tmp/feed.fifo'" || rc=$?
[ "$rc" -eq 0 ] && wait_until 10 records_are 2 0 &&
	ok "and read: its writer is not left blocked, its line counted" ||
	{ sed 's/^/# /' "$tmp/log"; bad "writer rc $rc, $(source_of f records) records"; }
stop

# ---- D8: rotated while down
: >"$tmp/rot.txt"
hb_emulated_conf "$tmp/rot.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source f]
type = replay
path = $tmp/rot.txt
from = saved
state = $tmp/rot.offset
CONF
start "$tmp/rot.conf"
for i in 1 2 3; do line "$i"; done >>"$tmp/rot.txt"
wait_until 10 records_are 3 0 || { sed 's/^/# /' "$tmp/log"; bad "rotation: not 3 records"; }
stop
for i in 4 5; do line "$i"; done >>"$tmp/rot.txt"
mv "$tmp/rot.txt" "$tmp/rot.txt.1"
line 6 >"$tmp/rot.txt"
start "$tmp/rot.conf"
wait_until 10 records_are 3 0 && sleep 0.5 && records_are 3 0 &&
	grep -q "rot.txt: the file read at the last stop is $tmp/rot.txt.1 now: reading its 66 unread bytes first" "$tmp/log" &&
	ok "from = saved: the lines appended while down to the file rotated to PATH.1 are read, then the new file" ||
	{ sed 's/^/# /' "$tmp/log"; bad "$(source_of f records) records, want 3 (2 old, 1 new)"; }
stop
line 7 >>"$tmp/rot.txt"
mv "$tmp/rot.txt" "$tmp/rot.txt.elsewhere"
line 8 >"$tmp/rot.txt"
start "$tmp/rot.conf"
wait_until 10 grep -q "is neither $tmp/rot.txt.1 nor $tmp/rot.txt.old: what was appended to it after byte 33 while the daemon was down is left behind unread" "$tmp/log" &&
	ok "not found there, the log says what was left behind" ||
	{ sed 's/^/# /' "$tmp/log"; bad "no word of what was left behind"; }
stop

# ---- D7: bad input bounded per cycle across clients
mkfifo -m 0600 "$tmp/bad.fifo"
hb_emulated_conf "$tmp/bad.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source f]
type = replay
path = $tmp/bad.fifo
[source s]
type = replay
socket = $tmp/bad.sock
CONF
: >"$tmp/log"
start "$tmp/bad.conf"
python3 - "$tmp/bad.sock" "$tmp/bad.fifo" <<'PY'
import os, socket, sys, time
for i in range(300):
    c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])
    c.sendall(b"garbage %d\n" % i); c.close()
fd = os.open(sys.argv[2], os.O_WRONLY)
for i in range(100):
    os.write(fd, b"garbage %d\n" % i); time.sleep(0.005)
os.close(fd)
PY
bad_of() { [ "$(source_of s bad_input) $(source_of f bad_input)" = "300 100" ]; }
wait_until 20 bad_of && sleep 0.5 || { sed 's/^/# /' "$tmp/log" | tail -20; bad "bad input: socket $(source_of s bad_input), FIFO $(source_of f bad_input)"; }
cycles=$("${hb[@]}" stats --socket "$tmp/ctl.sock" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["cycles"])')
lines=$(grep -c -e ", skipped" -e "more bad-input reports this cycle" "$tmp/log" || true)
[ "$lines" -le $((cycles * 5)) ] && [ "$lines" -lt 100 ] &&
	grep -q "bad.sock: ... and [0-9]* more bad-input reports this cycle" "$tmp/log" &&
	ok "400 bad lines from 300 clients and 100 FIFO writes: $lines log lines over $cycles cycles, summed up" ||
	{ sed 's/^/# /' "$tmp/log" | tail -20; bad "$lines log lines over $cycles cycles"; }
stop

hb_reports_ok
echo "1..$n"
