#!/bin/bash
# The replay feed socket's socket_group and socket_mode (newuser r4 D37: it
# was root-only, so a vendor's collector had to run as root):
#  1. without them: mode 0600, as before;
#  2. socket_group = nogroup: mode 0660, group nogroup, and a client
#     running as nobody (group nogroup, setpriv) feeds it;
#  3. socket_mode = 0666: a client of another group (daemon) can connect
#     but is refused by the peer check, and says so in the log;
#  4. check-config refuses an unknown group, a zero-padded group number
#     (as every number: newuser r5 E8), a mode that is not octal (saying
#     it is octal by design), and either key on a path=.
#   replay-socket-group.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (setpriv, the control socket)"; exit 0; }
command -v setpriv >/dev/null || { echo "1..0 # SKIP no setpriv"; exit 0; }
getent group nogroup >/dev/null && getent passwd nobody >/dev/null && getent passwd daemon >/dev/null ||
	{ echo "1..0 # SKIP no nobody, nogroup or daemon on this host"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
# the clients must reach the sockets: $tmp searchable, feed/ the group's
chmod 0711 "$tmp"
mkdir -m 0710 "$tmp/feed"
chgrp nogroup "$tmp/feed"
mkdir -m 0711 "$tmp/open"
hb_emulated_conf "$tmp/hb.conf" "dry_run = true" <<CONF
[policy]
threshold = 1000000
[source plain]
type = replay
socket = $tmp/plain.sock
[source group]
type = replay
socket = $tmp/feed/group.sock
socket_group = nogroup
[source open]
type = replay
socket = $tmp/open/open.sock
socket_group = nogroup
socket_mode = 0666
CONF
"${hb[@]}" run --config "$tmp/hb.conf" 2>"$tmp/log" &
pid=$!
wait_until 10 test -S "$tmp/open/open.sock"
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null

[ "$(stat -c '%a %U' "$tmp/plain.sock")" = "600 root" ] && ok "no socket_group: mode 0600, root's, as before" ||
	bad "plain.sock: $(stat -c '%a %U:%G' "$tmp/plain.sock")"
[ "$(stat -c '%a %G' "$tmp/feed/group.sock")" = "660 nogroup" ] && ok "socket_group = nogroup: mode 0660, group nogroup" ||
	bad "group.sock: $(stat -c '%a %U:%G' "$tmp/feed/group.sock")"
[ "$(stat -c '%a %G' "$tmp/open/open.sock")" = "666 nogroup" ] && ok "socket_mode = 0666: mode 0666" ||
	bad "open.sock: $(stat -c '%a %U:%G' "$tmp/open/open.sock")"

cat >"$tmp/client.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect: %s" % e.strerror); sys.exit(1)
s.sendall(b"mem0 dpa=0x1000 len=4096 count=2\nmem0 dpa=0x2000 len=4096 count=2\n")
s.close()
print("sent")
PY
source_of() { # SOURCE FIELD
	"${hb[@]}" sources --socket "$tmp/ctl.sock" |
		python3 -c 'import json,sys; print([s[sys.argv[2]] for s in json.load(sys.stdin)["sources"] if s["name"] == sys.argv[1]][0])' "$1" "$2"
}
records_of() { [ "$(source_of "$1" records)" = "$2" ]; }
# the system's python (root's may be in a directory others cannot read)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
as() { setpriv --reuid="$1" --regid="$2" --clear-groups "$py" "$tmp/client.py" "$3" 2>&1 || true; }

out=$(as nobody nogroup "$tmp/feed/group.sock")
wait_until 10 records_of group 2 && ok "a client as nobody (group nogroup) feeds the socket_group socket: $out, 2 records" ||
	{ sed 's/^/# /' "$tmp/log"; bad "nobody: $out, records $(source_of group records)"; }
out=$(as nobody nogroup "$tmp/plain.sock")
case "$out" in *"Permission denied"*) ok "and cannot reach the root-only socket: $out" ;; *) bad "nobody on plain.sock: $out" ;; esac
out=$(as daemon daemon "$tmp/open/open.sock")
wait_until 10 grep -q "open: a client of uid 1 refused: only root, the daemon's own user and group nogroup may feed it" "$tmp/log" &&
	records_of open 0 && ok "a client of another group (daemon) on the 0666 socket: refused by the peer check, logged" ||
	{ sed 's/^/# /' "$tmp/log"; bad "daemon on open.sock: $out, records $(source_of open records)"; }
kill -TERM "$pid"
wait "$pid" && ok "SIGTERM: exit status 0" || bad "exit status $?"
pid=

refused() { # NAME EXPECTED-MESSAGE, the section on stdin
	local rc=0
	hb_emulated_conf "$tmp/$1.conf" "dry_run = true"
	cat >>"$tmp/$1.conf"
	"${hb[@]}" check-config --config "$tmp/$1.conf" >/dev/null 2>"$tmp/$1.err" || rc=$?
	[ "$rc" -ne 0 ] && grep -qF "$2" "$tmp/$1.err" && ok "check-config refuses $1: $(head -c 160 "$tmp/$1.err")" ||
		bad "$1: exit $rc, $(cat "$tmp/$1.err")"
}
: >"$tmp/feed.txt"
refused unknown-group "socket_group=no-such-group-hb: no such group on this host" <<CONF
[source s]
type = replay
socket = $tmp/s.sock
socket_group = no-such-group-hb
CONF
refused decimal-mode "socket_mode=660x: want an octal mode of 3 or 4 digits" <<CONF
[source s]
type = replay
socket = $tmp/s.sock
socket_mode = 660x
CONF
# newuser r5 E8: a zero-padded number was read as decimal, unlike every other number
refused zero-padded-group "socket_group: '065534' is not a number: a leading zero" <<CONF
[source s]
type = replay
socket = $tmp/s.sock
socket_group = 065534
CONF
refused octal-mode-said "as systemd's SocketMode= (0660): the one number read as octal" <<CONF
[source s]
type = replay
socket = $tmp/s.sock
socket_mode = 0999
CONF
refused group-on-path "socket_group= is for a socket=, not a path=" <<CONF
[source s]
type = replay
path = $tmp/feed.txt
socket_group = nogroup
CONF
hb_reports_ok
echo "1..$n"
