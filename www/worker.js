// Trace worker: streams each File's bytes into a wasm Session, posts back the overview JSON, then keeps the
// trace and runs analyses on request. No analysis here (STYLE A7): it passes text in and JSON out. A worker
// holds one trace (slot 'trace'), or in Diff mode two (slots 'control' and 'test'); cancel or new traces = the
// page terminates it.
// In:  {type:'parse', module: WebAssembly.Module, files: File[], slot?, split?: {min, block}}
//        (slot: 'trace' unless given; split: other SPLIT_MIN / BLOCK_BYTES, for tests and benchmarks)
//      {type:'run', id, analysis, params: {name: text}, ranks: text, hta: bool}
//      {type:'file', id, analysis, name}
//      {type:'diff', id, pair: bool, params: {name: text}, control_ranks: text, test_ranks: text, hta: bool}
//        (pair: slots 'control' and 'test'; else the 'trace' slot on both sides, a rank set against the others)
//      {type:'helper', module} then {type:'block', name, block: Uint8Array}   (a parse helper, see below)
// Out: {type:'progress', slot, file, done, total} (bytes over the slot's files) | {type:'result', slot, json,
//      wasmMemoryBytes, blocks} | {type:'error', slot, message}             (parse)
//      {type:'report', id, json, ms} | {type:'file', id, bytes: Uint8Array} | {type:'failed', id, message}
//      {type:'ready'} | {type:'parsed', partial: Uint8Array, block: Uint8Array} | {type:'block-failed', message}   (helper)
// Files of SPLIT_MIN bytes or more are read by this worker and parsed by helpers: copies of this script started
// by it (one per core), each with its own wasm instance. This worker inflates and scans the file and hands out
// blocks of its content; helpers parse them; this worker merges the results in file order (Rust `read::blocks`).
// Where helpers cannot start (no nested workers), the file is parsed here alone.
import init, * as wasm from './pkg/kinetoscope.js'; // www/build.sh swaps this line for the no-modules glue in the single-file build
const sessions = {}; // slot -> wasm Session, once its files are read
let crashed = null; // a wasm trap (a Rust panic) leaves the instance unusable: later requests say so

const text = (e) => (typeof e === 'string' ? e : String(e?.message ?? e));

const SPLIT_MIN = 24 << 20; // smaller files: helpers would cost more than they save
const BLOCK_BYTES = 8 << 20;
const HELPERS = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 6));

self.onmessage = ({ data }) => {
  if (data.type === 'parse') parse(data);
  else if (data.type === 'helper') helperInit(data.module);
  else if (data.type === 'block') parseBlock(data);
  else if (data.type === 'run') answer(data.id, () => {
    const t0 = performance.now();
    const json = session('trace').run_analysis(data.analysis, JSON.stringify(data.params ?? {}), data.ranks ?? '', !!data.hta);
    return { type: 'report', json, ms: Math.round(performance.now() - t0) };
  });
  else if (data.type === 'file') answer(data.id, () => {
    const bytes = session('trace').report_file(data.analysis, data.name);
    return [{ type: 'file', bytes }, [bytes.buffer]];
  });
  else if (data.type === 'diff') answer(data.id, () => {
    const t0 = performance.now();
    const [control, test] = data.pair ? [session('control'), session('test')] : [session('trace'), session('trace')];
    const json = wasm.diff(control, test, JSON.stringify(data.params ?? {}), data.control_ranks ?? '', data.test_ranks ?? '', !!data.hta);
    return { type: 'report', json, ms: Math.round(performance.now() - t0) };
  });
};

function session(slot) {
  if (!sessions[slot]) throw new Error(slot === 'trace' ? 'no trace has been read yet' : `the ${slot} trace has not been read yet`);
  return sessions[slot];
}

// Runs one request and posts its answer, or {type:'failed', message}.
function answer(id, work) {
  let out, transfer = [];
  try {
    if (crashed) throw new Error(crashed);
    out = work();
    if (Array.isArray(out)) [out, transfer] = out;
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      crashed = `kinetoscope crashed earlier (${text(e)}; details in the browser console). Open the trace again to continue.`;
      out = { type: 'failed', message: `kinetoscope crashed: ${text(e)} — this is a bug (details in the browser console). Open the trace again to continue.` };
    } else out = { type: 'failed', message: text(e) };
  }
  self.postMessage({ ...out, id }, transfer);
}

async function parse({ module, files, slot = 'trace', split }) {
  const splitMin = split?.min ?? SPLIT_MIN, blockBytes = split?.block ?? BLOCK_BYTES;
  let pool = null, blocks = 0;
  try {
    await init({ module_or_path: module });
    const s = new wasm.Session(), total = files.reduce((n, f) => n + f.size, 0);
    let before = 0, last = 0;
    const progress = (file, done) => {
      if (performance.now() - last > 100) {
        last = performance.now();
        self.postMessage({ type: 'progress', slot, file, done, total });
      }
    };
    if (files.some((f) => f.size >= splitMin)) pool = await startHelpers(module);
    for (const file of files) {
      if (pool && file.size >= splitMin) blocks += await readSplit(s, file, pool, blockBytes, (done) => progress(file.name, before + done));
      else await readHere(s, file, () => progress(file.name, before + s.bytes_consumed()));
      before += file.size;
    }
    self.postMessage({ type: 'progress', slot, file: '', done: total, total });
    const json = s.finish();
    sessions[slot] = s;
    self.postMessage({ type: 'result', slot, json, wasmMemoryBytes: wasm.wasm_memory_bytes(), blocks });
  } catch (e) {
    self.postMessage({ type: 'error', slot, message: text(e) });
  } finally {
    pool?.stop();
  }
}

// Chunks as File.stream() gives them, the next read already under way while one is pushed.
async function* chunks(file) {
  const reader = file.stream().getReader();
  for (let next = reader.read(); ;) {
    const chunk = await next;
    if (chunk.done) return;
    next = reader.read();
    yield chunk.value;
  }
}

async function readHere(s, file, progress) {
  s.begin_file(file.name, file.size);
  for await (const chunk of chunks(file)) {
    s.push(chunk);
    progress();
  }
  s.end_file();
}

// One file read here and parsed by the helpers. At most 2 blocks per helper wait, so memory stays bounded
// when reading outruns parsing.
// Returns the number of blocks.
async function readSplit(s, file, pool, blockBytes, progress) {
  s.begin_file_split(file.name, file.size, blockBytes);
  let failed = null;
  const out = [];
  const handOut = () => {
    for (let b; (b = s.take_block()); ) {
      out.push(pool.parse(file.name, b).then(({ partial, block }) => { if (!failed) s.add_partial(partial, block); })
        .catch((e) => { failed ??= e; }));
    }
  };
  let done = 0;
  for await (const chunk of chunks(file)) {
    s.push(chunk);
    done += chunk.length;
    handOut();
    progress(done);
    await pool.below(2 * pool.size);
    if (failed) throw failed;
  }
  s.end_input();
  handOut();
  await Promise.all(out);
  if (failed) throw failed;
  s.end_file();
  return out.length;
}

// Helper workers (this script again), each parsing one block at a time; blocks wait in a queue.
async function startHelpers(module) {
  const type = typeof wasm_bindgen === 'undefined' ? 'module' : 'classic'; // the single-file build is classic
  const helpers = [];
  try {
    for (let i = 0; i < HELPERS; i++) helpers.push(new Worker(self.location.href, { type }));
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
  const queue = [], idle = [...live], waiters = [];
  let inFlight = 0;
  const pump = () => {
    while (idle.length && queue.length) {
      const h = idle.pop(), job = queue.shift();
      h.onmessage = ({ data }) => {
        idle.push(h);
        inFlight--;
        if (data.type === 'parsed') job.resolve(data);
        else job.reject(new Error(data.message));
        pump();
      };
      h.onerror = (e) => { // the helper is gone (not idle again); wake whoever waits in below()
        e.preventDefault();
        inFlight--;
        job.reject(new Error(`a parse helper failed: ${e.message || 'unknown error'}`));
        pump();
      };
      h.postMessage({ type: 'block', name: job.name, block: job.block }, [job.block.buffer]);
    }
    for (const w of waiters.splice(0)) w();
  };
  return {
    size: live.length,
    parse: (name, block) => new Promise((resolve, reject) => {
      inFlight++;
      queue.push({ name, block, resolve, reject });
      pump();
    }),
    // resolves once at most n blocks are queued or being parsed
    below: async (n) => { while (inFlight > n) await new Promise((w) => waiters.push(w)); },
    stop: () => { for (const h of live) h.terminate(); },
  };
}

async function helperInit(module) {
  try {
    await init({ module_or_path: module });
    self.postMessage({ type: 'ready' });
  } catch (e) {
    self.postMessage({ type: 'block-failed', message: text(e) });
  }
}

function parseBlock({ name, block }) {
  try {
    const partial = wasm.parse_block(name, block);
    self.postMessage({ type: 'parsed', partial, block }, [partial.buffer, block.buffer]);
  } catch (e) {
    self.postMessage({ type: 'block-failed', message: text(e) });
  }
}
