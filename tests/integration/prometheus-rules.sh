#!/bin/bash
# contrib/prometheus/hotbridge-rules.yml is valid (`promtool check rules`)
# and its alerts and recording rules do what tests.yml says over series
# shaped like the daemon's metrics (`promtool test rules`). Skipped without
# promtool (Debian's package prometheus). prometheus-metrics.sh checks the
# names against the daemon.
#   prometheus-rules.sh SOURCE_DIR
set -euo pipefail
dir=$1/contrib/prometheus
command -v promtool >/dev/null || { echo "1..0 # SKIP no promtool (apt-get install prometheus)"; exit 0; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if promtool check rules "$dir/hotbridge-rules.yml" >"$out" 2>&1; then
	ok "promtool check rules: $(grep -o 'SUCCESS.*' "$out")"
else
	sed 's/^/# /' "$out"
	bad "promtool check rules failed (above)"
fi
# promtool resolves rule_files from the test file's directory
if (cd "$dir" && promtool test rules tests.yml) >"$out" 2>&1; then
	ok "promtool test rules tests.yml: $(grep -c 'alertname:' "$dir/tests.yml") alert checks, $(grep -c -- '- expr:' "$dir/tests.yml") recording rule checks"
else
	sed 's/^/# /' "$out" | head -80
	bad "promtool test rules failed (above)"
fi
echo "1..$n"
