#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# mkcedt.py - write an ACPI CEDT image (ACPI 6.5 5.2.6 header; CXL 3.1
# 9.18.1: CHBS type 0, CFMWS type 1, CXIMS type 2) for tests.
#
#   mkcedt.py OUT.cedt WINDOW...   WINDOW = base:size:ways:gran:arith[:uid,uid..]
#   options: --cxims gran:map,map,...  (repeatable)   --chbs uid:base (repeatable)
#
# arith is "modulo" or "xor"; ways/gran are plain numbers (encoded here).
import struct
import sys

EIW = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4, 3: 8, 6: 9, 12: 10}
EIG = {256 << i: i for i in range(7)}


def header(body_len):
    # signature, length, revision 1, checksum (patched), OEM id, table id, OEM rev, creator
    return bytearray(struct.pack("<4sIBB6s8sI4sI", b"CEDT", 36 + body_len, 1, 0,
                                 b"HOTBRG", b"HBTEST  ", 1, b"HBTL", 1))


def chbs(uid, base):
    return struct.pack("<BBHIIIQQ", 0, 0, 32, uid, 1, 0, base, 0x10000)


def cfmws(base, size, ways, gran, arith, uids):
    body = struct.pack("<BBHIQQBBHIHH", 1, 0, 36 + 4 * ways, 0, base, size, EIW[ways],
                       1 if arith == "xor" else 0, 0, EIG[gran], 0x6, 0)
    return body + b"".join(struct.pack("<I", u) for u in uids)


def cxims(gran, maps):
    return struct.pack("<BBHHBB", 2, 0, 8 + 8 * len(maps), 0, EIG[gran], len(maps)) + \
        b"".join(struct.pack("<Q", m) for m in maps)


def main(argv):
    out, rest = argv[1], argv[2:]
    subs = []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--cxims":
            g, maps = rest[i + 1].split(":")
            subs.append(cxims(int(g, 0), [int(m, 0) for m in maps.split(",")]))
            i += 2
        elif a == "--chbs":
            uid, base = rest[i + 1].split(":")
            subs.append(chbs(int(uid, 0), int(base, 0)))
            i += 2
        else:
            f = a.split(":")
            base, size, ways, gran = (int(x, 0) for x in f[:4])
            uids = [int(u, 0) for u in f[5].split(",")] if len(f) > 5 else list(range(ways))
            subs.insert(0, cfmws(base, size, ways, gran, f[4], uids))
            i += 1
    body = b"".join(subs)
    t = header(len(body)) + body
    t[9] = (256 - sum(t) % 256) % 256
    with open(out, "wb") as fh:
        fh.write(t)


if __name__ == "__main__":
    main(sys.argv)
