# shellcheck shell=sh
# Shell helpers for guests on cxl_test (tests/vm/run.sh --cxl-test), sourced
# by tests/e2e/hb-vm-oracle.sh and tests/vm/hb-vm-cxl-events-cxltest:
# waiting for the mock topology, naming its memdevs by platform device, and
# reading a region's decoders.
cxltest_sys=/sys/bus/cxl/devices

# cxl_test makes 8 memdevs under two host bridges (2 root ports each, a
# switch under each root port), 2 under a third bridge and 1 RCD; they probe
# asynchronously: wait until every one is bound and the 10 switched ones
# have their endpoint ports, then write /tmp/hosts for mem_of. Fails (1),
# naming what it saw, when they did not all come.
cxltest_wait() {
	local i=0 n
	until [ "$(ls -d $cxltest_sys/mem*/driver 2>/dev/null | wc -l)" -ge 11 ] &&
		[ "$(ls -d $cxltest_sys/endpoint* 2>/dev/null | wc -l)" -ge 10 ] || [ $i -ge 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	n=$(ls -d $cxltest_sys/mem* 2>/dev/null | wc -l)
	echo "cxltest: $n memdevs, $(ls -d $cxltest_sys/endpoint* 2>/dev/null | wc -l) endpoints after $i waits"
	if [ "$n" -lt 11 ]; then
		ls $cxltest_sys
		dmesg | grep -i cxl | tail -20
		return 1
	fi
	# memN by its platform device (cxl_mem.K, cxl_rcd.K): memN names follow
	# probe order, the platform devices' place in the mock topology is fixed
	for m in $cxltest_sys/mem*; do
		echo "$(basename "$(dirname "$(readlink -f "$m")")") ${m##*/}"
	done >/tmp/hosts
}

# the memdev (memN) of a platform device (cxl_mem.K)
mem_of() { awk -v h="$1" '$1 == h {print $2}' /tmp/hosts; }
# a CXL device's sysfs attribute
attr() { cat "$cxltest_sys/$1/$2" 2>/dev/null; }

# the root decoder of a window: type (pmem|ram) and host bridge targets
root_of() {
	local d
	for d in $cxltest_sys/decoder0.*; do
		d=${d##*/}
		[ "$(attr "$d" "cap_$1")" = 1 ] || continue
		[ "$(attr "$d" target_list)" = "$2" ] && { echo "$d"; return 0; }
	done
	return 1
}

# a region's members: "<position> <memdev> <decoder> <dpa_resource> <dpa_size>"
members() {
	local r=$1 w p dec ep
	w=$(attr "$r" interleave_ways)
	p=0
	while [ $p -lt "$w" ]; do
		dec=$(attr "$r" target$p)
		ep=endpoint${dec#decoder}; ep=${ep%.*}
		echo "$p $(basename "$(readlink -f $cxltest_sys/$ep/uport)") $dec $(attr "$dec" dpa_resource) $(attr "$dec" dpa_size)"
		p=$((p + 1))
	done
}
