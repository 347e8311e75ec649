#!/bin/bash
# Two replay sources reading one input are refused, by check-config and by
# run alike, naming both sections (newuser r4 D12: every record of a file
# counted twice, a FIFO's split between them): the same file by the same
# path or another (a hard link), the same FIFO, the same socket path
# spelled another way; two different files are fine.
#   replay-one-source-per-input.sh HOTBRIDGE
set -euo pipefail
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/feed.log"
: >"$tmp/other.log"
ln "$tmp/feed.log" "$tmp/feed-link.log"
mkfifo "$tmp/fifo"
conf() { # NAME PARAM-F PARAM-G: sources f and g
	printf '[daemon]\ndry_run = true\ncontrol_socket = %s\n[topology]\nemulated = true\n[source f]\ntype = replay\n%s\n[source g]\ntype = replay\n%s\n' \
		"$tmp/$1.sock" "$2" "$3" >"$tmp/$1.conf"
	chmod 0644 "$tmp/$1.conf"
}
refused() { # NAME: check-config and run --once both refuse, naming f and g
	local rc1=0 rc2=0 want="[source g]: reads the same $2 as [source f] ($tmp/$1.conf:"
	"${hb[@]}" check-config --config "$tmp/$1.conf" >/dev/null 2>"$tmp/$1.check" || rc1=$?
	"${hb[@]}" run --once --config "$tmp/$1.conf" >/dev/null 2>"$tmp/$1.run" || rc2=$?
	[ "$rc1" -ne 0 ] && [ "$rc2" -ne 0 ] && grep -qF -- "$want" "$tmp/$1.check" && grep -qF -- "$want" "$tmp/$1.run" &&
		ok "$1: check-config and run refuse it: $(grep -o '\[source g\].*' "$tmp/$1.check" | head -c 200)" ||
		{ sed 's/^/# /' "$tmp/$1.check" "$tmp/$1.run"; bad "$1: exit $rc1 / $rc2, want both to refuse with '$want'"; }
}
conf same-path "path = $tmp/feed.log" "path = $tmp/feed.log"
refused same-path "file or FIFO"
conf hard-link "path = $tmp/feed.log" "path = $tmp/feed-link.log"
refused hard-link "file or FIFO"
conf same-fifo "path = $tmp/fifo" "path = $tmp/./fifo"
refused same-fifo "file or FIFO"
conf same-socket "socket = $tmp/feed.sock" "socket = $tmp/../$(basename "$tmp")/feed.sock"
refused same-socket "socket"
conf two-files "path = $tmp/feed.log" "path = $tmp/other.log"
"${hb[@]}" check-config --config "$tmp/two-files.conf" >/dev/null 2>"$tmp/two.err" &&
	ok "two different files: accepted" || { sed 's/^/# /' "$tmp/two.err"; bad "two different files refused"; }
hb_reports_ok
echo "1..$n"
