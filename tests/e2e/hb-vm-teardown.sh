#!/bin/sh
# In the guest: the closed loop (one CXL device with our CHMU model, a 1-way
# region on it online as node N, `hotbridge run` with a `chmu` source on the
# device and a `replay` source naming its DPAs, backend phys) while each kind
# of teardown takes the region's memory away, then brings it back, in one
# boot. TAP lines, numbered here.
#   hb-vm-teardown.sh [PAGES [HOT [PHASE_S [KINDS]]]]
# KINDS: all (default) or some of the kinds below joined by +.
# The load is hb-vmchmu (its two hot sets A and B, PHASE_S seconds each) on
# node N: one run from the start, and one more from each return, which is
# still running (promoting) when the next kind begins. The kinds, in order:
#   offline  daxctl offline-memory during the first run's phase B (phase A
#            shows the loop promotes at all): the kernel migrates the
#            workload's pages off the region itself; then online-memory
#   region   the run killed (its pages freed), then cxl disable-region +
#            destroy-region (daxctl offline-memory, devdax, destroy-namespace
#            first: cxl-cli refuses a region with online memory); then
#            create-region, a namespace, system-ram again
#   memdev   the run killed, the region's memory offlined (with it online
#            the kernel leaves the blocks online and undecoded: the
#            emulated-host unit test test-faults covers that), then
#            cxl disable-memdev --force; enable-memdev, the leftover region
#            destroyed (through sysfs when cxl-cli cannot), made again
#   unbind   the same with cxl_pci unbound from the device's PCI function,
#            then bound again
#   hmu      a second daemon, a cxl-hmu source (cxl_hmu loaded by name)
#            and replay: cxl_pci unbound (the driver stops the open event,
#            the source stops) and bound again: the daemon opens the source
#            again at a rebuild and promotes through it
#   online   a third daemon, replay only, policy.source_nodes naming the
#            node: 16384 of the region's pages in its table, then cxl
#            disable-memdev --force with the memory online (the blocks stay
#            online, undecoded); nothing brings it back
# For each, while the memory is gone: replay records of the region's DPAs
# are fed, and polling the daemon's history for 8 s, no page of the gone HPA
# range is handed to the migrator at or after the teardown's moment; the
# daemon still answers; its log has a topology rebuild since, stats count
# it and status.promotion is no_source_node. After the return, the next
# run: the same daemon process moves pages of the region again and
# status.promotion is what it was. At the end the daemon stops cleanly.
# TAP lines also go to /share/tap as they come; daemon.log, history-*,
# status-* and sources-* stay in /share.
pages=${1:-2048} hot=${2:-128} phase=${3:-8} kinds=${4:-all}
# KINDS: all, or some of them joined by + (a kernel command line carries
# the guest's arguments: no spaces)
kinds=$(echo "$kinds" | tr + ' ')
[ "$kinds" = all ] && kinds="offline region memdev unbind hmu online"
want() { case " $kinds " in *" $1 "*) return 0 ;; esac; return 1; }
n=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then l="ok $n - $2"; else l="not ok $n - $2"; fi
	echo "$l"
	echo "$l" >>/share/tap
}
okif() { d=$1; shift; if "$@"; then ok 0 "$d"; else ok 1 "$d"; fi; }
say() { echo "# $*"; echo "# $*" >>/share/tap; }
sock=/tmp/hb/ctl.sock

: >/share/tap
sh /hb/hb-vm-e2e.sh region 1 >/share/setup.log 2>&1 || { cat /share/setup.log; exit 10; }
mem=mem0
bdf=$(basename "$(dirname "$(readlink -f /sys/bus/cxl/devices/$mem)")")
size=$(cat /sys/bus/cxl/devices/$mem/pmem/size)
echo 0 >/proc/sys/kernel/numa_balancing
# the CHMU perf driver (run.sh --module: loaded at boot) claims the CHMU the
# chmu source maps: out until kind hmu loads it again by name
rmmod cxl_hmu 2>/dev/null
# the region, its dax device and HPA range: whichever exists now
region_now() {
	region=$(cd /sys/bus/cxl/devices && ls -d region* 2>/dev/null | head -1)
	dax=$(ls /sys/bus/dax/devices 2>/dev/null | head -1)
	node=
	[ -n "$dax" ] && node=$(cat /sys/bus/dax/devices/$dax/target_node)
	if [ -n "$region" ]; then
		r_base=$(($(cat /sys/bus/cxl/devices/$region/resource)))
		r_end=$((r_base + $(cat /sys/bus/cxl/devices/$region/size)))
	fi
}
region_now
cxl_node=$node
say "$mem at $bdf: $region [$(printf '%#x-%#x' "$r_base" "$r_end")) as $dax on node $node"

mkdir -p /run /hbconf /tmp/hb /tmp/td && chmod 0755 /hbconf && chmod 0700 /tmp/hb
: >/tmp/td/feed
cat >/hbconf/hb.conf <<CONF
[daemon]
interval_ms = 500
control_socket = $sock
pause_state = $sock.paused
plugin_dir =
log_level = info
[policy]
threshold = 1
rate_mbps = 4
watermark_mb = 0
top_k = 0
# each run binds its pages to the node while it fills them (then lets them
# go anywhere): the daemon, running already, is refused those with EXDEV,
# and retries them after this, not after a minute
hysteresis_ms = 2000
[migrate]
backend = phys
[source chmu-$mem]
type = chmu
pci = $bdf
dpa_ranges = 0+$size
unit = 4096
epoch_ms = 1000
threshold = 32
[source replay]
type = replay
path = /tmp/td/feed
CONF
hotbridge run --config /hbconf/hb.conf 2>/share/daemon.log &
daemon=$!
i=0
until hotbridge stats --socket $sock >/dev/null 2>&1 || [ $i -ge 300 ]; do
	kill -0 $daemon 2>/dev/null || break
	sleep 0.2; i=$((i + 1))
done
okif "the daemon is up: $(grep -m1 -o 'source chmu-mem0.*' /share/daemon.log | cut -c1-100)" \
	hotbridge stats --socket $sock
[ $n -eq 1 ] && ! hotbridge stats --socket $sock >/dev/null 2>&1 && { cat /share/daemon.log; echo "1..$n"; exit 1; }

# hb-vmchmu on node N in /tmp/w.NAME, in the background: $work
w_start() { # NAME
	w=/tmp/w.$1
	rm -rf "$w" && mkdir -p "$w"
	/hb/hb-vmchmu "$cxl_node" "$pages" "$hot" "$phase" "$phase" "$w" 0 >"$w/out" 2>&1 &
	work=$!
	while [ ! -e "$w/ready" ]; do
		kill -0 $work 2>/dev/null || break
		sleep 0.2
	done
	: >"$w/go"
}
w_finish() { # to its end: done, stopped, its checks
	while [ ! -e "$w/done" ]; do
		kill -0 $work 2>/dev/null || break
		sleep 0.5
	done
	: >"$w/stopped"
	wait $work
	grep -E "^# (A|B)|coverage|^not ok" "$w/out" | tail -4 | sed 's/^#* */#   hb-vmchmu: /'
}
w_kill() {
	[ -n "${work:-}" ] || return 0 # a bare wait would wait for the daemon
	kill -KILL $work 2>/dev/null
	wait $work 2>/dev/null
	work=
}
# history entries as "TIME PAGE DECISION REST", newest 200: one line each
history_lines() {
	{ hotbridge history --socket $sock --last 200 2>/dev/null | tr -d ' \n'; echo; } |
		sed 's/},{"time"/}\n{"time"/g' |
		sed -n 's/.*"time":"\([^"]*\)".*"page":"\(0x[0-9a-f]*\)".*"decision":"\([a-z]*\)"\(.*\)/\1 \2 \3 \4/p'
}
# promotions of pages in [r_base, r_end) at or after time $1, seen by polling
# the history for $2 seconds: handed to the migrator in $hits, moved (its
# result names a node) in $moved
promotions_in_range() { # SINCE SECONDS OUT
	: >"$3"
	t_end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -lt $t_end ]; do
		history_lines >>"$3"
		sleep 1
	done
	hits=0 moved=0
	sort -u "$3" >"$3.u"
	while read -r tm pg dec rest; do
		[ "$dec" = promote ] || continue
		# ISO times compare as strings
		[ "$tm" \< "$1" ] && continue
		pg=$((pg))
		[ "$pg" -ge "$r_base" ] && [ "$pg" -lt "$r_end" ] || continue
		hits=$((hits + 1))
		case $rest in *'"result":{"node":'[0-9]*) moved=$((moved + 1)) ;; esac
	done <"$3.u"
}
now_iso() { date -u +%Y-%m-%dT%H:%M:%S.000Z; }
rebuilds() { grep -c "topology rebuilt" /share/daemon.log; }
stats_reloads() { hotbridge stats --socket $sock 2>/dev/null | tr -d ' \n' | grep -o '"topology_reloads":[0-9]*' | cut -d: -f2; }
# status.promotion: what promotion is doing (no_source_node with the node gone)
promotion() { hotbridge status --socket $sock 2>/dev/null | tr -d ' \n' | sed -n 's/.*"promotion":"\([a-z_]*\)".*/\1/p'; }
# replay records of the region's first DPAs (every 4th page of the first 1024)
feed_dpas() {
	i=0
	while [ $i -lt 256 ]; do
		printf '%s dpa=%#x len=4096 count=100\n' "$mem" $((i * 4 * 4096))
		i=$((i + 1))
	done >>/tmp/td/feed
}
# the region gone: nothing of its range promoted after the moment, the
# daemon alive, a rebuild logged and counted
check_gone() { # KIND SINCE REBUILDS_BEFORE RELOADS_BEFORE
	feed_dpas
	promotions_in_range "$2" 8 /share/history-$1-gone.txt
	okif "$1: no page of the gone range [$(printf '%#x-%#x' "$r_base" "$r_end")) handed to the migrator since $2 ($(wc -l </share/history-$1-gone.txt.u) history entries read)" \
		[ "$hits" -eq 0 ]
	okif "$1: the daemon still runs and answers" hotbridge stats --socket $sock
	okif "$1: its log has a topology rebuild since ($(grep "topology rebuilt" /share/daemon.log | tail -1 | cut -c1-150))" \
		[ "$(rebuilds)" -gt "$3" ]
	r=$(stats_reloads)
	okif "$1: stats count it: topology_reloads $4 -> $r" [ "${r:-0}" -gt "$4" ]
	p=$(promotion)
	okif "$1: status says so: promotion $p ($promo_up while the region was there)" [ "$p" = no_source_node ]
	hotbridge status --socket $sock >/share/status-$1-gone.json 2>&1
	hotbridge sources --socket $sock >/share/sources-$1-gone.json 2>&1
}
# the region back: one more run, and pages of its range are promoted again
check_back() { # KIND SINCE
	region_now
	cxl_node=$node
	w_start "$1-back"
	promotions_in_range "$2" $((2 * phase)) /share/history-$1-back.txt
	okif "$1: back as $region on node $node, promotion resumed: $moved pages of [$(printf '%#x-%#x' "$r_base" "$r_end")) moved since $2 ($hits handed to the migrator)" \
		[ "$moved" -gt 0 ]
	okif "$1: the same daemon, pid $daemon" kill -0 $daemon
	p=$(promotion)
	okif "$1: status: promotion $p again" [ "$p" = "$promo_up" ]
}
# the region made again on the memdev, its memory online (system-ram)
region_up() {
	out=$(cxl create-region -m -t pmem -d decoder0.0 -w 1 -g 4096 $mem 2>&1) || { say "create-region: $out"; return 1; }
	i=0
	# a namespace whose info block survived comes back by itself
	while [ -z "$(ls /sys/bus/dax/devices 2>/dev/null)" ] && [ $i -lt 10 ]; do sleep 0.2; i=$((i + 1)); done
	if [ -z "$(ls /sys/bus/dax/devices 2>/dev/null)" ]; then
		ndctl create-namespace -m devdax -M mem -a 2M >/dev/null 2>&1 || { say "create-namespace failed"; return 1; }
	fi
	dax=$(ls /sys/bus/dax/devices | head -1)
	daxctl reconfigure-device --mode=system-ram "$dax" >/dev/null 2>&1 || { say "system-ram $dax failed"; return 1; }
	return 0
}
# the region's memory offline and the region destroyed (as an operator must)
region_down() {
	daxctl offline-memory "$dax" >/dev/null 2>&1 &&
		daxctl reconfigure-device --mode=devdax --force "$dax" >/dev/null 2>&1 &&
		ndctl destroy-namespace -f all >/dev/null 2>&1 &&
		cxl disable-region "$region" >/dev/null 2>&1 &&
		cxl destroy-region "$region" >/dev/null 2>&1
}
# a region left behind by a memdev that went away: gone, so it can be made
# again (cxl-cli cannot always: its target's lookup fails; then sysfs)
region_clear() {
	for r in $(cd /sys/bus/cxl/devices && ls -d region* 2>/dev/null); do
		cxl disable-region -f "$r" >/dev/null 2>&1
		cxl destroy-region -f "$r" >/dev/null 2>&1
		[ -e /sys/bus/cxl/devices/$r ] || continue
		[ -e /sys/bus/cxl/devices/$r/driver ] && echo "$r" >/sys/bus/cxl/drivers/cxl_region/unbind
		echo "$r" >/sys/bus/cxl/devices/decoder0.0/delete_region
		[ -e /sys/bus/cxl/devices/$r ] && say "$r stays after cxl destroy-region and delete_region"
	done
}
# the memory's end: the kind's workload run killed, its pages freed
before_teardown() {
	w_kill
	rb=$(rebuilds) rl=$(stats_reloads)
}

t_all=$(date +%s)
promo_up=active
# --- offline: the memory blocks under a running workload; its phase A
# shows that the loop promotes at all
if want offline; then
t0=$(date +%s)
w_start offline
promotions_in_range 1970-01-01T00:00:00.000Z "$phase" /share/history-first.txt
# on a loaded host, once in three runs, every page handed over in phase A's
# first 8 s came back ENOENT (cause not found): phase B's first seconds too
[ "$moved" -gt 0 ] || promotions_in_range 1970-01-01T00:00:00.000Z "$phase" /share/history-first.txt
promo_up=$(promotion)
okif "the loop promotes: $moved pages of the region moved ($hits handed to the migrator), status.promotion $promo_up" \
	[ "$moved" -gt 0 ]
while [ ! -e "$w/phase-b" ]; do kill -0 $work 2>/dev/null || break; sleep 0.5; done
rb=$(rebuilds) rl=$(stats_reloads)
daxctl offline-memory "$dax" >/tmp/td/offline.out 2>&1
rc=$?
since=$(now_iso)
ok $rc "offline: daxctl offline-memory $dax during phase B: $(tr '\n' ' ' </tmp/td/offline.out | cut -c1-100)"
check_gone offline "$since" "$rb" "$rl"
w_finish
daxctl online-memory "$dax" >/dev/null 2>&1
ok $? "offline: daxctl online-memory $dax"
since=$(now_iso)
check_back offline "$since"
say "offline: $(($(date +%s) - t0)) s"
fi

# --- region: disable-region + destroy-region, then made again
if want region; then
t0=$(date +%s)
before_teardown
region_down
ok $? "region: $region's memory offlined, cxl disable-region + destroy-region $region"
since=$(now_iso)
check_gone region "$since" "$rb" "$rl"
region_up
ok $? "region: made again, $(ls /sys/bus/dax/devices | head -1) as system-ram"
since=$(now_iso)
check_back region "$since"
say "region: $(($(date +%s) - t0)) s"
fi

# --- memdev: cxl disable-memdev --force under the region, then enabled
if want memdev; then
t0=$(date +%s)
before_teardown
daxctl offline-memory "$dax" >/dev/null 2>&1
cxl disable-memdev --force $mem >/tmp/td/memdev.out 2>&1
rc=$?
since=$(now_iso)
ok $rc "memdev: cxl disable-memdev --force $mem: $(tr '\n' ' ' </tmp/td/memdev.out | cut -c1-100)"
check_gone memdev "$since" "$rb" "$rl"
cxl enable-memdev $mem >/dev/null 2>&1
ok $? "memdev: cxl enable-memdev $mem"
region_clear
region_up
ok $? "memdev: the region made again, $(ls /sys/bus/dax/devices | head -1) as system-ram"
since=$(now_iso)
check_back memdev "$since"
say "memdev: $(($(date +%s) - t0)) s"
fi

# --- unbind: cxl_pci lets go of the device, then takes it again
if want unbind; then
t0=$(date +%s)
before_teardown
daxctl offline-memory "$dax" >/dev/null 2>&1
echo "$bdf" >/sys/bus/pci/drivers/cxl_pci/unbind
rc=$?
since=$(now_iso)
ok $rc "unbind: cxl_pci unbound from $bdf"
okif "unbind: $mem is gone" [ ! -e /sys/bus/cxl/devices/$mem ]
check_gone unbind "$since" "$rb" "$rl"
echo "$bdf" >/sys/bus/pci/drivers/cxl_pci/bind
i=0
until [ -e /sys/bus/cxl/devices/$mem/driver ] && ls -d /sys/bus/cxl/devices/endpoint*/decoder* >/dev/null 2>&1 ||
	[ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
okif "unbind: bound again, $mem back with its endpoint decoders" [ -e /sys/bus/cxl/devices/$mem/driver ]
region_clear
region_up
ok $? "unbind: the region made again, $(ls /sys/bus/dax/devices | head -1) as system-ram"
since=$(now_iso)
check_back unbind "$since"
w_kill
say "unbind: $(($(date +%s) - t0)) s"
fi

# --- hmu: the same CHMU through the kernel's perf driver (cxl_hmu, loaded
# by name), a second daemon with a cxl-hmu source and replay; cxl_pci
# unbound (the PMU goes) and bound again (a new PMU of the same name)
dmesg_has() { dmesg | grep -q "$1"; }
hmu_field() { # FIELD: of the cxl-hmu source in `hotbridge sources`
	hotbridge sources --socket $sock 2>/dev/null | tr -d ' \n' | sed 's/},{/}\n{/g' |
		grep '"name":"hmu-' | grep -o "\"$1\":[a-z0-9]*" | cut -d: -f2
}
if want hmu; then
t0=$(date +%s)
w_kill
kill -TERM $daemon
wait $daemon
ok $? "hmu: the chmu daemon stops cleanly"
pmu=cxl_hmu_$mem.0.0
modprobe cxl_hmu >/tmp/td/modprobe.out 2>&1 ||
	insmod "$(find /lib/modules -name 'cxl_hmu.ko*' | head -1)" >>/tmp/td/modprobe.out 2>&1
i=0
until [ -e /sys/bus/event_source/devices/$pmu ] || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
okif "hmu: modprobe cxl_hmu, PMU $pmu $(tr '\n' ' ' </tmp/td/modprobe.out | cut -c1-80)" \
	[ -e /sys/bus/event_source/devices/$pmu ]
sed '/^\[source chmu-/,$d' /hbconf/hb.conf >/hbconf/hmu.conf
cat >>/hbconf/hmu.conf <<CONF
[source hmu-$mem]
type = cxl-hmu
pmu = $pmu
dpa_range = 0+$size
unit = 4096
epoch_ms = 1000
threshold = 32
aux_pages = 16
[source replay]
type = replay
path = /tmp/td/feed
CONF
: >/tmp/td/feed
# from here the log is the second daemon's (the first's: daemon-chmu.log)
mv /share/daemon.log /share/daemon-chmu.log
hotbridge run --config /hbconf/hmu.conf 2>/share/daemon.log &
daemon=$!
i=0
until hotbridge stats --socket $sock >/dev/null 2>&1 || [ $i -ge 300 ]; do
	kill -0 $daemon 2>/dev/null || break
	sleep 0.2; i=$((i + 1))
done
okif "hmu: the daemon is up: $(grep -m1 -o 'source hmu-.*' /share/daemon.log | cut -c1-100)" \
	hotbridge stats --socket $sock
since=$(now_iso)
w_start hmu
promotions_in_range "$since" $((2 * phase)) /share/history-hmu-first.txt
promo_up=$(promotion)
okif "hmu: the loop promotes through the cxl-hmu source: $moved pages moved ($hits handed over), $(hmu_field records) records, status.promotion $promo_up" \
	[ "$moved" -gt 0 ]
before_teardown
daxctl offline-memory "$dax" >/dev/null 2>&1
echo "$bdf" >/sys/bus/pci/drivers/cxl_pci/unbind
rc=$?
since=$(now_iso)
ok $rc "hmu: cxl_pci unbound from $bdf"
# the driver stops an open event and hangs up its reader; the PMU stays
# registered, dead (an open is ENODEV), until the memdev is back
okif "hmu: $mem is gone, cxl_hmu stopped the open event: $(dmesg | grep -o "$pmu: memdev removed.*" | tail -1 | cut -c1-80)" \
	dmesg_has "$pmu: memdev removed with an event open"
check_gone hmu "$since" "$rb" "$rl"
okif "hmu: the log says the source stopped ($(grep -m1 -o 'source hmu-[^ ]*: it watches no fd.*' /share/daemon.log | cut -c1-90))" \
	grep -q "hmu-$mem: the perf event hung up" /share/daemon.log
d=$(hmu_field disabled)
okif "hmu: sources says it: disabled $d" [ "$d" = true ]
echo "$bdf" >/sys/bus/pci/drivers/cxl_pci/bind
i=0
until [ -e /sys/bus/cxl/devices/$mem/driver ] && ls -d /sys/bus/cxl/devices/endpoint*/decoder* >/dev/null 2>&1 ||
	[ $i -ge 150 ]; do sleep 0.2; i=$((i + 1)); done
okif "hmu: bound again, $mem back with its endpoint decoders" [ -e /sys/bus/cxl/devices/$mem/driver ]
i=0
until [ -e /sys/bus/event_source/devices/$pmu ] || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
okif "hmu: the PMU of the same name, $pmu, there to serve the memdev again" [ -e /sys/bus/event_source/devices/$pmu ]
region_clear
region_up
ok $? "hmu: the region made again, $(ls /sys/bus/dax/devices | head -1) as system-ram"
rec0=$(hmu_field records)
since=$(now_iso)
# nothing is fed to replay now: what moves came through the cxl-hmu source
check_back hmu "$since"
rec1=$(hmu_field records) d=$(hmu_field disabled)
okif "hmu: the cxl-hmu source reads the new PMU: records $rec0 -> $rec1, disabled $d ($(grep -o 'source hmu-[^ ]*: open again.*' /share/daemon.log | tail -1))" \
	[ "${rec1:-0}" -gt "${rec0:-0}" ] && [ "$d" = false ]
say "hmu: $(($(date +%s) - t0)) s"
fi

# --- online: cxl disable-memdev --force with the region's memory online,
# under the loop (the last kind: nothing brings the memory back). The
# kernel resets the decoders but leaves the blocks online on the node,
# undecoded. A third daemon, replay only, names the node in
# policy.source_nodes (else the node stops being a source node with its
# region, and nothing is promoted from it whatever the table holds): pages
# it took in under the region must not be promoted once the rebuild saw
# the region go
stats_field() { hotbridge stats --socket $sock 2>/dev/null | tr -d ' \n' | grep -o "\"$1\":[0-9]*" | cut -d: -f2; }
status_field() { hotbridge status --socket $sock 2>/dev/null | tr -d ' \n' | grep -o "\"$1\":[0-9]*" | cut -d: -f2; }
if want online; then
t0=$(date +%s)
w_kill
kill -TERM $daemon
wait $daemon
region_now
sed '/^\[source chmu-/,$d' /hbconf/hb.conf |
	awk -v n="$node" '{ print } /^\[policy\]$/ { print "source_nodes = " n }' >/hbconf/online.conf
cat >>/hbconf/online.conf <<CONF
[source replay]
type = replay
path = /tmp/td/feed
CONF
: >/tmp/td/feed
mv /share/daemon.log /share/daemon-hmu.log
hotbridge run --config /hbconf/online.conf 2>/share/daemon.log &
daemon=$!
i=0
until hotbridge stats --socket $sock >/dev/null 2>&1 || [ $i -ge 300 ]; do
	kill -0 $daemon 2>/dev/null || break
	sleep 0.2; i=$((i + 1))
done
okif "online: a daemon with policy.source_nodes = $node (replay only) is up" hotbridge stats --socket $sock
w_start online
rb=$(rebuilds) rl=$(stats_reloads) dropped0=$(stats_field topology_pages_dropped)
# 16384 pages (64 MiB) from the middle of the region (its first blocks
# hold the namespace's own data, not online memory): at rate_mbps 4, 16 s
# of promotions still to come when the memdev goes
awk -v m=$mem -v o=$((size / 2)) 'BEGIN { for (i = 0; i < 16384; i++) printf "%s dpa=0x%x len=4096 count=100\n", m, o + i * 4096 }' >>/tmp/td/feed
i=0
until [ "$(status_field table_pages)" -gt 1000 ] 2>/dev/null || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
table=$(status_field table_pages)
okif "online: the table holds $table pages of the region when it goes" [ "${table:-0}" -gt 1000 ]
cxl disable-memdev --force $mem >/tmp/td/online.out 2>&1
rc=$?
ok $rc "online: cxl disable-memdev --force $mem under the loop, its memory online on node $node: $(tr '\n' ' ' </tmp/td/online.out | cut -c1-80)"
i=0
until [ "$(stats_reloads)" -gt "$rl" ] || [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done
since=$(now_iso)
b0=$(stats_field promoted_bytes)
okif "online: the memory stays online on node $node: $(grep -l online /sys/devices/system/node/node$node/memory*/state 2>/dev/null | wc -l) blocks, $(status_field table_pages) table pages after the rebuild" \
	grep -q online /sys/devices/system/node/node$node/memory*/state
promotions_in_range "$since" 8 /share/history-online-gone.txt
b1=$(stats_field promoted_bytes)
okif "online: no page of the gone range [$(printf '%#x-%#x' "$r_base" "$r_end")) handed to the migrator after the rebuild ($hits; $(wc -l </share/history-online-gone.txt.u) history entries read)" \
	[ "$hits" -eq 0 ]
# not a check: the fed pages are mostly not the workload's (no LRU page
# there), so the kernel refuses them (ENOENT) whether handed over or not
say "online: promoted_bytes $b0 -> $b1 in those 8 s"
dropped1=$(stats_field topology_pages_dropped)
okif "online: the rebuild dropped the region's table pages: topology_pages_dropped $dropped0 -> $dropped1" \
	[ "${dropped1:-0}" -gt "${dropped0:-0}" ]
okif "online: the log names the region that left ($(grep -o "region [^ ]* (HPA [^)]*) left the topology" /share/daemon.log | tail -1))" \
	grep -q "left the topology: nothing of it is promoted" /share/daemon.log
okif "online: the daemon still runs and answers" hotbridge stats --socket $sock
hotbridge status --socket $sock >/share/status-online-gone.json 2>&1
w_kill
say "online: $(($(date +%s) - t0)) s"
fi

w_kill
hotbridge status --socket $sock >/share/status-end.json 2>&1
kill -TERM $daemon
wait $daemon
ok $? "the daemon stops cleanly"
grep -E "topology|chmu-mem0|hmu-mem0|replay" /share/daemon.log | tail -20 | sed 's/^/# log: /'
say "all kinds: $(($(date +%s) - t_all)) s"
echo "1..$n"
