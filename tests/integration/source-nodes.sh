#!/bin/bash
# The source-node rule (daemon/platform/source-nodes.h), end to end: a node is a
# source node only when it is on this host, has no CPUs and its memory lies
# in a CXL window of this host. On the emulated host status and explain say
# why each node is or is not one; policy.source_nodes is refused naming the
# node (check-config and run alike); and a saved snapshot whose region lies
# in this host's DRAM (the new user's defect 1) never makes that DRAM node a
# source: the daemon warns, naming the region and the node.
#   source-nodes.sh HOTBRIDGE HOTBRIDGE_TEST DATA_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
hbt=("${hb[@]:0:${#hb[@]}-1}" "$2")
data=$3
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
mkfifo "$tmp/feed"

# -- the emulated host: node 0 and 1 DRAM with CPUs, node 2 CXL
hb_emulated_conf "$tmp/emu.conf" dry_run=true <<CONF
[source f]
type = replay
path = $tmp/feed
CONF
"${hb[@]}" run --config "$tmp/emu.conf" 2>"$tmp/emu.log" &
pid=$!
exec 3<>"$tmp/feed"
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null || bad "the daemon did not start"
"${hb[@]}" status --socket "$tmp/ctl.sock" >"$tmp/status.json"
rule=$(jq -c '[.status.nodes[] | [.node, .source]]' "$tmp/status.json")
[ "$rule" = '[[0,false],[1,false],[2,true]]' ] && ok "status: node 2 is the one source node ($rule)" ||
	bad "status nodes: $rule"
jq -r '.status.nodes[0].source_reason' "$tmp/status.json" | grep -q "node 0 is not a source node: it has CPUs (DRAM)" &&
	ok "status says why node 0 is not a source: it has CPUs" || bad "node 0's reason: $(jq -c .status.nodes "$tmp/status.json")"
grep -q "source nodes 2," "$tmp/emu.log" && ok "the start-up line names the source nodes as numbers" ||
	bad "start-up line: $(grep 'source nodes' "$tmp/emu.log")"
# an address outside every region is on no node: explain says that, not "not CXL"
"${hb[@]}" explain --socket "$tmp/ctl.sock" 0x1000 >"$tmp/explain.json" || true
jq -r '.explain.reason // .error' "$tmp/explain.json" | sed 's/^/# explain 0x1000: /'
kill "$pid"; wait "$pid" || true; pid=

# -- policy.source_nodes: nodes the rule refuses, named (defects 6 and 13)
printf '[daemon]\ncontrol_socket =\n[topology]\nemulated = true\n[source e]\ntype = emul-chmu\nmemdev = mem0\ncapacity = 536870912\n' >"$tmp/once.conf"
chmod 0644 "$tmp/once.conf"
check() { # check VALUE NEEDLE: check-config and run --once both refuse VALUE naming NEEDLE
	local rc1=0 rc2=0
	"${hb[@]}" check-config --config "$tmp/once.conf" --dry-run --set "policy.source_nodes=$1" \
		>/dev/null 2>"$tmp/c.err" || rc1=$?
	"${hb[@]}" run --config "$tmp/once.conf" --dry-run --once --set "policy.source_nodes=$1" \
		--set policy.target_node=0 >/dev/null 2>"$tmp/r.err" || rc2=$?
	if [ "$rc1" = 1 ] && [ "$rc2" = 1 ] && grep -qF "$2" "$tmp/c.err" && grep -qF "$2" "$tmp/r.err"; then
		ok "policy.source_nodes=$1 refused by check-config and run: $2"
	else
		bad "policy.source_nodes=$1: rc $rc1/$rc2: $(cat "$tmp/c.err" "$tmp/r.err")"
	fi
}
check 7 "node 7 is not a NUMA node of this host"
check 0 "node 0 has CPUs (DRAM), not CXL memory"
check 0,2 "node 0 has CPUs (DRAM), not CXL memory"
check 2,2 "lists node 2 twice"
"${hb[@]}" run --config "$tmp/once.conf" --dry-run --once --set policy.source_nodes=2 >/dev/null 2>&1 &&
	ok "policy.source_nodes=2 (CPU-less, in the window) is taken" || bad "policy.source_nodes=2 refused"

# -- a snapshot of another host over this host's DRAM (defect 1)
snap=$data/snapshots/x2-vvv-notes.json
bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes 2>/dev/null || echo 0)))
node=
if [ "$bs" -gt 0 ]; then
	blk=$((0x390000000 / bs))
	for d in /sys/devices/system/node/node*/memory$blk; do
		[ -e "$d" ] && [ "$(cat "$d/state" 2>/dev/null)" = online ] && node=$(basename "$(dirname "$d")" | sed 's/node//')
	done
fi
if [ -z "$node" ] || [ ! -s "/sys/devices/system/node/node$node/cpulist" ]; then
	skip "this host has no DRAM node (with CPUs) at 0x390000000, where $snap puts region0"
else
	mkdir -m 700 "$tmp/s"
	cat >"$tmp/snap.conf" <<CONF
[daemon]
control_socket = $tmp/s/ctl.sock
interval_ms = 200
[topology]
snapshot = $snap
[source f]
type = replay
path = $tmp/feed
CONF
	chmod 0644 "$tmp/snap.conf"
	# this host's own CXL windows, as an image (dram-only: none)
	"${hbt[@]}" run --iomem "$data/iomem/dram-only.iomem" --config "$tmp/snap.conf" --dry-run 2>"$tmp/snap.log" &
	pid=$!
	wait_until 10 "${hb[@]}" status --socket "$tmp/s/ctl.sock" >/dev/null || bad "the snapshot daemon did not start"
	grep -q "region region0 (HPA 0x390000000-0x3afffffff) lies on node $node, which has CPUs (DRAM)" "$tmp/snap.log" &&
		ok "the snapshot's region on DRAM node $node is warned about, naming region and node" ||
		bad "no warning: $(cat "$tmp/snap.log")"
	"${hb[@]}" status --socket "$tmp/s/ctl.sock" >"$tmp/snap.json"
	[ "$(jq -c .status.source_nodes "$tmp/snap.json")" = "[]" ] && ok "no source node: DRAM node $node is not one" ||
		bad "source_nodes $(jq -c .status.source_nodes "$tmp/snap.json")"
	"${hb[@]}" explain --socket "$tmp/s/ctl.sock" mem1:0x5000 >"$tmp/snap-explain.json"
	jq -r .explain.reason "$tmp/snap-explain.json" | grep -q "node $node is not a source node: it has CPUs" &&
		ok "explain mem1:0x5000: $(jq -r .explain.reason "$tmp/snap-explain.json")" ||
		bad "explain: $(cat "$tmp/snap-explain.json")"
	kill "$pid"; wait "$pid" || true; pid=
	"${hb[@]}" check-config --config "$tmp/snap.conf" --dry-run >/dev/null 2>"$tmp/snap.check" || true
	grep -q "warning: region region0 .* lies on node $node" "$tmp/snap.check" &&
		ok "check-config warns the same" || bad "check-config: $(cat "$tmp/snap.check")"
fi
hb_reports_ok
echo "1..$n"
