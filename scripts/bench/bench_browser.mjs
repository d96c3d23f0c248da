#!/usr/bin/env node
// Browser benchmark: time for the kinetoscope web app (dist/) to load a large trace.
//
// Usage: node scripts/bench/bench_browser.mjs [FILE] [--mb 500] [--runs 3] [--timeout 900]
//                                             [--events N] [--dist DIR] [--no-coi]
//                                             [--tab NAME] [--range START,END] [--settle MS] [--no-native]
//                                             [--browser-idle MS] [--helpers N[,N...]] [--split-min BYTES]
//                                             [--block BYTES]
//
//   FILE       trace to load (default bench-out/kineto_<mb>mb.json, made by bench.sh); a folder (a Recorder
//              trace, bench_recorder.sh, or a folder of per-rank trace files) is picked with the folder input
//   --events   event count the page must show in #summary (default: FILE.events written by
//              bench.sh, else baseline_<mb>mb.json, else any "<number> events" text)
//   --dist     web app folder (default <repo>/dist, built by www/build.sh)
//   --no-coi   do not send COOP/COEP headers (by default the server makes the page
//              cross-origin isolated so SharedArrayBuffer / wasm threads are available)
//   --tab overview  time until the Overview's dashboard is drawn (#dashboard[data-state=done], the next frame
//              painted): what a user sees after a drop; the native `kinetoscope info FILE` runs once before every
//              page run, same session (its time is what reading the file costs natively)
//   --tab      also open this analysis tab (the page URL gets #tab=NAME, so the tab runs with
//              its default options as soon as the trace is read) and time until its panel is
//              done (panel[data-state=done], then the next frame painted); the page time is then
//              change event -> tab done
//   --settle MS  wait MS milliseconds after the page has loaded before choosing the file (default 0: at
//              once). A user needs a moment to drop a file; meanwhile the page prepares its standby
//              worker (helpers started, the reader's compiled code warmed up). Both are worth reporting.
//   --browser-idle MS  before the page is opened, the fresh browser shows about:blank for MS milliseconds
//              (default 2000). A user's browser is already running when a file is dropped; a browser
//              that has just started is still busy starting for about a second (on 2 cores the page
//              took 0.2-0.3 s longer with 0).
//   --helpers N[,N...]  open the page as ?helpers=N (how many parse helper workers its reading worker starts; 0 =
//              none, every file parsed one after another in the reading worker); with a list, every run opens the
//              page once per N, in this order, each in a fresh browser (the native command still runs once per run)
//   --split-min BYTES  files of this size or more are split into blocks for the helpers (the page's SPLIT_MIN,
//              24 MiB; set through window.kinetoscopeSplit); smaller ones of a drop of several are whole-file jobs
//   --block BYTES  the size of a split file's blocks (range jobs) instead of the page's own choice (window.kinetoscopeSplit)
//   --trace-out DIR  record a Chromium trace of each run, from the file's choice to the result (DIR/runN.json, the
//              categories toplevel, devtools.timeline, v8.execute): which thread is busy when (scripts/bench/trace_threads.py)
//   --range    with --tab gpu_ops: the time range (START,END in µs) the tab is opened with
//              (#tab=gpu_ops&range=START,END)
//   --no-native  with --tab decode or gpu_ops, do not time the native command. By default it runs
//              once before every page run, same session, same file: `kinetoscope stats FILE OUT.csv`
//              for decode, `kinetoscope extract FILE OUT.csv RANGE` for gpu_ops; the tab's CSV
//              download (decode_op_averages, extract) is compared with the file it writes
//
// Per run: a fresh headless Chromium (/usr/bin/chromium via playwright-core) opens about:blank, then (after --browser-idle) the page
// served by a tiny static server, the file is set on #file with page.setInputFiles, and the
// time from the input's `change` event to the moment #summary shows the event count is taken
// inside the page (MutationObserver + performance.now()). Also recorded: wall time seen from
// node, peak RSS (VmHWM) of the renderer process and the peak summed RSS of all Chromium
// processes (from /proc), JS heap (performance.memory), and window.__kinetoscopeStats if the
// page exposes it (wasm memory when the trace was read and once the Overview was drawn). Throughput and memory are compared with the
// python json.load baseline from bench-out/baseline_<mb>mb.json (written by bench.sh), or, with
// --tab decode, with the native `kinetoscope stats` measured in the same session.
//
// Skips (exit 0, with a message) when dist/index.html or the trace file is missing.
import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// ---- arguments ------------------------------------------------------------------------------
const opts = { mb: '500', runs: 3, timeout: 900, events: null, dist: path.join(ROOT, 'dist'), coi: true, tab: null, native: true, settle: 0, range: null, browserIdle: 2000, helpers: null, splitMin: null, block: null };
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
  else if (a === '--tab') opts.tab = argv[++i];
  else if (a === '--no-native') opts.native = false;
  else if (a === '--settle') opts.settle = parseFloat(argv[++i]);
  else if (a === '--browser-idle') opts.browserIdle = parseFloat(argv[++i]);
  else if (a === '--range') opts.range = argv[++i];
  else if (a === '--split-min') opts.splitMin = parseInt(argv[++i], 10);
  else if (a === '--block') opts.block = parseInt(argv[++i], 10);
  else if (a === '--trace-out') { opts.traceOut = path.resolve(argv[++i]); fs.mkdirSync(opts.traceOut, { recursive: true }); }
  else if (a === '--helpers') opts.helpers = argv[++i].split(',').map((n) => parseInt(n, 10));
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

// a folder: the bytes of its files (hidden ones left out, as the page does)
const treeBytes = (p) => (fs.statSync(p).isDirectory()
  ? fs.readdirSync(p).filter((n) => !n.startsWith('.')).reduce((n, c) => n + treeBytes(path.join(p, c)), 0)
  : fs.statSync(p).size);
const fileBytes = treeBytes(file);
const isGz = file.endsWith('.gz');
let baseline = null;
for (const cand of [path.join(OUT, `baseline_${opts.mb}mb.json`),
                    path.join(path.dirname(file), `baseline_${opts.mb}mb.json`)]) {
  if (fs.existsSync(cand)) { baseline = JSON.parse(fs.readFileSync(cand, 'utf8')); break; }
}
const jsonFile = isGz ? file.slice(0, -3) : file;
const jsonBytes = fs.existsSync(jsonFile) && !fs.statSync(jsonFile).isDirectory() ? fs.statSync(jsonFile).size : fileBytes;
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
async function runOnce(url, run, helpers) {
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
    const linked = opts.tab && opts.tab !== 'overview' ? `#tab=${encodeURIComponent(opts.tab)}${opts.range ? `&range=${encodeURIComponent(opts.range)}` : ''}` : '';
    if (opts.browserIdle > 0) {
      await page.goto('about:blank');
      await page.waitForTimeout(opts.browserIdle);
    }
    await page.goto(`${url}${helpers === null ? '' : `?helpers=${helpers}`}${linked}`, { waitUntil: 'load' });
    await page.waitForSelector('#file', { state: 'attached', timeout: 60000 });
    if (opts.splitMin || opts.block) {
      await page.evaluate(([min, block]) => { window.kinetoscopeSplit = { min, block }; }, [opts.splitMin, opts.block]); // null: the page's own
    }
    if (opts.settle > 0) await page.waitForTimeout(opts.settle);
    await page.evaluate(([expected, tab]) => {
      const norm = (s) => s.replace(/[\s,.'_\u00a0\u202f]/g, '');
      const ok = (text) => (expected ? norm(text).includes(expected)
                                     : /\d[\d,.\s\u00a0\u202f]*\s*events?/i.test(text));
      const b = window.__bench = { change: null, done: null, text: null, firstChange: null,
                                   tabDone: null, tabStatus: null, tabError: null };
      document.addEventListener('change', (ev) => {
        if (ev.target && (ev.target.id === 'file' || ev.target.id === 'folder') && b.change === null) b.change = performance.now();
      }, true);
      const check = () => {
        if (b.change === null) return;
        if (b.done === null) {
          const el = document.querySelector('#summary');
          if (!el) return;
          const text = el.textContent || '';
          if (b.firstChange === null && text.trim()) b.firstChange = performance.now();
          if (ok(text)) { b.done = performance.now(); b.text = text.trim().slice(0, 300); }
        }
        // the tab's panel: data-state done (tables and charts drawn) or error (panels.js runPanel)
        if (tab && b.done !== null && b.tabDone === null) {
          const p = document.getElementById(tab === 'overview' ? 'dashboard' : `panel-${tab}`);
          const state = p?.dataset.state;
          if (state === 'done' && p.querySelector('table.report, table.dash-table') && !b.tabPainting) {
            // done once the browser has laid out and painted what the panel shows (the next frame)
            b.tabPainting = true;
            b.tabStatus = p.querySelector('.run-status')?.textContent ?? null;
            requestAnimationFrame(() => setTimeout(() => { b.tabDone = performance.now(); }));
          } else if (state === 'error') {
            b.tabDone = performance.now();
            b.tabError = p.querySelector('.panel-error')?.textContent || 'error';
          }
        }
      };
      new MutationObserver(check).observe(document.documentElement,
        { subtree: true, childList: true, characterData: true, attributes: true });
      b.poll = setInterval(check, 50);
    }, [expected, opts.tab]);
    if (opts.traceOut) {
      await browser.startTracing(page, { path: path.join(opts.traceOut, `run${run}.json`), categories: ['toplevel', 'devtools.timeline', 'v8.execute', 'disabled-by-default-devtools.timeline'] });
    }
    const t0 = performance.now();
    // a folder (a Recorder trace) goes through the folder picker
    await page.setInputFiles(fs.statSync(file).isDirectory() ? '#folder' : '#file', file);
    await page.waitForFunction((tab) => window.__bench.done !== null && (!tab || window.__bench.tabDone !== null),
      opts.tab, { timeout: opts.timeout * 1000, polling: 100 });
    const wall = (performance.now() - t0) / 1000;
    if (opts.traceOut) await browser.stopTracing();
    const res = await page.evaluate(() => {
      const b = window.__bench;
      clearInterval(b.poll);
      let stats = window.__kinetoscopeStats;
      try { if (typeof stats === 'function') stats = stats(); } catch (e) { stats = `error: ${e}`; }
      const pm = performance.memory ? { usedJSHeapSize: performance.memory.usedJSHeapSize,
                                        totalJSHeapSize: performance.memory.totalJSHeapSize } : null;
      return { secs: (b.done - b.change) / 1000, text: b.text, stats: stats === undefined ? null : stats,
               jsHeap: pm, crossOriginIsolated: window.crossOriginIsolated,
               tabSecs: b.tabDone === null ? null : (b.tabDone - b.change) / 1000,
               tabStatus: b.tabStatus, tabError: b.tabError };
    });
    if (res.tabError) throw new Error(`tab ${opts.tab} failed: ${res.tabError}`);
    // the tab's CSV download (what a user gets), kept to compare with the CLI's CSV
    if (NATIVE[opts.tab]?.table) {
      const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }),
        page.click(`#panel-${opts.tab} [data-csv="${NATIVE[opts.tab].table}"]`)]);
      res.csv = path.join(OUT, 'decode_csv', `page_${opts.tab}_run${run}.csv`);
      fs.mkdirSync(path.dirname(res.csv), { recursive: true });
      await dl.saveAs(res.csv);
    }
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
// the native CLI on the same file: the command whose CSV the tab's table is (decode: `kinetoscope stats FILE
// OUT.csv`; gpu_ops: `kinetoscope extract FILE OUT.csv RANGE`)
const NATIVE_BIN = process.env.KINETOSCOPE || path.join(ROOT, 'target', 'release', 'kinetoscope');
const NATIVE = {
  decode: { args: (csv) => ['stats', file, csv], table: 'decode_op_averages' },
  gpu_ops: { args: (csv) => ['extract', file, csv, opts.range], table: 'extract' },
  overview: { args: () => ['info', file], table: null },
};
if (opts.tab === 'gpu_ops' && !opts.range) { console.error('--tab gpu_ops needs --range START,END (what kinetoscope extract is given)'); process.exit(2); }
const nativeOn = !!NATIVE[opts.tab] && opts.native;
const nativeCmd = nativeOn ? `${path.relative(ROOT, NATIVE_BIN)} ${NATIVE[opts.tab].args('OUT.csv').join(' ').replace(file, 'FILE')}` : '';
function nativeStats(run) {
  const csv = path.join(OUT, 'decode_csv', `native_${opts.tab}.csv`);
  fs.mkdirSync(path.dirname(csv), { recursive: true });
  const tv = path.join(OUT, `.time.native.${process.pid}`);
  const timed = fs.existsSync('/usr/bin/time');
  const args = NATIVE[opts.tab].args(csv);
  const cmd = timed ? ['/usr/bin/time', '-v', '-o', tv, NATIVE_BIN, ...args] : [NATIVE_BIN, ...args];
  const t0 = performance.now();
  const r = spawnSync(cmd[0], cmd.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const secs = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`native ${args[0]} run ${run} failed (exit ${r.status}): ${String(r.stderr).slice(-300)}`);
  let rssMiB = null;
  if (timed) {
    const m = fs.readFileSync(tv, 'utf8').match(/Maximum resident set size \(kbytes\): (\d+)/);
    rssMiB = m ? parseInt(m[1], 10) / 1024 : null;
    fs.rmSync(tv, { force: true });
  }
  return { secs, rssMiB, csv };
}
const sameFile = (a, b) => { try { return fs.readFileSync(a).equals(fs.readFileSync(b)); } catch { return null; } };

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
console.log(`serving ${opts.dist} at ${url}${opts.tab ? ` (#tab=${opts.tab})` : ''}`);
console.log(`file: ${file} (${(fileBytes / 1e6).toFixed(1)} MB${isGz ? `, ${(jsonBytes / 1e6).toFixed(1)} MB uncompressed` : ''}); waiting for #summary to show ${expected ? `${expected} events` : '"<n> events"'}${opts.tab ? `, then panel-${opts.tab} done` : ''}`);
if (nativeOn && !fs.existsSync(NATIVE_BIN)) {
  console.log(`SKIP: ${NATIVE_BIN} not found - build it with 'cargo build --release' (or pass --no-native)`);
  process.exit(0);
}
if (!baseline && !opts.tab) console.log(`note: no bench-out/baseline_${opts.mb}mb.json - run scripts/bench/bench.sh ${opts.mb} for the json.load comparison`);

const results = [];
try {
  for (let r = 1; r <= opts.runs; r++) {
    let native = null;
    if (nativeOn) {
      console.log(`[native ${NATIVE[opts.tab].args('')[0]} ${r}/${opts.runs}] load average: ${uptime()}`);
      native = nativeStats(r);
      console.log(`   -> ${fmt(native.secs, 3)} s, peak RSS ${fmt(native.rssMiB, 0)} MiB`);
    }
    for (const helpers of opts.helpers ?? [null]) {
    console.log(`[run ${r}/${opts.runs}${helpers === null ? '' : `, ?helpers=${helpers}`}] load average: ${uptime()}`);
    const load1 = uptime().split(' ')[0];
    try {
      const res = await runOnce(url, r, helpers);
      Object.assign(res, { native, load1, helpers, run: r });
      if (native && res.csv) res.csvSame = sameFile(native.csv, res.csv);
      results.push(res);
      console.log(`   -> ${fmt(res.secs, 3)} s in page (${fmt(res.wall, 3)} s wall), renderer peak RSS ${fmt(res.rendererHwmMiB, 0)} MiB, ` +
                  `all Chromium ${fmt(res.totalPeakMiB, 0)} MiB, crossOriginIsolated=${res.crossOriginIsolated}`);
      console.log(`      #summary: ${JSON.stringify(res.text)}`);
      if (opts.tab) console.log(`      tab ${opts.tab} done at ${fmt(res.tabSecs, 3)} s: ${JSON.stringify(res.tabStatus)}` +
                                (res.csv ? `; CSV ${res.csvSame === true ? 'identical to' : res.csvSame === false ? 'DIFFERS from' : 'not compared with'} the CLI's` : ''));
      if (res.stats) console.log(`      __kinetoscopeStats: ${JSON.stringify(res.stats)}`);
      for (const e of res.errors.slice(0, 5)) console.log(`      ${e}`);
    } catch (e) {
      console.log(`   -> FAILED: ${String(e).split('\n')[0]}`);
      results.push({ failed: true, run: r, helpers });
    }
    }
  }
} finally {
  server.close();
}

const ok = results.filter((r) => !r.failed);
const mb = jsonBytes / 1e6;
const lines = [];
lines.push(`## kinetoscope browser benchmark${opts.tab ? `, tab ${opts.tab}` : ''} (${new Date().toISOString()})`, '');
lines.push(`- Chromium ${CHROMIUM} headless via playwright-core, fresh browser per run; ${fs.statSync(file).isDirectory() ? 'folder' : 'file'} ${path.basename(file)} (${mb.toFixed(1)} MB JSON)`);
if (opts.block) lines.push(`- split files read in blocks of ${opts.block} bytes (--block)`);
if (opts.splitMin) lines.push(`- files of ${opts.splitMin} bytes or more split into blocks (--split-min; the page's default is 24 MiB)`);
if (opts.helpers) lines.push(`- helpers = the page's ?helpers=N (parse helper workers of the reading worker); each run opened the page once per N (${opts.helpers.join(', ')}), in this order`);
lines.push(`- seconds = input change event -> #summary shows the event count, measured in the page; the file was chosen ${opts.settle > 0 ? `${opts.settle} ms after the page loaded (--settle)` : 'as soon as the page had loaded'}; the browser had been running ${opts.browserIdle} ms before the page was opened (--browser-idle)`);
if (opts.tab) {
  lines.push(`- tab s = input change event -> the ${opts.tab} tab (opened by #tab=${opts.tab}${opts.range ? `&range=${opts.range}` : ", default options"}) has drawn its tables and charts and the next frame is painted; ` +
             `"analysis ms" is the worker's run_analysis time shown in the panel`);
}
if (nativeOn) lines.push(`- native = \`${nativeCmd}\`, run just before each page run (wall time, /usr/bin/time peak RSS); page/native = tab s / native s`);
if (baseline && !opts.tab) lines.push(`- baseline: python json.load ${fmt(baseline.json_load_best_s, 3)} s best = ${fmt(baseline.json_load_mbps, 1)} MB/s, peak RSS ${fmt(baseline.json_load_peak_rss_mib, 0)} MiB (${baseline.source || 'bench.sh'})`);
lines.push('');
const tabCols = opts.tab ? [' tab s |', ' analysis ms |'] : ['', ''];
const natCols = nativeOn ? ' native s | native RSS MiB | page/native | CSV = CLI |' : '';
const hCol = opts.helpers ? ' helpers |' : '';
lines.push(`| run |${hCol} load1 | s (page) | s (wall) |${tabCols.join('')}${natCols} MB/s | renderer peak RSS MiB | all Chromium peak RSS MiB | wasm memory MiB (read / Overview) | JS heap MiB |`);
lines.push('|---:|' + (opts.helpers ? '---:|' : '') + '---:|---:|---:|' + (opts.tab ? '---:|---:|' : '') + (nativeOn ? '---:|---:|---:|---|' : '') + '---:|---:|---:|---:|---:|');
// the worker's run_analysis time shown in the panel; for the Overview, the dashboard's time in the worker
const analysisMs = (r) => { const m = /(\d+) ms\s*$/.exec(r.tabStatus || ''); return m ? m[1] : r.stats?.dashboardMs ?? ''; };
const mib = (b) => (typeof b === 'number' ? fmt(b / 1048576, 0) : '');
for (const r of results) {
  const h = opts.helpers ? ` ${r.helpers} |` : '';
  if (r.failed) { lines.push(`| ${r.run} |${h} failed |`); continue; }
  const w = wasmBytes(r.stats);
  const total = opts.tab ? r.tabSecs : r.secs;
  const tab = opts.tab ? ` ${fmt(r.tabSecs, 3)} | ${analysisMs(r)} |` : '';
  const nat = nativeOn ? ` ${fmt(r.native.secs, 3)} | ${fmt(r.native.rssMiB, 0)} | ${fmt(total / r.native.secs, 2)}x | ${r.csvSame === true ? 'identical' : r.csvSame === false ? 'DIFFERS' : '?'} |` : '';
  const wasmMem = `${w === null ? '' : mib(w)}${r.stats?.overviewWasmMemoryBytes ? ` / ${mib(r.stats.overviewWasmMemoryBytes)}` : ''}`;
  lines.push(`| ${r.run} |${h} ${r.load1} | ${fmt(r.secs, 3)} | ${fmt(r.wall, 3)} |${tab}${nat} ${fmt(mb / total, 1)} | ${fmt(r.rendererHwmMiB, 0)} | ${fmt(r.totalPeakMiB, 0)} | ${wasmMem} | ${r.jsHeap ? fmt(r.jsHeap.usedJSHeapSize / 1048576, 0) : ''} |`);
}
// one summary line per ?helpers value
for (const helpers of opts.helpers ?? [null]) {
  const these = ok.filter((r) => r.helpers === helpers);
  if (!these.length) continue;
  const totals = these.map((r) => (opts.tab ? r.tabSecs : r.secs));
  const best = Math.min(...totals);
  const med = median(totals);
  const rss = Math.max(...these.map((r) => r.rendererHwmMiB));
  lines.push('');
  let summary = `**${helpers === null ? '' : `helpers=${helpers}: `}best ${fmt(best, 3)} s, median ${fmt(med, 3)} s, ${fmt(mb / best, 1)} MB/s, renderer peak RSS ${fmt(rss, 0)} MiB**`;
  if (nativeOn) {
    const nat = these.map((r) => r.native.secs);
    const nBest = Math.min(...nat);
    summary += ` - native ${NATIVE[opts.tab].args('')[0]} best ${fmt(nBest, 3)} s, median ${fmt(median(nat), 3)} s; page/native ${fmt(best / nBest, 2)}x (best/best), ` +
               `${fmt(median(these.map((r) => r.tabSecs / r.native.secs)), 2)}x (median of per-run ratios)`;
  } else if (baseline && !opts.tab) {
    summary += ` - speed vs json.load ${fmt((mb / best) / baseline.json_load_mbps, 2)}x, memory vs json.load ${fmt(rss / baseline.json_load_peak_rss_mib, 3)}x`;
  }
  lines.push(summary);
}
const text = lines.join('\n') + '\n';
console.log('\n' + text);
try {
  fs.mkdirSync(OUT, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const md = path.join(OUT, `browser_${path.basename(file).replace(/\W+/g, "_")}${opts.tab ? `_${opts.tab}` : ''}_${stamp}.md`);
  fs.writeFileSync(md, text);
  console.log(`results written to ${md}`);
} catch (e) { console.log(`could not write results: ${e}`); }
process.exit(ok.length ? 0 : 1);
