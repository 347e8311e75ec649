#!/bin/bash
# One e2e scenario: a QEMU guest on our kernel with WAYS emulated CXL
# type-3 devices (one pxb-cxl host bridge, two root ports), the chain
# cxl create-region -> ndctl create-namespace (devdax) -> daxctl
# reconfigure-device --mode=system-ram run by the real tools, PAGES tagged
# pages on the new CPU-less node; then the oracle (oracle.py) checks
# hotbridge's DPA <-> HPA against the devices' backing files.
#   run.sh WAYS PAGES HOTBRIDGE BINDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ways=$1 pages=$2 hb=$3 bindir=$4
skip() { echo "1..0 # SKIP $*"; exit 0; }
for t in cxl ndctl daxctl qemu-system-x86_64; do
	command -v "$t" >/dev/null || skip "$t not installed (apt-get install ndctl daxctl qemu-system-x86)"
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s)
set +e
HB_VM_KEEP=$out "$here/../vm/run.sh" --tap --cxl "$ways" --kernel mpp --node-mem 1024 \
	--host-bin cxl --host-bin ndctl --host-bin daxctl --extra "$here/hb-vm-e2e.sh" \
	--bindir "$bindir" hb-vm-e2e.sh "$ways" "$pages" >"$out/guest.log" 2>&1
rc=$?
set -e
if grep -q "^1..0 # SKIP" "$out/guest.log"; then
	grep "^1..0 # SKIP" "$out/guest.log"
	exit 0
fi
sed 's/^/# /; s/^# # /# /' "$out/guest.log" | grep -E "hb-vm-e2e|hb-vmtest|run.sh|error|Error" || true
[ $rc -eq 0 ] || { echo "not ok 1 - the guest failed (status $rc); its log:"; sed 's/^/# /' "$out/guest.log" | tail -40; exit 1; }
python3 "$here/oracle.py" "$out" "$hb"
echo "# scenario $ways-way: $(( $(date +%s) - start )) s wall"
