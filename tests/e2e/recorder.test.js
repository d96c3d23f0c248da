// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh); every
// number a panel shows is compared with the real CLI's `kinetoscope <analysis> --json` on the same files.
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: a Recorder trace folder (testdata/recorder/gen-4ranks: 4 ranks, made by
// scripts/bench/gen_recorder.py, with a write conflict between ranks 1 and 2) picked as a folder: the Overview's
// I/O figures and timeline, and the I/O report panel against `kinetoscope io`.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { canvasColours, cliAnalysis, cliInfo, openTab, readDashboard, repoRoot, screenshot, waitDone } from './harness.js';
import { assertChartsDrawn, assertClean, assertPanelShows, open, PALETTE, setUp } from './setup.js';

setUp();

test('(ac) a Recorder folder: the Overview says the I/O at a glance and the I/O report panel shows the CLI\'s tables and charts', async () => {
  const dir = path.join(repoRoot, 'testdata', 'recorder');
  const info = cliInfo(dir, 'gen-4ranks');
  assert.equal(info.status, 0, info.stderr);
  const page = await open();
  // the folder holds README.md and recorder2text's _text/ beside the trace: both are left out, as the CLI does
  await page.setInputFiles('#folder', path.join(dir, 'gen-4ranks'));
  const shown = await waitDone(page);
  assert.equal(shown.error, null, `no error box: ${shown.error}`);
  assert.equal(shown.ranks.length, 4, 'one rank per Recorder rank');
  assert.equal(shown.summary.split(' ')[0], info.json.events.src.replace(/\B(?=(\d{3})+(?!\d))/g, ','), 'events as the CLI counts them');

  // the Overview: the I/O key figures link to the I/O panel, and its timeline and busiest files
  const summary = cliAnalysis(dir, 'summary', ['gen-4ranks']);
  assert.equal(summary.status, 0, summary.stderr);
  const dash = await readDashboard(page);
  const figures = summary.json.tables.headline;
  assert.deepEqual(dash.figures.map((f) => f.figure), figures.map((f) => f.figure), 'the key figures are the CLI\'s');
  assert.deepEqual(dash.figures.map((f) => f.figure), ['Time in I/O calls', 'Bytes written', 'Conflicting accesses']);
  assert.deepEqual(dash.figures.map((f) => f.value), figures.map((f) => f.value.src.replace(/\.0$/, '')), 'figure values');
  assert.ok(dash.figures.every((f) => f.panel === 'io'), 'each figure opens the I/O panel');
  assert.deepEqual(Object.keys(dash.cards), ['io-timeline', 'io-files'], 'a Recorder trace shows I/O cards, no empty GPU cards');
  assert.ok(dash.cards['io-timeline'].canvases[0]?.drawn, 'the timeline is drawn');
  const files = dash.cards['io-files'].tables[0];
  assert.deepEqual(files.rows.map((r) => r[0]), summary.json.tables.io_files.map((f) => f.file), 'busiest files in the CLI\'s order');
  await screenshot(page, 'ac-recorder-overview');

  // the I/O report panel equals `kinetoscope io --json`; its conflicts are the generator's
  const want = cliAnalysis(dir, 'io', ['gen-4ranks']);
  assert.equal(want.status, 0, want.stderr);
  const panel = await openTab(page, 'io');
  assertPanelShows(panel, want.json, 'io (Recorder)');
  await assertChartsDrawn(page, panel, 'io');
  assert.deepEqual(want.json.tables.conflicts.map((c) => [c.kind, c.first_rank.src, c.second_rank.src]), [['WAW', '1', '2'], ['WAW', '2', '1']]);
  // the timeline (the first chart) paints writes (colour 1) and POSIX metadata (colour 2) in every rank's lane
  const [, writes, metadata] = await canvasColours(page, panel.charts[0].id, PALETTE.slice(0, 3));
  assert.ok(writes.count > 200 && metadata.count > 200, `writes ${writes.count} and metadata ${metadata.count} pixels drawn`);
  const groupOf = await page.$eval('#tabs [data-tab="io"]', (b) => b.closest('.tab-group').dataset.group);
  assert.equal(groupOf, 'I/O');
  await screenshot(page, 'ac-recorder-io');
  assertClean(page);
  await page.close();
});
