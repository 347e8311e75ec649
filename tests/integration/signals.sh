#!/bin/bash
# Every catchable signal has its fate on purpose (daemon/signals.h,
# hotbridge(8) SIGNALS), tested on a daemon on the emulated host (dry run, a
# replay file) whose stdout and stderr are pipes whose readers are gone:
#  1. with both readers gone, it keeps cycling and serving `status` (a log
#     line to a closed pipe is EPIPE, handled: SIGPIPE is ignored);
#  2. each signal it handles without ending (HUP reloads, USR1 logs the
#     counters) or ignores (PIPE, USR2, ALRM, VTALRM, PROF, IO, PWR, and the
#     ignored-by-default CHLD, WINCH, URG) leaves it cycling and serving;
#  3. SIGTERM, and on another daemon SIGINT, end it with exit 0, its control
#     socket removed and `hotbridge_up 0` in its metrics textfile;
#  4. with its stderr in a file: SIGUSR1 logs the counters line, and a
#     stream of SIGTERMs (one after another until it is gone: the later ones
#     land during its exit) still ends it with exit 0, one "finishing" line
#     and its exit summary.
# The signals left to their default action (QUIT, the faults, XCPU, XFSZ,
# job control, real-time) are not sent: they stop it, or dump a core, on
# purpose.
#   signals.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill -KILL "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

: >"$tmp/feed.log"
hb_emulated_conf "$tmp/hb.conf" "log_level = info" "metrics_textfile = $tmp/hb.prom" <<CONF
[source feed]
type = replay
path = $tmp/feed.log
CONF

cycles() {
	"${hb[@]}" status --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["cycles"])'
}
past() { [ "$(cycles)" -ge "$1" ]; }
# serving: it answers status, and its loop runs two cycles more
serving() {
	local c
	c=$(cycles) || return 1
	wait_until 10 past $((c + 2))
}

# start_closed: a daemon whose stdout and stderr readers close, the stdout
# one at once, the stderr one after its first line; up when both are gone
start_closed() {
	rm -f "$tmp/out.fifo" "$tmp/err.fifo"
	mkfifo "$tmp/out.fifo" "$tmp/err.fifo"
	true <"$tmp/out.fifo" &
	local out_reader=$!
	head -n 1 <"$tmp/err.fifo" >"$tmp/first.err" &
	local err_reader=$!
	"${hb[@]}" run --dry-run --config "$tmp/hb.conf" >"$tmp/out.fifo" 2>"$tmp/err.fifo" &
	pid=$!
	wait "$out_reader" "$err_reader"
	wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null
}

# ended SIG RC: it exited RC, its socket removed, hotbridge_up 0 written
ended() {
	local rc=0
	wait "$pid" || rc=$?
	pid=
	[ "$rc" -eq "$2" ] || bad "SIG$1: exit $rc, not $2"
	! test -e "$tmp/ctl.sock" || bad "SIG$1: the control socket is left behind"
	grep -qx "hotbridge_up 0" "$tmp/hb.prom" || bad "SIG$1: no hotbridge_up 0 in the textfile"
	ok "SIG$1: exit $2, control socket removed, hotbridge_up 0"
}

# 1. the readers gone
start_closed
sed 's/^/# first line: /' "$tmp/first.err"
serving && ok "stdout and stderr readers gone: it keeps cycling and serving" ||
	{ wait "$pid" || echo "# exit $?"; pid=; bad "it died with its readers gone"; }

# 2. survived
for sig in HUP USR1 USR2 PIPE ALRM VTALRM PROF IO PWR CHLD WINCH URG; do
	kill -s "$sig" "$pid"
	serving && ok "SIG$sig: it keeps cycling and serving" ||
		{ wait "$pid" || echo "# exit $?"; pid=; bad "SIG$sig ended it"; }
done

# 3. the ends
rm -f "$tmp/hb.prom"
kill -TERM "$pid"
ended TERM 0
start_closed
rm -f "$tmp/hb.prom"
kill -INT "$pid"
ended INT 0

# 4. what it says
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" >/dev/null 2>"$tmp/d.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null
kill -USR1 "$pid"
wait_until 10 grep -q "SIGUSR1: running for " "$tmp/d.err" &&
	ok "SIGUSR1 logs the counters line" || bad "no counters line at SIGUSR1"
grep "SIGUSR1" "$tmp/d.err" | sed 's/^/# /'
rm -f "$tmp/hb.prom"
sent=0
while kill -TERM "$pid" 2>/dev/null; do
	sent=$((sent + 1))
done
echo "# $sent SIGTERMs sent"
ended "TERM x$sent" 0
[ "$(grep -c "SIGTERM: finishing" "$tmp/d.err")" -eq 1 ] &&
	ok "one line says it is finishing" || bad "finishing lines: $(grep -c "SIGTERM: finishing" "$tmp/d.err")"
tail -1 "$tmp/d.err" | grep -q "exiting after .* cycles: " &&
	ok "its last line is the exit summary" || { tail -3 "$tmp/d.err" | sed 's/^/# /'; bad "no summary last"; }

hb_reports_ok
echo "1..$n"
