#!/bin/bash
# SPDX-License-Identifier: MIT
# vm-selftest-<base>: our kernel series' own selftest
# (tools/testing/selftests/mm/move_phys_pages.c, built static by kernel/build
# beside the kernel) in a guest on that kernel, as kselftest TAP.
#   selftest.sh BASE BINDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
base=$1 bindir=$2
eval "$("$here/../../kernel/build" --base "$base" --print)"
st=$basedir/selftest-move_phys_pages
if [ ! -x "$st" ] || [ ! -f "$mpp" ]; then
	echo "1..0 # SKIP no $base kernel with its selftest at $st (kernel/build --base $base)"
	exit 0
fi
exec "$here/run.sh" --tap --base "$base" --kernel mpp --extra "$st" --bindir "$bindir" \
	selftest-move_phys_pages
