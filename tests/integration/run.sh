#!/bin/bash
# hotbridge run on the built-in emulated CXL host (two emulated CHMUs,
# region0 = mem0 + mem1 2-way on CPU-less node 2), dry-run migrator:
#  1. --once: every record translates, and what it promotes is exactly what
#     it decided to promote;
#  2. the loop: SIGHUP with a broken config file is refused naming file:line
#     and the daemon keeps going; SIGTERM ends it with status 0.
#   run.sh HOTBRIDGE
set -euo pipefail
hb=$1
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; exit 1; }

cat >"$tmp/hb.conf" <<'CONF'
[daemon]
dry_run = true
interval_ms = 200
[topology]
emulated = true
[policy]
threshold = 8
rate_mbps = 0
[source cxl0]
type = emul-chmu
memdev = mem0
capacity = 536870912
[source cxl1]
type = emul-chmu
memdev = mem1
capacity = 536870912
seed = 2
CONF
chmod 0644 "$tmp/hb.conf"

"$hb" run --once --config "$tmp/hb.conf" >"$tmp/once.out" 2>"$tmp/once.err"
cat "$tmp/once.out" | sed 's/^/# /'
records=$(sed -n 's/^cycles 1, records \([0-9]*\), translated \([0-9]*\),.*/\1 \2/p' "$tmp/once.out")
set -- $records
[ -n "${1:-}" ] && [ "$1" -gt 1000 ] && [ "$1" = "$2" ] && ok "--once: $1 records from two emulated CHMUs, all translated" || bad "records/translated: '$records'"
grep -q '^dropped' "$tmp/once.out" && bad "records were dropped" || ok "nothing dropped"
promote=$(sed -n 's/^decision promote //p' "$tmp/once.out")
moved=$(sed -n 's/^migrated moved //p' "$tmp/once.out")
[ -n "$promote" ] && [ "$promote" -gt 0 ] && [ "$promote" = "$moved" ] && ok "promoted $moved pages, as many as decided" || bad "promote '$promote' moved '$moved'"
grep -q "source nodes 0x4" "$tmp/once.err" && ok "source node: node 2 (CPU-less, from the topology)" || bad "source nodes"

"$hb" run --config "$tmp/hb.conf" 2>"$tmp/loop.err" &
pid=$!
sleep 1
printf '[policy]\nthreshold = oops\n' >"$tmp/hb.conf"
kill -HUP "$pid"
sleep 1
kill -0 "$pid" && ok "alive after SIGHUP with a broken config" || bad "died on SIGHUP"
grep -q "reload refused, keeping the running configuration: $tmp/hb.conf:2: policy.threshold=oops" "$tmp/loop.err" && ok "the refusal names file:line" || { cat "$tmp/loop.err"; bad "no refusal message"; }
cycles_before=$(grep -c "cycle [0-9]*:" "$tmp/loop.err")
sleep 1
[ "$(grep -c "cycle [0-9]*:" "$tmp/loop.err")" -gt "$cycles_before" ] && ok "still cycling" || bad "stopped cycling"
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=
echo "1..$n"
