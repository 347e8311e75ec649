#!/bin/bash
# The configuration (issue 12): `check-config` (the unit's ExecStartPre)
# refuses what `run` refuses, because both call hb_config_check(); files are
# trusted like plugins (owner, mode, conf.d); a daemon whose sources all
# fail exits non-zero naming them; SIGHUP reloads from the defaults.
#   config.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (chown to uid 65534)"; exit 0; }
. "$(dirname "$0")/lib.sh"
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
data=$(dirname "$0")/../data

base() { # base NAME EXTRA: an emulated dry-run config with one source
	cat >"$tmp/$1.conf" <<CONF
[daemon]
dry_run = true
control_socket = $tmp/$1.sock
[topology]
emulated = true
[table]
max_entries = 65536
[source cxl0]
type = emul-chmu
memdev = mem0
capacity = 536870912
$2
CONF
	chmod 0644 "$tmp/$1.conf"
}

# refused NAME NEEDLE [--set A=V]...: check-config and run --once both exit 1
# naming NEEDLE
refused() {
	local name=$1 needle=$2 rc1=0 rc2=0
	shift 2
	# killed rather than hang (a FIFO once blocked open(), r5 E22; a parameter
	# that spun the loop, r5 E12)
	timeout -s KILL $((20 * slow)) "${hb[@]}" check-config --config "$tmp/$name.conf" "$@" \
		>/dev/null 2>"$tmp/$name.check" || rc1=$?
	timeout -s KILL $((20 * slow)) "${hb[@]}" run --once --config "$tmp/$name.conf" "$@" \
		>/dev/null 2>"$tmp/$name.run" || rc2=$?
	sed 's/^/# check-config: /' "$tmp/$name.check" | tail -2
	sed 's/^/# run: /' "$tmp/$name.run" | tail -2
	if [ "$rc1" -eq 1 ] && [ "$rc2" -eq 1 ] && grep -qF -- "$needle" "$tmp/$name.check" &&
		grep -qF -- "$needle" "$tmp/$name.run"; then
		ok "$name: check-config and run both refuse it: $needle"
	else
		bad "$name: check-config $rc1, run $rc2, want 1 and 1 naming '$needle'"
	fi
}

base good ""
"${hb[@]}" check-config --config "$tmp/good.conf" >/dev/null && ok "good: check-config passes" ||
	bad "good config refused"
"${hb[@]}" run --once --config "$tmp/good.conf" >/dev/null 2>&1 && ok "good: run --once exits 0" ||
	bad "good config: run failed"

base unknown-type "[source x]
type = banana"
refused unknown-type "[source x]: no source of type 'banana'"
base unknown-param "fancy = 1"
refused unknown-param "[source cxl0]: type emul-chmu takes no parameter 'fancy'"
# test hooks are no configuration: chmu's pci_dump= and sysfs_root= exist in test binaries only
base test-hook "[source hw]
type = chmu
pci = 0000:0d:00.0
pci_dump = $tmp/fake.lspci"
refused test-hook "[source hw]: pci_dump= is a test-only parameter of type chmu"
base source-nodes "[policy]
source_nodes = banana"
refused source-nodes "policy.source_nodes=banana: 'banana' is not a node number"
# each source kind's parameters: check-config and run --once run the same
# validation (one function per kind), so both refuse each of these with the
# same message naming the key (newuser r5 E12, E13, E14)
base params ""
base params-chmu "[source c]
type = chmu
pci = 0000:0d:00.0
dpa_ranges = 0+0x20000000"
base params-hmu "[source h]
type = cxl-hmu
memdev = mem0"
base params-replay "[source r]
type = replay
path = $tmp/feed.log"
: >"$tmp/feed.log"
base params-events "[source v]
type = cxl-events"
while read -r conf key val needle; do
	sec=${conf#params-}
	case $conf in params) sec=cxl0 ;; params-chmu) sec=c ;; params-hmu) sec=h ;;
	params-replay) sec=r ;; params-events) sec=v ;; esac
	cp "$tmp/$conf.conf" "$tmp/p-$sec-$key-$val.conf"
	refused "p-$sec-$key-$val" "$needle" --set "source.$sec.$key=$val"
done <<'TABLE'
params accesses 18446744073709551615 emul-chmu: accesses=18446744073709551615: at most 1000000
params accesses 1000001 emul-chmu: accesses=1000001: at most 1000000
params capacity 0 emul-chmu: capacity=0: a multiple of 256 MiB
params capacity 1000 emul-chmu: capacity=1000: a multiple of 256 MiB
params capacity 1073741824 capacity=1073741824 is larger than memdev mem0
params unit 0 emul-chmu: unit=0: a power of two from 4096
params unit 4095 emul-chmu: unit=4095: a power of two from 4096
params unit 536870912 emul-chmu: unit=536870912: a power of two from 4096
params ds 0 emul-chmu: ds=0: a power of two
params ds 3 emul-chmu: ds=3: a power of two
params ds 65536 emul-chmu: ds=65536: a power of two
params threshold 0 emul-chmu: threshold=0: 1..4294967295
params threshold 4294967296 emul-chmu: threshold=4294967296: 1..4294967295
params hotlist 1 emul-chmu: hotlist=1: want 2..8176
params hotlist 9000 emul-chmu: hotlist=9000: want 2..8176
params move_every 4294967296 emul-chmu: move_every=4294967296
params workload zipf:0 emul-chmu: workload=zipf:0
params-chmu unit 4095 chmu: unit=4095: a power of two from 256
params-chmu unit 0 chmu: unit=0: a power of two
params-chmu ds 3 chmu: ds=3: a power of two
params-chmu threshold 0 chmu: threshold=0: 1..4294967295
params-chmu epoch_ms 0 chmu: epoch_ms=0:
params-chmu epoch_ms 18446744073709551615 chmu: epoch_ms=18446744073709551615:
params-chmu epoch_ms 4097 chmu: epoch_ms=4097:
params-chmu instance 256 chmu: instance=256: 0..255
params-chmu dpa_ranges 0xffffffffffffffff+0x2000 runs past the end of the address space
params-chmu dpa_ranges 0+0x2000,0x1000+0x2000 chmu: DPA ranges 0x0+0x2000 and 0x1000+0x2000 overlap
params-chmu access tee-rw chmu: access=tee-rw: one of nontee-r, nontee-w, nontee-rw
params-chmu access 7 chmu: access=7: one of nontee-r
params-chmu capacity 1000 chmu: capacity=1000: the memdev's bytes, a multiple of 256 MiB
params-chmu dpa_ranges 0+0x1000, chmu: dpa_ranges=0+0x1000,: an empty element
params-chmu dpa_ranges 0x40000000+0x10000000 chmu: DPA range 0x40000000+0x10000000 runs past the memdev's capacity (0x20000000 bytes)
params-hmu dpa_range 0x20000000+0x10000000 cxl-hmu: DPA range 0x20000000+0x10000000 runs past the memdev's capacity (0x20000000 bytes)
params-hmu unit 4095 cxl-hmu: unit=4095: a power of two from 256
params-hmu ds 3 cxl-hmu: ds=3: a power of two
params-hmu threshold 0 cxl-hmu: threshold=0
params-hmu epoch_ms 0 cxl-hmu: epoch_ms=0:
params-hmu dpa_range 0x1000+0x10000000 cxl-hmu: dpa_range=0x1000+0x10000000: not on 256 MiB
params-hmu aux_pages 3 cxl-hmu: aux_pages=3
params-hmu access 0 cxl-hmu: access=0: one of nontee-r, nontee-w, nontee-rw
params-hmu capacity 1073741824 capacity=1073741824 is larger than memdev mem0
params-hmu dpa_range 0+512M cxl-hmu: dpa_range=0+512M: 512M is not a number
params-hmu pmu cxl_hmu_mem1.0.0 cxl-hmu: PMU cxl_hmu_mem1.0.0 is mem1's CHMU, but the source's memdev is mem0
params-replay from banana replay: from=banana
params-events instance .. cxl-events: instance=.. is not a directory name
TABLE
# the emulated host with a saved topology: refused, not one of them silently ignored
base emulated-snapshot ""
refused emulated-snapshot "[topology] emulated = true and snapshot = $tmp/any.json: the emulated host has a topology of its own" \
	--set "topology.snapshot=$tmp/any.json"
# a chmu source's memdev comes from its PCI function; a mismatch or neither is refused
base chmu-mismatch "[source c]
type = chmu
pci = 0000:0d:00.0
memdev = mem1"
refused chmu-mismatch "[source c]: memdev = mem1, but PCI function 0000:0d:00.0 is mem0"
base chmu-neither "[source c]
type = chmu"
refused chmu-neither "[source c]: type chmu names neither memdev = nor pci ="
base chmu-no-memdev "[source c]
type = chmu
pci = 0000:0f:00.0"
refused chmu-no-memdev "[source c]: PCI function 0000:0f:00.0 is no memdev of the CXL topology"
base chmu-pci "[source c]
type = chmu
pci = 0000:0e:00.0
dpa_ranges = 0x0+0x20000000"
"${hb[@]}" run --once --config "$tmp/chmu-pci.conf" >/dev/null 2>"$tmp/chmu-pci.err" || true
grep -q "source c: memdev mem1, the memdev of PCI function 0000:0e:00.0" "$tmp/chmu-pci.err" &&
	ok "chmu with pci = and no memdev = takes the memdev of its PCI function (mem1)" ||
	bad "chmu pci= memdev: $(cat "$tmp/chmu-pci.err")"
base no-node "[policy]
target_node = 63"
refused no-node "policy.target_node=63: no such NUMA node on this host"
base cxl-node "[policy]
target_node = 2"
refused cxl-node "policy.target_node=2: a CXL node (one promoted from), not DRAM"
base burst "[policy]
burst_mb = 0.001"
refused burst "policy.burst_mb=0.001: the token bucket (1000 bytes) is smaller than one page"
# trial39b #3: [tenant] rules on the emulated host, refused by check-config
# as by run (one check, cycle/tenants.c), in the same words
base tenant-emulated "[tenant]
allow = /web"
refused tenant-emulated "[tenant] rules: the emulated host's pages belong to no cgroup of this machine; tenant rules need a live host"
base emulated-live ""
refused emulated-live "[topology] emulated = true: the emulated host's addresses" --set daemon.dry_run=false
mkdir -m 0755 "$tmp/dir.conf"
refused dir "dir.conf: is a directory, not a configuration file"
# newuser r5 E22: a FIFO as the configuration, a drop-in, a snapshot or a
# CEDT is refused at once, never waited for in open()
mkfifo -m 0644 "$tmp/fifo.conf"
refused fifo "fifo.conf: not a regular file"
base fifo-dropin ""
mkdir -m 0755 "$tmp/fifo-dropin.conf.d"
mkfifo -m 0644 "$tmp/fifo-dropin.conf.d/60-f.conf"
refused fifo-dropin "60-f.conf: not a regular file"
fifo_args=("--topology $tmp/fifo.conf" "--topology $data/cxl-list/x2.vvv.json --cedt $tmp/fifo.conf")
for args in "${fifo_args[@]}"; do
	rc=0
	# shellcheck disable=SC2086 # the paths hold no blank
	timeout -s KILL $((20 * slow)) "${hb[@]}" translate $args --hpa 0x1 >/dev/null 2>"$tmp/fifo.err" || rc=$?
	[ "$rc" -eq 1 ] && grep -qF "fifo.conf: not a regular file" "$tmp/fifo.err" &&
		ok "translate ${args##* --}: a FIFO refused at once" || bad "translate $args: exit $rc: $(cat "$tmp/fifo.err")"
done
base too-many-sets ""
sets=()
for i in $(seq 65); do sets+=(--set "policy.threshold=$i"); done
rc=0; "${hb[@]}" check-config --config "$tmp/too-many-sets.conf" "${sets[@]}" >/dev/null 2>"$tmp/sets.err" || rc=$?
[ "$rc" -ne 0 ] && grep -q "more than 64 --set options" "$tmp/sets.err" &&
	ok "65 --set options: an error, not truncated" || bad "65 --set: status $rc"

# defect 5: a config owned by nobody; a drop-in by nobody in a world-writable conf.d
base nobody ""
chown 65534:65534 "$tmp/nobody.conf"
refused nobody "nobody.conf: owned by uid 65534, not 0; refusing"
base dropin ""
mkdir -m 0777 "$tmp/dropin.conf.d"
printf '[daemon]\nmetrics_textfile = /etc/evil\n' >"$tmp/dropin.conf.d/50-evil.conf"
chmod 0644 "$tmp/dropin.conf.d/50-evil.conf"
chown 65534:65534 "$tmp/dropin.conf.d/50-evil.conf"
refused dropin "dropin.conf.d: group- or world-writable (mode 0777); refusing"
chmod 0755 "$tmp/dropin.conf.d"
refused dropin "50-evil.conf: owned by uid 65534, not 0; refusing"

# every source fails to open (their parameters pass the checks; a socket
# under a regular file cannot be made): exit non-zero naming them
: >"$tmp/plain-file"
cat >"$tmp/dead.conf" <<CONF
[daemon]
dry_run = true
control_socket = $tmp/dead.sock
[topology]
emulated = true
[source feed-a]
type = replay
socket = $tmp/plain-file/a
[source feed-b]
type = replay
socket = $tmp/plain-file/b
CONF
chmod 0644 "$tmp/dead.conf"
rc=0; "${hb[@]}" run --once --config "$tmp/dead.conf" >/dev/null 2>"$tmp/dead.err" || rc=$?
sed 's/^/# /' "$tmp/dead.err" | tail -3
[ "$rc" -eq 1 ] && grep -q "no source opened: feed-a, feed-b" "$tmp/dead.err" &&
	ok "no source opened: exits 1 naming feed-a, feed-b" || bad "all sources failed: status $rc"
grep -q "source feed-a: replay: socket=" "$tmp/dead.err" && ! grep -q "feed-a: feed-a" "$tmp/dead.err" &&
	ok "a source's open error names it once" || bad "the source's name repeated"

# defect 7: a replay or cxl-events source run refuses, check-config refuses too
# (each built-in's own check, the one its open runs first)
base replay-none "[source feed]
type = replay"
refused replay-none "[source feed]: replay: give exactly one of path= (file or FIFO) and socket="
base replay-both "[source feed]
type = replay
path = $tmp/replay-both.conf
socket = $tmp/feed.sock"
refused replay-both "[source feed]: replay: give exactly one of path= (file or FIFO) and socket="
base replay-missing "[source feed]
type = replay
path = /nonexistent"
refused replay-missing "[source feed]: replay: path=/nonexistent: No such file or directory"
base evil-instance "[source ev]
type = cxl-events
instance = ../../evil"
refused evil-instance "[source ev]: cxl-events: instance=../../evil is not a directory name"
# defect 15: a source this host cannot serve: a warning with the reason, run goes on
if ! grep -q tracefs /proc/self/mounts; then
	base no-tracefs "[source ev]
type = cxl-events"
	rc=0; "${hb[@]}" check-config --config "$tmp/no-tracefs.conf" >/dev/null 2>"$tmp/no-tracefs.check" || rc=$?
	"${hb[@]}" run --once --config "$tmp/no-tracefs.conf" >/dev/null 2>"$tmp/no-tracefs.run" || rc=$((rc + $?))
	[ "$rc" -eq 0 ] && grep -q "warning: .*\[source ev\]: built-in cxl-events cannot serve 'ev' on this host: no tracefs mounted" \
		"$tmp/no-tracefs.check" &&
		grep -q "cannot serve 'ev' on this host: no tracefs mounted; going on without it" "$tmp/no-tracefs.run" &&
		ok "no tracefs: check-config warns, run goes on, both say why" ||
		bad "no tracefs: status $rc"
else
	skip "tracefs is mounted here: the cxl-events source can run"
fi
# defect 14: the textfile's directory is checked at start-up
base textfile "[daemon]
metrics_textfile = /nonexistent/dir/x.prom"
refused textfile "daemon.metrics_textfile=/nonexistent/dir/x.prom: its directory /nonexistent/dir: No such file or directory"
# defect 33: a table larger than this machine's memory, with the entries and bytes it needs
if [ "$(awk '/MemTotal/ { print $2 }' /proc/meminfo)" -lt $((48 * 1024 * 1024)) ]; then
	base big-table ""
	refused big-table "table.max_entries=1073741824: the hotness table needs 48.0 GiB" \
		--set table.max_entries=1073741824
else
	skip "this machine has 48 GiB or more: a 2^30-entry table fits"
fi
# defect 8: a key or a source twice in one file; drop-ins may override both
base dup-source "[source cxl0]
type = emul-chmu"
refused dup-source "dup-source.conf:12: [source cxl0] again (first at $tmp/dup-source.conf:8)"
base dup-key "[policy]
threshold = 12
threshold = 13"
refused dup-key "dup-key.conf:14: policy.threshold given again (first at $tmp/dup-key.conf:13)"
base layered "[policy]
threshold = 12"
mkdir -m 0755 "$tmp/layered.conf.d"
printf '[policy]\nthreshold = 13\n[source cxl0]\ncapacity = 268435456\n' >"$tmp/layered.conf.d/50-over.conf"
chmod 0644 "$tmp/layered.conf.d/50-over.conf"
out=$("${hb[@]}" check-config --config "$tmp/layered.conf")
grep -qx "threshold = 13   ; $tmp/layered.conf.d/50-over.conf:2" <<<"$out" &&
	grep -qx "capacity = 268435456   ; $tmp/layered.conf.d/50-over.conf:4" <<<"$out" &&
	grep -qx "memdev = mem0   ; $tmp/layered.conf:10" <<<"$out" &&
	grep -qx "interval_ms = 1000   ; default" <<<"$out" &&
	ok "drop-ins override keys and source parameters; check-config names the file:line of each" ||
	bad "layered: $(grep -E '^(threshold|capacity|memdev) ' <<<"$out")"
# check-config names where each value came from, and its output is configuration again
out=$("${hb[@]}" check-config --config "$tmp/layered.conf" --set policy.top_k=9 \
	--set source.cxl0.seed=5 --no-dropins)
grep -qx "top_k = 9   ; --set" <<<"$out" && grep -qx "seed = 5   ; --set" <<<"$out" &&
	grep -qx "threshold = 12   ; $tmp/layered.conf:13" <<<"$out" &&
	ok "check-config: --set values marked '; --set', the file's with file:line" ||
	bad "provenance: $(grep -E '^(top_k|seed|threshold) ' <<<"$out")"
printf '%s\n' "$out" >"$tmp/again.conf"
chmod 0644 "$tmp/again.conf"
"${hb[@]}" check-config --config "$tmp/again.conf" -q && ok "check-config's output is a valid configuration" ||
	bad "check-config's output does not read back"
rc=0; "${hb[@]}" check-config --config "$tmp/layered.conf" --set source.nosuch.path=/x >/dev/null 2>"$tmp/nosuch.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "source.nosuch.path=/x: no \[source nosuch\] in the configuration (its sources: cxl0)" "$tmp/nosuch.err" &&
	ok "--set for an unknown source: a clear error" || bad "--set source.nosuch: status $rc"
# defect 9: the emulated host takes backend = dryrun as it takes --dry-run
base dryrun-backend "[migrate]
backend = dryrun"
"${hb[@]}" check-config -q --config "$tmp/dryrun-backend.conf" --set daemon.dry_run=false &&
	"${hb[@]}" run --once --config "$tmp/dryrun-backend.conf" --set daemon.dry_run=false >/dev/null 2>&1 &&
	ok "emulated host: backend = dryrun accepted by check-config and run" || bad "backend = dryrun refused"
# defect 11: -n is --dry-run in check-config as in run; --no-dropins is long-only
"${hb[@]}" check-config -n -q --config "$tmp/emulated-live.conf" --set daemon.dry_run=false &&
	ok "check-config -n: checks as run -n (dry run)" || bad "check-config -n is not --dry-run"
# defect 34: --quiet prints errors only
out=$("${hb[@]}" check-config --quiet --config "$tmp/good.conf" 2>&1)
[ -z "$out" ] && ok "check-config --quiet: nothing printed for a good configuration" || bad "--quiet printed: $out"
out=$("${hb[@]}" check-config -q --config "$tmp/replay-none.conf" 2>&1) && bad "-q hid the exit status" ||
	grep -q "give exactly one of path=" <<<"$out" && ok "check-config -q: still prints the error, exits 1" ||
	bad "-q: $out"

# defect 14: a textfile write that fails is logged once, and once when it works again
mkdir -m 0755 "$tmp/tf"
base textfile-live "[daemon]
interval_ms = 100
metrics_textfile = $tmp/tf/x.prom"
"${hb[@]}" run --config "$tmp/textfile-live.conf" 2>"$tmp/textfile-live.err" &
pid=$!
wait_until 10 test -s "$tmp/tf/x.prom" && ok "textfile: written" || bad "no textfile"
mv "$tmp/tf" "$tmp/tf.gone"   # atomic: the daemon may be writing in it
tf_failed() { grep -q "metrics: $tmp/tf/x.prom: No such file or directory" "$tmp/textfile-live.err"; }
wait_until 10 tf_failed || true
sleep $((2 * slow))   # 20 cycles (of 100 ms) with nowhere to write
failed=$(grep -c "metrics: $tmp/tf/x.prom: No such file or directory" "$tmp/textfile-live.err" || true)
[ "$failed" -eq 1 ] && ok "textfile: a failing write logged once over 20 cycles" ||
	bad "textfile: failure logged $failed times"
mkdir -m 0755 "$tmp/tf"
tf_again() { grep -q "metrics: $tmp/tf/x.prom written again" "$tmp/textfile-live.err"; }
wait_until 10 tf_again && wait_until 10 test -s "$tmp/tf/x.prom" &&
	ok "textfile: the recovery is logged and the file written again" || bad "no recovery logged"
kill -TERM "$pid"
wait "$pid" || true
pid=

# reload (SIGHUP): from the defaults, then the file, then --set again
cat >"$tmp/live.conf" <<CONF
[daemon]
dry_run = true
interval_ms = 200
control_socket = $tmp/live.sock
[topology]
emulated = true
[table]
max_entries = 65536
[policy]
threshold = 50
[source cxl0]
type = emul-chmu
memdev = mem0
capacity = 536870912
CONF
chmod 0644 "$tmp/live.conf"
"${hb[@]}" run --config "$tmp/live.conf" --set policy.top_k=7 2>"$tmp/live.err" &
pid=$!
interval() { "${hb[@]}" status --socket "$tmp/live.sock" 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["interval_ms"])'; }
interval_is() { [ "$(interval)" = "$1" ]; }
logged() { grep -qF -- "$1" "$tmp/live.err"; }
wait_until 10 interval_is 200 && ok "reload: running with interval_ms 200" || bad "daemon not up"
cat >"$tmp/live.conf" <<CONF
[daemon]
dry_run = true
control_socket = $tmp/other.sock
[topology]
emulated = true
[table]
max_entries = 65536
[source cxl0]
type = emul-chmu
memdev = mem0
capacity = 536870912
[source cxl1]
type = emul-chmu
memdev = mem1
capacity = 536870912
CONF
kill -HUP "$pid"
wait_until 10 logged "needs a restart" || true
sed 's/^/# /' "$tmp/live.err" | grep -i reload || true
wait_until 5 interval_is 1000 && ok "reload: interval_ms removed from the file is back to 1000 (applied live)" ||
	bad "interval_ms after reload: $(interval)"
logged "policy.top_k = 7 caps promotion at " && ok "run warns that top_k = 7 caps promotion below rate_mbps" ||
	bad "run did not warn of top_k = 7 capping promotion"
# (top_k = 7 is warned about, as capping promotion below rate_mbps: not applied)
logged "applied: daemon.interval_ms, policy.threshold" && ! grep -q "applied: .*policy\.top_k" "$tmp/live.err" &&
	ok "reload: names what it applied; --set policy.top_k=7 re-applied, unchanged" ||
	bad "reload did not name what it applied"
logged "needs a restart (running values kept): daemon.control_socket, [source] sections" &&
	ok "reload: control_socket and sources named as needing a restart" ||
	bad "restart-only changes not named"
interval_is 1000 && ok "reload: the running control socket still answers" || bad "control socket lost"
: >"$tmp/live.conf"
kill -HUP "$pid"
wait_until 10 logged "live.conf: empty (no section, no key)" &&
	ok "reload: an empty file is refused" || bad "empty file not refused"
rm "$tmp/live.conf"; mkdir -m 0755 "$tmp/live.conf"
kill -HUP "$pid"
wait_until 10 logged "live.conf: is a directory, not a configuration file" &&
	ok "reload: a directory is refused" || bad "directory not refused"
rmdir "$tmp/live.conf"; mkfifo -m 0644 "$tmp/live.conf"
kill -HUP "$pid"
wait_until 10 logged "live.conf: not a regular file" &&
	ok "reload: a FIFO is refused, not waited for" || bad "FIFO not refused"
interval_is 1000 && kill -0 "$pid" && ok "reload: refused three times, the daemon runs on" || bad "daemon gone"
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] && ok "SIGTERM: exit 0" || bad "exit $rc"

# daemon.control_socket (newuser r4 D15, D35): an absolute path, not in a
# directory others can write (as configuration files); empty only for --once
base sock ""
base sock-relative ""
base sock-world-writable ""
refused sock-relative "daemon.control_socket=rel/ctl: not an absolute path" \
	--set daemon.control_socket=rel/ctl
mkdir -m 1777 "$tmp/ww"
refused sock-world-writable "daemon.control_socket=$tmp/ww/ctl: $tmp/ww: group- or world-writable" \
	--set daemon.control_socket="$tmp/ww/ctl"
"${hb[@]}" check-config --config "$tmp/sock.conf" --set daemon.control_socket= >/dev/null \
	2>"$tmp/sock-empty.check" &&
	grep -q "warning: daemon.control_socket is empty: run refuses it" "$tmp/sock-empty.check" &&
	ok "control_socket empty: check-config warns that run refuses it" ||
	bad "control_socket empty: check-config: $(cat "$tmp/sock-empty.check")"
"${hb[@]}" run --once --config "$tmp/sock.conf" --set daemon.control_socket= >/dev/null 2>&1 &&
	ok "control_socket empty: run --once runs" || bad "control_socket empty: run --once refused"
rc=0
timeout $((10 * slow)) "${hb[@]}" run --config "$tmp/sock.conf" --set daemon.control_socket= \
	>/dev/null 2>"$tmp/sock-empty.run" || rc=$?
[ "$rc" -eq 1 ] && grep -q "daemon.control_socket is empty: run needs its control socket" "$tmp/sock-empty.run" &&
	ok "control_socket empty: run exits 1 naming it" ||
	bad "control_socket empty: run exit $rc, $(cat "$tmp/sock-empty.run")"

# a key given twice with --set is an error naming both, as in a file
# (newuser r5 E25), "source NAME.KEY" and "source.NAME.KEY" being one key
base sets ""
rc=0
"${hb[@]}" check-config --config "$tmp/sets.conf" --set policy.threshold=5 --set policy.top_k=0 \
	--set policy.threshold=6 >/dev/null 2>"$tmp/sets.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "command line: --set policy.threshold=5 and --set policy.threshold=6: the same key twice" "$tmp/sets.err" &&
	ok "--set policy.threshold twice: exit 1 naming both" || bad "--set twice: exit $rc, $(cat "$tmp/sets.err")"
rc=0
"${hb[@]}" check-config --config "$tmp/sets.conf" --set source.cxl0.seed=1 --set "source cxl0.seed=2" \
	>/dev/null 2>"$tmp/sets.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "the same key twice" "$tmp/sets.err" &&
	ok "--set source.cxl0.seed and 'source cxl0.seed': the same key, exit 1" || bad "--set source twice: exit $rc, $(cat "$tmp/sets.err")"

# an error about a path of about 4000 characters keeps its reason at the end
# (newuser r5 E5: messages were cut at 256 bytes)
long=$tmp/$(python3 -c "print('/'.join(['a' * 200] * 19))")/feed
base longpath "[source f]
type = replay
path = $long"
rc=0
"${hb[@]}" check-config --config "$tmp/longpath.conf" >/dev/null 2>"$tmp/longpath.err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "path=$long: No such file or directory$" "$tmp/longpath.err" &&
	ok "a ${#long}-character path in an error: whole, with its reason" ||
	bad "long path: exit $rc, $(tail -c 200 "$tmp/longpath.err")"

hb_reports_ok
echo "1..$n"
