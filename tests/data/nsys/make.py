#!/usr/bin/env python3
"""Writes the Nsight Systems fixture and its Kineto twin: the same GPU work, CUDA calls
and ranges as `nsys export --type sqlite` lays them out (rank0.sqlite) and as the
PyTorch profiler writes them (rank0-kineto.json), so both load into the same figures.

nsys is not available where this fixture was made: the tables follow NVIDIA's documented
export schema (the column sets of nsys 2022.4 and later; only the tables ovtrace reads,
with every column the exporter writes for them). Times in the database are ns from the
session start; TARGET_INFO_SESSION_START_TIME gives the session's Unix time.

usage: make.py [OUT_DIR]   (default: this script's directory)
"""
import json
import os
import sqlite3
import sys

EPOCH = 1740461679000000000  # utcEpochNs of the session start
PID, TID, TID2 = 4242, 4242, 4250
GTID = (PID << 24) | TID  # globalTid: pid in bits 24-47, tid in bits 0-23
GTID2 = (PID << 24) | TID2
DEV, GPU_ID = 0, 5  # CUDA device 0 is the GPU with id 5 (TARGET_INFO_CUDA_DEVICE)
S_COMPUTE, S_COMM = 7, 13

GEMM = "void gemm_kernel<128, 64>(float const*, float const*, float*, int)"
ELEM = "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >(int, float*)"
NCCL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def events():
    """(kind, name, start_ns, end_ns, stream, correlation, extra) in session time."""
    out, corr, t = [], 100, 10_000
    for step in range(2):
        for i in range(6):
            corr += 1
            name = GEMM if i % 2 == 0 else ELEM
            dur = 40_000 if name == GEMM else 9_500
            out.append(("kernel", name, t, t + dur, S_COMPUTE, corr, None))
            if i in (1, 4):  # an all-reduce beside the compute, partly exposed
                corr += 1
                out.append(("kernel", NCCL, t + 5_000, t + 5_000 + 52_000, S_COMM, corr, None))
            t += dur + 1_500
        corr += 1
        out.append(("memcpy", 1, t, t + 3_000, S_COMPUTE, corr, 1 << 20))  # HtoD
        corr += 1
        out.append(("memcpy", 10, t + 3_500, t + 9_000, S_COMM, corr, 4 << 20))  # PtoP: comm
        corr += 1
        out.append(("memset", None, t + 9_500, t + 10_000, S_COMPUTE, corr, 4096))
        t += 30_000
    return out


def launches(ev):
    """One CUDA call per GPU op, 2-4 us before it starts, on the main thread."""
    api = {"kernel": "cudaLaunchKernel_v7000", "memcpy": "cudaMemcpyAsync_v3020", "memset": "cudaMemsetAsync_v3020"}
    out = []
    for kind, _, start, _, _, corr, _ in ev:
        s = start - 4_000
        out.append((api[kind], s, s + 2_000, corr))
    return out


def ranges():
    """NVTX push/pop ranges: the steps (ProfilerStep#N, as the profiler names them) and
    a forward range inside each; a mark; one range on a second thread."""
    return [
        (59, "ProfilerStep#1", 0, 250_000, GTID),
        (59, "forward", 5_000, 150_000, GTID),
        (59, "ProfilerStep#2", 260_000, 520_000, GTID),
        (59, "forward", 262_000, 420_000, GTID),
        (60, "dataloader", 100_000, 300_000, GTID2),
        (34, "checkpoint", 255_000, None, GTID),
    ]


COPY_NAMES = {1: "Memcpy HtoD (Pageable -> Device)", 10: "Memcpy PtoP (Device -> Device)"}


def write_sqlite(path):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxId INTEGER);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER NOT NULL, cudaId INTEGER NOT NULL, pid INTEGER,
  uuid TEXT, numMultiprocessors INTEGER);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,
  srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER,
  dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
""")
    strings = {}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[s], s))
        return strings[s]

    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '2025-02-25T05:34:39Z', '')", (EPOCH,))
    db.execute("INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, smCount, chipName, cuDevice)"
               " VALUES (0, ?, 'NVIDIA H100 80GB HBM3', '0000:1b:00.0', 1, 132, 'GH100', 0)", (GPU_ID,))
    db.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (?, ?, ?, '', 132)", (GPU_ID, DEV, PID))
    db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)", (sid("python3"), GTID))
    db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)", (sid("pt_data_worker"), GTID2))
    gpid = PID << 24
    for kind, name, start, end, stream, corr, extra in events():
        if kind == "kernel":
            short = name.split("(")[0].split("<")[0].split()[-1]
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId,"
                       " correlationId, globalPid, demangledName, shortName, registersPerThread, gridX, gridY,"
                       " gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,"
                       " localMemoryPerThread, localMemoryTotal, gridId) VALUES"
                       " (?, ?, ?, 1, ?, ?, ?, ?, ?, 32, 132, 1, 1, 256, 1, 1, 0, 0, 0, 0, ?)",
                       (start, end, DEV, stream, corr, gpid, sid(name), sid(short), corr))
        elif kind == "memcpy":
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId,"
                       " correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES"
                       " (?, ?, ?, 1, ?, ?, ?, ?, ?, 0, 2)", (start, end, DEV, stream, corr, gpid, extra, name))
        else:
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId,"
                       " correlationId, globalPid, value, bytes, memKind) VALUES (?, ?, ?, 1, ?, ?, ?, 0, ?, 2)",
                       (start, end, DEV, stream, corr, gpid, extra))
    for name, start, end, corr in launches(events()):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?, 0, NULL)",
                   (start, end, GTID, corr, sid(name)))
    for i, (etype, text, start, end, gtid) in enumerate(ranges()):
        # push/pop ranges name themselves with text; the start/end range through textId
        as_id = etype == 60
        db.execute("INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, text, globalTid, endGlobalTid, textId,"
                   " domainId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
                   (start, end, etype, i + 1, None if as_id else text, gtid, gtid if etype == 60 else None,
                    sid(text) if as_id else None))
    # a domain creation record: describes, does not happen
    db.execute("INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId) VALUES (0, 75, 'NCCL', ?, 1)",
               (GTID,))
    db.commit()
    db.close()


def us(ns):
    """Session ns as Kineto's microseconds with three decimals (exact ns)."""
    a = EPOCH + ns
    return f"{a // 1000}.{a % 1000:03d}"


def write_kineto(path):
    out = ['{"schemaVersion": 1, "traceEvents": [',
           f' {{"ph": "M", "name": "process_name", "pid": {DEV}, "args": {{"name": "NVIDIA H100 80GB HBM3"}}}},',
           f' {{"ph": "M", "name": "process_labels", "pid": {DEV}, "args": {{"labels": "GPU {DEV}"}}}},',
           f' {{"ph": "M", "name": "thread_name", "pid": {PID}, "tid": {TID}, "args": {{"name": "python3"}}}},',
           f' {{"ph": "M", "name": "thread_name", "pid": {PID}, "tid": {TID2}, "args": {{"name": "pt_data_worker"}}}}']
    rows = []
    cat = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}
    for kind, name, start, end, stream, corr, extra in events():
        nm = name if kind == "kernel" else COPY_NAMES[name] if kind == "memcpy" else "Memset (Device)"
        rows.append(f' {{"ph": "X", "cat": "{cat[kind]}", "name": {json.dumps(nm)}, "pid": {DEV}, "tid": {stream},'
                    f' "ts": {us(start)}, "dur": {(end - start) / 1000:.3f}, "args": {{"device": {DEV},'
                    f' "stream": {stream}, "correlation": {corr}}}}}')
    for name, start, end, corr in launches(events()):
        rows.append(f' {{"ph": "X", "cat": "cuda_runtime", "name": "{name.rsplit("_v", 1)[0]}", "pid": {PID},'
                    f' "tid": {TID}, "ts": {us(start)}, "dur": {(end - start) / 1000:.3f},'
                    f' "args": {{"correlation": {corr}}}}}')
    for etype, text, start, end, gtid in ranges():
        tid = gtid & 0xffffff
        if end is None:
            rows.append(f' {{"ph": "i", "s": "t", "cat": "user_annotation", "name": "{text}", "pid": {PID},'
                        f' "tid": {tid}, "ts": {us(start)}}}')
        else:
            rows.append(f' {{"ph": "X", "cat": "user_annotation", "name": "{text}", "pid": {PID}, "tid": {tid},'
                        f' "ts": {us(start)}, "dur": {(end - start) / 1000:.3f}}}')
    out[-1] += ","
    out.append(",\n".join(rows))
    out.append("]}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(d, exist_ok=True)
    write_sqlite(os.path.join(d, "rank0.sqlite"))
    write_kineto(os.path.join(d, "rank0-kineto.json"))
