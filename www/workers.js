// The page's side of its workers (worker.js): the standby worker, made ready while the page waits for files, and
// requests to a worker that holds traces (the one trace's, or the Diff mode's two runs) with their answers. Two
// query parameters of the page's URL go to every worker (readOptions): ?helpers=N, how many parse helpers a
// reading worker starts (default one per core, at most 6; 0: none, files are parsed one after another in the
// reading worker), for measurements; ?memory-limit=SIZE (64M, 1.5G…), a lower memory limit than wasm32's 4 GiB
// for the check before reading, for tests.
// A holder of traces: {worker, pending: Map(id → {ok, fail})}; its worker's messages with an id go to answered().
import { platform, wasmModule } from './platform.js';

// A worker made ready while the page waits for files (worker.js prepare()): its wasm instance and parse helpers
// started and, until one has done it to the end, the compiled code warmed up (the reader's, the dashboard's, every
// analysis'), so a dropped trace, and the first panel opened on it, run at full speed.
// The first one is started at once (app.js): its script loads while the module compiles, and it is told to prepare
// as soon as the module is there (before a file chosen meanwhile is posted to it: reactions run in order).
let standby = null;
let warmed = false; // a standby worker has warmed the compiled code up to the end (the module keeps it)
let reading = () => false; // whether a trace is being read (setReadingCheck): the next standby waits until not
let requests = 0;

/** What the page's URL asks of reading workers: {helpers: number | null, limit: text} (see above). */
export function readOptions() {
  const q = new URLSearchParams(location.search);
  const n = q.get('helpers');
  return { helpers: n !== null && /^\d+$/.test(n.trim()) ? Number(n) : null, limit: q.get('memory-limit') ?? '' };
}

/** How takeWorker learns whether a trace is being read (app.js: a parse job, or the Diff mode reading its runs). */
export function setReadingCheck(check) {
  reading = check;
}

export function prepareStandby() {
  if (standby) return;
  const w = (standby = platform.worker());
  w.onmessage = ({ data }) => {
    if (data.type !== 'prepared') return;
    warmed ||= data.warmed;
    if (warmed) document.body.dataset.warmed = 'true';
    if (standby === w) document.body.dataset.standby = 'ready';
  };
  wasmModule.then((module) => w.postMessage({ type: 'prepare', module, warm: !warmed, helpers: readOptions().helpers }), () => {});
}

/** A worker for a new job: the standby one if there is one (the next is prepared once nothing is being read). */
export function takeWorker() {
  const w = standby ?? platform.worker();
  standby = null;
  delete document.body.dataset.standby;
  const later = () => setTimeout(() => (reading() ? later() : prepareStandby()), 2000);
  later();
  return w;
}

/** Sends a request to a worker holding traces (`t`: the trace's, or the Diff mode's); resolves with its answer. */
export function ask(msg, t) {
  if (!t) return Promise.reject(new Error('no trace is open'));
  const id = ++requests;
  return new Promise((ok, fail) => {
    t.pending.set(id, { ok, fail: (e, dropped) => fail(Object.assign(e, { dropped })) });
    t.worker.postMessage({ ...msg, id });
  });
}

/** An answer (a message with an id) from the worker of `t`: settles its request. */
export function answered(t, data) {
  const p = t.pending.get(data.id);
  if (!p) return;
  t.pending.delete(data.id);
  if (data.type === 'failed') p.fail(new Error(data.message));
  else p.ok(data);
}
