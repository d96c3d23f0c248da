// Shared pieces of the browser tests: paths, an in-process static server over dist/, the headless
// Chromium launch, the real CLI as the oracle, and readers for what the page shows.
import { execFileSync } from 'node:child_process';
import { appendFileSync, createReadStream, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// the corpus (traces/ and hta-oracle/): $KINETOSCOPE_SHARED, else ../shared beside the checkout
export const shared = path.resolve(repoRoot, process.env.KINETOSCOPE_SHARED || path.join('..', 'shared'));
export const hasCorpus = existsSync(path.join(shared, 'traces')) && existsSync(path.join(shared, 'hta-oracle'));
export const dist = path.join(repoRoot, 'dist');
export const outDir = path.join(repoRoot, 'tests', 'e2e', 'out');
export const cli = path.resolve(repoRoot, process.env.CARGO_TARGET_DIR ?? 'target', 'release', 'kinetoscope');

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.txt': 'text/plain; charset=utf-8',
};

/** Serves dist/ on 127.0.0.1 at a free port. Returns {url, close}. */
export async function serveDist() {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.join(dist, rel);
    if (!file.startsWith(dist + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
}

/** A fresh page that records console errors and uncaught exceptions (asserted empty by the tests); `options`
 * are Playwright's context options (e.g. permissions). */
export async function newPage(browser, options = {}) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, ...options });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  return page;
}

export async function screenshot(page, name) {
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: path.join(outDir, `${name}.png`), fullPage: true });
}

/** `kinetoscope info --json NAMES…` run inside `dir` (so file names match what the page is given).
 * Returns {status, json, text, stderr}; json is the overview with numbers kept as their text (Num). */
export function cliInfo(dir, ...names) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run cargo build --release first`);
  try {
    const text = execFileSync(cli, ['info', '--json', ...names], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, json: parseExact(text), text, stderr: '' };
  } catch (e) {
    if (typeof e.status !== 'number') throw e;
    return { status: e.status, json: null, text: String(e.stdout), stderr: String(e.stderr) };
  }
}

/** A JSON number kept as its source text (node 20 has no JSON.parse source access). */
export class Num {
  constructor(src) { this.src = src; }
  toString() { return this.src; }
  /** Its value as a JS number. */
  get n() { return Number(this.src); }
}
const NUM_TAG = '\u0000num:';
/** JSON.parse that keeps every number as a Num (exact: no float rounding, no 2^53 limit). */
export function parseExact(text) {
  const tagged = text.replace(/("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g,
    (m, str, num) => (str ? str : JSON.stringify(NUM_TAG + num)));
  return JSON.parse(tagged, (_k, v) => (typeof v === 'string' && v.startsWith(NUM_TAG) ? new Num(v.slice(NUM_TAG.length)) : v));
}

/** Formats an integer as the page does (en-US thousands separators). */
export const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** How the page must show a value from the overview: integers grouped (not inside lists), other numbers as given. */
export function display(v) {
  if (v instanceof Num) return /^-?\d+$/.test(v.src) ? grouped(v.src) : v.src;
  if (v === null) return '\u2014';
  if (Array.isArray(v)) return v.map((x) => (x instanceof Num ? x.src : display(x))).join(', '); // ids: not grouped
  return String(v);
}
const scalar = (v) => v === null || v instanceof Num || typeof v !== 'object';

/** The rows the page must show for an object: {kinds: {kind: text}, fields: {dotted.path: text}}. */
export function expectedRows(obj) {
  const out = { kinds: {}, fields: {} };
  const walk = (o, at) => {
    for (const [k, v] of Object.entries(o)) {
      const key = at ? `${at}.${k}` : k;
      if (scalar(v) || (Array.isArray(v) && v.length && v.every(scalar))) {
        if (at === 'kinds') out.kinds[k] = display(v);
        else out.fields[key] = display(v);
      } else if (Object.keys(v).length === 0) out.fields[key] = '\u2014';
      else walk(v, key);
    }
  };
  walk(obj, '');
  return out;
}

/** Waits until the page has finished what was started (body[data-state]) and reports what it shows. */
export async function waitDone(page, timeout = 60_000) {
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.body.dataset.state), null, { timeout });
  return readPage(page);
}

/** Everything the tests compare, read from the DOM as text (numbers without thousands separators). */
export function readPage(page) {
  return page.evaluate(() => {
    const rows = (t, sel, attr) => Object.fromEntries([...t.querySelectorAll(sel)]
      .map((tr) => [tr.getAttribute(attr), tr.cells[tr.cells.length - 1].textContent]));
    const visible = (id) => { const e = document.getElementById(id); return !e.hidden && e.offsetParent !== null; };
    return {
      overviewVisible: visible('overview'),
      summary: document.getElementById('summary').textContent,
      extra: rows(document.getElementById('overview-extra'), 'tr[data-key]:not(.group)', 'data-key'),
      error: visible('error') ? document.getElementById('error').textContent : null,
      status: document.getElementById('status').textContent,
      warnings: [...document.querySelectorAll('#warnings li')].map((li) => ({
        kind: li.dataset.kind, count: li.dataset.count, text: li.textContent })),
      warningsVisible: visible('warnings-box'),
      ranks: [...document.querySelectorAll('#ranks table.rank')].map((t) => ({
        rank: t.dataset.rank,
        kinds: rows(t, 'tr[data-kind]', 'data-kind'),
        fields: rows(t, 'tr[data-key]:not(.group)', 'data-key'),
      })),
    };
  });
}

/** True once src/web.rs exports the chart hook (then the tests require a drawn canvas). */
export const hasKindsChart = () =>
  /export function draw_kinds_chart\b/.test(readFileSync(path.join(dist, 'pkg', 'kinetoscope.js'), 'utf8'));

/** Counts non-white pixels of a canvas. */
export const canvasInk = (page, id) => page.evaluate((id) => {
  const c = document.getElementById(id);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245)) n++;
  return n;
}, id);

// ---- analysis panels ---------------------------------------------------------------------------------

/** Runs the CLI with `args` inside `dir`: {status, stdout, stderr} (never throws on a failing exit). */
export function cliRun(dir, args) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run cargo build --release first`);
  try {
    const stdout = execFileSync(cli, args, { cwd: dir, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, stdout, stderr: '' };
  } catch (e) {
    if (typeof e.status !== 'number') throw e;
    return { status: e.status, stdout: String(e.stdout), stderr: String(e.stderr) };
  }
}

/** `kinetoscope NAME --json ARGS…` in `dir`: {status, json: {tables: {name: [row objects]}, notes}, stderr,
 * message (the error the CLI printed, without its `kinetoscope: ` prefix)}; numbers are Num. */
export function cliAnalysis(dir, name, args) {
  const r = cliRun(dir, [name, '--json', ...args]);
  return { ...r, json: r.status === 0 ? parseExact(r.stdout) : null, message: r.stderr.trim().replace(/^kinetoscope: /, '') };
}

/** The analysis subcommands of the CLI, in order, as [{name, hta}]: the commands with the `--json` of
 * src/cli/analysis.rs (one per entry of the registry); `hta` when the help says which HTA API it matches
 * (the others, e.g. decode, have no HTA mode in the page). */
export function cliAnalyses() {
  const help = cliRun(repoRoot, ['--help']).stdout;
  const commands = help.split(/\n\s*\n/).find((block) => block.startsWith('Commands:'))
    .split('\n').slice(1).map((line) => line.trim().split(/\s+/)[0]).filter((c) => c && c !== 'help');
  return commands.map((name) => ({ name, help: cliRun(repoRoot, [name, '--help']).stdout }))
    .filter(({ help }) => help.includes('Print JSON: {tables: {name: [rows]}, notes}'))
    .map(({ name, help }) => ({ name, hta: help.includes('Matches HolisticTraceAnalysis') }));
}

/** How a panel must show one cell of the CLI's JSON rows. */
export const cellText = (v) => (v instanceof Num ? v.src : v === null || v === undefined ? '\u2014' : String(v));

/** The CLI's rows of one table as the page must show them, in the page's column order. */
export const expectedCells = (rows, columns) => rows.map((row) => columns.map((c) => cellText(row[c])));

/** Clicks the tab of `name` and waits for its panel to finish running. */
export async function openTab(page, name, timeout = 60_000) {
  await page.click(`#tabs [data-tab="${name}"]`);
  return waitPanel(page, name, timeout);
}

/** Waits until the panel of `name` is neither idle nor running, then reads it. */
export async function waitPanel(page, name, timeout = 60_000) {
  await page.waitForFunction((name) => ['done', 'error'].includes(document.getElementById(`panel-${name}`)?.dataset.state),
    name, { timeout });
  return readPanel(page, name);
}

/** What the panel of analysis `name` shows, as text. */
export function readPanel(page, name) {
  return readReport(page, `panel-${name}`);
}

/** What the element `id` shows of a report (a panel, or the Overview's #dashboard), as text. */
export function readReport(page, id) {
  return page.evaluate((id) => {
    const p = document.getElementById(id);
    const err = p.querySelector('.panel-error');
    return {
      visible: !p.hidden && p.offsetParent !== null,
      state: p.dataset.state,
      status: p.querySelector('.run-status')?.textContent ?? null,
      error: err.hidden ? null : err.textContent,
      notes: [...p.querySelectorAll('.notes li')].map((li) => li.textContent),
      files: [...p.querySelectorAll('[data-file]')].map((b) => b.dataset.file),
      options: Object.fromEntries([...p.querySelectorAll('[data-opt]')].map((i) => [i.dataset.opt, i.type === 'checkbox' ? String(i.checked) : i.value])),
      charts: [...p.querySelectorAll('.chart canvas')].map((c) => ({ id: c.id, drawn: c.dataset.drawn === '1' })),
      tables: [...p.querySelectorAll('table.report')].map((t) => {
        const view = t.closest('.table-view');
        const filter = view.querySelector('.stream-filter');
        return {
          name: t.dataset.table,
          columns: [...t.tHead.rows[0].cells].map((th) => th.dataset.col),
          sort: [...t.tHead.rows[0].cells].map((th) => th.getAttribute('aria-sort')),
          // the rows drawn: a long table draws those in view, the rows shown from `first` on
          rows: [...t.tBodies[0].rows].map((tr) => [...tr.cells].map((td) => td.textContent)),
          first: Number(t.tBodies[0].dataset.first ?? 0),
          count: view.querySelector('.rows').textContent,
          streams: filter ? [...filter.options].map((o) => o.value).filter(Boolean) : null,
        };
      }),
    };
  }, id);
}

/** Clicks `selector` and returns the download it starts: {name, bytes}. Chromium 156 drops the 11th of a
 * quick run of downloads from one page (measured: 10 then a miss, then fine again; none missed at 1.5 s
 * apart), so a click that starts none within 5 s is clicked again, twice at most. */
export async function download(page, selector) {
  for (let attempt = 1; ; attempt++) {
    try {
      const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 5_000 }), page.click(selector)]);
      return { name: dl.suggestedFilename(), bytes: readFileSync(await dl.path()) };
    } catch (e) {
      if (attempt === 3 || e.name !== 'TimeoutError') throw e;
    }
  }
}

/** A canvas' size and how many of its pixels are not background (white or transparent). */
export const canvasStats = (page, id) => page.evaluate((id) => {
  const c = document.getElementById(id);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let ink = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245)) ink++;
  return { ink, total: c.width * c.height };
}, id);

/** Opaque pixels of a canvas painted exactly in each of `colours` ([r, g, b] each, e.g. src/chart/draw.rs'
 * PALETTE): [{count, top, perRow}], `top` the smallest y of such a pixel (null: none), `perRow[y]` the
 * count in row y. Antialiased edges match no colour, so counts are of the filled insides. */
export const canvasColours = (page, id, colours) => page.evaluate(([id, colours]) => {
  const c = document.getElementById(id);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const out = colours.map(() => ({ count: 0, top: null, perRow: new Array(c.height).fill(0) }));
  for (let i = 0; i < d.length; i += 4) {
    const k = colours.findIndex(([r, g, b]) => d[i] === r && d[i + 1] === g && d[i + 2] === b && d[i + 3] === 255);
    if (k < 0) continue;
    const y = Math.floor(i / 4 / c.width);
    out[k].count++;
    out[k].perRow[y]++;
    if (out[k].top === null) out[k].top = y;
  }
  return out;
}, [id, colours]);

/** `test(name, fn)` for a test that reads the corpus. Without it the test is skipped, said on
 * stdout and logged to $KINETOSCOPE_SKIP_LOG (scripts/test.sh counts the skips); with
 * KINETOSCOPE_REQUIRE_CORPUS=1 (CI) it fails instead, so a run can never pass by skipping. */
export function corpusTest(name, fn) {
  if (hasCorpus) return test(name, fn);
  if (process.env.KINETOSCOPE_REQUIRE_CORPUS === '1') {
    return test(name, () => { throw new Error(`the corpus is required (KINETOSCOPE_REQUIRE_CORPUS=1) but ${shared} has no traces/ and hta-oracle/`); });
  }
  if (process.env.KINETOSCOPE_SKIP_LOG) appendFileSync(process.env.KINETOSCOPE_SKIP_LOG, `e2e ${name}\n`);
  return test(name, { skip: `no corpus at ${shared} (set KINETOSCOPE_SHARED)` }, fn);
}

/** What the Overview's dashboard (#dashboard, Rust's HTML) shows: its key figures, and per card its heading link and
 * its tables (header cells, body rows of cell texts, a full name from the title where the cell is cut), the ranks
 * card's stacked bars, the charts drawn in its slots. */
export function readDashboard(page) {
  return page.evaluate(() => {
    const box = document.getElementById('dashboard');
    const figures = [...box.querySelectorAll('.kpi')].map((k) => ({
      figure: k.dataset.figure, panel: k.dataset.panel ?? null, href: k.getAttribute('href'),
      value: k.querySelector('.kpi-value').firstChild.textContent, unit: k.querySelector('.kpi-value small')?.textContent.trim() ?? '',
      detail: k.querySelector('.kpi-detail').textContent,
    }));
    const cards = Object.fromEntries([...box.querySelectorAll('.card')].map((c) => {
      const a = c.querySelector('h3 a');
      const tables = [...c.querySelectorAll('table')].map((t) => ({
        name: t.dataset.table,
        head: [...t.querySelectorAll('thead th')].map((th) => th.textContent),
        rows: [...t.tBodies[0].rows].map((tr) => [...tr.cells].map((td) => td.getAttribute('title') && td.classList.contains('text') ? td.title : td.textContent)),
        bars: [...t.tBodies[0].rows].map((tr) => [...tr.querySelectorAll('.seg')].map((s) => [s.className.replace(/.*part-/, ''), s.style.width])),
        outliers: [...t.querySelectorAll('td.outlier')].map((td) => td.closest('tr').dataset.rank),
      }));
      const canvases = [...c.querySelectorAll('figure[data-slot] canvas')].map((cv) => ({ id: cv.id, drawn: cv.dataset.drawn === '1' }));
      return [c.dataset.card, { panel: a?.dataset.panel ?? null, title: (a ?? c.querySelector('h3')).textContent, tables, canvases, text: c.textContent }];
    }));
    return { state: box.dataset.state, visible: !box.closest('[hidden]') && box.offsetParent !== null, figures, cards };
  });
}
