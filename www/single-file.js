// Platform of the single-file build (dist/kinetoscope.html), which must work when opened from file://.
// There, module scripts loaded by URL, fetch() of the .wasm and Blob *module* workers are all blocked
// (measured, TOOLCHAIN.md §3), so www/build.sh inlines everything into <script> elements read here:
//   #wasm-glue   the `--target no-modules` glue (classic script, defines `wasm_bindgen`), run on the page
//   #wasm-b64    the wasm, base64        #worker-src  worker.js with the modules it imports inlined (parse-helpers.js),
//                                                     their wasm import lines swapped for the glue
//   #sample-b64  the sample trace, base64, data-name = its file name
// The worker is a classic Blob-URL worker; it gets the compiled WebAssembly.Module by postMessage.
/* global wasm_bindgen */
globalThis.kinetoscopePlatform = (() => {
  const text = (id) => document.getElementById(id).textContent;
  const bytes = (b64) => Uint8Array.from(atob(b64.trim()), (c) => c.charCodeAt(0));
  let workerUrl = null;
  return {
    compile: async () => WebAssembly.compile(bytes(text('wasm-b64'))),
    glue: async () => ({ init: wasm_bindgen, exports: wasm_bindgen }),
    worker() {
      workerUrl ??= URL.createObjectURL(
        new Blob([text('wasm-glue'), '\n', text('worker-src')], { type: 'text/javascript' }));
      return new Worker(workerUrl);
    },
    async sample() {
      const node = document.getElementById('sample-b64');
      return [new File([bytes(node.textContent)], node.dataset.name)];
    },
  };
})();
