# SPDX-License-Identifier: MIT
# Sourced by the bench scripts: starts `hotbridge run` (dry run, emulated
# host) whose one source is a replay FIFO, and waits for its control socket.
#   fifo_daemon HOTBRIDGE INTERVAL_MS [EXTRA_DAEMON_KEYS]
# Uses $tmp; sets pid; the FIFO is $tmp/feed, the socket $tmp/ctl.sock,
# the log $tmp/log.
fifo_daemon() {
	mkfifo "$tmp/feed"
	cat >"$tmp/hb.conf" <<CONF
[daemon]
dry_run = true
interval_ms = $2
control_socket = $tmp/ctl.sock
${3:-}
[topology]
emulated = true
[source feed]
type = replay
path = $tmp/feed
CONF
	chmod 0644 "$tmp/hb.conf"
	"$1" run --config "$tmp/hb.conf" 2>"$tmp/log" &
	pid=$!
	for _ in $(seq 50); do [ -S "$tmp/ctl.sock" ] && break; sleep 0.1; done
}
