#!/bin/bash
# contrib/: the example configuration parses; the systemd unit is
# hardened (systemd-analyze security --offline: exposure at most 3.0); the
# man pages render.
#   contrib.sh HOTBRIDGE SOURCE_DIR
set -euo pipefail
src=$2
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT
cp "$src/contrib/hotbridge.conf" "$tmp/hotbridge.conf"
chmod 0644 "$tmp/hotbridge.conf"
"${hb[@]}" check-config --no-dropins --config "$tmp/hotbridge.conf" >/dev/null &&
	ok "contrib/hotbridge.conf passes check-config" || bad "contrib/hotbridge.conf"
if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze not installed"
else
	score=$(systemd-analyze security --offline=yes "$src/contrib/hotbridge.service" 2>/dev/null |
		sed -n 's/.*Overall exposure level for hotbridge.service: \([0-9.]*\).*/\1/p')
	if [ -n "$score" ] && python3 -c "import sys; sys.exit(0 if float('$score') <= 3.0 else 1)"; then
		ok "hotbridge.service exposure $score (systemd-analyze security --offline)"
	else
		bad "hotbridge.service exposure '$score'"
	fi
fi
# every man page renders without a groff or man warning
if ! command -v man >/dev/null; then
	skip "man not installed"
else
	for page in "$src"/contrib/man/*.[0-9] "$src"/kernel/man/*.[0-9]; do
		warn=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null || echo "man failed")
		[ -z "$warn" ] && ok "${page#"$src"/} renders without warnings" ||
			bad "${page#"$src"/}: $warn"
	done
fi
hb_reports_ok
echo "1..$n"
