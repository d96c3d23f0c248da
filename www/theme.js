// Light and dark themes: the system's unless one is chosen with the toggle (auto → light → dark → auto), kept in
// localStorage. html[data-theme] carries the choice (style.css reads it); charts are drawn in the theme of the
// moment they are drawn (a panel run again draws in the new one).
import { $ } from './dom.js';

const KEY = 'kinetoscope-theme';
const NEXT = { auto: 'light', light: 'dark', dark: 'auto' };

function apply(choice) {
  if (choice === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  $('theme-name').textContent = choice;
}

/** Applies the saved theme and makes the toggle cycle through auto, light and dark. */
export function listenForTheme() {
  let choice = 'auto';
  try {
    choice = NEXT[localStorage.getItem(KEY)] ? localStorage.getItem(KEY) : 'auto';
  } catch { /* storage blocked (file://, privacy settings): the system's theme */ }
  apply(choice);
  $('theme').addEventListener('click', () => {
    choice = NEXT[choice];
    apply(choice);
    try {
      localStorage.setItem(KEY, choice);
    } catch { /* not kept */ }
  });
}
