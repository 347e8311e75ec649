# SPDX-License-Identifier: MIT
# tests/qemu/select.sh: which QEMU a guest runs on (sourced by
# tests/vm/run.sh and tests/e2e/run.sh).
#
# hb_qemu_select sets
#   qemu          the qemu-system-x86_64 to run ("" when there is none)
#   qemu_fw       its firmware options (-L DIR ...), an array
#   qemu_what     one line for the log: which one, its version, why
# from HB_QEMU:
#   unset or ""   tests/qemu/build's binary when it is built, else the
#                 system's (PATH)
#   system        the system's, even when ours is built
#   built         ours; none when it is not built
#   /path/to/qemu-system-x86_64   that binary, with its own firmware paths
# Returns 1 when HB_QEMU names something that is not there.

hb_qemu_select() {
	local here want=${HB_QEMU:-} print cache='' firmware_dirs='' d
	local qemu_version='' built=''
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	qemu='' qemu_fw=() qemu_what=''
	if print=$("$here/build" --print 2>/dev/null); then
		built=$(sed -n 's/^qemu=//p' <<<"$print")
		qemu_version=$(sed -n 's/^qemu_version=//p' <<<"$print")
		firmware_dirs=$(sed -n 's/^firmware_dirs=//p' <<<"$print")
	fi
	case $want in
	''|built)
		if [ -n "$built" ] && [ -x "$built" ]; then
			qemu=$built
			local IFS=:
			for d in $firmware_dirs; do qemu_fw+=(-L "$d"); done
			unset IFS
			qemu_what="tests/qemu/build's (Debian source $qemu_version)"
		elif [ "$want" = built ]; then
			qemu_what="HB_QEMU=built, but tests/qemu/build has not built it (${built:-no path})"
			return 1
		fi ;;
	system) ;;
	/*)
		[ -x "$want" ] || { qemu_what="HB_QEMU=$want is not an executable"; return 1; }
		qemu=$want
		qemu_what="HB_QEMU" ;;
	*)
		qemu_what="HB_QEMU must be empty, system, built or an absolute path, not '$want'"
		return 1 ;;
	esac
	if [ -z "$qemu" ]; then
		qemu=$(command -v qemu-system-x86_64) || { qemu=''; return 0; }
		qemu_what="the system's"
	fi
	qemu_what="$qemu: $("$qemu" --version | head -1), $qemu_what"
}
