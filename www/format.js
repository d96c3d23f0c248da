// How the page writes a value of Rust's JSON: a number as Rust wrote it (its JSON text, kept by report.js'
// parseExact), an integer with thousands separators, null as a dash. Display only: nothing is computed.
import { Num } from './report.js';

/** Digits with thousands separators: `1944500` → `1,944,500`. */
export const group = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A scalar of the overview as shown: integers grouped, other numbers as given, null as —. */
export const show = (v) =>
  v instanceof Num ? (/^-?\d+$/.test(v.src) ? group(v.src) : v.src) : v === null ? '—' : String(v);
