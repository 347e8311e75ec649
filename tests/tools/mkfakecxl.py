#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# mkfakecxl.py - build a fake Linux CXL sysfs tree (and /dev/cxl) from a
# topology spec, for running the real `cxl list` (ndctl/libcxl) or our own
# libcxl-based loader against it inside a mount namespace.
#
# Usage:
#   mkfakecxl.py [--order kernfs|none] [--absolute-links] [--no-check] \
#                [--force] SPEC.json OUTDIR
#
# Writes OUTDIR/sys and OUTDIR/dev.  libcxl hard-codes /sys/bus/cxl and
# /dev/cxl, so bind them over the real ones in a private mount namespace:
#
#   mkdir -p /tmp/fakecxl-x2
#   unshare -Urm sh -c 'mount -t tmpfs tmpfs /tmp/fakecxl-x2 &&
#       mkfakecxl.py x2.spec.json /tmp/fakecxl-x2 &&
#       mount --bind /tmp/fakecxl-x2/sys /sys &&
#       mount --bind /tmp/fakecxl-x2/dev /dev && cxl list -vvv'
#
# What the tree models (Linux ~6.9 drivers/cxl, the attribute set libcxl
# 76.1 reads plus the neighbours a real system shows):
#   /sys/devices/platform/ACPI0017:00/root0            CXL root (bus)
#       dport<uid>  -> ACPI0016:NN host-bridge ACPI node (physical_node ->
#                      /sys/devices/pci0000:BB)
#       decoder0.N/                                    root decoders (CFMWS)
#           regionZ/ [dax_regionZ/ | pmem_regionZ/]    regions
#       nvdimm-bridge0/                                if a window is pmem capable
#       portP/                                         one per host bridge
#           uport -> /sys/devices/pci0000:BB, parent_dport, dport<id> -> root
#           ports, decoderP.N/ (switch decoders), endpointE/ (one per memdev:
#           uport -> memN, parent_dport, decoderE.N/ endpoint decoders)
#   /sys/devices/pci0000:BB/0000:BB:DD.0/<dev bdf>/memN  memdev (+ pmemN)
#   /sys/bus/cxl/{devices/*, drivers/*, flush, ...}, /sys/bus/{pci,platform,acpi}
#   OUTDIR/dev/cxl/memN: a plain file (libcxl only stat()s it while listing;
#       mailbox commands then fail with "failed to validate ... as a CXL
#       memdev node", which is expected).
# Number formats are the kernel's: start/size/resource/dpa_resource/serial/
# ram|pmem size "%#llx" (zero is "0x0"), dpa_size "%pa" (0x%016llx),
# interleave_*, commit, locked, numa_node, qos_class "%d", target_list
# "a,b,c".  Modes: start 0400 (admin-only, as in the kernel), writable
# attributes 0644, write-only ones 0200, the rest 0444.
# Symlinks are relative ("../../../devices/..."), as real sysfs makes them,
# so the tree also works without the bind mount for a loader that takes a
# root prefix; --absolute-links writes "/sys/..." targets instead.
#
# Directory order: real sysfs (kernfs) returns entries sorted by
# kernfs_name_hash(), and libcxl inserts buses, ports, dports, endpoints and
# memdevs at the head of its lists, so `cxl list` order depends on readdir
# order.  With --order kernfs (default) entries are created so that a
# filesystem that returns creation order (or reverse creation order, like
# tmpfs on recent kernels) reproduces the kernfs order; this is probed in
# OUTDIR.  Hash-ordered filesystems (ext4 with dir_index) cannot be steered:
# a warning is printed and the order then depends on that filesystem.
# Build on tmpfs for output that matches a real machine.
#
# ---------------------------------------------------------------------------
# SPEC FORMAT (JSON).  Numbers may be JSON integers, "0x..." strings or
# sizes with a binary suffix ("256M", "4G", "1T").  Optional keys in [].
# {
#   ["description": "free text"],
#   ["unchecked": true],                 # build despite check errors (a
#                                        # platform-programmed shape)
#   ["cxl_root": {"acpi_name": "ACPI0017:00"}],
#   "host_bridges": [{
#       "name": "pci0000:0c",            # PCI host bridge (port uport)
#       "uid": 12,                       # ACPI _UID: root dport id, the id in
#                                        # root decoder target lists
#       ["acpi_name": "ACPI0016:00"],    # default ACPI0016:<index %02X>
#       ["port_id": 1],                  # default: 1.. in list order
#       "root_ports": [{"id": 0, "bdf": "0000:0c:00.0"}, ...],
#                                        # id = PCIe port number = dport id
#       ["nr_decoders": 1],              # HDM decoders (pads with disabled)
#       ["decoders": [                   # index = N of decoderP.N; null = idle
#           {"region": "region0",        # or null: not in a region
#            "ways": 2, "granularity": 4096, "targets": [0, 1],
#            ["start": ..., "size": ...],   # default: the region's range
#            ["committed": 0|1], ["locked": 0|1]}, ...]]
#   }, ...],
#   "root_decoders": [{                  # decoder0.N in list order
#       "start": "0x390000000", "size": "4G",
#       "ways": 1, "granularity": 256,   # CFMWS ENIW / HBIG
#       "targets": [12],                 # host-bridge uids, interleave order
#       ["cap": ["type3", "ram", "pmem"]],  # also "type2"; default type3+ram+pmem
#       ["locked": 0], ["qos_class": -1], ["next_region_id": N]}, ...],
#   "memdevs": [{
#       "name": "mem0", "serial": 0,
#       "ram_size": "256M", "pmem_size": 0,   # volatile part first in DPA
#       "bdf": "0000:0d:00.0",                # PCI function of the device
#       "host_bridge": "pci0000:0c", "root_port": 0,
#       ["endpoint_id": 2],              # default: after the host bridges
#       ["numa_node": -1], ["firmware_version": "BWFW VERSION 00"],
#       ["payload_max": 2048], ["label_storage_size": 0], ["enabled": true],
#       ["nr_decoders": 2],
#       ["decoders": [                   # index = N of decoderE.N; null = idle
#           {"dpa_resource": 0, "dpa_size": "256M", "mode": "ram"|"pmem",
#            "region": "region0" | null,    # null: DPA allocated, no region
#            ["start":, "size":, "ways":, "granularity":],  # default: region's
#            ["committed": 0|1], ["locked": 0|1]}, ...]]
#   }, ...],
#   "regions": [{
#       "name": "region0", "root_decoder": "decoder0.0",
#       "resource": "0x390000000", "size": "512M",   # resource null: no HPA
#       "ways": 2, "granularity": 4096, "commit": 1,
#       "mode": "ram"|"pmem", ["uuid": "..."],  # pmem default: derived
#       ["enabled": true],               # driver bound; default = commit
#       ["extended_linear_cache_size": "1G"],  # regionZ attribute (6.15+);
#                                        # absent: no attribute, as before 6.15
#       "targets": ["decoder2.0", "decoder3.0"]   # endpoint decoders by
#   }, ...]                                       # position 0..ways-1
# }
# Decoder names follow the port ids: root0 is port 0, host bridges get 1..H,
# endpoints H+1.. in memdev order unless port_id/endpoint_id say otherwise.
# Switch-decoder ways/granularity/targets and endpoint-decoder HPA fields may
# be omitted: they are then derived the way Linux programs them
# (cxl_port_setup_targets: host-bridge granularity = region granularity *
# root ways, root ways divided by 3 when not a power of two; targets in
# order of first use by region position).  The spec is checked (topology,
# alignment, positions, DPA ranges); --no-check builds it anyway, for
# negative tests.
# ---------------------------------------------------------------------------

import argparse
import json
import os
import shutil
import sys
import uuid

M64 = (1 << 64) - 1
SZ_256M = 256 << 20
PAGE_SIZE = 4096
LEGAL_WAYS = (1, 2, 3, 4, 6, 8, 12, 16)

# CXL_DEVICE_* ids of drivers/cxl/cxl.h, printed in modalias "cxl:t%d"
T_NONE, T_BRIDGE, T_NVDIMM, T_PORT, T_ROOT, T_MEMDEV = 0, 1, 2, 3, 4, 5
T_REGION, T_PMEM_REGION, T_DAX_REGION = 6, 7, 8

CXL_MEM_MAJOR = 250


class SpecError(Exception):
    pass


def need(d, keys, where):
    if not isinstance(d, dict):
        raise SpecError(f"{where}: expected an object")
    for k in keys:
        if k not in d:
            raise SpecError(f"{where}: missing key {k!r}")


def num(v, what):
    if isinstance(v, bool):
        raise SpecError(f"{what}: boolean where a number is expected")
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        s = v.strip()
        mult = 1
        suffix = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
        if s and s[-1].upper() in suffix and not s.lower().startswith("0x"):
            mult = suffix[s[-1].upper()]
            s = s[:-1]
        try:
            return int(s, 0) * mult
        except ValueError:
            pass
    raise SpecError(f"{what}: not a number: {v!r}")


def hexs(v):
    """%#llx"""
    return "0x%x" % (v & M64) if v else "0x0"


def pa(v):
    """%pa of a 64-bit resource_size_t"""
    return "0x%016x" % (v & M64)


def kernfs_hash(name):
    """fs/kernfs/dir.c kernfs_name_hash() with ns == NULL, 64-bit kernel."""
    h = 0
    for c in name.encode():
        if c >= 0x80:
            c -= 0x100          # char is signed on x86
        h = ((h + (c << 4) + (c >> 4)) * 11) & M64
    h = ((h * 0x61C8864680B583EB) & M64) >> 32     # hash_long(h, 32)
    h &= 0x7FFFFFFF
    if h < 2:
        h += 2
    if h >= 0x7FFFFFFF:
        h = 0x7FFFFFFE
    return h


# --------------------------------------------------------------------------
# In-memory tree: absolute "/sys/..." or "/dev/..." path -> node
# --------------------------------------------------------------------------
class Tree:
    def __init__(self):
        self.nodes = {"/": ("dir",)}

    def _parent(self, path):
        parent = os.path.dirname(path)
        if parent not in self.nodes:
            self.mkdir(parent)
        elif self.nodes[parent][0] != "dir":
            raise SpecError(f"{parent} is not a directory")

    def mkdir(self, path):
        if path in self.nodes:
            if self.nodes[path][0] != "dir":
                raise SpecError(f"{path} exists and is not a directory")
            return
        self._parent(path)
        self.nodes[path] = ("dir",)

    def file(self, path, content, mode=0o444):
        if path in self.nodes:
            raise SpecError(f"duplicate sysfs node {path}")
        self._parent(path)
        # show() methods always end in a newline ("\n" alone for an empty
        # value); write-only attributes cannot be read, leave them empty
        if mode & 0o444 and not content.endswith("\n"):
            content += "\n"
        self.nodes[path] = ("file", content, mode)

    def attrs(self, base, d, mode=0o444):
        for k, v in d.items():
            if isinstance(v, tuple):
                self.file(f"{base}/{k}", v[0], v[1])
            else:
                self.file(f"{base}/{k}", v, mode)

    def link(self, path, target):
        if path in self.nodes:
            raise SpecError(f"duplicate sysfs node {path}")
        self._parent(path)
        self.nodes[path] = ("link", target)

    def children(self):
        kids = {}
        for p in self.nodes:
            if p == "/":
                continue
            kids.setdefault(os.path.dirname(p), []).append(
                os.path.basename(p))
        return kids


def probe_readdir(outdir):
    """'forward', 'reverse' or None (order not controllable)."""
    probe = os.path.join(outdir, ".mkfakecxl-probe")
    os.mkdir(probe)
    names = ["p%02d" % i for i in range(12)]
    try:
        for n in names:
            open(os.path.join(probe, n), "w").close()
        got = os.listdir(probe)
    finally:
        shutil.rmtree(probe)
    if got == names:
        return "forward"
    if got == names[::-1]:
        return "reverse"
    return None


def materialize(tree, outdir, order, absolute_links):
    kids = tree.children()
    fsorder = None
    if order == "kernfs":
        fsorder = probe_readdir(outdir)
        if fsorder is None:
            print("mkfakecxl: warning: readdir order of the filesystem under "
                  f"{outdir} is hash based (ext4?); `cxl list` ordering of "
                  "ports/dports/endpoints/memdevs will follow it, not the "
                  "kernel's.  Build on tmpfs to get the kernfs order.",
                  file=sys.stderr)

    def sorted_kids(path):
        names = kids.get(path, [])
        if order == "kernfs" and (path == "/sys" or path.startswith("/sys/")):
            names = sorted(names, key=lambda n: (kernfs_hash(n), n))
            if fsorder == "reverse":
                names = names[::-1]
        else:
            names = sorted(names)
        return names

    def real(p):
        return os.path.join(outdir, p.lstrip("/"))

    chmods = []

    def build(path):
        for name in sorted_kids(path):
            child = path.rstrip("/") + "/" + name
            node = tree.nodes[child]
            if node[0] == "dir":
                os.mkdir(real(child))
            elif node[0] == "file":
                with open(real(child), "w") as f:
                    f.write(node[1])
                chmods.append((real(child), node[2]))
            else:
                target = node[1]
                if not absolute_links:
                    target = os.path.relpath(target, os.path.dirname(child))
                os.symlink(target, real(child))
        for name in sorted_kids(path):
            child = path.rstrip("/") + "/" + name
            if tree.nodes[child][0] == "dir":
                build(child)

    build("/")
    for p, mode in chmods:
        os.chmod(p, mode)


# --------------------------------------------------------------------------
# Spec -> model
# --------------------------------------------------------------------------
SYS = "/sys"
DEV_ROOT = "/sys/devices"
BUS_CXL = "/sys/bus/cxl"
ACPI_SB = "/sys/devices/LNXSYSTM:00/LNXSYBUS:00"


def is_pow2(v):
    return v > 0 and (v & (v - 1)) == 0


class Builder:
    def __init__(self, spec, check=True):
        self.spec = spec
        self.check = check
        self.errors = []
        self.warnings = []
        self.t = Tree()

    def err(self, msg):
        self.errors.append(msg)

    def warn(self, msg):
        self.warnings.append(msg)

    # ---- parse ------------------------------------------------------------
    def parse(self):
        s = self.spec
        root = s.get("cxl_root", {}) or {}
        self.root_acpi = root.get("acpi_name", "ACPI0017:00")
        self.root_dev = f"{DEV_ROOT}/platform/{self.root_acpi}"
        self.root_path = f"{self.root_dev}/root0"

        self.hbs = []
        self.hb_by_name = {}
        self.hb_by_uid = {}
        used_ports = {0}
        for i, h in enumerate(s.get("host_bridges", [])):
            need(h, ("name", "uid", "root_ports"), f"host_bridges[{i}]")
            hb = dict(h)
            hb["uid"] = num(h["uid"], f"host_bridges[{i}].uid")
            hb["acpi_name"] = h.get("acpi_name", "ACPI0016:%02X" % i)
            hb["port_id"] = num(h.get("port_id", i + 1), "port_id")
            if hb["port_id"] in used_ports:
                raise SpecError(f"port id {hb['port_id']} used twice")
            used_ports.add(hb["port_id"])
            hb["rps"] = []
            for r in h.get("root_ports", []):
                need(r, ("id", "bdf"), f"{h['name']} root port")
                hb["rps"].append({"id": num(r["id"], "root port id"),
                                  "bdf": r["bdf"]})
            if len({r["id"] for r in hb["rps"]}) != len(hb["rps"]):
                raise SpecError(f"{hb['name']}: duplicate root port id")
            if hb["name"] in self.hb_by_name or hb["uid"] in self.hb_by_uid:
                raise SpecError(f"duplicate host bridge {hb['name']}")
            self.hb_by_name[hb["name"]] = hb
            self.hb_by_uid[hb["uid"]] = hb
            self.hbs.append(hb)

        self.rds = []
        for i, r in enumerate(s.get("root_decoders", [])):
            w = f"root_decoders[{i}]"
            need(r, ("start", "size", "ways", "granularity", "targets"), w)
            rd = {
                "name": f"decoder0.{i}",
                "start": num(r["start"], w + ".start"),
                "size": num(r["size"], w + ".size"),
                "ways": num(r["ways"], w + ".ways"),
                "granularity": num(r["granularity"], w + ".granularity"),
                "targets": [num(x, w + ".targets") for x in r["targets"]],
                "cap": r.get("cap", ["type3", "ram", "pmem"]),
                "locked": num(r.get("locked", 0), w + ".locked"),
                "qos_class": num(r.get("qos_class", -1), w + ".qos_class"),
                "next_region_id": r.get("next_region_id"),
            }
            self.rds.append(rd)
        self.rd_by_name = {rd["name"]: rd for rd in self.rds}

        self.mds = []
        self.md_by_name = {}
        next_ep = max(used_ports) + 1
        for i, m in enumerate(s.get("memdevs", [])):
            w = f"memdevs[{i}]"
            need(m, ("name", "bdf", "host_bridge", "root_port"), w)
            md = dict(m)
            md["serial"] = num(m.get("serial", i), w + ".serial")
            md["ram_size"] = num(m.get("ram_size", 0), w + ".ram_size")
            md["pmem_size"] = num(m.get("pmem_size", 0), w + ".pmem_size")
            md["root_port"] = num(m["root_port"], w + ".root_port")
            md["numa_node"] = num(m.get("numa_node", -1), w + ".numa_node")
            md["payload_max"] = num(m.get("payload_max", 2048), w)
            md["label_storage_size"] = num(m.get("label_storage_size", 0), w)
            md["firmware_version"] = m.get("firmware_version",
                                           "BWFW VERSION 00")
            md["enabled"] = bool(m.get("enabled", True))
            if "endpoint_id" in m:
                md["endpoint_id"] = num(m["endpoint_id"], w + ".endpoint_id")
            else:
                while next_ep in used_ports:
                    next_ep += 1
                md["endpoint_id"] = next_ep
            if md["endpoint_id"] in used_ports:
                raise SpecError(f"{md['name']}: port id "
                                f"{md['endpoint_id']} used twice")
            used_ports.add(md["endpoint_id"])
            if md["name"] in self.md_by_name:
                raise SpecError(f"duplicate memdev {md['name']}")
            if not md["name"].startswith("mem") or \
                    not md["name"][3:].isdigit():
                raise SpecError(f"memdev name {md['name']!r} is not memN")
            hb = self.hb_by_name.get(md["host_bridge"])
            if hb is None:
                raise SpecError(f"{md['name']}: unknown host bridge "
                                f"{md['host_bridge']}")
            rp = [r for r in hb["rps"] if r["id"] == md["root_port"]]
            if not rp:
                raise SpecError(f"{md['name']}: {hb['name']} has no root "
                                f"port {md['root_port']}")
            md["hb"] = hb
            md["rp"] = rp[0]
            self.md_by_name[md["name"]] = md
            self.mds.append(md)

        self.regions = []
        self.region_by_name = {}
        for i, r in enumerate(s.get("regions", [])):
            w = f"regions[{i}]"
            need(r, ("name", "root_decoder", "size", "ways", "granularity",
                     "targets"), w)
            rg = dict(r)
            if not rg["name"].startswith("region") or \
                    not rg["name"][6:].isdigit():
                raise SpecError(f"region name {rg['name']!r} is not regionN")
            rg["id"] = int(rg["name"][6:])
            rg["resource"] = (None if r.get("resource") is None
                              else num(r["resource"], w + ".resource"))
            rg["size"] = num(r.get("size", 0), w + ".size")
            rg["ways"] = num(r["ways"], w + ".ways")
            rg["granularity"] = num(r["granularity"], w + ".granularity")
            rg["commit"] = num(r.get("commit", 1), w + ".commit")
            rg["cache_size"] = (None if "extended_linear_cache_size" not in r
                                else num(r["extended_linear_cache_size"],
                                         w + ".extended_linear_cache_size"))
            rg["enabled"] = bool(r.get("enabled", rg["commit"] == 1))
            rg["mode"] = r.get("mode", "ram")
            if rg["mode"] not in ("ram", "pmem"):
                raise SpecError(f"{rg['name']}: mode must be ram or pmem")
            if "uuid" in r:
                rg["uuid"] = r["uuid"]
            elif rg["mode"] == "pmem":
                rg["uuid"] = str(uuid.uuid5(uuid.NAMESPACE_URL,
                                            "mkfakecxl:" + rg["name"] + ":" +
                                            hexs(rg["resource"] or 0)))
            else:
                rg["uuid"] = ""
            if rg["root_decoder"] not in self.rd_by_name:
                raise SpecError(f"{rg['name']}: unknown root decoder "
                                f"{rg['root_decoder']}")
            rg["rd"] = self.rd_by_name[rg["root_decoder"]]
            if rg["name"] in self.region_by_name:
                raise SpecError(f"duplicate region {rg['name']}")
            self.region_by_name[rg["name"]] = rg
            self.regions.append(rg)

        # endpoint decoders
        self.dec_by_name = {}
        for md in self.mds:
            decs = list(md.get("decoders", []) or [])
            n = num(md.get("nr_decoders", max(len(decs), 1)), "nr_decoders")
            if len(decs) > n:
                raise SpecError(f"{md['name']}: more decoders than "
                                "nr_decoders")
            decs += [None] * (n - len(decs))
            md["decs"] = []
            for j, d in enumerate(decs):
                ed = self._endpoint_decoder(md, j, d or {})
                md["decs"].append(ed)
                self.dec_by_name[ed["name"]] = ed
        for rg in self.regions:
            rg["eds"] = []
            for pos, tname in enumerate(rg.get("targets", [])):
                ed = self.dec_by_name.get(tname)
                if ed is None:
                    raise SpecError(f"{rg['name']}: target{pos} {tname} is "
                                    "not an endpoint decoder of the spec")
                rg["eds"].append(ed)
        for md in self.mds:
            for ed in md["decs"]:
                self._endpoint_decoder_defaults(ed)

        # switch decoders
        for hb in self.hbs:
            decs = list(hb.get("decoders", []) or [])
            n = num(hb.get("nr_decoders", max(len(decs), 1)), "nr_decoders")
            if len(decs) > n:
                raise SpecError(f"{hb['name']}: more decoders than "
                                "nr_decoders")
            decs += [None] * (n - len(decs))
            hb["decs"] = [self._switch_decoder(hb, j, d or {})
                          for j, d in enumerate(decs)]

    def _endpoint_decoder(self, md, j, d):
        name = f"decoder{md['endpoint_id']}.{j}"
        w = f"{md['name']} {name}"
        ed = {"name": name, "md": md, "id": j, "spec": d,
              "region": d.get("region"),
              "dpa_size": num(d.get("dpa_size", 0), w + ".dpa_size"),
              "locked": num(d.get("locked", 0), w + ".locked")}
        ed["dpa_resource"] = (num(d["dpa_resource"], w + ".dpa_resource")
                              if "dpa_resource" in d else
                              (0 if ed["dpa_size"] else M64))
        ed["mode"] = d.get("mode", "none" if not ed["dpa_size"] else "ram")
        if ed["region"] is not None and ed["region"] not in \
                self.region_by_name:
            raise SpecError(f"{w}: unknown region {ed['region']}")
        return ed

    def _endpoint_decoder_defaults(self, ed):
        d = ed["spec"]
        w = f"{ed['md']['name']} {ed['name']}"
        rg = self.region_by_name.get(ed["region"]) if ed["region"] else None
        if rg is not None:
            dflt = {"start": rg["resource"] if rg["resource"] is not None
                    else 0, "size": rg["size"] if rg["resource"] is not None
                    else 0,
                    "ways": rg["ways"], "granularity": rg["granularity"]}
        else:
            dflt = {"start": 0, "size": 0, "ways": 1,
                    "granularity": PAGE_SIZE}
        for k, v in dflt.items():
            ed[k] = num(d[k], f"{w}.{k}") if k in d else v
        ed["committed"] = num(d.get("committed",
                                    1 if rg and rg["commit"] == 1 else 0),
                              w + ".committed")

    def _root_pos_of(self, rg, hb):
        return [pos for pos, ed in enumerate(rg["eds"])
                if ed["md"]["hb"] is hb]

    def _switch_decoder(self, hb, j, d):
        name = f"decoder{hb['port_id']}.{j}"
        w = f"{hb['name']} {name}"
        sd = {"name": name, "hb": hb, "id": j, "region": d.get("region"),
              "locked": num(d.get("locked", 0), w + ".locked")}
        rg = None
        if sd["region"] is not None:
            rg = self.region_by_name.get(sd["region"])
            if rg is None:
                raise SpecError(f"{w}: unknown region {sd['region']}")
        if rg is not None:
            # what cxl_port_setup_targets() would program
            rw = rg["rd"]["ways"]
            pw = rw if is_pow2(rw) else rw // 3
            tl = []
            for pos in self._root_pos_of(rg, hb):
                rid = rg["eds"][pos]["md"]["rp"]["id"]
                if rid not in tl:
                    tl.append(rid)
            derived = {"start": rg["resource"] if rg["resource"] is not None
                       else 0,
                       "size": rg["size"] if rg["resource"] is not None
                       else 0,
                       "ways": max(len(tl), 1),
                       "granularity": rg["granularity"] * pw,
                       "targets": tl or [hb["rps"][0]["id"]]}
        else:
            ids = [r["id"] for r in hb["rps"]]
            derived = {"start": 0, "size": 0, "ways": 1,
                       "granularity": PAGE_SIZE,
                       "targets": [0] if 0 in ids else []}
        for k, v in derived.items():
            if k in d:
                sd[k] = ([num(x, w + ".targets") for x in d[k]]
                         if k == "targets" else num(d[k], f"{w}.{k}"))
                if rg is not None and sd[k] != v:
                    self.warn(f"{w}: {k} {sd[k]} differs from what Linux "
                              f"would program ({v})")
            else:
                sd[k] = v
        sd["committed"] = num(d.get("committed",
                                    1 if rg and rg["commit"] == 1 else 0),
                              w + ".committed")
        return sd

    # ---- checks -----------------------------------------------------------
    def validate(self):
        for rd in self.rds:
            n = rd["name"]
            if rd["ways"] not in LEGAL_WAYS:
                self.err(f"{n}: illegal interleave ways {rd['ways']}")
            if len(rd["targets"]) != rd["ways"]:
                self.err(f"{n}: {len(rd['targets'])} targets for "
                         f"{rd['ways']} ways")
            for t in rd["targets"]:
                if t not in self.hb_by_uid:
                    self.err(f"{n}: target {t} is no host bridge uid")
            g = rd["granularity"]
            if not is_pow2(g) or not 256 <= g <= 16384:
                self.err(f"{n}: illegal granularity {g}")
            if rd["start"] % SZ_256M or rd["size"] % SZ_256M:
                self.err(f"{n}: window not 256 MiB aligned")
            if rd["size"] % (SZ_256M * rd["ways"]):
                self.err(f"{n}: window size not a multiple of ways*256MiB")
            for c in rd["cap"]:
                if c not in ("type2", "type3", "ram", "pmem"):
                    self.err(f"{n}: unknown cap {c}")
        for i, a in enumerate(self.rds):
            for b in self.rds[i + 1:]:
                if a["start"] < b["start"] + b["size"] and \
                        b["start"] < a["start"] + a["size"]:
                    self.err(f"{a['name']} and {b['name']} overlap")
        seen_rp = {}
        for md in self.mds:
            key = (md["hb"]["name"], md["root_port"])
            if key in seen_rp:
                self.err(f"{md['name']} and {seen_rp[key]} share root port "
                         f"{key} (switches are not modelled)")
            seen_rp[key] = md["name"]
            cap = md["ram_size"] + md["pmem_size"]
            if md["ram_size"] % SZ_256M or md["pmem_size"] % SZ_256M:
                self.warn(f"{md['name']}: capacity not 256 MiB aligned")
            last_end = 0
            for ed in md["decs"]:
                if not ed["dpa_size"]:
                    continue
                lo, hi = ed["dpa_resource"], ed["dpa_resource"] + \
                    ed["dpa_size"]
                if ed["dpa_size"] % SZ_256M:
                    self.err(f"{ed['name']}: dpa_size not 256 MiB aligned")
                if hi > cap:
                    self.err(f"{ed['name']}: DPA beyond device capacity")
                if ed["mode"] == "ram" and hi > md["ram_size"]:
                    self.err(f"{ed['name']}: ram decoder outside ram "
                             "partition")
                if ed["mode"] == "pmem" and lo < md["ram_size"]:
                    self.err(f"{ed['name']}: pmem decoder inside ram "
                             "partition")
                if ed["mode"] not in ("ram", "pmem"):
                    self.err(f"{ed['name']}: allocated DPA needs mode "
                             "ram or pmem")
                if lo < last_end:
                    self.err(f"{ed['name']}: DPA overlaps or is below a "
                             "lower-numbered decoder (Linux allocates in "
                             "decoder order)")
                last_end = hi
            for ed in md["decs"]:
                if ed["region"] and not ed["dpa_size"]:
                    self.err(f"{ed['name']}: in {ed['region']} without DPA")
        for rg in self.regions:
            n, rd = rg["name"], rg["rd"]
            if rg["ways"] not in LEGAL_WAYS:
                self.err(f"{n}: illegal ways {rg['ways']}")
            g = rg["granularity"]
            if not is_pow2(g) or not 256 <= g <= 16384:
                self.err(f"{n}: illegal granularity {g}")
            if g < rd["granularity"] or (rd["ways"] > 1 and
                                         g != rd["granularity"]):
                self.err(f"{n}: granularity {g} not allowed under "
                         f"{rd['name']} (ways {rd['ways']}, granularity "
                         f"{rd['granularity']})")
            if rg["ways"] % rd["ways"]:
                self.err(f"{n}: ways not a multiple of root ways")
            if len(rg["eds"]) != rg["ways"]:
                self.err(f"{n}: {len(rg['eds'])} targets for "
                         f"{rg['ways']} ways")
            if rg["resource"] is not None:
                if rg["resource"] < rd["start"] or rg["resource"] + \
                        rg["size"] > rd["start"] + rd["size"]:
                    self.err(f"{n}: outside {rd['name']} window")
                if rg["resource"] % SZ_256M or rg["size"] % SZ_256M:
                    self.err(f"{n}: HPA range not 256 MiB aligned")
            cap = {"ram": "ram", "pmem": "pmem"}[rg["mode"]]
            if cap not in rd["cap"]:
                self.err(f"{n}: {rd['name']} is not {cap} capable")
            for pos, ed in enumerate(rg["eds"]):
                if ed["region"] != n:
                    self.err(f"{n}: target{pos} {ed['name']} has region "
                             f"{ed['region']!r}")
                if ed["mode"] != rg["mode"]:
                    self.err(f"{n}: target{pos} mode {ed['mode']}")
                if ed["dpa_size"] * rg["ways"] != rg["size"]:
                    self.err(f"{n}: target{pos} dpa_size*ways != size")
                if (ed["ways"], ed["granularity"]) != (rg["ways"], g):
                    self.err(f"{n}: target{pos} ways/granularity differ")
                want = rd["targets"][pos % rd["ways"]] if rd["targets"] \
                    else None
                if ed["md"]["hb"]["uid"] != want:
                    self.err(f"{n}: position {pos} ({ed['md']['name']}) is "
                             f"under host bridge uid {ed['md']['hb']['uid']},"
                             f" {rd['name']} routes it to {want}")
            if len({ed["md"]["name"] for ed in rg["eds"]}) != len(rg["eds"]):
                self.err(f"{n}: a memdev appears twice")
            for hb in {id(e["md"]["hb"]): e["md"]["hb"]
                       for e in rg["eds"]}.values():
                sds = [sd for sd in hb["decs"] if sd["region"] == n]
                if len(sds) != 1:
                    self.err(f"{n}: {hb['name']} has {len(sds)} switch "
                             "decoders for it (want 1)")
        for i, a in enumerate(self.regions):
            for b in self.regions[i + 1:]:
                if a["resource"] is None or b["resource"] is None:
                    continue
                if a["resource"] < b["resource"] + b["size"] and \
                        b["resource"] < a["resource"] + a["size"]:
                    self.err(f"{a['name']} and {b['name']} overlap")
        for hb in self.hbs:
            ids = [r["id"] for r in hb["rps"]]
            for sd in hb["decs"]:
                if len(sd["targets"]) != sd["ways"] and sd["size"]:
                    self.err(f"{sd['name']}: {len(sd['targets'])} targets "
                             f"for {sd['ways']} ways")
                for t in sd["targets"]:
                    if t not in ids:
                        self.err(f"{sd['name']}: target {t} is no root port")

    # ---- emit -------------------------------------------------------------
    def rel_driver(self, devpath, bus, drv):
        t = self.t
        ddir = f"{SYS}/bus/{bus}/drivers/{drv}"
        t.mkdir(ddir)
        t.link(f"{devpath}/driver", ddir)
        t.link(f"{ddir}/{os.path.basename(devpath)}", devpath)

    def cxl_dev(self, path, devtype, typeid, driver=None, uevent_extra=""):
        t = self.t
        t.mkdir(path)
        name = os.path.basename(path)
        ue = ""
        if devtype:
            ue += f"DEVTYPE={devtype}\n"
        if driver:
            ue += f"DRIVER={driver}\n"
        ue += uevent_extra
        ue += f"MODALIAS=cxl:t{typeid}\n"
        t.file(f"{path}/uevent", ue, 0o644)
        t.link(f"{path}/subsystem", BUS_CXL)
        if devtype:
            t.file(f"{path}/devtype", devtype)
            t.file(f"{path}/modalias", f"cxl:t{typeid}")
        t.link(f"{BUS_CXL}/devices/{name}", path)
        if driver:
            self.rel_driver(path, "cxl", driver)

    def emit(self):
        t = self.t
        for d in ("cxl_port", "cxl_mem", "cxl_region", "cxl_nvdimm_bridge",
                  "cxl_nvdimm", "cxl_pmem_region", "cxl_dax_region"):
            dd = f"{BUS_CXL}/drivers/{d}"
            t.mkdir(dd)
            t.attrs(dd, {"bind": ("", 0o200), "unbind": ("", 0o200),
                         "uevent": ("", 0o200)})
        t.mkdir(f"{BUS_CXL}/devices")
        t.attrs(BUS_CXL, {"flush": ("", 0o200),
                          "drivers_autoprobe": ("1", 0o644),
                          "drivers_probe": ("", 0o200),
                          "uevent": ("", 0o200)})

        # ACPI nodes and the platform device of the CXL root
        acpi_root = f"{ACPI_SB}/{self.root_acpi}"
        t.attrs(acpi_root, {"hid": "ACPI0017", "path": "\\_SB_.CXLM",
                            "status": "15", "modalias": "acpi:ACPI0017:",
                            "uevent": ("MODALIAS=acpi:ACPI0017:", 0o644)})
        t.link(f"{acpi_root}/physical_node", self.root_dev)
        t.link(f"{acpi_root}/subsystem", f"{SYS}/bus/acpi")
        t.link(f"{SYS}/bus/acpi/devices/{self.root_acpi}", acpi_root)
        t.attrs(self.root_dev, {
            "modalias": "acpi:ACPI0017:", "driver_override": ("(null)", 0o644),
            "uevent": ("DRIVER=cxl_acpi\nMODALIAS=acpi:ACPI0017:", 0o644)})
        t.mkdir(f"{self.root_dev}/power")
        t.file(f"{self.root_dev}/power/control", "auto", 0o644)
        t.link(f"{self.root_dev}/firmware_node", acpi_root)
        t.link(f"{self.root_dev}/subsystem", f"{SYS}/bus/platform")
        t.link(f"{SYS}/bus/platform/devices/{self.root_acpi}", self.root_dev)
        self.rel_driver(self.root_dev, "platform", "cxl_acpi")

        # root0
        rp_ = self.root_path
        self.cxl_dev(rp_, "cxl_port", T_ROOT, "cxl_port")
        t.link(f"{rp_}/uport", self.root_dev)
        t.file(f"{rp_}/decoders_committed", "0")

        pmem_capable = any("pmem" in rd["cap"] for rd in self.rds)
        if pmem_capable:
            self.cxl_dev(f"{rp_}/nvdimm-bridge0", "cxl_nvdimm_bridge",
                         T_BRIDGE, "cxl_nvdimm_bridge")

        for hb in self.hbs:
            self.emit_hb(hb)
            t.link(f"{rp_}/dport{hb['uid']}", hb["acpi_path"])

        for rd in self.rds:
            self.emit_root_decoder(rd)

        for md in self.mds:
            self.emit_memdev(md, pmem_capable)

        t.mkdir("/dev/cxl")
        for md in self.mds:
            t.file(f"/dev/cxl/{md['name']}", "", 0o600)

    def emit_hb(self, hb):
        t = self.t
        bus = hb["name"].split(":")[1]
        acpi = f"{ACPI_SB}/{hb['acpi_name']}"
        hb["acpi_path"] = acpi
        hbdev = f"{DEV_ROOT}/{hb['name']}"
        hb["path"] = hbdev
        t.attrs(acpi, {"hid": "ACPI0016", "uid": str(hb["uid"]),
                       "path": "\\_SB_.PC%02X" % hb["uid"], "status": "15",
                       "adr": "0x00000000",
                       "modalias": "acpi:ACPI0016:PNP0A08:PNP0A03:",
                       "uevent": ("MODALIAS=acpi:ACPI0016:PNP0A08:PNP0A03:",
                                  0o644)})
        t.link(f"{acpi}/physical_node", hbdev)
        t.link(f"{acpi}/subsystem", f"{SYS}/bus/acpi")
        t.link(f"{SYS}/bus/acpi/devices/{hb['acpi_name']}", acpi)
        t.file(f"{hbdev}/uevent", "", 0o644)
        t.mkdir(f"{hbdev}/power")
        t.file(f"{hbdev}/power/control", "auto", 0o644)
        t.link(f"{hbdev}/firmware_node", acpi)
        t.mkdir(f"{hbdev}/pci_bus/0000:{bus}")
        for r in hb["rps"]:
            self.emit_pci(f"{hbdev}/{r['bdf']}", "0x8086", "0x7075",
                          "0x060400", "pcieport")
            r["path"] = f"{hbdev}/{r['bdf']}"

        port = f"{self.root_path}/port{hb['port_id']}"
        hb["port_path"] = port
        self.cxl_dev(port, "cxl_port", T_PORT, "cxl_port")
        t.link(f"{port}/uport", hbdev)
        t.link(f"{port}/parent_dport", acpi)
        for r in hb["rps"]:
            t.link(f"{port}/dport{r['id']}", r["path"])
        t.file(f"{port}/decoders_committed",
               str(sum(1 for sd in hb["decs"] if sd["committed"])))
        for sd in hb["decs"]:
            p = f"{port}/{sd['name']}"
            self.cxl_dev(p, "cxl_decoder_switch", T_NONE)
            t.attrs(p, {
                **hdm_decoder_attrs(sd),
                "target_list": ",".join(str(x) for x in sd["targets"]),
                "region": sd["region"] or ""})

    def emit_pci(self, path, vendor, device, cls, driver):
        t = self.t
        t.attrs(path, {"vendor": vendor, "device": device, "class": cls,
                       "numa_node": ("-1", 0o644), "enable": ("1", 0o644),
                       "uevent": (f"DRIVER={driver}\nPCI_CLASS="
                                  f"{int(cls, 16):X}\nPCI_SLOT_NAME="
                                  f"{os.path.basename(path)}", 0o644)})
        t.mkdir(f"{path}/power")
        t.file(f"{path}/power/control", "on", 0o644)
        t.link(f"{path}/subsystem", f"{SYS}/bus/pci")
        t.link(f"{SYS}/bus/pci/devices/{os.path.basename(path)}", path)
        self.rel_driver(path, "pci", driver)

    def emit_root_decoder(self, rd):
        t = self.t
        p = f"{self.root_path}/{rd['name']}"
        rd["path"] = p
        self.cxl_dev(p, "cxl_decoder_root", T_NONE)
        flags = {c: (1 if c in rd["cap"] else 0)
                 for c in ("pmem", "ram", "type2", "type3")}
        ids = sorted(r["id"] for r in self.regions)
        nxt = rd["next_region_id"]
        if nxt is None:
            nxt = (ids[-1] + 1 if ids else 0) + self.rds.index(rd)
        attrs = {
            "start": (hexs(rd["start"]), 0o400),
            "size": hexs(rd["size"]),
            "locked": str(rd["locked"]),
            "interleave_granularity": str(rd["granularity"]),
            "interleave_ways": str(rd["ways"]),
            "cap_pmem": str(flags["pmem"]), "cap_ram": str(flags["ram"]),
            "cap_type2": str(flags["type2"]),
            "cap_type3": str(flags["type3"]),
            "target_list": ",".join(str(x) for x in rd["targets"]),
            "qos_class": str(rd["qos_class"]),
        }
        can_pmem = flags["type3"] and flags["pmem"]
        can_ram = flags["type3"] and flags["ram"]
        if can_pmem:
            attrs["create_pmem_region"] = (f"region{nxt}", 0o644)
        if can_ram:
            attrs["create_ram_region"] = (f"region{nxt}", 0o644)
        if can_pmem or can_ram:
            attrs["delete_region"] = ("", 0o200)
        t.attrs(p, attrs)
        for rg in self.regions:
            if rg["rd"] is rd:
                self.emit_region(rg, p)

    def emit_region(self, rg, parent):
        t = self.t
        p = f"{parent}/{rg['name']}"
        self.cxl_dev(p, "cxl_region", T_REGION,
                     "cxl_region" if rg["enabled"] else None)
        res = M64 if rg["resource"] is None else rg["resource"]
        size = 0 if rg["resource"] is None else rg["size"]
        t.attrs(p, {
            "uuid": (rg["uuid"], 0o644 if rg["mode"] == "pmem" else 0o444),
            "commit": (str(rg["commit"]), 0o644),
            "interleave_ways": (str(rg["ways"]), 0o644),
            "interleave_granularity": (str(rg["granularity"]), 0o644),
            "resource": hexs(res),
            "size": (hexs(size), 0o644),
            "mode": rg["mode"],
        })
        if rg["cache_size"] is not None:
            # kernel 6.15+ (ndctl v84 reads it); "%#llx" assumed
            t.attrs(p, {"extended_linear_cache_size": hexs(rg["cache_size"])})
        for pos in range(rg["ways"]):
            name = rg["eds"][pos]["name"] if pos < len(rg["eds"]) else ""
            t.file(f"{p}/target{pos}", name, 0o644)
        if rg["enabled"] and rg["commit"] == 1:
            if rg["mode"] == "ram":
                self.cxl_dev(f"{p}/dax_region{rg['id']}", "cxl_dax_region",
                             T_DAX_REGION, "cxl_dax_region")
            else:
                self.cxl_dev(f"{p}/pmem_region{rg['id']}", "cxl_pmem_region",
                             T_PMEM_REGION, "cxl_pmem_region")

    def emit_memdev(self, md, pmem_capable):
        t = self.t
        rp = md["rp"]
        pdev = f"{rp['path']}/{md['bdf']}"
        self.emit_pci(pdev, "0x8086", "0x0d93", "0x050210", "cxl_pci")
        mid = int(md["name"][3:])
        mpath = f"{pdev}/{md['name']}"
        md["path"] = mpath
        t.mkdir(mpath)
        t.attrs(mpath, {
            "dev": f"{CXL_MEM_MAJOR}:{mid}",
            "uevent": (f"MAJOR={CXL_MEM_MAJOR}\nMINOR={mid}\n"
                       f"DEVNAME=cxl/{md['name']}\nDEVTYPE=cxl_memdev\n"
                       "DRIVER=cxl_mem", 0o644),
            "serial": hexs(md["serial"]),
            "numa_node": str(md["numa_node"]),
            "firmware_version": md["firmware_version"],
            "payload_max": str(md["payload_max"]),
            "label_storage_size": str(md["label_storage_size"]),
            "trigger_poison_list": ("", 0o200),
        })
        t.attrs(f"{mpath}/ram", {"size": hexs(md["ram_size"]),
                                 "qos_class": "-1"})
        t.attrs(f"{mpath}/pmem", {"size": hexs(md["pmem_size"]),
                                  "qos_class": "-1"})
        t.attrs(f"{mpath}/security", {"state": "disabled",
                                      "sanitize": ("", 0o200),
                                      "erase": ("", 0o200)})
        t.link(f"{mpath}/subsystem", BUS_CXL)
        t.link(f"{BUS_CXL}/devices/{md['name']}", mpath)
        if md["enabled"]:
            self.rel_driver(mpath, "cxl", "cxl_mem")
        if md["pmem_size"] and pmem_capable:
            self.cxl_dev(f"{mpath}/pmem{mid}", "cxl_nvdimm", T_NVDIMM,
                         "cxl_nvdimm")

        if not md["enabled"]:
            return
        ep = f"{md['hb']['port_path']}/endpoint{md['endpoint_id']}"
        self.cxl_dev(ep, "cxl_port", T_PORT, "cxl_port")
        t.link(f"{ep}/uport", mpath)
        t.link(f"{ep}/parent_dport", rp["path"])
        t.file(f"{ep}/decoders_committed",
               str(sum(1 for ed in md["decs"] if ed["committed"])))
        for ed in md["decs"]:
            p = f"{ep}/{ed['name']}"
            self.cxl_dev(p, "cxl_decoder_endpoint", T_NONE)
            t.attrs(p, {
                **hdm_decoder_attrs(ed),
                "mode": (ed["mode"], 0o644),
                "dpa_size": (pa(ed["dpa_size"]), 0o644),
                "dpa_resource": hexs(ed["dpa_resource"]),
                "region": ed["region"] or ""})


def hdm_decoder_attrs(d):
    """Attributes every switch and endpoint HDM decoder has, in sysfs order."""
    return {
        "start": (hexs(d["start"]), 0o400),
        "size": hexs(d["size"]),
        "locked": str(d["locked"]),
        "interleave_granularity": str(d["granularity"]),
        "interleave_ways": str(d["ways"]),
        "target_type": "expander",
    }


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Build a fake CXL sysfs tree (OUTDIR/sys, OUTDIR/dev) "
                    "from a topology spec; see the header of this file.")
    ap.add_argument("spec")
    ap.add_argument("outdir")
    ap.add_argument("--order", choices=("kernfs", "none"), default="kernfs",
                    help="directory entry creation order (default kernfs)")
    ap.add_argument("--absolute-links", action="store_true",
                    help="write symlink targets as /sys/... paths")
    ap.add_argument("--no-check", action="store_true",
                    help="build even if the spec is inconsistent")
    ap.add_argument("--force", action="store_true",
                    help="replace existing OUTDIR/sys and OUTDIR/dev")
    a = ap.parse_args(argv)

    try:
        with open(a.spec) as f:
            spec = json.load(f)
        b = Builder(spec)
        b.parse()
        b.validate()
    except (SpecError, KeyError, TypeError, ValueError) as e:
        what = f"missing key {e}" if isinstance(e, KeyError) else str(e)
        print(f"mkfakecxl: {a.spec}: {what}", file=sys.stderr)
        return 2
    for w in b.warnings:
        print(f"mkfakecxl: warning: {w}", file=sys.stderr)
    if b.errors:
        for e in b.errors:
            print(f"mkfakecxl: {'warning' if a.no_check else 'error'}: {e}",
                  file=sys.stderr)
        # a spec modelled on a platform Linux alone would not program
        # (AMD normalized addressing) says so with "unchecked": true
        if not a.no_check and not spec.get("unchecked"):
            return 1
    try:
        b.emit()
    except SpecError as e:
        print(f"mkfakecxl: {e}", file=sys.stderr)
        return 2

    os.makedirs(a.outdir, exist_ok=True)
    for sub in ("sys", "dev"):
        p = os.path.join(a.outdir, sub)
        if os.path.lexists(p):
            if not a.force:
                print(f"mkfakecxl: {p} exists (use --force)", file=sys.stderr)
                return 1
            shutil.rmtree(p)
    materialize(b.t, a.outdir, a.order, a.absolute_links)
    return 0


if __name__ == "__main__":
    sys.exit(main())
