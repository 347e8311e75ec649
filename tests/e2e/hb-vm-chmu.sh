#!/bin/sh
# In the guest: the closed loop with no feed. The CXL devices carry our
# CHMU model in QEMU (tests/vm/run.sh --chmu); hb-vm-e2e.sh region makes
# their memory a CPU-less node with the real tools; hb-vmchmu keeps a hot
# set busy there (and moves it once); `hotbridge run` with one `chmu`
# source per memdev, found at its PCI function, must bring each hot set to
# DRAM by itself. Leaves explain.json, stats.json, sources.json, status.json
# and daemon.log in /share.
#   hb-vm-chmu.sh WAYS PAGES HOT PHASE_S BOUND_S [BACKEND [KIND [AUX_PAGES]]]
# KIND: chmu (default), the register source, which maps the block itself;
# or cxl-hmu, the same CHMU through the kernel's perf driver (cxl_hmu,
# kernel/patches/6.12/0005): one PMU per memdev, cxl_hmu_memX.0.0. The
# module is loaded at boot (run.sh --module cxl_hmu) or, built out of
# tree, from /hb/cxl_hmu.ko. AUX_PAGES: the cxl-hmu source's aux_pages.
ways=${1:-1} pages=${2:-4096} hot=${3:-256} phase=${4:-20} bound=${5:-10} backend=${6:-phys}
kind=${7:-chmu} aux_pages=${8:-16}
case $kind in
chmu|cxl-hmu) ;;
*) echo "hb-vm-chmu: unknown source kind '$kind' (chmu or cxl-hmu)"; exit 2 ;;
esac
if [ "$kind" = cxl-hmu ] && ! ls -d /sys/bus/event_source/devices/cxl_hmu_* >/dev/null 2>&1; then
	[ -f /hb/cxl_hmu.ko ] || { echo "hb-vm-chmu: no cxl_hmu module (kernel/build with patch 0005, or --extra cxl_hmu.ko)"; exit 34; }
	insmod /hb/cxl_hmu.ko || exit 34
fi
sh /hb/hb-vm-e2e.sh region "$ways" || exit $?
node=$(cat /sys/bus/dax/devices/dax0.0/target_node)
# NUMA balancing would move the busy pages itself (mode 1 promotes across
# nodes too): off, so that what moves is hotbridge's doing
echo 0 >/proc/sys/kernel/numa_balancing || exit 30
mkdir -p /run /hbconf /tmp/chmu && chmod 0755 /hbconf
cat >/hbconf/hb.conf <<CONF
[daemon]
interval_ms = 500
control_socket = /tmp/ctl.sock
plugin_dir =
log_level = info
[policy]
threshold = 1
rate_mbps = 4
watermark_mb = 0
top_k = 0
[migrate]
backend = $backend
CONF
for m in /sys/bus/cxl/devices/mem*; do
	name=${m##*/}
	bdf=$(basename "$(dirname "$(readlink -f "$m")")")
	size=$(cat "$m/pmem/size")
	if [ "$kind" = cxl-hmu ]; then
		# the memdev comes from the PMU's name
		cat >>/hbconf/hb.conf <<CONF
[source hmu-$name]
type = cxl-hmu
pmu = cxl_hmu_$name.0.0
dpa_range = 0+$size
unit = 4096
epoch_ms = 1000
threshold = 32
aux_pages = $aux_pages
CONF
		echo "hb-vm-chmu: $name at $bdf, $size bytes of pmem, PMU cxl_hmu_$name.0.0"
		continue
	fi
	# no memdev =: the source finds it from the PCI function
	cat >>/hbconf/hb.conf <<CONF
[source chmu-$name]
type = chmu
pci = $bdf
dpa_ranges = 0+$size
unit = 4096
epoch_ms = 1000
threshold = 32
CONF
	echo "hb-vm-chmu: $name at $bdf, $size bytes of pmem"
done
hotbridge list --plugin-dir /nonexistent >/share/list.json 2>&1 || echo "hb-vm-chmu: hotbridge list failed"
/hb/hb-vmchmu "$node" "$pages" "$hot" "$phase" "$bound" /tmp/chmu &
work=$!
while [ ! -e /tmp/chmu/ready ]; do
	kill -0 $work 2>/dev/null || { wait $work; exit 31; }
	sleep 0.2
done
hotbridge run --config /hbconf/hb.conf 2>/share/daemon.log &
daemon=$!
i=0
until hotbridge stats --socket /tmp/ctl.sock >/dev/null 2>&1 || [ $i -ge 300 ]; do
	kill -0 $daemon 2>/dev/null || break
	sleep 0.2; i=$((i + 1))
done
if ! hotbridge stats --socket /tmp/ctl.sock >/dev/null 2>&1; then
	echo "hb-vm-chmu: the daemon did not come up"; cat /share/daemon.log; kill $work; exit 32
fi
grep -iE "chmu|hmu" /share/daemon.log | head -5
t_up=$(date +%s)
: >/tmp/chmu/go
read -r hpa_a hpa_b </tmp/chmu/ready
while [ ! -e /tmp/chmu/phase-b ]; do sleep 0.5; done
hotbridge explain --socket /tmp/ctl.sock "$hpa_a" >/share/explain.json 2>&1
while [ ! -e /tmp/chmu/done ]; do sleep 0.5; done
hotbridge stats --socket /tmp/ctl.sock >/share/stats.json 2>&1
hotbridge sources --socket /tmp/ctl.sock >/share/sources.json 2>&1
echo "hb-vm-chmu: sources read $(( $(date +%s) - t_up )) s after the daemon came up" | tee /share/elapsed
hotbridge status --socket /tmp/ctl.sock >/share/status.json 2>&1
for p in /sys/bus/event_source/devices/cxl_hmu_*; do
	[ -d "$p" ] && echo "hb-vm-chmu: ${p##*/}: lost_entries $(cat "$p/lost_entries") overflows $(cat "$p/overflows")"
done
kill -TERM $daemon
wait $daemon
drc=$?
: >/tmp/chmu/stopped
wait $work
wrc=$?
grep -E "cycle|error|warn" /share/daemon.log | tail -5
[ $drc -eq 0 ] || { echo "hb-vm-chmu: the daemon exited with status $drc"; exit 33; }
exit $wrc
