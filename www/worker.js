// Trace worker: streams each File's bytes into the wasm Session, posts back the overview JSON, then
// keeps the trace and runs analyses on request. No analysis here (STYLE A7): it passes text in and
// JSON out. One trace per worker; cancel or a new trace = the page terminates it.
// In:  {type:'parse', module: WebAssembly.Module, files: File[]}            (first message)
//      {type:'run', id, analysis, params: {name: text}, ranks: text, hta: bool}
//      {type:'file', id, analysis, name}
// Out: {type:'progress', file, done, total} (bytes over all files) | {type:'result', json, wasmMemoryBytes}
//      | {type:'error', message}                                             (parse)
//      {type:'report', id, json, ms} | {type:'file', id, bytes: Uint8Array} | {type:'failed', id, message}
import init, * as wasm from './pkg/kinetoscope.js'; // www/build.sh swaps this line for the no-modules glue in the single-file build
let session = null;
let crashed = null; // a wasm trap (a Rust panic) leaves the instance unusable: later requests say so

const text = (e) => (typeof e === 'string' ? e : String(e?.message ?? e));

self.onmessage = ({ data }) => {
  if (data.type === 'parse') parse(data);
  else if (data.type === 'run') answer(data.id, () => {
    const t0 = performance.now();
    const json = session.run_analysis(data.analysis, JSON.stringify(data.params ?? {}), data.ranks ?? '', !!data.hta);
    return { type: 'report', json, ms: Math.round(performance.now() - t0) };
  });
  else if (data.type === 'file') answer(data.id, () => {
    const bytes = session.report_file(data.analysis, data.name);
    return [{ type: 'file', bytes }, [bytes.buffer]];
  });
};

// Runs one request and posts its answer, or {type:'failed', message}.
function answer(id, work) {
  let out, transfer = [];
  try {
    if (crashed) throw new Error(crashed);
    if (!session) throw new Error('no trace has been read yet');
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

async function parse({ module, files }) {
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
          self.postMessage({ type: 'progress', file: file.name, done: before + s.bytes_consumed(), total });
        }
      }
      s.end_file();
      before += file.size;
    }
    self.postMessage({ type: 'progress', file: '', done: total, total });
    const json = s.finish();
    session = s;
    self.postMessage({ type: 'result', json, wasmMemoryBytes: wasm.wasm_memory_bytes() });
  } catch (e) {
    self.postMessage({ type: 'error', message: text(e) });
  }
}
