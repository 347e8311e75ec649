#!/bin/bash
# The shipped unit's SystemCallFilter= lets every source kind run: its
# lines, read in order with systemd's rules (systemd.exec(5): the first
# non-empty one sets the kind of list, a later one of the other kind takes
# its calls out again, an empty one resets), their @groups expanded by
# `systemd-analyze syscall-filter` (no running systemd needed), give the
# calls it kills. tests/tools/seccomp-deny runs the daemon under exactly
# those (SIGSYS, as the unit without SystemCallErrorNumber=) on the
# emulated host, a replay file beside the source kind under test:
#   replay (file, FIFO, socket), emul-chmu, cxl-events, and cxl-hmu
#   with tests/data/sysfs/cxl-hmu's PMU bound over
#   /sys/bus/event_source/devices (a private mount namespace), so that it
#   reaches perf_event_open (which fails there: the PMU is not real), and
#   tracefs mounted where the kernel has it, for cxl-events.
# Not chmu: the emulated host has no PCI function for it, and `run` refuses
# it before it opens anything (its open path is open, pread and mmap).
# Each must keep the daemon serving and end with exit 0 at SIGTERM, never
# with SIGSYS; cxl-hmu must have reached perf_event_open.
#   unit-seccomp.sh UNIT HOTBRIDGE SECCOMP_DENY DATADIR
set -euo pipefail
unit=$1 deny_tool=$3 data=$4
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (mount namespace, control socket)"; exit 0; }
command -v systemd-analyze >/dev/null ||
	{ echo "1..0 # SKIP no systemd-analyze (Debian: systemd)"; exit 0; }
[ -x "$deny_tool" ] || { echo "1..0 # SKIP no seccomp-deny (libseccomp-dev missing at setup)"; exit 0; }
unshare -m true 2>/dev/null || { echo "1..0 # SKIP unshare -m not permitted here"; exit 0; }
shift
. "$(dirname "$0")/lib.sh"
trap 'kill -KILL "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

# the calls the unit kills, one a line
python3 - "$unit" >"$tmp/deny.txt" <<'PY'
import subprocess, sys

def expand(item, seen):
    if not item.startswith("@"):
        return {item}
    if item in seen:
        return set()
    seen.add(item)
    out = subprocess.run(["systemd-analyze", "syscall-filter", item], check=True,
                         capture_output=True, text=True).stdout
    calls = set()
    for line in out.splitlines():
        if not line.startswith("    ") or line.strip().startswith("#"):
            continue
        calls |= expand(line.strip(), seen)
    return calls

mode, killed, section = None, set(), None
for raw in open(sys.argv[1]):
    line = raw.strip()
    if line.startswith("["):
        section = line
    if section != "[Service]" or "=" not in line or line.startswith("#"):
        continue
    key, value = (s.strip() for s in line.split("=", 1))
    if key == "SystemCallErrorNumber":
        sys.exit("SystemCallErrorNumber= makes denied calls fail, not kill: extend this test")
    if key != "SystemCallFilter":
        continue
    if not value:
        mode, killed = None, set()
        continue
    deny = value.startswith("~")
    items = value.lstrip("~").split()
    if any(":" in i for i in items):
        sys.exit(f"{value}: a per-call errno: extend this test")
    if mode is None:
        mode = "deny" if deny else "allow"
    if mode == "allow":
        sys.exit("an allow-list SystemCallFilter=: extend this test")
    calls = set().union(*(expand(i, set()) for i in items))
    killed = killed | calls if deny else killed - calls
print("\n".join(sorted(killed)))
PY
echo "# the unit kills $(wc -l <"$tmp/deny.txt") calls; perf_event_open: $(grep -qx perf_event_open "$tmp/deny.txt" && echo killed || echo allowed)"
grep -qx ptrace "$tmp/deny.txt" && grep -qx init_module "$tmp/deny.txt" &&
	ok "the derived filter kills what the unit means to (ptrace, init_module)" ||
	bad "the derived filter misses ptrace or init_module: the parse is wrong"

cycles() {
	"${hb[@]}" status --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["cycles"])'
}
past() { [ "$(cycles)" -ge "$1" ]; }
records() {
	"${hb[@]}" stats --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["records"])'
}
got() { [ "$(records)" -ge 1 ]; }
line="hpa=0x390000000 len=4096 count=5"
# feed KIND: one record into the replay source under test
feed() {
	case $1 in
	replay-file) echo "$line" >>"$tmp/feed2.log" ;;
	replay-fifo) timeout 10 sh -c 'echo "$1" >"$2"' sh "$line" "$tmp/feed.fifo" ;;
	replay-socket)
		python3 - "$tmp/feed.sock" "$line" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode()); s.close()
PY
		;;
	esac
}

# under KIND SECTION: the daemon under the filter, a replay file and SECTION
under() {
	local kind=$1 rc=0
	: >"$tmp/base.log"
	hb_emulated_conf "$tmp/$kind.conf" <<CONF
[source base]
type = replay
path = $tmp/base.log
$2
CONF
	# LeakSanitizer stops the threads with ptrace at exit, which the unit
	# forbids (@debug): under the filter an ASan build would hang there.
	# The leak check runs for the same paths in every other daemon test.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		unshare -m sh -c 'mount --make-rprivate / &&
		mount --bind "$1/sys/bus/event_source/devices" /sys/bus/event_source/devices &&
		{ mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true; } &&
		shift && exec "$@"' sh "$data/sysfs/cxl-hmu" \
		"$deny_tool" "$tmp/deny.txt" "${hb[@]}" run --dry-run --config "$tmp/$kind.conf" \
		2>"$tmp/$kind.err" &
	pid=$!
	if wait_until 10 past 2; then
		case $kind in
		replay-*) feed "$kind" && wait_until 10 got || echo "# $kind: the record did not arrive" ;;
		esac
		kill -TERM "$pid"
	fi
	wait "$pid" || rc=$?
	pid=
	grep -i "source\|seccomp\|cannot serve" "$tmp/$kind.err" | grep -v "^hotbridge: cycle" | sed "s/^/# $kind: /"
	[ "$rc" -ne 159 ] || bad "$kind: killed by SIGSYS: it needs a call the unit forbids"
	[ "$rc" -eq 0 ] || bad "$kind: exit $rc"
	ok "$kind under the unit's filter: served, exit 0 at SIGTERM"
}

mkfifo "$tmp/feed.fifo"
: >"$tmp/feed2.log"
under replay-file "[source f]
type = replay
path = $tmp/feed2.log"
under replay-fifo "[source f]
type = replay
path = $tmp/feed.fifo"
under replay-socket "[source f]
type = replay
socket = $tmp/feed.sock"
under emul-chmu "[source e]
type = emul-chmu
memdev = mem0
capacity = 536870912"
under cxl-events "[source ev]
type = cxl-events"
under cxl-hmu "[source h]
type = cxl-hmu"
grep -q "perf_event_open(" "$tmp/cxl-hmu.err" && ok "cxl-hmu reached perf_event_open" ||
	bad "cxl-hmu did not reach perf_event_open: the test does not cover it"

hb_reports_ok
echo "1..$n"
