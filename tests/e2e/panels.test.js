// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh) with
// real traces from ../shared (and testdata/), and every number the page shows is compared with the real CLI's
// `kinetoscope info --json` (overview) and `kinetoscope <analysis> --json` (panels) on the same files.
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: the analysis panels — Temporal (downloads, HTA mode, links), sorting and ranks, every analysis of the registry.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  cellText, cliAnalyses, cliAnalysis, cliRun, corpusTest, dist, download, expectedCells, grouped, Num, openTab, readPage, readPanel, screenshot, waitDone, waitPanel,
} from './harness.js';
import { assertChartsDrawn, assertClean, assertDrawn, assertPanelShows, open, sampleName, server, setUp, tmp, traceFilter } from './setup.js';

setUp();

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
  // the tabs are grouped by the question they answer (Rust's registry groups), each group labelled
  const groups = await page.$$eval('#tabs .tab-group', (gs) => gs.map((g) => [g.dataset.group ?? '', [...g.querySelectorAll('[data-tab]')].map((b) => b.dataset.tab)]));
  assert.deepEqual(groups.map((g) => g[0]), ['', 'GPU time', 'Kernels', 'Launch & CPU', 'Communication', 'Memory', 'Steps & LLM decode', 'I/O', 'Export', 'Compare']);
  assert.deepEqual(groups[1][1].slice(0, 2), ['summary', 'temporal'], 'GPU time starts with where the time went');
  assert.deepEqual(groups.flatMap((g) => g[1]), tabs, 'every tab in exactly one group');
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
        assertDrawn(shown, keep, `${what} ${t.name}: stream ${s}`);
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
      assertDrawn(shown, want, `${what} ${t.name}: sorted by ${col}`);
      await page.click(`${sel} th[data-col="${col}"]`);
      await page.click(`${sel} th[data-col="${col}"]`); // back to the table's order
    }
  }
}

test('(q) the URL holds the panel, its options, ranks and mode; a link reopens the view; Back and Forward step through views', async () => {
  const dir = path.join(dist, 'sample');
  const view = (page) => Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.slice(1)));
  const cli = (...args) => {
    const r = cliAnalysis(dir, 'kernels', [sampleName, ...args]);
    assert.equal(r.status, 0, r.stderr);
    return r.json;
  };
  // a link with an option opens that panel with it
  const page = await open(`${server.url}#sample=1&tab=kernels&num_kernels=3`);
  await waitDone(page);
  let panel = await waitPanel(page, 'kernels');
  assert.equal(panel.options.num_kernels, '3');
  assertPanelShows(panel, cli('--num-kernels', '3'), 'linked num_kernels=3');
  // another option and HTA mode: the URL follows (only what differs from the defaults)
  await page.fill('#panel-kernels [data-opt="duration_ratio"]', '0.5');
  await page.click('#panel-kernels button[type=submit]');
  panel = await waitPanel(page, 'kernels');
  assert.deepEqual(view(page), { sample: '1', tab: 'kernels', duration_ratio: '0.5', num_kernels: '3' });
  await page.click('#panel-kernels input.hta');
  panel = await waitPanel(page, 'kernels');
  assert.deepEqual(view(page), { sample: '1', tab: 'kernels', duration_ratio: '0.5', num_kernels: '3', hta: '1' });
  assertPanelShows(panel, cli('--num-kernels', '3', '--duration-ratio', '0.5', '--hta'), 'kernels 3, 0.5, HTA');
  // another tab, then Back: the kernels view as it was; Back again: the options before; Forward
  await openTab(page, 'temporal');
  assert.deepEqual(view(page), { sample: '1', tab: 'temporal' });
  const shows = (tab, want) => page.waitForFunction(([tab, want]) => {
    const p = document.getElementById(`panel-${tab}`);
    const opts = Object.fromEntries([...p.querySelectorAll('[data-opt]')].map((i) => [i.dataset.opt, i.type === 'checkbox' ? String(i.checked) : i.value]));
    return !p.hidden && p.dataset.state === 'done' && Object.entries(want).every(([k, v]) => (k === 'hta' ? String(p.querySelector('input.hta').checked) : opts[k]) === v);
  }, [tab, want], { timeout: 60_000 });
  await page.goBack();
  await shows('kernels', { duration_ratio: '0.5', num_kernels: '3', hta: 'true' });
  await page.goBack();
  await shows('kernels', { duration_ratio: '0.5', num_kernels: '3', hta: 'false' });
  assertPanelShows(await waitPanel(page, 'kernels'), cli('--num-kernels', '3', '--duration-ratio', '0.5'), 'Back: without HTA mode');
  await page.goBack();
  await shows('kernels', { duration_ratio: '0.8', num_kernels: '3', hta: 'false' });
  assertPanelShows(await waitPanel(page, 'kernels'), cli('--num-kernels', '3'), 'Back: the linked view');
  await page.goForward();
  await shows('kernels', { duration_ratio: '0.5', num_kernels: '3', hta: 'false' });
  // ranks are part of the view too
  await page.fill('#panel-kernels .ranks', '0');
  await page.click('#panel-kernels button[type=submit]');
  await waitPanel(page, 'kernels');
  assert.equal(view(page).ranks, '0');
  assertClean(page);
  await page.close();
});
