// kinetoscope page: hands dropped/picked files to the parse worker and draws the overview it returns.
// JS moves bytes and draws (STYLE A7): every number shown comes from Rust's JSON, shown as given.
// Layout: platform (where wasm, worker and sample come from) · input (drop, pick, sample) · job (worker,
// progress, cancel) · render (overview tables) · URL hash state.

// ---- platform -------------------------------------------------------------------------------------
// The served build (dist/index.html) loads pkg/ and worker.js by URL. The single-file build
// (dist/kinetoscope.html, works from file://) defines globalThis.kinetoscopePlatform before this module
// runs: inlined wasm, a Blob-URL classic worker, inlined sample (see www/single-file.js).
const platform = globalThis.kinetoscopePlatform ?? {
  async compile() {
    const r = await fetch(new URL('pkg/kinetoscope_bg.wasm', import.meta.url));
    if (!r.ok) throw new Error(`could not load pkg/kinetoscope_bg.wasm: HTTP ${r.status}`);
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

const $ = (id) => document.getElementById(id);

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

// ---- URL hash state -------------------------------------------------------------------------------
// `#sample=1`: the overview shows the bundled sample (a shareable link that loads it on open).
const hashState = () => new URLSearchParams(location.hash.slice(1));
function setHash(params) {
  const s = params.toString();
  history.replaceState(null, '', s ? `#${s}` : location.pathname + location.search);
}

// ---- input: drop anywhere, pick files or a folder, sample ------------------------------------------
const hidden = (path) => path.split('/').some((part) => part.startsWith('.'));
const byPath = (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

document.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.body.classList.add('dragging');
});
document.addEventListener('dragleave', (e) => {
  if (!e.relatedTarget) document.body.classList.remove('dragging');
});
document.addEventListener('drop', async (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  setState('loading');
  // Entries must be taken synchronously, during the event: the DataTransfer is emptied afterwards.
  const items = [...(e.dataTransfer?.items ?? [])].filter((i) => i.kind === 'file');
  const roots = items.length
    ? items.map((i) => i.webkitGetAsEntry?.() ?? i.getAsFile())
    : [...(e.dataTransfer?.files ?? [])];
  try {
    const found = [];
    for (const root of roots) if (root) await collect(root, found);
    startUserFiles(found);
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

for (const id of ['file', 'folder']) {
  $(id).addEventListener('change', (e) => {
    const found = [...e.target.files]
      .map((file) => ({ path: file.webkitRelativePath || file.name, file }))
      .filter(({ path }) => !hidden(path));
    e.target.value = ''; // picking the same files again fires `change` again
    startUserFiles(found);
  });
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

// ---- job: one worker per parse; cancel = terminate ----------------------------------------------------
let job = null; // {worker, started, files}
let runs = 0; // a newer run() supersedes one still waiting for the module

async function run(files) {
  const token = ++runs;
  stop();
  clearOutput();
  let module;
  try {
    module = await wasmModule;
  } catch (e) {
    return showError(`Could not load the WebAssembly module: ${message(e)}`);
  }
  if (token !== runs) return;
  const worker = platform.worker();
  const current = (job = { worker, started: performance.now(), files: files.length });
  setBusy(true);
  showProgress({ file: files[0]?.name ?? '', done: 0, total: files.reduce((n, f) => n + f.size, 0) });
  worker.onmessage = ({ data }) => {
    if (job !== current) return;
    if (data.type === 'progress') showProgress(data);
    else if (data.type === 'result') {
      const ms = finish(current);
      // for benchmarks (scripts/bench/bench_browser.mjs): the worker's peak wasm linear memory
      window.__kinetoscopeStats = { parseMs: ms, wasmMemoryBytes: data.wasmMemoryBytes };
      showStatus(`Read ${current.files} file${current.files === 1 ? '' : 's'} in ${ms} ms.`);
      try {
        render(data.json);
        setState('done');
      } catch (e) {
        showError(`Could not show the result: ${message(e)}`);
      }
    }
    else if (data.type === 'error') { finish(current); showError(data.message); }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    if (job !== current) return;
    finish(current);
    showError(`The parse worker failed: ${e.message || 'it could not start'}`);
  };
  worker.postMessage({ module, files });
}

// Ends the job (its worker's memory goes with it); returns how long it ran, in ms.
function finish(current) {
  stop();
  return Math.round(performance.now() - current.started);
}

function stop() {
  if (job) job.worker.terminate();
  job = null;
  setBusy(false);
}

$('cancel').addEventListener('click', () => {
  if (!job) return;
  stop();
  showStatus('Cancelled.');
  setState('cancelled');
});

function setBusy(busy) {
  $('busy').hidden = !busy;
  for (const el of document.querySelectorAll('#drop input, #drop button')) el.disabled = busy;
  for (const el of document.querySelectorAll('#drop .button')) el.classList.toggle('disabled', busy);
  if (busy) showStatus('');
}

function showProgress({ file, done, total }) {
  $('progress').max = Math.max(total, 1);
  $('progress').value = done;
  $('progress-text').textContent = `${group(String(done))} of ${group(String(total))} bytes${file ? ` · ${file}` : ''}`;
}

// ---- render ---------------------------------------------------------------------------------------------
// Numbers keep Rust's own text (JSON.parse source access): no float rounding, no 2^53 limit.
class Num {
  constructor(src) { this.src = src; }
}
const parseOverview = (json) =>
  JSON.parse(json, (_key, value, ctx) => (typeof value === 'number' ? new Num(ctx?.source ?? String(value)) : value));
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

// ---- small helpers ------------------------------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null) node.setAttribute(k, v);
  node.append(...children);
  return node;
}
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

if (hashState().get('sample') === '1') loadSample();
