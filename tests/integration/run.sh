#!/bin/bash
# hotbridge run on the built-in emulated CXL host (two emulated CHMUs,
# region0 = mem0 + mem1 2-way on CPU-less node 2), dry-run migrator:
#  1. --once: every record translates, and what it promotes is exactly what
#     it decided to promote;
#  2. the loop: the control socket (status, explain, pause/resume, error
#     replies to oversized and malformed requests, EPERM for a non-root
#     peer); SIGHUP with a broken config file is refused naming file:line
#     and the daemon keeps going; SIGTERM ends it with status 0.
#   run.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
cycles() { grep -c "cycle [0-9]*:" "$tmp/loop.err" || true; }
cycles_ge() { [ "$(cycles)" -ge "$1" ]; }
wait_for_cycles() { wait_until 10 cycles_ge $(($(cycles) + $1)); } # N more cycles logged

cat >"$tmp/hb.conf" <<'CONF'
[daemon]
dry_run = true
interval_ms = 200
[topology]
emulated = true
[policy]
threshold = 8
rate_mbps = 0
[source cxl0]
type = emul-chmu
memdev = mem0
capacity = 536870912
[source cxl1]
type = emul-chmu
memdev = mem1
capacity = 536870912
seed = 2
CONF
sed -i "2a control_socket = $tmp/ctl.sock\npause_state = $tmp/paused\nmetrics_textfile = $tmp/hotbridge.prom" "$tmp/hb.conf"
# under a checker, a smaller table: each cycle scans the whole table, and
# memcheck makes a 1 M-entry scan take longer than the interval
[ "$slow" -gt 1 ] && printf '[table]\nmax_entries = 65536\n' >>"$tmp/hb.conf"
chmod 0644 "$tmp/hb.conf"

"${hb[@]}" run --once --config "$tmp/hb.conf" >"$tmp/once.out" 2>"$tmp/once.err"
cat "$tmp/once.out" | sed 's/^/# /'
records=$(sed -n 's/^cycles 1, records \([0-9]*\), translated \([0-9]*\),.*/\1 \2/p' "$tmp/once.out")
set -- $records
[ -n "${1:-}" ] && [ "$1" -gt 1000 ] && [ "$1" = "$2" ] && ok "--once: $1 records from two emulated CHMUs, all translated" || bad "records/translated: '$records'"
grep -q '^dropped' "$tmp/once.out" && bad "records were dropped" || ok "nothing dropped"
promote=$(sed -n 's/^decision promote //p' "$tmp/once.out")
moved=$(sed -n 's/^migrated moved //p' "$tmp/once.out")
[ -n "$promote" ] && [ "$promote" -gt 0 ] && [ "$promote" = "$moved" ] && ok "promoted $moved pages, as many as decided" || bad "promote '$promote' moved '$moved'"
# an emul-chmu without capacity= takes its memdev's size from the topology
# (512 MiB each here; its own default of 1 GiB put half its records past
# the memdev's end, dropped as unmapped); a larger capacity= is refused
grep -v '^capacity' "$tmp/hb.conf" >"$tmp/nocap.conf"
sed 's/^capacity = .*/capacity = 0x40000000/' "$tmp/hb.conf" >"$tmp/bigcap.conf"
chmod 0644 "$tmp/nocap.conf" "$tmp/bigcap.conf"
"${hb[@]}" run --once --config "$tmp/nocap.conf" >"$tmp/nocap.out" 2>"$tmp/nocap.err"
records=$(sed -n 's/^cycles 1, records \([0-9]*\), translated \([0-9]*\),.*/\1 \2/p' "$tmp/nocap.out")
set -- $records
[ -n "${1:-}" ] && [ "$1" -gt 1000 ] && [ "$1" = "$2" ] && ! grep -q '^dropped' "$tmp/nocap.out" &&
	ok "emul-chmu without capacity=: the memdev's size, $1 records, all translated, none unmapped" ||
	{ sed 's/^/# /' "$tmp/nocap.out"; bad "emul-chmu default capacity: '$records'"; }
rc=0; "${hb[@]}" run --once --config "$tmp/bigcap.conf" >/dev/null 2>"$tmp/bigcap.err" || rc=$?
[ "$rc" = 1 ] && grep -q "\[source cxl0\]: capacity=0x40000000 is larger than memdev mem0 (512 MiB in the topology)" "$tmp/bigcap.err" &&
	ok "emul-chmu capacity larger than its memdev refused, naming both" ||
	{ sed 's/^/# /' "$tmp/bigcap.err"; bad "capacity=0x40000000: rc $rc"; }
grep -q "source nodes 2," "$tmp/once.err" && ok "source node: node 2 (CPU-less, from the topology), printed as a number" || bad "source nodes"

python3 - "$tmp/notify.sock" $((10 * slow)) >"$tmp/notify.out" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(float(sys.argv[2]))
print(s.recv(256).decode())
PY
npid=$!
wait_until 5 test -S "$tmp/notify.sock"
NOTIFY_SOCKET=$tmp/notify.sock "${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/loop.err" &
pid=$!
wait "$npid" && grep -qx "READY=1" "$tmp/notify.out" && ok "READY=1 sent to NOTIFY_SOCKET" || bad "no readiness notification"
wait_for_cycles 1
"${hb[@]}" status --socket "$tmp/ctl.sock" >"$tmp/status.json" && grep -q '"state": "running"' "$tmp/status.json" && ok "hotbridge status: running" || bad "status"
"${hb[@]}" explain --socket "$tmp/ctl.sock" mem1:0x0 >"$tmp/explain.json" && grep -q '"page": "0x390001000"' "$tmp/explain.json" && grep -q '"decision"' "$tmp/explain.json" && ok "hotbridge explain mem1:0x0 -> HPA 0x390001000 with a decision" || { cat "$tmp/explain.json"; bad "explain"; }
# each emulated CHMU's poll overruns its ingestion slice: the round that a
# backlog ends must not always begin at cxl0, or cxl1 is never polled
wait_for_cycles 3
"${hb[@]}" sources --socket "$tmp/ctl.sock" >"$tmp/sources.json"
python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["sources"]; sys.exit(not all(x["records"] > 0 for x in s))' "$tmp/sources.json" &&
	ok "the loop polls both sources ($(tr -d ' \n' <"$tmp/sources.json" | grep -o '"records":[0-9]*' | tr '\n' ' '))" ||
	{ cat "$tmp/sources.json"; bad "a source was never polled in the loop"; }
"${hb[@]}" pause --socket "$tmp/ctl.sock" >/dev/null && ok "pause" || bad "pause"
wait_for_cycles 2
"${hb[@]}" stats --socket "$tmp/ctl.sock" >"$tmp/s1.json"
wait_for_cycles 3
"${hb[@]}" stats --socket "$tmp/ctl.sock" >"$tmp/s2.json"
m1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["migrated"]["moved"])' "$tmp/s1.json")
m2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["migrated"]["moved"])' "$tmp/s2.json")
[ "$m1" = "$m2" ] && ok "paused: nothing promoted ($m1 before and after)" || bad "promoted while paused: $m1 -> $m2"
"${hb[@]}" resume --socket "$tmp/ctl.sock" >/dev/null && ok "resume" || bad "resume"
python3 - "$tmp/ctl.sock" <<'PY' && ok "oversized and malformed requests get error replies" || bad "oversized/malformed"
import socket, sys, json
def ask(data):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(data)
    r = b""
    while not r.endswith(b"\n"):
        c = s.recv(65536)
        if not c: break
        r += c
    s.close()
    return json.loads(r.decode().splitlines()[0])
a = ask(b"x" * 5000)
b = ask(b"{not json}\n")
assert a["ok"] is False and a["errno"] == "E2BIG", a
assert b["ok"] is False and b["errno"] == "EINVAL", b
PY
chmod 0711 "$tmp"; chmod 0666 "$tmp/ctl.sock"
python3 - "$tmp/ctl.sock" <<'PY' && ok "a non-root peer is refused with EPERM" || bad "non-root peer"
import os, socket, sys, json
pid = os.fork()
if pid == 0:
    os.setgid(65534); os.setuid(65534)
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
    # the daemon answers at accept time and hangs up: read, do not send
    r = json.loads(s.recv(4096).decode().splitlines()[0])
    os._exit(0 if r["ok"] is False and r["errno"] == "EPERM" else 1)
_, st = os.waitpid(pid, 0)
sys.exit(os.WEXITSTATUS(st))
PY
kill -0 "$pid" && ok "the daemon is still running" || bad "daemon died"
# a flood: 1000 clients at once (100 under a checker: valgrind serves them
# 50x slower), a third send garbage, a third stall, the
# rest ask for status; then the daemon must still answer and stay small
clients=$((slow > 1 ? 100 : 1000))
python3 - "$tmp/ctl.sock" "$clients" >"$tmp/flood.out" <<'PY' && ok "flood of $clients control clients: $(cat "$tmp/flood.out")" || bad "flood: $(cat "$tmp/flood.out")"
import socket, sys, time
path = sys.argv[1]
socks, answered, refused, errors = [], 0, 0, 0
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
    except OSError:
        errors += 1
        continue
    s.settimeout(10)
    kind = i % 3
    try:
        if kind == 0:
            s.sendall(b"\x00\xff garbage {{{\n")
        elif kind == 2:
            s.sendall(b'{"command":"status"}\n')
    except OSError:
        pass
    socks.append((kind, s))
for kind, s in socks:
    if kind == 1:
        continue
    try:
        r = s.recv(65536)
        if b'"ok":true' in r:
            answered += 1
        elif b'"ok":false' in r:
            refused += 1
    except OSError:
        errors += 1
for kind, s in socks:
    s.close()
print("%d answered, %d error replies (garbage or too many clients), %d connect errors" % (answered, refused, errors))
sys.exit(0 if answered + refused > 0 else 1)
PY
sleep 6
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null
"${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null && ok "after the flood and the stalled clients' 5 s timeout, status answers" || bad "status after the flood"
hwm=$(sed -n 's/^VmHWM:[[:space:]]*//p' "/proc/$pid/status")
ok "peak RSS of the daemon: $hwm"
capeff=$(sed -n 's/^CapEff:\t//p' "/proc/$pid/status")
[ "$capeff" = "0000000000000000" ] && ok "dry run: no capabilities left after start-up (CapEff $capeff)" || bad "CapEff $capeff"
"${hb[@]}" metrics --socket "$tmp/ctl.sock" >"$tmp/metrics.txt"
grep -q '^hotbridge_records_total [1-9]' "$tmp/metrics.txt" && grep -q '^hotbridge_pages_migrated_total{status="moved"} [1-9]' "$tmp/metrics.txt" && ok "hotbridge metrics: Prometheus text with records and moved pages" || { cat "$tmp/metrics.txt"; bad "metrics"; }
grep -q '0x' "$tmp/metrics.txt" "$tmp/hotbridge.prom" && bad "an address in the metrics" || ok "no physical address in the metrics"
grep -q '^hotbridge_cycles_total [1-9]' "$tmp/hotbridge.prom" && ok "the textfile is written each cycle" || bad "textfile"

printf '[policy]\nthreshold = oops\n' >"$tmp/hb.conf"
kill -HUP "$pid"
wait_until 10 grep -q "reload refused" "$tmp/loop.err"
kill -0 "$pid" && ok "alive after SIGHUP with a broken config" || bad "died on SIGHUP"
grep -q "reload refused, keeping the running configuration: $tmp/hb.conf:2: policy.threshold=oops" "$tmp/loop.err" && ok "the refusal names file:line" || { cat "$tmp/loop.err"; bad "no refusal message"; }
wait_for_cycles 2 && ok "still cycling" || bad "stopped cycling"
# the log at the default level (info) carries counts, never an address:
# no hex of 6+ digits, no decimal of 7+ (the region's PFNs start at 3735552)
leaks=$(grep -Eo '0x[0-9a-fA-F]{6,}|\b[0-9]{7,}\b' "$tmp/loop.err" | head -3 || true)
[ -z "$leaks" ] && ok "no physical address in $(wc -l <"$tmp/loop.err") log lines at the default level" || bad "addresses in the log: $leaks"
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=
hb_reports_ok
echo "1..$n"
