#!/bin/bash
# tests/bench/replay-compare: the replay path of two builds in the same run
# (e.g. main's and a branch's), printing figures and new/old ratios:
#   1. bench-devices' parser rates (best of ROUNDS, run alternately): text,
#      the v1 stream, and v2 frames where the build has them;
#   2. the daemon (`run --dry-run`, emulated host) fed by each build's own
#      soak-feed through a FIFO as fast as it takes (FIFO back-pressure):
#      records/s taken in, and the daemon's CPU (user + system) per record.
#      The new build is fed both v2 frames and the v1 stream (HB_SOAK_V1).
#   replay-compare.sh OLD_BUILD_DIR NEW_BUILD_DIR [SECONDS] [ROUNDS]
set -euo pipefail
old=$1 new=$2 secs=${3:-8} rounds=${4:-3}
tmp=$(mktemp -d)
pid= feeder=
trap 'kill $pid $feeder 2>/dev/null || true; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/fifo-daemon.sh"

for r in $(seq "$rounds"); do
	for tag in old new; do
		b=$old
		[ "$tag" = new ] && b=$new
		"$b/tests/bench/bench-devices" >"$tmp/out" 2>&1
		for l in text binary frames; do
			sed -n "s/^replay $l: .* = \([0-9.]*\) M records\/s.*/\1/p" "$tmp/out" >>"$tmp/$tag.$l"
		done
	done
done
echo "parser, one core, best of $rounds (M records/s): old $old vs new $new"
for l in text binary frames; do
	o=$(sort -g -r "$tmp/old.$l" | head -1) n=$(sort -g -r "$tmp/new.$l" | head -1)
	printf '  %-7s old %8s  new %8s  ratio %s\n' "$l" "${o:--}" "${n:--}" \
		"$( [ -n "$o" ] && [ -n "$n" ] && python3 -c "print('%.2f' % ($n / $o))" || echo -)"
done

soak() { # BUILD [ENV...]: "records/s cpu_ns_per_record"
	local b=$1 hz
	shift
	rm -f "$tmp/feed" "$tmp/ctl.sock"
	fifo_daemon "$b/daemon/hotbridge" 1000 "log_level = err"
	env "$@" "$b/tests/bench/soak-feed" "$tmp/feed" 100000000 "$secs" >"$tmp/feed.out" &
	feeder=$!
	wait "$feeder"
	feeder=
	local last=-1 rec
	until [ "$(rec_of "$b")" = "$last" ]; do last=$(rec_of "$b"); sleep 1; done
	rec=$last
	hz=$(getconf CLK_TCK)
	read -r ut st < <(awk '{print $14, $15}' "/proc/$pid/stat")
	kill -TERM "$pid"; wait "$pid" || true; pid=
	python3 -c "import sys; r,ut,st,hz,s=map(float,sys.argv[1:]); print('%.0f %.0f' % (r / s, (ut + st) / hz * 1e9 / max(r, 1)))" \
		"$rec" "$ut" "$st" "$hz" "$secs"
}
rec_of() { "$1/daemon/hotbridge" stats --socket "$tmp/ctl.sock" | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["records"])'; }

echo "daemon fed through a FIFO for $secs s, as fast as it takes; best of $rounds, run alternately:"
for r in $(seq "$rounds"); do
	soak "$old" >>"$tmp/soak.old"
	soak "$new" HB_SOAK_V1=1 >>"$tmp/soak.new1"
	soak "$new" >>"$tmp/soak.new2"
done
python3 - "$tmp" <<'PY'
import sys
t = sys.argv[1]
def best(f):
    rows = [tuple(map(float, l.split())) for l in open(t + "/soak." + f) if l.strip()]
    return max(r[0] for r in rows), min(r[1] for r in rows)
o, a, b = best("old"), best("new1"), best("new2")
for name, (rate, cpu) in (("old, v1 stream", o), ("new, v1 stream", a), ("new, v2 frames", b)):
    print("  %-16s %10.0f records/s %6.0f ns CPU/record" % (name, rate, cpu))
print("  ratios new/old: v1 stream records/s %.2f, CPU/record %.2f; v2 frames records/s %.2f, "
      "CPU/record %.2f" % (a[0] / o[0], a[1] / o[1], b[0] / o[0], b[1] / o[1]))
PY
