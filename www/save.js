// Save report: one self-contained HTML file of the Overview and every panel the user ran, with their options,
// tables and charts, the trace's facts and warnings, and no trace data. Rust writes it (src/html/document.rs, what
// `kinetoscope report` writes): the worker runs the analyses and returns the HTML with chart slots, the main
// thread's wasm draws the charts into them as SVG (plotters measures text with the DOM), and the page downloads it.
import { $ } from './dom.js';
import { mainWasm } from './platform.js';
import { message, showStatus } from './page-state.js';

/** Builds the report of the trace held by `ask`'s worker with the panels `views` and downloads it. */
export async function saveReport(ask, views) {
  const button = $('save-report');
  button.disabled = true;
  showStatus('Writing the report…');
  try {
    const generated = `saved ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by kinetoscope ${(await mainWasm).version?.() ?? ''}`;
    const [answer, mod] = await Promise.all([ask({ type: 'save', views, generated }), mainWasm]);
    const { html, charts } = JSON.parse(answer.json);
    const file = mod.fill_chart_slots(html, JSON.stringify(charts));
    const url = URL.createObjectURL(new Blob([file], { type: 'text/html' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'kinetoscope-report.html';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    showStatus(`Saved the report: the Overview and ${views.length} panel${views.length === 1 ? '' : 's'}, ${file.length.toLocaleString('en')} characters.`);
  } catch (e) {
    if (!e.dropped) showStatus(`Could not save the report: ${message(e)}`);
  } finally {
    button.disabled = false;
  }
}
