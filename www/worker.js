// Parse worker: streams each File's bytes into the wasm Session and posts back the overview JSON.
// No analysis here (STYLE A7). One parse per worker; cancel = the page terminates it.
// Message in: {module: WebAssembly.Module, files: File[]}.
// Out: {type:'progress', file, done, total} (bytes over all files) | {type:'result', json, wasmMemoryBytes} | {type:'error', message}.
import init, * as wasm from './pkg/kinetoscope.js'; // www/build.sh swaps this line for the no-modules glue in the single-file build
self.onmessage = async ({ data: { module, files } }) => {
  try {
    await init({ module_or_path: module });
    const session = new wasm.Session(), total = files.reduce((n, f) => n + f.size, 0);
    let before = 0, last = 0;
    for (const file of files) {
      session.begin_file(file.name, file.size);
      const reader = file.stream().getReader();
      for (let chunk; !(chunk = await reader.read()).done; ) {
        session.push(chunk.value);
        if (performance.now() - last > 100) {
          last = performance.now();
          self.postMessage({ type: 'progress', file: file.name, done: before + session.bytes_consumed(), total });
        }
      }
      session.end_file();
      before += file.size;
    }
    self.postMessage({ type: 'progress', file: '', done: total, total });
    const json = session.finish();
    self.postMessage({ type: 'result', json, wasmMemoryBytes: wasm.wasm_memory_bytes() });
  } catch (e) {
    self.postMessage({ type: 'error', message: typeof e === 'string' ? e : String(e?.message ?? e) });
  }
};
