// Trace worker (the reading worker): streams each File's bytes into a wasm Session, posts back the overview JSON, then keeps the
// trace and runs analyses on request. No analysis here (STYLE A7): it passes text in and JSON out. A worker
// holds one trace (slot 'trace'), or in Diff mode two (slots 'control' and 'test'); cancel or new traces = the
// page terminates it.
// In:  {type:'prepare', module, warm: bool, helpers?}   (optional, before the first parse: see prepare())
//      {type:'parse', module: WebAssembly.Module, files: File[], paths?: string[], slot?, split?: {min, block},
//        helpers?, limit?}
//        (paths: where each file was in what was dropped or picked (default: its name), which tells the files of a
//        Recorder trace folder, read whole and decoded together; slot: 'trace' unless given; split: another SPLIT_MIN
//        or block size (else Rust's split_block_bytes for the file and the helpers), for tests and benchmarks;
//        helpers: how many parse helpers (the page's ?helpers=N; default one per core, at most 6; 0 = none); limit: a
//        memory limit lower than wasm32's 4 GiB (the page's ?memory-limit=SIZE, for tests))
//      {type:'run', id, analysis, params: {name: text}, ranks: text, hta: bool}
//      {type:'file', id, analysis, name}
//      {type:'export', id, format: pprof|folded|speedscope|chrome, params: {measure, range}, ranks: text}
//        (the flame panel's stacks as a file: Session.export → {name, bytes})
//      {type:'dashboard', id}   (the Overview's dashboard: {html, charts} JSON)
//      {type:'save', id, views: [{analysis, params, ranks, hta}], generated: text}   (the saved report: {html, charts} JSON)
//      {type:'diff', id, pair: bool, params: {name: text}, control_ranks: text, test_ranks: text, hta: bool}
//        (pair: slots 'control' and 'test'; else the 'trace' slot on both sides, a rank set against the others)
//      {type:'helper', module} then {type:'block', id, name, block: Uint8Array} | {type:'range', id, file: File,
//        job: Uint8Array, start, end} | {type:'whole', id, file: File}   (a parse helper, see below)
// Out: {type:'progress', slot, file, done, total} (bytes over the slot's files) | {type:'result', slot, json, failed: [{file, message}],
//      wasmMemoryBytes, blocks, wholeFiles, helpers, prepared} | {type:'error', slot, message, refused?}   (parse;
//      refused: the files would not fit in memory, nothing was read)
//      {type:'report', id, json, ms, wasmMemoryBytes? (dashboard)} | {type:'file', id, bytes: Uint8Array, name?} | {type:'failed', id, message}
//      {type:'prepared'}   (the standby is ready)
//      {type:'ready'} | {type:'parsed', id, partial: Uint8Array, block?: Uint8Array} | {type:'block-failed', id, message, fatal?}
//        (helper)
// Before reading, Rust's check_fits estimates the memory the files need from their sizes (and a gzip file's trailer):
// a drop that would not fit is refused, nothing read. Files of SPLIT_MIN bytes of content or more (a gzip file's
// inflated size, from its trailer) are parsed by helpers: copies
// of this script started by this worker (one per core), each with its own wasm instance. An uncompressed Chrome
// trace is cut into byte ranges that each helper reads (File.slice) and parses; a gzip file is inflated here and
// handed out as blocks of content. This worker merges the results in file order (Rust `read::blocks`). When several
// trace files are dropped, each smaller one is a whole-file job: a helper reads the File itself (inflating a gzip
// file itself) and sends back its rank, encoded; so the ranks of a folder are parsed on every core. Rust keeps every
// rank at its file's place (Session.add_rank), so the trace is the one a one-by-one read gives. Where helpers cannot
// start (no nested workers, or ?helpers=0), every file is parsed here, one after another. The helper pool and what a
// helper does are in parse-helpers.js; here, readSplit() and parseWhole jobs hand out the work.
import init, * as wasm from './pkg/kinetoscope.js'; // www/build.sh swaps this line for the no-modules glue in the single-file build
import { chunks, helperCount, helperInit, parseBlock, parseRange, parseWhole, startHelpers, text } from './parse-helpers.js'; // the single-file build inlines it (www/build.sh)

const sessions = {}; // slot -> wasm Session, once its files are read
let prepared = null; // after {type:'prepare'}: resolves to the helpers (or null), the wasm instance ready
let fileWaiting = false; // a parse has come: a prepare still under way skips its warm-up
let crashed = null; // a wasm trap (a Rust panic) leaves the instance unusable: later requests say so
// The dashboard of the trace just read ({session, out} or {session, error}), made as soon as the read ends, while the
// page shows the read's result; the page's {type:'dashboard'} request that follows takes it. Before, the request came
// ~0.15 s after the read ended (1 GB .json.gz: the page's handling of the result), and this worker waited.
let early = null;

const SPLIT_MIN = 24 << 20; // smaller files: helpers would cost more than they save
const HEAD_BYTES = 64 << 10; // read first: enough to tell the format (and so whether helpers can read ranges)
const WARM_UP_BYTES = 256 << 10, WARM_UP_ROUNDS = 8; // 2 MB of generated trace in all, for the reader, then for the analyses

self.onmessage = ({ data }) => {
  if (data.type === 'prepare') (prepared = prepare(data)).then(() => self.postMessage({ type: 'prepared', warmed: warmedUp }), () => {});
  else if (data.type === 'parse') {
    fileWaiting = true;
    parse(data);
  }
  else if (data.type === 'helper') helperInit(data.module);
  else if (data.type === 'block') parseBlock(data);
  else if (data.type === 'range') parseRange(data);
  else if (data.type === 'whole') parseWhole(data);
  else if (data.type === 'run') answer(data.id, () => {
    const t0 = performance.now();
    const json = session('trace').run_analysis(data.analysis, JSON.stringify(data.params ?? {}), data.ranks ?? '', !!data.hta);
    return { type: 'report', json, ms: Math.round(performance.now() - t0) };
  });
  else if (data.type === 'dashboard') answer(data.id, () => {
    const made = early;
    early = null;
    if (made?.session === sessions.trace) {
      if (made.error) throw made.error;
      return made.out;
    }
    return dashboardOf(session('trace'));
  });
  else if (data.type === 'save') answer(data.id, () => {
    const t0 = performance.now();
    const json = session('trace').report(JSON.stringify(data.views ?? []), data.generated ?? '');
    return { type: 'report', json, ms: Math.round(performance.now() - t0) };
  });
  else if (data.type === 'file') answer(data.id, () => {
    const bytes = session('trace').report_file(data.analysis, data.name);
    return [{ type: 'file', bytes }, [bytes.buffer]];
  });
  else if (data.type === 'export') answer(data.id, () => {
    const out = session('trace').export(data.format, JSON.stringify(data.params ?? {}), data.ranks ?? '');
    return [{ type: 'file', bytes: out.bytes, name: out.name }, [out.bytes.buffer]];
  });
  else if (data.type === 'diff') answer(data.id, () => {
    const t0 = performance.now();
    const [control, test] = data.pair ? [session('control'), session('test')] : [session('trace'), session('trace')];
    const json = wasm.diff(control, test, JSON.stringify(data.params ?? {}), data.control_ranks ?? '', data.test_ranks ?? '', !!data.hta);
    return { type: 'report', json, ms: Math.round(performance.now() - t0) };
  });
};

// What later requests say once a wasm trap `e` left the instance unusable.
const crashedText = (e) => `kinetoscope crashed earlier (${text(e)}; details in the browser console). Open the trace again to continue.`;

// The Overview's dashboard of `s`: {type:'report', json, ms, wasmMemoryBytes}.
function dashboardOf(s) {
  const t0 = performance.now();
  const json = s.dashboard();
  return { type: 'report', json, ms: Math.round(performance.now() - t0), wasmMemoryBytes: wasm.wasm_memory_bytes() };
}

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
      crashed = crashedText(e);
      out = { type: 'failed', message: `kinetoscope crashed: ${text(e)} — this is a bug (details in the browser console). Open the trace again to continue.` };
    } else out = { type: 'failed', message: text(e) };
  }
  self.postMessage({ ...out, id }, transfer);
}

async function parse({ module, files, paths, slot = 'trace', split, helpers = null, limit = '' }) {
  const splitMin = split?.min ?? SPLIT_MIN;
  let pool = null, blocks = 0, wholeFiles = 0, ready = null, finished = null;
  try {
    await init({ module_or_path: module });
    paths ??= files.map((f) => f.name);
    // refuse before reading what would not fit in this instance's memory (Rust's estimate and message)
    const fit = JSON.parse(wasm.check_fits(JSON.stringify(await describe(files, paths)), limit ?? ''));
    if (!fit.fits) {
      self.postMessage({ type: 'error', slot, message: fit.message, refused: true });
      return;
    }
    const content = fit.content_sizes; // each file's content (a gzip file inflated), at least: split by it
    const s = new wasm.Session(), total = files.reduce((n, f) => n + f.size, 0);
    let read = 0, last = 0; // bytes of the files done
    const progress = (file, done) => {
      if (performance.now() - last > 100) {
        last = performance.now();
        self.postMessage({ type: 'progress', slot, file, done, total });
      }
    };
    ready = prepared;
    prepared = null;
    pool = ready ? await ready.catch(() => null) : null;
    // which files are traces of their own and which belong to a trace folder (read whole, decoded together)
    const roles = JSON.parse(wasm.plan_files(JSON.stringify(paths)));
    const traces = roles.filter((r) => r.role === 'trace').length;
    if (!pool && helperCount(helpers) > 0 && files.some((f, i) => roles[i].role === 'trace' && (content[i] >= splitMin || traces > 1))) {
      pool = await startHelpers(module, helpers);
    }
    // a file that cannot be read is left out with its error, and the others open (all failing: the error)
    const failed = new Map(); // file index → {file, message}
    const jobs = []; // whole-file jobs under way
    let units = 0; // trace files and folders
    for (const [i, file] of files.entries()) {
      const role = roles[i];
      if (role.role !== 'trace') {
        if (role.role === 'recorder') s.add_folder_file(role.folder, role.name, new Uint8Array(await file.arrayBuffer()));
        progress(file.name, read += file.size);
        continue;
      }
      units++;
      if (pool && content[i] < splitMin && traces > 1) { // a helper reads it whole; its rank comes back encoded
        wholeFiles++;
        jobs.push(pool.parseWhole(file)
          .then(({ partial }) => s.add_rank(i, file.name, partial))
          .catch((e) => {
            if (e instanceof WebAssembly.RuntimeError) throw e; // a trap here: the instance is unusable
            failed.set(i, { file: file.name, message: text(e) });
          })
          .finally(() => progress(file.name, read += file.size)));
        continue;
      }
      try {
        if (pool && content[i] >= splitMin) {
          // blocks of 8-32 MiB, larger for larger files (a browser reads large slices of a file for less CPU); a gzip
          // file's, cut here from its inflated content, 16 MiB at most
          const blockBytes = split?.block ?? wasm.split_block_bytes(content[i], pool.size, fit.gzip[i]);
          blocks += await readSplit(s, i, file, pool, blockBytes, (done) => progress(file.name, read + done));
        } else await readHere(s, i, file, () => progress(file.name, read + s.bytes_consumed()));
      } catch (e) {
        if (e instanceof WebAssembly.RuntimeError) throw e; // a trap: the instance is unusable
        s.drop_file();
        failed.set(i, { file: file.name, message: text(e) });
      }
      read += file.size;
    }
    await Promise.all(jobs);
    const failures = [...failed.keys()].sort((a, b) => a - b).map((i) => failed.get(i)); // in file order
    if (roles.some((r) => r.role === 'recorder')) {
      units += new Set(roles.filter((r) => r.role === 'recorder').map((r) => r.folder)).size;
      failures.push(...JSON.parse(s.end_folders()));
    }
    if (failures.length === units) throw new Error(failures.map((f) => f.message).join('\n') || 'No trace among the files.');
    self.postMessage({ type: 'progress', slot, file: '', done: total, total });
    const json = s.finish();
    sessions[slot] = s;
    self.postMessage({
      type: 'result', slot, json, failed: failures, wasmMemoryBytes: wasm.wasm_memory_bytes(), blocks, wholeFiles,
      helpers: pool?.size ?? 0, prepared: !!ready,
    });
    finished = s;
  } catch (e) {
    self.postMessage({ type: 'error', slot, message: text(e) });
  } finally {
    pool?.stop();
  }
  if (finished && slot === 'trace') {
    try {
      early = { session: finished, out: dashboardOf(finished) };
    } catch (e) {
      early = { session: finished, error: e }; // the page's request gets it
      if (e instanceof WebAssembly.RuntimeError) crashed = crashedText(e); // and every request after it
    }
  }
}

// What check_fits needs of each file before it is read: its path, size, first 2 bytes and last 4 (a gzip file's
// magic and ISIZE trailer).
function describe(files, paths) {
  const bytes = async (blob) => [...new Uint8Array(await blob.arrayBuffer())];
  return Promise.all(files.map(async (f, i) => ({
    path: paths[i], size: f.size, head: await bytes(f.slice(0, 2)), tail: f.size >= 6 ? await bytes(f.slice(f.size - 4)) : [],
  })));
}

// A standby worker, prepared while the page waits for a file: its wasm instance and helpers started, and (warm) the
// compiled code optimised: the reader's and the dashboard's by reading a generated trace and making its Overview
// (Rust `page::warm_up`), then every analysis' by running it on such a trace (`page::warm_analyses`), so that the
// first trace, and the first panel opened on it, do not run the browser's first-tier code. The helpers come first:
// this worker's event loop loads their scripts, so the warm-up would hold them back. The warm-up runs in short
// rounds and stops when a file comes, so that the file waits for one round at most (its own jobs make the code hot
// from there); `warmedUp` says whether it ran to the end (else the next standby worker warms up again).
let warmedUp = false;
async function prepare({ module, warm, helpers = null }) {
  await init({ module_or_path: module });
  const pool = await startHelpers(module, helpers);
  const steps = warm ? [() => wasm.warm_up(WARM_UP_BYTES), () => wasm.warm_analyses(WARM_UP_BYTES)] : [];
  try {
    for (const step of steps) {
      for (let round = 0; round < WARM_UP_ROUNDS; round++) {
        await new Promise((later) => setTimeout(later, 0)); // lets a waiting parse message in
        if (fileWaiting) return pool;
        step();
      }
    }
    warmedUp = steps.length > 0;
  } catch (e) {
    console.warn('warm-up failed:', e);
  }
  return pool;
}

async function readHere(s, at, file, progress) {
  s.begin_file(file.name, file.size, at);
  for await (const chunk of chunks(file)) {
    s.push(chunk);
    progress();
  }
  s.end_file();
}

// One file parsed by the helpers. An uncompressed Chrome trace: only its first bytes are read here, then every helper
// reads the byte ranges of its jobs itself (File.slice), so the content never passes through this worker. Otherwise
// (gzip) this worker inflates the file and hands out blocks of content; at most 2 blocks per helper wait, so memory
// stays bounded when reading outruns parsing. A result may make a new job (a block parsed again with the next one).
// Returns the number of jobs.
async function readSplit(s, at, file, pool, blockBytes, progress) {
  s.begin_file_split(file.name, file.size, blockBytes, at);
  let failed = null, jobs = 0, pending = 0, parsed = 0, wake = null;
  // a block of content goes out in an array that came back from a helper with an earlier one, when one is spare
  // (allocating and zeroing a fresh one per block cost the reading worker half a second per GB); a range job is a few
  // bytes, in one of its own
  const spare = [], none = new Uint8Array(0);
  // blocks back from the helpers, by number, until merged: a result goes to Rust without its block (copying each
  // back into this worker's memory cost ~0.3 s per GB); the merge asks for the few it must parse again
  const kept = new Map();
  const takeBlock = () => {
    if (s.reads_ranges()) return s.take_block();
    let into = spare.pop() ?? none;
    let n = s.take_block_into(into);
    if (n < 0) { // no array spare, or the block is longer than it: a new one, which later blocks reuse too
      into = new Uint8Array(Math.max(-n, blockBytes) + (64 << 10));
      n = s.take_block_into(into);
    }
    if (n === 0 && into !== none) spare.push(into);
    return n > 0 ? into.subarray(0, n) : undefined;
  };
  const handOut = () => {
    for (let b; (b = takeBlock()); ) {
      const range = wasm.job_range(b);
      jobs++;
      pending++;
      (range ? pool.parseRange(file, b, range) : pool.parse(file.name, b))
        .then(({ partial, block }) => {
          if (failed) return;
          if (block) kept.set(wasm.block_seq(block), block);
          s.add_partial(partial, undefined);
          for (let w; (w = s.wanted_block()) !== undefined; ) {
            if (!kept.has(w)) throw new Error(`block ${w} wanted back but not kept`);
            s.add_block(kept.get(w));
          }
          const merged = s.blocks_merged();
          for (const [seq, b] of kept) {
            if (seq < merged) {
              kept.delete(seq);
              spare.push(new Uint8Array(b.buffer));
            }
          }
          if (range) progress(Math.min(file.size, parsed += range[1] - range[0]));
          handOut();
        })
        .catch((e) => { failed ??= e; })
        .finally(() => { pending--; wake?.(); });
    }
  };
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  s.push(head);
  handOut();
  if (!s.reads_ranges()) {
    let done = head.length;
    for await (const chunk of chunks(file.slice(head.length))) {
      s.push(chunk);
      done += chunk.length;
      handOut();
      progress(done);
      if (s.reads_ranges()) break; // decided late (a long head): the helpers read the rest
      await pool.below(2 * pool.size);
      if (failed) throw failed;
    }
  }
  s.end_input();
  handOut();
  while (pending > 0) await new Promise((w) => { wake = w; });
  if (failed) throw failed;
  s.end_file();
  return jobs;
}
