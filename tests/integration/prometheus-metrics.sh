#!/bin/bash
# contrib/prometheus/ names only what the daemon exports: every hotbridge_*
# metric, and every value of a label matcher (reason="watermark",
# status=~"drop|wrong_node", ...), in the rules and in their promtool test
# series is in the `hotbridge metrics` output of a running daemon (the
# emulated host, a dry run). A metric or label value renamed in
# daemon/report.c fails here, where the rules would silently never fire.
# job and instance are Prometheus's own labels (the scrape adds them).
#   prometheus-metrics.sh HOTBRIDGE SOURCE_DIR
set -euo pipefail
src=$2
command -v python3 >/dev/null || { echo "1..0 # SKIP no python3"; exit 0; }
. "$(dirname "$0")/lib.sh" "$1"
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# tiny: a CHMU whose 4-entry hotlist overflows every epoch (the
# source_overflows_total the CHMU overflow alert reads); e0's never does
hb_emulated_conf "$tmp/hb.conf" <<CONF
[source e0]
type = emul-chmu
memdev = mem0
[source tiny]
type = emul-chmu
memdev = mem0
hotlist = 4
threshold = 2
CONF
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/run.err" &
pid=$!
if wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null; then
	ok "the emulated daemon answers on its control socket"
else
	sed 's/^/# /' "$tmp/run.err" | tail -20
	bad "the daemon did not come up (above)"
fi
# after a few cycles, so every counter has been through one
wait_until 10 sh -c '"$@" stats --socket "$0" | grep -Eq "\"cycles\": *([3-9]|[1-9][0-9]+),"' "$tmp/ctl.sock" "${hb[@]}" ||
	bad "the daemon runs no cycles"
"${hb[@]}" metrics --socket "$tmp/ctl.sock" >"$tmp/metrics.txt" && ok "scraped $(grep -vc '^#' "$tmp/metrics.txt") samples" ||
	bad "hotbridge metrics failed"
"${hb[@]}" sources --socket "$tmp/ctl.sock" >"$tmp/sources.json" || bad "hotbridge sources failed"
kill -TERM "$pid"
wait "$pid" && ok "the daemon stopped (exit 0)" || bad "the daemon exited $?"
pid=

# the CHMU's overflow, per source, in the metrics and in `hotbridge sources`
if python3 - "$tmp/metrics.txt" "$tmp/sources.json" >"$tmp/overflow.out" 2>&1 <<'PY'
import json, re, sys
scrape, sources = sys.argv[1], sys.argv[2]
got = {}
for line in open(scrape):
    m = re.match(r'hotbridge_source_overflows_total\{source="([^"]*)",type="emul-chmu"\} (\d+)$', line)
    if m:
        got[m.group(1)] = int(m.group(2))
js = {s["name"]: s["overflows"] for s in json.load(open(sources))["sources"]}
print("metrics %s, sources %s" % (sorted(got.items()), sorted(js.items())))
ok = got.get("tiny", 0) > 0 and got.get("e0") == 0 and js.get("tiny", 0) > 0 and js.get("e0") == 0
sys.exit(0 if ok else 1)
PY
then
	ok "the CHMU hotlist overflow is counted per source: $(cat "$tmp/overflow.out")"
else
	sed 's/^/# /' "$tmp/overflow.out"
	bad "no per-source CHMU overflow count (tiny > 0, e0 0) in metrics and sources (above)"
fi

for f in hotbridge-rules.yml tests.yml; do
	if python3 - "$tmp/metrics.txt" "$src/contrib/prometheus/$f" >"$tmp/check.out" 2>&1 <<'PY'
import re, sys
scrape, rules = sys.argv[1], sys.argv[2]
series = {}   # metric name -> {label: {values}}
for line in open(scrape):
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ', line)
    labels = series.setdefault(m.group(1), {})
    for k, v in re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""):
        labels.setdefault(k, set()).add(v)
text = open(rules).read()
bad, names = [], set()
for m in re.finditer(r'\b(hotbridge_[a-z0-9_]+)(\{[^}]*\})?', text):
    name, sel = m.group(1), m.group(2) or ""
    names.add(name)
    if name not in series:
        bad.append("%s: no such metric" % name)
        continue
    for k, op, v in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', sel):
        if k in ("job", "instance"):
            continue
        if k not in series[name]:
            bad.append('%s{%s...}: the metric has no label %s' % (name, k, k))
            continue
        for alt in (v.split("|") if "~" in op else [v]):
            if alt not in series[name][k]:
                bad.append('%s{%s%s"%s"}: no series with %s="%s" (it has %s)'
                           % (name, k, op, v, k, alt, ", ".join(sorted(series[name][k]))))
if len(names) < 5:
    bad.append("only %d hotbridge_* metric names found: is this the rules file?" % len(names))
for b in sorted(set(bad)):
    print(b)
print("%d metrics: %s" % (len(names), " ".join(sorted(names))))
sys.exit(1 if bad else 0)
PY
	then
		ok "$f names only exported metrics and label values: $(tail -1 "$tmp/check.out")"
	else
		sed 's/^/# /' "$tmp/check.out"
		bad "$f names what the daemon does not export (above)"
	fi
done
hb_reports_ok
echo "1..$n"
