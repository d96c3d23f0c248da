// Shows one analysis run (the JSON of Session.run_analysis, see src/page.rs) in a panel: notes,
// produced files, one canvas per chart (drawn by the wasm on this thread), one sortable table per
// result table with a stream filter and CSV download. Display only: sorting and filtering change
// what is shown, never the numbers; every number is shown as Rust wrote it; CSVs are Rust's text.
// www/build.sh inlines this module into the single-file build (once, its exports bound in each importer).

import { el } from './dom.js';

/** A number kept as its JSON text (no float rounding, no 2^53 limit); `n` is its value for sorting. */
export class Num {
  constructor(src) { this.src = src; }
  get n() { return Number(this.src); }
  // JSON.stringify writes the original text back (charts go to the wasm as JSON)
  toJSON() { return typeof JSON.rawJSON === 'function' ? JSON.rawJSON(this.src) : Number(this.src); }
}

/** JSON.parse keeping every number as a Num of its source text. */
export const parseExact = (json) =>
  JSON.parse(json, (_key, value, ctx) => (typeof value === 'number' ? new Num(ctx?.source ?? String(value)) : value));

/** Rows shown per table; the CSV download has them all. */
export const MAX_ROWS = 2000;

const NO_VALUE = '\u2014'; // NaN / null cells
const cellText = (v) => (v instanceof Num ? v.src : v === null || v === undefined ? NO_VALUE : String(v));
const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** The hooks of renderReport for charts drawn by the main-thread wasm module `mod` (its chart size if it says one),
 * ids starting with `prefix`, produced files fetched by `downloadFile(name)`. */
export const reportHooks = (mod, prefix, downloadFile) => ({
  prefix,
  chartSize: typeof mod.chart_size === 'function' ? [...mod.chart_size()] : [900, 480],
  drawChart: (id, json, dark, scale) => mod.draw_chart(id, json, dark, scale),
  downloadFile,
});

/**
 * Fills `parts` ({notes, files, charts, tables} elements of a panel) from `report`.
 * hooks: {prefix (unique id prefix), drawChart(canvasId, chartJson, dark, scale) → hover regions JSON, chartSize [w, h],
 *         downloadFile(name) → Promise<Uint8Array>}.
 */
export function renderReport(parts, report, hooks) {
  parts.notes.replaceChildren(...report.notes.map((n) => el('li', {}, n)));
  parts.notes.hidden = report.notes.length === 0;
  parts.files.replaceChildren(...report.files.map((f) => fileButton(f, hooks)));
  parts.files.hidden = report.files.length === 0;
  parts.charts.replaceChildren(...report.charts.map((c, i) => chartFigure(c, i, hooks)));
  // charts first: drawing measures text, which would lay out the new tables too
  parts.tables.replaceChildren();
  report.charts.forEach((c, i) => drawOne(parts.charts.children[i], c, hooks));
  parts.tables.replaceChildren(...report.tables.map((t) => tableView(t)));
}

// ---- produced files ---------------------------------------------------------------------------------
function fileButton(f, hooks) {
  const b = el('button', { type: 'button', class: 'download', 'data-file': f.name },
    `Download ${f.name} (${grouped(f.bytes instanceof Num ? f.bytes.src : f.bytes)} bytes)`);
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      download(new Blob([await hooks.downloadFile(f.name)]), f.name);
    } catch (e) {
      b.after(el('span', { class: 'inline-error' }, ` could not get ${f.name}: ${e?.message ?? e}`));
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

// ---- charts -----------------------------------------------------------------------------------------------
function chartFigure(chart, i, hooks) {
  const [w, h] = hooks.chartSize;
  const id = `${hooks.prefix}-chart-${i}`;
  const canvas = el('canvas', { id, width: w, height: h, 'aria-label': chart.title ?? `chart ${i + 1}`, role: 'img' });
  const png = el('button', { type: 'button', class: 'download', 'data-png': id }, 'PNG');
  png.addEventListener('click', () => canvas.toBlob((blob) => blob && download(blob, `${slug(chart.title) || `${hooks.prefix}-chart-${i + 1}`}.png`)));
  return el('figure', { class: 'chart', 'data-chart': i }, canvas, el('div', { class: 'chart-tip', hidden: '' }), el('figcaption', {}, png));
}

function drawOne(figure, chart, hooks) {
  const canvas = figure.querySelector('canvas');
  try {
    const { dark, scale } = sizeCanvas(canvas, ...hooks.chartSize);
    canvas.regions = JSON.parse(hooks.drawChart(canvas.id, JSON.stringify(chart), dark, scale) ?? '[]');
    hoverTip(canvas, figure.querySelector('.chart-tip'));
    canvas.dataset.drawn = '1';
  } catch (e) {
    console.warn('draw_chart failed:', e);
    figure.append(el('p', { class: 'inline-error' }, `Could not draw this chart: ${e?.message ?? e}`));
  }
}

/** Sizes `canvas` to w×h CSS pixels with devicePixelRatio device pixels each (crisp on high-DPI screens);
 * returns the style to draw it in: {dark (the page's theme, else the system's), scale}. */
export function sizeCanvas(canvas, w, h) {
  const scale = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  canvas.dataset.cssWidth = w;
  canvas.style.cssText = `width: ${w}px; max-width: 100%; height: auto`;
  const theme = document.documentElement.dataset.theme;
  const dark = theme === 'dark' || (!theme && matchMedia('(prefers-color-scheme: dark)').matches);
  return { dark, scale };
}

/** Shows in `tip` (an element beside `canvas`) the text of the smallest of `canvas.regions` (CSS pixels of
 * the drawn size, from draw_chart) under the pointer; the canvas may be displayed smaller (max-width). */
export function hoverTip(canvas, tip) {
  if (!tip || canvas.dataset.hover) return;
  canvas.dataset.hover = '1';
  const size = (g) => (g.x1 - g.x0) * (g.y1 - g.y0);
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    const k = Number(canvas.dataset.cssWidth) / r.width || 1;
    const [x, y] = [(e.clientX - r.left) * k, (e.clientY - r.top) * k];
    let best = null;
    for (const g of canvas.regions ?? []) {
      if (x >= g.x0 && x <= g.x1 && y >= g.y0 && y <= g.y1 && (!best || size(g) < size(best))) best = g;
    }
    tip.hidden = !best;
    if (!best) return;
    tip.textContent = best.text;
    // beside the pointer, on its left in the right half so the tip stays over the chart
    const left = e.clientX - r.left < r.width / 2;
    tip.style.left = `${canvas.offsetLeft + e.clientX - r.left + (left ? 14 : -14 - tip.offsetWidth)}px`;
    tip.style.top = `${canvas.offsetTop + e.clientY - r.top + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
}

// ---- tables ---------------------------------------------------------------------------------------------
/** One result table: heading, toolbar (row count, stream filter, CSV) and the sortable table. */
function tableView(t) {
  const n = t.rows instanceof Num ? t.rows.n : Number(t.rows);
  const cols = t.columns.map((c) => ({
    name: c.name, unit: c.unit, values: c.values,
    numeric: c.values.some((v) => v instanceof Num),
  }));
  const view = { sortBy: -1, dir: 1, stream: null };
  const streamCol = cols.findIndex((c) => c.name === 'stream');

  const table = el('table', { class: 'report', 'data-table': t.name });
  const headRow = el('tr');
  cols.forEach((c, i) => {
    const th = el('th', { scope: 'col', 'data-col': c.name, class: c.numeric ? 'num' : null, title: `${c.name} · unit: ${c.unit} · click to sort`, 'aria-sort': 'none', tabindex: 0 }, c.name);
    const sort = () => {
      // ascending → descending → original order
      if (view.sortBy !== i) Object.assign(view, { sortBy: i, dir: 1 });
      else if (view.dir === 1) view.dir = -1;
      else view.sortBy = -1;
      show();
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    headRow.append(th);
  });
  table.append(el('thead', {}, headRow), el('tbody'));

  const count = el('span', { class: 'rows' });
  const csv = el('button', { type: 'button', class: 'download', 'data-csv': t.name }, 'CSV');
  csv.addEventListener('click', () => download(new Blob([t.csv], { type: 'text/csv' }), `${t.name}.csv`));
  const tools = [count];
  if (streamCol >= 0) {
    const streams = [...new Set(cols[streamCol].values.map(cellText))].sort(byValue);
    const pick = el('select', { class: 'stream-filter', 'aria-label': 'Show rows of stream' },
      el('option', { value: '' }, 'all streams'), ...streams.map((s) => el('option', { value: s }, `stream ${s}`)));
    pick.addEventListener('change', () => { view.stream = pick.value || null; show(); });
    tools.push(el('label', {}, 'Stream ', pick));
  }
  tools.push(csv);
  const note = el('p', { class: 'truncated', hidden: '' });

  function show() {
    let rows = [...Array(n).keys()];
    if (view.stream !== null) rows = rows.filter((r) => cellText(cols[streamCol].values[r]) === view.stream);
    if (view.sortBy >= 0) {
      const c = cols[view.sortBy];
      c.keys ??= c.values.map((v) => (v === null || v === undefined ? null : v instanceof Num ? v.n : cellText(v)));
      rows.sort((a, b) => compare(c.keys[a], c.keys[b], view.dir)); // stable: ties keep table order
    }
    headRow.querySelectorAll('th').forEach((th, i) =>
      th.setAttribute('aria-sort', i !== view.sortBy ? 'none' : view.dir === 1 ? 'ascending' : 'descending'));
    const shown = rows.slice(0, MAX_ROWS);
    table.tBodies[0].replaceChildren(...shown.map((r) =>
      el('tr', {}, ...cols.map((c) => {
        const v = c.values[r], text = cellText(v);
        // a percentage (Rust's unit) gets an inline bar of its width behind the number
        const bar = c.unit === 'percent' && v instanceof Num && v.n >= 0 && v.n <= 100 ? `--pct: ${v.src}%` : null;
        // long names (kernels) are cut with an ellipsis by the style; the full text is the tooltip
        return el('td', { class: bar ? 'num pct' : c.numeric ? 'num' : 'text', style: bar, title: !c.numeric && text.length > 60 ? text : null }, text);
      }))));
    count.textContent = view.stream === null ? `${grouped(n)} row${n === 1 ? '' : 's'}` : `${grouped(rows.length)} of ${grouped(n)} rows`;
    note.hidden = rows.length <= MAX_ROWS;
    note.textContent = `Showing the first ${grouped(MAX_ROWS)} of ${grouped(rows.length)} rows; the CSV download has all ${grouped(n)}.`;
  }
  show();
  return el('div', { class: 'table-view', 'data-table': t.name },
    el('h3', {}, t.name), el('div', { class: 'toolbar' }, ...tools), note, el('div', { class: 'scroll' }, table));
}

/** Sort keys (numbers, or text compared by code point); empty cells (null) last in both directions. */
function compare(a, b, dir) {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return dir * (a < b ? -1 : a > b ? 1 : 0);
}
const byValue = (a, b) => {
  const x = Number(a), y = Number(b);
  return Number.isNaN(x) || Number.isNaN(y) ? (a < b ? -1 : a > b ? 1 : 0) : x - y;
};

// ---- helpers -----------------------------------------------------------------------------------------------
function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
const slug = (s) => String(s ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
