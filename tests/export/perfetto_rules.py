#!/usr/bin/env python3
"""Checks a Chrome JSON trace against the rules of Perfetto's JSON importer
(src/trace_processor/importers/json: json_trace_tokenizer.cc, json_trace_parser.cc),
so that what ovtrace writes opens in Perfetto with every event, name and flow, without
running Perfetto itself:

- the file is an object with a "traceEvents" array (or a bare array);
- every event has a one-letter "ph"; every event but metadata a numeric "ts" (a number
  or a decimal string); pid/tid are integers or strings;
- "X" has a numeric "dur" >= 0 (Perfetto drops an X without one);
- "C" args are all numeric (a non-numeric series fails the whole event);
- "M" is process_name / thread_name (with a string args.name) or a known sort/labels
  record (others are ignored by Perfetto: flagged here, they would be lost);
- flow events "s"/"t"/"f" carry an "id" (integer or string) or "id2" and a "cat"; "s"
  binds to the slice open on its thread at its ts, "f" with "bp":"e" to the enclosing
  slice, "f" without to the next slice on its thread: each must exist, or the arrow
  is silently lost; every flow id (cat, name, id) that ends also starts.
Slices that partly overlap on one thread are not errors: Perfetto spills them onto an
overflow track; their count is printed. But slices that overlap only as Perfetto reads
them, through a double (an epoch-scale time in µs with a nanosecond fraction has more
digits than a double holds), while their exact decimal times do not, are errors: the
writer should have written times relative to "baseTimeNanoseconds".

usage: perfetto_rules.py FILE...   (.json, .json.gz, .json.zst via `zstd -dc`)
       perfetto_rules.py --self-test
Exit 0 when every file passes, 1 with the first errors of each failing file listed."""
import bisect
import gzip
import math
from decimal import Decimal
import json
import subprocess
import sys

PHASES = set("BEXiICMstfbenSTFpPONDRv")
META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index", "process_labels",
        "process_uptime_seconds", "num_cpus"}


def is_num(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float, Decimal)):
        return True
    if isinstance(v, str):
        try:
            float(v)
            return True
        except ValueError:
            return False
    return False


def ident(v):
    """pid/tid identity as Perfetto keys it: integers by value, strings as strings."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return ("n", int(v))
    if isinstance(v, str):
        return ("s", v)
    return None


def perfetto_ns(v):
    """A time in ns as Perfetto's CoerceToTs reads it: an integer exactly, anything else
    through a double, llround(d * 1000)."""
    if isinstance(v, int):
        return v * 1000
    d = float(v)
    if d == math.trunc(d):
        return int(d) * 1000
    x = d * 1000.0
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def count_partial_overlaps(slices):
    """Slices that start inside an open one and end after it, per thread."""
    n = 0
    for sl in slices.values():
        sl.sort()
        stack = []
        for s, en in sl:
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and en > stack[-1]:
                n += 1
            else:
                stack.append(en)
    return n


def exact_slices(events):
    """X slices per thread with exact decimal times (Decimal parsed from the text)."""
    out = {}
    for e in events:
        if isinstance(e, dict) and e.get("ph") == "X" and is_num(e.get("ts")) and is_num(e.get("dur")):
            ts = Decimal(str(e["ts"]))
            out.setdefault((ident(e.get("pid")), ident(e.get("tid", e.get("pid")))), []).append(
                (ts, ts + Decimal(str(e["dur"]))))
    return out


def check(doc, exact_events=None):
    """exact_events: the same events parsed with exact decimals (None: no rounding check)."""
    errors, spilled = [], 0
    if isinstance(doc, dict):
        events = doc.get("traceEvents")
        if not isinstance(events, list):
            return ["top level: an object without a traceEvents array"], 0
    elif isinstance(doc, list):
        events = doc
    else:
        return ["top level: neither an object nor an array"], 0

    def err(i, msg):
        if len(errors) < 20:
            errors.append("event %d: %s" % (i, msg))
        else:
            errors.append(None)

    slices = {}  # thread -> [(start, end)]
    flows = []
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            err(i, "not an object")
            continue
        ph = e.get("ph")
        if not isinstance(ph, str) or len(ph) < 1 or ph[0] not in PHASES:
            err(i, "ph %r is not a phase Perfetto knows" % (ph,))
            continue
        ph = ph[0]
        pid, tid = e.get("pid"), e.get("tid", e.get("pid"))
        if "pid" in e and ident(e["pid"]) is None:
            err(i, "pid %r is neither an integer nor a string" % (e["pid"],))
        if "tid" in e and ident(e["tid"]) is None:
            err(i, "tid %r is neither an integer nor a string" % (e["tid"],))
        thread = (ident(pid), ident(tid))
        if ph == "M":
            name = e.get("name")
            if name not in META:
                err(i, "metadata %r is not one Perfetto reads" % (name,))
            elif name in ("process_name", "thread_name"):
                a = e.get("args")
                if not isinstance(a, dict) or not isinstance(a.get("name"), str):
                    err(i, "%s without a string args.name" % name)
            continue
        if not is_num(e.get("ts")):
            err(i, "ts %r is not a number" % (e.get("ts"),))
            continue
        ts = perfetto_ns(e["ts"])
        if ph == "X":
            d = e.get("dur")
            if not is_num(d) or perfetto_ns(d) < 0:
                err(i, "X with dur %r (Perfetto drops it)" % (d,))
                continue
            slices.setdefault(thread, []).append((ts, ts + perfetto_ns(d)))  # Perfetto: start + duration, in ns
        elif ph == "C":
            a = e.get("args")
            if not isinstance(a, dict) or not a or not all(is_num(v) for v in a.values()):
                err(i, "counter with non-numeric args %r" % (a,))
        elif ph in "stf":
            if not ("id" in e and (isinstance(e["id"], str) or (isinstance(e["id"], int) and not isinstance(e["id"], bool)))) \
                    and not isinstance(e.get("id2"), dict):
                err(i, "flow event without an integer or string id")
                continue
            if not isinstance(e.get("cat"), str):
                err(i, "flow event without a cat")
            key = (e.get("cat"), e.get("name"), e.get("id", json.dumps(e.get("id2"), sort_keys=True)))
            flows.append((i, ph, key, thread, ts, e.get("bp") == "e"))
        elif ph in "iI":
            s = e.get("s", "t")
            if s == "p" and "pid" not in e:
                err(i, "process instant without pid")
            if s not in ("g", "p") and "tid" not in e and "pid" not in e:
                err(i, "thread instant without tid")

    spilled = count_partial_overlaps(slices)
    if exact_events is not None:
        rounded = spilled - count_partial_overlaps(exact_slices(exact_events))
        if rounded > 0:
            errors.append("%d slices overlap only as a double reads their times (more digits than a double "
                          "holds): write times relative to baseTimeNanoseconds" % rounded)
    index = {}
    for th, sl in slices.items():
        starts = [s for s, _ in sl]
        index[th] = (starts, sl)

    def enclosing(th, ts):
        if th not in index:
            return False
        starts, sl = index[th]
        k = bisect.bisect_right(starts, ts)
        # the latest slices starting at or before ts: any still open at ts
        for j in range(k - 1, max(-1, k - 65), -1):
            if sl[j][0] <= ts <= sl[j][1]:
                return True
        return any(s <= ts <= en for s, en in sl[:max(0, k - 64)])

    def next_slice(th, ts):
        if th not in index:
            return False
        starts, _ = index[th]
        return bisect.bisect_left(starts, ts) < len(starts)

    begun = set()
    for i, ph, key, th, ts, bp_e in flows:
        if ph == "s":
            begun.add(key)
            if not enclosing(th, ts):
                err(i, "flow start %r at %s us has no slice open on its thread" % (key[2], ts))
        elif ph == "f":
            if key not in begun:
                err(i, "flow end %r has no start before it" % (key[2],))
            if bp_e and not enclosing(th, ts):
                err(i, "flow end %r (bp e) at %s us has no enclosing slice on its thread" % (key[2], ts))
            if not bp_e and not next_slice(th, ts):
                err(i, "flow end %r at %s us has no later slice on its thread" % (key[2], ts))
    return errors, spilled


def read_bytes(path):
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return f.read()
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    with open(path, "rb") as f:
        return f.read()


def events_of(doc):
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        return doc["traceEvents"]
    return doc if isinstance(doc, list) else []


def self_test():
    ok = {"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p"}},
        {"ph": "X", "name": "launch", "pid": 1, "tid": 2, "ts": 10, "dur": 5},
        {"ph": "X", "name": "k", "pid": "rank 0 pid 1", "tid": 7, "ts": "20.5", "dur": 3},
        {"ph": "s", "name": "ac2g", "cat": "ac2g", "id": 9, "pid": 1, "tid": 2, "ts": 11},
        {"ph": "f", "name": "ac2g", "cat": "ac2g", "id": 9, "pid": "rank 0 pid 1", "tid": 7, "ts": 21, "bp": "e"},
        {"ph": "C", "name": "mem", "pid": 1, "ts": 12, "args": {"bytes": 5}},
        {"ph": "i", "name": "mark", "pid": 1, "tid": 2, "ts": 13, "s": "t"},
    ]}
    errs, _ = check(ok)
    assert errs == [], errs
    bad = [
        ("X without dur", lambda d: d["traceEvents"][1].pop("dur")),
        ("flow start outside a slice", lambda d: d["traceEvents"][3].update(ts=30)),
        ("flow end on another thread", lambda d: d["traceEvents"][4].update(tid=8)),
        ("flow without id", lambda d: d["traceEvents"][3].pop("id")),
        ("counter with text", lambda d: d["traceEvents"][5].update(args={"bytes": "many"})),
        ("unknown metadata", lambda d: d["traceEvents"][0].update(name="process_nam")),
        ("ts missing", lambda d: d["traceEvents"][2].pop("ts")),
        ("bad pid", lambda d: d["traceEvents"][1].update(pid=[1])),
        ("no traceEvents", lambda d: d.pop("traceEvents")),
    ]
    for what, mutate in bad:
        d = json.loads(json.dumps(ok))
        mutate(d)
        errs, _ = check(d)
        assert errs, "the check misses: " + what
    overlap = {"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
                               {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 10}]}
    errs, spilled = check(overlap)
    assert errs == [] and spilled == 1, (errs, spilled)
    # back to back at ns precision on an epoch-scale clock: apart exactly, overlapping as
    # Perfetto reads them (the first such pair of a 5 us kernel among the first starts)
    base = 1795321160675127
    for k in range(1000):
        a, b = "%d.%03d" % (base, k), "%d.%03d" % (base + 5, k)
        if perfetto_ns(float(a)) + 5000 > perfetto_ns(float(b)):
            break
    else:
        raise AssertionError("no pair found")
    text = ('{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":%s,"dur":5},'
            '{"ph":"X","name":"b","pid":1,"tid":1,"ts":%s,"dur":10}]}' % (a, b))
    errs, _ = check(json.loads(text), events_of(json.loads(text, parse_float=Decimal)))
    assert errs, "the check misses: overlaps made by double rounding"
    rel = text.replace(a, "0.%03d" % k).replace(b, "5.%03d" % k)
    errs, _ = check(json.loads(rel), events_of(json.loads(rel, parse_float=Decimal)))
    assert errs == [], errs
    print("perfetto-rules self-test: ok (%d broken traces caught)" % len(bad))


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) < 2:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    bad = 0
    for path in argv[1:]:
        text = read_bytes(path)
        doc = json.loads(text)
        n = len(events_of(doc))
        errors, spilled = check(doc, events_of(json.loads(text, parse_float=Decimal)))
        if errors:
            bad += 1
            shown = [x for x in errors if x is not None]
            print("FAIL %s: %d problems" % (path, len(errors)))
            for x in shown:
                print("  " + x)
        else:
            print("ok %s: %d events%s" % (path, n, ", %d partly overlapping slices (Perfetto spills them to an overflow track)" % spilled if spilled else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
