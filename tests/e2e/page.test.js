// Browser end-to-end tests of the page as a product: the theme toggle (and charts drawn again in it), Save report
// (the file opened via file:// shows the dashboard's numbers, the same as `kinetoscope report`, and asks for
// nothing), several files with one bad, the views by keyboard, and a screenshot of every group of views at
// 1400×900 in light and dark (tests/e2e/out/, a CI artifact: look at them).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { cliRun, corpusTest, dist, download, outDir, readDashboard, waitDone } from './harness.js';
import { assertClean, open, sampleName, server, setUp, tmp, traceFilter } from './setup.js';

setUp();

const VIEWPORT = { width: 1400, height: 900 };
/** The page's background colour and whether the canvas `sel` is painted dark (its top-left pixel). */
const colours = (page, sel) => page.evaluate((sel) => {
  const c = document.querySelector(sel);
  const [r, g, b] = c.getContext('2d').getImageData(1, 1, 1, 1).data;
  return { page: getComputedStyle(document.body).backgroundColor, chart: r + g + b < 200 ? 'dark' : 'light', theme: c.dataset.theme };
}, sel);

test('(u) the theme follows the system, the toggle cycles auto → light → dark → auto, and charts are drawn again in it', async () => {
  const page = await open(`${server.url}#sample=1&tab=idle`, { viewport: VIEWPORT, colorScheme: 'dark' });
  await page.waitForSelector('#panel-idle[data-state="done"]', { timeout: 60_000 });
  const chart = '#panel-idle canvas';
  assert.deepEqual(await colours(page, chart), { page: 'rgb(22, 26, 34)', chart: 'dark', theme: 'dark' }, 'auto on a dark system: dark');
  await page.click('#theme');
  assert.equal(await page.textContent('#theme-name'), 'light');
  assert.deepEqual(await colours(page, chart), { page: 'rgb(255, 255, 255)', chart: 'light', theme: 'light' }, 'light chosen: chart drawn light');
  await page.click('#theme');
  assert.deepEqual(await colours(page, chart), { page: 'rgb(22, 26, 34)', chart: 'dark', theme: 'dark' });
  // the choice is kept for the next visit
  const again = await open(`${server.url}#sample=1`, { viewport: VIEWPORT, colorScheme: 'light' });
  await waitDone(again);
  assert.equal(await again.evaluate(() => localStorage.getItem('kinetoscope-theme')), null, 'another context: nothing kept');
  await page.click('#theme');
  assert.equal(await page.textContent('#theme-name'), 'auto');
  assertClean(page);
  await page.close();
  await again.close();
});

test('(v) Save report writes one HTML file of the Overview and the panels run, which opens from file:// with the dashboard\'s numbers and asks for nothing; kinetoscope report writes the same', async () => {
  const page = await open(`${server.url}#sample=1`, { viewport: VIEWPORT });
  await page.waitForSelector('#dashboard[data-state="done"]', { timeout: 60_000 });
  const dash = await readDashboard(page);
  await page.click('#tabs [data-tab="kernels"]');
  await page.waitForSelector('#panel-kernels[data-state="done"]');
  await page.click('#tabs [data-tab="idle"]');
  await page.waitForSelector('#panel-idle[data-state="done"]');
  await page.fill('#panel-idle input[data-opt="consecutive_kernel_delay"]', '50');
  await page.click('#panel-idle button[type=submit]');
  await page.waitForFunction(() => document.getElementById('panel-idle').dataset.state === 'done' && location.hash.includes('consecutive_kernel_delay=50'));
  const saved = await download(page, '#save-report');
  assert.equal(saved.name, 'kinetoscope-report.html');
  const html = saved.bytes.toString('utf8');
  const file = path.join(tmp, 'saved-report.html');
  writeFileSync(file, html);
  assert.ok(!html.includes('<script'), 'the report runs no script');
  assert.ok(html.length < 2_000_000, `a small file: ${html.length} characters`);

  // opened from file://, offline: what it shows, and no request but the file itself
  const report = await open('about:blank', { viewport: VIEWPORT });
  const requests = [];
  report.on('request', (r) => requests.push(r.url()));
  await report.goto(pathToFileURL(file).href);
  assert.deepEqual(requests, [pathToFileURL(file).href], 'nothing but the file is loaded');
  const shown = await readDashboard(report);
  assert.deepEqual(shown.figures.map((f) => [f.figure, f.value, f.unit, f.detail]), dash.figures.map((f) => [f.figure, f.value, f.unit, f.detail]), 'the key figures of the page');
  for (const card of ['ranks', 'kernel-types', 'top-kernels', 'top-cpu-ops']) {
    assert.deepEqual(shown.cards[card].tables, dash.cards[card].tables, `${card}: the page's numbers`);
  }
  assert.equal(shown.cards['top-kernels'].panel, 'kernels', 'a card links to its panel when the report has it');
  assert.equal(shown.cards.ranks.panel, null, 'and is text when it has not');
  const panels = await report.$$eval('section.panel', (ps) => ps.map((p) => [p.id, p.querySelector('.command').textContent]));
  assert.deepEqual(panels, [['panel-idle', 'kinetoscope idle TRACE --consecutive-kernel-delay 50'], ['panel-kernels', 'kinetoscope kernels TRACE']], 'in the order of the views');
  assert.ok(await report.$$eval('#panel-kernels figure svg', (s) => s.length) > 0, 'charts as SVG');
  const idleRows = await report.$$eval('#panel-idle [data-table="idle_time_breakdown"] table.report tbody tr', (rs) => rs.length);
  const cliIdle = cliRun(path.join(dist, 'sample'), ['idle', sampleName, '--consecutive-kernel-delay', '50', '--json']);
  assert.equal(idleRows, JSON.parse(cliIdle.stdout).tables.idle_time_breakdown.length, 'the idle panel with its option, as the CLI computes it');
  assert.ok(await report.evaluate(() => document.getElementById('trace-details').textContent.includes('distributedInfo') || document.getElementById('trace-details').textContent.includes('rank')));
  await report.screenshot({ path: path.join(outDir, 'v-saved-report.png') });

  // the CLI writes the same report (but its date line)
  const out = path.join(tmp, 'cli-report.html');
  const r = cliRun(path.join(dist, 'sample'), ['report', sampleName, '-o', out, '--panel', 'idle?consecutive_kernel_delay=50', '--panel', 'kernels']);
  assert.equal(r.status, 0, r.stderr);
  // but its date line, and its charts' SVG: the same charts, laid out with the browser's text measures in the page
  const same = (h) => h.replace(/<p class="report-meta">[^<]*<\/p>/, '').replace(/<svg[^]*?<\/svg>/g, '<svg/>');
  assert.equal(same(readFileSync(out, 'utf8')), same(html), 'kinetoscope report writes the page\'s file');
  assertClean(page);
  await page.close();
  await report.close();
});

test('(w) several files, one bad: the bad one is named with its error, the others open', async () => {
  const bad = path.join(tmp, 'rank1-broken.json');
  writeFileSync(bad, 'this is not a trace\n');
  const good = path.join(dist, 'sample', sampleName);
  const page = await open(server.url, { viewport: VIEWPORT });
  await page.setInputFiles('#file', [good, bad]);
  await page.waitForSelector('#dashboard[data-state="done"]', { timeout: 60_000 });
  const error = await page.textContent('#error');
  assert.match(error, /^1 of 2 files could not be read and are left out:\nrank1-broken\.json/, error);
  assert.equal(await page.isVisible('#error'), true);
  assert.match(await page.textContent('#summary'), /1 rank · 1 file/);
  assert.match(await page.textContent('#status'), /^Read 1 file in/);
  // all bad: the error, nothing open
  await page.setInputFiles('#file', [bad]);
  await page.waitForFunction(() => document.body.dataset.state === 'error');
  assert.equal(await page.isVisible('#overview'), false);
  await page.close();
});

test('(x) the views by keyboard: Tab reaches the open view, arrows move, Enter opens', async () => {
  const page = await open(`${server.url}#sample=1`, { viewport: VIEWPORT });
  await waitDone(page);
  await page.focus('#tab-overview');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.tab), 'summary');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#panel-temporal[data-state="done"]');
  assert.equal(await page.getAttribute('#tab-temporal', 'aria-selected'), 'true');
  assert.deepEqual(await page.$$eval('#tabs [data-tab]', (bs) => bs.filter((b) => b.tabIndex === 0).map((b) => b.dataset.tab)), ['temporal'], 'one stop of the Tab key');
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.tab), 'compare-ranks');
  // a figure of the Overview opens its panel
  await page.click('#tabs [data-tab="overview"]');
  await page.click('#dashboard .kpi[data-figure="GPU idle"]');
  await page.waitForSelector('#panel-idle[data-state="done"]');
  assert.match(page.url(), /tab=idle/);
  assertClean(page);
  await page.close();
});

corpusTest('(y) every group of views at 1400×900, light and dark (screenshots in tests/e2e/out/, look at them)', async () => {
  for (const theme of ['light', 'dark']) {
    const page = await open(server.url, { viewport: VIEWPORT, colorScheme: theme });
    await page.setInputFiles('#folder', traceFilter);
    await page.waitForSelector('#dashboard[data-state="done"]', { timeout: 60_000 });
    await page.waitForTimeout(200);
    // the Overview fits one screen: the dashboard's last card ends above the fold
    const bottom = await page.evaluate(() => Math.max(...[...document.querySelectorAll('#dashboard .card')].map((c) => c.getBoundingClientRect().bottom)));
    assert.ok(bottom <= 900, `${theme}: the dashboard ends at ${bottom} px, within 900`);
    await page.screenshot({ path: path.join(outDir, `y-${theme}-overview.png`) });
    const groups = await page.$$eval('#tabs .tab-group[data-group]', (gs) => gs.map((g) => [g.dataset.group, g.querySelector('[data-tab]').dataset.tab]));
    for (const [group, tab] of groups) {
      await page.click(`#tabs [data-tab="${tab}"]`);
      if (tab === 'compare-ranks') await page.fill('#panel-compare-ranks input.test-ranks', '1').then(() => page.press('#panel-compare-ranks input.test-ranks', 'Enter'));
      await page.waitForFunction((t) => ['done', 'error'].includes(document.getElementById(`panel-${t}`)?.dataset.state), tab, { timeout: 60_000 });
      await page.waitForTimeout(100);
      const clipped = await page.evaluate((t) => {
        const p = document.getElementById(`panel-${t}`);
        return p.scrollWidth > p.clientWidth + 1;
      }, tab);
      assert.equal(clipped, false, `${theme} ${group}: nothing wider than the page`);
      await page.screenshot({ path: path.join(outDir, `y-${theme}-${group.replace(/\W+/g, '-').toLowerCase()}.png`) });
    }
    assertClean(page);
    await page.close();
  }
});

