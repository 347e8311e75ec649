#!/bin/bash
# The plugin guide, contrib/sample-plugin/README.md, works as written: its
# ```sh blocks run unchanged in a copy of contrib/sample-plugin/ against a
# `meson install --destdir` of hotbridge, the way a vendor would against an
# installed one (only PKG_CONFIG_PATH, as the guide says, and a pkg-config
# whose prefix is the destdir's stand in for the real install):
#  1. build: sample.so out of tree, -std=c99 -pedantic -Werror, with the
#     flags hotbridge-device.pc gives; the ABI version printed;
#  2. install: into the .pc's plugindir;
#  3. test (as root: the plugin directory and config must be root-owned):
#     the installed hotbridge lists the plugin, and runs a cycle on the
#     emulated host with a source of its type; its typo example (windw = 1)
#     exits 1 as the guide says, acme0 being the only source;
# then test-loader loads that build through its ops.
#   sample-plugin.sh BUILD_DIR SOURCE_DIR TEST_LOADER PREFIX BINDIR LIBDIR PLUGINDIR
set -euo pipefail
build=$1 src=$2 loader=$3 prefix=$4 bindir=$5 libdir=$6 plugindir=$7
command -v cc >/dev/null || { echo "1..0 # SKIP no cc"; exit 0; }
command -v pkg-config >/dev/null || { echo "1..0 # SKIP no pkg-config"; exit 0; }
. "$(dirname "$0")/lib.sh" "$build/daemon/hotbridge"
trap 'rm -rf "$tmp"' EXIT
D=$tmp/root
root=0
[ "$(id -u)" -eq 0 ] && root=1

meson install -C "$build" --destdir "$D" --quiet --no-rebuild >/dev/null
mkdir "$tmp/bin"
cat >"$tmp/bin/pkg-config" <<SH
#!/bin/sh
exec $(command -v pkg-config) --define-variable=prefix="$D$prefix" "\$@"
SH
chmod 0755 "$tmp/bin/pkg-config"

guide=$src/contrib/sample-plugin/README.md
python3 - "$guide" "$tmp/block" <<'PY'
import sys
blocks, cur = [], None
for line in open(sys.argv[1]):
    if cur is None and line.rstrip() == "```sh":
        cur = []
    elif cur is not None and line.rstrip() == "```":
        blocks.append("".join(cur)); cur = None
    elif cur is not None:
        cur.append(line)
for i, b in enumerate(blocks, 1):
    open(f"{sys.argv[2]}-{i}.sh", "w").write(b)
PY
nblocks=$(ls "$tmp"/block-*.sh | wc -l)
[ "$nblocks" -eq 4 ] && ok "the guide has its 4 sh blocks (build, install, list, run)" ||
	bad "the guide has $nblocks sh blocks, this test knows 4: update it with the guide"

cp -r "$src/contrib/sample-plugin" "$tmp/sample"
run_blocks() { # FIRST LAST: the guide's blocks, in one shell, in the copy
	local i script=$tmp/guide.sh
	echo "set -e" >"$script"
	for i in $(seq "$1" "$2"); do cat "$tmp/block-$i.sh" >>"$script"; done
	(cd "$tmp/sample" && PATH="$tmp/bin:$D$bindir:$PATH" PKG_CONFIG_PATH="$D$libdir/pkgconfig" \
		bash "$script" >"$tmp/guide.out" 2>"$tmp/guide.err")
}
last=2
[ "$root" -eq 1 ] && last=4
if run_blocks 1 "$last"; then
	ok "the guide's blocks 1..$last ran"
else
	sed 's/^/# /' "$tmp/guide.out" "$tmp/guide.err" | tail -30
	bad "the guide's blocks 1..$last failed (above)"
fi
cat "$tmp/guide.out" "$tmp/guide.err" | sed -n '1,12s/^/# /p'

want=$(sed -n 's/^#define HB_DEVICE_ABI_MAJOR \([0-9]*\).*/\1/p' "$src/devices/hb-device.h").$(sed -n 's/^#define HB_DEVICE_ABI_MINOR \([0-9]*\).*/\1/p' "$src/devices/hb-device.h")
[ "$(head -1 "$tmp/guide.out")" = "$want" ] && ok "build: the installed .pc says ABI $want" ||
	bad "build: abi_version '$(head -1 "$tmp/guide.out")', the header says $want"
[ -f "$tmp/sample/sample.so" ] && ok "build: sample.so built out of tree" || bad "no sample.so"
[ -f "$D$plugindir/sample.so" ] && ok "install: $plugindir/sample.so (in the destdir)" ||
	bad "install: nothing at $D$plugindir/sample.so"
if [ "$root" -eq 1 ]; then
	grep -q "\"path\": \"$D$plugindir/sample.so\"" "$tmp/guide.out" &&
		ok "test: hotbridge list shows the installed plugin" || bad "test: list does not show it"
	grep -q "source acme0: sample ($D$plugindir/sample.so) open" "$tmp/guide.err" &&
		ok "test: run opened source acme0 from the plugin" || bad "test: acme0 not opened"
	grep -q "^cycles 1, records 1, translated 1, pages added 256" "$tmp/guide.out" &&
		ok "test: one cycle, its record translated (256 pages)" || bad "test: no record"
	# the guide's typo, windw = 1: the message it quotes, and run's exit
	# status with acme0 the only source, which the guide must give too
	echo "windw = 1" >>"$tmp/sample/acme.conf"
	rc=0
	"${hb[@]:0:${#hb[@]}-1}" "$D$bindir/hotbridge" run --once --config "$tmp/sample/acme.conf" \
		>/dev/null 2>"$tmp/typo.err" || rc=$?
	if [ "$rc" -eq 1 ] && grep -q "source acme0: unknown parameter 'windw=1'" "$tmp/typo.err" &&
		grep -q "no source opened: acme0" "$tmp/typo.err"; then
		ok "test: windw = 1 is refused by the plugin, and run exits 1 (no source opened: acme0)"
	else
		sed 's/^/# /' "$tmp/typo.err"
		bad "test: windw = 1 gave exit $rc"
	fi
	tr '\n' ' ' <"$guide" | grep -q "exits 1 with \`no source opened: acme0\`" &&
		ok "the guide says run exits 1 with no source opened: acme0" ||
		bad "the guide does not say that run exits 1 when acme0, its only source, fails"
else
	skip "the guide's list and run: the plugin directory and config must be root-owned"
fi

# test-loader takes its plugins from HB_TEST_PLUGINS: the in-tree bad ones,
# the out-of-tree sample in place of the in-tree one
mkdir "$tmp/plugins"
cp "$build"/tests/libbad-*.so "$tmp/plugins/"
cp "$tmp/sample/sample.so" "$tmp/plugins/libhb-sample.so"
if HB_TEST_PLUGINS=$tmp/plugins CMOCKA_MESSAGE_OUTPUT=TAP "$loader" >"$tmp/loader.out" 2>&1; then
	ok "test-loader passes with the out-of-tree sample"
else
	sed 's/^/# /' "$tmp/loader.out" | tail -20
	bad "test-loader fails with the out-of-tree sample"
fi
hb_reports_ok
echo "1..$n"
