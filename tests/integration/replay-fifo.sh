#!/bin/bash
# Writers sharing a replay FIFO, against a running daemon (emulated host,
# dry run), every record of every complete writer accounted exactly:
#  1. three binary writers (v2 frames) and a text writer at once, one
#     binary writer killed in the middle of a record: the others' records
#     all counted in `records`, the torn frame and the text writer's bad
#     lines in `bad_input` (not records), nothing misread (no unknown
#     memdev, no bad record from ingestion);
#  2. a writer dies in a frame and nobody writes after it: counted bad
#     once the FIFO has been quiet for a poll interval;
#  3. two v1 writers in turn: the second one's header starts anew;
#  4. bad text lines on the socket source count in bad_input as well;
#  5. a followed regular file (path=, from = start), the report's reproduction: 3 lines,
#     then truncated and written anew with one (read again from its start:
#     4 records), then rotated (renamed, a new file made with one line: its
#     line read too, 5 records, then what is appended to it), each logged once.
#   replay-fifo.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
mkfifo "$tmp/fifo"
hb_emulated_conf "$tmp/hb.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source fifo]
type = replay
path = $tmp/fifo
[source sock]
type = replay
socket = $tmp/feed.sock
[source file]
type = replay
path = $tmp/feed.txt
from = start
CONF
printf 'mem0 dpa=0x1000 len=4096 count=20\nmem0 dpa=0x2000 len=4096 count=20\nmem0 dpa=0x3000 len=4096 count=20\n' >"$tmp/feed.txt"
"${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
wait_until 10 test -S "$tmp/feed.sock"
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null

stats() { "${hb[@]}" stats --socket "$tmp/ctl.sock"; }
stat_of() { stats | python3 -c 'import json,sys; s=json.load(sys.stdin)["stats"]; print(eval(sys.argv[1]))' "$1"; }
source_of() { # SOURCE FIELD
	"${hb[@]}" sources --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print([s[sys.argv[2]] for s in json.load(sys.stdin)["sources"] if s["name"] == sys.argv[1]][0])' "$1" "$2"
}
is() { [ "$(stat_of "$1")" = "$2" ]; }
# writers.py MODE: writes to the FIFO as MODE says, prints the records and
# bad units the daemon must count
cat >"$tmp/writers.py" <<'PY'
import os, signal, struct, sys, time, zlib
fifo, mode = sys.argv[1], sys.argv[2]

def rec(i, memdev=b"mem0"):
    # a valid DPA record inside mem0/mem1 (512 MiB each)
    return struct.pack("<II16sQQQQ", 1, 0, memdev, (i % 100000) << 12, 4096, 1, 0)

def frame(recs):
    payload = b"".join(recs)
    h = b"HBRB" + struct.pack("<HHIII", 2, 24, 56, len(recs), zlib.crc32(payload))
    return h + struct.pack("<I", zlib.crc32(h)) + payload

def writer(k, frames, per, die=False):
    fd = os.open(fifo, os.O_WRONLY)
    for f in range(frames):
        os.write(fd, frame([rec(k * 100000 + f * per + i, b"mem%d" % (i & 1)) for i in range(per)]))
        time.sleep(0.002)
        if die and f == frames // 2:
            whole = frame([rec(99000 + i) for i in range(4)])
            os.write(fd, whole[:24 + 56 + 20])      # header, a record and 20 bytes
            os.kill(os.getpid(), signal.SIGKILL)
    os.close(fd)

def text(lines):
    fd = os.open(fifo, os.O_WRONLY)
    good = bad = 0
    for i in range(lines):
        if i % 10 == 9:
            os.write(fd, b"mem0 dpa=0x%x len=4096 colour=blue\n" % (i << 12)); bad += 1
        else:
            os.write(fd, b"mem1 dpa=0x%x len=4096 count=2\n" % (i << 12)); good += 1
        time.sleep(0.001)
    os.close(fd)
    return good, bad

if mode == "mixed":
    # B1, B2 whole; B3 dies after 20 frames + the torn one; T 300 lines
    kids = []
    for k, (frames, per, die) in enumerate([(60, 72, False), (40, 30, False), (40, 50, True)]):
        pid = os.fork()
        if pid == 0:
            writer(k + 1, frames, per, die)
            os._exit(0)
        kids.append(pid)
    good, bad = text(300)
    for p in kids:
        os.waitpid(p, 0)
    print(60 * 72 + 40 * 30 + 21 * 50 + good, bad + 1)
elif mode == "dies-last":
    fd = os.open(fifo, os.O_WRONLY)
    os.write(fd, frame([rec(i) for i in range(10)]))
    os.write(fd, frame([rec(i) for i in range(10)])[:100])
    os.close(fd)
    print(10, 1)
elif mode == "v1":
    for w in range(2):
        fd = os.open(fifo, os.O_WRONLY)
        os.write(fd, b"HBRB" + struct.pack("<HHII", 1, 16, 56, 0) +
                 b"".join(rec(w * 1000 + i) for i in range(25)))
        os.close(fd)
    print(50, 0)
PY

# 1. three binary writers and a text writer, one binary writer killed mid-record
records_of_file() { [ "$(source_of file records)" = "$1" ]; }
wait_until 10 records_of_file 3 && ok "file: its 3 lines, read at start" || bad "file records $(source_of file records), want 3"
read -r want_rec want_bad < <(python3 "$tmp/writers.py" "$tmp/fifo" mixed)
want_rec=$((want_rec + 3))   # and the file's
counts='(s["records"], s["bad_input"], s["dropped"]["unknown_memdev"] + s["dropped"]["bad_record"], s["backlog"])'
wait_until 20 is "$counts" "($want_rec, $want_bad, 0, 0)" || true
got=$(stat_of "$counts")
# The text writer's lines land wherever the scheduler puts them: a bad line
# written right after the dead writer's bytes is taken into the torn frame's
# payload and counted with it, one bad unit for two (seen once in three CI
# runs, under valgrind beside a kernel build). Every record is still exact.
got_bad=$(stat_of 's["bad_input"]')
if [ "$got" = "($want_rec, $((want_bad - 1)), 0, 0)" ]; then
	echo "# a bad line was written into the torn frame and counted with it"
	want_bad=$((want_bad - 1))
fi
[ "$got" = "($want_rec, $want_bad, 0, 0)" ] &&
	ok "3 binary writers + 1 text writer, one killed mid-record: $want_rec records, $got_bad bad (the torn frame and the bad lines), nothing misread" ||
	{ sed 's/^/# /' "$tmp/log"; bad "records, bad_input, unknown_memdev + bad_record, backlog: $got, want ($want_rec, $want_bad, 0, 0)"; }
[ "$(source_of fifo bad_input)" = "$want_bad" ] && ok "the FIFO source's bad_input: $want_bad" || bad "fifo bad_input $(source_of fifo bad_input)"

# 2. a writer dies in a frame, nothing after it: counted once the FIFO is quiet
base_rec=$want_rec base_bad=$want_bad
read -r n_rec n_bad < <(python3 "$tmp/writers.py" "$tmp/fifo" dies-last)
wait_until 10 is '(s["records"], s["bad_input"])' "($((base_rec + n_rec)), $((base_bad + n_bad)))" &&
	ok "a writer dying in the last frame: its whole frames counted, the torn one bad once the FIFO is quiet" ||
	bad "records, bad_input: $(stat_of '(s["records"], s["bad_input"])')"
grep -q "fifo:byte [0-9]*: truncated frame (100 of 584 bytes)" "$tmp/log" &&
	ok "named in the log: $(grep -m1 "truncated frame" "$tmp/log" | cut -c1-140)" ||
	{ sed 's/^/# /' "$tmp/log"; bad "the torn last frame is not named"; }
base_rec=$((base_rec + n_rec)) base_bad=$((base_bad + n_bad))

# 3. two v1 writers in turn: the second header starts anew
read -r n_rec n_bad < <(python3 "$tmp/writers.py" "$tmp/fifo" v1)
wait_until 10 is '(s["records"], s["bad_input"])' "($((base_rec + n_rec)), $base_bad)" &&
	ok "two v1 writers in turn: all $n_rec records, none bad" ||
	bad "records, bad_input: $(stat_of '(s["records"], s["bad_input"])'), want ($((base_rec + n_rec)), $base_bad)"
base_rec=$((base_rec + n_rec))

# 4. bad lines on the socket count in bad_input too
python3 - "$tmp/feed.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"mem0 dpa=0x1000 len=4096 count=2\nnot a record\nmem0 dpa=zz len=1 count=1\n"
          b"mem0\x00 dpa=0x2000 len=4096 count=1\nhpa=0x390000000 len=4096 count=1\n")
s.close()
PY
wait_until 10 is '(s["records"], s["bad_input"])' "($((base_rec + 2)), $((base_bad + 3)))" &&
	ok "socket: 2 good lines counted, 3 bad lines (garbage, a bad number, a NUL in the name) in bad_input" ||
	bad "records, bad_input: $(stat_of '(s["records"], s["bad_input"])'), want ($((base_rec + 2)), $((base_bad + 3)))"
[ "$(source_of sock bad_input)" = 3 ] && ok "the socket source's bad_input: 3" || bad "sock bad_input $(source_of sock bad_input)"

# 5. a followed file truncated, then rotated
printf 'mem0 dpa=0x9000 len=4096 count=20\n' >"$tmp/feed.txt"    # truncated and written anew
wait_until 10 records_of_file 4 && ok "file truncated and written anew: its new line read (4 records)" ||
	{ sed 's/^/# /' "$tmp/log"; bad "file records $(source_of file records) after truncation, want 4"; }
mv "$tmp/feed.txt" "$tmp/feed.txt.1"
printf 'mem0 dpa=0xa000 len=4096 count=20\n' >"$tmp/feed.txt"
wait_until 10 records_of_file 5 && ok "file rotated (renamed, made anew): the new file's line read (5 records)" ||
	{ sed 's/^/# /' "$tmp/log"; bad "file records $(source_of file records) after rotation, want 5"; }
printf 'mem0 dpa=0xb000 len=4096 count=20\n' >>"$tmp/feed.txt"
wait_until 10 records_of_file 6 && ok "and what is appended to the new file (6 records)" ||
	bad "file records $(source_of file records) after an append, want 6"
[ "$(grep -c "source file: $tmp/feed.txt shrank from 102 to [0-9]* bytes (truncated): reading it again from its start" "$tmp/log")" = 1 ] &&
	[ "$(grep -c "is another file now (rotated)" "$tmp/log")" = 1 ] &&
	ok "truncation and rotation logged once each: $(grep -m1 shrank "$tmp/log" | cut -c1-120)" ||
	{ sed 's/^/# /' "$tmp/log"; bad "truncation/rotation not logged once each"; }

kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=
hb_reports_ok
echo "1..$n"
