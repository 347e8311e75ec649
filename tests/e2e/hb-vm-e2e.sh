#!/bin/sh
# In the guest: make the emulated CXL memory a CPU-less NUMA node with the
# real tools (cxl create-region, ndctl devdax, daxctl system-ram), then
#   tag:     stamp PAGES tagged pages there, leave "<tag> <hpa> <node>" in /share
#   promote: also keep them mapped, wait for the host's replay feed of hot
#            DPAs (/share/feed.txt), run `hotbridge run --once` (BACKEND),
#            and record where every page ended up (/share/verify).
#   hb-vm-e2e.sh MODE WAYS PAGES [BACKEND]
mode=$1 ways=${2:-1} pages=${3:-2048} backend=${4:-phys}
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
cxl list -vvv >/share/cxl-list.json || exit 14
if [ "$mode" = tag ]; then
	/hb/hb-vmtest tag "$pages" "$node" >/share/tags || exit 15
	echo "hb-vm-e2e: $(wc -l </share/tags) tagged pages on node $node"
	exit 0
fi

/hb/hb-vmtest hold "$pages" "$node" /share/tags /share/verify &
holder=$!
i=0
while [ ! -e /share/feed.txt ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
[ -e /share/feed.txt ] || { echo "hb-vm-e2e: no feed from the host"; exit 16; }
echo "hb-vm-e2e: the host's feed has $(grep -c dpa= /share/feed.txt) hot DPAs"
cat >/tmp/hb.conf <<CONF
[daemon]
control_socket =
plugin_dir =
[policy]
threshold = 1
rate_mbps = 0
watermark_mb = 0
top_k = 0
[migrate]
backend = $backend
[source device-telemetry]
type = replay
path = /share/feed.txt
CONF
hotbridge run --once --config /tmp/hb.conf >/share/stats.txt 2>/share/run.log
rc=$?
cat /share/run.log /share/stats.txt
kill -USR1 $holder
wait $holder
[ $rc -eq 0 ] || exit 17
echo "hb-vm-e2e: verified $(wc -l </share/verify) pages"
exit 0
