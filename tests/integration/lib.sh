# SPDX-License-Identifier: MIT
# Sourced by the integration scripts: TAP helpers, a scratch directory, the
# emulated-host configuration most scripts start from (hb_emulated_conf), and
# every hotbridge process started through "${hb[@]}" so that a test setup
# can put it under a checker. Reports of every process, foreground or
# background, land in $tmp/reports, and hb_reports_ok fails the test on any:
#   - `meson test --setup valgrind` exports HB_WRAP (tests/tools/hb-wrap):
#     each hotbridge runs under memcheck logging to reports/valgrind.<pid>;
#   - an ASan/UBSan build writes reports/asan.<pid> and reports/ubsan.<pid>.
#   source lib.sh HOTBRIDGE

tmp=$(mktemp -d)
mkdir "$tmp/reports"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; exit 1; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }

hb=()
if [ -n "${HB_WRAP:-}" ]; then
	# shellcheck disable=SC2206 # HB_WRAP is words: the tool and its options
	hb=($HB_WRAP "--log-file=$tmp/reports/valgrind.%p")
fi
hb+=("$1")
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$tmp/reports/asan"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$tmp/reports/ubsan"
# a checker slows start-up and every cycle: scale the waits
slow=1
[ -n "${HB_WRAP:-}" ] && slow=10

# wait_until SECONDS COMMAND...: true as soon as COMMAND succeeds
wait_until() {
	local end=$((SECONDS + $1 * slow))
	shift
	until "$@" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# hb_emulated_conf FILE [LINE...] <<CONF ... CONF: a configuration for a
# daemon on the emulated host, mode 0644 as the daemon trusts it:
#   [daemon]      interval_ms = 200, control_socket = $tmp/ctl.sock,
#                 pause_state = $tmp/paused (never the host's), LINE...
#   [topology]    emulated = true
# then standard input (the other sections) as it is.
hb_emulated_conf() {
	local f=$1 line
	shift
	{
		printf '[daemon]\ninterval_ms = 200\ncontrol_socket = %s\npause_state = %s\n' \
			"$tmp/ctl.sock" "$tmp/paused"
		for line in "$@"; do
			printf '%s\n' "$line"
		done
		printf '[topology]\nemulated = true\n'
		cat
	} >"$f" || return
	chmod 0644 "$f"
}

# Fails the test if any hotbridge process of this script left a report.
hb_reports_ok() {
	local f found=0
	for f in "$tmp"/reports/*; do
		[ -s "$f" ] || continue
		found=1
		echo "# $(basename "$f"):"
		sed -n '1,60s/^/#   /p' "$f"
	done
	[ "$found" -eq 0 ] && ok "no valgrind or sanitizer report from any hotbridge process" ||
		bad "reports from hotbridge processes (above)"
}
