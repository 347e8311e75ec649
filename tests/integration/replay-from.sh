#!/bin/bash
# Where a replay path= file is first read (from =; newuser r4 D3: it was
# read from line 1 at every start, old hotness promoted again):
#  1. from = end (the default): lines already there are not read, a line
#     its writer is in the middle of is read whole, appended lines are;
#  2. from = start: every line;
#  3. from = saved: nothing the first time (no state yet), then each start
#     goes on where the last run stopped: the lines appended while it was
#     down are read, the ones before are not; a file rotated while it was
#     down is read from its start;
#  4. check-config refuses a bad from, from on a socket or a FIFO, state
#     without from = saved, and a state file in a directory that is not there
#     or is read-only (newuser r5 E11: nothing was ever saved), as a feed
#     socket's (E10): run (--once) refuses them too.
#   replay-from.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
line() { printf 'mem0 dpa=%#x len=4096 count=3\n' $(($1 * 4096)); }
for i in 1 2 3; do line "$i"; done >"$tmp/end.txt"
# and a line its writer has written half of
printf 'mem0 dpa=0x9000 len=40' >>"$tmp/end.txt"
for i in 1 2 3; do line "$i"; done >"$tmp/start.txt"
for i in 1 2 3; do line "$i"; done >"$tmp/saved.txt"
mkdir "$tmp/state"
hb_emulated_conf "$tmp/hb.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source end]
type = replay
path = $tmp/end.txt
[source start]
type = replay
path = $tmp/start.txt
from = start
[source saved]
type = replay
path = $tmp/saved.txt
from = saved
state = $tmp/state/saved.offset
CONF

start() {
	"${hb[@]}" run --config "$tmp/hb.conf" 2>>"$tmp/log" &
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
records_are() { # END START SAVED: each source's (records, bad_input)
	[ "$(source_of end records) $(source_of end bad_input) $(source_of start records) $(source_of saved records)" = "$1 0 $2 $3" ]
}
got() { echo "end $(source_of end records) (bad $(source_of end bad_input)), start $(source_of start records), saved $(source_of saved records)"; }

start
wait_until 10 records_are 0 3 0 && sleep 0.5 && records_are 0 3 0 &&
	ok "at start: from = start reads its 3 lines, from = end and from = saved (nothing saved yet) none" ||
	{ sed 's/^/# /' "$tmp/log"; bad "$(got), want end 0, start 3, saved 0"; }
printf '96 count=3\n' >>"$tmp/end.txt"
line 4 >>"$tmp/end.txt"
line 4 >>"$tmp/saved.txt"
line 5 >>"$tmp/saved.txt"
wait_until 10 records_are 2 3 2 &&
	ok "from = end: the line being written at start read whole, and the one appended (2 records, none bad); from = saved: the 2 appended" ||
	{ sed 's/^/# /' "$tmp/log"; bad "$(got), want end 2 (bad 0), start 3, saved 2"; }
stop
[ -s "$tmp/state/saved.offset" ] && ok "from = saved: the offset kept in state = ($(cat "$tmp/state/saved.offset"))" ||
	bad "no state file"

# down: 3 more lines to the saved file
for i in 6 7 8; do line "$i"; done >>"$tmp/saved.txt"
start
wait_until 10 records_are 0 3 3 && sleep 0.5 && records_are 0 3 3 &&
	ok "restarted: from = saved reads the 3 lines written while it was down, not the 5 before; from = end none" ||
	{ sed 's/^/# /' "$tmp/log"; bad "$(got), want end 0, start 3, saved 3"; }
grep -q "end.txt: reading from its end (from = end, the default): the [0-9]* bytes already there are skipped" "$tmp/log" &&
	ok "from = end says what it skipped: $(grep -m1 -o "end.txt: reading from its end.*" "$tmp/log")" ||
	bad "from = end: no notice of the bytes skipped"
grep -q "saved.txt: going on at byte [0-9]* of [0-9]*, where the last run stopped" "$tmp/log" &&
	ok "logged: $(grep -m1 -o "saved.txt: going on.*" "$tmp/log")" || bad "no 'going on at byte' line"
stop

# down: rotated, the new file has 1 line
mv "$tmp/saved.txt" "$tmp/saved.txt.1"
line 9 >"$tmp/saved.txt"
start
wait_until 10 records_are 0 3 1 &&
	ok "rotated while it was down: from = saved reads the new file from its start (1 record)" ||
	{ sed 's/^/# /' "$tmp/log"; bad "$(got), want saved 1"; }
grep -q "saved.txt is another file than at the last stop (rotated)" "$tmp/log" && ok "and says so" ||
	bad "rotation while down not logged"
stop

refused() { # NAME EXPECTED-MESSAGE, the section on stdin
	local rc=0
	hb_emulated_conf "$tmp/$1.conf" "dry_run = true"
	cat >>"$tmp/$1.conf"
	"${hb[@]}" check-config --config "$tmp/$1.conf" >/dev/null 2>"$tmp/$1.err" || rc=$?
	[ "$rc" -ne 0 ] && grep -qF "$2" "$tmp/$1.err" && ok "check-config refuses $1: $(head -c 160 "$tmp/$1.err")" ||
		bad "$1: exit $rc, $(cat "$tmp/$1.err")"
}
mkfifo "$tmp/fifo"
refused from-bogus "from=tail: want end (new lines only, the default), start or saved" <<CONF
[source f]
type = replay
path = $tmp/start.txt
from = tail
CONF
refused from-socket "from=start: a socket= has no start or end" <<CONF
[source f]
type = replay
socket = $tmp/x.sock
from = start
CONF
refused from-fifo "from=end: path=$tmp/fifo is a FIFO, read as it comes" <<CONF
[source f]
type = replay
path = $tmp/fifo
from = end
CONF
refused state-without-saved "state=$tmp/s.offset is where from=saved keeps its offset; from is start" <<CONF
[source f]
type = replay
path = $tmp/start.txt
from = start
state = $tmp/s.offset
CONF
refused state-dir-missing "the state file $tmp/nodir/s.offset: its directory $tmp/nodir: No such file or directory" <<CONF
[source f]
type = replay
path = $tmp/start.txt
from = saved
state = $tmp/nodir/s.offset
CONF
# a read-only directory (a read-only bind mount stands in for the unit's
# ProtectSystem=strict; chmod does not stop root)
mkdir -m 0700 "$tmp/ro"
ro() { unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' \
	sh "$tmp/ro" "$@"; }
if ! unshare -m true 2>/dev/null; then
	skip "no unshare -m here: a read-only state directory not tried"
else
	for key in "source.f.state=$tmp/ro/f.offset" "source.f.socket=$tmp/ro/f.sock"; do
		hb_emulated_conf "$tmp/ro.conf" "dry_run = true" <<CONF
[source f]
type = replay
${key#source.f.}
CONF
		[ "${key#source.f.state}" != "$key" ] && sed -i "s|^state|path = $tmp/start.txt\nfrom = saved\nstate|" "$tmp/ro.conf"
		for cmd in check-config "run --once"; do
			rc=0
			# shellcheck disable=SC2086 # two words
			ro "${hb[@]}" $cmd --config "$tmp/ro.conf" >/dev/null 2>"$tmp/ro.err" || rc=$?
			[ "$rc" -eq 1 ] && grep -qF "its directory $tmp/ro is not writable: Read-only file system" "$tmp/ro.err" &&
				ok "$cmd refuses ${key#source.f.} in a read-only directory" ||
				bad "$cmd ${key#source.f.} in a read-only directory: exit $rc, $(cat "$tmp/ro.err")"
		done
	done
fi
hb_reports_ok
echo "1..$n"
