// The overview of a trace: the summary line and the warnings, then the dashboard (where the time went: Rust's HTML
// of the `summary` analysis, src/html/dashboard.rs, its charts drawn here), then the trace details (collapsed): the
// top-level fields, one table per rank and the kinds chart, from the overview JSON the worker returns (Rust's
// `info --json`), as given.
// Numbers keep Rust's own text (JSON.parse source access): no float rounding, no 2^53 limit.
import { $, el } from './dom.js';
import { Num, hoverTip, paint, parseExact } from './report.js';
import { show } from './format.js';
import { mainWasm } from './platform.js';
import { message } from './page-state.js';

export const parseOverview = parseExact;
const inline = (v) => (scalar(v) ? show(v) : Array.isArray(v) ? v.map(inline).join(', ')
  : Object.entries(v).map(([k, x]) => `${k}=${inline(x)}`).join(', '));
const scalar = (v) => v === null || v instanceof Num || typeof v !== 'object';

/** Empties what a trace showed: the error box, the overview, the tabs and their panels. */
export function clearOutput() {
  $('error').hidden = true;
  $('error').textContent = '';
  $('overview').hidden = true;
  for (const id of ['summary', 'overview-extra', 'warnings', 'ranks']) $(id).replaceChildren();
  const dash = $('dashboard');
  dashboardRun++;
  dash.dataset.state = 'idle';
  dash.querySelector('.dash-body').replaceChildren();
  dash.querySelector('.panel-error').hidden = true;
  $('warnings-box').hidden = true;
  $('chart-kinds').hidden = true;
  $('tabs').hidden = true;
  $('tabs').replaceChildren();
  $('panels').replaceChildren();
}

/** Shows an overview (its JSON text, as the worker gives it); returns it parsed. */
export function render(json) {
  const ov = parseOverview(json);
  const { events, ranks = [], warnings = [], ...rest } = ov;
  const n = (k, word) => `${k} ${word}${k === 1 ? '' : 's'}`;
  $('summary').textContent =
    `${show(events)} events · ${n(ranks.length, 'rank')}` +
    (Array.isArray(ov.files) ? ` · ${n(ov.files.length, 'file')}` : '') +
    (warnings.length ? ` · ${n(warnings.length, 'warning')}` : '');
  rows($('overview-extra'), rest);
  renderWarnings(warnings);
  $('ranks').replaceChildren(...ranks.map(rankTable));
  $('overview').hidden = false;
  drawChart(json);
  return ov;
}

function rankTable(rank, i) {
  const t = el('table', { class: 'rank', 'data-rank': rank.rank instanceof Num ? rank.rank.src : String(rank.rank ?? i) });
  t.append(el('caption', {}, `Rank ${show(rank.rank ?? '?')}${rank.file != null ? ` · ${show(rank.file)}` : ''}`));
  rows(t, rank);
  return t;
}

// One row per scalar; an object or array becomes a heading row followed by its members, indented.
// Members of `kinds` carry data-kind (tests and styles find a kind's count by name).
function rows(table, obj, path = '', depth = 0) {
  const body = table.tBodies[0] ?? table.appendChild(el('tbody'));
  for (const [key, v] of Object.entries(obj)) {
    const at = path ? `${path}.${key}` : key;
    const label = el('td', { class: 'key', style: depth ? `padding-left:${0.5 + depth}rem` : null }, key);
    if (scalar(v) || (Array.isArray(v) && v.every(scalar) && v.length)) {
      // list members are mostly ids (streams, devices, steps): shown without thousands separators
      const text = Array.isArray(v) ? v.map((x) => (x instanceof Num ? x.src : show(x))).join(', ') : show(v);
      const attrs = path === 'kinds' ? { 'data-kind': key } : { 'data-key': at };
      body.append(el('tr', attrs, label, el('td', { class: v instanceof Num ? 'num' : 'text' }, text)));
    } else if (Object.keys(v).length === 0) {
      body.append(el('tr', { 'data-key': at }, label, el('td', { class: 'text' }, '—')));
    } else {
      body.append(el('tr', { class: 'group', 'data-key': at }, el('th', { colspan: 2, style: label.getAttribute('style') }, key)));
      rows(table, v, at, depth + 1);
    }
  }
}

function renderWarnings(warnings) {
  $('warnings').replaceChildren(...warnings.map((w) => {
    const { kind, count, message: text, file, offset, ...more } = w;
    const where = [file != null ? show(file) : null, offset != null ? `byte ${show(offset)}` : null].filter(Boolean);
    return el('li', { 'data-kind': show(kind), 'data-count': count != null ? count.src ?? show(count) : null },
      count != null ? el('span', { class: 'count' }, `${show(count)}× `) : '',
      el('code', {}, show(kind)), ` ${text != null ? show(text) : ''}`,
      where.length ? el('span', { class: 'where' }, ` (${where.join(' @ ')})`) : '',
      ...Object.entries(more).map(([k, v]) => ` — ${k}: ${inline(v)}`));
  }));
  $('warnings-box').hidden = warnings.length === 0;
}

// Charts are drawn by the main-thread wasm instance (plotters-canvas) from the same overview JSON.
async function drawChart(json) {
  const canvas = $('chart-kinds');
  let mod;
  try {
    mod = await mainWasm;
  } catch {
    return;
  }
  if (typeof mod.draw_kinds_chart !== 'function') return;
  canvas.hidden = false;
  try {
    canvas.dataset.size ||= `${canvas.width},${canvas.height}`;
    const [w, h] = canvas.dataset.size.split(',').map(Number);
    paint(canvas, w, h, (dark, scale) => mod.draw_kinds_chart('chart-kinds', json, dark, scale));
    if (!canvas.nextElementSibling?.classList.contains('chart-tip')) canvas.after(el('div', { class: 'chart-tip', hidden: '' }));
    hoverTip(canvas, canvas.nextElementSibling);
  } catch (e) {
    canvas.hidden = true;
    console.warn('draw_kinds_chart failed:', e);
  }
}

let dashboardRun = 0; // a newer trace (clearOutput) or run supersedes one still waiting for its answer

/** Shows the dashboard of the trace just read (`ask`: a request to the worker holding it): Rust's HTML, every text
 * in it escaped by Rust (src/html), its charts drawn into their slots; a card's or figure's link opens its panel
 * (`open(name)`). #dashboard[data-state]: running, done, error. */
export async function showDashboard(ask, open) {
  const run = ++dashboardRun;
  const box = $('dashboard');
  const body = box.querySelector('.dash-body');
  const error = box.querySelector('.panel-error');
  box.dataset.state = 'running';
  try {
    const [answer, mod] = await Promise.all([ask({ type: 'dashboard' }), mainWasm]);
    if (run !== dashboardRun) return;
    // for benchmarks: the reading worker's wasm memory once the dashboard's analyses ran, and their time (app.js
    // sets the others)
    if (window.__kinetoscopeStats) Object.assign(window.__kinetoscopeStats, { overviewWasmMemoryBytes: answer.wasmMemoryBytes, dashboardMs: answer.ms });
    const { html, charts } = parseExact(answer.json);
    body.innerHTML = html;
    for (const a of body.querySelectorAll('a[data-panel]')) {
      a.addEventListener('click', (e) => {
        if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return; // a new tab follows the href
        e.preventDefault();
        open(a.dataset.panel);
      });
    }
    for (const figure of body.querySelectorAll('figure[data-slot]')) drawSlot(mod, figure, charts[Number(figure.dataset.slot)]);
    box.dataset.state = 'done';
  } catch (e) {
    if (e.dropped || run !== dashboardRun) return;
    error.textContent = message(e);
    error.hidden = false;
    box.dataset.state = 'error';
  }
}

/** Draws `chart` on a canvas as wide as `figure` (crisp on high-DPI screens, hover shows exact values). */
function drawSlot(mod, figure, chart) {
  const w = Math.max(320, Math.floor(figure.clientWidth || 480)), h = Math.round(Math.min(300, Math.max(200, w * 0.5)));
  const canvas = el('canvas', { id: `dashboard-slot-${figure.dataset.slot}`, role: 'img', 'aria-label': chart?.title ?? 'chart' });
  const tip = el('div', { class: 'chart-tip', hidden: '' });
  figure.replaceChildren(canvas, tip);
  try {
    paint(canvas, w, h, (dark, scale) => mod.draw_chart(canvas.id, JSON.stringify(chart), dark, scale));
    hoverTip(canvas, tip);
  } catch (e) {
    console.warn('draw_chart failed:', e);
    figure.append(el('p', { class: 'inline-error' }, `Could not draw this chart: ${e?.message ?? e}`));
  }
}
