#!/usr/bin/env python3
"""Seed corpora for the fuzz targets: python3 fuzz/make_corpus.py OUTDIR [DEEPSEEK].

Seeds come from the tests (tests/data/*.json, tests/reliability/malformed/*, the
stored crashes), small slices of the DeepSeek trace (a few consecutive events from
several places, each a complete trace of its own) and hand-written edge cases.
Every target gets its own folder OUTDIR/<target>; inputs are framed the way each
target reads them (see the comment at the top of fuzz/<target>.c)."""
import glob
import json
import os
import struct
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1]
deepseek = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "..", "shared", "traces", "deepseek-train.json")

EDGE = [
    b'{"traceEvents":[]}',
    b'[]',
    b'[{"ph":"X","name":"k","cat":"kernel","pid":0,"tid":7,"ts":1.5,"dur":2,"args":{"device":0,"stream":7,"correlation":3}}]',
    b'[{"ph":"B","name":"a","pid":1,"tid":1,"ts":1},{"ph":"E","pid":1,"tid":1,"ts":3}',
    b'[{"ph":"C","name":"mem","pid":1,"ts":5,"args":{"a":1.25,"b":-3}},{"args":{"x":1},"ph":"C","name":"c","pid":1,"ts":6}]',
    b'[{"ph":"s","id":"0x1f","cat":"ac2g","pid":1,"tid":1,"ts":1},{"ph":"f","bp":"e","id":"0x1f","cat":"ac2g","pid":0,"tid":7,"ts":2}]',
    b'{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"p\\u00e9"}},'
    b'{"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":-4}}],"distributedInfo":{"rank":3,"world_size":8}}',
    b'{"traceEvents":[{"ph":"X","ts":"12","dur":-1,"pid":{},"name":"bad"},{"ph":"X","ts":1e3,"dur":1E-3,"pid":"GPU 2","tid":"stream 9","cat":"Kernel","name":"\\"q\\""}]}',
    b'\xef\xbb\xbf[{"\\u0070h":"i","ts":1,"pid":0}]',
    b'[{"ph":"X","ts":9223372036854775807,"dur":9223372036854775807,"pid":0}]',
    b'[{"ph":"X","ts":-1740461679471346.123456,"dur":0.0005,"pid":-1,"tid":18446744073709551616}]',
    b'{"traceEvents":[{"ph":"X","name":"\xff\xfe\xc3","ts":1,"dur":1,"pid":0,"tid":0}],"displayTimeUnit":"ns","baseTimeNanoseconds":1}',
    b'[[[[[[[[[[{"ph":"X"}]]]]]]]]]]',
    b'{"traceEvents":[{"ph":"X","ts":1,"dur":2,"pid":0,"tid":0,"args":{"deep":[[[{"a":[{}]}]]]}}],"x":[1,{"y":null,"z":true}]}',
]


def slices(path):
    """Complete mini-traces of consecutive events from several places of the file."""
    try:
        with open(path, "rb") as f:
            doc = json.load(f)
    except OSError:
        return []
    ev = doc.get("traceEvents", [])
    out = []
    for start in (0, 30, len(ev) // 4, len(ev) // 2, len(ev) - 60, len(ev) - 8):
        for n in (4, 12):
            part = ev[max(0, start):max(0, start) + n]
            if part:
                top = {"traceEvents": part}
                if start == 0:
                    top["distributedInfo"] = doc.get("distributedInfo", {"rank": 0})
                out.append(json.dumps(top, separators=(",", ":")).encode())
    # flows and metadata together, so binding and naming paths are seeded
    kinds = {}
    for e in ev:
        kinds.setdefault((e.get("ph"), e.get("cat")), []).append(e)
    mix = [v[0] for v in kinds.values()] + [v[-1] for v in kinds.values()]
    out.append(json.dumps({"traceEvents": mix}, separators=(",", ":")).encode())
    return out


def kernel_names(path):
    try:
        with open(path, "rb") as f:
            ev = json.load(f).get("traceEvents", [])
    except OSError:
        return []
    names = sorted({e.get("name", "") for e in ev if e.get("cat") in ("kernel", "gpu_memcpy")})
    return names[:40]


def write(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


traces = []
for p in sorted(glob.glob(os.path.join(root, "tests", "data", "*.json"))):
    traces.append(open(p, "rb").read())
for p in sorted(glob.glob(os.path.join(root, "tests", "reliability", "malformed", "*"))):
    data = open(p, "rb").read()
    if len(data) <= 64 * 1024:  # the 2 MB-name case is generated, not seeded
        traces.append(data)
traces += slices(deepseek) + EDGE

def bigger_slices(path):
    """4-16 KB traces: big enough to be cut into parallel slices."""
    try:
        with open(path, "rb") as f:
            ev = json.load(f).get("traceEvents", [])
    except OSError:
        return []
    out = []
    for start in (0, len(ev) // 3, len(ev) // 2, len(ev) - 45):
        for n in (15, 40):
            part = ev[max(0, start):max(0, start) + n]
            data = json.dumps({"traceEvents": part}, indent=1).encode()
            if len(data) <= 16000:
                out.append(data)
    return out


def synthetic_parallel():
    """B/E pairs, flows and counters that straddle any slice boundary."""
    ev = []
    for i in range(60):
        ev.append({"ph": "B", "name": "outer%d" % (i % 3), "pid": 1, "tid": i % 2, "ts": i * 10})
        ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % i, "pid": 0, "tid": 7, "ts": i * 10 + 1, "dur": 3,
                   "args": {"device": 0, "stream": 7 + i % 2, "correlation": i + 1}})
        if i % 4 == 0:
            ev.append({"ph": "s", "id": i, "cat": "ac2g", "pid": 1, "tid": i % 2, "ts": i * 10})
            ev.append({"ph": "f", "bp": "e", "id": i, "cat": "ac2g", "pid": 0, "tid": 7, "ts": i * 10 + 1})
        if i % 5 == 0:
            ev.append({"ph": "C", "name": "mem", "pid": 1, "ts": i * 10, "args": {"a": i, "b": i / 3}})
        if i % 7 == 6:
            ev.append({"ph": "E", "pid": 1, "tid": (i - 1) % 2, "ts": i * 10 + 5})
    return [json.dumps({"traceEvents": ev}).encode(), json.dumps(ev, indent=2).encode()[:15000]]


par = traces + bigger_slices(deepseek) + synthetic_parallel()
for i, t in enumerate(par):
    write("fuzz_load_parallel", "seed-%03d" % i, bytes([i % 4]) + t)

for i, t in enumerate(traces):
    write("fuzz_load", "seed-%03d" % i, t)
    for mode in (0, 1, 4, 5, 6):
        write("fuzz_load_compressed", "seed-%03d-m%d" % (i, mode), bytes([mode]) + t)
    for mode in (2, 3):
        cut = max(1, len(t) // 3)
        write("fuzz_load_compressed", "seed-%03d-m%d" % (i, mode), bytes([mode]) + struct.pack("<H", cut & 0xFFFF) + t)
    if len(t) < 8192:
        write("fuzz_export", "seed-%03d" % i, b"\x08" + b"\n\n\n\n\n" + t)

# export filters on the default trace
FILTERS = [
    (0, b"", b"", b"", b"", b""),
    (8, b"^nccl", b"", b"10us:", b"comm,compute", b"1us"),
    (1, b"gemm|Gemm", b"Memcpy", b":2ms", b"", b""),
    (0x36, b"(a|b)*c+", b"^$", b"@1740461679471346us:@1740461679471400us", b"memory", b"0.5us"),
    (0x76, b"[[:alpha:]]+", b"x{2,3}", b"-5ms:5ms", b"cpu,annotation,other,sync", b"250ns"),
]
for i, (fl, a, b, c, d, e) in enumerate(FILTERS):
    write("fuzz_export", "filter-%02d" % i, bytes([fl]) + b"\n".join([a, b, c, d, e]) + b"\n")

# rules: rule lines, "--", names
RULES = [
    b"comm ^nccl\nnot-comm Reduce\ncomm-stream ^(7|9)$\n# comment\n\n",
    b"comm (dpsk::ep|deep_ep)::[A-Za-z_]+::(dispatch|combine)[<(]\nbogus line\ncomm [\n",
    b"\x01comm .*\nnot-comm ^$\n",
]
names = [n.encode() for n in kernel_names(deepseek)] or [b"ncclDevKernel_AllGather_RING_LL"]
for i, r in enumerate(RULES):
    write("fuzz_rules", "seed-%02d" % i, r + b"--\n" + b"\n".join(names[i::3]) + b"\n")

# time: scale byte, 8 bytes origin/value, text
TIMES = [b"1740461679471346.123", b"1e3", b"-0.5", b"0.0005", b"12345678901234567890", b"1.5e-3",
         b"10ms:20ms", b"@1740461679471346us:", b":2.5ms", b"3 us", b"250ns", b"2s", b"1.5\xc2\xb5s",
         b"5.", b".5", b"+7", b"-0", b"9223372036854775.807", b"0.00000000000000000000000000000000000000015e40"]
for i, s in enumerate(TIMES):
    write("fuzz_time", "seed-%02d" % i, bytes([3 + i % 7]) + struct.pack("<q", 1740461679471346000 * (i % 2)) + s)

for p in sorted(glob.glob(os.path.join(root, "tests", "reliability", "crashes", "*"))):
    target = os.path.basename(p).split("-")[0]
    if os.path.isdir(os.path.join(out, target)):
        write(target, "crash-" + os.path.basename(p), open(p, "rb").read())
