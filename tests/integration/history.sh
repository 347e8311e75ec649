#!/bin/bash
# The decision history against a running daemon (emulated host: region0 at
# 0x390000000 on node 2, DRAM node 0, dry-run migrator, a replay socket).
# Five hot pages, a bucket two pages deep, no
# decay: the two hottest are promoted, the other three rate-limited
# (the bucket refills a page per 1000 s: none more during the test).
#  1. a page promoted shows in `history` (decision, reason, memdev:DPA,
#     the migrator's result: node 0) and in `explain` (held: hysteresis,
#     with that entry, heat 0 since the move and still the source that
#     reported it); a rate-limited page reads rate_limit in both;
#  2. `history --last N` answers the N newest; an address no decision
#     named answers an empty list;
#  3. bad arguments (CLI and raw requests) are errors naming what was wrong;
#  4. a reload with another history_size names it as needing a restart;
#  5. explain while paused says paused (what it would do once resumed
#     apart), and an address in no committed CXL region, by HPA or by
#     memdev:DPA, is answered "not_in_a_cxl_region" in translate's words;
#  7. policy.min_epochs = 2 (by a reload): a page reported in one cycle is
#     too_few_epochs, "seen in 1 of 2 epochs", in explain and history.
#   history.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the control socket serves root only)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

hb_emulated_conf "$tmp/hb.conf" <<CONF
[table]
decay = 1
history_size = 4096
[policy]
threshold = 10
rate_mbps = 0.000004096
burst_mb = 0.008192
hysteresis_ms = 600000
[source feed]
type = replay
socket = $tmp/feed.sock
CONF

"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/loop.err" &
pid=$!
wait_until 10 test -S "$tmp/ctl.sock"
wait_until 10 test -S "$tmp/feed.sock"
h() { "${hb[@]}" "$1" --socket "$tmp/ctl.sock" "${@:2}"; }
feed() { # feed LINES...: each a replay text record, then hang up
	python3 - "$tmp/feed.sock" "$@" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(("\n".join(sys.argv[2:]) + "\n").encode()); s.close()
PY
}
# check FILE PYTHON: PYTHON asserts on r, the reply's answer
check() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1])); r = r.get(r.get("command"), r)
exec(sys.argv[2])' "$1" "$2"
}

feed "hpa=0x390001000 len=0x1000 count=5000" "hpa=0x390002000 len=0x1000 count=4000" \
	"hpa=0x390003000 len=0x1000 count=3000" "hpa=0x390004000 len=0x1000 count=2000" \
	"hpa=0x390005000 len=0x1000 count=1000"
# (into a file: grep -q's early exit would fail the pipeline)
has_rate_limited() { h history --last 200 >"$tmp/wait.json" && grep -q '"rate_limit"' "$tmp/wait.json"; }
wait_until 10 has_rate_limited || { sed "s/^/# /" "$tmp/wait.json"; bad "no decision within 10 s"; }

# 1. the promoted page, by HPA and by memdev:DPA
h history 0x390001abc >"$tmp/p1.json"
sed 's/^/# /' "$tmp/p1.json"
check "$tmp/p1.json" '
e = r["entries"]
assert r["page"] == "0x390001000" and len(e) == 1, r
e = e[0]
assert e["decision"] == "promote" and e["reason"] == "promote", e
assert e["result"] == {"node": 0} and e["node"] == 2 and e["target"] == 0, e
assert e["hotness_source"] == "feed", e
assert e["memdev"] and e["dpa"] is not None and e["time"].endswith("Z"), e' &&
	ok "history HPA: the promoted page, decision promote, result node 0, from source feed, at $(grep -o '"memdev": "[^"]*"' "$tmp/p1.json")" ||
	bad "history of the promoted page"
md=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["history"]["entries"][0]; print(e["memdev"] + ":" + e["dpa"])' "$tmp/p1.json")
h history "$md" >"$tmp/p1md.json"
check "$tmp/p1md.json" 'assert r["page"] == "0x390001000" and len(r["entries"]) == 1, r' &&
	ok "history $md: the same page and entry" || { sed "s/^/# /" "$tmp/p1md.json"; bad "history by memdev:DPA"; }
h explain 0x390001000 >"$tmp/x1.json"
sed -n '1,30s/^/# /p' "$tmp/x1.json"
check "$tmp/x1.json" '
assert r["decision"] == "hysteresis", r
assert "handed to the migrator" in r["reason"] and "node 0" in r["reason"], r
# moved: its heat starts again from 0, and who reported it is still known
assert r["heat"] == 0 and r["hotness_source"] == "feed", r
h = r["history"]
assert len(h) == 1 and h[0]["decision"] == "promote" and h[0]["result"] == {"node": 0}, h' &&
	ok "explain of the promoted page: hysteresis ($(check "$tmp/x1.json" 'print(r["reason"])')), with its history entry" ||
	bad "explain of the promoted page"

# the rate-limited ones: explain evaluates the bucket (and charges nothing)
h explain 0x390005000 >"$tmp/x5.json"
check "$tmp/x5.json" '
assert r["decision"] == "rate_limit", r
assert r["hotness_source"] == "feed", r
assert r["rate_limit_tokens_bytes"] < 4096, r
assert r["history"] and all(e["reason"] == "rate_limit" and e["result"] is None for e in r["history"]), r' &&
	ok "explain of a rate-limited page: rate_limit ($(check "$tmp/x5.json" 'print(r["reason"])'))" ||
	{ sed "s/^/# /" "$tmp/x5.json"; bad "explain of a rate-limited page"; }
h history 0x390005000 >"$tmp/p5.json"
check "$tmp/p5.json" 'assert r["entries"] and r["entries"][0]["decision"] == "skip" and r["entries"][0]["reason"] == "rate_limit", r' &&
	ok "history of a rate-limited page: skip, rate_limit" || { sed "s/^/# /" "$tmp/p5.json"; bad "history of a rate-limited page"; }

# 2. --last N, the default, and an address nothing named
h history --last 3 >"$tmp/l3.json"
check "$tmp/l3.json" '
e = r["entries"]
assert len(e) == 3, r
ages = [float(x["age_s"]) for x in e]
assert ages == sorted(ages), ages' &&
	ok "history --last 3: three entries, newest first" || { sed "s/^/# /" "$tmp/l3.json"; bad "--last 3"; }
h history >"$tmp/all.json"
check "$tmp/all.json" 'assert len(r["entries"]) == min(20, r["held"]) and r["size"] == 4096, r' &&
	ok "history: the 20 newest by default, of a ring of history_size = 4096" || bad "history default"
h history 0x3a0000000 >"$tmp/none.json"
check "$tmp/none.json" 'assert r["entries"] == [] and r["page"] == "0x3a0000000", r' &&
	ok "history of an address no decision named: an empty list" || { sed "s/^/# /" "$tmp/none.json"; bad "unknown address"; }

# 3. bad arguments
expect_err() { # expect_err MESSAGE ARGS...: exit status 2 and MESSAGE on stderr
	local msg=$1 rc=0
	shift
	h "$@" >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
	[ "$rc" -eq 2 ] && grep -qF -- "$msg" "$tmp/bad.err" &&
		ok "$* -> exit 2: $(head -1 "$tmp/bad.err")" ||
		{ sed "s/^/# /" "$tmp/bad.out" "$tmp/bad.err"; bad "$*: exit $rc"; }
}
expect_err "--last '0': want a number of entries in 1..200" history --last 0
expect_err "--last '201': want a number of entries in 1..200" history --last 201
expect_err "--last 'ten' is not a number (decimal or 0x hex); want a number of entries in 1..200" history --last ten
expect_err "--last '010' is not a number: a leading zero" history --last 010
expect_err "--last given twice: it takes one value" history --last 3 --last 4
expect_err "'banana' is not an address" history banana
expect_err "'010' is not an address (HPA, e.g. 0x390001000, or MEMDEV:DPA): it is not a number: a leading zero" explain 010
expect_err "DPA '0x' is not a number: 0x without hex digits" explain mem0:0x
expect_err "'mem1:zz' is not MEMDEV:DPA" history mem1:zz
expect_err "usage: hotbridge history" history 0x1000 0x2000
expect_err "--last is for history only" explain --last 3 0x1000
rc=0
h history mem9:0x0 >"$tmp/bad.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -qx "hotbridge history: the daemon refused: memdev 'mem9' is not in the topology" "$tmp/bad.out" &&
	ok "history mem9:0x0 -> $(cat "$tmp/bad.out")" ||
	{ sed "s/^/# /" "$tmp/bad.out"; bad "unknown memdev: exit $rc"; }
python3 - "$tmp/ctl.sock" >"$tmp/raw.out" <<'PY' && ok "raw requests: $(cat "$tmp/raw.out")" || { sed "s/^/# /" "$tmp/raw.out"; bad "raw history requests"; }
import json, socket, sys
def ask(req):
    s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
    s.sendall((json.dumps(req) + "\n").encode())
    r = b""
    while not r.endswith(b"\n"):
        c = s.recv(65536)
        if not c: break
        r += c
    return json.loads(r)
for req, want in (({"command": "history", "last": 0}, '"last" must be a number of entries in 1..200'),
                  ({"command": "history", "last": "5"}, '"last" must be a number'),
                  ({"command": "history", "hpa": 4096}, '"hpa" must be a number in a string'),
                  ({"command": "history", "memdev": "mem1"}, 'history wants "hpa", or "memdev" and "dpa"')):
    r = ask(req)
    assert not r["ok"] and want in r["error"], (req, r)
r = ask({"command": "history", "last": 2})
assert r["ok"] and len(r["history"]["entries"]) == 2, r
print("bad last/hpa/memdev refused naming the field; last=2 answers 2")
PY

# 5. explain: paused, and addresses in no region
h pause >/dev/null
h explain 0x390005000 >"$tmp/px.json"
check "$tmp/px.json" 'assert r["paused"] is True and r["decision"] == "paused" and "paused" in r["reason"] and r["when_resumed"] == "rate_limit" and "rate limited" in r["when_resumed_reason"], r' &&
	ok "explain while paused: decision paused, $(check "$tmp/px.json" 'print(r["when_resumed"])') once resumed" ||
	{ sed "s/^/# /" "$tmp/px.json"; bad "explain while paused"; }
h resume >/dev/null
h explain 0x390005000 >"$tmp/rx.json"
check "$tmp/rx.json" 'assert r["paused"] is False and r["decision"] == "rate_limit" and "when_resumed" not in r, r' &&
	ok "explain once resumed: rate_limit, paused false" || { sed "s/^/# /" "$tmp/rx.json"; bad "explain after resume"; }
# a page no source reported: heat 0 is no access, not "below threshold 0"
# (newuser r5 E23); the decision keeps its name, below_threshold
h explain 0x390007000 >"$tmp/h0.json"
check "$tmp/h0.json" 'assert r["decision"] == "below_threshold" and r["reason"].startswith("no access (heat 0): never promoted"), r' &&
	ok "explain of a page never reported: $(check "$tmp/h0.json" 'print(r["reason"])')" ||
	{ sed "s/^/# /" "$tmp/h0.json"; bad "explain of a heat-0 page"; }
h explain 0x1000 >"$tmp/nr.json"
check "$tmp/nr.json" 'assert r["decision"] == "not_in_a_cxl_region" and r["reason"] == "HPA 0x1000 is not in any committed CXL region", r' &&
	ok "explain 0x1000: $(check "$tmp/nr.json" 'print(r["reason"])')" || { sed "s/^/# /" "$tmp/nr.json"; bad "explain of an HPA in no region"; }
rc=0
h explain mem0:0x40000000 >"$tmp/nd.json" 2>"$tmp/nd.err" || rc=$?
[ "$rc" -eq 0 ] && check "$tmp/nd.json" 'assert r["decision"] == "not_in_a_cxl_region" and r["hpa"] is None and r["reason"].startswith("mem0: DPA 0x40000000 is not in any committed CXL region"), r' &&
	ok "explain mem0:0x40000000: answered, $(check "$tmp/nd.json" 'print(r["reason"])')" ||
	{ sed "s/^/# /" "$tmp/nd.json" "$tmp/nd.err"; bad "explain of an unmapped DPA: exit $rc"; }

# 6. doubles without binary noise: at most 3 decimals (defect 29)
h status >"$tmp/st.json"
h explain 0x390001000 >"$tmp/x1b.json"
h history --last 5 >"$tmp/h5.json"
noisy=$(grep -ohE '"(uptime_s|last_cycle_ms|heat|threshold|age_s|rate_limit_tokens_bytes)": -?[0-9]+\.[0-9]{4,}' \
	"$tmp/st.json" "$tmp/x1b.json" "$tmp/h5.json" || true)
[ -z "$noisy" ] && grep -q '"uptime_s": [0-9]' "$tmp/st.json" && grep -q '"heat": [0-9]' "$tmp/x1b.json" ||
	bad "doubles with more than 3 decimals: $noisy"
ok "status, explain and history print doubles with at most 3 decimals"

# 7. policy.min_epochs = 2, applied by a reload: a page reported in one
#    cycle only is held, "seen in 1 of 2 epochs" in explain and history;
#    reported again in a later cycle it goes on to the next rule
sed -i 's/^hysteresis_ms = 600000$/&\nmin_epochs = 2/' "$tmp/hb.conf"
h reload >/dev/null || bad "reload with min_epochs = 2: exit $?"
feed "hpa=0x390006000 len=0x1000 count=5000"
few() { h history 0x390006000 >"$tmp/e6.json" && grep -q '"too_few_epochs"' "$tmp/e6.json"; }
wait_until 10 few || { sed "s/^/# /" "$tmp/e6.json"; bad "no too_few_epochs decision within 10 s"; }
check "$tmp/e6.json" 'e = r["entries"][0]
assert e["decision"] == "skip" and e["reason"] == "too_few_epochs" and e["why"] == "seen in 1 of 2 epochs", e' &&
	ok "history of a page reported in one cycle: skip, too_few_epochs, seen in 1 of 2 epochs" ||
	{ sed "s/^/# /" "$tmp/e6.json"; bad "history of a one-epoch page"; }
h explain 0x390006000 >"$tmp/x6.json"
check "$tmp/x6.json" 'assert r["decision"] == "too_few_epochs" and "seen in 1 of 2 epochs" in r["reason"], r' &&
	ok "explain of it: $(check "$tmp/x6.json" 'print(r["reason"])')" ||
	{ sed "s/^/# /" "$tmp/x6.json"; bad "explain of a one-epoch page"; }
sleep 0.5 # a later cycle (interval_ms 200)
feed "hpa=0x390006000 len=0x1000 count=5000"
two() { h explain 0x390006000 >"$tmp/x6b.json" && grep -q '"decision": "rate_limit"' "$tmp/x6b.json"; }
wait_until 10 two && ok "reported in a second cycle: past the rule (rate_limit)" ||
	{ sed "s/^/# /" "$tmp/x6b.json"; bad "a page seen in two cycles is still held"; }

# 4. history_size needs a restart: a reload says so and keeps the ring
sed -i 's/^history_size = 4096$/history_size = 32/' "$tmp/hb.conf"
rc=0
h reload >/dev/null 2>/dev/null || rc=$? # 4: a key left for a restart
[ "$rc" -eq 4 ] || bad "reload with another history_size: exit $rc"
h history --last 1 >"$tmp/after.json"
grep -q "needs a restart (running values kept):.*table.history_size" "$tmp/loop.err" &&
	check "$tmp/after.json" 'assert r["size"] == 4096, r' &&
	ok "reload with another history_size: named as needing a restart, the ring kept" ||
	{ sed 's/^/# /' "$tmp/loop.err" | tail -5; bad "history_size on reload"; }

kill -TERM "$pid"
wait "$pid" && ok "daemon exits 0" || bad "exit status $?"
pid=
hb_reports_ok
echo "1..$n"
