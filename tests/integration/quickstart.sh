#!/bin/bash
# contrib/quickstart.sh's pieces, without installing, building hotbridge or
# booting a guest: sourced, it only defines its functions;
#   - setup_build reconfigures a build directory that another meson version
#     configured (its meson-info says so), sets one up afresh when
#     reconfiguring fails, and leaves one of this meson alone; with
#     bookworm-backports' meson (tests/qemu/build's copy, when it has
#     fetched it), a directory made by the machine's meson is reconfigured
#     by the newer one, where it died before on "references functions or
#     classes that don't exist";
#   - skipped_summary names each test a real meson testlog recorded as
#     skipped, with the reason its output gave, and the command that runs
#     the vm and e2e ones, and nothing else;
#   - meson_test keeps meson's closing summary (Ok:, Fail:, ...) last and
#     returns meson test's status.
#   quickstart.sh SOURCE_DIR DATA_DIR
set -euo pipefail
src=$1 data=$2
. "$(dirname "$0")/lib.sh" /bin/false
trap 'rm -rf "$tmp"' EXIT

here=$PWD
. "$src/contrib/quickstart.sh"
[ "$PWD" = "$here" ] && declare -F setup_build skipped_summary meson_test >/dev/null &&
	ok "sourced, contrib/quickstart.sh only defines its functions" ||
	bad "sourcing contrib/quickstart.sh did more than define setup_build, skipped_summary, meson_test"

command -v meson >/dev/null || { skip "no meson on PATH"; echo "1..$n"; exit 0; }

# a project with the option setup_opts sets; no compiler needed
mkdir "$tmp/proj"
printf "project('qs', version: '1')\n" >"$tmp/proj/meson.build"
printf "option('tests', type: 'feature', value: 'auto')\n" >"$tmp/proj/meson_options.txt"
cd "$tmp/proj"
now=$(meson --version)
fake_version() { # DIR VERSION: record VERSION as the meson that configured DIR
	python3 - "$1/meson-info/meson-info.json" "$2" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    info = json.load(f)
info["meson_version"]["full"] = sys.argv[2]
with open(sys.argv[1], "w") as f:
    json.dump(info, f)
PY
}

setup_build b >"$tmp/setup.log" 2>&1 && [ "$(configured_meson b)" = "$now" ] &&
	ok "setup_build sets up a new build directory (meson $now)" ||
	{ sed 's/^/# /' "$tmp/setup.log"; bad "setup_build on a new directory"; }
touch b/stamp
setup_build b >"$tmp/same.log" 2>&1 && ! [ -s "$tmp/same.log" ] && [ -e b/stamp ] &&
	ok "a build directory of this meson is left as it is" ||
	{ sed 's/^/# /' "$tmp/same.log"; bad "setup_build touched a directory of meson $now"; }

fake_version b 0.63.3
setup_build b >"$tmp/reconf.log" 2>&1 && [ "$(configured_meson b)" = "$now" ] && [ -e b/stamp ] &&
	grep -q "configured by meson 0.63.3, this is meson $now: reconfiguring" "$tmp/reconf.log" &&
	ok "a build directory of meson 0.63.3 is reconfigured by meson $now, and says so" ||
	{ sed 's/^/# /' "$tmp/reconf.log"; bad "setup_build did not reconfigure a directory of meson 0.63.3"; }
grep -q "werror *: *true" "$tmp/reconf.log" && grep -q "tests *: *enabled" "$tmp/reconf.log" &&
	ok "the reconfigured directory keeps -Dwerror=true -Dtests=enabled" ||
	{ sed 's/^/# /' "$tmp/reconf.log"; bad "the reconfigured directory lost its options"; }

# a directory meson cannot reconfigure: its saved state is unreadable
fake_version b 0.63.3
echo garbage >b/meson-private/coredata.dat
setup_build b >"$tmp/wipe.log" 2>&1 && [ "$(configured_meson b)" = "$now" ] && ! [ -e b/stamp ] &&
	grep -q "reconfiguring b with meson $now failed: removing it and setting it up again" "$tmp/wipe.log" &&
	ok "when reconfiguring fails, the directory is set up afresh, and it says so" ||
	{ sed 's/^/# /' "$tmp/wipe.log"; bad "setup_build after a failed reconfigure"; }

# the issue's case: a directory of the machine's meson, then a newer meson
# (bookworm-backports' 1.7, which tests/qemu/build unpacks into its cache)
qcache=$(bash "$src/tests/qemu/build" --print 2>/dev/null | sed -n 's/^cache=//p') || qcache=
newer=$qcache/tools/usr/bin/meson
if [ -n "$qcache" ] && [ -f "$newer" ]; then
	mkdir "$tmp/newer"
	cat >"$tmp/newer/meson" <<EOF
#!/bin/sh
PYTHONPATH=$qcache/tools/usr/lib/python3/dist-packages exec /usr/bin/python3 $newer "\$@"
EOF
	chmod +x "$tmp/newer/meson"
	new=$(PATH=$tmp/newer:$PATH meson --version)
	rm -rf b
	setup_build b >/dev/null 2>&1
	if [ "$new" = "$now" ]; then
		skip "the cache's meson is the machine's ($now)"
	elif PATH=$tmp/newer:$PATH setup_build b >"$tmp/newer.log" 2>&1 &&
		[ "$(configured_meson b)" = "$new" ] && (PATH=$tmp/newer:$PATH ninja -C b) >>"$tmp/newer.log" 2>&1; then
		ok "meson $new reconfigures a build directory of meson $now, and ninja runs on it"
	else
		sed 's/^/# /' "$tmp/newer.log"
		bad "meson $new on a build directory of meson $now"
	fi
else
	skip "no newer meson in tests/qemu/build's cache (${qcache:-?}/tools): run tests/qemu/build"
fi
cd "$here"

# the skipped tests of a real testlog (data/testlog/README.md)
log=$data/testlog/quickstart-test.json
skipped_summary "$log" >"$tmp/summary" || { sed 's/^/# /' "$tmp/summary"; bad "skipped_summary failed"; }
sed 's/^/# /' "$tmp/summary"
names=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    t = json.loads(l)
    print(t["name"].rpartition(" / ")[2], t["result"])' "$log")
nskip=0
while read -r name result; do
	if [ "$result" = SKIP ]; then
		nskip=$((nskip + 1))
		grep -q "^  $name  *[^ ]" "$tmp/summary" || bad "the summary does not name skipped test $name"
	else
		! grep -q "^  $name " "$tmp/summary" || bad "the summary names $name, which was $result"
	fi
done <<<"$names"
[ "$nskip" -ge 2 ] || bad "the fixture has $nskip skipped tests"
grep -q "^quickstart: $nskip skipped:" "$tmp/summary" &&
	ok "the summary names the $nskip skipped tests of the testlog, and no other" ||
	bad "the summary's count is not $nskip"
grep -q "e2e-chmu-closed-loop-stock-6.12 .*has no CHMU in cxl-type3 (build tests/qemu/build's QEMU 10)" "$tmp/summary" &&
	grep -q "vm-mpp .*no mpp 6.1 kernel at .*(build it: kernel/build --base 6.1)" "$tmp/summary" &&
	ok "each skipped test comes with the reason its output gave" ||
	bad "the reasons are missing"
grep -Fq 'for the vm and e2e tests above, `bash contrib/quickstart.sh vm` builds what they need' "$tmp/summary" &&
	ok "the summary names the command that runs the skipped vm and e2e tests" ||
	bad "no command for the skipped vm and e2e tests"
grep -Fq 'for the others, install what the reason names, then `meson test -C build format-check`' "$tmp/summary" &&
	ok "a skipped test of another suite is named with the meson test command that runs it" ||
	bad "no command for the skipped tests of other suites"
nothing=$tmp/none.json
grep -v '"SKIP"' "$log" >"$nothing"
[ -z "$(skipped_summary "$nothing")" ] && ok "nothing skipped: no summary" ||
	bad "skipped_summary printed something for a log without skips"

# meson_test: meson's closing lines last, its status returned (a stand-in
# meson on PATH prints what meson test prints and writes the testlog)
mkdir -p "$tmp/fake/bin" "$tmp/fake/build/meson-logs"
printf '\n%s\n%s\n%s\n%s\n%s\n%s\n\n%s\n' "Ok:                 1   " "Expected Fail:      0   " \
	"Fail:               1   " "Unexpected Pass:    0   " "Skipped:            1   " \
	"Timeout:            0   " "Full log written to build/meson-logs/testlog.txt" >"$tmp/summary.want"
cat >"$tmp/fake/bin/meson" <<EOF
#!/bin/sh
printf ' 1/3 test-a   OK    0.1s\n 2/3 vm-mpp   SKIP  0.1s\n 3/3 test-b   FAIL  0.1s\n'
cat "$tmp/summary.want"
cp "$log" build/meson-logs/testlog.json
exit 1
EOF
chmod +x "$tmp/fake/bin/meson"
rc=0
(cd "$tmp/fake" && PATH=$tmp/fake/bin:$PATH meson_test --suite unit) >"$tmp/mt.out" 2>&1 || rc=$?
sed 1d "$tmp/summary.want" >"$tmp/closing.want"
tail -n "$(wc -l <"$tmp/closing.want")" "$tmp/mt.out" | cmp -s - "$tmp/closing.want" &&
	[ "$(grep -n '^ 3/3' "$tmp/mt.out" | cut -d: -f1)" -lt "$(grep -n '^quickstart: .* skipped:' "$tmp/mt.out" | cut -d: -f1)" ] &&
	ok "meson_test: the results, then the skipped tests, then meson's summary, last" ||
	{ sed 's/^/# /' "$tmp/mt.out"; bad "meson_test's output order"; }
[ "$rc" -eq 1 ] && ok "meson_test returns meson test's failure" || bad "meson_test returned $rc, meson test 1"
echo "1..$n"
