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
	"${hb[@]}" check-config --config "$tmp/$name.conf" "$@" >/dev/null 2>"$tmp/$name.check" || rc1=$?
	"${hb[@]}" run --once --config "$tmp/$name.conf" "$@" >/dev/null 2>"$tmp/$name.run" || rc2=$?
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
pci = 0000:0e:00.0"
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
base emulated-live ""
refused emulated-live "[topology] emulated = true: the emulated host's addresses" --set daemon.dry_run=false
mkdir -m 0755 "$tmp/dir.conf"
refused dir "dir.conf: is a directory, not a configuration file"
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

# every source fails to open: exit non-zero naming them
cat >"$tmp/dead.conf" <<CONF
[daemon]
dry_run = true
control_socket = $tmp/dead.sock
[topology]
emulated = true
[source feed-a]
type = replay
path = $tmp/missing-a
[source feed-b]
type = replay
path = $tmp/missing-b
CONF
chmod 0644 "$tmp/dead.conf"
rc=0; "${hb[@]}" run --once --config "$tmp/dead.conf" >/dev/null 2>"$tmp/dead.err" || rc=$?
sed 's/^/# /' "$tmp/dead.err" | tail -3
[ "$rc" -eq 1 ] && grep -q "no source opened: feed-a, feed-b" "$tmp/dead.err" &&
	ok "no source opened: exits 1 naming feed-a, feed-b" || bad "all sources failed: status $rc"

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
logged "applied: daemon.interval_ms, policy.threshold" && ! logged "policy.top_k" &&
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
interval_is 1000 && kill -0 "$pid" && ok "reload: refused twice, the daemon runs on" || bad "daemon gone"
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=
[ "$rc" -eq 0 ] && ok "SIGTERM: exit 0" || bad "exit $rc"

hb_reports_ok
echo "1..$n"
