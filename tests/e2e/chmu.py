#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The closed loop's host side (run.sh chmu).

  chmu.py bound BACKEND       the bound on 90 % coverage, as `bound=SECONDS`
  chmu.py check DIR BACKEND [MOVER [KIND]]
                              the guest's TAP (hb-vmchmu) plus list, explain and
                              the CHMU's counts (MOVER hotbridge), or the
                              workload's alone (damon; crash, with the kill
                              loop's checks), as one TAP stream; KIND
                              is the source that read the CHMU: chmu (its
                              registers, default) or cxl-hmu (the perf driver)

The bound, from the configuration hb-vm-chmu.sh writes:
  a page that turns hot mid-epoch is counted in full only in the next
  epoch, so its first hotlist entry can come up to 2 epochs after the
  workload starts (2 x epoch_ms); the daemon drains the CHMU on its next
  cycle (interval_ms) and promotes in that cycle, within the rate limit
  (the hot set's bytes / rate_mbps); the workload notices at its next
  sample (0.25 s). Under TCG the guest runs an order of magnitude slower
  than hardware: the cycle's work and the migrations take longer than the
  formula's terms, so SLACK seconds are added, measured (tests/qemu/README.md).
  The damon backend (stock kernels) commits one region per page: a cycle
  that promotes 256 pages took 3.5 s under TCG with the host at load 9, and
  the hot set arrives over three such cycles, so its slack is larger.
"""
import json
import re
import sys

EPOCH_S = 1.0
INTERVAL_S = 0.5
RATE_BPS = 4e6
HOT_BYTES = 256 * 4096
SAMPLE_S = 0.25
SLACK_S = {"phys": 7.0, "auto": 15.0, "damon": 15.0}


def bound(backend):
    formula = 2 * EPOCH_S + INTERVAL_S + HOT_BYTES / RATE_BPS + SAMPLE_S
    return formula, formula + SLACK_S.get(backend, 7.0)


def records_per_epoch(d, records):
    """records over the epochs between the daemon's start and the sources' read"""
    try:
        m = re.search(r"read (\d+) s after", open(d + "/share/elapsed").read())
        return records / max(1.0, int(m.group(1)) / EPOCH_S)
    except (OSError, AttributeError):
        return None


def check(d, backend, mover="hotbridge", kind="chmu"):
    n = 0
    good = True

    def ok(cond, what):
        nonlocal n, good
        n += 1
        print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
        good &= bool(cond)

    chmu = []
    formula, b = bound(backend)
    print("# bound on 90 %% coverage: 2 x epoch %.1f s + cycle %.1f s + %d KiB at %.0f MB/s "
          "+ sample %.2f s = %.2f s, + %.0f s TCG slack = %.1f s"
          % (EPOCH_S, INTERVAL_S, HOT_BYTES // 1024, RATE_BPS / 1e6, SAMPLE_S, formula,
             b - formula, b))
    log = open(d + "/guest.log", errors="replace").read().splitlines()
    tap = [l for l in log if re.match(r"(not )?ok \d+ ", l)]
    for l in log:
        if "coverage" in l or "time to 90" in l or "hb-vm-chmu:" in l or "migrated" in l \
                or "hb-vm-crash:" in l or "kill phase" in l or "decoy" in l \
                or "chmu" in l.lower() and "source" in l:
            print("# " + l.lstrip("# "))
    if not tap:
        ok(False, "the guest's workload reported nothing (see guest.log)")
    for l in tap:
        m = re.match(r"(not )?ok \d+ - ?(.*)", l)
        ok(m.group(1) is None, m.group(2))
    if mover != "hotbridge":
        print("1..%d" % n)
        return 0 if good else 1
    # hotbridge list: each memdev's CHMU found through the Register Locator,
    # with the capabilities our QEMU model reports by default
    want = {"version": 1, "instances": 1, "hotlist_size": 1024, "counter_width": 16,
            "unit_sizes": "4096,8192", "downsampling_factors": "1,2,4,8,16,32",
            "epoch_based": True, "always_on": True, "min_epoch_ns": 10000000,
            "max_epoch_ns": 100000000000}
    try:
        lst = json.load(open(d + "/share/list.json"))
        mds = lst.get("cxl_memdevs") or []
        for m in mds:
            print("# list: %s at %s: CHMU %s, mapped by %s, %s" % (
                m.get("memdev"), m.get("pci"), m.get("chmu"), m.get("chmu_mapping"),
                json.dumps(m.get("chmu_capabilities"))))
        if kind == "chmu":
            ok(mds and all(m.get("chmu") and m.get("chmu_capabilities") == want for m in mds),
               "hotbridge list: %d memdev(s), each with its CHMU (block 5) and QEMU's capabilities"
               % len(mds))
        else:
            pmus = lst.get("chmu_perf_pmus") or []
            hmu = {s.get("source"): s for s in lst.get("sources") or []}.get("cxl-hmu", {})
            names = ["cxl_hmu_%s.0.0" % m.get("memdev") for m in mds]
            ok(mds and all(n in pmus for n in names) and hmu.get("available") is True,
               "hotbridge list: the PMUs %s for %d memdev(s), cxl-hmu available (%s)"
               % (", ".join(pmus), len(mds), hmu.get("why")))
            # the driver claims the block: the register path must refuse it
            ok(mds and all(m.get("chmu") and "claimed" in (m.get("chmu_error") or "") for m in mds),
               "hotbridge list: the register path refuses the driver's block (%s)"
               % "; ".join(str(m.get("chmu_error")) for m in mds))
    except (OSError, ValueError) as e:
        ok(False, "hotbridge list: %s" % e)
    try:
        x = json.load(open(d + "/share/explain.json"))
        x = x.get(x.get("command"), x)
        hist = x.get("history") or []
        srcs = {e.get("hotness_source") for e in hist if e.get("decision") == "promote"}
        promoted = [e for e in hist if e.get("decision") == "promote"]
        prefix = "chmu-" if kind == "chmu" else "hmu-"
        ok(promoted and all(s and s.startswith(prefix) for s in srcs),
           "explain %s: promoted %d time(s), by source %s" % (x.get("page"), len(promoted),
                                                              ", ".join(sorted(str(s) for s in srcs)) or "none"))
    except (OSError, ValueError) as e:
        ok(False, "explain of hot set A's first page: %s" % e)
    try:
        h = json.load(open(d + "/share/history.json"))
        h = h.get(h.get("command"), h)
        per = {}
        for e in h.get("entries", []):
            if e.get("decision") == "promote":
                k = (e.get("memdev"), e.get("hotness_source"))
                per[k] = per.get(k, 0) + 1
        print("# the last %d decisions' promotions by memdev and source: %s" % (
            len(h.get("entries", [])), ", ".join("%s from %s: %d" % (k[0], k[1], v)
                                                  for k, v in sorted(per.items(), key=str))))
    except (OSError, ValueError) as e:
        print("# history: %s" % e)
    try:
        s = json.load(open(d + "/share/sources.json"))
        sources = s.get(s.get("command"), s) or []
        chmu = [src for src in sources if src.get("source") == kind]
        for src in chmu:
            rpe = records_per_epoch(d, src.get("records", 0))
            print("# CHMU source %s (%s, %s): %d records (%s per epoch), %d bad input, "
                  "%d consecutive errors" % (
                      src.get("name"), kind, src.get("memdev"), src.get("records", 0),
                      "%.1f" % rpe if rpe is not None else "?", src.get("bad_input", 0),
                      src.get("consecutive_errors", 0)))
        ok(chmu and all(src.get("records", 0) > 0 and not src.get("disabled") for src in chmu),
           "every %s source delivered hotlist records (%s)"
           % (kind, ", ".join("%s %d" % (src.get("name"), src.get("records", 0)) for src in chmu)))
    except (OSError, ValueError) as e:
        ok(False, "sources: %s" % e)
    # one line per run, for tests/e2e/chmu-compare.sh to put side by side
    t90 = next((re.search(r"time to 90 %: A ([\d.]+) s, B ([\d.]+) s", l) for l in log
                if "time to 90 %:" in l), None)
    rpe = [records_per_epoch(d, src.get("records", 0)) for src in chmu] if chmu else []
    print("# figures: path %s, time to 90 %% A %s s B %s s, records per epoch %s" % (
        "registers" if kind == "chmu" else "perf",
        t90.group(1) if t90 else "?", t90.group(2) if t90 else "?",
        "/".join("%.1f" % r for r in rpe if r is not None) or "?"))
    print("1..%d" % n)
    return 0 if good else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "bound":
        print("bound=%.1f" % bound(sys.argv[2])[1])
        sys.exit(0)
    if len(sys.argv) in (4, 5, 6) and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    sys.exit("usage: chmu.py bound BACKEND | check DIR BACKEND [hotbridge|damon|crash [chmu|cxl-hmu]]")
