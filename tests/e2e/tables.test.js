// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh); the rows a
// table shows are compared with the real CLI's `kinetoscope gpu_ops --json` on the same file.
// This file: result tables (www/report.js) — a table of 100,000 rows drawn where it is scrolled to, the text filter,
// sorting, units under the names, Copy CSV and Copy Markdown. Shared setup and checks: setup.js and harness.js.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cellText, cliAnalysis, cliRun, expectedCells, openTab, readPanel, screenshot, waitDone } from './harness.js';
import { assertClean, assertDrawn, open, setUp, tmp } from './setup.js';

setUp();

// 100,000 kernels k0…k99999 on one stream, 10 µs apart, of 1–9 µs (not in start order, so sorting by duration
// reorders them): the GPU ops tab has one row per kernel
const KERNELS = 100_000;
const traceName = 'kernels-100k.json';
let want, csv;
/** Writes the trace into tmp and runs the CLI on it, once (tmp is setUp's, made in its before()). */
function writeKernels() {
  if (want) return;
  const events = Array.from({ length: KERNELS }, (_, i) => JSON.stringify({
    ph: 'X', cat: 'kernel', name: `k${i}`, pid: 0, tid: 7, ts: i * 10, dur: 1 + ((i * 7919) % 9),
    args: { stream: 7, correlation: i, device: 0 },
  }));
  writeFileSync(path.join(tmp, traceName), `{"traceEvents": [\n${events.join(',\n')}\n]}\n`);
  const r = cliAnalysis(tmp, 'gpu_ops', [traceName]);
  assert.equal(r.status, 0, r.stderr);
  want = r.json.tables.extract;
  assert.equal(want.length, KERNELS);
  csv = cliRun(tmp, ['gpu_ops', '--csv', traceName]).stdout;
}

const sel = '#panel-gpu_ops .table-view[data-table="extract"]';
const table = async (page) => (await readPanel(page, 'gpu_ops')).tables[0];

/** A page (with `options`, Playwright's context options) showing the GPU ops tab of the 100,000 kernels. */
async function openKernels(options) {
  writeKernels();
  const page = await open(undefined, options);
  await page.setInputFiles('#file', path.join(tmp, traceName));
  const shown = await waitDone(page);
  assert.equal(shown.error, null);
  await openTab(page, 'gpu_ops', 120_000);
  return page;
}

/** Scrolls the table to `top` (px; Infinity: the bottom) and waits until it has drawn the rows there. */
async function scrollTo(page, top) {
  await page.$eval(`${sel} .scroll`, (s, top) => { s.scrollTop = Math.min(top, s.scrollHeight); }, top);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))); // drawn in the next frame
}

/** The rows drawn are the rows shown (`rows`, the CLI's in the order shown) from the tbody's data-first on. */
const assertWindow = (t, rows, what) =>
  assert.deepEqual(t.rows, expectedCells(rows.slice(t.first, t.first + t.rows.length), t.columns), `${what}: rows drawn`);

test('(r) a table of 100,000 rows draws only the rows in view, scrolls to its last row, and keeps its column widths', async () => {
  const page = await openKernels();
  let t = await table(page);
  assert.equal(t.count, '100,000 rows');
  assert.deepEqual(t.columns, ['kernel_name', 'start_time_us', 'end_time_us', 'duration_us']);
  assertDrawn(t, want, 'on load');
  assert.ok(t.rows.length < 300, `${t.rows.length} rows in the DOM`);
  const widths = () => page.$$eval(`${sel} th`, (ths) => ths.map((th) => th.getBoundingClientRect().width));
  const before = await widths();

  // the middle, then the bottom: the rows there, exactly; the header and its widths unchanged
  await scrollTo(page, 1_000_000);
  t = await table(page);
  assert.ok(t.first > 1000 && t.rows.length < 300, `the middle drawn (from row ${t.first}, ${t.rows.length} rows)`);
  assertWindow(t, want, 'middle');
  await scrollTo(page, Infinity);
  t = await table(page);
  assert.equal(t.first + t.rows.length, KERNELS, 'the last row drawn');
  assert.deepEqual(t.rows.at(-1), expectedCells([want.at(-1)], t.columns)[0]);
  assertWindow(t, want, 'bottom');
  assert.deepEqual(await widths(), before, 'column widths do not change while scrolling');
  // the last row is on screen, under the sticky header
  const seen = await page.$eval(`${sel} .scroll`, (s) => {
    const box = s.getBoundingClientRect(), last = s.querySelector('tbody tr:last-child').getBoundingClientRect();
    const head = s.querySelector('th').getBoundingClientRect();
    return { last: last.bottom <= box.bottom + 1 && last.top >= box.top, head: Math.abs(head.top - box.top) < 2 };
  });
  assert.deepEqual(seen, { last: true, head: true }, 'the last row in view, the header stuck at the top');
  await screenshot(page, 'r-100k-bottom');
  assertClean(page);
  await page.close();
});

test('(s) the text filter and the sort work on all 100,000 rows, together, with aria-sort', async () => {
  const page = await openKernels();
  // k123, k1230…k1239, k12300…k12399
  const match = want.filter((r) => r.kernel_name.includes('k123'));
  assert.equal(match.length, 111);
  await page.fill(`${sel} .table-filter`, 'K123'); // case does not matter
  await page.waitForFunction((sel) => document.querySelector(`${sel} .rows`).textContent === '111 of 100,000 rows', sel);
  let t = await table(page);
  assertDrawn(t, match, 'filtered');

  // sorted by duration (stable: ties in the table's order), both ways, then the table's order again
  const th = `${sel} th[data-col="duration_us"]`;
  const byDuration = (rows, dir) => [...rows].sort((a, b) => dir * (Number(a.duration_us.src) - Number(b.duration_us.src)));
  await page.click(th);
  t = await table(page);
  assertDrawn(t, byDuration(match, 1), 'filtered, ascending');
  assert.deepEqual(t.sort, ['none', 'none', 'none', 'ascending']);
  await page.fill(`${sel} .table-filter`, '');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .rows`).textContent === '100,000 rows', sel);
  t = await table(page);
  assertDrawn(t, byDuration(want, 1), 'unfiltered, still ascending');
  await page.focus(th);
  await page.keyboard.press('Enter'); // the keyboard sorts as a click does
  t = await table(page);
  assert.deepEqual(t.sort, ['none', 'none', 'none', 'descending']);
  const down = byDuration(want, -1);
  assertDrawn(t, down, 'descending');
  await scrollTo(page, Infinity);
  t = await table(page);
  assert.equal(t.first + t.rows.length, KERNELS);
  assertWindow(t, down, 'descending, at the bottom');
  await page.keyboard.press(' ');
  t = await table(page);
  assert.deepEqual(t.sort, ['none', 'none', 'none', 'none']);
  assertDrawn(t, want, 'the table\'s order again, from the top');

  // no row matches: none drawn, the count says so
  await page.fill(`${sel} .table-filter`, 'no such kernel');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .rows`).textContent === '0 of 100,000 rows', sel);
  assert.deepEqual((await table(page)).rows, []);
  assertClean(page);
  await page.close();
});

test('(t) Copy Markdown copies the rows shown as a GitHub table, Copy CSV the CLI\'s CSV, also without the Clipboard API', async () => {
  const page = await openKernels({ permissions: ['clipboard-read', 'clipboard-write'] });
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
  const status = () => page.$eval(`${sel} .copy-status`, (s) => s.textContent);
  // the units: *_us says µs already, so no second line; the names stay the th's text and data-col
  assert.deepEqual(await page.$$eval(`${sel} th`, (ths) => ths.map((th) => [th.dataset.col, th.querySelector('.unit')?.textContent ?? null])),
    [['kernel_name', null], ['start_time_us', null], ['end_time_us', null], ['duration_us', null]]);

  await page.fill(`${sel} .table-filter`, 'k123');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .rows`).textContent === '111 of 100,000 rows', sel);
  await page.click(`${sel} th[data-col="start_time_us"]`);
  await page.click(`${sel} th[data-col="start_time_us"]`); // descending
  await page.click(`${sel} [data-copy="markdown"]`);
  await page.waitForFunction((sel) => document.querySelector(`${sel} .copy-status`).textContent === 'Copied', sel);
  const shown = want.filter((r) => r.kernel_name.includes('k123')).reverse();
  const columns = ['kernel_name', 'start_time_us', 'end_time_us', 'duration_us'];
  const md = await clipboard();
  assert.deepEqual(md.split('\n'), [
    '| kernel_name | start_time_us | end_time_us | duration_us |',
    '|---|---:|---:|---:|',
    ...shown.map((r) => `| ${columns.map((c) => cellText(r[c])).join(' | ')} |`),
    '',
  ], 'the header, the rule and every row shown, in the order shown, numbers as the page shows them');

  await page.$eval(`${sel} .copy-status`, (s) => { s.textContent = ''; });
  await page.click(`${sel} [data-copy="csv"]`);
  await page.waitForFunction((sel) => document.querySelector(`${sel} .copy-status`).textContent !== '', sel);
  assert.equal(await clipboard(), csv, 'Copy CSV: the CLI\'s --csv, all 100,000 rows, whatever the filter');
  assert.equal(await status(), 'Copied');

  // refused by the Clipboard API (as on file://): the textarea and execCommand('copy') copy it instead
  await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException('refused', 'NotAllowedError')); });
  await page.fill(`${sel} .table-filter`, 'k99999');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .rows`).textContent === '1 of 100,000 rows', sel);
  await page.$eval(`${sel} .copy-status`, (s) => { s.textContent = ''; });
  await page.click(`${sel} [data-copy="markdown"]`);
  await page.waitForFunction((sel) => document.querySelector(`${sel} .copy-status`).textContent !== '', sel);
  assert.equal(await status(), 'Copied');
  const last = want.at(-1);
  assert.equal(await clipboard(), `| kernel_name | start_time_us | end_time_us | duration_us |\n|---|---:|---:|---:|\n| ${columns.map((c) => cellText(last[c])).join(' | ')} |\n`);
  assert.equal(await page.$$eval('textarea.copy-buffer', (a) => a.length), 0, 'the fallback textarea is gone');
  assertClean(page);
  await page.close();
});
