#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The live loader (libcxl) against fake sysfs trees built from the fixture
# specs, compared with the same topology loaded from the real `cxl list -vvv`
# output of that tree: the regions, their mappings and the endpoint
# decoders must be identical. Needs unprivileged or root user namespaces
# (unshare -Urm); exits 77 (skip) where they are not allowed. A refused
# region ("refused" in the output, exit 3) must be refused alike by both.
set -euo pipefail
data=$2
gen=$3
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
unshare -Urm true 2>/dev/null || { echo "unshare -Urm not permitted here"; exit 77; }

. "$(dirname "$0")/lib.sh"
work=$tmp
trap 'rm -rf "$tmp"' EXIT
hbq=$(printf '%q ' "${hb[@]}")
for spec in "$data"/cxl-list/*.spec.json; do
	name=$(basename "$spec" .spec.json)
	snap="$data/cxl-list/$name.vvv.json"
	# cxl-cli 76.1 does not print what the live loader reads beyond libcxl
	# (extended_linear_cache_size): such a tree has a saved live topology
	[ -f "$data/cxl-list/$name.hb.json" ] && snap="$data/cxl-list/$name.hb.json"
	[ -f "$snap" ] || continue
	mkdir -p "$work/$name"
	unshare -Urm sh -c "mount -t tmpfs tmpfs '$work/$name' && python3 '$gen' '$spec' '$work/$name' >/dev/null &&
		mount --bind '$work/$name/sys' /sys && mount --bind '$work/$name/dev' /dev &&
		{ $hbq topology || [ \$? -eq 3 ]; }" > "$work/$name.live.json"
	# exit 3: a region refused (zen5-normalized); both sides must say so alike
	"${hb[@]}" topology --topology "$snap" > "$work/$name.snap.json" || [ $? -eq 3 ]
	python3 - "$work/$name.live.json" "$work/$name.snap.json" "$name" <<'PY'
import json, sys
def parts(path):
    out = {}
    for wrapper in json.load(open(path)):
        for key, objs in wrapper.items():
            for o in objs:
                o.pop("type", None)  # live derives it from decoder mode; 76.1 cxl list has none
                out.setdefault(key, []).append(o)
    for k in out:
        out[k].sort(key=lambda o: json.dumps(o, sort_keys=True))
    return out
live, snap = parts(sys.argv[1]), parts(sys.argv[2])
for key in ("regions", "endpoint decoders", "root decoders"):
    if live.get(key) != snap.get(key):
        print(f"{sys.argv[3]}: {key} differ between libcxl and cxl list -vvv")
        print(" live:", json.dumps(live.get(key))[:2000])
        print(" snap:", json.dumps(snap.get(key))[:2000])
        sys.exit(1)
print(f"ok {sys.argv[3]}: {len(live.get('regions', []))} regions, "
      f"{len(live.get('endpoint decoders', []))} endpoint decoders identical")
PY
	n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
	echo "no fixture specs under $data/cxl-list"
	exit 1
fi
echo "$n topologies compared"
hb_reports_ok
