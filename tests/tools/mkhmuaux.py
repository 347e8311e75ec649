#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# mkhmuaux.py - write the AUX buffers of the CHMU perf PMU (Linux RFC
# "CXL Hotness Monitoring Unit perf driver", 2024-11; devices/hmu/hmu.h)
# from the documented layout, for tests/data/hmu/. Each chunk: u64 header
# (bits 15:0 entries, 23:16 counter width), u64 0xDEADBEEF, then u64
# entries (count in the low counter-width bits, unit index above),
# little-endian.
#
#   mkhmuaux.py DIR    writes every fixture listed in DIR/README.md
import os
import struct
import sys

MAGIC = 0xDEADBEEF


def chunk(width, entries, n=None, magic=MAGIC, reserved=0):
    n = len(entries) if n is None else n
    hdr = struct.pack("<QQ", (reserved << 24) | (width << 16) | n, magic)
    return hdr + b"".join(struct.pack("<Q", e) for e in entries)


def entry(unit, count, width):
    return (unit << width) | count


def swap_halves(e):
    """an entry whose two 4-byte halves come back in the wrong order"""
    return ((e & 0xFFFFFFFF) << 32) | (e >> 32)


# the driver documentation's example: width 16, units 0..7
RFC = [0x283, 0x10364, 0x20366, 0x3033C, 0x40343, 0x502FF, 0x6030D, 0x7031A]

FIXTURES = {
    "rfc-example.bin": chunk(16, RFC),
    "two-chunks.bin": chunk(16, RFC[:3]) + chunk(8, [entry(0x100, 7, 8), entry(0x101, 255, 8)]),
    "bad-magic.bin": chunk(16, RFC[:2]) + chunk(16, RFC[2:4], magic=0xDEADBEEE),
    "count-past-end.bin": chunk(16, RFC[:2]) + chunk(16, RFC[2:4], n=0xFFFF),
    "reserved-bits.bin": chunk(16, RFC[:2], reserved=1),
    "width-zero.bin": chunk(0, RFC[:2]),
    "swapped-halves.bin": chunk(16, RFC[:4] + [swap_halves(e) for e in RFC[4:]]),
}


def main(argv):
    out = argv[1]
    for name, data in FIXTURES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv)
