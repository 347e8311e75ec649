#!/bin/bash
# The daemon's log in the journal (daemon/logger.h, issue 44): when stderr is
# the journal's stream ($JOURNAL_STREAM names it), each record goes through
# sd_journal_sendv with PRIORITY=, SYSLOG_IDENTIFIER=hotbridge and the
# fields it is about, here SOURCE= and MEMDEV= of a replay source fed a bad
# line; where the journal does not take it (nobody listens, or its socket is
# missing), the record is not lost: it goes to stderr as a "<N>" line. The journal is a datagram
# listener on /run/systemd/journal/socket in a mount namespace of the
# test's own (a tmpfs on /run), so no journald is needed or touched.
#   journal.sh HOTBRIDGE
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (a mount namespace for the fake journal)"; exit 0; }
if [ "${HB_JOURNAL_NS:-}" != 1 ]; then
	HB_JOURNAL_NS=1 exec unshare -m --propagation private "$0" "$@" ||
		{ echo "1..0 # SKIP unshare -m failed: no mount namespace here"; exit 0; }
fi
. "$(dirname "$0")/lib.sh"
trap 'kill "$pid" "$lpid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid= lpid=
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/journal

python3 - /run/systemd/journal/socket "$tmp/j.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as log:
    while True:
        log.write(s.recv(65536).decode(errors="replace").rstrip("\n").replace("\n", "|") + "\n")
PY
lpid=$!
wait_until 5 test -S /run/systemd/journal/socket || bad "the fake journal did not start"

: >"$tmp/feed.log"
hb_emulated_conf "$tmp/hb.conf" <<CONF
[source feed]
type = replay
path = $tmp/feed.log
memdev = mem0
CONF
: >"$tmp/d.err"
JOURNAL_STREAM=$(stat -c %d:%i "$tmp/d.err") "${hb[@]}" run --dry-run --config "$tmp/hb.conf" \
	2>>"$tmp/d.err" &
pid=$!
wait_until 10 test -S "$tmp/ctl.sock" || { sed 's/^/# /' "$tmp/d.err"; bad "daemon did not start"; }
in_journal() { grep -q "$1" "$tmp/j.log"; }
wait_until 10 in_journal "SYSLOG_IDENTIFIER=hotbridge" &&
	ok "start-up records in the journal: $(grep -c . "$tmp/j.log")" ||
	{ sed 's/^/# /' "$tmp/d.err"; bad "nothing reached the journal"; }

echo "this is not a record" >>"$tmp/feed.log"
wait_until 10 in_journal "^MESSAGE=source feed: .*|PRIORITY=4|SYSLOG_IDENTIFIER=hotbridge|SOURCE=feed|MEMDEV=mem0$" &&
	ok "a bad record's warning with SOURCE=feed MEMDEV=mem0 PRIORITY=4: $(grep -m1 'SOURCE=feed' "$tmp/j.log" | cut -c1-100)" ||
	{ sed 's/^/# /' "$tmp/j.log" "$tmp/d.err"; bad "no journal record with SOURCE= and MEMDEV="; }
! grep -q "source feed:" "$tmp/d.err" && ok "the journal's records are not written to stderr too" ||
	{ sed 's/^/# /' "$tmp/d.err"; bad "a record went to the journal and to stderr"; }

# nobody listens: the record goes to stderr as a journald "<N>" line
kill "$lpid"; wait "$lpid" 2>/dev/null || true
lpid=
echo "nor is this" >>"$tmp/feed.log"
in_err() { grep -q "$1" "$tmp/d.err"; }
wait_until 10 in_err "^<4>source feed: " &&
	ok "no journal: the warning on stderr: $(grep -m1 '^<4>source feed' "$tmp/d.err" | cut -c1-80)" ||
	{ sed 's/^/# /' "$tmp/d.err"; bad "a record lost when the journal did not take it"; }
# no journal socket at all (sd_journal_sendv says 0 then, and sends nothing)
rm -f /run/systemd/journal/socket
echo "nor this" >>"$tmp/feed.log"
wait_until 10 in_err "^<4>source feed: .*:3: " &&
	ok "no journal socket: the warning on stderr: $(grep -m1 '^<4>source feed: .*:3: ' "$tmp/d.err" | cut -c1-80)" ||
	{ sed 's/^/# /' "$tmp/d.err"; bad "a record lost when the journal's socket was missing"; }
kill -TERM "$pid"
wait "$pid" || bad "daemon exit $?"
pid=
hb_reports_ok
echo "1..$n"
