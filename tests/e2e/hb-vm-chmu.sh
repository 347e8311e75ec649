#!/bin/sh
# In the guest: the closed loop with no feed. The CXL devices carry our
# CHMU model in QEMU (tests/vm/run.sh --chmu); hb-vm-e2e.sh region makes
# their memory a CPU-less node with the real tools; hb-vmchmu keeps a hot
# set busy there (and moves it once); `hotbridge run` with one `chmu`
# source per memdev, found at its PCI function, must bring each hot set to
# DRAM by itself. Leaves explain.json, stats.json, sources.json, status.json
# and daemon.log in /share.
#   hb-vm-chmu.sh WAYS PAGES HOT PHASE_S BOUND_S [BACKEND [MOVER [KIND [AUX_PAGES [ACCESS [DS [FAULTS [KILLS]]]]]]]]
# MOVER hotbridge (default), or damon: no hotbridge at all, DAMON's own
# promotion configured as the kernel's mtier sample and damo's tiering
# recipe do (the head-to-head bench, tests/bench/tiering.sh); or crash:
# hotbridge killed with SIGKILL KILLS times (default 20) and restarted
# while the loop runs (hb-vm-crash.sh, with its own workload).
# KIND (hotbridge only): chmu (default), the register source, which maps
# the block itself; or cxl-hmu, the same CHMU through the kernel's perf
# driver (cxl_hmu, kernel/patches/6.12/0005): one PMU per memdev,
# cxl_hmu_memX.0.0. The module is loaded at boot (run.sh --module cxl_hmu)
# or, built out of tree, from /hb/cxl_hmu.ko. AUX_PAGES: the cxl-hmu
# source's aux_pages. ACCESS: 0x7 when the device tracks only non-TEE
# requests (run.sh --chmu-access; issue 42): the sources, told no access=,
# must take nontee-r (1) (reads first), and access=rw must be refused naming codes 1-3
# (a cxl_hmu driver that refuses codes 1-3 itself makes this a skip).
# DS: 0x20 when the device down-samples only by 32 (run.sh --chmu-ds):
# the sources, told no ds=, must take 32.
# FAULTS: poison: faults injected on pages of A, a cxl-events source reading
# them (hb-vm-poison.sh, e2e-chmu-poison-6.12).
ways=${1:-1} pages=${2:-4096} hot=${3:-256} phase=${4:-20} bound=${5:-10} backend=${6:-phys}
mover=${7:-hotbridge} kind=${8:-chmu} aux_pages=${9:-16} access=${10:-} dsf=${11:-} faults=${12:-} kills=${13:-20}
# "-": none (the guest's command line loses empty arguments)
[ "$access" != - ] || access=
[ "$dsf" != - ] || dsf=
[ "$faults" != - ] || faults=
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
# the control socket in a directory only root writes (run refuses /tmp itself)
mkdir -p -m 0700 /tmp/hb
cat >/hbconf/hb.conf <<CONF
[daemon]
interval_ms = 500
control_socket = /tmp/hb/ctl.sock
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
	bdf0=${bdf0:-$bdf}
done
if [ "$faults" = poison ]; then
	. /hb/hb-vm-poison.sh
	poison_conf
fi
# no vendor plugins: an empty directory (one that does not exist is an error)
mkdir -p /tmp/no-plugins
hotbridge list --plugin-dir /tmp/no-plugins >/share/list.json 2>/share/list.err ||
	echo "hb-vm-chmu: hotbridge list failed: $(cat /share/list.err)"
if [ "$access" = 0x7 ] && [ "$mover" = hotbridge ]; then
	# access=rw (code 6) on a non-TEE-only device: refused, naming codes 1-3
	awk '{ print } /^type = (chmu|cxl-hmu)$/ { print "access = rw" }' /hbconf/hb.conf >/hbconf/tee.conf
	t0=$(date +%s)
	timeout 120 hotbridge run --once --config /hbconf/tee.conf >/dev/null 2>/share/tee.log
	if [ "$kind" = chmu ]; then
		want="access type rw (code 6) not tracked (the device tracks: nontee-r (1), nontee-w (2), nontee-rw (3)"
	else
		want="access=rw (code 6): PMU cxl_hmu_mem0.0.0 refuses it; the device takes nontee-r (1), nontee-w (2), nontee-rw (3)"
		if grep -q "refuses the event (EINVAL) whatever the request type" /share/tee.log; then
			echo "1..0 # SKIP the cxl_hmu driver refuses request codes 1-3 on a non-TEE-only CHMU (kernel/patches/6.12/0005 must accept them): $(grep -m1 refuses /share/tee.log)"
			exit 0
		fi
	fi
	if ! grep -qF "$want" /share/tee.log; then
		echo "hb-vm-chmu: access=rw on a non-TEE-only device was not refused naming codes 1-3:"
		cat /share/tee.log; exit 35
	fi
	echo "hb-vm-chmu: access=rw refused on the non-TEE-only device, naming codes 1-3 ($(( $(date +%s) - t0 )) s)"
fi
if [ "$mover" = crash ]; then
	exec sh /hb/hb-vm-crash.sh "$node" "$pages" "$hot" "$phase" "$bound" "$backend" "$kills"
fi
# with hotbridge reading a CHMU, 8 cache-resident pages too (set C, 2
# lines each): busier than A and B, but never missing the host cache in front of
# the CHMU, so never hot to the device; DAMON sees CPU accesses, not the
# device's, and would move them
resident=8
[ "$mover" = hotbridge ] || resident=0
# the poison scenario's CHMU has no cache in front of it (tests/e2e/run.sh)
[ "$faults" != poison ] || resident=0
/hb/hb-vmchmu "$node" "$pages" "$hot" "$phase" "$bound" /tmp/chmu $resident &
work=$!
while [ ! -e /tmp/chmu/ready ]; do
	kill -0 $work 2>/dev/null || { wait $work; exit 31; }
	sleep 0.2
done
# CPU seconds a process has used (utime + stime, at USER_HZ 100)
cpu_s() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$1/stat" 2>/dev/null || echo "?"; }
if [ "$mover" = damon ]; then
	# DAMON's own tiering: a paddr kdamond over the CXL node with DAMOS
	# migrate_hot to node 0, as samples/damon/mtier.c's promotion context
	# (its quota goal keeps node 0 below 99.7 % used) and damo's recipe:
	# intervals auto-tuned (4 % of accesses observed in 3 aggregations,
	# 5 ms..10 s sampling), the same 4 MB/s as hotbridge's rate limit
	K=/sys/kernel/mm/damon/admin/kdamonds
	bs=$(( $(cat /sys/devices/system/memory/block_size_bytes | sed 's/^/0x/') ))
	first= last=
	for b in /sys/devices/system/node/node$node/memory*; do
		n=${b##*memory}
		[ -z "$first" ] || [ "$n" -lt "$first" ] && first=$n
		[ -z "$last" ] || [ "$n" -gt "$last" ] && last=$n
	done
	start=$((first * bs)) end=$(((last + 1) * bs))
	echo "hb-vm-chmu: DAMON tiering over node $node: $(printf '%#x-%#x' $start $end)"
	echo 1 >$K/nr_kdamonds
	C=$K/0/contexts
	echo 1 >$C/nr_contexts
	echo paddr >$C/0/operations
	echo 1 >$C/0/targets/nr_targets
	echo 1 >$C/0/targets/0/regions/nr_regions
	echo $start >$C/0/targets/0/regions/0/start
	echo $end >$C/0/targets/0/regions/0/end
	I=$C/0/monitoring_attrs/intervals
	echo 5000 >$I/sample_us; echo 100000 >$I/aggr_us; echo 1000000 >$I/update_us
	echo 10 >$C/0/monitoring_attrs/nr_regions/min; echo 1000 >$C/0/monitoring_attrs/nr_regions/max
	if [ -d $I/intervals_goal ]; then
		echo 400 >$I/intervals_goal/access_bp; echo 3 >$I/intervals_goal/aggrs
		echo 5000 >$I/intervals_goal/min_sample_us; echo 10000000 >$I/intervals_goal/max_sample_us
	fi
	# scheme 1, action stat over everything: what DAMON saw, for the report.
	# A new scheme's access pattern is all zeros: set every bound.
	pattern() { # DIR SZMIN NRMIN
		echo "$2" >"$1/access_pattern/sz/min"; echo 18446744073709551615 >"$1/access_pattern/sz/max"
		echo "$3" >"$1/access_pattern/nr_accesses/min"; echo 4294967295 >"$1/access_pattern/nr_accesses/max"
		echo 0 >"$1/access_pattern/age/min"; echo 4294967295 >"$1/access_pattern/age/max"
	}
	echo 2 >$C/0/schemes/nr_schemes
	echo stat >$C/0/schemes/1/action
	pattern $C/0/schemes/1 0 0
	S=$C/0/schemes/0
	echo migrate_hot >$S/action
	echo 0 >$S/target_nid
	pattern $S 4096 1
	echo 1000 >$S/quotas/reset_interval_ms
	echo 4000000 >$S/quotas/bytes
	if [ -d $S/quotas/goals ]; then
		echo 1 >$S/quotas/goals/nr_goals
		echo node_mem_used_bp >$S/quotas/goals/0/target_metric
		echo 9970 >$S/quotas/goals/0/target_value
		echo 0 >$S/quotas/goals/0/nid
	fi
	echo on >$K/0/state || { echo "hb-vm-chmu: the kdamond would not start"; kill $work; exit 34; }
	kd=$(cat $K/0/pid)
	: >/tmp/chmu/go
	while [ ! -e /tmp/chmu/done ]; do sleep 0.5; done
	echo update_schemes_stats >$K/0/state
	echo update_schemes_tried_regions >$K/0/state
	T=$C/0/schemes/1/tried_regions
	seen=0 max=0 nreg=0
	for r in $T/[0-9]*; do
		[ -f "$r/nr_accesses" ] || continue
		a=$(cat "$r/nr_accesses")
		nreg=$((nreg + 1))
		[ "$a" -gt 0 ] && seen=$((seen + 1))
		[ "$a" -gt "$max" ] && max=$a
	done
	echo "hb-vm-chmu: DAMON's view at the end: $nreg regions, $seen with accesses (max nr_accesses $max), sample $(cat $I/sample_us) us, aggregation $(cat $I/aggr_us) us"
	echo "hb-vm-chmu: CPU: kdamond $kd $(cpu_s $kd) s; DAMOS tried $(cat $S/stats/nr_tried 2>/dev/null) regions, applied $(cat $S/stats/sz_applied 2>/dev/null) bytes"
	echo off >$K/0/state
	: >/tmp/chmu/stopped
	wait $work
	exit $?
fi
hotbridge run --config /hbconf/hb.conf 2>/share/daemon.log &
daemon=$!
i=0
until hotbridge stats --socket /tmp/hb/ctl.sock >/dev/null 2>&1 || [ $i -ge 300 ]; do
	kill -0 $daemon 2>/dev/null || break
	sleep 0.2; i=$((i + 1))
done
if ! hotbridge stats --socket /tmp/hb/ctl.sock >/dev/null 2>&1; then
	echo "hb-vm-chmu: the daemon did not come up"; cat /share/daemon.log; kill $work; exit 32
fi
grep -iE "chmu|hmu" /share/daemon.log | head -5
if [ "$access" = 0x7 ] && ! grep -q "access nontee-r (1)" /share/daemon.log; then
	echo "hb-vm-chmu: the source did not take nontee-r (1) on the non-TEE-only device"
	cat /share/daemon.log; kill $daemon $work; exit 35
fi
if [ "$dsf" = 0x20 ] && ! grep -q "ds 32" /share/daemon.log; then
	echo "hb-vm-chmu: the source did not take ds 32 on a device that offers only 32"
	cat /share/daemon.log; kill $daemon $work; exit 35
fi
t_up=$(date +%s)
if [ "$faults" = poison ]; then
	poison_before_go || { kill $daemon $work; exit 36; }
fi
: >/tmp/chmu/go
[ "$faults" != poison ] || poison_during_a &
read -r hpa_a hpa_b </tmp/chmu/ready
while [ ! -e /tmp/chmu/phase-b ]; do sleep 0.5; done
hotbridge explain --socket /tmp/hb/ctl.sock "$hpa_a" >/share/explain.json 2>&1
while [ ! -e /tmp/chmu/done ]; do sleep 0.5; done
echo "hb-vm-chmu: CPU: hotbridge $daemon $(cpu_s $daemon) s"
hotbridge stats --socket /tmp/hb/ctl.sock >/share/stats.json 2>&1
hotbridge sources --socket /tmp/hb/ctl.sock >/share/sources.json 2>&1
hotbridge history --socket /tmp/hb/ctl.sock --last 200 >/share/history.json 2>&1
[ "$faults" != poison ] || poison_after
echo "hb-vm-chmu: sources read $(( $(date +%s) - t_up )) s after the daemon came up" | tee /share/elapsed
hotbridge status --socket /tmp/hb/ctl.sock >/share/status.json 2>&1
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
# the register source is gone: the CHMU's interrupt while MSI-X is disabled
# must stay pending (QEMU's model, review-2026-12 Q5)
if [ "$kind" = chmu ] && [ -n "${bdf0:-}" ]; then
	/hb/hb-vmchmu msix "$bdf0" "$node"
	mrc=$?
	[ $wrc -ne 0 ] || [ $mrc -eq 0 ] || wrc=35
fi
exit $wrc
