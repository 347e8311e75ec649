# In the guest, sourced by hb-vm-chmu.sh when its FAULTS is poison
# (e2e-chmu-poison-6.12): faults on pages of hot set A while the closed
# loop runs. QEMU's QMP commands reach the host through the 9p share: the
# guest writes /share/qmp/N.req (one command), tests/e2e/poison.py relay
# sends it to QEMU's monitor and writes N.rep. Before A's phase starts:
#  - cxl-inject-poison (64 bytes) on the first pages of A from 12 on, one
#    on each device of the 2-way region, and on page 70, then a poison list read of every
#    memdev (trigger_poison_list: QEMU's injected poison reaches the kernel,
#    and its cxl_poison trace events the daemon, only so);
#  - cxl-inject-general-media-event (uncorrectable) on page 40 and
#    cxl-inject-dram-event (uncorrectable) on page 41, each at a DPA of the
#    device that holds it, when the kernel takes the devices' event records
#    (else events-unsupported says why: not on our 6.12, see
#    devices/docs/cxl-events.md);
# and it waits for the daemon to quarantine them. Six seconds into A's
# phase, page 70's poison is cleared through the kernel's mailbox
# (debugfs clear_poison: cxl-cli 76 has no clear-poison, QEMU no QMP
# clear), which the daemon takes as a release. Leaves in /share/poison:
# pages (index hpa memdev dpa what), explain-N.json, history-N.json,
# stats.json, metrics.txt; /tmp/chmu/kept and released for hb-vmchmu.
P=/share/poison
mkdir -p $P /share/qmp
qn=0
# relay one QMP command through the host; fails on an error reply
qmp() {
	qn=$((qn + 1))
	printf '%s\n' "$1" >/share/qmp/$qn.tmp && mv /share/qmp/$qn.tmp /share/qmp/$qn.req
	qi=0
	while [ ! -e /share/qmp/$qn.rep ] && [ $qi -lt 300 ]; do sleep 0.1; qi=$((qi + 1)); done
	if ! grep -q '"return"' /share/qmp/$qn.rep 2>/dev/null; then
		echo "hb-vm-poison: QMP $1: $(cat /share/qmp/$qn.rep 2>/dev/null || echo no reply)"
		return 1
	fi
}
# the daemon's stats field NAME (media events)
stat() {
	hotbridge stats --socket /tmp/hb/ctl.sock 2>/dev/null |
		sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" | head -1
}
# wait up to 60 s for stat NAME to reach N
wait_stat() {
	wend=$(($(date +%s) + 60))
	until [ "$(stat "$1")" -ge "$2" ] 2>/dev/null || [ "$(date +%s)" -ge $wend ]; do sleep 0.2; done
	[ "$(stat "$1")" -ge "$2" ] 2>/dev/null
}
# A's page INDEX (its line in /tmp/chmu/hot-a): "hpa memdev dpa device"
page() {
	hpa=$(sed -n "$(($1 + 1))p" /tmp/chmu/hot-a)
	t=$(hotbridge translate --hpa "$hpa" --compact)
	md=$(echo "$t" | sed -n 's/.*"memdev": *"\([^"]*\)".*/\1/p')
	dpa=$(echo "$t" | sed -n 's/.*"dpa": *"\([^"]*\)".*/\1/p')
	[ -n "$md" ] && [ -n "$dpa" ] || { echo "hb-vm-poison: no translation of $hpa: $t" >&2; return 1; }
	# QEMU's device by the serial run.sh gave it (0x1000 + its index)
	dev=cxl-pmem$(($(cat /sys/bus/cxl/devices/$md/serial) - 0x1000))
	echo "$hpa $md $dpa /machine/peripheral/$dev"
}

poison_conf() {
	cat >>/hbconf/hb.conf <<CONF
[source events]
type = cxl-events
CONF
}

poison_before_go() {
	: >$P/pages
	# the first pages of A from 12 on, one on each memdev (a 2-way region
	# spreads them, but the frames a kernel hands out need not alternate)
	pg=12 seen=
	while [ $pg -lt 64 ] && [ "$(echo $seen | wc -w)" -lt "$(ls -d /sys/bus/cxl/devices/mem* | wc -l)" ]; do
		set -- $(page $pg)
		case " $seen " in
		*" $2 "*) ;;
		*)
			qmp "{\"execute\":\"cxl-inject-poison\",\"arguments\":{\"path\":\"$4\",\"start\":$(($3 + 0x40)),\"length\":64}}" || return 1
			echo "$pg $1 $2 $3 poison" >>$P/pages
			seen="$seen $2" ;;
		esac
		pg=$((pg + 1))
	done
	# page 70: poisoned, cleared once A runs
	set -- $(page 70)
	qmp "{\"execute\":\"cxl-inject-poison\",\"arguments\":{\"path\":\"$4\",\"start\":$(($3 + 0x40)),\"length\":64}}" || return 1
	echo "70 $1 $2 $3 cleared" >>$P/pages
	t0=$(date +%s)
	for m in /sys/bus/cxl/devices/mem*; do
		echo 1 >"$m/trigger_poison_list" || { echo "hb-vm-poison: no poison list read on ${m##*/}"; return 1; }
	done
	want=$(wc -l <$P/pages)
	# the kernel takes the devices' event records (general media, DRAM)
	# only with the CXL memory error control _OSC granted it: it asks for
	# that only with CONFIG_MEMORY_FAILURE and PCIe port services on
	if dmesg | grep -q "_OSC: OS now controls.*CXLMemErrorReporting"; then
		set -- $(page 40)
		qmp "{\"execute\":\"cxl-inject-general-media-event\",\"arguments\":{\"path\":\"$4\",\"log\":\"failure\",\"flags\":2,\"dpa\":$(($3 + 0x80)),\"descriptor\":1,\"type\":0,\"transaction-type\":1}}" || return 1
		echo "40 $1 $2 $3 general_media" >>$P/pages
		set -- $(page 41)
		qmp "{\"execute\":\"cxl-inject-dram-event\",\"arguments\":{\"path\":\"$4\",\"log\":\"failure\",\"flags\":2,\"dpa\":$(($3 + 0xc0)),\"descriptor\":1,\"type\":0,\"transaction-type\":1}}" || return 1
		echo "41 $1 $2 $3 dram" >>$P/pages
		want=$((want + 2))
	else
		echo "no: $(dmesg | grep -m1 "_OSC: OS supports \[CXL") (6.12 and 7.3 guests boot with pcie_ports=compat; our 6.12 has no CONFIG_MEMORY_FAILURE)" >$P/events-unsupported
		echo "hb-vm-poison: general media and DRAM events not injected: the kernel does not take the devices' event records here"
	fi
	wait_stat quarantined_pages $want
	echo "hb-vm-poison: $(stat quarantined_pages) of $want pages quarantined $(($(date +%s) - t0)) s after the poison list reads (poison events $(stat poison_events), media events $(stat media_events), HPA agreed $(stat hpa_agree), mismatched $(stat hpa_mismatch))"
	awk '$1 != 70 { print $2 }' $P/pages >/tmp/chmu/kept
	awk '$1 == 70 { print $2 }' $P/pages >/tmp/chmu/released
	cat $P/pages
}

# in the background from A's start: page 70's poison cleared after 6 s
poison_during_a() {
	sleep 6
	[ -d /sys/kernel/debug/cxl ] || mount -t debugfs debugfs /sys/kernel/debug
	set -- $(page 70) || return 1
	printf '%#x\n' $(($3 + 0x40)) >/sys/kernel/debug/cxl/$2/clear_poison ||
		{ echo "hb-vm-poison: clear_poison $2 $3+0x40 failed"; return 1; }
	wait_stat poison_released 1
	echo "hb-vm-poison: page 70 ($1, $2:$3) cleared; $(stat poison_released) released, $(stat quarantined_pages) still quarantined"
}

poison_after() {
	while read -r pg hpa md dpa what; do
		hotbridge explain --socket /tmp/hb/ctl.sock "$hpa" >$P/explain-$pg.json 2>&1
		hotbridge history --socket /tmp/hb/ctl.sock --last 200 "$hpa" >$P/history-$pg.json 2>&1
	done <$P/pages
	hotbridge stats --socket /tmp/hb/ctl.sock >$P/stats.json 2>&1
	hotbridge metrics --socket /tmp/hb/ctl.sock >$P/metrics.txt 2>&1
}
