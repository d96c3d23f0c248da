// Browser end-to-end tests: headless Chromium drives the built page (dist/, made by www/build.sh); every
// number a panel shows is compared with the real CLI's `kinetoscope critical_path --json` on the same file.
// Screenshots go to tests/e2e/out/ (CI artifact). Shared setup and checks: setup.js and harness.js.
// This file: the Critical path panel on the bundled sample (HTA's alexnet trace): its tables, the timeline's
// colours, a click on an arrow head or a path event pinning what it joins, the overlay download, the options
// (annotation, instance, rank) and a bad annotation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { canvasColours, cliAnalysis, cliRun, dist, download, openTab, readPanel, screenshot, waitDone, waitPanel } from './harness.js';
import { assertChartsDrawn, assertClean, assertPanelShows, open, PALETTE, sampleName, server, setUp, tmp } from './setup.js';

setUp();

const NAME = 'critical_path';
const dir = path.join(dist, 'sample');
/** `kinetoscope critical_path --json SAMPLE ARGS…`, which must succeed. */
const cli = (...args) => {
  const r = cliAnalysis(dir, NAME, [sampleName, ...args]);
  assert.equal(r.status, 0, r.stderr);
  return r.json;
};
/** The `critical_path_info` table as {key: value text}. */
const infoOf = (json) => Object.fromEntries(json.tables.critical_path_info.map((r) => [r.key, String(r.value)]));
/** src/chart/style.rs Style::muted() in the light theme: the events off the path. */
const MUTED = [0xc4, 0xc4, 0xc4];

/** Runs the panel with option `name` set to `value` (Enter in its field) and reads it when done. */
async function runWith(page, name, value) {
  await page.fill(`#panel-${NAME} [data-opt="${name}"]`, value);
  await page.press(`#panel-${NAME} [data-opt="${name}"]`, 'Enter');
  return waitPanel(page, NAME);
}

/** The hover regions of the canvas `id` (draw_chart's, CSS pixels) and its drawn width (CSS pixels). */
const regionsOf = (page, id) => page.$eval(`#${id}`, (c) => ({ regions: c.regions, width: Number(c.dataset.cssWidth) }));

/** Clicks canvas `id` at (x, y) CSS pixels of its drawn size; returns the pinned text under it (null: hidden). */
async function clickAt(page, id, x, y) {
  const box = await page.locator(`#${id}`).boundingBox();
  const { width } = await regionsOf(page, id);
  const k = box.width / width;
  await page.mouse.click(box.x + x * k, box.y + y * k);
  return page.$eval(`#${id}`, (c) => {
    const pin = c.closest('figure').querySelector('.chart-pin');
    return pin.hidden ? null : pin.textContent;
  });
}

/** The region a click at the centre of `r` picks (report.js regionAt): of `regions` holding that point, one drawn on
 * top (an arrow's head), else the smallest. */
function pickedAt(regions, r) {
  const [x, y] = [(r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2];
  const key = (g) => [g.top ? 0 : 1, (g.x1 - g.x0) * (g.y1 - g.y0)];
  return regions.filter((g) => x >= g.x0 && x <= g.x1 && y >= g.y0 && y <= g.y1)
    .sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1])[0];
}

test('(ad) the Critical path panel shows the CLI\'s tables, draws the path, pins what a click points at, offers the overlay, and takes its options', async () => {
  const want = cli();
  const page = await open(`${server.url}#sample=1`);
  await waitDone(page);
  let panel = await openTab(page, NAME);
  assertPanelShows(panel, want, 'critical path');
  // the CLI-only option (--overlay FILE) is not a field: the page offers the file as a download
  assert.deepEqual(Object.keys(panel.options), ['rank', 'annotation', 'instance', 'only_critical', 'edges', 'max_events']);
  const group = await page.$eval(`#tabs [data-tab="${NAME}"]`, (b) => b.closest('.tab-group').dataset.group);
  assert.equal(group, 'Launch & CPU');

  // every row of the breakdown (999 path edges: the page draws the rows in view) is the CLI's, in path order
  const info = infoOf(want);
  assert.equal(want.tables.critical_path_breakdown.length, Number(info.n_critical_edges));
  const csv = await download(page, `#panel-${NAME} [data-csv="critical_path_breakdown"]`);
  assert.equal(csv.bytes.toString('utf8'), cliRun(dir, [NAME, '--csv', '--table', 'critical_path_breakdown', sampleName]).stdout);
  const shownInfo = panel.tables.find((t) => t.name === 'critical_path_info');
  assert.deepEqual(Object.fromEntries(shownInfo.rows), info, 'critical_path_info: every key and value');
  assert.deepEqual(panel.tables.find((t) => t.name === 'critical_path_summary').rows.map((r) => r[0]),
    want.tables.critical_path_summary.map((r) => r.bound_by), 'summary: one row per bound_by');

  // the timeline and the bars; the path drawn in its colours (CPU operators, runtime calls), the rest grey
  assert.equal(panel.charts.length, 2, 'the timeline and the time by what bounded it');
  await assertChartsDrawn(page, panel, 'critical path');
  const timeline = panel.charts[0].id;
  const [, cpu, runtime] = await canvasColours(page, timeline, PALETTE.slice(0, 3));
  assert.ok(cpu.count > 500 && runtime.count > 5000, `CPU (${cpu.count}) and runtime calls (${runtime.count}) on the path are drawn`);

  // the overlay: the CLI's --overlay file, with the path's events and flows flagged as the info table counts them
  assert.deepEqual(panel.files, [`overlaid_critical_path_${sampleName}`, 'critical_path_info.json']);
  const overlay = await download(page, `#panel-${NAME} [data-file="overlaid_critical_path_${sampleName}"]`);
  const cliOverlay = path.join(tmp, 'overlay.json.gz');
  assert.equal(cliRun(dir, [NAME, sampleName, '--overlay', cliOverlay]).status, 0);
  assert.ok(overlay.bytes.equals(readFileSync(cliOverlay)), 'the overlay download is the CLI\'s --overlay file');
  const trace = JSON.parse(gunzipSync(overlay.bytes).toString('utf8'));
  const events = trace.traceEvents ?? trace;
  assert.equal(events.filter((e) => e.args?.critical).length, Number(info.overlay_n_critical_events), 'events flagged critical');
  assert.equal(events.filter((e) => e.name === 'critical_path' && (e.ph === 's' || e.ph === 'f')).length, Number(info.overlay_n_flow_events), 'flow arrows');
  await screenshot(page, 'ad-critical-path');

  // a window of one annotation instance: the GPU part is drawn too (GPU compute on the path, the rest grey)
  const forward = 'measure|forward';
  panel = await runWith(page, 'annotation', forward);
  const wantForward = cli('--annotation', forward);
  assertPanelShows(panel, wantForward, `annotation ${forward}`);
  assert.equal(infoOf(wantForward).annotation, forward);
  assert.match(page.url(), /annotation=measure%7Cforward/, 'the URL holds the option');
  const [grey, , , gpu] = await canvasColours(page, panel.charts[0].id, [MUTED, ...PALETTE.slice(1, 4)]);
  assert.ok(gpu.count > 200, `GPU compute on the path drawn (${gpu.count} pixels)`);
  assert.ok(grey.count > 200, `events off the path drawn grey (${grey.count} pixels)`);

  // a click on a launch delay's arrow head pins its text: the edge, the events at both ends, when and how long
  const { regions } = await regionsOf(page, panel.charts[0].id);
  const launch = regions.find((r) => r.text.startsWith('launch delay: ') && pickedAt(regions, r) === r);
  assert.ok(launch, 'the launch delays have hover regions at their heads');
  let pinned = await clickAt(page, panel.charts[0].id, (launch.x0 + launch.x1) / 2, (launch.y0 + launch.y1) / 2);
  assert.equal(pinned, launch.text, 'the pinned text is the arrow head\'s (drawn over the runs)');
  const ends = pinned.match(/^launch delay: start of cudaLaunchKernel \(#\d+\) → start of (.+) \(#(\d+)\)\nCPU .+ at ([\d.]+) → GPU 0 stream \d+ at ([\d.]+) µs \([\d.]+ µs\)$/);
  assert.ok(ends, `a launch delay names its launch and its kernel: ${JSON.stringify(pinned)}`);
  // the breakdown has that edge (times from the window's start, µs), and the kernel it launched after it
  const rows = wantForward.tables.critical_path_breakdown;
  const start = Number(infoOf(wantForward).window_start);
  const edge = rows.findIndex((r) => r.type === 'critical_path_kernel_launch_delay'
    && Math.abs(r.start.n - start - Number(ends[3])) < 1 && Math.abs(r.end.n - start - Number(ends[4])) < 1);
  assert.ok(edge >= 0, `the launch delay ${ends[3]} → ${ends[4]} µs is a path edge`);
  assert.equal(String(rows[edge + 1].event_idx), `${ends[2]}.0`, 'the path goes on through the kernel launched');
  assert.equal(rows[edge + 1].bound_by, 'gpu_compute_bound');
  await screenshot(page, 'ad-critical-path-pinned');

  // a click on a path event's run pins its name; a click off every region hides the pin
  const run = regions.find((r) => /: CPU on the path\n.+ \(#\d+\)\n/.test(r.text) && r.x1 - r.x0 > 6 && pickedAt(regions, r) === r);
  assert.ok(run, 'a CPU operator on the path has a region of its own');
  pinned = await clickAt(page, panel.charts[0].id, (run.x0 + run.x1) / 2, (run.y0 + run.y1) / 2);
  assert.equal(pinned, run.text);
  const [, name, idx] = run.text.match(/\n(.+) \(#(\d+)\)\n/);
  assert.ok(rows.some((r) => String(r.event_idx) === `${idx}.0` && r.s_name === name), `#${idx} ${name} is on the path`);
  assert.equal(await clickAt(page, panel.charts[0].id, 2, 2), null, 'a click off the regions hides the pin');

  // instance and rank
  panel = await runWith(page, 'instance', '1');
  assertPanelShows(panel, cli('--annotation', forward, '--instance', '1'), 'instance 1');
  assert.equal(infoOf(cli('--annotation', forward, '--instance', '1')).instance_id, '1');
  panel = await runWith(page, 'rank', '0');
  assertPanelShows(panel, cli('--annotation', forward, '--instance', '1', '--rank', '0'), 'rank 0');

  // an annotation the trace does not have: the CLI's message, which lists the trace's annotations
  panel = await runWith(page, 'annotation', 'no such step');
  const bad = cliAnalysis(dir, NAME, [sampleName, '--annotation', 'no such step', '--instance', '1', '--rank', '0']);
  assert.equal(bad.status, 1);
  assert.equal(panel.state, 'error');
  assert.equal(panel.error, bad.message);
  assert.match(panel.error, /annotation 'no such step' is not in rank 0; it has these annotations \(instances\): .*'\[param\|pytorch\.model\.alex_net\|0\|0\|0\|measure\|forward\]' \(2\)/);
  assert.deepEqual(panel.tables, [], 'no stale table under the error');
  assert.deepEqual((await readPanel(page, NAME)).charts, [], 'no stale chart under the error');
  await screenshot(page, 'ad-critical-path-bad-annotation');
  assertClean(page);
  await page.close();
});
