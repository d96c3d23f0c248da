// Takes the README's screenshot (docs/img/overview.png): the built page (dist/, from www/build.sh)
// on its bundled sample trace, on the Overview (where the time went) or with the given panel open, in a
// 1400×900 headless Chromium window. TAB may carry the panel's options as the URL hash does
// (`critical_path&annotation=measure%7Cforward`: docs/img/critical-path.png).
//   node scripts/screenshot.mjs [TAB] [OUT.png]      (TAB default: overview; needs tests/e2e's npm ci)
import path from 'node:path';
import { launch, repoRoot, serveDist } from '../tests/e2e/harness.js';

const view = process.argv[2] ?? 'overview';
const tab = view.split('&')[0];
const out = path.resolve(process.argv[3] ?? path.join(repoRoot, 'docs', 'img', 'overview.png'));
const server = await serveDist();
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${server.url}#sample=1${tab === 'overview' ? '' : `&tab=${view}`}`);
  await page.waitForSelector(tab === 'overview' ? '#dashboard[data-state="done"]' : `#panel-${tab}[data-state="done"]`, { timeout: 60_000 });
  await page.waitForTimeout(300); // charts drawn on the next frame
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
}
