#!/bin/bash
# The host reports HB_FD_HUP to a source's watch_fd() callback when the
# fd's other end hung up (plugin tests/unit/devices/plugins/hup.c under
# a running daemon):
#  1. a pipe whose writer closed: READ and HUP, the data still read, then
#     end-of-file;
#  2. a socketpair whose other end closed: the same;
#  3. a pipe whose writer stays open: READ without HUP.
#   fd-hup.sh HOTBRIDGE PLUGIN
set -euo pipefail
plugin=$2
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP the plugin directory and config must be root-owned: run as root"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
mkdir -m 0755 "$tmp/plugins"
cp "$plugin" "$tmp/plugins/hup-probe.so"
chmod 0755 "$tmp/plugins/hup-probe.so"
cat >"$tmp/hb.conf" <<CONF
[daemon]
dry_run = true
interval_ms = 100
plugin_dir = $tmp/plugins
control_socket = $tmp/ctl.sock
[topology]
emulated = true
[source pipe]
type = hup-probe
kind = pipe
[source socket]
type = hup-probe
kind = socket
[source open]
type = hup-probe
kind = open
CONF
chmod 0644 "$tmp/hb.conf"
"${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
wait_until 10 grep -q "hup-probe socket: end-of-file" "$tmp/log" || true
wait_until 10 grep -q "hup-probe pipe: end-of-file" "$tmp/log" || true
wait_until 10 grep -q "hup-probe open: revents" "$tmp/log" || true
kill -TERM "$pid"
wait "$pid" || true
pid=
grep hup-probe "$tmp/log" | sed 's/^/# /'
for kind in pipe socket; do
	grep -q "hup-probe $kind: revents READ HUP read 1" "$tmp/log" &&
		ok "$kind: the other end closed: READ and HUP, the data still there" ||
		bad "$kind: no 'READ HUP' callback with the data"
	grep -q "hup-probe $kind: end-of-file, HUP seen" "$tmp/log" &&
		ok "$kind: end-of-file after HUP" || bad "$kind: no end-of-file after a HUP"
done
grep -q "hup-probe open: revents READ read 1" "$tmp/log" &&
	ok "open: the writer still there: READ without HUP" || bad "open: no plain READ callback"
grep -q "hup-probe open: revents.*HUP" "$tmp/log" &&
	bad "open: HUP although the writer is open" || ok "open: no HUP"
hb_reports_ok
echo "1..$n"
