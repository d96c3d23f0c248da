// The overview of a trace: the summary line and the warnings, then where the time went (the `summary`
// analysis, rendered as its panel renders it), then the trace details (collapsed): the top-level fields, one
// table per rank and the kinds chart, from the overview JSON the worker returns (Rust's `info --json`), as given.
// Numbers keep Rust's own text (JSON.parse source access): no float rounding, no 2^53 limit.
import { $, el } from './dom.js';
import { Num, hoverTip, parseExact, renderReport, reportHooks, sizeCanvas } from './report.js';
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
  for (const part of dash.querySelectorAll('.notes, .files, .charts, .tables')) part.replaceChildren();
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
    const { dark, scale } = sizeCanvas(canvas, ...canvas.dataset.size.split(',').map(Number));
    canvas.regions = JSON.parse(mod.draw_kinds_chart('chart-kinds', json, dark, scale) ?? '[]');
    if (!canvas.nextElementSibling?.classList.contains('chart-tip')) canvas.after(el('div', { class: 'chart-tip', hidden: '' }));
    hoverTip(canvas, canvas.nextElementSibling);
    canvas.dataset.drawn = '1';
  } catch (e) {
    canvas.hidden = true;
    console.warn('draw_kinds_chart failed:', e);
  }
}

let dashboardRun = 0; // a newer trace (clearOutput) or run supersedes one still waiting for its answer

/** Runs the `summary` analysis on the trace just read (`ask`: a request to the worker holding it) and shows it
 * in the Overview, as its panel would (the numbers are Rust's; #dashboard[data-state]: running, done, error). */
export async function showDashboard(ask) {
  const run = ++dashboardRun;
  const box = $('dashboard');
  const parts = Object.fromEntries(['notes', 'files', 'charts', 'tables'].map((k) => [k, box.querySelector(`.${k}`)]));
  const error = box.querySelector('.panel-error');
  box.dataset.state = 'running';
  try {
    const [answer, mod] = await Promise.all([ask({ type: 'run', analysis: 'summary', params: {}, ranks: '', hta: false }), mainWasm]);
    if (run !== dashboardRun) return;
    renderReport(parts, parseExact(answer.json),
      reportHooks(mod, 'dashboard', async (name) => (await ask({ type: 'file', analysis: 'summary', name })).bytes));
    box.dataset.state = 'done';
  } catch (e) {
    if (e.dropped || run !== dashboardRun) return;
    error.textContent = message(e);
    error.hidden = false;
    box.dataset.state = 'error';
  }
}
