// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh) with
// real traces from ../shared (and testdata/), and every number the page shows is compared with the real CLI's
// `kinetoscope info --json` (overview) and `kinetoscope <analysis> --json` (panels) on the same files.
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: reading traces — drop, pickers, the sample, corrupt input, the single-file build, Cancel, reading in blocks.
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { test } from 'node:test';
import {
  canvasInk, cliAnalysis, cliInfo, cliRun, corpusTest, dist, download, expectedRows, grouped, hasKindsChart, Num, openTab, readDashboard, readReport, repoRoot, screenshot, shared,
  waitDone,
} from './harness.js';
import { assertChartsDrawn, assertClean, assertPanelShows, dropFile, open, sampleName, server, setUp, tmp, traceFilter } from './setup.js';


/** The Overview's dashboard shows `kinetoscope summary --json`'s numbers on the same files, and they agree with the
 * analyses behind them (`temporal`, `kernels`, `steps`, each run by the CLI): the key figures as the `headline`
 * table says them; per rank the stacked GPU-time bar (its parts' widths are `gpu_time_by_rank`'s percentages), busy
 * and idle % (temporal's idle_time_pctg, to the 0.1 shown); the top GPU kernels and CPU operators with their totals in
 * ms (kernels' sum (us) for kernels of one rank); the steps (steps' step numbers). Every card and figure links to
 * its panel, the step chart is drawn, the trace details start collapsed. */
async function assertShowsDashboard(page, dir, names, what) {
  const want = cliAnalysis(dir, 'summary', names);
  assert.equal(want.status, 0, want.stderr);
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('dashboard').dataset.state), null, { timeout: 60_000 });
  const shown = await readDashboard(page);
  assert.equal(shown.state, 'done', `${what}: dashboard shown`);
  assert.ok(shown.visible, `${what}: the dashboard is on the Overview`);
  const table = (name) => want.json.tables[name];
  const near = (text, value, digits, why) => assert.ok(Math.abs(Number(text) - value) <= 0.5 * 10 ** -digits + 1e-9, `${what}: ${why}: shown ${text}, want ${value}`);
  // key figures: the headline table, each linking to its panel
  assert.deepEqual(shown.figures.map((f) => [f.figure, f.value, f.unit, f.detail, f.panel]),
    table('headline').map((r) => [r.figure, r.value.src.replace(/\.0$/, ''), r.unit, r.detail, r.panel]), `${what}: key figures`);
  for (const f of shown.figures) assert.equal(f.href, `#tab=${f.panel}`);
  // per rank: the stacked bar and the metrics
  const gpu = table('gpu_time_by_rank');
  const ranks = shown.cards.ranks.tables[0];
  assert.equal(shown.cards.ranks.panel, 'temporal');
  assert.deepEqual(ranks.rows.map((r) => r[0].replace(/ outlier$/, '')), gpu.map((r) => r.rank.src), `${what}: one row per rank`);
  const temporal = cliAnalysis(dir, 'temporal', names);
  assert.equal(temporal.status, 0, temporal.stderr);
  gpu.forEach((g, i) => {
    const parts = ['compute', 'communication', 'memory', 'other', 'idle'].filter((p) => g[`${p}_pct`].n > 0);
    assert.deepEqual(ranks.bars[i], parts.map((p) => [p, `${g[`${p}_pct`].src}%`]), `${what}: rank ${g.rank.src} stacked bar`);
    const head = (h) => ranks.rows[i][ranks.head.indexOf(h)];
    near(head('busy %'), g.busy_pct.n, 1, `rank ${g.rank.src} busy %`);
    const t = temporal.json.tables.temporal_breakdown.find((r) => r.rank.src === g.rank.src);
    near(head('idle %'), t.idle_time_pctg.n, 1, `rank ${g.rank.src} idle % = temporal's`);
  });
  if (table('ranks')) assert.deepEqual(ranks.outliers, table('ranks').filter((r) => r.outlier_on).map((r) => r.rank.src), `${what}: outliers marked`);
  // top kernels and operators, totals in ms; a kernel of one rank has kernels' sum
  const kernels = cliAnalysis(dir, 'kernels', names);
  assert.equal(kernels.status, 0, kernels.stderr);
  for (const [card, name] of [['top-kernels', 'top_gpu_kernels'], ['top-cpu-ops', 'top_cpu_ops']]) {
    const rows = shown.cards[card].tables[0].rows;
    assert.deepEqual(rows.map((r) => r[0]), table(name).map((r) => r.name), `${what}: ${card} names`);
    rows.forEach((r, i) => near(r[2], table(name)[i].total_us.n / 1000, 3, `${card} ${r[0]} total ms`));
  }
  assert.equal(shown.cards['top-kernels'].panel, 'kernels');
  if (gpu.length === 1) {
    for (const r of shown.cards['top-kernels'].tables[0].rows) {
      const k = kernels.json.tables.gpu_kernel_breakdown__kernels?.find((x) => x.name === r[0]);
      if (k) near(r[2], k['sum (us)'].n / 1000, 3, `${r[0]}: kernels' sum`);
    }
  }
  // steps: the chart (two steps or more on a rank) or the table, of the steps analysis' steps
  const steps = cliAnalysis(dir, 'steps', names);
  assert.equal(steps.status, 0, steps.stderr);
  const stepNumbers = [...new Set(table('step_times').map((s) => s.step.src))].sort();
  assert.deepEqual(stepNumbers, [...new Set(steps.json.tables.profiler_steps.map((s) => s.profiler_step.src))].sort(), `${what}: the steps of steps`);
  const stepCard = shown.cards.steps;
  if (stepCard.canvases.length) assert.ok(stepCard.canvases.every((c) => c.drawn), `${what}: step chart drawn`);
  else if (stepNumbers.length) assert.deepEqual(stepCard.tables[0].rows.map((r) => r[1]), table('step_times').map((s) => s.step.src));
  else assert.match(stepCard.text, /no steps/);
  assert.equal(await page.evaluate(() => document.getElementById('trace-details').open), false, `${what}: trace details start collapsed`);
  return shown;
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

setUp();

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
  const dash = await assertShowsDashboard(page, traceFilter, names, '2 ranks');
  assert.deepEqual(dash.figures.slice(-2).map((f) => f.figure), ['Outlier ranks', 'Patterns found'], 'several ranks: the outliers named, then the patterns');
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
  const dash = await assertShowsDashboard(page, path.join(dist, 'sample'), [sampleName], 'sample');
  assert.ok(!dash.figures.some((f) => f.figure === 'Outlier ranks'), 'one rank: no outliers');
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
  // damage read in one pass by the reading worker and in blocks of 64 bytes by the helpers shows what the CLI shows:
  // an event with an array left open (a one-pass read once ran on over the events after it, a read in blocks stopped
  // at a block's end)
  const bad = path.join(repoRoot, 'testdata', 'kineto', 'bad');
  const want = cliInfo(bad, 'unclosed-array-in-event.json');
  assert.equal(want.status, 0, want.stderr);
  for (const split of [{ min: 1e15 }, { min: 1, block: 64 }]) {
    await page.evaluate((split) => { window.kinetoscopeSplit = split; }, split);
    await page.setInputFiles('#file', path.join(bad, 'unclosed-array-in-event.json'));
    assertShowsOverview(await waitDone(page), want.json);
    const { blocks } = await page.evaluate(() => window.__kinetoscopeStats);
    assert.ok(split.block ? blocks > 4 : blocks === 0, `${JSON.stringify(split)}: ${blocks} blocks`);
  }
  await page.evaluate(() => { delete window.kinetoscopeSplit; });
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
  // split by the page's own block size (Rust's split_block_bytes: an eighth of a helper's share, 8 MiB at least)
  const { blocks, helpers } = await page.evaluate(() => window.__kinetoscopeStats);
  if (helpers > 0) assert.ok(blocks >= 8, `60 MB read in ${blocks} blocks by ${helpers} helpers`);
  assertClean(page);
  await page.close();
});

corpusTest('(n) a large file is read by several workers in blocks and shows what one worker shows (the CLI\'s numbers)', async () => {
  // small blocks so these small files take many: a gzip Kineto trace, a Paddle trace, and a trace whose event array
  // has 30 KB of objects before and after it (every cut there is a bad guess: the stretch is parsed again in one
  // job that streams to the end of the file), and gzip-compressed with 130 KB of objects (blocks of content parsed
  // again in the reading worker, from the arrays the page reuses for them)
  const stretches = mkdtempSync(path.join(os.tmpdir(), 'kinetoscope-stretches-'));
  const objects = (n) => Array.from({ length: n }, (_, i) => `{"id": ${i}, "name": "device ${i}"}`).join(',');
  const events = Array.from({ length: 300 }, (_, i) => `{"ph": "X", "cat": "kernel", "name": "k${i % 7}", "ts": ${i * 10}, "dur": 5, "pid": 0, "tid": 7}`).join(',\n');
  const stretched = (n) => `{"deviceProperties": [${objects(n)}], "traceEvents": [${events}], "samples": [${objects(n)}]}`;
  writeFileSync(path.join(stretches, 'stretches.json'), stretched(900));
  writeFileSync(path.join(stretches, 'stretches.json.gz'), gzipSync(stretched(4000)));
  // and stretches where no block can be cut, longer than twice a 1 MiB block and its search window: 3 MB of
  // whitespace, one 3 MB event (a split read of a gzip file lost all that followed such a stretch, thirty-fourth round)
  const huge = `{"ph": "X", "cat": "kernel", "name": "${'x'.repeat(3e6)}", "ts": 1, "dur": 1, "pid": 0, "tid": 7}`;
  writeFileSync(path.join(stretches, 'uncut.json.gz'), gzipSync(`{"traceEvents": [${events},${' '.repeat(3e6)}${events},${huge},${events}]}`));
  // the gzip file (124 KB, 1.76 MB inflated) with a threshold between its two sizes: a file is split by its content,
  // a gzip file's inflated size (its trailer), not by its size on disk
  const cases = [[traceFilter, 'sampled_rank-0.json.gz', 'temporal', 1e6], [path.join(shared, 'traces', 'paddle'), 'paddle3.3.1_cpu_mlp_adam.paddle_trace.json', 'kernels', 1],
    [stretches, 'stretches.json', 'kernels', 1], [stretches, 'stretches.json.gz', 'kernels', 1], [stretches, 'uncut.json.gz', 'kernels', 1, 1 << 20]];
  for (const [dir, name, tab, min, block = 4096] of cases) {
    const want = cliInfo(dir, name);
    assert.equal(want.status, 0, want.stderr);
    const page = await open();
    await page.evaluate(([min, block]) => { window.kinetoscopeSplit = { min, block }; }, [min, block]);
    // the standby worker (its helpers started, the reader's, the dashboard's and every analysis' code warmed up, no
    // round of it failing) takes the file
    await page.waitForSelector('body[data-standby="ready"]');
    assert.equal(await page.evaluate(() => document.body.dataset.warmed), 'true', `${name}: the standby worker warmed up`);
    await dropFile(page, path.join(dir, name));
    assertShowsOverview(await waitDone(page), want.json);
    const { blocks, prepared } = await page.evaluate(() => window.__kinetoscopeStats);
    assert.ok(blocks > (block > 4096 ? 3 : 20), `${name}: read in ${blocks} blocks`);
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

test('(p) nothing leaves the page: its Content-Security-Policy refuses inline and string code and other hosts, and a name from the trace is text', async () => {
  // a kernel and an operator named like markup: the page must show those characters, run nothing, load nothing
  const evil = '<img src=x onerror=alert(1)>';
  const file = path.join(tmp, 'markup-names.json');
  writeFileSync(file, JSON.stringify({ traceEvents: [
    { ph: 'X', cat: 'cpu_op', name: `${evil}<script>alert(2)</script>`, pid: 1, tid: 1, ts: 0, dur: 10 },
    { ph: 'X', cat: 'kernel', name: evil, pid: 0, tid: 7, ts: 2, dur: 5, args: { stream: 7 } },
  ] }));
  const page = await open();
  const requests = [], dialogs = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  await dropFile(page, file);
  await waitDone(page);
  await page.waitForFunction(() => document.getElementById('dashboard').dataset.state === 'done');
  const shown = await readDashboard(page);
  assert.equal(shown.cards['top-kernels'].tables[0].rows[0][0], evil, 'the kernel name shown as its characters');
  assert.equal(shown.cards['top-cpu-ops'].tables[0].rows[0][0], `${evil}<script>alert(2)</script>`);
  assert.equal(await page.evaluate(() => document.querySelector('#dashboard [data-card=top-kernels] td.text').textContent), evil);
  await openTab(page, 'kernels');
  assert.equal(await page.evaluate(() => document.querySelectorAll('img, main script').length), 0, 'no element made from a name');
  assert.deepEqual(dialogs, [], 'no script ran');
  assertClean(page);
  // the policy is in force (the tests' own page.evaluate is exempt, so the page's code is tried): an inline
  // script added to the page does not run, string code does not run, a connection to another host is refused
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = 1';
    document.body.append(s);
    setTimeout('window.__stringRan = 1', 0);
  });
  await page.waitForTimeout(200);
  assert.deepEqual(await page.evaluate(() => [window.__inlineRan, window.__stringRan]), [undefined, undefined], 'inline script and string code refused');
  const outside = await page.evaluate(() => fetch('https://example.com/').then(() => 'connected', (e) => e.name));
  assert.equal(outside, 'TypeError', 'fetch to another host refused');
  assert.ok(page.problems.some((p) => /Content Security Policy/.test(p)), `the refusal is reported: ${page.problems}`);
  const foreign = requests.filter((u) => !u.startsWith(server.url) && !/^(blob|data):/.test(u));
  assert.deepEqual(foreign, [], 'no request to another host, the refused one included (blocked before the network)');
  await page.close();
});
