#!/bin/bash
# Records per second from a vendor plugin through hotbridge-plugin-host
# against the same plugin in the daemon (isolate = no), in one run: the
# flood plugin (tests/integration/plugins/wild.c) submits per_poll good
# records each poll, in batches of 256, stopping while backlog_full() says
# 1. Two daemons on the emulated host, one after the other, each with that
# one source for SECONDS (default 8); records/s is the source's records
# counter (`hotbridge sources`) over the second half of it. The goal: the
# host carries at least half of what the daemon takes in process.
#   plugin-host.sh HOTBRIDGE PLUGIN_BUILD_DIR [SECONDS]
set -euo pipefail
hb=$1 plugins=$2 secs=${3:-8}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the plugin directory and config must be root-owned: run as root"; exit 77; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -m 0755 "$tmp/plugins"
cp "$plugins/libwild-flood.so" "$tmp/plugins/flood.so"
chmod 0755 "$tmp/plugins/flood.so"

count() {
	"$hb" sources --socket "$tmp/ctl.sock" | python3 -c '
import json, sys
print(json.load(sys.stdin)["sources"][0]["records"])'
}

rate() { # ISOLATE: records/s
	cat >"$tmp/hb.conf" <<CONF
[daemon]
dry_run = true
interval_ms = 100
control_socket = $tmp/ctl.sock
pause_state = $tmp/paused
plugin_dir = $tmp/plugins
[topology]
emulated = true
[source flood0]
type = flood
memdev = mem0
per_poll = 100000
isolate = $1
CONF
	chmod 0644 "$tmp/hb.conf"
	"$hb" run --config "$tmp/hb.conf" 2>"$tmp/log-$1" >/dev/null &
	pid=$!
	for _ in $(seq 100); do [ -S "$tmp/ctl.sock" ] && break; sleep 0.1; done
	sleep $((secs / 2))
	local a t0 b t1
	a=$(count)
	t0=$(date +%s.%N)
	sleep $((secs - secs / 2))
	b=$(count)
	t1=$(date +%s.%N)
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
	rm -f "$tmp/ctl.sock"
	python3 -c "print(round(($b - $a) / ($t1 - $t0)))"
}

in=$(rate no)
out=$(rate yes)
python3 - "$in" "$out" <<'PY'
import sys
i, o = int(sys.argv[1]), int(sys.argv[2])
print("plugin records/s: in the daemon %d, through hotbridge-plugin-host %d" % (i, o))
print("ratio host/in-process: %.2f (goal >= 0.5)" % (o / i if i else 0))
PY
