#!/bin/bash
# tests/bench/idle: CPU used by `hotbridge run` with nothing happening (a
# replay FIFO no one writes to, 1 s cycles, dry run), over 30 s, as a share
# of one core. Goal < 0.1 %. Prints figures; fails only if it cannot run.
#   idle.sh HOTBRIDGE [SECONDS]
set -euo pipefail
hb=$1 secs=${2:-30}
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/fifo-daemon.sh"
fifo_daemon "$hb" 1000
sleep 2
hz=$(getconf CLK_TCK)
t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
sleep "$secs"
t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
python3 -c "
ticks = $t1 - $t0
print('idle hotbridge run: %d CPU ticks (%d/s) in $secs s = %.3f %% of one core (goal < 0.1 %%), RSS %d KiB (1 M-entry table budget)' % (ticks, $hz, 100.0 * ticks / $hz / $secs, $rss))
"
