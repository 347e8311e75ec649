#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-command set-up for a fresh Debian 12 machine (as root):
#   contrib/quickstart.sh demo   install, build, translate a batch, run hotbridge demo
#   contrib/quickstart.sh test   install, build with -Werror, run the unit, integration
#                                and vm suites (vm boots Debian's stock kernel; the
#                                move_phys_pages kernel's tests skip unless it is built),
#                                then name every test that skipped, with its reason and
#                                the command that runs it
#   contrib/quickstart.sh vm     also build QEMU 10 (tests/qemu/build, ~12 min cold; the
#                                system's QEMU 7.2 has no CHMU), our kernels (kernel/build,
#                                ~21 min each once) and cxl_test, then run the vm and e2e
#                                suites and the in-guest benchmark
# A build directory that another meson version configured (an upgrade from
# bookworm-backports between two runs) is reconfigured, or set up afresh when
# that fails. Sourced (tests/integration/quickstart.sh), it only defines its
# functions.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
setup_opts=(-Dwerror=true -Dtests=enabled)

pkgs=(meson ninja-build pkg-config gcc make libcxl-dev uuid-dev libpci-dev libnuma-dev
      libevent-dev libsystemd-dev libcmocka-dev libjson-c-dev libinih-dev libcap-ng-dev zlib1g-dev
      libtraceevent-dev libtracefs-dev libseccomp-dev)
# the vm suite's guest: QEMU, a static busybox, cpio for the initramfs
vm_pkgs=(qemu-system-x86 busybox-static cpio file ndctl daxctl kmod xz-utils jq)
# the contrib test renders the man pages; unit-seccomp runs the daemon under the
# unit's SystemCallFilter= (systemd-analyze expands it, libseccomp, in pkgs for the
# plugin host, loads it)
test_pkgs=(man-db systemd)

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

# configured_meson DIR: the meson version that configured build directory DIR
# (its meson-info/meson-info.json); fails when DIR has none
configured_meson() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meson_version"]["full"])' \
		"$1/meson-info/meson-info.json" 2>/dev/null
}

# setup_build DIR: DIR configured by this machine's meson with setup_opts: set up
# when it is not a build directory yet; reconfigured when another meson version
# configured it (its saved state "references functions or classes that don't
# exist" for this one); wiped and set up again when reconfiguring fails.
setup_build() {
	local dir=$1 was now
	now=$(meson --version) || return
	if ! was=$(configured_meson "$dir"); then
		meson setup "$dir" "${setup_opts[@]}"
		return
	fi
	[ "$was" != "$now" ] || return 0
	echo "quickstart: $dir was configured by meson $was, this is meson $now: reconfiguring it"
	meson setup --reconfigure "$dir" "${setup_opts[@]}" && return
	echo "quickstart: reconfiguring $dir with meson $now failed: removing it and setting it up again"
	rm -rf "$dir"
	meson setup "$dir" "${setup_opts[@]}"
}

build() {
	setup_build build
	ninja -C build
}

# skipped_summary TESTLOG: the tests that meson's TESTLOG (meson-logs/testlog.json)
# records as skipped, each with the reason its output gave, then the command
# that runs them. Prints nothing when none skipped.
skipped_summary() {
	python3 - "$1" <<'PY'
import json, re, sys

skipped = []
with open(sys.argv[1]) as f:
    for line in f:
        if not line.strip():
            continue
        t = json.loads(line)
        if t.get("result") != "SKIP":
            continue
        # "project:suite+suite / name" (meson writes no suite of its own)
        where, _, name = t["name"].rpartition(" / ")
        suites = where.rpartition(":")[2].split("+")
        why = ""
        for out in (t.get("stdout") or "").splitlines():
            m = re.search(r"(?:^1\.\.0 # SKIP|\bSKIP:)\s*(.*)", out)
            if m:
                why = m.group(1).strip()
        skipped.append((name, suites, why or "(it gave no reason)"))
if not skipped:
    sys.exit(0)
guests = [s for s in skipped if set(s[1]) & {"vm", "e2e"}]
others = [s for s in skipped if s not in guests]
width = max(len(s[0]) for s in skipped)
print(f"quickstart: {len(skipped)} skipped:")
for name, _, why in guests + others:
    print(f"  {name:<{width}}  {why}")
if guests:
    print("quickstart: for the vm and e2e tests above, `bash contrib/quickstart.sh vm` builds what"
          " they need (QEMU 10, our kernels, cxl_test) and runs them")
if others:
    print(f"quickstart: for {'the others' if guests else 'these'}, install what the reason names, then"
          f" `meson test -C build {' '.join(s[0] for s in others)}`")
print()
PY
}

# meson_test ARGS...: meson test -C build ARGS, then the skipped tests
# (skipped_summary), with meson's closing summary (Ok:, Fail:, ... and the
# log's path) held back to come last. Returns meson test's status.
meson_test() {
	local held rc=0
	held=$(mktemp)
	rm -f build/meson-logs/testlog.json
	{
		meson test -C build "$@" | awk -v held="$held" \
			'/^Ok:[[:space:]]/ { rest = 1 } rest { print > held; next } { print; fflush() }'
		rc=${PIPESTATUS[0]}
	} || :
	[ ! -f build/meson-logs/testlog.json ] || skipped_summary build/meson-logs/testlog.json ||
		echo "quickstart: could not read build/meson-logs/testlog.json for the skipped tests"
	cat "$held"
	rm -f "$held"
	return "$rc"
}

# sourced: the functions only
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
set -euo pipefail
cd "$top"

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
	meson_test --suite unit --suite integration --suite vm --suite e2e --print-errorlogs
	;;
vm)
	install_deps "${vm_pkgs[@]}"
	build
	# the system's QEMU (7.2 on bookworm) has no CHMU: the closed loops need ours
	bash tests/qemu/build
	kernel/build --base 6.12 --stock --cxl-test
	kernel/build --base 6.1 --stock
	kernel/build --base 7.3 --stock
	meson test -C build --suite vm --suite e2e --suite e2e-long --print-errorlogs
	meson test -C build --suite bench vm-promote -v
	;;
*)
	echo "usage: $0 demo|test|vm" >&2
	exit 2
	;;
esac
