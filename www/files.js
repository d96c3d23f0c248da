// Input: trace files dropped anywhere on the page (a dropped folder is walked), picked with the file or folder
// inputs, or the bundled sample. Hidden files (a path part starting with '.') are skipped; files go on sorted by
// path. In Diff mode a drop belongs to the side it lands on. What is done with the files is app.js' (`open`: read
// one trace) and diff-mode.js' (`openSide`: a run for one side), handed to listenForFiles.
import { $ } from './dom.js';
import { platform } from './platform.js';
import { hashState, message, setHash, setState, showError, showStatus } from './page-state.js';

const hidden = (path) => path.split('/').some((part) => part.startsWith('.'));
/** Orders {path, file} entries by path. */
export const byPath = (a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

let open = null; // (File[], paths) → reads them as one trace (app.js run)
let openSide = null; // (side, [{path, file}]) → the files of a Diff mode side (diff-mode.js chooseSide)

/** Listens for drops anywhere, the file and folder pickers and Load sample; handlers: {open, openSide}. */
export function listenForFiles(handlers) {
  ({ open, openSide } = handlers);
  document.addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dragging');
    markSide(e.target.closest?.('[data-side]'));
  });
  document.addEventListener('dragleave', (e) => {
    if (!e.relatedTarget) {
      document.body.classList.remove('dragging');
      markSide(null);
    }
  });
  document.addEventListener('drop', dropped);
  for (const id of ['file', 'folder']) $(id).addEventListener('change', (e) => startUserFiles(picked(e.target)));
  $('load-sample').addEventListener('click', () => loadSample());
}

// the Diff mode's side under the pointer is marked (.over): a drop there goes to that side
const markSide = (zone) => { for (const z of document.querySelectorAll('[data-side]')) z.classList.toggle('over', z === zone); };

async function dropped(e) {
  e.preventDefault();
  document.body.classList.remove('dragging');
  markSide(null);
  // in Diff mode a drop belongs to the side it lands on
  const diffMode = document.body.dataset.mode === 'diff';
  const side = diffMode ? e.target.closest?.('[data-side]')?.dataset.side : null;
  if (diffMode && !side) return showStatus('Drop the files on the Control or the Test side.');
  if (!diffMode) setState('loading');
  // Entries must be taken synchronously, during the event: the DataTransfer is emptied afterwards.
  const items = [...(e.dataTransfer?.items ?? [])].filter((i) => i.kind === 'file');
  const roots = items.length
    ? items.map((i) => i.webkitGetAsEntry?.() ?? i.getAsFile())
    : [...(e.dataTransfer?.files ?? [])];
  try {
    const found = [];
    for (const root of roots) if (root) await collect(root, found);
    if (side) openSide(side, found);
    else startUserFiles(found);
  } catch (err) {
    showError(`Could not read the dropped files: ${message(err)}`);
  }
}

// Walks a dropped folder (FileSystemEntry tree) or takes a plain File; skips hidden files.
async function collect(entry, out) {
  if (entry instanceof File) {
    out.push({ path: entry.name, file: entry });
  } else if (entry.isFile) {
    if (!hidden(entry.fullPath)) out.push({ path: entry.fullPath, file: await new Promise((ok, fail) => entry.file(ok, fail)) });
  } else if (entry.isDirectory && !hidden(entry.fullPath)) {
    const reader = entry.createReader();
    for (;;) { // readEntries returns the listing in batches; an empty batch ends it
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const child of batch) await collect(child, out);
    }
  }
}

/** The files of a file or folder input ({path, file}), without hidden ones. */
export function picked(input) {
  const found = [...input.files]
    .map((file) => ({ path: file.webkitRelativePath || file.name, file }))
    .filter(({ path }) => !hidden(path));
  input.value = ''; // picking the same files again fires `change` again
  return found;
}

function startUserFiles(found) {
  setState('loading');
  if (!found.length) return showError('No files found in what was dropped or picked.');
  const params = hashState();
  params.delete('sample');
  setHash(params);
  const sorted = found.sort(byPath);
  open(sorted.map((f) => f.file), sorted.map((f) => f.path));
}

/** Reads the bundled sample (`#sample=1` in the URL hash). */
export async function loadSample() {
  setState('loading');
  const params = hashState();
  params.set('sample', '1');
  setHash(params);
  try {
    showStatus('Loading the sample trace…');
    open(await platform.sample());
  } catch (e) {
    showError(`Could not load the sample: ${message(e)}`);
  }
}
