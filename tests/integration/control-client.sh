#!/bin/bash
# The control client and server (emulated host, dry run, a replay feed):
#  1. `status` against something that is not a control socket fails with
#     exit 1 and an error naming the socket, never hangs: the replay feed
#     socket, and a listener that never answers (--timeout 2); a stopped
#     daemon is said to be one (its PID, stopped), not a stranger;
#  2. errors are words on stderr: no such socket, a path that is not a
#     socket (a directory, a regular file, a FIFO, a device), an empty
#     --socket (a usage error, exit 2), a refused request
#     (no errno names, no JSON on stdout); a bad --timeout is a usage error;
#  3. a request without a trailing newline is answered at EOF; one
#     request, one reply, then the daemon closes the connection;
#  4. the server's 5 s are a deadline for the whole request: a client
#     trickling a byte every 4 s is cut off after 5 s;
#  5. a refused `hotbridge reload` is logged by the daemon, as a refused
#     SIGHUP is (the client gets the same words); a reload that leaves a
#     key for a restart exits 4 naming it (and status lists it);
#  6. status says why nothing is promoted: the DRAM target (node 0, for
#     source node 2) with its free memory against watermark_mb, the
#     promotion state (active; held_by_watermark after a reload raises
#     the watermark above node 0's 8 GiB free; paused), the nodes, and
#     demotion with its coldness source (off here; on in a second daemon);
#  7. 70 idle clients do not lock `status` out: at the limit (64) the
#     client longest without a request is closed, with the reason.
#   control-client.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" "$spid" "$pid2" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid= spid= pid2=

hb_emulated_conf "$tmp/hb.conf" <<CONF
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/loop.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null &&
	ok "the daemon answers status" || bad "no daemon"

# 1. not a control socket
t0=$SECONDS rc=0
timeout 30 "${hb[@]}" status --socket "$tmp/feed.sock" >"$tmp/feed.out" 2>"$tmp/feed.err" || rc=$?
sed 's/^/# /' "$tmp/feed.err"
[ "$rc" -eq 1 ] && grep -q "^hotbridge status: .*$tmp/feed.sock" "$tmp/feed.err" && [ ! -s "$tmp/feed.out" ] &&
	ok "status against the replay feed socket: exit 1 in $((SECONDS - t0)) s, naming it" ||
	bad "status against the feed socket: exit $rc"
python3 - "$tmp/silent.sock" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
c, _ = s.accept()
time.sleep(60)   # reads nothing, answers nothing, keeps the connection
PY
spid=$!
wait_until 5 test -S "$tmp/silent.sock"
start=$(date +%s.%N) rc=0
timeout 30 "${hb[@]}" status --timeout 2 --socket "$tmp/silent.sock" >/dev/null 2>"$tmp/silent.err" || rc=$?
took=$(python3 -c "import sys; print('%.1f' % ($(date +%s.%N) - $start))")
sed 's/^/# /' "$tmp/silent.err"
[ "$rc" -eq 1 ] && grep -q "no reply from $tmp/silent.sock within 2 s" "$tmp/silent.err" &&
	python3 -c "import sys; sys.exit(0 if 1.9 <= $took <= 2 + 2 * $slow else 1)" &&
	ok "a listener that never answers: --timeout 2 gives up after $took s, naming the socket" ||
	bad "silent listener: exit $rc after $took s"
kill "$spid" 2>/dev/null || true
wait "$spid" 2>/dev/null || true
spid=
# a stopped daemon (newuser r5 E24): said so, with its PID, not "is it a
# hotbridge control socket?"
kill -STOP "$pid"
rc=0
timeout 30 "${hb[@]}" status --timeout 1 --socket "$tmp/ctl.sock" >/dev/null 2>"$tmp/stopped.err" || rc=$?
kill -CONT "$pid"
sed 's/^/# /' "$tmp/stopped.err"
[ "$rc" -eq 1 ] && grep -q "the daemon at $tmp/ctl.sock (pid $pid) accepted the connection but did not answer within 1 s: it is stopped (SIGSTOP" "$tmp/stopped.err" &&
	! grep -q "is it a hotbridge" "$tmp/stopped.err" &&
	ok "a stopped daemon: named as the daemon, with its PID, stopped" || bad "stopped daemon: exit $rc"

# 2. errors in words
rc=0
"${hb[@]}" status --socket "$tmp/none.sock" >"$tmp/none.out" 2>"$tmp/none.err" || rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$tmp/none.out" ] &&
	grep -qx "hotbridge status: cannot reach the daemon at $tmp/none.sock: No such file or directory (is \`hotbridge run\` running?)" "$tmp/none.err" &&
	ok "no socket: $(cat "$tmp/none.err")" || bad "no socket: exit $rc, $(cat "$tmp/none.err")"
mkfifo "$tmp/a.fifo"
for what in "$tmp:a directory" "$tmp/loop.err:a regular file" "$tmp/a.fifo:a FIFO" \
	"/dev/null:a character device"; do
	path=${what%%:*} rc=0
	"${hb[@]}" status --socket "$path" >"$tmp/ns.out" 2>"$tmp/ns.err" || rc=$?
	[ "$rc" -eq 1 ] && [ ! -s "$tmp/ns.out" ] &&
		grep -q "^hotbridge status: $path is not a socket (${what#*:})" "$tmp/ns.err" &&
		! grep -q "exited" "$tmp/ns.err" ||
		bad "--socket $path: exit $rc, $(cat "$tmp/ns.err")"
done
ok "--socket naming a directory, a regular file, a FIFO or a device: '$(cat "$tmp/ns.err")'"
rc=0
"${hb[@]}" status --socket '' >"$tmp/empty.out" 2>"$tmp/empty.err" || rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$tmp/empty.out" ] &&
	grep -qx "hotbridge status: --socket: an empty path" "$tmp/empty.err" &&
	ok "--socket '': usage error, exit 2" || bad "--socket '': exit $rc, $(cat "$tmp/empty.err")"
rc=0
"${hb[@]}" explain --socket "$tmp/ctl.sock" nosuchmem:0x0 >"$tmp/refused.out" 2>"$tmp/refused.err" || rc=$?
[ "$rc" -eq 1 ] && [ ! -s "$tmp/refused.out" ] && grep -qx "hotbridge explain: the daemon refused: memdev 'nosuchmem' is not in the topology" "$tmp/refused.err" &&
	! grep -q "E[A-Z]\{3,\}" "$tmp/refused.err" &&
	ok "a refused request: exit 1, '$(cat "$tmp/refused.err")' on stderr" ||
	bad "refused request: exit $rc, stdout '$(head -c 200 "$tmp/refused.out")', stderr '$(cat "$tmp/refused.err")'"
rc=0
"${hb[@]}" status --timeout 0 --socket "$tmp/ctl.sock" >/dev/null 2>"$tmp/t0.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "^hotbridge status: --timeout '0': want whole seconds from 1 to 3600" "$tmp/t0.err" &&
	ok "--timeout 0: usage error naming it" || bad "--timeout 0: exit $rc"

# 3. no trailing newline, then EOF
python3 - "$tmp/ctl.sock" <<'PY' && ok "a request without a trailing newline is answered at EOF" || bad "no answer at EOF"
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
s.sendall(b'{"command":"status"}'); s.shutdown(socket.SHUT_WR)
r = b""
while True:
    c = s.recv(65536)
    if not c: break
    r += c
assert r.endswith(b"\n") and json.loads(r)["ok"] is True, r
PY

# 3b. one request, one reply, then the daemon closes (newuser r5 E1): a
# client reading to EOF ends at once with one line, an error reply too, and
# a second request on the connection gets nothing (no error 5 s later)
python3 - "$tmp/ctl.sock" >"$tmp/one.out" <<'PY' && ok "one reply, then EOF: $(cat "$tmp/one.out")" || bad "one reply: $(cat "$tmp/one.out")"
import json, socket, sys, time
def ask(data):
    s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
    t = time.time(); s.sendall(data); r = b""
    while True:
        c = s.recv(65536)
        if not c: break
        r += c
    return r, time.time() - t
for data, good in ((b'{"command":"status"}\n', True), (b'{"command":"nope"}\n', False),
                   (b'{"command":"stats"}\n{"command":"status"}\n', True)):
    r, took = ask(data)
    lines = r.split(b"\n")
    assert took < 2 and len(lines) == 2 and lines[1] == b"", (data, took, r[-200:])
    assert json.loads(lines[0])["ok"] is good, r[-200:]
print("status, an unknown command and two requests in one: one line each, EOF at once")
PY

# 4. a byte every 4 s
python3 - "$tmp/ctl.sock" "$slow" >"$tmp/trickle.out" <<'PY' && ok "trickling client: $(cat "$tmp/trickle.out")" || bad "trickling client: $(cat "$tmp/trickle.out")"
import json, socket, sys, time
slow = int(sys.argv[2])
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
t0 = time.monotonic()
req, r, i = b'{"command":"status"}\n', b"", 0
while time.monotonic() - t0 < 14:
    try:
        s.sendall(req[i:i + 1]); i += 1
    except OSError:
        break
    s.settimeout(4)
    try:
        c = s.recv(65536)
        r += c
        if not c or r.endswith(b"\n"):
            break
    except socket.timeout:
        pass
took = time.monotonic() - t0
reply = json.loads(r) if r else None
print("%d bytes sent, cut off after %.1f s: %s" % (i, took, reply and reply.get("error")))
sys.exit(0 if reply and reply["ok"] is False and "within 5 s" in reply["error"]
         and 4.5 <= took <= 5 + 1.5 * slow else 1)
PY
"${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null && ok "the daemon still answers" || bad "daemon gone"

# 5. a refused reload, over the socket then by SIGHUP: logged both times
cp "$tmp/hb.conf" "$tmp/hb.conf.orig"
echo "threshhold = 3" >>"$tmp/hb.conf"
rc=0
"${hb[@]}" reload --socket "$tmp/ctl.sock" >/dev/null 2>"$tmp/reload.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "the daemon refused: .*threshhold" "$tmp/reload.err" ||
	bad "reload of a bad file: exit $rc, $(cat "$tmp/reload.err")"
wait_until 5 grep -q "reload refused, keeping the running configuration: .*threshhold" "$tmp/loop.err" &&
	[ "$(grep -c "reload refused" "$tmp/loop.err")" -eq 1 ] ||
	{ sed 's/^/# /' "$tmp/loop.err" | tail -5; bad "the daemon did not log the refused reload"; }
refusals() { test "$(grep -c "reload refused, keeping the running configuration: .*threshhold" "$tmp/loop.err")" -eq "$1"; }
kill -HUP "$pid"
wait_until 5 refusals 2 ||
	{ sed 's/^/# /' "$tmp/loop.err" | tail -5; bad "the daemon did not log the refused SIGHUP"; }
ok "a refused reload is logged by the daemon, by the socket and by SIGHUP alike"
cp "$tmp/hb.conf.orig" "$tmp/hb.conf"

# 6. why nothing is promoted
st() { "${hb[@]}" status --socket "$1" >"$tmp/st.json" && python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["status"]
exec(sys.argv[2])' "$tmp/st.json" "$2"; }
"${hb[@]}" reload --socket "$tmp/ctl.sock" >/dev/null
st "$tmp/ctl.sock" '
t = s["targets"]
assert s["promotion"] == "active" and s["target_node"] is None and s["watermark_mb"] == 1024, s
assert [(x["node"], x["for_source_nodes"], x["free_mb"], x["watermark_mb"], x["held_by_watermark"]) for x in t] == [(0, [2], 8192, 1024, False)], t
n = {x["node"]: x for x in s["nodes"]}
assert n[2]["source"] and not n[2]["cpus"] and n[0]["target"] and not n[1]["target"], n
assert s["demotion"] == {"enabled": False, "coldness": None, "below_mb": None, "cxl_node": None}, s["demotion"]
assert s["state"] == "running" and s["source_nodes"] == [2], s' ||
	{ sed 's/^/# /' "$tmp/st.json"; bad "status: targets, nodes, demotion"; }
ok "status: target node 0 for source node 2, 8192 MiB free against watermark 1024: active; demotion off"
printf '[policy]\nwatermark_mb = 9000\n' >>"$tmp/hb.conf"
"${hb[@]}" reload --socket "$tmp/ctl.sock" >/dev/null
st "$tmp/ctl.sock" '
assert s["promotion"] == "held_by_watermark" and "9000" in s["promotion_reason"], s
assert s["targets"][0]["held_by_watermark"] is True and s["targets"][0]["watermark_mb"] == 9000, s' ||
	{ sed 's/^/# /' "$tmp/st.json"; bad "status after raising the watermark"; }
"${hb[@]}" pause --socket "$tmp/ctl.sock" >/dev/null
st "$tmp/ctl.sock" 'assert s["promotion"] == "paused" and s["state"] == "paused", s' ||
	{ sed 's/^/# /' "$tmp/st.json"; bad "status while paused"; }
"${hb[@]}" resume --socket "$tmp/ctl.sock" >/dev/null
ok "status: held_by_watermark once watermark_mb (9000) is above node 0's free memory; paused while paused"
# a reload with a key that needs a restart (newuser r5 E6): the reply lists
# it, the client names it on stderr and exits 4; status has it until a
# reload puts the running value back
sed -i 's/^interval_ms = 200$/interval_ms = 300\nbacklog = 2048/' "$tmp/hb.conf"
rc=0
"${hb[@]}" reload --socket "$tmp/ctl.sock" >"$tmp/rl.json" 2>"$tmp/rl.err" || rc=$?
sed 's/^/# /' "$tmp/rl.err"
[ "$rc" -eq 4 ] && grep -q "^hotbridge reload: changed but needs a restart (the running values are kept): daemon.backlog$" "$tmp/rl.err" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["reload"]; assert r["restart_needed"] == ["daemon.backlog"] and r["applied"] == ["daemon.interval_ms"], r' "$tmp/rl.json" &&
	st "$tmp/ctl.sock" 'assert s["restart_needed"] == ["daemon.backlog"], s' &&
	ok "reload of a key that needs a restart: exit 4, named on stderr, in the reply and in status" ||
	{ sed 's/^/# /' "$tmp/rl.json"; bad "reload of daemon.backlog: exit $rc"; }
cp "$tmp/hb.conf.orig" "$tmp/hb.conf"
"${hb[@]}" reload --socket "$tmp/ctl.sock" >"$tmp/rl.json" && st "$tmp/ctl.sock" 'assert s["restart_needed"] == [], s' &&
	ok "the running values back: reload exit 0, restart_needed empty" || bad "reload back"
printf '[daemon]\ninterval_ms = 200\ncontrol_socket = %s\n[topology]\nemulated = true\n[demote]\nenabled = true\n[source feed]\ntype = replay\nsocket = %s\n' \
	"$tmp/ctl2.sock" "$tmp/feed2.sock" >"$tmp/demote.conf"
chmod 0644 "$tmp/demote.conf"
"${hb[@]}" run --dry-run --config "$tmp/demote.conf" 2>"$tmp/loop2.err" &
pid2=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl2.sock" >/dev/null || bad "no second daemon"
st "$tmp/ctl2.sock" '
assert s["demotion"] == {"enabled": True, "coldness": "emulated", "below_mb": 1280, "cxl_node": None}, s["demotion"]' ||
	{ sed 's/^/# /' "$tmp/st.json"; bad "status of a demoting daemon"; }
kill -TERM "$pid2"
wait "$pid2" || bad "second daemon: exit $?"
pid2=
ok "status: demotion on, coldness source emulated, below watermark + room = 1280 MiB"

# 7. idle clients (newuser r4 D38): 70 connections that send nothing, held
# open; a client that comes then still gets its answer, and the idle one
# that made room was told why
python3 - "$tmp/ctl.sock" "$tmp/idle.out" <<'PY' &
import socket, sys, time
conns = []
for _ in range(70):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    conns.append(s)
open(sys.argv[2] + ".up", "w").close()
time.sleep(4)
first = conns[0]
first.settimeout(0.5)
try:
    open(sys.argv[2], "w").write(first.recv(4096).decode())
except OSError as e:
    open(sys.argv[2], "w").write(repr(e))
PY
idle=$!
wait_until 10 test -e "$tmp/idle.out.up" || bad "the 70 idle clients did not connect"
rc=0
"${hb[@]}" status --socket "$tmp/ctl.sock" >"$tmp/idle-status.out" 2>"$tmp/idle-status.err" || rc=$?
[ "$rc" -eq 0 ] && ok "70 idle control clients: status still answers" ||
	bad "70 idle control clients: status exit $rc, $(cat "$tmp/idle-status.err")"
wait "$idle" || true
grep -q '"errno":"EBUSY"' "$tmp/idle.out" && grep -q "the longest without a request" "$tmp/idle.out" &&
	ok "the oldest idle client was closed with the reason" ||
	bad "the oldest idle client got: $(cat "$tmp/idle.out")"

kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit 0" || bad "exit status $?"
pid=
hb_reports_ok
echo "1..$n"
