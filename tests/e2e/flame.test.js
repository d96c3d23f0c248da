// Browser end-to-end tests of the flame graph panel (www/report.js flameView, src/chart/flame.rs) on the bundled
// sample: the picture, its table against `kinetoscope flame --json`, zoom by a click on a frame and back (Reset,
// Escape), search, measure=gpu, the dark theme, and the export buttons (each download equals `kinetoscope export`'s
// file). Screenshots go to tests/e2e/out/. Shared setup and checks: setup.js and harness.js.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cliAnalysis, cliRun, dist, download, openTab, screenshot, waitDone, waitPanel } from './harness.js';
import { assertClean, assertPanelShows, open, sampleName, server, setUp } from './setup.js';

setUp();

const FIGURE = '#panel-flame figure.chart';

/** The flame canvas' pixels: painted (not background), warm (a frame's own colour: red to yellow, flame.rs warm),
 * grey (a frame left out by a search, light theme), and how many distinct warm colours fill 50 pixels or more. */
const flameStats = (page) => page.evaluate((sel) => {
  const c = document.querySelector(`${sel} canvas`);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const [br, bg, bb] = [d[0], d[1], d[2]]; // the top left corner is background
  let ink = 0, warm = 0, grey = 0;
  const colours = new Map();
  for (let i = 0; i < d.length; i += 4) {
    const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
    if (Math.abs(r - br) + Math.abs(g - bg) + Math.abs(b - bb) > 30) ink++;
    if (r >= 180 && g >= 95 && b < 100 && r - b > 100) {
      warm++;
      const k = (r << 16) | (g << 8) | b;
      colours.set(k, (colours.get(k) ?? 0) + 1);
    } else if (r > 150 && r < 240 && Math.abs(r - g) < 4 && Math.abs(g - b) < 4) grey++;
  }
  return { ink, warm, grey, colours: [...colours.values()].filter((n) => n >= 50).length, total: c.width * c.height };
}, FIGURE);

/** The figure's view (data-zoom, data-search), its toolbar and the drawn frames (hover regions with a frame index). */
const flameView = (page) => page.evaluate((sel) => {
  const f = document.querySelector(sel);
  const c = f.querySelector('canvas');
  return {
    zoom: f.dataset.zoom ?? null,
    search: f.dataset.search ?? null,
    reset: f.querySelector('button.flame-reset').disabled ? 'disabled' : 'enabled',
    where: f.querySelector('.flame-zoom').textContent,
    cssWidth: Number(c.dataset.cssWidth),
    theme: c.dataset.theme,
    regions: c.regions,
    frames: c.regions.filter((g) => g.frame !== undefined),
  };
}, FIGURE);

/** Clicks the middle of hover region `g` (CSS pixels of the canvas). */
const clickRegion = (page, g) =>
  page.locator(`${FIGURE} canvas`).click({ position: { x: (g.x0 + g.x1) / 2, y: (g.y0 + g.y1) / 2 } });

/** The frames of the drawn rows: rows[k] = the regions of row k (top first). */
const rows = (frames) => {
  const tops = [...new Set(frames.map((g) => g.y0))].sort((a, b) => a - b);
  return tops.map((y) => frames.filter((g) => g.y0 === y));
};
const widest = (gs) => gs.reduce((a, b) => (b.x1 - b.x0 > a.x1 - a.x0 ? b : a));

test('(f) the flame graph: drawn from Rust, the CLI\'s table, zoom on a click, Reset and Escape, search, measure gpu, dark theme', async () => {
  const dir = path.join(dist, 'sample');
  const want = cliAnalysis(dir, 'flame', [sampleName]);
  const wantGpu = cliAnalysis(dir, 'flame', [sampleName, '--measure', 'gpu']);
  assert.equal(want.status, 0, want.stderr);
  assert.equal(wantGpu.status, 0, wantGpu.stderr);

  const page = await open(`${server.url}#sample=1`);
  await waitDone(page);
  let panel = await openTab(page, 'flame');
  assertPanelShows(panel, want.json);
  assert.equal(panel.charts.length, 1);
  assert.deepEqual(await page.$$eval('#panel-flame button.export', (bs) => bs.map((b) => [b.dataset.format, b.textContent])),
    [['pprof', 'pprof'], ['folded', 'Folded'], ['speedscope', 'speedscope'], ['chrome', 'Chrome trace']], 'the four export buttons');

  // the picture: a tall canvas full of frames in several warm colours, one row per depth
  const first = await flameStats(page);
  let view = await flameView(page);
  assert.equal(view.cssWidth, 900);
  // 900 wide, as tall as the deepest stack needs (220-560 px; the sample's stacks are 10 deep)
  assert.equal(first.total, 900 * (90 + 10 * 19), 'the flame canvas is 900×280 (at devicePixelRatio 1)');
  assert.ok(first.ink > 40_000, `painted pixels: ${first.ink}`);
  assert.ok(first.colours >= 6, `distinct frame colours: ${first.colours}`);
  assert.ok(first.grey < 3000, `no search: no grey frames (only the edges of text): ${first.grey}`);
  assert.deepEqual([view.zoom, view.search, view.reset], [null, null, 'disabled']);
  assert.match(view.where, /^Whole graph/);
  const byRow = rows(view.frames);
  assert.ok(byRow.length >= 5, `rows drawn: ${byRow.length}`);
  assert.ok(view.frames.every((g) => /^.+\ntotal [\d.]+ µs \([\d.e-]+ % of the view\)\nself [\d.e-]+ µs$/.test(g.text)), 'frame hover texts');
  await screenshot(page, 'flame-cpu');

  // a click on the widest frame of depth 1 zooms on it: it spans the width, the root above it is dimmed
  const target = widest(byRow[1]);
  await clickRegion(page, target);
  view = await flameView(page);
  assert.equal(view.zoom, String(target.frame));
  assert.equal(view.reset, 'enabled');
  assert.equal(view.where, `Zoomed on ${target.text.split('\n')[0]}`);
  const zoomed = await flameStats(page);
  assert.notDeepEqual(zoomed, first, 'the zoom changes the picture');
  // and a narrower frame under it, clicked, is drawn across the whole width
  const deeper = rows(view.frames)[2].filter((g) => g.x1 - g.x0 < 600 && g.x1 - g.x0 > 20)[0];
  assert.ok(deeper, `a frame of depth 2 narrower than the width: ${JSON.stringify(rows(view.frames)[2])}`);
  await clickRegion(page, deeper);
  view = await flameView(page);
  assert.equal(view.zoom, String(deeper.frame));
  const now = view.frames.find((g) => g.frame === deeper.frame);
  assert.ok(now.x1 - now.x0 > 850, `the zoomed frame spans the width: ${JSON.stringify(now)}`);
  assert.ok(/\(100 % of the view\)/.test(now.text), now.text);
  await screenshot(page, 'flame-zoomed');

  // Reset: the first picture again; Escape in the panel does the same
  await page.click(`${FIGURE} button.flame-reset`);
  view = await flameView(page);
  assert.deepEqual([view.zoom, view.reset], [null, 'disabled']);
  assert.deepEqual(await flameStats(page), first, 'Reset draws the first picture');
  await clickRegion(page, deeper);
  assert.equal((await flameView(page)).zoom, String(deeper.frame));
  await page.keyboard.press('Escape');
  assert.equal((await flameView(page)).zoom, null, 'Escape resets the zoom');
  assert.deepEqual(await flameStats(page), first);

  // search: the matching frames keep their colour, the others turn grey; the title line counts the matches
  await page.fill(`${FIGURE} input.flame-search`, 'conv');
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.search === 'conv', FIGURE);
  const searched = await flameStats(page);
  view = await flameView(page);
  assert.ok(searched.grey > 20_000, `grey pixels: ${searched.grey}`);
  assert.ok(searched.warm > 1000 && searched.warm < first.warm / 2, `warm pixels ${searched.warm} of ${first.warm}`);
  const title = view.regions.find((g) => g.frame === undefined && /frames? match “conv”/.test(g.text));
  assert.ok(title, `a title line counting the matches: ${JSON.stringify(view.regions.filter((g) => g.frame === undefined))}`);
  const [, count, share] = title.text.match(/ (\d+) frames? match “conv”: ([\d.]+) % of the view$/);
  const matching = view.frames.filter((g) => g.text.split('\n')[0].toLowerCase().includes('conv'));
  // counted: every matching frame of the view, drawn or narrower than half a pixel
  assert.ok(matching.length >= 3 && Number(count) >= matching.length, `${count} counted, ${matching.length} drawn`);
  assert.ok(Number(share) > 0 && Number(share) < 100, share);
  await screenshot(page, 'flame-search');
  await page.fill(`${FIGURE} input.flame-search`, '');
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.search === undefined, FIGURE);
  assert.deepEqual(await flameStats(page), first, 'an empty search: the first picture');

  // measure gpu: the GPU time by launching stack, the CLI's table
  await page.fill('#panel-flame input[data-opt="measure"]', 'gpu');
  await page.click('#panel-flame button[type=submit]');
  panel = await waitPanel(page, 'flame');
  assertPanelShows(panel, wantGpu.json, 'measure gpu');
  const gpu = await flameStats(page);
  assert.ok(gpu.ink > 20_000 && gpu.colours >= 6, JSON.stringify(gpu));
  assert.notDeepEqual(gpu, first);
  assert.equal((await flameView(page)).zoom, null, 'a new run starts unzoomed');
  await screenshot(page, 'flame-gpu');
  assertClean(page);
  await page.close();

  // the dark theme: the same frames on the dark background
  const dark = await open(`${server.url}#sample=1&tab=flame`, { colorScheme: 'dark' });
  await waitDone(dark);
  assertPanelShows(await waitPanel(dark, 'flame'), want.json, 'dark');
  const d = await flameView(dark);
  assert.equal(d.theme, 'dark');
  const ds = await flameStats(dark);
  assert.ok(ds.ink > 40_000 && ds.colours >= 6, JSON.stringify(ds));
  await screenshot(dark, 'flame-dark');
  assertClean(dark);
  await dark.close();
});

test('(z) the flame panel\'s export buttons download what kinetoscope export writes, byte for byte', async () => {
  const dir = path.join(dist, 'sample');
  const out = mkdtempSync(path.join(os.tmpdir(), 'kinetoscope-flame-export-'));
  try {
    const page = await open(`${server.url}#sample=1&tab=flame`);
    await waitDone(page);
    await waitPanel(page, 'flame');
    for (const [measure, extra] of [['cpu', []], ['gpu', ['--gpu']]]) {
      if (measure === 'gpu') {
        await page.fill('#panel-flame input[data-opt="measure"]', 'gpu');
        await page.click('#panel-flame button[type=submit]');
        await waitPanel(page, 'flame');
      }
      for (const format of ['pprof', 'folded', 'speedscope', 'chrome']) {
        const got = await download(page, `#panel-flame button.export[data-format="${format}"]`);
        const file = path.join(out, got.name);
        const r = cliRun(dir, ['export', format, sampleName, '-o', file, ...extra]);
        assert.equal(r.status, 0, r.stderr);
        assert.ok(got.bytes.equals(readFileSync(file)), `${measure} ${format}: ${got.name} is the CLI's file (${got.bytes.length} vs ${readFileSync(file).length} bytes)`);
      }
    }
    assertClean(page);
    await page.close();
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
