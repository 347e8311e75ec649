# SPDX-License-Identifier: MIT
"""Shared by the e2e oracles: the guest's tags, where they lie in the CXL
devices' backing files (the offset is the DPA), and memdev names by serial."""
import json
import mmap
import os
import struct

MAGIC = 0x4842544147000000
MASK = 0xFFFFFFFFFF000000
SERIAL_BASE = 0x1000      # tests/vm/run.sh gives device i the serial 0x1000 + i


def read_tags(path):
    """{tag: (hpa, node)} from the guest's "<tag> <hpa> <node>" lines."""
    tags = {}
    for line in open(path):
        t, hpa, node = line.split()
        tags[int(t, 16)] = (int(hpa, 16), int(node))
    return tags


def objects(listing_path, pred):
    """Every JSON object of a `cxl list` document for which pred(object) holds."""
    found = []

    def walk(o):
        if isinstance(o, dict):
            if pred(o):
                found.append(o)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(json.load(open(listing_path)))
    return found


def memdevs_by_device(listing_path):
    """{device index: memN} from a `cxl list -vvv` document."""
    return {int(str(o["serial"]), 0) - SERIAL_BASE: o["memdev"]
            for o in objects(listing_path, lambda o: "memdev" in o and "serial" in o)}


def dpa_base(path):
    """The DPA of a backing file's first byte: PATH.dpa (tests/vm/run.sh
    --vmem puts the pmem after the volatile capacity), else 0."""
    try:
        return int(open(path + ".dpa").read().strip(), 0)
    except OSError:
        return 0


def find_tags(directory):
    """({tag: (device index, DPA)}, number of backing files) from DIR/cxl-memN."""
    found = {}
    i = 0
    while os.path.exists(os.path.join(directory, "cxl-mem%d" % i)):
        base = dpa_base(os.path.join(directory, "cxl-mem%d" % i))
        with open(os.path.join(directory, "cxl-mem%d" % i), "rb") as f:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            for off in range(0, len(mm), 4096):
                w0, w1 = struct.unpack_from("<QQ", mm, off)
                if w0 & MASK == MAGIC and w1 == (~w0 & 0xFFFFFFFFFFFFFFFF):
                    found[w0] = (i, base + off)
            mm.close()
        i += 1
    return found, i
