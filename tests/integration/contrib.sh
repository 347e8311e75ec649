#!/bin/bash
# contrib/: the example configuration parses; the systemd unit is
# hardened (systemd-analyze security --offline: exposure at most 3.0).
#   contrib.sh HOTBRIDGE SOURCE_DIR
set -euo pipefail
hb=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/contrib/hotbridge.conf" "$tmp/hotbridge.conf"
chmod 0644 "$tmp/hotbridge.conf"
"$hb" check-config --no-dropins --config "$tmp/hotbridge.conf" >/dev/null &&
	echo "ok 1 - contrib/hotbridge.conf passes check-config" ||
	{ echo "not ok 1 - contrib/hotbridge.conf"; exit 1; }
if ! command -v systemd-analyze >/dev/null; then
	echo "ok 2 # SKIP systemd-analyze not installed"
	echo "1..2"
	exit 0
fi
score=$(systemd-analyze security --offline=yes "$src/contrib/hotbridge.service" 2>/dev/null |
	sed -n 's/.*Overall exposure level for hotbridge.service: \([0-9.]*\).*/\1/p')
if [ -n "$score" ] && python3 -c "import sys; sys.exit(0 if float('$score') <= 3.0 else 1)"; then
	echo "ok 2 - hotbridge.service exposure $score (systemd-analyze security --offline)"
else
	echo "not ok 2 - hotbridge.service exposure '$score'"
	exit 1
fi
echo "1..2"
