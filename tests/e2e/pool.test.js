// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh).
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: the files of a drop spread over the parse helpers (?helpers=N), and the refusal before reading of
// a drop that would not fit in the page's memory (?memory-limit=SIZE lowers the limit for the test).
import assert from 'node:assert/strict';
import { closeSync, copyFileSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cliInfo, grouped, readPage, repoRoot, screenshot, waitDone } from './harness.js';
import { assertClean, open, server, setUp, tmp } from './setup.js';

setUp();

const testdata = path.join(repoRoot, 'testdata');

/** What the page shows once the Overview is drawn: the overview, the error box, the dashboard's text, the stats. */
async function readAll(page) {
  const shown = await waitDone(page);
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('dashboard').dataset.state), null, { timeout: 60_000 });
  const dashboard = await page.evaluate(() => document.querySelector('#dashboard .dash-body').textContent);
  const stats = await page.evaluate(() => window.__kinetoscopeStats);
  const { status, ...rest } = shown; // the status line says how long it took
  assert.match(status, /^Read \d+ files in \d+ ms\.$/);
  return { shown: rest, dashboard, stats };
}

test('(ae) the ranks of a folder are parsed on every helper, and the page shows what one worker shows (and the CLI)', async () => {
  // five trace files (one gzip, one with warnings) and two that are not traces, one first and one in the middle
  const dir = path.join(tmp, 'run');
  mkdirSync(dir);
  const files = [['diff/ranks/rank0.json', 'rank0.json'], ['diff/ranks/rank1.json', 'rank1.json'], ['diff/ranks/rank2.json', 'rank2.json'],
    ['kineto/two-members.json.gz', 'rank3.json.gz'], ['kineto/bad/truncated-tail.json', 'rank4.json']];
  for (const [from, to] of files) copyFileSync(path.join(testdata, from), path.join(dir, to));
  writeFileSync(path.join(dir, 'a-broken.json'), 'this is not a trace\n');
  writeFileSync(path.join(dir, 'rank2-broken.json'), '{"traceEvents": 7}\n');
  const good = files.map(([, to]) => to);
  const want = cliInfo(dir, ...good);
  assert.equal(want.status, 0, want.stderr);
  const errors = ['a-broken.json', 'rank2-broken.json'].map((name) => cliInfo(dir, name).stderr.trim().replace(/^kinetoscope: /, ''));

  const seen = {};
  for (const helpers of [0, 1, 2]) {
    const page = await open(`${server.url}?helpers=${helpers}`);
    await page.setInputFiles('#folder', dir);
    const { shown, dashboard, stats } = await readAll(page);
    assert.equal(stats.helpers, helpers, `?helpers=${helpers}: that many helpers`);
    assert.equal(stats.wholeFiles, helpers ? 7 : 0, `?helpers=${helpers}: every file a whole-file job (none without helpers)`);
    // the CLI's overview of the good files, and the bad ones named in file order with the CLI's errors
    assert.ok(shown.summary.startsWith(`${grouped(want.json.events.src)} events · 5 ranks · 5 files`), shown.summary);
    assert.deepEqual(shown.ranks.map((r) => r.rank), want.json.ranks.map((r) => r.rank.src));
    assert.deepEqual(shown.warnings.map((w) => [w.kind, w.count]), want.json.warnings.map((w) => [w.kind, w.count?.src]));
    assert.ok(shown.warnings.length > 0, 'a warning is shown');
    assert.equal(shown.error, `2 of 7 files could not be read and are left out:\n${errors.join('\n')}`);
    seen[helpers] = { shown, dashboard };
    await screenshot(page, `ae-helpers-${helpers}`);
    assertClean(page);
    await page.close();
  }
  assert.deepEqual(seen[1], seen[0], 'one helper shows what the reading worker alone shows');
  assert.deepEqual(seen[2], seen[0], 'two helpers show what the reading worker alone shows');
});

/** A sparse file of `size` bytes whose first bytes are `head` and last bytes `tail` (nothing else written). */
function sparse(file, size, head = [], tail = []) {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, Buffer.from(tail), 0, tail.length, size - tail.length);
    if (head.length) writeSync(fd, Buffer.from(head), 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
}
const le32 = (n) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];

test('(af) a drop that would not fit in memory is refused before it is read, with its sizes, the limit and what to do', async () => {
  // under the real 4 GiB: eight gzip files whose trailers say they inflate to 3.5 GiB each (sparse: 4 MiB on paper)
  const dir = path.join(tmp, 'huge');
  mkdirSync(dir);
  for (let i = 0; i < 8; i++) sparse(path.join(dir, `rank${i}.json.gz`), 4 << 20, [0x1f, 0x8b, 8], le32(7 * 2 ** 29));
  const page = await open();
  await page.setInputFiles('#folder', dir);
  let shown = await waitDone(page);
  assert.match(shown.error, /^Not opened: these 8 files \(32 MiB, at least 28 GiB once inflated\) would need about [\d.]+ GiB of memory in this page, more than the 4 GiB a browser lets a page's WebAssembly memory grow to\. Nothing was read\. /);
  assert.match(shown.error, /Read them with the command line instead, which has no such limit: kinetoscope analyze DIR --out OUT \(or kinetoscope info, summary, … on the files\)\. Even one of these files is too large for the page\.$/);
  assert.equal(shown.overviewVisible, false);
  assert.equal(await page.evaluate(() => document.getElementById('progress').value), 0, 'no progress: nothing was read');
  assert.equal(await page.evaluate(() => window.__kinetoscopeStats), undefined, 'no trace was read');
  await screenshot(page, 'af-refused');

  // the page still opens what fits
  await page.setInputFiles('#file', path.join(testdata, 'diff', 'ranks', 'rank0.json'));
  shown = await waitDone(page);
  assert.equal(shown.error, null);
  assert.ok(shown.overviewVisible);
  assertClean(page);
  await page.close();

  // a lower limit (?memory-limit=, for tests): a plain file of 300 MiB and a gzip one, counted at their sizes
  const low = path.join(tmp, 'low');
  mkdirSync(low);
  sparse(path.join(low, 'big.json'), 300 << 20, [0x7b, 0x0a], [0x7d, 0x0a]);
  sparse(path.join(low, 'small.json.gz'), 10 << 20, [0x1f, 0x8b, 8], le32(1 << 30));
  const limited = await open(`${server.url}?memory-limit=100M`);
  await limited.setInputFiles('#folder', low);
  shown = await waitDone(limited);
  assert.match(shown.error, /^Not opened: these 2 files \(310 MiB, at least 1\.3 GiB once inflated\) would need about [\d.]+ [MG]iB of memory in this page, more than the 100 MiB limit set by \?memory-limit\. Nothing was read\./);
  assert.equal(await limited.evaluate(() => document.getElementById('progress').value), 0, 'no progress: nothing was read');
  // a limit that is not a size is said so
  const bad = await open(`${server.url}?memory-limit=lots`);
  await bad.setInputFiles('#file', path.join(testdata, 'diff', 'ranks', 'rank0.json'));
  shown = await waitDone(bad);
  assert.equal(shown.error, '?memory-limit=lots: expected a size such as 64M, 1.5G or 1000000 (bytes)');
  await limited.close();
  await bad.close();
});

test('(ag) the next standby worker is started only once the Overview is shown, not while its dashboard is made', async () => {
  // Starting a standby worker (its wasm instance and helpers) took a core from the dashboard of a large trace. Here
  // the dashboard's request is held back 4.5 s, longer than the page's 2 s between checks for starting the next one.
  const page = await open();
  await page.waitForSelector('body[data-standby="ready"]'); // the first standby takes the file
  await page.evaluate(() => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg, ...rest) {
      if (msg?.type === 'dashboard') return void setTimeout(() => post.call(this, msg, ...rest), 4500);
      return post.call(this, msg, ...rest);
    };
    const RealWorker = window.Worker;
    window.__started = []; // when the page started a worker, and what the dashboard's state was then
    window.Worker = class extends RealWorker {
      constructor(...args) {
        super(...args);
        window.__started.push({ at: performance.now(), dashboard: document.getElementById('dashboard').dataset.state });
      }
    };
  });
  await page.setInputFiles('#file', path.join(testdata, 'diff', 'ranks', 'rank0.json'));
  await waitDone(page);
  await page.waitForFunction(() => document.getElementById('dashboard').dataset.state === 'done', null, { timeout: 60_000 });
  assert.deepEqual(await page.evaluate(() => window.__started), [], 'no worker started while the dashboard was made');
  // then the next standby is prepared
  await page.waitForSelector('body[data-standby="ready"]', { timeout: 30_000 });
  const started = await page.evaluate(() => window.__started);
  assert.equal(started.length, 1, 'one standby worker started after the Overview');
  assert.equal(started[0].dashboard, 'done');
  assertClean(page);
  await page.close();
});
