#!/bin/bash
# tests/bench/history-rss: peak RSS (VmHWM) of `hotbridge run --dry-run` on
# the emulated host with its decision history full, history_size at its
# maximum (1048576) against the minimum (16), same run: 65536 hot pages, a
# rate limit that lets almost none through and no decay, so every cycle
# records ~65536 refusals until the refusals' half of the ring has wrapped
# (the ring is touched when allocated: its cost is there from the start,
# full or not). Prints figures; fails only if it cannot run. Root: the
# control socket serves root only.
#   history-rss.sh HOTBRIDGE
set -euo pipefail
hb=$1
[ "$(id -u)" -eq 0 ] || { echo "history-rss: needs root (the control socket), skipped"; exit 77; }
tmp=$(mktemp -d)
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT

status() {
	python3 - "$tmp/ctl.sock" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(30); s.connect(sys.argv[1])
s.sendall(b'{"command":"status"}\n')
r = b""
while not r.endswith(b"\n"):
    c = s.recv(65536)
    if not c: break
    r += c
print(json.loads(r)["status"][sys.argv[2]])
PY
}

# run SIZE: prints "VmHWM_KiB entries history_bytes seconds"
run() {
	local size=$1 t0 held=0
	rm -f "$tmp/ctl.sock" "$tmp/feed.sock"
	cat >"$tmp/hb.conf" <<CONF
[daemon]
interval_ms = 100
log_level = warning
control_socket = $tmp/ctl.sock
[table]
decay = 1
history_size = $size
[topology]
emulated = true
[policy]
threshold = 1
rate_mbps = 0.0004096
burst_mb = 0.008192
hysteresis_ms = 600000
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
	chmod 0644 "$tmp/hb.conf"
	"$hb" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/run.err" &
	pid=$!
	for _ in $(seq 100); do [ -S "$tmp/feed.sock" ] && [ -S "$tmp/ctl.sock" ] && break; sleep 0.1; done
	# 65536 pages of region0, 100 accesses each
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"hpa=0x390000000 len=0x10000000 count=6553600\n"); s.close()' "$tmp/feed.sock"
	t0=$SECONDS
	# full: the refusals' half wrapped (the big one needs 8 cycles of 65536)
	while [ $((SECONDS - t0)) -lt 120 ]; do
		held=$(status history_entries)
		[ "$held" -ge $((size / 2)) ] && [ "$(status cycles)" -ge 20 ] && break
		sleep 0.5
	done
	echo "$(awk '/VmHWM/ {print $2}' "/proc/$pid/status") $held $(status history_bytes) $((SECONDS - t0))"
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
}

read -r small_hwm small_n small_bytes small_s < <(run 16)
read -r big_hwm big_n big_bytes big_s < <(run 1048576)
python3 - "$small_hwm" "$small_n" "$small_bytes" "$big_hwm" "$big_n" "$big_bytes" "$big_s" <<'PY'
import sys
sh, sn, sb, bh, bn, bb, bs = (int(x) for x in sys.argv[1:])
print("history-rss: peak RSS (VmHWM) of run --dry-run, emulated host, 65536 hot pages rate-limited:")
print("  history_size = 16:      %7d KiB, %7d entries held, ring %9d bytes" % (sh, sn, sb))
print("  history_size = 1048576: %7d KiB, %7d entries held, ring %9d bytes (full after %d s)" % (bh, bn, bb, bs))
print("  difference %d KiB = %.1f MiB for %.1f MiB of ring (64 bytes an entry)" % (bh - sh, (bh - sh) / 1024, bb / 2**20))
PY
