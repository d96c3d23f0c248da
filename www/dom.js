// The DOM helpers of the page's modules, in one place (app.js and the modules it imports, report.js and diff.js
// among them, use these rather than copies of their own).

/** The element of an id. */
export const $ = (id) => document.getElementById(id);

/** A new element: `attrs` set as attributes (null or undefined ones left out), then `children` appended. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v != null) node.setAttribute(k, v);
  node.append(...children);
  return node;
}
