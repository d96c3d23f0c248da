#!/usr/bin/env node
// The page's read of one trace and its Overview, replayed in Node on the page's wasm build, one phase after
// another, each timed: where the page's CPU time goes, without a browser and without the scheduling of three
// threads on two cores that makes the page's own times vary (docs/performance.md, twenty-first round).
//
// Usage: node scripts/bench/page_phases.mjs FILE [--runs N] [--helpers N] [--no-warm] [--wasm PATH]...
//
//   FILE        a trace file (.json, .json.gz)
//   --runs N    runs per build (default 3); with several builds they alternate, run after run
//   --helpers N the helper count the page's block size is chosen for (split_block_bytes; default 2)
//   --no-warm   skip the page's warm-up (warm_up(8 MiB) on a generated trace, which the page's standby worker runs
//               before a file is dropped so that the hot code is optimised)
//   --wasm PATH a wasm build (default ${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/kinetoscope.wasm,
//               what www/build.sh builds); repeat to compare builds. Its Node glue is made with wasm-bindgen
//               --target nodejs into bench-out/page_phases/<size>-<mtime>/ (reused while the wasm is unchanged).
//
// Per run, in milliseconds: push (the reading worker's Session.push: inflating a gzip, cutting content blocks),
// take (copying blocks out of its wasm memory), parse (parse_block / parse_range, what the helpers do), merge
// (Session.add_partial, and add_block for a block the merge wants back: the page keeps the blocks), finish
// (end_file + finish) and dashboard (the Overview: frames, links, summary). A range job is read from the file's
// bytes already in memory (the page reads File slices). Medians per build are printed at the end. With `node --cpu-prof` the profile names the wasm functions.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : dflt;
};
const runs = Number(opt('--runs', '3'));
const helpers = Number(opt('--helpers', '2'));
const warm = !args.includes('--no-warm');
if (!warm) args.splice(args.indexOf('--no-warm'), 1);
const wasms = [];
for (let w; (w = opt('--wasm')); ) wasms.push(path.resolve(w));
if (!wasms.length) wasms.push(path.join(process.env.CARGO_TARGET_DIR ?? path.join(repo, 'target'), 'wasm32-unknown-unknown/release/kinetoscope.wasm'));
const file = args[0];
if (!file || args.length !== 1 || !(runs >= 1)) {
  console.error('usage: node scripts/bench/page_phases.mjs FILE [--runs N] [--helpers N] [--no-warm] [--wasm PATH]...');
  process.exit(2);
}
for (const w of wasms) {
  if (!fs.existsSync(w)) {
    console.error(`page_phases: no wasm build at ${w} (bash www/build.sh makes it)`);
    process.exit(1);
  }
}

// the Node glue of a wasm build (wasm-bindgen --target nodejs), made once per build
function load(wasm) {
  const st = fs.statSync(wasm);
  const dir = path.join(repo, 'bench-out/page_phases', `${st.size}-${Math.round(st.mtimeMs)}`);
  if (!fs.existsSync(path.join(dir, 'kinetoscope.js'))) {
    const r = spawnSync('wasm-bindgen', ['--target', 'nodejs', '--no-typescript', '--out-dir', dir, wasm], { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error('page_phases: wasm-bindgen failed (scripts/setup.sh --wasm installs it)');
      process.exit(1);
    }
  }
  return createRequire(import.meta.url)(path.join(dir, 'kinetoscope.js'));
}

const CHUNK = 64 << 10; // File.stream() chunks
const RANGE_MARGIN = 256 << 10; // as www/parse-helpers.js reads past a range job's end

// One read of `bytes` as the page's reading worker and its helpers do it, in turn on this thread.
function readOnce(w, name, bytes) {
  const T = { push: 0, take: 0, parse: 0, merge: 0, finish: 0, dashboard: 0 };
  const now = () => performance.now();
  const timed = (k, f) => {
    const t = now();
    const v = f();
    T[k] += now() - t;
    return v;
  };
  const s = new w.Session();
  // the page's block size: by the file's content (a gzip file's inflated size) and kind, from check_fits
  const fit = JSON.parse(w.check_fits(JSON.stringify([{ path: name, size: bytes.length, head: [...bytes.subarray(0, 2)], tail: [...bytes.subarray(-4)] }]), ''));
  s.begin_file_split(name, bytes.length, w.split_block_bytes(fit.content_sizes[0], helpers, fit.gzip[0]), 0);
  const queue = [];
  const take = () => timed('take', () => {
    for (let b; (b = s.take_block()); ) queue.push(b);
  });
  const parse = (job) => {
    const range = w.job_range(job);
    if (!range) return [w.parse_block(name, job), job];
    const [start, end] = range;
    if (w.job_to_end(job)) {
      const js = new w.JobStream(name, job);
      for (let o = start; o < bytes.length; o += CHUNK) js.push(bytes.subarray(o, Math.min(bytes.length, o + CHUNK)));
      return [js.finish(), undefined];
    }
    for (let stop = Math.min(bytes.length, end + RANGE_MARGIN); ; stop = Math.min(bytes.length, stop + Math.max(RANGE_MARGIN, stop - start))) {
      const partial = w.parse_range(name, job, bytes.subarray(start, stop), stop === bytes.length);
      if (partial) return [partial, undefined];
    }
  };
  // as the page does: blocks kept here, handed back only when the merge wants one (a build without wanted_block:
  // every block handed back with its result)
  const kept = new Map();
  const merge = (partial, block) => {
    if (!s.wanted_block) return s.add_partial(partial, block);
    if (block) kept.set(w.block_seq(block), block);
    s.add_partial(partial, undefined);
    for (let k; (k = s.wanted_block()) !== undefined; ) s.add_block(kept.get(k));
    const merged = s.blocks_merged();
    for (const seq of kept.keys()) if (seq < merged) kept.delete(seq);
  };
  const drain = () => {
    while (queue.length) {
      const [partial, block] = timed('parse', () => parse(queue.shift()));
      timed('merge', () => merge(partial, block));
      take();
    }
  };
  for (let o = 0; o < bytes.length && !s.reads_ranges(); o += CHUNK) {
    timed('push', () => s.push(bytes.subarray(o, Math.min(bytes.length, o + CHUNK))));
    take();
    drain();
  }
  s.end_input();
  take();
  drain();
  timed('finish', () => {
    s.end_file();
    s.finish();
  });
  timed('dashboard', () => s.dashboard());
  s.free();
  for (const k in T) T[k] = Math.round(T[k]);
  return T;
}

const bytes = fs.readFileSync(file);
const name = path.basename(file);
const builds = wasms.map((wasm) => {
  const w = load(wasm);
  if (warm) w.warm_up(8 << 20);
  return { wasm, w, runs: [] };
});
console.log(`page_phases: ${file} (${(bytes.length / 1e6).toFixed(1)} MB), ${runs} run(s) per build, helpers=${helpers}, warm-up ${warm ? 'on' : 'off'}`);
for (let r = 1; r <= runs; r++) {
  for (const b of builds) {
    const T = readOnce(b.w, name, bytes);
    b.runs.push(T);
    console.log(`run ${r} ${b.wasm}: ${JSON.stringify(T)}`);
  }
}
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const phases = [...Object.keys(builds[0].runs[0]), 'total'];
console.log(`\nmedian ms over ${runs} run(s)\n| phase | ${builds.map((b) => path.relative(repo, b.wasm) || b.wasm).join(' | ')} |\n|---|${builds.map(() => '---:').join('|')}|`);
for (const p of phases) {
  const cells = builds.map((b) => median(b.runs.map((T) => (p === 'total' ? Object.values(T).reduce((a, x) => a + x, 0) : T[p]))));
  console.log(`| ${p} | ${cells.map((c) => c.toFixed(0)).join(' | ')} |`);
}
