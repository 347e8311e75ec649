#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# mkchmuimg.py - write CHMU register block images (CXL r3.2 8.2.8, the
# layout of devices/chmu/regs.h) for tests/data/chmu-img/: the common
# capability, then one instance already enabled, its hotlist holding
# entries between HEAD and TAIL, as a device left it. The chmu source maps
# one from a BAR file and drains it (tests/unit/devices/chmu/test-chmu.c).
#
#   mkchmuimg.py DIR    writes every image listed in DIR/README.md
import os
import struct
import sys

HOTLIST = 16
RANGE_OFF = 0x70
HOTLIST_OFF = 0x78  # one range-bitmap word: 16 GiB
INST_LEN = HOTLIST_OFF + HOTLIST * 8
WIDTH = 16


def field(v, lo):
    return v << lo


def block(entries):
    cap0 = (field(1, 4) | field(1, 5) | field(0x3F, 8) | field(5, 16) | field(100, 20)
            | field(3, 32) | field(1, 36) | field(HOTLIST, 48))
    cap1 = field(0x30, 0) | field(0x3F, 32) | field(1, 48) | field(1, 49)
    status = 1 | field(WIDTH, 32)  # enabled, 16-bit counters
    inst = bytearray(INST_LEN)
    struct.pack_into("<QQQQ", inst, 0, cap0, cap1, RANGE_OFF, HOTLIST_OFF)
    struct.pack_into("<Q", inst, 0x60, status)
    struct.pack_into("<HH", inst, 0x68, 0, len(entries))  # HEAD, TAIL
    for i, e in enumerate(entries):
        struct.pack_into("<Q", inst, HOTLIST_OFF + i * 8, e)
    common = struct.pack("<QQ", 1 | (1 << 8), INST_LEN)  # version 1, 1 instance
    return common + bytes(inst)


def entry(unit, count):
    return (unit << WIDTH) | count


def swap_halves(e):
    """an entry whose two 4-byte halves come back in the wrong order"""
    return ((e & 0xFFFFFFFF) << 32) | (e >> 32)


GOOD = [entry(u, 0x100 + u) for u in range(1, 5)]

IMAGES = {
    # units 1..4 of 4 KiB, then the same four garbled: DPAs past any memdev
    "beyond-capacity.bin": block(GOOD + [swap_halves(e) for e in GOOD]),
}


def main(argv):
    out = argv[1]
    for name, data in IMAGES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv)
