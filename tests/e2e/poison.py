#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host's side of e2e-chmu-poison (tests/e2e/run.sh chmu-poison).

  poison.py relay DIR: relays the guest's QMP commands (DIR/share/qmp/N.req,
    one JSON command each, in order) to QEMU's monitor DIR/qmp.sock and
    writes each reply to DIR/share/qmp/N.rep, until DIR/guest.rc appears.
  poison.py check DIR [events]: TAP over what hb-vm-poison.sh left in DIR/share/poison:
    explain, history, stats and metrics of the pages the faults hit; with
    events, the general media and DRAM events must have been injected (the
    kernel takes event records: run.sh --pcie-native on a stock kernel).
"""
import json
import os
import re
import socket
import sys
import time


def relay(d):
    sock, buf, n = None, b"", 1
    qdir = d + "/share/qmp"

    def reply():
        nonlocal buf
        while True:
            while b"\n" not in buf:
                chunk = sock.recv(65536)
                if not chunk:
                    raise OSError("QMP closed")
                buf += chunk
            line, buf = buf.split(b"\n", 1)
            msg = json.loads(line)
            if "return" in msg or "error" in msg:
                return msg

    while not os.path.exists(d + "/guest.rc"):
        req = "%s/%d.req" % (qdir, n)
        if not os.path.exists(req):
            time.sleep(0.1)
            continue
        if sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(d + "/qmp.sock")
            json.loads(sock.recv(65536).split(b"\n")[0])  # the greeting
            sock.sendall(b'{"execute": "qmp_capabilities"}\n')
            reply()
        cmd = open(req).read().strip()
        try:
            sock.sendall(cmd.encode() + b"\n")
            rep = json.dumps(reply())
        except (OSError, ValueError) as e:
            rep = json.dumps({"error": {"desc": str(e)}})
        print("# QMP %s -> %s" % (cmd, rep), flush=True)
        with open("%s/%d.tmp" % (qdir, n), "w") as f:
            f.write(rep + "\n")
        os.rename("%s/%d.tmp" % (qdir, n), "%s/%d.rep" % (qdir, n))
        n += 1
    return 0


def load(path):
    x = json.load(open(path))
    return x.get(x.get("command"), x) if isinstance(x, dict) else x


def check(d, events=None):
    p = d + "/share/poison"
    n, good = 0, True

    def ok(cond, what):
        nonlocal n, good
        n += 1
        print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
        good &= bool(cond)

    try:
        pages = [l.split() for l in open(p + "/pages") if l.strip()]
    except OSError as e:
        pages = []
        print("# %s" % e)
    try:
        unsupported = open(p + "/events-unsupported").read().strip()
    except OSError:
        unsupported = None
    want = 3 if unsupported else 5  # poison on each device, the cleared one, 2 events
    if events:
        ok(not unsupported, "the kernel takes the devices' event records (general media, DRAM)%s"
           % (": " + unsupported if unsupported else ""))
    if unsupported:
        print("# general media and DRAM events: not injected, the kernel does not take the "
              "devices' event records: %s" % unsupported)
    ok(len(pages) == want, "faults injected on %d pages of hot set A (%d)" % (want, len(pages)))
    mds = sorted({pg[2] for pg in pages if pg[4] == "poison"})
    ok(len(mds) == 2, "poison on both devices of the 2-way region (%s)" % ", ".join(mds))
    for idx, hpa, md, dpa, what in pages:
        released = what == "cleared"
        try:
            x = load("%s/explain-%s.json" % (p, idx))
        except (OSError, ValueError) as e:
            ok(False, "explain of page %s: %s" % (idx, e))
            continue
        try:
            h = load("%s/history-%s.json" % (p, idx)).get("entries", [])
        except (OSError, ValueError, AttributeError) as e:
            h = []
            print("# history of page %s: %s" % (idx, e))
        promoted = sum(1 for e in h if e.get("decision") == "promote")
        quarantined = sum(1 for e in h if e.get("reason") == "quarantined")
        if released:
            ok(not x.get("quarantined") and promoted >= 1 and quarantined >= 1,
               "page %s (%s, %s:%s, poison cleared): released, then promoted (history: %d "
               "quarantined, %d promoted; explain: %s)" % (idx, hpa, md, dpa, quarantined,
                                                             promoted, x.get("decision")))
            continue
        reason = x.get("reason") or ""
        word = "poisoned" if what == "poison" else "uncorrectable"
        ok(x.get("decision") == "quarantined" and x.get("quarantined") is True and word in reason,
           "page %s (%s, %s:%s, %s): explain says quarantined: %s" % (idx, hpa, md, dpa, what,
                                                                      reason))
        ok(quarantined >= 1 and promoted == 0,
           "page %s: history has %d decisions 'quarantined', %d 'promote'" % (idx, quarantined,
                                                                           promoted))
    try:
        st = load(p + "/stats.json")
        st = st.get("stats", st)
        m = st.get("device_events") or st.get("media") or {}
        print("# device events: %s" % json.dumps(m, sort_keys=True))
        ok(m.get("hpa_mismatch") == 0 and m.get("hpa_agree", 0) >= want + 1,
           "the kernel's HPA of every event agrees with ours (%s agree, %s mismatch)"
           % (m.get("hpa_agree"), m.get("hpa_mismatch")))
        ok(m.get("quarantined_pages") == want - 1 and m.get("poison_released") == 1,
           "stats: %s pages quarantined, %s released by a clear"
           % (m.get("quarantined_pages"), m.get("poison_released")))
    except (OSError, ValueError, AttributeError) as e:
        ok(False, "stats: %s" % e)
    try:
        met = open(p + "/metrics.txt").read()
        q = re.search(r"^hotbridge_quarantined_pages (\d+)", met, re.M)
        dq = re.search(r'^hotbridge_decisions_total\{reason="quarantined"\} (\d+)', met, re.M)
        ok(q and int(q.group(1)) == want - 1 and dq and int(dq.group(1)) > 0,
           "metrics: hotbridge_quarantined_pages %s, decisions_total{reason=\"quarantined\"} %s"
           % (q and q.group(1), dq and dq.group(1)))
    except OSError as e:
        ok(False, "metrics: %s" % e)
    print("1..%d" % n)
    return 0 if good else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "relay":
        sys.exit(relay(sys.argv[2]))
    if len(sys.argv) in (3, 4) and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    sys.exit("usage: poison.py relay DIR | check DIR [events]")
