#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerates contrib/man/hotbridge.conf.5.in from the config key table:
# what `hotbridge check-config --man` prints, with the build's version and
# default plugin directory and configuration put back as @VERSION@,
# @PLUGINDIR@ and @CONFIG@ (which
# contrib/meson.build fills in at configure time). Run through
# `ninja -C build update-conf-man` after changing a key; the packaging test
# fails while the checked-in page is stale.
#   update-conf-man.sh HOTBRIDGE VERSION PLUGINDIR OUTPUT CONFIG
set -eu
hb=$1 version=$2 plugindir=$3 out=$4 config=$5
tmp=$out.tmp
trap 'rm -f "$tmp"' EXIT
"$hb" check-config --man >"$tmp"
python3 - "$tmp" "$version" "$plugindir" "$config" <<'PY'
import sys
path, version, plugindir, config = sys.argv[1:5]
plugindir = plugindir.replace('\\', '\\e').replace('-', '\\-')   # as roff() writes it
config = config.replace('\\', '\\e').replace('-', '\\-')
s = open(path).read()
for old, new in ((f'"hotbridge {version}"', '"hotbridge @VERSION@"'),
                 (f'Default: {plugindir}.', 'Default: @PLUGINDIR@.'),
                 (f'{config}, {config}.d/*.conf', '@CONFIG@, @CONFIG@.d/*.conf')):
    if s.count(old) != 1:
        sys.exit(f"update-conf-man: expected '{old}' once in the page, found it {s.count(old)} times")
    s = s.replace(old, new)
open(path, 'w').write(s)
PY
mv "$tmp" "$out"
