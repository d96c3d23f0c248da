// Shows one analysis run (the JSON of Session.run_analysis, see src/page.rs) in a panel: notes,
// produced files, one canvas per chart (drawn by the wasm on this thread), one table per result table (sorted
// by a click on a header, filtered by text and stream, drawn only where scrolled to, copied as CSV or Markdown,
// downloaded as CSV). Display only: sorting and filtering change what is shown, never the numbers; every number
// is shown as Rust wrote it; CSVs are Rust's text.
// www/build.sh inlines this module into the single-file build (once, its exports bound in each importer).

import { el } from './dom.js';
import { copyText, markdownTable } from './copy.js';

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
  parts.tables.replaceChildren(...report.tables.map((t) => tableView(t, hooks)));
}

// ---- produced files ---------------------------------------------------------------------------------
function fileButton(f, hooks) {
  // a produced trace (a gzip copy of a rank) has no size yet: the worker writes it when it is asked for
  const size = f.bytes === null || f.bytes === undefined ? 'gzip, written when downloaded' : `${grouped(f.bytes instanceof Num ? f.bytes.src : f.bytes)} bytes`;
  const b = el('button', { type: 'button', class: 'download', 'data-file': f.name }, `Download ${f.name} (${size})`);
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
/** A flame graph's canvas size, CSS pixels: as tall as its deepest stack needs (flame.rs draws an 18 px row per
 * depth under a 70 px header), between 220 and 560. */
const flameSize = (chart) => {
  const rows = 1 + chart.frames.reduce((m, f) => Math.max(m, f.depth instanceof Num ? f.depth.n : Number(f.depth)), 0);
  return [900, Math.min(560, Math.max(220, 90 + rows * 19))];
};
const isFlame = (chart) => chart.type === 'flame';
const sizeOf = (chart, hooks) => (isFlame(chart) ? flameSize(chart) : hooks.chartSize);

function chartFigure(chart, i, hooks) {
  const [w, h] = sizeOf(chart, hooks);
  const id = `${hooks.prefix}-chart-${i}`;
  const canvas = el('canvas', { id, width: w, height: h, 'aria-label': chart.title ?? `chart ${i + 1}`, role: 'img' });
  const png = el('button', { type: 'button', class: 'download', 'data-png': id }, 'PNG');
  png.addEventListener('click', () => canvas.toBlob((blob) => blob && download(blob, `${slug(chart.title) || `${hooks.prefix}-chart-${i + 1}`}.png`)));
  const tools = isFlame(chart) ? [flameTools()] : [];
  // a click on a bar, run or arrow head pins its text under the chart (a flame graph's click zooms instead)
  const pin = isFlame(chart) ? [] : [el('p', { class: 'chart-pin', role: 'status', hidden: '' })];
  return el('figure', { class: 'chart', 'data-chart': i }, ...tools, canvas, el('div', { class: 'chart-tip', hidden: '' }), ...pin, el('figcaption', {}, png));
}

function drawOne(figure, chart, hooks) {
  const canvas = figure.querySelector('canvas');
  try {
    if (isFlame(chart)) flameView(figure, chart, hooks);
    else paint(canvas, ...hooks.chartSize, (dark, scale) => hooks.drawChart(canvas.id, JSON.stringify(chart), dark, scale));
    hoverTip(canvas, figure.querySelector('.chart-tip'), figure.querySelector('.chart-pin'));
  } catch (e) {
    console.warn('draw_chart failed:', e);
    figure.append(el('p', { class: 'inline-error' }, `Could not draw this chart: ${e?.message ?? e}`));
  }
}

// ---- flame graph: zoom and search ------------------------------------------------------------------
// Rust draws every picture (chart/flame.rs); here the chart's JSON gets `zoom` (a frame index, from the hover region
// clicked) or `search` (the text typed) and is drawn again. The view is kept on the figure: data-zoom (the frame
// index; absent: the whole graph) and data-search (the text; absent: none).

/** The toolbar above a flame graph: search field, Reset zoom, the zoom root. */
function flameTools() {
  return el('div', { class: 'toolbar flame-tools' },
    el('input', { type: 'search', class: 'flame-search', placeholder: 'Search frames', 'aria-label': 'Search frames (their names contain the text)' }),
    el('button', { type: 'button', class: 'flame-reset', disabled: '' }, 'Reset zoom'),
    el('span', { class: 'flame-zoom' }));
}

/** Draws the flame graph `chart` on `figure`'s canvas and wires its toolbar: click a frame to zoom on it, type to
 * search, Reset (or Escape in the figure) to see the whole graph again. */
function flameView(figure, chart, hooks) {
  const canvas = figure.querySelector('canvas');
  const [search, reset, where] = ['.flame-search', '.flame-reset', '.flame-zoom'].map((s) => figure.querySelector(s));
  const view = { ...chart, zoom: null, search: null }; // a copy: the report's chart stays as Rust sent it
  canvas.tabIndex = 0;
  canvas.classList.add('flame');
  const tip = figure.querySelector('.chart-tip');
  const draw = () => {
    paint(canvas, ...flameSize(chart), (dark, scale) => hooks.drawChart(canvas.id, JSON.stringify(view), dark, scale));
    tip.hidden = true; // its text was of the picture before
    reset.disabled = view.zoom === null;
    where.textContent = view.zoom === null ? 'Whole graph · click a frame to zoom on it' : `Zoomed on ${chart.frames[view.zoom]?.name ?? ''}`;
    if (view.zoom === null) delete figure.dataset.zoom;
    else figure.dataset.zoom = String(view.zoom);
    if (view.search === null) delete figure.dataset.search;
    else figure.dataset.search = view.search;
  };
  const zoom = (i) => {
    if (view.zoom === i) return;
    view.zoom = i;
    draw();
  };
  canvas.addEventListener('click', (e) => {
    const best = regionAt(canvas, e, (g) => g.frame !== undefined);
    if (best) zoom(best.frame);
  });
  reset.addEventListener('click', () => zoom(null));
  // Escape anywhere in the panel (a panel run again makes a new figure: the old one's listener goes)
  const panel = figure.closest('.panel') ?? figure;
  const escape = (e) => {
    if (!figure.isConnected) panel.removeEventListener('keydown', escape);
    else if (e.key === 'Escape' && view.zoom !== null) {
      e.preventDefault();
      zoom(null);
    }
  };
  panel.addEventListener('keydown', escape);
  let typing = 0;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      const text = search.value.trim();
      if ((text || null) === view.search) return;
      view.search = text || null;
      draw();
    }, 150);
  });
  draw();
}

/** Sizes `canvas` to w×h CSS pixels with devicePixelRatio device pixels each (crisp on high-DPI screens);
 * returns the style to draw it in: {dark (the page's theme, else the system's), scale}. */
function sizeCanvas(canvas, w, h) {
  const scale = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  canvas.dataset.cssWidth = w;
  canvas.style.cssText = `width: ${w}px; max-width: 100%; height: auto`;
  const theme = document.documentElement.dataset.theme;
  const dark = theme === 'dark' || (!theme && matchMedia('(prefers-color-scheme: dark)').matches);
  return { dark, scale };
}

/** Draws on `canvas`, sized w×h CSS pixels (sizeCanvas), with `draw(dark, scale)` (a wasm draw function: returns
 * the hover regions as JSON), and keeps how, so that a theme change draws it again (repaintAll). */
export function paint(canvas, w, h, draw) {
  const { dark, scale } = sizeCanvas(canvas, w, h);
  canvas.regions = JSON.parse(draw(dark, scale) ?? '[]');
  canvas.dataset.drawn = '1';
  canvas.dataset.theme = dark ? 'dark' : 'light';
  canvas.repaint = () => paint(canvas, w, h, draw);
}

/** Draws every chart of the page again (the theme changed: charts carry its colours). */
export function repaintAll() {
  for (const canvas of document.querySelectorAll('canvas[data-drawn]')) {
    try {
      canvas.repaint?.();
    } catch (e) {
      console.warn('could not draw a chart again:', e);
    }
  }
}

/** The region of `canvas.regions` (CSS pixels of the drawn size, from draw_chart) under the pointer event `e` (the
 * canvas may be displayed smaller: max-width), or null: one drawn on top (`top`, a timeline arrow's head) first, else
 * the smallest; `keep` picks the regions looked at. */
export function regionAt(canvas, e, keep = () => true) {
  const r = canvas.getBoundingClientRect();
  const k = Number(canvas.dataset.cssWidth) / r.width || 1;
  const [x, y] = [(e.clientX - r.left) * k, (e.clientY - r.top) * k];
  const size = (g) => (g.x1 - g.x0) * (g.y1 - g.y0);
  const better = (g, b) => !b || (Boolean(g.top) !== Boolean(b.top) ? Boolean(g.top) : size(g) < size(b));
  let best = null;
  for (const g of canvas.regions ?? []) {
    if (keep(g) && x >= g.x0 && x <= g.x1 && y >= g.y0 && y <= g.y1 && better(g, best)) best = g;
  }
  return best;
}

/** Shows in `tip` (an element beside `canvas`) the text of the region under the pointer (regionAt); with `pin` (an
 * element under the canvas), a click on a region shows its text there until another click (off every region:
 * hidden again), so it can be read and selected. */
export function hoverTip(canvas, tip, pin = null) {
  if (!tip || canvas.dataset.hover) return;
  canvas.dataset.hover = '1';
  canvas.addEventListener('mousemove', (e) => {
    const best = regionAt(canvas, e);
    if (pin) canvas.style.cursor = best ? 'pointer' : '';
    tip.hidden = !best;
    if (!best) return;
    tip.textContent = best.text;
    // beside the pointer, on its left in the right half so the tip stays over the chart
    const r = canvas.getBoundingClientRect();
    const left = e.clientX - r.left < r.width / 2;
    tip.style.left = `${canvas.offsetLeft + e.clientX - r.left + (left ? 14 : -14 - tip.offsetWidth)}px`;
    tip.style.top = `${canvas.offsetTop + e.clientY - r.top + 14}px`;
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  if (!pin) return;
  canvas.addEventListener('click', (e) => {
    const best = regionAt(canvas, e);
    pin.textContent = best?.text ?? '';
    pin.hidden = !best;
  });
}

// ---- tables ---------------------------------------------------------------------------------------------
// A table of 100,000 rows would be 100,000 rows of DOM (seconds of layout, a stuck scroll), so a long table
// draws only the rows in view, plus OVERSCAN above and below: the table's top margin stands for the rows above
// them and a pad after it for the rows below, so the scrollbar is the whole table's and the header (sticky th)
// stays a real thead. Every row has the same height (cells do not wrap), measured once the table is laid out;
// the column widths are measured then too and fixed, so they do not change as other rows scroll in. The
// scrollbar's height is that of every row, and browsers cap an element's height (Chrome near 33 million px,
// Firefox near 17 million): past about 650,000 rows the last ones could not be scrolled to.

/** Rows shown (after filtering) up to which a table draws them all. */
const ALL_ROWS = 200;
/** Rows drawn beyond the visible ones on each side, so a quick scroll shows no gap before the next frame. */
const OVERSCAN = 20;
/** Rows drawn before the table is laid out (its row height unknown): more than 70vh of rows at any zoom. */
const FIRST_ROWS = 60;
/** Row height (px) assumed for the pad until the real one is measured. */
const ROW_GUESS = 24;

/** Short symbols of Rust's units (table::Unit, snake_case), shown under a column's name. */
const UNIT_SYMBOL = { us: 'µs', ns: 'ns', bytes: 'B', percent: '%', ratio: 'ratio', count: 'count', gb_per_s: 'GB/s' };
/** Names that already say their unit (busy_us, kernel_time(us), idle_pct, compute_time_pctg, bytes, calls). */
const UNIT_IN_NAME = {
  us: /(_us|\(us\))$/i,
  ns: /(_ns|\(ns\))$/i,
  bytes: /bytes$/i,
  percent: /(pct|pctg|pct_points|percent|percentage)$/i,
  ratio: /ratio/i,
  gb_per_s: /(gbps|gb_per_s)$/i,
  count: /(count|counts|calls|steps)$|^(num|n)_/i,
};
const unitLabel = (c) => (UNIT_IN_NAME[c.unit]?.test(c.name) ? null : UNIT_SYMBOL[c.unit] ?? (c.unit && c.unit !== 'none' ? c.unit : null));

/**
 * One result table: heading, toolbar (row count, text and stream filters, copy buttons, CSV) and the sortable
 * table. The rows shown are `order` (row indexes after filtering and sorting); the tbody holds
 * order[first, last) and says `first` in data-first (the e2e tests compare that slice). A large table comes without
 * its CSV (Rust `page::INLINE_CSV_CELLS`): the CSV buttons ask for it as the run's file `NAME.csv` (hooks.downloadFile).
 */
function tableView(t, hooks) {
  const n = t.rows instanceof Num ? t.rows.n : Number(t.rows);
  const cols = t.columns.map((c) => ({
    name: c.name, unit: c.unit, values: c.values,
    numeric: c.values.some((v) => v instanceof Num),
  }));
  const view = { sortBy: -1, dir: 1, stream: null, text: '' };
  const streamCol = cols.findIndex((c) => c.name === 'stream');
  let order = [], haystack = null;

  const table = el('table', { class: 'report', 'data-table': t.name });
  const body = el('tbody');
  const headRow = el('tr');
  cols.forEach((c, i) => {
    const unit = unitLabel(c);
    const th = el('th', { scope: 'col', 'data-col': c.name, class: c.numeric ? 'num' : null, title: `${c.name} · unit: ${c.unit} · click to sort`, 'aria-sort': 'none', tabindex: 0 },
      el('span', { class: 'name' }, c.name), ...(unit ? [el('span', { class: 'unit' }, unit)] : []));
    const sort = () => {
      // ascending → descending → original order
      if (view.sortBy !== i) Object.assign(view, { sortBy: i, dir: 1 });
      else if (view.dir === 1) view.dir = -1;
      else view.sortBy = -1;
      reorder();
    };
    th.addEventListener('click', sort);
    th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
    headRow.append(th);
  });
  table.append(el('thead', {}, headRow), body);
  const pad = el('div', { class: 'table-pad' });
  const scroll = el('div', { class: 'scroll' }, table, pad);

  const count = el('span', { class: 'rows' });
  const filter = el('input', { type: 'search', class: 'table-filter', placeholder: 'Filter rows', 'aria-label': `Filter the rows of ${t.name}` });
  let typing = 0;
  filter.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => { view.text = filter.value.toLowerCase(); reorder(); }, 80); // one pass per pause, not per key
  });
  const tools = [count, filter];
  if (streamCol >= 0) {
    const streams = [...new Set(cols[streamCol].values.map(cellText))].sort(byValue);
    const pick = el('select', { class: 'stream-filter', 'aria-label': 'Show rows of stream' },
      el('option', { value: '' }, 'all streams'), ...streams.map((s) => el('option', { value: s }, `stream ${s}`)));
    pick.addEventListener('change', () => { view.stream = pick.value || null; reorder(); });
    tools.push(el('label', {}, 'Stream ', pick));
  }
  const copied = el('span', { class: 'copy-status', role: 'status' });
  const copyButton = (what, text) => {
    const b = el('button', { type: 'button', class: 'copy', 'data-copy': what.toLowerCase() }, `Copy ${what}`);
    let fade = 0;
    b.addEventListener('click', async () => {
      // false also when a large table's CSV could not be fetched
      const ok = await Promise.resolve().then(text).then(copyText).catch(() => false);
      copied.textContent = ok ? 'Copied' : 'Copy failed';
      clearTimeout(fade);
      fade = setTimeout(() => { copied.textContent = ''; }, 4000);
    });
    return b;
  };
  // the Markdown is of the rows shown (filtered and sorted), all of them, as the page writes them
  const markdown = () => markdownTable(cols.map((c) => c.name), cols.map((c) => c.numeric),
    order.map((r) => cols.map((c) => cellText(c.values[r]))));
  // the CSV as text or bytes: in the run's JSON if the table is small, else made by the worker when asked for
  const csvData = async () => t.csv ?? hooks.downloadFile(`${t.name}.csv`);
  const csvText = async () => { const d = await csvData(); return typeof d === 'string' ? d : new TextDecoder().decode(d); };
  const csv = el('button', { type: 'button', class: 'download', 'data-csv': t.name }, 'CSV');
  csv.addEventListener('click', async () => {
    csv.disabled = true;
    try {
      download(new Blob([await csvData()], { type: 'text/csv' }), `${t.name}.csv`);
    } catch (e) {
      copied.textContent = `Could not get the CSV: ${e?.message ?? e}`;
    } finally {
      csv.disabled = false;
    }
  });
  tools.push(el('span', { class: 'copy-tools' }, copyButton('CSV', csvText), copyButton('Markdown', markdown), csv, copied));

  function rowOf(r) {
    return el('tr', {}, ...cols.map((c) => {
      const v = c.values[r], text = cellText(v);
      // a percentage (Rust's unit) gets an inline bar of its width behind the number
      const bar = c.unit === 'percent' && v instanceof Num && v.n >= 0 && v.n <= 100 ? `--pct: ${v.src}%` : null;
      // long names (kernels) are cut with an ellipsis by the style; the full text is the tooltip
      return el('td', { class: bar ? 'num pct' : c.numeric ? 'num' : 'text', style: bar, title: !c.numeric && text.length > 60 ? text : null }, text);
    }));
  }

  /** The rows shown: filtered by stream and text, then sorted; back to the top, drawn. */
  function reorder() {
    let rows = [...Array(n).keys()];
    if (view.stream !== null) rows = rows.filter((r) => cellText(cols[streamCol].values[r]) === view.stream);
    if (view.text) {
      // each row's cell texts, lower-cased, between newlines (a filter typed in one line spans no two cells)
      haystack ??= Array.from({ length: n }, (_, r) => cols.map((c) => cellText(c.values[r])).join('\n').toLowerCase());
      rows = rows.filter((r) => haystack[r].includes(view.text));
    }
    if (view.sortBy >= 0) {
      const c = cols[view.sortBy];
      c.keys ??= c.values.map((v) => (v === null || v === undefined ? null : v instanceof Num ? v.n : cellText(v)));
      rows.sort((a, b) => compare(c.keys[a], c.keys[b], view.dir)); // stable: ties keep table order
    }
    order = rows;
    headRow.querySelectorAll('th').forEach((th, i) =>
      th.setAttribute('aria-sort', i !== view.sortBy ? 'none' : view.dir === 1 ? 'ascending' : 'descending'));
    count.textContent = view.stream === null && !view.text ? `${grouped(n)} row${n === 1 ? '' : 's'}` : `${grouped(rows.length)} of ${grouped(n)} rows`;
    scroll.scrollTop = 0;
    draw(true);
  }

  let rowHeight = null, first = -1, last = -1;
  /** Draws the rows in view (all of them in a short table), unless they are drawn already. */
  function draw(again = false) {
    const h = rowHeight ?? ROW_GUESS;
    let from = 0, to = order.length;
    if (order.length > ALL_ROWS) {
      const top = rowHeight === null ? 0 : scroll.scrollTop;
      const height = rowHeight === null ? 0 : scroll.clientHeight;
      from = Math.max(0, Math.min(order.length, Math.floor(top / h)) - OVERSCAN);
      to = rowHeight === null ? Math.min(order.length, FIRST_ROWS) : Math.min(order.length, Math.ceil((top + height) / h) + OVERSCAN);
    }
    if (!again && from === first && to === last) return;
    [first, last] = [from, to];
    body.replaceChildren(...order.slice(from, to).map(rowOf));
    body.dataset.first = from;
    table.style.marginTop = from ? `${from * h}px` : '';
    pad.style.height = to < order.length ? `${(order.length - to) * h}px` : '';
  }

  /** Once laid out, a long table's row height and column widths: the widths of its header and first rows,
   * and of each column's longest text (drawn for the measure, then taken out), fixed from then on. */
  function measure() {
    if (rowHeight !== null || n <= ALL_ROWS || body.rows.length < 2 || !body.rows[0].offsetHeight) return;
    const drawn = [...body.rows];
    const longest = cols.map((c) => {
      let best = 0, most = -1;
      c.values.forEach((v, r) => { const len = cellText(v).length; if (len > most) [best, most] = [r, len]; });
      return best;
    });
    const probes = [...new Set(longest)].map(rowOf);
    body.append(...probes);
    const widths = [...headRow.cells].map((th) => th.getBoundingClientRect().width);
    rowHeight = (drawn[drawn.length - 1].getBoundingClientRect().bottom - drawn[0].getBoundingClientRect().top) / drawn.length;
    probes.forEach((p) => p.remove());
    table.prepend(el('colgroup', {}, ...widths.map((w) => el('col', { style: `width: ${w}px` }))));
    table.style.width = `${widths.reduce((a, b) => a + b, 0)}px`;
    table.classList.add('fixed');
  }

  let frame = 0;
  scroll.addEventListener('scroll', () => {
    frame ||= requestAnimationFrame(() => { frame = 0; measure(); draw(); });
  }, { passive: true });
  // laid out (shown, scrolled into view, resized): measure once, and draw what now fits
  const sized = new ResizeObserver(() => {
    if (!scroll.isConnected) sized.disconnect();
    else if (scroll.clientHeight) { measure(); draw(); }
  });
  sized.observe(scroll);

  reorder();
  return el('div', { class: 'table-view', 'data-table': t.name },
    el('h3', {}, t.name), el('div', { class: 'toolbar' }, ...tools), scroll);
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
/** Saves `blob` as a file called `name` (the browser's download). */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
const slug = (s) => String(s ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
