#!/bin/sh
# SPDX-License-Identifier: MIT
# In the guest: one mover of the race bench (tests/bench/race.sh) over the
# workloads, one after the other, each from the same start (all its pages
# fresh on the CXL node, DRAM held to its room by hb-vmrace).
#   hb-vm-race.sh MOVER RATE_MBPS WORKLOAD:SECONDS:ROOM...
# MOVER: none (the baseline: NUMA balancing off, nothing moves pages);
# numab (kernel.numa_balancing = 2, the tiering mode, its defaults);
# numab-rl (the same with numa_balancing_promote_rate_limit_MBps =
# RATE_MBPS); hotbridge (`hotbridge run`, one `chmu` source per memdev as
# hb-vm-chmu.sh writes it, backend auto: damon on Debian's kernels,
# rate_mbps = RATE_MBPS, watermark_mb = node 0's high watermark, min_epochs
# = 2). The mover starts after the workload's fill (the
# daemon's programming resets the CHMU: the fill counts for nothing) and
# stops after it. Each workload's "race:" line (hb-vmrace) is printed with
# "mover=MOVER" added; the device's served counts are read by the host
# between the marks /share/race-{go,done}-WORKLOAD this script leaves.
mover=$1 rate=$2
shift 2
case $mover in
none|numab|numab-rl|hotbridge) ;;
*) echo "hb-vm-race: unknown mover '$mover'"; exit 2 ;;
esac
sh /hb/hb-vm-e2e.sh region 1 || exit $?
node=$(cat /sys/bus/dax/devices/dax0.0/target_node)
nb=/proc/sys/kernel/numa_balancing
echo 0 >$nb || exit 30
# the room binds every mover the same way (hb-vmrace): ROOM pages above
# where each stops promoting. NUMA balancing stops at node 0's low
# watermark (short of the high one, its tiering mode wakes kswapd and
# promotes anyway, allocating without reclaim: down to the low one);
# hotbridge at its watermark_mb, set here to node 0's high watermark rounded
# up to a MiB, and hb-vmrace holds ROOM pages above it (FLOOR)
high=$(awk '/^Node 0,/ { n = 1; next } /^Node / { n = 0 } n && $1 == "high" { s += $2 } END { print s + 0 }' /proc/zoneinfo)
wm_mb=$(( (high * 4096 + 1048575) / 1048576 ))
stop=
if [ "$mover" = hotbridge ]; then
	stop=$((wm_mb * 256))
	echo "hb-vm-race: node 0's high watermark $high pages; hotbridge's watermark_mb $wm_mb ($stop pages)"
	mkdir -p /run /hbconf /tmp/no-plugins && chmod 0755 /hbconf
	mkdir -p -m 0700 /tmp/hb
	cat >/hbconf/hb.conf <<CONF
[daemon]
interval_ms = 500
control_socket = /tmp/hb/ctl.sock
plugin_dir =
log_level = info
[policy]
threshold = 1
rate_mbps = $rate
watermark_mb = $wm_mb
top_k = 0
min_epochs = 2
[migrate]
backend = auto
CONF
	for m in /sys/bus/cxl/devices/mem*; do
		bdf=$(basename "$(dirname "$(readlink -f "$m")")")
		cat >>/hbconf/hb.conf <<CONF
[source chmu-${m##*/}]
type = chmu
pci = $bdf
dpa_ranges = 0+$(cat "$m/pmem/size")
unit = 4096
epoch_ms = 1000
threshold = 32
CONF
	done
fi
mkdir -p /tmp/racefs
mount -t tmpfs -o size=64m none /tmp/racefs || exit 30
daemon=
start_mover() {
	case $mover in
	numab) echo 2 >$nb ;;
	numab-rl)
		echo "$rate" >/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps || return 1
		echo 2 >$nb ;;
	hotbridge)
		hotbridge run --config /hbconf/hb.conf 2>/share/daemon-$w.log &
		daemon=$!
		i=0
		until hotbridge stats --socket /tmp/hb/ctl.sock >/dev/null 2>&1 || [ $i -ge 300 ]; do
			kill -0 $daemon 2>/dev/null || break
			sleep 0.2; i=$((i + 1))
		done
		hotbridge stats --socket /tmp/hb/ctl.sock >/dev/null 2>&1 || {
			echo "hb-vm-race: the daemon did not come up"; cat /share/daemon-$w.log; return 1; }
		grep -m2 -E "backend auto|chmu" /share/daemon-$w.log ;;
	esac
	return 0
}
stop_mover() {
	echo 0 >$nb
	if [ -n "$daemon" ]; then
		hotbridge stats --socket /tmp/hb/ctl.sock >/share/stats-$w.json 2>&1
		kill -TERM $daemon
		wait $daemon || echo "hb-vm-race: the daemon exited with status $?"
		daemon=
	fi
}
rc=0
for spec in "$@"; do
	w=${spec%%:*} rest=${spec#*:}
	secs=${rest%%:*} room=${rest#*:}
	d=/tmp/racefs/$w
	mkdir -p $d
	/hb/hb-vmrace "$w" "$node" "$secs" "$room" "$rate" $d $stop >/tmp/race.out 2>&1 &
	work=$!
	while [ ! -e $d/ready ]; do
		kill -0 $work 2>/dev/null || break
		sleep 0.2
	done
	if ! start_mover; then
		kill $work; rc=1; break
	fi
	: >/share/race-go-$w
	# the host reads the device's served counts when it sees the mark
	sleep 1
	: >$d/go
	wait $work
	wrc=$?
	: >/share/race-done-$w
	sleep 1
	stop_mover
	sed "s/^race: /race: mover=$mover /" /tmp/race.out
	[ $wrc -eq 0 ] || { echo "hb-vm-race: $w exited with status $wrc"; rc=1; }
	rm -rf $d
done
exit $rc
