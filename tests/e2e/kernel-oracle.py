#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel as the oracle of DPA <-> HPA, on the host side.

cedt STATE:  (XOR) wait for the guest's root decoders (STATE/share/oracle/
             roots) and write the CEDT cxl_test would have, had it one to
             read: its mock windows with the bases the live kernel allocated,
             arithmetic XOR, and the mock CXIMS. hotbridge reads it with
             --cedt, as it reads /sys/firmware/acpi/tables/CEDT on a host.
check DIR:   compare, per shape, every cxl_poison event (the kernel's HPA
             for a memdev's DPA, tools/testing/cxl's poison injection) with
             `hotbridge translate` of the same DPA over the live topology,
             and the kernel's HPA translated back to the memdev and DPA.
             Prints the agreement table and TAP; exits 1 on any
             disagreement.

Where cxl_test's XOR maps come from (tools/testing/cxl/test/cxl.c, 6.12):
with interleave_arithmetic=1 the mock CEDT offers windows cfmws6-8, all with
ACPI_CEDT_CFMWS_ARITHMETIC_XOR (x1 at host bridge 0, HBIG 4096; x2 at 0,1 and
x4 at 0,1,0,1, HBIG 256), and one CXIMS with HBIG 0 (256 B) and the XOR maps
0x404100 and 0x808200. The windows' bases are gen_pool allocations made when
cxl_test loads, so they are read from the guest's root decoders; the rest is
the mock's constant table, restated here.
"""
import json
import os
import re
import subprocess
import sys
import time

ULLONG_MAX = (1 << 64) - 1
MOCK_CXIMS = "256:0x404100,0x808200"
EVENT = re.compile(r"cxl_poison: memdev=(\S+) host=(\S+) serial=\d+ trace_type=(\S+) "
                   r"region=(\S*) region_uuid=\S+ hpa=0x([0-9a-f]+) dpa=0x([0-9a-f]+)")


def cedt(state):
    here = os.path.dirname(os.path.abspath(__file__))
    d = os.path.join(state, "share", "oracle")
    roots, gone = os.path.join(d, "roots"), os.path.join(state, "guest.rc")
    while not os.path.exists(roots):
        if os.path.exists(gone):
            print("# the guest exited (status %s) before it listed its root decoders"
                  % open(gone).read().strip())
            return 1
        time.sleep(0.2)
    windows = []
    for line in open(roots):
        name, start, size, ways, gran, targets = line.split()
        windows.append("%s:%s:%s:%s:xor:%s" % (start, size, ways, gran, targets))
        print("# %s: %s + %s, %s ways over host bridges %s, %s B: XOR" %
              (name, start, size, ways, targets, gran))
    mk = os.path.join(here, "..", "tools", "mkcedt.py")
    subprocess.run([sys.executable, mk, os.path.join(d, "cedt")] + windows +
                   ["--cxims", MOCK_CXIMS], check=True)
    open(os.path.join(d, "cedt.done"), "w").close()
    print("# CEDT for the guest: %d XOR windows, CXIMS %s" % (len(windows), MOCK_CXIMS))
    return 0


def answers(path):
    """{query: answer object} of a `hotbridge translate --batch` output."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        o = json.loads(line)
        out[o["query"]] = o
    return out


def check_shape(d):
    events = []
    for line in open(os.path.join(d, "trace")):
        m = EVENT.search(line)
        if m:
            events.append(m.groups())
    fwd, rev = answers(os.path.join(d, "fwd.out")), answers(os.path.join(d, "rev.out"))
    asked = [l.split() for l in open(os.path.join(d, "fwd.q")) if l.strip()]
    seen = set()
    r = {"queries": 0, "agree": 0, "back": 0, "back_of": 0, "refused": 0, "unmapped": 0,
         "wrong": [], "no_event": 0}
    for memdev, _host, _type, region, hpa, dpa in events:
        hpa, dpa = int(hpa, 16), int(dpa, 16)
        seen.add((memdev, dpa))
        r["queries"] += 1
        a = fwd.get("%s %#x" % (memdev, dpa))
        if a is None:
            r["wrong"].append("%s %#x: hotbridge was not asked" % (memdev, dpa))
            continue
        if hpa == ULLONG_MAX:
            # the kernel maps it to no region: hotbridge must refuse too
            if "error" in a:
                r["unmapped"] += 1
            else:
                r["wrong"].append("%s %#x: kernel: in no region; hotbridge: %s in %s"
                                  % (memdev, dpa, a.get("hpa"), a.get("region")))
            continue
        if "error" in a:
            r["refused"] += 1
            r["wrong"].append("%s %#x: kernel %#x in %s; hotbridge refused: %s"
                              % (memdev, dpa, hpa, region, a["error"]))
            continue
        if int(a["hpa"], 16) != hpa or a.get("region") != region:
            r["wrong"].append("%s %#x: kernel %#x in %s; hotbridge %s in %s"
                              % (memdev, dpa, hpa, region, a["hpa"], a.get("region")))
            continue
        r["agree"] += 1
        b = rev.get("hpa %#x" % hpa)
        r["back_of"] += 1
        if b and b.get("memdev") == memdev and int(b.get("dpa", "-1"), 0) == dpa:
            r["back"] += 1
        else:
            r["wrong"].append("hpa %#x: kernel %s %#x; hotbridge back: %s"
                              % (hpa, memdev, dpa, b and (b.get("error") or
                                                          "%s %s" % (b.get("memdev"), b.get("dpa")))))
    # a DPA the kernel would not take (outside the device) leaves no event
    r["no_event"] = sum(1 for m, a in asked if (m, int(a, 16)) not in seen)
    return r


def check(root):
    shapes = [l.split() for l in open(os.path.join(root, "shapes")) if l.strip()]
    n, good = 0, True
    rows = []
    for s in shapes:
        name = s[0]
        n += 1
        if s[1] == "none":
            good = False
            print("not ok %d - %s: no region (%s)" % (n, name, s[2]))
            rows.append((name, "-", "-", "-", "-", "-", s[2]))
            continue
        r = check_shape(os.path.join(root, name))
        plan = open(os.path.join(root, name, "plan")).read().split()
        ok = (not r["wrong"] and r["queries"] > 0 and r["agree"] > 0 and
              r["back"] == r["back_of"])
        good &= ok
        print("%s %d - %s: %d kernel events, %d agree DPA->HPA, %d/%d HPA->DPA, "
              "%d refused, %d in no region on both sides"
              % ("ok" if ok else "not ok", n, name, r["queries"], r["agree"], r["back"],
                 r["back_of"], r["refused"], r["unmapped"]))
        for w in r["wrong"][:10]:
            print("#   %s" % w)
        rows.append((name, r["queries"], r["agree"], "%d/%d" % (r["back"], r["back_of"]),
                     r["refused"], r["unmapped"],
                     "%s x%s g%s" % tuple(plan[i] for i in (0, 3, 4)) +
                     (" +%d more" % (len(plan) // 6 - 1) if len(plan) > 6 else "") +
                     (" (%d DPAs without an event)" % r["no_event"] if r["no_event"] else "")))
    print("# %-20s %7s %7s %9s %8s %9s  %s" % ("topology", "queries", "agree", "back",
                                               "refused", "unmapped", "region"))
    for row in rows:
        print("# %-20s %7s %7s %9s %8s %9s  %s" % row)
    print("1..%d" % n)
    return 0 if good and n > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("cedt", "check"):
        sys.exit("usage: kernel-oracle.py cedt STATE | check DIR")
    sys.exit(cedt(sys.argv[2]) if sys.argv[1] == "cedt" else check(sys.argv[2]))
