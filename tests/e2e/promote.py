#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The e2e promotion oracle, outside the guest.

feed STATE:  wait for the guest's tagged pages (STATE/share/tags.done), find
             each tag in the live CXL backing files (its DPA), choose every
             8th page as hot and write the hot DPAs to STATE/share/feed.txt in
             the replay format, as a device would report them.
check STATE: after the guest ran `hotbridge run --once`: every hot page is on
             a DRAM node (0), no cold page moved (same PFN), every page's bytes are
             intact, and the daemon's counters agree with what moved.
"""
import os
import sys
import time

from cxlfiles import MAGIC, find_tags, memdevs_by_device, read_tags

HOT_EVERY = 8
# what the daemon keeps after start-up, per migrator (daemon/capabilities.c)
KEPT = {"phys": "cap_sys_admin",
        "pagemap": "cap_sys_admin, cap_sys_ptrace, cap_dac_read_search",
        "damon": "none"}


def tags_of(share):
    return read_tags(os.path.join(share, "tags"))


def feed(state):
    share = os.path.join(state, "share")
    done = os.path.join(share, "tags.done")
    gone = os.path.join(state, "guest.rc")
    # as long as the guest runs (its own timeout bounds it): a loaded TCG
    # host has been seen taking 55 s to reach user space
    while not os.path.exists(done):
        if os.path.exists(gone):
            print("# the guest exited (status %s) before it tagged its pages"
                  % open(gone).read().strip())
            return 1
        time.sleep(0.1)
    tags = tags_of(share)
    found, _ = find_tags(state)
    serial = memdevs_by_device(os.path.join(share, "cxl-list.json"))
    lines = ["# hot pages as a CXL device would report them: DPA per memdev"]
    hot = 0
    for t in sorted(tags):
        if (t - MAGIC) % HOT_EVERY == 0 and t in found:
            dev, dpa = found[t]
            lines.append("%s dpa=%#x len=4096 count=100" % (serial[dev], dpa))
            hot += 1
    tmp = os.path.join(share, "feed.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.rename(tmp, os.path.join(share, "feed.txt"))
    print("# fed %d hot DPAs of %d tagged pages (%d found in the backing files)"
          % (hot, len(tags), len(found)))
    return 0 if len(found) == len(tags) else 1


def check(state):
    share = os.path.join(state, "share")
    tags = tags_of(share)
    where = {}
    for line in open(os.path.join(share, "verify")):
        t, node, ok, hpa = line.split()
        where[int(t, 16)] = (int(node), ok == "1", int(hpa, 16))
    stats = {}
    for line in open(os.path.join(share, "stats.txt")):
        k, _, v = line.rpartition(" ")
        stats[k] = v.strip()
    hot = [t for t in tags if (t - MAGIC) % HOT_EVERY == 0]
    cold = [t for t in tags if (t - MAGIC) % HOT_EVERY != 0]
    src = {n for _, n in tags.values()}
    n = 0
    good = True

    def ok(cond, what):
        nonlocal n, good
        n += 1
        good &= bool(cond)
        print(("ok %d - " if cond else "not ok %d - ") % n + what)

    hot_dram = sum(1 for t in hot if where[t][0] == 0)
    ok(hot_dram == len(hot), "%d of %d hot pages are on DRAM node 0 now" % (hot_dram, len(hot)))
    # not only the node: the same frame (the guest's pagemap before the feed
    # and after the run); a cold page moved within its node, or away and
    # back, has another PFN
    cold_stayed = sum(1 for t in cold if where[t][0] in src)
    cold_same = [t for t in cold if where[t][0] in src and where[t][2] == tags[t][0]]
    cold_moved = [t for t in cold if t not in cold_same]
    ok(len(cold_same) == len(cold),
       "%d of %d cold pages at the same PFN on the CXL node %s (%d on it)%s"
       % (len(cold_same), len(cold), sorted(src), cold_stayed,
          "".join("; tag %#x: PFN %#x -> %#x on node %d"
                  % (t, tags[t][0] // 4096, where[t][2] // 4096, where[t][0]) for t in cold_moved[:4])))
    intact = sum(1 for t in tags if where[t][1])
    ok(intact == len(tags), "%d of %d pages have their bytes intact (tag and checksum)"
       % (intact, len(tags)))
    moved = int(stats.get("migrated moved", "0"))
    ok(moved == len(hot), "hotbridge counted %d pages moved, %d did" % (moved, hot_dram))
    if "damon batches" in stats:
        # DAMON gives no per-page status: the measured bytes (sz_applied)
        # and the per-page outcome inferred from them must agree
        applied = int(stats.get("damon measured bytes_applied", "-1"))
        inferred = int(stats.get("damon inferred pages_moved", "-1"))
        ok(applied == 4096 * len(hot) and inferred == hot_dram
           and stats.get("damon measured pages_over_watermark") == "0",
           "damon: %d bytes applied (measured) = %d pages, %d inferred moved, %s over the watermark, "
           "%s batch(es) in %s commit(s)"
           % (applied, applied // 4096, inferred, stats.get("damon measured pages_over_watermark"),
              stats.get("damon batches"), stats.get("damon commits")))
    # it moved them holding only its migrator's capabilities (daemon/docs/operation.md):
    # damon needs none (uid 0 for DAMON sysfs, kpageflags and zoneinfo)
    log = open(os.path.join(share, "run.log")).read().splitlines()
    caps = [l.split("capabilities now: ", 1)[1].strip() for l in log if "capabilities now: " in l]
    backend = next((k for l in log for k in KEPT if "migrator %s" % k in l), None)
    ok(backend and caps and caps[0] == KEPT[backend],
       "the %s moves were made with capabilities %s only" % (backend, caps[0] if caps else "(none logged)"))
    print("1..%d" % n)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(feed(sys.argv[2]) if sys.argv[1] == "feed" else check(sys.argv[2]))
