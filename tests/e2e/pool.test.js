// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh).
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: the files of a drop spread over the parse helpers (?helpers=N).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
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
