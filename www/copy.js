// Copying a result table to the clipboard (report.js' Copy CSV and Copy Markdown buttons): the text as a GitHub
// Markdown table, and a copy that still works where the Clipboard API is refused.

import { el } from './dom.js';

/** A GitHub Markdown table of `names` (the header) and `rows` (arrays of cell texts, shown as they are);
 * the columns flagged in `right` are right-aligned. A `|` in a cell is written `\|` (it would end the cell)
 * and a line break as a space (a row is one line). */
export function markdownTable(names, right, rows) {
  const cell = (s) => s.replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
  const line = (cells) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${right.map((r) => (r ? '---:' : '---')).join('|')}|`;
  return [line(names), rule, ...rows.map(line)].join('\n') + '\n';
}

/** Puts `text` in the clipboard; true if it got there. The Clipboard API needs a secure context and the
 * permission: on file:// (the single-file build) or when refused, a hidden textarea is selected and copied
 * with execCommand, which still works during the click's user activation. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // no navigator.clipboard (file://) or refused: the fallback below
  }
  const focused = document.activeElement;
  const area = el('textarea', { class: 'copy-buffer', readonly: '', 'aria-hidden': 'true', tabindex: -1 });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  focused?.focus?.();
  return ok;
}
