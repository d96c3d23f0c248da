#!/usr/bin/env node
// Browser benchmark: time for the kinetoscope web app (dist/) to load a large trace.
//
// Usage: node scripts/bench/bench_browser.mjs [FILE] [--mb 500] [--runs 3] [--timeout 900]
//                                             [--events N] [--dist DIR] [--no-coi]
//
//   FILE       trace to load (default bench-out/kineto_<mb>mb.json, made by bench.sh)
//   --events   event count the page must show in #summary (default: FILE.events written by
//              bench.sh, else baseline_<mb>mb.json, else any "<number> events" text)
//   --dist     web app folder (default <repo>/dist, built by www/build.sh)
//   --no-coi   do not send COOP/COEP headers (by default the server makes the page
//              cross-origin isolated so SharedArrayBuffer / wasm threads are available)
//
// Per run: a fresh headless Chromium (/usr/bin/chromium via playwright-core) opens the page
// served by a tiny static server, the file is set on #file with page.setInputFiles, and the
// time from the input's `change` event to the moment #summary shows the event count is taken
// inside the page (MutationObserver + performance.now()). Also recorded: wall time seen from
// node, peak RSS (VmHWM) of the renderer process and the peak summed RSS of all Chromium
// processes (from /proc), JS heap (performance.memory), and window.__kinetoscopeStats if the
// page exposes it (e.g. wasm memory). Throughput and memory are compared with the
// python json.load baseline from bench-out/baseline_<mb>mb.json (written by bench.sh).
//
// Skips (exit 0, with a message) when dist/index.html or the trace file is missing.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// ---- arguments ------------------------------------------------------------------------------
const opts = { mb: '500', runs: 3, timeout: 900, events: null, dist: path.join(ROOT, 'dist'), coi: true };
let file = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--mb') opts.mb = argv[++i];
  else if (a === '--runs') opts.runs = parseInt(argv[++i], 10);
  else if (a === '--timeout') opts.timeout = parseFloat(argv[++i]);
  else if (a === '--events') opts.events = argv[++i];
  else if (a === '--dist') opts.dist = path.resolve(argv[++i]);
  else if (a === '--no-coi') opts.coi = false;
  else if (a === '-h' || a === '--help') {
    console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport ')[0]);
    process.exit(0);
  } else if (!a.startsWith('--') && file === null) file = path.resolve(a);
  else { console.error(`unknown argument ${a}`); process.exit(2); }
}
const OUT = process.env.BENCH_OUT || path.join(ROOT, 'bench-out');
file = file || path.join(OUT, `kineto_${opts.mb}mb.json`);

if (!fs.existsSync(path.join(opts.dist, 'index.html'))) {
  console.log(`SKIP: ${path.join(opts.dist, 'index.html')} not found - build the web app with www/build.sh first`);
  process.exit(0);
}
if (!fs.existsSync(file)) {
  console.log(`SKIP: ${file} not found - run scripts/bench/bench.sh ${opts.mb} first (it generates the trace and the json.load baseline)`);
  process.exit(0);
}
if (!fs.existsSync(CHROMIUM)) {
  console.log(`SKIP: ${CHROMIUM} not found`);
  process.exit(0);
}

const fileBytes = fs.statSync(file).size;
const isGz = file.endsWith('.gz');
let baseline = null;
for (const cand of [path.join(OUT, `baseline_${opts.mb}mb.json`),
                    path.join(path.dirname(file), `baseline_${opts.mb}mb.json`)]) {
  if (fs.existsSync(cand)) { baseline = JSON.parse(fs.readFileSync(cand, 'utf8')); break; }
}
const jsonFile = isGz ? file.slice(0, -3) : file;
const jsonBytes = fs.existsSync(jsonFile) ? fs.statSync(jsonFile).size : fileBytes;
let expected = opts.events;
if (!expected && fs.existsSync(jsonFile + '.events')) expected = fs.readFileSync(jsonFile + '.events', 'utf8').trim();
if (!expected && baseline && baseline.events && baseline.events !== '?' &&
    path.resolve(baseline.file) === path.resolve(jsonFile)) expected = String(baseline.events);
if (expected && !/^\d+$/.test(expected)) expected = null;

// ---- static server --------------------------------------------------------------------------
const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json', '.woff2': 'font/woff2',
};
function serve(root) {
  const server = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (p.endsWith('/')) p += 'index.html';
    const full = path.join(root, path.normalize(p).replace(/^(\.\.[/\\])+/, ''));
    if (!full.startsWith(root) || !fs.existsSync(full) || fs.statSync(full).isDirectory()) {
      res.writeHead(404); res.end('not found'); return;
    }
    const headers = { 'Content-Type': MIME[path.extname(full)] || 'application/octet-stream',
                      'Cache-Control': 'no-store' };
    if (opts.coi) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    res.writeHead(200, headers);
    fs.createReadStream(full).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---- /proc helpers --------------------------------------------------------------------------
function readStatus(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k) => { const m = s.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')); return m ? parseInt(m[1], 10) : 0; };
    return { ppid: get('PPid'), rssKb: get('VmRSS'), hwmKb: get('VmHWM') };
  } catch { return null; }
}
function cmdline(pid) {
  try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '); } catch { return ''; }
}
function procTree(marker) {
  const pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
  const info = new Map();
  for (const pid of pids) { const st = readStatus(pid); if (st) info.set(pid, st); }
  const root = pids.find((p) => { const c = cmdline(p); return c.includes(marker) && !c.includes('--type='); });
  if (!root) return [];
  const kids = new Map();
  for (const [pid, st] of info) { if (!kids.has(st.ppid)) kids.set(st.ppid, []); kids.get(st.ppid).push(pid); }
  const out = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop();
    const st = info.get(p);
    if (st) out.push({ pid: p, ...st, cmd: cmdline(p) });
    for (const k of kids.get(p) || []) stack.push(k);
  }
  return out;
}

// ---- one run --------------------------------------------------------------------------------
async function runOnce(url, run) {
  const marker = `--kinetoscope-bench-marker=${process.pid}-${run}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', marker],
  });
  const errors = [];
  let peakTotalKb = 0;
  const sampler = setInterval(() => {
    const t = procTree(marker).reduce((a, p) => a + p.rssKb, 0);
    if (t > peakTotalKb) peakTotalKb = t;
  }, 200);
  try {
    const page = await browser.newPage();
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e}`));
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('#file', { state: 'attached', timeout: 60000 });
    await page.evaluate((expected) => {
      const norm = (s) => s.replace(/[\s,.'_\u00a0\u202f]/g, '');
      const ok = (text) => (expected ? norm(text).includes(expected)
                                     : /\d[\d,.\s\u00a0\u202f]*\s*events?/i.test(text));
      const b = window.__bench = { change: null, done: null, text: null, firstChange: null };
      document.addEventListener('change', (ev) => {
        if (ev.target && ev.target.id === 'file' && b.change === null) b.change = performance.now();
      }, true);
      const check = () => {
        if (b.change === null || b.done !== null) return;
        const el = document.querySelector('#summary');
        if (!el) return;
        const text = el.textContent || '';
        if (b.firstChange === null && text.trim()) b.firstChange = performance.now();
        if (ok(text)) { b.done = performance.now(); b.text = text.trim().slice(0, 300); }
      };
      new MutationObserver(check).observe(document.documentElement,
        { subtree: true, childList: true, characterData: true, attributes: true });
      b.poll = setInterval(check, 50);
    }, expected);
    const t0 = performance.now();
    await page.setInputFiles('#file', file);
    await page.waitForFunction(() => window.__bench.done !== null, null,
      { timeout: opts.timeout * 1000, polling: 100 });
    const wall = (performance.now() - t0) / 1000;
    const res = await page.evaluate(() => {
      const b = window.__bench;
      clearInterval(b.poll);
      let stats = window.__kinetoscopeStats;
      try { if (typeof stats === 'function') stats = stats(); } catch (e) { stats = `error: ${e}`; }
      const pm = performance.memory ? { usedJSHeapSize: performance.memory.usedJSHeapSize,
                                        totalJSHeapSize: performance.memory.totalJSHeapSize } : null;
      return { secs: (b.done - b.change) / 1000, text: b.text, stats: stats === undefined ? null : stats,
               jsHeap: pm, crossOriginIsolated: window.crossOriginIsolated };
    });
    const tree = procTree(marker);
    const renderers = tree.filter((p) => p.cmd.includes('--type=renderer'));
    const rendererHwmKb = Math.max(0, ...renderers.map((p) => p.hwmKb));
    const total = tree.reduce((a, p) => a + p.rssKb, 0);
    if (total > peakTotalKb) peakTotalKb = total;
    return { ...res, wall, rendererHwmMiB: rendererHwmKb / 1024, totalPeakMiB: peakTotalKb / 1024, errors };
  } finally {
    clearInterval(sampler);
    await browser.close();
  }
}

// ---- main -----------------------------------------------------------------------------------
function fmt(x, d = 2) { return x === null || x === undefined || Number.isNaN(x) ? '' : x.toFixed(d); }
function median(xs) { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; }
function wasmBytes(stats) {
  if (!stats || typeof stats !== 'object') return null;
  for (const k of Object.keys(stats)) {
    if (/wasm/i.test(k) && /(byte|mem)/i.test(k) && typeof stats[k] === 'number') return stats[k];
  }
  return null;
}

const server = await serve(opts.dist);
const url = `http://127.0.0.1:${server.address().port}/`;
const uptime = () => { try { return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '); } catch { return '?'; } };
console.log(`serving ${opts.dist} at ${url}`);
console.log(`file: ${file} (${(fileBytes / 1e6).toFixed(1)} MB${isGz ? `, ${(jsonBytes / 1e6).toFixed(1)} MB uncompressed` : ''}); waiting for #summary to show ${expected ? `${expected} events` : '"<n> events"'}`);
if (!baseline) console.log(`note: no bench-out/baseline_${opts.mb}mb.json - run scripts/bench/bench.sh ${opts.mb} for the json.load comparison`);

const results = [];
try {
  for (let r = 1; r <= opts.runs; r++) {
    console.log(`[run ${r}/${opts.runs}] load average: ${uptime()}`);
    try {
      const res = await runOnce(url, r);
      results.push(res);
      console.log(`   -> ${fmt(res.secs, 3)} s in page (${fmt(res.wall, 3)} s wall), renderer peak RSS ${fmt(res.rendererHwmMiB, 0)} MiB, ` +
                  `all Chromium ${fmt(res.totalPeakMiB, 0)} MiB, crossOriginIsolated=${res.crossOriginIsolated}`);
      console.log(`      #summary: ${JSON.stringify(res.text)}`);
      if (res.stats) console.log(`      __kinetoscopeStats: ${JSON.stringify(res.stats)}`);
      for (const e of res.errors.slice(0, 5)) console.log(`      ${e}`);
    } catch (e) {
      console.log(`   -> FAILED: ${String(e).split('\n')[0]}`);
      results.push(null);
    }
  }
} finally {
  server.close();
}

const ok = results.filter(Boolean);
const mb = jsonBytes / 1e6;
const lines = [];
lines.push(`## kinetoscope browser benchmark (${new Date().toISOString()})`, '');
lines.push(`- Chromium ${CHROMIUM} headless via playwright-core, fresh browser per run; file ${path.basename(file)} (${mb.toFixed(1)} MB JSON)`);
lines.push(`- seconds = input change event -> #summary shows the event count, measured in the page`);
if (baseline) lines.push(`- baseline: python json.load ${fmt(baseline.json_load_best_s, 3)} s best = ${fmt(baseline.json_load_mbps, 1)} MB/s, peak RSS ${fmt(baseline.json_load_peak_rss_mib, 0)} MiB (${baseline.source || 'bench.sh'})`);
lines.push('');
lines.push('| run | s (page) | s (wall) | MB/s | renderer peak RSS MiB | all Chromium peak RSS MiB | wasm memory MiB | JS heap MiB |');
lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
results.forEach((r, i) => {
  if (!r) { lines.push(`| ${i + 1} | failed | | | | | | |`); return; }
  const w = wasmBytes(r.stats);
  lines.push(`| ${i + 1} | ${fmt(r.secs, 3)} | ${fmt(r.wall, 3)} | ${fmt(mb / r.secs, 1)} | ${fmt(r.rendererHwmMiB, 0)} | ${fmt(r.totalPeakMiB, 0)} | ${w === null ? '' : fmt(w / 1048576, 0)} | ${r.jsHeap ? fmt(r.jsHeap.usedJSHeapSize / 1048576, 0) : ''} |`);
});
if (ok.length) {
  const best = Math.min(...ok.map((r) => r.secs));
  const med = median(ok.map((r) => r.secs));
  const rss = Math.max(...ok.map((r) => r.rendererHwmMiB));
  lines.push('');
  lines.push(`**best ${fmt(best, 3)} s, median ${fmt(med, 3)} s, ${fmt(mb / best, 1)} MB/s, renderer peak RSS ${fmt(rss, 0)} MiB**` +
    (baseline ? ` - speed vs json.load ${fmt((mb / best) / baseline.json_load_mbps, 2)}x, memory vs json.load ${fmt(rss / baseline.json_load_peak_rss_mib, 3)}x` : ''));
}
const text = lines.join('\n') + '\n';
console.log('\n' + text);
try {
  fs.mkdirSync(OUT, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const md = path.join(OUT, `browser_${opts.mb}mb_${stamp}.md`);
  fs.writeFileSync(md, text);
  console.log(`results written to ${md}`);
} catch (e) { console.log(`could not write results: ${e}`); }
process.exit(ok.length ? 0 : 1);
