// kinetoscope page: hands dropped/picked files to the parse worker and draws the overview it returns.
// JS moves bytes and draws (STYLE A7): every number shown comes from Rust's JSON, shown as given.
// Layout: platform (where wasm, worker and sample come from) · input (drop, pick, sample) · job (worker,
// progress, cancel) · render (overview tables) · tabs · Diff mode (two runs in one worker) · URL hash state.

import { Num, parseExact, renderReport } from './report.js'; // www/build.sh inlines it in the single-file build
import { diffPanel } from './diff.js'; // likewise
import { $, el } from './dom.js'; // likewise

// ---- platform -------------------------------------------------------------------------------------
// The served build (dist/index.html) loads pkg/ and worker.js by URL. The single-file build
// (dist/kinetoscope.html, works from file://) defines globalThis.kinetoscopePlatform before this module
// runs: inlined wasm, a Blob-URL classic worker, inlined sample (see www/single-file.js).
const platform = globalThis.kinetoscopePlatform ?? {
  async compile() {
    const r = await fetch(new URL('pkg/kinetoscope_bg.wasm', import.meta.url));
    if (!r.ok) throw new Error(`could not load pkg/kinetoscope_bg.wasm: HTTP ${r.status}`);
    // Streaming compiles while the bytes arrive, and is what Chrome's wasm code cache needs to keep compiled code
    // between visits; it needs the server to say application/wasm.
    if (WebAssembly.compileStreaming && r.headers.get('Content-Type')?.split(';')[0].trim() === 'application/wasm') return WebAssembly.compileStreaming(r);
    return WebAssembly.compile(await r.arrayBuffer());
  },
  async glue() {
    const m = await import('./pkg/kinetoscope.js');
    return { init: m.default, exports: m };
  },
  worker: () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }),
  async sample() {
    const base = new URL('sample/', import.meta.url);
    const manifest = await (await fetch(new URL('manifest.json', base))).json(); // tiny: {"files": [names]}
    return Promise.all(manifest.files.map(async (name) => {
      const r = await fetch(new URL(encodeURIComponent(name), base));
      if (!r.ok) throw new Error(`could not load sample ${name}: HTTP ${r.status}`);
      return new File([await r.blob()], name);
    }));
  },
};

// One compiled module: posted to every worker (no refetch) and instantiated once on the main thread
// for charts (plotters needs the DOM, so it cannot draw inside the worker).
const wasmModule = platform.compile();
const mainWasm = wasmModule.then(async (module) => {
  const { init, exports } = await platform.glue();
  await init({ module_or_path: module });
  return exports;
});
mainWasm.then((mod) => {
  if (typeof mod.version === 'function') $('version').textContent = `kinetoscope ${mod.version()}`;
}, (e) => showError(`Could not load the WebAssembly module: ${message(e)}`));

// A worker made ready while the page waits for files (worker.js prepare()): its wasm instance and parse helpers
// started and, the first time, the reader's compiled code warmed up, so a dropped trace starts at full speed.
// The first one is started at once: its script loads while the module compiles, and it is told to prepare as soon
// as the module is there (before a file chosen meanwhile is posted to it: reactions run in order).
let standby = null;
function prepareStandby(warm) {
  if (standby) return;
  const w = (standby = platform.worker());
  w.onmessage = ({ data }) => { if (data.type === 'prepared' && standby === w) document.body.dataset.standby = 'ready'; };
  wasmModule.then((module) => w.postMessage({ type: 'prepare', module, warm }), () => {});
}
prepareStandby(true);
/** A worker for a new job: the standby one if there is one (the next is prepared once nothing is being read). */
function takeWorker() {
  const w = standby ?? platform.worker();
  standby = null;
  delete document.body.dataset.standby;
  const later = () => setTimeout(() => (job || pair?.loading ? later() : prepareStandby(false)), 2000);
  later();
  return w;
}

// ---- URL hash state -------------------------------------------------------------------------------
// `#sample=1`: the overview shows the bundled sample (a shareable link that loads it on open); `#mode=diff`:
// the page opens in Diff mode.
const hashState = () => new URLSearchParams(location.hash.slice(1));
function setHash(params) {
  const s = params.toString();
  history.replaceState(null, '', s ? `#${s}` : location.pathname + location.search);
}

// ---- input: drop anywhere, pick files or a folder, sample ------------------------------------------
const hidden = (path) => path.split('/').some((part) => part.startsWith('.'));
const byPath = (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

// the Diff mode's side under the pointer is marked (.over): a drop there goes to that side
const markSide = (zone) => { for (const z of document.querySelectorAll('[data-side]')) z.classList.toggle('over', z === zone); };
document.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.body.classList.add('dragging');
  markSide(e.target.closest?.('[data-side]'));
});
document.addEventListener('dragleave', (e) => {
  if (!e.relatedTarget) {
    document.body.classList.remove('dragging');
    markSide(null);
  }
});
document.addEventListener('drop', async (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  markSide(null);
  // in Diff mode a drop belongs to the side it lands on
  const diffMode = document.body.dataset.mode === 'diff';
  const side = diffMode ? e.target.closest?.('[data-side]')?.dataset.side : null;
  if (diffMode && !side) return showStatus('Drop the files on the Control or the Test side.');
  if (!diffMode) setState('loading');
  // Entries must be taken synchronously, during the event: the DataTransfer is emptied afterwards.
  const items = [...(e.dataTransfer?.items ?? [])].filter((i) => i.kind === 'file');
  const roots = items.length
    ? items.map((i) => i.webkitGetAsEntry?.() ?? i.getAsFile())
    : [...(e.dataTransfer?.files ?? [])];
  try {
    const found = [];
    for (const root of roots) if (root) await collect(root, found);
    if (side) chooseSide(side, found);
    else startUserFiles(found);
  } catch (err) {
    showError(`Could not read the dropped files: ${message(err)}`);
  }
});

// Walks a dropped folder (FileSystemEntry tree) or takes a plain File; skips hidden files.
async function collect(entry, out) {
  if (entry instanceof File) {
    out.push({ path: entry.name, file: entry });
  } else if (entry.isFile) {
    if (!hidden(entry.fullPath)) out.push({ path: entry.fullPath, file: await new Promise((ok, fail) => entry.file(ok, fail)) });
  } else if (entry.isDirectory && !hidden(entry.fullPath)) {
    const reader = entry.createReader();
    for (;;) { // readEntries returns the listing in batches; an empty batch ends it
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const child of batch) await collect(child, out);
    }
  }
}

for (const id of ['file', 'folder']) $(id).addEventListener('change', (e) => startUserFiles(picked(e.target)));

// The files of a file or folder input, without hidden ones.
function picked(input) {
  const found = [...input.files]
    .map((file) => ({ path: file.webkitRelativePath || file.name, file }))
    .filter(({ path }) => !hidden(path));
  input.value = ''; // picking the same files again fires `change` again
  return found;
}

function startUserFiles(found) {
  setState('loading');
  if (!found.length) return showError('No files found in what was dropped or picked.');
  const params = hashState();
  params.delete('sample');
  setHash(params);
  run(found.sort(byPath).map((f) => f.file));
}

$('load-sample').addEventListener('click', () => loadSample());
async function loadSample() {
  setState('loading');
  const params = hashState();
  params.set('sample', '1');
  setHash(params);
  try {
    showStatus('Loading the sample trace…');
    run(await platform.sample());
  } catch (e) {
    showError(`Could not load the sample: ${message(e)}`);
  }
}

// ---- job: one worker per trace; cancel or a new trace = terminate ----------------------------------------
// The worker parses, then keeps the trace and runs the analyses the panels ask for (`trace`).
let job = null; // the parse in progress: {worker, started, files}
let trace = null; // the parsed trace: {worker, ranks: [rank text], pending: Map(id → {ok, fail})}
let runs = 0; // a newer run() supersedes one still waiting for the module
let requests = 0;

async function run(files) {
  const token = ++runs;
  stop();
  dropTrace();
  clearOutput();
  let module;
  try {
    module = await wasmModule;
  } catch (e) {
    return showError(`Could not load the WebAssembly module: ${message(e)}`);
  }
  if (token !== runs) return;
  const worker = takeWorker();
  const current = (job = { worker, started: performance.now(), files: files.length });
  setBusy(true);
  showProgress({ file: files[0]?.name ?? '', done: 0, total: files.reduce((n, f) => n + f.size, 0) });
  worker.onmessage = async ({ data }) => {
    if (trace?.worker === worker && data.id !== undefined) return answered(trace, data);
    if (job !== current) return;
    if (data.type === 'progress') showProgress(data);
    else if (data.type === 'result') {
      const ms = finish(current, true);
      // for benchmarks (scripts/bench/bench_browser.mjs): the worker's peak wasm linear memory
      // and whether it was the standby worker, prepared before the file came
      window.__kinetoscopeStats = { parseMs: ms, wasmMemoryBytes: data.wasmMemoryBytes, blocks: data.blocks, prepared: data.prepared };
      showStatus(`Read ${current.files} file${current.files === 1 ? '' : 's'} in ${ms} ms.`);
      let list = [], diffOptions = null;
      try {
        const mod = await mainWasm;
        list = JSON.parse(mod.analyses?.() ?? '[]');
        diffOptions = JSON.parse(mod.diff_options?.() ?? 'null');
      } catch (e) {
        console.warn('no analyses:', e);
      }
      if (token !== runs) return worker.terminate();
      try {
        const ov = render(data.json);
        trace = { worker, ranks: (ov.ranks ?? []).map((r, i) => (r.rank instanceof Num ? r.rank.src : String(r.rank ?? i))), pending: new Map() };
        buildTabs(list, diffOptions);
        setState('done');
      } catch (e) {
        worker.terminate();
        showError(`Could not show the result: ${message(e)}`);
      }
    }
    else if (data.type === 'error') { finish(current); showError(data.message); }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    if (trace?.worker === worker) {
      const why = `The trace worker failed: ${e.message || 'unknown error'}. Open the trace again to continue.`;
      for (const p of trace.pending.values()) p.fail(new Error(why));
      trace.pending.clear();
      return;
    }
    if (job !== current) return;
    finish(current);
    showError(`The parse worker failed: ${e.message || 'it could not start'}`);
  };
  // kinetoscopeSplit ({min, block} in bytes): when files are read by several workers (tests and benchmarks)
  worker.postMessage({ type: 'parse', module, files, split: globalThis.kinetoscopeSplit ?? null });
}

// Ends the parse job; the worker stays when it now holds the trace. Returns how long it ran, in ms.
function finish(current, keepWorker = false) {
  if (keepWorker) job = null;
  stop();
  return Math.round(performance.now() - current.started);
}

function stop() {
  if (job) job.worker.terminate();
  job = null;
  setBusy(false);
}

function dropTrace() {
  if (!trace) return;
  trace.worker.terminate();
  for (const p of trace.pending.values()) p.fail(new Error('superseded'), true);
  trace = null;
}

/** Sends a request to a worker holding traces (`t`: the trace's, or the Diff mode's); resolves with its answer. */
function ask(msg, t = trace) {
  if (!t) return Promise.reject(new Error('no trace is open'));
  const id = ++requests;
  return new Promise((ok, fail) => {
    t.pending.set(id, { ok, fail: (e, dropped) => fail(Object.assign(e, { dropped })) });
    t.worker.postMessage({ ...msg, id });
  });
}
function answered(t, data) {
  const p = t.pending.get(data.id);
  if (!p) return;
  t.pending.delete(data.id);
  if (data.type === 'failed') p.fail(new Error(data.message));
  else p.ok(data);
}

$('cancel').addEventListener('click', () => {
  if (pair?.loading) {
    dropPair();
    setBusy(false);
  } else if (job) stop();
  else return;
  showStatus('Cancelled.');
  setState('cancelled');
});

const INPUTS = '#drop input, #drop button, #diff .side input';
function setBusy(busy) {
  $('busy').hidden = !busy;
  for (const el of document.querySelectorAll(INPUTS)) el.disabled = busy;
  for (const el of document.querySelectorAll('#drop .button, #diff .side .button')) el.classList.toggle('disabled', busy);
  if (busy) showStatus('');
}

// `slot`: which side of the Diff mode is being read (the worker says 'trace' for a single trace)
function showProgress({ file, done, total, slot }) {
  $('progress').max = Math.max(total, 1);
  $('progress').value = done;
  const side = slot === 'control' || slot === 'test' ? `${slot}: ` : '';
  $('progress-text').textContent = `${side}${group(String(done))} of ${group(String(total))} bytes${file ? ` · ${file}` : ''}`;
}

// ---- render ---------------------------------------------------------------------------------------------
// Numbers keep Rust's own text (JSON.parse source access): no float rounding, no 2^53 limit.
const parseOverview = parseExact;
const group = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const show = (v) =>
  v instanceof Num ? (/^-?\d+$/.test(v.src) ? group(v.src) : v.src) : v === null ? '—' : String(v);
const inline = (v) => (scalar(v) ? show(v) : Array.isArray(v) ? v.map(inline).join(', ')
  : Object.entries(v).map(([k, x]) => `${k}=${inline(x)}`).join(', '));
const scalar = (v) => v === null || v instanceof Num || typeof v !== 'object';

function clearOutput() {
  $('error').hidden = true;
  $('error').textContent = '';
  $('overview').hidden = true;
  for (const id of ['summary', 'overview-extra', 'warnings', 'ranks']) $(id).replaceChildren();
  $('warnings-box').hidden = true;
  $('chart-kinds').hidden = true;
  $('tabs').hidden = true;
  $('tabs').replaceChildren();
  $('panels').replaceChildren();
}

function render(json) {
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
    mod.draw_kinds_chart('chart-kinds', json);
    canvas.dataset.drawn = '1';
  } catch (e) {
    canvas.hidden = true;
    console.warn('draw_kinds_chart failed:', e);
  }
}

// ---- tabs: Overview + one panel per analysis of the registry (Rust's analyses()) ----------------------
// A panel: options form (from the option specs), HTA mode (only with an HTA counterpart), ranks, Run; then
// what report.js shows.
// It runs when first opened, when HTA mode is toggled, and on Run (or Enter in a field).
const OVERVIEW = 'overview';
const COMPARE = 'compare-ranks'; // the tab of a diff panel on the one trace: a rank set against the others
// A link's `#tab=name` opens that tab once its trace is read, with the options the link gives (`&range=1,2`: the
// registry's option names); a trace opened later starts on its Overview.
let linkedTab = hashState().get('tab');
const linkedOptions = hashState();

function buildTabs(list, diffOptions) {
  const compare = diffOptions ? [{ name: COMPARE, title: 'Compare ranks',
    about: 'Ranks of this run against its other ranks (kinetoscope diff RUN --test-ranks N): what makes a straggler slow' }] : [];
  const tabs = [{ name: OVERVIEW, title: 'Overview' }, ...list, ...compare];
  $('tabs').replaceChildren(...tabs.map((t) => {
    const b = el('button', { type: 'button', role: 'tab', id: `tab-${t.name}`, 'data-tab': t.name,
      'aria-controls': t.name === OVERVIEW ? 'overview' : `panel-${t.name}`, title: t.about ?? null }, t.title);
    b.addEventListener('click', () => selectTab(t.name));
    return b;
  }));
  $('panels').replaceChildren(...list.map(buildPanel), ...compare.map((a) => {
    const panel = diffPanel({ ...a, options: diffOptions, oneTrace: true, ranksHint: rankRanges(trace.ranks),
      ask: (msg) => ask({ ...msg, pair: false }), show: showDiff(a.name), parse: parseExact });
    for (const [k, v] of Object.entries({ role: 'tabpanel', 'aria-labelledby': `tab-${a.name}`, hidden: '' })) panel.setAttribute(k, v);
    return panel;
  }));
  $('tabs').hidden = false;
  const wanted = linkedTab;
  linkedTab = null;
  for (const input of (wanted && $(`panel-${wanted}`)?.querySelectorAll('[data-opt]')) || []) {
    const v = linkedOptions.get(input.dataset.opt);
    if (v === null) continue;
    if (input.type === 'checkbox') input.checked = v === 'true';
    else input.value = v;
  }
  selectTab(tabs.some((a) => a.name === wanted) ? wanted : OVERVIEW);
}

function selectTab(name, remember = true) {
  if (!$('tabs').querySelector(`[data-tab="${CSS.escape(name)}"]`)) return;
  for (const b of $('tabs').children) b.setAttribute('aria-selected', String(b.dataset.tab === name));
  $('overview').hidden = name !== OVERVIEW;
  for (const p of $('panels').children) p.hidden = p.dataset.analysis !== name;
  if (remember) {
    const params = hashState();
    if (name === OVERVIEW) params.delete('tab');
    else params.set('tab', name);
    setHash(params);
  }
  const panel = $(`panel-${name}`);
  if (panel && panel.dataset.state === 'idle') runPanel(panel);
}

function buildPanel(a) {
  const fields = a.options.map((o) => {
    const attrs = { 'data-opt': o.name, name: o.name, title: o.help || null };
    const input = o.kind === 'bool'
      ? el('input', { ...attrs, type: 'checkbox' })
      // wide enough for the default (a kernel name, a counter list; `size` counts average characters,
      // capitals are wider), never narrower than a number
      : el('input', { ...attrs, type: 'text', value: o.default, size: Math.max(8, Math.ceil(o.default.length * 1.25)), spellcheck: 'false',
        placeholder: o.kind === 'int_list' ? 'all' : null, inputmode: o.kind === 'int' || o.kind === 'float' ? 'decimal' : null });
    if (o.kind === 'bool') input.checked = o.default === 'true';
    return el('label', { class: `opt opt-${o.kind}` }, el('span', {}, o.name), input);
  });
  const hta = el('input', { type: 'checkbox', class: 'hta' });
  const all = rankRanges(trace.ranks);
  const ranks = el('input', { type: 'text', class: 'ranks', size: 10, spellcheck: 'false', placeholder: `all (${all})`,
    title: `Ranks to analyse, e.g. 0,2-5 (default: all; this trace has ${all})` });
  const status = el('span', { class: 'run-status', 'aria-live': 'polite' });
  const form = el('form', { class: 'controls' }, ...fields,
    // an analysis without an HTA counterpart (decode steps) has no HTA mode to offer
    el('label', { class: 'opt', title: 'Reproduce HTA 0.5.0 exactly, including its documented bugs (--hta)', hidden: a.hta_api ? null : '' }, hta, ' HTA mode'),
    el('label', { class: 'opt' }, el('span', {}, 'ranks'), ranks),
    el('button', { type: 'submit' }, 'Run'), status);
  const parts = {
    error: el('div', { class: 'panel-error error', role: 'alert', hidden: '' }),
    notes: el('ul', { class: 'notes', hidden: '' }),
    files: el('div', { class: 'files', hidden: '' }),
    charts: el('div', { class: 'charts' }),
    tables: el('div', { class: 'tables' }),
  };
  const panel = el('section', { class: 'panel', id: `panel-${a.name}`, role: 'tabpanel', 'aria-labelledby': `tab-${a.name}`,
    'data-analysis': a.name, 'data-state': 'idle', hidden: '' },
  el('h2', {}, a.title),
  // the registry's API names carry a reference into our HTA spec, which means nothing to users
  el('p', { class: 'about' }, a.about, a.hta_api ? el('span', { class: 'hta-api' }, ` · HTA: ${a.hta_api.replace(/\s*\(SPEC[^)]*\)/, '')}`) : ''),
  form, parts.error, parts.notes, parts.files, parts.charts, parts.tables);
  panel.run = { analysis: a.name, form, hta, ranks, status, parts, seq: 0 };
  form.addEventListener('submit', (e) => { e.preventDefault(); runPanel(panel); });
  hta.addEventListener('change', () => runPanel(panel));
  return panel;
}

/** Rank numbers (text, ascending) as `0-3, 5`. */
function rankRanges(ranks) {
  const out = [];
  for (const r of ranks) {
    const n = Number(r), last = out[out.length - 1];
    if (last && Number.isInteger(n) && n === last[1] + 1) last[1] = n;
    else out.push([n, n, r]);
  }
  return out.map(([a, b, r]) => (Number.isNaN(a) ? r : a === b ? String(a) : `${a}-${b}`)).join(', ');
}

// panel[data-state]: idle (never run) | running | done | error — tests and styles read it
async function runPanel(panel) {
  if (panel.runDiff) return panel.runDiff();
  const r = panel.run, seq = ++r.seq;
  const params = {};
  for (const input of r.form.querySelectorAll('[data-opt]')) {
    params[input.dataset.opt] = input.type === 'checkbox' ? String(input.checked) : input.value.trim();
  }
  panel.dataset.state = 'running';
  r.status.textContent = 'Running…';
  try {
    const [answer, mod] = await Promise.all([
      ask({ type: 'run', analysis: r.analysis, params, ranks: r.ranks.value.trim(), hta: r.hta.checked }), mainWasm]);
    if (seq !== r.seq) return;
    const report = parseExact(answer.json);
    r.parts.error.hidden = true;
    renderReport(r.parts, report, {
      prefix: r.analysis,
      chartSize: typeof mod.chart_size === 'function' ? [...mod.chart_size()] : [900, 480],
      drawChart: (id, json) => mod.draw_chart(id, json),
      downloadFile: async (name) => (await ask({ type: 'file', analysis: r.analysis, name })).bytes,
    });
    const ranks = report.ranks.map((x) => x.src);
    r.status.textContent = `${report.hta ? 'HTA mode · ' : ''}rank${ranks.length === 1 ? '' : 's'} ${ranks.join(', ') || 'none'} · ${answer.ms} ms`;
    panel.dataset.state = 'done';
  } catch (e) {
    if (seq !== r.seq || e.dropped) return;
    for (const k of ['notes', 'files', 'charts', 'tables']) r.parts[k].replaceChildren();
    r.parts.notes.hidden = r.parts.files.hidden = true;
    r.parts.error.textContent = message(e);
    r.parts.error.hidden = false;
    r.status.textContent = 'Failed.';
    panel.dataset.state = 'error';
  }
}

window.addEventListener('hashchange', () => {
  if (!$('tabs').hidden) selectTab(hashState().get('tab') ?? OVERVIEW, false);
});

// ---- Diff mode: control and test runs read into one worker (slots), compared by Rust's diff ----------------------
// Each side takes files or a folder (picked or dropped on it); once both are chosen the worker reads control, then
// test, and the panel (diff.js) runs. Choosing again reads both again in a fresh worker.
const SIDES = ['control', 'test'];
const chosen = { control: null, test: null }; // File[] per side
let pair = null; // the Diff mode's worker: {worker, pending, loading, started}
let pairRuns = 0;
let diffPanelReady = null; // Promise of the Diff mode's panel (built from Rust's diff_options() once)

$('open-diff').addEventListener('click', () => setMode('diff'));
$('close-diff').addEventListener('click', () => setMode('trace'));
for (const side of SIDES) {
  for (const kind of ['file', 'folder']) $(`diff-${side}-${kind}`).addEventListener('change', (e) => chooseSide(side, picked(e.target)));
}

// body[data-mode]: trace (one trace, its tabs) | diff (two runs) — the style shows one or the other
function setMode(mode, remember = true) {
  document.body.dataset.mode = mode;
  if (remember) {
    const params = hashState();
    if (mode === 'diff') params.set('mode', 'diff');
    else params.delete('mode');
    setHash(params);
  }
  if (mode === 'diff') ensureDiffPanel().catch((e) => showError(`Could not build the Diff mode: ${message(e)}`));
}

function ensureDiffPanel() {
  diffPanelReady ??= mainWasm.then((mod) => {
    const panel = diffPanel({ name: 'diff', title: 'Comparison', about: 'kinetoscope diff CONTROL TEST: per step, control vs test; several ranks on a side: per key, their median.',
      options: JSON.parse(mod.diff_options()), oneTrace: false, ask: (msg) => ask({ ...msg, pair: true }, pair), show: showDiff('diff'), parse: parseExact });
    panel.hidden = true;
    $('diff-result').replaceChildren(panel);
    return panel;
  });
  return diffPanelReady;
}

function chooseSide(side, found) {
  const zone = document.querySelector(`#diff [data-side="${side}"]`);
  if (!found.length) return showError(`No files found in what was dropped or picked for ${side}.`);
  chosen[side] = found.sort(byPath).map((f) => f.file);
  const names = chosen[side].map((f) => f.name);
  zone.querySelector('.chosen').textContent = `${names.length} file${names.length === 1 ? '' : 's'}: ${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''}`;
  zone.querySelector('.loaded').textContent = '';
  const other = SIDES.find((s) => !chosen[s]);
  if (other) showStatus(`Now choose the ${other} run.`);
  else loadPair();
}

async function loadPair() {
  const token = ++pairRuns, files = { ...chosen };
  dropPair();
  $('error').hidden = true;
  const shown = $('panel-diff'); // what it shows is of the runs chosen before
  if (shown) Object.assign(shown, { hidden: true }).dataset.state = 'idle';
  let module, panel;
  try {
    [module, panel] = await Promise.all([wasmModule, ensureDiffPanel()]);
  } catch (e) {
    return showError(`Could not load the WebAssembly module: ${message(e)}`);
  }
  if (token !== pairRuns) return;
  panel.hidden = true;
  setState('loading');
  setBusy(true);
  const worker = takeWorker();
  const p = (pair = { worker, pending: new Map(), loading: true, started: performance.now() });
  const read = (slot) => {
    showProgress({ slot, file: files[slot][0]?.name ?? '', done: 0, total: files[slot].reduce((n, f) => n + f.size, 0) });
    worker.postMessage({ type: 'parse', module, files: files[slot], slot, split: globalThis.kinetoscopeSplit ?? null });
  };
  worker.onmessage = ({ data }) => {
    if (pair !== p) return;
    if (data.id !== undefined) return answered(p, data);
    if (data.type === 'progress') showProgress(data);
    else if (data.type === 'error') {
      dropPair();
      setBusy(false);
      showError(`${data.slot}: ${data.message}`);
    } else if (data.type === 'result') {
      showSide(data.slot, data.json);
      if (data.slot === 'control') return read('test');
      p.loading = false;
      setBusy(false);
      showStatus(`Read both runs in ${Math.round(performance.now() - p.started)} ms.`);
      setState('done');
      panel.hidden = false;
      panel.runDiff();
    }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    if (pair !== p) return;
    const loading = p.loading;
    dropPair();
    setBusy(false);
    showError(`The Diff mode's worker failed: ${e.message || 'unknown error'}. Choose the runs again to continue.`);
    if (!loading) panel.hidden = true;
  };
  read('control');
}

function dropPair() {
  if (!pair) return;
  pair.worker.terminate();
  for (const q of pair.pending.values()) q.fail(new Error('superseded'), true);
  pair = null;
}

// What was read on a side: the overview's counts, as Rust gives them
function showSide(side, json) {
  const ov = parseOverview(json), ranks = ov.ranks ?? [];
  const list = ranks.map((r, i) => (r.rank instanceof Num ? r.rank.src : String(r.rank ?? i))).join(', ');
  document.querySelector(`#diff [data-side="${side}"] .loaded`).textContent =
    `${show(ov.events)} events · ${ranks.length === 1 ? 'rank' : 'ranks'} ${list}${ov.warnings?.length ? ` · ${ov.warnings.length} warning${ov.warnings.length === 1 ? '' : 's'} (open this run alone to see them)` : ''}`;
}

// Draws a diff report into a diff panel's parts (report.js), charts by the main-thread wasm
function showDiff(prefix) {
  return async (parts, report) => {
    const mod = await mainWasm;
    renderReport(parts, report, {
      prefix,
      chartSize: typeof mod.chart_size === 'function' ? [...mod.chart_size()] : [900, 480],
      drawChart: (id, json) => mod.draw_chart(id, json),
      downloadFile: async (name) => { throw new Error(`a comparison produces no file ${name}`); },
    });
  };
}

// ---- small helpers ------------------------------------------------------------------------------------
function message(e) {
  return typeof e === 'string' ? e : e?.message ?? String(e);
}
function showError(text) {
  $('error').textContent = text;
  $('error').hidden = false;
  setState('error');
}
// body[data-state]: loading | done | error | cancelled — what the page is doing (styles and tests read it)
function setState(state) {
  document.body.dataset.state = state;
}
function showStatus(text) {
  $('status').textContent = text;
}

setMode(hashState().get('mode') === 'diff' ? 'diff' : 'trace', false);
if (hashState().get('sample') === '1') loadSample();
