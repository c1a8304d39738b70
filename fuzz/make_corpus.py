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
    write("fuzz_peek", "seed-%03d" % i, t)
    for mode in (0, 1, 4, 5, 6):
        write("fuzz_load_compressed", "seed-%03d-m%d" % (i, mode), bytes([mode]) + t)
    for mode in (2, 3):
        cut = max(1, len(t) // 3)
        write("fuzz_load_compressed", "seed-%03d-m%d" % (i, mode), bytes([mode]) + struct.pack("<H", cut & 0xFFFF) + t)
    if len(t) < 8192:
        write("fuzz_export", "seed-%03d" % i, b"\x08" + b"\n\n\n\n\n" + t)

# the two-stage parse: flags byte (vector unit, members held, window end), then text
INDEX_SNIPPETS = [
    b'{"ph":"X","name":"a\\"b","args":{"n\\u0061me":"x","s":[1,{"t":"\\\\"}]}}',
    b'{"ts":1e5,"dur":-0.5,"a":true,"b":null,"c":01,"d":1 2,"args":{}}, {"args":5}',
    b'{"name":"' + b'\\' * 63 + b'"' + b' ' * 61 + b',"x":{"args":{"y":1}}}',
]
for i, t in enumerate(traces[:8]):
    write("fuzz_index", "seed-%03d" % i, bytes([i % 4]) + t[:16000])
for i, t in enumerate(INDEX_SNIPPETS):
    for flags in (0, 1, 6, 0x27):
        write("fuzz_index", "snippet-%02d-%02x" % (i, flags), bytes([flags]) + t)

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


# fuzz_cupti: programs of synthesised CUPTI records in fuzz_cupti.c's encoding (each op
# byte, then its fields; see parse() there). A MoE-like step (launches and their GPU
# work correlated, copies, P2P, memset, syncs, NVTX halves in reversed buffers) in each
# delivery mode, and edge cases (zero / reversed / huge timestamps, unknown cbids and
# kinds, filtered driver calls, comm streams, CUPTI drops).
class Cupti:
    def __init__(self, cfg, pid=None, offset=None):
        self.b = bytearray([cfg])
        if (cfg >> 4) & 3 == 3:
            self.b += struct.pack("<q", offset or 0)
        if cfg & 0x40:
            self.b += struct.pack("<I", pid or 4242)

    def raw(self, fmt, *v):
        self.b += struct.pack(fmt, *v)

    def ts(self, t):  # ("base", n) | "zero" | ("raw", n) | ("prev+", n) | ("prev-", n) | "imax" | "umax"
        if t == "zero": self.b.append(0)
        elif t == "imax": self.b.append(6 | (14 << 3))  # INT64_MAX - 2
        elif t == "umax": self.b.append(7)
        elif t[0] == "base": self.b.append(2); self.raw("<I", t[1])
        elif t[0] == "raw": self.b.append(5); self.raw("<Q", t[1])
        elif t[0] == "prev+": self.b.append(4); self.raw("<H", t[1])
        elif t[0] == "prev-": self.b.append(3); self.raw("<H", t[1])

    def span(self, t, dur):  # dur: ns (< 100000 * 31 + 65536), "rev", "zero", "same"
        self.ts(t)
        if dur == "same": self.b.append(0)
        elif dur == "zero": self.b.append(4)
        elif dur == "rev": self.b.append(3); self.raw("<H", 7)
        else: self.b.append(1 | (min(dur // 100000, 31) << 3)); self.raw("<H", dur - min(dur // 100000, 31) * 100000)

    def id(self, v):
        if v < 16: self.b.append(v)
        else: self.b.append(0xc0); self.raw("<I", v)

    def name(self, n):  # int: fuzz_cupti's NAMES table; bytes: a slice of the input; None
        if n is None: self.b.append(0)
        elif isinstance(n, int): self.b.append(1 | (n << 3))
        else: self.b += bytes([5, len(n)]) + n

    def kernel(self, t, dur, stream, corr, name, dev=0, ctx=1, grid=20):
        self.b.append(0); self.span(t, dur); self.id(dev); self.b.append(ctx); self.id(stream); self.id(corr)
        self.b.append(1); self.raw("<H", grid); self.name(name)

    def memcpy(self, t, dur, ck, sk, dk, nbytes, stream, corr, dev=0, ctx=1):
        self.b.append(2); self.span(t, dur); self.b += bytes([ck, sk, dk]); self.raw("<H", nbytes)
        self.id(dev); self.b.append(ctx); self.id(stream); self.id(corr)

    def p2p(self, t, dur, stream, corr, dst_dev, dst_ctx, ck=10):
        self.b.append(3 | 0x20 | 0x80); self.span(t, dur); self.b += bytes([ck, 3, 3]); self.raw("<I", 1 << 20)
        self.id(0); self.b.append(1); self.id(stream); self.id(corr); self.id(dst_dev); self.b.append(dst_ctx)

    def memset(self, t, dur, stream, corr, mk=3):
        self.b.append(4); self.span(t, dur); self.raw("<I", 4096); self.b += bytes([0, mk])
        self.id(0); self.b.append(1); self.id(stream); self.id(corr)

    def api(self, driver, cbid_sel, t, dur, tid, corr):  # cbid_sel: ("list", i) | ("table", n) | ("raw", n)
        self.b.append(6 if driver else 5)
        kind, v = cbid_sel
        if kind == "list": self.b.append(3 | (v << 3))
        elif kind == "table": self.b.append(0); self.raw("<H", v)
        else: self.b.append(6); self.raw("<I", v)
        self.span(t, dur); self.id(tid); self.id(corr)

    def sync(self, typ, t, dur, ctx, stream, corr):
        self.b.append(7 | (0x10 if stream is None else 0)); self.b.append(typ); self.span(t, dur); self.b.append(ctx)
        if stream is not None: self.id(stream)
        self.id(corr)

    def marker(self, flag, t, mid, tid, name):  # flag: 0 start, 1 end, 2 instant, 3 both, 4 sync acquire, 5 none
        self.b += bytes([8, flag]); self.ts(t); self.b += bytes([mid, 2]); self.id(tid); self.name(name)

    def context(self, ctx, dev): self.b += bytes([9, ctx]); self.id(dev)
    def other(self, sel): self.b += bytes([10, sel])
    def end_buffer(self, rank): self.b += bytes([11, rank])
    def comm(self, dev, stream): self.b.append(12); self.id(dev); self.id(stream)
    def dropped(self, n, ts): self.b += bytes([13, n & 3]); self.raw("<Q", ts)
    def setctx(self, ctx, dev): self.b += bytes([14, ctx]); self.id(dev)
    def null(self): self.b.append(15)
    def offset(self, ms): self.b.append(15 | 0x10); self.raw("<h", ms)


def moe_step(cfg):
    c = Cupti(cfg)
    c.context(1, 0)
    c.context(2, 1)
    # buffer 1: GPU work, completed first
    c.kernel(("base", 5000), 4000, 7, 1, 2)                       # DeepEP dispatch (mangled)
    c.kernel(("base", 9500), 20000, 7, 2, 4)                      # elementwise
    c.kernel(("base", 3000), 6000, 9, 3, 3)                       # NCCL on a second stream
    c.memcpy(("base", 1000), 500, 1, 2, 3, 4096, 7, 4)            # HtoD pinned -> device
    c.memcpy(("prev+", 30000), 800, 2, 3, 2, 64, 7, 5)            # DtoH
    c.p2p(("base", 40000), 300000, 9, 6, 1, 2)                     # PtoP to device 1
    c.p2p(("base", 41000), 1000, 9, 7, 1, 2, ck=8)                 # DtoD between devices
    c.memset(("base", 200), 100, 7, 8)
    c.marker(1, ("base", 99000), 3, 5, None)                       # NVTX end before its start
    c.end_buffer(10)
    # buffer 0: the API side (launch records arrive in a later buffer)
    c.api(False, ("list", 0), ("base", 2000), 100, 5, 1)          # cudaLaunchKernel
    c.api(False, ("list", 0), ("base", 2200), 100, 5, 2)
    c.api(True, ("list", 0), ("base", 1800), 100, 6, 3)            # cuLaunchKernel
    c.api(False, ("list", 1), ("base", 900), 50, 5, 4)             # cudaMemcpyAsync
    c.api(True, ("list", 4), ("base", 950), 50, 6, 9)              # cuMemAlloc: filtered
    c.api(False, ("list", 2), ("base", 150), 10, 5, 8)             # cudaMemsetAsync
    c.sync(3, ("base", 60000), 8000, 1, 7, 10)                    # stream sync
    c.sync(4, ("base", 70000), 100, 2, None, 11)                  # context sync on device 1
    c.marker(0, ("base", 100), 3, 5, 8)                            # "mb0/attn" start
    c.marker(2, ("base", 150), 4, 5, 9)                            # "step 3" instant
    c.marker(0, ("base", 120), 5, 5, b"mb0/expert")              # stays open
    c.end_buffer(20)
    c.dropped(3, 1700000000000100000)
    return bytes(c.b)


def edges(cfg):
    c = Cupti(cfg)
    c.kernel("zero", 100, 7, 1, 1)                   # no start: skipped
    c.kernel(("base", 500), "zero", 7, 2, 1)         # no end
    c.kernel(("base", 900), "rev", 7, 3, 1)          # ends before it starts
    c.kernel("imax", 5000, 7, 4, 1)                  # ends past INT64_MAX
    c.kernel("umax", 5, 7, 5, 1)                     # starts past INT64_MAX
    c.kernel(("raw", 1 << 63), 10, 7, 6, 1)
    c.api(False, ("raw", 60000), ("base", 1), 5, 1, 9)
    c.api(False, ("raw", 4096), ("base", 2), 5, 1, 9)
    c.api(True, ("raw", 0xFFFFFFFF), ("base", 3), 5, 1, 9)
    c.api(False, ("table", 0), ("base", 4), 5, 1, 9)
    c.marker(4, ("base", 10), 1, 1, 5)               # sync-acquire marker: not a range
    c.marker(3, ("base", 11), 2, 1, 6)               # start and end bits together
    c.marker(1, ("base", 5), 2, 1, None)
    c.marker(0, ("base", 50), 6, 1, 7)
    c.marker(0, ("base", 60), 6, 1, 8)               # the same start again replaces it
    c.marker(1, ("prev-", 100), 6, 1, None)          # ends before it started
    c.other(0); c.other(1); c.other(7); c.other(0xff); c.b += struct.pack("<I", 5000)
    c.null()
    c.comm(0, 7)
    c.memcpy(("base", 100), 10, 2, 3, 2, 100, 7, 9)  # a copy on a comm stream: P2P
    c.setctx(5, 3)
    c.sync(1, ("base", 10), 5, 5, 2, 9)
    c.sync(2, ("base", 10), 5, 77, 2, 9)             # unknown context: the last device
    c.offset(-5)
    c.kernel(("base", 100), 10, 7, 7, 1)
    c.dropped(0, 0)
    c.dropped(2, 0x7FFFFFFFFFFFFFFF)
    c.end_buffer(0)
    c.marker(1, ("base", 1000), 1, 1, None)
    return bytes(c.b)


# 0: emit callback; 2: demangled names; 4|0x80: a 16-record ring; 4|8: 2 KB name table;
# 1: all driver calls; 0x30: a fuzzed clock offset (0); 0x40: explicit pid
for i, cfg in enumerate((0x00, 0x02, 0x13, 0x84, 0x0c, 0x26, 0x40, 0x31, 0xfe)):
    write("fuzz_cupti", "seed-step-%02x" % cfg, moe_step(cfg))
    write("fuzz_cupti", "seed-edges-%02x" % cfg, edges(cfg))

for p in sorted(glob.glob(os.path.join(root, "tests", "reliability", "crashes", "*"))):
    target = os.path.basename(p).split("-")[0]
    if os.path.isdir(os.path.join(out, target)):
        write(target, "crash-" + os.path.basename(p), open(p, "rb").read())

# fuzz_peek: single event objects too (the skim's own input), with escapes and nesting
# around the 64-byte block edges
OBJECTS = [
    b'{"ph": "X", "cat": "kernel", "name": "a\\\"}{", "args": {"x": [1, {"y": "\\\\"}]}, "ts": 1.5, "dur": 2}',
    b'{"name": "' + b"n" * 61 + b'\\\\", "ph": "X", "pid": "p", "tid": -1}',
    b'{"c\\u0061t": "cpu_op", "ph": "\\u0058", "ts": "7", "dur": [1]}',
    b'{}', b'{"a": 1]}', b'{"ph": "X", "args": {',
]
for i, o in enumerate(OBJECTS):
    write("fuzz_peek", "object-%02d" % i, o)

