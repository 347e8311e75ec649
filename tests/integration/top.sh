#!/bin/bash
# hotbridge top against a daemon on the emulated host (a dry run, a replay
# feed socket):
#  1. `top --once` piped: one frame, no escape byte; its totals are those
#     `hotbridge stats`, `sources` and `status` give (records by source,
#     promote decisions, pages moved, node 0's free memory, the watermark),
#     and the hottest page is the one `heat` names;
#  2. in a pseudo-terminal: frames on the alternate screen, redrawn each
#     second; a second batch fed while it runs shows in a frame within a
#     refresh of `stats` saying it; q leaves (exit 0) with the screen and
#     the terminal's modes (echo, canonical) as they were; so does Ctrl-C;
#  3. the daemon killed mid-view: top leaves within a few seconds, exit 1,
#     the terminal restored, saying it lost the daemon at the socket;
#  4. Ctrl-Z (SIGTSTP) leaves the alternate screen and shows the cursor
#     before the stop, and takes the screen again after it (here the stop
#     itself is discarded: top's process group has no shell); q then leaves;
#  5. SIGINT while a request waits on a socket that never answers: top
#     leaves at once, exit 0, nothing said (not after --timeout 30, exit 1);
#  6. the daemon restarted between two frames: the frame after shows no
#     rate ("-"), not one against the old daemon's counters (0.0);
#  7. a record past mem1's end (dropped in part): `partly dropped 1`, and
#     its reason under "dropped in whole or part", not under "dropped 0";
#  8. on an 80x24 terminal the frame, too tall for it, drops its blank
#     lines and zero counters: the hottest pages show (they were cut off).
#   top.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
command -v python3 >/dev/null || { echo "1..0 # SKIP no python3"; exit 0; }
. "$(dirname "$0")/lib.sh" "$1"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

hb_emulated_conf "$tmp/hb.conf" <<CONF
[policy]
threshold = 8
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/run.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null &&
	ok "the daemon answers status" || { sed 's/^/# /' "$tmp/run.err"; bad "no daemon"; }

# feed LINES: the lines to the replay socket, then wait until stats counts RECORDS
feed() {
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode()); s.close()
' "$tmp/feed.sock" "$1"
	wait_until 10 sh -c '"$@" stats --socket "$0" | grep -Eq "\"records\": '"$2"',"' "$tmp/ctl.sock" "${hb[@]}"
}
batch1='mem0 dpa=0x1000 len=4096 count=40
mem0 dpa=0x2000 len=4096 count=40
mem1 dpa=0x1000 len=4096 count=40
mem0 dpa=0x100000 len=4096 count=3
mem1 dpa=0x200000 len=4096 count=5
'
feed "$batch1" 5 || bad "the daemon did not count the first batch"
ok "fed 5 records"

# 1. --once piped, against stats/sources/status/heat asked next to it
"${hb[@]}" top --once --socket "$tmp/ctl.sock" >"$tmp/once.out" 2>"$tmp/once.err" ||
	{ sed 's/^/# /' "$tmp/once.err"; bad "top --once exited $?"; }
for c in stats sources status; do
	"${hb[@]}" "$c" --socket "$tmp/ctl.sock" >"$tmp/$c.json"
done
printf '{"command":"heat","last":3}\n' | python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR); print(s.makefile().read())' "$tmp/ctl.sock" >"$tmp/heat.json"
if python3 - "$tmp" >"$tmp/once.check" 2>&1 <<'PY'
import json, re, sys
t = sys.argv[1]
raw = open(t + "/once.out", "rb").read()
text = raw.decode()
stats = json.load(open(t + "/stats.json"))["stats"]
sources = json.load(open(t + "/sources.json"))["sources"]
status = json.load(open(t + "/status.json"))["status"]
heat = json.loads(open(t + "/heat.json").read())["heat"]
bad = []
if b"\x1b" in raw:
    bad.append("an escape byte in the piped frame")
if text.count("hotbridge top:") != 1:
    bad.append("not one frame")
def total(label):
    m = re.search(r"^  %s +(\d+) +\S+$" % re.escape(label), text, re.M)
    return int(m.group(1)) if m else None
want = {"all sources": stats["records"], "promote decisions": stats["decisions"]["promote"],
        "promoted (moved)": stats["migrated"]["moved"], "demote decisions": stats["decisions"]["demote"]}
for s in sources:
    want["source " + s["name"]] = s["records"]
for k, v in want.items():
    if total(k) != v:
        bad.append("%s: top says %s, stats %s" % (k, total(k), v))
n0 = [n for n in status["nodes"] if n["node"] == 0][0]
m = re.search(r"^ +0  DRAM   target +(\d+) +(\d+)", text, re.M)
if not m or int(m.group(1)) != n0["free_mb"] or int(m.group(2)) != status["watermark_mb"]:
    bad.append("node 0: top %s, status free_mb %s watermark_mb %s" % (m and m.groups(), n0["free_mb"], status["watermark_mb"]))
hot = heat["pages"][0]
m = re.search(r"HOTTEST PAGES.*\n.*\n +([0-9.]+) +(\d+) +(0x[0-9a-f]+) +(\S+)", text)
if not m or m.group(3) != hot["page"] or m.group(4) != "%s:%s" % (hot["memdev"], hot["dpa"]):
    bad.append("hottest page: top %s, heat %s" % (m and m.groups(), hot))
if not re.search(r"^ +[0-9.]+  promote +promote +0x", text, re.M):
    bad.append("no promote decision under RECENT DECISIONS")
for b in bad:
    print(b)
print("records %d, promote %d, node 0 %d MiB free, hottest %s:%s" % (stats["records"], stats["decisions"]["promote"], n0["free_mb"], hot["memdev"], hot["dpa"]))
sys.exit(1 if bad else 0)
PY
then
	ok "top --once piped: no escape byte, the numbers stats/sources/status/heat give: $(tail -1 "$tmp/once.check")"
else
	sed 's/^/# /' "$tmp/once.out" "$tmp/once.check"
	bad "top --once piped (above)"
fi

# 2. and 3. in a pseudo-terminal: SCRIPT is what the test does to the view
cat >"$tmp/view.py" <<'PY'
import fcntl, json, os, pty, re, select, signal, struct, subprocess, sys, termios, time
out, how, sock, feedsock, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
master, slave = pty.openpty()
rows, cols = int(os.environ.get("VIEW_ROWS", 50)), int(os.environ.get("VIEW_COLS", 160))
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
before = termios.tcgetattr(slave)
def ctty():
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                     preexec_fn=ctty)
buf = b""
def read_for(secs):
    global buf
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                buf += os.read(master, 65536)
            except OSError:
                return
def stats():
    # the hotbridge binary itself, not a checker the test runs top under
    r = subprocess.run([cmd[cmd.index("top") - 1], "stats", "--socket", sock],
                       capture_output=True, text=True)
    return json.loads(r.stdout)["stats"]
def frames():
    return [f for f in buf.split(b"\x1b[H")[1:] if b"RECENT DECISIONS" in f]
def total(frame, label):
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", frame).decode(errors="replace")
    m = re.search(r"^  %s +(\d+) +\S+" % re.escape(label), text, re.M)
    return int(m.group(1)) if m else None
report = {}
read_for(2.5)
report["frames_first"] = len(frames())
if how == "feed":
    s = __import__("socket").socket(__import__("socket").AF_UNIX)
    s.connect(feedsock)
    s.sendall(b"mem1 dpa=0x3000 len=4096 count=50\nmem1 dpa=0x4000 len=4096 count=50\nmem0 dpa=0x5000 len=4096 count=50\n")
    s.close()
    t0 = time.time()
    # until stats counts the batch, then one refresh and a little
    while stats()["records"] < 8 and time.time() - t0 < 10:
        read_for(0.1)
    read_for(1.6)
    last = frames()[-1]
    st = stats()
    report["stats_records"] = st["records"]
    report["stats_promote"] = st["decisions"]["promote"]
    report["frame_records"] = total(last, "all sources")
    report["frame_promote"] = total(last, "promote decisions")
    os.write(master, b"q")
elif how == "ctrl-c":
    os.write(master, b"\x03")
elif how == "kill":
    os.kill(int(os.environ["DAEMON_PID"]), signal.SIGKILL)
    report["killed_at"] = time.time()
elif how == "look":
    last = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", buf.split(b"\x1b[H")[-1]).decode(errors="replace")
    report["last_frame_lines"] = len(last.rstrip("\n").split("\n"))
    report["hottest_rows"] = len(re.findall(r"^ +[0-9.]+ +\d+ +0x[0-9a-f]+ +mem\d:0x", last, re.M))
    report["hottest_heading"] = "HOTTEST PAGES" in last
    os.write(master, b"q")
elif how == "resize":
    # run with a long --delay: a frame now can only come from the resize
    at = len(buf)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    read_for(1.5)
    after = [f for f in buf[at:].split(b"\x1b[H")[1:] if b"RECENT DECISIONS" in f]
    report["frames_after_resize"] = len(after)
    if after:
        text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", after[-1]).decode(errors="replace")
        report["resized_frame_lines"] = len(text.rstrip("\n").split("\n"))
    os.write(master, b"q")
elif how == "ctrl-z":
    at = len(buf)
    os.write(master, b"\x1a")
    read_for(2.5)
    after = buf[at:]
    out_at = after.find(b"\x1b[?1049l")
    report["suspend_left_screen"] = out_at >= 0 and b"\x1b[?25h" in after[:out_at + 16]
    report["suspend_took_screen_again"] = out_at >= 0 and b"\x1b[?1049h" in after[out_at:]
    report["frames_after_suspend"] = len([f for f in after[out_at:].split(b"\x1b[H")[1:] if b"RECENT DECISIONS" in f]) if out_at >= 0 else 0
    os.write(master, b"q")
t0 = time.time()
while p.poll() is None and time.time() - t0 < 20:
    read_for(0.2)
read_for(0.3)
report["left_after_s"] = round(time.time() - t0, 1)
report["rc"] = p.poll()
if report["rc"] is None:
    p.kill()
after = termios.tcgetattr(slave)
report["termios_restored"] = before == after
report["echo_icanon_on"] = bool(after[3] & termios.ECHO) and bool(after[3] & termios.ICANON)
report["alt_screen_in"] = b"\x1b[?1049h" in buf
tail = buf[buf.rfind(b"\x1b[?1049l"):] if b"\x1b[?1049l" in buf else b""
report["alt_screen_out_last"] = bool(tail) and b"\x1b[?1049h" not in tail and b"\x1b[H" not in tail
report["cursor_shown"] = buf.rfind(b"\x1b[?25h") > buf.rfind(b"\x1b[?25l") >= 0
report["after_screen"] = tail.replace(b"\x1b[?1049l", b"").replace(b"\x1b[?25h", b"").decode(errors="replace").strip()
open(out, "wb").write(buf)
print(json.dumps(report))
PY

r=$(python3 "$tmp/view.py" "$tmp/pty-feed.out" feed "$tmp/ctl.sock" "$tmp/feed.sock" "${hb[@]}" top --socket "$tmp/ctl.sock")
echo "# $r"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
ok = (r["rc"] == 0 and r["frames_first"] >= 2 and r["frame_records"] == r["stats_records"] == 8
      and r["frame_promote"] == r["stats_promote"] and r["termios_restored"] and r["echo_icanon_on"]
      and r["alt_screen_in"] and r["alt_screen_out_last"] and r["cursor_shown"])
sys.exit(0 if ok else 1)' "$r" &&
	ok "in a terminal: a frame a second, the second batch shown as stats says it (records 8), q leaves the terminal as it was" ||
	bad "top in a terminal: $r"

r=$(python3 "$tmp/view.py" "$tmp/pty-int.out" ctrl-c "$tmp/ctl.sock" "$tmp/feed.sock" "${hb[@]}" top --socket "$tmp/ctl.sock")
echo "# $r"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
sys.exit(0 if r["rc"] == 0 and r["termios_restored"] and r["alt_screen_out_last"] and r["cursor_shown"] else 1)' "$r" &&
	ok "Ctrl-C leaves with exit 0 and the terminal as it was" || bad "top and Ctrl-C: $r"

r=$(DAEMON_PID=$pid python3 "$tmp/view.py" "$tmp/pty-kill.out" kill "$tmp/ctl.sock" "$tmp/feed.sock" "${hb[@]}" top --socket "$tmp/ctl.sock" --timeout 2)
{ wait "$pid"; } 2>/dev/null || true
pid=
echo "# $r"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
ok = (r["rc"] == 1 and r["left_after_s"] <= 5 and r["termios_restored"] and r["alt_screen_out_last"]
      and "hotbridge top: lost the daemon at %s" % sys.argv[2] in r["after_screen"])
sys.exit(0 if ok else 1)' "$r" "$tmp/ctl.sock" &&
	ok "the daemon killed mid-view: exit 1 within 5 s, the terminal restored, the loss said" ||
	bad "top and a daemon that went away: $r"

# 4. Ctrl-Z (a new daemon: the last was killed)
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>>"$tmp/run.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null || bad "the daemon did not start again"
r=$(python3 "$tmp/view.py" "$tmp/pty-tstp.out" ctrl-z "$tmp/ctl.sock" "$tmp/feed.sock" "${hb[@]}" top --socket "$tmp/ctl.sock")
echo "# $r"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
ok = (r["rc"] == 0 and r["suspend_left_screen"] and r["suspend_took_screen_again"]
      and r["frames_after_suspend"] >= 1 and r["termios_restored"] and r["alt_screen_out_last"])
sys.exit(0 if ok else 1)' "$r" &&
	ok "Ctrl-Z leaves the screen, cursor shown, and takes it again after; q then exits 0" ||
	bad "top and Ctrl-Z: $r"

# 5. SIGINT while a request waits: a socket that accepts and never answers
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
c, _ = s.accept(); time.sleep(60)' "$tmp/mute.sock" &
mpid=$!
wait_until 5 test -S "$tmp/mute.sock" || bad "no mute socket"
"${hb[@]}" top --socket "$tmp/mute.sock" --timeout 30 >"$tmp/mute.out" 2>"$tmp/mute.err" &
tpid=$!
sleep 1
kill -INT "$tpid"
t0=$(date +%s)
rc=0
wait_until 10 sh -c '! kill -0 "$0" 2>/dev/null' "$tpid" || true
wait "$tpid" || rc=$?
took=$(($(date +%s) - t0))
kill "$mpid" 2>/dev/null || true
wait "$mpid" 2>/dev/null || true
[ "$rc" -eq 0 ] && [ "$took" -le 3 ] && [ ! -s "$tmp/mute.err" ] &&
	ok "SIGINT while the daemon does not answer: top leaves in $took s, exit 0, nothing said" ||
	{ sed 's/^/# /' "$tmp/mute.err"; bad "SIGINT during a request: exit $rc after $took s"; }

# 6. the daemon restarted between two frames
"${hb[@]}" top --socket "$tmp/ctl.sock" --delay 5 >"$tmp/restart.out" 2>"$tmp/restart.err" &
tpid=$!
wait_until 10 grep -q "RECENT DECISIONS" "$tmp/restart.out" || bad "no first frame"
kill -TERM "$pid"
wait "$pid" 2>/dev/null || true
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>>"$tmp/run.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null || bad "the daemon did not restart"
feed "$batch1" 5 || bad "the restarted daemon did not count the batch"
wait_until 10 sh -c '[ "$(grep -c "RECENT DECISIONS" "$0")" -ge 2 ]' "$tmp/restart.out" ||
	{ sed 's/^/# /' "$tmp/restart.err"; bad "no frame after the restart"; }
kill -TERM "$tpid"
wait "$tpid" 2>/dev/null || true
second=$(awk '/^hotbridge top:/ {k++} k == 2' "$tmp/restart.out")
echo "$second" | grep -Eq '^  all sources +5 +-$' &&
	ok "after a restart: $(echo "$second" | grep -E '^  all sources') (no rate against the old daemon)" ||
	{ echo "$second" | sed 's/^/# /'; bad "the frame after a restart has a rate against the old daemon"; }

# 7. a record dropped in part
feed 'mem1 dpa=0x1ffff000 len=0x2000 count=50
' 6 || bad "the daemon did not count the straddling record"
"${hb[@]}" top --once --socket "$tmp/ctl.sock" >"$tmp/part.out" 2>&1 || bad "top --once exited $?"
grep -Eq '^  dropped +0 ' "$tmp/part.out" && grep -Eq '^  partly dropped +1 ' "$tmp/part.out" &&
	grep -A1 -E '^  dropped in whole or part, by reason:$' "$tmp/part.out" | grep -Eq '^ +unmapped +1 ' &&
	ok "a record dropped in part: $(grep -E '^  (dropped|partly dropped) ' "$tmp/part.out" | tr -s ' ' | paste -sd ';')" ||
	{ sed -n '/^RECORDS/,/^$/p' "$tmp/part.out" | sed 's/^/# /'; bad "a record dropped in part is not shown as such"; }

# 8. an 80x24 terminal, with ten warm pages (under threshold 8) in the table
warm=$(for i in 0 1 2 3 4 5 6 7 8 9; do printf 'mem0 dpa=0x%x len=4096 count=2
' $((0x3000000 + i * 0x1000)); done)
feed "$warm"$'
' 16 ||
	bad "the daemon did not count the ten warm pages"
r=$(VIEW_ROWS=24 VIEW_COLS=80 python3 "$tmp/view.py" "$tmp/pty-small.out" look "$tmp/ctl.sock" "$tmp/feed.sock" "${hb[@]}" top --socket "$tmp/ctl.sock")
echo "# $r"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
sys.exit(0 if r["rc"] == 0 and r["hottest_heading"] and r["hottest_rows"] >= 4 and r["last_frame_lines"] <= 24 else 1)' "$r" &&
	ok "80x24: the hottest pages show on the screen" || bad "80x24: $r"

# 9. the terminal resized: the frame drawn again at once, to the new size
#    (not at the next --delay)
r=$(python3 "$tmp/view.py" "$tmp/pty-winch.out" resize "$tmp/ctl.sock" "$tmp/feed.sock" "${hb[@]}" top --socket "$tmp/ctl.sock" --delay 20)
echo "# $r"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
sys.exit(0 if r["rc"] == 0 and r["frames_after_resize"] >= 1 and r.get("resized_frame_lines", 99) <= 30 and r["termios_restored"] else 1)' "$r" &&
	ok "a resize to 100x30 redraws within 1.5 s under --delay 20, in 30 lines" || bad "resize: $r"

# 10. TERM=dumb: a terminal that knows no escapes gets plain frames, as a pipe does
r=$(TERM=dumb python3 "$tmp/view.py" "$tmp/pty-dumb.out" ctrl-c "$tmp/ctl.sock" "$tmp/feed.sock" "${hb[@]}" top --socket "$tmp/ctl.sock")
echo "# $r"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
buf = open(sys.argv[2], "rb").read()
sys.exit(0 if r["rc"] == 0 and b"\x1b" not in buf and buf.count(b"RECENT DECISIONS") >= 2 and r["termios_restored"] else 1)' "$r" "$tmp/pty-dumb.out" &&
	ok "TERM=dumb: frames with no escape byte, Ctrl-C leaves with 0" || bad "TERM=dumb: $r"
hb_reports_ok
echo "1..$n"
