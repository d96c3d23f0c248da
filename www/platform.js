// Where the wasm, the worker and the sample come from, and the one compiled wasm module.
// The served build (dist/index.html) loads pkg/, worker.js and sample/ by URL. The single-file build
// (dist/kinetoscope.html, works from file://) defines globalThis.kinetoscopePlatform before the page's modules
// run: inlined wasm, a Blob-URL classic worker, inlined sample (see www/single-file.js).
export const platform = globalThis.kinetoscopePlatform ?? {
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
export const wasmModule = platform.compile();
export const mainWasm = wasmModule.then(async (module) => {
  const { init, exports } = await platform.glue();
  await init({ module_or_path: module });
  return exports;
});
