#!/usr/bin/env python3
"""Damaged-input runs of the kinetoscope CLI: small trace files from testdata/ and the corpus,
damaged at random (seeded), read by the release binary (docs/testing.md, "Damaged input").

Usage: python3 scripts/fuzz_read.py [--mode split|crash] [--runs N] [--seed S] [--bin PATH]

  split  (default) `info --json` of each damaged file read in one pass and split into blocks of a
         random size (KINETOSCOPE_SPLIT_FROM=1, KINETOSCOPE_SPLIT_BLOCK=B): the exit code and the
         output must be the same (the page and the CLI on a large file read in blocks)
  crash  `info` and `analyze --out DIR` (half of them with --hta) on each damaged file, of every
         format (JSON, gzip, rocprof CSV, pprof, Recorder folders): no panic (exit 101), no
         signal, no run over 60 s

Files that fail are copied to bench-out/fuzz/ with the command that failed; the exit code is the
number of failures (at most 100). Needs target/release/kinetoscope (cargo build --release).
"""
import argparse
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PUNCT = b'{}[],:"\\ \n0-.eE'
NUMBERS = [b'1e400', b'-9223372036854775808', b'99999999999999999999', b'-1', b'NaN', b'4294967296', b'-0.000001']
VALUES = [b'null', b'""', b'"\\u0000"', b'"\\ud800"', b'[]', b'{}', b'"' + b'x' * 1000 + b'"', b'true', b'[1, {', b'"ProfilerStep#99999999999999999999"']


def damage(data: bytes, rng: random.Random) -> bytes:
    """`data` with up to four damages: cut, bytes overwritten (random or JSON punctuation), a
    stretch deleted or copied elsewhere, a number or a string replaced by another value, a
    bracket, brace or quote put in."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not b:
            return bytes(rng.choice(PUNCT) for _ in range(5))
        at, n = rng.randrange(len(b)), rng.randint(1, 200)
        kind = rng.randrange(8)
        if kind == 0:
            del b[at:]
        elif kind == 1:
            b[at] = rng.randrange(256)
        elif kind == 2:
            b[at] = rng.choice(PUNCT)
        elif kind == 3:
            del b[at:at + n]
        elif kind == 4:
            to = rng.randrange(len(b))
            b[to:to] = b[at:at + n]
        elif kind == 7:
            b[at:at] = rng.choice([b'[', b'{', b']', b'}', b'[1, {', b'"'])
        else:
            pattern = rb'-?\d+(\.\d+)?' if kind == 5 else rb'"[^"\\]{0,40}"'
            found = list(re.finditer(pattern, bytes(b)))
            if found:
                m = rng.choice(found)
                b[m.start():m.end()] = rng.choice(NUMBERS if kind == 5 else VALUES)
    return bytes(b)


def damaged_file(src: Path, rng: random.Random) -> bytes:
    """A damaged copy of `src`; a gzip file mostly damaged inside and compressed again."""
    raw = src.read_bytes()
    if src.suffix == '.gz' and rng.random() < 0.8:
        try:
            inner = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            return damage(raw, rng)
        d = damage(inner, rng)
        return gzip.compress(d) if rng.random() < 0.8 else d
    return damage(raw, rng)


def inputs(mode: str):
    """(files, folders): small traces under testdata/ and ../shared/traces (or $KINETOSCOPE_SHARED)."""
    shared = Path(os.environ.get('KINETOSCOPE_SHARED', ROOT.parent / 'shared')) / 'traces'
    skip = ('.md', '.txt', '.cfg', '.cst', '.mt', '.ts', '.proto', '.db', '.itf', '.ftl')
    files = []
    for top in (ROOT / 'testdata', shared):
        if top.is_dir():
            files += [p for p in top.rglob('*') if p.is_file() and p.stat().st_size < 300_000 and not p.name.endswith(skip)]
    if mode == 'split':
        return [p for p in files if p.name.endswith(('.json', '.json.gz'))], []
    folders = [p for p in (shared / 'recorder').glob('*') if p.is_dir()] + [ROOT / 'testdata/recorder/gen-4ranks', ROOT / 'testdata/rocprof/v3']
    files += list(shared.rglob('*.pb')) if shared.is_dir() else []
    return files, [p for p in folders if p.is_dir()]


def run(cmd, env=None):
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=60, env=env)
        return r.returncode, r.stdout, r.stderr.decode('utf8', 'replace')
    except subprocess.TimeoutExpired:
        return 'timeout', b'', ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--mode', choices=['split', 'crash'], default='split')
    ap.add_argument('--runs', type=int, default=500)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--bin', default=str(ROOT / 'target/release/kinetoscope'))
    a = ap.parse_args()
    if not Path(a.bin).exists():
        sys.exit(f'{a.bin} is missing: cargo build --release')
    rng = random.Random(a.seed)
    files, folders = inputs(a.mode)
    found = ROOT / 'bench-out/fuzz'
    failures = 0
    print(f'{a.mode}: {len(files)} files, {len(folders)} folders, {a.runs} runs, seed {a.seed}')
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.runs):
            work = Path(tmp) / 'w'
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            if folders and rng.random() < 0.2:
                src = rng.choice(folders)
                target = work / src.name
                shutil.copytree(src, target, ignore=shutil.ignore_patterns('_text'))
                parts = sorted(p for p in target.rglob('*') if p.is_file())
                for p in rng.sample(parts, min(2, len(parts))):
                    p.write_bytes(damage(p.read_bytes(), rng))
            else:
                src = rng.choice(files)
                target = work / src.name
                target.write_bytes(damaged_file(src, rng))
            if a.mode == 'split':
                block = rng.choice([1, 7, 64, 100, 257, 1024, 4096])
                env = dict(os.environ, KINETOSCOPE_SPLIT_FROM='1', KINETOSCOPE_SPLIT_BLOCK=str(block))
                whole, split = run([a.bin, 'info', '--json', str(target)]), run([a.bin, 'info', '--json', str(target)], env)
                bad = None if whole[:2] == split[:2] else f'one pass (exit {whole[0]}) and {block}-byte blocks (exit {split[0]}) differ'
                for r in (whole, split):
                    if r[0] in (101, 'timeout') or (isinstance(r[0], int) and r[0] < 0):
                        bad = f'exit {r[0]}: {r[2][-300:]}'
            else:
                bad = None
                for cmd in (['info', str(target)], ['analyze', str(target), '--out', str(work / 'out')] + (['--hta'] if rng.random() < 0.5 else [])):
                    code, _, err = run([a.bin] + cmd)
                    if code in (101, 'timeout') or (isinstance(code, int) and code < 0):
                        bad = f'kinetoscope {cmd[0]}: exit {code}: {err[-300:]}'
                        break
            if bad:
                failures += 1
                keep = found / f'{a.mode}-{a.seed}-{i}-{src.name}'
                found.mkdir(parents=True, exist_ok=True)
                (shutil.copytree if target.is_dir() else shutil.copy)(target, keep)
                print(f'FAIL {i} {src}: {bad}\n  kept as {keep}')
    print(f'{a.mode}: {a.runs} runs, {failures} failures')
    sys.exit(min(failures, 100))


if __name__ == '__main__':
    main()
