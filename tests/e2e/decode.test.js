// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh) with
// real traces from ../shared (and testdata/), and every number the page shows is compared with the real CLI's
// `kinetoscope info --json` (overview) and `kinetoscope <analysis> --json` (panels) on the same files.
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: the Decode steps and GPU ops tabs (testdata/decode).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  canvasColours, cliAnalysis, cliRun, dist, download, openTab, readPanel, repoRoot, screenshot, waitDone, waitPanel,
} from './harness.js';
import { assertChartsDrawn, assertClean, assertPanelShows, dropFile, open, PALETTE, sampleName, server, setUp, tmp } from './setup.js';

setUp();

test('(j) the Decode steps tab shows the CLI\'s decode tables, stats CSV and charts, follows its options and says what is wrong', async () => {
  const dir = path.join(repoRoot, 'testdata', 'decode');
  const paddle = 'paddle-decode.json', kineto = 'kineto-decode.json';
  const want = cliAnalysis(dir, 'decode', [paddle]);
  assert.equal(want.status, 0, want.stderr);
  const page = await open();
  await dropFile(page, path.join(dir, paddle));
  await waitDone(page);
  let panel = await openTab(page, 'decode');
  assertPanelShows(panel, want.json, 'decode');
  assert.match(panel.status, /^rank 0 · \d+ ms$/);
  assert.deepEqual(panel.options, { start_kernel: 'recover_decode_task', prefill_ms: '30', decode_ms: '', keep_suffix: 'false', step_name: '', by_launch: 'false' });
  assert.equal(await page.isVisible('#panel-decode input.hta'), false, 'no HTA mode: decode has no HTA counterpart');
  assert.deepEqual(panel.tables[0].rows.map((r) => r[0]), ['recover_decode_task', 'gemm', 'softmax', 'gemm', 'MEMCPY_DtoH'],
    'the average decode step of the brief, by average start');

  // the averages CSV is what `kinetoscope stats IN OUT.csv` writes; every table's CSV is what --out writes
  await assertDecodeCsvs(page, dir, paddle, [], [], 'decode');
  await assertDecodeCharts(page, want.json, 'decode');
  await screenshot(page, 'j-decode-paddle');

  // options: the page runs what the CLI runs with the same option, and the tables change with it
  const rerun = async (values) => {
    for (const [k, v] of Object.entries(values)) await page.fill(`#panel-decode [data-opt="${k}"]`, v);
    await page.click('#panel-decode button[type=submit]');
    return waitPanel(page, 'decode');
  };
  const none = cliAnalysis(dir, 'decode', [paddle, '--start-kernel', 'none']);
  assert.equal(none.status, 0, none.stderr);
  assert.notDeepEqual(none.json.tables.decode_op_averages, want.json.tables.decode_op_averages, 'start_kernel none changes the averages');
  panel = await rerun({ start_kernel: 'none' });
  assertPanelShows(panel, none.json, 'decode start_kernel=none');
  await assertDecodeCsvs(page, dir, paddle, ['none'], ['--start-kernel', 'none'], 'decode start_kernel=none');
  await assertDecodeCharts(page, none.json, 'decode start_kernel=none');
  await screenshot(page, 'j-decode-start-kernel-none');

  const range = cliAnalysis(dir, 'decode', [paddle, '--decode-ms', '10,11']);
  assert.equal(range.status, 0, range.stderr);
  assert.ok(range.json.tables.decode_steps.some((r) => r.kind === 'excluded'), 'decode_ms 10,11 excludes steps');
  panel = await rerun({ start_kernel: 'recover_decode_task', decode_ms: '10,11' });
  assertPanelShows(panel, range.json, 'decode decode_ms=10,11');
  await assertDecodeCsvs(page, dir, paddle, ['--decode-ms', '10,11'], ['--decode-ms', '10,11'], 'decode decode_ms=10,11');
  await assertDecodeCharts(page, range.json, 'decode decode_ms=10,11');
  await screenshot(page, 'j-decode-ms');

  // a bad option value: the CLI's message, no stale tables; then the page recovers
  const bad = cliAnalysis(dir, 'decode', [paddle, '--decode-ms', '11,10']);
  assert.equal(bad.status, 1, bad.stderr);
  panel = await rerun({ decode_ms: '11,10' });
  assert.equal(panel.state, 'error');
  assert.equal(panel.error, bad.message);
  assert.deepEqual([panel.tables, panel.charts, panel.notes], [[], [], []], 'nothing stale under an error');
  assertPanelShows(await rerun({ decode_ms: '' }), want.json, 'decode back to defaults');

  // the Kineto trace of the same timeline: the CLI's tables; a start kernel no step has: its message
  await page.setInputFiles('#file', path.join(dir, kineto));
  await waitDone(page);
  const k = cliAnalysis(dir, 'decode', [kineto]);
  assert.equal(k.status, 0, k.stderr);
  assertPanelShows(await openTab(page, 'decode'), k.json, 'decode (Kineto)');
  const missing = cliAnalysis(dir, 'decode', [kineto, '--start-kernel', 'no_such_kernel']);
  assert.equal(missing.status, 1, missing.stderr);
  assert.match(missing.message, /^start kernel 'no_such_kernel' is in none of the \d+ decode steps; their first GPU operations are 'recover_decode_task'/);
  panel = await rerun({ start_kernel: 'no_such_kernel' });
  assert.equal(panel.state, 'error');
  assert.equal(panel.error, missing.message);
  assert.deepEqual(panel.tables, []);
  await screenshot(page, 'j-decode-missing-start-kernel');

  // no profiler step but annotations: the message lists them; step_name makes one the steps, as --step-name does
  const annotated = 'kineto-annotated.json';
  await page.setInputFiles('#file', path.join(dir, annotated));
  await waitDone(page);
  const unmarked = cliAnalysis(dir, 'decode', [annotated]);
  assert.equal(unmarked.status, 1, unmarked.stderr);
  assert.match(unmarked.message, /'execute_model' \(8\), 'sample' \(2\); give one as step_name/);
  panel = await openTab(page, 'decode');
  assert.equal(panel.state, 'error');
  assert.equal(panel.error, unmarked.message);
  const marked = cliAnalysis(dir, 'decode', [annotated, '--step-name', 'execute_model']);
  assert.equal(marked.status, 0, marked.stderr);
  assert.deepEqual(marked.json.tables.decode_op_averages, k.json.tables.decode_op_averages, 'the annotations mark the same steps as ProfilerStep#N');
  panel = await rerun({ step_name: 'execute_model' });
  assertPanelShows(panel, marked.json, 'decode step_name=execute_model');
  await assertDecodeCsvs(page, dir, annotated, ['--step-name', 'execute_model'], ['--step-name', 'execute_model'], 'decode step_name=execute_model');

  // the GPU behind the CPU: the note counts what the window rule leaves out; by_launch (a checkbox)
  // counts operations with the step that launched them, as --by-launch does
  const lagging = 'kineto-lagging.json';
  await page.setInputFiles('#file', path.join(dir, lagging));
  await waitDone(page);
  const byWindow = cliAnalysis(dir, 'decode', [lagging]);
  assert.equal(byWindow.status, 0, byWindow.stderr);
  panel = await openTab(page, 'decode');
  assertPanelShows(panel, byWindow.json, 'decode (GPU behind the CPU)');
  assert.ok(panel.notes.some((n) => /^2 GPU operations launched from decode steps ran past their step's end/.test(n)), `the late operations are counted: ${panel.notes}`);
  const byLaunch = cliAnalysis(dir, 'decode', [lagging, '--by-launch']);
  assert.equal(byLaunch.status, 0, byLaunch.stderr);
  assert.notDeepEqual(byLaunch.json.tables.decode_op_averages, byWindow.json.tables.decode_op_averages, 'by_launch changes the averages');
  await page.check('#panel-decode [data-opt="by_launch"]');
  await page.click('#panel-decode button[type=submit]');
  panel = await waitPanel(page, 'decode');
  assert.equal(panel.options.by_launch, 'true');
  assertPanelShows(panel, byLaunch.json, 'decode by_launch');
  await assertDecodeCsvs(page, dir, lagging, ['--by-launch'], ['--by-launch'], 'decode by_launch');
  await screenshot(page, 'j-decode-by-launch');

  // the bundled Kineto sample has no profiler step: the default run says so, as the CLI does
  const sample = cliAnalysis(path.join(dist, 'sample'), 'decode', [sampleName]);
  assert.equal(sample.status, 1, sample.stderr);
  assert.match(sample.message, /^no profiler step in the trace/);
  await page.click('#load-sample');
  await waitDone(page);
  panel = await openTab(page, 'decode');
  assert.equal(panel.state, 'error');
  assert.equal(panel.error, sample.message);
  await screenshot(page, 'j-decode-sample-error');
  assertClean(page);
  await page.close();
});

test('(o) the GPU ops tab is `kinetoscope extract`: a time range, its CSV byte for byte, its errors', async () => {
  const dir = path.join(repoRoot, 'testdata', 'decode'), paddle = 'paddle-decode.json';
  const page = await open();
  await dropFile(page, path.join(dir, paddle));
  await waitDone(page);
  const all = cliAnalysis(dir, 'gpu_ops', [paddle]);
  assert.equal(all.status, 0, all.stderr);
  let panel = await openTab(page, 'gpu_ops');
  assertPanelShows(panel, all.json, 'gpu_ops, no range: every GPU operation');
  assert.deepEqual(panel.options, { range: '', keep_suffix: 'false' });
  const rerun = async ({ range, keepSuffix = false }) => {
    await page.fill('#panel-gpu_ops [data-opt="range"]', range);
    await page.setChecked('#panel-gpu_ops [data-opt="keep_suffix"]', keepSuffix);
    await page.click('#panel-gpu_ops button[type=submit]');
    return waitPanel(page, 'gpu_ops');
  };
  for (const [range, keepSuffix, args] of [['50000,52450', false, []], ['50000,52450', true, ['--keep-suffix']]]) {
    panel = await rerun({ range, keepSuffix });
    const out = path.join(mkdtempSync(path.join(tmp, 'extract-')), 'out.csv');
    const r = cliRun(dir, ['extract', paddle, out, range, ...args]);
    assert.equal(r.status, 0, r.stderr);
    const csv = readFileSync(out);
    assert.equal(panel.tables[0].count, `${csv.toString().trim().split('\n').length - 1} rows`);
    const got = await download(page, '#panel-gpu_ops [data-csv="extract"]');
    assert.equal(got.name, 'extract.csv');
    assert.ok(got.bytes.equals(csv), `range ${range} keep_suffix=${keepSuffix}: the CSV is what kinetoscope extract writes`);
  }
  await screenshot(page, 'o-gpu-ops');
  const bad = cliRun(dir, ['extract', paddle, path.join(tmp, 'bad.csv'), '5,3']);
  assert.equal(bad.status, 1);
  panel = await rerun({ range: '5,3' });
  assert.equal(panel.state, 'error');
  assert.equal(`kinetoscope: ${panel.error}\n`, bad.stderr);
  assertClean(page);
  await page.close();

  // a link opens the tab with its options: #tab=gpu_ops&range=…&keep_suffix=true
  const linked = await open(`${server.url}#tab=gpu_ops&range=50000,52450&keep_suffix=true`);
  await dropFile(linked, path.join(dir, paddle));
  await waitDone(linked);
  panel = await waitPanel(linked, 'gpu_ops');
  assert.deepEqual(panel.options, { range: '50000,52450', keep_suffix: 'true' });
  const want = cliAnalysis(dir, 'gpu_ops', [paddle, '--range', '50000,52450', '--keep-suffix']);
  assert.equal(want.status, 0, want.stderr);
  assertPanelShows(panel, want.json, 'gpu_ops opened by a link');
  assertClean(linked);
  await linked.close();
});

/** The decode panel's CSVs: decode_op_averages is byte for byte `kinetoscope stats IN OUT.csv STATS_ARGS…`,
 * and every table's CSV is the file `kinetoscope decode IN --out DIR DECODE_ARGS…` writes. */
async function assertDecodeCsvs(page, dir, file, statsArgs, decodeArgs, what) {
  const out = mkdtempSync(path.join(tmp, 'decode-'));
  const stats = cliRun(dir, ['stats', file, path.join(out, 'stats.csv'), ...statsArgs]);
  assert.equal(stats.status, 0, stats.stderr);
  const averages = await download(page, '#panel-decode [data-csv="decode_op_averages"]');
  assert.equal(averages.name, 'decode_op_averages.csv');
  assert.ok(averages.bytes.equals(readFileSync(path.join(out, 'stats.csv'))), `${what}: decode_op_averages.csv = kinetoscope stats' CSV`);
  const r = cliRun(dir, ['decode', file, '--csv', '--out', out, ...decodeArgs]);
  assert.equal(r.status, 0, r.stderr);
  for (const t of (await readPanel(page, 'decode')).tables) {
    const got = await download(page, `#panel-decode [data-csv="${t.name}"]`);
    assert.ok(got.bytes.equals(readFileSync(path.join(out, `${t.name}.csv`))), `${what}: ${t.name}.csv = the CLI's --out file`);
  }
}

// src/chart/draw.rs: the bubble lane's grey (PALETTE, in setup.js: series k has colour k; waterfall bars 0, bubbles 2)
const LANE = [220, 220, 220];

/** The decode charts show the CLI's numbers. Step durations: one colour per step kind present (prefill,
 * decode, no start kernel, excluded) whose share of the painted column area is the kind's share of the
 * step time. Waterfall: blue bars under a bubble lane whose red share is the idle share of the average
 * step (the gaps of the union of [avg start, avg end] of decode_op_averages). */
async function assertDecodeCharts(page, json, what) {
  const ids = await page.$$eval('#panel-decode .chart canvas', (cs) => Object.fromEntries(cs.map((c) => [c.getAttribute('aria-label'), c.id])));
  assert.deepEqual(Object.keys(ids), ['Step durations on rank 0', 'Average decode step'], `${what}: charts`);
  await assertChartsDrawn(page, { charts: Object.values(ids).map((id) => ({ id, drawn: true })) }, what);

  const steps = json.tables.decode_steps;
  const kinds = ['prefill', 'decode', 'no start kernel', 'excluded'].filter((k) => steps.some((s) => s.kind === k));
  const time = kinds.map((k) => steps.filter((s) => s.kind === k).reduce((t, s) => t + Number(s.duration_us.src), 0));
  const painted = await canvasColours(page, ids['Step durations on rank 0'], PALETTE);
  assert.ok(kinds.length >= 2, `${what}: at least two series (${kinds})`);
  const area = painted.slice(0, kinds.length).map((c) => c.count);
  kinds.forEach((k, i) => {
    assert.ok(area[i] > 1000, `${what}: ${k} columns painted in colour ${i} (${area[i]} pixels)`);
    const share = area[i] / area.reduce((a, b) => a + b), want = time[i] / time.reduce((a, b) => a + b);
    assert.ok(Math.abs(share - want) < 0.01, `${what}: ${k} columns are ${share.toFixed(3)} of the painted area, ${want.toFixed(3)} of the step time`);
  });
  painted.slice(kinds.length).forEach((c, i) => assert.equal(c.count, 0, `${what}: no series ${kinds.length + i}`));

  const [bars, bubbles, lane] = await canvasColours(page, ids['Average decode step'], [PALETTE[0], PALETTE[2], LANE]);
  assert.ok(bars.count > 1000, `${what}: blue operation bars (${bars.count} pixels)`);
  assert.ok(bubbles.count > 300, `${what}: red bubble pixels (${bubbles.count})`);
  // the legend strip above the plot has a small swatch of each colour: the lane and the bars start at their
  // first wide row
  const wideTop = (c) => c.perRow.findIndex((n) => n > 40);
  const [barsTop, laneTop] = [wideTop(bars), wideTop(bubbles)];
  assert.ok(laneTop >= 0 && laneTop < barsTop, `${what}: the bubble lane (from y ${laneTop}) is above the bars (from y ${barsTop})`);
  const inLane = (c) => c.perRow.slice(laneTop, barsTop).reduce((a, b) => a + b, 0);
  const ops = json.tables.decode_op_averages.map((r) => [Number(r.avg_start_time_us.src), Number(r.avg_end_time_us.src)]).sort((a, b) => a[0] - b[0]);
  let reached = Math.min(0, ops[0][0]), idle = 0;
  const from = reached;
  for (const [s, e] of ops) {
    if (s > reached) idle += s - reached;
    reached = Math.max(reached, e);
  }
  const share = inLane(bubbles) / (inLane(bubbles) + inLane(lane)), want = idle / (reached - from);
  assert.ok(Math.abs(share - want) < 0.01, `${what}: bubbles are ${share.toFixed(3)} of the lane, ${want.toFixed(3)} of the average step`);
}
