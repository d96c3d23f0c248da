#!/usr/bin/env python3
"""Writes a synthetic Recorder 2.5 trace folder (the pilgrim build's binary layout, docs/recorder.md).

Usage: gen_recorder.py OUT_DIR [--ranks 4] [--iterations 8] [--seed 1] [--blocks 32] [--reads 8]
                       [--random-reads 4] [--fields 2] [--h5-every 4] [--layout per-rank|interprocess]
                       [--check]

The traced "application" is an MPI code that, per rank and iteration:
  - writes its private file /scratch/gen/rank_<r>.dat sequentially: open, lseek to the end, `--blocks`
    write()s of 4096 bytes, fsync, close;
  - reads it back with pread: its first `--reads` blocks (consecutive) and `--random-reads` random
    blocks; then __xstat and access on it;
  - appends two lines to /scratch/gen/log_<r>.txt: fopen, (fwrite, vfprintf) x 2, fclose;
  - broadcasts a time step (MPI_Bcast);
  - writes a checkpoint into the shared /scratch/gen/checkpoint.dat: MPI_File_open (nested open),
    `--fields` MPI_File_write_at_all of 256 KiB at rank-disjoint offsets (nested pwrite, depth 1),
    MPI_File_close (nested close);
  - every `--h5-every` iterations, an HDF5 file /scratch/gen/out_<i>.h5: H5Fcreate / H5Dwrite /
    H5Fclose with nested MPI-IO (depth 1) and POSIX (depth 2) calls;
  - MPI_Barrier.
Before the loop: MPI_Comm_rank, MPI_Comm_size, MPI_Bcast, __xstat, access, MPI_Barrier; after it:
unlink of the private file, __xstat of the checkpoint, MPI_Barrier.

The deliberate conflict: in iteration `iterations // 2`, rank c+1 (c = 1, or 0 with 2 ranks) writes
its first checkpoint field at rank c's first offset + 128 KiB, so both ranks write the 256 KiB
[o + 128 KiB, o + 384 KiB) of checkpoint.dat while both have it open (printed at the end).

Arguments are Recorder's own (lib/recorder-posix.c, -mpi.c, -hdf5.c @ c1c3dcb): `write ( path %p 4096 )`,
`pread ( path %p count offset )`, `MPI_File_write_at_all ( 0-0 offset %p count MPI_BYTE
MPI_STATUS_IGNORE )`, ... The call signature table (CST) holds each distinct signature once; the
grammar (CFG) is Sequitur-style: a part of an iteration that repeats becomes a rule, consecutive
equal symbols get an exponent. Times are in ticks of 0.1 us; collectives end together on all ranks.
Deterministic: the same arguments give the same bytes. --check decodes the folder again (the
grammar here, and `kinetoscope info` if it is built) and compares the calls per rank.
"""
import argparse
import os
import random
import re
import struct
import subprocess
import sys
from array import array

# recorder.mt's function list as the pilgrim build writes it (include/recorder-logger.h func_list,
# PMPI_ names as MPI_): POSIX, then MPI-IO and MPI, then HDF5. Readers take the layer from where
# the first name with "MPI" and the first with "H5" are.
FUNCS = """creat creat64 open open64 close write read lseek lseek64 pread pread64 pwrite pwrite64 readv
writev mmap mmap64 fopen fopen64 fclose fwrite fread ftell fseek fsync fdatasync __xstat __xstat64
__lxstat __lxstat64 __fxstat __fxstat64 getcwd mkdir rmdir chdir link linkat unlink symlink symlinkat
readlink readlinkat rename chmod chown lchown utime opendir readdir closedir rewinddir mknod mknodat
fcntl dup dup2 pipe mkfifo umask fdopen fileno access faccessat tmpfile remove truncate ftruncate
vfprintf msync fseeko ftello MPI_File_close MPI_File_set_size MPI_File_iread_at MPI_File_iread
MPI_File_iread_shared MPI_File_iwrite_at MPI_File_iwrite MPI_File_iwrite_shared MPI_File_open
MPI_File_read_all_begin MPI_File_read_all MPI_File_read_at_all MPI_File_read_at_all_begin
MPI_File_read_at MPI_File_read MPI_File_read_ordered_begin MPI_File_read_ordered MPI_File_read_shared
MPI_File_set_view MPI_File_sync MPI_File_write_all_begin MPI_File_write_all MPI_File_write_at_all_begin
MPI_File_write_at_all MPI_File_write_at MPI_File_write MPI_File_write_ordered_begin
MPI_File_write_ordered MPI_File_write_shared MPI_Finalize MPI_Finalized MPI_Init MPI_Init_thread
MPI_Wtime MPI_Comm_rank MPI_Comm_size MPI_Get_processor_name MPI_Get_processor_name
MPI_Comm_set_errhandler MPI_Barrier MPI_Bcast MPI_Gather MPI_Gatherv MPI_Scatter MPI_Scatterv
MPI_Allgather MPI_Allgatherv MPI_Alltoall MPI_Reduce MPI_Allreduce MPI_Reduce_scatter MPI_Scan
MPI_Type_commit MPI_Type_contiguous MPI_Type_extent MPI_Type_free MPI_Type_hindexed MPI_Op_create
MPI_Op_free MPI_Type_get_envelope MPI_Type_size MPI_Type_create_darray MPI_Cart_rank MPI_Cart_create
MPI_Cart_get MPI_Cart_shift MPI_Wait MPI_Send MPI_Recv MPI_Sendrecv MPI_Isend MPI_Irecv
MPI_Info_create MPI_Info_set MPI_Info_get MPI_Waitall MPI_Waitsome MPI_Waitany MPI_Ssend
MPI_Comm_split MPI_Comm_dup MPI_Comm_create MPI_File_seek MPI_File_seek_shared MPI_File_get_size
MPI_Ibcast MPI_Test MPI_Testall MPI_Testsome MPI_Testany MPI_Ireduce MPI_Iscatter MPI_Igather
MPI_Ialltoall MPI_Comm_free MPI_Cart_sub MPI_Comm_split_type H5Fcreate H5Fopen H5Fclose H5Fflush
H5Gclose H5Gcreate1 H5Gcreate2 H5Gget_objinfo H5Giterate H5Gopen1 H5Gopen2 H5Dclose H5Dcreate1
H5Dcreate2 H5Dget_create_plist H5Dget_space H5Dget_type H5Dopen1 H5Dopen2 H5Dread H5Dwrite
H5Dset_extent H5Sclose H5Screate H5Screate_simple H5Sget_select_npoints H5Sget_simple_extent_dims
H5Sget_simple_extent_npoints H5Sselect_elements H5Sselect_hyperslab H5Sselect_none H5Tclose H5Tcopy
H5Tget_class H5Tget_size H5Tset_size H5Tcreate H5Tinsert H5Aclose H5Acreate1 H5Acreate2 H5Aget_name
H5Aget_num_attrs H5Aget_space H5Aget_type H5Aopen H5Aopen_idx H5Aopen_name H5Aread H5Awrite H5Pclose
H5Pcreate H5Pget_chunk H5Pget_mdc_config H5Pset_alignment H5Pset_chunk H5Pset_dxpl_mpio
H5Pset_fapl_core H5Pset_fapl_mpio H5Pset_fapl_mpiposix H5Pset_istore_k H5Pset_mdc_config
H5Pset_meta_block_size H5Lexists H5Lget_val H5Literate H5Oclose H5Oget_info H5Oget_info_by_name
H5Oopen H5Pset_coll_metadata_write H5Pget_coll_metadata_write H5Pset_all_coll_metadata_ops
H5Pget_all_coll_metadata_ops""".split()
FID = {}
for _i, _f in enumerate(FUNCS):
    FID.setdefault(_f, _i)

START_TS = 1767225600.25  # the run's start, epoch seconds (2026-01-01)
TICK = 1e-7               # time_resolution: Recorder's default, 0.1 us per tick
DIR = "/scratch/gen"
SHARED = f"{DIR}/checkpoint.dat"
BLOCK, FIELD = 4096, 256 * 1024
# HDF5 ids as a real run printed them (shared _text/): file, dataset, type, spaces, property lists.
H5_FILE, H5_DSET, H5_TYPE = "72057594037927936", "360287970189639680", "216172782113783851"
H5_MSPACE, H5_FSPACE = "288230376151711747", "288230376151711746"
H5_DXPL, H5_FAPL = "720575940379279377", "720575940379279375"


class Table:
    """Call signatures -> terminal ids: one per rank, or one for all ranks (interprocess layout)."""

    def __init__(self):
        self.ids, self.keys, self.counts, self.ranks = {}, [], [], []

    def id(self, rank, sig):
        t = self.ids.get(sig)
        if t is None:
            t = self.ids[sig] = len(self.keys)
            self.keys.append(sig), self.counts.append(0), self.ranks.append(rank)
        self.counts[t] += 1
        return t

    def to_bytes(self):
        """The .cst file: entries, then per entry terminal_id, rank, key_len, count, key."""
        out = bytearray(struct.pack("<i", len(self.keys)))
        for t, (func, depth, args) in enumerate(self.keys):
            text = "".join(a.replace(" ", "_") + " " for a in args).encode()
            key = struct.pack("<QBBBi", 0, FID[func], depth, len(args), len(text)) + text
            out += struct.pack("<4i", t, self.ranks[t], len(key), self.counts[t]) + key
        return bytes(out)


class Rank:
    """One rank's calls: signatures into `table`, timestamps into <r>.ts, segments for the grammar."""

    def __init__(self, r, table, seed, ts_path):
        self.r, self.table = r, table
        self.rng = random.Random(f"{seed}-{r}")
        self.clock = self.rng.randint(4000, 12000)  # MPI_Init returns at slightly different times
        self.prev = 0          # start of the previous call: timestamps count from it
        self.open_recs = []    # [terminal, start, end] of the current segment
        self.segs, self.top = {}, []  # distinct segments -> index; segment indexes in call order
        self.calls = 0
        self.ts = open(ts_path, "wb")

    def enter(self, func, args, depth=0):
        """Starts a call after a short gap; its end is set by `leave` (or `op`)."""
        self.clock += self.rng.randint(5, 40)
        rec = [self.table.id(self.r, (func, depth, args)), self.clock, self.clock]
        self.open_recs.append(rec)
        self.calls += 1
        return rec

    def leave(self, rec, lo, hi):
        self.clock += self.rng.randint(lo, hi)
        rec[2] = self.clock

    def op(self, func, args, lo, hi, depth=0):
        self.leave(self.enter(func, args, depth), lo, hi)

    def compute(self, lo, hi):
        self.clock += self.rng.randint(lo, hi)

    def seg(self):
        """Ends a segment: its calls become one grammar symbol, their timestamps go to <r>.ts."""
        if not self.open_recs:
            return
        key = tuple(rec[0] for rec in self.open_recs)
        self.top.append(self.segs.setdefault(key, len(self.segs)))
        ts = array("I")
        for _, start, end in self.open_recs:
            ts.append(start - self.prev), ts.append(end - self.prev)
            self.prev = start
        ts.tofile(self.ts)
        self.open_recs = []

    def grammar(self):
        """Rule -1 over segments; a segment used more than once with 2+ calls is its own rule."""
        seg_list = list(self.segs)
        uses = [0] * len(seg_list)
        for s in self.top:
            uses[s] += 1
        rule_of, rules, top = {}, [], []
        for s in self.top:
            if uses[s] > 1 and len(seg_list[s]) > 1:
                if s not in rule_of:
                    rule_of[s] = -2 - len(rules)
                    body = []
                    for t in seg_list[s]:
                        push(body, t, 1)
                    rules.append((rule_of[s], body))
                push(top, rule_of[s], 1)
            else:
                for t in seg_list[s]:
                    push(top, t, 1)
        return [(-1, top)] + rules


def push(body, val, exp):
    """Appends a symbol, merging it into the last one if equal (the exponent counts repetitions)."""
    if body and body[-1][0] == val:
        body[-1] = (val, body[-1][1] + exp)
    else:
        body.append((val, exp))


def cfg_bytes(rules):
    ints = [len(rules)]
    for rule_id, body in rules:
        ints += [rule_id, len(body)]
        for val, exp in body:
            ints += [val, exp]
    return struct.pack(f"<{len(ints)}i", *ints)


def expanded(rules):
    """Calls a grammar expands to (the reader's get_uncompressed_count)."""
    by_id = dict(rules)
    memo = {}

    def count(rule_id):
        if rule_id not in memo:
            memo[rule_id] = sum(e * (1 if v >= 0 else count(v)) for v, e in by_id[rule_id])
        return memo[rule_id]
    return count(-1)


def collective(ranks, func, args, lo, hi, depth=0, inner=None):
    """Every rank enters at its own time; after the last one arrived, `inner(ranks)` makes the
    nested calls, then all leave together (+ lo..hi ticks each). `args` may be a function of the rank."""
    recs = [rk.enter(func, args(rk) if callable(args) else args, depth) for rk in ranks]
    met = max(rk.clock for rk in ranks)
    for rk in ranks:
        rk.clock = met
    if inner:
        inner(ranks)
        met = max(rk.clock for rk in ranks)
    for rk, rec in zip(ranks, recs):
        rk.clock = met
        rk.leave(rec, lo, hi)


def private_io(rk, i, a):
    """Sequential writes, reads back (head, then random blocks), metadata calls, the log file."""
    path, log = f"{DIR}/rank_{rk.r}.dat", f"{DIR}/log_{rk.r}.txt"
    rk.op("open", (path, "577" if i == 0 else "65", "420"), 80, 300)
    rk.op("lseek", (path, str(i * a.blocks * BLOCK), "0"), 3, 10)
    rk.seg()
    for _ in range(a.blocks):
        rk.op("write", (path, "%p", str(BLOCK)), 30, 150)
    rk.op("fsync", (path,), 5000, 40000)
    rk.op("close", (path,), 20, 80)
    rk.seg()
    rk.op("open", (path, "0"), 60, 200)
    for b in range(a.reads):
        rk.op("pread", (path, "%p", str(BLOCK), str(b * BLOCK)), 20, 100)
    rk.seg()
    for _ in range(a.random_reads):
        b = rk.rng.randrange((i + 1) * a.blocks)
        rk.op("pread", (path, "%p", str(BLOCK), str(b * BLOCK)), 50, 800)
    rk.seg()
    rk.op("close", (path,), 20, 80)
    rk.op("__xstat", ("1", path, "%p"), 15, 60)
    rk.op("access", (log, "0"), 10, 40)
    rk.op("fopen", (log, "a"), 50, 200)
    rk.seg()
    for _ in range(2):
        rk.op("fwrite", ("%p", "8", "16", log), 5, 20)
        rk.op("vfprintf", (log, "24"), 10, 40)
        rk.seg()
    rk.op("fclose", (log,), 50, 200)


def checkpoint(ranks, i, a, conflict):
    """Collective writes of `fields` blocks per rank into the shared file, rank-disjoint except the
    deliberate conflict: (iteration, rank, field) -> offset."""
    n = len(ranks)

    def offset(r, w):
        return conflict.get((i, r, w), ((i * n + r) * a.fields + w) * FIELD)
    collective(ranks, "MPI_File_open", ("MPI_COMM_WORLD", SHARED, "9", "%p", "0-0"), 500, 3000,
               inner=lambda rs: [rk.op("open", (SHARED, "65", "420"), 200, 800, depth=1) for rk in rs])
    for rk in ranks:
        rk.seg()
    for w in range(a.fields):
        collective(ranks, "MPI_File_write_at_all",
                   lambda rk: ("0-0", str(offset(rk.r, w)), "%p", str(FIELD), "MPI_BYTE", "MPI_STATUS_IGNORE"),
                   50, 300, inner=lambda rs: [
                       rk.op("pwrite", (SHARED, "%p", str(FIELD), str(offset(rk.r, w))), 1300, 2600, depth=1)
                       for rk in rs])
    for rk in ranks:
        rk.seg()
    collective(ranks, "MPI_File_close", ("0-0",), 200, 1000,
               inner=lambda rs: [rk.op("close", (SHARED,), 20, 80, depth=1) for rk in rs])


def hdf5(ranks, i):
    """One HDF5 output file per call: create, write one dataset (a hyperslab per rank), close."""
    path = f"{DIR}/out_{i}.h5"
    collective(ranks, "H5Fcreate", (path, "2", "0", H5_FAPL), 100, 400, inner=lambda rs: collective(
        rs, "MPI_File_open", ("MPI_COMM_WORLD", path, "9", "%p", "0-1"), 500, 3000, depth=1,
        inner=lambda rs: [rk.op("open", (path, "66", "420"), 200, 800, depth=2) for rk in rs]))
    collective(ranks, "H5Dwrite", (H5_DSET, H5_TYPE, H5_MSPACE, H5_FSPACE, H5_DXPL, "%p"), 100, 400,
               inner=lambda rs: collective(
                   rs, "MPI_File_write_at_all",
                   lambda rk: ("0-1", str(2048 + rk.r * FIELD), "%p", str(FIELD), "MPI_BYTE", "MPI_STATUS_IGNORE"),
                   50, 300, depth=1, inner=lambda rs: [
                       rk.op("pwrite", (path, "%p", str(FIELD), str(2048 + rk.r * FIELD)), 1300, 2600, depth=2)
                       for rk in rs]))
    collective(ranks, "H5Fclose", (H5_FILE,), 100, 400, inner=lambda rs: collective(
        rs, "MPI_File_close", ("0-1",), 200, 1000, depth=1,
        inner=lambda rs: [rk.op("close", (path,), 20, 80, depth=2) for rk in rs]))


def run(ranks, a, conflict):
    n = len(ranks)
    for rk in ranks:
        rk.op("MPI_Comm_rank", ("MPI_COMM_WORLD", str(rk.r)), 2, 10)
        rk.op("MPI_Comm_size", ("MPI_COMM_WORLD", str(n)), 2, 10)
    collective(ranks, "MPI_Bcast", ("%p", "1", "MPI_INT", "0", "MPI_COMM_WORLD"), 20, 150)
    for rk in ranks:
        rk.op("__xstat", ("1", DIR, "%p"), 15, 60)
        rk.op("access", (f"{DIR}/input.cfg", "4"), 10, 40)
    collective(ranks, "MPI_Barrier", ("MPI_COMM_WORLD",), 20, 100)
    for i in range(a.iterations):
        for rk in ranks:
            rk.seg()
            rk.compute(150000, 250000)  # 15-25 ms of computation, unequal across ranks
            private_io(rk, i, a)
        collective(ranks, "MPI_Bcast", ("%p", "1", "MPI_DOUBLE", "0", "MPI_COMM_WORLD"), 20, 150)
        for rk in ranks:
            rk.seg()
        checkpoint(ranks, i, a, conflict)
        if i % a.h5_every == a.h5_every - 1:
            hdf5(ranks, i)
        collective(ranks, "MPI_Barrier", ("MPI_COMM_WORLD",), 20, 100)
    for rk in ranks:
        rk.seg()
        rk.op("unlink", (f"{DIR}/rank_{rk.r}.dat",), 50, 200)
        rk.op("__xstat", ("1", SHARED, "%p"), 15, 60)
    collective(ranks, "MPI_Barrier", ("MPI_COMM_WORLD",), 20, 100)
    for rk in ranks:
        rk.seg()


def write_folder(out, ranks, tables, a):
    """recorder.mt, VERSION, and the CST / CFG files of the chosen layout; returns the grammars."""
    inter = a.layout == "interprocess"
    header = struct.pack("<i4xddiii4x", len(ranks), START_TS, TICK, 262144, 0, int(inter))
    with open(os.path.join(out, "recorder.mt"), "wb") as f:
        f.write(header + "".join(name + "\n" for name in FUNCS).encode())
    with open(os.path.join(out, "VERSION"), "w") as f:
        f.write("2.5.0")
    grammars = [rk.grammar() for rk in ranks]
    if not inter:
        for rk, table, rules in zip(ranks, tables, grammars):
            with open(os.path.join(out, f"{rk.r}.cst"), "wb") as f:
                f.write(table.to_bytes())
            with open(os.path.join(out, f"{rk.r}.cfg"), "wb") as f:
                f.write(cfg_bytes(rules))
        return grammars
    # Interprocess compression: one merged CST as 0.cst, one <u>.cfg per distinct grammar, ug.mt.
    with open(os.path.join(out, "0.cst"), "wb") as f:
        f.write(tables[0].to_bytes())
    unique = {}
    for rules in grammars:
        unique.setdefault(cfg_bytes(rules), len(unique))
    for data, u in unique.items():
        with open(os.path.join(out, f"{u}.cfg"), "wb") as f:
            f.write(data)
    ug = [unique[cfg_bytes(rules)] for rules in grammars] + [len(unique)]
    with open(os.path.join(out, "ug.mt"), "wb") as f:
        f.write(struct.pack(f"<{len(ug)}i", *ug))
    return grammars


def check(out, ranks, grammars):
    """Decodes the folder again: the grammar's expansion and <r>.ts's size per rank, then the
    calls per rank that `kinetoscope info` reports (if the binary is there). Returns problems."""
    bad = []
    for rk, rules in zip(ranks, grammars):
        ts = os.path.getsize(os.path.join(out, f"{rk.r}.ts")) // 8
        if not expanded(rules) == ts == rk.calls:
            bad.append(f"rank {rk.r}: made {rk.calls} calls, grammar expands to {expanded(rules)}, {ts} timestamp pairs")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kin = os.environ.get("KINETOSCOPE", os.path.join(root, "target/release/kinetoscope"))
    if not os.access(kin, os.X_OK):
        print(f"check: {kin} not found (cargo build --release): kinetoscope's decode not checked", file=sys.stderr)
        return bad
    info = subprocess.run([kin, "info", out], capture_output=True, text=True)
    if info.returncode != 0:
        return bad + [f"kinetoscope info failed: {info.stderr.strip()}"]
    # "rank 3  DIR ..." then, a few lines below, "  events   2,819  (...)"
    seen = {int(r): int(n.replace(",", "")) for r, n in
            re.findall(r"^rank (\d+) [^\n]*\n(?:(?!rank )[^\n]*\n)*?  events +([\d,]+)", info.stdout, re.M)}
    for rk in ranks:
        if seen.get(rk.r) != rk.calls:
            bad.append(f"rank {rk.r}: made {rk.calls} calls, kinetoscope info read {seen.get(rk.r)}")
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--iterations", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--blocks", type=int, default=32, help="4 KiB write()s per rank and iteration")
    p.add_argument("--reads", type=int, default=8, help="consecutive preads of the file's head")
    p.add_argument("--random-reads", type=int, default=4)
    p.add_argument("--fields", type=int, default=2, help="MPI_File_write_at_all of 256 KiB per checkpoint")
    p.add_argument("--h5-every", type=int, default=4)
    p.add_argument("--layout", choices=["per-rank", "interprocess"], default="per-rank")
    p.add_argument("--check", action="store_true")
    a = p.parse_args()
    if a.ranks < 1 or a.ranks > 1 << 20 or min(a.iterations, a.blocks, a.reads, a.random_reads) < 0 \
            or a.fields < 1 or a.h5_every < 1:
        p.error("--ranks must be >= 1, --fields and --h5-every >= 1, the other counts >= 0")
    os.makedirs(a.out, exist_ok=True)
    shared = Table()
    tables = [shared if a.layout == "interprocess" else Table() for _ in range(a.ranks)]
    ranks = [Rank(r, tables[r], a.seed, os.path.join(a.out, f"{r}.ts")) for r in range(a.ranks)]
    conflict, c, ci = {}, (1 if a.ranks >= 3 else 0), a.iterations // 2
    if a.ranks >= 2 and a.iterations > 0:
        o = (ci * a.ranks + c) * a.fields * FIELD
        conflict[(ci, c + 1, 0)] = o + FIELD // 2
    run(ranks, a, conflict)
    for rk in ranks:
        rk.ts.close()
    grammars = write_folder(a.out, ranks, tables, a)

    calls = [rk.calls for rk in ranks]
    size = sum(os.path.getsize(os.path.join(a.out, f)) for f in os.listdir(a.out)
               if os.path.isfile(os.path.join(a.out, f)))
    print(f"wrote {a.out}: {a.ranks} ranks, {sum(calls)} calls (per rank {min(calls)}..{max(calls)}), "
          f"{size} bytes, {sum(len(t.keys) for t in set(tables))} call signatures, layout {a.layout}")
    if a.ranks <= 16:
        print("calls per rank: " + " ".join(f"{rk.r}:{rk.calls}" for rk in ranks))
    if conflict:
        end = o + min(3 * FIELD // 2, a.fields * FIELD)
        print(f"conflict: iteration {ci}, rank {c} writes {SHARED} [{o}, {o + a.fields * FIELD}) and rank {c + 1} "
              f"writes [{o + FIELD // 2}, {o + 3 * FIELD // 2}): both write [{o + FIELD // 2}, {end})")
    if a.check:
        bad = check(a.out, ranks, grammars)
        for line in bad[:10] + ([f"... {len(bad) - 10} more"] if len(bad) > 10 else []):
            print("check FAILED: " + line, file=sys.stderr)
        if bad:
            sys.exit(1)
        print(f"check: every rank's grammar, timestamps and kinetoscope's decode give the intended calls")


if __name__ == "__main__":
    main()
