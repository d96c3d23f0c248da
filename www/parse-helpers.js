// The parse helpers of the reading worker (worker.js), two sides of one protocol:
//   the pool (startHelpers, run by the reading worker): helper workers, one per core (or as many as the page's
//     ?helpers=N asks), each with its own wasm instance, given up to PER_HELPER jobs at a time; the other jobs wait
//     in a queue, in the order they came;
//   the helper (helperInit, parseBlock, parseRange, parseWhole, run by each helper worker): parses a block of
//     content, or reads a byte range of the File itself (File.slice) and parses it, or reads a whole File (a small
//     file of a drop of several: a whole-file job) and returns its rank, encoded.
// A helper is worker.js again (started from the reading worker's own script URL), told {type:'helper'}; worker.js
// passes the helper messages ({type:'helper' | 'block' | 'range' | 'whole'}) here. A helper whose wasm instance
// traps (a Rust panic, or out of memory) says so (fatal) and closes: the pool gives it no more jobs. Also here: chunks() and text(), which both
// sides use. No analysis here (STYLE A7): bytes in, Rust's partial results out.
// Single-file build: www/build.sh inlines this module into the worker's text (the `worker-src` script) ahead of
// worker.js, in its own scope, with the import line below swapped for the no-modules glue as in worker.js, so the
// Blob worker and its helpers (the same Blob) hold both files.
import init, * as wasm from './pkg/kinetoscope.js'; // www/build.sh swaps this line for the no-modules glue in the single-file build

/** An error's text. */
export const text = (e) => (typeof e === 'string' ? e : String(e?.message ?? e));

const RANGE_MARGIN = 256 << 10; // read past a range job's end, where its block's last event usually ends
const HELPERS = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 6));
const MAX_HELPERS = 16; // the most ?helpers=N starts
const PER_HELPER = 2;

// Chunks as File.stream() gives them, the next read already under way while one is pushed.
export async function* chunks(file) {
  const reader = file.stream().getReader();
  for (let next = reader.read(); ;) {
    const chunk = await next;
    if (chunk.done) return;
    next = reader.read();
    yield chunk.value;
  }
}

/** How many helpers to start: `wanted` (the page's ?helpers=N, a number or null) if given, else one per core (at
 * most 6). 0: none, every file is parsed in the reading worker. */
export const helperCount = (wanted) => (Number.isInteger(wanted) && wanted >= 0 ? Math.min(wanted, MAX_HELPERS) : HELPERS);

// Helper workers (this script again), each given up to PER_HELPER jobs at a time; the others wait in a queue.
// `wanted`: see helperCount. Resolves to null when there are none.
export async function startHelpers(module, wanted = null) {
  const type = typeof wasm_bindgen === 'undefined' ? 'module' : 'classic'; // the single-file build is classic
  const helpers = [], count = helperCount(wanted);
  if (count === 0) return null;
  try {
    for (let i = 0; i < count; i++) helpers.push(new Worker(self.location.href, { type }));
  } catch (e) {
    for (const h of helpers) h.terminate();
    console.warn('parse helpers unavailable, parsing in one worker:', e);
    return null;
  }
  const ready = await Promise.all(helpers.map((h) => new Promise((resolve) => {
    h.onmessage = ({ data }) => resolve(data.type === 'ready');
    h.onerror = (e) => { e.preventDefault(); resolve(false); };
    h.postMessage({ type: 'helper', module });
  })));
  const live = helpers.filter((h, i) => ready[i] || void h.terminate());
  if (live.length === 0) {
    console.warn('parse helpers did not start, parsing in one worker');
    return null;
  }
  // Each helper gets up to PER_HELPER jobs at once, so that it reads the bytes of the next range while it parses one.
  const slots = live.map((h) => ({ h, jobs: new Map(), dead: false })), queue = [], waiters = [];
  let inFlight = 0, nextId = 0;
  const settle = (slot, id, fail) => {
    const job = slot.jobs.get(id);
    if (!job) return;
    slot.jobs.delete(id);
    inFlight--;
    fail ? job.reject(fail) : job.resolve(job.data);
  };
  const pump = () => {
    for (let slot; queue.length && (slot = leastBusy()); ) {
      const job = queue.shift(), id = nextId++;
      slot.jobs.set(id, job);
      slot.h.postMessage({ ...job.message, id }, job.transfer);
    }
    if (slots.every((s) => s.dead)) { // nobody left to parse what waits
      for (const job of queue.splice(0)) { inFlight--; job.reject(new Error('every parse helper failed')); }
    }
    for (const w of waiters.splice(0)) w();
  };
  const leastBusy = () => slots.filter((s) => !s.dead && s.jobs.size < PER_HELPER).sort((a, b) => a.jobs.size - b.jobs.size)[0];
  for (const slot of slots) {
    slot.h.onmessage = ({ data }) => {
      const job = slot.jobs.get(data.id);
      if (job) job.data = data;
      settle(slot, data.id, data.type === 'parsed' ? null : new Error(data.message));
      if (data.fatal) { // its wasm instance trapped and it closed: its other jobs fail, it takes no more
        slot.dead = true;
        for (const id of [...slot.jobs.keys()]) settle(slot, id, new Error(data.message));
      }
      pump();
    };
    slot.h.onerror = (e) => { // the helper is gone: its jobs fail and it takes no more; wake whoever waits in below()
      e.preventDefault();
      slot.dead = true;
      const fail = new Error(`a parse helper failed: ${e.message || 'unknown error'}`);
      for (const id of [...slot.jobs.keys()]) settle(slot, id, fail);
      pump();
    };
  }
  const submit = (message, transfer) => new Promise((resolve, reject) => {
    inFlight++;
    queue.push({ message, transfer, resolve, reject });
    pump();
  });
  return {
    size: live.length,
    // a block of content, parsed by parse_block: resolves to {partial, block}
    parse: (name, block) => submit({ type: 'block', name, block }, [block.buffer]),
    // a range job, read and parsed by the helper (parse_range): resolves to {partial}
    parseRange: (file, job, [start, end]) => submit({ type: 'range', file, job, start, end }, [job.buffer]),
    // a whole-file job, read and parsed by the helper (parseWhole): resolves to {partial} (the encoded rank)
    parseWhole: (file) => submit({ type: 'whole', file }, []),
    // resolves once at most n blocks are queued or being parsed
    below: async (n) => { while (inFlight > n) await new Promise((w) => waiters.push(w)); },
    stop: () => { for (const h of live) h.terminate(); },
  };
}

export async function helperInit(module) {
  try {
    await init({ module_or_path: module });
    self.postMessage({ type: 'ready' });
  } catch (e) {
    self.postMessage({ type: 'block-failed', message: text(e) });
  }
}

export function parseBlock({ id, name, block }) {
  try {
    const partial = wasm.parse_block(name, block);
    self.postMessage({ type: 'parsed', id, partial, block }, [partial.buffer, block.buffer]);
  } catch (e) {
    failed(id, e);
  }
}

// A job that failed: its error; a trap leaves this helper's wasm instance unusable, so it says so and closes.
function failed(id, e) {
  const fatal = e instanceof WebAssembly.RuntimeError;
  self.postMessage({ type: 'block-failed', id, message: fatal ? `a parse helper crashed: ${text(e)} (details in the browser console)` : text(e), fatal });
  if (fatal) self.close();
}

// A whole-file job: the File read from start to end and parsed by this helper's own reader, as the reading worker
// would (gzip inflated here); the encoded rank goes back (Session.add_rank).
export async function parseWhole({ id, file }) {
  let reader = null;
  try {
    reader = new wasm.WholeFile(file.name, file.size);
    for await (const chunk of chunks(file)) reader.push(chunk);
    const done = reader;
    reader = null;
    const partial = done.finish();
    self.postMessage({ type: 'parsed', id, partial }, [partial.buffer]);
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) reader?.free(); // a trapped instance is left alone
    failed(id, e);
  }
}

// A range job: the file's bytes from `start` to RANGE_MARGIN past `end`, further while parse_range asks for more (the
// block's last event runs past the range's end). A job to the end of the file (a long stretch parsed again, see
// Rust `read::blocks`) is streamed instead of read whole.
export async function parseRange({ id, file, job, start, end }) {
  try {
    const partial = wasm.job_to_end(job) ? await streamToEnd(file, job, start) : await readRange(file, job, start, end);
    self.postMessage({ type: 'parsed', id, partial }, [partial.buffer]);
  } catch (e) {
    failed(id, e);
  }
}

async function readRange(file, job, start, end) {
  for (let stop = Math.min(file.size, end + RANGE_MARGIN); ; stop = Math.min(file.size, stop + Math.max(RANGE_MARGIN, stop - start))) {
    const bytes = new Uint8Array(await file.slice(start, stop).arrayBuffer());
    const partial = wasm.parse_range(file.name, job, bytes, stop === file.size);
    if (partial) return partial;
  }
}

async function streamToEnd(file, job, start) {
  const stream = new wasm.JobStream(file.name, job);
  for await (const chunk of chunks(file.slice(start))) stream.push(chunk);
  return stream.finish();
}
