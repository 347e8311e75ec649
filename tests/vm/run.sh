#!/bin/bash
# tests/vm/run.sh: boot a guest kernel with hotbridge's test binaries and
# run one of them; the guest's exit status becomes ours.
#
#   run.sh [--tap] [--base 6.12|6.1|7.3] [--kernel mpp|stock|debug] [--kernel-root DIR] [--node-mem MiB] [--timeout s] \
#          [--nodes 2|3] [--node2-mem MiB] [--cxl N [--chmu M [--chmu-llc SIZE] [--chmu-access HEX] [--chmu-ds HEX] [--chmu-opts P]] | --cxl-test modulo|xor] [--host-bin NAME]... [--extra FILE]... [--module NAME]... [--state DIR] [--qmp PATH] [--pcie-native] \
#          --bindir DIR PROGRAM [ARG...]
#
# --base: which kernel/build base to boot (default: kernel/build's, 6.12;
# 7.3: Debian 13's backported stock kernel only, like 6.12's stock in what
# it needs). A 6.12 guest needs three things a 6.1 guest does not under QEMU 7.2:
# pcie_ports=compat (else cxl_pci wants event MSIs QEMU never delivers and
# no memdev probes), -cpu max,hypervisor=off (else a stock kernel refuses to
# commit a region: no cache invalidation under a hypervisor) and
# memhp_default_state=offline (Debian's 6.12 auto-onlines hotplugged memory,
# and daxctl refuses to reconfigure then).
#
# --kernel debug: our 6.12 kernel's lockdep variant (`kernel/build --base
# 6.12 --debug`: PROVE_LOCKING, DEBUG_ATOMIC_SLEEP; its own modules), for
# the lockdep suite; the guest's init then also fails on lockdep's reports.
#
# --kernel-root DIR: boot DIR/boot/vmlinuz-REL with the modules of
# DIR/lib/modules/REL instead: a linux-image package's files as dpkg-deb -x
# lays them out (tests/integration/kernel-deb-boot.sh).
#
# --qmp PATH: a QMP monitor on the unix socket PATH (server, not waited
# for): the host can read QOM properties while the guest runs, such as the
# CHMU model's served counts (tests/bench/race.sh).
#
# --pcie-native: a 6.12 or 7.3 guest without pcie_ports=compat: PCIe port
# services on, so the kernel asks the platform (_OSC) for CXL memory error
# reporting and, granted it (a kernel with CONFIG_MEMORY_FAILURE: Debian's,
# not ours), takes the devices' event records (general media, DRAM) from
# their interrupts. Works with QEMU 10 (e2e-chmu-poison-stock-7.3); the
# compat default is for QEMU 7.2, whose event MSIs never arrive.
#
# --state DIR: keep the 9p share (DIR/share) and the CXL backing files
# (DIR/cxl-memN) there, so a host-side oracle can work while the guest runs.
#
# --host-bin NAME: copy the host's NAME (from PATH) with the shared
# libraries it needs into the initramfs (/usr/bin); --extra FILE: copy FILE
# into /hb next to the test programs; --module NAME: also load the kernel
# module NAME (and what it needs) at boot, when the kernel's module tree
# has it (cxl_hmu: our CHMU perf driver, kernel/patches/6.12/0005).
#
# --nodes 3: a third NUMA node (node 2), without CPUs like node 1, of
# --node2-mem MiB (default: --node-mem); a test can check that nothing it
# owns lands there (vm-capacity-6.12: demotion goes to node 1 only).
#
# --cxl N: a q35 machine with cxl=on, one pxb-cxl host bridge with two root
# ports (a bridge with one port loses every write on 6.1 + QEMU 7.2) and N
# (1 or 2) cxl-type3 devices of 512 MiB each, backed by sparse files.
#
# --vmem MiB: each cxl-type3 also has MiB of volatile capacity (file
# cxl-vmemN) before its 512 MiB of pmem, which then starts at DPA MiB: the
# file DIR/cxl-memN.dpa says so for the oracles. QEMU 10 only (7.2 cannot
# decode a DPA skip).
#
# --chmu M: each cxl-type3 device carries our CHMU model with M instances
# (tests/qemu/patches/0002, `chmu-instances=M`): counting the guest's real
# accesses by DPA. Only tests/qemu/build's QEMU has it; skips (77) otherwise.
# --chmu-access HEX: the request codes its CAP0 advertises
# (`chmu-access-types`, bit n code n + 1; default 0x3f, all six): 0x7 is a
# non-TEE-only device, as the upstream RFC's QEMU model. Skips (77) on a
# QEMU without the property. --chmu-ds HEX: its down-sampling factors
# (`chmu-ds-factors`, bit n factor 2^n; default 0x3f): 0x20 is 32 only.
# --chmu-llc SIZE: the host cache in front of the CHMU model
# (`chmu-llc-size=SIZE`, QEMU's size syntax: 32K; 0 for none, every access
# counted); default QEMU's, 32 MiB (tests/qemu/README.md).
# --chmu-opts P: more cxl-type3 properties for it, comma-separated (the
# patch's test options: chmu-op-us=N, chmu-msi-vector=N, chmu-no-fill-irq=N).
#
# --cxl-test modulo|xor: no emulated CXL hardware; instead the kernel's own
# mock topology, cxl_test (tools/testing/cxl, built by `kernel/build --base
# 6.12 --cxl-test`): the wrapped cxl_core, cxl_acpi, cxl_port, cxl_mem and
# cxl_pmem in place of the in-tree modules, then cxl_test (with
# interleave_arithmetic=1 for xor: its XOR windows) and cxl_mock_mem, which
# binds the mock memdevs. Our kernel (--kernel mpp) only.
#
# --tap: the program speaks TAP; console lines that are not TAP are passed
# on as "# " comments, and a skip is reported as "1..0 # SKIP" (exit 0).
#
# The guest: qemu-system-x86_64, KVM if it works, else TCG (tests/qemu/build's
# QEMU 10 when it is built, else the system's; HB_QEMU=system|built|PATH
# chooses, and the log names the one used), two NUMA nodes
# of --node-mem MiB each (default 1024; a third with --nodes 3), CPUs only
# on node 0, a busybox
# initramfs holding every hb-vm* binary of --bindir, serial console on our
# stdout, a 9p share (the guest writes output and dmesg there) and
# isa-debug-exit for the status. No network.
#
# Exits 77 (skip) when qemu, busybox or the kernel is missing: build the
# kernels with `kernel/build --stock`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kernel=mpp base= node_mem=1024 timeout=600 bindir= tap=0 cxl=0 chmu_opts=
host_bins=() extras=() state= cxl_test= nodes=2 node2_mem= chmu=0 chmu_llc= vmem=0 more_mods= kernel_root=
chmu_access= chmu_ds= qmp=
while [ $# -gt 0 ]; do
	case $1 in
	--tap) tap=1; shift ;;
	--cxl) cxl=$2; shift 2 ;;
	--cxl-test) cxl_test=$2; shift 2 ;;
	--chmu) chmu=$2; shift 2 ;;
	--chmu-access) chmu_access=$2; shift 2 ;;
	--chmu-ds) chmu_ds=$2; shift 2 ;;
	--chmu-llc) chmu_llc=$2; shift 2 ;;
	--chmu-opts) chmu_opts=$2; shift 2 ;;
	--vmem) vmem=$2; shift 2 ;;
	--host-bin) host_bins+=("$2"); shift 2 ;;
	--extra) extras+=("$2"); shift 2 ;;
	--module) more_mods="$more_mods $2"; shift 2 ;;
	--state) state=$2; shift 2 ;;
	--qmp) qmp=$2; shift 2 ;;
	--pcie-native) pcie_native=1; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--kernel-root) kernel_root=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--node-mem) node_mem=$2; shift 2 ;;
	--nodes) nodes=$2; shift 2 ;;
	--node2-mem) node2_mem=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--bindir) bindir=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "run.sh: no program to run" >&2; exit 2; }
[ -n "$bindir" ] || { echo "run.sh: --bindir missing" >&2; exit 2; }
case $nodes in
2|3) ;;
*) echo "run.sh: --nodes must be 2 or 3, not '$nodes'" >&2; exit 2 ;;
esac
case ${node2_mem:-$node_mem} in
''|*[!0-9]*) echo "run.sh: --node2-mem must be a size in MiB, not '$node2_mem'" >&2; exit 2 ;;
esac
[ -z "$node2_mem" ] || [ "$nodes" -eq 3 ] || { echo "run.sh: --node2-mem needs --nodes 3" >&2; exit 2; }

skip() {
	if [ $tap -eq 1 ]; then
		echo "1..0 # SKIP $*"
		exit 0
	fi
	echo "SKIP: $*"
	exit 77
}

# Serial output: drop CRs and terminal escapes; under --tap, anything that
# is not a TAP line becomes a comment.
console() {
	if [ $tap -eq 1 ]; then
		sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1bc//g' \
			-e '/^\(ok\|not ok\|1\.\.\|#\)/!s/^/# /'
	else
		sed -u -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1bc//g'
	fi
}
say() { if [ $tap -eq 1 ]; then echo "# $*"; else echo "$*"; fi; }

# QEMU: tests/qemu/build's when it is built, else the system's; HB_QEMU
# chooses (tests/qemu/select.sh)
. "$here/../qemu/select.sh"
hb_qemu_select || { echo "run.sh: $qemu_what" >&2; exit 2; }
[ -n "$qemu" ] || skip "no QEMU: build it (tests/qemu/build) or apt-get install qemu-system-x86"
if [ "$chmu" != 0 ]; then
	case $chmu in [1-8]) ;; *) echo "run.sh: --chmu takes 1..8 instances, not '$chmu'" >&2; exit 2 ;; esac
	[ "$cxl" -gt 0 ] || { echo "run.sh: --chmu needs --cxl N" >&2; exit 2; }
	"$qemu" -device cxl-type3,help 2>&1 | grep -q chmu-instances ||
		skip "$qemu has no CHMU in cxl-type3 (build tests/qemu/build's QEMU 10)"
	if [ -n "$chmu_access" ]; then
		"$qemu" -device cxl-type3,help 2>&1 | grep -q chmu-access-types ||
			skip "$qemu's CHMU has no chmu-access-types (rebuild tests/qemu/build's QEMU 10)"
	fi
fi
busybox=$(command -v busybox) || skip "busybox not installed (apt-get install busybox-static)"
file -L "$busybox" 2>/dev/null | grep -q "statically linked" ||
	skip "$busybox is not static (apt-get install busybox-static)"
kprint=$("$here/../../kernel/build" ${base:+--base "$base"} --print) ||
	{ echo "run.sh: kernel/build --print failed" >&2; exit 2; }
eval "$kprint"
case $kernel in
mpp) image=$mpp ;;
stock) image=$stock ;;
debug) image=$debug ;;
*) echo "run.sh: --kernel must be mpp, stock or debug" >&2; exit 2 ;;
esac
# --kernel-root DIR: a kernel as a package installs it (dpkg-deb -x of a
# linux-image .deb): DIR/boot/vmlinuz-REL and DIR/lib/modules/REL
if [ -n "$kernel_root" ]; then
	shopt -s nullglob
	imgs=("$kernel_root"/boot/vmlinuz-*)
	shopt -u nullglob
	[ ${#imgs[@]} -eq 1 ] ||
		{ echo "run.sh: --kernel-root $kernel_root: want one boot/vmlinuz-*, found ${#imgs[@]}" >&2; exit 2; }
	image=${imgs[0]}
	[ -d "$kernel_root/lib/modules/${image##*/vmlinuz-}" ] ||
		{ echo "run.sh: --kernel-root $kernel_root: no lib/modules/${image##*/vmlinuz-}" >&2; exit 2; }
fi
how="kernel/build --base $base"
[ "$kernel" = stock ] && how="$how --stock-only"
[ "$kernel" = debug ] && how="$how --debug"
[ -f "$image" ] || skip "no $kernel $base kernel at $image (build it: $how)"
case $cxl_test in
'') ;;
modulo|xor)
	[ "$kernel" = mpp ] || { echo "run.sh: --cxl-test needs --kernel mpp" >&2; exit 2; }
	[ "$cxl" -eq 0 ] || { echo "run.sh: --cxl-test and --cxl exclude each other" >&2; exit 2; }
	[ -n "${cxltest_root:-}" ] && [ -d "$cxltest_root" ] ||
		skip "no cxl_test modules for the $base kernel at ${cxltest_root:-?} (build them: kernel/build --base $base --cxl-test)" ;;
*) echo "run.sh: --cxl-test must be modulo or xor" >&2; exit 2 ;;
esac

work=$(mktemp -d)
# Under --tap, meson shows only the failing TAP line and stderr: on a
# failure, the guest's comments (the figures a check saw) go to stderr too.
on_exit() {
	local rc=$?
	if [ $rc -ne 0 ] && [ $tap -eq 1 ] && [ -s "$work/console.log" ]; then
		echo "run.sh: exit $rc; the guest's last comments and failures:" >&2
		grep -E '^(#|not ok)' "$work/console.log" | tail -n 80 >&2
	fi
	rm -rf "$work"
}
trap on_exit EXIT
mkdir -p "$work/root/bin" "$work/root/hb" "$work/root/proc" "$work/root/sys" \
	"$work/root/dev" "$work/share"
files=$work
if [ -n "$state" ]; then
	mkdir -p "$state/share"
	files=$state
	rmdir "$work/share"
	ln -s "$state/share" "$work/share"
fi
cp "$busybox" "$work/root/bin/busybox"
ln -s busybox "$work/root/bin/sh"
cp "$here/init.sh" "$work/root/init"
chmod 755 "$work/root/init"
for b in "$bindir"/hb-vm*; do
	[ -x "$b" ] && [ -f "$b" ] && cp "$b" "$work/root/hb/"
done
for f in "${extras[@]}"; do
	cp "$f" "$work/root/hb/"
done
if [ ${#host_bins[@]} -gt 0 ]; then
	mkdir -p "$work/root/usr/bin" "$work/root/lib64" "$work/root/etc"
	for b in "${host_bins[@]}"; do
		case $b in
		*/*) path=$b ;;
		*) path=$(command -v "$b") || skip "$b not installed on the host" ;;
		esac
		cp "$path" "$work/root/usr/bin/"
		for lib in $(ldd "$path" | awk '/=> \// {print $3} /^\t\/lib64/ {print $1}'); do
			mkdir -p "$work/root$(dirname "$lib")"
			cp -nL "$lib" "$work/root$lib"
		done
	done
	cp -nL /lib64/ld-linux-x86-64.so.2 "$work/root/lib64/"
	# libkmod (daxctl, ndctl) asks whether drivers are built in: give it the
	# kernel's modules.builtin and the indexes depmod makes of it
	rel=$(cat "$basedir/release-$kernel" 2>/dev/null || true)
	if [ -n "$rel" ] && [ -d "$basedir/modules-$kernel" ] && command -v depmod >/dev/null; then
		mkdir -p "$work/root/lib/modules/$rel"
		cp "$basedir/modules-$kernel"/* "$work/root/lib/modules/$rel/"
		: >"$work/root/lib/modules/$rel/modules.order"
		depmod -b "$work/root" "$rel" 2>/dev/null || true
	fi
fi
# a modular kernel (Debian's, our 6.12): the modules the guests need, in
# load order, decompressed (busybox insmod reads no .ko.xz)
# (cxl_test: its tree, where the wrapped CXL modules replace the in-tree
# ones; cxl_test's dependencies bring them, cxl_mock_mem binds the memdevs,
# which udev would load on a full system)
rel=$(cat "$basedir/release-$kernel" 2>/dev/null || true)
mods=$basedir/$kernel-root
if [ -n "$kernel_root" ]; then
	rel=${image##*/vmlinuz-}
	mods=$kernel_root
fi
want_mods="virtio_pci 9pnet_virtio 9p cxl_acpi cxl_port cxl_pci cxl_mem cxl_pmem nd_pmem dax_pmem device_dax kmem$more_mods"
if [ -n "$cxl_test" ]; then
	mods=$cxltest_root
	want_mods="virtio_pci 9pnet_virtio 9p cxl_test cxl_mock_mem"
fi
if [ -n "$rel" ] && [ -d "$mods/lib/modules/$rel" ] && command -v modprobe >/dev/null; then
	: >"$work/root/etc-modules"
	for m in $want_mods; do
		# a --module the tree lacks is left out (the test says what it misses)
		{ modprobe -C /dev/null -d "$mods" -S "$rel" --ignore-install --show-depends "$m" 2>/dev/null || true; } |
			awk '$1 == "insmod" {print $2}'
	done | awk '!seen[$0]++' | while read -r ko; do
		dst=${ko#"$mods"}
		mkdir -p "$work/root$(dirname "$dst")"
		case $ko in
		*.xz) dst=${dst%.xz}; xz -dc "$ko" >"$work/root$dst" ;;
		*) cp "$ko" "$work/root$dst" ;;
		esac
		args=
		[ "$cxl_test" = xor ] && [ "${dst##*/}" = cxl_test.ko ] && args=interleave_arithmetic=1
		echo "$dst $args" >>"$work/root/etc-modules"
	done
	if [ -n "$cxl_test" ]; then
		grep -q '/cxl_test\.ko' "$work/root/etc-modules" && grep -q '/cxl_mock_mem\.ko' "$work/root/etc-modules" ||
			{ echo "run.sh: cxl_test or cxl_mock_mem not found in $mods (kernel/build --base $base --cxl-test)" >&2; exit 2; }
	fi
	cp "$mods/lib/modules/$rel"/modules.builtin* "$mods/lib/modules/$rel/modules.order" \
		"$work/root/lib/modules/$rel/" 2>/dev/null || true
	depmod -b "$work/root" "$rel" 2>/dev/null || true
fi
[ -x "$work/root/hb/$1" ] || { echo "run.sh: $1 not found in $bindir" >&2; exit 2; }
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"

# TCG runs both vCPUs in one thread: with a thread per vCPU (MTTCG) a 6.12
# guest about one boot in six takes an int3 oops while the kernel patches a
# static key (text_poke_bp on the other CPU), measured on QEMU 7.2.
accel=tcg,thread=single cpu=max
if [ -w /dev/kvm ] && grep -qE 'vmx|svm' /proc/cpuinfo; then
	accel=kvm cpu=host
fi
extra_append=
if [ "$base" != 6.1 ]; then   # 6.12, and Debian 13's 7.3 the same way
	cpu=$cpu,hypervisor=off
	extra_append=" memhp_default_state=offline"
	[ -n "${pcie_native:-}" ] || extra_append=" pcie_ports=compat$extra_append"
fi
# Debian's 7.3 starts DAMON_STAT at boot (CONFIG_DAMON_STAT_ENABLED_DEFAULT),
# whose kdamond is exclusive: no sysfs kdamond can start, so the damon
# backend is refused, naming it. An administrator who wants hotbridge's
# damon path turns it off; the guests do so on the command line
# (vm-damon-7.3 turns it on again first, to check the refusal).
[ "$base" != 7.3 ] || extra_append="$extra_append damon_stat.enabled=N"
run=$(IFS=,; echo "$*")
mem=$((node_mem * 2))
numa=(-object memory-backend-ram,id=m0,size="${node_mem}M"
	-object memory-backend-ram,id=m1,size="${node_mem}M"
	-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,memdev=m1)
if [ "$nodes" -eq 3 ]; then
	node2_mem=${node2_mem:-$node_mem}
	mem=$((mem + node2_mem))
	numa+=(-object memory-backend-ram,id=m2,size="${node2_mem}M" -numa node,nodeid=2,memdev=m2)
fi
machine=(-M pc)
cxl_args=()
if [ "$cxl" -gt 0 ]; then
	machine=(-M q35,cxl=on)
	chmu_prop=
	[ "$chmu" -eq 0 ] || chmu_prop=",chmu-instances=$chmu${chmu_llc:+,chmu-llc-size=$chmu_llc}"
	[ "$chmu" -eq 0 ] || [ -z "$chmu_access" ] || chmu_prop="$chmu_prop,chmu-access-types=$chmu_access"
	[ "$chmu" -eq 0 ] || [ -z "$chmu_ds" ] || chmu_prop="$chmu_prop,chmu-ds-factors=$chmu_ds"
	[ "$chmu" -eq 0 ] || [ -z "$chmu_opts" ] || chmu_prop="$chmu_prop,$chmu_opts"
	cxl_args=(-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
		-device cxl-rp,port=0,bus=cxl.1,id=rp0,chassis=0,slot=2
		-device cxl-rp,port=1,bus=cxl.1,id=rp1,chassis=0,slot=3)
	for i in $(seq 0 $((cxl - 1))); do
		truncate -s 512M "$files/cxl-mem$i"
		truncate -s 1M "$files/cxl-lsa$i"
		mem_prop=memdev=cxl-mem$i
		echo $((vmem << 20)) >"$files/cxl-mem$i.dpa"
		if [ "$vmem" -gt 0 ]; then
			truncate -s "${vmem}M" "$files/cxl-vmem$i"
			cxl_args+=(-object memory-backend-file,id=cxl-vmem$i,share=on,mem-path="$files/cxl-vmem$i",size="${vmem}M")
			mem_prop=volatile-memdev=cxl-vmem$i,persistent-memdev=cxl-mem$i
		fi
		cxl_args+=(-object memory-backend-file,id=cxl-mem$i,share=on,mem-path="$files/cxl-mem$i",size=512M
			-object memory-backend-file,id=cxl-lsa$i,share=on,mem-path="$files/cxl-lsa$i",size=1M
			-device "cxl-type3,bus=rp$i,$mem_prop,lsa=cxl-lsa$i,id=cxl-pmem$i,sn=$((0x1000 + i))$chmu_prop")
	done
	cxl_args+=(-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G)
fi
say "run.sh: QEMU $qemu_what"
# -virtfs stays before the CXL devices: its virtio-9p-pci names no bus, and
# placed after them QEMU 10.0 put it on pxb-cxl's bus, which refuses it
# ("Only PCI/PCIe bridges can be plugged into pxb-cxl")
start=$(date +%s)
set +e
timeout "$timeout" "$qemu" "${qemu_fw[@]}" -accel "$accel" -cpu "$cpu" "${machine[@]}" -smp 2 -m "${mem}M" \
	"${numa[@]}" \
	-kernel "$image" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 quiet rdinit=/init panic=-1 no_timer_check transparent_hugepage=madvise$extra_append hb.run=$run" \
	-virtfs local,path="$(readlink -f "$work/share")",mount_tag=hbshare,security_model=none,id=hbshare \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 "${cxl_args[@]}" ${qmp:+-qmp "unix:$qmp,server=on,wait=off"} \
	-nographic -no-reboot -nodefaults -serial stdio </dev/null | console | tee "$work/console.log"
status=${PIPESTATUS[0]}
set -e
say "run.sh: ${kernel_root:+the package kernel $image, }$kernel $base kernel, $accel, $(( $(date +%s) - start )) s, qemu status $status"
if [ -n "${HB_VM_KEEP:-}" ]; then
	mkdir -p "$HB_VM_KEEP" && cp -r "$work/share/." "$HB_VM_KEEP/"
	for i in $(seq 0 $((cxl - 1))); do
		cp --sparse=always "$files/cxl-mem$i" "$files/cxl-mem$i.dpa" "$HB_VM_KEEP/"
	done
fi
[ $status -eq 124 ] && { say "run.sh: guest timed out after $timeout s"; exit 1; }
# isa-debug-exit: qemu status = (guest status << 1) | 1; anything else means
# the guest died (panic, reboot) before reporting.
if [ $((status & 1)) -eq 1 ] && [ $status -gt 0 ]; then
	exit $((status >> 1))
fi
say "run.sh: guest stopped without reporting a status"
[ $tap -eq 1 ] && echo "not ok - the guest died before reporting (panic or reboot)"
exit 1
