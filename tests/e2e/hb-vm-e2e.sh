#!/bin/sh
# In the guest: make the emulated CXL memory a CPU-less NUMA node with the
# real tools (cxl create-region, ndctl devdax, daxctl system-ram), then
#   tag:     stamp PAGES tagged pages there, leave "<tag> <hpa> <node>" in /share
#   promote: also keep them mapped, wait for the host's replay feed of hot
#            DPAs (/share/feed.txt), run `hotbridge run --once` (BACKEND),
#            and record where every page ended up (/share/verify).
#   decoders: (one device with volatile and pmem capacity) two pmem regions
#            on it, PAGES tagged pages on each: two endpoint decoders, the
#            first with a DPA skip over the volatile partition
#   region:  only make the node (hb-vm-chmu.sh goes on from there)
#   reload:  (WAYS 2) hotbridge run in the background; destroy the region and
#            make it again at 256-byte granularity; explain before and after.
#   hb-vm-e2e.sh MODE WAYS PAGES [BACKEND]
mode=$1 ways=${2:-1} pages=${3:-2048} backend=${4:-phys}
# configuration files must sit in a directory others cannot write: not /tmp (1777)
mkdir -p /hbconf && chmod 0755 /hbconf
# CXL ports and endpoints probe asynchronously, and slowly on a loaded TCG
# host: wait until every memdev is bound to cxl_mem and its endpoint port has
# enumerated its decoders, which is what create-region needs. Seen under load
# (2 boots in 16): mem0 never bound at all (its probe deferred, nothing
# re-triggered it in 300 s); a memdev still unbound after 10 s is enabled
# with `cxl enable-memdev`, as an operator would.
# No CXL memory device on PCI at all fails at once.
want=$( [ "$ways" = 2 ] && echo 2 || echo 1 )
cxl_ready() {
	[ "$(ls -d /sys/bus/cxl/devices/mem*/driver 2>/dev/null | wc -l)" -ge "$want" ] &&
		[ "$(ls -d /sys/bus/cxl/devices/endpoint*/decoder* 2>/dev/null | wc -l)" -ge "$want" ]
}
i=0
until cxl_ready || [ $i -ge 1800 ]; do
	sleep 0.1; i=$((i + 1))
	[ $((i % 100)) -eq 0 ] || continue
	# No memdev yet. With no CXL memory device (PCI class 0x050210) at
	# all, nothing here can make one: say so now. With one, its drivers
	# (modules on 6.12, probed asynchronously) may still be on their way
	# on a loaded TCG host (seen: nothing under /sys/bus/cxl after 10 s):
	# give them 60 s, then say which step is missing.
	if ! ls -d /sys/bus/cxl/devices/mem* >/dev/null 2>&1; then
		pcidevs=$(grep -l '^0x050210$' /sys/bus/pci/devices/*/class 2>/dev/null | wc -l)
		if [ "$pcidevs" -eq 0 ] || [ $i -ge 600 ]; then
			echo "hb-vm-e2e: no CXL memdev after $i waits: $pcidevs CXL memory device(s) on PCI," \
				"$(ls /sys/bus/pci/drivers/cxl_pci 2>/dev/null | grep -c '^0000:') bound to cxl_pci;" \
				"/sys/bus/cxl/devices: $(ls /sys/bus/cxl/devices 2>/dev/null | tr '\n' ' ');" \
				"modules: $(grep -o '^cxl[a-z_]*' /proc/modules | tr '\n' ' ')"
			dmesg | grep -iE "cxl|pcieport" | tail -8 | sed 's/^/hb-vm-e2e: dmesg: /'
			exit 10
		fi
		continue
	fi
	for m in /sys/bus/cxl/devices/mem*; do
		[ -e "$m" ] || continue
		[ -e "$m/driver" ] && continue
		echo "hb-vm-e2e: ${m##*/} not bound after $i waits: cxl enable-memdev ${m##*/}"
		cxl enable-memdev "${m##*/}"
	done
done
if ! cxl_ready; then
	echo "hb-vm-e2e: the CXL devices did not probe after $i waits: $(ls /sys/bus/cxl/devices | tr '\n' ' ')"
	exit 10
fi
echo "hb-vm-e2e: $want memdev(s) bound, endpoint decoders: $(cd /sys/bus/cxl/devices && ls -d endpoint*/decoder* | tr '\n' ' ')after $i waits"
set -x
cxl list -M -u || exit 10
if [ "$mode" = decoders ]; then
	# one device with 256 MiB of volatile capacity (unused) and 512 MiB of
	# pmem: two pmem regions of 256 MiB, so endpoint decoder 0 skips the
	# volatile partition (DPA skip 256 MiB) and decoder 1 follows it. The
	# tagged pages of each must be on its own region: tag on region0 alone,
	# then offline its memory (the tagger has exited: nothing to migrate,
	# the bytes stay) and tag on region1.
	: >/share/tags
	for r in 0 1; do
		cxl create-region -m -t pmem -d decoder0.0 -w 1 -g 4096 -s 256M mem0 || exit 11
		ndctl create-namespace -r region$r -m devdax -M mem -a 2M || exit 12
		daxctl reconfigure-device --mode=system-ram dax$r.0 || exit 13
		[ $r -eq 0 ] || daxctl offline-memory dax0.0 || exit 18
		node=$(cat /sys/bus/dax/devices/dax$r.0/target_node)
		/hb/hb-vmtest tag "$pages" "$node" $((r << 20)) >>/share/tags || exit 15
	done
	set +x
	cxl list -vvv >/share/cxl-list.json || exit 14
	cxl list -D -d endpoint2 -u
	echo "hb-vm-e2e: $(wc -l </share/tags) tagged pages on two regions of mem0"
	exit 0
fi
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
# region: only the set-up, for another script (hb-vm-chmu.sh) to go on from
[ "$mode" = region ] && exit 0
if [ "$mode" = reload ]; then
	# the daemon runs; the region is torn down and made again with another
	# granularity; its uevents must make it translate against the new decoders
	# the control socket in a directory only root writes (run refuses /tmp itself)
	mkdir -p -m 0700 /tmp/hb
	cat >/hbconf/hb.conf <<CONF
[daemon]
interval_ms = 300
dry_run = true
control_socket = /tmp/hb/ctl.sock
plugin_dir =
log_level = info
[source idle-feed]
type = replay
path = /tmp/empty-feed
CONF
	: >/tmp/empty-feed
	hotbridge run --config /hbconf/hb.conf 2>/share/daemon.log &
	daemon=$!
	# polled, not slept: a loaded TCG guest is many times slower
	i=0
	until hotbridge explain --socket /tmp/hb/ctl.sock mem1:0x0 >/share/explain-before.json 2>/dev/null ||
		[ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
	hotbridge explain --socket /tmp/hb/ctl.sock mem1:0x0 >/share/explain-before.json || exit 20
	daxctl offline-memory dax0.0 || exit 21
	daxctl reconfigure-device --mode=devdax --force dax0.0 || exit 22
	ndctl destroy-namespace -f all || exit 23
	cxl disable-region region0 && cxl destroy-region region0 || exit 24
	cxl create-region -m -t pmem -d decoder0.0 -w 2 -g 256 mem0 mem1 || exit 25
	cxl list -vvv >/share/cxl-list-after.json || exit 26
	# until the daemon has rebuilt from the new region: mem1:0x0 translates
	# again, elsewhere (the host checks where against cxl-list-after.json)
	hpa() { sed -n 's/.*"hpa": *"\(0x[0-9a-f]*\)".*/\1/p' "$1"; }
	i=0
	until hotbridge explain --socket /tmp/hb/ctl.sock mem1:0x0 >/share/explain-after.json 2>/dev/null &&
		[ "$(hpa /share/explain-after.json)" != "$(hpa /share/explain-before.json)" ] ||
		[ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
	echo "hb-vm-e2e: mem1:0x0 at $(hpa /share/explain-before.json) before, $(hpa /share/explain-after.json) after ($i polls)"
	hotbridge explain --socket /tmp/hb/ctl.sock mem1:0x0 >/share/explain-after.json || exit 27
	hotbridge stats --socket /tmp/hb/ctl.sock >/share/stats-after.json
	kill -0 $daemon || exit 28
	kill -TERM $daemon
	wait $daemon || exit 29
	cat /share/daemon.log
	exit 0
fi
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
# every host has /run (damon keeps its state file in /run/hotbridge); the
# initramfs has not, and without it damon is unavailable and auto falls back
mkdir -p /run
cat >/hbconf/hb.conf <<CONF
[daemon]
control_socket =
plugin_dir =
log_level = info
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
from = start
CONF
hotbridge run --once --config /hbconf/hb.conf >/share/stats.txt 2>/share/run.log
rc=$?
cat /share/run.log /share/stats.txt
kill -USR1 $holder
wait $holder
[ $rc -eq 0 ] || exit 17
echo "hb-vm-e2e: verified $(wc -l </share/verify) pages"
exit 0
