#!/bin/bash
# `hotbridge pause` survives a restart (newuser r5 E18): [daemon]
# pause_state keeps it in a file, so a crash (SIGKILL here, as
# Restart=on-failure would restart it) does not undo an operator's pause:
#  1. pause, SIGKILL, start again: still paused, status and the start-up
#     log say "kept from the last run";
#  2. resume, SIGTERM, start again: running, the file gone.
#   pause-state.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

hb_emulated_conf "$tmp/hb.conf" <<CONF
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
start() {
	"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/loop$1.err" &
	pid=$!
	wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null || bad "no daemon ($1)"
}
state() { "${hb[@]}" status --socket "$tmp/ctl.sock" | python3 -c 'import json,sys; s=json.load(sys.stdin)["status"]; print(s["state"], s.get("paused_kept"), s["promotion"])'; }

start 1
"${hb[@]}" pause --socket "$tmp/ctl.sock" >/dev/null || bad "pause"
[ -f "$tmp/paused" ] && ok "pause writes $tmp/paused" || bad "no pause state file"
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
start 2
s=$(state)
[ "$s" = "paused True paused" ] && grep -q "paused (kept from the last run" "$tmp/loop2.err" &&
	ok "after SIGKILL and a restart: still paused, kept from the last run" ||
	{ sed 's/^/# /' "$tmp/loop2.err"; bad "after a restart: '$s'"; }
"${hb[@]}" status --socket "$tmp/ctl.sock" | grep -q 'paused (kept from the last run)' &&
	ok "status says why: kept from the last run" || bad "status does not say kept"
"${hb[@]}" resume --socket "$tmp/ctl.sock" >/dev/null || bad "resume"
[ ! -e "$tmp/paused" ] && ok "resume removes the pause state file" || bad "pause state file left"
kill -TERM "$pid"; wait "$pid" || bad "SIGTERM: exit status $?"
start 3
s=$(state)
[ "$s" = "running None active" ] && ok "resume, restart: running" || bad "after resume and restart: '$s'"
kill -TERM "$pid"; wait "$pid" || bad "SIGTERM: exit status $?"
pid=
hb_reports_ok
echo "1..$n"
