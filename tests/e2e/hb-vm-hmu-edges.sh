#!/bin/sh
# In the guest: the edges of our CHMU perf driver (cxl_hmu, patch 0005)
# with hotbridge on both sides of it. The module is /hb/cxl_hmu.ko, loaded
# here when each phase wants it. TAP lines, renumbered by run.sh.
#   hb-vm-hmu-edges.sh main     a region on the CXL memdev (two CHMU
#                               instances); the register source before and
#                               after the driver claims the block (not
#                               loaded by the memdev's modalias, as udev
#                               would try; loaded by name, leaving the
#                               running instance as it was); hb-vmhmu abi, refuse, data,
#                               defaults, small; hotplug on instance 1, whose CPU can
#                               go offline; the daemon with a one-page AUX area,
#                               killed with its event open, and under
#                               `cxl disable-memdev`
#   hb-vm-hmu-edges.sh unbind   two instances, no region: cxl disable-memdev under the
#                               daemon; an event held open while cxl_pci
#                               lets go of the device (the memdev goes
#                               away: its reader hung up), then the device
#                               bound again while that event is still open;
#                               unbind/rebind cycles, the PMUs gone with
#                               their memdev once no event holds them
# The model's enable, disable and reset take 1 ms (run.sh: chmu-op-us); in
# main its interrupt is the mailbox's vector (shared with cxl_pci) and
# instance 1 has no fill interrupt.
# The guest's init fails the run on any BUG, WARNING or Oops in dmesg.
phase=${1:-main}
n=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
# okif DESCRIPTION COMMAND...: one TAP line, ok when COMMAND succeeds
okif() { d=$1; shift; if "$@"; then ok 0 "$d"; else ok 1 "$d"; fi; }
first_pmu() { for p in /sys/bus/event_source/devices/cxl_hmu_*; do [ -d "$p" ] && echo "${p##*/}" && return; done; }
dmesg_has() { dmesg | grep -q "$1"; }
write_to() { echo "$1" >"$2"; }
# on the lockdep kernel (run.sh --kernel debug): lockdep still checking
# at the end of a phase (a report, or running out of entries, stops it)
lockdep_on() {
	[ -r /proc/lockdep_stats ] || return 0
	grep -E "lock-classes|dependency chains|debug_locks" /proc/lockdep_stats | sed 's/^ */# lockdep: /'
	okif "lockdep still on after the $phase phase" grep -qE "debug_locks: +1$" /proc/lockdep_stats
}
not() { ! "$@"; }
# the interrupt of a PMU: /proc/interrupts ends with its action names,
# "a, b" when instances share the vector
irq_of() { awk -v p="$1" '{ for (i = 2; i <= NF; i++) { f = $i; sub(/,$/, "", f)
	if (f == p) { sub(":", "", $1); print $1; exit } } }' /proc/interrupts; }
pmu_dir=/sys/bus/event_source/devices
bdf=$(basename "$(dirname "$(readlink -f /sys/bus/cxl/devices/mem0)")")
bar=/sys/bus/pci/devices/$bdf/resource2
mkdir -p /run /hbconf /tmp/w && chmod 0755 /hbconf /tmp/w

# hotbridge run over one source; its log in /tmp/w/$1.log
daemon_conf() { # NAME TYPE PARAMS...
	name=$1 type=$2
	shift 2
	cat >/hbconf/$name.conf <<CONF
[daemon]
interval_ms = 200
control_socket = /tmp/w/$name.sock
pause_state = /tmp/w/$name.paused
plugin_dir =
log_level = info
[policy]
threshold = 1000000
[migrate]
backend = dryrun
[source s]
type = $type
CONF
	for kv in "$@"; do echo "$kv" >>/hbconf/$name.conf; done
}
daemon_start() { # NAME
	hotbridge run --config /hbconf/$1.conf 2>/tmp/w/$1.log &
	daemon=$!
	i=0
	until hotbridge stats --socket /tmp/w/$1.sock >/dev/null 2>&1 || [ $i -ge 150 ]; do
		kill -0 $daemon 2>/dev/null || break
		sleep 0.2; i=$((i + 1))
	done
}
daemon_stop() {
	kill -TERM $daemon 2>/dev/null
	wait $daemon
}
tap() { # hb-vmhmu's TAP lines, our numbering
	"$@" 2>&1 | while IFS= read -r l; do
		case $l in
		"ok "*|"not ok "*) echo "$l" ;;
		"#"*) echo "$l" ;;
		"1.."*) ;;
		*) echo "# $l" ;;
		esac
	done >/tmp/w/tap
	while IFS= read -r l; do
		case $l in
		"ok "*) ok 0 "${l#ok * - }" ;;
		"not ok "*) ok 1 "${l#not ok * - }" ;;
		*) echo "$l" ;;
		esac
	done </tmp/w/tap
}

if [ "$phase" = unbind ]; then
	insmod /hb/cxl_hmu.ko
	pmu=$(first_pmu)
	okif "cxl_hmu registered ${pmu:-nothing}" [ -n "$pmu" ]
	# no memory of it online here: --force (cxl-cli takes the memdev for
	# a region's member even without one) does unbind cxl_mem
	daemon_conf run cxl-hmu "pmu = $pmu" "epoch_ms = 100" "threshold = 1"
	daemon_start run
	cxl disable-memdev --force mem0 >/tmp/w/disable.out 2>&1
	ok $? "cxl disable-memdev --force mem0 under a running daemon: $(tr '\n' ' ' </tmp/w/disable.out | cut -c1-120)"
	okif "mem0 has no driver now" [ ! -e /sys/bus/cxl/devices/mem0/driver ]
	hotbridge stats --socket /tmp/w/run.sock >/dev/null 2>&1
	ok $? "the daemon still answers"
	okif "the PMU stays: it lives as long as the memdev device, not its driver" [ -d $pmu_dir/$pmu ]
	cxl enable-memdev mem0 >/dev/null 2>&1
	ok $? "cxl enable-memdev mem0"
	daemon_stop
	ok $? "the daemon stops cleanly"
	tap hb-vmhmu open "$pmu"
	hb-vmhmu hold "$pmu" 60 >/tmp/w/hold.out 2>&1 &
	hold=$!
	until grep -q holding /tmp/w/hold.out || ! kill -0 $hold 2>/dev/null; do sleep 0.2; done
	# this guest's device has two instances: a PMU each, owned apart
	pmu1=${pmu%.*}.1
	okif "a second instance, a second PMU: $pmu1" [ -d $pmu_dir/"$pmu1" ]
	tap hb-vmhmu open "$pmu1"
	# trial42 #5: the daemon on the other instance when the device goes
	daemon_conf gone cxl-hmu "pmu = $pmu1" "epoch_ms = 100" "threshold = 1"
	daemon_start gone
	okif "cxl_pci unbound from $bdf with $pmu's event open" write_to "$bdf" /sys/bus/pci/drivers/cxl_pci/unbind
	okif "the memdev is gone" [ ! -e /sys/bus/cxl/devices/mem0 ]
	okif "the driver stopped the instance: $(dmesg | grep -o "$pmu: memdev removed.*" | head -1)" \
		dmesg_has "$pmu: memdev removed with an event open"
	# review K1: no PMU is unregistered while perf may still use it
	okif "the PMU stays while its event is open" [ -d $pmu_dir/$pmu ]
	tap hb-vmhmu gone "$pmu"
	i=0
	until grep -q "stopped, it reports nothing" /tmp/w/gone.log || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
	hotbridge sources --socket /tmp/w/gone.sock 2>&1 | tr -d ' \n' >/tmp/w/gone.sources
	okif "the daemon's source on $pmu1 hung up and is reported disabled: $(grep -o '"disabled":[a-z]*' /tmp/w/gone.sources)" \
		grep -q '"disabled":true' /tmp/w/gone.sources
	daemon_stop
	# review K10: the other instance goes with its memdev and its last event
	i=0
	while [ -d $pmu_dir/"$pmu1" ] && [ $i -lt 25 ]; do sleep 0.2; i=$((i + 1)); done
	okif "$pmu1 unregistered once the daemon closed its event ($(cd $pmu_dir && echo cxl_hmu_*))" \
		[ ! -d $pmu_dir/"$pmu1" ]
	# review K5: the reader hears of it
	i=0
	until grep -q "hung up" /tmp/w/hold.out || [ $i -ge 25 ]; do sleep 0.2; i=$((i + 1)); done
	okif "the held event's reader was told: $(grep -o 'hung up.*' /tmp/w/hold.out || echo 'no hang-up')" \
		grep -q "hung up" /tmp/w/hold.out
	# bound again while that event is still open: the same names serve again
	echo "$bdf" >/sys/bus/pci/drivers/cxl_pci/bind
	i=0
	until [ -e /sys/bus/cxl/devices/mem0 ] && dmesg | grep -q "$pmu: back" || [ $i -ge 50 ]; do
		sleep 0.2; i=$((i + 1))
	done
	dmesg | grep -E "cxl_hmu_mem0.*(back|perf_pmu_register)" | tail -2 | sed 's/^/# /'
	okif "bound again with $pmu's event still open: $(cd $pmu_dir && echo cxl_hmu_*)" \
		kill -0 $hold
	tap hb-vmhmu open "$pmu"
	tap hb-vmhmu open "$pmu1"
	kill $hold
	wait $hold
	sed -n 's/^/# hold: /p' /tmp/w/hold.out
	# review K10 (graveyard leak): unbind/rebind cycles, the first with an
	# event held across the unbind; what the module holds after each
	# unbind is its registered PMUs (each an instance, its PMU's sysfs
	# device and per-CPU context), none once no event holds them
	pmus() { ls -d $pmu_dir/cxl_hmu_* 2>/dev/null | wc -l; }
	left=
	for c in 1 2 3; do
		if [ $c -eq 1 ]; then
			hb-vmhmu hold "$pmu" 30 >/tmp/w/hold2.out 2>&1 &
			hold=$!
			until grep -q holding /tmp/w/hold2.out || ! kill -0 $hold 2>/dev/null; do sleep 0.2; done
		fi
		write_to "$bdf" /sys/bus/pci/drivers/cxl_pci/unbind
		if [ $c -eq 1 ]; then
			sleep 1
			okif "cycle 1: $pmu stays while its event is open ($(pmus) PMUs)" [ -d $pmu_dir/$pmu ]
			kill $hold
			wait $hold
		fi
		i=0
		while [ "$(pmus)" -gt 0 ] && [ $i -lt 25 ]; do sleep 0.2; i=$((i + 1)); done
		left="$left $(pmus)"
		echo "$bdf" >/sys/bus/pci/drivers/cxl_pci/bind
		i=0
		until [ "$(pmus)" -eq 2 ] || [ $i -ge 50 ]; do sleep 0.2; i=$((i + 1)); done
	done
	okif "3 unbind/rebind cycles: cxl_hmu PMUs left after each unbind:$left (want 0 0 0)" \
		[ "$left" = " 0 0 0" ]
	okif "bound again: $(cd $pmu_dir && echo cxl_hmu_*), module references $(cat /sys/module/cxl_hmu/refcnt)" \
		[ "$(pmus)" -eq 2 ]
	tap hb-vmhmu open "$pmu"
	rmmod cxl_hmu
	ok $? "rmmod cxl_hmu"
	okif "the block released in /proc/iomem" not grep -q cxl_hmu /proc/iomem
	lockdep_on
	echo "1..$n"
	exit 0
fi

sh /hb/hb-vm-e2e.sh region 1 >/tmp/w/region.log 2>&1 || { cat /tmp/w/region.log; exit 1; }
node=$(cat /sys/bus/dax/devices/dax0.0/target_node)
size=$(cat /sys/bus/cxl/devices/mem0/pmem/size)
echo "0" >/proc/sys/kernel/numa_balancing

# 0. configurations that would read the wrong memory, refused up front
# (trial42): a cxl-hmu source whose memdev is not its PMU's, and a chmu
# DPA range past the memdev's end (the device would count nothing there)
refused() { # NAME NEEDLE
	hotbridge check-config -q --config /hbconf/$1.conf >/tmp/w/$1.out 2>&1
	rc=$?
	okif "check-config refuses $1 (status $rc): $(head -c 160 /tmp/w/$1.out)" \
		sh -c "[ $rc -eq 1 ] && grep -q \"$2\" /tmp/w/$1.out"
}
daemon_conf mismatch cxl-hmu "pmu = cxl_hmu_mem0.0.0" "memdev = mem9"
refused mismatch "is mem0's CHMU, but the source's memdev is mem9"
daemon_conf past chmu "pci = $bdf" "dpa_ranges = $size+0x10000000"
refused past "runs past the memdev's capacity"

# 1. the register source first, then the driver claims the block
daemon_conf regs chmu "pci = $bdf" "dpa_ranges = 0+$size" "epoch_ms = 100" "threshold = 1"
daemon_start regs
hb-vmhmu touch "$node" 64 3 &
work=$!
sleep 2
# the module where modprobe finds it. It binds no device and carries no
# device alias (review K10): mem0's uevent MODALIAS is cxl_mem's, and what
# udev would do with it must not load cxl_hmu; modprobe by name does
rel=$(uname -r)
mkdir -p /lib/modules/"$rel"/extra && cp /hb/cxl_hmu.ko /lib/modules/"$rel"/extra/ && depmod
modalias=$(sed -n 's/^MODALIAS=//p' /sys/bus/cxl/devices/mem0/uevent)
modprobe "$modalias" 2>/dev/null
okif "modprobe $modalias (mem0's uevent MODALIAS) does not load cxl_hmu (modules.alias: $(grep cxl_hmu /lib/modules/"$rel"/modules.alias | tr '\n' ' '))" \
	not grep -q '^cxl_hmu ' /proc/modules
before=$(hb-vmhmu regs "$bar")
modprobe cxl_hmu
ok $? "modprobe cxl_hmu while the register source runs"
after=$(hb-vmhmu regs "$bar")
# review K10: no reset at probe; the first event of the driver resets it
okif "the driver left instance 0 running for the register source (before: $before; after: $after)" \
	sh -c "echo '$before' | grep -q 'enabled 1' && echo '$after' | grep -q 'enabled 1'"
sleep 3
wait $work
daemon_stop
grep -iE "claim" /tmp/w/regs.log | head -2 | sed 's/^/# regs: /'
okif "the register source saw the driver claim the block and let go" \
	grep -q "claimed by cxl_hmu" /tmp/w/regs.log
# review K3: it waited out the model's 1 ms enable (STATUS op in progress)
okif "the register source enabled the instance through its 1 ms enable" \
	not grep -qE "did not enable|programming failed" /tmp/w/regs.log
pmu=$(first_pmu)
# review K2: both instances' interrupt is cxl_pci's mailbox vector
irq=$(irq_of "$pmu")
line=$(grep "^ *$irq:" /proc/interrupts | tr -s ' ')
echo "# interrupt: $line"
dmesg | grep -E "Flags mismatch|cxl_hmu.*(interrupt|request)" | head -3 | sed 's/^/# /'
okif "$pmu and ${pmu%.*}.1 share interrupt $irq with cxl_pci's mailbox" \
	sh -c "echo '$line' | grep -q '${pmu%.*}.1' && echo '$line' | grep -qE ' $bdf(,|$)'"
# 2. the driver first: the register source refuses at open, naming it
daemon_conf regs2 chmu "pci = $bdf" "dpa_ranges = 0+$size"
daemon_start regs2
daemon_stop
grep -iE "claim" /tmp/w/regs2.log | head -1 | sed 's/^/# regs2: /'
okif "with the driver bound, the register source refuses the block and says who has it" \
	grep -q "claimed by cxl_hmu" /tmp/w/regs2.log

# 3. the driver from user space; the interrupt first on the event's own
# CPU (the drain runs in the handler's wake), then on the other (an IPI)
irq=$(irq_of "$pmu")
cpu=$(cat $pmu_dir/"$pmu"/cpumask)
tap hb-vmhmu abi "$pmu"
tap hb-vmhmu refuse "$pmu"
okif "interrupt $irq of $pmu sent to CPU $cpu, the event's" write_to "$cpu" /proc/irq/"$irq"/smp_affinity_list
tap hb-vmhmu data "$pmu" "$node" "$bar"
tap hb-vmhmu defaults "$pmu" "$bar"
okif "interrupt $irq of $pmu sent to CPU $((1 - cpu)), not the event's" write_to "$((1 - cpu))" /proc/irq/"$irq"/smp_affinity_list
tap hb-vmhmu small "$pmu" "$node"
tap hb-vmhmu stall "$pmu" "$node"
tap hb-vmhmu alwayson "$pmu" "$node" "$irq"
grep "$pmu" /proc/interrupts | sed 's/^/# /'

# 3b. CPU hot-unplug under an open event: instance 1, whose CPU is not the
# boot CPU (x86 cannot take CPU 0 offline; the driver spreads a block's
# instances over the node's CPUs), the interrupt sent to it first
pmu1=${pmu%.*}.1
irq1=$(irq_of "$pmu1")
cpu1=$(cat $pmu_dir/"$pmu1"/cpumask)
okif "$pmu1 lives on CPU $cpu1, not $pmu's CPU $cpu" [ "$cpu1" != "$cpu" ]
# review K6: instance 1 has no fill interrupt here
tap hb-vmhmu nofill "$pmu1" "$node"
okif "interrupt $irq1 of $pmu1 sent to CPU $cpu1" write_to "$cpu1" /proc/irq/"$irq1"/smp_affinity_list
tap hb-vmhmu hotplug "$pmu1" "$node" "$irq1"
dmesg | grep -E "smpboot|CPU $cpu1 " | tail -2 | sed 's/^/# /'

# 4. the daemon with a one-page AUX area and more hot units than it holds
daemon_conf small cxl-hmu "pmu = $pmu" "epoch_ms = 100" "threshold = 1" "aux_pages = 1"
daemon_start small
hb-vmhmu touch "$node" 2048 4
grep -E "dropped|enabled" /tmp/w/small.log | head -2 | sed 's/^/# small: /'
okif "the daemon says the kernel dropped entries (lost_entries $(cat $pmu_dir/$pmu/lost_entries))" \
	grep -q "the kernel dropped hotlist entries" /tmp/w/small.log
# 5. killed with its event open: the instance is released and reset
kill -KILL $daemon
wait $daemon 2>/dev/null
sleep 1
tap hb-vmhmu open "$pmu"

# 6. cxl disable-memdev under a running daemon
daemon_conf run cxl-hmu "pmu = $pmu" "epoch_ms = 100" "threshold = 1"
daemon_start run
hb-vmhmu touch "$node" 64 2
out=$(cxl disable-memdev mem0 2>&1)
rc=$?
echo "# cxl disable-memdev mem0: status $rc: $(echo "$out" | tr '\n' ' ' | cut -c1-200)"
hb-vmhmu touch "$node" 64 2
hotbridge stats --socket /tmp/w/run.sock >/dev/null 2>&1
ok $? "the daemon still answers after cxl disable-memdev (status $rc)"
hotbridge sources --socket /tmp/w/run.sock 2>&1 | grep -E '"records"|"disabled"' | tr -d ' \n' |
	sed 's/^/# sources: /'
echo
daemon_stop
ok $? "the daemon stops cleanly"
grep -E "error|warn" /tmp/w/run.log | head -3 | sed 's/^/# run: /'
lockdep_on
echo "1..$n"
exit 0
