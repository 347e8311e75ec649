#!/bin/bash
# What the daemon reports, to a user and to the journal:
#  1. `status` shows NUMA nodes as JSON numbers (source_nodes [2] on the
#     emulated host), as explain and translate do;
#  2. a snapshot whose memdevs' NUMA nodes this host lacks loads, with one
#     warning naming the snapshot and the nodes (run and translate);
#  3. start-up errors carry a journald priority prefix ("<3>") when stderr
#     is the journal ($JOURNAL_STREAM = its dev:ino), and no line has one
#     otherwise, even with INVOCATION_ID set;
#  4. `hotbridge run` logs one summary line at exit (records, pages
#     promoted, failures, uptime), at info level ("<6>" in the journal);
#  5. the counters add up, the same in every output: a replay FIFO and a
#     replay socket (fd-driven) with good, unknown-memdev, unmapped and
#     garbage lines; `records` = translated + dropped, bad input apart
#     (not records), in the cycle lines (summed), the exit line, stats,
#     sources, `metrics` and the textfile (per-source series too).
#   reporting.sh HOTBRIDGE DATA HOTBRIDGE_TEST (hotbridge-test: translate --sysfs-root)
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
data=$2
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2])))" "$@"; }

hb_emulated_conf "$tmp/hb.conf" "dry_run = true" <<CONF
[policy]
threshold = 8
rate_mbps = 0
[source cxl0]
type = emul-chmu
memdev = mem0
capacity = 536870912
CONF
[ "$slow" -gt 1 ] && printf '[table]\nmax_entries = 65536\n' >>"$tmp/hb.conf"

# 1 and 4: a running daemon, its stderr taken as the journal
: >"$tmp/loop.err"
JOURNAL_STREAM=$(stat -c %d:%i "$tmp/loop.err") "${hb[@]}" run --config "$tmp/hb.conf" 2>>"$tmp/loop.err" &
pid=$!
# two cycle lines: a cycle that ran while a batch of moves was out has none (under valgrind
# the batch thread may not have run by the next cycle), so "cycle 2:" may never come
two_cycles() { [ "$(grep -c "cycle [0-9]*:" "$1")" -ge 2 ]; }
wait_until 10 two_cycles "$tmp/loop.err" || { cat "$tmp/loop.err"; bad "no cycles"; }
"${hb[@]}" status --socket "$tmp/ctl.sock" >"$tmp/status.json"
nodes=$(json "$tmp/status.json" 'd["status"]["source_nodes"] if "status" in d else d["source_nodes"]')
[ "$nodes" = "[2]" ] && ok "status: source_nodes is $nodes, node numbers" || { cat "$tmp/status.json"; bad "source_nodes: $nodes"; }
"${hb[@]}" explain --socket "$tmp/ctl.sock" mem0:0x0 >"$tmp/explain.json"
enode=$(json "$tmp/explain.json" '(d.get("explain", d))["node"]')
[ "$enode" = "2" ] && ok "explain: node is $enode, a number" || { cat "$tmp/explain.json"; bad "explain node: $enode"; }
grep -q '^<6>' "$tmp/loop.err" && ! grep -v '^<[0-7]>' "$tmp/loop.err" | grep -q . &&
	ok "every daemon line carries a priority prefix in the journal" || { head "$tmp/loop.err"; bad "prefixes"; }
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=
summary=$(grep -c '^<6>exiting after [0-9.]* s and [0-9]* cycles: [0-9]* records ([0-9]* dropped), [0-9]* bad input, [0-9]* pages promoted (dry run), [0-9]* failures ([0-9]* pages not moved, [0-9]* source errors, [0-9]* plugin host failures)$' "$tmp/loop.err" || true)
[ "$summary" = 1 ] && ok "one summary line at exit, at info: $(grep '^<6>exiting' "$tmp/loop.err")" ||
	{ tail -3 "$tmp/loop.err"; bad "exit summary lines: $summary"; }
records=$(sed -n 's/^<6>exiting.*cycles: \([0-9]*\) records.*/\1/p' "$tmp/loop.err")
[ "${records:-0}" -gt 0 ] && ok "the summary counts the run's $records records" || bad "summary records '$records'"

# 3. start-up errors: "<3>" in the journal, plain on a terminal or a file
printf '[policy]\nthreshold = oops\n' >"$tmp/bad.conf"
: >"$tmp/start.err"
JOURNAL_STREAM=$(stat -c %d:%i "$tmp/start.err") "${hb[@]}" run --config "$tmp/bad.conf" 2>>"$tmp/start.err" &&
	bad "a bad config ran" || true
grep -qx "<3>hotbridge run: $tmp/bad.conf:2: policy.threshold=oops: .*" "$tmp/start.err" &&
	ok "start-up error in the journal: $(head -c 100 "$tmp/start.err")" || { cat "$tmp/start.err"; bad "no <3> prefix"; }
INVOCATION_ID=x JOURNAL_STREAM=1:2 "${hb[@]}" run --config "$tmp/bad.conf" 2>"$tmp/start2.err" && bad "ran" || true
grep -qx "hotbridge run: $tmp/bad.conf:2: policy.threshold=oops: .*" "$tmp/start2.err" &&
	ok "no prefix when JOURNAL_STREAM names another file" || { cat "$tmp/start2.err"; bad "prefix without the journal"; }
# a unit with StandardError=file: has INVOCATION_ID but its stderr is no journal
INVOCATION_ID=x JOURNAL_STREAM=1:2 "${hb[@]}" run --once --config "$tmp/hb.conf" >/dev/null 2>"$tmp/file.err"
grep -q '^hotbridge: cycle 1:' "$tmp/file.err" && ! grep -q '^<[0-7]>' "$tmp/file.err" &&
	ok "INVOCATION_ID with stderr on a file: daemon lines without prefixes" || { head -3 "$tmp/file.err"; bad "prefixes on a file"; }

# 2. a snapshot from a host with nodes 2 and 9: a warning, not an error
snap=$data/snapshots/x2-vvv-nodes-2-9.json
missing=""
for node in 2 9; do [ -e "/sys/devices/system/node/node$node" ] || missing="$missing${missing:+, }$node"; done
cat >"$tmp/snap.conf" <<CONF
[daemon]
dry_run = true
[topology]
snapshot = $snap
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
chmod 0644 "$tmp/snap.conf"
want="snapshot $snap: its memdevs are on NUMA node"
if [ -z "$missing" ]; then
	skip "this host has nodes 2 and 9: nothing to warn about"
else
	"${hb[@]}" run --once --config "$tmp/snap.conf" >"$tmp/snap.out" 2>"$tmp/snap.err" &&
		ok "run with the snapshot: exit status 0" || { cat "$tmp/snap.err"; bad "run with the snapshot failed"; }
	[ "$(grep -c "^hotbridge run: $want.* $missing, which this host does not have.*ignoring$" "$tmp/snap.err")" = 1 ] &&
		ok "run: one warning naming node(s) $missing and the snapshot" || { cat "$tmp/snap.err"; bad "run warning"; }
	"${hb[@]}" translate --topology "$snap" --memdev mem1 --dpa 0x10 >"$tmp/tr.out" 2>"$tmp/tr.err" &&
		grep -q '"hpa": "0x390001010"' "$tmp/tr.out" && ok "translate with the snapshot still translates" ||
		{ cat "$tmp/tr.err" "$tmp/tr.out"; bad "translate failed"; }
	[ "$(grep -c "^hotbridge translate: $want.* $missing, which" "$tmp/tr.err")" = 1 ] &&
		ok "translate: one warning naming node(s) $missing" || { cat "$tmp/tr.err"; bad "translate warning"; }
fi
hbt=("${hb[@]:0:${#hb[@]}-1}" "$3")
"${hbt[@]}" translate --topology "$snap" --sysfs-root "$data/sysfs/cxl-x2-online" --memdev mem1 --dpa 0x10 \
	>/dev/null 2>"$tmp/tr2.err" || true
grep -q "NUMA node 9, which this host does not have" "$tmp/tr2.err" && ! grep -q "node 2\b\|nodes 2" "$tmp/tr2.err" &&
	ok "against a sysfs tree with node2: only node 9 named" || { cat "$tmp/tr2.err"; bad "sysfs-root warning"; }
"${hb[@]}" translate --topology "$data/snapshots/x2-vvv-notes.json" --memdev mem1 --dpa 0x10 >/dev/null 2>"$tmp/tr3.err"
[ ! -s "$tmp/tr3.err" ] && ok "a snapshot without numa_node: no warning" || { cat "$tmp/tr3.err"; bad "spurious warning"; }
# 5. counters that add up: one FIFO, one socket, good and bad lines
mkfifo "$tmp/feed.fifo"
hb_emulated_conf "$tmp/add.conf" "dry_run = true" "metrics_textfile = $tmp/hb.prom" <<CONF
[source fifo]
type = replay
path = $tmp/feed.fifo
[source so"ck]
type = replay
socket = $tmp/add.sock
CONF
"${hb[@]}" run --config "$tmp/add.conf" 2>"$tmp/add.err" &
pid=$!
wait_until 10 test -S "$tmp/add.sock" || { cat "$tmp/add.err"; bad "no feed socket"; }
wait_until 10 grep -q "cycle 1:" "$tmp/add.err"
# the report's feed: 200 DPA and 50 HPA records that translate, one on an
# unknown memdev, one garbage line, one HPA in no region
python3 -c 'print("\n".join([f"mem0 dpa=0x{i*4096:x} len=4096 count=20" for i in range(200)] +
	[f"hpa=0x{0x3a0000000+i*4096:x} len=4096 count=30" for i in range(50)] +
	["mem9 dpa=0x0 len=4096 count=3", "garbage line", "hpa=0x1000 len=4096 count=3"]))' >"$tmp/feed.fifo"
# 10 records and one stray control request on the socket
python3 - "$tmp/add.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"".join(b"mem1 dpa=0x%x len=4096 count=9\n" % (i << 12) for i in range(10)) +
          b'{"command": "status"}\n')
s.close()
PY
stat_of() { "${hb[@]}" stats --socket "$tmp/ctl.sock" | python3 -c 'import json,sys; s=json.load(sys.stdin)["stats"]; print(eval(sys.argv[1]))' "$1"; }
is() { [ "$(stat_of "$1")" = "$2" ]; }
want='(262, 260, 2, 2, 0)'
cols='(s["records"], s["translated"], s["records_dropped"], s["bad_input"], s["backlog"])'
wait_until 10 is "$cols" "$want" || { cat "$tmp/add.err"; bad "stats $cols: $(stat_of "$cols"), want $want"; }
# the cycle lines that counted them (an idle cycle has no line: wait for the records, not lines)
line_records() { sed -n 's/.*cycle [0-9]*: \([0-9]*\) records.*/\1/p' "$tmp/add.err" | awk '{ s += $1 } END { print s + 0 }'; }
lines_count_all() { [ "$(line_records)" = 262 ]; }
wait_until 10 lines_count_all || bad "the cycle lines count $(line_records) records, not 262"
"${hb[@]}" stats --socket "$tmp/ctl.sock" >"$tmp/add-stats.json"
"${hb[@]}" sources --socket "$tmp/ctl.sock" >"$tmp/add-sources.json"
"${hb[@]}" metrics --socket "$tmp/ctl.sock" >"$tmp/add-metrics.txt"
wait_until 5 test -s "$tmp/hb.prom"
cp "$tmp/hb.prom" "$tmp/add-textfile.txt"
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=
python3 - "$tmp" <<'PY' && ok "records 262 = translated 260 + dropped 2, bad input 2 apart: the same in cycle lines, exit line, stats, sources, metrics and textfile" || bad "the counters do not add up (above)"
import json, re, sys
t = sys.argv[1]
fail = []
def check(what, got, want):
    if got != want:
        fail.append(f"{what}: {got}, want {want}")
want = {"records": 262, "translated": 260, "dropped": 2, "bad": 2}
s = json.load(open(f"{t}/add-stats.json"))["stats"]
check("stats", (s["records"], s["translated"], s["records_dropped"], s["bad_input"]),
      (262, 260, 2, 2))
check("stats records = translated + records_dropped", s["records"], s["translated"] + s["records_dropped"])
check("stats dropped by reason", {k: v for k, v in s["dropped"].items() if v},
      {"unknown_memdev": 1, "unmapped": 1})
# the histogram holds every record; its p99 is the one stats gives
lt = s["latency_us"]["record_to_table"]
check("record_to_table buckets summed", sum(n for _, n in lt["buckets"]), lt["records"])
check("record_to_table buckets ascending", [b for b, _ in lt["buckets"]], sorted({b for b, _ in lt["buckets"]}))
seen, p99 = 0, None
for top, n in lt["buckets"]:
    seen += n
    if p99 is None and seen >= int(0.99 * lt["records"] + 0.5):
        p99 = min(top // 1000, lt["max"])
check("record_to_table p99 from its buckets", p99, lt["p99"])
src = {x["name"]: x for x in json.load(open(f"{t}/add-sources.json"))["sources"]}
check("sources", {k: (v["records"], v["bad_input"]) for k, v in src.items()},
      {"fifo": (252, 1), 'so"ck': (10, 1)})
log = open(f"{t}/add.err").read()
cyc = re.findall(r"cycle \d+: (\d+) records \((\d+) dropped\), (\d+) bad input,", log)
check("cycle lines summed", tuple(sum(int(c[i]) for c in cyc) for i in range(3)), (262, 2, 2))
ex = re.findall(r"exiting after .* cycles: (\d+) records \((\d+) dropped\), (\d+) bad input,", log)
check("exit line", ex, [("262", "2", "2")])
for name in ("add-metrics.txt", "add-textfile.txt"):
    m = open(f"{t}/{name}").read()
    if name == "add-metrics.txt":
        m = json.loads(m)["metrics"] if m.lstrip().startswith("{") else m
    def val(series):
        v = re.findall("^" + re.escape(series) + r" (\S+)$", m, re.M)
        return float(v[0]) if len(v) == 1 else v
    check(name + " records", val("hotbridge_records_total"), 262)
    check(name + " translated", val("hotbridge_records_translated_total"), 260)
    check(name + " bad input", val("hotbridge_bad_input_total"), 2)
    check(name + " bad_record", val('hotbridge_records_dropped_total{reason="bad_record"}'), 0)
    check(name + " fifo records", val('hotbridge_source_records_total{source="fifo",type="replay"}'), 252)
    check(name + " sock records", val('hotbridge_source_records_total{source="so\\"ck",type="replay"}'), 10)
    check(name + " fifo bad", val('hotbridge_source_bad_input_total{source="fifo",type="replay"}'), 1)
    check(name + " sock bad", val('hotbridge_source_bad_input_total{source="so\\"ck",type="replay"}'), 1)
    check(name + " disabled", val('hotbridge_source_disabled{source="fifo",type="replay"}'), 0)
    check(name + " errors", val('hotbridge_source_consecutive_errors{source="fifo",type="replay"}'), 0)
    check(name + " table latency count", val("hotbridge_record_to_table_seconds_count"), 262)
    check(name + " up", val("hotbridge_up"), 1)
    for series in ("hotbridge_source_records_total", "hotbridge_bad_input_total", "hotbridge_up",
                   "hotbridge_build_info", "hotbridge_record_to_table_seconds"):
        if f"# TYPE {series} " not in m or f"# HELP {series} " not in m:
            fail.append(f"{name}: no HELP/TYPE for {series}")
    if not re.search(r'^hotbridge_build_info\{version="[^"]+"\} 1$', m, re.M):
        fail.append(f"{name}: no build_info")
    if not re.search(r'^hotbridge_record_to_table_seconds\{quantile="0.99"\} [0-9.]+$', m, re.M):
        fail.append(f"{name}: no record_to_table p99")
if fail:
    print("\n".join("# " + f for f in fail))
sys.exit(1 if fail else 0)
PY
grep -q '^hotbridge_up 0$' "$tmp/hb.prom" && ok "the textfile's last write at exit: hotbridge_up 0" || bad "textfile after exit: $(grep up "$tmp/hb.prom")"
hb_reports_ok
echo "1..$n"
