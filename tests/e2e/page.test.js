// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh) with
// real traces from ../shared (and testdata/), and every number the page shows is compared with the real CLI's
// `kinetoscope info --json` (overview) and `kinetoscope <analysis> --json` (panels) on the same files.
// Screenshots go to tests/e2e/out/ (CI artifact).
import assert from 'node:assert/strict';
import { copyFileSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import {
  Num, canvasColours, canvasInk, canvasStats, cliAnalyses, cliAnalysis, cliInfo, cliRun, dist, download, expectedCells, expectedRows,
  cellText, corpusTest, grouped, hasKindsChart, launch, newPage, openTab, readPage, readPanel, repoRoot, screenshot, serveDist, shared, waitDone, waitPanel,
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

corpusTest('(a) dropping a .json.gz shows the same overview as the CLI', async () => {
  const name = 'sampled_rank-0.json.gz';
  const want = cliInfo(traceFilter, name);
  assert.equal(want.status, 0, want.stderr);
  const page = await open();
  await dropFile(page, path.join(traceFilter, name));
  const shown = await waitDone(page);
  assertShowsOverview(shown, want.json);
  assert.ok(Number(shown.ranks[0].kinds.kernel.replace(/,/g, '')) > 0, 'kernels counted');
  await assertChart(page);
  await screenshot(page, 'a-drop-gz');
  assertClean(page);
  await page.close();
});

corpusTest('(b) picking a folder of 2 ranks shows both ranks as the CLI does', async () => {
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

corpusTest('(e) the single-file build works from file:// including the sample', async () => {
  const want = cliInfo(path.join(dist, 'sample'), sampleName);
  assert.equal(want.status, 0, want.stderr);
  const page = await open(pathToFileURL(path.join(dist, 'kinetoscope.html')).href);
  await page.click('#load-sample');
  assertShowsOverview(await waitDone(page), want.json);
  await assertChart(page);
  await screenshot(page, 'e-single-file');

  // an analysis panel: run in the worker, chart drawn on the page, CSV download
  const temporal = cliAnalysis(path.join(dist, 'sample'), 'temporal', [sampleName]);
  assert.equal(temporal.status, 0, temporal.stderr);
  const panel = await openTab(page, 'temporal');
  assertPanelShows(panel, temporal.json);
  await assertChartsDrawn(page, panel);
  const csv = await download(page, '#panel-temporal [data-csv="temporal_breakdown"]');
  assert.equal(csv.bytes.toString('utf8'), cliRun(path.join(dist, 'sample'), ['temporal', '--csv', sampleName]).stdout);
  await screenshot(page, 'e-single-file-temporal');

  // a real file through the picker, too (classic Blob worker + posted WebAssembly.Module)
  const name = 'sampled_rank-1.json.gz';
  await page.setInputFiles('#file', path.join(traceFilter, name));
  assertShowsOverview(await waitDone(page), cliInfo(traceFilter, name).json);
  assertClean(page);
  await page.close();
});

corpusTest('(f) Cancel stops a large parse and the page recovers', async () => {
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

test('(g) the Temporal panel shows the CLI\'s table, downloads its CSV and PNG, and reruns in HTA mode', async () => {
  const dir = path.join(dist, 'sample');
  const want = cliAnalysis(dir, 'temporal', [sampleName]);
  const wantHta = cliAnalysis(dir, 'temporal', [sampleName, '--hta']);
  assert.equal(want.status, 0, want.stderr);
  assert.equal(wantHta.status, 0, wantHta.stderr);
  assert.notDeepEqual(wantHta.json.tables, want.json.tables, 'HTA mode gives other numbers on the sample (so a rerun shows)');

  const page = await open(`${server.url}#sample=1`);
  await waitDone(page);
  const before = await readPanel(page, 'temporal');
  assert.equal(before.state, 'idle', 'a panel runs only when opened');
  assert.equal(before.visible, false);

  let panel = await openTab(page, 'temporal');
  assert.ok(panel.visible);
  assert.equal((await readPage(page)).overviewVisible, false, 'one tab at a time');
  assert.match(page.url(), /#sample=1&tab=temporal$/, 'URL hash records the tab');
  assertPanelShows(panel, want.json);
  assert.match(panel.status, /^rank 0 · \d+ ms$/);
  assert.equal(panel.charts.length, 1);
  await assertChartsDrawn(page, panel);

  const csv = await download(page, '#panel-temporal [data-csv="temporal_breakdown"]');
  assert.equal(csv.name, 'temporal_breakdown.csv');
  assert.equal(csv.bytes.toString('utf8'), cliRun(dir, ['temporal', '--csv', sampleName]).stdout, 'CSV = the CLI\'s --csv');
  const png = await download(page, `#panel-temporal [data-png="${panel.charts[0].id}"]`);
  assert.match(png.name, /\.png$/);
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
  assert.ok(png.bytes.length > 1000, 'PNG has content');
  await screenshot(page, 'g-temporal');

  await page.click('#panel-temporal input.hta');
  panel = await waitPanel(page, 'temporal');
  assertPanelShows(panel, wantHta.json);
  assert.match(panel.status, /^HTA mode · rank 0 /);
  const htaCsv = await download(page, '#panel-temporal [data-csv="temporal_breakdown"]');
  assert.equal(htaCsv.bytes.toString('utf8'), cliRun(dir, ['temporal', '--hta', '--csv', sampleName]).stdout);
  await screenshot(page, 'g-temporal-hta');
  await page.click('#panel-temporal input.hta');
  assertPanelShows(await waitPanel(page, 'temporal'), want.json);

  // back to the overview and the hash forgets the tab; a link with the tab opens it directly
  await page.click('#tabs [data-tab="overview"]');
  assert.ok((await readPage(page)).overviewVisible);
  assert.match(page.url(), /#sample=1$/);
  const linked = await open(`${server.url}#sample=1&tab=temporal`);
  await waitDone(linked);
  assertPanelShows(await waitPanel(linked, 'temporal'), want.json);
  assertClean(page);
  assertClean(linked);
  await page.close();
  await linked.close();
});

corpusTest('(h) sorting by a column and the ranks filter on a 2-rank trace', async () => {
  const names = ['sampled_rank-0.json.gz', 'sampled_rank-1.json.gz'];
  const want = cliAnalysis(traceFilter, 'temporal', names);
  assert.equal(want.status, 0, want.stderr);
  const page = await open();
  await page.setInputFiles('#folder', traceFilter);
  await waitDone(page);
  let panel = await openTab(page, 'temporal');
  assertPanelShows(panel, want.json);
  assert.match(panel.status, /^ranks 0, 1 /);

  const t = panel.tables[0], rows = want.json.tables.temporal_breakdown;
  const original = expectedCells(rows, t.columns);
  const sorted = (col, dir) => expectedCells([...rows].sort((a, b) => dir * (Number(a[col].src) - Number(b[col].src))), t.columns);
  // a column whose ascending order is not the table's order, so the click visibly reorders
  const col = t.columns.find((c) => c !== 'rank' && JSON.stringify(sorted(c, 1)) !== JSON.stringify(original));
  assert.ok(col, 'some column orders the ranks differently');
  const th = `#panel-temporal th[data-col="${col}"]`;
  const shownTable = async () => (await readPanel(page, 'temporal')).tables[0];
  await page.click(th);
  let shown = await shownTable();
  assert.deepEqual(shown.rows, sorted(col, 1), `ascending by ${col}`);
  assert.equal(shown.sort[t.columns.indexOf(col)], 'ascending');
  await page.click(th);
  shown = await shownTable();
  assert.deepEqual(shown.rows, sorted(col, -1), `descending by ${col}`);
  assert.equal(shown.sort[t.columns.indexOf(col)], 'descending');
  await page.click(th);
  shown = await shownTable();
  assert.deepEqual(shown.rows, original, 'third click: the table\'s own order');
  assert.ok(shown.sort.every((s) => s === 'none'));
  await page.click(th);
  await screenshot(page, 'h-sorted');

  // ranks filter: the analysis runs on the chosen ranks only, as --ranks does
  await page.fill('#panel-temporal input.ranks', '1');
  await page.click('#panel-temporal button[type=submit]');
  panel = await waitPanel(page, 'temporal');
  assertPanelShows(panel, cliAnalysis(traceFilter, 'temporal', [...names, '--ranks', '1']).json);
  assert.match(panel.status, /^rank 1 /);
  assert.equal(panel.tables[0].sort[t.columns.indexOf(col)], 'none', 'a new run shows the table in its own order');

  // a rank the trace does not have: the CLI's message, and the page recovers
  await page.fill('#panel-temporal input.ranks', '7');
  await page.press('#panel-temporal input.ranks', 'Enter');
  panel = await waitPanel(page, 'temporal');
  const bad = cliAnalysis(traceFilter, 'temporal', [...names, '--ranks', '7']);
  assert.equal(bad.status, 1);
  assert.equal(panel.state, 'error');
  assert.equal(panel.error, bad.message);
  assert.deepEqual(panel.tables, [], 'no stale table under an error');
  await screenshot(page, 'h-bad-rank');
  await page.fill('#panel-temporal input.ranks', '0-1');
  await page.click('#panel-temporal button[type=submit]');
  assertPanelShows(await waitPanel(page, 'temporal'), want.json);
  assertClean(page);
  await page.close();
});

test('(i) every analysis of the registry has a tab that shows what its CLI subcommand shows, in both modes where it has an HTA mode', async () => {
  const analyses = cliAnalyses();
  const names = analyses.map((a) => a.name);
  assert.ok(names.includes('temporal') && names.includes('decode'), `CLI analyses: ${names}`);
  const dir = path.join(dist, 'sample');
  const page = await open(`${server.url}#sample=1`);
  await waitDone(page);
  const tabs = await page.$$eval('#tabs [data-tab]', (bs) => bs.map((b) => b.dataset.tab));
  assert.deepEqual(tabs, ['overview', ...names, 'compare-ranks'], 'Overview, one tab per analysis in registry order, Compare ranks');
  for (const { name, hta: hasHta } of analyses) {
    // an analysis without an HTA counterpart (decode) runs in one mode and shows no HTA checkbox
    for (const hta of hasHta ? [false, true] : [false]) {
      const want = cliAnalysis(dir, name, [sampleName, ...(hta ? ['--hta'] : [])]);
      const what = `${name}${hta ? ' --hta' : ''}`;
      assert.notEqual(want.status, 2, `${what}: the CLI crashed: ${want.stderr}`);
      let panel;
      if (hta) {
        await page.click(`#panel-${name} input.hta`);
        panel = await waitPanel(page, name);
      } else panel = await openTab(page, name);
      assert.ok(panel.visible, `${what}: panel visible`);
      assert.equal(await page.isVisible(`#panel-${name} input.hta`), hasHta, `${what}: HTA mode offered iff the CLI matches an HTA API`);
      if (want.status !== 0) {
        assert.equal(panel.state, 'error', `${what}: the CLI failed (${want.message}), so does the panel`);
        assert.equal(panel.error, want.message, `${what}: same message as the CLI`);
      } else {
        assertPanelShows(panel, want.json, what);
        assert.ok(panel.tables.length + panel.notes.length > 0, `${what}: shows a table or a note`);
        await assertChartsDrawn(page, panel, what);
        await assertFiltersAndSorting(page, name, panel, want.json, what);
        await assertFiles(page, name, panel, [sampleName, ...(hta ? ['--hta'] : [])], what);
      }
      await screenshot(page, `i-${name}${hta ? '-hta' : ''}`);
    }
  }
  assertClean(page);
  await page.close();
});

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

// src/chart/draw.rs: PALETTE (series k has colour k; waterfall bars 0, bubbles 2) and the bubble lane's grey
const PALETTE = [[78, 121, 167], [242, 142, 43], [225, 87, 89], [118, 183, 178]];
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
  assert.ok(bubbles.top < bars.top, `${what}: the bubble lane (from y ${bubbles.top}) is above the bars (from y ${bars.top})`);
  const inLane = (c) => c.perRow.slice(0, bars.top).reduce((a, b) => a + b, 0);
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

/** Drops `file` on the page as a browser would (a DataTransfer with one File). */
async function dropFile(page, file) {
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
function assertPanelShows(panel, json, what = 'panel') {
  assert.equal(panel.error, null, `${what}: unexpected error: ${panel.error}`);
  assert.equal(panel.state, 'done', `${what}: panel state`);
  assert.deepEqual(panel.notes, json.notes, `${what}: notes`);
  assert.deepEqual(panel.tables.map((t) => t.name).sort(), Object.keys(json.tables).sort(), `${what}: table names`);
  for (const t of panel.tables) {
    const rows = json.tables[t.name];
    if (rows.length) assert.deepEqual([...t.columns].sort(), Object.keys(rows[0]).sort(), `${what} ${t.name}: columns`);
    assert.equal(t.count, `${grouped(rows.length)} row${rows.length === 1 ? '' : 's'}`, `${what} ${t.name}: row count`);
    assert.equal(t.truncated, rows.length > MAX_ROWS, `${what} ${t.name}: truncation note iff more than ${MAX_ROWS} rows`);
    assert.deepEqual(t.rows, expectedCells(rows.slice(0, MAX_ROWS), t.columns), `${what} ${t.name}: cells`);
  }
}
const MAX_ROWS = 2000;

/** Every chart canvas of the panel was drawn and has ink on a background. */
async function assertChartsDrawn(page, panel, what = '') {
  for (const c of panel.charts) {
    assert.ok(c.drawn, `${what}: chart ${c.id} drawn`);
    const { ink, total } = await canvasStats(page, c.id);
    assert.ok(ink > 100 && ink < total, `${what}: chart ${c.id} has drawn pixels (${ink} of ${total})`);
  }
}

/** Each file the run produced downloads with the bytes the CLI's `--out DIR` writes, and only those. */
async function assertFiles(page, name, panel, args, what) {
  const out = mkdtempSync(path.join(tmp, `${name}-`));
  const r = cliRun(path.join(dist, 'sample'), [name, '--csv', '--out', out, ...args]);
  assert.equal(r.status, 0, r.stderr);
  const tables = new Set(panel.tables.map((t) => `${t.name}.csv`));
  assert.deepEqual([...panel.files].sort(), readdirSync(out).filter((f) => !tables.has(f)).sort(), `${what}: produced files`);
  for (const f of panel.files) {
    const got = await download(page, `#panel-${name} [data-file="${f}"]`);
    assert.equal(got.name, f);
    assert.ok(got.bytes.equals(readFileSync(path.join(out, f))), `${what}: ${f} has the CLI's bytes`);
  }
}

/** For each table: the stream filter (when there is a `stream` column) keeps exactly that stream's rows,
 * and sorting by its last numeric column orders the rows as a stable numeric sort of the CLI's rows. */
async function assertFiltersAndSorting(page, name, panel, json, what) {
  for (const [i, t] of panel.tables.entries()) {
    const rows = json.tables[t.name];
    const sel = `#panel-${name} .table-view[data-table="${t.name}"]`;
    if (t.columns.includes('stream')) {
      const streams = [...new Set(rows.map((r) => cellText(r.stream)))];
      assert.deepEqual([...t.streams].sort(), streams.sort(), `${what} ${t.name}: one filter entry per stream`);
      if (streams.length) {
        const s = t.streams[t.streams.length - 1];
        await page.selectOption(`${sel} .stream-filter`, s);
        const shown = (await readPanel(page, name)).tables[i];
        const keep = rows.filter((r) => cellText(r.stream) === s);
        assert.deepEqual(shown.rows, expectedCells(keep.slice(0, MAX_ROWS), t.columns), `${what} ${t.name}: stream ${s} rows`);
        assert.equal(shown.count, `${grouped(keep.length)} of ${grouped(rows.length)} rows`);
        await page.selectOption(`${sel} .stream-filter`, '');
      }
    }
    const col = [...t.columns].reverse().find((c) => rows.some((r) => r[c] instanceof Num));
    if (rows.length >= 2 && col) {
      await page.click(`${sel} th[data-col="${col}"]`);
      const shown = (await readPanel(page, name)).tables[i];
      const key = (r) => (r[col] instanceof Num ? Number(r[col].src) : null);
      const want = [...rows].sort((a, b) => (key(a) === null || key(b) === null
        ? (key(a) === null) - (key(b) === null) : key(a) - key(b)));
      assert.deepEqual(shown.rows, expectedCells(want.slice(0, MAX_ROWS), t.columns), `${what} ${t.name}: sorted by ${col}`);
      await page.click(`${sel} th[data-col="${col}"]`);
      await page.click(`${sel} th[data-col="${col}"]`); // back to the table's order
    }
  }
}

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

// ---- Diff mode and the Compare ranks tab (issue 7) ------------------------------------------------------

const diffDir = path.join(repoRoot, 'testdata', 'diff');
const dlrm = path.join(shared, 'traces', 'param', 'dlrm_8rank');

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

corpusTest('(n) a large file is read by several workers in blocks and shows what one worker shows (the CLI\'s numbers)', async () => {
  // small blocks so these small files take many: a gzip Kineto trace, a Paddle trace, and a trace whose event array
  // has 30 KB of objects before and after it (every cut there is a bad guess: the stretch is parsed again in one
  // job that streams to the end of the file)
  const stretches = mkdtempSync(path.join(os.tmpdir(), 'kinetoscope-stretches-'));
  const objects = (n) => Array.from({ length: n }, (_, i) => `{"id": ${i}, "name": "device ${i}"}`).join(',');
  const events = Array.from({ length: 300 }, (_, i) => `{"ph": "X", "cat": "kernel", "name": "k${i % 7}", "ts": ${i * 10}, "dur": 5, "pid": 0, "tid": 7}`).join(',\n');
  writeFileSync(path.join(stretches, 'stretches.json'), `{"deviceProperties": [${objects(900)}], "traceEvents": [${events}], "samples": [${objects(900)}]}`);
  const cases = [[traceFilter, 'sampled_rank-0.json.gz', 'temporal'], [path.join(shared, 'traces', 'paddle'), 'paddle3.3.1_cpu_mlp_adam.paddle_trace.json', 'kernels'],
    [stretches, 'stretches.json', 'kernels']];
  for (const [dir, name, tab] of cases) {
    const want = cliInfo(dir, name);
    assert.equal(want.status, 0, want.stderr);
    const page = await open();
    await page.evaluate(() => { window.kinetoscopeSplit = { min: 1, block: 4096 }; });
    // the standby worker (its helpers started, the reader's code warmed up) takes the file
    await page.waitForSelector('body[data-standby="ready"]');
    await dropFile(page, path.join(dir, name));
    assertShowsOverview(await waitDone(page), want.json);
    const { blocks, prepared } = await page.evaluate(() => window.__kinetoscopeStats);
    assert.ok(blocks > 20, `${name}: read in ${blocks} blocks`);
    assert.equal(prepared, true, `${name}: read by the standby worker`);
    const run = cliAnalysis(dir, tab, [name]);
    assert.equal(run.status, 0, run.stderr);
    assertPanelShows(await openTab(page, tab), run.json, `${name} ${tab}`);
    await screenshot(page, `n-blocks-${name.split('.')[0]}-${tab}`);
    assertClean(page);
    await page.close();
  }
  rmSync(stretches, { recursive: true, force: true });
});
