#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-command set-up for a fresh Debian 12 machine (as root):
#   contrib/quickstart.sh demo   install, build, translate a batch, run hotbridge demo
#   contrib/quickstart.sh test   install, build with -Werror, run the unit, integration
#                                and vm suites (vm boots Debian's stock kernel; the
#                                move_phys_pages kernel's tests skip unless it is built)
#   contrib/quickstart.sh vm     also build our kernels (kernel/build, ~21 min each once), then
#                                run the vm suite and the in-guest benchmark
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

pkgs=(meson ninja-build pkg-config gcc make libcxl-dev uuid-dev libpci-dev libnuma-dev
      libevent-dev libcmocka-dev libjson-c-dev libinih-dev libcap-ng-dev zlib1g-dev
      libtraceevent-dev libtracefs-dev)
# the vm suite's guest: QEMU, a static busybox, cpio for the initramfs
vm_pkgs=(qemu-system-x86 busybox-static cpio file ndctl daxctl kmod xz-utils jq)
# the contrib test renders the man pages; unit-seccomp runs the daemon under the
# unit's SystemCallFilter= (systemd-analyze expands it, libseccomp loads it)
test_pkgs=(man-db systemd libseccomp-dev)

install_deps() {
	local missing=()
	for p in "${pkgs[@]}" "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "quickstart: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

build() {
	if [ ! -d build ]; then
		meson setup build -Dwerror=true -Dtests=enabled
	fi
	ninja -C build
}

case "${1:-}" in
demo)
	install_deps
	build
	topo=tests/data/snapshots/x2-vvv-notes.json
	if [ -e /sys/bus/cxl/devices/root0 ]; then
		echo "== live CXL topology (libcxl)"
		build/daemon/hotbridge topology
		echo "== hotness sources on this host"
		build/daemon/hotbridge list || true
	else
		echo "== no CXL hardware here: translating with the saved 'cxl list -vvv' snapshot $topo"
		printf '%s\n' "mem0 0x0" "mem1 0x5123" "mem1 0xfffffff" "hpa 0x39000b123" \
			"mem1 0x10000000" "hpa 0x1000" |
			build/daemon/hotbridge translate --topology "$topo" --batch || true
	fi
	echo "== the daemon on the built-in emulated CXL host (hotbridge demo)"
	build/daemon/hotbridge demo
	;;
test)
	install_deps "${vm_pkgs[@]}" "${test_pkgs[@]}"
	build
	# Debian's stock kernels: 6.1, 6.12 (bookworm-security) and 7.3
	# (trixie-backports, fetched through kernel/build's own apt lists)
	for b in 6.1 6.12 7.3; do
		[ -f "$(kernel/build --base $b --print | sed -n 's/^stock=//p')" ] ||
			kernel/build --base $b --stock-only
	done
	meson test -C build --suite unit --suite integration --suite vm --suite e2e --print-errorlogs
	;;
vm)
	install_deps "${vm_pkgs[@]}"
	build
	kernel/build --base 6.12 --stock
	kernel/build --base 6.1 --stock
	kernel/build --base 7.3 --stock
	meson test -C build --suite vm --suite e2e --print-errorlogs
	meson test -C build --suite bench vm-promote -v
	;;
*)
	echo "usage: $0 demo|test|vm" >&2
	exit 2
	;;
esac
