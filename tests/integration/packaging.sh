#!/bin/bash
# `meson install --destdir D` lays every packaged file down where the
# build's options say, and each is usable from there:
#  - the binary, and the systemd unit whose ExecStart=/ExecStartPre= name
#    that binary (bindir substituted, nothing left as @...@);
#  - the example configuration, unchanged, which the installed binary
#    accepts, and the emulated-host example with its sample feed, unchanged;
#  - hotbridge(8) and hotbridge.conf(5), rendered by `man -l` without a
#    warning; hotbridge.conf(5) is what the installed binary's
#    `check-config --man` prints (the checked-in page is current);
#  - the bash completion, which defines the completion for hotbridge;
#  - hb-device.h and hotbridge-device.pc: --cflags finds the header,
#    plugindir is the daemon's default plugin_dir (and moves with
#    --define-variable=prefix), abi_version is the header's;
#  - the configuration's path is SYSCONFDIR/hotbridge/hotbridge.conf
#    everywhere: the binary's default (run/check-config --help), the
#    unit's ConditionPathExists=, both man pages.
#  - hotbridge(8) FILES names the installed examples directory.
#   packaging.sh BUILD_DIR SOURCE_DIR BINDIR UNITDIR DATADIR MANDIR LIBDIR INCLUDEDIR PLUGINDIR PREFIX SYSCONFDIR
#   (absolute paths as configured, before DESTDIR)
set -euo pipefail
build=$1 src=$2 bindir=$3 unitdir=$4 datadir=$5 mandir=$6 libdir=$7 includedir=$8 plugindir=$9
prefix=${10} sysconfdir=${11}
. "$(dirname "$0")/lib.sh" "$build/daemon/hotbridge"
trap 'rm -rf "$tmp"' EXIT
D=$tmp/root

if meson install -C "$build" --destdir "$D" --no-rebuild >"$tmp/install.log" 2>&1; then
	ok "meson install --destdir"
else
	sed 's/^/# /' "$tmp/install.log" | tail -20
	bad "meson install --destdir failed"
fi
exists() { # WHAT PATH
	[ -f "$D$2" ] && ok "$1 at $2" || bad "$1 is not at $2; installed: $(cd "$D" && find . -type f | sort | tr '\n' ' ')"
}
exists "the binary" "$bindir/hotbridge"
exists "the unit" "$unitdir/hotbridge.service"
exists "the example configuration" "$datadir/doc/hotbridge/examples/hotbridge.conf"
exists "the emulated-host example" "$datadir/doc/hotbridge/examples/emulated.conf"
exists "the emulated-host example's feed" "$datadir/doc/hotbridge/examples/emulated-feed.txt"
exists "hotbridge(8)" "$mandir/man8/hotbridge.8"
exists "hotbridge.conf(5)" "$mandir/man5/hotbridge.conf.5"
exists "the bash completion" "$datadir/bash-completion/completions/hotbridge"
exists "the plugin header" "$includedir/hotbridge/hb-device.h"
exists "the pkg-config file" "$libdir/pkgconfig/hotbridge-device.pc"
hb_installed=("${hb[@]:0:${#hb[@]}-1}" "$D$bindir/hotbridge")

# the unit runs the installed binary
unit=$D$unitdir/hotbridge.service
for key in ExecStartPre ExecStart; do
	line=$(sed -n "s/^$key=//p" "$unit")
	case "$line" in
	"$bindir/hotbridge "*) ok "unit: $key=$line" ;;
	*) bad "unit: $key='$line' does not run $bindir/hotbridge" ;;
	esac
done
[ "$(sed -n 's/^ExecStartPre=//p' "$unit")" = "$bindir/hotbridge check-config --quiet" ] &&
	ok "unit: ExecStartPre= checks quietly (errors only in the journal)" ||
	bad "unit: ExecStartPre= is not check-config --quiet"
grep -q '@[a-z_]*@' "$unit" && bad "unit: unsubstituted $(grep -o -m1 '@[a-z_]*@' "$unit")" ||
	ok "unit: nothing left unsubstituted"

# the configuration's path, from sysconfdir, the same everywhere
config=$sysconfdir/hotbridge/hotbridge.conf
roff_config=${config//-/\\-}
line=$(sed -n 's/^ConditionPathExists=//p' "$unit")
[ "$line" = "$config" ] && ok "unit: ConditionPathExists=$config" ||
	bad "unit: ConditionPathExists='$line', want $config"
for c in run check-config; do
	"${hb_installed[@]}" help "$c" | grep -qF "default $config (" &&
		ok "hotbridge $c reads $config by default" ||
		bad "hotbridge help $c does not name $config: $("${hb_installed[@]}" help "$c" | grep -i default | head -2)"
done
grep -qxF "$roff_config, $roff_config.d/*.conf" "$D$mandir/man5/hotbridge.conf.5" &&
	ok "hotbridge.conf(5) synopsis: $config" || bad "hotbridge.conf(5) synopsis does not name $config"
grep -qxF ".I $roff_config" "$D$mandir/man8/hotbridge.8" &&
	ok "hotbridge(8) FILES: $config" || bad "hotbridge(8) FILES does not name $config"
examples=$datadir/doc/hotbridge/examples
grep -qxF ".I ${examples//-/\\-}" "$D$mandir/man8/hotbridge.8" &&
	ok "hotbridge(8) FILES: $examples" || bad "hotbridge(8) FILES does not name $examples"
for page in "$mandir/man8/hotbridge.8" "$mandir/man5/hotbridge.conf.5"; do
	grep -q '@[A-Z_]*@' "$D$page" && bad "$page: unsubstituted $(grep -o '@[A-Z_]*@' "$D$page" | head -1)"
done
ok "man pages: nothing left unsubstituted"

# the example configuration
cmp -s "$src/contrib/hotbridge.conf" "$D$datadir/doc/hotbridge/examples/hotbridge.conf" &&
	ok "the example configuration is contrib/hotbridge.conf" || bad "the installed example differs"
for f in emulated.conf emulated-feed.txt; do
	cmp -s "$src/contrib/$f" "$D$datadir/doc/hotbridge/examples/$f" &&
		ok "the installed $f is contrib/$f" || bad "the installed $f differs"
done
if [ "$(id -u)" -eq 0 ]; then
	"${hb_installed[@]}" check-config --no-dropins --config "$D$datadir/doc/hotbridge/examples/hotbridge.conf" \
		>/dev/null && ok "the installed binary accepts the installed example" ||
		bad "the installed binary refuses the installed example"
else
	skip "check-config wants a root-owned configuration: run as root"
fi

# the man pages
"${hb_installed[@]}" check-config --man >"$tmp/conf.5"
if cmp -s "$tmp/conf.5" "$D$mandir/man5/hotbridge.conf.5"; then
	ok "hotbridge.conf(5) is what check-config --man prints"
else
	{ diff "$D$mandir/man5/hotbridge.conf.5" "$tmp/conf.5" || true; } | sed -n '1,20s/^/# /p'
	bad "contrib/man/hotbridge.conf.5.in is stale: run 'ninja -C $build update-conf-man' and commit it"
fi
if ! command -v man >/dev/null; then
	skip "man not installed"
else
	for page in "$mandir/man8/hotbridge.8" "$mandir/man5/hotbridge.conf.5"; do
		out=$(MANWIDTH=80 man --warnings -l "$D$page" 2>"$tmp/man.err") || true
		if [ -s "$tmp/man.err" ] || [ -z "$out" ]; then
			sed 's/^/# /' "$tmp/man.err"
			bad "$page does not render cleanly"
		fi
		first=${out%%$'\n'*}  # no pipe: head exiting early would SIGPIPE the writer
		ok "$page renders: $first"
	done
fi

# the completion
compl=$(bash -c '. "$1" && complete -p hotbridge' _ "$D$datadir/bash-completion/completions/hotbridge" 2>&1) &&
	[[ "$compl" == *"-F _hotbridge"* ]] && ok "the completion: $compl" || bad "the completion: '$compl'"

# the pkg-config file
pc() { PKG_CONFIG_PATH=$D$libdir/pkgconfig pkg-config "$@" hotbridge-device; }
if ! command -v pkg-config >/dev/null; then
	skip "pkg-config not installed"
else
	cflags=$(pc --define-variable=prefix="$D$prefix" --cflags | sed "s/ *$//")
	[ "$cflags" = "-I$D$includedir/hotbridge" ] && ok "pkg-config --cflags: $cflags" ||
		bad "pkg-config --cflags: '$cflags', want -I$D$includedir/hotbridge"
	got=$(pc --variable=plugindir)
	[ "$got" = "$plugindir" ] && ok "pkg-config --variable=plugindir: $got" ||
		bad "pkg-config --variable=plugindir: '$got', want $plugindir"
	# the daemon's default plugin_dir is the same directory
	printf '[source s]\ntype = replay\npath = %s\n' "$tmp/min.conf" >"$tmp/min.conf"
	chmod 0644 "$tmp/min.conf"
	if [ "$(id -u)" -eq 0 ]; then
		dflt=$("${hb_installed[@]}" check-config --no-dropins --config "$tmp/min.conf" |
			sed -n 's/^plugin_dir = \(.*\)   ; default$/\1/p')
		[ "$dflt" = "$got" ] && ok "the daemon's default plugin_dir is the .pc's plugindir" ||
			bad "the daemon's default plugin_dir '$dflt' is not the .pc's plugindir '$got'"
	else
		skip "check-config wants a root-owned configuration: run as root"
	fi
	case "$plugindir" in
	"$prefix"/*)
		moved=$(pc --define-variable=prefix="$D$prefix" --variable=plugindir)
		[ "$moved" = "$D$plugindir" ] && ok "plugindir moves with the prefix: $moved" ||
			bad "plugindir with prefix=$D$prefix: '$moved'"
		;;
	*) skip "plugindir $plugindir is outside the prefix" ;;
	esac
	h=$D$includedir/hotbridge/hb-device.h
	want=$(sed -n 's/^#define HB_DEVICE_ABI_MAJOR \([0-9]*\).*/\1/p' "$h").$(sed -n 's/^#define HB_DEVICE_ABI_MINOR \([0-9]*\).*/\1/p' "$h")
	abi=$(pc --variable=abi_version)
	[ "$abi" = "$want" ] && ok "pkg-config --variable=abi_version: $abi (the header's)" ||
		bad "pkg-config --variable=abi_version: '$abi', the header says $want"
	[ "$(pc --variable=abi_major).$(pc --variable=abi_minor)" = "$want" ] &&
		ok "abi_major and abi_minor: $want" || bad "abi_major.abi_minor differ from $want"
fi
hb_reports_ok
echo "1..$n"
