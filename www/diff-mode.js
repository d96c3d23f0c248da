// Diff mode: a control run and a test run read into one worker (slots 'control' and 'test'), compared by Rust's
// diff in a diff panel (diff.js, #panel-diff). Each side takes files or a folder (picked or dropped on it); once
// both are chosen the worker reads control, then test, and the panel runs. Choosing again reads both again in a
// fresh worker. The mode is body[data-mode] (setMode), and `#mode=diff` in the URL hash.
import { $, el } from './dom.js';
import { Num, parseExact, renderReport, reportHooks } from './report.js';
import { diffPanel } from './diff.js';
import { show } from './format.js';
import { mainWasm, wasmModule } from './platform.js';
import { hashState, message, setBusy, setHash, setState, showError, showProgress, showStatus } from './page-state.js';
import { parseOverview } from './overview.js';
import { byPath, picked } from './files.js';
import { answered, ask, readOptions, takeWorker } from './workers.js';

const SIDES = ['control', 'test'];
const chosen = { control: null, test: null }; // per side: {files: File[], paths: string[]}
let pair = null; // the Diff mode's worker: {worker, pending, loading, started}
let pairRuns = 0;
let diffPanelReady = null; // Promise of the Diff mode's panel (built from Rust's diff_options() once)

/** The buttons that open and close Diff mode, and the sides' file and folder pickers. */
export function listenForDiffMode() {
  $('open-diff').addEventListener('click', () => setMode('diff'));
  $('close-diff').addEventListener('click', () => setMode('trace'));
  for (const side of SIDES) {
    for (const kind of ['file', 'folder']) $(`diff-${side}-${kind}`).addEventListener('change', (e) => chooseSide(side, picked(e.target)));
  }
}

/** Whether the Diff mode's worker is reading the runs (Cancel stops it: dropPair). */
export const readingPair = () => !!pair?.loading;

// body[data-mode]: trace (one trace, its tabs) | diff (two runs) — the style shows one or the other
export function setMode(mode, remember = true) {
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

/** The files `found` ({path, file}) for `side`: once both sides have theirs, both are read. */
export function chooseSide(side, found) {
  const zone = document.querySelector(`#diff [data-side="${side}"]`);
  if (!found.length) return showError(`No files found in what was dropped or picked for ${side}.`);
  const sorted = found.sort(byPath);
  chosen[side] = { files: sorted.map((f) => f.file), paths: sorted.map((f) => f.path) };
  const names = chosen[side].files.map((f) => f.name);
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
    const { files: list, paths } = files[slot];
    showProgress({ slot, file: list[0]?.name ?? '', done: 0, total: list.reduce((n, f) => n + f.size, 0) });
    worker.postMessage({ type: 'parse', module, files: list, paths, slot, split: globalThis.kinetoscopeSplit ?? null, ...readOptions() });
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
      showSide(data.slot, data.json, data.failed ?? []);
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

export function dropPair() {
  if (!pair) return;
  pair.worker.terminate();
  for (const q of pair.pending.values()) q.fail(new Error('superseded'), true);
  pair = null;
}

// What was read on a side: the overview's counts, as Rust gives them
// `failed`: the side's files that could not be read ({file, message}), left out of it
function showSide(side, json, failed) {
  const ov = parseOverview(json), ranks = ov.ranks ?? [];
  const list = ranks.map((r, i) => (r.rank instanceof Num ? r.rank.src : String(r.rank ?? i))).join(', ');
  const loaded = document.querySelector(`#diff [data-side="${side}"] .loaded`);
  loaded.textContent =
    `${show(ov.events)} events · ${ranks.length === 1 ? 'rank' : 'ranks'} ${list}${ov.warnings?.length ? ` · ${ov.warnings.length} warning${ov.warnings.length === 1 ? '' : 's'} (open this run alone to see them)` : ''}`;
  if (failed.length) {
    loaded.append(el('span', { class: 'inline-error' },
      ` · ${failed.length} file${failed.length === 1 ? '' : 's'} left out: ${failed.map((f) => f.message).join('; ')}`));
  }
}

// Draws a diff report into a diff panel's parts (report.js), charts by the main-thread wasm
export function showDiff(prefix) {
  return async (parts, report) => {
    const mod = await mainWasm;
    renderReport(parts, report, reportHooks(mod, prefix, async (name) => { throw new Error(`a comparison produces no file ${name}`); }));
  };
}
