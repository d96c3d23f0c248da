// Light and dark themes: the system's unless one is chosen with the toggle (auto → light → dark → auto), kept in
// localStorage. html[data-theme] carries the choice (style.css reads it); charts carry the theme's colours, so a
// change of theme (the toggle, or the system's while on auto) draws them again.
import { $ } from './dom.js';
import { repaintAll } from './report.js';

const KEY = 'kinetoscope-theme';
const NEXT = { auto: 'light', light: 'dark', dark: 'auto' };

function apply(choice) {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  $('theme-name').textContent = choice;
  repaintAll();
}

/** Applies the saved theme and makes the toggle cycle through auto, light and dark. */
export function listenForTheme() {
  let choice = 'auto';
  try {
    choice = NEXT[localStorage.getItem(KEY)] ? localStorage.getItem(KEY) : 'auto';
  } catch { /* storage blocked (file://, privacy settings): the system's theme */ }
  apply(choice);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => { if (choice === 'auto') repaintAll(); });
  $('theme').addEventListener('click', () => {
    choice = NEXT[choice];
    apply(choice);
    try {
      localStorage.setItem(KEY, choice);
    } catch { /* not kept */ }
  });
}
