#!/bin/bash
# tests/vm/run.sh: boot a guest kernel with hotbridge's test binaries and
# run one of them; the guest's exit status becomes ours.
#
#   run.sh [--kernel mpp|stock] [--node-mem MiB] [--timeout s] \
#          --bindir DIR PROGRAM [ARG...]
#
# The guest: qemu-system-x86_64 (KVM if it works, else TCG), two NUMA nodes
# of --node-mem MiB each (default 1024), CPUs only on node 0, a busybox
# initramfs holding every hb-vm* binary of --bindir, serial console on our
# stdout, a 9p share (the guest writes output and dmesg there) and
# isa-debug-exit for the status. No network.
#
# Exits 77 (skip) when qemu, busybox or the kernel is missing: build the
# kernels with `kernel/build --stock`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kernel=mpp node_mem=1024 timeout=600 bindir=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--node-mem) node_mem=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--bindir) bindir=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "run.sh: no program to run" >&2; exit 2; }
[ -n "$bindir" ] || { echo "run.sh: --bindir missing" >&2; exit 2; }

skip() { echo "SKIP: $*"; exit 77; }

qemu=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
busybox=$(command -v busybox) || skip "busybox not installed (apt-get install busybox-static)"
file -L "$busybox" 2>/dev/null | grep -q "statically linked" ||
	skip "$busybox is not static (apt-get install busybox-static)"
eval "$("$here/../../kernel/build" --print)"
case $kernel in
mpp) image=$mpp ;;
stock) image=$stock ;;
*) echo "run.sh: --kernel must be mpp or stock" >&2; exit 2 ;;
esac
[ -f "$image" ] || skip "no $kernel kernel at $image (run: kernel/build --stock)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/bin" "$work/root/hb" "$work/root/proc" "$work/root/sys" \
	"$work/root/dev" "$work/share"
cp "$busybox" "$work/root/bin/busybox"
ln -s busybox "$work/root/bin/sh"
cp "$here/init.sh" "$work/root/init"
chmod 755 "$work/root/init"
for b in "$bindir"/hb-vm*; do
	[ -x "$b" ] && [ -f "$b" ] && cp "$b" "$work/root/hb/"
done
[ -x "$work/root/hb/$1" ] || { echo "run.sh: $1 not found in $bindir" >&2; exit 2; }
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"

accel=tcg cpu=max
if [ -w /dev/kvm ] && grep -qE 'vmx|svm' /proc/cpuinfo; then
	accel=kvm cpu=host
fi
run=$(IFS=,; echo "$*")
mem=$((node_mem * 2))
start=$(date +%s)
set +e
timeout "$timeout" "$qemu" -accel "$accel" -cpu "$cpu" -M pc -smp 2 -m "${mem}M" \
	-object memory-backend-ram,id=m0,size="${node_mem}M" \
	-object memory-backend-ram,id=m1,size="${node_mem}M" \
	-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,memdev=m1 \
	-kernel "$image" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 quiet rdinit=/init panic=-1 transparent_hugepage=madvise hb.run=$run" \
	-virtfs local,path="$work/share",mount_tag=hbshare,security_model=none,id=hbshare \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-nographic -no-reboot -nodefaults -serial stdio
status=$?
set -e
echo "run.sh: $kernel kernel, $accel, $(( $(date +%s) - start )) s, qemu status $status"
if [ -n "${HB_VM_KEEP:-}" ]; then
	mkdir -p "$HB_VM_KEEP" && cp -r "$work/share/." "$HB_VM_KEEP/"
fi
[ $status -eq 124 ] && { echo "run.sh: guest timed out after $timeout s"; exit 1; }
# isa-debug-exit: qemu status = (guest status << 1) | 1; anything else means
# the guest died (panic, reboot) before reporting.
if [ $((status & 1)) -eq 1 ] && [ $status -gt 0 ]; then
	exit $((status >> 1))
fi
echo "run.sh: guest stopped without reporting a status"
exit 1
