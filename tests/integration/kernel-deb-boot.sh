#!/bin/bash
# The linux-image package `kernel/build --deb` made, booted (suite
# kernel-deb; skipped until the package exists): its files as dpkg lays
# them out (dpkg-deb -x), the kernel from its /boot and its modules from
# its /lib/modules, in a QEMU guest (tests/vm/run.sh --kernel-root) that
# runs the vm suite's checks of move_phys_pages (hb-vmtest mpp: the call
# found, pages moved by PFN to the node asked, bytes intact, the errors).
# It proves what a host that installs the package gets, short of its own
# bootloader.
#   kernel-deb-boot.sh SOURCE_DIR BINDIR [guest|debian]
set -euo pipefail
src=$1 bindir=$2 cfg=${3:-guest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kprint=$("$src/kernel/build" --base 6.12 --print) || { echo "1..0 # SKIP kernel/build --print failed"; exit 0; }
dir=$(sed -n "s/^deb_$cfg=//p" <<<"$kprint")
images=()
shopt -s nullglob
for d in "$dir"/linux-image-*.deb; do
	case $d in *-dbg_*) ;; *) images+=("$d") ;; esac
done
shopt -u nullglob
if [ -z "$dir" ] || [ ${#images[@]} -eq 0 ]; then
	echo "1..0 # SKIP no linux-image package in ${dir:-?} (kernel/build --deb$([ "$cfg" = guest ] || echo " --config $cfg"))"
	exit 0
fi
echo "# booting $(basename "${images[0]}")"
dpkg-deb -x "${images[0]}" "$tmp/root"
exec "$src/tests/vm/run.sh" --tap --base 6.12 --kernel-root "$tmp/root" --bindir "$bindir" hb-vmtest mpp
