#!/bin/bash
# The host reports HB_FD_HUP to a source's watch_fd() callback when the
# fd's other end hung up (plugin tests/unit/devices/plugins/hup.c under
# a running daemon):
#  1. a pipe whose writer closed: READ and HUP, the data still read, then
#     end-of-file;
#  2. a socketpair whose other end closed: the same;
#  3. a pipe whose writer stays open: READ without HUP;
#  4. HUP is not the end of the data: a replay socket client that queued
#     more than one read's worth (1 MiB) and closed before the daemon read
#     any of it (the daemon stopped meanwhile) has every record counted.
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
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
chmod 0644 "$tmp/hb.conf"
"${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
wait_until 10 grep -q "hup-probe socket: end-of-file" "$tmp/log" || true
wait_until 10 grep -q "hup-probe pipe: end-of-file" "$tmp/log" || true
wait_until 10 grep -q "hup-probe open: revents" "$tmp/log" || true

# 4. while the daemon is stopped: connect, queue ~2 MiB of records, close
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null
# (trial42 #5) a source with no poll that watches no fd any more is stopped:
# sources says so (disabled), not only the log
disabled() { "${hb[@]}" sources --socket "$tmp/ctl.sock" | python3 -c '
import json, sys
print(" ".join("%s=%s" % (s["name"], str(s["disabled"]).lower()) for s in json.load(sys.stdin)["sources"]))'; }
# out of process (the default for a plugin), the daemon sees it after
# the host's polls failed 10 times in a row: a second at interval_ms 100
all_stopped() { [ "$(disabled)" = "pipe=true socket=true open=false feed=false" ]; }
wait_until 10 all_stopped || true
stopped=$(disabled)
nrec=60000
kill -STOP "$pid"
python3 - "$tmp/feed.sock" "$nrec" <<'PY'
import socket, sys
path, n = sys.argv[1], int(sys.argv[2])
data = b"".join(b"mem0 dpa=0x%x len=4096 count=1\n" % ((i % 100000) << 12) for i in range(n))
s = socket.socket(socket.AF_UNIX)
s.setsockopt(socket.SOL_SOCKET, 32, 2 * len(data))   # SO_SNDBUFFORCE (root): all of it queued
s.connect(path)
s.sendall(data)
s.close()
print("# queued %d bytes, %d records, then closed" % (len(data), n))
PY
kill -CONT "$pid"
records() { "${hb[@]}" stats --socket "$tmp/ctl.sock" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["records"])'; }
all_counted() { [ "$(records)" = "$nrec" ]; }
wait_until 30 all_counted || true
got=$(records || echo "no answer")
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
[ "$stopped" = "pipe=true socket=true open=false feed=false" ] &&
	ok "sources: the probes that closed their only fd are disabled, the others not ($stopped)" ||
	bad "sources: $stopped, want pipe=true socket=true open=false feed=false"
for kind in pipe socket; do
	grep -q "$kind: it watches no fd and has no poll or timer left: stopped" "$tmp/log" &&
		ok "$kind: the log says the source stopped" || bad "$kind: no log line saying it stopped"
done
[ "$got" = "$nrec" ] && ok "replay socket: all $nrec records of a client that closed with 2 MiB queued" ||
	bad "replay socket: $got of $nrec records: data dropped at the hang-up"
hb_reports_ok
echo "1..$n"
