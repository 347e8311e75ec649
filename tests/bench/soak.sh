#!/bin/bash
# tests/bench/soak: `hotbridge run --dry-run` on the emulated host fed binary
# replay records through a FIFO as fast as `cat` can write them, for SECONDS
# (default 20; the reliability issue asks for 600). Prints records/s taken
# in, what was dropped and why, and RSS over time. The FIFO applies
# back-pressure: a writer faster than the daemon is slowed, nothing is lost.
#   soak.sh HOTBRIDGE [SECONDS]
set -euo pipefail
hb=$1 secs=${2:-20}
tmp=$(mktemp -d)
trap 'kill $pid $feeder 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid= feeder=
mkfifo "$tmp/feed"
python3 - "$tmp/records.bin" <<'PY'
import struct, sys
# 1 M records over mem0/mem1's 512 MiB each, 4 KiB units, Zipf-ish counts
out = bytearray(b"HBRB" + struct.pack("<HHII", 1, 16, 56, 0))
for i in range(1 << 20):
    page = (i * 2654435761) % (1 << 17)
    memdev = b"mem%d" % (i & 1)
    out += struct.pack("<II16sQQQQ", 1, 0, memdev, page << 12, 4096, 1 + (i % 97 == 0) * 50, 0)
open(sys.argv[1], "wb").write(out)
PY
cat >"$tmp/hb.conf" <<CONF
[daemon]
dry_run = true
interval_ms = 1000
control_socket = $tmp/ctl.sock
log_level = warning
[topology]
emulated = true
[source feed]
type = replay
path = $tmp/feed
CONF
chmod 0644 "$tmp/hb.conf"
"$hb" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
sleep 1
# the header once, then the records again and again
( head -c 16 "$tmp/records.bin"; while :; do tail -c +17 "$tmp/records.bin"; done ) >"$tmp/feed" &
feeder=$!
start=$(date +%s.%N)
prev=0
for s in $(seq 1 "$secs"); do
	sleep 1
	if [ $((s % 5)) -eq 0 ] || [ "$s" -eq "$secs" ]; then
		rec=$("$hb" stats --socket "$tmp/ctl.sock" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["records"])')
		rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
		echo "t=${s}s records ${rec} (+$(( (rec - prev) / 5 ))/s over the last 5 s), RSS ${rss} KiB"
		prev=$rec
	fi
done
end=$(date +%s.%N)
kill "$feeder" 2>/dev/null || true
"$hb" stats --socket "$tmp/ctl.sock" >"$tmp/stats.json"
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
python3 - "$tmp/stats.json" "$start" "$end" "$hwm" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
t = float(sys.argv[3]) - float(sys.argv[2])
drop = {k: v for k, v in s["dropped"].items() if v}
print("soak: %d records in %.1f s = %.2f M records/s into the table (goal 5 M/s); translated %d; "
      "dropped %s; %d cycles; peak RSS %s KiB; lost: 0 (FIFO back-pressure)"
      % (s["records"], t, s["records"] / t / 1e6, s["translated"], drop or "none", s["cycles"], sys.argv[4]))
PY
