#!/bin/bash
# The command line in cxl-cli's manner, for every command of `hotbridge
# --help`: `hotbridge help CMD` and `hotbridge CMD -h` print that command's
# usage on stdout and exit 0; getopt's errors are prefixed "hotbridge CMD:",
# followed by the usage on stderr, and exit 2; an unknown command (also
# after help) exits 2 naming it. Test hooks (list --pci-dump/--sysfs-root,
# translate --sysfs-root) are not in hotbridge's usage, and it refuses them
# by name, exit 2; hotbridge-test (built with the tests) lists them.
# Every option that takes one value is refused when given twice, naming it
# (only --set repeats); extra arguments and a value that is not a number
# are usage errors (exit 2) naming the reason, a leading zero included.
#   cli.sh HOTBRIDGE HOTBRIDGE_TEST
set -euo pipefail
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT

"${hb[@]}" --help >"$tmp/help"
mapfile -t cmds < <(sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p' "$tmp/help")
echo "1..$((${#cmds[@]} * 3 + 13))"
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
"${hb[@]}" help help >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] && grep -q "^usage: hotbridge help \[COMMAND\]" "$tmp/out" ||
	bad "hotbridge help help: exit $rc, $(cat "$tmp/out" "$tmp/err")"
ok "hotbridge help help prints help's usage, exit 0 (help is in the synopsis)"
for h in --help -h; do
	rc=0
	"${hb[@]}" help "$h" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 0 ] && grep -q "^usage: hotbridge help \[COMMAND\]" "$tmp/out" ||
		bad "hotbridge help $h: exit $rc, $(cat "$tmp/out" "$tmp/err")"
done
ok "hotbridge help --help and help -h print help's usage, exit 0"
for extra in "--version extra" "version extra" "help run extra" "--help run extra"; do
	rc=0
	# shellcheck disable=SC2086 # words on purpose
	"${hb[@]}" $extra >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] && grep -q "unexpected.*'extra'" "$tmp/err" && [ ! -s "$tmp/out" ] ||
		bad "hotbridge $extra: exit $rc, $(cat "$tmp/out" "$tmp/err")"
done
ok "an extra argument after --version, version or help COMMAND: usage error, exit 2"

rc=0
"${hb[@]}" help no-such-command >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "'no-such-command' is not a command" "$tmp/err" ||
	bad "help no-such-command: exit $rc, $(cat "$tmp/err")"
rc=0
"${hb[@]}" no-such-command >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "'no-such-command' is not a command" "$tmp/err" ||
	bad "no-such-command: exit $rc, $(cat "$tmp/err")"
ok "unknown commands, also after help, exit 2 naming them"

# usage_error MESSAGE ARGS...: exit 2, MESSAGE (a grep -F) on stderr, nothing on stdout
usage_error() {
	local msg=$1 rc=0
	shift
	"${hb[@]}" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$msg" "$tmp/err" ||
		bad "hotbridge $*: exit $rc, $(head -2 "$tmp/err")"
}
# the first option with a value of each command, given twice
for args in "translate --hpa 0x1000 --hpa 0x2000" "topology --topology a --topology b" \
	"demo --cycles 1 --cycles 2" "list --plugin-dir a --plugin-dir b" \
	"run --config a --config b" "check-config --config a --config b" \
	"status --socket a --socket b" "stats -S a -S b" "sources --timeout 1 --timeout 2" \
	"explain --socket a --socket b 0x1000" "history --last 1 --last 2" \
	"pause --socket a -S b" "resume -t 1 -t 1" "reload -S a -S a" "metrics -S a -S b"; do
	read -ra w <<<"$args"
	usage_error "hotbridge ${w[0]}: --" "${w[@]}"
	grep -q "^hotbridge ${w[0]}: --[a-z-]* given twice: it takes one value" "$tmp/err" ||
		bad "hotbridge $args: $(head -1 "$tmp/err")"
done
rc=0
"${hb[@]}" check-config --config /nonexistent --set a.b=1 --set c.d=2 >"$tmp/out" 2>"$tmp/err" || rc=$?
grep -q "given twice" "$tmp/err" && bad "--set may repeat: $(cat "$tmp/err")"
ok "an option taking one value, given twice, is refused by name in every command; --set repeats"

usage_error "hotbridge demo: unexpected argument 'extra'" demo --cycles 5 extra
ok "demo refuses extra arguments, exit 2"

usage_error "hotbridge demo: --cycles '010' is not a number: a leading zero" demo --cycles 010
usage_error "hotbridge demo: --cycles 'abc' is not a number (decimal or 0x hex)" demo --cycles abc
usage_error "hotbridge demo: --cycles '0': want 1..100000" demo --cycles 0
usage_error "hotbridge status: --timeout '0x' is not a number: 0x without hex digits" status --timeout 0x
usage_error "hotbridge translate: --hpa '-1' is not a number: no sign is taken" translate --hpa -1
usage_error "hotbridge translate: --dpa '99999999999999999999' is above 2^64 - 1" translate --memdev mem0 --dpa 99999999999999999999
ok "a value that is not a number: exit 2, the reason named (leading zero, 0x alone, sign, range)"

hbt=("${hb[@]:0:${#hb[@]}-1}" "$2")
hooks() { # CMD OPTION...: the test hooks of CMD
	local c=$1 o rc
	shift
	"${hb[@]}" help "$c" >"$tmp/out"
	"${hbt[@]}" help "$c" >"$tmp/out-test"
	for o in "$@"; do
		grep -q -- "$o" "$tmp/out" && bad "hotbridge help $c lists the test hook $o"
		grep -q -- "$o" "$tmp/out-test" || bad "hotbridge-test help $c does not list $o"
		rc=0
		"${hb[@]}" "$c" "$o" /dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
		[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] &&
			grep -q "^hotbridge $c: $o is a test hook: only hotbridge-test" "$tmp/err" ||
			bad "hotbridge $c $o: exit $rc, $(head -1 "$tmp/err")"
	done
	ok "hotbridge $c: $* not in its usage (hotbridge-test's only), refused by name, exit 2"
}
hooks list --pci-dump --sysfs-root
hooks translate --sysfs-root
# hotbridge-test follows them: its errors name the paths given
printf '{"memdev":"mem0","ram_size":268435456}' >"$tmp/one.json"
"${hbt[@]}" translate --topology "$tmp/one.json" --sysfs-root "$tmp/no-root" --hpa 0 >/dev/null 2>"$tmp/err" || true
grep -q "no NUMA node information: $tmp/no-root/sys/" "$tmp/err" ||
	bad "hotbridge-test translate --sysfs-root: $(cat "$tmp/err")"
ok "hotbridge-test translate --sysfs-root reads below the root given"
"${hbt[@]}" list --pci-dump "$tmp/no-dump" --sysfs-root "$tmp" --plugin-dir /nonexistent >/dev/null 2>"$tmp/err" || true
grep -q "PCI scan: $tmp/no-dump: No such file" "$tmp/err" ||
	bad "hotbridge-test list --pci-dump: $(cat "$tmp/err")"
ok "hotbridge-test list --pci-dump reads the dump given"
hb_reports_ok
