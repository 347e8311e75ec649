#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The e2e oracle: ground truth from the CXL devices' own bytes.

The guest stamped each page with a tag and wrote "<tag> <hpa> <node>" lines.
A tag's offset in a type-3 device's backing file is that page's DPA on that
device (the file is the device's memory). This checks hotbridge's answers,
computed from the guest's `cxl list -vvv` (the kernel's region and decoder
programming, read by libcxl), both ways: DPA -> HPA must give the guest's HPA,
and HPA -> DPA must give the file's memdev and offset.

    oracle.py DIR HOTBRIDGE [--decoders]   (DIR: tags, cxl-list.json, cxl-mem0..N)
--decoders: also each endpoint decoder with a region must hold tagged pages,
and the first must start past the device's volatile capacity (a DPA skip).
Prints TAP; exits 1 on any disagreement.
"""
import json
import os
import subprocess
import sys

from cxlfiles import find_tags, memdevs_by_device, objects, read_tags, SERIAL_BASE


def main():
    d, hb = sys.argv[1], sys.argv[2]
    tags = read_tags(os.path.join(d, "tags"))
    by_device = memdevs_by_device(os.path.join(d, "cxl-list.json"))
    hits, i = find_tags(d)
    found = {t: (by_device.get(dev), off) for t, (dev, off) in hits.items()}
    serial_to_memdev = {SERIAL_BASE + k: v for k, v in by_device.items()}
    n = 0

    def ok(cond, what):
        nonlocal n
        n += 1
        print(("ok %d - " if cond else "not ok %d - ") % n + what)
        return cond

    good = ok(len(found) == len(tags) and all(t in found for t in tags),
              "%d of %d tagged pages found in %d backing file(s) (sn 0x1000..: %s)"
              % (sum(t in found for t in tags), len(tags), i,
                 ", ".join("%#x=%s" % kv for kv in sorted(serial_to_memdev.items()))))
    order = sorted(t for t in tags if t in found)
    fwd = "".join("%s %#x\n" % found[t] for t in order)
    rev = "".join("hpa %#x\n" % tags[t][0] for t in order)
    snap = os.path.join(d, "cxl-list.json")
    out_f = subprocess.run([hb, "translate", "--topology", snap, "--batch"], input=fwd,
                           capture_output=True, text=True).stdout.splitlines()
    out_r = subprocess.run([hb, "translate", "--topology", snap, "--batch"], input=rev,
                           capture_output=True, text=True).stdout.splitlines()
    agree_f = sum(1 for t, l in zip(order, out_f)
                  if int(json.loads(l).get("hpa", "-1"), 0) == tags[t][0])
    agree_r = sum(1 for t, l in zip(order, out_r)
                  if json.loads(l).get("memdev") == found[t][0]
                  and int(json.loads(l).get("dpa", "-1"), 0) == found[t][1])
    good &= ok(agree_f == len(order) and len(order) > 0,
               "DPA -> HPA: %d of %d agree with the guest's PFNs (%.1f %%)"
               % (agree_f, len(order), 100.0 * agree_f / max(1, len(order))))
    good &= ok(agree_r == len(order) and len(order) > 0,
               "HPA -> DPA: %d of %d agree with the backing files (%.1f %%)"
               % (agree_r, len(order), 100.0 * agree_r / max(1, len(order))))
    per = {}
    for t in order:
        per[found[t][0]] = per.get(found[t][0], 0) + 1
    print("# tagged pages per memdev: %s" % per)
    if "--decoders" in sys.argv[3:]:
        decs = sorted(objects(snap, lambda o: "dpa_resource" in o and o.get("region")
                              and str(o.get("decoder", "")).startswith("decoder")),
                      key=lambda o: o["dpa_resource"])
        counts = [sum(1 for t in order if o["dpa_resource"] <= found[t][1]
                      < o["dpa_resource"] + o["dpa_size"]) for o in decs]
        for o, c in zip(decs, counts):
            print("# %s (%s): DPA %#x+%#x, %d tagged pages" % (o["decoder"], o["region"],
                  o["dpa_resource"], o["dpa_size"], c))
        skip = decs[0]["dpa_resource"] if decs else 0
        good &= ok(len(decs) == 2 and all(counts) and skip > 0,
                   "%d endpoint decoders with regions, every one holding tagged pages; the first "
                   "skips %d MiB of volatile DPA" % (len(decs), skip >> 20))
    print("1..%d" % n)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
