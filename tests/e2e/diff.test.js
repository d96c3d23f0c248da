// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh) with
// real traces from ../shared (and testdata/), and every number the page shows is compared with the real CLI's
// `kinetoscope info --json` (overview) and `kinetoscope <analysis> --json` (panels) on the same files.
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: Diff mode (two runs) and the Compare ranks tab (issue 7), also in the single-file build.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import {
  canvasColours, cliAnalysis, cliInfo, cliRun, corpusTest, dist, download, expectedCells, grouped, readPanel, repoRoot, screenshot, shared, waitDone, waitPanel,
} from './harness.js';
import { assertChartsDrawn, assertClean, assertPanelShows, open, PALETTE, server, setUp, tmp } from './setup.js';

const diffDir = path.join(repoRoot, 'testdata', 'diff');
const dlrm = path.join(shared, 'traces', 'param', 'dlrm_8rank');

setUp();

test('(k) Diff mode: two runs dropped and picked show the CLI\'s diff: summary, grouped bars, sortable tables, CSVs, options, errors, HTA mode', async () => {
  const args = ['control.json', 'test.json'];
  const want = cliAnalysis(diffDir, 'diff', args);
  assert.equal(want.status, 0, want.stderr);
  const page = await open();
  assert.equal(await page.isVisible('#diff'), false, 'Diff mode is closed at first');
  await page.click('#open-diff');
  assert.match(page.url(), /#mode=diff$/, 'URL hash records the mode');
  assert.ok(await page.isVisible('#diff [data-side="control"]') && await page.isVisible('#diff [data-side="test"]'));
  assert.equal(await page.isVisible('#drop'), false, 'the one-trace drop zone is hidden');

  // control dropped on its side, test through the side's file picker
  await dropFilesOn(page, '#diff [data-side="control"]', [path.join(diffDir, 'control.json')]);
  await page.waitForFunction(() => /1 file: control\.json/.test(document.querySelector('#diff [data-side="control"] .chosen').textContent));
  // (the panel is built once the wasm is ready: it may not exist yet)
  assert.equal(await page.$eval('#diff-result', (r) => r.querySelector('#panel-diff')?.hidden ?? true), true, 'nothing compared before both runs are chosen');
  await page.setInputFiles('#diff-test-file', path.join(diffDir, 'test.json'));
  let shown = await waitPanel(page, 'diff').then(() => readDiff(page, 'diff'));
  assertDiffShows(shown, want.json, 'diff', 'diff_by_op');
  assert.match(shown.status, /^control rank 0 vs test rank 0 · \d+ ms$/);
  for (const [side, name] of [['control', 'control.json'], ['test', 'test.json']]) {
    const info = cliInfo(diffDir, name).json;
    const loaded = await page.textContent(`#diff [data-side="${side}"] .loaded`);
    assert.equal(loaded, `${info.events.src} events · rank ${info.ranks[0].rank.src}`, `${side}: what was read`);
  }
  assert.deepEqual(shown.options, { by: 'op', device: 'all', short_names: 'false', iteration: '', test_iteration: '', start_kernel: 'recover_decode_task', step_name: '', by_launch: 'false' });
  await assertGroupedBars(page, 'diff', want.json.tables.diff_by_op, 'op', 'diff');
  await assertDiffCsvs(page, 'diff', diffDir, args, 'diff');
  await screenshot(page, 'k-diff');

  // sorting: a number column numerically (both ways), a text column alphabetically
  const t = shown.tables[0], rows = want.json.tables.diff_by_op;
  const th = (col) => `#panel-diff .table-view[data-table="diff_by_op"] th[data-col="${col}"]`;
  const table = async () => (await readPanel(page, 'diff')).tables[0];
  const byNum = (col, dir) => expectedCells([...rows].sort((a, b) => dir * (Number(a[col].src) - Number(b[col].src))), t.columns);
  await page.click(th('diff_time_us'));
  assert.deepEqual((await table()).rows, byNum('diff_time_us', 1), 'ascending by diff_time_us');
  await page.click(th('diff_time_us'));
  assert.deepEqual((await table()).rows, byNum('diff_time_us', -1), 'descending by diff_time_us');
  assert.equal((await table()).sort[t.columns.indexOf('diff_time_us')], 'descending');
  await screenshot(page, 'k-diff-sorted');
  await page.click(th('name'));
  const byName = [...rows].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  assert.deepEqual((await table()).rows, expectedCells(byName, t.columns), 'ascending by name');
  assert.notDeepEqual(byName.map((r) => r.name), rows.map((r) => r.name), 'the name order is not the table\'s own');

  // options: the page runs what the CLI runs with the same flags
  const rerun = async (values, submit = true) => {
    for (const [k, v] of Object.entries(values)) {
      if (k === 'by' || k === 'device') await page.selectOption(`#panel-diff [data-opt="${k}"]`, v); // a choice runs at once
      else await page.fill(k.endsWith('ranks') ? `#panel-diff input.${k.replace('_', '-')}` : `#panel-diff [data-opt="${k}"]`, v);
    }
    if (submit) await page.click('#panel-diff button[type=submit]');
    return waitPanel(page, 'diff').then(() => readDiff(page, 'diff'));
  };
  for (const by of ['kernel', 'type', 'step', 'annotation']) {
    const w = cliAnalysis(diffDir, 'diff', [...args, '--by', by]);
    assert.equal(w.status, 0, w.stderr);
    assertDiffShows(await rerun({ by }, false), w.json, `diff --by ${by}`, by === 'step' ? 'diff_steps' : `diff_by_${by}`);
  }
  await screenshot(page, 'k-diff-by-annotation');
  const w = cliAnalysis(diffDir, 'diff', [...args, '--iteration', '1', '--device', 'gpu', '--short-names']);
  assert.equal(w.status, 0, w.stderr);
  await page.check('#panel-diff [data-opt="short_names"]');
  shown = await rerun({ by: 'op', device: 'gpu', iteration: '1' });
  assertDiffShows(shown, w.json, 'diff --iteration 1 --device gpu --short-names', 'diff_by_op');
  await assertDiffCsvs(page, 'diff', diffDir, [...args, '--iteration', '1', '--device', 'gpu', '--short-names'], 'diff --iteration 1');
  await page.uncheck('#panel-diff [data-opt="short_names"]');

  // errors: the CLI's message (which adds the file name), no stale tables; then the page recovers
  for (const [values, flags] of [[{ control_ranks: '7' }, ['--control-ranks', '7']], [{ iteration: '9' }, ['--iteration', '9']]]) {
    const bad = cliAnalysis(diffDir, 'diff', [...args, ...flags]);
    assert.equal(bad.status, 1, bad.stderr);
    shown = await rerun({ device: 'all', iteration: '', control_ranks: '', ...values });
    assert.equal(shown.state, 'error', `${flags}: error`);
    assert.ok(bad.message === shown.error || bad.message === `control.json: ${shown.error}`, `${flags}: "${shown.error}" is the CLI's "${bad.message}"`);
    assert.deepEqual([shown.tables, shown.charts, shown.notes, shown.summary], [[], [], [], null], 'nothing stale under an error');
    await screenshot(page, `k-diff-error-${flags[0].slice(2)}`);
  }
  assertDiffShows(await rerun({ control_ranks: '', iteration: '' }), want.json, 'diff back to defaults', 'diff_by_op');

  // HTA mode: HTA's TraceDiff tables with the oracle's names, the device's compare_traces first
  const hta = cliAnalysis(diffDir, 'diff', [...args, '--hta']);
  assert.equal(hta.status, 0, hta.stderr);
  assert.ok(Object.keys(hta.json.tables).includes('compare_traces__all'));
  await page.click('#panel-diff input.hta');
  shown = await waitPanel(page, 'diff').then(() => readDiff(page, 'diff'));
  assertDiffShows(shown, hta.json, 'diff --hta', 'compare_traces__all');
  assert.match(shown.status, /^HTA mode · control rank 0 vs test rank 0 /);
  assert.equal(await page.isDisabled('#panel-diff [data-opt="by"]'), true, 'by means nothing to HTA\'s TraceDiff');
  await assertDiffCsvs(page, 'diff', diffDir, [...args, '--hta'], 'diff --hta');
  const htaGpu = cliAnalysis(diffDir, 'diff', [...args, '--hta', '--device', 'gpu']);
  assertDiffShows(await rerun({ device: 'gpu' }, false), htaGpu.json, 'diff --hta --device gpu', 'compare_traces__gpu');
  await screenshot(page, 'k-diff-hta');
  await page.click('#panel-diff input.hta');
  assertDiffShows(await rerun({ device: 'all' }, false), want.json, 'diff after HTA mode', 'diff_by_op');

  // a test run that cannot be read: the reader's message in the error box, under the side's name
  const garbage = path.join(tmp, 'garbage-run.json.gz');
  writeFileSync(garbage, Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03]), Buffer.from('this is not deflate data '.repeat(40))]));
  const unreadable = cliInfo(tmp, path.basename(garbage));
  assert.notEqual(unreadable.status, 0, 'the CLI cannot read it either');
  await page.setInputFiles('#diff-test-file', garbage);
  const state = await waitDone(page);
  assert.equal(state.error, `test: ${unreadable.stderr.trim().replace(/^kinetoscope: /, '')}`);
  assert.equal(await page.$eval('#panel-diff', (p) => p.hidden), true, 'no comparison of the runs chosen before');
  await screenshot(page, 'k-diff-unreadable');

  // a new test run (the control run again) reads both again and compares them
  const same = cliAnalysis(diffDir, 'diff', ['control.json', 'control.json']);
  await dropFilesOn(page, '#diff [data-side="test"]', [path.join(diffDir, 'control.json')]);
  await page.waitForFunction(() => document.querySelector('#diff [data-side="test"] .chosen').textContent.includes('control.json'));
  assertDiffShows(await waitPanel(page, 'diff').then(() => readDiff(page, 'diff')), same.json, 'control vs control', 'diff_by_op');

  // back to one trace, and a link with the mode opens Diff mode
  await page.click('#close-diff');
  assert.ok(await page.isVisible('#drop'));
  assert.equal(await page.isVisible('#diff'), false);
  assert.doesNotMatch(page.url(), /mode=diff/);
  const linked = await open(`${server.url}#mode=diff`);
  await linked.waitForSelector('#diff [data-side="control"]', { state: 'visible' });
  assertClean(page);
  assertClean(linked);
  await page.close();
  await linked.close();
});

corpusTest('(l) the Compare ranks tab explains a straggler: rank 3 of an 8-rank run against the median of the others, as the CLI does', async () => {
  const want = cliAnalysis(dlrm, 'diff', ['.', '--test-ranks', '3']);
  assert.equal(want.status, 0, want.stderr);
  assert.match(want.json.notes[0], /control \(7 ranks, median\) vs test \(rank 3\)/);
  const page = await open();
  await page.setInputFiles('#folder', dlrm);
  await waitDone(page, 120_000);
  await page.click('#tabs [data-tab="compare-ranks"]');
  let shown = await readDiff(page, 'compare-ranks');
  assert.equal(shown.state, 'idle', 'no test ranks yet: nothing runs');
  assert.match(shown.hint, /Type the ranks to explain in "test ranks".*This trace has ranks 0-7\./);
  assert.match(page.url(), /#tab=compare-ranks$/);
  await screenshot(page, 'l-compare-ranks-hint');

  await page.fill('#panel-compare-ranks input.test-ranks', '3');
  await page.press('#panel-compare-ranks input.test-ranks', 'Enter');
  shown = await waitPanel(page, 'compare-ranks', 120_000).then(() => readDiff(page, 'compare-ranks'));
  assertDiffShows(shown, want.json, 'rank 3 vs the others', 'diff_by_op');
  assert.equal(shown.hint, null);
  assert.match(shown.status, /^control ranks 0, 1, 2, 4, 5, 6, 7 vs test rank 3 · \d+ ms$/);
  await assertGroupedBars(page, 'compare-ranks', want.json.tables.diff_by_op, 'op', 'rank 3 vs the others');
  await screenshot(page, 'l-compare-ranks');

  // chosen control ranks and the by-step comparison
  const two = cliAnalysis(dlrm, 'diff', ['.', '--test-ranks', '3', '--control-ranks', '0-1', '--by', 'kernel']);
  assert.equal(two.status, 0, two.stderr);
  await page.fill('#panel-compare-ranks input.control-ranks', '0-1');
  await page.selectOption('#panel-compare-ranks [data-opt="by"]', 'kernel');
  shown = await waitPanel(page, 'compare-ranks').then(() => readDiff(page, 'compare-ranks'));
  assertDiffShows(shown, two.json, 'rank 3 vs ranks 0-1 by kernel', 'diff_by_kernel');
  assert.match(shown.status, /^control ranks 0, 1 vs test rank 3 /);

  // HTA mode: one rank per side
  const hta = cliAnalysis(dlrm, 'diff', ['.', '--hta', '--test-ranks', '3', '--control-ranks', '0']);
  assert.equal(hta.status, 0, hta.stderr);
  await page.fill('#panel-compare-ranks input.control-ranks', '0');
  await page.click('#panel-compare-ranks input.hta');
  shown = await waitPanel(page, 'compare-ranks').then(() => readDiff(page, 'compare-ranks'));
  assertDiffShows(shown, hta.json, 'rank 3 vs rank 0, HTA mode', 'compare_traces__all');
  await screenshot(page, 'l-compare-ranks-hta');
  const several = cliAnalysis(dlrm, 'diff', ['.', '--hta', '--test-ranks', '3']);
  assert.equal(several.status, 1);
  await page.fill('#panel-compare-ranks input.control-ranks', '');
  await page.click('#panel-compare-ranks button[type=submit]');
  shown = await waitPanel(page, 'compare-ranks').then(() => readDiff(page, 'compare-ranks'));
  assert.equal(shown.state, 'error');
  assert.equal(shown.error, several.message.replace('--control-ranks', 'control ranks').replace('leave out --hta', 'leave HTA mode'));
  await page.click('#panel-compare-ranks input.hta');

  // a rank the run does not have: the CLI's message (which adds the folder); then the page recovers
  const bad = cliAnalysis(dlrm, 'diff', ['.', '--test-ranks', '9']);
  assert.equal(bad.status, 1);
  await page.fill('#panel-compare-ranks input.test-ranks', '9');
  await page.click('#panel-compare-ranks button[type=submit]');
  shown = await waitPanel(page, 'compare-ranks').then(() => readDiff(page, 'compare-ranks'));
  assert.equal(shown.state, 'error');
  assert.equal(`.: ${shown.error}`, bad.message);
  assert.deepEqual([shown.tables, shown.summary], [[], null]);
  await screenshot(page, 'l-compare-ranks-bad-rank');
  await page.fill('#panel-compare-ranks input.test-ranks', '3');
  await page.selectOption('#panel-compare-ranks [data-opt="by"]', 'op');
  assertDiffShows(await waitPanel(page, 'compare-ranks').then(() => readDiff(page, 'compare-ranks')), want.json, 'rank 3 again', 'diff_by_op');
  assertClean(page);
  await page.close();
});

test('(m) the single-file build compares two runs from file://', async () => {
  // each run as a folder (one file per rank), picked with the sides' folder inputs
  const dirs = {};
  for (const side of ['control', 'test']) {
    dirs[side] = path.join(tmp, `${side}-run`);
    mkdirSync(dirs[side], { recursive: true });
    copyFileSync(path.join(diffDir, `${side}.json`), path.join(dirs[side], 'rank0.json'));
  }
  const want = cliAnalysis(tmp, 'diff', ['control-run', 'test-run']);
  assert.equal(want.status, 0, want.stderr);
  const page = await open(`${pathToFileURL(path.join(dist, 'kinetoscope.html')).href}#mode=diff`);
  await page.waitForSelector('#diff [data-side="control"]', { state: 'visible' });
  await page.setInputFiles('#diff-control-folder', dirs.control);
  await page.setInputFiles('#diff-test-folder', dirs.test);
  const shown = await waitPanel(page, 'diff').then(() => readDiff(page, 'diff'));
  assertDiffShows(shown, want.json, 'single file', 'diff_by_op');
  await assertGroupedBars(page, 'diff', want.json.tables.diff_by_op, 'op', 'single file');
  const csv = await download(page, '#panel-diff [data-csv="diff_by_op"]');
  assert.equal(csv.bytes.toString('utf8'), cliRun(tmp, ['diff', 'control-run', 'test-run', '--csv']).stdout);
  await screenshot(page, 'm-single-file-diff');
  assertClean(page);
  await page.close();
});

/** Drops `files` (paths) on `selector` as a browser would. */
async function dropFilesOn(page, selector, files) {
  const dt = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const [b64, name] of list) dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    return dt;
  }, files.map((f) => [readFileSync(f).toString('base64'), path.basename(f)]));
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: dt });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
}

/** What a diff panel shows: readPanel plus the summary line and the hint. */
async function readDiff(page, name) {
  const panel = await readPanel(page, name);
  return {
    ...panel,
    ...await page.evaluate((name) => {
      const p = document.getElementById(`panel-${name}`), s = p.querySelector('.diff-summary'), h = p.querySelector('.diff-hint');
      return { summary: s.hidden ? null : s.textContent, hint: h.hidden ? null : h.textContent };
    }, name),
  };
}

/** The diff panel shows `kinetoscope diff … --json`: the summary line (the CLI's first note, in HTA mode too) on
 * its own, the other notes, every table's cells in Rust's order (the main table first). */
function assertDiffShows(shown, json, what, first) {
  assert.equal(shown.error, null, `${what}: unexpected error: ${shown.error}`);
  assert.equal(shown.summary, json.notes[0], `${what}: summary line`);
  assertPanelShows(shown, { ...json, notes: json.notes.slice(1) }, what);
  assert.equal(shown.tables[0].name, first, `${what}: the main table first`);
}

/** Every table's CSV downloads with the bytes of the file `kinetoscope diff … --out DIR` writes. */
async function assertDiffCsvs(page, name, dir, args, what) {
  const out = mkdtempSync(path.join(tmp, 'diff-'));
  const r = cliRun(dir, ['diff', ...args, '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const tables = (await readPanel(page, name)).tables.map((t) => t.name);
  assert.deepEqual([...tables].sort(), readdirSync(out).map((f) => f.replace(/\.csv$/, '')).sort(), `${what}: one CSV per table`);
  for (const t of tables) {
    const got = await download(page, `#panel-${name} [data-csv="${t}"]`);
    assert.equal(got.name, `${t}.csv`);
    assert.ok(got.bytes.equals(readFileSync(path.join(out, `${t}.csv`))), `${what}: ${t}.csv = the CLI's --out file`);
  }
}

/** The grouped-bar charts: control, test and difference in PALETTE colours 0, 1, 2, each colour's share of the
 * painted bar area the share of its |values| in the main table's first 20 rows (src/chart/draw.rs MAX_GROUPS). */
async function assertGroupedBars(page, name, rows, key, what) {
  const canvases = await page.$$eval(`#panel-${name} .chart canvas`, (cs) => cs.map((c) => ({ id: c.id, label: c.getAttribute('aria-label'), drawn: c.dataset.drawn === '1' })));
  assert.equal(canvases.length, 2, `${what}: a time and a calls chart`);
  assert.match(canvases[0].label, /^Time per step by \w+: control vs test$/);
  assert.match(canvases[1].label, /^Calls per step by \w+: control vs test$/);
  await assertChartsDrawn(page, { charts: canvases }, what);
  const painted = (await canvasColours(page, canvases[0].id, PALETTE.slice(0, 3))).map((c) => c.count);
  const sums = ['control', 'test', 'diff'].map((side) => rows.slice(0, 20).reduce((s, r) => s + Math.abs(Number(r[`${side}_time_us`].src)), 0));
  painted.forEach((n, i) => {
    assert.ok(n > 500, `${what}: series ${i} painted (${n} pixels)`);
    const share = n / painted.reduce((a, b) => a + b), want = sums[i] / sums.reduce((a, b) => a + b);
    assert.ok(Math.abs(share - want) < 0.02, `${what}: series ${i} is ${share.toFixed(3)} of the bars, ${want.toFixed(3)} of |${key}| time`);
  });
}
