#!/bin/bash
# Vendor plugins out of process: each runs in a hotbridge-plugin-host of
# its own, so a plugin that misbehaves costs its own source only. One daemon
# on the emulated host serves an emul-chmu source (cxl0) next to six plugins
# (tests/integration/plugins/wild.c) that
#   crashload0  die of SIGSEGV in a constructor (at load)
#   crashopen0  die of SIGSEGV in open()
#   crashpoll0  deliver a record, then die of SIGSEGV in their 3rd poll()
#   loop0       never return from poll()
#   leak0       allocate 64 MiB more each poll(), never freed
#   garbage0    submit records the host cannot use
#   inet0       open an AF_INET socket mid-stream
#   ptrace0     call ptrace in open()
#   sigsys0     install a SIGSYS handler of its own in open()
# (the last three: outside the host's seccomp allow-list)
#   write0      try to create a .so in plugin_dir in open()
#   failpoll0   deliver a record and fail each poll (-EIO): disabled after 10
#   closefds0   close every fd (the channel too) at its 2nd poll
#   chatty0     log() 500 lines and print 500 to stdout each poll
# A host that dies before its first open (crashload0, crashopen0, ptrace0,
# sigsys0) is a failed open: the log names why and the daemon goes on
# without the source. For the others `hotbridge status` names each case
# (plugin_hosts: last_failure and problem), while cxl0's records keep
# coming and the daemon keeps running. A plugin file replaced by a
# world-writable one or a symlink is refused at the next restart (the
# start-up checks, every start), the source disabled.
# Then: the metrics, the host's confinement (own process group, rlimits, no new
# privileges, seccomp), the back-off between restarts, no host left after
# the daemon stopped, and isolate = no (the plugin in the daemon).
#   plugin-host.sh HOTBRIDGE PLUGIN_BUILD_DIR
set -euo pipefail
plugins=$2
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP the plugin directory and config must be root-owned: run as root"; exit 0; }
command -v python3 >/dev/null || { echo "1..0 # SKIP no python3"; exit 0; }
. "$(dirname "$0")/lib.sh"
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

wild=(crashload crashopen crashpoll loop leak garbage inet ptrace sigsys write failpoll closefds chatty)
# an AddressSanitizer build's host cannot take an address-space limit (its
# shadow is terabytes): no memory limit there, so no plugin that leaks
asan=0
case ${HB_SANITIZE:-} in *address*) asan=1; wild=(crashload crashopen crashpoll loop garbage inet ptrace sigsys write failpoll closefds chatty) ;; esac
mkdir -m 0755 "$tmp/plugins"
for v in "${wild[@]}"; do cp "$plugins/libwild-$v.so" "$tmp/plugins/$v.so"; done
cp "$plugins/libhb-sample.so" "$tmp/plugins/sample.so"
chmod 0755 "$tmp"/plugins/*.so

{
	printf '[source cxl0]\ntype = emul-chmu\nmemdev = mem0\ncapacity = 536870912\n'
	for v in "${wild[@]}"; do
		printf '[source %s0]\ntype = %s\nmemdev = mem0\n' "$v" "$v"
		case $v in
		write) printf 'write = %s/plugins/dropped.so\n' "$tmp" ;;
		esac
	done
} | hb_emulated_conf "$tmp/wild.conf" "dry_run = true" "plugin_dir = $tmp/plugins" \
	"plugin_memory_limit = 268435456" "plugin_hang_ms = 1000"

"${hb[@]}" run --config "$tmp/wild.conf" >"$tmp/wild.out" 2>"$tmp/wild.err" &
pid=$!
started=$SECONDS
ask() { "${hb[@]}" "$1" --socket "$tmp/ctl.sock" 2>/dev/null; }
# host FIELD SOURCE: a field of SOURCE's entry in status's plugin_hosts
host() {
	ask status | python3 -c '
import json, sys
for h in json.load(sys.stdin)["status"]["plugin_hosts"]:
    if h["source"] == sys.argv[2]:
        print(h[sys.argv[1]])' "$1" "$2"
}
records() {
	ask sources | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sources"]:
    if s["name"] == sys.argv[1]:
        print(s["records"])' "$1"
}
has() { host "$1" "$2" | grep -q -- "$3"; }
ge() { [ "$(host "$1" "$2")" -ge "$3" ]; }

wait_until 20 test -S "$tmp/ctl.sock" || { sed 's/^/# /' "$tmp/wild.err"; bad "no control socket"; }
nsrc=$((${#wild[@]} + 1 - 4))
[ "$(ask status | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"]["sources"])')" = $nsrc ] &&
	ok "$nsrc sources open: the four whose host dies before its first open are not" ||
	bad "not $nsrc sources: $(ask status)"

# a host that dies at load or in open(): a failed open, named, never "open"
failed_open() { # SOURCE PATTERN WHAT
	if grep -q "source $1: .*: plugin host $2.*; going on without it" "$tmp/wild.err" &&
		! grep -q "source $1: .* open in hotbridge-plugin-host" "$tmp/wild.err"; then
		ok "$3: a failed open ($(grep -o "plugin host $2" "$tmp/wild.err" | head -1))"
	else
		grep "source $1:" "$tmp/wild.err" | sed 's/^/# /'
		bad "$3: not a failed open saying '$2'"
	fi
}
failed_open crashload0 "failed at load: killed by SIGSEGV" "a plugin that segfaults at load"
failed_open crashopen0 "failed at open: killed by SIGSEGV" "a plugin that segfaults in open"
failed_open ptrace0 "failed at open: stopped by the seccomp allow-list: syscall ptrace (" \
	"a plugin that calls ptrace"
failed_open sigsys0 "failed at open: stopped by the seccomp allow-list: syscall rt_sigaction (" \
	"a plugin that would take the filter's SIGSYS"

check() { # SOURCE FIELD PATTERN WHAT [SECONDS]
	if wait_until "${5:-30}" has "$2" "$1" "$3"; then
		ok "$4: status names it ($2: $(host "$2" "$1"))"
	else
		sed 's/^/# /' "$tmp/wild.err" | tail -20
		bad "$4: status does not say '$3' ($2: '$(host "$2" "$1")')"
	fi
}
check crashpoll0 last_failure "^killed by SIGSEGV" "a plugin that segfaults mid-stream"
check loop0 last_failure "^hung (no answer in 1000 ms)" "a plugin that loops forever in poll"
if [ $asan -eq 0 ]; then
	check leak0 last_failure "^memory limit" "a plugin that allocates without bound"
else
	ok "a plugin that allocates without bound # SKIP AddressSanitizer build: no memory limit"
fi
# the seccomp allow-list: the call is never made, the host dies of SIGSYS, status names the call
check inet0 last_failure "^stopped by the seccomp allow-list: syscall socket (" \
	"a plugin that opens an AF_INET socket mid-stream"
[ "$(records inet0)" -gt 0 ] && ok "inet0 delivered $(records inet0) records before it was stopped" ||
	bad "inet0 delivered nothing"
check garbage0 problem "^bad records: [1-9][0-9]* of [1-9]" "a plugin that submits garbage records"
[ "$(host state garbage0)" = running ] && ok "garbage records cost no restart: garbage0 runs" ||
	bad "garbage0 is $(host state garbage0)"
check closefds0 last_failure "^lost its channel to the daemon (the plugin closed it); killed" \
	"a plugin that closes the host's channel"
# a plugin the daemon disabled (its polls failed) while its host runs on
check failpoll0 state "^disabled$" "a plugin whose polls fail"
ask metrics >"$tmp/metrics" || true
grep -q '^hotbridge_source_host_up{source="failpoll0",type="failpoll"} 0$' "$tmp/metrics" &&
	grep -q '^hotbridge_source_host_dropped_total{source="garbage0",type="garbage"} 0$' "$tmp/metrics" &&
	grep -q '^hotbridge_source_host_bad_records_total{source="garbage0",type="garbage"} [1-9]' "$tmp/metrics" &&
	ok "metrics: failpoll0 not up, garbage0's bad records counted, dropped records a series" ||
	{ grep 'source_host.*\(failpoll0\|garbage0\)' "$tmp/metrics" | sed 's/^/# /'; bad "failpoll0/garbage0 metrics"; }
# retry_in_s counts down while a host waits (loop0 hangs each time: 1, 2, 4, 8 s)
# (not under valgrind: each status call there takes seconds, so the wait can
# run out, and a longer one begin, between the two reads)
retry_ge() { [ "$(host state loop0)" = "waiting to restart" ] && [ "$(host retry_in_s loop0)" -ge "$1" ]; }
if [ -n "${HB_WRAP:-}" ]; then
	skip "retry_in_s countdown: a timing check, not run under a checker"
elif wait_until 60 retry_ge 3; then
	r1=$(host retry_in_s loop0)
	sleep 2
	r2=$(host retry_in_s loop0)
	[ "$(host state loop0)" = "waiting to restart" ] && [ "$r2" -lt "$r1" ] &&
		ok "retry_in_s counts down ($r1 s, 2 s later $r2 s)" || bad "retry_in_s $r1, then $r2"
else
	bad "loop0 never waited 3 s or more to restart (retry_in_s $(host retry_in_s loop0))"
fi
[ "$(records crashpoll0)" -gt 0 ] && ok "crashpoll0 delivered $(records crashpoll0) records before it crashed" ||
	bad "crashpoll0 delivered nothing"

# the other source keeps serving, the daemon runs
r1=$(records cxl0)
sleep 1
r2=$(records cxl0)
[ "$r2" -gt "$r1" ] && ok "cxl0 keeps delivering next to them ($r1, then $r2 records)" ||
	bad "cxl0 stalled at $r1 records"
kill -0 "$pid" && ok "the daemon is running" || bad "the daemon died"

# back-off: crashpoll0 dies at its third poll each time, so its waits double
if wait_until 60 ge failures crashpoll0 3; then
	grep -q "source crashpoll0: .*starting it again in 1 s" "$tmp/wild.err" &&
		grep -q "source crashpoll0: .*starting it again in 2 s" "$tmp/wild.err" &&
		grep -q "source crashpoll0: .*starting it again in 4 s" "$tmp/wild.err" &&
		ok "restarts back off: 1 s, 2 s, 4 s" || bad "no 1, 2, 4 s back-off in the log"
else
	bad "crashpoll0 failed $(host failures crashpoll0) times, not 3"
fi
ge restarts crashpoll0 1 && ok "crashpoll0's host came up again ($(host restarts crashpoll0) restarts)" ||
	bad "crashpoll0 was never restarted"

# the host's confinement
hp=$(host pid garbage0)
if [ "$hp" -gt 0 ] && [ -r "/proc/$hp/status" ]; then
	[ "$(ps -o pgid= -p "$hp" | tr -d ' ')" = "$hp" ] && ok "the host leads a process group of its own" ||
		bad "host $hp is in process group $(ps -o pgid= -p "$hp")"
	grep -q "^NoNewPrivs:[[:space:]]*1" "/proc/$hp/status" && ok "the host has no_new_privs" ||
		bad "no NoNewPrivs in /proc/$hp/status"
	grep -q "^Seccomp:[[:space:]]*2" "/proc/$hp/status" && ok "the host runs under a seccomp filter" ||
		bad "no seccomp filter on the host"
	if [ $asan -eq 1 ]; then
		ok "RLIMIT_AS is plugin_memory_limit # SKIP AddressSanitizer build: no memory limit"
	else
		grep -q "^Max address space *268435456 *268435456" "/proc/$hp/limits" &&
			ok "RLIMIT_AS is plugin_memory_limit" || bad "RLIMIT_AS: $(grep 'address space' "/proc/$hp/limits")"
	fi
	grep -q "^Max core file size *0 *0" "/proc/$hp/limits" && ok "no core files" || bad "core files allowed"
	grep -q "^Max open files *256 *256" "/proc/$hp/limits" && ok "256 fds at most" || bad "RLIMIT_NOFILE"
	# garbage0's host is the one started at start-up, before the daemon dropped its own
	ce=$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$hp/status")
	cp=$(sed -n 's/^CapPrm:[[:space:]]*//p' "/proc/$hp/status")
	[ $((16#$ce)) -eq 0 ] && [ $((16#$cp)) -eq 0 ] &&
		ok "capabilities: none, as the daemon keeps none in a dry run (CapEff $ce)" ||
		bad "CapEff $ce CapPrm $cp"
else
	bad "garbage0's host pid '$hp'"
fi

# the host cannot write plugin_dir (uid 0 owns it: Landlock, not capabilities, stops it)
if wait_until 20 grep -q "source write0: creating $tmp/plugins/dropped.so: " "$tmp/wild.err"; then
	[ ! -e "$tmp/plugins/dropped.so" ] &&
		ok "a plugin cannot create a file in plugin_dir ($(grep -o "creating $tmp/plugins/dropped.so: .*" "$tmp/wild.err" | head -1))" ||
		bad "write0 created $tmp/plugins/dropped.so"
else
	grep "write0" "$tmp/wild.err" | sed 's/^/# /'
	bad "write0 never said whether it could write"
fi

# every restart passes every start-up check: a replaced file is refused, never loaded
wait_until 30 has state crashpoll0 running || true
cp "$plugins/libwild-crashpoll.so" "$tmp/plugins/crashpoll.so.new"
chmod 0666 "$tmp/plugins/crashpoll.so.new"
mv "$tmp/plugins/crashpoll.so.new" "$tmp/plugins/crashpoll.so"
ln -s "$plugins/libwild-inet.so" "$tmp/plugins/inet.so.new"
mv -T "$tmp/plugins/inet.so.new" "$tmp/plugins/inet.so"
check crashpoll0 last_failure "^refused at restart: .*crashpoll.so: group- or world-writable (mode 0666); refusing" \
	"a plugin file made world-writable" 75
check inet0 last_failure "^refused at restart: .*inet.so: is a symlink; refusing to follow it" \
	"a plugin file replaced by a symlink" 75
[ "$(host state crashpoll0)" = disabled ] && [ "$(host pid crashpoll0)" = 0 ] &&
	[ "$(host state inet0)" = disabled ] && [ "$(host pid inet0)" = 0 ] &&
	ok "both sources disabled, no host started for them" ||
	bad "crashpoll0 $(host state crashpoll0) pid $(host pid crashpoll0), inet0 $(host state inet0)"
grep -q "source crashpoll0: plugin host not started again: .*; source disabled" "$tmp/wild.err" &&
	ok "the log says why crashpoll0 is disabled" || bad "no refusal of crashpoll0 in the log"

# metrics: each plugin source's host failures and whether it is up
ask metrics >"$tmp/metrics" || true
grep -q '^hotbridge_source_host_failures_total{source="crashpoll0",type="crashpoll"} [1-9]' "$tmp/metrics" &&
	grep -q '^hotbridge_source_host_up{source="garbage0",type="garbage"} 1$' "$tmp/metrics" &&
	grep -q '^hotbridge_source_host_up{source="cxl0",type="emul-chmu"} 1$' "$tmp/metrics" &&
	ok "metrics: source_host_failures_total and source_host_up per source" ||
	{ grep source_host "$tmp/metrics" | sed 's/^/# /'; bad "no source_host_* series"; }

# a chatty plugin: its output through a pipe, whole lines, at most 20 a second
cp=$(host pid chatty0)
[ "$cp" -gt 0 ] && [[ "$(readlink "/proc/$cp/fd/1")" == pipe:* ]] &&
	[[ "$(readlink "/proc/$cp/fd/2")" == pipe:* ]] &&
	ok "the host's stdout and stderr are a pipe ($(readlink "/proc/$cp/fd/1"))" ||
	bad "chatty0's host $cp: fd 1 $(readlink "/proc/$cp/fd/1" || true)"
hosts=$(pgrep -P "$pid" || true)
kill "$pid"
wait "$pid" || true
pid=
ran=$((SECONDS - started + 2))
lines=$(grep -c "source chatty0: \(chatty log\|plugin output: chatty printf\)" "$tmp/wild.err" || true)
torn=$(grep "chatty printf" "$tmp/wild.err" | grep -vc "source chatty0: plugin output: chatty printf [0-9]*$" || true)
if grep -q "source chatty0: [1-9][0-9]* lines of the plugin suppressed (at most 20 a second)" "$tmp/wild.err" &&
	[ "$lines" -gt 0 ] && [ "$lines" -le $((ran * 20)) ] && [ "$torn" -eq 0 ]; then
	ok "chatty0: $lines lines in $ran s (at most 20 a second), the rest said suppressed, none torn"
else
	grep "chatty" "$tmp/wild.err" | tail -5 | sed 's/^/# /'
	bad "chatty0: $lines lines in $ran s, $torn torn, suppressed: $(grep -c "source chatty0: .*suppressed" "$tmp/wild.err")"
fi
left=0
for h in $hosts; do kill -0 "$h" 2>/dev/null && left=1; done
[ -n "$hosts" ] && [ "$left" -eq 0 ] && ok "no plugin host is left after the daemon stopped" ||
	bad "hosts '$hosts' (some left: $left)"
grep -q "exiting after .* [1-9][0-9]* plugin host failures)$" "$tmp/wild.err" &&
	ok "the exit summary counts host failures ($(grep -o "[0-9]* plugin host failures" "$tmp/wild.err"))" ||
	{ grep "exiting after" "$tmp/wild.err" | sed 's/^/# /'; bad "no host failures in the exit summary"; }

# a host that dies in open() with no other source: run --once exits 1, nothing "open"
printf '[source o]\ntype = crashopen\nmemdev = mem0\n' |
	hb_emulated_conf "$tmp/onlyopen.conf" "dry_run = true" "plugin_dir = $tmp/plugins"
rc=0
"${hb[@]}" run --once --config "$tmp/onlyopen.conf" >"$tmp/onlyopen.out" 2>"$tmp/onlyopen.err" || rc=$?
if [ "$rc" -eq 1 ] && grep -q "no source opened: o" "$tmp/onlyopen.err" &&
	! grep -q "source o: .* open in hotbridge-plugin-host" "$tmp/onlyopen.err"; then
	ok "run --once with only a host that dies in open: exit 1, no source opened"
else
	sed 's/^/# /' "$tmp/onlyopen.err"
	bad "run --once with only a host that dies in open: exit $rc"
fi

# isolate = no: the plugin runs in the daemon, as before
printf '[source cxl0]\ntype = emul-chmu\nmemdev = mem0\ncapacity = 536870912\n[source s]\ntype = sample\nmemdev = mem0\nisolate = no\n' |
	hb_emulated_conf "$tmp/inproc.conf" "dry_run = true" "plugin_dir = $tmp/plugins"
rc=0
"${hb[@]}" run --once --config "$tmp/inproc.conf" >"$tmp/inproc.out" 2>"$tmp/inproc.err" || rc=$?
if [ "$rc" -eq 0 ] && grep -q "source s: sample ($tmp/plugins/sample.so) open$" "$tmp/inproc.err"; then
	ok "isolate = no: the sample plugin opens in the daemon"
else
	sed 's/^/# /' "$tmp/inproc.err"
	bad "isolate = no: exit $rc"
fi
hb_reports_ok
echo "1..$n"
