// The setup and the checks the browser test files share (load, panels, decode, diff .test.js): the fixture each
// file starts (setUp: server, browser, temp dir), opening a page, dropping a file on it, and the assertions that
// a page or a panel shows what the CLI shows.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { canvasStats, dist, expectedCells, grouped, launch, newPage, serveDist, shared } from './harness.js';

/** Where the bundled sample's and HTA's trace_filter traces are (the sample is dist/'s, named by its manifest). */
export const traceFilter = path.join(shared, 'traces', 'hta', 'trace_filter');
export const sampleName = JSON.parse(readFileSync(path.join(dist, 'sample', 'manifest.json'), 'utf8')).files[0];

/** Set by setUp's before(): this file's static server over dist/, its Chromium, its temp dir. */
export let server, browser, tmp;

/** The fixture of a test file, called once at its top: before its tests a server over dist/ on a free port, a
 * headless Chromium and a fresh temp dir; after them all three closed and the temp dir removed. node --test runs
 * each file in a process of its own, so files running at once share nothing but tests/e2e/out/ (screenshots,
 * named by test). */
export function setUp() {
  before(async () => {
    server = await serveDist();
    browser = await launch();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'kinetoscope-e2e-'));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });
}

/** A new page (console errors recorded, see harness.js newPage) at `url`, by default the served dist/index.html;
 * `options` are Playwright's context options. */
export async function open(url = server.url, options = {}) {
  const page = await newPage(browser, options);
  await page.goto(url);
  return page;
}

/** No page errors or console errors were recorded (harness.js newPage). */
export const assertClean = (page) => assert.deepEqual(page.problems, [], 'no page errors or console errors');

/** Drops `file` on the page as a browser would (a DataTransfer with one File). */
export async function dropFile(page, file) {
  const dt = await page.evaluateHandle(([b64, name]) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name));
    return dt;
  }, [readFileSync(file).toString('base64'), path.basename(file)]);
  await page.dispatchEvent('#drop', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('#drop', 'drop', { dataTransfer: dt });
}

/** The panel shows the CLI's run: every table (first rows, exact text), its row count, the notes. */
export function assertPanelShows(panel, json, what = 'panel') {
  assert.equal(panel.error, null, `${what}: unexpected error: ${panel.error}`);
  assert.equal(panel.state, 'done', `${what}: panel state`);
  assert.deepEqual(panel.notes, json.notes, `${what}: notes`);
  assert.deepEqual(panel.tables.map((t) => t.name).sort(), Object.keys(json.tables).sort(), `${what}: table names`);
  for (const t of panel.tables) {
    const rows = json.tables[t.name];
    if (rows.length) assert.deepEqual([...t.columns].sort(), Object.keys(rows[0]).sort(), `${what} ${t.name}: columns`);
    assert.equal(t.count, `${grouped(rows.length)} row${rows.length === 1 ? '' : 's'}`, `${what} ${t.name}: row count`);
    assertDrawn(t, rows, `${what} ${t.name}`);
  }
}

/** Rows a table draws all of (www/report.js ALL_ROWS); a longer one draws the rows in view. */
export const ALL_ROWS = 200;

/** The rows table `t` (readReport) draws are `rows` (the CLI's, in the order shown) from the top: all of them
 * in a short table, else at least a screenful of the first ones. */
export function assertDrawn(t, rows, what) {
  assert.equal(t.first, 0, `${what}: drawn from the first row`);
  if (rows.length <= ALL_ROWS) assert.equal(t.rows.length, rows.length, `${what}: every row drawn`);
  else assert.ok(t.rows.length >= 20 && t.rows.length < 300, `${what}: the rows in view drawn (${t.rows.length})`);
  assert.deepEqual(t.rows, expectedCells(rows.slice(0, t.rows.length), t.columns), `${what}: cells`);
}

/** Every chart canvas of the panel was drawn and has ink on a background. */
export async function assertChartsDrawn(page, panel, what = '') {
  for (const c of panel.charts) {
    assert.ok(c.drawn, `${what}: chart ${c.id} drawn`);
    const { ink, total } = await canvasStats(page, c.id);
    assert.ok(ink > 100 && ink < total, `${what}: chart ${c.id} has drawn pixels (${ink} of ${total})`);
  }
}

// src/chart/draw.rs: PALETTE (series k has colour k; waterfall bars 0, bubbles 2)
export const PALETTE = [[78, 121, 167], [242, 142, 43], [225, 87, 89], [118, 183, 178]];
