# SPDX-License-Identifier: MIT
"""The record -> table p99 between two `hotbridge stats` readings, from the
histogram stats gives (latency_us.record_to_table.buckets: [largest ns,
count] for the buckets not empty, counts since the start): soak-long.sh.
   latency_window.py EARLIER.json LATER.json  ->  "P99_US RECORDS"
"""
import json
import sys


def p99(a, b):
    """(p99 in us, records) of what b counted since a (both stats objects)"""
    ha = dict((k, n) for k, n in a["latency_us"]["record_to_table"]["buckets"])
    d = [(k, n - ha.get(k, 0)) for k, n in b["latency_us"]["record_to_table"]["buckets"]]
    d = [(k, n) for k, n in d if n > 0]
    total, seen = sum(n for _, n in d), 0
    for k, n in d:
        seen += n
        if seen >= max(1, int(0.99 * total + 0.5)):
            return k / 1000.0, total
    return 0.0, 0


if __name__ == "__main__":
    a, b = (json.load(open(f))["stats"] for f in sys.argv[1:3])
    us, n = p99(a, b)
    print(int(us), n)
