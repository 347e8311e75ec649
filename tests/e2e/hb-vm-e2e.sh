#!/bin/sh
# In the guest: make the emulated CXL memory a CPU-less NUMA node with the
# real tools, stamp tagged pages on it, and leave for the host what the
# oracle needs (/share: cxl list, tags, the steps' output).
#   hb-vm-e2e.sh WAYS PAGES
ways=${1:-1} pages=${2:-2048}
set -x
cxl list -M -u || exit 10
if [ "$ways" = 2 ]; then
	cxl create-region -m -t pmem -d decoder0.0 -w 2 -g 4096 mem0 mem1 || exit 11
else
	cxl create-region -m -t pmem -d decoder0.0 -w 1 -g 4096 mem0 || exit 11
fi
ndctl create-namespace -r region0 -m devdax -M mem -a 2M || exit 12
daxctl reconfigure-device --mode=system-ram dax0.0 || exit 13
node=$(cat /sys/bus/dax/devices/dax0.0/target_node)
set +x
echo "hb-vm-e2e: CXL memory is node $node"
cat /sys/devices/system/node/node$node/meminfo | head -3
cxl list -vvv >/share/cxl-list.json || exit 14
/hb/hb-vmtest tag "$pages" "$node" >/share/tags || exit 15
echo "hb-vm-e2e: $(wc -l </share/tags) tagged pages on node $node"
sync
exit 0
