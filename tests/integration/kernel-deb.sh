#!/bin/bash
# The packages `kernel/build --deb` made (suite kernel-deb; skipped until they
# exist, as the vm suite is without a kernel): an installable linux-image and
# linux-headers of our 6.12 series that shadow nothing of Debian's.
#   - exactly linux-image-<release> and linux-headers-<release>, release
#     <version>-hb-mpp (guest config) or -hb-mpp-amd64 (Debian's config);
#     no linux-libc-dev (Debian's own package name);
#   - version <version>~hb.mpp1.r<N>, below any Debian version of that
#     upstream version, source linux-hb-mpp;
#   - the image: /boot/vmlinuz-<release> (a bzImage that names the release),
#     its config and System.map, modules under /lib/modules/<release>/, no file
#     outside those places; the config has NUMA and MIGRATION (what the call
#     needs) and the LOCALVERSION; System.map defines
#     __x64_sys_move_phys_pages as text (the call is built in: a W would be
#     the COND_SYSCALL stub of a kernel without the call); our CHMU perf
#     driver built as a module (CONFIG_CXL_HMU=m, cxl_hmu.ko[.xz]);
#   - the headers: /usr/src/linux-headers-<release> with the image's config
#     (include/config/auto.conf, kernel.release) and Module.symvers, and
#     /lib/modules/<release>/build pointing there.
#   kernel-deb.sh SOURCE_DIR [guest|debian]
set -euo pipefail
src=$1
cfg=${2:-guest}
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kprint=$("$src/kernel/build" --base 6.12 --print) || bad "kernel/build --print failed"
dir=$(sed -n "s/^deb_$cfg=//p" <<<"$kprint")
[ -n "$dir" ] || bad "kernel/build --print names no deb_$cfg directory"
shopt -s nullglob
debs=("$dir"/*.deb)
if [ ${#debs[@]} -eq 0 ]; then
	echo "1..0 # SKIP no packages in $dir (kernel/build --deb$([ "$cfg" = guest ] || echo " --config $cfg"))"
	exit 0
fi

case $cfg in
guest) suffix=-hb-mpp ;;
debian) suffix=-hb-mpp-amd64 ;;
*) bad "unknown config '$cfg' (guest or debian)" ;;
esac

# the names: one image, one headers package, nothing else
image=() headers=() other=()
for d in "${debs[@]}"; do
	case $(basename "$d") in
	linux-image-*-dbg_*) other+=("$(basename "$d")") ;;
	linux-image-*) image+=("$d") ;;
	linux-headers-*) headers+=("$d") ;;
	*) other+=("$(basename "$d")") ;;
	esac
done
[ ${#other[@]} -eq 0 ] || bad "packages other than linux-image and linux-headers: ${other[*]}"
[ ${#image[@]} -eq 1 ] && [ ${#headers[@]} -eq 1 ] ||
	bad "want one linux-image and one linux-headers .deb, found ${#image[@]} and ${#headers[@]}"
field() { dpkg-deb -f "$1" "$2"; }
pkg=$(field "${image[0]}" Package)
rel=${pkg#linux-image-}
kver=${rel%"$suffix"}
ver=$(field "${image[0]}" Version)
[[ $rel =~ ^6\.12\.[0-9]+$suffix$ ]] || bad "image package $pkg: the release is not 6.12.N$suffix"
ok "packages: $pkg and $(field "${headers[0]}" Package), version $ver"
[ "$(field "${headers[0]}" Package)" = "linux-headers-$rel" ] ||
	bad "headers package $(field "${headers[0]}" Package), want linux-headers-$rel"
[[ $ver =~ ^$kver~hb\.mpp1\.r[0-9]+$ ]] || bad "version $ver is not $kver~hb.mpp1.rN"
[ "$(field "${headers[0]}" Version)" = "$ver" ] || bad "the headers' version differs from $ver"
dpkg --compare-versions "$ver" lt "$kver-1~" ||
	bad "version $ver does not sort below Debian's revisions of $kver"
for d in "${image[0]}" "${headers[0]}"; do
	s=$(field "$d" Source)
	[ "${s%% *}" = linux-hb-mpp ] || bad "$(basename "$d"): source '$s', want linux-hb-mpp"
	for f in Provides Replaces Conflicts Breaks; do
		[ -z "$(field "$d" "$f")" ] || bad "$(basename "$d") has $f: $(field "$d" "$f")"
	done
done
ok "named apart from Debian's: release $rel, version $ver below $kver-1, source linux-hb-mpp, no Provides/Replaces"

# the image's files
dpkg-deb -c "${image[0]}" | awk '{print $6}' | sed 's,^\./,/,' >"$tmp/image.list"
for f in "/boot/vmlinuz-$rel" "/boot/config-$rel" "/boot/System.map-$rel" \
	"/lib/modules/$rel/modules.order" "/lib/modules/$rel/modules.builtin"; do
	grep -qxF "$f" "$tmp/image.list" || bad "$f is not in $(basename "${image[0]}")"
done
# Debian's config compresses modules (CONFIG_MODULE_COMPRESS_XZ): .ko.xz
nko=$(grep -cE "^/lib/modules/$rel/kernel/.*\.ko(\.xz|\.zst|\.gz)?$" "$tmp/image.list" || true)
[ "$nko" -gt 0 ] || bad "no modules under /lib/modules/$rel/kernel"
outside=$(grep -v -e "^/$" -e "^/boot/$" -e "^/boot/[a-zA-Z.]*-$rel$" \
	-e "^/lib/$" -e "^/lib/modules/$" -e "^/lib/modules/$rel/" \
	-e "^/usr/$" -e "^/usr/share/$" -e "^/usr/share/doc/$" -e "^/usr/share/doc/$pkg/" \
	-e "^/etc/$" -e "^/etc/kernel/" "$tmp/image.list" || true)
[ -z "$outside" ] || bad "files outside the release's own places: $(head -5 <<<"$outside" | tr '\n' ' ')"
ok "image: vmlinuz, config, System.map of $rel, $nko modules, no other file of the system's"

mkdir "$tmp/image" "$tmp/headers"
dpkg-deb -x "${image[0]}" "$tmp/image"
dpkg-deb -x "${headers[0]}" "$tmp/headers"
config=$tmp/image/boot/config-$rel
for opt in CONFIG_NUMA=y CONFIG_MIGRATION=y CONFIG_MODULES=y "CONFIG_LOCALVERSION=\"$suffix\""; do
	grep -qxF "$opt" "$config" || bad "/boot/config-$rel lacks $opt"
done
ok "config: NUMA, MIGRATION, MODULES and LOCALVERSION $suffix"
sym=$(awk '$3 == "__x64_sys_move_phys_pages" {print $2}' "$tmp/image/boot/System.map-$rel")
[ "$sym" = T ] || bad "System.map-$rel: __x64_sys_move_phys_pages is '${sym:-absent}', want T (the call, not a stub)"
# the bzImage names its release: the string at 0x200 + the le16 at 0x20e
voff=$(od -An -tu2 -j $((0x20e)) -N2 "$tmp/image/boot/vmlinuz-$rel" | tr -d ' ')
kstr=$(dd if="$tmp/image/boot/vmlinuz-$rel" bs=1 skip=$((0x200 + voff)) count=128 status=none | tr '\0' '\n' | head -1)
[ "${kstr%% *}" = "$rel" ] || bad "vmlinuz-$rel says it is '${kstr%% *}'"
ok "the call is in: T __x64_sys_move_phys_pages; vmlinuz: $kstr"
# our CHMU perf driver (patch 0005), a module in both configs
grep -qxF CONFIG_CXL_HMU=m "$config" || bad "/boot/config-$rel lacks CONFIG_CXL_HMU=m"
hmu=$(grep -E "^/lib/modules/$rel/kernel/drivers/cxl/cxl_hmu\.ko(\.xz|\.zst|\.gz)?$" "$tmp/image.list" || true)
[ -n "$hmu" ] || bad "no cxl_hmu module under /lib/modules/$rel/kernel/drivers/cxl"
ok "the CHMU perf driver: CONFIG_CXL_HMU=m, $hmu"

hdr=$tmp/headers/usr/src/linux-headers-$rel
[ -f "$hdr/Module.symvers" ] || bad "no Module.symvers in linux-headers-$rel"
[ "$(cat "$hdr/include/config/kernel.release" 2>/dev/null)" = "$rel" ] ||
	bad "the headers' include/config/kernel.release is not $rel"
# auto.conf: the config as Kbuild reads it (strings unquoted)
grep -vxF "CONFIG_LOCALVERSION=\"$suffix\"" "$config" | grep '^CONFIG_' | sed 's/="\(.*\)"$/=\1/' | sort >"$tmp/want"
grep -vxF "CONFIG_LOCALVERSION=$suffix" "$hdr/include/config/auto.conf" | grep '^CONFIG_' | sed 's/="\(.*\)"$/=\1/' | sort >"$tmp/got"
grep -qxF "CONFIG_LOCALVERSION=$suffix" "$hdr/include/config/auto.conf" && cmp -s "$tmp/want" "$tmp/got" ||
	bad "the headers' include/config/auto.conf is not the image's config ($(diff "$tmp/want" "$tmp/got" | head -3 | tr '\n' ' '))"
[ "$(readlink "$tmp/headers/lib/modules/$rel/build")" = "/usr/src/linux-headers-$rel" ] ||
	bad "/lib/modules/$rel/build does not point to /usr/src/linux-headers-$rel"
ok "headers: /usr/src/linux-headers-$rel (the image's config, Module.symvers), /lib/modules/$rel/build"
echo "1..$n"
