// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh); every
// number a panel shows is compared with the real CLI's `kinetoscope <analysis> --json` on the same files.
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: a rocprofv3 run (testdata/rocprof/v3: two processes, kernel, copy and HIP API tables) picked
// as a folder, and the AMD panels (rocprof stats.csv, transfers, patterns) with what rocprof input lacks.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { cliAnalysis, cliRun, download, openTab, repoRoot, screenshot, waitDone } from './harness.js';
import { assertChartsDrawn, assertClean, assertPanelShows, open, setUp } from './setup.js';

setUp();

test('(ab) a rocprofv3 folder: the rocprof stats, transfers and patterns panels show the CLI\'s tables; stats.csv downloads as the CLI prints it; HTA panels say what rocprof lacks', async () => {
  const dir = path.join(repoRoot, 'testdata', 'rocprof');
  const page = await open();
  await page.setInputFiles('#folder', path.join(dir, 'v3'));
  await waitDone(page);
  for (const name of ['rocprof_stats', 'transfers', 'patterns', 'launch']) {
    const want = cliAnalysis(dir, name, ['v3']);
    assert.equal(want.status, 0, `${name}: ${want.stderr}`);
    const panel = await openTab(page, name);
    assertPanelShows(panel, want.json, `${name} (rocprofv3)`);
    await assertChartsDrawn(page, panel, name);
    await screenshot(page, `ab-rocprof-${name}`);
  }
  // the Kernels group holds the stats, Memory the transfers, GPU time the patterns
  const groupOf = (tab) => page.$eval(`#tabs [data-tab="${tab}"]`, (b) => b.closest('.tab-group').dataset.group);
  assert.deepEqual(await Promise.all(['rocprof_stats', 'transfers', 'patterns'].map(groupOf)), ['Kernels', 'Memory', 'GPU time']);
  // the launch panel on a process without HIP calls names the missing trace option, as the CLI does
  const launch = cliAnalysis(dir, 'launch', ['v3']);
  assert.ok(launch.json.notes.some((n) => n.startsWith('rocprof input (rank 1): no HIP API calls')), launch.json.notes.join('\n'));
  // the stats table's CSV download is rocprof's stats.csv, as `--csv --table stats` prints it
  await openTab(page, 'rocprof_stats');
  const csv = await download(page, '#panel-rocprof_stats [data-csv="stats"]');
  const cli = cliRun(dir, ['rocprof_stats', 'v3', '--csv', '--table', 'stats']);
  assert.equal(csv.bytes.toString('utf8'), cli.stdout);
  assert.equal(csv.name, 'stats.csv');
  assertClean(page);
  await page.close();
});
