#!/bin/bash
# Ingestion against a running daemon (emulated host: region0 = 1 GiB at
# 0x390000000 on node 2, dry-run migrator, a replay socket):
#  1. a record crossing region0's end puts only region0's pages in the table
#     (a threshold nothing reaches keeps them there to be looked at)
#     (explain past the end: not in the table, on no node, never `promote`);
#  2. a hostile feed (records naming all of region0, longer than all CXL
#     memory, 2^63 bytes) never stalls the loop: `status` answers within
#     100 ms (x10 under a checker) all along, bad records are counted;
#  3. the emulated host without --dry-run is refused, naming why.
#   ingest.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

hb_emulated_conf "$tmp/hb.conf" <<CONF
[policy]
threshold = 1000000
rate_mbps = 0
hysteresis_ms = 0
[source feed]
type = replay
socket = $tmp/feed.sock
CONF

# 3. the emulated host's addresses never reach a real migrator
if "${hb[@]}" run --once --config "$tmp/hb.conf" >"$tmp/real.out" 2>"$tmp/real.err"; then
	bad "emulated = true without --dry-run ran"
else
	grep -q "emulated host's addresses are not this machine's memory" "$tmp/real.err" &&
		ok "emulated = true without --dry-run is refused: $(head -c 120 "$tmp/real.err")" ||
		{ cat "$tmp/real.err"; bad "refused without saying why"; }
fi

"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/loop.err" &
pid=$!
wait_until 10 test -S "$tmp/ctl.sock"
wait_until 10 test -S "$tmp/feed.sock"

ask() { # ask COMMAND [ARG...]: one control request, the reply on stdout
	python3 - "$tmp/ctl.sock" "$@" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(30); s.connect(sys.argv[1])
req = {"command": sys.argv[2]}
if len(sys.argv) > 3: req["hpa"] = sys.argv[3]
s.sendall((json.dumps(req) + "\n").encode())
r = b""
while not r.endswith(b"\n"):
    c = s.recv(65536)
    if not c: break
    r += c
print(r.decode().strip())
PY
}
feed() { # feed LINES...: each a replay text record, then hang up
	python3 - "$tmp/feed.sock" "$@" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(("\n".join(sys.argv[2:]) + "\n").encode()); s.close()
PY
}
stat_of() { ask stats | python3 -c 'import json,sys; s=json.load(sys.stdin)["stats"]; print(eval(sys.argv[1]))' "$1"; }

# 1. hpa=0x3cfff0000 len=0x30000: 0x10000 inside region0, 0x20000 past its end
feed "hpa=0x3cfff0000 len=0x30000 count=3000"
wait_until 10 test "$(stat_of 's["records"]')" = 1
ask explain 0x3cfff0000 >"$tmp/in.json"
ask explain 0x3d0010000 >"$tmp/out.json"
sed 's/^/# /' "$tmp/in.json" "$tmp/out.json"
python3 - "$tmp/in.json" "$tmp/out.json" <<'PY' && ok "a record crossing region0's end: its pages inside are on node 2, the one past the end is on no node and not promoted" || bad "pages past the region's end were taken in"
import json, sys
i, o = (json.load(open(p)) for p in sys.argv[1:3])
i, o = i.get("explain", i), o.get("explain", o)
assert i["node"] == 2 and i["heat"] > 0, i
assert o["node"] is None and o["heat"] == 0 and o["decision"] != "promote", o
PY
[ "$(stat_of 's["partial"], s["dropped"]["unmapped"], s["pages_added"], s["pages_dropped"]["unmapped"]')" = "(1, 1, 16, 32)" ] &&
	ok "counted exactly: 1 record partly applied, 16 pages added, its 32-page tail unmapped" ||
	bad "counts: $(stat_of 's')"

# 2. a hostile feed for 3 s; status asked every 50 ms meanwhile
python3 - "$tmp/feed.sock" "$tmp/ctl.sock" "$slow" >"$tmp/hostile.out" <<'PY' && ok "hostile feed: $(cat "$tmp/hostile.out")" || bad "status too slow under a hostile feed: $(cat "$tmp/hostile.out")"
import json, socket, sys, threading, time
feed_path, ctl, slow = sys.argv[1], sys.argv[2], int(sys.argv[3])
stop = time.monotonic() + 3
sent = [0]
def feeder():
    lines = ["hpa=0x390000000 len=0x40000000 count=1",      # all of region0
             "mem0 dpa=0x0 len=0x20000000 count=1",         # all of mem0
             "hpa=0x390000000 len=0x2000000000 count=1",    # longer than all CXL memory
             "hpa=0x0 len=0x7fffffffffffffff count=1"]
    chunk = ("\n".join(lines) + "\n").encode() * 64
    s = socket.socket(socket.AF_UNIX); s.connect(feed_path); s.settimeout(0.2)
    while time.monotonic() < stop:
        try:
            s.sendall(chunk); sent[0] += 4 * 64
        except socket.timeout:
            pass    # the daemon pushes back: its backlog is being worked off
    s.close()
t = threading.Thread(target=feeder); t.start()
lat = []
while time.monotonic() < stop:
    s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(ctl)
    t0 = time.monotonic()
    s.sendall(b'{"command":"status"}\n')
    r = b""
    while not r.endswith(b"\n"):
        c = s.recv(65536)
        if not c: break
        r += c
    lat.append(time.monotonic() - t0); s.close()
    assert json.loads(r)["ok"], r
    time.sleep(0.05)
t.join()
# p95 within 100 ms; the worst within 1 s, since on a shared 2-core
# machine the scheduler alone can hold a process ~150 ms (the old loop
# held status for seconds: both limits catch that)
lat.sort()
worst, p95 = lat[-1], lat[int(len(lat) * 0.95)]
print("%d records sent, %d status requests, median %.1f ms, p95 %.1f ms (limit %d), worst %.1f ms (limit %d)"
      % (sent[0], len(lat), lat[len(lat) // 2] * 1e3, p95 * 1e3, 100 * slow, worst * 1e3, 1000 * slow))
sys.exit(0 if p95 < 0.1 * slow and worst < 1.0 * slow and sent[0] > 0 else 1)
PY
# what was sent is still being worked off (its backlog bounded, the feed
# pushed back): the bad ones among it are counted as they are reached
bad_gt0() { [ "$(stat_of 's["dropped"]["bad_record"]')" -gt 0 ]; }
wait_until 30 bad_gt0 || true
ok "after the feed: $(stat_of '"%d records, %d in the backlog, %d pages added" % (s["records"], s["backlog"], s["pages_added"])')"
bad_records=$(stat_of 's["dropped"]["bad_record"]')
[ "$bad_records" -gt 0 ] && ok "records longer than all CXL memory counted in bad_record ($bad_records)" || bad "bad_record $bad_records"
n_warn=$(grep -c "bad record(s), counted in bad_record" "$tmp/loop.err" || true)
[ "$n_warn" -gt 0 ] && [ "$n_warn" -lt "$bad_records" ] && ok "reported once per burst: $n_warn log lines for $bad_records bad records" || bad "$n_warn reports for $bad_records bad records"
t0=$SECONDS
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM with a backlog: exit status 0 after $((SECONDS - t0)) s" || bad "exit status $?"
pid=
hb_reports_ok
echo "1..$n"
