// The fidelity corpus's reference text: Playwright's own aria snapshot of each page, which ours must
// equal (apart from refs and the differences docs/protocol.md lists).
// Usage: NODE_PATH=<dir>/node_modules node expected.cjs <chromium> <base-url> <corpus-dir> [<out-dir>]
//   Loads <base-url>/<name>.html for every <name>.html in <corpus-dir> (served over HTTP, as the tests
//   load them) and writes <out-dir>/<name>.yml (default: the corpus dir) with
//   `page.locator('body').ariaSnapshot()`, the frames' content included.
// Also prints one JSON line per page: {page, ms} (the snapshot's time, for the bench).
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [executablePath, base, dir, outArg] = process.argv.slice(2);
const out = outArg || dir;

(async () => {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.html')).sort()) {
    await page.goto(`${base}/${file}`, { waitUntil: 'load' });
    const t = performance.now();
    const text = await page.locator('body').ariaSnapshot();
    const ms = performance.now() - t;
    fs.writeFileSync(path.join(out, file.replace(/\.html$/, '.yml')), text + '\n');
    console.log(JSON.stringify({ page: file, ms: Math.round(ms * 10) / 10 }));
  }
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
