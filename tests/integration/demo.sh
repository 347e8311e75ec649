#!/bin/bash
# hotbridge demo, a new user's first command: its progress line on a
# terminal (stderr a pseudo-terminal, redrawn in place with \r) and off one
# (one line every 10 cycles and the last) carries the cycle count, records
# and pages promoted, not a bare "cycle".
#   demo.sh HOTBRIDGE
set -euo pipefail
. "$(dirname "$0")/lib.sh"
trap 'rm -rf "$tmp"' EXIT
echo "1..5"

# stderr on a pseudo-terminal, stdout to a file
python3 - "$tmp/tty.err" "$tmp/tty.out" "${hb[@]}" demo --cycles 3 <<'PY' || bad "demo with stderr on a terminal exits 0"
import os, pty, subprocess, sys
err_path, out_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
with open(out_path, "wb") as out:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
os.close(slave)
buf = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: every writer of the terminal has gone
        break
    if not chunk:
        break
    buf += chunk
open(err_path, "wb").write(buf)
sys.exit(p.wait())
PY
ok "demo with stderr on a terminal exits 0"
line='hotbridge demo: cycle 3/3, [0-9]+ records, [0-9]+ pages promoted'
tr '\r' '\n' <"$tmp/tty.err" | grep -Eq "^$line" ||
	{ sed 's/^/# /' "$tmp/tty.err" | cat -v; bad "terminal progress line has the numbers"; }
ok "terminal progress line has the numbers: $(tr '\r' '\n' <"$tmp/tty.err" | grep -Eo "$line" | tail -1)"
grep -q '^precision' "$tmp/tty.out" || bad "summary on stdout"
ok "summary on stdout"

"${hb[@]}" demo --cycles 3 >"$tmp/pipe.out" 2>"$tmp/pipe.err" || bad "demo off a terminal exits 0"
grep -Eq "^$line\$" "$tmp/pipe.err" ||
	{ sed 's/^/# /' "$tmp/pipe.err"; bad "progress line off a terminal has the numbers"; }
ok "progress line off a terminal has the numbers"
hb_reports_ok
