#!/bin/bash
# hotbridge run with a plugin directory holding plugins that crash when
# loaded (in a constructor, which first creates $HB_TEST_CTOR_MARKER, and
# in the entry point). run loads only the plugins its sources name, so:
#  1. with built-in sources only, run works and never loads any plugin: the
#     marker never appears (run used to die with SIGSEGV, status 139);
#  2. with a source of the sample plugin's type, the sample is loaded and
#     opened, and the crashing plugins still are not;
#  3. a source whose type two plugin files claim gets neither: the refusal
#     names both files, and run goes on with its other sources;
#  4. a source whose plugin crashes while loading, run out of process (the
#     default): a failed open, its host's crash at load is named and the
#     host started again; check-config warns;
#  5. the same with isolate = no: the plugin is tried in a child first, so
#     it is refused with the signal and run goes on.
#   run-plugins.sh HOTBRIDGE PLUGIN_BUILD_DIR
set -euo pipefail
plugins=$2
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP the plugin directory and config must be root-owned: run as root"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT

mkdir -m 0755 "$tmp/plugins"
cp "$plugins/libbad-crashctor.so" "$tmp/plugins/10-crashy.so"
cp "$plugins/libbad-crashentry.so" "$tmp/plugins/15-crashentry.so"
cp "$plugins/libhb-sample.so" "$tmp/plugins/20-sample.so"
cp "$plugins/libhb-sample.so" "$tmp/plugins/30-twin.so"
cp "$plugins/libhb-sample.so" "$tmp/plugins/40-twin.so"
chmod 0755 "$tmp"/plugins/*.so
export HB_TEST_CTOR_MARKER=$tmp/ctor-ran

# the marker works: a plugin whose constructor runs leaves it behind
# (list inspects each plugin in a child, so the constructor runs there)
"${hb[@]}" list --plugin-dir "$tmp/plugins" >/dev/null 2>&1 || true
[ -e "$tmp/ctor-ran" ] && ok "control: loading the crashing plugin creates the marker" ||
	bad "the crashing plugin's constructor left no marker when loaded"
rm -f "$tmp/ctor-ran"

conf() { # conf NAME EXTRA_SECTIONS
	cat >"$tmp/$1.conf" <<CONF
[daemon]
dry_run = true
plugin_dir = $tmp/plugins
[topology]
emulated = true
[policy]
threshold = 8
rate_mbps = 0
[table]
max_entries = 65536
[source cxl0]
type = emul-chmu
memdev = mem0
capacity = 536870912
$2
CONF
	chmod 0644 "$tmp/$1.conf"
}

# run --once CONF: its status, stdout in CONF.out, stderr in CONF.err
once() {
	local rc=0
	"${hb[@]}" run --once --config "$tmp/$1.conf" >"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
	sed -n '1,20s/^/# /p' "$tmp/$1.err"
	return "$rc"
}
records() { sed -n 's/^cycles 1, records \([0-9]*\),.*/\1/p' "$tmp/$1.out"; }

conf builtin ""
rc=0; once builtin || rc=$?
[ "$rc" -eq 0 ] && ok "built-in sources only: run --once exits 0 next to crashing plugins" ||
	bad "built-in sources only: run --once exited with status $rc"
r=$(records builtin)
[ -n "$r" ] && [ "$r" -gt 0 ] && ok "built-in sources only: $r records" || bad "no records: '$r'"
[ ! -e "$tmp/ctor-ran" ] && ok "built-in sources only: no plugin was loaded (no marker)" ||
	bad "a plugin's constructor ran although no source uses it"
grep -q "$tmp/plugins" "$tmp/builtin.err" && bad "run talks about plugins it does not use" ||
	ok "built-in sources only: run does not look at the plugins"

conf sample "[source s]
type = sample
memdev = mem0"
rc=0; once sample || rc=$?
[ "$rc" -eq 0 ] && ok "a sample source: run --once exits 0" || bad "a sample source: status $rc"
grep -q "source s: sample ($tmp/plugins/20-sample.so) open" "$tmp/sample.err" &&
	ok "a sample source: 20-sample.so loaded and opened" || bad "the sample source was not opened"
[ ! -e "$tmp/ctor-ran" ] && ok "a sample source: the crashing plugins were not loaded" ||
	bad "a crashing plugin's constructor ran although no source uses it"

conf twin "[source t]
type = twin
memdev = mem0"
rc=0; once twin || rc=$?
# a type no usable plugin claims is a configuration error (as check-config says)
[ "$rc" -eq 1 ] && ok "a source of a twice-claimed type: run --once exits 1" || bad "status $rc"
grep "30-twin.so" "$tmp/twin.err" | grep -q "is also claimed by $tmp/plugins/40-twin.so; refusing both" &&
	ok "the refusal of 30-twin.so names 40-twin.so" || bad "no refusal naming both twins"
grep -q "\[source t\]: plugin twin was refused (source name 'twin' is also claimed by" "$tmp/twin.err" &&
	ok "source t: neither twin is used, and the error says the plugin was refused" ||
	bad "a twin was used"
[ ! -e "$tmp/ctor-ran" ] && ok "no crashing plugin was loaded" || bad "a crashing plugin was loaded"

# 4. the same sources run their plugins out of process (the default): failed
#    opens, each host's crash at load named, and check-config only warns
conf crashy "[source c]
type = crashy
memdev = mem0
[source e]
type = crashentry
memdev = mem0"
rc=0; once crashy || rc=$?
[ "$rc" -eq 0 ] && ok "sources of crashing plugins: run --once exits 0" || bad "status $rc"
grep -q "source c: .*10-crashy.so: plugin host failed at load: killed by SIGSEGV; going on without it" \
	"$tmp/crashy.err" &&
	grep -q "source e: .*15-crashentry.so: plugin host failed at load: killed by SIGSEGV; going on without it" \
		"$tmp/crashy.err" &&
	! grep -q "source [ce]: .* open in hotbridge-plugin-host" "$tmp/crashy.err" &&
	ok "out of process: both hosts die at load (constructor, entry point): failed opens, named" ||
	bad "no failed open at load named"
grep -q "10-crashy.so refused" "$tmp/crashy.err" && bad "out of process, the plugin is refused by the scan" ||
	ok "out of process: the scan does not refuse the plugin (its host's load fails)"
rc=0
"${hb[@]}" check-config --config "$tmp/crashy.conf" >/dev/null 2>"$tmp/crashy.check" || rc=$?
sed 's/^/# check-config: /' "$tmp/crashy.check"
[ "$rc" -eq 0 ] && grep -q "warning: $tmp/plugins/10-crashy.so: crashed (SIGSEGV) while loading; run tries its sources anyway" \
	"$tmp/crashy.check" && ok "check-config: exits 0, warning that crashy crashes while loading" ||
	bad "check-config on a crashing plugin run out of process: status $rc"
r=$(records crashy)
[ -n "$r" ] && [ "$r" -gt 0 ] && ok "the built-in source goes on: $r records" || bad "no records: '$r'"

# 5. in the daemon (isolate = no) they are tried in a child first, and refused
conf crashy "[source c]
type = crashy
memdev = mem0
isolate = no
[source e]
type = crashentry
memdev = mem0
isolate = no"
rc=0; once crashy || rc=$?
[ "$rc" -eq 0 ] && ok "isolate = no: sources of crashing plugins: run --once exits 0" || bad "status $rc"
grep -q "plugin $tmp/plugins/10-crashy.so refused: .*crashed (SIGSEGV)" "$tmp/crashy.err" &&
	grep -q "plugin $tmp/plugins/15-crashentry.so refused: .*crashed (SIGSEGV)" "$tmp/crashy.err" &&
	ok "both refused: crashed (SIGSEGV) (constructor, entry point)" || bad "no crash refusals"
grep -q "\[source c\]: plugin crashy was refused (crashed (SIGSEGV) while loading), skipping it" \
	"$tmp/crashy.err" && ok "source c: not opened, saying its plugin was refused and why" ||
	bad "source c"
[ "$(grep -c "10-crashy.so" "$tmp/crashy.err")" -eq 1 ] &&
	[ "$(grep "10-crashy.so" "$tmp/crashy.err" | grep -o "10-crashy.so" | wc -l)" -eq 1 ] &&
	ok "the crashing plugin's path is named once" || bad "10-crashy.so named more than once"
# check-config inspects the plugins its sources name as run does: not exit 0 silently
rc=0
"${hb[@]}" check-config --config "$tmp/crashy.conf" >/dev/null 2>"$tmp/crashy.check" || rc=$?
sed 's/^/# check-config: /' "$tmp/crashy.check"
[ "$rc" -eq 1 ] && grep -q "\[source c\]: plugin crashy was refused (crashed (SIGSEGV) while loading)" \
	"$tmp/crashy.check" && ok "check-config: exits 1 naming the refused plugin crashy" ||
	bad "check-config on a crashing plugin: status $rc"
r=$(records crashy)
[ -n "$r" ] && [ "$r" -gt 0 ] && ok "the built-in source goes on: $r records" || bad "no records: '$r'"
hb_reports_ok
echo "1..$n"
