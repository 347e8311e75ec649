#!/bin/bash
# contrib/: the example configuration parses; the emulated-host example
# (emulated.conf, its paths moved into a scratch directory) runs as shipped:
# one --once cycle over emulated-feed.txt as a file promotes its hot pages in
# a dry run, and a daemon fed that file through the replay FIFO promotes
# them too; the systemd unit lets the daemon write the example
# metrics_textfile, keeps damon_state over restarts, and is hardened (systemd-analyze security --offline:
# exposure at most 3.0); the man pages render.
#   contrib.sh HOTBRIDGE SOURCE_DIR UNIT (the unit as configured for install)
set -euo pipefail
src=$2 unit=$3
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT
cp "$src/contrib/hotbridge.conf" "$tmp/hotbridge.conf"
chmod 0644 "$tmp/hotbridge.conf"
"${hb[@]}" check-config --no-dropins --config "$tmp/hotbridge.conf" >/dev/null &&
	ok "contrib/hotbridge.conf passes check-config" || bad "contrib/hotbridge.conf"

# contrib/emulated.conf with contrib/emulated-feed.txt. No --dry-run is
# given: the file must choose the dry run itself (the emulated host refuses
# any other migrator). Its feed has 5 hot pages, 2 records below the
# threshold and 1 past the end of mem0.
feed=$src/contrib/emulated-feed.txt
[ -f "$src/contrib/emulated.conf" ] && [ -f "$feed" ] ||
	bad "contrib/emulated.conf or contrib/emulated-feed.txt is missing"
emulated_conf() { # FEED_PATH: the shipped file with its paths in $tmp
	sed -e "s|^path *=.*|path = $1|" -e "s|^control_socket *=.*|control_socket = $tmp/ctl.sock|" \
		"$src/contrib/emulated.conf" >"$tmp/emulated.conf" && chmod 0644 "$tmp/emulated.conf"
}
records=$(grep -cv '^[[:space:]]*\(#\|$\)' "$feed")
cp "$feed" "$tmp/feed.txt"
emulated_conf "$tmp/feed.txt"
"${hb[@]}" check-config --no-dropins --config "$tmp/emulated.conf" >/dev/null &&
	ok "contrib/emulated.conf passes check-config" || bad "contrib/emulated.conf"
# the feed is a file here, written before the start: read from its start
out=$("${hb[@]}" run --config "$tmp/emulated.conf" --once --set source.feed.from=start 2>"$tmp/once.log") ||
	{ sed 's/^/# /' "$tmp/once.log"; bad "run --once on contrib/emulated.conf failed"; }
grep -q 'migrator dryrun' "$tmp/once.log" && ok "contrib/emulated.conf runs with the dry-run migrator" ||
	{ sed 's/^/# /' "$tmp/once.log"; bad "contrib/emulated.conf: not a dry run"; }
want="cycles 1, records $records, translated $((records - 1)),
records dropped 1
dropped unmapped 1
decision promote 5
migrated moved 5"
got=$(printf '%s\n' "$out" | sed 's/, pages added.*/,/')
[ "$got" = "$want" ] && ok "run --once over emulated-feed.txt: $records records, 5 hot pages promoted (dry run)" ||
	{ printf '%s\n' "$out" | sed 's/^/# /'; bad "run --once over emulated-feed.txt"; }

# the same as the quick start runs it: a daemon, the feed written into its FIFO
mkfifo -m 0600 "$tmp/feed.fifo"
emulated_conf "$tmp/feed.fifo"
"${hb[@]}" run --config "$tmp/emulated.conf" >"$tmp/daemon.log" 2>&1 &
pid=$!
S=(--socket "$tmp/ctl.sock")
wait_until 10 "${hb[@]}" status "${S[@]}" >/dev/null ||
	{ sed 's/^/# /' "$tmp/daemon.log"; bad "the daemon on contrib/emulated.conf did not start"; }
cat "$feed" >"$tmp/feed.fifo"
moved5() { "${hb[@]}" stats "${S[@]}" | grep -q '"moved": 5,'; }
wait_until 10 moved5 && ok "the daemon on contrib/emulated.conf promotes the FIFO's 5 hot pages" ||
	{ "${hb[@]}" stats "${S[@]}" | sed -n '1,40s/^/# /p'; bad "no promotion from the FIFO feed"; }
"${hb[@]}" explain "${S[@]}" mem0:0x8000 | grep -q '"decision": "below_threshold"' &&
	ok "explain mem0:0x8000: below_threshold, as emulated-feed.txt says" ||
	bad "explain mem0:0x8000: $("${hb[@]}" explain "${S[@]}" mem0:0x8000 | grep decision)"
kill -TERM "$pid"
wait "$pid" && ok "the daemon exits 0 on SIGTERM" || bad "the daemon exited $?"
grep -q "exiting after .* 5 pages promoted (dry run)" "$tmp/daemon.log" &&
	ok "exit line: 5 pages promoted (dry run)" ||
	{ sed 's/^/# /' "$tmp/daemon.log"; bad "exit line"; }

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
# the damon migrator's record of the kdamond it started (damon_state) must
# outlive a crash and the automatic restart: its directory is the unit's
# RuntimeDirectory, which systemd removes whenever the service stops unless
# RuntimeDirectoryPreserve= keeps it (review D1, newuser r4 D4)
state=$("${hb[@]}" check-config --no-dropins --config "$tmp/hotbridge.conf" |
	sed -n 's/^damon_state *= *\([^ ;]*\).*/\1/p')
rtdir=$(sed -n 's/^RuntimeDirectory=//p' "$unit")
preserve=$(sed -n 's/^RuntimeDirectoryPreserve=//p' "$unit")
case "$(dirname "$state")" in
/run/"$rtdir")
	case "$preserve" in
	yes | restart) ok "damon_state $state: in RuntimeDirectory=$rtdir, kept over restarts (RuntimeDirectoryPreserve=$preserve)" ;;
	*) bad "damon_state $state: RuntimeDirectory=$rtdir is removed at every stop, restarts included (RuntimeDirectoryPreserve='$preserve')" ;;
	esac
	;;
/run/*) bad "damon_state $state: under /run but not the unit's RuntimeDirectory ($rtdir)" ;;
*) ok "damon_state $state: not in a runtime directory" ;;
esac
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
	"status --timeout" "status -t" "top --delay" "top -d" "top --hottest" "top -t" "heatmap --samples" "heatmap -r" "heatmap --delay" "translate --dpa" "translate --memdev mem0 --dpa" "translate --hpa"; do
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
