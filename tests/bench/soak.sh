#!/bin/bash
# tests/bench/soak: `hotbridge run --dry-run` on the emulated host fed binary
# replay records through a FIFO by soak-feed at RATE records/s (default
# 5 M/s) for SECONDS (default 20; the reliability issue asks for 600).
# Every 10 s: records taken in, RSS. At the end: offered vs taken (lost =
# offered - taken once the FIFO is drained; the FIFO applies back-pressure,
# so a daemon slower than RATE lowers the offered rate instead of losing
# records), drops by reason, record -> table and record -> decision
# latency (p50/p99/max), peak RSS. SOAK_CONF=FILE, when set, is appended to
# the daemon's configuration (sections included): soak-demote.conf turns
# demotion on, and the demotion step's time and pages demoted are then
# printed too. Other sources there (the emulated
# CHMUs, whose ground truth is the emulated host's coldness: pages no CHMU
# counts are never idle) add records of their own: offered vs taken and
# the drain count the feed's alone.
#   soak.sh HOTBRIDGE SOAK_FEED [SECONDS] [RATE] [INTERVAL_MS]
set -euo pipefail
hb=$1 feed=$2 secs=${3:-20} rate=${4:-5000000} interval=${5:-1000}
tmp=$(mktemp -d)
trap 'kill $pid $feeder 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid= feeder=
. "$(dirname "$0")/fifo-daemon.sh"
fifo_daemon "$hb" "$interval" "log_level = warning
$(cat ${SOAK_CONF:+"$SOAK_CONF"} </dev/null)"
stat() { "$hb" stats --socket "$tmp/ctl.sock" | python3 -c "import json,sys; s=json.load(sys.stdin)['stats']; print($1)"; }
# records taken from the feed alone
fed() { "$hb" sources --socket "$tmp/ctl.sock" |
	python3 -c "import json,sys; print(next(s['records'] for s in json.load(sys.stdin)['sources'] if s['name'] == 'feed'))"; }
"$feed" "$tmp/feed" "$rate" "$secs" >"$tmp/feed.out" &
feeder=$!
prev=0 t=0
echo "t_s records_per_s rss_kib"
while kill -0 "$feeder" 2>/dev/null; do
	sleep 10
	t=$((t + 10))
	rec=$(stat 's["records"]')
	echo "$t $(( (rec - prev) / 10 )) $(awk '/VmRSS/ {print $2}' "/proc/$pid/status")"
	prev=$rec
done
wait "$feeder"
cat "$tmp/feed.out"
offered=$(sed -n 's/^soak-feed: \([0-9]*\) records.*/\1/p' "$tmp/feed.out")
# drain: the FIFO is empty once the count stops moving
last=-1
until [ "$(fed)" = "$last" ]; do last=$(fed); sleep 1; done
sleep $(( (interval + 999) / 1000 + 1 ))     # a decision after the last record
"$hb" stats --socket "$tmp/ctl.sock" >"$tmp/stats.json"
taken=$(fed)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
kill -0 "$pid" || { echo "the daemon died"; cat "$tmp/log"; exit 1; }
python3 - "$tmp/stats.json" "$offered" "$hwm" "$interval" "$taken" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
offered, hwm, interval, taken = int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
drop = {k: v for k, v in s["dropped"].items() if v}
lat = s["latency_us"]
def ms(d):
    return "p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d records" % (
        d["p50"] / 1e3, d["p99"] / 1e3, d["max"] / 1e3, d["records"])
others = s["records"] - taken
print("soak: offered %d, taken %d, lost %d%s; translated %d; dropped %s; %d cycles of %s ms; peak RSS %s KiB"
      % (offered, taken, offered - taken, ", %d from the other sources" % others if others else "",
         s["translated"], drop or "none", s["cycles"], interval, hwm))
print("soak: record -> table: " + ms(lat["record_to_table"]))
print("soak: record -> decision: " + ms(lat["record_to_decision"]))
if sum(s["demote_work"].values()) or lat["demote_step"]["cycles"]:
    d = lat["demote_step"]
    print("soak: demotion step: p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d cycles; pages demoted %s"
          % (d["p50"] / 1e3, d["p99"] / 1e3, d["max"] / 1e3, d["cycles"],
             {k: v for k, v in s["demoted"].items() if v} or "none"))
sys.exit(0 if offered == taken else 1)
PY
