#!/bin/bash
# One e2e scenario: a QEMU guest on our kernel with WAYS emulated CXL
# type-3 devices (one pxb-cxl host bridge, two root ports), the chain
# cxl create-region -> ndctl create-namespace (devdax) -> daxctl
# reconfigure-device --mode=system-ram run by the real tools, PAGES tagged
# pages on the new CPU-less node; then the oracle (oracle.py) checks
# hotbridge's DPA <-> HPA against the devices' backing files.
#   run.sh tag WAYS PAGES HOTBRIDGE BINDIR
#   run.sh promote WAYS PAGES HOTBRIDGE BINDIR BACKEND
# promote: the guest keeps the tagged pages mapped; the host finds them in
# the live backing files, feeds every 8th page's DPA to the guest's
# `hotbridge run --once` (replay source) as device telemetry, and checks
# where every page ended up (promote.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 ways=$2 pages=$3 hb=$4 bindir=$5 backend=${6:-phys}
skip() { echo "1..0 # SKIP $*"; exit 0; }
for t in cxl ndctl daxctl qemu-system-x86_64; do
	command -v "$t" >/dev/null || skip "$t not installed (apt-get install ndctl daxctl qemu-system-x86)"
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s)
guest=("$here/../vm/run.sh" --tap --cxl "$ways" --kernel mpp --node-mem 1024
	--host-bin cxl --host-bin ndctl --host-bin daxctl --host-bin "$hb"
	--extra "$here/hb-vm-e2e.sh" --bindir "$bindir")
set +e
if [ "$mode" = promote ]; then
	"${guest[@]}" --state "$out" hb-vm-e2e.sh promote "$ways" "$pages" "$backend" \
		>"$out/guest.log" 2>&1 &
	gpid=$!
	python3 "$here/promote.py" feed "$out"
	wait $gpid
	rc=$?
else
	HB_VM_KEEP=$out "${guest[@]}" hb-vm-e2e.sh tag "$ways" "$pages" >"$out/guest.log" 2>&1
	rc=$?
fi
set -e
if grep -q "^1..0 # SKIP" "$out/guest.log"; then
	grep "^1..0 # SKIP" "$out/guest.log"
	exit 0
fi
sed 's/^/# /; s/^# # /# /' "$out/guest.log" | grep -E "hb-vm-e2e|hb-vmtest|run.sh|error|Error" || true
[ $rc -eq 0 ] || { echo "not ok 1 - the guest failed (status $rc); its log:"; sed 's/^/# /' "$out/guest.log" | tail -40; exit 1; }
if [ "$mode" = promote ]; then
	grep -E "hotbridge: (cycle|[0-9]+ source)" "$out/guest.log" | sed "s/^# //; s/^/# /" || true
	python3 "$here/promote.py" check "$out"
else
	python3 "$here/oracle.py" "$out" "$hb"
fi
echo "# scenario $mode $ways-way $backend: $(( $(date +%s) - start )) s wall"
