#!/bin/bash
# hotbridge list over saved PCI config space (a real QEMU 7.2 cxl-type3
# device, and the same with a CHMU register block added) and a plugin
# directory holding the sample plugin, a bad one, one whose constructor
# crashes, one whose entry point crashes, one named like a built-in and two
# claiming one name. list inspects each plugin in a child: a crash is a
# refusal with the signal, and list itself goes on (it used to die, 139).
#   list.sh HOTBRIDGE_TEST DATA_DIR PLUGIN_BUILD_DIR (hotbridge-test: --pci-dump is a test hook)
set -euo pipefail
data=$2 plugins=$3
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP the plugin directory must be root-owned: run as root"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT
mkdir -m 0755 "$tmp/plugins"
cp "$plugins/libhb-sample.so" "$tmp/plugins/10-sample.so"
cp "$plugins/libbad-abi.so" "$tmp/plugins/20-bad-abi.so"
cp "$plugins/libbad-crashctor.so" "$tmp/plugins/30-crashy.so"
cp "$plugins/libbad-crashentry.so" "$tmp/plugins/40-crashentry.so"
cp "$plugins/libbad-builtin.so" "$tmp/plugins/50-replay.so"
cp "$plugins/libhb-sample.so" "$tmp/plugins/60-twin.so"
cp "$plugins/libhb-sample.so" "$tmp/plugins/70-twin.so"
chmod 0755 "$tmp"/plugins/*.so
export HB_TEST_CTOR_MARKER=$tmp/ctor-ran

rc=0
"${hb[@]}" list --pci-dump "$data/pci/qemu72-cxl-type3.lspci" --plugin-dir "$tmp/plugins" >"$tmp/plain.json" || rc=$?
[ "$rc" -eq 0 ] || { echo "not ok 1 - list exited with status $rc"; exit 1; }
[ -e "$tmp/ctor-ran" ] || { echo "not ok 1 - the crashing constructor never ran (inspected in a child, it should)"; exit 1; }
"${hb[@]}" list --pci-dump "$data/pci/qemu72-cxl-type3-chmu.lspci" --plugin-dir "$tmp/plugins" >"$tmp/chmu.json"
# a CHMU block a kernel driver has claimed (tests/data/chmu-map/claimed): the
# sysfs mmap works here (a plain file) but the block is refused, with the claimant
mkdir "$tmp/claimed"
cp -a "$data/chmu-map/claimed/." "$tmp/claimed/"
truncate -s $((0x110000)) "$tmp/claimed/sys/bus/pci/devices/0000:0d:00.0/resource2"
"${hb[@]}" list --pci-dump "$data/pci/qemu72-cxl-type3-chmu-128k.lspci" --sysfs-root "$tmp/claimed" \
	--plugin-dir "$tmp/plugins" >"$tmp/claimed.json"
# a kernel with the RFC CHMU perf driver (tests/data/sysfs/cxl-hmu): cxl-hmu is available
"${hb[@]}" list --pci-dump "$data/pci/qemu72-cxl-type3.lspci" --sysfs-root "$data/sysfs/cxl-hmu" \
	--plugin-dir "$tmp/plugins" >"$tmp/hmu.json"
# a --plugin-dir that does not exist
rc=0
"${hb[@]}" list --pci-dump "$data/pci/qemu72-cxl-type3.lspci" --plugin-dir "$tmp/no-such-dir" \
	>"$tmp/nodir.json" 2>"$tmp/nodir.err" || rc=$?
echo "$rc" >"$tmp/nodir.rc"
python3 - "$tmp" >"$tmp/tap" <<'PY' || { cat "$tmp/tap"; exit 1; }
import json, sys
d = sys.argv[1]
plain = json.load(open(d + "/plain.json"))
chmu = json.load(open(d + "/chmu.json"))
n = 0
def check(cond, what):
    global n
    n += 1
    print(("ok %d - " if cond else "not ok %d - ") % n + what)
    if not cond:
        sys.exit(1)
names = [s["source"] for s in plain["sources"]]
check(names[:3] == ["chmu", "emul-chmu", "replay"] and "sample" in names, "sources: built-ins and the sample plugin %s" % names)
cx = [s for s in plain["sources"] if s["source"] == "cxl-events"]
check(len(cx) == 1 and isinstance(cx[0].get("available"), bool) and cx[0].get("why") and
      (cx[0]["available"] or any(w in cx[0]["why"] for w in ("not root", "no tracefs", "no cxl trace events"))),
      "cxl-events: available or why not: %r" % (cx[0] if cx else None))
# newuser r4 D23: every source says whether it can run here, and why
check(all(isinstance(s.get("available"), bool) and s.get("why") for s in plain["sources"]),
      "every source has \"available\": true|false and a why: %r" % [(s["source"], s.get("available")) for s in plain["sources"]])
av = lambda doc: {s["source"]: s["available"] for s in doc["sources"]}
check(av(plain)["emul-chmu"] and av(plain)["replay"] and av(plain)["sample"], "emul-chmu, replay and the sample plugin: available")
check(av(plain)["chmu"] is False and av(chmu)["chmu"] is True, "chmu: available only with a CHMU block (QEMU 7.2: no; with one added: yes)")
cl = {s["source"]: s for s in json.load(open(d + "/claimed.json"))["sources"]}["chmu"]
check(cl["available"] is False and "claimed by 0000:0d:00.0" in cl["why"], "chmu: not available when its block is claimed, saying why: %r" % cl["why"])
nd = json.load(open(d + "/nodir.json"))
check(open(d + "/nodir.rc").read().strip() == "1" and "--plugin-dir: " + d + "/no-such-dir: No such file or directory" in open(d + "/nodir.err").read()
      and nd["plugins_refused"] == [{"path": d + "/no-such-dir", "refused": d + "/no-such-dir: No such file or directory"}],
      "--plugin-dir naming no directory: exit 1, named on stderr and in plugins_refused")
check(any("20-bad-abi.so" in r["path"] and "plugin ABI 2.0" in r["refused"] for r in plain["plugins_refused"]), "the bad plugin is refused with its reason")
why = {r["path"].rsplit("/", 1)[-1]: r["refused"] for r in plain["plugins_refused"]}
check("crashed (SIGSEGV)" in why.get("30-crashy.so", ""), "a crashing constructor: refused, crashed (SIGSEGV): %r" % why.get("30-crashy.so"))
check("crashed (SIGSEGV)" in why.get("40-crashentry.so", ""), "a crashing entry point: refused, crashed (SIGSEGV)")
check("'replay' is a built-in source's" in why.get("50-replay.so", ""), "a plugin named like a built-in is refused, not shadowing it")
check("70-twin.so" in why.get("60-twin.so", "") and "60-twin.so" in why.get("70-twin.so", ""), "two plugins with one name: both refused, each naming the other")
check(names.count("replay") == 1 and "twin" not in names and "bad" not in names, "no refused plugin among the sources")
m = plain["cxl_memdevs"]
check(len(m) == 1 and m[0]["pci"] == "0000:0d:00.0" and m[0]["vendor"] == "0x8086", "one CXL memdev at 0000:0d:00.0 (QEMU 7.2 cxl-type3)")
check([b["id"] for b in m[0]["register_blocks"]] == [1, 3] and m[0]["chmu"] is False, "QEMU 7.2: component and device blocks, no CHMU")
c = chmu["cxl_memdevs"][0]
check(c["chmu"] is True and {"id": 5, "type": "chmu", "bar": 2, "offset": "0x10000"} in c["register_blocks"], "with a CHMU block: found at BAR 2 + 0x10000")
e = json.load(open(d + "/claimed.json"))["cxl_memdevs"][0].get("chmu_error", "")
check("CHMU registers at 0xfe220000-0xfe22000f are claimed by 0000:0d:00.0 (kernel driver cxl_pci); refusing" in e, "a CHMU block a kernel driver claimed is refused, naming it: %s" % e)
mg = json.load(open(d + "/claimed.json"))["migrators"]
check(mg["auto"] == "pagemap" and "move_phys_pages" in mg.get("phys", "") and mg.get("damon", "").startswith("damon: "), "migrators: auto would use pagemap, saying why not phys and damon: %r" % mg)
hmu = {s["source"]: s for s in plain["sources"]}.get("cxl-hmu", {})
check(hmu.get("available") is False and "no cxl_hmu_* PMU" in hmu.get("why", ""), "cxl-hmu: not available here, saying why: %r" % hmu.get("why"))
h = json.load(open(d + "/hmu.json"))
hmu = {s["source"]: s for s in h["sources"]}["cxl-hmu"]
check(hmu["available"] is True and "cxl_hmu_mem0.0.0" in hmu["why"] and h["chmu_perf_pmus"] == ["cxl_hmu_mem0.0.0"], "cxl-hmu: available when the PMU exists: %r" % hmu["why"])
PY
cat "$tmp/tap"
n=$(grep -c '^ok' "$tmp/tap")
hb_reports_ok
echo "1..$n"
