#!/bin/bash
# hotbridge heatmap against a daemon on the emulated host (a dry run, a
# replay feed socket), and `hotbridge demo --heatmap`:
#  1. a known hot band, mem0 DPA 0x10000000..0x10800000 (count 20 a page
#     every half second: about 47 at most with decay 0.8 a 200 ms cycle,
#     under threshold 100: never promoted), fed while the heatmap samples,
#     and a few warm pages elsewhere (count 1): by DPA, every cell
#     with a tenth of the hottest cell's heat or more is in mem0's band rows,
#     in every column; by HPA the band is at region0 offsets
#     0x20000000..0x21000000 (2-way interleave at 4 KiB);
#  2. 16 pages of mem1 at DPA 0x4000000 fed hot once (count 200), promoted
#     while the heatmap samples: their promotions are marked, 16 in
#     all, all in mem1's row of 0x4000000, and nothing else is;
#  3. the demo with a fixed seed: an SVG (well-formed XML) with a column a
#     cycle for mem0 and mem1, and as many promotion marks as the demo's
#     summary counts pages promoted;
#  4. the README's picture: `hotbridge demo --seed 1 --heatmap FILE` as the
#     README draws contrib/demo-heatmap.svg is at most 200 KB (its rows
#     coarse, like cells merged), and so is the file committed.
#  5. promotions all along the heatmap's seconds, more than one history
#     reply holds (200): 60 new hot pages every half second for 3 s (360):
#     every promotion `stats` counts in those seconds is marked, once;
#  6. an output path that cannot be written is said before any work: heatmap
#     names it rather than a missing daemon, demo --cycles 100000 (hours)
#     names it at once; a failed run leaves a file that was there as it was
#     and removes one it created.
#   heatmap.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
command -v python3 >/dev/null || { echo "1..0 # SKIP no python3"; exit 0; }
. "$(dirname "$0")/lib.sh" "$1"
trap 'kill "$pid" "$fpid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid= fpid=

hb_emulated_conf "$tmp/hb.conf" <<CONF
[policy]
threshold = 100
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/run.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null &&
	ok "the daemon answers status" || { sed 's/^/# /' "$tmp/run.err"; bad "no daemon"; }

# the band (128 pages, one in 16 of its 2048) and 32 warm pages elsewhere,
# every half second
python3 - "$tmp/feed.sock" <<'PY' &
import socket, sys, time
def send(text):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(text.encode()); s.close()
band = "".join("mem0 dpa=0x%x len=4096 count=20\n" % (0x10000000 + i * 0x10000) for i in range(128))
warm = "".join("mem%d dpa=0x%x len=4096 count=1\n" % (i % 2, 0x1000000 * (i + 1)) for i in range(32))
for k in range(60):
    send(band + warm)
    time.sleep(0.5)
PY
fpid=$!
sleep 1
# the 16 hot pages, fed once the heatmap has taken its first sample: their
# promotions fall inside its seconds (fed before it, a slow run such as
# valgrind's could leave them older than the first column's --delay)
"${hb[@]}" heatmap --socket "$tmp/ctl.sock" --samples 4 --delay 2 --rows 64 -o "$tmp/dpa.svg" 2>"$tmp/dpa.err" &
hpid=$!
sleep 1
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall("".join("mem1 dpa=0x%x len=4096 count=200\n" % (0x4000000 + i * 0x1000) for i in range(16)).encode())
s.close()' "$tmp/feed.sock"
wait_until 10 sh -c '"$@" stats --socket "$0" | grep -Eq "\"promote\": 16,"' "$tmp/ctl.sock" "${hb[@]}" ||
	bad "the 16 hot pages were not promoted"
wait "$hpid" && ok "heatmap --by dpa: written" || { sed 's/^/# /' "$tmp/dpa.err"; bad "heatmap exited $?"; }
"${hb[@]}" heatmap --socket "$tmp/ctl.sock" --by hpa --samples 2 --rows 64 >"$tmp/hpa.svg" 2>"$tmp/hpa.err" &&
	ok "heatmap --by hpa: written to standard output" || { sed 's/^/# /' "$tmp/hpa.err"; bad "heatmap --by hpa exited $?"; }
hbabs=("${hb[@]:0:${#hb[@]}-1}" "$(realpath "${hb[-1]}")")
(cd "$tmp" && "${hbabs[@]}" heatmap --socket "$tmp/ctl.sock" --samples 1 --rows 8 -o - >"$tmp/dash.svg" 2>"$tmp/dash.err") &&
	[ ! -e "$tmp/-" ] && grep -q "</svg>" "$tmp/dash.svg" &&
	ok "heatmap -o -: standard output, no file named -" || { sed 's/^/# /' "$tmp/dash.err"; bad "heatmap -o - wrote a file named - or nothing"; }
kill "$fpid" 2>/dev/null || true
wait "$fpid" 2>/dev/null || true
fpid=

cat >"$tmp/band.py" <<'PY'
import sys, xml.etree.ElementTree as ET
path, space, lo, hi, ncols = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4], 0), int(sys.argv[5])
# also fed, and may be as hot on a loaded machine (fewer band records in time):
# SPACE:LO:HI of the 16 promoted pages' rows
also = [(a.split(":")[0], int(a.split(":")[1], 0), int(a.split(":")[2], 0)) for a in sys.argv[6:]]
def fed(c, space, lo, hi):
    return c.get("data-space") == space and lo <= int(c.get("data-lo"), 16) and int(c.get("data-hi"), 16) <= hi
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(path).getroot()
cells = [r for r in root.iter(ns + "rect") if r.get("class") == "cell"]
top = max(float(c.get("data-heat")) for c in cells)
hot = [c for c in cells if float(c.get("data-heat")) >= top / 10]
bad = [c.attrib for c in hot if not fed(c, space, lo, hi) and not any(fed(c, *a) for a in also)]
cols = sorted({int(c.get("data-col")) for c in hot if fed(c, space, lo, hi)})
print("%d cells, %d hot (>= %.1f), in columns %s, %d outside %s 0x%x..0x%x" % (len(cells), len(hot), top / 10, cols, len(bad), space, lo, hi))
for b in bad[:5]:
    print("outside:", b)
sys.exit(0 if hot and not bad and cols == list(range(ncols)) and int(root.get("data-columns")) == ncols else 1)
PY
r=$(python3 "$tmp/band.py" "$tmp/dpa.svg" mem0 0x10000000 0x10800000 4 mem1:0x4000000:0x4800000) &&
	ok "by DPA: the hot band is in mem0 0x10000000..0x10800000, every column: $r" ||
	{ echo "$r" | sed 's/^/# /'; bad "by DPA: the hot band is not where it was fed"; }
r=$(python3 "$tmp/band.py" "$tmp/hpa.svg" region0 0x20000000 0x21000000 2) &&
	ok "by HPA: the hot band is at region0 offsets 0x20000000..0x21000000: $r" ||
	{ echo "$r" | sed 's/^/# /'; bad "by HPA: the hot band is not where it must be"; }
if python3 - "$tmp/dpa.svg" >"$tmp/marks.out" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
marks = [r for r in ET.parse(sys.argv[1]).getroot().iter(ns + "rect") if r.get("class") in ("promote", "demote")]
n = sum(int(m.get("data-count")) for m in marks if m.get("class") == "promote")
where = {(m.get("data-space"), m.get("data-lo"), m.get("data-hi")) for m in marks}
print("%d promotions marked at %s" % (n, sorted(where)))
ok = n == 16 and all(s == "mem1" and int(lo, 16) <= 0x4000000 < int(hi, 16) for s, lo, hi in where)
sys.exit(0 if ok else 1)
PY
then
	ok "promotions marked: $(cat "$tmp/marks.out")"
else
	sed 's/^/# /' "$tmp/marks.out"
	bad "the 16 promotions are not marked where they were (above)"
fi

# 3. the demo's
"${hb[@]}" demo --seed 1 --cycles 20 --heatmap "$tmp/demo.svg" >"$tmp/demo.out" 2>"$tmp/demo.err" ||
	{ sed 's/^/# /' "$tmp/demo.err"; bad "demo --heatmap exited $?"; }
if python3 - "$tmp/demo.svg" "$tmp/demo.out" >"$tmp/demo.check" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
promoted = int(re.search(r"^pages promoted \(dry run\) +(\d+)$", open(sys.argv[2]).read(), re.M).group(1))
spaces = sorted(g.get("data-space") for g in root.iter(ns + "g") if g.get("class") == "space")
rects = list(root.iter(ns + "rect"))
marked = sum(int(r.get("data-count")) for r in rects if r.get("class") == "promote")
cols = {int(r.get("data-col")) for r in rects if r.get("class") == "cell"}
print("spaces %s, %d columns with heat, %d promotions marked, the summary's %d" % (spaces, len(cols), marked, promoted))
sys.exit(0 if spaces == ["mem0", "mem1"] and root.get("data-columns") == "20" and marked == promoted > 0 and len(cols) >= 18 else 1)
PY
then
	ok "demo --heatmap: $(cat "$tmp/demo.check")"
else
	sed 's/^/# /' "$tmp/demo.check"
	bad "demo --heatmap (above)"
fi

# 4. the README's picture, drawn as the README says
"${hb[@]}" demo --seed 1 --heatmap "$tmp/readme.svg" >/dev/null 2>"$tmp/readme.err" ||
	{ sed 's/^/# /' "$tmp/readme.err"; bad "demo --seed 1 --heatmap exited $?"; }
size=$(stat -c %s "$tmp/readme.svg")
[ "$size" -le 200000 ] && ok "demo --seed 1 --heatmap: $size bytes, at most 200000" ||
	bad "demo --seed 1 --heatmap: $size bytes, over 200000 (the README shows it)"
svg=$(dirname "$0")/../../contrib/demo-heatmap.svg
size=$(stat -c %s "$svg")
[ "$size" -le 200000 ] && ok "contrib/demo-heatmap.svg: $size bytes, at most 200000" ||
	bad "contrib/demo-heatmap.svg: $size bytes, over 200000 (redraw it as the README says)"
# 5. 360 promotions over 3 s, while the heatmap samples for 4 s
promotes() {
	"${hb[@]}" stats --socket "$tmp/ctl.sock" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["stats"]["decisions"]["promote"])'
}
p0=$(promotes)
python3 - "$tmp/feed.sock" <<'PY' &
import socket, sys, time
for b in range(6):
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
    s.sendall("".join("mem1 dpa=0x%x len=4096 count=200\n" % (0x8000000 + (b * 60 + i) * 0x1000)
                      for i in range(60)).encode())
    s.close()
    time.sleep(0.5)
PY
fpid=$!
"${hb[@]}" heatmap --socket "$tmp/ctl.sock" --samples 5 --delay 1 -o "$tmp/many.svg" 2>"$tmp/many.err" ||
	{ sed 's/^/# /' "$tmp/many.err"; bad "heatmap exited $?"; }
wait "$fpid" || bad "the feed of 360 hot pages failed"
fpid=
p1=$(promotes)
if python3 - "$tmp/many.svg" $((p1 - p0)) >"$tmp/many.check" 2>&1 <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
marks = [r for r in root.iter(ns + "rect") if r.get("class") == "promote"]
n = sum(int(m.get("data-count")) for m in marks)
cols = sorted({int(m.get("data-col")) for m in marks})
print("%d promotions marked in columns %s, stats counted %s in those seconds" % (n, cols, sys.argv[2]))
sys.exit(0 if n == int(sys.argv[2]) >= 360 and len(cols) >= 3 else 1)
PY
then
	ok "every promotion of the heatmap's seconds is marked: $(cat "$tmp/many.check")"
else
	sed 's/^/# /' "$tmp/many.check"
	bad "promotions missing from the heatmap (above)"
fi

# 6. output paths refused before the work
if "${hb[@]}" heatmap --socket "$tmp/none.sock" -o "$tmp/no/such/dir.svg" 2>"$tmp/out.err"; then
	bad "heatmap -o into a missing directory exited 0"
fi
grep -q "$tmp/no/such/dir.svg: No such file or directory" "$tmp/out.err" &&
	! grep -q "cannot reach the daemon" "$tmp/out.err" &&
	ok "heatmap -o: an unwritable path is said first: $(head -1 "$tmp/out.err")" ||
	{ sed 's/^/# /' "$tmp/out.err"; bad "heatmap -o: the unwritable path was not said first"; }
start=$(date +%s)
if timeout 60 "${hb[@]}" demo --cycles 100000 --heatmap "$tmp/no/such/demo.svg" >/dev/null 2>"$tmp/demo-out.err"; then
	bad "demo --heatmap into a missing directory exited 0"
fi
took=$(($(date +%s) - start))
[ "$took" -lt 30 ] && grep -q -- "--heatmap $tmp/no/such/demo.svg: No such file or directory" "$tmp/demo-out.err" &&
	ok "demo --heatmap: an unwritable path is said in $took s, before the 100000 cycles" ||
	{ sed 's/^/# /' "$tmp/demo-out.err"; bad "demo --heatmap: the unwritable path said after $took s"; }
echo keep >"$tmp/keep.svg"
"${hb[@]}" heatmap --socket "$tmp/none.sock" -o "$tmp/keep.svg" 2>/dev/null && bad "heatmap without a daemon exited 0"
"${hb[@]}" heatmap --socket "$tmp/none.sock" -o "$tmp/new.svg" 2>/dev/null && bad "heatmap without a daemon exited 0"
[ "$(cat "$tmp/keep.svg")" = keep ] && [ ! -e "$tmp/new.svg" ] &&
	ok "a failed heatmap keeps the file that was there and leaves none it created" ||
	bad "a failed heatmap changed $tmp/keep.svg or left $tmp/new.svg"
hb_reports_ok
echo "1..$n"
