// The tabs of one trace: Overview, one panel per analysis of the registry (Rust's analyses()), and Compare ranks
// (a diff panel, diff.js, on the one trace: a rank set against the others).
// A panel: options form (from the option specs), HTA mode (only with an HTA counterpart), ranks, Run; then
// what report.js shows. It runs when first opened, when HTA mode is toggled, and on Run (or Enter in a field).
// The selected tab is in the URL hash (`#tab=name`).
import { $, el } from './dom.js';
import { download, parseExact, renderReport, reportHooks } from './report.js';
import { diffPanel } from './diff.js';
import { mainWasm } from './platform.js';
import { hashState, message, setHash } from './page-state.js';
import { showDiff } from './diff-mode.js';

const OVERVIEW = 'overview';
const COMPARE = 'compare-ranks'; // the tab of a diff panel on the one trace: a rank set against the others
// The URL hash holds the view: `#tab=name`, the panel's options that differ from their defaults (the registry's
// option names: `&range=1,2`), `&ranks=0-3`, `&hta=1`. A link opens that view once its trace is read (a trace
// opened later starts on its Overview); choosing a tab or running a panel with other options adds a history entry,
// so Back and Forward step through the views.
let linkedTab = hashState().get('tab');
const linkedOptions = hashState();
let trace = null; // the trace whose tabs are shown (buildTabs): {ranks: [rank text], ask(request) → Promise}

/** A hash typed, followed, or reached with Back/Forward shows its view: the tab, and the panel with those options
 * (rerun when they changed). */
export function listenForTabs() {
  const follow = () => {
    if ($('tabs').hidden) return;
    const params = hashState();
    const name = params.get('tab') ?? OVERVIEW;
    const panel = $(`panel-${name}`);
    const changed = applyView(panel, params);
    selectTab(name, false);
    if (changed && panel.dataset.state !== 'idle') runPanel(panel);
  };
  window.addEventListener('hashchange', follow);
  window.addEventListener('popstate', follow);
}

/** The URL hash of tab `name`'s view: the tab, the panel's options that differ from their defaults, its ranks and
 * HTA mode (`sample` kept, so a link to the sample reopens the same view). */
function viewHash(name) {
  const now = hashState();
  const params = new URLSearchParams();
  if (now.has('sample')) params.set('sample', now.get('sample'));
  if (name === OVERVIEW) return params;
  params.set('tab', name);
  const r = $(`panel-${name}`)?.run;
  if (!r) return params;
  for (const input of r.form.querySelectorAll('[data-opt]')) {
    const v = optionText(input);
    if (v !== input.dataset.default) params.set(input.dataset.opt, v);
  }
  if (r.ranks.value.trim()) params.set('ranks', r.ranks.value.trim());
  if (r.hta.checked) params.set('hta', '1');
  return params;
}

/** Sets a panel's inputs from the hash `params` (an option not in it: its default); whether any changed. */
function applyView(panel, params) {
  const r = panel?.run;
  if (!r) return false;
  let changed = false;
  const set = (input, v) => {
    if (input.type === 'checkbox') {
      changed ||= input.checked !== v;
      input.checked = v;
    } else {
      changed ||= input.value !== v;
      input.value = v;
    }
  };
  for (const input of r.form.querySelectorAll('[data-opt]')) {
    const v = params.get(input.dataset.opt) ?? input.dataset.default;
    set(input, input.type === 'checkbox' ? v === 'true' : v);
  }
  set(r.ranks, params.get('ranks') ?? '');
  set(r.hta, params.get('hta') === '1' && !r.hta.closest('label').hidden);
  return changed;
}

/** The tabs of a trace just read: `list` Rust's analyses(), `diffOptions` its diff_options() (null: no Compare
 * ranks tab), `held` the trace: {ranks, ask(request)} (ask: a request to the worker holding it). */
export function buildTabs(list, diffOptions, held) {
  trace = held;
  const compare = diffOptions ? [{ name: COMPARE, title: 'Compare ranks',
    about: 'Ranks of this run against its other ranks (kinetoscope diff RUN --test-ranks N): what makes a straggler slow' }] : [];
  const tabs = [{ name: OVERVIEW, title: 'Overview', group: '' }, ...list, ...compare.map((c) => ({ ...c, group: 'Compare' }))];
  // one row part per question (Rust's `group`, the analyses of a group next to each other): its label, its tabs;
  // HTA's API name is the tab's secondary label (its tooltip, and the panel's subtitle)
  const groups = [];
  for (const t of tabs) {
    if (!groups.length || groups[groups.length - 1].name !== t.group) groups.push({ name: t.group, tabs: [] });
    groups[groups.length - 1].tabs.push(t);
  }
  $('tabs').replaceChildren(...groups.map((g) => el('div', { class: 'tab-group', role: 'presentation', 'data-group': g.name || null },
    g.name ? el('span', { class: 'tab-group-name' }, g.name) : '',
    ...g.tabs.map((t) => {
      const hint = [t.about, t.hta_api ? `HTA: ${t.hta_api.replace(/\s*\(SPEC[^)]*\)/, '')}` : ''].filter(Boolean).join(' · ');
      const b = el('button', { type: 'button', role: 'tab', id: `tab-${t.name}`, 'data-tab': t.name,
        'aria-controls': t.name === OVERVIEW ? 'overview' : `panel-${t.name}`, title: hint || null }, t.title);
      b.addEventListener('click', () => selectTab(t.name));
      b.addEventListener('keydown', moveFocus);
      return b;
    }))));
  $('panels').replaceChildren(...list.map(buildPanel), ...compare.map((a) => {
    const panel = diffPanel({ ...a, options: diffOptions, oneTrace: true, ranksHint: rankRanges(trace.ranks),
      ask: (msg) => trace.ask({ ...msg, pair: false }), show: showDiff(a.name), parse: parseExact });
    for (const [k, v] of Object.entries({ role: 'tabpanel', 'aria-labelledby': `tab-${a.name}`, hidden: '' })) panel.setAttribute(k, v);
    return panel;
  }));
  $('tabs').hidden = false;
  const wanted = linkedTab;
  linkedTab = null;
  if (wanted) applyView($(`panel-${wanted}`), linkedOptions);
  selectTab(tabs.some((a) => a.name === wanted) ? wanted : OVERVIEW);
}

/** The tab list is one stop of the Tab key; in it, ↑/↓ (and Home/End) move between the views, Enter opens one. */
function moveFocus(e) {
  const all = [...$('tabs').querySelectorAll('[data-tab]')];
  const i = all.indexOf(e.currentTarget);
  const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: all.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  all[(to + all.length) % all.length].focus();
}

/** The panels the user ran (their current options), in the order of the tabs, for the saved report:
 * [{analysis, params: {name: text}, ranks, hta}] (Compare ranks is not an analysis of the registry: left out). */
export function openedViews() {
  return [...$('panels').children].filter((p) => p.run && p.dataset.state !== 'idle').map(({ run: r }) =>
    ({ analysis: r.analysis, params: options(r), ranks: r.ranks.value.trim(), hta: r.hta.checked }));
}

/** An option input's value as the analysis takes it (text; a checkbox `true`/`false`). */
const optionText = (input) => (input.type === 'checkbox' ? String(input.checked) : input.value.trim());
/** A panel's options: {name: text}. */
const options = (r) => Object.fromEntries([...r.form.querySelectorAll('[data-opt]')].map((input) => [input.dataset.opt, optionText(input)]));

/** Opens the view `name` (a tab of the trace shown), as a click on its tab does. */
export function openView(name) {
  selectTab(name);
  $(`tab-${name}`)?.scrollIntoView({ block: 'nearest' });
  window.scrollTo({ top: 0 });
}

function selectTab(name, remember = true) {
  if (!$('tabs').querySelector(`[data-tab="${CSS.escape(name)}"]`)) return;
  for (const b of $('tabs').querySelectorAll('[data-tab]')) {
    b.setAttribute('aria-selected', String(b.dataset.tab === name));
    b.tabIndex = b.dataset.tab === name ? 0 : -1; // roving tabindex: Tab enters the list at the open view
  }
  $('overview').hidden = name !== OVERVIEW;
  for (const p of $('panels').children) p.hidden = p.dataset.analysis !== name;
  if (remember) setHash(viewHash(name), true);
  const panel = $(`panel-${name}`);
  if (panel && panel.dataset.state === 'idle') runPanel(panel);
}

/** Option kinds the page does not show: `out_file` writes a file where the CLI runs (the page offers the file as a
 * download instead). */
const CLI_ONLY = new Set(['out_file']);

function buildPanel(a) {
  const fields = a.options.filter((o) => !CLI_ONLY.has(o.kind)).map((o) => {
    const attrs = { 'data-opt': o.name, 'data-default': o.default, name: o.name, title: o.help || null };
    const input = o.kind === 'bool'
      ? el('input', { ...attrs, type: 'checkbox' })
      // wide enough for the default (a kernel name, a counter list; `size` counts average characters,
      // capitals are wider), never narrower than a number
      : el('input', { ...attrs, type: 'text', value: o.default, size: Math.max(8, Math.ceil(o.default.length * 1.25)), spellcheck: 'false',
        placeholder: o.kind === 'int_list' ? 'all' : null, inputmode: o.kind === 'int' || o.kind === 'float' ? 'decimal' : null });
    if (o.kind === 'bool') input.checked = o.default === 'true';
    return el('label', { class: `opt opt-${o.kind}` }, el('span', {}, o.name), input);
  });
  const hta = el('input', { type: 'checkbox', class: 'hta' });
  const all = rankRanges(trace.ranks);
  const ranks = el('input', { type: 'text', class: 'ranks', size: 10, spellcheck: 'false', placeholder: `all (${all})`,
    title: `Ranks to analyse, e.g. 0,2-5 (default: all; this trace has ${all})` });
  const status = el('span', { class: 'run-status', 'aria-live': 'polite' });
  const form = el('form', { class: 'controls' }, ...fields,
    // an analysis without an HTA counterpart (decode steps) has no HTA mode to offer
    el('label', { class: 'opt', title: 'Reproduce HTA 0.5.0 exactly, including its documented bugs (--hta)', hidden: a.hta_api ? null : '' }, hta, ' HTA mode'),
    el('label', { class: 'opt' }, el('span', {}, 'ranks'), ranks),
    el('button', { type: 'submit' }, 'Run'), status);
  const parts = {
    error: el('div', { class: 'panel-error error', role: 'alert', hidden: '' }),
    notes: el('ul', { class: 'notes', hidden: '' }),
    files: el('div', { class: 'files', hidden: '' }),
    charts: el('div', { class: 'charts' }),
    tables: el('div', { class: 'tables' }),
  };
  const panel = el('section', { class: 'panel', id: `panel-${a.name}`, role: 'tabpanel', 'aria-labelledby': `tab-${a.name}`,
    'data-analysis': a.name, 'data-state': 'idle', hidden: '' },
  el('h2', {}, a.title),
  // the registry's API names carry a reference into our HTA spec, which means nothing to users
  el('p', { class: 'about' }, a.about, a.hta_api ? el('span', { class: 'hta-api' }, ` · HTA: ${a.hta_api.replace(/\s*\(SPEC[^)]*\)/, '')}`) : ''),
  form, ...(a.name === FLAME ? [exportButtons(() => panel.run)] : []), parts.error, parts.notes, parts.files, parts.charts, parts.tables);
  panel.run = { analysis: a.name, form, hta, ranks, status, parts, seq: 0 };
  form.addEventListener('submit', (e) => { e.preventDefault(); runPanel(panel); });
  hta.addEventListener('change', () => runPanel(panel));
  return panel;
}

const FLAME = 'flame';
/** The export formats of the flame panel's stacks: [format (Session.export's), button label]. */
const EXPORTS = [['pprof', 'pprof'], ['folded', 'Folded'], ['speedscope', 'speedscope'], ['chrome', 'Chrome trace']];

/** The flame panel's export buttons: each asks the worker for the stacks of the panel's options and ranks in one
 * format ({type:'export'}) and downloads the file it answers with, named as it says; a failure shows beside it. */
function exportButtons(run) {
  return el('div', { class: 'files exports' }, el('span', { class: 'exports-label' }, 'Export stacks:'), ...EXPORTS.map(([format, label]) => {
    const b = el('button', { type: 'button', class: 'export', 'data-format': format }, label);
    b.addEventListener('click', async () => {
      const r = run();
      const { measure, range } = options(r);
      b.disabled = true;
      if (b.nextElementSibling?.classList.contains('inline-error')) b.nextElementSibling.remove();
      try {
        const out = await trace.ask({ type: 'export', format, params: { measure, range }, ranks: r.ranks.value.trim() });
        download(new Blob([out.bytes]), out.name);
      } catch (e) {
        b.after(el('span', { class: 'inline-error' }, ` could not export ${label}: ${message(e)}`));
      } finally {
        b.disabled = false;
      }
    });
    return b;
  }));
}

/** Rank numbers (text, ascending) as `0-3, 5`. */
function rankRanges(ranks) {
  const out = [];
  for (const r of ranks) {
    const n = Number(r), last = out[out.length - 1];
    if (last && Number.isInteger(n) && n === last[1] + 1) last[1] = n;
    else out.push([n, n, r]);
  }
  return out.map(([a, b, r]) => (Number.isNaN(a) ? r : a === b ? String(a) : `${a}-${b}`)).join(', ');
}

// panel[data-state]: idle (never run) | running | done | error — tests and styles read it
async function runPanel(panel) {
  if (panel.runDiff) return panel.runDiff();
  const r = panel.run, seq = ++r.seq;
  const params = options(r);
  // the view run is the one the URL holds (a new history entry when the options changed)
  if (!panel.hidden) setHash(viewHash(r.analysis), true);
  panel.dataset.state = 'running';
  r.status.textContent = 'Running…';
  try {
    const [answer, mod] = await Promise.all([
      trace.ask({ type: 'run', analysis: r.analysis, params, ranks: r.ranks.value.trim(), hta: r.hta.checked }), mainWasm]);
    if (seq !== r.seq) return;
    const report = parseExact(answer.json);
    r.parts.error.hidden = true;
    renderReport(r.parts, report,
      reportHooks(mod, r.analysis, async (name) => (await trace.ask({ type: 'file', analysis: r.analysis, name })).bytes));
    const ranks = report.ranks.map((x) => x.src);
    r.status.textContent = `${report.hta ? 'HTA mode · ' : ''}rank${ranks.length === 1 ? '' : 's'} ${ranks.join(', ') || 'none'} · ${answer.ms} ms`;
    panel.dataset.state = 'done';
  } catch (e) {
    if (seq !== r.seq || e.dropped) return;
    for (const k of ['notes', 'files', 'charts', 'tables']) r.parts[k].replaceChildren();
    r.parts.notes.hidden = r.parts.files.hidden = true;
    r.parts.error.textContent = message(e);
    r.parts.error.hidden = false;
    r.status.textContent = 'Failed.';
    panel.dataset.state = 'error';
  }
}
