// Playwright's aria snapshot of each page, for the side-by-side snapshot table of sb-bench
// (scripts/bench.sh, SB_BENCH_ONLY=snapshot).
// Usage: NODE_PATH=<dir>/node_modules node playwright-snapshot.cjs <chromium> <url,url,...> <runs>
// Prints one JSON line per page: {url, ms: [run, ...], text} with `locator('body').ariaSnapshot()`
// (the whole page: Playwright has no cut), timed from the call to its answer, the page loaded first.
const { chromium } = require('playwright-core');

const [executablePath, urlsArg, runsArg] = process.argv.slice(2);

(async () => {
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  for (const url of urlsArg.split(',')) {
    await page.goto(url, { waitUntil: 'load' });
    const ms = [];
    let text = '';
    for (let i = 0; i < Number(runsArg); i++) {
      const t = performance.now();
      text = await page.locator('body').ariaSnapshot({ timeout: 120000 });
      ms.push(performance.now() - t);
    }
    console.log(JSON.stringify({ url, ms, text }));
  }
  await browser.close();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
