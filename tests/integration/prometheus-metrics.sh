#!/bin/bash
# contrib/prometheus/ and contrib/grafana/ name only what the daemon exports: every hotbridge_*
# metric, and every value of a label matcher (reason="watermark",
# status=~"drop|wrong_node", ...), in the rules and in their promtool test
# series is in the `hotbridge metrics` output of a running daemon (the
# emulated host, a dry run). A metric or label value renamed in
# daemon/control/report.c fails here, where the rules would silently never fire.
# job and instance are Prometheus's own labels (the scrape adds them).
# And the conventions: summaries with quantiles, _sum and _count, the run's
# migrator and dry run, promotion's state, the start time (promtool check
# metrics too, when there is promtool).
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

# the conventions (newuser r4 D32, D33): every summary has its quantiles,
# _sum and _count; the metrics say the migrator and a dry run, the target's
# free memory and the watermark, promotion's state and limit (one of each
# 1), and the start time
if python3 - "$tmp/metrics.txt" >"$tmp/conv.out" 2>&1 <<'PY'
import re, sys, time
text = open(sys.argv[1]).read()
bad = []
for name in re.findall(r'^# TYPE (\S+) summary$', text, re.M):
    for q in ("0.5", "0.9", "0.99"):
        if not re.search(r'^%s\{quantile="%s"\} [0-9.e+-]+$' % (name, q), text, re.M):
            bad.append("%s: no quantile %s" % (name, q))
    for part in ("_sum", "_count"):
        if not re.search(r'^%s%s [0-9.e+-]+$' % (name, part), text, re.M):
            bad.append("%s: no %s" % (name, part))
if len(re.findall(r'^# TYPE \S+ summary$', text, re.M)) < 5:
    bad.append("fewer than 5 summaries")
if not re.search(r'^hotbridge_info\{migrator="dryrun",dry_run="1",version="[^"]+"\} 1$', text, re.M):
    bad.append("no hotbridge_info{migrator=\"dryrun\",dry_run=\"1\",version=...} 1")
if not re.search(r'^hotbridge_target_free_bytes\{node="0"\} [1-9][0-9]*$', text, re.M):
    bad.append("no hotbridge_target_free_bytes for node 0")
if not re.search(r'^hotbridge_watermark_bytes 1073741824$', text, re.M):
    bad.append("no hotbridge_watermark_bytes (1024 MiB)")
for name, label in (("promotion_state", "state"), ("promotion_limit", "limit")):
    v = re.findall(r'^hotbridge_%s\{%s="(\w+)"\} ([01])$' % (name, label), text, re.M)
    if len(v) < 5 or [x for x, one in v if one == "1"] == [] or sum(int(one) for _, one in v) != 1:
        bad.append("hotbridge_%s: not one %s of several at 1: %s" % (name, label, v))
m = re.search(r'^process_start_time_seconds ([0-9.]+)$', text, re.M)
if not m or not time.time() - 600 < float(m.group(1)) <= time.time():
    bad.append("process_start_time_seconds missing or not within the last 10 min")
for b in bad:
    print(b)
print(re.search(r'^hotbridge_info.*$', text, re.M).group(0) if not bad else "")
sys.exit(1 if bad else 0)
PY
then
	ok "summaries have quantiles, _sum and _count; $(cat "$tmp/conv.out"), free memory, watermark, promotion state and limit, start time"
else
	sed 's/^/# /' "$tmp/conv.out"
	bad "the metrics break a convention (above)"
fi
if command -v promtool >/dev/null; then
	promtool check metrics <"$tmp/metrics.txt" >"$tmp/promtool.out" 2>&1 &&
		ok "promtool check metrics: no problem" ||
		{ sed 's/^/# /' "$tmp/promtool.out"; bad "promtool check metrics (above)"; }
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
# contrib/grafana/hotbridge.json: every panel's query names only metrics,
# label values and labels (by, legends) the daemon exports, and the JSON has
# what Grafana's dashboard schema requires; a stat panel of state series
# (`== 1`) shows their names, not their value 1
if python3 - "$tmp/metrics.txt" "$src/contrib/grafana/hotbridge.json" >"$tmp/grafana.out" 2>&1 <<'PY'
import json, re, sys
scrape, path = sys.argv[1], sys.argv[2]
series = {}   # metric name -> {label: {values}}
for line in open(scrape):
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ', line)
    labels = series.setdefault(m.group(1), {})
    for k, v in re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""):
        labels.setdefault(k, set()).add(v)
scrape_labels = {"job", "instance"}   # the scrape's, not the daemon's
d = json.load(open(path))
bad = []
for key, typ in (("schemaVersion", int), ("uid", str), ("title", str), ("panels", list)):
    if not isinstance(d.get(key), typ):
        bad.append("no %s (%s)" % (key, typ.__name__))
ds_vars = [v["name"] for v in d.get("templating", {}).get("list", [])
           if v.get("type") == "datasource" and v.get("query") == "prometheus"]
if not ds_vars:
    bad.append("no templated Prometheus datasource variable (templating.list type datasource, query prometheus)")
ds_uids = {"${%s}" % n for n in ds_vars} | {"$%s" % n for n in ds_vars}
def check_ds(where, ds):
    if not isinstance(ds, dict) or ds.get("type") != "prometheus" or ds.get("uid") not in ds_uids:
        bad.append("%s: datasource %s is not the templated Prometheus variable" % (where, ds))
ids, names = set(), set()
for p in d.get("panels", []):
    where = "panel %s (%s)" % (p.get("id"), p.get("title"))
    if not isinstance(p.get("id"), int) or p["id"] in ids:
        bad.append("%s: no id, or one used twice" % where)
    ids.add(p.get("id"))
    g = p.get("gridPos", {})
    if not isinstance(p.get("type"), str) or not all(isinstance(g.get(k), int) for k in "hwxy"):
        bad.append("%s: no type or gridPos h/w/x/y" % where)
    if p.get("type") == "row":
        continue
    check_ds(where, p.get("datasource"))
    if not p.get("targets"):
        bad.append("%s: no targets" % where)
    # a stat of series kept only where they are 1 (a state's name in a label):
    # its value says nothing, its name everything. Grafana's textMode "auto"
    # shows a single series' value alone: the name must be asked for
    if (p.get("type") == "stat" and p.get("targets") and
            all(re.search(r"==\s*1\s*$", tg.get("expr", "")) for tg in p["targets"]) and
            p.get("options", {}).get("textMode") != "name"):
        bad.append('%s: a stat of "== 1" series shows "1", not the label: textMode %s, want name' %
                   (where, p.get("options", {}).get("textMode")))
    for tg in p.get("targets", []):
        expr = tg.get("expr")
        if not isinstance(expr, str) or not tg.get("refId"):
            bad.append("%s: a target without expr or refId" % where)
            continue
        check_ds(where, tg.get("datasource"))
        used = re.findall(r'\b(hotbridge_[a-z0-9_]+)', expr)
        if not used:
            bad.append("%s: %s names no hotbridge metric" % (where, expr))
        have = set(scrape_labels)
        for m in re.finditer(r'\b(hotbridge_[a-z0-9_]+)(\{[^}]*\})?', expr):
            name, sel = m.group(1), m.group(2) or ""
            names.add(name)
            if name not in series:
                bad.append("%s: %s: no such metric" % (where, name))
                continue
            have |= set(series[name])
            for k, op, v in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', sel):
                if k in scrape_labels:
                    continue
                if k not in series[name]:
                    bad.append("%s: %s has no label %s" % (where, name, k))
                    continue
                for alt in (v.split("|") if "~" in op else [v]):
                    if alt not in series[name][k]:
                        bad.append('%s: %s{%s%s"%s"}: no series with %s="%s"' % (where, name, k, op, v, k, alt))
        for grp in re.findall(r'\b(?:by|without)\s*\(([^)]*)\)', expr):
            for k in re.findall(r'\w+', grp):
                if k not in have:
                    bad.append("%s: by (%s): no metric of %s has label %s" % (where, grp, expr, k))
        for k in re.findall(r'\{\{\s*(\w+)\s*\}\}', tg.get("legendFormat", "")):
            if k not in have:
                bad.append("%s: legend {{%s}}: not a label of %s" % (where, k, expr))
# what the dashboard is for: moves, what holds them, records and drops,
# latency quantiles, quarantine, device events
for need in ("hotbridge_pages_promoted_total", "hotbridge_pages_demoted_total",
             "hotbridge_decisions_total", "hotbridge_promotion_limit", "hotbridge_watermark_bytes",
             "hotbridge_source_records_total", "hotbridge_records_dropped_total",
             "hotbridge_record_to_decision_seconds", "hotbridge_quarantined_pages",
             "hotbridge_device_events_total"):
    if need not in names:
        bad.append("no panel shows %s" % need)
for b in sorted(set(bad)):
    print(b)
print("%d panels, %d metrics" % (len(d.get("panels", [])), len(names)))
sys.exit(1 if bad else 0)
PY
then
	ok "grafana/hotbridge.json: schema fields, a templated datasource, only exported metrics, labels and values: $(tail -1 "$tmp/grafana.out")"
else
	sed 's/^/# /' "$tmp/grafana.out"
	bad "grafana/hotbridge.json (above)"
fi
hb_reports_ok
echo "1..$n"
