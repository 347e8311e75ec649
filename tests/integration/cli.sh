#!/bin/bash
# The command line in cxl-cli's manner, for every command of `hotbridge
# --help`: `hotbridge help CMD` and `hotbridge CMD -h` print that command's
# usage on stdout and exit 0; getopt's errors are prefixed "hotbridge CMD:",
# followed by the usage on stderr, and exit 2; an unknown command (also
# after help) exits 2 naming it.
#   cli.sh HOTBRIDGE
set -euo pipefail
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT

"${hb[@]}" --help >"$tmp/help"
mapfile -t cmds < <(sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p' "$tmp/help")
echo "1..$((${#cmds[@]} * 3 + 3))"
[ "${#cmds[@]}" -ge 14 ] || bad "hotbridge --help lists the commands (${#cmds[@]})"
ok "hotbridge --help lists ${#cmds[@]} commands"

for c in "${cmds[@]}"; do
	rc=0
	"${hb[@]}" help "$c" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 0 ] && grep -q "^usage: hotbridge $c" "$tmp/out" ||
		bad "hotbridge help $c: exit $rc, $(head -1 "$tmp/out") $(head -1 "$tmp/err")"
	ok "hotbridge help $c prints its usage, exit 0"
	rc=0
	"${hb[@]}" "$c" -h >"$tmp/out2" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$tmp/out2" ||
		bad "hotbridge $c -h: exit $rc, not the same usage"
	ok "hotbridge $c -h prints the same, exit 0"
	rc=0
	"${hb[@]}" "$c" --no-such-option >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] && grep -q "^hotbridge $c: unrecognized option '--no-such-option'" "$tmp/err" &&
		grep -q "^usage: hotbridge $c" "$tmp/err" ||
		bad "hotbridge $c --no-such-option: exit $rc, $(head -2 "$tmp/err")"
	ok "hotbridge $c: getopt error prefixed 'hotbridge $c:', then the usage, exit 2"
done

rc=0
"${hb[@]}" help no-such-command >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "'no-such-command' is not a command" "$tmp/err" ||
	bad "help no-such-command: exit $rc, $(cat "$tmp/err")"
rc=0
"${hb[@]}" no-such-command >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "'no-such-command' is not a command" "$tmp/err" ||
	bad "no-such-command: exit $rc, $(cat "$tmp/err")"
ok "unknown commands, also after help, exit 2 naming them"
hb_reports_ok
