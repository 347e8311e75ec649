#!/bin/bash
# Every path the daemon creates, against planted links (as root):
#  1. metrics_textfile: symbolic links to a victim file planted at
#     <path>.tmp and other likely temporary names, and at <path> itself:
#     the victim is untouched, the links stay, the textfile is a regular
#     file of mode 0644 with the metrics, and no temporary is left;
#  2. the lock file <control_socket>.lock as a link: run refuses, naming it;
#  3. a link at the control socket's path and a regular file at the feed
#     socket's: neither is followed, removed or replaced;
#  4. a temporary a killed run left (.hotbridge.prom.XXXXXXXX) is removed
#     at the next start, and nothing else (newuser r5 E17).
#   textfile-symlink.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the daemon's files are root's)"; exit 0; }
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=

mkdir "$tmp/prom"
prom=$tmp/prom/hotbridge.prom
hb_emulated_conf "$tmp/hb.conf" "metrics_textfile = $prom" <<CONF
[source feed]
type = replay
socket = $tmp/feed.sock
CONF
echo "precious: root's file, never to be written by hotbridge" >"$tmp/victim"
chmod 0600 "$tmp/victim"
cp -p "$tmp/victim" "$tmp/victim.orig"
victim_ok() { cmp -s "$tmp/victim" "$tmp/victim.orig"; }

# 1. the textfile
names=(hotbridge.prom.tmp .hotbridge.prom.tmp hotbridge.prom~ hotbridge.prom.new .hotbridge.prom
	hotbridge.prom.tmp.0 .hotbridge.prom.swp)
for name in "${names[@]}"; do ln -s "$tmp/victim" "$tmp/prom/$name"; done
"${hb[@]}" run --once --dry-run --config "$tmp/hb.conf" >"$tmp/once1.out" 2>"$tmp/once1.err" || true
victim_ok && ok "links at ${#names[@]} likely temporary names: the victim is untouched" ||
	bad "the victim was written through a link: $(head -c 80 "$tmp/victim")"
[ -f "$prom" ] && [ ! -L "$prom" ] && grep -q '^hotbridge_cycles_total 1$' "$prom" &&
	ok "the textfile is written, with the metrics" || bad "no textfile: $(ls -la "$tmp/prom")"
[ "$(stat -c %a "$prom")" = 644 ] && ok "mode 0644" || bad "mode $(stat -c %a "$prom")"
kept=0
for name in "${names[@]}"; do
	[ "$(readlink "$tmp/prom/$name")" = "$tmp/victim" ] && kept=$((kept + 1))
done
[ "$kept" -eq "${#names[@]}" ] && ok "the planted links are left as they were" || bad "links changed"
left=$(find "$tmp/prom" -mindepth 1 ! -type l ! -name hotbridge.prom)
[ -z "$left" ] && ok "no temporary left behind" || bad "left behind: $left"

rm "$prom"
ln -s "$tmp/victim" "$prom"
"${hb[@]}" run --once --dry-run --config "$tmp/hb.conf" >"$tmp/once2.out" 2>"$tmp/once2.err" || true
victim_ok && [ -f "$prom" ] && [ ! -L "$prom" ] && grep -q '^hotbridge_cycles_total 1$' "$prom" &&
	ok "a link at the textfile's path is replaced by the file, not followed" ||
	bad "the textfile's link was followed"

# 2. the lock file
ln -s "$tmp/victim" "$tmp/ctl.sock.lock"
rc=0
timeout $((10 * slow)) "${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/lock.err" || rc=$?
head -3 "$tmp/lock.err" | sed 's/^/# /'
[ "$rc" -eq 1 ] && grep -q "$tmp/ctl.sock.lock is a symbolic link; refusing" "$tmp/lock.err" &&
	victim_ok && ok "a link as the lock file: run exits 1 naming it, victim untouched" ||
	bad "lock file link: exit $rc"
rm "$tmp/ctl.sock.lock"

# 3. the sockets' paths: a link at the control socket's, a user's file at
# the feed's. Each is refused and named, in turn: with its only source
# refused, the daemon exits 1 ("no source opened") before its control socket.
ln -s "$tmp/victim" "$tmp/ctl.sock"
echo "a feed's user file" >"$tmp/feed.sock"
rc=0
timeout $((10 * slow)) "${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/sock.err" || rc=$?
grep "not a socket" "$tmp/sock.err" | sed 's/^/# /'
[ "$rc" -eq 1 ] && grep -q "feed.sock exists and is not a socket" "$tmp/sock.err" &&
	ok "the feed socket's path refused, named, run exits 1 with no source" ||
	bad "feed socket path: exit $rc: $(cat "$tmp/sock.err")"
mv "$tmp/feed.sock" "$tmp/feed.file"
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/sock.err" &
pid=$!
wait_until 10 grep -q "ctl.sock exists and is not a socket" "$tmp/sock.err" || true
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=
mv "$tmp/feed.file" "$tmp/feed.sock"
grep "not a socket" "$tmp/sock.err" | sed 's/^/# /'
grep -q "ctl.sock exists and is not a socket" "$tmp/sock.err" &&
	ok "the control socket's path refused, named" || bad "control socket path: $(cat "$tmp/sock.err")"
[ "$(readlink "$tmp/ctl.sock")" = "$tmp/victim" ] && victim_ok &&
	ok "the link at the control socket's path is left, its target untouched" ||
	bad "control socket link"
[ "$(cat "$tmp/feed.sock")" = "a feed's user file" ] &&
	ok "the regular file at the feed socket's path is left as it was" || bad "feed file replaced"

# 4. temporaries a SIGKILL left
rm "$tmp/ctl.sock" "$tmp/feed.sock"
echo "stale metrics" >"$tmp/prom/.hotbridge.prom.046f763f"
for name in .hotbridge.prom.046F763F .hotbridge.prom.046f763 .hotbridge.prom.046f763f0 .other.prom.046f763f; do
	echo "not ours" >"$tmp/prom/$name"
done
ln -s "$tmp/victim" "$tmp/prom/.hotbridge.prom.12345678"
"${hb[@]}" run --dry-run --config "$tmp/hb.conf" 2>"$tmp/stale.err" &
pid=$!
wait_until 10 "${hb[@]}" status --socket "$tmp/ctl.sock" >/dev/null || bad "the daemon did not start: $(tail -1 "$tmp/stale.err")"
kill -TERM "$pid"
wait "$pid" || true
pid=
left=$(cd "$tmp/prom" && echo .hotbridge.prom.* .other.prom.*)
[ ! -e "$tmp/prom/.hotbridge.prom.046f763f" ] &&
	grep -qF "$prom: removed 1 temporary file a killed run left" "$tmp/stale.err" &&
	[ "$left" = ".hotbridge.prom.046F763F .hotbridge.prom.046f763 .hotbridge.prom.046f763f0 .hotbridge.prom.12345678 .hotbridge.prom.swp .hotbridge.prom.tmp .other.prom.046f763f" ] &&
	victim_ok && ok "a killed run's temporary is removed at start, nothing else" ||
	bad "stale temporaries: left $left; $(grep -i temporar "$tmp/stale.err")"
hb_reports_ok
echo "1..$n"
