// A diff panel: the options of `kinetoscope diff` (the list comes from Rust's diff_options()), control and test
// ranks, HTA mode, Run; then the one-line summary, the notes, the grouped-bar charts and every table (drawn by
// report.js). Used by the Diff mode (two traces: #panel-diff) and by the "Compare ranks" tab of one trace
// (#panel-compare-ranks: test ranks against the others). Display only: every number and message is Rust's.
// www/build.sh inlines this module into the single-file build. Its only import is the DOM helper; the rest (the
// worker, the report's drawing) is handed to it in `spec`.

import { el } from './dom.js';

/**
 * Builds a diff panel. spec: {name (panel id suffix), title, about, options ([{name, kind, default, help,
 * choices}]), oneTrace (bool: the same trace on both sides), ranksHint (text: the trace's ranks, oneTrace only),
 * ask(request) → Promise<{json, ms}> (the worker's answer to {type:'diff', params, control_ranks, test_ranks,
 * hta}), show(parts, report) → Promise (renders notes, charts, tables), parse(json) → report}.
 * The panel gets `panel.runDiff()`; panel[data-state]: idle | running | done | error, as analysis panels.
 */
export function diffPanel(spec) {
  const fields = spec.options.map((o) => {
    const attrs = { 'data-opt': o.name, name: o.name, title: o.help || null };
    let input;
    if (o.choices?.length) {
      input = el('select', attrs, ...o.choices.map((c) => el('option', { value: c }, c)));
      input.value = o.default;
    } else if (o.kind === 'bool') {
      input = el('input', { ...attrs, type: 'checkbox' });
      input.checked = o.default === 'true';
    } else {
      input = el('input', { ...attrs, type: 'text', value: o.default, size: Math.max(8, Math.ceil(o.default.length * 1.1)), spellcheck: 'false',
        placeholder: o.name === 'iteration' ? 'average' : o.name === 'test_iteration' ? 'same' : null });
    }
    return el('label', { class: `opt opt-${o.kind}` }, el('span', {}, o.name), input);
  });
  const ranks = (side, placeholder, title) => el('input', { type: 'text', class: `${side}-ranks`, size: 10, spellcheck: 'false', placeholder, title });
  const controlRanks = ranks('control', spec.oneTrace ? 'the others' : 'all',
    spec.oneTrace ? 'Ranks of the baseline, e.g. 0-2 (default: every rank not in test ranks); several ranks: per key, their median'
      : 'Ranks of the control run compared, e.g. 0-3 (default: all); several ranks: per key, their median');
  const testRanks = ranks('test', spec.oneTrace ? 'e.g. 3' : 'all',
    spec.oneTrace ? 'The ranks to explain, e.g. 3 (the straggler)' : 'Ranks of the test run compared (default: all)');
  const hta = el('input', { type: 'checkbox', class: 'hta' });
  const status = el('span', { class: 'run-status', 'aria-live': 'polite' });
  const form = el('form', { class: 'controls' }, ...fields,
    el('label', { class: 'opt' }, el('span', {}, 'control ranks'), controlRanks),
    el('label', { class: 'opt' }, el('span', {}, 'test ranks'), testRanks),
    el('label', { class: 'opt', title: 'HTA 0.5.0\'s TraceDiff tables (compare_traces__*, ops_diff__*, ops_summary__*, iterations__*): one iteration (the first, or the one given) of one rank per side' }, hta, ' HTA mode'),
    el('button', { type: 'submit' }, 'Run'), status);
  const hint = el('p', { class: 'diff-hint', hidden: '' },
    `Type the ranks to explain in "test ranks" (e.g. the slowest one, which the Potential stragglers tab finds); they are compared with the median of the other ranks, or with "control ranks". This trace has ranks ${spec.ranksHint ?? ''}.`);
  const parts = {
    error: el('div', { class: 'panel-error error', role: 'alert', hidden: '' }),
    summary: el('p', { class: 'diff-summary', hidden: '' }),
    notes: el('ul', { class: 'notes', hidden: '' }),
    files: el('div', { class: 'files', hidden: '' }),
    charts: el('div', { class: 'charts' }),
    tables: el('div', { class: 'tables' }),
  };
  const panel = el('section', { class: 'panel diff-panel', id: `panel-${spec.name}`, 'data-analysis': spec.name, 'data-state': 'idle' },
    el('h2', {}, spec.title), el('p', { class: 'about' }, spec.about), form, hint,
    parts.error, parts.summary, parts.notes, parts.files, parts.charts, parts.tables);

  // HTA's TraceDiff has no `by` or decode steps: those fields do nothing in HTA mode
  const htaIgnores = ['by', 'start_kernel'].map((n) => form.querySelector(`[data-opt="${n}"]`)).filter(Boolean);
  const syncHta = () => htaIgnores.forEach((i) => { i.disabled = hta.checked; });
  let seq = 0;

  panel.runDiff = async () => {
    const mine = ++seq;
    syncHta();
    if (spec.oneTrace && !testRanks.value.trim()) {
      clear();
      hint.hidden = false;
      status.textContent = '';
      panel.dataset.state = 'idle';
      return;
    }
    hint.hidden = true;
    const params = {};
    for (const input of form.querySelectorAll('[data-opt]')) {
      params[input.dataset.opt] = input.type === 'checkbox' ? String(input.checked) : input.value.trim();
    }
    panel.dataset.state = 'running';
    status.textContent = 'Running…';
    try {
      const answer = await spec.ask({ type: 'diff', params, control_ranks: controlRanks.value.trim(), test_ranks: testRanks.value.trim(), hta: hta.checked });
      if (mine !== seq) return;
      const report = spec.parse(answer.json);
      parts.error.hidden = true;
      // the summary line is the first note: shown on its own, above the others
      parts.summary.textContent = report.summary;
      parts.summary.hidden = !report.summary;
      await spec.show(parts, { ...report, notes: report.summary ? report.notes.slice(1) : report.notes });
      if (mine !== seq) return;
      const list = (rs) => rs.map((x) => x.src ?? String(x)).join(', ');
      const side = (label, rs) => `${label} rank${rs.length === 1 ? '' : 's'} ${list(rs)}`;
      status.textContent = `${report.hta ? 'HTA mode · ' : ''}${side('control', report.control_ranks)} vs ${side('test', report.test_ranks)} · ${answer.ms} ms`;
      panel.dataset.state = 'done';
    } catch (e) {
      if (mine !== seq || e.dropped) return;
      clear();
      parts.error.textContent = e?.message ?? String(e);
      parts.error.hidden = false;
      status.textContent = 'Failed.';
      panel.dataset.state = 'error';
    }
  };
  function clear() {
    for (const k of ['notes', 'files', 'charts', 'tables']) parts[k].replaceChildren();
    parts.notes.hidden = parts.files.hidden = parts.summary.hidden = parts.error.hidden = true;
  }

  form.addEventListener('submit', (e) => { e.preventDefault(); panel.runDiff(); });
  hta.addEventListener('change', () => panel.runDiff());
  for (const s of form.querySelectorAll('select')) s.addEventListener('change', () => panel.runDiff());
  return panel;
}
