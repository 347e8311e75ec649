#!/bin/bash
# hotbridge translate on the x2 snapshot (tests/data/snapshots) with the
# batch inputs of tests/data/batch:
#  - one answer per input line, in order, always: a NUL byte, an over-long
#    line, an empty line each get an error object naming what was wrong,
#    and the next query is still answered (issue 12, defect 7);
#  - every error answer's message starts "line N: " (defect 35);
#  - every answer echoes its whole line as "query"; bytes that are not
#    UTF-8 come back as \xNN, so every answer is valid JSON;
#  - numbers are decimal or 0x hex: "010" is refused, not read as octal;
#  - "pfn" and "online" are always present (null when unknown);
#  - an empty `cxl list` ("[ ]") is an empty model with a warning, in
#    topology and translate alike, as a live host without CXL (defect 19);
#  - --compact prints a single answer on one line, as --batch does;
#  - zero is "0x0" like every other address, never a bare "0" (defect 30);
#  - a read error (a directory as stdin) exits 1 with a message;
#  - a refused case (AMD Zen5 normalized addressing, an extended linear
#    cache's DRAM half) exits 3 naming it; topology prints the model with
#    "refused" and exits 3 too (issue 17).
#   translate.sh HOTBRIDGE_TEST DATA (hotbridge-test: --sysfs-root is a test hook)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
data=$2
trap 'rm -rf "$tmp"' EXIT
topo=(--topology "$data/snapshots/x2-vvv-notes.json")
sysfs=(--sysfs-root "$data/sysfs/cxl-x2-online")
echo "1..24"

# check_answers INPUT OUTPUT: as many answers as lines, each valid UTF-8
# JSON echoing its line; prints the answers as "N<TAB>json" for greps
check_answers() {
	python3 - "$1" "$2" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
lines = raw.split(b"\n")
if lines and lines[-1] == b"":
    lines.pop()
out = open(sys.argv[2], "rb").read().split(b"\n")
if out and out[-1] == b"":
    out.pop()
def echo(b):  # the escaping promised: invalid UTF-8 and NUL as \xNN
    s, i = "", 0
    while i < len(b):
        for k in (4, 3, 2, 1):
            try:
                c = b[i:i + k].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(c) == 1 and c != "\0":
                s += c
                i += k
                break
        else:
            s += "\\x%02x" % b[i]
            i += 1
    return s
if len(out) != len(lines):
    sys.exit("%d answers for %d lines" % (len(out), len(lines)))
for n, (line, ans) in enumerate(zip(lines, out), 1):
    try:
        o = json.loads(ans.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError) as e:
        sys.exit("answer %d is not valid UTF-8 JSON (%s): %r" % (n, e, ans))
    want = echo(line[:256])
    if o.get("query") != want:
        sys.exit("answer %d echoes %r, not its line %r" % (n, o.get("query"), want))
    if "error" in o and not o["error"].startswith("line %d: " % n):
        sys.exit("answer %d: error without its \"line %d: \" prefix: %r" % (n, n, o["error"]))
    print("%d\t%s" % (n, json.dumps(o)))
PY
}

run_batch() { # run_batch FILE [ARGS...]: answers in $tmp/out, status in $rc
	local f=$1
	shift
	rc=0
	"${hb[@]}" translate "${topo[@]}" "$@" --batch <"$f" >"$tmp/out" 2>"$tmp/err" || rc=$?
	check_answers "$f" "$tmp/out" >"$tmp/ans" || bad "answers to $(basename "$f")"
}
answer() { sed -n "s/^$1\t//p" "$tmp/ans"; }

# defect 7: the NUL line is refused by itself, the next query survives
run_batch "$data/batch/nul.txt"
ok "nul.txt: one answer per line, each echoing it"
answer 2 | grep -q '"error": "line 2: NUL byte at column 10"' || bad "NUL line named: $(answer 2)"
answer 3 | grep -q '"hpa": "0x390001010"' || bad "query after the NUL line translated: $(answer 3)"
[ "$rc" -eq 1 ] || bad "exit 1 when a line failed, got $rc"
ok "NUL line gets its own error, the query after it translates, exit 1"

run_batch "$data/batch/long-lines.txt"
ok "long-lines.txt: one answer per line, each echoing (the first 256 bytes of) it"
answer 2 | grep -q '"hpa": "0x39000b123"' || bad "a 256-byte line translates: $(answer 2)"
answer 3 | grep -q '"error": "line 3: 257 bytes, longer than the 256' || bad "257 bytes: $(answer 3)"
answer 4 | grep -q '"error": "line 4: 5005 bytes, longer than the 256' || bad "5005 bytes: $(answer 4)"
answer 5 | grep -q '"memdev": "mem1"' || bad "query after the long lines: $(answer 5)"
ok "256 bytes accepted; 257 and 5005 refused with their length; the next query translates"

run_batch "$data/batch/invalid-utf8.txt"
ok "invalid-utf8.txt: every answer valid UTF-8 JSON echoing its line with \\xNN"
answer 1 | grep -qF '"error": "line 1: memdev '"'"'mem\\xff'"'"' is not in the topology"' ||
	bad "memdev name escaped in the message: $(answer 1)"
answer 4 | grep -q '"hpa": "0x39000b123"' || bad "valid line among them: $(answer 4)"
ok "invalid bytes escaped in messages too"

run_batch "$data/batch/mixed.txt"
ok "mixed.txt: one answer per line (empty, blank, comment, CRLF, no final newline)"
answer 2 | grep -q '"error": "line 2: empty' || bad "empty line: $(answer 2)"
answer 3 | grep -q '"error": "line 3: empty' || bad "blank line: $(answer 3)"
answer 4 | grep -q '"comment": true' || bad "comment: $(answer 4)"
answer 7 | grep -q '"error": "line 7: 3 words' || bad "3 words: $(answer 7)"
answer 8 | grep -q '"error": "line 8: 1 word,' || bad "1 word: $(answer 8)"
answer 9 | grep -q '"hpa": "0x39000b123"' || bad "CRLF line: $(answer 9)"
answer 10 | grep -q '"hpa": "0x390001010"' || bad "last line without newline: $(answer 10)"
ok "empty/blank lines and word counts named; comment answered; CRLF and unterminated last line translate"

answer 5 | grep -q '"error": "line 5: address '"'"'010'"'"' is not a number: a leading zero' ||
	bad "010 refused: $(answer 5)"
answer 6 | grep -q '"dpa": "0xa"' || bad "10 is decimal: $(answer 6)"
rc=0
"${hb[@]}" translate "${topo[@]}" --memdev mem1 --dpa 010 >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "^hotbridge translate: --dpa '010' is not a number: a leading zero" "$tmp/err" ||
	bad "--dpa 010 is a usage error (2) naming the leading zero: $rc $(cat "$tmp/err")"
rc=0
"${hb[@]}" translate "${topo[@]}" --memdev mem1 --dpa 0x >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "^hotbridge translate: --dpa '0x' is not a number: 0x without hex digits" "$tmp/err" ||
	bad "--dpa 0x is a usage error (2): $rc $(cat "$tmp/err")"
"${hb[@]}" translate "${topo[@]}" --memdev mem1 --dpa 0x10 >"$tmp/out" || bad "--dpa 0x10"
grep -q '"dpa": "0x10"' "$tmp/out" || bad "--dpa 0x10 is hex"
ok "010 and 0x are refused (batch, and --dpa with exit 2), 10 is decimal, 0x10 hex"

run_batch "$data/batch/good.txt"
[ "$rc" -eq 0 ] || bad "exit 0 when every query translates (comment included), got $rc"
for i in 2 3 4; do
	answer "$i" | grep -q '"node": null, "pfn": null, "online": null' ||
		bad "node/pfn/online null without node information: $(answer "$i")"
done
ok "good.txt exits 0; without node information node, pfn and online are null"

run_batch "$data/batch/good.txt" "${sysfs[@]}"
answer 2 | grep -q '"node": 2, "pfn": "0x39000b", "online": false' ||
	bad "node/pfn/online from sysfs: $(answer 2)"
"${hb[@]}" translate "${topo[@]}" --memdev mem1 --dpa 0x5123 >"$tmp/out"
python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); assert o["pfn"] is None and o["online"] is None and o["query"] == "mem1 0x5123", o' "$tmp/out" ||
	bad "single query: pfn/online null, query echoed"
ok "pfn and online from sysfs when known; always present in a single query too"

"${hb[@]}" translate "${topo[@]}" --memdev mem0 --dpa 0 >"$tmp/out"
grep -q '"dpa": "0x0"' "$tmp/out" || bad "DPA 0 printed as 0x0: $(cat "$tmp/out")"
"${hb[@]}" topology "${topo[@]}" >"$tmp/out"
grep -q '"dpa_resource": "0x0"' "$tmp/out" && ! grep -q '": "0"' "$tmp/out" ||
	bad "topology prints a zero address without 0x: $(grep '": "0"' "$tmp/out" | head -3)"
ok "zero addresses are 0x0 in translate and topology, never a bare 0"

"${hb[@]}" translate "${topo[@]}" --memdev mem1 --dpa 0x5123 --compact >"$tmp/one"
printf 'mem1 0x5123\n' | "${hb[@]}" translate "${topo[@]}" --batch >"$tmp/batch-one"
[ "$(wc -l <"$tmp/one")" -eq 1 ] && cmp -s "$tmp/one" "$tmp/batch-one" ||
	bad "--compact: $(cat "$tmp/one") vs --batch: $(cat "$tmp/batch-one")"
ok "--compact: one line, the same as --batch's answer"

printf '[\n]\n' >"$tmp/empty.json"
rc=0
"${hb[@]}" topology --topology "$tmp/empty.json" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] && grep -qx "hotbridge topology: warning: no CXL memdev, decoder or region" "$tmp/err" &&
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert all(not v for o in m for v in o.values()), m' "$tmp/out" ||
	bad "empty snapshot in topology: exit $rc, $(cat "$tmp/err")"
rc=0
"${hb[@]}" translate --topology "$tmp/empty.json" --hpa 0x1000 >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] && grep -qx "hotbridge translate: warning: no CXL memdev, decoder or region" "$tmp/err" &&
	grep -q "HPA 0x1000 is not in any committed CXL region" "$tmp/err" ||
	bad "empty snapshot in translate: exit $rc, $(cat "$tmp/err")"
"${hb[@]}" topology "${topo[@]}" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] || bad "a warning for a model that is not empty: $(cat "$tmp/err")"
: >"$tmp/none.replay"
printf '[daemon]\ndry_run = true\ncontrol_socket =\n[topology]\nsnapshot = %s\n[source f]\ntype = replay\npath = %s\n' \
	"$tmp/empty.json" "$tmp/none.replay" >"$tmp/empty.conf"
rc=0
"${hb[@]}" run --once --config "$tmp/empty.conf" >/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] && grep -q "no CXL memdev, decoder or region in the topology" "$tmp/err" ||
	bad "run on an empty snapshot: exit $rc, $(cat "$tmp/err")"
ok "an empty cxl list snapshot: an empty model and a warning (topology, translate, run), none otherwise"

rc=0
"${hb[@]}" translate "${topo[@]}" --batch </ >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 1 ] || bad "a directory as stdin exits 1, got $rc"
grep -q "hotbridge translate: reading the queries after line 0: Is a directory" "$tmp/err" ||
	bad "read error named: $(cat "$tmp/err")"
ok "read error (directory as stdin) exits 1 naming it"

rc=0
"${hb[@]}" translate "${topo[@]}" -m mem1 -d 0x5123 >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "^hotbridge translate: invalid option -- 'd'" "$tmp/err" ||
	bad "-d is not --dpa (a decoder in cxl-cli): $rc $(head -1 "$tmp/err")"
ok "-d refused with a 'hotbridge translate:' prefix, --dpa kept"
z5=(--topology "$data/cxl-list/zen5-normalized.vvv.json")
rc=0
"${hb[@]}" translate "${z5[@]}" --memdev mem0 --dpa 0x1000 >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 3 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^hotbridge translate: mem0: DPA 0x1000 is in decoder3.0 of region0: normalized addressing (AMD Zen5 PRM) not supported" "$tmp/err" ||
	bad "zen5 DPA refused with exit 3: $rc $(cat "$tmp/err")"
rc=0
printf 'hpa 0x2050000000\nmem1 0x0\n' | "${hb[@]}" translate "${z5[@]}" --batch >"$tmp/out" || rc=$?
[ "$rc" -eq 1 ] && [ "$(grep -c '"errno":"EOPNOTSUPP"' "$tmp/out")" -eq 2 ] ||
	bad "zen5 batch: both refused as EOPNOTSUPP, exit 1: $rc $(cat "$tmp/out")"
ok "normalized addressing refused by name: exit 3, EOPNOTSUPP in a batch"

rc=0
"${hb[@]}" topology "${z5[@]}" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 3 ] && grep -q '"refused": "normalized addressing (AMD Zen5 PRM)' "$tmp/out" &&
	grep -q "^hotbridge topology: region0 not translated: normalized addressing" "$tmp/err" ||
	bad "topology prints the refusal and exits 3: $rc $(cat "$tmp/err")"
ok "topology shows the refused region and exits 3"

elc=(--topology "$data/cxl-list/elc.hb.json")
"${hb[@]}" translate "${elc[@]}" --memdev mem1 --dpa 0x5123 >"$tmp/out"
grep -q '"hpa": "0x44000b123"' "$tmp/out" || bad "elc DPA -> HPA past the cache: $(cat "$tmp/out")"
rc=0
"${hb[@]}" translate "${elc[@]}" --hpa 0x40000b123 >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 3 ] && grep -q "extended linear cache of region0" "$tmp/err" ||
	bad "elc DRAM half refused with exit 3: $rc $(cat "$tmp/err")"
ok "extended linear cache: translated past the cache, its DRAM half refused (exit 3)"

# the daemon says at start which regions it will not translate, and why
: >"$tmp/empty.replay"
printf '[daemon]\ndry_run = true\n[topology]\nsnapshot = %s\n[source f]\ntype = replay\npath = %s\n' \
	"$data/cxl-list/zen5-normalized.vvv.json" "$tmp/empty.replay" >"$tmp/z5.conf"
"${hb[@]}" run --once --config "$tmp/z5.conf" >"$tmp/out" 2>"$tmp/err" || true
grep -q "region region0 not translated: normalized addressing (AMD Zen5 PRM) not supported" "$tmp/err" ||
	bad "run does not log the refused region: $(cat "$tmp/err")"
ok "run logs each refused region with its reason at start"

# explain of an HPA in a region translate refuses: still CXL memory, not
# "not_in_a_cxl_region" (that is for no region at all)
if [ "$(id -u)" -ne 0 ]; then
	skip "explain needs root (the control socket serves root only)"
else
	printf '[daemon]\ndry_run = true\ncontrol_socket = %s\n[topology]\nsnapshot = %s\n[source f]\ntype = replay\npath = %s\n' \
		"$tmp/z5.sock" "$data/cxl-list/zen5-normalized.vvv.json" "$tmp/empty.replay" >"$tmp/z5d.conf"
	chmod 0644 "$tmp/z5d.conf"
	"${hb[@]}" run --config "$tmp/z5d.conf" 2>"$tmp/z5d.err" &
	zpid=$!
	wait_until 10 "${hb[@]}" status --socket "$tmp/z5.sock" >/dev/null || bad "no daemon on the zen5 snapshot"
	"${hb[@]}" explain --socket "$tmp/z5.sock" 0x2050000000 >"$tmp/z5x.json"
	"${hb[@]}" explain --socket "$tmp/z5.sock" 0x1000 >"$tmp/z5n.json"
	kill -TERM "$zpid"
	wait "$zpid" || bad "zen5 daemon: exit $?"
	python3 -c 'import json,sys
x = json.load(open(sys.argv[1]))["explain"]; n = json.load(open(sys.argv[2]))["explain"]
assert x["decision"] != "not_in_a_cxl_region" and "heat" in x, x
assert n["decision"] == "not_in_a_cxl_region", n' "$tmp/z5x.json" "$tmp/z5n.json" ||
		{ sed 's/^/# /' "$tmp/z5x.json" "$tmp/z5n.json"; bad "explain in a refused region"; }
	ok "explain in a region translate refuses: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["explain"]["decision"])' "$tmp/z5x.json"), not not_in_a_cxl_region"
fi
# a CEDT whose window matches no root decoder of the snapshot (newuser r4
# D21: x2-2hb-xor.cedt is 8 GiB 2-way XOR, x2.vvv.json's root 4 GiB 1-way):
# translate and topology warn, naming the window and the root decoder there;
# with the snapshot it belongs to (x2-2hb) nothing is said
for cmd in "translate --hpa 0x390000100" topology; do
	# shellcheck disable=SC2086 # the command and its options
	"${hb[@]}" $cmd --topology "$data/cxl-list/x2.vvv.json" --cedt "$data/cedt/x2-2hb-xor.cedt" \
		>/dev/null 2>"$tmp/cedt.err" || bad "$cmd with a CEDT of another host failed"
	grep -q "CEDT $data/cedt/x2-2hb-xor.cedt: window 0x390000000-0x58fffffff (8 GiB, 2-way xor) matches no root decoder in the snapshot $data/cxl-list/x2.vvv.json (decoder0.0 there is 0x390000000-0x48fffffff, 1-way)" "$tmp/cedt.err" ||
		{ sed 's/^/# /' "$tmp/cedt.err"; bad "$cmd: no warning about the CEDT window that matches no root decoder"; }
	"${hb[@]}" $cmd --topology "$data/cxl-list/x2-2hb.vvv.json" --cedt "$data/cedt/x2-2hb-xor.cedt" \
		>/dev/null 2>"$tmp/cedt.err" || bad "$cmd on x2-2hb with its CEDT failed"
	! grep -q CEDT "$tmp/cedt.err" || { sed 's/^/# /' "$tmp/cedt.err"; bad "$cmd: a warning about a CEDT that matches"; }
	ok "${cmd%% *}: a CEDT window matching no root decoder is named with the decoder there; a matching one is not"
done
hb_reports_ok
