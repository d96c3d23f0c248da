// What the page says it is doing, and its link. body[data-state]: loading | done | error | cancelled (styles and
// tests read it); the status line; the error box; the busy bar (progress over the bytes read, inputs disabled
// while a trace is read). The URL hash: `#sample=1` (the overview shows the bundled sample: a shareable link
// that loads it on open), `#mode=diff` (the page opens in Diff mode), `#tab=name&option=value…` (panels.js).
import { $ } from './dom.js';
import { group } from './format.js';

/** An error's text. */
export function message(e) {
  return typeof e === 'string' ? e : e?.message ?? String(e);
}
export function showError(text) {
  $('error').textContent = text;
  $('error').hidden = false;
  setState('error');
}
// body[data-state]: loading | done | error | cancelled — what the page is doing (styles and tests read it)
export function setState(state) {
  document.body.dataset.state = state;
}
export function showStatus(text) {
  $('status').textContent = text;
}

const INPUTS = '#drop input, #drop button, #diff .side input';
export function setBusy(busy) {
  $('busy').hidden = !busy;
  for (const el of document.querySelectorAll(INPUTS)) el.disabled = busy;
  for (const el of document.querySelectorAll('#drop .button, #diff .side .button')) el.classList.toggle('disabled', busy);
  if (busy) showStatus('');
}

// `slot`: which side of the Diff mode is being read (the worker says 'trace' for a single trace)
export function showProgress({ file, done, total, slot }) {
  $('progress').max = Math.max(total, 1);
  $('progress').value = done;
  const side = slot === 'control' || slot === 'test' ? `${slot}: ` : '';
  $('progress-text').textContent = `${side}${group(String(done))} of ${group(String(total))} bytes${file ? ` · ${file}` : ''}`;
}

export const hashState = () => new URLSearchParams(location.hash.slice(1));
/** Writes `params` as the URL hash; `push`: as a new history entry (a view the user chose: Back returns to the
 * one before), unless it is the hash already. */
export function setHash(params, push = false) {
  const s = params.toString();
  const url = s ? `#${s}` : location.pathname + location.search;
  if (push && `#${s}` !== location.hash && (s || location.hash)) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}
