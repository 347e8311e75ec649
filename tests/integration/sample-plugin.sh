#!/bin/bash
# The contrib sample plugin, built the way a vendor builds it: out of tree,
# against the installed hb-device.h found through hotbridge-device.pc, with
# -std=c99 -pedantic -Werror; then test-loader loads that build.
#   sample-plugin.sh BUILD_DIR SOURCE_DIR TEST_LOADER
set -euo pipefail
build=$1 src=$2 loader=$3
command -v make >/dev/null || { echo "SKIP: make not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

DESTDIR=$tmp/root meson install -C "$build" --quiet --no-rebuild >/dev/null
pc=$(dirname "$(find "$tmp/root" -name hotbridge-device.pc | head -1)")
[ -n "$pc" ] || { echo "hotbridge-device.pc was not installed"; exit 1; }
cp -r "$src/contrib/sample-plugin" "$tmp/sample"
PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$tmp/root make -s -C "$tmp/sample"
echo "# built out of tree with $(PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$tmp/root pkg-config --cflags hotbridge-device)"

# test-loader takes its plugins from HB_TEST_PLUGINS: the in-tree bad ones,
# the out-of-tree sample in place of the in-tree one
mkdir "$tmp/plugins"
cp "$build"/tests/libbad-*.so "$tmp/plugins/"
cp "$tmp/sample/sample.so" "$tmp/plugins/libhb-sample.so"
HB_TEST_PLUGINS=$tmp/plugins CMOCKA_MESSAGE_OUTPUT=TAP "$loader"
