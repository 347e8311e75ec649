#!/bin/bash
# The closed loop's two ways to the same CHMU, one after the other, and
# their figures side by side: the `chmu` source on the registers
# (e2e-chmu-closed-loop-6.12) and the `cxl-hmu` source through our
# kernel's perf driver (e2e-chmu-perf-6.12).
#   chmu-compare.sh HOTBRIDGE BINDIR [WAYS]
# HB_HMU_KO=FILE as for run.sh chmu-perf. Exits non-zero when either fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hb=$1 bindir=$2 ways=${3:-1}
rc=0
rows=()
for mode in chmu chmu-perf; do
	out=$("$here/run.sh" "$mode" "$ways" 4096 "$hb" "$bindir" phys mpp 6.12 2>&1) || rc=1
	echo "$out" | sed "s/^/[$mode] /"
	row=$(echo "$out" | sed -n 's/^# figures: //p')
	rows+=("${row:-path $mode: no figures (see above)}")
done
echo "# the closed loop, $ways-way, epoch 1 s:"
printf '#   %s\n' "${rows[@]}"
exit $rc
