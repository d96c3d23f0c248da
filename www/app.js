// kinetoscope page, the entry point: reads a dropped/picked trace in a worker, shows its overview, keeps the worker
// (it holds the trace) for the panels' requests, and wires the page's modules together.
// JS moves bytes and draws (STYLE A7): every number shown comes from Rust's JSON, shown as given.
// The modules: platform.js (where wasm, worker and sample come from) · workers.js (standby worker, requests to a
// worker holding traces) · files.js (input: drop, pick, sample) · overview.js (the overview) · panels.js (tabs:
// a panel per analysis, Compare ranks) · diff-mode.js (two runs in one worker) · page-state.js (status, error,
// busy bar, URL hash) · report.js and diff.js (what a panel shows) · format.js, dom.js (small helpers).
// www/build.sh inlines them all into the single-file build, each once, in dependency order.

import { $ } from './dom.js';
import { Num } from './report.js';
import { mainWasm, wasmModule } from './platform.js';
import { hashState, message, setBusy, setState, showError, showProgress, showStatus } from './page-state.js';
import { clearOutput, render, showDashboard } from './overview.js';
import { answered, ask, prepareStandby, readOptions, setReadingCheck, takeWorker } from './workers.js';
import { listenForFiles, loadSample } from './files.js';
import { chooseSide, dropPair, listenForDiffMode, readingPair, setMode } from './diff-mode.js';
import { buildTabs, listenForTabs, openView, openedViews } from './panels.js';
import { listenForTheme } from './theme.js';
import { saveReport } from './save.js';

mainWasm.then((mod) => {
  if (typeof mod.version === 'function') $('version').textContent = `kinetoscope ${mod.version()}`;
}, (e) => showError(`Could not load the WebAssembly module: ${message(e)}`));

// ---- job: one worker per trace; cancel or a new trace = terminate ----------------------------------------
// The worker parses, then keeps the trace and runs the analyses the panels ask for (`trace`).
let job = null; // the parse in progress: {worker, started, files}
let trace = null; // the parsed trace: {worker, ranks: [rank text], pending: Map(id → {ok, fail})}
let runs = 0; // a newer run() supersedes one still waiting for the module
// the job whose trace was read and whose Overview is being made (its dashboard computed in the reading worker, then
// drawn), until it is shown: starting the next standby worker (three workers and their wasm instances) meanwhile took
// a core from the dashboard (docs/performance.md, thirty-fifth round)
let showing = null;

// the first standby worker is started at once (workers.js); the next ones wait while a trace is being read and
// until its Overview is shown
prepareStandby();
setReadingCheck(() => job || showing || readingPair());

// Reads `files` (File[]; `paths`: where each was in what was dropped or picked, which tells the files of a trace
// folder) as one trace in a worker (the standby one if it is there) and shows what it read.
async function run(files, paths = files.map((f) => f.name)) {
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
      showing = current;
      const shown = () => { if (showing === current) showing = null; };
      const ms = finish(current, true);
      // for benchmarks (scripts/bench/bench_browser.mjs): the worker's peak wasm linear memory
      // and whether it was the standby worker, prepared before the file came
      window.__kinetoscopeStats = {
        parseMs: ms, wasmMemoryBytes: data.wasmMemoryBytes, blocks: data.blocks, wholeFiles: data.wholeFiles, helpers: data.helpers,
        prepared: data.prepared,
      };
      const failed = data.failed ?? [];
      showStatus(`Read ${current.files - failed.length} file${current.files - failed.length === 1 ? '' : 's'} in ${ms} ms.`);
      let list = [], diffOptions = null;
      try {
        const mod = await mainWasm;
        list = JSON.parse(mod.analyses?.() ?? '[]');
        diffOptions = JSON.parse(mod.diff_options?.() ?? 'null');
      } catch (e) {
        console.warn('no analyses:', e);
      }
      if (token !== runs) {
        shown();
        return worker.terminate();
      }
      try {
        const ov = render(data.json);
        trace = { worker, ranks: (ov.ranks ?? []).map((r, i) => (r.rank instanceof Num ? r.rank.src : String(r.rank ?? i))), pending: new Map() };
        buildTabs(list, diffOptions, { ranks: trace.ranks, ask: (msg) => ask(msg, trace) });
        if (list.some((a) => a.name === 'summary')) showDashboard((msg) => ask(msg, trace), openView).finally(shown);
        else shown();
        $('save-report').hidden = false;
        setState('done');
        // the files that could not be read are named with their errors; the others are open
        if (failed.length) {
          $('error').textContent = `${failed.length} of ${current.files} files could not be read and are left out:\n`
            + failed.map((f) => `${f.message}`).join('\n');
          $('error').hidden = false;
        }
      } catch (e) {
        shown();
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
  worker.postMessage({ type: 'parse', module, files, paths, split: globalThis.kinetoscopeSplit ?? null, ...readOptions() });
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
  $('save-report').hidden = true;
  if (!trace) return;
  trace.worker.terminate();
  for (const p of trace.pending.values()) p.fail(new Error('superseded'), true);
  trace = null;
}

function cancel() {
  if (readingPair()) {
    dropPair();
    setBusy(false);
  } else if (job) stop();
  else return;
  showStatus('Cancelled.');
  setState('cancelled');
}

// ---- wiring ---------------------------------------------------------------------------------------------
$('cancel').addEventListener('click', cancel);
$('save-report').addEventListener('click', () => trace && saveReport((msg) => ask(msg, trace), openedViews()));
listenForTheme();
listenForFiles({ open: run, openSide: chooseSide });
listenForDiffMode();
listenForTabs();
setMode(hashState().get('mode') === 'diff' ? 'diff' : 'trace', false);
if (hashState().get('sample') === '1') loadSample();
