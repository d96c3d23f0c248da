// Trace worker: streams each File's bytes into a wasm Session, posts back the overview JSON, then keeps the
// trace and runs analyses on request. No analysis here (STYLE A7): it passes text in and JSON out. A worker
// holds one trace (slot 'trace'), or in Diff mode two (slots 'control' and 'test'); cancel or new traces = the
// page terminates it.
// In:  {type:'parse', module: WebAssembly.Module, files: File[], slot?}    (slot: 'trace' unless given)
//      {type:'run', id, analysis, params: {name: text}, ranks: text, hta: bool}
//      {type:'file', id, analysis, name}
//      {type:'diff', id, pair: bool, params: {name: text}, control_ranks: text, test_ranks: text, hta: bool}
//        (pair: slots 'control' and 'test'; else the 'trace' slot on both sides, a rank set against the others)
// Out: {type:'progress', slot, file, done, total} (bytes over the slot's files) | {type:'result', slot, json,
//      wasmMemoryBytes} | {type:'error', slot, message}                     (parse)
//      {type:'report', id, json, ms} | {type:'file', id, bytes: Uint8Array} | {type:'failed', id, message}
import init, * as wasm from './pkg/kinetoscope.js'; // www/build.sh swaps this line for the no-modules glue in the single-file build
const sessions = {}; // slot -> wasm Session, once its files are read
let crashed = null; // a wasm trap (a Rust panic) leaves the instance unusable: later requests say so

const text = (e) => (typeof e === 'string' ? e : String(e?.message ?? e));

self.onmessage = ({ data }) => {
  if (data.type === 'parse') parse(data);
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

async function parse({ module, files, slot = 'trace' }) {
  try {
    await init({ module_or_path: module });
    const s = new wasm.Session(), total = files.reduce((n, f) => n + f.size, 0);
    let before = 0, last = 0;
    for (const file of files) {
      s.begin_file(file.name, file.size);
      const reader = file.stream().getReader();
      for (let chunk; !(chunk = await reader.read()).done; ) {
        s.push(chunk.value);
        if (performance.now() - last > 100) {
          last = performance.now();
          self.postMessage({ type: 'progress', slot, file: file.name, done: before + s.bytes_consumed(), total });
        }
      }
      s.end_file();
      before += file.size;
    }
    self.postMessage({ type: 'progress', slot, file: '', done: total, total });
    const json = s.finish();
    sessions[slot] = s;
    self.postMessage({ type: 'result', slot, json, wasmMemoryBytes: wasm.wasm_memory_bytes() });
  } catch (e) {
    self.postMessage({ type: 'error', slot, message: text(e) });
  }
}
