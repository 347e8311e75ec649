#!/bin/bash
# contrib/: the example configuration parses; the systemd unit lets the
# daemon write the example metrics_textfile and is hardened
# (systemd-analyze security --offline: exposure at most 3.0); the man
# pages render.
#   contrib.sh HOTBRIDGE SOURCE_DIR UNIT (the unit as configured for install)
set -euo pipefail
src=$2 unit=$3
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT
cp "$src/contrib/hotbridge.conf" "$tmp/hotbridge.conf"
chmod 0644 "$tmp/hotbridge.conf"
"${hb[@]}" check-config --no-dropins --config "$tmp/hotbridge.conf" >/dev/null &&
	ok "contrib/hotbridge.conf passes check-config" || bad "contrib/hotbridge.conf"
# the example metrics_textfile must be writable under the unit: its
# directory (where the temporary is made and renamed) below a ReadWritePaths=
textfile=$(sed -n 's/^#* *metrics_textfile *= *//p' "$src/contrib/hotbridge.conf")
rw=$(sed -n 's/^ReadWritePaths=//p' "$unit")
[ -n "$textfile" ] || bad "contrib/hotbridge.conf has no example metrics_textfile"
covered=
for p in $rw; do
	p=${p#-}
	case "$(dirname "$textfile")/" in "${p%/}/"*) covered=$p ;; esac
done
[ -n "$covered" ] && ok "the example metrics_textfile $textfile is writable under the unit (ReadWritePaths=$covered)" ||
	bad "the example metrics_textfile $textfile is read-only under the unit (ReadWritePaths=$rw)"
if ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze not installed"
else
	score=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null |
		sed -n 's/.*Overall exposure level for hotbridge.service: \([0-9.]*\).*/\1/p')
	if [ -n "$score" ] && python3 -c "import sys; sys.exit(0 if float('$score') <= 3.0 else 1)"; then
		ok "hotbridge.service exposure $score (systemd-analyze security --offline)"
	else
		bad "hotbridge.service exposure '$score'"
	fi
fi
# the bash completion, sourced and called as bash would (defect 32):
# nothing offered after an option that takes a value; --memdev from the
# --topology file the line names (through the binary), not from this host
comp() { # comp WORD...: the candidates for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_hotbridge; printf "%s\n" "${COMPREPLY[@]}"' _ "$src/contrib/bash-completion/hotbridge" "$@"
}
bin=${hb[${#hb[@]}-1]}
for line in "demo --cycles" "demo -c" "demo --seed" "history --last" "run --set" "check-config --set" \
	"status --timeout" "status -t" "translate --dpa" "translate --memdev mem0 --dpa" "translate --hpa"; do
	read -ra w <<<"$line"
	got=$(comp "$bin" "${w[@]}" "")
	[ -z "$got" ] || bad "completion after '$line': $(echo $got)"
done
ok "completion offers no option names after an option that takes a value"
got=$(comp "$bin" translate --topology "$src/tests/data/snapshots/x2-vvv-notes.json" --memdev "" | tr '\n' ' ')
[ "$got" = "mem0 mem1 " ] || bad "--memdev after --topology FILE: '$got'"
got=$(comp "$bin" translate --topology="$src/tests/data/snapshots/x2-vvv-notes.json" --memdev m | tr '\n' ' ')
[ "$got" = "mem0 mem1 " ] || bad "--memdev after --topology=FILE: '$got'"
got=$(comp "$bin" translate --topology "$src/tests/data/snapshots/x2-vvv-notes.json" --c | tr '\n' ' ')
[ "$got" = "--cedt --compact " ] || bad "translate --c: '$got'"
got=$(comp "$bin" demo --cycles 5 --s | tr '\n' ' ')
[ "$got" = "--seed " ] || bad "demo --cycles 5 --s: '$got'"
ok "completion: --memdev from the --topology file's memdevs (mem0 mem1); option names still offered"

# hotbridge(8) lists no test hook (only hotbridge-test takes them: cli.sh)
hooks=$(grep -nE 'pci\\?-dump|sysfs\\?-root' "$src/contrib/man/hotbridge.8" || true)
[ -z "$hooks" ] && ok "hotbridge(8) lists no test hook (--pci-dump, --sysfs-root)" ||
	bad "hotbridge(8) lists test hooks: $hooks"

# every man page renders without a groff or man warning
if ! command -v man >/dev/null; then
	skip "man not installed"
else
	for page in "$src"/contrib/man/*.[0-9] "$src"/kernel/man/*.[0-9]; do
		warn=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null || echo "man failed")
		[ -z "$warn" ] && ok "${page#"$src"/} renders without warnings" ||
			bad "${page#"$src"/}: $warn"
	done
fi
hb_reports_ok
echo "1..$n"
