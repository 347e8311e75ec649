#!/bin/bash
# One e2e scenario: a QEMU guest on our kernel with WAYS emulated CXL
# type-3 devices (one pxb-cxl host bridge, two root ports), the chain
# cxl create-region -> ndctl create-namespace (devdax) -> daxctl
# reconfigure-device --mode=system-ram run by the real tools, PAGES tagged
# pages on the new CPU-less node; then the oracle (oracle.py) checks
# hotbridge's DPA <-> HPA against the devices' backing files.
#   run.sh tag WAYS PAGES HOTBRIDGE BINDIR
#   run.sh decoders 1 PAGES HOTBRIDGE BINDIR - mpp 6.12
#     (QEMU 10: a device with 256 MiB volatile before its pmem, two pmem
#     regions on it: decoder 0 with a DPA skip, decoder 1 after it; PAGES
#     tagged pages on each, checked by oracle.py like tag)
#   run.sh promote WAYS PAGES HOTBRIDGE BINDIR BACKEND [KERNEL [BASE]]
#   (KERNEL mpp | stock, BASE a kernel/build base: 6.1 | 6.12 | 7.3, stock only)
#   run.sh oracle modulo|xor - HOTBRIDGE BINDIR - mpp 6.12
#   run.sh chmu WAYS PAGES HOTBRIDGE BINDIR BACKEND mpp|stock BASE [hotbridge|damon|crash]
#   (crash: the daemon SIGKILLed and restarted HB_E2E_KILLS times, default
#   20, while the loop runs: hb-vm-crash.sh; HB_E2E_TIMEOUT=SECONDS: the
#   chmu guests' timeout, default 900, for a host too loaded for it)
#   run.sh chmu-perf WAYS PAGES HOTBRIDGE BINDIR BACKEND mpp|debug 6.12
#   run.sh chmu-poison 2 PAGES HOTBRIDGE BINDIR BACKEND mpp 6.12
#   run.sh hmu-edges 1 - HOTBRIDGE BINDIR - mpp|debug 6.12
#   run.sh tenants 1 PAGES HOTBRIDGE BINDIR BACKEND mpp|stock BASE
#   run.sh teardown 1 PAGES HOTBRIDGE BINDIR phys mpp 6.12
#   (debug: the lockdep kernel, `kernel/build --base 6.12 --debug`, and its
#   own cxl_hmu; the suite lockdep)
# chmu: the closed loop with no feed. Each cxl-type3 carries our CHMU model
# (tests/qemu/patches/0002: only tests/qemu/build's QEMU); the guest keeps
# a hot set busy on the CXL node and moves it once, `hotbridge run` with
# `chmu` sources must bring each to DRAM (hb-vm-chmu.sh, hb-vmchmu); the
# host checks explain and the CHMU's counts (chmu.py).
# chmu-poison: the chmu loop, 2-way, with faults on pages of hot set A
# (hb-vm-poison.sh): QEMU's cxl-inject-poison, -general-media-event and
# -dram-event, sent by the host (poison.py relay: the guest asks through
# the share, the host has QEMU's QMP socket), and a poison cleared; the
# loop's checks (chmu.py) and the faults' (poison.py check: explain,
# history, stats, metrics), as one TAP stream. HB_E2E_PCIE_NATIVE=1: the
# guest boots with PCIe port services (run.sh --pcie-native), and the
# general media and DRAM events must reach the daemon too.
# chmu-perf: the same loop through our kernel's CHMU perf driver (cxl_hmu,
# kernel/patches/6.12/0005) and the `cxl-hmu` source instead of the
# registers. HB_HMU_KO=FILE: a cxl_hmu.ko built out of tree against the
# kernel's obj/ (for a kernel built before 0005), loaded by the guest.
# hmu-edges: the driver's edges in two guests (hb-vm-hmu-edges.sh main,
# then unbind), the module copied in as /hb/cxl_hmu.ko and loaded when the
# script wants it; their TAP lines renumbered as one stream.
# tenants: [tenant] rules on two cgroups' hot pages on the CXL node, fed
# by HPA from the guest (hb-vm-tenants.sh): a budget held, a deny kept, a
# reload that moves the budget; the guest's TAP lines are the checks.
# teardown: the closed loop (chmu and replay sources, phys) while the
# region's memory is offlined, the region destroyed, the memdev disabled
# and cxl_pci unbound, each brought back, in one boot (hb-vm-teardown.sh).
# oracle: no QEMU CXL device; the kernel's own mock topology (cxl_test,
# `kernel/build --base 6.12 --cxl-test`) with modulo or XOR windows: the
# guest makes regions of every shape it offers with cxl-cli, injects poison
# at DPAs on every memdev and asks hotbridge for the same translation the
# kernel reports in its cxl_poison events (hb-vm-oracle.sh,
# kernel-oracle.py).
# promote: the guest keeps the tagged pages mapped; the host finds them in
# the live backing files, feeds every 8th page's DPA to the guest's
# `hotbridge run --once` (replay source) as device telemetry, and checks
# where every page ended up (promote.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 ways=$2 pages=$3 hb=$4 bindir=$5 backend=${6:-phys} kernel=${7:-mpp} base=${8:-}
mover=${9:-hotbridge}   # chmu: hotbridge, or damon (DAMON's own tiering, no hotbridge)
skip() { echo "1..0 # SKIP $*"; exit 0; }
# a failure before the checks: one numbered TAP line and the plan
fail() { echo "not ok 1 - $*"; echo "1..1"; exit 1; }
for t in cxl ndctl daxctl; do
	command -v "$t" >/dev/null || skip "$t not installed (apt-get install ndctl daxctl)"
done
# the guest's QEMU (tests/vm/run.sh chooses the same and logs it)
. "$here/../qemu/select.sh"
hb_qemu_select || fail "$qemu_what"
[ -n "$qemu" ] || skip "no QEMU: build it (tests/qemu/build) or apt-get install qemu-system-x86"
eval "$("$here/../../kernel/build" ${base:+--base "$base"} --print)"
image=$mpp
[ "$kernel" = stock ] && image=$stock
[ "$kernel" = debug ] && image=$debug
how="kernel/build --base $base"
[ "$kernel" = stock ] && how="$how --stock-only"
[ "$kernel" = debug ] && how="$how --debug"
[ "$mode" = oracle ] && how="$how --cxl-test"
[ -f "$image" ] || skip "no $kernel $base kernel at $image (build it: $how)"
if [ "$mode" = oracle ]; then
	command -v jq >/dev/null || skip "jq not installed (apt-get install jq)"
	[ -d "$cxltest_root" ] ||
		skip "no cxl_test modules for the $base kernel at $cxltest_root (build them: kernel/build --base $base --cxl-test)"
fi
# HB_E2E_STATE=DIR keeps the guest's share, logs and dmesg there
if [ -n "${HB_E2E_STATE:-}" ]; then
	out=$HB_E2E_STATE
	rm -rf "$out" && mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
start=$(date +%s)
guest=("$here/../vm/run.sh" --tap --cxl "$ways" --base "$base" --kernel "$kernel" --node-mem 1024
	--host-bin cxl --host-bin ndctl --host-bin daxctl --host-bin "$hb"
	--extra "$here/hb-vm-e2e.sh" --bindir "$bindir")
set +e
if [ "$mode" = oracle ]; then
	# ways is the arithmetic here; the XOR guest waits for the host's CEDT
	# 20 shapes under TCG: the 600 s default timed out on a host at load 14
	oguest=("$here/../vm/run.sh" --tap --cxl-test "$ways" --base "$base" --kernel mpp
		--timeout 1700 --node-mem 1024 --host-bin cxl --host-bin jq --host-bin "$hb"
		--extra "$here/hb-vm-oracle.sh" --extra "$here/../vm/cxltest-lib.sh" --bindir "$bindir" --state "$out")
	( "${oguest[@]}" hb-vm-oracle.sh "$ways" >"$out/guest.log" 2>&1; echo $? >"$out/guest.rc" ) &
	gpid=$!
	frc=0
	if [ "$ways" = xor ]; then
		python3 "$here/kernel-oracle.py" cedt "$out"
		frc=$?
	fi
	wait $gpid
	rc=$(cat "$out/guest.rc")
elif [ "$mode" = chmu ] || [ "$mode" = chmu-perf ] || [ "$mode" = chmu-poison ]; then
	# 20 s per hot set; the bound on 90 % coverage is chmu.py's to derive
	eval "$(python3 "$here/chmu.py" bound "$backend")"
	kind=chmu
	faults=
	if [ "$mode" = chmu-poison ]; then
		faults=poison
		guest+=(--qmp "$out/qmp.sock" --extra "$here/hb-vm-poison.sh")
		[ -z "${HB_E2E_PCIE_NATIVE:-}" ] || guest+=(--pcie-native)
		python3 "$here/poison.py" relay "$out" >"$out/relay.log" 2>&1 &
		relay=$!
	fi
	if [ "$mode" = chmu-perf ]; then
		kind=cxl-hmu
		guest+=(--module cxl_hmu)
		if [ -n "${HB_HMU_KO:-}" ]; then
			guest+=(--extra "$HB_HMU_KO")
		elif ! find "$basedir/$kernel-root" -name 'cxl_hmu.ko*' 2>/dev/null | grep -q .; then
			skip "the $kernel $base kernel has no cxl_hmu module (rebuild it: $how; or HB_HMU_KO=cxl_hmu.ko)"
		fi
	fi
	# HB_E2E_CHMU_ACCESS: the request codes the device advertises (0x7:
	# non-TEE only, as the upstream RFC's QEMU model; issue 42)
	access=${HB_E2E_CHMU_ACCESS:-}
	[ -z "$access" ] || guest+=(--chmu-access "$access")
	# HB_E2E_CHMU_DS: its down-sampling factors (0x20: 32 only, as QEMU's
	# upstream model): the source, told no ds=, must take 32
	[ -z "${HB_E2E_CHMU_DS:-}" ] || guest+=(--chmu-ds "$HB_E2E_CHMU_DS")
	# a host cache of 512 KiB in front of the CHMU (8192 lines): hot sets A and
	# B (1 MiB each) miss it, set C (16 lines) lives in it (hb-vm-chmu.sh).
	# HB_CHMU_LLC=SIZE another; empty: QEMU's own default (or a QEMU without one)
	llc=${HB_CHMU_LLC-512K}
	# chmu-poison: none, every access counted. Behind a cache, the few pages
	# of A left on CXL once the rest is promoted (the quarantined ones and
	# the one whose poison is cleared) fit in it and are never hot again
	[ "$mode" != chmu-poison ] || llc=${HB_CHMU_LLC-0}
	[ "$mover" != crash ] || guest+=(--extra "$here/hb-vm-crash.sh")
	"${guest[@]}" --chmu 1 ${llc:+--chmu-llc "$llc"} --timeout "${HB_E2E_TIMEOUT:-900}" --extra "$here/hb-vm-chmu.sh" --state "$out" \
		hb-vm-chmu.sh "$ways" "$pages" 256 20 "$bound" "$backend" "$mover" "$kind" \
		"${HB_HMU_AUX_PAGES:-16}" "${access:--}" "${HB_E2E_CHMU_DS:--}" "${faults:--}" \
		"${HB_E2E_KILLS:-20}" >"$out/guest.log" 2>&1
	rc=$?
	if [ -n "$faults" ]; then
		echo $rc >"$out/guest.rc"
		wait $relay
		sed 's/^/# /; s/^# # /# /' "$out/relay.log"
	fi
elif [ "$mode" = hmu-edges ]; then
	ko=${HB_HMU_KO:-$(find "$basedir/$kernel-root" -name 'cxl_hmu.ko*' 2>/dev/null | head -1)}
	[ -n "$ko" ] || skip "the $kernel $base kernel has no cxl_hmu module (rebuild it: $how; or HB_HMU_KO=cxl_hmu.ko)"
	case $ko in
	*.xz) xz -dc "$ko" >"$out/cxl_hmu.ko"; ko=$out/cxl_hmu.ko ;;
	esac
	[ "${ko##*/}" = cxl_hmu.ko ] || { cp "$ko" "$out/cxl_hmu.ko"; ko=$out/cxl_hmu.ko; }
	rc=0
	: >"$out/guest.log"
	for phase in main unbind; do
		# a device with two CHMU instances (main: hot-unplug on the
		# second's CPU; unbind: one instance's PMU goes at once) whose
		# enable, disable and reset take 1 ms (review K3); main: the
		# CHMU on the mailbox's MSI-X vector, 7, shared with cxl_pci
		# (K2), and instance 1 without the fill interrupt (K6); no host
		# cache in front of the CHMU: every access counts, as these edges
		# were written for
		opts=chmu-op-us=1000,chmu-llc-size=0
		[ "$phase" = main ] && opts="$opts,chmu-msi-vector=7,chmu-no-fill-irq=2"
		"${guest[@]}" --chmu 2 --chmu-opts "$opts" --timeout 900 \
			--extra "$here/hb-vm-hmu-edges.sh" --extra "$ko" \
			--state "$out/$phase" hb-vm-hmu-edges.sh "$phase" \
			>"$out/guest-$phase.log" 2>&1 || rc=$?
		sed "s/^/[$phase] /" "$out/guest-$phase.log" >>"$out/guest.log"
	done
elif [ "$mode" = tenants ]; then
	"${guest[@]}" --timeout 600 --extra "$here/hb-vm-tenants.sh" --state "$out" \
		hb-vm-tenants.sh "$pages" "$backend" >"$out/guest.log" 2>&1
	rc=$?
elif [ "$mode" = teardown ]; then
	# one device with the CHMU model behind the closed loops' 512 KiB host
	# cache; every kind of teardown in this one boot (hb-vm-teardown.sh),
	# the last two with the CHMU perf driver (cxl_hmu) loaded by name.
	# HB_TEARDOWN_KINDS=hmu+online: only those kinds (default all)
	find "$basedir/$kernel-root" -name 'cxl_hmu.ko*' 2>/dev/null | grep -q . ||
		skip "the $kernel $base kernel has no cxl_hmu module (rebuild it: $how)"
	"${guest[@]}" --chmu 1 --chmu-llc "${HB_CHMU_LLC-512K}" --timeout 1700 --module cxl_hmu \
		--extra "$here/hb-vm-teardown.sh" --state "$out" hb-vm-teardown.sh "$pages" 128 8 \
		"${HB_TEARDOWN_KINDS:-all}" >"$out/guest.log" 2>&1
	rc=$?
elif [ "$mode" = reload ]; then
	HB_VM_KEEP=$out "${guest[@]}" hb-vm-e2e.sh reload "$ways" >"$out/guest.log" 2>&1
	rc=$?
elif [ "$mode" = promote ]; then
	# guest.rc tells the feed the guest is gone (it stops waiting for tags)
	( "${guest[@]}" --state "$out" hb-vm-e2e.sh promote "$ways" "$pages" "$backend" \
		>"$out/guest.log" 2>&1; echo $? >"$out/guest.rc" ) &
	gpid=$!
	python3 "$here/promote.py" feed "$out"
	frc=$?
	wait $gpid
	rc=$(cat "$out/guest.rc")
elif [ "$mode" = decoders ]; then
	# QEMU 10 only: a device with volatile capacity before its pmem
	"$qemu" -device cxl-type3,help 2>&1 | grep -q volatile-memdev || skip "$qemu cannot give a type-3 device volatile and persistent capacity"
	HB_VM_KEEP=$out "${guest[@]}" --vmem 256 hb-vm-e2e.sh decoders 1 "$pages" >"$out/guest.log" 2>&1
	rc=$?
else
	HB_VM_KEEP=$out "${guest[@]}" hb-vm-e2e.sh tag "$ways" "$pages" >"$out/guest.log" 2>&1
	rc=$?
fi
set -e
if grep -q "^1..0 # SKIP" "$out/guest.log"; then
	grep "^1..0 # SKIP" "$out/guest.log"
	exit 0
fi
if [ "$mode" = tenants ]; then
	# the guest's TAP lines are the checks; its comments say the counts
	grep -E "^(not )?ok [0-9]+ |^1\.\.|^# hb-vm-tenants" "$out/guest.log" | tee "$out/tap"
	grep -q "^1\.\.[1-9]" "$out/tap" || { sed 's/^/# /' "$out/guest.log" | tail -40; fail "the guest gave no plan (status $rc); the end of its log is above"; }
	echo "# scenario tenants $backend on $kernel $base: $(( $(date +%s) - start )) s wall"
	[ "$rc" -eq 0 ] && ! grep -q "^not ok" "$out/tap"
	exit $?
fi
sed 's/^/# /; s/^# # /# /' "$out/guest.log" | grep -E "hb-vm-e2e|hb-vm-oracle|hb-vmtest|run.sh|error|Error" || true
if [ "$rc" -ne 0 ]; then
	sed 's/^/# /' "$out/guest.log" | tail -40
	fail "the guest failed (status $rc); the end of its log is above"
fi
[ "$mode" != promote ] || [ "$frc" -eq 0 ] || fail "the host's feed of hot DPAs failed (see above)"
[ "$mode" != oracle ] || [ "$frc" -eq 0 ] || fail "the host's CEDT for the XOR guest failed (see above)"
if [ "$mode" = hmu-edges ] || [ "$mode" = teardown ]; then
	# the phases' TAP lines as one stream
	awk '{ sub(/^\[[a-z]+\] /, "") }
	/^(not )?ok [0-9]+ /{ n++; ok = ($1 == "ok"); sub(/^(not )?ok [0-9]+ - ?/, "");
		print (ok ? "ok " : "not ok ") n " - " $0; next }
	/^# /{ print; next }
	END { print "1.." n }' "$out/guest.log" | tee "$out/tap"
	grep -q "^not ok" "$out/tap" && exit 1
	echo "# scenario $mode on $kernel $base: $(( $(date +%s) - start )) s wall"
	exit 0
fi
if [ "$mode" = chmu-poison ]; then
	# both checks' TAP lines as one stream
	{ python3 "$here/chmu.py" check "$out" "$backend" "$mover" "$kind"
	  python3 "$here/poison.py" check "$out" ${HB_E2E_PCIE_NATIVE:+events}; } |
		awk '/^(not )?ok [0-9]+ /{ n++; ok = ($1 == "ok"); sub(/^(not )?ok [0-9]+ - ?/, "");
			print (ok ? "ok " : "not ok ") n " - " $0; next }
		/^1\.\.[0-9]+$/{ next } { print } END { print "1.." n }' | tee "$out/tap" || true
	echo "# scenario $mode $ways-way on $kernel $base: $(( $(date +%s) - start )) s wall"
	grep -q "^not ok" "$out/tap" && exit 1
	exit 0
elif [ "$mode" = chmu ] || [ "$mode" = chmu-perf ]; then
	python3 "$here/chmu.py" check "$out" "$backend" "$mover" "$kind"
	crc=$?
	echo "# scenario $mode $ways-way on $kernel $base: $(( $(date +%s) - start )) s wall"
	exit $crc
elif [ "$mode" = oracle ]; then
	orc=0
	python3 "$here/kernel-oracle.py" check "$out/share/oracle" || orc=$?
	echo "# scenario oracle $ways on cxl_test, $base: $(( $(date +%s) - start )) s wall"
	exit $orc
elif [ "$mode" = reload ]; then
	python3 - "$out" "$hb" <<'PY'
import json, subprocess, sys
d, hb = sys.argv[1], sys.argv[2]
def explain(name):
    return int(json.load(open("%s/%s" % (d, name)))["explain"]["hpa"], 16)
def translate(snap):
    out = subprocess.run([hb, "translate", "--topology", "%s/%s" % (d, snap), "--memdev", "mem1",
                          "--dpa", "0x0"], capture_output=True, text=True, check=True).stdout
    return int(json.loads(out)["hpa"], 16)
before, after = explain("explain-before.json"), explain("explain-after.json")
want_before, want_after = translate("cxl-list.json"), translate("cxl-list-after.json")
log = open("%s/daemon.log" % d).read()
stats = json.load(open("%s/stats-after.json" % d))["stats"]
n = 0
def ok(c, what):
    global n
    n += 1
    print(("ok %d - " if c else "not ok %d - ") % n + what)
    return c
g = ok(before == want_before, "before: the daemon puts mem1:0x0 at %#x (4 KiB granularity: %#x)" % (before, want_before))
g &= ok("topology rebuilt" in log and stats["topology_reloads"] >= 1,
        "the region's uevents made it rebuild (%d rebuilds, %d uevents)" % (stats["topology_reloads"], stats["uevents"]))
g &= ok(after == want_after and after != before, "after: mem1:0x0 at %#x, as the new 256-byte decoders say (%#x)" % (after, want_after))
print("1..%d" % n)
sys.exit(0 if g else 1)
PY
elif [ "$mode" = promote ]; then
	grep -E "hotbridge: (cycle|[0-9]+ source|move_phys_pages unavailable|backend auto)" "$out/guest.log" |
		sed "s/^# //; s/^/# /" || true
	if [ "$backend" = auto ] && [ "$kernel" = stock ]; then
		# stock 6.12 has DAMON's migrate_hot (6.11+), stock 6.1 does not
		want=pagemap
		[ "$base" != 6.1 ] && want=damon
		grep -q "move_phys_pages unavailable: no /sys/kernel/mm/move_phys_pages/syscall_nr" "$out/guest.log" &&
			grep -q "backend auto: using $want" "$out/guest.log" &&
			grep -q "migrator $want" "$out/guest.log" &&
			echo "# stock kernel: phys reported itself unavailable, $want ran" ||
			fail "auto on the stock $base kernel did not fall back to $want"
	fi
	python3 "$here/promote.py" check "$out"
else
	opt=
	[ "$mode" = decoders ] && opt=--decoders
	python3 "$here/oracle.py" "$out" "$hb" $opt
fi
echo "# scenario $mode $ways-way $backend on $kernel $base: $(( $(date +%s) - start )) s wall"
