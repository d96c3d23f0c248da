// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh) with
// real traces from ../shared, and every number the page shows is compared with the real CLI's
// `kinetoscope info --json` on the same files. Screenshots go to tests/e2e/out/ (CI artifact).
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import {
  Num, canvasInk, cliInfo, dist, expectedRows, grouped, hasKindsChart, launch, newPage, readPage, screenshot,
  serveDist, shared, waitDone,
} from './harness.js';

const traceFilter = path.join(shared, 'traces', 'hta', 'trace_filter');
const sampleName = JSON.parse(readFileSync(path.join(dist, 'sample', 'manifest.json'), 'utf8')).files[0];

let server, browser, tmp;
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

async function open(url = server.url) {
  const page = await newPage(browser);
  await page.goto(url);
  return page;
}

/** The page shows exactly the CLI's overview: summary, top-level fields, every rank row, the warnings. */
function assertShowsOverview(shown, overview) {
  const { events, ranks, warnings = [], ...rest } = overview;
  assert.equal(shown.error, null, `unexpected error box: ${shown.error}`);
  assert.ok(shown.overviewVisible, 'overview is visible');
  assert.ok(shown.summary.startsWith(`${grouped(events.src)} events`), `summary "${shown.summary}" starts with ${events.src} events`);
  assert.deepEqual(shown.extra, expectedRows(rest).fields, 'top-level fields');
  assert.equal(shown.ranks.length, ranks.length, 'one table per rank');
  ranks.forEach((rank, i) => {
    const want = expectedRows(rank);
    assert.equal(shown.ranks[i].rank, rank.rank instanceof Num ? rank.rank.src : String(rank.rank ?? i));
    assert.deepEqual(shown.ranks[i].kinds, want.kinds, `rank ${i} kinds`);
    assert.deepEqual(shown.ranks[i].fields, want.fields, `rank ${i} fields`);
  });
  assert.deepEqual(shown.warnings.map((w) => [w.kind, w.count]), warnings.map((w) => [w.kind, w.count?.src]), 'warnings');
  assert.equal(shown.warningsVisible, warnings.length > 0, 'warnings box visible iff there are warnings');
}

async function assertChart(page) {
  if (!hasKindsChart()) return; // src/web.rs does not export draw_kinds_chart yet
  await page.waitForFunction(() => document.getElementById('chart-kinds').dataset.drawn === '1');
  assert.ok(await canvasInk(page, 'chart-kinds') > 2000, 'kinds chart has drawn pixels');
}

async function assertResponsive(page) {
  const answer = await Promise.race([page.evaluate(() => 1), new Promise((ok) => setTimeout(ok, 5000, 'timeout'))]);
  assert.equal(answer, 1, 'page answers page.evaluate within 5 s');
}

const assertClean = (page) => assert.deepEqual(page.problems, [], 'no page errors or console errors');

test('(a) dropping a .json.gz shows the same overview as the CLI', async () => {
  const name = 'sampled_rank-0.json.gz';
  const want = cliInfo(traceFilter, name);
  assert.equal(want.status, 0, want.stderr);
  const page = await open();
  const b64 = readFileSync(path.join(traceFilter, name)).toString('base64');
  const dt = await page.evaluateHandle(([b64, name]) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name));
    return dt;
  }, [b64, name]);
  await page.dispatchEvent('#drop', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('#drop', 'drop', { dataTransfer: dt });
  const shown = await waitDone(page);
  assertShowsOverview(shown, want.json);
  assert.ok(Number(shown.ranks[0].kinds.kernel.replace(/,/g, '')) > 0, 'kernels counted');
  await assertChart(page);
  await screenshot(page, 'a-drop-gz');
  assertClean(page);
  await page.close();
});

test('(b) picking a folder of 2 ranks shows both ranks as the CLI does', async () => {
  const names = ['sampled_rank-0.json.gz', 'sampled_rank-1.json.gz'];
  const want = cliInfo(traceFilter, ...names);
  assert.equal(want.status, 0, want.stderr);
  assert.equal(want.json.ranks.length, 2);
  const page = await open();
  await page.setInputFiles('#folder', traceFilter); // webkitdirectory input: the whole folder
  assertShowsOverview(await waitDone(page), want.json);
  await screenshot(page, 'b-folder-2-ranks');

  // the same two files through the multi-file picker give the same page
  await page.setInputFiles('#file', names.map((n) => path.join(traceFilter, n)));
  assertShowsOverview(await waitDone(page), want.json);
  await assertChart(page);
  assertClean(page);
  await page.close();
});

test('(c) "Load sample" shows the bundled sample, equal to the CLI', async () => {
  const want = cliInfo(path.join(dist, 'sample'), sampleName);
  assert.equal(want.status, 0, want.stderr);
  assert.notEqual(want.json.events.src, '0', 'sample has events');
  const page = await open();
  await page.click('#load-sample');
  assertShowsOverview(await waitDone(page), want.json);
  assert.match(page.url(), /#sample=1$/, 'URL hash records the sample');
  await assertChart(page);
  await screenshot(page, 'c-sample');

  // the hash is a link that loads the sample on open
  const again = await open(`${server.url}#sample=1`);
  assertShowsOverview(await waitDone(again), want.json);
  assertClean(page);
  assertClean(again);
  await page.close();
  await again.close();
});

test('(d) corrupt input shows an error or warning and the page stays usable', async () => {
  const gz = path.join(tmp, 'garbage.json.gz');
  writeFileSync(gz, Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03]), Buffer.from('this is not deflate data '.repeat(40))]));
  const truncated = path.join(tmp, 'truncated.json');
  writeFileSync(truncated, '{"traceEvents": [ {"ph":"X"');
  const page = await open();
  for (const file of [gz, truncated]) {
    const want = cliInfo(tmp, path.basename(file));
    await page.setInputFiles('#file', file);
    const shown = await waitDone(page);
    if (want.status !== 0) {
      assert.ok(shown.error, `${path.basename(file)}: CLI failed (${want.stderr.trim()}), page shows an error`);
      assert.ok(shown.error.includes(path.basename(file)), `error names the file: ${shown.error}`);
      assert.equal(shown.overviewVisible, false);
    } else {
      assert.ok(want.json.warnings?.length > 0, `${path.basename(file)}: CLI accepted it, so it must warn`);
      assertShowsOverview(shown, want.json);
    }
    await screenshot(page, `d-corrupt-${path.basename(file).replace(/\W+/g, '-')}`);
    await assertResponsive(page);
  }
  // still usable afterwards
  await page.click('#load-sample');
  const shown = await waitDone(page);
  assert.equal(shown.error, null);
  assert.ok(shown.overviewVisible);
  await page.close();
});

test('(e) the single-file build works from file:// including the sample', async () => {
  const want = cliInfo(path.join(dist, 'sample'), sampleName);
  assert.equal(want.status, 0, want.stderr);
  const page = await open(pathToFileURL(path.join(dist, 'kinetoscope.html')).href);
  await page.click('#load-sample');
  assertShowsOverview(await waitDone(page), want.json);
  await assertChart(page);
  await screenshot(page, 'e-single-file');

  // a real file through the picker, too (classic Blob worker + posted WebAssembly.Module)
  const name = 'sampled_rank-1.json.gz';
  await page.setInputFiles('#file', path.join(traceFilter, name));
  assertShowsOverview(await waitDone(page), cliInfo(traceFilter, name).json);
  assertClean(page);
  await page.close();
});

test('(f) Cancel stops a large parse and the page recovers', async () => {
  const big = path.join(tmp, 'big.json');
  await writeBigTrace(path.join(traceFilter, 'sampled_rank-0.json.gz'), big, 60e6);
  const page = await open();
  await page.setInputFiles('#file', big);
  await page.click('#cancel');
  const shown = await waitDone(page);
  assert.match(shown.status, /Cancelled/);
  assert.equal(shown.error, null);
  assert.equal(shown.overviewVisible, false, 'no overview from a cancelled parse');
  assert.ok(await page.isEnabled('#load-sample'), 'inputs enabled again');
  await assertResponsive(page);
  await screenshot(page, 'f-cancelled');

  // a fresh worker serves the next parse: the same file to the end, equal to the CLI; the page
  // answers while the worker parses
  const want = cliInfo(tmp, path.basename(big));
  assert.equal(want.status, 0, want.stderr);
  await page.setInputFiles('#file', big);
  await page.waitForFunction(() => document.getElementById('progress').value > 0);
  await assertResponsive(page);
  await screenshot(page, 'f-progress');
  assertShowsOverview(await waitDone(page), want.json);
  assertClean(page);
  await page.close();
});

/** Writes a valid Kineto trace of at least `bytes` by repeating the events of `source` (a .json.gz). */
async function writeBigTrace(source, out, bytes) {
  const doc = JSON.parse(gunzipSync(readFileSync(source)).toString('utf8'));
  const { traceEvents, ...header } = doc;
  const events = traceEvents.map((e) => JSON.stringify(e)).join(',\n');
  const h = JSON.stringify(header);
  const head = `${h === '{}' ? '{' : `${h.slice(0, -1)},`}\n"traceEvents": [\n`;
  const stream = createWriteStream(out);
  let written = 0;
  const write = (s) => new Promise((ok) => { written += s.length; stream.write(s) ? ok() : stream.once('drain', ok); });
  await write(head);
  for (let first = true; written < bytes; first = false) await write((first ? '' : ',\n') + events);
  await write('\n]}\n');
  await new Promise((ok, fail) => stream.end((e) => (e ? fail(e) : ok())));
}
