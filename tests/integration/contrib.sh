#!/bin/bash
# contrib/: the example configuration parses; the systemd unit lets the
# daemon write the example metrics_textfile and is hardened
# (systemd-analyze security --offline: exposure at most 3.0); the man
# pages render.
#   contrib.sh HOTBRIDGE SOURCE_DIR UNIT (the unit as configured for install)
set -euo pipefail
src=$2 unit=$3
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT
cp "$src/contrib/hotbridge.conf" "$tmp/hotbridge.conf"
chmod 0644 "$tmp/hotbridge.conf"
"${hb[@]}" check-config --no-dropins --config "$tmp/hotbridge.conf" >/dev/null &&
	ok "contrib/hotbridge.conf passes check-config" || bad "contrib/hotbridge.conf"
# the example metrics_textfile must be writable under the unit: its
# directory (where the temporary is made and renamed) below a ReadWritePaths=
textfile=$(sed -n 's/^#* *metrics_textfile *= *//p' "$src/contrib/hotbridge.conf")
rw=$(sed -n 's/^ReadWritePaths=//p' "$unit")
[ -n "$textfile" ] || bad "contrib/hotbridge.conf has no example metrics_textfile"
covered=
for p in $rw; do
	p=${p#-}
	case "$(dirname "$textfile")/" in "${p%/}/"*) covered=$p ;; esac
done
[ -n "$covered" ] && ok "the example metrics_textfile $textfile is writable under the unit (ReadWritePaths=$covered)" ||
	bad "the example metrics_textfile $textfile is read-only under the unit (ReadWritePaths=$rw)"
if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze not installed"
else
	score=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null |
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
