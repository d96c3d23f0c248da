#!/usr/bin/env node
// What reading a large file costs a browser, apart from the page: N Web Workers (a fresh headless Chromium per
// measurement) each read every N-th block of a dropped File with File.slice().arrayBuffer(), as the page's parse
// helpers read their range jobs, and with --mode parse also parse each block with the page's wasm (parse_range,
// the reading worker's merges left out). Reported per block size: the wall time from the drop to the last worker's
// end, the CPU the whole machine spent meanwhile (/proc/stat: every Chromium process, user and system), and the
// workers' own read and parse milliseconds.
//
// Usage: node scripts/bench/bench_browser_read.mjs FILE [--workers 2] [--block 8,32] [--mode read,parse]
//                                                  [--runs 2] [--dist DIR]
//
//   FILE      an uncompressed Chrome-trace file (the page's range jobs are for those)
//   --block   block sizes in MiB, each measured in turn (the page's are 8-32 MiB, Rust read::block_size)
//   --mode    read: only read the blocks; parse: read and parse them (needs DIST/pkg, built by www/build.sh)
//   --runs    rounds over every block size and mode, alternating (this machine's speed drifts)
//
// Skips (exit 0, with a message) when FILE, Chromium or, for parse, DIST/pkg is missing.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const opts = { workers: 2, blocks: [8, 32], modes: ['read', 'parse'], runs: 2, dist: path.join(ROOT, 'dist') };
let file = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--workers') opts.workers = parseInt(argv[++i], 10);
  else if (a === '--block') opts.blocks = argv[++i].split(',').map(Number);
  else if (a === '--mode') opts.modes = argv[++i].split(',');
  else if (a === '--runs') opts.runs = parseInt(argv[++i], 10);
  else if (a === '--dist') opts.dist = path.resolve(argv[++i]);
  else if (a === '-h' || a === '--help') {
    console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport ')[0]);
    process.exit(0);
  } else if (!a.startsWith('--') && file === null) file = path.resolve(a);
  else { console.error(`unknown argument ${a}`); process.exit(2); }
}
const pkg = path.join(opts.dist, 'pkg');
const skip = !file || !fs.existsSync(file) ? `trace file ${file ?? '(none given)'} not found`
  : !fs.existsSync(CHROMIUM) ? `${CHROMIUM} not found`
  : opts.modes.includes('parse') && !fs.existsSync(path.join(pkg, 'kinetoscope.js')) ? `${pkg} not found - build the web app with www/build.sh` : null;
if (skip) {
  console.log(`SKIP: ${skip}`);
  process.exit(0);
}

// the worker: its share of the file's blocks (the page's range jobs, from the page's own splitter), read then parsed
const WORKER = `import init, * as wasm from '/pkg/kinetoscope.js';
const ready = init({ module_or_path: '/pkg/kinetoscope_bg.wasm' }).then(() => self.postMessage({ ready: true }));
self.onmessage = async ({ data: { file, w, n, mode, mib } }) => {
  await ready;
  const s = new wasm.Session();
  s.begin_file_split('trace.json', file.size, mib << 20, 0);
  s.push(new Uint8Array(await file.slice(0, 64 << 10).arrayBuffer()));
  const jobs = [];
  for (let b; (b = s.take_block()); ) jobs.push(b);
  let read = 0, parse = 0, blocks = 0;
  for (const job of jobs.filter((_, i) => i % n === w)) {
    const [start, end] = wasm.job_range(job);
    for (let stop = Math.min(file.size, end + (256 << 10)); ; stop = Math.min(file.size, stop + Math.max(256 << 10, stop - start))) {
      const t0 = performance.now();
      const bytes = new Uint8Array(await file.slice(start, stop).arrayBuffer());
      const t1 = performance.now();
      const partial = mode === 'parse' ? wasm.parse_range('trace.json', job, bytes, stop === file.size) : bytes;
      read += t1 - t0;
      parse += performance.now() - t1;
      if (partial) break;
    }
    blocks++;
  }
  self.postMessage({ read, parse, blocks });
};`;
const PAGE = `<!doctype html><input type=file id=f><script type=module>
const q = new URLSearchParams(location.search), n = Number(q.get('n')), mode = q.get('mode'), mib = Number(q.get('mib'));
// the workers start (and compile the wasm) before the file is chosen, as the page's helpers do
const workers = [...Array(n).keys()].map(() => new Worker('/worker.js', { type: 'module' }));
window.ready = Promise.all(workers.map((worker) => new Promise((ok) => { worker.onmessage = ok; }))).then(() => true);
document.getElementById('f').onchange = (e) => {
  const file = e.target.files[0], t0 = performance.now();
  window.result = Promise.all(workers.map((worker, w) => new Promise((done) => {
    worker.onmessage = (m) => done(m.data);
    worker.postMessage({ file, w, n, mode, mib });
  }))).then((workers) => ({ wall: performance.now() - t0, workers }));
};
</script>`;
const server = http.createServer((req, res) => {
  const url = req.url.split('?')[0];
  const body = url === '/' ? PAGE : url === '/worker.js' ? WORKER : url.startsWith('/pkg/') && !url.includes('..') && fs.existsSync(path.join(pkg, url.slice(5))) ? fs.readFileSync(path.join(pkg, url.slice(5))) : null;
  if (body === null) { res.writeHead(404); res.end(); return; }
  const type = url === '/' ? 'text/html' : url.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
  res.writeHead(200, { 'content-type': type, 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
  res.end(body);
}).listen(0, '127.0.0.1');
await new Promise((ok) => server.once('listening', ok));

// user + system CPU seconds of the whole machine (every Chromium process and thread)
const cpu = () => {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { busy: (f[0] + f[1] + f[2] + f[5] + f[6]) / 100, sys: f[2] / 100 };
};

async function measure(mode, mib) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/?n=${opts.workers}&mode=${mode}&mib=${mib}`);
    await page.waitForFunction(() => window.ready);
    await page.waitForTimeout(1500); // the browser's own start-up, out of the measurement
    const before = cpu();
    await page.setInputFiles('#f', file);
    await page.waitForFunction(() => window.result, null, { timeout: 600_000 });
    const r = await page.evaluate(() => window.result);
    const after = cpu();
    const sum = (k) => r.workers.reduce((t, w) => t + w[k], 0);
    return { mode, mib, wall: r.wall / 1000, cpu: after.busy - before.busy, sys: after.sys - before.sys, read: sum('read') / 1000, parse: sum('parse') / 1000, blocks: sum('blocks') };
  } finally {
    await browser.close();
  }
}

const rows = [];
for (let run = 1; run <= opts.runs; run++) {
  for (const mode of opts.modes) {
    for (const mib of opts.blocks) {
      const m = await measure(mode, mib);
      rows.push({ run, ...m });
      console.error(`[run ${run}] ${mode} ${mib} MiB: ${m.wall.toFixed(2)} s, ${m.cpu.toFixed(2)} CPU-s (${m.sys.toFixed(2)} system)`);
    }
  }
}
server.close();
const f2 = (x) => x.toFixed(2);
const gb = fs.statSync(file).size / 1e9;
console.log(`${path.basename(file)} (${(gb * 1000).toFixed(0)} MB), ${opts.workers} workers, Chromium ${CHROMIUM}\n`);
console.log('| run | mode | block MiB | blocks | wall s | machine CPU s (system) | CPU s per GB | workers\' read s | workers\' parse s |');
console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.run} | ${r.mode} | ${r.mib} | ${r.blocks} | ${f2(r.wall)} | ${f2(r.cpu)} (${f2(r.sys)}) | ${f2(r.cpu / gb)} | ${f2(r.read)} | ${f2(r.parse)} |`);
}
