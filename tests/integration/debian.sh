#!/bin/bash
# The Debian packages (contrib/debian/) as an operator gets them:
#  - contrib/debian/build-debs builds hotbridge and hotbridge-dev for
#    meson.build's version, revision 1, running the unit suite, and lintian (when installed) finds
#    nothing but the overrides that carry their reasons;
#  - `dpkg -i` installs them; the installed hotbridge prints that version,
#    accepts the installed example, reads /etc/hotbridge/hotbridge.conf by
#    default and runs a dry-run cycle from it; the unit is enabled, waits
#    for that file (ConditionPathExists=, and the package ships nothing in
#    /etc) and passes `systemd-analyze verify`;
#  - the sample plugin builds against the installed hotbridge-dev alone
#    (pkg-config from /usr, no PKG_CONFIG_PATH) and the daemon lists it;
#  - `dpkg --purge` leaves nothing: none of the packages' files, no
#    /etc/hotbridge, no unit symlink or deb-systemd-helper state.
# Root only (dpkg -i), and only where dpkg-buildpackage and debhelper are;
# skipped where hotbridge is installed already (the purge would take the
# operator's), and under valgrind and the sanitizers: the packages are
# built from the sources again, so a checker adds nothing.
#   debian.sh SOURCE_DIR VERSION B_SANITIZE
set -euo pipefail
src=$1 version=$2 sanitize=$3
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip_all "dpkg -i wants root"
command -v dpkg-buildpackage >/dev/null || skip_all "no dpkg-buildpackage (apt-get install dpkg-dev)"
command -v dh >/dev/null || skip_all "no debhelper (apt-get install debhelper)"
[ -z "${HB_WRAP:-}" ] || skip_all "the packages are built from the sources: valgrind adds nothing"
[ "$sanitize" = none ] || skip_all "the packages are built from the sources: b_sanitize=$sanitize adds nothing"
for p in hotbridge hotbridge-dev; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$st" in
	'' | un*) ;;
	*) skip_all "package $p is on this host ($st): the test would replace and purge it" ;;
	esac
done
[ ! -e /etc/hotbridge ] || skip_all "/etc/hotbridge exists: the purge would remove its configuration"

. "$(dirname "$0")/lib.sh" /usr/bin/hotbridge
installed=0
cleanup() {
	if [ "$installed" -eq 1 ]; then
		dpkg --purge hotbridge-dev hotbridge >/dev/null 2>&1 || true
	fi
	# not there when the test started: what a failed test left
	rm -rf /etc/hotbridge "$tmp"
}
trap cleanup EXIT

# build
mkdir "$tmp/debs"
start=$SECONDS
# with the unit suite (dh_auto_test), as a package build does: it proves
# the scratch copy of the tree whole (tests/data's dangling symlinks too)
if env -u DEB_BUILD_OPTIONS "$src/contrib/debian/build-debs" --out "$tmp/debs" >"$tmp/build.log" 2>&1; then
	ok "build-debs built the packages, the unit suite passing, in $((SECONDS - start)) s"
else
	sed 's/^/# /' "$tmp/build.log" | tail -40
	bad "build-debs failed (above)"
fi
arch=$(dpkg --print-architecture)
deb=$tmp/debs/hotbridge_${version}-1_$arch.deb
dev=$tmp/debs/hotbridge-dev_${version}-1_$arch.deb
for f in "$deb" "$dev"; do
	[ -f "$f" ] && ok "${f##*/} (meson.build's version $version, revision 1)" ||
		bad "no ${f##*/}; built: $(cd "$tmp/debs" && ls | tr '\n' ' ')"
done
if dpkg-deb -c "$deb" | awk '{print $6}' | grep -q '^\./etc/'; then
	bad "hotbridge ships files in /etc: $(dpkg-deb -c "$deb" | awk '{print $6}' | grep '^\./etc/' | tr '\n' ' ')"
fi
ok "hotbridge ships nothing in /etc (the example is documentation)"

if command -v lintian >/dev/null; then
	if lintian --fail-on error,warning,info,pedantic --display-info --pedantic \
		"$tmp/debs/hotbridge_${version}-1_$arch.changes" >"$tmp/lintian.out" 2>&1; then
		ok "lintian --pedantic: no tag left"
	else
		sed 's/^/# /' "$tmp/lintian.out"
		bad "lintian found tags (above): fix them, or override with the reason"
	fi
else
	skip "lintian not installed"
fi

# install
if dpkg -i "$deb" "$dev" >"$tmp/dpkg.log" 2>&1; then
	installed=1
	ok "dpkg -i hotbridge hotbridge-dev"
else
	installed=1
	sed 's/^/# /' "$tmp/dpkg.log"
	bad "dpkg -i failed (above)"
fi
dpkg -L hotbridge hotbridge-dev | grep -vx "/\." | sort -u >"$tmp/files"

got=$(hotbridge --version)
[ "$got" = "$version" ] && ok "hotbridge --version: $got" || bad "hotbridge --version: '$got', want $version"
[ "$(command -v hotbridge)" = /usr/bin/hotbridge ] && ok "hotbridge is /usr/bin/hotbridge" ||
	bad "hotbridge is '$(command -v hotbridge)'"

example=/usr/share/doc/hotbridge/examples/hotbridge.conf
if hotbridge check-config --no-dropins --config "$example" >"$tmp/cc.out" 2>&1; then
	ok "check-config accepts the installed example $example"
else
	sed 's/^/# /' "$tmp/cc.out"
	bad "check-config refuses the installed example"
fi

# the unit: enabled, waiting for the configuration, valid
unit=$(grep -E '/systemd/system/hotbridge\.service$' "$tmp/files" | head -1)
[ -n "$unit" ] && ok "the unit is $unit" || bad "no hotbridge.service among the installed files"
[ -L /etc/systemd/system/multi-user.target.wants/hotbridge.service ] &&
	ok "the unit is enabled (multi-user.target.wants)" || bad "the unit is not enabled"
cond=$(sed -n 's/^ConditionPathExists=//p' "$unit")
[ "$cond" = /etc/hotbridge/hotbridge.conf ] && ok "the unit waits for $cond" ||
	bad "the unit's ConditionPathExists='$cond', want /etc/hotbridge/hotbridge.conf"
[ ! -e "$cond" ] && ok "no $cond after installation: the unit does not start" ||
	bad "$cond exists after installation"
if [ -d /run/systemd/system ]; then
	state=$(systemctl is-active hotbridge.service || true)
	[ "$state" != active ] && ok "systemd: hotbridge.service is $state" ||
		bad "systemd started hotbridge.service without a configuration"
else
	skip "systemd is not running here: its start of the unit not observed"
fi
for key in ExecStartPre ExecStart; do
	case "$(sed -n "s/^$key=//p" "$unit")" in
	"/usr/bin/hotbridge "*) ok "unit: $key runs /usr/bin/hotbridge" ;;
	*) bad "unit: $key='$(sed -n "s/^$key=//p" "$unit")'" ;;
	esac
done
if command -v systemd-analyze >/dev/null; then
	if systemd-analyze verify "$unit" >"$tmp/verify.out" 2>&1; then
		ok "systemd-analyze verify $unit"
	else
		sed 's/^/# /' "$tmp/verify.out"
		bad "systemd-analyze verify failed (above)"
	fi
else
	skip "systemd-analyze not installed"
fi

# the administrator's configuration, read from its default path
mkdir -p /etc/hotbridge
hb_emulated_conf /etc/hotbridge/hotbridge.conf 'dry_run = true' <<CONF
[source e0]
type = emul-chmu
memdev = mem0
CONF
if hotbridge check-config >"$tmp/cc.out" 2>&1; then
	ok "check-config reads /etc/hotbridge/hotbridge.conf by default"
else
	sed 's/^/# /' "$tmp/cc.out"
	bad "check-config refuses /etc/hotbridge/hotbridge.conf"
fi
if hotbridge run --once >"$tmp/run.out" 2>"$tmp/run.err" && grep -q '^cycles 1, records [1-9]' "$tmp/run.out"; then
	ok "run --once from it: $(head -1 "$tmp/run.out")"
else
	sed 's/^/# /' "$tmp/run.out" "$tmp/run.err" | tail -20
	bad "run --once on the installed configuration failed"
fi

# the sample plugin against the installed hotbridge-dev alone
plugindir=$(env -u PKG_CONFIG_PATH pkg-config --variable=plugindir hotbridge-device)
grep -qxF "$plugindir" "$tmp/files" && ok "the .pc's plugindir $plugindir is the package's" ||
	bad "the .pc's plugindir '$plugindir' is not among the package's directories"
cp -r "$src/contrib/sample-plugin" "$tmp/sample"
if (cd "$tmp/sample" && env -u PKG_CONFIG_PATH sh -c \
	'cc -std=c99 -pedantic -Wall -Wextra -Werror -O2 -fPIC -fvisibility=hidden \
		$(pkg-config --cflags hotbridge-device) -shared -o sample.so sample.c') >"$tmp/cc.log" 2>&1; then
	ok "the sample plugin builds with pkg-config --cflags hotbridge-device from /usr"
else
	sed 's/^/# /' "$tmp/cc.log"
	bad "the sample plugin does not build against hotbridge-dev (above)"
fi
mkdir -m 0755 "$tmp/plugins"
install -m 0755 "$tmp/sample/sample.so" "$tmp/plugins/sample.so"
chmod 0755 "$tmp"
hotbridge list --plugin-dir "$tmp/plugins" >"$tmp/list.out" 2>&1 || true
grep -q "\"path\": \"$tmp/plugins/sample.so\"" "$tmp/list.out" &&
	ok "the installed hotbridge lists the plugin" ||
	{ sed 's/^/# /' "$tmp/list.out" | tail -20; bad "hotbridge list does not show the plugin"; }

# purge: nothing left
if dpkg --purge hotbridge-dev hotbridge >"$tmp/purge.log" 2>&1; then
	installed=0
	ok "dpkg --purge hotbridge-dev hotbridge"
else
	sed 's/^/# /' "$tmp/purge.log"
	bad "dpkg --purge failed (above)"
fi
left=()
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	# a directory another package owns too (/usr, /usr/share/man/man8, ...)
	[ -d "$f" ] && dpkg -S "$f" >/dev/null 2>&1 && continue
	left+=("$f")
done <"$tmp/files"
[ "${#left[@]}" -eq 0 ] && ok "purge: none of the $(wc -l <"$tmp/files") packaged paths is left" ||
	bad "purge left: ${left[*]}"
[ ! -e /etc/hotbridge ] && ok "purge: /etc/hotbridge is gone" ||
	bad "purge left /etc/hotbridge: $(find /etc/hotbridge | tr '\n' ' ')"
stray=$(find /etc/systemd /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
	-name 'hotbridge*' 2>/dev/null | tr '\n' ' ' || true)
[ -z "$stray" ] && ok "purge: no unit symlink or deb-systemd-helper state" || bad "purge left $stray"
for p in hotbridge hotbridge-dev; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$st" in
	'' | un*) ok "purge: dpkg knows no $p" ;;
	*) bad "purge: $p is '$st'" ;;
	esac
done
hb_reports_ok
echo "1..$n"
