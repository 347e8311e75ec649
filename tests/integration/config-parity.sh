#!/bin/bash
# check-config says what run says (issue 43, newuser r4): the same start-up
# warnings (D13: an empty topology, a region not translated, a plugin
# directory that is not one), the same refusals of a path key naming a
# directory (D16), and the same verdict on numbers in a file, with --set
# and in the replay feed (D2); check-config's output loads back with a long
# path (D26); a reload says in one line what it applied
# and what needs a restart (D17).
#   config-parity.sh HOTBRIDGE DATA
set -euo pipefail
. "$(dirname "$0")/lib.sh"
data=$2
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
: >"$tmp/feed.log"
chmod 0644 "$tmp/feed.log"
# a live-host dry run fed by a replay file: no root, no CXL needed
cat >"$tmp/live.conf" <<CONF
[daemon]
dry_run = true
control_socket = $tmp/ctl.sock
[migrate]
backend = dryrun
[source f]
type = replay
path = $tmp/feed.log
# the feed is written before run --once starts
from = start
CONF
chmod 0644 "$tmp/live.conf"
echo '[]' >"$tmp/empty.json"
chmod 0644 "$tmp/empty.json"

# warned NAME NEEDLE [--set A=V]...: run --once logs NEEDLE, and check-config
# prints it as a warning, word for word, exiting 0
warned() {
	local name=$1 needle=$2 rc1=0 rc2=0
	shift 2
	"${hb[@]}" check-config --config "$tmp/live.conf" "$@" >/dev/null 2>"$tmp/$name.check" || rc1=$?
	"${hb[@]}" run --once --config "$tmp/live.conf" "$@" >/dev/null 2>"$tmp/$name.run" || rc2=$?
	if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && grep -qF -- "hotbridge: $needle" "$tmp/$name.run" &&
		grep -qF -- "hotbridge check-config: warning: $needle" "$tmp/$name.check"; then
		ok "$name: run and check-config both warn: $needle"
	else
		sed 's/^/# check-config: /' "$tmp/$name.check"
		sed 's/^/# run: /' "$tmp/$name.run"
		bad "$name: check-config $rc1, run $rc2, want 0 and 0 both saying '$needle'"
	fi
}

warned empty-topology "no CXL memdev, decoder or region in the topology: no record translates until one appears" \
	--set "topology.snapshot=$tmp/empty.json"
warned region-not-translated "region region0 not translated: extended linear cache of unknown size" \
	--set "topology.snapshot=$data/cxl-list/elc.vvv.json"
warned plugin-dir-a-file "plugins: $tmp/feed.log: not a directory, ignoring" \
	--set "daemon.plugin_dir=$tmp/feed.log"

# refused NAME NEEDLE [--set A=V]...: check-config and run --once both exit 1 naming NEEDLE
refused() {
	local name=$1 needle=$2 rc1=0 rc2=0
	shift 2
	"${hb[@]}" check-config --config "$tmp/live.conf" "$@" >/dev/null 2>"$tmp/$name.check" || rc1=$?
	"${hb[@]}" run --once --config "$tmp/live.conf" "$@" >/dev/null 2>"$tmp/$name.run" || rc2=$?
	if [ "$rc1" -eq 1 ] && [ "$rc2" -eq 1 ] && grep -qF -- "$needle" "$tmp/$name.check" &&
		grep -qF -- "$needle" "$tmp/$name.run"; then
		ok "$name: check-config and run both refuse it: $needle"
	else
		sed 's/^/# check-config: /' "$tmp/$name.check"
		sed 's/^/# run: /' "$tmp/$name.run"
		bad "$name: check-config $rc1, run $rc2, want 1 and 1 naming '$needle'"
	fi
}

mkdir -m 0755 "$tmp/adir"
refused textfile-a-directory "--set: daemon.metrics_textfile=$tmp/adir: names a directory, not a file" \
	--set "daemon.metrics_textfile=$tmp/adir"
refused textfile-trailing-slash "--set: daemon.metrics_textfile=$tmp/x/: names a directory, not a file" \
	--set "daemon.metrics_textfile=$tmp/x/"
refused damon-state-a-directory "--set: migrate.damon_state=$tmp/adir: names a directory, not a file" \
	--set "migrate.damon_state=$tmp/adir"
# newuser r5 E19, E20, E7: a path the daemon writes names nothing it would wrongly replace
mkfifo -m 0644 "$tmp/fifo"
mkdir -m 0755 "$tmp/live.conf.d" "$tmp/state"
mkdir -m 1777 "$tmp/sticky"
refused textfile-a-fifo "--set: daemon.metrics_textfile=$tmp/fifo: names a FIFO, not a file" \
	--set "daemon.metrics_textfile=$tmp/fifo"
refused textfile-the-feed "daemon.metrics_textfile=$tmp/feed.log: is [source f]'s feed (path=)" \
	--set "daemon.metrics_textfile=$tmp/feed.log"
refused textfile-the-config "daemon.metrics_textfile=$tmp/../${tmp##*/}/live.conf: is the configuration file" \
	--set "daemon.metrics_textfile=$tmp/../${tmp##*/}/live.conf"
refused textfile-a-dropin "daemon.metrics_textfile=$tmp/live.conf.d/m.conf: is in the drop-in directory" \
	--set "daemon.metrics_textfile=$tmp/live.conf.d/m.conf"
refused textfile-relative "daemon.metrics_textfile=m.prom: not an absolute path" \
	--set "daemon.metrics_textfile=m.prom"
refused textfile-world-writable-dir "daemon.metrics_textfile=$tmp/sticky/m.prom: $tmp/sticky: group- or world-writable" \
	--set "daemon.metrics_textfile=$tmp/sticky/m.prom"
refused state-the-lock "[source f]: state=$tmp/ctl.sock.lock: is daemon.control_socket's lock" \
	--set source.f.from=saved --set "source.f.state=$tmp/ctl.sock.lock"
refused state-the-feed "[source f]: state=$tmp/feed.log: is [source f]'s feed (path=)" \
	--set source.f.from=saved --set "source.f.state=$tmp/feed.log"
refused state-the-textfile "[source f]: state=$tmp/state/m.prom: is daemon.metrics_textfile" \
	--set source.f.from=saved --set "source.f.state=$tmp/state/m.prom" \
	--set "daemon.metrics_textfile=$tmp/state/m.prom"
refused state-a-directory "[source f]: state=$tmp/adir: names a directory, not a file" \
	--set source.f.from=saved --set "source.f.state=$tmp/adir"
refused damon-state-a-fifo "migrate.damon_state=$tmp/fifo: names a FIFO" \
	--set "migrate.damon_state=$tmp/fifo"
refused damon-state-the-lock "migrate.damon_state=$tmp/ctl.sock.lock: is daemon.control_socket's lock" \
	--set "migrate.damon_state=$tmp/ctl.sock.lock"
refused number-leading-zero "policy.top_k=010: '010' is not a number: a leading zero (decimal has none, octal is never read, hex starts 0x)" \
	--set policy.top_k=010

# the replay feed refuses a zero-padded number as bad input, never reading it as decimal
printf 'mem1 dpa=00020000 len=4096 count=40\nhpa=0390000000 len=4096 count=40\n' >"$tmp/feed.log"
rc=0
"${hb[@]}" run --once --config "$tmp/live.conf" --set topology.snapshot="$data/cxl-list/x2.vvv.json" \
	>"$tmp/pad.out" 2>"$tmp/pad.err" || rc=$?
if [ "$rc" -eq 0 ] && grep -qF "feed.log:1: dpa: '00020000' is not a number: a leading zero" "$tmp/pad.err" &&
	grep -qF "records 0" "$tmp/pad.out"; then
	ok "replay text: dpa=00020000 and hpa=0390000000 are bad input, as on the command line"
else
	sed 's/^/# /' "$tmp/pad.err" "$tmp/pad.out"
	bad "replay text: a zero-padded number was not refused (status $rc)"
fi
# D26: check-config's output is a valid configuration, a 234-character path included
long=$tmp/$(printf '%0*d' $((234 - ${#tmp} - 1)) 0)
: >"$long"
chmod 0644 "$long"
rc=0
"${hb[@]}" check-config --config "$tmp/live.conf" --set "source.f.path=$long" >"$tmp/out.conf" 2>/dev/null || rc=$?
chmod 0644 "$tmp/out.conf"
if [ "$rc" -eq 0 ] && [ "${#long}" -eq 234 ] && grep -qF "path = $long" "$tmp/out.conf" &&
	"${hb[@]}" check-config -q --config "$tmp/out.conf" 2>"$tmp/out.err"; then
	ok "check-config's output with a 234-character path loads back"
else
	sed 's/^/# /' "$tmp/out.err"
	bad "check-config's output with a 234-character path did not load back (status $rc)"
fi

# D17: a reload of a restart-only key says so once, without "nothing changed" beside it
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
"${hb[@]}" run --config "$tmp/live.conf" 2>"$tmp/reload.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null || bad "the daemon did not start"
printf '[table]\nmax_entries = 5000\n' >>"$tmp/live.conf"
rc=0
"${hb[@]}" reload --socket "$tmp/ctl.sock" >/dev/null 2>"$tmp/reload.client" || rc=$?
# exit 4: reloaded, with a key left for a restart (named on stderr)
[ "$rc" -eq 4 ] && grep -q "needs a restart (the running values are kept): table.max_entries$" "$tmp/reload.client" ||
	bad "reload: exit $rc, $(cat "$tmp/reload.client")"
wait_until 10 grep -q "reloaded" "$tmp/reload.err" || true
kill "$pid"
wait "$pid" || true
want="reloaded $tmp/live.conf: applied: none; changed but needs a restart (running values kept): table.max_entries"
if [ "$(grep -cE "reloaded|nothing changed|needs a restart" "$tmp/reload.err")" -eq 1 ] &&
	grep -qF "$want" "$tmp/reload.err"; then
	ok "reload: one line, nothing applied and table.max_entries needing a restart"
else
	grep reload "$tmp/reload.err" | sed 's/^/# /'
	bad "reload: want one line '$want'"
fi
hb_reports_ok
echo "1..$n"
